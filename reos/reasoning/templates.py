"""Templates: TOML files of request patterns (with named slots) and step recipes.

Built-in templates live in `templates/` (shipped inside the package as
`reos/templates`); the user's in `~/.config/reos/templates/` extend them, and a user
intent or recipe with the same name replaces the built-in one. A broken file is
reported with its name and skipped; it never stops reos.

Not responsible for deciding which template applies (the understanders do) or for
filling recipes with targets (the plan builder does).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reos import paths

SLOT = "{name}"  # the only placeholder a recipe's argv may hold: a validated target name
_TOOL_FORMATS = re.compile(r"\{\{.*?\}\}|[$%]\{[^}]*\}")
KINDS = {"query", "action", "refuse"}
RISKS = {"safe", "low", "medium", "high", "critical"}


_ESCAPES = re.compile(r"\\x[0-9a-fA-F]{2}|\\[a-zA-Z]|\\.|\(\?P<\w+>|\(\?[:=!]|\[[^\]]*\]")
_WORDS = re.compile(r"[a-z0-9]+")
_LITERAL = re.compile(r"([a-z0-9][a-z0-9'/-]*[a-z0-9]|[a-z0-9]{2})([?*]|\{0)?")


class Pattern:
    """A request pattern, compiled on first use and only tried when it could match.

    Compiling all 160-odd built-in patterns costs ~25 ms, more than `reos plan` may
    spend starting up. Every pattern contains literal words, at least one of which must
    occur in any text it matches; `could_match` checks those with plain substring
    tests, so most patterns are never compiled for a given request.
    """

    def __init__(self, source: str):
        self.source = source
        self._compiled: re.Pattern[str] | None = None
        words: set[str] = set()
        for word, optional_tail in _LITERAL.findall(_ESCAPES.sub(" ", source.lower())):
            words.add(word)
            if optional_tail:
                words.add(word[:-1])  # "logs?" also matches "log"
        # long literals are tested as substrings ("shut\s*down" matches "shutdown"); short
        # ones (is, up, ip, df) only as whole words, or they would pass for almost anything
        self.words = frozenset(w for w in words if len(w) > 2)
        self.short = frozenset(w for w in words if 0 < len(w) <= 2)

    def check(self) -> None:
        re.compile(self.source)  # raises re.error for a broken template

    def could_match(self, lowered: str) -> bool:
        if not self.words and not self.short:
            return True
        if any(w in lowered for w in self.words):
            return True
        return bool(self.short) and not self.short.isdisjoint(_WORDS.findall(lowered))

    def match(self, text: str) -> re.Match[str] | None:
        if not self.could_match(text.lower()):
            return None
        if self._compiled is None:
            try:
                self._compiled = re.compile(rf"^(?:{self.source})$", re.IGNORECASE)
            except re.error:
                self._compiled = re.compile(r"(?!)")  # a broken pattern never matches
        return self._compiled.match(text)


@dataclass
class IntentTemplate:
    name: str
    kind: str
    action: str
    resource: str | None
    patterns: list[Pattern]
    origin: str
    priority: int = 50  # lower is tried first (refusals 0, specific phrasings before generic)
    then: list[str] = field(default_factory=list)  # follow-up actions ("install and enable")
    condition: str | None = None  # e.g. "if_running": act only when the targets are running
    reason: str | None = None  # for kind = "refuse": why reos will not do it
    note: str | None = None  # said with the plan ("configuring it is up to you")


@dataclass
class RecipeStep:
    title: str
    argv: list[str]
    risk: str = "low"
    read_only: bool = False
    needs_root: bool = False
    reversible: bool = True
    when_state: list[str] | None = None  # only for targets in one of these states
    when_enabled: list[str] | None = None  # only for services in one of these unit-file states
    skip_note: str | None = None  # said for a target the step does not apply to


@dataclass
class Recipe:
    resource: str
    action: str
    steps: list[RecipeStep]
    answer: str | None = None  # how a query's output is put into words
    verb: str | None = None  # "stop", used in sentences ("This will stop 2 containers")
    origin: str = ""
    variant: str | None = None  # package manager (apt, dnf, ...) when recipes differ by one
    state: str | None = None  # what the action changes: active | enabled | both | mask | ...
    affects: str | None = None  # said before approval for risky recipes ("every session")


@dataclass
class TemplateSet:
    intents: list[IntentTemplate] = field(default_factory=list)
    recipes: dict[tuple[str, str, str | None], Recipe] = field(default_factory=dict)
    aliases: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # kind -> phrase
    problems: list[str] = field(default_factory=list)

    def recipe(self, resource: str, action: str, variant: str | None = None) -> Recipe | None:
        return self.recipes.get((resource, action, variant)) or self.recipes.get(
            (resource, action, None))


def builtin_dir() -> Path:
    here = Path(__file__).resolve().parent.parent
    packaged = here / "templates"
    return packaged if packaged.is_dir() else here.parent / "templates"


class TemplateError(ValueError):
    pass


_BUILTIN: set[str] = set()


def origin_is_user(origin: str) -> bool:
    return origin not in _BUILTIN


def _intent(raw: Any, origin: str) -> IntentTemplate:
    if not isinstance(raw, dict):
        raise TemplateError("each [[intent]] must be a table")
    for key in ("name", "kind", "action", "patterns"):
        if key not in raw:
            raise TemplateError(f"intent is missing {key!r}")
    if raw["kind"] not in KINDS:
        raise TemplateError(f"intent {raw['name']!r}: kind must be one of {sorted(KINDS)}")
    if raw["kind"] == "refuse" and not raw.get("reason"):
        raise TemplateError(f"intent {raw['name']!r}: a refusal needs a reason")
    if not isinstance(raw["patterns"], list) or not raw["patterns"]:
        raise TemplateError(f"intent {raw['name']!r}: patterns must be a non-empty list")
    compiled = []
    for pattern in raw["patterns"]:
        if not isinstance(pattern, str):
            raise TemplateError(f"intent {raw['name']!r}: patterns must be strings")
        compiled.append(Pattern(pattern))
        if origin_is_user(origin):
            try:  # built-in patterns are checked by the test suite; user ones here
                compiled[-1].check()
            except re.error as exc:
                raise TemplateError(
                    f"intent {raw['name']!r}: bad pattern {pattern!r}: {exc}") from None
    return IntentTemplate(
        name=str(raw["name"]), kind=raw["kind"], action=str(raw["action"]),
        resource=raw.get("resource"), patterns=compiled, origin=origin,
        priority=int(raw.get("priority", 50)), then=list(raw.get("then", [])),
        condition=raw.get("condition"), reason=raw.get("reason"), note=raw.get("note"),
    )


def _recipes(resource: str, action: str, raw: Any, origin: str) -> list[Recipe]:
    """One recipe, or one per package manager when the table holds variants."""
    if isinstance(raw, dict) and "steps" not in raw and raw and all(
            isinstance(v, dict) for v in raw.values()):
        return [_recipe(resource, action, sub, origin, variant) for variant, sub in raw.items()]
    return [_recipe(resource, action, raw, origin)]


def _recipe(resource: str, action: str, raw: Any, origin: str,
            variant: str | None = None) -> Recipe:
    if not isinstance(raw, dict) or not isinstance(raw.get("steps"), list) or not raw["steps"]:
        raise TemplateError(f"recipe {resource}.{action} needs a non-empty steps list")
    steps = []
    allowed = set(RecipeStep.__dataclass_fields__)
    for item in raw["steps"]:
        if not isinstance(item, dict) or set(item) - allowed:
            raise TemplateError(
                f"recipe {resource}.{action}: unknown step keys {sorted(set(item) - allowed)}"
            )
        argv = item.get("argv")
        if not isinstance(argv, list) or not argv or not all(isinstance(a, str) for a in argv):
            raise TemplateError(f"recipe {resource}.{action}: argv must be a list of strings")
        for arg in argv:
            # tool-side format strings ({{json .}}, ${Version}, %{NAME}) pass through as is
            rest = _TOOL_FORMATS.sub("", arg).replace(SLOT, "")
            if "{" in rest or "}" in rest:
                raise TemplateError(
                    f"recipe {resource}.{action}: {arg!r} - only {SLOT} may be filled in"
                )
        if item.get("risk", "low") not in RISKS:
            raise TemplateError(f"recipe {resource}.{action}: unknown risk {item['risk']!r}")
        steps.append(RecipeStep(**item))
    return Recipe(resource=resource, action=action, steps=steps, answer=raw.get("answer"),
                  verb=raw.get("verb"), origin=origin, variant=variant,
                  state=raw.get("state"), affects=raw.get("affects"))


def _parse(path: Path) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(path.read_text(encoding="utf-8"))


def load_file(path: Path, into: TemplateSet, data: dict[str, Any] | None = None) -> None:
    import tomllib

    try:
        data = _parse(path) if data is None else data
        intents = [_intent(raw, str(path)) for raw in data.get("intent", [])]
        recipes = [
            recipe
            for resource, actions in (data.get("recipe") or {}).items()
            for action, raw in actions.items()
            for recipe in _recipes(resource, action, raw, path.name)
        ]
        aliases = data.get("aliases") or {}
        if not all(isinstance(v, dict) for v in aliases.values()):
            raise TemplateError("[aliases.KIND] tables map a phrase to a list of names")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, TemplateError,
            AttributeError, TypeError) as exc:
        into.problems.append(f"template {path} skipped: {exc}")
        return
    replaced = {i.name for i in intents}
    into.intents = [i for i in into.intents if i.name not in replaced] + intents
    into.intents.sort(key=lambda i: i.priority)  # stable: file order within a priority
    for recipe in recipes:
        into.recipes[(recipe.resource, recipe.action, recipe.variant)] = recipe
    for kind, table in aliases.items():
        for phrase, names in table.items():
            into.aliases.setdefault(kind, {})[phrase.lower()] = [str(n) for n in names]


def _parsed_files(files: list[Path]) -> dict[str, dict[str, Any] | None]:
    """Each file's TOML, from a JSON cache while no file changed (TOML costs ~8 ms here).

    A file that cannot be parsed maps to None and is parsed (and reported) again by
    load_file. The cache is an optimisation only: any problem with it is ignored.
    """
    import json

    stamp = []
    for path in files:
        try:
            st = path.stat()
            stamp.append([str(path), st.st_mtime_ns, st.st_size])
        except OSError:
            stamp.append([str(path), 0, 0])
    cache = paths.data_dir() / "cache" / "templates.json"
    try:
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if cached.get("files") == stamp:
            return dict(cached["data"])
    except (OSError, ValueError, AttributeError, KeyError):
        pass
    parsed: dict[str, dict[str, Any] | None] = {}
    for path in files:
        try:
            parsed[str(path)] = _parse(path)
        except Exception:  # reported by load_file when it parses the file itself
            parsed[str(path)] = None
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"files": stamp, "data": parsed}), encoding="utf-8")
        temporary.replace(cache)
    except (OSError, TypeError, ValueError):
        pass
    return parsed


def load(extra_dirs: list[Path] | None = None) -> TemplateSet:
    """Built-in templates, then the user's (which win on equal names)."""
    found = TemplateSet()
    builtin = builtin_dir()
    files: list[Path] = []
    for directory in [builtin, paths.user_templates_dir(), *(extra_dirs or [])]:
        if directory.is_dir():
            for path in sorted(directory.glob("*.toml")):
                if directory == builtin:
                    _BUILTIN.add(str(path))
                files.append(path)
    parsed = _parsed_files(files)
    for path in files:
        load_file(path, found, parsed.get(str(path)))
    return found
