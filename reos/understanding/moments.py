"""The words of a request that say a value: moments and ranges of time, sizes, time zones
by city. The tagger calls `tag`, which gives units their `time`, `size` and `timezone`
roles (values in the canonical forms `slots` checks: `yesterday@15:00`, `=mon`,
`today@09:00~today@10:00`, `500M`, `Europe/Berlin`); cities are looked up in this
machine's own zone list (`zones`), and a city that several zones share is tagged with all
of them (`A|B`).

Not responsible for checking the values or rendering them for a tool (`slots`), or for
scoring operations (`scoring`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.patterns import regex

if TYPE_CHECKING:
    from typing import Any


ZONE_FILES = ("/usr/share/zoneinfo/tzdata.zi", "/usr/share/zoneinfo/zone1970.tab",
              "/usr/share/zoneinfo/zone.tab")  # tests point these elsewhere
_ZONES: dict[str, tuple[str, ...]] | None = None
_ZONE_NAME = regex(r"^[A-Za-z][A-Za-z0-9_+-]{0,30}(?:/[A-Za-z0-9_+-]{1,30}){0,2}$")


def zones() -> dict[str, tuple[str, ...]]:
    """This machine's time zones: a zone's whole name, its last part ("new_york") and a
    linked name's, lowercase -> the zones so called (read once, from tzdata.zi or the zone
    tables; empty when the machine has none). Not `zoneinfo.available_timezones()`: it
    opens every file under /usr/share/zoneinfo (80 ms here, against 8 ms for one file)."""
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


# the value of a moment still to come ("tomorrow", "next week"): the words as said after
# it. A change said for then is asked about, never done now; nothing reads logs from it
AHEAD = ">"
_ZONE_WORDS = {"timezone", "time zone", "tz", "zone", "clock", "time", "timedatectl",
               "local time", "system time"}
_CLOCK = regex(r"^(\d{1,2})(?::([0-5]\d))?(am|pm|a\.m|p\.m)?$")
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
_SIZE_TEXT = regex(r"^(\d{1,6}(?:\.\d{1,2})?)([a-z]{1,9})$")
_NUMBER = regex(r"^\d{1,6}(?:\.\d{1,2})?$")
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
    _tag_dates(units, texts)
    _tag_times(units, texts)
    _tag_clocks(units, texts)
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
        if amount is None or unit is None or float(amount) <= 0 or (
                end == n + 1 and "name" in units[n].roles):
            n += 1  # "the 2tb drive": a disk named by its size, not a size to keep; a
            continue  # number said with its unit ("500 MB") is a size, whatever pid is 500
        before = texts[max(0, n - 2):n]
        describes = bool(before) and (before[-1] in _IS_NOW or (  # now, not wanted
            before[-1] in ("at", "around", "about", "than") and before[0] in _IS_NOW))
        first = n
        while first and texts[first - 1] in _SIZE_LEAD and not units[first - 1].roles.keys(
                ) - {"filler"}:
            first -= 1  # "under", "at most", "no more than": said with the size
        _mark(units, first, end, "size", None if describes else f"{amount}{unit}")
        n = end


def clock_at(texts: list[str], n: int, bare: bool) -> tuple[str, int, bool] | None:
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


def _tag_clocks(units: list[Any], texts: list[str]) -> None:
    """"at 3am", "at 23:30", "at midnight": a time of day said for when something should
    happen (role `clock`, HH:MM). Not a `time`: a change said with one must be scheduled
    or asked about, never done now, and a log reader takes it as the hour from then."""
    for n, word in enumerate(texts[:-1]):
        found = clock_at(texts, n + 1, bare=True) if word == "at" else None
        if found is None or (not found[2] and found[1] < len(texts) and texts[found[1]] in (
                "%", "percent", "gb", "mb", "tb", "g", "m", "k", "cores", "cpus", "degrees")):
            continue  # "at 90%", "at 4 gb": a level, not an hour
        clock, end, said = found
        clock = clock if said or texts[n + 1] in ("noon", "midday", "midnight") else (
            clock + "?")  # "at 5": 05:00 or 17:00, which is not said
        if all(_free(units[k]) or set(units[k].roles) <= {"filler", "number"}
               for k in range(n + 1, end)):
            _mark(units, n, end, "clock", clock)


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
    clock = clock_at(texts, at, bare)
    if clock is not None:
        day = _day_at(texts, clock[1])
        if day is not None:
            return day[0], clock[0], day[2], day[1]
        return None, clock[0], None, clock[1]
    day = _day_at(texts, n)
    if day is None:
        return None
    after = day[1] + 1 if day[1] < len(texts) and texts[day[1]] == "at" else day[1]
    clock = clock_at(texts, after, bare)
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
    ahead = _ahead_at(texts, n)
    if ahead is not None:
        return n, ahead, AHEAD + " ".join(texts[n:ahead])
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
            "than", "last", "past", "for", "within", "about", "in"):
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


def _ahead_at(texts: list[str], n: int) -> int | None:
    """The index after a moment still to come said at `n`, for when something should be
    done: "tomorrow", "tomorrow morning", "tomorrow at 3am", "later today", "next
    week", "next friday", "this weekend", "over the weekend", "overnight", "in the
    morning". None where nothing is ahead ("later than 3pm", "the next boot")."""
    word = texts[n]
    following = texts[n + 1] if n + 1 < len(texts) else ""
    if word == "tomorrow":
        end = n + 2 if following in ("morning", "afternoon", "evening", "night") else n + 1
        at = end + 1 if end < len(texts) and texts[end] == "at" else end
        clock = clock_at(texts, at, bare=True)
        return clock[1] if clock is not None else end
    if word == "later" and following in ("today", "tonight", "on"):
        return n + 2  # never "later" alone: "tell me later", "the later ones"
    if word == "next" and (following in _FULL_DAYS or following in (
            "week", "month", "weekend", "weekday")):
        return n + 2
    if word == "overnight":
        return n + 1
    if word in ("this", "the") and following == "weekend":
        return n + 2
    if word in ("over", "at", "on") and texts[n + 1:n + 3] == ["the", "weekend"]:
        return n + 3
    if word == "in" and texts[n + 1:n + 2] == ["the"] and n + 2 < len(texts) and (
            texts[n + 2] in ("morning", "evening", "afternoon", "night")):
        return n + 3
    return None


_MONTH_NAMES = {name: n for n, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
    ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
    ("october", "oct"), ("november", "nov"), ("december", "dec")), start=1) for name in names}
_DAY = regex(r"^([12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?$")
_YEAR = regex(r"^20\d\d$")


def _tag_dates(units: list[Any], texts: list[str]) -> None:
    """A calendar date said in words ("19 December 2026", "March 31st", "the 31st of
    march") as the `date` role, YYYY-MM-DD; without a year, the next such day."""
    n = 0
    while n < len(texts):
        found = _date_at(texts, n)
        if found is None or not all(_free(u) or u.text == "," or u.roles.keys() <= {
                "number", "filler", "noun"} for u in units[n:found[1]]):
            n += 1
            continue
        _mark(units, n, found[1], "date", found[0])
        n = found[1]


def _date_at(texts: list[str], n: int) -> tuple[str, int] | None:
    import datetime

    words = texts[n:n + 5]
    day = month = None
    size = 0
    first = _DAY.match(words[0]) if words else None
    second = _DAY.match(words[1]) if len(words) >= 2 else None
    if first is not None and len(words) >= 2:  # 31 march, 31st of march
        at = 2 if words[1] == "of" and len(words) > 2 else 1
        if words[at] in _MONTH_NAMES:
            day, month, size = int(first[1]), _MONTH_NAMES[words[at]], at + 1
    elif second is not None and words[0] in _MONTH_NAMES:
        day, month, size = int(second[1]), _MONTH_NAMES[words[0]], 2  # march 31
    if day is None or month is None or (words[0] == "may" and size == 2 and n == 0):
        return None
    rest = words[size:]
    year = None
    if rest[:1] == [","] and len(rest) > 1:
        rest = rest[1:]
    if rest and _YEAR.match(rest[0]):
        year, size = int(rest[0]), len(words) - len(rest) + 1
    today = datetime.date.today()
    for candidate in [year] if year else range(today.year, today.year + 9):
        try:
            when = datetime.date(candidate, month, day)
        except ValueError:  # 31 February; 29 February of a common year
            continue
        if year or when >= today:
            return when.isoformat(), n + size
    return None


def _free(unit: Any) -> bool:
    """A word no other reading of the tagger claimed (or only as a typo fix: "cet")."""
    return not unit.roles or (unit.said.lower() != unit.text and unit.size == 1)


def _tag_zones(units: list[Any], texts: list[str]) -> None:
    """City and zone names of this machine's list ("berlin", "new york", "cet"), said
    where a time zone is talked about or after "in" ("london time", "we are in tokyo")."""
    context = any(t in _ZONE_WORDS for t in texts)
    if not (context or "in" in texts[:-1]) or not zones():
        return  # the zone list is read only when a zone may be talked about (~8 ms)
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
