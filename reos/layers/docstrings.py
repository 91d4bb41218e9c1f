"""What a module's docstring says about it: its layer type, its responsibilities, and
what it is explicitly *not* responsible for.

Read from the source with `ast` (nothing is imported or run). The layer type is taken
from an explicit "<type> layer" phrase first, then from the first line's words (server,
handler, agent, executor, repository, service…), never from a sentence that says "not":
"This is intentionally *not* MCP; it's a UI-facing RPC layer" is an rpc module, and
"NOT responsible for: HTTP request parsing (that's the RPC layer)" says nothing about the
module's own layer. Responsibilities are the bullet points under a heading that is not a
"not" heading, else the first line; "not" statements are the bullets under a heading that
says "not", plus every prose sentence with "not" in it.

Not responsible for deciding whether a module is misplaced (reos.layers.check is), or
for reading files it cannot parse (the caller reports those).
"""

from __future__ import annotations

import ast
import re

from msgspec import Struct, field

from reos.layers.infer import LAYER_WORDS

_NOT = re.compile(r"\bnot\b|n't\b", re.I)
_BULLET = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s+(.*)$")
_NOT_RESPONSIBLE = re.compile(r"\bnot\s+responsible\s+for\b[:\s]*", re.I)
_IS_LAYER = re.compile(r"\b(?:is|it's|it is|part of|belongs to|lives in|in)\s+(?:a|an|the)?\s*"
                       r"(?:[\w-]+\s+)?([a-z]+)[\s-]+layer\b", re.I)
# Where the subject of a first line ends: "UI RPC server | for the desktop app".
_SUBJECT_END = re.compile(r"\s(?:for|of|that|which|to|with|from|in|on|by)\s|[:;,(]|\s[-\u2014]\s",
                          re.I)
_WORD = re.compile(r"[a-z]+", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


class ModuleDoc(Struct):
    """What one docstring says; `layer` is None when it names no layer."""

    layer: str | None = None
    responsibilities: list[str] = field(default_factory=list)
    not_responsible_for: list[str] = field(default_factory=list)


def docstring_of(source: str, filename: str) -> str | None:
    """The module docstring of `source`; raises SyntaxError (with filename) as ast does."""
    tree = ast.parse(source, filename=filename)
    return ast.get_docstring(tree, clean=True)


def _plain(text: str) -> str:
    return " ".join(text.replace("*", "").replace("`", "").split())


def layer_named(text: str) -> str | None:
    """The layer type a docstring names for its own module, or None.

    Two places count: a sentence saying what the module is ("it's a UI-facing RPC
    layer", "part of the storage layer"), then the subject of the first line ("User
    authentication service", "UI RPC server" - the words before "for", "of", a colon…).
    A layer merely mentioned ("decides which service answers") names nothing.
    """
    own = [_plain(s) for s in _SENTENCE_END.split(_without_not_sections(text))]
    for sentence in own:
        if not sentence or _NOT.search(sentence):
            continue
        for match in _IS_LAYER.finditer(sentence):
            layer = LAYER_WORDS.get(match.group(1).lower())
            if layer:
                return layer
    first_line = _plain(text.strip().splitlines()[0])
    if _NOT.search(first_line):
        return None
    subject = _SUBJECT_END.split(first_line, maxsplit=1)[0]
    for word in _WORD.findall(subject):
        layer = LAYER_WORDS.get(word.lower())
        if layer:
            return layer
    return None


def _without_not_sections(text: str) -> str:
    """The docstring without bullet lists under a heading that says "not"."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.endswith(":") and not _BULLET.match(line):
            skipping = bool(_NOT.search(stripped))
            kept.append("" if skipping else line)
            continue
        if skipping and (_BULLET.match(line) or (stripped and line[:1].isspace())):
            continue
        if not stripped:
            kept.append(line)
            continue
        skipping = False
        kept.append(line)
    return "\n".join(kept)


def read(text: str | None) -> ModuleDoc:
    """Everything a docstring says about its module (empty for None)."""
    if not text or not text.strip():
        return ModuleDoc()
    doc = ModuleDoc(layer=layer_named(text))
    heading_says_not: bool | None = None  # None: not under a heading
    prose: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        bullet = _BULLET.match(line)
        if bullet and heading_says_not is not None:
            item = _plain(bullet.group(1))
            (doc.not_responsible_for if heading_says_not else doc.responsibilities).append(item)
            continue
        if stripped.endswith(":") and not bullet:
            heading_says_not = bool(_NOT.search(stripped))
            if heading_says_not:
                rest = _NOT_RESPONSIBLE.split(stripped[:-1], maxsplit=1)
                if len(rest) == 2 and rest[1].strip():  # "not responsible for X:" names X
                    doc.not_responsible_for.append(_plain(rest[1]))
            continue
        if not stripped:
            continue
        heading_says_not = None
        prose.append(stripped)
    for sentence in _SENTENCE_END.split(" ".join(prose)):
        sentence = _plain(sentence)
        if not sentence or not _NOT.search(sentence):
            continue
        parts = _NOT_RESPONSIBLE.split(sentence, maxsplit=1)
        statement = parts[1] if len(parts) == 2 and parts[1].strip() else sentence
        doc.not_responsible_for.append(statement.rstrip(".;"))
    if not doc.responsibilities:
        first = _plain(text.strip().splitlines()[0]).rstrip(".")
        if first and not _NOT.search(first):
            doc.responsibilities.append(first)
    return doc
