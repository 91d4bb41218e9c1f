"""Values a request gives a recipe besides its target: how many lines, since when.

The parser reads them as canonical values (`lines` a number; `since` one of yesterday,
today, boot, or an amount and a unit such as 15m, 2h, 3d); this module checks them and
renders each the way a tool takes it: `{lines}` a bounded count, `{since}`/`{until}` for docker
(a Go duration or a date), `{journal_since}`/`{journal_until}` for journalctl (-15m,
yesterday; yesterday ends today), and `boot`
for recipes that read since boot with `-b`. Nothing from the request reaches argv except
through these checks.

Not responsible for reading the values from words (the parser does) or for choosing
recipe steps (the plan builder does).
"""

from __future__ import annotations

import re

from reos.reasoning.names import LazyPatterns

TYPE_CHECKING = False  # typing stays unimported at run time: `reos plan` starts faster

if TYPE_CHECKING:
    from datetime import date

MAX_LINES = 100_000
SLOTS = ("lines", "since", "until", "journal_since", "journal_until", "unit_state",
         "file_state", "docker_status", "user", "group", "shell", "hostname", "timezone",
         "date", "priority", "port", "interface", "host", "path", "device")
# what a value taken from the request must look like before it may fill a recipe
_CHECKS = LazyPatterns({
    "user": (r"^[a-z_][a-z0-9_.-]{0,31}$"),
    "group": (r"^[a-z_][a-z0-9_.-]{0,31}$"),
    "interface": (r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$"),
    "shell": (r"^/(?:usr/)?(?:local/)?s?bin/[a-z0-9]{1,16}$"),
    "hostname": (r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"),
    "timezone": (r"^(?:[A-Z][A-Za-z]*(?:_[A-Z][A-Za-z]*)*/[A-Za-z0-9_+-]+"
                           r"(?:/[A-Za-z0-9_+-]+)?|UTC)$"),
    "date": (r"^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$"),
    "host": (r"^(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9](?:[a-z0-9-]{0,62})"
                       r"(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))*)$"),
    "path": (r"^/(?:[A-Za-z0-9._+-]+/?)*$"),
    "device": (r"^[a-z][a-z0-9_-]{0,31}$"),
})
# a qualifier as each tool filters by it (systemctl active state, unit-file state, docker)
_UNIT_STATE = {"running": "running", "stopped": "inactive", "failed": "failed"}
_FILE_STATE = {"enabled": "enabled", "disabled": "disabled"}
_DOCKER_STATUS = {"running": "running", "stopped": "exited", "paused": "paused"}
_AMOUNT = re.compile(r"^(\d{1,5})([smhdw])$")
_HOURS = {"d": 24, "w": 168}


def values(params: dict[str, str], defaults: dict[str, int],
           today: date | None = None) -> dict[str, str]:
    """slot name -> the text that fills it; a slot missing here was not given."""
    out: dict[str, str] = {}
    lines = params.get("lines")
    if lines is not None and lines.isdigit() and 1 <= int(lines) <= MAX_LINES:
        out["lines"] = str(int(lines))
    elif "lines" in defaults:
        out["lines"] = str(defaults["lines"])
    wanted = params.get("filter", "").split(",")[0]
    for slot, table in (("unit_state", _UNIT_STATE), ("file_state", _FILE_STATE),
                        ("docker_status", _DOCKER_STATUS)):
        if wanted in table:
            out[slot] = table[wanted]
    for name in _CHECKS:
        value = _canonical(name, params.get(name))
        if value is not None and _CHECKS[name].match(value):
            out[name] = value
    priority = params.get("priority", "")
    if priority.lstrip("-").isdigit() and -20 <= int(priority) <= 19:
        out["priority"] = str(int(priority))
    port = params.get("port", "")
    if port.isdigit() and 1 <= int(port) <= 65535:
        out["port"] = str(int(port))
    since = params.get("since")
    if since == "boot":
        out["boot"] = "yes"
    elif since in ("today", "yesterday"):
        from datetime import date, timedelta  # only a request about a day needs a date

        day = today or date.today()
        when = day if since == "today" else day - timedelta(days=1)
        out["since"] = when.isoformat()
        out["journal_since"] = since
        if since == "yesterday":  # yesterday is a day, not "since yesterday"
            out["until"] = day.isoformat()
            out["journal_until"] = "today"
    elif since and (found := _AMOUNT.match(since)):
        amount, unit = int(found[1]), found[2]
        if unit in _HOURS:
            amount, unit = amount * _HOURS[unit], "h"
        out["since"] = f"{amount}{unit}"
        out["journal_since"] = f"-{found[1]}{found[2]}"
    return out


def _canonical(name: str, value: str | None) -> str | None:
    """The request's word as the tool takes it: "zsh" is /bin/zsh, "europe/berlin" is
    Europe/Berlin."""
    if value is None:
        return None
    if name == "shell" and "/" not in value:
        return ("/usr/sbin/" if value == "nologin" else "/bin/") + value
    if name == "path" and any(part == ".." for part in value.split("/")):
        return None  # a path is named as it is, never climbed out of
    if name == "timezone":
        if value.lower() in ("utc", "gmt"):
            return "UTC"
        return "/".join("_".join(w[:1].upper() + w[1:] for w in part.split("_"))
                        for part in value.split("/"))
    return value


def fill(arg: str, given: dict[str, str]) -> str:
    for slot in SLOTS:
        arg = arg.replace("{" + slot + "}", given.get(slot, "{" + slot + "}"))
    return arg


def needs(argv: list[str]) -> set[str]:
    """The value slots an argv names."""
    return {s for s in SLOTS if any("{" + s + "}" in a for a in argv)}
