"""Reading the answer to a question reos asked: a number, a name, or a phrase.

"2", "the second one", "number 2", "demo-web", "the service", "the web one", "yes" (when
there is one choice) each pick an option; anything that picks none, or more than one
equally, is not an answer and is read as a new request.

Not responsible for asking (the plan builder does) or for what the chosen option does.
"""

from __future__ import annotations

import re
from typing import Any

from reos.patterns import regex

_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
             "4th": 4, "fifth": 5, "5th": 5, "sixth": 6, "6th": 6, "last": -1,
             "former": 1, "latter": -1}
# a number word is a number only said alone: "the cache one" is not option 1
_ALONE = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_YES = {"yes", "y", "yeah", "yep", "sure", "ok", "okay", "go", "do it", "that one", "please"}
_SKIP = {"the", "a", "an", "one", "ones", "option", "number", "no", "choice", "please", "i",
         "mean", "meant", "want", "it", "is", "that", "pick", "go", "with", "take", "do",
         "anything", "any"}
_WORD = regex(r"[a-z0-9][a-z0-9_.@:+-]*")
_NAMING = {"number", "option", "choice", "no"}  # "option two" is a number said as a word
_PLACES = {"top": 1, "bottom": -1}  # of the list, only as "the top one"
# what follows names what the answer is not: "not demo-db", "the one that isn't the db"
_NOT = regex(r"\b(?:not|isn't|isnt|is not|aren't|except|without|neither|nor|"
                  r"other than|don't|dont)\b")


def _number(said: str, count: int) -> int | None:
    words = _WORD.findall(said)
    if said in _ALONE:
        return _ALONE[said] if _ALONE[said] <= count else None
    if said.isdigit():
        n = int(said)
        return n if 1 <= n <= count else None
    numbers = [int(w) for w in words if w.isdigit()] + [  # "number two", "option one"
        _ALONE[w] for n, w in enumerate(words) if w in _ALONE and n and words[n - 1] in _NAMING]
    ordinals = [_ORDINALS[w] for w in words if w in _ORDINALS] + [  # "the top one"
        _PLACES[w] for n, w in enumerate(words) if w in _PLACES and words[n + 1:n + 2] in (
            ["one"], ["option"], ["choice"])]
    found = numbers or ordinals
    if len(found) != 1 or len(words) > 4:
        return None
    n = found[0] if found[0] != -1 else count
    return n if 1 <= n <= count else None


def _named(said: str, options: list[tuple[str, Any]],
           aliases: dict[str, dict[str, list[str]]] | None) -> list[tuple[bool, int]]:
    """For each option, (whether `said` is its whole name, how many of its words)."""
    words = set(_WORD.findall(said)) - _SKIP
    for table in (aliases or {}).values():
        for phrase, names in table.items():
            if phrase in said.split() or (" " in phrase and phrase in said):
                words |= {n.lower() for n in names}
    if not words:
        return [(False, 0)] * len(options)
    scores = []
    for label, intent in options:
        names = [t.lower() for t in getattr(intent, "targets", [])]
        vocabulary = set(_WORD.findall(label.lower())) | {
            getattr(intent, "resource", None) or ""}
        for name in names:
            vocabulary |= words_of_name(name)
        hits = len(words & vocabulary)
        exact = any(said == n or said == f"the {n}" for n in names)
        scores.append((exact, hits))
    return scores


def words_of_name(name: str) -> set[str]:
    """The words that name a target: its whole name, without .service, and each word of
    it ("nextcloud-redis" is also "nextcloud" and "redis")."""
    name = name.lower()
    stem = name.removesuffix(".service")
    return set(re.split(r"[-_.@ ]+", stem)) - {""} | {name, stem}


def pick(text: str, options: list[tuple[str, Any]],
         aliases: dict[str, dict[str, list[str]]] | None = None) -> Any | None:
    """The intent of the option `text` picks, or None. `aliases` (kind -> phrase -> names)
    let "postgres" pick postgresql.service. What follows "not" / "except" / "isn't" names
    options it is not ("not demo-db", "the one that isn't the db")."""
    said = " ".join(text.lower().replace("\u2019", "'").split()).strip(" .!?,")
    if not said or not options:
        return None
    if said in _YES and len(options) == 1:
        return options[0][1]
    left = list(range(len(options)))
    negation = _NOT.search(said)
    if negation is not None:
        said, negated = said[:negation.start()].strip(" ,"), said[negation.end():]
        number = _number(negated.strip(" .!?,"), len(options))
        out = {number - 1} if number is not None else {
            n for n, (_, hits) in enumerate(_named(negated, options, aliases)) if hits}
        if not out:
            return None  # it is not something reos did not offer: no answer
        left = [n for n in left if n not in out]
        if not set(_WORD.findall(said)) - _SKIP:  # "not demo-db": the one remaining
            return options[left[0]][1] if len(left) == 1 else None
    number = _number(said, len(options))
    if number is not None:
        return options[number - 1][1] if number - 1 in left else None
    scores = _named(said, options, aliases)
    best = max(scores[n] for n in left)
    if best == (False, 0) or [scores[n] for n in left].count(best) > 1:
        return None
    return options[scores.index(best)][1]
