"""Tagging: the request's words grouped into units, each with every role it can play.

A unit is the longest phrase the catalogue knows (a verb such as "get rid of", a resource
noun, a qualifier such as "not running", an exclusion marker, a time expression, a name
from the snapshot) or a single word. Typed values (numbers, paths, IP addresses, times)
are read here; exclusions ("except X", "leave X alone", "not X"), negations ("do not
restart it") and clauses are found before any operation is scored.

Not responsible for choosing between roles (each operation does, in `scoring.score`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

from reos.catalogue.lexicon import Lexicon, base_forms, correct
from reos.patterns import regex
from reos.understanding import moments
from reos.understanding.identity import stem_of
from reos.understanding.matcher import ALL_KINDS, spellings

if TYPE_CHECKING:
    from typing import Any

_BY_TOKEN = {"container", "service", "timer"}  # kinds found by one word of their names
_CODE = regex(r"^(?:[a-z]\d|\d[a-z])$")  # a two-character name word: "b2" of restic-b2

_TIME_UNITS = {"second": "s", "seconds": "s", "sec": "s", "secs": "s", "minute": "m",
               "minutes": "m", "min": "m", "mins": "m", "hour": "h", "hours": "h",
               "hr": "h", "hrs": "h", "day": "d", "days": "d", "week": "w", "weeks": "w"}
_TIME_SINCE = {"yesterday": "yesterday", "today": "today", "tonight": "today",
               "boot": "boot", "reboot": "boot", "startup": "boot"}
_NEWEST = {"last", "latest", "past", "previous", "recent", "final"}  # before a count
_AFTER_SINCE = {"boot", "reboot", "startup"}  # times only after since / this / last
_KEEP_TAILS = {"alone", "running", "untouched", "be", "up", "out", "as is", "in peace"}
_NEEDS_TAIL = {"leave", "keep"}  # "leave X alone"; "spare X", "skip X" need none


class Unit(Struct, eq=False):  # one unit is itself: compared and hashed by identity
    """One or more words the parse treats as one thing, with every role they can play."""

    text: str  # normalised
    start: int  # index of its first word
    size: int  # how many words
    roles: dict[str, Any] = {}
    said: str = ""  # the words as written (before base forms and typo fixes)
    apart: bool = False  # a whole name after another one: not one name's words
    exact: set[str] = set()  # kinds it is the whole name of ("wg0": an interface)

    @property
    def unknown(self) -> bool:
        return not self.roles


# -- units -----------------------------------------------------------------------------

class Names:
    """Snapshot names a word can be: a name, a compose project, a word of a container's or
    service's name, or what a thing is (an image, a full name, a label)."""

    def __init__(self, matcher: Any):
        self.matcher = matcher

    def kinds(self, word: str, tokens: bool = True, described: bool = False) -> set[str]:
        """Kinds `word` names; name tokens ("redis" of nextcloud-redis) only if `tokens`;
        a word that sets a thing apart in its description ("kessler") only if `described`."""
        found: set[str] = set()
        if self.matcher is None or len(word) < 2:
            return found
        for kind in ALL_KINDS:
            index = self.matcher.index(kind)
            if index is None:
                continue
            if word in index.by_name or word in index.projects:
                found.add(kind)
            elif tokens and (len(word) >= 3 or _CODE.match(word)) and (
                    kind in _BY_TOKEN and word in index.by_token or word in index.identities
                    or word in index.whose):
                found.add(kind)
            elif described and len(word) >= 5 and index.descriptions and (
                    stem_of(word) in index.described):
                found.add(kind)
        return found


    def exact(self, word: str) -> set[str]:
        """Kinds `word` is the whole name (or compose project) of."""
        if self.matcher is None:
            return set()
        return {kind for kind in ALL_KINDS if (index := self.matcher.index(kind)) is not None
                and (word in index.by_name or word in index.projects)}

    def close(self, word: str) -> set[str]:
        """Kinds with a name, project or name word one typo from `word` (the matcher's
        fuzzy tier then finds it, and says what it took the word for)."""
        if self.matcher is None or len(word) < 4 or not word.isalpha():
            return set()
        found: set[str] = set()
        for kind in ALL_KINDS:
            index = self.matcher.index(kind)
            if index is not None and (kind != "package" or len(word) >= 5) and \
                    index._fuzzy_lookup(word):
                found.add(kind)
        return found


def units_of(words: list[str], lex: Lexicon, names: Names) -> list[Unit]:
    units: list[Unit] = []
    i = 0
    while i < len(words):
        word = words[i]
        size, roles = lex.longest(words, i) if word in lex.phrases else (0, {})
        if size == 0:
            size = 1
            # a description's word is a name only when it is not a word the catalogue reads
            # ("checking" is check, never e2scrub_reap's "Check" in its Description)
            kinds = names.kinds(word, described=not any(
                form in lex.phrases for form in base_forms(word)))
            if not kinds:
                fixed = correct(word, lex)
                forms = base_forms(word)
                if fixed and (any(r == "qualifier" for _, r, _ in lex.phrases.get(fixed, ()))
                              or lex.longest([fixed, *words[i + 1:]], 0)[0] > 1):
                    forms = [fixed, *forms]  # "stoped" is "stopped", not "stop"; "loged in"
                for form in [*forms, fixed]:
                    if form and form in lex.phrases:
                        base_size, found = lex.longest([form, *words[i + 1:]], 0)
                        if found.keys() & {"verb", "noun", "qualifier", "resource", "ask"} or (
                                "filler" in found and word == form + "s"):
                            size, word, roles = base_size, form, found
                            break
                else:
                    if fixed and not roles:  # "lsat hour": the time words read it as "last"
                        word, roles = fixed, lex.longest([fixed], 0)[1]
                if not roles and not fixed:  # "alertmanger", "ngnix": a name one typo away
                    kinds = names.close(word)
            if kinds:
                roles = {**roles, "name": kinds}
            _typed(word, roles)
        else:
            # a word the catalogue knows is a name only as a whole name, unless it is
            # just a topic or an alias ("redis" of nextcloud-redis), never glue or a verb
            tokens = not (roles.keys() - {"noun", "alias", "resource"})
            kinds = names.kinds(word, tokens=tokens) if size == 1 else set()
            if kinds:
                roles["name"] = kinds
        said = " ".join(words[i:i + size])
        text = " ".join([word, *words[i + 1:i + size]]) if size > 1 else word
        units.append(Unit(text, i, size, roles, said))
        i += size
    _versions(units, names)
    _spelled_apart(units, names)
    for unit in units:
        if "name" in unit.roles:
            unit.exact = names.exact(unit.text)
    _apart_names(units, names)
    _times(units)
    moments.tag(units)  # moments, ranges, sizes and time zones by city
    _split_verbs(units, lex)
    _passives(units, lex)
    _progressives(units)
    _possessed(units)
    _named_fillers(units)
    _described_hosts(units)
    return units


_POSSESSIVES = {"its", "his", "her", "their", "my", "our", "your"}
_ORDINALS = {"last", "next", "previous", "latest", "first"}


def _possessed(units: list[Unit]) -> None:
    """"what the backup logged on its last run", "before the next update": a verb's word
    said as a thing someone has (after its, his, my…, or the last/next) is a noun there,
    never the ask ("do a restart" and "give it an update" still ask)."""
    for n in range(1, len(units)):
        unit, before = units[n], units[n - 1].text
        if "verb" not in unit.roles or unit.size != 1:
            continue
        if before in _POSSESSIVES or (before in _ORDINALS and n >= 2 and (
                units[n - 2].text in _POSSESSIVES | {"the"})):
            unit.roles = {k: v for k, v in unit.roles.items() if k != "verb"}


_HOST_NOUNS = frozenset({"pc", "host", "server", "machine", "box", "computer", "laptop",
                         "workstation", "printer", "nas", "node", "router", "camera", "phone",
                         "vm", "desktop", "client", "instance", "scanner", "terminal"})
_BY_ADDRESS = frozenset({"at", "on", "with", "ip", "address", "ip:"})
# the one thing described starts after one of these; a word that sets things apart
# ("every host *except* server 10.0.0.9") ends the search: nothing is described then
_ARTICLES = frozenset({"the", "a", "an", "our", "my", "their", "his", "her", "your", "its"})
_SETTING_APART = frozenset({"except", "but", "not", "other", "than", "besides", "excluding",
                            "without", "no", "apart", "instead", "only", "all", "every",
                            "each", "any"})


def _described_hosts(units: list[Unit]) -> None:
    """"the reporting PC at 192.168.10.42", "the department monitoring host 10.42.1.10":
    the words from an article to the noun before an address describe that address, so
    no reading has to place them; a word that sets things apart before the noun ("every
    host except server …") leaves them as said."""
    for n, unit in enumerate(units):
        if "ip" not in unit.roles:
            continue
        m = n - 1
        while m >= 0 and n - m <= 2 and units[m].text in _BY_ADDRESS:
            m -= 1
        if m < 1 or units[m].text not in _HOST_NOUNS:
            continue
        start = m - 1
        while start >= 0 and m - start <= 4 and units[start].text not in _ARTICLES and (
                units[start].text not in _SETTING_APART) and (
                not units[start].roles.keys() & {"ip", "number", "conj", "negation"}):
            start -= 1
        if start >= 0 and units[start].text in _ARTICLES:
            for described in units[start + 1:m + 1]:
                described.roles = {"filler": True}


def _named_fillers(units: list[Unit]) -> None:
    """A word said only in passing ("sudo restart nginx") that this machine also names
    ("remove sudo from bob": the group sudo) is the name once the request has begun."""
    begun = False
    for unit in units:
        if "filler" in unit.roles and unit.roles.get("name", set()) - {"package"} and begun:
            # (a package called so is not enough: "at", "time" and "less" are packages)
            unit.roles = {k: v for k, v in unit.roles.items() if k != "filler"}
        begun = begun or "filler" not in unit.roles


def _spelled_apart(units: list[Unit], names: Names) -> None:
    """"php 8.1 fpm", "redis server": two to four words side by side that together are
    one name here, written with marks between them (php8.1-fpm), are one name."""
    n = 0
    while n + 1 < len(units):
        for size in (4, 3, 2):
            group = units[n:n + size]
            if len(group) < size or not all(
                    u.size == 1 and ("name" in u.roles or "number" in u.roles or u.unknown)
                    for u in group) or not any("name" in u.roles for u in group):
                continue
            kinds: set[str] = set()
            for spelled in spellings(" ".join(u.text for u in group)):
                kinds |= names.kinds(spelled, tokens=False)
            if kinds:
                units[n:n + size] = [Unit(" ".join(u.text for u in group), group[0].start,
                                          size, {"name": kinds},
                                          " ".join(u.said for u in group))]
                break
        n += 1


def _apart_names(units: list[Unit], names: Names) -> None:
    """"usermod -aG www-data jkowalski": two whole names side by side, which together name
    nothing ("nextcloud redis" is nextcloud-redis), are two things."""
    for before, unit in zip(units, units[1:], strict=False):
        if "name" in before.roles and "name" in unit.roles and before.exact \
                and unit.exact and not any(
                    names.kinds(joined, tokens=False)
                    for joined in spellings(f"{before.text} {unit.text}")):
            unit.apart = True


def _versions(units: list[Unit], names: Names) -> None:
    """"postgres 14": a name and the version after it are one name when something here is
    known by both (a container running postgres:14), not a name and a count."""
    n = 0
    while n + 1 < len(units):
        this, after = units[n], units[n + 1]
        if "name" in this.roles and after.text.isdigit() and after.start == this.start + \
                this.size:
            kinds = names.kinds(f"{this.text}-{after.text}")
            if kinds:
                units[n] = Unit(f"{this.text} {after.text}", this.start, this.size + 1,
                                {"name": kinds}, f"{this.said} {after.said}")
                del units[n + 1]
        n += 1


_BE = {"be", "been", "get", "got", "is", "are", "was", "were", "gets", "being"}


def _passives(units: list[Unit], lex: Lexicon) -> None:
    """"everything but portainer should be stopped": a participle after be/get is also
    the verb it comes from (it stays a qualifier for readings that filter by it)."""
    for n in range(1, len(units)):
        unit = units[n]
        if units[n - 1].text not in _BE or "verb" in unit.roles or unit.size != 1:
            continue
        for form in base_forms(unit.text):
            _, roles = lex.longest([form], 0) if form in lex.phrases else (0, {})
            if "verb" in roles:
                unit.roles = {**unit.roles, "verb": roles["verb"]}
                break


def _progressives(units: list[Unit]) -> None:
    """"how many workers are running", "which kernel is running": a state after be, not
    the verb it comes from ("run a job")."""
    for n in range(1, len(units)):
        unit = units[n]
        if units[n - 1].text in _BE and "qualifier" in unit.roles and "verb" in unit.roles \
                and unit.said.endswith("ing"):
            unit.roles = {k: v for k, v in unit.roles.items() if k != "verb"}


_PARTICLES = {"off", "down", "up", "out", "back", "on", "over"}


def _split_verbs(units: list[Unit], lex: Lexicon) -> None:
    """"turn the computer off", "shut this box down": a two-word verb said around its
    object is the verb; the particle is explained with it. "on" or "over" away from the verb
    and followed by a determiner starts a phrase of its own ("check which … are disabled
    on this machine")."""
    for n, unit in enumerate(units):
        if "verb" in unit.roles or unit.size != 1:
            continue
        for phrase, role, _ in lex.phrases.get(unit.text, ()):
            if role != "verb" or len(phrase) != 2 or phrase[1] not in _PARTICLES:
                continue
            for m in range(n + 1, min(n + 6, len(units))):
                if units[m].text == phrase[1] and "verb" not in units[m].roles and not (
                        m > n + 1 and phrase[1] in _PREPOSITIONS and m + 1 < len(units)
                        and units[m + 1].text in _DETERMINERS):
                    _, roles = lex.longest(list(phrase), 0)
                    unit.roles = {**roles, **({"name": unit.roles["name"]}
                                              if "name" in unit.roles else {})}
                    units[m].roles = {"filler": True}
                    break
                if "verb" in units[m].roles:
                    break
            if "verb" in unit.roles:
                break


_PREPOSITIONS = frozenset({"on", "over"})  # particles that also start a place: "on this box"
_DETERMINERS = frozenset({"the", "this", "that", "these", "those", "a", "an", "my", "our",
                          "your", "his", "her", "their", "all", "every", "each"})
_IPV4 = regex(r"^(?:\d{1,3}\.){3}\d{1,3}(?:/\d{1,2})?$")


_TIMEZONE = regex(r"^(?:[a-z]+(?:_[a-z]+)*/[a-z0-9_+-]+(?:/[a-z0-9_+-]+)?|utc|gmt)$")
_DATE = regex(r"^\d{4}-\d{2}-\d{2}$")
_SHELLS = {"bash", "zsh", "fish", "sh", "dash", "ksh", "tcsh", "csh", "nologin", "false"}


_PORT_PROTO = regex(r"(\d{1,5})/(tcp|udp)")


def _typed(word: str, roles: dict[str, Any]) -> None:
    """Numbers, paths, IP addresses (with a prefix length), time zones, dates and shells:
    values, never names."""
    if word.isdigit() or (word[:1] == "-" and word[1:].isdigit() and len(word) <= 4):
        roles["number"] = int(word[:6])  # "-5": a niceness, never a command's option
    elif (port := _PORT_PROTO.fullmatch(word)) is not None:
        roles["number"], roles["proto"] = int(port[1]), port[2]  # "27015/udp"
    elif word in ("tcp", "udp"):
        roles["proto"] = word
    elif _DATE.match(word):
        roles["date"] = word
    elif word.startswith(("/", "~/", "./")):
        roles["path"] = word
        if word.rsplit("/", 1)[-1] in _SHELLS and "bin" in word:
            roles["shell"] = word
    elif len(word) <= 18 and _IPV4.match(word):
        roles["ip"] = word
    elif len(word) <= 64 and _TIMEZONE.match(word) and not word.startswith("/"):
        roles["timezone"] = word
    elif word in _SHELLS:
        roles["shell"] = word


def _times(units: list[Unit]) -> None:
    """Time expressions: yesterday, today, since boot, the last 10 minutes, past hour."""
    for n, unit in enumerate(units):
        if unit.text in _TIME_SINCE and (unit.text not in _AFTER_SINCE or n and units[
                n - 1].text in ("since", "this", "last", "current")):
            unit.roles = {"time": _TIME_SINCE[unit.text]}
            if n and units[n - 1].text in ("since", "this", "last", "current"):
                units[n - 1].roles = {"time": True}
        elif unit.text in _TIME_UNITS and n and units[n - 1].text in (
                "last", "past", "previous", "the"):
            units[n].roles = {"time": f"1{_TIME_UNITS[unit.text]}"}
            units[n - 1].roles = {"time": True}
        elif unit.text in _TIME_UNITS and n and "number" in units[n - 1].roles:
            amount = units[n - 1].roles["number"]
            unit.roles = {"time": f"{amount}{_TIME_UNITS[unit.text]}"}
            units[n - 1].roles = {"time": True}
            if n > 1 and units[n - 2].text in ("last", "past", "previous", "since"):
                units[n - 2].roles = {"time": True}
    for n, unit in enumerate(units):
        if unit.text == "ago" and n and "time" in units[n - 1].roles and not unit.roles and (
                any(u.text == "since" for u in units[max(0, n - 4):n - 1])):
            unit.roles = {"time": True}  # "since 3 days ago"; never "a reboot 10 minutes
            # ago", which is no delay to wait, nor "from 3 days ago", no age to trim at
        elif unit.text in _NEWEST and not unit.roles and n + 1 < len(units) and (
                "number" in units[n + 1].roles):
            unit.roles = {"filler": True}  # "the last 500 lines": the number is the count


# -- exclusions and negations ----------------------------------------------------------

def exclusions(units: list[Unit]) -> tuple[set[int], list[str]]:
    """Units that name what to leave out ("except X and Y", "leave X alone", "not X")."""
    marked: set[int] = set()
    names: list[str] = []
    for n, unit in enumerate(units):
        marker = "exclude" in unit.roles or "keep" in unit.roles or (
            "negation" in unit.roles and n > 0)
        if not marker:
            continue
        # a state before the name ("leave the old test one alone") is said of it, but
        # never after a bare "but", which may start another sentence ("but the old
        # socat forward should go")
        taken = _names_after(units, n + 1, described=unit.text != "but")
        after = max(taken) + 1 if taken else len(units)
        while after < len(units) and "filler" in units[after].roles and (
                units[after].text not in _KEEP_TAILS):
            after += 1  # "leave the redis ones alone"
        tail = after < len(units) and units[after].text in _KEEP_TAILS
        if "keep" in unit.roles and unit.text in _NEEDS_TAIL and not tail:
            continue  # "keep nginx from starting at boot" is not an exclusion
        if "negation" in unit.roles and "exclude" not in unit.roles:
            # "not X" leaves out only a real name ("won't X start" is no exclusion); words
            # after the name that name nothing ("not the wiki app itself") stay unused
            named = [m for m in taken if "name" in units[m].roles or "alias" in units[m].roles]
            aside = "conj" in units[n - 1].roles  # ", not X …" / "and not X …"
            kind = after < len(units) and "resource" in units[after].roles
            if aside and kind and not named and all(units[m].unknown for m in taken):
                # ", not the monitoring containers": things left out by words that name
                # nothing here; said back as what to leave out (never dropped, so the
                # request is asked about), the kind's noun with them
                marked.add(after)
            elif not named or named[0] != taken[0] or (
                    len(named) < len(taken) and not aside) or (
                    after < len(units) and "verb" in units[after].roles):
                continue
            else:
                taken = named[:next((k for k in range(1, len(named))
                                     if named[k] != named[k - 1] + 1), len(named))]
        if taken:
            marked.add(n)
            marked.update(taken)
            marked.update(m for m in range(n + 1, taken[0]) if "qualifier" in units[m].roles)
            names += phrases([units[m] for m in taken])
            if tail:
                marked.update(range(max(taken) + 1, after + 1))
    return marked, names


def _names_after(units: list[Unit], start: int, *, described: bool = True) -> list[int]:
    taken: list[int] = []
    for m in range(start, len(units)):
        roles = units[m].roles
        if units[m].text in _KEEP_TAILS and taken:
            break  # "leave X alone": the tail ends the names
        if "name" in roles or "alias" in roles or units[m].unknown:
            taken.append(m)
        elif described and "qualifier" in roles and not taken and (
                "all" not in roles["qualifier"]) and any(
                "name" in u.roles for u in units[m + 1:m + 3]):
            continue  # "leave the old test one alone": said of the name after it
        elif "verb" in roles or "resource" in roles or "qualifier" in roles:
            break
        elif "conj" in roles and taken or "filler" in roles and not (
                units[m].text in _KEEP_TAILS and taken):
            continue
        else:
            break
    return taken


_OWNED_BY = {"of", "from", "in", "for", "on"}  # "the db of crm": the crm project's db; "the
# webcam on the voron": the voron's webcam


def _owned_by(gap: list[str]) -> bool:
    """The words between two names say the second holds the first ("of", "in the")."""
    return 0 < len(gap) <= 2 and gap[0] in _OWNED_BY and all(
        w in ("the", "a", "an", "my", "our", "that") for w in gap[1:])


def phrases(units: list[Unit], every: list[Unit] | None = None) -> list[str]:
    """Adjacent name units joined: [nextcloud, redis] -> "nextcloud redis"; a name of a
    name ("the db of crm", with every unit of the request given) is one phrase too, said
    the other way round ("crm db"), so the matcher finds what both name. Names of
    different kinds side by side stay apart (`_apart`)."""
    between = {u.start: u.text for u in every or ()}
    phrases: list[str] = []
    last = -2
    owned = False
    previous: Unit | None = None
    for unit in units:
        if unit.start == last and phrases and not _apart(previous, unit):
            phrases[-1] += " " + unit.text
        elif phrases and not owned and " " not in phrases[-1] and _owned_by(
                [between.get(at, "") for at in range(last, unit.start)]):
            phrases[-1] = f"{unit.text} {phrases[-1]}"
            owned = True
        else:
            phrases.append(unit.text)
            owned = False
        last = unit.start + unit.size
        previous = unit
    return phrases


def _apart(before: Unit | None, unit: Unit) -> bool:
    """Two names side by side that name different kinds of thing ("usermod -aG docker
    bob": a group, then a user), or two whole names ("www-data jkowalski"), are two
    targets, not one name's words."""
    if before is None:
        return False
    kinds, others = before.roles.get("name"), unit.roles.get("name")
    if not kinds or not others:
        return False
    return unit.apart or not set(kinds) & set(others)  # "www-data jkowalski"; "docker bob"


def negated(units: list[Unit]) -> tuple[set[str], set[int]]:
    """Operation ids a negation points at ("do not restart", "I don't want X removed"),
    and the units that say so (the negation and the negated verb), which no reading uses."""
    ops: set[str] = set()
    marks: set[int] = set()
    for n, unit in enumerate(units):
        if "negation" not in unit.roles:
            continue
        for m in range(n + 1, min(n + 5, len(units))):
            roles = units[m].roles
            if "verb" in roles:
                ops |= roles["verb"]
                marks |= {n, m}
                break
            if not ({"filler", "name", "alias"} & set(roles) or units[m].unknown):
                break
    return ops, marks


_CLAUSE_ENDS = {",", "because", "cause", "so", "since"}


def told_of(units: list[Unit], n: int) -> bool:
    """Whether the word at `n` is a state said of a subject of its own after a verb and
    what it acts on, with no comma between ("restart the pihole container dns *is down*"):
    a sentence run on, which describes and never says which ones ("the containers that
    are down" does)."""
    if n < 2 or units[n - 1].text not in _BEING:
        return False
    subject = units[n - 2]
    if not ("name" in subject.roles or "noun" in subject.roles or subject.unknown):
        return False
    verb = next((m for m in range(n - 2) if "verb" in units[m].roles), None)
    # what it acts on is named (never only "the services", which the state would narrow),
    # with a word for its kind after the name ("the pihole container"), so the subject
    # begins a sentence of its own
    return verb is not None and any(
        "name" in units[m].roles and "resource" in units[m + 1].roles
        for m in range(verb + 1, n - 3))


_BEING = {"is", "are", "was", "were", "seems", "seem", "looks", "look", "keeps", "keep"}


def clauses(units: list[Unit]) -> list[int]:
    """The clause of each unit: a comma, a sentence end, "because" or "so" starts a new
    one. "since" does too, unless it starts a time ("since boot" is one unit)."""
    found, clause = [], 0
    for unit in units:
        if unit.text in _CLAUSE_ENDS and "time" not in unit.roles:
            clause += 1
        found.append(clause)
    return found
