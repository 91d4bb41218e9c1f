"""The live state of one resource, and the command that brings it back to a recorded state.

`current_state` reads (never changes) a container's, service's or package's state before
a step touches it; the journal stores that as the step's prior state. `restore_argv`
turns a recorded prior state into the command that restores what the action could have
changed, which is how undo is computed: from what was true before, not from a guessed
inverse of the command; `reinstall_argv` brings back every package a removal took, at
its recorded version. `intended_state_problem` says whether the state a step left is
the one its action was meant to reach (verification).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.model.plan import RESTARTS
from reos.patterns import regex

if TYPE_CHECKING:
    import subprocess
    from typing import Any

RUNNING_STATES = {"running", "restarting", "paused"}
ACTIVE_STATES = {"active", "activating", "reloading"}
ENABLED_STATES = {"enabled", "enabled-runtime"}

# How to put a package back, per package manager (the inverse of install / remove).
PACKAGE_REMOVE = {
    "apt": ["apt-get", "remove", "-y"], "dnf": ["dnf", "remove", "-y"],
    "pacman": ["pacman", "-R", "--noconfirm"], "zypper": ["zypper", "--non-interactive", "remove"],
    "apk": ["apk", "del"],
}
# Holding a package at its version (and letting it go), per package manager that can.
PACKAGE_HOLD = {
    "apt": (["apt-mark", "hold"], ["apt-mark", "unhold"]),
    "dnf": (["dnf", "versionlock", "add"], ["dnf", "versionlock", "delete"]),
    "zypper": (["zypper", "--non-interactive", "addlock"],
               ["zypper", "--non-interactive", "removelock"]),
}
HOLDING = ("hold", "upgrade_except")  # actions that hold their targets
# docker's restart policies, as `docker update --restart=` takes them back
_POLICY = regex(r"^(?:no|always|unless-stopped|on-failure(?::[0-9]{1,4})?)$")
POLICY_ACTIONS = {"restart_policy": "unless-stopped", "restart_policy_off": "no"}
# (apt: never removing anything to do it, which `-y` alone would accept: a package
# installed since that conflicts, or needs the newer version, is the person's own)
_PACKAGE_INSTALL = {
    "apt": ["apt-get", "install", "-y", "--no-remove"], "dnf": ["dnf", "install", "-y"],
    "pacman": ["pacman", "-S", "--noconfirm"],
    "zypper": ["zypper", "--non-interactive", "install"], "apk": ["apk", "add"],
}


def read_file(argv: list[str]) -> subprocess.CompletedProcess[str] | None:
    import subprocess  # deferred: planning computes restore commands but never runs any

    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=20,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


# Kinds whose live state, restore command and intended-state check live in a module of
# their own (reos/system/state_<kind>.py): each defines `current(name)`,
# `restore(name, prior, action)` and `problem(action, state)`, imported on first use.
KIND_MODULES = {"user": "state_users", "group": "state_users", "process": "state_processes",
                "hostname": "state_settings", "timezone": "state_settings",
                "shutdown": "state_settings",
                "system": "state_settings", "mount": "state_disks", "device": "state_disks",
                "interface": "state_net",
                "firewall": "state_net"}


def _module(kind: str) -> Any:
    import importlib

    name = KIND_MODULES.get(kind)
    if name is None:
        return None
    try:
        module = importlib.import_module(f"reos.system.{name}")
    except ImportError:  # a kind whose module is not written yet is not tracked
        return None
    return module if hasattr(module, "current") else None


def current_state(kind: str, name: str) -> dict[str, Any] | None:
    """The state to record before changing a resource, or None when it is not tracked."""
    module = _module(kind)
    if module is not None:
        return module.current(kind, name)
    if kind == "container":
        return _container(name)
    if kind in ("service", "timer"):  # a timer is a unit too
        return _service(name)
    if kind == "package":
        return _package(name)
    return None


def _container(name: str) -> dict[str, Any]:
    import docker.errors  # deferred with the collectors: planning never needs them

    from reos.system.collectors import docker_client
    from reos.system.portable import Unavailable

    try:
        client = docker_client()
    except Unavailable as exc:
        return {"state": "unknown", "reason": str(exc)}
    try:
        container = client.containers.get(name)
        policy = (container.attrs.get("HostConfig") or {}).get("RestartPolicy") or {}
        restart = policy.get("Name") or "no"
        if restart == "on-failure" and policy.get("MaximumRetryCount"):
            restart += f":{policy['MaximumRetryCount']}"
        return {"state": container.status, "id": container.id[:12], "restart": restart}
    except docker.errors.NotFound:
        return {"state": "absent"}
    except docker.errors.DockerException as exc:
        return {"state": "unknown", "reason": str(exc)[:200]}
    finally:
        client.close()


def _service(name: str) -> dict[str, Any]:
    done = read_file(["systemctl", "show", name, "--no-pager",
                  "--property=ActiveState,UnitFileState,LoadState"])
    if done is None or done.returncode != 0:
        return {"active": "unknown", "enabled": "unknown"}
    values = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    return {"active": values.get("ActiveState", "unknown"),
            "enabled": values.get("UnitFileState", "") or "unknown",
            "load": values.get("LoadState", "")}


def _package(name: str) -> dict[str, Any]:
    from reos.system.portable import package_manager

    manager = package_manager()
    if manager == "apt":
        done = read_file(["dpkg-query", "-W", "-f", "${db:Status-Abbrev}\t${Version}", name])
        if done is not None and done.returncode == 0 and done.stdout[:1] in ("i", "h") and (
                done.stdout[1:2] == "i"):  # "ii": installed; "hi": installed and held
            return {"state": "installed", "version": done.stdout.split("\t", 1)[1].strip(),
                    "held": done.stdout.startswith("h")}
    elif manager in ("dnf", "zypper"):
        done = read_file(["rpm", "-q", "--qf", "%{VERSION}-%{RELEASE}", name])
        if done is not None and done.returncode == 0:
            return {"state": "installed", "version": done.stdout.strip()}
    elif manager == "pacman":
        done = read_file(["pacman", "-Q", name])
        if done is not None and done.returncode == 0:
            return {"state": "installed", "version": done.stdout.split()[-1]}
    elif manager == "apk":
        done = read_file(["apk", "info", "-e", name])
        if done is not None and done.returncode == 0 and done.stdout.strip():
            return {"state": "installed", "version": ""}
    else:
        return {"state": "unknown"}
    return {"state": "absent"}


def restore_argv(kind: str, name: str, prior: dict[str, Any] | None,
                 action: str | None = None, manager: str | None = None) -> list[str] | None:
    """The command that returns the resource to `prior`, or None when none can (a restart
    or reload of something running leaves nothing to return to: `reos.model.plan.RESTARTS`;
    of something stopped, it started it, and undo stops it again)."""
    if not prior:
        return None
    if action in RESTARTS:
        return _stop_again(kind, name, prior)
    module = _module(kind)
    if module is not None:
        return module.restore(kind, name, prior, action)
    if kind == "container" and action in POLICY_ACTIONS:
        restart = str(prior.get("restart") or "")
        return ["docker", "update", f"--restart={restart}", name] if _POLICY.match(
            restart) else None  # not recorded (at plan time): said after the step runs
    if kind == "package" and action in (*HOLDING, "unhold"):
        if manager not in PACKAGE_HOLD or prior.get("state") not in (None, "installed"):
            return None
        hold, unhold = PACKAGE_HOLD[manager]
        held = prior.get("held")  # not known before the step: assume it was not / was
        if action == "unhold":
            return None if held is False else [*hold, name]
        return None if held else [*unhold, name]
    if kind == "container":
        state = prior.get("state")
        if action in ("remove", "rm"):
            return None  # a removed container cannot be started again
        if action == "pause":
            return ["docker", "unpause", name] if state in ("running", "restarting") else None
        if action == "unpause":
            return ["docker", "pause", name] if state == "paused" else None
        if state == "paused":
            return None  # stopped from paused: started again it would run, not be paused
        if state in RUNNING_STATES:
            return ["docker", "start", name]
        if state in ("exited", "created", "dead"):
            return ["docker", "stop", name]
        return None
    if kind in ("service", "timer"):  # a timer is a unit too
        return _restore_service(name, prior, action)
    if kind == "package" and manager in PACKAGE_REMOVE:
        state, version = prior.get("state"), prior.get("version")
        if action == "install" and state == "absent":
            return [*PACKAGE_REMOVE[manager], name]
        if action == "remove" and state == "installed":
            pinned = f"{name}={version}" if manager == "apt" and version else name
            return [*_PACKAGE_INSTALL[manager], pinned]
    return None


def settle_argv(kind: str, name: str, prior: dict[str, Any] | None,
                action: str | None = None) -> list[str] | None:
    """Once a step ran, the undo that needs what the step created (an nftables rule's
    handle), or None to keep the one computed from the prior state."""
    module = _module(kind)
    settle = getattr(module, "settle", None) if module is not None else None
    return settle(kind, name, prior, action) if settle is not None else None


def reinstall_argv(manager: str | None, packages: dict[str, str]) -> list[str] | None:
    """The command that installs `packages` (name → version) again at those versions
    ('' or pacman: whatever version the sources offer), or None when none can."""
    if not packages or manager not in _PACKAGE_INSTALL:
        return None
    if manager == "pacman":  # pacman -S cannot pick a version
        return [*_PACKAGE_INSTALL[manager], *packages]
    joiner = "-" if manager == "dnf" else "="  # dnf takes NAME-VERSION-RELEASE
    pins = [f"{n}{joiner}{v}" if v else n for n, v in packages.items()]
    if manager == "apt":  # something newer installed since: going back is a downgrade
        return [*_PACKAGE_INSTALL[manager], "--allow-downgrades", *pins]
    if manager == "zypper":
        return [*_PACKAGE_INSTALL[manager], "--oldpackage", *pins]
    return [*_PACKAGE_INSTALL[manager], *pins]


def _stop_again(kind: str, name: str, prior: dict[str, Any]) -> list[str] | None:
    """Undo of a restart: nothing for what was running (or is not known to have been
    stopped); for what was stopped, which the restart started, stop it again."""
    if kind == "container" and prior.get("state") in ("exited", "created", "dead"):
        return ["docker", "stop", name]
    if kind == "container" and prior.get("state") == "paused":
        return ["docker", "pause", name]  # a restart leaves it running, no longer paused
    if kind in ("service", "timer") and prior.get("active") in ("inactive", "failed"):
        return ["systemctl", "stop", name]
    return None


def _restore_service(name: str, prior: dict[str, Any], action: str | None) -> list[str] | None:
    active = prior.get("active") in ACTIVE_STATES
    enabled_state = prior.get("enabled") or ""
    enabled = enabled_state in ENABLED_STATES
    if action in ("start", "stop"):
        if prior.get("active") in (None, "unknown"):
            return None
        return ["systemctl", "start" if active else "stop", name]
    if action in ("enable", "disable"):
        if enabled_state in ENABLED_STATES or enabled_state == "disabled":
            return ["systemctl", "enable" if enabled else "disable", name]
        return None
    if action in ("enable_now", "disable_now"):
        if active == enabled:
            return ["systemctl", "enable" if enabled else "disable", "--now", name]
        if action == "enable_now":
            return ["systemctl", "stop" if enabled else "disable", name]
        return ["systemctl", "enable" if enabled else "start", name]
    if action == "mask":
        return None if enabled_state.startswith("masked") else ["systemctl", "unmask", name]
    if action == "unmask":
        return ["systemctl", "mask", name] if enabled_state.startswith("masked") else None
    return None


def intended_state_problem(kind: str, action: str | None, state: dict[str, Any]) -> str | None:
    """What is wrong with the state a step should have left, or None when it is right."""
    module = _module(kind)
    if module is not None:
        return module.problem(kind, action, state)
    if kind == "container":
        running = state.get("state") in RUNNING_STATES
        wanted = POLICY_ACTIONS.get(action or "")
        if wanted and state.get("restart") not in (None, wanted):
            return f"restarts {state.get('restart')}, not {wanted}"
        if action in ("stop", "kill") and running:
            return "is still running"
        if action in ("start", "restart") and not running:
            return f"is {state.get('state', 'not running')}, not running"
    elif kind in ("service", "timer"):
        active = state.get("active") in ACTIVE_STATES
        enabled = state.get("enabled", "")
        if action in ("start", "restart", "reload", "enable_now") and not active:
            return f"is {state.get('active')}, not active"
        if action in ("stop", "disable_now") and active:
            return "is still active"
        if action in ("enable", "enable_now") and enabled not in ("enabled", "enabled-runtime"):
            return f"is {enabled or 'not enabled'} at boot"
        if action in ("disable", "disable_now") and enabled in ("enabled", "enabled-runtime"):
            return "is still enabled at boot"
        if action == "mask" and not str(enabled).startswith("masked"):
            return "is not masked"
        if action == "unmask" and str(enabled).startswith("masked"):
            return "is still masked"
    elif kind == "package":
        installed = state.get("state") == "installed"
        if action in ("install", "upgrade") and not installed:
            return "is not installed"
        if action in ("remove", "purge") and installed:
            return "is still installed"
        if action in HOLDING and state.get("held") is False:
            return "is not held"
        if action == "unhold" and state.get("held"):
            return "is still held"
    return None
