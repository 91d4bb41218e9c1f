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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date

MAX_LINES = 100_000
SLOTS = ("lines", "since", "until", "journal_since", "journal_until", "unit_state",
         "file_state", "docker_status")
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


def fill(arg: str, given: dict[str, str]) -> str:
    for slot in SLOTS:
        arg = arg.replace("{" + slot + "}", given.get(slot, "{" + slot + "}"))
    return arg


def needs(argv: list[str]) -> set[str]:
    """The value slots an argv names."""
    return {s for s in SLOTS if any("{" + s + "}" in a for a in argv)}
