"""Templates: the TOML files of the operation catalogue and its step recipes, loaded.

Built-in files live in `templates/` (shipped inside the package as `reos/templates`);
the user's in `~/.config/reos/templates/` extend them: an operation, refusal or recipe
with the same id replaces the built-in one, vocabulary is added to. Every key is checked
by type (`operations`, `schema`); a broken file is reported with its name, line
and key and skipped; it never stops reos. Nothing here is a regular expression: the
catalogue's phrases are matched as word sequences by the parser, in linear time.

The loaded set is kept between starts while no file changed, with its lexicon's tables
(`lexicon.Tables`), encoded by msgspec (MessagePack) and decoded straight into records:
reading, parsing and checking the TOML, then building the lexicon, cost about 25 ms of
every `reos plan`; decoding costs about 5. The store layer
(`reos.store.template_cache`) keeps the bytes; nothing here writes anything. A cache that
does not decode into a TemplateSet is passed over and the files are read again.

Not responsible for reading requests (the parser does), for filling recipes with targets
(the plan builder does), or for the cache file's place, format and safe writing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from msgspec import Struct, field

from reos import paths
from reos.catalogue import lexicon as _lexicon
from reos.catalogue import operations as catalogue
from reos.catalogue import schema
from reos.catalogue.lexicon import Lexicon, Tables, keep_on
from reos.catalogue.operations import Operation, Refusal, Vocabulary
from reos.catalogue.schema import TemplateError, Where
from reos.patterns import regex
from reos.store.template_cache import TemplateCache

__all__ = ["TemplateSet", "load", "load_file"]

class RecipeStep(Struct):
    title: str
    argv: list[str]
    risk: str = "low"
    read_only: bool = False
    needs_root: bool = False
    reversible: bool = True
    when_state: list[str] | None = None  # only for targets in one of these states
    when_enabled: list[str] | None = None  # only for services in one of these unit-file states
    skip_note: str | None = None  # said for a target the step does not apply to
    when_slot: list[str] | None = None  # only when the request gave these (since, boot...)
    unless_slot: list[str] | None = None  # only when it gave none of these
    # a group ("{group}" or a name): the step is only for an account in it / not in it
    # (by the snapshot: "add bob to docker" when he is in docker already is said, not run)
    when_member: str | None = None
    unless_member: str | None = None


class Recipe(Struct):
    resource: str
    action: str
    steps: list[RecipeStep]
    answer: str | None = None  # how a query's output is put into words
    verb: str | None = None  # "stop", used in sentences ("This will stop 2 containers")
    origin: str = ""
    variant: str | None = None  # package manager (apt, dnf, ...) when recipes differ by one
    state: str | None = None  # what the action changes: active | enabled | both | mask | ...
    affects: str | None = None  # said before approval for risky recipes ("every session")
    defaults: dict[str, int] = field(default_factory=dict)  # values when not said (lines)
    # a setting a target-less recipe changes ("hostname", "timezone"): its steps record
    # that setting's prior state, so undo can set it back
    tracks: str | None = None
    # the Ansible module and arguments that do the same on many hosts (a later fleet
    # mode); read and checked, never run
    ansible: dict[str, Any] | None = None
    # what reos says instead of a plan where this variant has no way to do it (a
    # firewall backend with no clear equivalent: "firewalld has no default policy…")
    unsupported: str | None = None
    # the packages of which one must be installed for its steps to run (certbot): where
    # the snapshot lists the packages and none of these is there, reos says so instead
    # of a plan (`planning.named.missing_program`)
    needs: list[str] = field(default_factory=list)
    # how reos names the value a step lacks when it asks for it ("which certificate…"),
    # where the slot's own words ("which host") would not say what is meant
    asks: str | None = None


class TemplateSet(Struct, dict=True):  # dict: the lexicon is kept on it (lexicon.py)
    operations: dict[str, Operation] = field(default_factory=dict)  # id -> operation
    refusals: dict[str, Refusal] = field(default_factory=dict)
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
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


_BUILTIN: set[str] = set()


def origin_is_user(origin: str) -> bool:
    return origin not in _BUILTIN


def _recipes(resource: str, action: str, raw: Any, origin: str) -> list[Recipe]:
    """One recipe, or one per package manager when the table holds variants."""
    table = ("recipe", resource, action)
    if isinstance(raw, dict) and "steps" not in raw and raw and all(
            isinstance(v, dict) for v in raw.values()):
        return [_recipe(resource, action, sub, origin, (*table, variant), variant)
                for variant, sub in raw.items()]
    return [_recipe(resource, action, raw, origin, table)]


def _recipe(resource: str, action: str, raw: Any, origin: str, table: tuple[str, ...],
            variant: str | None = None) -> Recipe:
    raw = schema.check_recipe(raw, table)
    return Recipe(resource=resource, action=action,
                  steps=[RecipeStep(**item) for item in raw.get("steps", [])],
                  answer=raw.get("answer"), verb=raw.get("verb"), origin=origin,
                  variant=variant, state=raw.get("state"), affects=raw.get("affects"),
                  defaults=dict(raw.get("defaults", {})), tracks=raw.get("tracks"),
                  ansible=raw.get("ansible"), unsupported=raw.get("unsupported"),
                  needs=list(raw.get("needs", [])), asks=raw.get("asks"))


def _read(path: Path) -> str:
    """A template file's text: a regular file, at most MAX_FILE_BYTES, UTF-8.

    Anything else is a TemplateError: a FIFO named like a template would otherwise
    block every request, and a huge file would be parsed on every start.
    """
    import stat

    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise TemplateError("is not a regular file")
    limit = schema.MAX_FILE_BYTES
    with path.open("rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise TemplateError(f"is larger than {limit:,} bytes, the most a template may be")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise TemplateError(f"line {line}: is not UTF-8 text (byte {exc.start:,})",
                            line=line) from None


_TOML_LINE = regex(r"\(at line (\d+), column \d+\)")


def _parse(path: Path) -> dict[str, Any]:
    import tomllib

    text = _read(path)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = _TOML_LINE.search(str(exc))
        raise TemplateError(f"is not valid TOML: {exc}",
                            line=int(found.group(1)) if found else None) from None
    except RecursionError:
        raise TemplateError("nests arrays or tables too deeply to read") from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise TemplateError(f"is not valid TOML: {exc}") from None


class _File(Struct):
    """One template file's tables, checked."""

    recipes: list[Recipe]
    aliases: dict[str, dict[str, list[str]]]
    operations: list[Operation]
    refusals: list[Refusal]
    vocabulary: Vocabulary | None


def _build(data: Any, path: Path) -> _File:
    if not isinstance(data, dict):
        raise TemplateError("is not a table of operations, refusals, recipes and aliases")
    schema.check_top(data)
    operations = [catalogue.operation(raw, i, str(path))
                  for i, raw in enumerate(data.get("operation", []))]
    refusals = [catalogue.refusal(raw, i, str(path))
                for i, raw in enumerate(data.get("refusal", []))]
    vocabulary = catalogue.vocabulary(data["vocabulary"]) if "vocabulary" in data else None
    recipes = [
        recipe
        for resource, actions in data.get("recipe", {}).items()
        for action, raw in actions.items()
        for recipe in _recipes(resource, action, raw, str(path))
    ]
    aliases = schema.check_aliases(data.get("aliases", {}))
    return _File(recipes, aliases, operations, refusals, vocabulary)


def _problem(path: Path, exc: TemplateError) -> str:
    line = exc.line
    if line is None and exc.where != Where():
        try:
            line = schema.locate(_read(path), exc.where)
        except (OSError, TemplateError):
            line = None
    where = f"{path}:{line}" if line else str(path)
    message = str(exc)
    if exc.line is not None and message.startswith(f"line {exc.line}: "):
        message = message[len(f"line {exc.line}: "):]
    return f"template {where} skipped: {message}"


def load_file(path: Path, into: TemplateSet) -> None:
    """Add one file's operations, refusals, vocabulary, recipes and aliases, or a problem
    saying why not."""
    try:
        built = _build(_parse(path), path)
    except TemplateError as exc:
        into.problems.append(_problem(path, exc))
        return
    except (OSError, RecursionError) as exc:
        into.problems.append(f"template {path} skipped: it cannot be read ({exc})")
        return
    for recipe in built.recipes:
        into.recipes[(recipe.resource, recipe.action, recipe.variant)] = recipe
    for op in built.operations:
        into.operations.pop(op.id, None)  # a replaced operation moves to its new file's place
        into.operations[op.id] = op
    for refusal in built.refusals:
        into.refusals[refusal.id] = refusal
    if built.vocabulary is not None:
        into.vocabulary.add(built.vocabulary)
    for kind, table in built.aliases.items():
        for phrase, names in table.items():
            if kind == "role":  # software by its job: a container or a service may do it
                for each in ROLE_KINDS:
                    known = into.aliases.setdefault(each, {}).setdefault(phrase.lower(), [])
                    known += [n for n in names if n not in known]
            else:
                into.aliases.setdefault(kind, {})[phrase.lower()] = list(names)


_LEXICON_CODE = Path(_lexicon.__file__)  # what builds the tables the cache keeps
ROLE_KINDS = ("container", "service")  # what [aliases.role] phrases may name


def load(extra_dirs: list[Path] | None = None, cache: TemplateCache | None = None
         ) -> TemplateSet:
    """Built-in templates, then the user's (which win on equal names). `cache` keeps the
    loaded set between starts (by default reos's own, `reos.store.template_cache`)."""
    if cache is None:
        cache = TemplateCache()
    builtin = builtin_dir()
    files: list[Path] = []
    for directory in [builtin, paths.user_templates_dir(), *(extra_dirs or [])]:
        if directory.is_dir():
            for path in sorted(directory.glob("*.toml")):
                if directory == builtin:
                    _BUILTIN.add(str(path))
                files.append(path)
    # the tables are built by the lexicon's code: a change to it is a change of the set
    stamped = [_LEXICON_CODE, *files]
    kept = cache.read(stamped)
    if kept is not None:
        try:
            found, tables = msgspec.msgpack.decode(kept, type=tuple[TemplateSet, Tables])
        except msgspec.DecodeError:  # written by another version, or damaged: read the files
            pass
        else:
            keep_on(found, Lexicon(found, tables))
            return found
    found = TemplateSet()
    for path in files:
        load_file(path, found)
    _spell_out(found)
    lex = Lexicon(found)
    keep_on(found, lex)
    cache.write(stamped, msgspec.msgpack.encode((found, lex.tables())))
    return found


def _spell_out(found: TemplateSet) -> None:
    """Idioms are matched against the request as it is read, with its contractions spelled
    out ("isn't" is read "is not"): so an idiom's own contractions are spelled out too."""
    table = found.vocabulary.contractions
    for op in found.operations.values():
        if any("'" in idiom for idiom in op.idioms):
            op.idioms = [" ".join(table.get(word, word) for word in idiom.split())
                         for idiom in op.idioms]
