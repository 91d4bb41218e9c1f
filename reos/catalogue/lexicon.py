"""The catalogue's words, and the request's words normalised to meet them.

`Lexicon` holds every phrase of the catalogue (operation verbs, nouns and idioms,
vocabulary, aliases) keyed by its first word, built once per TemplateSet; its tables
(`Tables`: the phrases, the words a typo may be read as, the words read as English) are
kept with the catalogue's cache, so a start after the first builds none of them. The request is
cut at the first piece of shell text, split into words, contractions spelled out,
possessives dropped; verb forms and typos are read back to catalogue words, and only to
those ("resart" is restart; "step" stays step).

Not responsible for tagging the words (see `tagging`) or scoring operations (`scoring`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from msgspec import Struct

from reos.catalogue.operations import Operation, Refusal, Vocabulary
from reos.patterns import regex

_SHELL = regex(r";|&&|\|\||\||`|\$\(|\$\{")
_WORD = regex(r"[^\s,!?;()\"\[\]{}]+|[,!?;]")
_TIME_WORDS = {"last", "past", "previous", "since", "yesterday", "today", "hour", "hours",
               "minute", "minutes", "days", "week", "weeks"}


class Catalogue(Protocol):
    """What a lexicon is built from: a TemplateSet (`catalogue.templates`, which builds the
    lexicon when it loads, so this module cannot import it)."""

    operations: dict[str, Operation]
    refusals: dict[str, Refusal]
    vocabulary: Vocabulary
    aliases: dict[str, dict[str, list[str]]]


Phrase = tuple[tuple[str, ...], str, Any]  # (its words, its role, what it stands for)


class Tables(Struct):
    """A lexicon's tables, derived from the catalogue alone, as the catalogue's cache keeps
    them: the phrases by first word, the words a typo may be read as, every word the
    catalogue uses (never "corrected"), and the single words read as English."""

    phrases: dict[str, list[Phrase]]
    meaningful: list[str]
    known: set[str]
    english: set[str]
    idiom_ops: dict[str, list[str]]


class Lexicon:
    """Every phrase of the catalogue, keyed by its first word, built once per TemplateSet
    (or taken from `tables`, kept from an earlier build of the same catalogue)."""

    def __init__(self, templates: Catalogue, tables: Tables | None = None):
        vocab = templates.vocabulary
        self.vocab = vocab
        self.operations = sorted(templates.operations.values(), key=lambda o: o.priority)
        self.refusals = list(templates.refusals.values())
        self._typos: tuple[list[str], set[str], set[str]] | None = None
        self._english: set[str] | None = None
        self.phrases: dict[str, list[Phrase]] = {}
        # an idiom's first fixed word -> the operations with such an idiom ("" for an idiom
        # that is all gap): an operation none of whose idioms' first words was said cannot
        # be read from its idioms, so the parser splits only the others' idioms
        self.idiom_ops: dict[str, list[str]] = {}
        if tables is not None:
            self.phrases = tables.phrases
            self._typos = (tables.meaningful, set(tables.meaningful), tables.known)
            self._english = tables.english
            self.idiom_ops = tables.idiom_ops
            return
        for op in self.operations:
            for idiom in op.idioms:
                first = next((w for w in idiom.split() if w != "{target}"), "")
                ops = self.idiom_ops.setdefault(first, [])
                if op.id not in ops:
                    ops.append(op.id)
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

    def tables(self) -> Tables:
        """Every table, built now if it was not yet, to be kept with the catalogue."""
        meaningful, _, known = self.typo_words()
        return Tables(self.phrases, meaningful, known, self.english(), self.idiom_ops)

    def typo_words(self) -> tuple[list[str], set[str], set[str]]:
        """(words a typo may be corrected to, the same as a set, words never corrected),
        built on the first unknown word: most requests have none."""
        if self._typos is None:
            # a word that leaves out too, from six letters ("excpt" is except; `correct`
            # takes only one edit towards it, never from a word of its own)
            single = {key for key, entries in self.phrases.items() if len(key) >= 4 and any(
                len(words) == 1 and (role in ("verb", "noun", "qualifier", "resource", "ask")
                                     or role == "exclude" and len(key) >= 6)
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
                     for w in text.replace("{target}", " ").split()} | set(self.phrases) | {
                w for r in self.refusals for text in (*r.verbs, *r.objects, *r.unless)
                for w in text.split()}  # a refusal's "audit" is meant, never "audio"
            self._typos = (meaningful, set(meaningful), known)
        return self._typos

    def english(self) -> set[str]:
        """Single words the catalogue reads as English (verbs, glue, question words), not
        as a thing's noun: "find", "kill", "who". Built on first use."""
        if self._english is None:
            self._english = {word for word, entries in self.phrases.items() if any(
                len(words) == 1 and role not in ("noun", "resource", "alias")
                for words, role, _ in entries)}
        return self._english

    def _add(self, phrase: str, role: str, value: Any) -> None:
        words = tuple(phrase.split())
        if words:
            self.phrases.setdefault(words[0], []).append((words, role, value))

    def longest(self, words: list[str], at: int) -> tuple[int, dict[str, Any]]:
        """The longest known phrase starting at `at`: (its length, role -> values)."""
        best, roles = 0, {}  # type: tuple[int, dict[str, Any]]
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


def _key(templates: Catalogue) -> tuple[Any, ...]:
    return (tuple(map(id, templates.operations.values())),
            tuple(map(id, templates.refusals.values())), id(templates.vocabulary),
            sum(len(table) for table in templates.aliases.values()))


def lexicon(templates: Catalogue) -> Lexicon:
    """The TemplateSet's lexicon, built on first use (or when it was loaded) and kept on it
    while the same operations, refusals, vocabulary and aliases are in it."""
    key = _key(templates)
    kept = getattr(templates, "_lexicon", None)
    if kept is None or kept[0] != key:
        kept = (key, Lexicon(templates))
        templates._lexicon = kept  # type: ignore[attr-defined]
    return kept[1]


def keep_on(templates: Catalogue, lex: Lexicon) -> None:
    """Keep `lex` as the lexicon of `templates`, as it is now."""
    templates._lexicon = (_key(templates), lex)  # type: ignore[attr-defined]


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
    return _sizes([w for w in words if w])


_SIZE_UNITS = {"tb": "tb", "t": "tb", "tera": "tb", "terabyte": "tb", "terabytes": "tb",
               "gb": "gb", "g": "gb", "gig": "gb", "gigs": "gb", "giga": "gb",
               "gigabyte": "gb", "gigabytes": "gb"}


def _sizes(words: list[str]) -> list[str]:
    """A number and its unit as one word, as disks are named by size: "2 tb" -> "2tb"."""
    out: list[str] = []
    for word in words:
        if out and word in _SIZE_UNITS and out[-1].replace(".", "", 1).isdigit():
            out[-1] += _SIZE_UNITS[word]
        else:
            out.append(word)
    return out


def _spelled(word: str, lex: Lexicon) -> list[str]:
    """A word with its contraction spelled out, a possessive 's dropped, a dropped final g
    put back ("eatin" -> "eating"), and a British spelling as the catalogue spells it
    ("synchronised" -> "synchronized")."""
    if word in lex.vocab.contractions:
        return lex.vocab.contractions[word].split()
    if word.endswith("'s") and len(word) > 2:
        word = word[:-2]
    word = word.replace("'", "")
    if word.endswith("in") and len(word) >= 4 and word not in lex.phrases and (
            word + "g" in lex.phrases or word + "g" in lex.typo_words()[2]):
        return [word + "g"]  # said as spoken: "eatin'", "hangin" are eating, hanging
    british = _BRITISH.match(word)
    if british and word not in lex.phrases:
        american = f"{british[1]}iz{british[2]}"
        if american in lex.phrases or american in lex.typo_words()[2]:
            return [american]
    return [word]


_BRITISH = regex(r"^(\w{3,})is(e|ed|es|ing|ation|ations|er|ers)$")


def base_forms(word: str) -> list[str]:
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


def _leaves_out(word: str, lex: Lexicon) -> bool:
    """Whether `word` is one the vocabulary leaves things out with ("except")."""
    return any(role == "exclude" and len(words) == 1
               for words, role, _ in lex.phrases.get(word, ()))


# words one letter from a word that leaves out, meant as themselves
_NOT_LEAVING_OUT = frozenset({"excerpt", "beside", "exempt", "expect", "accept", "exceed",
                              "escape", "excess"})


def correct(word: str, lex: Lexicon, also: frozenset[str] = frozenset()) -> str | None:
    """The one catalogue word a typo most likely meant, or None. `also` adds words of a
    reader's own vocabulary a typo may mean besides the catalogue's ("everywhere", which
    only the reader of hosts reads), weighed against the catalogue's words the same way.

    Only for words the catalogue itself never uses, of five letters or more with the
    same first letter (one edit; two from eight letters, never two letters missing or
    added: "tracking" is no "taking"), or four letters with two
    neighbours swapped ("lsit") or one letter dropped ("rout", "grup"), or three letters
    whose doubled last letter was said once ("kil"): a real word one
    letter from a catalogue word ("step", "crash", "most") is far more often meant as
    itself.
    """
    if len(word) < 3 or not word.isalpha():
        return None
    meaningful, meaningful_set, known = lex.typo_words()
    if word in known or word in also:
        return None
    if also:
        meaningful = [*meaningful, *sorted(also - meaningful_set)]
        meaningful_set = meaningful_set | also
    if len(word) == 3:  # only a doubled last letter said once ("kil" is kill)
        doubled = word + word[-1]
        return doubled if doubled in meaningful_set else None
    if len(word) == 4:  # two letters swapped ("lsit"), or one dropped ("rout", "grup")
        swaps = {word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(3)}
        hits = [w for w in swaps if w in meaningful_set] or [
            w for w in meaningful if len(w) == 5 and w[0] == word[0] and any(
                w[:i] + w[i + 1:] == word for i in range(1, 5))]
        return hits[0] if len(hits) == 1 else None
    limit = 1 if len(word) < 8 else 2
    found = [(d, w) for w in meaningful if w[0] == word[0] and len(w) >= 5
             and abs(len(w) - len(word)) <= 1 and (d := _distance(word, w, limit)) <= limit]
    if not found:
        return None
    found.sort()
    if _leaves_out(found[0][1], lex) and (found[0][0] > 1 or word in _NOT_LEAVING_OUT):
        return None  # "exceeding", "excerpt", "beside" are words of their own
    if len(found) > 1 and found[0][0] == found[1][0]:
        # two words equally close: only two letters swapped ("statsu" is "status", not
        # "stats") is a guess worth making
        swapped = [w for d, w in found if d == found[0][0] and sorted(w) == sorted(word)]
        return swapped[0] if len(swapped) == 1 else None
    return found[0][1]


def fix_typos(text: str, templates: Catalogue,
              keep: Callable[[str], Any] | None = None) -> str:
    """The text with each word the catalogue corrects replaced ("runing" -> "running");
    punctuation and spacing are kept, and so is every word `keep` says is a name on this
    machine ("portainer" is a container, not a typo)."""
    lex = lexicon(templates)

    def fixed(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        if lowered in lex.phrases or (keep is not None and keep(lowered)):
            return word
        return correct(lowered, lex) or word

    return re.sub(r"[A-Za-z]+", fixed, text)
