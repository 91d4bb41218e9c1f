"""Reading the answer to a question reos asked: a number, a name, or a phrase.

"2", "the second one", "number 2", "demo-web", "the service", "the web one", "yes" (when
there is one choice) each pick an option; anything that picks none, or more than one
equally, is not an answer and is read as a new request.

Not responsible for asking (the plan builder does) or for what the chosen option does.
"""

from __future__ import annotations

import re
from typing import Any

_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4,
             "4th": 4, "fifth": 5, "5th": 5, "sixth": 6, "6th": 6, "last": -1}
# a number word is a number only said alone: "the cache one" is not option 1
_ALONE = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_YES = {"yes", "y", "yeah", "yep", "sure", "ok", "okay", "go", "do it", "that one", "please"}
_SKIP = {"the", "a", "an", "one", "ones", "option", "number", "no", "choice", "please", "i",
         "mean", "meant", "want", "it", "is", "that", "pick", "go", "with", "take", "do"}
_WORD = re.compile(r"[a-z0-9][a-z0-9_.@:+-]*")


def _number(said: str, count: int) -> int | None:
    words = _WORD.findall(said)
    if said in _ALONE:
        return _ALONE[said] if _ALONE[said] <= count else None
    if said.isdigit():
        n = int(said)
        return n if 1 <= n <= count else None
    numbers = [int(w) for w in words if w.isdigit()]
    ordinals = [_ORDINALS[w] for w in words if w in _ORDINALS]
    found = numbers or ordinals
    if len(found) != 1 or len(words) > 4:
        return None
    n = found[0] if found[0] != -1 else count
    return n if 1 <= n <= count else None


def words_of_name(name: str) -> set[str]:
    """The words that name a target: its whole name, without .service, and each word of
    it ("nextcloud-redis" is also "nextcloud" and "redis")."""
    name = name.lower()
    stem = name.removesuffix(".service")
    return set(re.split(r"[-_.@ ]+", stem)) - {""} | {name, stem}


def pick(text: str, options: list[tuple[str, Any]],
         aliases: dict[str, dict[str, list[str]]] | None = None) -> Any | None:
    """The intent of the option `text` picks, or None. `aliases` (kind -> phrase -> names)
    let "postgres" pick postgresql.service."""
    said = " ".join(text.lower().replace("\u2019", "'").split()).strip(" .!?,")
    if not said or not options:
        return None
    if said in _YES and len(options) == 1:
        return options[0][1]
    number = _number(said, len(options))
    if number is not None:
        return options[number - 1][1]
    words = set(_WORD.findall(said)) - _SKIP
    for table in (aliases or {}).values():
        for phrase, names in table.items():
            if phrase in said.split() or (" " in phrase and phrase in said):
                words |= {n.lower() for n in names}
    if not words:
        return None
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
    best = max(scores)
    if best == (False, 0) or scores.count(best) > 1:
        return None
    return options[scores.index(best)][1]
