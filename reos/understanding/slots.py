"""Values a request gives a recipe besides its target: how many lines, since when, how big.

The parser reads them as canonical values (`lines` a number; `since` one of yesterday,
today, boot, boot-1 (the boot before this one), an amount and a unit such as 15m, 2h, 3d,
a moment such as `yesterday@15:00`, `mon`, `2026-11-20@08:00`, a whole day `=mon`, or a
range `today@09:00~today@10:00`; `size` such as 500M; `timezone` a zone of this machine's
list; `when` a shutdown's time, +10 or 23:30); this module checks them and renders each
the way a tool takes it: `{lines}` a bounded count, `{since}`/`{until}` for docker (a Go
duration or a date),
`{journal_since}`/`{journal_until}` for journalctl (-15m, yesterday, 2026-11-21 15:00:00;
yesterday ends today), `boot` and `previous_boot` for recipes that read a boot with `-b`,
`{vacuum_size}`/`{vacuum_time}` for trimming the journal. Nothing from the request
reaches argv except through these checks.

The words that say these values are read by `moments` (the tagger's reader of moments,
ranges, sizes and time zones by city); a city several zones share never passes the
checks here: the understanding asks which one was meant.

Not responsible for scoring operations (the parser does) or for choosing recipe steps
(the plan builder does).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from reos.catalogue.schema import SLOTS
from reos.patterns import regex
from reos.understanding.moments import zones
from reos.understanding.names import LazyPatterns

if TYPE_CHECKING:
    from datetime import date

MAX_LINES = 100_000
# what a value taken from the request must look like before it may fill a recipe
_CHECKS = LazyPatterns({
    "user": (r"^[a-z_][a-z0-9_.-]{0,31}$"),
    "group": (r"^[a-z_][a-z0-9_.-]{0,31}$"),
    "interface": (r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$"),
    "shell": (r"^/(?:usr/)?(?:local/)?s?bin/[a-z0-9]{1,16}$"),
    "hostname": (r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"),
    # a person's full name as the GECOS field holds it: no ":" (passwd's separator), no
    # "," (GECOS's), no control, bidi or invisible character, never an option
    "fullname": (r"^(?!-)[^:,=\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f"
                 r"\ufeff\ufff9-\ufffb]{1,64}$"),
    "timezone": (r"^(?:[A-Z][A-Za-z]*(?:_[A-Z][A-Za-z]*)*/[A-Za-z0-9_+-]+"
                 r"(?:/[A-Za-z0-9_+-]+)?|[A-Z][A-Za-z0-9+-]{1,15})$"),
    "date": (r"^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$"),
    "host": (r"^(?:\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?|[a-z0-9](?:[a-z0-9-]{0,62})"
                       r"(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))*)$"),
    "path": (r"^/(?:[A-Za-z0-9._+-]+/?)*$"),
    "device": (r"^[a-z][a-z0-9_-]{0,31}$"),
    "program": (r"^[a-z0-9][a-z0-9_.+-]{0,14}$"),  # a process name (ps -C takes it as is)
    # a timer unit, or a pattern systemctl matches timers by (*backup*: every backup timer)
    "timer": (r"^(?:[A-Za-z0-9][A-Za-z0-9@_.:-]{0,250}\.timer|\*[a-z0-9-]{2,64}\*)$"),
    # when a shutdown is due, as shutdown(8) takes it: minutes from now (+10, at most a
    # week) or a time of day (23:30)
    "when": (r"^(?:\+(?:[1-9]\d{0,3}|10080)|(?:[01]\d|2[0-3]):[0-5]\d)$"),
    # a Postfix queue id, as written: a short one is upper-case hex (A1B2C3D4E5), a long
    # one letters and digits without vowels (4XkQ2R1vZzN0); never ALL, never an option
    "queue_id": (r"^(?:[0-9A-F]{6,16}|[0-9B-DF-HJ-NP-TV-Zb-df-hj-np-tv-z]{10,20})$"),
})
# a qualifier as each tool filters by it (systemctl active state, unit-file state, docker)
_UNIT_STATE = {"running": "running", "stopped": "inactive", "failed": "failed"}
_FILE_STATE = {"enabled": "enabled", "disabled": "disabled"}
_DOCKER_STATUS = {"running": "running", "stopped": "exited", "paused": "paused"}
_AMOUNT = regex(r"^(\d{1,5})([smhdw])$")
_HOURS = {"d": 24, "w": 168}
_SIZE = regex(r"^(\d{1,6}(?:\.\d{1,2})?)([KMGT])$")
_DAY = r"(?:today|yesterday|l?(?:mon|tue|wed|thu|fri|sat|sun)|\d{4}-\d{2}-\d{2})"
_POINT = regex(rf"^({_DAY})?(?:@([01]\d|2[0-3]):([0-5]\d))?$")
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def _source(text: str) -> str | None:
    """An IPv4 address or network a firewall rule may name as its source, or None: each
    part 0-255, a network no wider than /8 (a /0 would be every address there is)."""
    import ipaddress

    if not re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?", text):
        return None
    try:
        network = ipaddress.IPv4Network(text, strict=True)
    except ValueError:  # 999.1.1.1, or host bits set under a prefix (10.8.0.5/24)
        return None
    return text if network.prefixlen >= 8 else None


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
    source = _source(params.get("host", ""))
    if source is not None:
        out["source"] = source
    days = params.get("days", "")
    if days.isdigit() and 1 <= int(days) <= 99999:
        out["days"] = str(int(days))
    if params.get("policy") in ("deny", "allow", "reject"):
        out["policy"] = params["policy"]  # a firewall's default, as ufw takes it
    port = params.get("port", "")
    if port.isdigit() and 1 <= int(port) <= 65535:
        out["port"] = str(int(port))
        # the protocol said with it ("udp port 27015"), else TCP, as ufw and people assume
        proto = params.get("proto", "")
        out["proto"] = proto if proto in ("tcp", "udp") else "tcp"
    size = params.get("size", "")
    if (found := _SIZE.match(size)) and float(found[1]) > 0:
        out["vacuum_size"] = size
    since = params.get("since")
    if since and _moment(since, out, today):
        pass
    elif since == "boot":
        out["boot"] = "yes"
    elif since == "boot-1":
        out["previous_boot"] = "yes"
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
        out["vacuum_time"] = f"{found[1]}{found[2]}"
    return out


def _day(word: str, today: date) -> date | None:
    """today, yesterday, a weekday (the latest one, today included; `l` before it: the
    one before today), or a date."""
    from datetime import date, timedelta

    if word == "today":
        return today
    if word == "yesterday":
        return today - timedelta(days=1)
    if word.lstrip("l") in _WEEKDAYS:
        back = (today.weekday() - _WEEKDAYS.index(word.lstrip("l"))) % 7
        return today - timedelta(days=back or (7 if word.startswith("l") else 0))
    try:
        return date.fromisoformat(word)
    except ValueError:
        return None


def _point(text: str, today: date, clock_now: str) -> tuple[date, str | None] | None:
    """A moment as its day and its clock time (None: the day's start). A clock time with
    no day is today's, or yesterday's when today's has not come yet."""
    from datetime import timedelta

    found = _POINT.match(text)
    if not found or not text or text == "@":
        return None
    clock = f"{found[2]}:{found[3]}" if found[2] else None
    if found[1] is None:
        if clock is None:
            return None
        return (today if clock <= clock_now else today - timedelta(days=1)), clock
    day = _day(found[1], today)
    return (day, clock) if day is not None else None


def _moment(since: str, out: dict[str, str], today: date | None) -> bool:
    """Fill since/until for a moment, a whole day or a range; False when `since` is none
    of those (or not a real date)."""
    if since in ("today", "yesterday") or since.startswith("boot") or _AMOUNT.match(since):
        return False
    if not (since.startswith("=") or "~" in since or _POINT.match(since)):
        return False
    from datetime import datetime, timedelta

    now = datetime.now()
    day = today or now.date()
    clock_now = now.strftime("%H:%M")
    whole = since.startswith("=")
    if whole and "~" in since:
        return False
    first, _, last = since.lstrip("=").partition("~")
    start = _point(first, day, clock_now)
    if start is None:
        return False
    end = _point(last if "@" not in last or not last.startswith("@") else
                 start[0].isoformat() + last, day, "23:59") if last else None
    if last and end is None:
        return False
    if whole:
        end = (start[0] + timedelta(days=1), None)
    if end is not None and (end[0], end[1] or "00:00") <= (start[0], start[1] or "00:00"):
        if last.startswith("@") and not whole and end[0] == start[0]:
            end = (end[0] + timedelta(days=1), end[1])  # "from 23:00 to 01:00"
        else:
            return False
    for key, point in (("since", start), ("until", end)):
        if point is None:
            continue
        when, clock = point
        out[key] = when.isoformat() + (f"T{clock}:00" if clock else "")
        out[f"journal_{key}"] = when.isoformat() + (f" {clock}:00" if clock else "")
    return True


def describe(since: str, today: date | None = None) -> str:
    """The time a request gave, in words for an answer ("since boot", "in the last 2h",
    "between 2026-11-22 09:00 and 2026-11-22 10:00")."""
    if since == "yesterday":
        return "yesterday"
    if since == "today":
        return "today"
    if since == "boot-1":
        return "during the boot before this one"
    if _AMOUNT.match(since):
        return f"in the last {since}"
    given: dict[str, str] = {}
    if since and _moment(since, given, today):
        start = given["journal_since"]
        if "journal_until" in given:
            return f"between {start} and {given['journal_until']}"
        return f"since {start}"
    return "since boot"


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
        known = zones()
        if known:  # this machine's own list decides how a zone is spelled, and if it is one
            found = known.get(value.lower(), ())
            return found[0] if len(found) == 1 and "/" in value or found == (value,) else (
                None if "/" in value or not found else "|".join(found))
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


# -- reading the words that say these values (called by the tagger) ---------------------------
