"""The machine's settings as state: its hostname, its time zone, and whether a shutdown
or reboot is scheduled (systemd keeps that in /run/systemd/shutdown/scheduled).

`current` reads the setting right before a step changes it (the journal keeps that as the
step's prior state: `{"state": value, ...}`), `restore` turns a recorded value into the
command that sets it again, and `problem` says what is wrong with the setting a step left.
A value read back from the machine or the journal reaches argv only after the same strict
check a value from a request passes (reos/understanding/slots.py).

Not responsible for choosing or running commands (recipes and execution do), nor for any
other kind of resource (reos/system/state.py dispatches by kind).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from reos.patterns import regex
from reos.system.state import read_file

if TYPE_CHECKING:
    pass

KINDS = ("hostname", "timezone", "shutdown")
_HOSTNAME = regex(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_TIMEZONE = regex(r"^(?:[A-Z][A-Za-z]*(?:_[A-Z][A-Za-z]*)*/[A-Za-z0-9_+-]+"
                       r"(?:/[A-Za-z0-9_+-]+)?|[A-Z][A-Za-z0-9+-]{1,15})$")  # CET, Japan
_ZONEINFO = "/usr/share/zoneinfo/"
# files read when the system tools cannot answer (no systemd, no D-Bus); tests point
# these elsewhere
HOSTNAME_FILE = Path("/etc/hostname")
TIMEZONE_FILE = Path("/etc/timezone")
LOCALTIME = Path("/etc/localtime")
SCHEDULED = Path("/run/systemd/shutdown/scheduled")


def _file(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def valid(kind: str, value: object) -> bool:
    """Whether `value` may be passed to the tool that sets `kind`."""
    if not isinstance(value, str):
        return False
    if kind == "hostname":
        return bool(_HOSTNAME.fullmatch(value))
    if kind == "timezone":
        return bool(_TIMEZONE.fullmatch(value)) or value == "Etc/UTC"
    return False


# -- reading ------------------------------------------------------------------------------

def _hostname() -> dict[str, Any]:
    """The static hostname (what survives a reboot) and the running one."""
    import socket

    running = socket.gethostname()
    static = ""
    done = read_file(["hostnamectl", "--json=short"])
    if done is not None and done.returncode == 0:
        import json

        try:
            info = json.loads(done.stdout)
        except json.JSONDecodeError:
            info = {}
        if isinstance(info, dict):
            static = str(info.get("StaticHostname") or "")
            running = str(info.get("Hostname") or running)
    if not static:
        static = _file(HOSTNAME_FILE).split("\n", 1)[0].strip()
    state = static or running
    if not state:
        return {"state": "", "reason": "the hostname could not be read"}
    return {"state": state, "static": static, "running": running}


def _timezone() -> dict[str, Any]:
    done = read_file(["timedatectl", "show", "-p", "Timezone", "--value"])
    zone = done.stdout.strip() if done is not None and done.returncode == 0 else ""
    source = "timedatectl"
    if not zone:
        source = "/etc/localtime"
        try:
            target = str(LOCALTIME.resolve()) if LOCALTIME.is_symlink() else ""
        except OSError:
            target = ""
        zone = target.split(_ZONEINFO, 1)[1] if _ZONEINFO in target else ""
    if not zone:
        source = str(TIMEZONE_FILE)
        zone = _file(TIMEZONE_FILE).split("\n", 1)[0].strip()
    if not zone:
        return {"state": "", "reason": "the time zone could not be read"}
    return {"state": zone, "source": source}


def _shutdown() -> dict[str, Any]:
    """"none", or "scheduled" with its mode (poweroff, reboot…) and when (µs since 1970),
    from the file systemd-logind writes while a shutdown is due."""
    try:
        text = SCHEDULED.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return {"state": "none"}
    except OSError as exc:
        return {"state": "unknown", "reason": f"{SCHEDULED} could not be read ({exc.strerror})"}
    fields = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    mode = fields.get("MODE", "")
    usec = fields.get("USEC", "")
    return {"state": "scheduled", "mode": mode if mode.isalnum() else "",
            "usec": int(usec) if usec.isdigit() else None}


def current(kind: str, _name: str) -> dict[str, Any] | None:
    """The setting as it is now, or None for a kind this module does not track."""
    if kind == "shutdown":
        return _shutdown()
    if kind == "hostname":
        return _hostname()
    if kind == "timezone":
        return _timezone()
    return None


# -- restoring and checking -----------------------------------------------------------------

def restore(kind: str, _name: str, prior: dict[str, Any] | None,
            action: str | None = None) -> list[str] | None:
    """The command that sets the recorded value again, or None when none can (the value
    was not read, or does not look like one the tool takes)."""
    value = (prior or {}).get("state")
    if kind == "shutdown":  # nothing was due: cancel what the step scheduled. A shutdown
        # that was due already is left as the step made it (its time is not set back)
        return ["shutdown", "-c"] if value == "none" and action in (
            "poweroff_later", "reboot_later") else None
    if not valid(kind, value):
        return None
    if kind == "hostname" and action in (None, "set_hostname"):
        return ["hostnamectl", "set-hostname", str(value)]
    if kind == "timezone" and action in (None, "set_timezone"):
        return ["timedatectl", "set-timezone", str(value)]
    return None


def problem(kind: str, action: str | None, state: dict[str, Any] | None) -> str | None:
    """What is wrong with the setting a step left, or None when nothing visibly is.

    The value asked for is not passed here, so a change is checked for what can be seen
    without it: the setting can be read, and a new hostname is the running one too."""
    if kind not in KINDS or not isinstance(state, dict):
        return None
    value = state.get("state")
    if kind == "shutdown":
        want = "none" if action == "cancel_shutdown" else "scheduled"
        if value not in ("none", "scheduled"):
            return f"could not be read back ({state.get('reason') or 'unknown'})"
        return None if value == want else (
            "is still scheduled" if want == "none" else "is not scheduled")
    if not isinstance(value, str) or value in ("", "unknown"):
        return f"could not be read back ({state.get('reason') or 'unknown'})"
    if kind == "hostname" and action == "set_hostname":
        static, running = state.get("static"), state.get("running")
        if static and running and static != running:
            return f"is {static} after a reboot but {running} until then"
    return None
