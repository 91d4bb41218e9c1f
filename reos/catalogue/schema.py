"""What a template file may hold, checked by type, and the line a problem is on.

Every key of a `[recipe.R.A]` table, a recipe step and an `[aliases.KIND]` table is
checked here (operations, refusals and vocabulary in `operations`): booleans are booleans,
numbers are numbers in a sane range, lists hold strings, unknown keys are errors. A
`TemplateError` carries where it happened (the table, the step, the key), so `locate`
can turn it into a line number from the file's text: tomllib reports lines only for
syntax errors.

Not responsible for reading files or building the template objects (see `templates`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec import Struct

from reos.patterns import regex

if TYPE_CHECKING:
    from typing import Any

RISKS = frozenset({"safe", "low", "medium", "high", "critical"})
SLOT = "{name}"  # a validated target name from the snapshot
# the values a recipe's argv may take from the request besides its target (filled and
# checked by reos/understanding/slots.py)
SLOTS = ("lines", "since", "until", "journal_since", "journal_until", "unit_state",
         "file_state", "docker_status", "user", "group", "shell", "hostname", "timezone",
         "date", "priority", "port", "interface", "host", "path", "device", "vacuum_size",
         "vacuum_time", "proto", "program", "source", "days", "when", "timer", "fullname",
         "policy", "queue_id")
# values the parser reads from the request and the plan builder checks and renders itself
# (never request text): a count of lines, a time as docker and as journalctl take it, …
VALUE_SLOTS = tuple(f"{{{name}}}" for name in SLOTS)
SLOTS_IN_ARGV = (SLOT, *VALUE_SLOTS)

MAX_FILE_BYTES = 1_000_000
MAX_ARG_CHARS = 4_096

# key -> (type word, check); "choice" keys are checked against their own set below
_STR, _BOOL, _INT, _STRS, _NONEMPTY_STRS = "str", "bool", "int", "strs", "nonempty strs"
RECIPE_KEYS: dict[str, str] = {
    "steps": "steps", "answer": _STR, "verb": _STR, "state": _STR, "affects": _STR,
    "defaults": "defaults", "tracks": _STR, "ansible": "ansible", "unsupported": _STR,
    "needs": _NONEMPTY_STRS, "asks": _STR,
}
STEP_KEYS: dict[str, str] = {
    "title": _STR, "argv": _NONEMPTY_STRS, "risk": _STR, "read_only": _BOOL,
    "needs_root": _BOOL, "reversible": _BOOL, "when_state": _STRS, "when_enabled": _STRS,
    "skip_note": _STR, "when_slot": _STRS, "unless_slot": _STRS, "when_member": _STR,
    "unless_member": _STR,
}
STEP_REQUIRED = ("title", "argv")
TOP_KEYS = ("operation", "refusal", "vocabulary", "recipe", "aliases")
# keys older catalogue files may still set, with what to do instead of a "did you mean"
RETIRED_KEYS = {
    "condition": "conditions are no longer set in a template: reos reads them from the "
                 "request itself (\u201cif nginx is running, stop it\u201d); remove this key",
}


class Where(Struct, frozen=True):
    """Where in a template file a problem is: a table, an index, a step, a key."""

    table: tuple[str, ...] = ()  # header parts as written: ("recipe", "package", "install")
    index: int | None = None  # which [[table]] of that name (for [[intent]])
    step: int | None = None  # which element of the table's steps list
    key: str | None = None
    needle: str | None = None  # text that sits on the offending line (a pattern, a phrase)


class TemplateError(ValueError):
    """What is wrong with a template file; `where` (or a known `line`) says where."""

    def __init__(self, message: str, where: Where | None = None, line: int | None = None):
        super().__init__(message)
        self.where = where or Where()
        self.line = line


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_WORDS = {_STR: "a string", _BOOL: "true or false", _INT: "a whole number",
          _STRS: "a list of strings", _NONEMPTY_STRS: "a non-empty list of strings"}


def _fits(kind: str, value: Any) -> bool:
    if kind == _STR:
        return isinstance(value, str)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind in (_STRS, _NONEMPTY_STRS):
        return isinstance(value, list) and all(isinstance(v, str) for v in value) and (
            kind == _STRS or bool(value))
    raise AssertionError(kind)  # a kind this module does not know is a bug here


def check_value(kind: str, value: Any, label: str, where: Where) -> None:
    """Raise TemplateError unless value has the type `kind` names."""
    if not _fits(kind, value):
        raise TemplateError(f"{label} must be {_WORDS[kind]}, not {_short(value)}", where)


def check_keys(raw: dict[str, Any], allowed: dict[str, str], required: tuple[str, ...],
               label: str, where: Where) -> None:
    """Unknown keys, missing keys and wrongly typed values, each named."""
    import difflib

    for key in raw:
        if key not in allowed:
            if key in RETIRED_KEYS:
                raise TemplateError(f"{label}: {key!r}: {RETIRED_KEYS[key]}", _at(where, key))
            close = difflib.get_close_matches(str(key), list(allowed), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise TemplateError(f"{label}: unknown key {key!r}{hint}", _at(where, key))
    for key in required:
        if key not in raw:
            raise TemplateError(f"{label} is missing {key!r}", where)
    for key, value in raw.items():
        kind = allowed[key]
        if kind in _WORDS and not _fits(kind, value):  # `where` only built for a failure
            check_value(kind, value, f"{label}: {key}", _at(where, key))


def _at(where: Where, key: str, needle: str | None = None) -> Where:
    return Where(where.table, where.index, where.step, key, needle)


def check_recipe(raw: Any, table: tuple[str, ...]) -> dict[str, Any]:
    """A recipe table (one variant), checked; raises TemplateError naming the key."""
    where = Where(table)
    label = "recipe " + ".".join(table[1:])
    if not isinstance(raw, dict):
        raise TemplateError(f"{label} must be a table", where)
    if "unsupported" in raw:  # said instead of a plan: nothing else to hold
        check_keys(raw, {"unsupported": _STR}, ("unsupported",), label, where)
        if not raw["unsupported"].strip():
            raise TemplateError(f"{label}: unsupported must say why", _at(where, "unsupported"))
        return raw
    check_keys(raw, RECIPE_KEYS, ("steps",), label, where)
    _check_ansible(raw.get("ansible"), label, where)
    defaults = raw.get("defaults", {})
    if not isinstance(defaults, dict) or any(
            key not in ("lines",) or not isinstance(value, int) or not 1 <= value <= 100_000
            for key, value in defaults.items()):
        raise TemplateError(f"{label}: defaults may only set lines, to a number from 1 to"
                            " 100000", _at(where, "defaults"))
    steps = raw["steps"]
    if not isinstance(steps, list) or not steps:
        raise TemplateError(f"{label}: steps must be a non-empty list of step tables",
                            _at(where, "steps"))
    for number, step in enumerate(steps):
        _check_step(step, Where(table, step=number), f"{label} step {number + 1}")
    return raw


_MODULE = regex(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")


def _check_ansible(raw: Any, label: str, where: Where) -> None:
    """`ansible = { module = "ansible.builtin.user", args = { name = "{name}", … } }`: the
    module and arguments that do the same on many hosts (not run yet)."""
    if raw is None:
        return
    at = _at(where, "ansible")
    if not isinstance(raw, dict) or set(raw) - {"module", "args"} or not isinstance(
            raw.get("module"), str) or not _MODULE.match(raw["module"]):
        raise TemplateError(f"{label}: ansible must be {{ module = \"namespace.collection."
                            "module\", args = { … } }", at)
    args = raw.get("args", {})
    if not isinstance(args, dict) or not all(
            isinstance(v, (str, bool, int)) and not isinstance(v, float)
            for v in args.values()) or len(args) > 50:
        raise TemplateError(f"{label}: ansible args must map names to strings, numbers or"
                            " true/false", at)
    for value in args.values():
        if isinstance(value, str) and not fills_only_slot(value):
            raise TemplateError(f"{label}: ansible args: {_short(value)} - only "
                                f"{', '.join(SLOTS_IN_ARGV)} may be filled in", at)


def _check_step(step: Any, where: Where, label: str) -> None:
    if not isinstance(step, dict):
        raise TemplateError(f"{label} must be a table ({{ title = ..., argv = [...] }})",
                            where)
    check_keys(step, STEP_KEYS, STEP_REQUIRED, label, where)
    if step.get("risk", "low") not in RISKS:
        raise TemplateError(f"{label}: risk must be one of {', '.join(sorted(RISKS))},"
                            f" not {_short(step['risk'])}", _at(where, "risk"))
    for arg in step["argv"]:
        if len(arg) > MAX_ARG_CHARS:
            raise TemplateError(f"{label}: an argv item is longer than {MAX_ARG_CHARS:,}"
                                " characters", _at(where, "argv"))
        if not fills_only_slot(arg):
            raise TemplateError(f"{label}: argv: {_short(arg)} - only "
                                f"{', '.join(SLOTS_IN_ARGV)} may be filled in",
                                _at(where, "argv"))


def fills_only_slot(arg: str) -> bool:
    """Whether the only braces in arg are {name} or a tool's own format strings.

    Tool-side formats ({{json .}}, ${Version}, %{NAME}) pass through as they are. A
    hand scan, so an argument full of braces costs linear time, not a regex's backtracking.
    """
    if "{" not in arg and "}" not in arg:
        return True
    i, end = 0, len(arg)
    while i < end:
        slot = next((s for s in SLOTS_IN_ARGV if arg.startswith(s, i)), None)
        if slot:
            i += len(slot)
        elif arg.startswith("{{", i):
            close = arg.find("}}", i + 2)
            if close < 0:
                return False
            i = close + 2
        elif arg[i] in "$%" and arg.startswith("{", i + 1):
            close = arg.find("}", i + 2)
            if close < 0:
                return False
            i = close + 1
        elif arg[i] in "{}":
            return False
        else:
            i += 1
    return True


def check_aliases(raw: Any) -> dict[str, dict[str, list[str]]]:
    """[aliases.KIND] tables: each maps a phrase to a list of names."""
    if not isinstance(raw, dict):
        raise TemplateError("aliases must be tables: [aliases.KIND]", Where(key="aliases"))
    for kind, table in raw.items():
        where = Where(("aliases", kind))
        if not isinstance(table, dict):
            raise TemplateError(f"[aliases.{kind}] must map a phrase to a list of names",
                                Where(("aliases",), key=kind))
        for phrase, names in table.items():
            check_value(_NONEMPTY_STRS, names, f"[aliases.{kind}] {phrase!r}",
                        _at(where, phrase))
    return raw


def check_top(data: dict[str, Any]) -> None:
    """Only intents, recipes and aliases may be at the top of a template file."""
    import difflib

    if "intent" in data:
        raise TemplateError("[[intent]] tables (regular expressions) are no longer read; write"
                            " [[operation]] tables instead (see docs/catalogue.md)",
                            Where(("intent",), 0))
    for key in data:
        if key not in TOP_KEYS:
            close = difflib.get_close_matches(key, TOP_KEYS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise TemplateError(f"unknown table or key {key!r}{hint}", Where((key,), key=key))
    for name in ("operation", "refusal"):
        if not isinstance(data.get(name, []), list):
            raise TemplateError(f"{name}s are written as [[{name}]] tables", Where(key=name))
    recipes = data.get("recipe", {})
    if not isinstance(recipes, dict) or not all(isinstance(v, dict) for v in recipes.values()):
        raise TemplateError("recipes are written as [recipe.RESOURCE.ACTION] tables",
                            Where(key="recipe"))


# -- finding the line --------------------------------------------------------------------

def _header(line: str) -> tuple[tuple[str, ...], bool] | None:
    """A table header's name parts and whether it is [[an array]], or None.

    String operations only: this runs on hostile files too, and a regex with a lazy
    group before `\\s*\\]` backtracks quadratically on a long line without a bracket.
    """
    line = line.split("#", 1)[0].strip()
    if not line.startswith("[") or not line.endswith("]"):
        return None
    array = line.startswith("[[") and line.endswith("]]")
    name = line[2:-2] if array else line[1:-1]
    if not name.strip() or any(c in name for c in "[]=,"):
        return None
    return tuple(p.strip().strip("\"'") for p in name.split(".")), array


def locate(text: str, where: Where) -> int | None:
    """The 1-based line of the file that `where` points at, or None when unsure.

    A best-effort reading of the usual layouts: [[intent]] blocks, [recipe.R.A] tables
    with `steps = [ {..}, {..} ]` one step a line, or [[recipe.R.A.steps]] blocks.
    """
    lines = text.splitlines()
    headers: list[tuple[int, tuple[str, ...], bool]] = []
    for number, line in enumerate(lines):
        header = _header(line)
        if header:
            headers.append((number, *header))

    def block(table: tuple[str, ...], nth: int | None) -> tuple[int, int] | None:
        seen = -1
        for position, (number, parts, _array) in enumerate(headers):
            if parts == table:
                seen += 1
                if nth is None or seen == nth:
                    end = headers[position + 1][0] if position + 1 < len(headers) else len(lines)
                    return number, end
        return None

    def key_line(start: int, end: int, key: str) -> int | None:
        pattern = re.compile(r"\s*[\"']?" + re.escape(key) + r"[\"']?\s*=")
        for number in range(start, end):
            if pattern.match(lines[number]):
                return number
        return None

    def needle_line(start: int, end: int, needle: str) -> int | None:
        for number in range(start, end):
            if needle in lines[number]:
                return number
        return None

    if not where.table:
        if where.key:
            top = key_line(0, len(lines), where.key)
            if top is None:  # `[operation]` written where `[[operation]]` was meant
                top = next((n for n, parts, _ in headers if parts[:1] == (where.key,)), None)
            return top + 1 if top is not None else None
        return None
    span = block(where.table, where.index)
    if span is None and len(where.table) == 1 and where.index in (None, 0):
        top = key_line(0, len(lines), where.table[0])  # `vocabulary = 3`, not a table
        if top is not None:
            return top + 1
    if span is None and where.step is not None:
        span = block((*where.table, "steps"), where.step)  # [[recipe.R.A.steps]] layout
        if span is not None:
            found = key_line(span[0], span[1], where.key) if where.key else None
            return (found if found is not None else span[0]) + 1
    if span is None:
        return None
    start, end = span
    if where.step is not None:
        steps = key_line(start, end, "steps")
        starts = [n for n in range(steps if steps is not None else start, end)
                  if lines[n].lstrip().startswith("{") or (n == steps and "{" in lines[n])]
        if where.step < len(starts):
            start = starts[where.step]
            end = starts[where.step + 1] if where.step + 1 < len(starts) else end
            if not where.key:
                return start + 1
        elif steps is not None:
            return steps + 1
    found = None
    if where.key:
        found = key_line(start, end, where.key)
        if found is None and where.step is not None:
            found = needle_line(start, end, where.key)  # a key inside an inline table
    if where.needle:
        on = needle_line(found if found is not None else start, end, where.needle)
        found = on if on is not None else found
    return (found if found is not None else start) + 1
