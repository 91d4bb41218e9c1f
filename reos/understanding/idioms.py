"""Idioms: where an operation's fixed phrases ("restart {target}", "what is using port")
occur in a request's tagged words, and which words their {target} gap holds.

`Flat` lays the request's words out once per parse (each as written and as read);
`idioms_of` keeps each operation's idioms split, with the words each cannot match
without, so most idioms of most operations are ruled out by one set test. A gap holds at
most MAX_GAP words and never a verb, which keeps the search linear in the request.

Not responsible for what a match is worth (see `scoring.score`).
"""

from __future__ import annotations

from reos.catalogue.operations import Operation
from reos.understanding.tagging import Unit

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


_IDIOMS: dict[int, tuple[Operation, list[tuple[tuple[str, ...], frozenset[str]]]]] = {}


def idioms_of(op: Operation) -> list[tuple[tuple[str, ...], frozenset[str]]]:
    """The operation's idioms as words, each with the words it cannot match without."""
    kept = _IDIOMS.get(id(op))
    if kept is None or kept[0] is not op:
        if len(_IDIOMS) > 4000:  # catalogues reloaded many times in a long session
            _IDIOMS.clear()
        words = [tuple(idiom.split()) for idiom in op.idioms]
        kept = (op, [(w, frozenset(w) - {"{target}"}) for w in words])
        _IDIOMS[id(op)] = kept
    return kept[1]


def idiom_spans(op_words: tuple[str, ...], units: list[Unit],
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
            if units[held[0]].text == "to" and len(held) > 1:
                break  # "I need to know the version of …": an infinitive, not the object
            named = [h for h in held if could_name(units[h])]
            if not named:
                continue  # only glue words in the gap: it names nothing
            first = start - len(head)
            covered = {flat.unit[k] for k in range(first, end + len(tail))}
            return covered, named
    return None


def could_name(unit: Unit) -> bool:
    """Whether a unit can be (part of) a target's name rather than glue."""
    roles = unit.roles
    return unit.unknown or "name" in roles or "alias" in roles or "path" in roles or not (
        {"filler", "conj", "ask", "negation", "exclude", "keep", "time", "resource",
         "qualifier"} & set(roles))
