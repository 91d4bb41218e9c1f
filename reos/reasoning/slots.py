"""Values a request gives a recipe besides its target: how many lines, since when, how big.

The parser reads them as canonical values (`lines` a number; `since` one of yesterday,
today, boot, boot-1 (the boot before this one), an amount and a unit such as 15m, 2h, 3d,
a moment such as `yesterday@15:00`, `mon`, `2026-11-20@08:00`, a whole day `=mon`, or a
range `today@09:00~today@10:00`; `size` such as 500M; `timezone` a zone of this machine's
list); this module checks them and renders each the way a tool takes it: `{lines}` a
bounded count, `{since}`/`{until}` for docker (a Go duration or a date),
`{journal_since}`/`{journal_until}` for journalctl (-15m, yesterday, 2026-11-21 15:00:00;
yesterday ends today), `boot` and `previous_boot` for recipes that read a boot with `-b`,
`{vacuum_size}`/`{vacuum_time}` for trimming the journal. Nothing from the request
reaches argv except through these checks.

`tag` is the tagger's reader of the words that say these values (moments and ranges of
time, sizes, time zones by city): it gives units their `time`, `size` and `timezone`
roles, looking cities up in this machine's own zone list (`zones`). A city that several
zones share is tagged with all of them (`A|B`), which never passes the checks here: the
understanding asks which one was meant.

Not responsible for scoring operations (the parser does) or for choosing recipe steps
(the plan builder does).
"""

from __future__ import annotations

import re

from reos.reasoning.names import LazyPatterns

TYPE_CHECKING = False  # typing stays unimported at run time: `reos plan` starts faster

if TYPE_CHECKING:
    from datetime import date
    from typing import Any

MAX_LINES = 100_000
SLOTS = ("lines", "since", "until", "journal_since", "journal_until", "unit_state",
         "file_state", "docker_status", "user", "group", "shell", "hostname", "timezone",
         "date", "priority", "port", "interface", "host", "path", "device", "vacuum_size",
         "vacuum_time", "proto", "program")
# what a value taken from the request must look like before it may fill a recipe
_CHECKS = LazyPatterns({
    "user": (r"^[a-z_][a-z0-9_.-]{0,31}$"),
    "group": (r"^[a-z_][a-z0-9_.-]{0,31}$"),
    "interface": (r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$"),
    "shell": (r"^/(?:usr/)?(?:local/)?s?bin/[a-z0-9]{1,16}$"),
    "hostname": (r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"),
    "timezone": (r"^(?:[A-Z][A-Za-z]*(?:_[A-Z][A-Za-z]*)*/[A-Za-z0-9_+-]+"
                 r"(?:/[A-Za-z0-9_+-]+)?|[A-Z][A-Za-z0-9+-]{1,15})$"),
    "date": (r"^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$"),
    "host": (r"^(?:\d{1,3}(?:\.\d{1,3}){3}|[a-z0-9](?:[a-z0-9-]{0,62})"
                       r"(?:\.[a-z0-9](?:[a-z0-9-]{0,62}))*)$"),
    "path": (r"^/(?:[A-Za-z0-9._+-]+/?)*$"),
    "device": (r"^[a-z][a-z0-9_-]{0,31}$"),
    "program": (r"^[a-z0-9][a-z0-9_.+-]{0,14}$"),  # a process name (ps -C takes it as is)
})
# a qualifier as each tool filters by it (systemctl active state, unit-file state, docker)
_UNIT_STATE = {"running": "running", "stopped": "inactive", "failed": "failed"}
_FILE_STATE = {"enabled": "enabled", "disabled": "disabled"}
_DOCKER_STATUS = {"running": "running", "stopped": "exited", "paused": "paused"}
_AMOUNT = re.compile(r"^(\d{1,5})([smhdw])$")
_HOURS = {"d": 24, "w": 168}
_SIZE = re.compile(r"^(\d{1,6}(?:\.\d{1,2})?)([KMGT])$")
_DAY = r"(?:today|yesterday|l?(?:mon|tue|wed|thu|fri|sat|sun)|\d{4}-\d{2}-\d{2})"
_POINT = re.compile(rf"^({_DAY})?(?:@([01]\d|2[0-3]):([0-5]\d))?$")
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


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

ZONE_FILES = ("/usr/share/zoneinfo/tzdata.zi", "/usr/share/zoneinfo/zone1970.tab",
              "/usr/share/zoneinfo/zone.tab")  # tests point these elsewhere
_ZONES: dict[str, tuple[str, ...]] | None = None
_ZONE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]{0,30}(?:/[A-Za-z0-9_+-]{1,30}){0,2}$")


def zones() -> dict[str, tuple[str, ...]]:
    """This machine's time zones: a zone's whole name, its last part ("new_york") and a
    linked name's, lowercase -> the zones so called (read once, from tzdata.zi or the zone
    tables; empty when the machine has none)."""
    global _ZONES
    if _ZONES is not None:
        return _ZONES
    names: dict[str, str] = {}  # zone or link name -> the zone it is
    for path in ZONE_FILES:
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(2_000_000)
        except OSError:
            continue
        for line in text.splitlines():
            parts = line.split()
            if path.endswith(".zi") and len(parts) >= 2 and parts[0] in ("Z", "L"):
                zone, name = (parts[1], parts[1]) if parts[0] == "Z" else (
                    parts[1], parts[2] if len(parts) > 2 else "")
            elif path.endswith(".tab") and len(parts) >= 3 and not line.startswith("#"):
                zone = name = parts[2]
            else:
                continue
            if _ZONE_NAME.match(name) and _ZONE_NAME.match(zone):
                names[name] = zone
        if names:
            break
    table: dict[str, list[str]] = {}
    for name, zone in names.items():
        for key in {name.lower(), name.rsplit("/", 1)[-1].lower()}:
            if zone not in table.setdefault(key, []):
                table[key].append(zone)
    _ZONES = {key: tuple(sorted(found)) for key, found in table.items()}
    return _ZONES


_ZONE_WORDS = {"timezone", "time zone", "tz", "zone", "clock", "time", "timedatectl",
               "local time", "system time"}
_CLOCK = re.compile(r"^(\d{1,2})(?::([0-5]\d))?(am|pm|a\.m|p\.m)?$")
_PARTS = {"morning": ("00:00", "12:00"), "afternoon": ("12:00", "18:00"),
          "evening": ("18:00", "23:59"), "tonight": ("18:00", "23:59")}
_FULL_DAYS = {"monday": "mon", "tuesday": "tue", "wednesday": "wed", "thursday": "thu",
              "friday": "fri", "saturday": "sat", "sunday": "sun"}
_MONTHS = {"month", "months"}
_ONE_UNIT = {"minute": "1m", "hour": "1h", "day": "1d", "week": "1w", "fortnight": "2w"}
_STARTS = {"since", "after", "from"}
_SIZE_WORDS = {"k": "K", "kb": "K", "kib": "K", "m": "M", "mb": "M", "mib": "M", "meg": "M",
               "megs": "M", "megabyte": "M", "megabytes": "M", "g": "G", "gb": "G",
               "gib": "G", "gig": "G", "gigs": "G", "gigabyte": "G", "gigabytes": "G",
               "t": "T", "tb": "T", "tib": "T", "terabyte": "T", "terabytes": "T"}
_SIZE_TEXT = re.compile(r"^(\d{1,6}(?:\.\d{1,2})?)([a-z]{1,9})$")
_NUMBER = re.compile(r"^\d{1,6}(?:\.\d{1,2})?$")
_SIZE_LEAD = {"under", "below", "over", "above", "within", "max", "maximum", "most", "than",
              "more", "less", "bigger", "smaller", "larger", "no", "at", "around", "about"}
_IS_NOW = {"over", "above", "is", "are", "has", "takes", "uses", "using", "eating", "from",
           "holds", "nearly", "almost", "already", "hit", "reached", "grew", "grown",
           "bigger", "larger"}  # "it is over 4 GB", "it is at 4 GB": what it holds now


def tag(units: list[Any]) -> None:
    """Give the units that say a moment or a range of time, a size or a time zone their
    role (`time`, `size`, `timezone`); the words around the value are explained with it."""
    texts = [u.text for u in units]
    _tag_sizes(units, texts)
    _tag_times(units, texts)
    if any(t in _ZONE_WORDS for t in texts) or "in" in texts:
        _tag_zones(units, texts)


def _mark(units: list[Any], start: int, end: int, role: str, value: str | None) -> None:
    for n in range(start, end):
        units[n].roles = {"filler": True} if value is None else (
            {role: value} if n == end - 1 else {role: True} if role == "time" else
            {"filler": True})


def _tag_sizes(units: list[Any], texts: list[str]) -> None:
    n = 0
    while n < len(texts):
        found = _SIZE_TEXT.match(texts[n])
        end = n + 1
        amount, unit = (found[1], _SIZE_WORDS.get(found[2])) if found else (None, None)
        if unit is None and _NUMBER.match(texts[n]) and n + 1 < len(texts) and (
                texts[n + 1] in _SIZE_WORDS):
            amount, unit, end = texts[n], _SIZE_WORDS[texts[n + 1]], n + 2
        if amount is None or unit is None or float(amount) <= 0 or "name" in units[n].roles:
            n += 1  # "the 2tb drive": a disk named by its size, not a size to keep
            continue
        before = texts[max(0, n - 2):n]
        describes = bool(before) and (before[-1] in _IS_NOW or (  # now, not wanted
            before[-1] in ("at", "around", "about", "than") and before[0] in _IS_NOW))
        first = n
        while first and texts[first - 1] in _SIZE_LEAD and not units[first - 1].roles.keys(
                ) - {"filler"}:
            first -= 1  # "under", "at most", "no more than": said with the size
        _mark(units, first, end, "size", None if describes else f"{amount}{unit}")
        n = end


def _clock_at(texts: list[str], n: int, bare: bool) -> tuple[str, int, bool] | None:
    """A clock time at `n`: (HH:MM, the index after it, whether it said am/pm or a
    colon). A bare hour only where `bare` (between 9 and 10)."""
    if n >= len(texts):
        return None
    word = texts[n]
    if word in ("noon", "midday"):
        return "12:00", n + 1, True
    if word == "midnight":
        return "00:00", n + 1, True
    found = _CLOCK.match(word)
    if not found:
        return None
    hour, minute, half = int(found[1]), int(found[2] or 0), found[3]
    end = n + 1
    if half is None and end < len(texts) and texts[end] in ("am", "pm", "a.m", "p.m"):
        half, end = texts[end], end + 1
    if end < len(texts) and texts[end] == "oclock":
        end += 1
        bare = True
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half.startswith("p") else 0)
    elif found[2] is None and not bare:
        return None
    if hour > 23:
        return None
    return f"{hour:02d}:{minute:02d}", end, bool(half or found[2])


def _day_at(texts: list[str], n: int) -> tuple[str, int, str | None] | None:
    """A day at `n`: (the day's canonical word, the index after it, a part of the day)."""
    if n >= len(texts):
        return None
    word = texts[n]
    following = texts[n + 1] if n + 1 < len(texts) else ""
    if word == "on" and following:
        found = _day_at(texts, n + 1)
        return found if found and found[0] != "today" else None
    if word in ("today", "yesterday"):
        if following in ("morning", "afternoon", "evening"):
            return word, n + 2, following
        return word, n + 1, None
    if word == "tonight":
        return "today", n + 1, "tonight"
    if word == "this" and following in _PARTS:
        return "today", n + 2, following
    if word == "last" and following == "night":
        return "yesterday", n + 2, "evening"
    if word == "last night":  # one phrase of the catalogue
        return "yesterday", n + 1, "evening"
    if word == "last" and following in _FULL_DAYS:
        return "l" + _FULL_DAYS[following], n + 2, None
    if word in _FULL_DAYS:
        return _FULL_DAYS[word], n + 1, None
    if len(word) == 10 and word[4:5] == "-" and word[:4].isdigit():
        return word, n + 1, None
    return None


def _point_at(texts: list[str], n: int, bare: bool
              ) -> tuple[str | None, str | None, str | None, int] | None:
    """A moment at `n`: (day, clock, part of day, the index after it): "yesterday 3pm",
    "3pm yesterday", "monday at 9:30", "2026-11-20 08:00", "9" (where `bare`)."""
    at = n + 1 if n < len(texts) and texts[n] == "at" else n
    clock = _clock_at(texts, at, bare)
    if clock is not None:
        day = _day_at(texts, clock[1])
        if day is not None:
            return day[0], clock[0], day[2], day[1]
        return None, clock[0], None, clock[1]
    day = _day_at(texts, n)
    if day is None:
        return None
    after = day[1] + 1 if day[1] < len(texts) and texts[day[1]] == "at" else day[1]
    clock = _clock_at(texts, after, bare)
    if clock is not None:
        return day[0], clock[0], day[2], clock[1]
    return day[0], None, day[2], day[1]


def _afternoon(clock: str | None, part: str | None, exact: bool) -> str | None:
    """A bare hour said of an afternoon or evening is after noon ("between 2 and 4 this
    afternoon")."""
    if clock and not exact and part in ("afternoon", "evening", "tonight") and clock < "12:00":
        return f"{int(clock[:2]) + 12:02d}{clock[2:]}"
    return clock


def _part_range(day: str, part: str) -> str:
    """A part of a day as a range; "last night" runs from yesterday evening to 06:00."""
    if day == "yesterday" and part == "evening":
        return "yesterday@18:00~today@06:00"
    begin, finish = _PARTS[part]
    return f"{day}@{begin}~{day}@{finish}"


def _canon(day: str | None, clock: str | None) -> str:
    return (day or "") + (f"@{clock}" if clock else "")


def _tag_times(units: list[Any], texts: list[str]) -> None:
    n = 0
    while n < len(texts):
        found = _time_at(texts, n)
        if found is None:
            n += 1
            continue
        start, end, value = found
        _mark(units, start, end, "time", value)
        n = end


def _time_at(texts: list[str], n: int) -> tuple[int, int, str] | None:
    word = texts[n]
    following = texts[n + 1] if n + 1 < len(texts) else ""
    if word in ("previous", "prior", "earlier") and following in ("boot", "reboot"):
        return n, n + 2, "boot-1"
    if word in ("boot", "reboot") and following == "before" and n and (
            texts[n - 1] in ("the", "previous")):
        end = n + 2
        while end < len(texts) and texts[end] in ("this", "the", "last", "current", "one"):
            end += 1
        return n - 1, end, "boot-1"
    if word in _MONTHS and n and (texts[n - 1] in ("last", "past", "previous", "a", "one")
                                  or texts[n - 1].isdigit()):
        amount = int(texts[n - 1]) if texts[n - 1].isdigit() else 1
        first = n - 1
        if first and texts[first - 1] in ("last", "past", "previous", "the"):
            first -= 1
        return (first, n + 1, f"{min(amount, 99) * 30}d") if amount else None
    if word in ("a", "an", "one") and following in _ONE_UNIT and n and texts[n - 1] in (
            "than", "last", "past", "for", "within", "about"):
        first = n - 1 if texts[n - 1] in ("last", "past") else n
        return first, n + 2, _ONE_UNIT[following]  # "older than a week", "the past an hour"
    ranged = word == "between" or word == "from"
    if word in _STARTS or word == "between":
        start = _point_at(texts, n + 1, bare=ranged)
        if start is None:
            return None
        day, clock, part, end = start
        joins = ("and",) if word == "between" else ("to", "until", "till", "-")
        if end < len(texts) and texts[end] in joins:
            second = _point_at(texts, end + 1, bare=True)
            if second is not None:
                day2, clock2, part2, end2 = second
                day, day2 = day or day2, day2 or day or None
                part = part or part2
                exact = bool(clock and (":" in texts[n + 1] or texts[n + 1][-2:] in ("am", "pm")))
                clock = _afternoon(clock, part, exact)
                clock2 = _afternoon(clock2, part, False)
                if clock is None and clock2 is None and day == day2:
                    return n, end2, "=" + (day or "today")
                return n, end2, f"{_canon(day, clock)}~{_canon(day2, clock2)}"
        if word == "between":
            return None
        if clock is None and part in _PARTS:
            if word == "from":  # "from this morning", "from last night": that part of a day
                return n, end, _part_range(day or "today", part)
            clock = _PARTS[part][0]
        if clock is None and day in ("today", "yesterday") and part is None:
            return None  # "since yesterday": the tagger's own reading
        if word == "from" and clock is None:
            return n, end, "=" + (day or "today")  # "logs from monday": that day
        return n, end, _canon(day, clock)
    said = _day_at(texts, n)
    if said is not None and said[2] is not None:  # "this morning", "last night", "tonight"
        return n, said[1], _part_range(said[0], said[2])
    if said is not None and (word == "on" or word in _FULL_DAYS) and said[0] != "today":
        return n, said[1], "=" + said[0]
    return None


def _free(unit: Any) -> bool:
    """A word no other reading of the tagger claimed (or only as a typo fix: "cet")."""
    return not unit.roles or (unit.said.lower() != unit.text and unit.size == 1)


def _tag_zones(units: list[Any], texts: list[str]) -> None:
    """City and zone names of this machine's list ("berlin", "new york", "cet"), said
    where a time zone is talked about or after "in" ("london time", "we are in tokyo")."""
    if not zones():
        return
    context = any(t in _ZONE_WORDS for t in texts)
    n = 0
    while n < len(units):
        if not _free(units[n]) or not (context or n and texts[n - 1] == "in"):
            n += 1
            continue
        for size in (3, 2, 1):
            said = [u.said.lower() for u in units[n:n + size]]
            if len(said) < size or not all(_free(u) for u in units[n:n + size]) or not all(
                    w.replace("-", "").isalpha() for w in said):
                continue
            found = zones().get("_".join(said))
            if found:
                end = n + size
                units[n].roles = {"timezone": "|".join(found)}
                for m in range(n + 1, end):
                    units[m].roles = {"filler": True}
                n = end
                break
        else:
            n += 1
