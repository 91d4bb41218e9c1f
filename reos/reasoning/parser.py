"""The catalogue parser: every word of a request tagged, then the operations scored.

A request is normalised (case, contractions, possessives, verb forms, typos checked
against the catalogue's own words), cut at the first piece of shell text, and split into
*units*: the longest phrase the catalogue knows (a verb such as "get rid of", a resource
noun, a qualifier such as "not running", an exclusion marker, a time expression, a name
from the snapshot) or a single unknown word. Each operation then explains the units it
can: its verbs, nouns and idioms, its resource noun, the qualifiers it accepts, the
snapshot names of its target kind, typed values its slots take, and the shared filler
and ask words. What an operation cannot explain counts against it; what the chosen
reading cannot explain is returned, never dropped, and lowers its confidence.

Refusals are found by meaning first: a destructive verb and a protected object anywhere
in the request (shell text included). Exclusions ("except X", "leave X alone") and
negations ("do not restart it, just reload it") are read before the operations are
scored.

Not responsible for resolving names to resources (the matcher does), for plans, or for
chat words such as "undo" and "yes" said alone (perception does).
"""

from __future__ import annotations

import re
from typing import Any

from reos.reasoning.catalogue import Operation, Refusal
from reos.reasoning.templates import TemplateSet

_SHELL = re.compile(r";|&&|\|\||\||`|\$\(|\$\{")
_WORD = re.compile(r"[^\s,!?;()\"\[\]{}]+|[,!?;]")
_TIME_UNITS = {"second": "s", "seconds": "s", "sec": "s", "secs": "s", "minute": "m",
               "minutes": "m", "min": "m", "mins": "m", "hour": "h", "hours": "h",
               "hr": "h", "hrs": "h", "day": "d", "days": "d", "week": "w", "weeks": "w"}
_TIME_SINCE = {"yesterday": "yesterday", "today": "today", "tonight": "today",
               "boot": "boot", "reboot": "boot", "startup": "boot"}
_AFTER_SINCE = {"boot", "reboot", "startup"}  # times only after since / this / last
_TIME_WORDS = {"last", "past", "previous", "since", "yesterday", "today", "hour", "hours",
               "minute", "minutes", "days", "week", "weeks"}
_STRONG = ("verb", "idiom", "noun")
_KEEP_TAILS = {"alone", "running", "untouched", "be", "up", "out", "as is", "in peace"}
_NEEDS_TAIL = {"leave", "keep"}  # "leave X alone"; "spare X", "skip X" need none


# Plain classes, not dataclasses: these are made for every request, and `reos plan` starts
# faster without generating their methods at import.
class Unit:
    """One or more words the parse treats as one thing, with every role they can play."""

    __slots__ = ("text", "start", "size", "roles", "said")

    def __init__(self, text: str, start: int, size: int,
                 roles: dict[str, Any] | None = None, said: str = ""):
        self.text = text  # normalised
        self.start = start  # index of its first word
        self.size = size  # how many words
        self.roles: dict[str, Any] = roles if roles is not None else {}
        self.said = said  # the words as written (before base forms and typo fixes)

    @property
    def unknown(self) -> bool:
        return not self.roles

    def __repr__(self) -> str:
        return f"Unit({self.text!r}, {self.roles!r})"


class Reading:
    """One operation's account of the request."""

    def __init__(self, op: Operation):
        self.op = op
        self.score = 0.0
        self.evidence: set[str] = set()  # verb, noun, idiom, resource, target
        self.explained: dict[int, str] = {}  # unit index -> role used
        self.targets: list[str] = []
        self.named_kinds: set[str] = set()  # kinds the target names are
        self.unexplained: list[str] = []
        self.conflicts: list[str] = []  # words naming something else
        self.qualifiers: list[str] = []
        self.unhonoured: list[str] = []  # qualifiers the op cannot apply
        self.params: dict[str, str] = {}
        self.plural = False
        self.unplaced: dict[int, float] = {}  # unit index -> what not placing it cost
        self.background = 0  # unplaced words outside the clause that names the operation

    @property
    def confidence(self) -> float:
        """Explained content words over all of them (background clauses left out)."""
        content = len(self.explained) + len(self.unexplained) + len(self.conflicts)
        content -= self.background
        if content <= 0:
            return 0.0
        unplaced = len(self.unexplained) - self.background
        return round((content - unplaced - len(self.conflicts)) / content, 2)

    def __repr__(self) -> str:
        return f"Reading({self.op.id}, {self.score}, targets={self.targets})"


class Parse:
    """What the parser found: units, the refusal if any, readings best first."""

    def __init__(self, text: str, units: list[Unit], shell: str | None = None):
        self.text = text
        self.units = units
        self.refusal: Refusal | None = None
        self.readings: list[Reading] = []
        self.exclude: list[str] = []
        self.shell = shell  # the shell text cut from the request, said back
        self.negated: set[str] = set()  # operation ids the request said not to

    @property
    def best(self) -> Reading | None:
        return self.readings[0] if self.readings else None


class Lexicon:
    """Every phrase of the catalogue, keyed by its first word, built once per TemplateSet."""

    def __init__(self, templates: TemplateSet):
        vocab = templates.vocabulary
        self.vocab = vocab
        self.operations = sorted(templates.operations.values(), key=lambda o: o.priority)
        self.refusals = list(templates.refusals.values())
        self.phrases: dict[str, list[tuple[tuple[str, ...], str, Any]]] = {}
        for op in self.operations:
            for verb in op.verbs:
                self._add(verb, "verb", op.id)
            for noun in op.nouns:
                self._add(noun, "noun", op.id)
        for name, words in vocab.qualifiers.items():
            for word in words:
                self._add(word, "qualifier", name)
        for kind, words in vocab.resources.items():
            for word in words:
                self._add(word, "resource", kind)
        for kind, table in templates.aliases.items():
            for phrase in table:
                self._add(phrase, "alias", kind)
        for word in vocab.exclusions:
            self._add(word, "exclude", True)
        for word in vocab.negations:
            self._add(word, "negation", True)
        for word in [*vocab.conjunctions, ","]:
            self._add(word, "conj", True)
        for word in vocab.fillers:
            self._add(word, "filler", True)
        for word in vocab.ask:
            self._add(word, "ask", True)
        for word in vocab.keep_words:
            self._add(word, "keep", True)
        for word in vocab.numbers:
            self._add(word, "number", vocab.numbers[word])
        self._typos: tuple[list[str], set[str], set[str]] | None = None

    def typo_words(self) -> tuple[list[str], set[str], set[str]]:
        """(words a typo may be corrected to, the same as a set, words never corrected),
        built on the first unknown word: most requests have none."""
        if self._typos is None:
            single = {key for key, entries in self.phrases.items() if len(key) >= 4 and any(
                len(words) == 1 and role in ("verb", "noun", "qualifier", "resource", "ask")
                for words, role, _ in entries)}
            refusing = {w for r in self.refusals for p in (*r.verbs, *r.objects)
                        for w in p.split() if len(w) >= 4 and w.isalpha()}
            # each word of a meaningful phrase too ("loged in" -> "logged in"), time words
            inner = {w for entries in self.phrases.values() for words, role, _ in entries
                     if len(words) > 1 and role in ("verb", "noun", "qualifier", "resource")
                     for w in words if len(w) >= 4 and w.isalpha()}
            meaningful = sorted(single | refusing | inner | _TIME_WORDS)
            # every word the catalogue uses anywhere: never "corrected" into another
            known = {w for op in self.operations
                     for text in (*op.idioms, *op.examples, *op.verbs, *op.nouns)
                     for w in text.replace("{target}", " ").split()} | set(self.phrases)
            self._typos = (meaningful, set(meaningful), known)
        return self._typos

    def _add(self, phrase: str, role: str, value: Any) -> None:
        words = tuple(phrase.split())
        if words:
            self.phrases.setdefault(words[0], []).append((words, role, value))

    def longest(self, words: list[str], at: int) -> tuple[int, dict[str, Any]]:
        """The longest known phrase starting at `at`: (its length, role -> values)."""
        best, roles = 0, {}
        for phrase, role, value in self.phrases.get(words[at], ()):
            size = len(phrase)
            if tuple(words[at:at + size]) != phrase or size < best:
                continue
            if size > best:
                best, roles = size, {}
            if role in ("verb", "noun", "alias", "resource", "qualifier"):
                roles.setdefault(role, set()).add(value)
            else:
                roles[role] = value
        return best, roles


_LEXICONS: dict[int, Lexicon] = {}


def lexicon(templates: TemplateSet) -> Lexicon:
    found = _LEXICONS.get(id(templates))
    if found is None or found.operations != sorted(templates.operations.values(),
                                                   key=lambda o: o.priority):
        found = _LEXICONS[id(templates)] = Lexicon(templates)
    return found


# -- normalising -----------------------------------------------------------------------

def split_shell(text: str) -> tuple[str, str | None]:
    """(the request before any shell text, the shell text or None).

    `;` is also punctuation in prose ("I don't use it; disable it"): it starts shell text
    only when what follows reads as a command (a program on PATH, a path, an assignment)
    or holds other shell syntax."""
    start = 0
    while True:
        found = _SHELL.search(text, start)
        if not found:
            return text, None
        if found.group(0) != ";" or _command_follows(text[found.end():]):
            return text[:found.start()], text[found.start():].strip()
        start = found.end()


def _command_follows(rest: str) -> bool:
    import shutil

    words = rest.split()
    if not words:
        return True  # a trailing ";" is shell, not prose
    first = words[0]
    return (first.startswith(("/", "./", "~", "-")) or "=" in first
            or _SHELL.search(rest) is not None or re.search(r"[<>`]", rest) is not None
            or shutil.which(first) is not None)


def words_of(text: str, lex: Lexicon) -> list[str]:
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    words: list[str] = []
    for raw in _WORD.findall(text):
        if raw in "!?;":
            raw = ","  # the end of a sentence or clause, like a comma
        word = raw.strip(".:'`") if raw != "," else raw
        if not word:
            continue
        if raw.endswith(".") and len(raw) > 1 and word:
            words += _spelled(word, lex)
            words.append(",")  # "... portainer. Then ...": a sentence ended
            continue
        words += _spelled(word, lex)
    while words and words[-1] == ",":
        words.pop()
    return [w for w in words if w]


def _spelled(word: str, lex: Lexicon) -> list[str]:
    """A word with its contraction spelled out and a possessive 's dropped."""
    if word in lex.vocab.contractions:
        return lex.vocab.contractions[word].split()
    if word.endswith("'s") and len(word) > 2:
        word = word[:-2]
    return [word.replace("'", "")]


def _base_forms(word: str) -> list[str]:
    """Possible base forms of an inflected word: restarting -> restart, stopped -> stop."""
    forms = []
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            stem = word[: -len(suffix)]
            forms += [stem, stem + "e"]
            if len(stem) > 2 and stem[-1] == stem[-2]:
                forms.append(stem[:-1])  # stopping -> stop
            if suffix == "es" and stem.endswith("i"):
                forms.append(stem[:-1] + "y")
    return forms


def _distance(a: str, b: str, limit: int) -> int:
    """Edit distance with transpositions, giving up (limit + 1) once it exceeds limit."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1,
                             previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        if min(current) > limit:
            return limit + 1
        previous2, previous = previous, current
    return previous[-1]


def correct(word: str, lex: Lexicon) -> str | None:
    """The one catalogue word a typo most likely meant, or None.

    Only for words the catalogue itself never uses, of five letters or more with the
    same first letter (one edit; two from eight letters), or four letters with two
    neighbours swapped ("lsit"): a real word one letter from a catalogue word ("step",
    "crash", "most") is far more often meant as itself.
    """
    if len(word) < 4 or not word.isalpha():
        return None
    meaningful, meaningful_set, known = lex.typo_words()
    if word in known:
        return None
    if len(word) == 4:
        swaps = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(3)}
        hits = [w for w in swaps if w in meaningful_set]
        return hits[0] if len(hits) == 1 else None
    limit = 1 if len(word) < 8 else 2
    found = [(d, w) for w in meaningful if w[0] == word[0] and len(w) >= 5
             and abs(len(w) - len(word)) <= limit and (d := _distance(word, w, limit)) <= limit]
    if not found:
        return None
    found.sort()
    if len(found) > 1 and found[0][0] == found[1][0]:
        return None  # two words equally close: not a guess worth making
    return found[0][1]


def fix_typos(text: str, templates: TemplateSet) -> str:
    """The text with each word the catalogue corrects replaced ("runing" -> "running");
    punctuation and spacing are kept."""
    lex = lexicon(templates)

    def fixed(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        if lowered in lex.phrases:
            return word
        return correct(lowered, lex) or word

    return re.sub(r"[A-Za-z]+", fixed, text)


# -- units -----------------------------------------------------------------------------

class Names:
    """Snapshot names a word can be: container, compose project, service, package."""

    def __init__(self, matcher: Any):
        self.matcher = matcher

    def kinds(self, word: str, tokens: bool = True) -> set[str]:
        """Kinds `word` names; name tokens ("redis" of nextcloud-redis) only if `tokens`."""
        found: set[str] = set()
        if self.matcher is None or len(word) < 2:
            return found
        for kind in ("container", "service", "package"):
            index = self.matcher.index(kind)
            if index is None:
                continue
            if word in index.by_name or word in index.projects:
                found.add(kind)
            elif tokens and kind != "package" and len(word) >= 3 and word in index.by_token:
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
            kinds = names.kinds(word)
            if not kinds:
                fixed = correct(word, lex)
                forms = _base_forms(word)
                if fixed and any(r == "qualifier" for _, r, _ in lex.phrases.get(fixed, ())):
                    forms = [fixed, *forms]  # "stoped" is "stopped", not "stop"
                for form in [*forms, fixed]:
                    if form and form in lex.phrases:
                        base_size, found = lex.longest([form, *words[i + 1:]], 0)
                        if found.keys() & {"verb", "noun", "qualifier", "resource", "ask"} or (
                                "filler" in found and word == form + "s"):
                            size, word, roles = base_size, form, found
                            break
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
    _times(units)
    _split_verbs(units, lex)
    _passives(units, lex)
    return units


_BE = {"be", "been", "get", "got", "is", "are", "was", "were", "gets", "being"}


def _passives(units: list[Unit], lex: Lexicon) -> None:
    """"everything but portainer should be stopped": a participle after be/get is also
    the verb it comes from (it stays a qualifier for readings that filter by it)."""
    for n in range(1, len(units)):
        unit = units[n]
        if units[n - 1].text not in _BE or "verb" in unit.roles or unit.size != 1:
            continue
        for form in _base_forms(unit.text):
            _, roles = lex.longest([form], 0) if form in lex.phrases else (0, {})
            if "verb" in roles:
                unit.roles = {**unit.roles, "verb": roles["verb"]}
                break


_PARTICLES = {"off", "down", "up", "out", "back", "on", "over"}


def _split_verbs(units: list[Unit], lex: Lexicon) -> None:
    """"turn the computer off", "shut this box down": a two-word verb said around its
    object is the verb; the particle is explained with it."""
    for n, unit in enumerate(units):
        if "verb" in unit.roles or unit.size != 1:
            continue
        for phrase, role, _ in lex.phrases.get(unit.text, ()):
            if role != "verb" or len(phrase) != 2 or phrase[1] not in _PARTICLES:
                continue
            for m in range(n + 1, min(n + 6, len(units))):
                if units[m].text == phrase[1] and "verb" not in units[m].roles:
                    _, roles = lex.longest(list(phrase), 0)
                    unit.roles = {**roles, **({"name": unit.roles["name"]}
                                              if "name" in unit.roles else {})}
                    units[m].roles = {"filler": True}
                    break
                if "verb" in units[m].roles:
                    break
            if "verb" in unit.roles:
                break


_IPV4 = re.compile(r"^(?:\d{1,3}\.){3}\d{1,3}(?:/\d{1,2})?$")


def _typed(word: str, roles: dict[str, Any]) -> None:
    """Numbers, paths, IP addresses (with a prefix length): values, never names."""
    if word.isdigit():
        roles["number"] = int(word[:6])
    elif word.startswith(("/", "~/", "./")):
        roles["path"] = word
    elif len(word) <= 18 and _IPV4.match(word):
        roles["ip"] = word


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


# -- exclusions and negations ----------------------------------------------------------

def _exclusions(units: list[Unit]) -> tuple[set[int], list[str]]:
    """Units that name what to leave out ("except X and Y", "leave X alone", "not X")."""
    marked: set[int] = set()
    names: list[str] = []
    for n, unit in enumerate(units):
        marker = "exclude" in unit.roles or "keep" in unit.roles or (
            "negation" in unit.roles and n > 0)
        if not marker:
            continue
        taken = _names_after(units, n + 1)
        after = max(taken) + 1 if taken else len(units)
        while after < len(units) and "filler" in units[after].roles and (
                units[after].text not in _KEEP_TAILS):
            after += 1  # "leave the redis ones alone"
        tail = after < len(units) and units[after].text in _KEEP_TAILS
        if "keep" in unit.roles and unit.text in _NEEDS_TAIL and not tail:
            continue  # "keep nginx from starting at boot" is not an exclusion
        if "negation" in unit.roles and "exclude" not in unit.roles and (not all(
                "name" in units[m].roles or "alias" in units[m].roles for m in taken)
                or after < len(units) and "verb" in units[after].roles):
            continue  # "not X" leaves out only a real name ("won't X start" is no exclusion)
        if taken:
            marked.add(n)
            marked.update(taken)
            names += _phrases([units[m] for m in taken])
            if tail:
                marked.update(range(max(taken) + 1, after + 1))
    return marked, names


def _names_after(units: list[Unit], start: int) -> list[int]:
    taken: list[int] = []
    for m in range(start, len(units)):
        roles = units[m].roles
        if units[m].text in _KEEP_TAILS and taken:
            break  # "leave X alone": the tail ends the names
        if "name" in roles or "alias" in roles or units[m].unknown:
            taken.append(m)
        elif "verb" in roles or "resource" in roles or "qualifier" in roles:
            break
        elif "conj" in roles and taken or "filler" in roles and not (
                units[m].text in _KEEP_TAILS and taken):
            continue
        else:
            break
    return taken


def _phrases(units: list[Unit]) -> list[str]:
    """Adjacent name units joined: [nextcloud, redis] -> "nextcloud redis"."""
    phrases: list[str] = []
    last = -2
    for unit in units:
        if unit.start == last and phrases:
            phrases[-1] += " " + unit.text
        else:
            phrases.append(unit.text)
        last = unit.start + unit.size
    return phrases


def _negated(units: list[Unit]) -> tuple[set[str], set[int]]:
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


# -- refusals --------------------------------------------------------------------------

def _contains(words: list[str], phrase: str) -> bool:
    wanted = phrase.split()
    size = len(wanted)
    return any(words[i:i + size] == wanted for i in range(len(words) - size + 1))


_DISKS = ("/dev/sd", "/dev/vd", "/dev/hd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk",
          "/dev/disk/", "/dev/mapper/", "/dev/dm-", "/dev/md")


def _refusal_words(words: list[str]) -> list[str]:
    """The words refusals are judged on: a leading sudo dropped, any disk device also
    said as "/dev/disk" so one object names them all."""
    while words and words[0] in ("sudo", "doas", "please"):
        words = words[1:]
    out = []
    for word in words:
        out.append(word)
        device = word.split("=", 1)[-1]
        if device.startswith(_DISKS):
            out.append("/dev/disk")
    return out


def refusal_for(text: str, words: list[str], lex: Lexicon, remote: bool) -> Refusal | None:
    """The first refusal whose verb and object both occur (an object alone when the
    refusal has no verbs, matched on the raw text: fork bombs are mostly punctuation)."""
    words = _refusal_words(words)
    raw = text.lower()
    for refusal in lex.refusals:
        if refusal.remote and not remote:
            continue
        if any(_contains(words, u) for u in refusal.unless):
            continue
        if not refusal.verbs:
            if any(o in raw for o in refusal.objects):
                return refusal
            continue
        if any(_contains(words, v) for v in refusal.verbs) and any(
                _contains(words, o) for o in refusal.objects):
            return refusal
    return None


# -- scoring ---------------------------------------------------------------------------

MAX_GAP = 6  # words a {target} gap may hold: names are short, and this keeps it linear


class Flat:
    """The request's words in order, each as written and as read, with its unit, and
    where each word occurs: built once per parse, shared by every operation's idioms."""

    def __init__(self, units: list[Unit]):
        self.said: list[str] = []
        self.read: list[str] = []
        self.unit: list[int] = []
        self.at: dict[str, list[int]] = {}
        for n, unit in enumerate(units):
            written, read = (unit.said or unit.text).split(), unit.text.split()
            if len(written) != len(read):
                read = written
            for w, r in zip(written, read, strict=True):
                for form in {w, r}:
                    self.at.setdefault(form, []).append(len(self.said))
                self.said.append(w)
                self.read.append(r)
                self.unit.append(n)

    def fits(self, i: int, words: tuple[str, ...]) -> bool:
        return i + len(words) <= len(self.said) and all(
            self.said[i + k] == w or self.read[i + k] == w for k, w in enumerate(words))


def _idiom_spans(op_words: tuple[str, ...], units: list[Unit],
                 flat: Flat) -> tuple[set[int], list[int]] | None:
    """Unit indexes an idiom covers and those its {target} gap holds, or None."""
    if "{target}" not in op_words:
        for i in flat.at.get(op_words[0], ()):
            if flat.fits(i, op_words):
                return {flat.unit[j] for j in range(i, i + len(op_words))}, []
        return None
    gap = op_words.index("{target}")
    head, tail = op_words[:gap], op_words[gap + 1:]
    if head:
        starts = [i + len(head) for i in flat.at.get(head[0], ()) if flat.fits(i, head)]
    else:  # "{target} is running": the gap ends where the tail starts
        starts = sorted({max(0, j - g) for j in flat.at.get(tail[0], ()) if j > 0
                         for g in range(1, MAX_GAP + 1)} if tail else ())
    for start in starts:
        for end in range(start + 1, min(start + MAX_GAP, len(flat.said)) + 1):
            if tail and not flat.fits(end, tail):
                continue
            held = sorted({flat.unit[k] for k in range(start, end)})
            if any("verb" in units[h].roles and "name" not in units[h].roles for h in held):
                break  # a verb in the gap: the idiom does not span it
            named = [h for h in held if _could_name(units[h])]
            if not named:
                continue  # only glue words in the gap: it names nothing
            first = start - len(head)
            covered = {flat.unit[k] for k in range(first, end + len(tail))}
            return covered, named
    return None


def _could_name(unit: Unit) -> bool:
    """Whether a unit can be (part of) a target's name rather than glue."""
    roles = unit.roles
    return unit.unknown or "name" in roles or "alias" in roles or "path" in roles or not (
        {"filler", "conj", "ask", "negation", "exclude", "keep", "time", "resource",
         "qualifier"} & set(roles))


def _names(unit: Unit, kind: str) -> bool:
    """Whether a unit is a snapshot name or alias of `kind` (or a typed value)."""
    roles = unit.roles
    return kind in roles.get("name", ()) or kind in roles.get("alias", ()) or "path" in roles


def _shared(op: Operation, verbs: set[str]) -> bool:
    """Whether the verb that named `op` also names other operations."""
    return any(other != op.id for other in verbs)


def _unplaced(reading: Reading, n: int, unit: Unit, cost: float) -> None:
    reading.unexplained.append(unit.text)
    reading.unplaced[n] = cost
    reading.score -= cost


def _background(reading: Reading, clauses: list[int]) -> None:
    """Words the reading could not place, outside the clause that names the operation
    ("the nextcloud page won't load, | restart its containers") are background: still said
    back, they cost a quarter and do not count against confidence."""
    anchor = next((clauses[n] for n, role in sorted(reading.explained.items())
                   if role in ("verb", "idiom", "noun")), None)
    if anchor is None:
        return
    for n, cost in reading.unplaced.items():
        if clauses[n] != anchor:
            reading.score += cost * 0.75
            reading.background += 1


def score(op: Operation, units: list[Unit], skip: set[int], negated: set[str],
          words: list[str], flat: Flat | None = None,
          clauses: list[int] | None = None) -> Reading | None:
    if any(not _contains(words, w) for w in op.requires):
        return None
    reading = Reading(op)
    held: list[int] = []
    idiom_units: set[int] = set()
    flat = flat or Flat(units)
    for idiom in op.idioms:
        spans = _idiom_spans(tuple(idiom.split()), units, flat)
        if spans and len(spans[0]) > len(idiom_units):
            idiom_units, held = spans
    if idiom_units:
        reading.evidence.add("idiom")
        borrowed = sum(1 for h in held if units[h].roles and not _names(units[h], op.target))
        reading.score += 4 + len(idiom_units) - len(held) - 2 * borrowed
    takes = op.target != "none"
    target_units: list[Unit] = []
    verb_seen = shared_verb = False
    for n, unit in enumerate(units):
        roles = unit.roles
        if n in skip and n not in idiom_units:
            continue
        if n in idiom_units and n not in held:
            reading.explained[n] = "idiom"
            continue
        if n in idiom_units and not _could_name(unit):
            reading.explained[n] = "filler"  # "the" inside an idiom's {target}
            continue
        own_noun = "resource" in roles and (op.target in roles["resource"]
                                            or op.resource in roles["resource"])
        if (n in held or (takes and "name" in roles and op.target in roles["name"]
                          and "verb" not in roles)) and not own_noun:
            reading.explained[n] = "target"
            target_units.append(unit)
            reading.named_kinds |= roles.get("name", set()) & {op.target}
            continue
        if op.id in roles.get("verb", ()):
            if not verb_seen and _shared(op, roles["verb"]) and unit.text not in op.alone:
                shared_verb = True
            reading.explained[n] = "verb"
            if op.id in negated:
                reading.score -= 6
            elif not verb_seen:
                reading.score += 3
                verb_seen = True
            reading.evidence.add("verb")
            continue
        if op.id in roles.get("noun", ()):
            reading.explained[n] = "noun"
            reading.score += 2
            reading.evidence.add("noun")
            continue
        if takes and op.target in roles.get("alias", ()):
            reading.explained[n] = "target"
            target_units.append(unit)
            reading.named_kinds.add(op.target)
            continue
        if "resource" in roles:
            if op.target in roles["resource"] or op.resource in roles["resource"]:
                reading.explained[n] = "resource"
                reading.score += 1.5
                reading.evidence.add("resource")
                if op.kind == "query" and not takes and op.action == "list":
                    reading.evidence.add("noun")  # "what containers do I have": a list
                    reading.score += 0.5
                reading.plural = reading.plural or unit.text.endswith("s")
            elif takes and "name" in roles:
                reading.explained[n] = "target"  # "docker": a service name, not a noun
                target_units.append(unit)
            else:
                reading.conflicts.append(unit.text)
                reading.score -= 2.5
            continue
        if "qualifier" in roles:
            names = roles["qualifier"]
            # every operation on named things takes "all" and "only", except packages:
            # "all packages" is never a list of ten thousand steps
            accepted = [q for q in names if q in op.qualifiers or (
                takes and q == "only") or (takes and op.target != "package" and q == "all")]
            if accepted:
                reading.explained[n] = "qualifier"
                reading.qualifiers.append(accepted[0])
                reading.score += 0.5
                reading.plural = reading.plural or accepted[0] == "all"
                continue
            if "filler" in roles or "ask" in roles and op.kind == "query":
                reading.explained[n] = "filler"
                continue
            if not takes:
                reading.explained[n] = "filler"  # "what os am I running": nothing to filter
                continue
            reading.unhonoured.append(unit.text)
            reading.explained[n] = "qualifier"
            reading.score -= 1
            continue
        if "time" in roles:
            if "since" in op.slots:
                reading.explained[n] = "time"
                if isinstance(roles["time"], str):
                    reading.params["since"] = roles["time"]
                continue
            _unplaced(reading, n, unit, 1)
            continue
        if "number" in roles:
            slot = next((s for s in ("lines", "count", "port") if s in op.slots), None)
            if slot:
                reading.explained[n] = slot
                reading.params[slot] = str(roles["number"])
                continue
        if "filler" in roles or "conj" in roles or "negation" in roles or "keep" in roles:
            reading.explained[n] = "filler"
            continue
        if "ask" in roles:
            if op.kind in ("query", "meta"):
                reading.explained[n] = "ask"
            else:
                _unplaced(reading, n, unit, 0.5)
            continue
        if takes and ("name" in roles or unit.unknown or "alias" in roles or "path" in roles
                      or "number" in roles or not roles.keys() - {"noun"}):
            # a word another operation uses ("htop" names a question too) can be a name
            reading.explained[n] = "target"
            target_units.append(unit)
            if "name" in roles:  # a name of another kind: this reading is less likely
                reading.conflicts.append(unit.text)
                reading.score -= 1.5
            continue
        _unplaced(reading, n, unit, 1)
    if not reading.evidence & set(_STRONG):
        return None
    if shared_verb and not takes and op.nouns and not reading.evidence & {"noun", "idiom"}:
        return None  # "restart" alone is not "restart the machine"
    named = [u for u in target_units if _names(u, op.target)]
    if named and len(named) < len(target_units) and not op.creates:
        # real names were said: other words are not names of things that don't exist
        for unit in target_units:
            if unit not in named:
                at = units.index(unit)
                reading.explained.pop(at, None)
                _unplaced(reading, at, unit, 0.5)
        target_units = named
    reading.targets = list(dict.fromkeys(_phrases(target_units)))  # "curl ... just curl"
    guessed = [u for u in target_units if not _names(u, op.target)]
    if op.creates:  # new names are single words, and not words other operations use
        reading.score -= sum(1 for u in guessed if u.roles) + max(
            0, len(target_units) - len(reading.targets))
    else:
        reading.score -= 0.5 * len(guessed)  # a word taken as a name nothing here has
    if reading.targets:
        named = bool(reading.named_kinds)
        reading.score += 2.5 if named else 1
        reading.evidence.add("target")
        reading.plural = reading.plural or len(reading.targets) > 1
    elif takes and not reading.qualifiers:
        reading.score -= 1.5 if op.kind != "query" else 1  # nothing named to act on
    if clauses is not None and len(set(clauses)) > 1:
        _background(reading, clauses)
    return reading


_CLAUSE_ENDS = {",", "because", "cause", "so", "since"}


def _clauses(units: list[Unit]) -> list[int]:
    """The clause of each unit: a comma, a sentence end, "because" or "so" starts a new
    one. "since" does too, unless it starts a time ("since boot" is one unit)."""
    found, clause = [], 0
    for unit in units:
        if unit.text in _CLAUSE_ENDS and "time" not in unit.roles:
            clause += 1
        found.append(clause)
    return found


def parse(text: str, templates: TemplateSet, matcher: Any = None, *,
          remote: bool = False) -> Parse:
    """Tag every word of `text` and score every operation of the catalogue."""
    lex = lexicon(templates)
    before, shell = split_shell(text)
    all_words = words_of(text, lex)
    found = Parse(text=text, units=[], shell=shell)
    found.refusal = refusal_for(text, all_words, lex, remote)
    if found.refusal is not None:
        return found
    words = words_of(before, lex)
    units = units_of(words, lex, Names(matcher))
    found.units = units
    fixed = [correct(w, lex) or w if w not in lex.phrases else w for w in all_words]
    if fixed != all_words:  # "delte all users", "uninstal the kernal"
        found.refusal = refusal_for(text, fixed, lex, remote)
        if found.refusal is not None:
            return found
    excluded, found.exclude = _exclusions(units)
    found.negated, negation_units = _negated(units)
    skip = excluded | negation_units
    words = [w for u in units for w in u.text.split()]
    flat = Flat(units)
    clauses = _clauses(units)
    readings = [r for op in lex.operations
                if (r := score(op, units, skip, found.negated, words, flat, clauses))
                is not None]
    readings.sort(key=lambda r: (-r.score, r.op.priority))
    found.readings = readings
    return found
