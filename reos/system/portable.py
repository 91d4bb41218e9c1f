#!/usr/bin/python
"""What a snapshot needs that Python's standard library alone can read, as plain rows, so
the same code reads this machine and, shipped as an Ansible module, another one.

Here: the listing tool runner every collector reads through (`run_tool`: an argv, a
timeout, no shell), whether systemd runs (`systemd_running`), the error a section that
cannot be known raises (`Unavailable`, with a reason a person can read), and the rows of
the sections a plan for another machine needs: services (systemctl's JSON), packages
(dpkg-query, rpm, pacman, apk), the mounted filesystems (the kernel's table: `mounts`),
users and groups (pwd, grp and, as root, /etc/shadow:
`shadow`), the listening sockets (the kernel's tables under /proc/net, with each owner's
process and systemd unit where this account may see it: `listening`; here facts.py
reads them through psutil, which a host may not have), and the host's facts (os-release,
machine-id, init, package manager, CPUs, memory, boot time). `collectors` and `facts`
turn the rows into the snapshot's records.

From /etc/shadow (readable as root only) it takes, per account, whether the password
field starts with "!" (`password_locked`, as `state_users` reads the lock here; `locked`
counts "*" too, for the readers that want "cannot log in with a password") and the
last-change, maximum-age and expiry fields when they are digits or empty; never the hash,
nor anything else of the password field. For another machine's undo of its time zone it
reads the zone (the /etc/localtime link under /usr/share/zoneinfo, else /etc/timezone):
`settings`.

Run as a program it is an Ansible module of the old "WANT_JSON" kind (it imports nothing
of Ansible's, nor of reos's): Ansible copies this file to the host and runs it with the
path of its arguments; it prints {"changed": false, "snapshot": {…}}, a reos.snapshot/2
document of those sections (SHIPPED), the host and its settings, which the controller
checks like any snapshot from outside (`fleet/snapshots.py`, which also marks the other
sections as not read). Given {"read": "root"} (the controller runs it so with become,
only for hosts whose plan needs it, as the snapshot itself is read as the login account)
it prints {"changed": false, "shadow": {account: {…}}, "listening": […]} instead:
`shadow`'s rows and the listening sockets with every owner, null when not run as root;
with "firewall": true too (a plan
changes a ufw rule there), ufw's rules (`ufw_rules`: the lines of `ufw status` and `ufw
show added`, bounded, or why not). The host facts hold the port the host was reached on
over SSH (`ssh_port`), which a firewall change there must never cut, and whether that
session came in on a loopback address (`ssh_loopback`: a proxy passed it on).

Imports only the standard library, by design: a reos import here would break the module
on a host without reos; and runs on Python 3.8 and later, as hosts have it (the shebang is
Ansible's to replace with the host's interpreter). Read-only: every command here only
lists.
"""

from __future__ import annotations

import grp
import json
import os
import platform
import pwd
import shutil
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

COLLECT_TIMEOUT = 8.0
NO_LOGIN = ("nologin", "false")  # shells (by base name) that refuse an interactive login
FIRST_PERSON_UID = 1000
SHADOW = Path("/etc/shadow")
_MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))
# what a snapshot made here for another machine holds (the module's sections)
SHIPPED = ("services", "packages", "users", "groups", "listening", "containers", "mounts")
MOUNTS = "/proc/self/mounts"
MOUNT_ROWS = 1000  # mounts listed, at most
# the kernel's own views, never a filesystem a person mounts or unmounts
_PSEUDO_FS = frozenset({
    "proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs", "tracefs",
    "securityfs", "pstore", "bpf", "autofs", "configfs", "fusectl", "hugetlbfs",
    "binfmt_misc", "nsfs", "devtmpfs", "rpc_pipefs", "efivarfs", "selinuxfs", "ramfs"})
# filesystems over the network, whose size a hung server would never answer for
_NETWORK_FS = frozenset({"nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "sshfs",
                         "glusterfs", "fuse.glusterfs", "ceph", "9p", "afs"})
DOCKER_SOCKET = "/var/run/docker.sock"
ENGINE_BYTES = 8 * 1024 * 1024  # of the engine's list of containers, at most
ENGINE_ROWS = 2000  # containers listed, at most
ENGINE_SECONDS = 12.0  # for the whole read of the engine, however slowly it answers
INSPECTED = 300  # containers whose restart policy and auto-removal are read, at most
LABELS_KEPT = 64  # of each container's labels
# the states Docker gives a container; any other word from an engine is "unknown"
CONTAINER_STATES = ("created", "restarting", "running", "removing", "paused", "exited",
                    "dead")


class Unavailable(Exception):
    """This section cannot be known right now (the message says why)."""


def run_tool(argv: list[str], timeout: float = COLLECT_TIMEOUT) -> str:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise Unavailable(f"{argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise Unavailable(f"{argv[0]} did not answer within {timeout:.0f}s") from None
    if done.returncode != 0:
        raise Unavailable(f"{' '.join(argv[:2])} failed: {done.stderr.strip()[:200]}")
    return done.stdout


def systemd_running() -> bool:
    return Path("/run/systemd/system").is_dir()


def machine_id() -> str | None:
    for path in _MACHINE_ID_FILES:
        try:
            text = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text:
            return text
    return None


# -- services and packages ----------------------------------------------------------------
def services() -> list[dict[str, str]]:
    if not systemd_running():
        raise Unavailable("systemd is not running on this machine")
    base = ["systemctl", "--no-pager", "--output=json", "--type=service"]
    units = json.loads(run_tool([*base, "--all", "list-units"]) or "[]")
    files = json.loads(run_tool([*base, "list-unit-files"]) or "[]")
    enabled = {f.get("unit_file"): f.get("state", "") for f in files}
    seen: dict[str, dict[str, str]] = {}
    for u in units:
        name = u.get("unit", "")
        seen[name] = {"name": name, "description": u.get("description", ""),
                      "load": u.get("load", ""), "active": u.get("active", ""),
                      "sub": u.get("sub", ""), "enabled": enabled.get(name, "")}
    for name, state in enabled.items():
        if name and name not in seen and not name.endswith("@.service"):
            seen[name] = {"name": name, "description": "", "load": "loaded",
                          "active": "inactive", "sub": "dead", "enabled": state}
    return sorted(seen.values(), key=lambda s: s["name"])


def package_manager() -> str | None:
    for manager, tool in (("apt", "dpkg-query"), ("dnf", "rpm"), ("pacman", "pacman"),
                          ("apk", "apk"), ("zypper", "rpm")):
        if shutil.which(tool) and (manager != "dnf" or shutil.which("dnf") or
                                   not shutil.which("zypper")):
            return manager
    return None


def packages() -> list[dict[str, str]]:
    """Installed packages: name, version and the one-line summary where there is one."""
    manager = package_manager()
    if manager == "apt":
        text = run_tool(["dpkg-query", "-W", "-f",
                         "${db:Status-Abbrev}\t${Package}\t${Version}\t${binary:Summary}\n"])
        rows = [line.split("\t") for line in text.splitlines()]
        found = [(r[1], r[2], r[3]) for r in rows if len(r) == 4 and r[0].startswith("ii")]
    elif manager in ("dnf", "zypper"):
        text = run_tool(["rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\t%{SUMMARY}\n"])
        found = [tuple(line.split("\t", 2)) for line in text.splitlines()  # type: ignore[misc]
                 if line.count("\t") == 2]
    elif manager == "pacman":
        text = run_tool(["pacman", "-Q"])
        found = [(*line.split(" ", 1), "") for line in text.splitlines()  # type: ignore[misc]
                 if " " in line]
    elif manager == "apk":
        text = run_tool(["apk", "info", "-v"])
        found = [(*_split_apk(line), "") for line in text.splitlines() if line]
    else:
        raise Unavailable("no supported package manager (apt, dnf, pacman, zypper, apk)")
    return [{"name": name, "version": version, "description": summary}
            for name, version, summary in sorted(found)]


def _split_apk(line: str) -> tuple[str, str]:
    # apk prints name-version-release, e.g. "musl-1.2.4-r2"
    parts = line.rsplit("-", 2)
    return (parts[0], "-".join(parts[1:])) if len(parts) == 3 else (line, "")


# -- users and groups ---------------------------------------------------------------------
SHADOW_DAYS = 10  # digits of one /etc/shadow date field sent, at most


def _shadow_text() -> str | None:
    try:
        return SHADOW.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _locked_names(text: str | None) -> set[str]:
    """Users whose password field starts with "!" or "*" (empty when /etc/shadow is
    not readable, i.e. when not root: `locked` is then false for everyone)."""
    locked = set()
    for line in (text or "").splitlines():
        name, _, rest = line.partition(":")
        if rest.startswith(("!", "*")):
            locked.add(name)
    return locked


def _days(text: str) -> bool:
    """A shadow date field as written: ASCII digits, or empty (none)."""
    return len(text) <= SHADOW_DAYS and all(c in "0123456789" for c in text)


def shadow(text: str | None = None) -> dict[str, dict[str, Any]]:
    """Each account's lock and password dates from /etc/shadow, as `state_users` reads
    them on this machine: `password_locked` (the password field starts with "!"), and
    `last_change`, `max_days`, `expiry` (days; "" for none), each only when it is digits
    or empty. The password field is looked at for its first character only; nothing
    else of it is kept. Empty when /etc/shadow cannot be read (not root)."""
    text = _shadow_text() if text is None else text
    found: dict[str, dict[str, Any]] = {}
    for line in (text or "").splitlines():
        fields = line.split(":")
        if len(fields) < 8 or not fields[0] or fields[0] in found:
            continue  # the first line of a name counts, as for the tools
        row: dict[str, Any] = {"password_locked": fields[1].startswith("!")}
        for key, index in (("last_change", 2), ("max_days", 4), ("expiry", 7)):
            if _days(fields[index]):
                row[key] = fields[index]
        found[fields[0]] = row
    return found


def users() -> list[dict[str, Any]]:
    try:
        accounts = pwd.getpwall()
        groups_ = grp.getgrall()
    except OSError as exc:
        raise Unavailable(f"cannot read the user database: {exc}") from None
    by_gid = {g.gr_gid: g.gr_name for g in groups_}
    member_of: dict[str, list[str]] = {}
    for g in groups_:
        for name in g.gr_mem:
            member_of.setdefault(name, []).append(g.gr_name)
    text = _shadow_text()
    locked, dates = _locked_names(text), shadow(text)
    out = []
    for a in accounts:
        primary = by_gid.get(a.pw_gid, str(a.pw_gid))
        extra = sorted(set(member_of.get(a.pw_name, [])) - {primary})
        shell_name = os.path.basename(a.pw_shell)
        out.append({
            "name": a.pw_name, "uid": a.pw_uid, "gid": a.pw_gid, "home": a.pw_dir,
            "shell": a.pw_shell, "groups": [primary, *extra],
            "locked": a.pw_name in locked,
            "system": a.pw_uid < FIRST_PERSON_UID or shell_name in NO_LOGIN,
            "gecos": a.pw_gecos, **dates.get(a.pw_name, {})})
    return out


def groups() -> list[dict[str, Any]]:
    try:
        found = grp.getgrall()
    except OSError as exc:
        raise Unavailable(f"cannot read the group database: {exc}") from None
    return [{"name": g.gr_name, "gid": g.gr_gid, "members": list(g.gr_mem)} for g in found]


# -- the host -----------------------------------------------------------------------------
def host() -> dict[str, Any]:
    """The host's facts that need no engine socket (collectors adds the container
    runtime)."""
    release = os_release()
    return {
        "hostname": socket.gethostname(),
        "machine_id": machine_id(),
        "distro_id": release.get("ID", platform.system().lower()),
        "distro_version": release.get("VERSION_ID", ""),
        "kernel": platform.release(),
        "is_root": os.geteuid() == 0,
        "user": person(),
        "init": "systemd" if systemd_running() else _pid1(),
        "package_manager": package_manager(),
        "cpu_count": os.cpu_count(),
        "memory_total_bytes": _memory_total(),
        "boot_time": _boot_time(),
        "ssh_port": ssh_port(),
        "ssh_loopback": ssh_loopback(),
    }


def ssh_port() -> int | None:
    """The port this machine was reached on over SSH (the fourth word of SSH_CONNECTION,
    which sshd sets for the session a module runs in), or None: not reached over SSH."""
    words = os.environ.get("SSH_CONNECTION", "").split()
    if len(words) == 4 and words[3].isdigit() and 0 < int(words[3]) < 65536:
        return int(words[3])
    return None


def ssh_client() -> str | None:
    """The address the SSH session this runs in comes from, as this machine's firewall
    sees it (the first word of SSH_CONNECTION; an IPv4 address sshd writes as IPv6,
    ::ffff:…, as IPv4), or None: not reached over SSH."""
    words = os.environ.get("SSH_CONNECTION", "").split()
    if len(words) != 4:
        return None
    address = words[0].lower()
    return address[7:] if address.startswith("::ffff:") else address


def ssh_loopback() -> bool | None:
    """Whether the SSH session this runs in reached this machine on a loopback address
    (the third word of SSH_CONNECTION): a proxy or tunnel on the machine (sslh, haproxy)
    passed it on, so the port it came in on is not the port it was reached on; None when
    not reached over SSH."""
    words = os.environ.get("SSH_CONNECTION", "").split()
    if len(words) != 4:
        return None
    address = words[2].lower()
    address = address[7:] if address.startswith("::ffff:") else address  # 3.8: no removeprefix
    return address.startswith("127.") or address in ("::1", "localhost")


def os_release() -> dict[str, str]:
    """/etc/os-release's fields (Python's own reader where it has one: 3.10 and later)."""
    reader = getattr(platform, "freedesktop_os_release", None)
    if reader is not None:
        try:
            return dict(reader())
        except OSError:
            return {}
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = {}
        for line in text.splitlines():
            name, sep, value = line.partition("=")
            if sep and name.strip().isidentifier():
                found[name.strip()] = value.strip().strip("\"'")
        return found
    return {}


def person() -> str:
    """The account of the person reos works for: the one that ran sudo when reos runs
    under it, else the one it runs as ("add me to the docker group")."""
    by_sudo = os.environ.get("SUDO_USER", "")
    try:
        if by_sudo and by_sudo != "root":
            return pwd.getpwnam(by_sudo).pw_name
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return ""


def _pid1() -> str:
    try:
        return Path("/proc/1/comm").read_text().strip()
    except OSError:
        return ""


def _memory_total() -> int | None:
    """MemTotal from /proc/meminfo, in bytes."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _boot_time() -> str | None:
    """When the machine booted (btime in /proc/stat), ISO 8601 in UTC."""
    try:
        for line in Path("/proc/stat").read_text().splitlines():
            if line.startswith("btime "):
                # timezone.utc, not datetime.UTC (3.11): hosts may run Python 3.8
                return datetime.fromtimestamp(int(line.split()[1]),
                                              timezone.utc).isoformat()  # noqa: UP017
    except (OSError, ValueError, IndexError):
        pass
    return None


# -- as an Ansible module -----------------------------------------------------------------
def shipped_snapshot() -> dict[str, Any]:
    """The reos.snapshot/2 document this module gives: the SHIPPED sections and the host;
    a section that cannot be read is listed as unavailable, with why."""
    snapshot: dict[str, Any] = {
        "schema": "reos.snapshot/2",
        "collected_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "unavailable": {}}
    readers = {"services": services, "packages": packages, "users": users,
               "groups": groups, "listening": listening, "containers": containers,
               "mounts": mounts}
    for name in SHIPPED:
        try:
            snapshot[name] = readers[name]()
        except Unavailable as exc:
            snapshot["unavailable"][name] = str(exc)
        except Exception as exc:  # noqa: BLE001 - one section's failure is said, not raised
            snapshot["unavailable"][name] = f"reading it failed ({type(exc).__name__})"
    try:
        snapshot["host"] = host()
        snapshot["host"].update(homes())
        snapshot["host"].update(settings())
        snapshot["host"].update(session_passers())
        snapshot["host"].update(own_container())
    except Exception as exc:  # noqa: BLE001
        snapshot["host"] = {"hostname": socket.gethostname()}
        snapshot["unavailable"]["host"] = f"host facts incomplete ({type(exc).__name__})"
    return snapshot


# -- mounts -------------------------------------------------------------------------------
def _unescaped(field: str) -> str:
    """A field of the kernel's mount table, its octal escapes ("\\040" for a space) read."""
    out, i = [], 0
    while i < len(field):
        code = field[i + 1:i + 4]
        if field[i] == "\\" and len(code) == 3 and all(c in "01234567" for c in code):
            out.append(chr(int(code, 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mount_table(path: str = MOUNTS) -> list[dict[str, str]]:
    """Every line of the kernel's mount table as {device, mountpoint, fstype, options},
    the mount on top last (raises OSError when it cannot be read)."""
    with open(path, encoding="utf-8", errors="replace") as table:
        lines = table.read(4 * 1024 * 1024).splitlines()
    return [{"device": _unescaped(fields[0]), "mountpoint": _unescaped(fields[1]),
             "fstype": fields[2], "options": fields[3]}
            for fields in (line.split() for line in lines) if len(fields) >= 4]


def mounts(path: str = MOUNTS) -> list[dict[str, Any]]:
    """The filesystems mounted here (the kernel's table, not fstab), with their device,
    type and options, as `state_disks` reads a mount before changing it; and their size,
    free and used bytes where statvfs answers (never for a filesystem over the network or
    in user space, FUSE, which a hung server would leave unanswered). The kernel's own
    views (proc, sysfs, cgroups…) are left out; at most MOUNT_ROWS."""
    try:
        table = mount_table(path)
    except OSError as exc:
        raise Unavailable(f"{path} could not be read ({exc.strerror})") from None
    rows: list[dict[str, Any]] = []
    for mount in table:
        if mount["fstype"] in _PSEUDO_FS:
            continue
        row: dict[str, Any] = {**mount, "total": 0, "used": 0, "free": 0}
        if mount["fstype"] not in _NETWORK_FS and not mount["fstype"].startswith("fuse"):
            try:
                stat = os.statvfs(mount["mountpoint"])
                row["total"] = stat.f_blocks * stat.f_frsize
                row["free"] = stat.f_bavail * stat.f_frsize
                row["used"] = (stat.f_blocks - stat.f_bfree) * stat.f_frsize
            except OSError:
                pass  # not ours to read, or gone: known mounted, size unknown
        rows.append(row)
        if len(rows) >= MOUNT_ROWS:
            break
    return rows


# -- containers ---------------------------------------------------------------------------
_CONNECTION: list[Any] = []  # the engine's connection class, made once, when first needed


def _engine_connection(path: str, timeout: float) -> Any:
    """HTTP to the Docker engine over its UNIX socket (the docker SDK, which reos uses
    here, is not on another machine). http.client is imported only then: it costs a
    plan's start on this machine, which reads containers through the SDK."""
    if not _CONNECTION:
        import http.client

        class EngineConnection(http.client.HTTPConnection):
            def __init__(self, path: str, timeout: float) -> None:
                super().__init__("localhost", timeout=timeout)
                self._path = path

            def connect(self) -> None:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(self.timeout)
                try:
                    sock.connect(self._path)
                except OSError:
                    sock.close()
                    raise
                self.sock = sock

        _CONNECTION.append((EngineConnection, http.client.HTTPException))
    return _CONNECTION[0][0](path, timeout)


def containers(path: str = DOCKER_SOCKET) -> list[dict[str, Any]]:
    """The Docker engine's containers, running or not, as rows of the snapshot's
    containers (name, id, image, state, status, labels, ports as `docker ps` prints
    them, and each one's restart policy and whether Docker removes it once it stops),
    read from its API on the UNIX socket `path`, all within ENGINE_SECONDS. None
    installed (no socket, no docker program): no containers. Unavailable, with why,
    when an engine is there but does not answer in time, the account may not use its
    socket, what it sends is not a list, or the docker program here talks to another
    engine (DOCKER_HOST or a context other than the default), so that what is read is
    the engine a step's `docker` changes."""
    named = os.environ.get("DOCKER_HOST", "")
    if named and not named.startswith("unix://"):
        raise Unavailable("DOCKER_HOST names an engine that is not a local socket")
    context = _docker_context()
    if context:
        raise Unavailable(f"the docker program here uses the context {context!r}, not the "
                          "engine on the local socket")
    path = named[len("unix://"):] if named else path
    if not os.path.exists(path):
        if shutil.which("docker") or shutil.which("dockerd"):
            raise Unavailable(f"Docker is installed but its engine is not running ({path} "
                              "is missing)")
        return []
    import threading  # only here: a plan's start on this machine does without it

    outcome: list[Any] = []
    reader = threading.Thread(target=_read_engine, args=(path, outcome), daemon=True)
    reader.start()
    reader.join(ENGINE_SECONDS)
    if not outcome:
        raise Unavailable(f"the Docker engine did not answer within {ENGINE_SECONDS:.0f} s")
    if isinstance(outcome[0], Unavailable):
        raise outcome[0]
    # the rows as they are now: those not inspected in time say nothing of their restart
    # policy or auto-removal, so no change that needs them runs
    return sorted((dict(row) for row in outcome[0]), key=lambda row: row["name"])


def own_container(cgroup: str = "/proc/self/cgroup") -> dict[str, Any]:
    """Whether this module, and so reos's SSH session, runs inside a container
    (`in_container`), and that container's short id when its control group says it
    (`container_id`, "" when not known): a container of the engine read there must not
    be stopped, nor the engine itself, if it is the one reos's session runs in."""
    ident = ""
    try:
        with open(cgroup, encoding="utf-8", errors="replace") as handle:
            text = handle.read(65536)
    except OSError:
        text = ""
    for line in text.splitlines():
        for part in line.rsplit(":", 1)[-1].split("/"):
            word = part
            for prefix in ("docker-", "libpod-", "cri-containerd-", "crio-"):
                if word.startswith(prefix):
                    word = word[len(prefix):]
            word = word[:-6] if word.endswith(".scope") else word
            if len(word) == 64 and all(c in "0123456789abcdef" for c in word):
                ident = word[:12]
    inside = bool(ident) or any(os.path.exists(p) for p in ("/.dockerenv",
                                                            "/run/.containerenv"))
    return {"in_container": inside, "container_id": ident}


def _docker_context() -> str:
    """The docker program's context when it is not the default one ("" otherwise): from
    DOCKER_CONTEXT, else the currentContext of its config.json."""
    said = os.environ.get("DOCKER_CONTEXT", "")
    if said:
        return "" if said == "default" else said[:100]
    folder = os.environ.get("DOCKER_CONFIG") or os.path.join(os.path.expanduser("~"),
                                                             ".docker")
    try:
        with open(os.path.join(folder, "config.json"), encoding="utf-8") as handle:
            config = json.loads(handle.read(1024 * 1024))
    except (OSError, ValueError):
        return ""
    current = config.get("currentContext") if isinstance(config, dict) else None
    return str(current)[:100] if current and current != "default" else ""


def _read_engine(path: str, outcome: list[Any]) -> None:
    """The rows (or the Unavailable) appended to `outcome`, then each row completed by
    its inspect: run in a thread, so that an engine answering a byte at a time cannot
    hold the module past its deadline, and the list read in time is kept."""
    try:
        found = _engine_get(path, "/containers/json?all=1")
        if not isinstance(found, list) or len(found) > ENGINE_ROWS:
            raise Unavailable("the Docker engine sent no list of containers, or too many")
        listed = [c for c in found if isinstance(c, dict)]
        rows = [_container_row(attrs) for attrs in listed]
        outcome.append(rows)  # the list, whatever the inspects below come to in time
        for n in range(min(len(rows), INSPECTED)):  # (no zip(strict=) on Python 3.8)
            rows[n].update(_inspected(path, str(listed[n].get("Id") or "")))
    except Unavailable as exc:
        outcome.append(exc)
    except Exception as exc:  # noqa: BLE001 - whatever an engine sends is said, not raised
        outcome.append(Unavailable(f"the Docker engine's answer could not be read "
                                   f"({type(exc).__name__})"))


def _engine_get(path: str, url: str) -> Any:
    """The JSON the engine answers to GET `url`, or Unavailable saying why not."""
    connection = _engine_connection(path, COLLECT_TIMEOUT)
    try:
        connection.request("GET", url)
        answer = connection.getresponse()
        body = answer.read(ENGINE_BYTES + 1)
    except PermissionError:
        raise Unavailable("this account may not use the Docker engine's socket (it is not "
                          "in the docker group)") from None
    except (OSError, _CONNECTION[0][1]) as exc:
        raise Unavailable(f"the Docker engine did not answer ({type(exc).__name__})") from None
    finally:
        connection.close()
    if answer.status != 200:
        raise Unavailable(f"the Docker engine's list of containers could not be read "
                          f"(HTTP {answer.status})")
    if len(body) > ENGINE_BYTES:
        raise Unavailable("the Docker engine's list of containers is larger than reos reads")
    try:
        return json.loads(body)
    except ValueError:
        raise Unavailable("the Docker engine sent no list of containers") from None


def _inspected(path: str, ident: str) -> dict[str, Any]:
    """A container's restart policy and whether Docker removes it once it stops (run with
    --rm), from its inspect; empty when the engine does not say."""
    if not ident or not all(c in "0123456789abcdef" for c in ident):
        return {}
    try:
        found = _engine_get(path, f"/containers/{ident}/json")
    except Unavailable:
        return {}
    config = found.get("HostConfig") if isinstance(found, dict) else None
    if not isinstance(config, dict):
        return {}
    policy = config.get("RestartPolicy")
    name = policy.get("Name") if isinstance(policy, dict) else None
    auto = config.get("AutoRemove")
    out: dict[str, Any] = {}
    if isinstance(name, str) and name in ("", "no", "always", "unless-stopped",
                                          "on-failure"):
        out["restart"] = name or "no"
    if isinstance(auto, bool):
        out["auto_remove"] = auto
    return out


def _container_row(attrs: dict[str, Any]) -> dict[str, Any]:
    names = attrs.get("Names")
    first = names[0] if isinstance(names, list) and names and isinstance(names[0], str) \
        else ""
    given = attrs.get("Labels")
    labels: dict[Any, Any] = given if isinstance(given, dict) else {}
    state = str(attrs.get("State") or "")
    return {"name": first.lstrip("/"), "id": str(attrs.get("Id") or "")[:12],
            "image": str(attrs.get("Image") or ""),
            "state": state if state in CONTAINER_STATES else "unknown",
            "status": str(attrs.get("Status") or "")[:200],
            "labels": {str(k): str(v) for k, v in list(labels.items())[:LABELS_KEPT]},
            "ports": published_ports(attrs.get("Ports") or [])}


def published_ports(ports: Any) -> list[str]:
    """Published ports as `docker ps` prints them ("0.0.0.0:8080->80/tcp"); exposed-only
    ones as "80/tcp"."""
    out: list[str] = []
    for p in ports if isinstance(ports, list) else ():
        if not isinstance(p, dict) or not p.get("PrivatePort"):
            continue
        inside = f"{p['PrivatePort']}/{p.get('Type') or 'tcp'}"
        public = p.get("PublicPort")
        item = f"{p.get('IP') or '0.0.0.0'}:{public}->{inside}" if public else inside
        if item not in out:
            out.append(item)
    return out


TIMEZONE_FILE = Path("/etc/timezone")
LOCALTIME = Path("/etc/localtime")
ZONEINFO = "/usr/share/zoneinfo/"


def settings() -> dict[str, Any]:
    """The settings another machine's undo sets back, as host facts: `timezone` (the zone
    /etc/localtime links to under /usr/share/zoneinfo, which timedatectl writes, else
    /etc/timezone's first line), only when it could be read; the controller checks it as
    it checks a value a request gives before it reaches an argv."""
    zone = _linked_zone() or _first_line(TIMEZONE_FILE)
    return {"timezone": zone[:256]} if zone else {}


def _first_line(path: Path) -> str:
    """The first line of `path` that is neither empty nor a comment, stripped."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                text = line.strip()
                if text and not text.startswith("#"):
                    return text
    except OSError:
        pass
    return ""


def _linked_zone() -> str:
    """The zone /etc/localtime links to ("../usr/share/zoneinfo/Europe/Berlin" is
    Europe/Berlin); "" when it is no link, or links anywhere else."""
    try:
        target = os.readlink(LOCALTIME)
    except OSError:
        return ""
    path = os.path.normpath(os.path.join(os.path.dirname(str(LOCALTIME)), target))
    return path[len(ZONEINFO):] if path.startswith(ZONEINFO) else ""


HOMES_LISTED = 5000  # names in the home base folder a snapshot lists, at most


def home_base() -> str:
    """The folder `useradd -m` makes new homes in: HOME in /etc/default/useradd, else
    /home."""
    try:
        with open("/etc/default/useradd", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, _, value = line.strip().partition("=")
                if key == "HOME" and value.startswith("/"):
                    return value.rstrip("/") or "/"
    except OSError:
        pass
    return "/home"


def homes() -> dict[str, Any]:
    """The home base folder and the names in it ({"home_base", "homes"}), so a new
    account's undo knows whether its home was free before (then it may remove it). A
    host fact is one value, so the names are joined by "/", which no file name holds; no
    "homes" when the folder cannot be listed or holds more than HOMES_LISTED names."""
    base = home_base()
    try:
        names = sorted(os.listdir(base))
    except OSError:
        return {"home_base": base}
    return {"home_base": base,
            **({"homes": "/".join(names)} if len(names) <= HOMES_LISTED else {})}


# -- what listens, and what carries reos's session (the kernel's tables) -----------------
LISTEN_ROWS = 4000  # listening sockets sent, at most
PASSERS = 32  # processes that carry the session, at most (more: not known)
_TCP_LISTEN, _TCP_ESTABLISHED, _UDP_UNCONNECTED = "0A", "01", "07"  # st of /proc/net/*
if TYPE_CHECKING:  # never at run time: Python 3.8 has no tuple[...]
    Ends = tuple[tuple[str, int], tuple[str, int]]  # a TCP socket's (local, remote)


def listening(proc: Path = Path("/proc")) -> list[dict[str, Any]]:
    """The TCP sockets that listen and the UDP ones bound but not connected, as psutil
    lists them here (/proc/net/{tcp,tcp6,udp,udp6}): each one's protocol, address, port
    and, where this account may read the owner's /proc/PID/fd (all of them as root),
    its process id, its name (/proc/PID/comm) and the systemd unit it runs in
    (`unit_of`); else pid null and "" for those. Unavailable when neither TCP table can
    be read, or when they hold more than LISTEN_ROWS (never a part of them)."""
    owners, _ = _socket_owners(proc)
    found: dict[tuple[str, str, int, int | None], dict[str, Any]] = {}
    read = False
    for proto, table, state in (("tcp", "tcp", _TCP_LISTEN), ("tcp", "tcp6", _TCP_LISTEN),
                                ("udp", "udp", _UDP_UNCONNECTED),
                                ("udp", "udp6", _UDP_UNCONNECTED)):
        rows = _table(proc, table)
        read = read or (rows is not None and proto == "tcp")
        for (local, remote), st, inode in rows or ():
            if st != state or local[1] == 0 or (proto == "udp" and remote[1] != 0):
                continue  # a connected UDP socket: psutil does not list it as bound
            pid, name = owners.get(inode, (None, ""))
            found.setdefault((proto, local[0], local[1], pid), {
                "proto": proto, "address": local[0], "port": local[1], "pid": pid,
                "process": name, "unit": "" if pid is None else unit_of(pid, proc)})
            if len(found) > LISTEN_ROWS:
                raise Unavailable(f"more than {LISTEN_ROWS} sockets listen")
    if not read:
        raise Unavailable("the kernel's TCP tables (/proc/net/tcp) could not be read")
    return sorted(found.values(), key=lambda r: (r["port"], r["proto"], r["address"],
                                                 r["pid"] or 0))


def session_passers(proc: Path = Path("/proc"), ports: Any = ()) -> dict[str, str]:
    """What carries the SSH session this runs in on this machine, as host facts: the
    processes at the other end of sshd's connection when that end is here (a proxy or
    multiplexer such as sslh or haproxy, a relay, an SSH tunnel's client), and those at
    the other end of theirs, and so on; `ssh_passers`, each one's name and the systemd
    units and scopes of its control group ("sslh sslh.service", "" when the connection
    comes from another machine), and `ssh_passer_pids`; or `ssh_passers_unknown`, why
    that could not be read (an owner this account may not see: read as root then).
    sshd's connection is SSH_CONNECTION's; where sudo took that away, every connection
    into sshd (on `ports`, the ones SSH saw as the login, and those sshd or systemd's
    socket listen on), so what carries any of them counts."""
    if _table(proc, "tcp") is None:
        return {"ssh_passers_unknown": "the kernel's TCP table could not be read"}
    rows = _connections(proc)
    by_ends = {ends: inode for ends, inode in rows}
    owners, held = _socket_owners(proc)
    session = _session(proc, rows, owners, ports)
    if isinstance(session, str):
        return {"ssh_passers_unknown": session}
    seen: set[Ends] = set(session)  # sshd's own ends: never its own carrier
    todo = [(remote, local) for local, remote in session]  # the other end's
    passers: dict[int, tuple[str, list[str]]] = {}
    while todo:
        ends = todo.pop()
        if ends in seen:
            continue
        seen.add(ends)
        peer = by_ends.get(ends)
        if peer is None and _guest(proc, ends[0][0]):
            return {"ssh_passers_unknown": "the session comes from a container or a virtual "
                                           "machine here, which reos cannot look into"}
        if peer is None:
            continue  # the other end is another machine's
        owner = owners.get(peer)
        if owner is None:
            return {"ssh_passers_unknown": "something on the host carries reos's session, "
                                           "and this account may not see what"}
        if owner[0] in passers:
            continue
        if not owner[1] or any(c.isspace() for c in owner[1]):
            return {"ssh_passers_unknown": "what carries reos's session has no name reos "
                                           "can read"}
        passers[owner[0]] = (owner[1], [*units_of(owner[0], proc),
                                        *_account(proc, owner[0])])
        if len(passers) > PASSERS:
            return {"ssh_passers_unknown": f"more than {PASSERS} processes carry it"}
        # what connects to it here: the other end of each of its connections
        todo += [(remote, local) for (local, remote), inode in rows
                 if inode in held.get(owner[0], ())]
    return {"ssh_passers": " ".join(sorted({word for name, units in passers.values()
                                            for word in (name, *units)})),
            "ssh_passer_pids": " ".join(str(pid) for pid in sorted(passers))}


def _comm(path: Path) -> str:
    """A process's name as the kernel keeps it (its last newline only taken off)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[:-1] if text.endswith("\n") else text


def _connections(proc: Path) -> list[tuple[Ends, str]]:
    """The established TCP connections of every network namespace this account may see
    (a container's are not in /proc/net/tcp: each namespace's table is read through one
    of its processes); one not seen is for `_guest` to tell."""
    rows: dict[str, Ends] = {}
    spaces: set[str] = set()
    places = [proc]
    try:
        pids = [entry for entry in os.listdir(proc) if entry.isdigit()]
    except OSError:
        pids = []
    for pid in pids:
        try:
            space = os.readlink(proc / pid / "ns" / "net")
        except OSError:
            continue
        if space not in spaces:
            spaces.add(space)
            places.append(proc / pid)
    for place in places:
        for table in ("tcp", "tcp6"):
            for ends, st, inode in _table(place, table) or ():
                if st == _TCP_ESTABLISHED:
                    rows.setdefault(inode, ends)
    return [(ends, inode) for inode, ends in rows.items()]


def _guest(proc: Path, address: str) -> bool:
    """Whether `address` is on a network this machine reaches straight through a link
    of its own that is no device and not the one its default route leaves by (a bridge
    such as docker0 or virbr0, a veth, a tap, a pod's link): it may be a container's or
    a virtual machine's here, as /proc/net/route (ipv6_route) and /sys/class/net say.
    An address the tables cannot place is one."""
    try:
        if ":" in address:
            number = int.from_bytes(socket.inet_pton(socket.AF_INET6, address), "big")
            routes = [(int(w[0], 16), int(w[1], 16), int(w[4], 16) == 0, w[9])
                      for w in (line.split() for line in _lines(proc / "net" / "ipv6_route"))
                      if len(w) >= 10]
            routes = [(dest, (~0 << (128 - bits)) & ((1 << 128) - 1) if bits else 0, on,
                       link) for dest, bits, on, link in routes
                      if dest >> 118 != 0x3FA and dest >> 120 != 0xFF]  # fe80::/10, ff::/8
        else:
            number = int.from_bytes(socket.inet_aton(address), sys.byteorder)
            routes = [(int(w[1], 16), int(w[7], 16), int(w[2], 16) == 0, w[0])
                      for w in (line.split() for line in _lines(proc / "net" / "route")[1:])
                      if len(w) >= 8]
    except (OSError, ValueError):
        return True
    uplinks = {link for dest, mask, _, link in routes if dest == 0 and mask == 0}
    for dest, mask, on_link, link in routes:
        if mask and on_link and number & mask == dest and link not in uplinks and (
                _guest_link(link)):
            return True
    return False


def _guest_link(link: str) -> bool:
    """Whether the link is one a machine gives its guests: a bridge (docker0, virbr0),
    a tap (a virtual machine's), a veth or a pod's (cali…, lxc…); never a VPN's tunnel,
    a VLAN or a bond."""
    place = Path("/sys/class/net") / link
    flags = _first_line(place / "tun_flags")
    return (place / "bridge").is_dir() or link.startswith(
        ("veth", "vnet", "cali", "lxc", "tap", "virbr", "docker", "br-", "cni", "podman",
         "flannel", "cilium")) or (flags.startswith("0x") and bool(int(flags, 16) & 0x2))


def _account(proc: Path, pid: int) -> list[str]:
    """"user:NAME" for the account process `pid` runs as (its real uid), [] when not
    known."""
    for line in _lines(proc / str(pid) / "status"):
        if line.startswith("Uid:") and len(line.split()) > 1 and line.split()[1].isdigit():
            try:
                return ["user:" + pwd.getpwuid(int(line.split()[1])).pw_name]
            except KeyError:
                return []
    return []


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _session(proc: Path, rows: list[tuple[Ends, str]], owners: dict[str, tuple[int, str]],
             ports: Any) -> list[Ends] | str:
    """sshd's end of the SSH connection this runs over: SSH_CONNECTION's ("client port
    server port"); without it (sudo leaves it out), every connection into sshd: on
    `ports` and on those sshd or systemd (its socket unit) listens on; why, when there
    is none of these."""
    words = os.environ.get("SSH_CONNECTION", "").split()
    if len(words) == 4 and words[1].isdigit() and words[3].isdigit():
        return [((_plain(words[2]), int(words[3])), (_plain(words[0]), int(words[1])))]
    into = {p for p in ports if isinstance(p, int) and not isinstance(p, bool)} if (
        isinstance(ports, list)) else set()
    for table in ("tcp", "tcp6"):
        for (local, _), st, inode in _table(proc, table) or ():
            owner = owners.get(inode)
            if st == _TCP_LISTEN and owner and (owner[1] == "sshd" or owner[0] == 1):
                into.add(local[1])
    ends = [e for e, _ in rows if e[0][1] in into]
    return ends or "no SSH session could be found"


def _plain(address: str) -> str:
    address = address.lower().split("%", 1)[0]  # fe80::1%eth0: the table has no zone
    return address[7:] if address.startswith("::ffff:") and "." in address else address


def _table(proc: Path, table: str) -> list[tuple[Ends, str, str]] | None:
    """The sockets of /proc/net/`table` (tcp, tcp6, udp, udp6): each one's (local,
    remote) ends, state and inode; None when the table cannot be read (no IPv6 here)."""
    try:
        lines = (proc / "net" / table).read_text(encoding="ascii").splitlines()[1:]
    except (OSError, UnicodeDecodeError):
        return None
    found = []
    for line in lines:
        words = line.split()
        if len(words) < 10 or not words[9].isdigit():
            continue
        local, remote = _address(words[1]), _address(words[2])
        if local[0] is not None and remote[0] is not None:
            found.append((((local[0], local[1]), (remote[0], remote[1])), words[3],
                          words[9]))
    return found


def _address(text: str) -> tuple[str | None, int]:
    """"0100007F:0016" (as the kernel writes an address: each 32-bit word in the host's
    byte order) as ("127.0.0.1", 22); (None, 0) when it is not one."""
    host, _, port = text.partition(":")
    try:
        raw = bytes.fromhex(host)
        number = int(port, 16)
    except ValueError:
        return None, 0
    if len(raw) not in (4, 16):
        return None, 0
    words = b"".join(raw[i:i + 4][::-1] if sys.byteorder == "little" else raw[i:i + 4]
                     for i in range(0, len(raw), 4))
    family = socket.AF_INET if len(raw) == 4 else socket.AF_INET6
    return _plain(socket.inet_ntop(family, words)), number


def _socket_owners(proc: Path) -> tuple[dict[str, tuple[int, str]], dict[int, list[str]]]:
    """Each socket inode this account may see the owner of: (pid, name); and the socket
    inodes each such process holds."""
    owners: dict[str, tuple[int, str]] = {}
    held: dict[int, list[str]] = {}
    try:
        pids = [entry for entry in os.listdir(proc) if entry.isdigit()]
    except OSError:
        return owners, held
    for pid in pids:
        try:
            fds = os.listdir(proc / pid / "fd")
        except OSError:
            continue  # another account's, or gone
        inodes = []
        for fd in fds:
            try:
                link = os.readlink(proc / pid / "fd" / fd)
            except OSError:
                continue
            if link.startswith("socket:[") and link.endswith("]"):
                inodes.append(link[8:-1])
        if inodes:
            held[int(pid)] = inodes
            who = (int(pid), _comm(proc / pid / "comm"))
            for inode in inodes:
                owners.setdefault(inode, who)
    return owners, held


def units_of(pid: int, proc: Path = Path("/proc")) -> list[str]:
    """The systemd services and scopes process `pid` runs in, outermost first, from its
    control group's path below this machine's own (init's: a machine that is itself a
    container sees its processes under /docker/…): "user@1000.service", "relay.service";
    "docker-….scope" for a container's, "session-3.scope" for a login's, and
    "container.scope" for a container's without systemd (/docker/ID, /lxc/…, kubepods);
    [] when none (a kernel thread, no systemd, gone)."""
    path = _cgroup(proc / str(pid) / "cgroup")
    own = _cgroup(proc / "1" / "cgroup").rsplit("/", 1)[0]  # "/init.scope" -> ""
    if own and path.startswith(own + "/"):
        path = path[len(own):]
    parts = [p for p in path.split("/") if p]
    found = [p for p in parts if p.endswith((".service", ".scope"))]
    if any(p in ("docker", "lxc", "machine") or p.startswith(
            ("kubepods", "libpod", "crio", "containerd", "lxc.payload", "lxc.monitor"))
            for p in parts):
        found.append("container.scope")
    return found


def _cgroup(path: Path) -> str:
    """A process's control group path: systemd's hierarchy, else the longest of the
    others (cgroup v1 without systemd); "" when not known."""
    found = [line.split(":", 2) for line in _lines(path)]
    found = [parts for parts in found if len(parts) == 3]
    for parts in found:
        if parts[1] in ("", "name=systemd"):
            return parts[2].strip()
    return max((parts[2].strip() for parts in found), key=len, default="")


def unit_of(pid: int, proc: Path = Path("/proc")) -> str:
    """The systemd service process `pid` runs in, the innermost ("" when none)."""
    services = [u for u in units_of(pid, proc) if u.endswith(".service")]
    return services[-1] if services else ""


# -- ufw's rules (read as root, only where a plan changes one) -----------------------------
UFW_LINES = 2000  # lines of `ufw status` (or `ufw show added`) sent, at most


def ufw_rules() -> dict[str, Any]:
    """ufw's rules as `state_net` reads them on this machine: `ufw_status`, the lines of
    `ufw status verbose` (with its default policies while it is on), and, as an inactive
    ufw lists none there, `ufw_added`, the lines of `ufw show added` ("ufw allow
    8080/tcp") and `ufw_defaults`, the lines of its file /etc/default/ufw that set a
    default policy (DEFAULT_INPUT_POLICY="DROP"); or `ufw_error`, why they could not be
    read (not installed, failed, more than UFW_LINES lines)."""
    found: dict[str, Any] = {}
    for key, argv in (("ufw_status", ["ufw", "status", "verbose"]),
                      ("ufw_added", ["ufw", "show", "added"])):
        try:
            lines = run_tool(argv).splitlines()
        except Unavailable as exc:
            return {"ufw_error": str(exc)[:300]}
        if len(lines) > UFW_LINES:
            return {"ufw_error": f"{' '.join(argv)} gave more than {UFW_LINES} lines"}
        found[key] = lines
    try:
        with open("/etc/default/ufw", encoding="utf-8", errors="replace") as file:
            found["ufw_defaults"] = [line.strip() for line in file.read(64 * 1024).splitlines()
                                     if line.strip().startswith("DEFAULT_")][:20]
    except OSError:
        pass  # no file: the policy is read from `ufw status verbose` alone
    return found


def main() -> None:
    # WANT_JSON: this marker makes Ansible run this file as an old-style module that
    # takes the path of a JSON file of its arguments as its one argument ({"read":
    # "root"} with "firewall": true where a plan changes a ufw rule, or nothing of
    # reos's: the snapshot).
    # stdout is the module's answer to Ansible (its protocol), not words for a person
    given = _arguments()
    if given.get("read") == "root":
        root = os.geteuid() == 0
        rows = shadow() if root else None
        answer: dict[str, Any] = {"changed": False, "shadow": rows,
                                  "ssh": session_passers(ports=given.get("ssh_ports"))
                                  if root else None}
        try:
            answer["listening"] = listening() if root else None
        except Unavailable as exc:
            answer["listening_error"] = str(exc)
        if root and given.get("firewall") is True:
            answer.update(ufw_rules())
        sys.stdout.write(json.dumps(answer) + "\n")
    else:
        sys.stdout.write(json.dumps({"changed": False, "snapshot": shipped_snapshot()}) + "\n")
    sys.exit(0)


def _arguments() -> dict[str, Any]:
    try:
        with open(sys.argv[1], encoding="utf-8") as handle:
            given = json.load(handle)
    except (IndexError, OSError, ValueError):
        return {}
    return given if isinstance(given, dict) else {}


if __name__ == "__main__":
    main()
