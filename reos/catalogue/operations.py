"""The operation catalogue: operations, refusals and shared vocabulary, checked by type.

`templates/*.toml` (and the user's `~/.config/reos/templates/`) declare `[[operation]]`,
`[[refusal]]` and `[vocabulary]` tables (docs/catalogue.md). This module turns one file's
tables into `Operation`, `Refusal` and vocabulary additions, raising `TemplateError` with
the table, index and key of the first problem so the loader can report file and line.

Not responsible for reading files or merging several of them (see `templates`), for
recipes (see `templates`), or for reading requests (see `parser`).
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from reos.catalogue.schema import RISKS, TemplateError, Where, check_keys

OP_KINDS = frozenset({"query", "action", "meta"})
TARGET_KINDS = frozenset({"container", "service", "package", "user", "group", "process",
                          "mount", "device", "interface", "timer", "none"})
QUALIFIERS = frozenset({"running", "stopped", "failed", "enabled", "disabled", "all", "only",
                        "unused", "idle", "paused", "removable", "biggest",
                        "busiest"})
# values besides the target: times and counts, things of another kind ("add bob to the
# *docker* group"), and settings ("set the timezone to Europe/Berlin")
SLOTS = frozenset({"since", "lines", "count", "port", "user", "group", "shell", "hostname",
                   "timezone", "date", "priority", "path", "interface", "host", "device",
                   "size", "days", "when", "timer", "fullname", "policy", "queue_id"})
MAX_PHRASES = 500  # in one list
MAX_PHRASE_CHARS = 200

_S, _B, _I, _L = "str", "bool", "int", "strs"
OPERATION_KEYS = {
    "id": _S, "kind": _S, "summary": _S, "verbs": _L, "nouns": _L, "idioms": _L,
    "examples": _L, "target": _S, "qualifiers": _L, "slots": _L, "risk": _S, "undo": _S,
    "resource": _S, "action": _S, "then": _L, "note": _S, "requires": _L, "priority": _I,
    "value": _S, "alone": _L, "creates": _B, "asked": _S,
}
REFUSAL_KEYS = {"id": _S, "verbs": _L, "objects": "nonempty strs",
                "reason": _S, "remote": _B, "unless": _L, "trees": _B}
VOCABULARY_LISTS = ("fillers", "ask", "conjunctions", "exclusions", "keep_words",
                    "keep_tails", "negations")
VOCABULARY_TABLES = ("contractions", "qualifiers", "resources", "numbers")


class Operation(Struct):
    """One thing reos can do or answer, and the words that name it."""

    id: str
    kind: str  # query | action | meta
    summary: str
    resource: str
    action: str
    verbs: list[str] = field(default_factory=list)
    alone: list[str] = field(default_factory=list)  # verbs that name it with no noun said
    nouns: list[str] = field(default_factory=list)
    idioms: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    target: str = "none"
    qualifiers: list[str] = field(default_factory=list)
    slots: list[str] = field(default_factory=list)
    risk: str = "safe"
    undo: str | None = None
    then: list[str] = field(default_factory=list)
    note: str | None = None
    requires: list[str] = field(default_factory=list)
    priority: int = 50
    value: str | None = None
    creates: bool = False  # its target need not exist yet (install): words are new names
    # the query that answers this change put as a question ("when was the machine last
    # rebooted?" is uptime); by default its target's status ("is nginx enabled?")
    asked: str | None = None
    origin: str = ""


class Refusal(Struct):
    """A meaning reos refuses whatever the wording: a destructive verb + a protected object."""

    id: str
    verbs: list[str]
    objects: list[str]
    reason: str
    remote: bool = False  # only when reos runs over SSH
    unless: list[str] = field(default_factory=list)  # words that show another meaning
    origin: str = ""
    trees: bool = False  # an object that is a path names every path under it too


class Vocabulary(Struct):
    """Words every operation shares (templates/vocabulary.toml plus the user's additions)."""

    contractions: dict[str, str] = field(default_factory=dict)
    fillers: set[str] = field(default_factory=set)
    ask: set[str] = field(default_factory=set)
    conjunctions: list[str] = field(default_factory=list)
    exclusions: list[str] = field(default_factory=list)
    keep_words: set[str] = field(default_factory=set)
    keep_tails: list[str] = field(default_factory=list)
    negations: list[str] = field(default_factory=list)
    qualifiers: dict[str, list[str]] = field(default_factory=dict)
    resources: dict[str, list[str]] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)

    def add(self, other: Vocabulary) -> None:
        self.contractions.update(other.contractions)
        self.fillers |= other.fillers
        self.ask |= other.ask
        self.keep_words |= other.keep_words
        for name in ("conjunctions", "exclusions", "keep_tails", "negations"):
            mine = getattr(self, name)
            mine += [w for w in getattr(other, name) if w not in mine]
        for table in ("qualifiers", "resources"):
            for key, words in getattr(other, table).items():
                mine = getattr(self, table).setdefault(key, [])
                mine += [w for w in words if w not in mine]
        self.numbers.update(other.numbers)


def _phrases(raw: dict[str, Any], key: str, label: str, where: Where) -> list[str]:
    words = raw.get(key, [])
    if len(words) > MAX_PHRASES:
        raise TemplateError(f"{label}: {key} holds {len(words):,} phrases; at most"
                            f" {MAX_PHRASES} are read", Where(where.table, where.index, key=key))
    for phrase in words:
        if not phrase.strip() or len(phrase) > MAX_PHRASE_CHARS:
            raise TemplateError(f"{label}: {key}: {phrase[:40]!r} must be 1 to"
                                f" {MAX_PHRASE_CHARS} characters",
                                Where(where.table, where.index, key=key, needle=phrase[:40]))
    return [" ".join(p.lower().split()) for p in words]


def _choice(raw: dict[str, Any], key: str, allowed: frozenset[str], label: str,
            where: Where) -> None:
    values = raw.get(key)
    for value in values if isinstance(values, list) else [values] if values else []:
        if value not in allowed:
            raise TemplateError(f"{label}: {key} {value!r} is not one of"
                                f" {', '.join(sorted(allowed))}",
                                Where(where.table, where.index, key=key, needle=str(value)))


def operation(raw: Any, index: int, origin: str) -> Operation:
    """One [[operation]] table, checked; raises TemplateError naming the key."""
    where = Where(("operation",), index)
    if not isinstance(raw, dict):
        raise TemplateError("each [[operation]] must be a table", where)
    name = raw.get("id")
    label = f"operation {name!r}" if isinstance(name, str) else f"operation #{index + 1}"
    check_keys(raw, OPERATION_KEYS, ("id", "kind", "summary"), label, where)
    _choice(raw, "kind", OP_KINDS, label, where)
    _choice(raw, "target", TARGET_KINDS, label, where)
    _choice(raw, "qualifiers", QUALIFIERS, label, where)
    _choice(raw, "slots", SLOTS, label, where)
    _choice(raw, "risk", RISKS, label, where)
    resource, dot, action = raw["id"].partition(".")
    if not dot or not resource or not action:
        raise TemplateError(f"{label}: id must be RESOURCE.ACTION", Where(("operation",),
                                                                          index, key="id"))
    lists = {key: _phrases(raw, key, label, where) for key in _LISTS}
    if not (lists["verbs"] or lists["nouns"] or lists["idioms"]):
        raise TemplateError(f"{label} needs verbs, nouns or idioms: words that name it", where)
    for idiom in lists["idioms"]:
        if idiom.count("{target}") > 1 or idiom.replace("{target}", "").count("{"):
            raise TemplateError(f"{label}: idioms: {idiom!r} may hold {{target}} once and no"
                                " other braces", Where(("operation",), index, key="idioms",
                                                       needle=idiom[:40]))
    for idiom in lists["idioms"]:
        if "{target}" in idiom and raw.get("target", "none") == "none":
            raise TemplateError(f"{label}: idioms: {idiom!r} names {{target}} but the"
                                " operation takes no target",
                                Where(("operation",), index, key="idioms", needle=idiom[:40]))
    return _operation(raw, resource, action, origin, lists)


_LISTS = ("verbs", "nouns", "idioms", "examples", "requires", "alone")


def _operation(raw: dict[str, Any], resource: str, action: str, origin: str,
               lists: dict[str, list[str]]) -> Operation:
    return Operation(
        id=raw["id"], kind=raw["kind"], summary=raw["summary"],
        resource=raw.get("resource", resource), action=raw.get("action", action),
        target=raw.get("target", "none"), qualifiers=list(raw.get("qualifiers", [])),
        slots=list(raw.get("slots", [])), risk=raw.get("risk", "safe"),
        undo=raw.get("undo"), then=list(raw.get("then", [])), note=raw.get("note"),
        priority=raw.get("priority", 50), value=raw.get("value"),
        creates=raw.get("creates", False), asked=raw.get("asked"), origin=origin, **lists)


def refusal(raw: Any, index: int, origin: str) -> Refusal:
    """One [[refusal]] table, checked; raises TemplateError naming the key."""
    where = Where(("refusal",), index)
    if not isinstance(raw, dict):
        raise TemplateError("each [[refusal]] must be a table", where)
    name = raw.get("id")
    label = f"refusal {name!r}" if isinstance(name, str) else f"refusal #{index + 1}"
    check_keys(raw, REFUSAL_KEYS, ("id", "verbs", "objects", "reason"), label, where)
    return Refusal(id=raw["id"], reason=raw["reason"], remote=raw.get("remote", False),
                   origin=origin, verbs=_phrases(raw, "verbs", label, where),
                   objects=_phrases(raw, "objects", label, where),
                   unless=_phrases(raw, "unless", label, where),
                   trees=raw.get("trees", False))


def vocabulary(raw: Any) -> Vocabulary:
    """The [vocabulary] table, checked."""
    where = Where(("vocabulary",))
    if not isinstance(raw, dict):
        raise TemplateError("[vocabulary] must be a table", where)
    allowed = {**dict.fromkeys(VOCABULARY_LISTS, _L), **dict.fromkeys(VOCABULARY_TABLES,
                                                                         "table")}
    check_keys(raw, allowed, (), "[vocabulary]", where)
    found = Vocabulary()
    for key in VOCABULARY_LISTS:
        words = _phrases(raw, key, "[vocabulary]", where)
        setattr(found, key, set(words) if isinstance(getattr(found, key), set) else words)
    for key in VOCABULARY_TABLES:
        table = raw.get(key, {})
        at = Where(("vocabulary", key))
        if not isinstance(table, dict):
            raise TemplateError(f"[vocabulary] {key} must be a table", Where(where.table,
                                                                              key=key))
        for word, value in table.items():
            good = (isinstance(value, int) and not isinstance(value, bool)
                    and 0 <= value <= 10_000) if key == "numbers" else isinstance(
                value, str) if key == "contractions" else isinstance(value, list) and all(
                isinstance(v, str) for v in value)
            if not good:
                what = {"numbers": "a whole number from 0 to 10000",
                        "contractions": "a string"}.get(key, "a list of strings")
                raise TemplateError(f"[vocabulary.{key}] {word!r} must be {what}",
                                    Where(at.table, key=word))
        if key == "qualifiers":
            _choice({"qualifiers": list(table)}, "qualifiers", QUALIFIERS, "[vocabulary]",
                    at)
        if key in ("qualifiers", "resources"):
            table = {k: [" ".join(w.lower().split()) for w in v] for k, v in table.items()}
        setattr(found, key, dict(table))
    return found
