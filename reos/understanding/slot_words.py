"""Slot words: which words of a request give one operation's slots other than its target
their values, and what each adds to the reading.

A name of another kind ("add bob to the *docker* group") or that kind's noun; a name
before a slot's noun or after "to"/"from", even one that could be the target
(`names_its_slot`); a typed value (a shell, a time zone, a date, a size); the word after
"to"/"as" for a hostname; the network or address a rule is from (`slot`); whose process
("kill *dan's* tracker": `owner`); a time of day or a span (`place_clock`, `place_time`:
when to act, where logs start, a number of days, a date; a change said for later that the
operation cannot schedule is asked about, never done now); a number for a numeric slot
(`weigh_number`); a network service's name as a rule's port (`weigh_service_port`); a
firewall's default ("deny", "block", "allow", "reject": `_POLICY_WORDS`); a Postfix
queue id (`_QUEUE_ID`: the planner gives it back the case the request wrote); a
person's full name, read from the text before it is tagged (`full_name`). A second value
for a slot one value fills takes the place of the first, which is said back
(`second_value`); a second port, address or time is said back itself.

Not responsible for the order in which a unit's roles are tried (`scoring._place_units`),
for the targets (`target_words`), for checking values or rendering them for a tool
(`slots`), or for reading times, sizes and zones out of words (`moments`, through the
tagger).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from reos.catalogue.operations import Operation
from reos.patterns import regex
from reos.understanding.evidence import Reading, Weight, unplaced
from reos.understanding.moments import AHEAD
from reos.understanding.tagging import Unit

if TYPE_CHECKING:
    from typing import Any


_ENTITY_SLOTS = ("user", "group", "interface", "device", "timer")  # filled by a name here
_VALUE_SLOTS = ("shell", "timezone", "date", "path", "size")  # slots filled by a typed word
_SLOT_NOUNS = {"port": {"port", "ports"}, "priority": {"priority", "niceness", "nice value"},
               "shell": {"shell", "login shell"}, "date": {"date"}}
_NAMING = {"to", "as", "called", "named", "into", "become", "becomes"}  # "…hostname to web01"


_SLOT_PREPOSITIONS = {"to", "into", "from", "in"}  # "add bob *to* www-data"
_SPAN = regex(r"(\d{1,5})([dw])")  # a time span as the tagger writes it: 90d, 12w
_LATER = regex(r"(\d{1,4})([mh])")  # "in 10 minutes", "in 2 hours": from now
# a Postfix queue id as the parse reads it (lowercased): hex, or a long id's letters and
# digits without vowels; with a digit, so no English word is one ("defaced")
_QUEUE_ID = regex(r"(?=[a-z]*\d)(?:[0-9a-f]{6,16}|[0-9b-df-hj-np-tv-z]{10,20})")


def _hour_from(clock: str) -> str:
    """The hour from the last time of day it was ("at 3am": 03:00 to 04:00 today, or
    yesterday's when it is not 3am yet)."""
    from datetime import datetime

    hour, minute = int(clock[:2]), clock[3:]
    day = "today" if datetime.now().strftime("%H:%M") >= clock else "yesterday"
    end = f"{hour + 1:02d}:{minute}" if hour < 23 else "23:59"
    return f"{day}@{clock}~{day}@{end}"


def _phrase_start(units: list[Unit], n: int) -> int:
    """The first unit of the time phrase ending at unit `n` (its words before the value)."""
    start = n
    while start > 0 and units[start - 1].roles.get("time") is True:
        start -= 1
    return start


def _said_ahead(units: list[Unit], n: int) -> bool:
    """Whether the time span ending at unit `n` is said as from now ("in 10 minutes")."""
    start = _phrase_start(units, n)
    return start > 0 and units[start - 1].text in ("in", "within", "after")


def _not_now(reading: Reading, n: int, unit: Unit, when: str) -> None:
    """A change said for later that this operation cannot schedule: asked about, never
    done now instead."""
    reading.params["clock"] = when
    reading.unhonoured.append(unit.text)
    reading.unhonoured_at.append(n)
    reading.explained[n] = "qualifier"
    reading.score += Weight.UNHONOURED


_ARTICLES = {"the", "a", "an", "our", "my", "their"}


def names_its_slot(op: Operation, units: list[Unit], n: int) -> bool:
    """Whether unit `n` is a name followed by the noun of one of the operation's slots
    ("the www-data *group*"), or after "to"/"from" ("add bob to www-data", where www-data
    is a user too): then it fills that slot even if it could be the target."""
    if "name" not in units[n].roles:
        return False
    kinds = units[n].roles["name"]
    slots = [k for k in _ENTITY_SLOTS if k in op.slots and k != op.target and k in kinds]
    if not slots:
        return False
    if n + 1 < len(units) and set(slots) & units[n + 1].roles.get("resource", set()):
        return True
    if n and set(slots) & units[n - 1].roles.get("resource", set()):
        return True  # "remove from the group docker the user bob": the group's noun first
    before = n - 1
    while before >= 0 and units[before].text in _ARTICLES:
        before -= 1
    return before >= 0 and units[before].text in _SLOT_PREPOSITIONS


def owner(roles: dict[str, Any]) -> bool:
    """Whether a word names only a person's account, never a program: said with a
    process ("kill dan's tracker", "the zoom of margaret"), it says whose process."""
    kinds = roles.get("name", set())
    return "user" in kinds and "process" not in kinds and "verb" not in roles


def slot(op: Operation, units: list[Unit], n: int) -> tuple[str, str | None] | None:
    """(slot, value) when unit `n` fills one of the operation's slots other than its
    target: another kind's name ("add bob to the *docker* group"), that kind's noun
    ("group": value None), a typed value (a shell, a time zone, a date), or the word after
    "to"/"as" for a hostname. None when it fills none."""
    unit = units[n]
    roles = unit.roles
    for kind in _ENTITY_SLOTS:
        if kind in op.slots and kind != op.target:
            if kind in roles.get("name", ()) or kind in roles.get("alias", ()):
                return kind, unit.text  # an alias ("the wireless card"): the planner's
            if kind in roles.get("resource", ()):
                return kind, None
    if op.target != "mount" and "mount" in roles.get("name", ()):
        if "device" in op.slots:  # "smart status of the backup disk": the disk it is on
            return "device", unit.text
        if "path" in op.slots:  # "space left on the backup drive": where it is mounted
            return "path", unit.text
    for kind in _VALUE_SLOTS:
        if kind in op.slots and kind in roles:
            return kind, str(roles[kind])
    for kind, nouns in _SLOT_NOUNS.items():
        if kind in op.slots and unit.text in nouns:
            return kind, None  # "port" in "kill whatever is on port 3000"
    if ("hostname" in op.slots and n and units[n - 1].text in _NAMING
            and (unit.unknown or "name" in roles)):
        return "hostname", unit.text
    if "policy" in op.slots and unit.text in _POLICY_WORDS:
        return "policy", _POLICY_WORDS[unit.text]  # "deny all incoming by default"
    if "queue_id" in op.slots and (unit.unknown or "number" in roles) and _QUEUE_ID.fullmatch(
            unit.text):
        return "queue_id", unit.text  # "delete 4XkQ2R1vZzN0": its case comes back later
    if "host" in op.slots and unit.text in _LAN_WORDS:
        return "host", "lan"  # "allow 8080 from the lan": this machine's own network
    if "host" in op.slots and ("ip" in roles or (unit.unknown and "." in unit.text)):
        return "host", unit.text  # "ping 1.1.1.1", "can you reach example.org"
    return None


# slots one value fills, where a second one is another thing said (a second group), not
# a correction ("/home is full … under /home/deploy": the last path, nothing said back)
_ONE_ONLY = frozenset({"group"})


def second_value(reading: Reading, units: list[Unit],
                 slot: tuple[str, str | None] | None) -> None:
    """A second value for a slot one value fills: the value it held is said back and the
    later one takes its place ("add tove to lab and docker" adds to docker and says it
    did not use lab)."""
    if slot is None or slot[0] not in _ONE_ONLY or not slot[1] or reading.params.get(
            slot[0]) in (None, slot[1]):
        return
    held = reading.params.pop(slot[0])
    for n, role in list(reading.explained.items()):
        if role == "slot" and units[n].text == held:
            del reading.explained[n]
            unplaced(reading, n, units[n], Weight.SECOND_VALUE)


_FULL_NAME = regex(
    r"\b(?:full\s+name|real\s+name|display\s+name|gecos(?:\s+field)?|name\s+field)\b"
    r"[^\"'\u201c\u2018.]{0,60}?\b(?:to|as|into)\s+(?:[\"'\u201c\u2018](?P<quoted>[^\"\u201d\u2019\n]"
    r"{1,64}?)[\"'\u201d\u2019](?=[\s,.;!?]|$)|(?P<bare>(?-i:[A-Z](?:\.|[\w'-]*))"
    r"(?:\s+(?-i:[A-Z](?:\.|[\w'-]*))){1,4}))", re.IGNORECASE)


def full_name(text: str) -> tuple[str, int, int] | None:
    """A person's full name said as the value of a full-name change ("set alice's full
    name to 'Alice Smith'", "… real name to Robert Jones": at least two capitalised words,
    never past a full stop), as (the name as typed, where it starts, where it ends); None
    when none is said, or two are (which goes to whom is asked, never guessed)."""
    found = list(_FULL_NAME.finditer(text))
    if len(found) != 1:
        return None
    group = "quoted" if found[0]["quoted"] is not None else "bare"
    value = found[0][group].strip()
    return (value, found[0].start(group), found[0].end(group)) if value else None


def weigh_slot(reading: Reading, units: list[Unit], n: int, unit: Unit,
               slot: tuple[str, str | None]) -> None:
    """A word that fills one of its slots other than the target ("add bob to the
    *docker* group", "change the shell to *zsh*"): SLOT_VALUE for a value it takes;
    SLOT_NOUN when the slot's noun is the operation's own noun too ("who's got *port*
    3306"). A second address for one rule costs SECOND_VALUE and is said back, never
    put in place of the first; a second group replaces the first (`second_value`)."""
    if slot[0] == "host" and slot[1] and reading.params.get("host") not in (None, slot[1]):
        unplaced(reading, n, unit, Weight.SECOND_VALUE)
        return
    second_value(reading, units, slot)  # a second group: the last is the one
    reading.explained[n] = "slot"
    if slot[1]:
        reading.params[slot[0]] = slot[1]
        reading.score += Weight.SLOT_VALUE
    elif reading.op.id in unit.roles.get("noun", ()):
        reading.score += Weight.SLOT_NOUN
        reading.evidence.add("noun")


def place_clock(reading: Reading, n: int, unit: Unit) -> None:
    """A time of day ("at 3am"): when the thing should happen, for an operation that
    schedules; the hour from then, for one that reads logs; for any other change, asked
    about and never done now instead (UNHONOURED, `_not_now`); else a STRAY_WORD."""
    op = reading.op
    clock = str(unit.roles["clock"])
    exact = not clock.endswith("?")  # "at 5": which 5 is not said
    if "when" in op.slots and reading.params.get("when", clock) == clock:
        if exact:  # "at 5" leaves the time unsaid: reos asks for it
            reading.params["when"] = clock
        reading.explained[n] = "slot"
    elif "since" in op.slots and exact:  # "the logs at 3am": the hour from then
        reading.params["since"] = _hour_from(clock)
        reading.explained[n] = "time"
    elif op.kind == "action":  # never done now instead: asked, as a qualifier is
        _not_now(reading, n, unit, clock)
    else:
        unplaced(reading, n, unit, Weight.STRAY_WORD)


def place_time(reading: Reading, units: list[Unit], n: int, unit: Unit) -> None:
    """A time or span ("in 10 minutes", "since yesterday", "every 90 days", "on
    2026-12-31"): when to act, for an operation that schedules (a second time is a
    SECOND_VALUE, said back); for any other change said for later, asked about and never
    done now (`_not_now`); a number of days, a date or where its logs start for an
    operation that takes one; else a STRAY_WORD."""
    op = reading.op
    moment = unit.roles["time"]
    later = _LATER.fullmatch(str(moment))
    if "when" in op.slots:  # "shut down in 10 minutes", "in 1 hour 30 minutes"
        if moment is True:  # a word of the phrase before its value ("10 min")
            reading.explained[n] = "slot"
            return
        due = reading.params.get("when", "+0")
        if later and due.startswith("+"):
            reading.params["when"] = "+" + str(int(due[1:]) + int(later[1]) * (
                60 if later[2] == "h" else 1))
            reading.explained[n] = "slot"
            return
        if later:  # "at 3am in 10 minutes": two times, neither dropped
            unplaced(reading, n, unit, Weight.SECOND_VALUE)
            return
    if op.kind == "action" and _still_to_come(unit, moment):
        if _for_a_while(units, n) or _of_the_past(units, n):
            # "stop it for tonight": now, and for that long; "nginx, which crashed
            # overnight": when something happened
            reading.explained[n] = "filler"
            return
        if "when" in op.slots and unit.text == "tonight" and any(
                "clock" in u.roles for u in units):
            reading.explained[n] = "slot"  # "reboot at 2am tonight": the clock says when
            return
        _not_now(reading, n, unit, _phrase(units, n))  # "restart nginx tomorrow"
        return
    if moment is True and _phrase_ahead(units, n):
        # "tomorrow" of "tomorrow morning": asked with it, or said back with it
        reading.explained[n] = "qualifier" if op.kind == "action" else "filler"
        return
    if isinstance(moment, str) and moment.startswith(AHEAD):
        # nothing reads logs from tomorrow: a question about then ("which timers run
        # next week") is answered from now, as a listing of what is set up
        reading.explained[n] = "filler"
        return
    if op.kind == "action" and "since" not in op.slots and "days" not in op.slots:
        if later and _said_ahead(units, n):
            _not_now(reading, n, unit, "in " + later[0])  # "restart nginx in an hour"
            return
        ahead = next((u for u in units[n + 1:] if isinstance(u.roles.get("time"), str)),
                     None)
        if moment is True and ahead is not None and _LATER.fullmatch(
                str(ahead.roles["time"])) and _said_ahead(units, units.index(ahead)):
            reading.explained[n] = "qualifier"  # "10" of "in 10 minutes"
            return
    if "days" in op.slots:  # "every 90 days", "for 12 weeks": a number of days
        span = _SPAN.fullmatch(str(moment))
        if span:
            reading.params["days"] = str(int(span[1]) * (7 if span[2] == "w" else 1))
        reading.explained[n] = "days"
        return
    if "date" in op.slots and "since" not in op.slots:
        # "expire bob on 2026-12-31": a day, for an operation that takes a date
        day = moment[1:] if isinstance(moment, str) and moment.startswith("=") else ""
        if moment is True or _ISO_DAY.fullmatch(day[:10]):
            reading.explained[n] = "slot"
            if day:
                reading.params["date"] = day[:10]
            return
    if "since" in op.slots:
        reading.explained[n] = "time"
        if isinstance(moment, str):
            reading.params["since"] = moment
        return
    unplaced(reading, n, unit, Weight.STRAY_WORD)


def _still_to_come(unit: Unit, moment: object) -> bool:
    """Whether a time said with a change is a moment still to come, when it should be
    done rather than what it is about: "tomorrow", "next week", "tonight", "on friday"
    (a weekday, never "last friday"). A past one ("yesterday", "since boot") is not."""
    if not isinstance(moment, str):
        return False
    return moment.startswith(AHEAD) or unit.text == "tonight" or (
        moment[:1] == "=" and moment[1:] in _WEEKDAYS)


def _for_a_while(units: list[Unit], n: int) -> bool:
    """Whether the time phrase ending at `n` says how long a change lasts, not when it is
    done ("for tonight", "until tomorrow", "till next week")."""
    start = _phrase_start(units, n)
    return start > 0 and units[start - 1].text in ("for", "until", "till", "til", "through")


def _of_the_past(units: list[Unit], n: int) -> bool:
    """Whether the time phrase ending at `n` says when something happened: after "which",
    "that" or "who" a few words before it ("nginx, which crashed overnight"; never a word
    in -ed alone: "the update applied tonight" is still to come)."""
    start = _phrase_start(units, n)
    before = [u.text for u in units[max(0, start - 4):start]]
    return any(w in ("which", "that", "who", "since") for w in before)


def _phrase_ahead(units: list[Unit], n: int) -> bool:
    """Whether the time word at `n` begins a moment still to come said after it."""
    ahead = next((u for u in units[n + 1:] if u.roles.get("time") is not True), None)
    return ahead is not None and str(ahead.roles.get("time", "")).startswith(AHEAD)


def _phrase(units: list[Unit], n: int) -> str:
    """The words of the time phrase ending at `n`, as said ("on friday", "tomorrow at
    3am")."""
    start = _phrase_start(units, n)
    return " ".join(u.said for u in units[start:n + 1])


_WEEKDAYS = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"}


def weigh_service_port(reading: Reading, n: int, unit: Unit) -> bool:
    """A network service's name as the port of a rule with no target ("allow *ssh*",
    "the http and https rule"): SERVICE_PORT. False when the word is none, or a port
    was said already."""
    roles = unit.roles
    if "port" in reading.params or not (unit.unknown or "name" in roles or "alias" in roles):
        return False
    port = _service_port(unit.text)
    if port is None:
        return False
    reading.explained[n] = "port"
    reading.params["port"] = port
    reading.score += Weight.SERVICE_PORT
    return True


def weigh_number(reading: Reading, units: list[Unit], n: int, unit: Unit) -> bool:
    """A number for the operation's numeric slot (lines, count, port, priority, days):
    NUMBER; a second, different one is a SECOND_VALUE, said back and never dropped for
    the first. False when the operation takes no number."""
    op = reading.op
    slot_name = next((s for s in ("lines", "count", "port", "priority", "days")
                      if s in op.slots), None)
    if not slot_name:
        return False
    number = str(unit.roles["number"])
    given = reading.params.get(slot_name)
    if given is not None and given != number:
        unplaced(reading, n, unit, Weight.SECOND_VALUE)
        return True
    reading.explained[n] = slot_name
    reading.params[slot_name] = number
    reading.score += Weight.NUMBER
    return True


_ISO_DAY = regex(r"\d{4}-\d{2}-\d{2}")


def _service_port(word: str) -> str | None:
    """The port of a network service by its name in /etc/services ("ssh" -> 22), or None."""
    if not word.isalpha() or len(word) > 15:
        return None
    import socket  # only for operations that take a port and no target (the firewall)

    try:
        return str(socket.getservbyname(word, "tcp"))
    except OSError:
        return None


# a firewall's default for what no rule decides, as said and as ufw takes it
_POLICY_WORDS = {"deny": "deny", "denied": "deny", "denying": "deny", "block": "deny",
                 "blocked": "deny", "blocking": "deny", "drop": "deny", "dropped": "deny",
                 "allow": "allow", "allowed": "allow", "allowing": "allow", "accept": "allow",
                 "accepted": "allow", "permit": "allow", "reject": "reject",
                 "rejected": "reject", "refuse": "reject", "refused": "reject"}
_LAN_WORDS = {"lan", "local network", "home network", "local net", "internal network",
              "my network", "office network", "home lan", "local lan"}
