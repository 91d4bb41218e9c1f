"""Layer contracts: which module is in which layer, which layer may import which, and
which code belongs in which layer. Loaded from TOML, checked strictly.

A contract file has these tables (every one optional; see layers.toml at the
repository's root for a full example, reos's own architecture):

    [contract]          name, package (the package it is written for; checking
                        another one is said, not refused).
    [layers]            layer name -> module patterns ("pkg.db" is that module only,
                        "pkg.db.*" everything under it; an exact name beats a pattern,
                        a longer pattern a shorter one). External packages may be layers
                        too ("textual" = ["textual"]).
    [allowed]           layer -> the only layers it may import (its own always allowed).
    [[forbidden]]       importers (layers, or "*" for every module), imported (layers),
                        except (importer layers "*" leaves out), reason.
    [[exception]]       importer, imported (dotted module names), reason: one known
                        import the rules would flag, accepted until it is removed.
    [[layer_appropriate]]  pattern (a regular expression, matched line by line),
                        logic_type, appropriate_layers, inappropriate_layers ("*" is
                        every layer not appropriate), reason, target_file (a glob of
                        files relative to the checked package's parent; all by default).

Layer names may also be the generic layer types (rpc, agent, executor, storage,
service) that docstrings and paths give modules a contract does not place.

A malformed contract raises ContractError (a UsageError: exit 2) naming the file and
what is wrong, with the closest valid name for a misspelt one. Not responsible for
finding modules or judging them (reos.layers.graph, reos.layers.check).
"""

from __future__ import annotations

import difflib
import fnmatch
import re
import tomllib
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from reos.errors import UsageError
from reos.layers.infer import LAYER_TYPES

ANY = "*"
MAX_BYTES = 1_000_000
TOP_KEYS = ("contract", "layers", "allowed", "forbidden", "exception", "layer_appropriate")

# Used when no contract is given for a codebase other than reos: the design notes'
# table of layer responsibilities, as import rules between the generic layer types.
DEFAULT_TOML = '''
[contract]
name = "generic layers (design notes)"

[[forbidden]]
importers = ["storage"]
imported = ["rpc", "agent", "service", "executor"]
reason = "Storage persists and retrieves data; it never handles requests or holds business logic."

[[forbidden]]
importers = ["service"]
imported = ["rpc"]
reason = "A service implements business logic; parsing requests is the rpc layer's."

[[forbidden]]
importers = ["executor"]
imported = ["rpc", "agent"]
reason = "An executor runs planned operations; planning and talking to the user are not its job."
'''


class ContractError(UsageError):
    """The contract file cannot be used as written."""


class Forbidden(Struct, frozen=True):
    importers: tuple[str, ...]
    imported: tuple[str, ...]
    excepted: tuple[str, ...]
    reason: str

    def forbids(self, importer: str | None, imported: str | None) -> bool:
        if imported is None or imported not in self.imported:
            return False
        if ANY in self.importers:
            return importer not in self.excepted
        return importer in self.importers


class Exception_(Struct, frozen=True):
    importer: str
    imported: str
    reason: str


class Criterion(Struct, frozen=True):
    pattern: re.Pattern[str]
    logic_type: str
    appropriate: tuple[str, ...]
    inappropriate: tuple[str, ...]
    reason: str
    target_file: str | None = None

    def misplaced_in(self, layer: str | None) -> bool:
        if layer is None or layer in self.appropriate:
            return False
        return ANY in self.inappropriate or layer in self.inappropriate

    def applies_to(self, relative_file: str) -> bool:
        return self.target_file is None or fnmatch.fnmatch(relative_file, self.target_file)


class Contract(Struct):
    source: str  # the file it came from, or "built-in"
    name: str = ""
    package: str = ""
    layers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    allowed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    forbidden: list[Forbidden] = field(default_factory=list)
    exceptions: list[Exception_] = field(default_factory=list)
    criteria: list[Criterion] = field(default_factory=list)

    def layer_of(self, module: str) -> str | None:
        """The layer the `[layers]` table places `module` in, or None."""
        best: tuple[int, int] | None = None
        found: str | None = None
        for layer, patterns in self.layers.items():
            for pattern in patterns:
                if pattern == module:
                    rank = (1, len(pattern))
                elif any(c in pattern for c in "*?[") and fnmatch.fnmatchcase(module, pattern):
                    rank = (0, len(pattern))
                else:
                    continue
                if best is None or rank > best:
                    best, found = rank, layer
        return found

    def exception_for(self, importer: str, imported: str) -> Exception_ | None:
        for exc in self.exceptions:
            if exc.importer == importer and exc.imported == imported:
                return exc
        return None


class _Reader:
    """Checks one parsed document, naming the key path of anything wrong."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.layer_names: set[str] = set(LAYER_TYPES)

    def fail(self, where: str, what: str, wrong: str = "",
             choices: list[str] | None = None) -> ContractError:
        close = difflib.get_close_matches(wrong, choices or [], n=1) if wrong else []
        hint = f"did you mean '{close[0]}'?" if close else None
        return ContractError(f"{self.source}: {where}: {what}", hint)

    def table(self, data: Any, where: str) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise self.fail(where, f"must be a table, not {type(data).__name__}")
        return data

    def text(self, data: Any, where: str, *, required: bool = True) -> str:
        if data is None and not required:
            return ""
        if not isinstance(data, str) or not data.strip():
            raise self.fail(where, "must be a non-empty string")
        return data.strip()

    def names(self, data: Any, where: str, *, layers: bool = True,
              star: bool = False) -> tuple[str, ...]:
        if not isinstance(data, list) or not all(isinstance(x, str) and x for x in data):
            raise self.fail(where, "must be a list of non-empty strings")
        if layers:
            valid = sorted(self.layer_names) + ([ANY] if star else [])
            for name in data:
                if name not in valid:
                    raise self.fail(where, f"unknown layer '{name}'", name, valid)
        return tuple(data)

    def keys(self, data: dict[str, Any], where: str, known: tuple[str, ...],
             required: tuple[str, ...] = ()) -> None:
        for key in data:
            if key not in known:
                raise self.fail(where, f"unknown key '{key}'", key, list(known))
        for key in required:
            if key not in data:
                raise self.fail(where, f"missing key '{key}'")

    def entries(self, data: Any, where: str) -> list[dict[str, Any]]:
        if not isinstance(data, list):
            raise self.fail(where, f"must be an array of tables ([[{where}]])")
        return [self.table(item, f"{where}[{i + 1}]") for i, item in enumerate(data)]

    def contract(self, doc: dict[str, Any]) -> Contract:
        self.keys(doc, "top level", TOP_KEYS)
        result = Contract(source=self.source)
        head = self.table(doc.get("contract", {}), "contract")
        self.keys(head, "contract", ("name", "package"))
        result.name = self.text(head.get("name"), "contract.name", required=False)
        result.package = self.text(head.get("package"), "contract.package", required=False)
        for layer, patterns in self.table(doc.get("layers", {}), "layers").items():
            result.layers[layer] = self.names(patterns, f"layers.{layer}", layers=False)
        self.layer_names |= set(result.layers)
        for layer, others in self.table(doc.get("allowed", {}), "allowed").items():
            if layer not in self.layer_names:
                raise self.fail("allowed", f"unknown layer '{layer}'", layer,
                                sorted(self.layer_names))
            result.allowed[layer] = self.names(others, f"allowed.{layer}")
        for i, rule in enumerate(self.entries(doc.get("forbidden", []), "forbidden")):
            where = f"forbidden[{i + 1}]"
            self.keys(rule, where, ("importers", "imported", "except", "reason"),
                      ("importers", "imported", "reason"))
            result.forbidden.append(Forbidden(
                self.names(rule["importers"], f"{where}.importers", star=True),
                self.names(rule["imported"], f"{where}.imported"),
                self.names(rule.get("except", []), f"{where}.except"),
                self.text(rule["reason"], f"{where}.reason")))
        for i, exc in enumerate(self.entries(doc.get("exception", []), "exception")):
            where = f"exception[{i + 1}]"
            self.keys(exc, where, ("importer", "imported", "reason"),
                      ("importer", "imported", "reason"))
            result.exceptions.append(Exception_(
                self.text(exc["importer"], f"{where}.importer"),
                self.text(exc["imported"], f"{where}.imported"),
                self.text(exc["reason"], f"{where}.reason")))
        criteria = self.entries(doc.get("layer_appropriate", []), "layer_appropriate")
        for i, crit in enumerate(criteria):
            result.criteria.append(self.criterion(crit, f"layer_appropriate[{i + 1}]"))
        return result

    def criterion(self, crit: dict[str, Any], where: str) -> Criterion:
        self.keys(crit, where, ("pattern", "logic_type", "appropriate_layers",
                                "inappropriate_layers", "reason", "target_file", "type"),
                  ("pattern", "logic_type", "reason"))
        if crit.get("type", "layer_appropriate") != "layer_appropriate":
            raise self.fail(f"{where}.type", "must be \"layer_appropriate\" when given")
        raw = self.text(crit["pattern"], f"{where}.pattern")
        try:
            pattern = re.compile(raw)
        except re.error as exc:
            raise self.fail(f"{where}.pattern", f"not a regular expression ({exc})") from None
        appropriate = self.names(crit.get("appropriate_layers", []),
                                 f"{where}.appropriate_layers")
        inappropriate = self.names(crit.get("inappropriate_layers", []),
                                   f"{where}.inappropriate_layers", star=True)
        if not inappropriate:
            raise self.fail(where, "needs inappropriate_layers (a list of layers, or [\"*\"])")
        return Criterion(pattern, self.text(crit["logic_type"], f"{where}.logic_type"),
                         appropriate, inappropriate, self.text(crit["reason"], f"{where}.reason"),
                         self.text(crit.get("target_file"), f"{where}.target_file",
                                   required=False) or None)


def parse(text: str, source: str) -> Contract:
    """A contract from TOML text; `source` names it in errors."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ContractError(f"{source}: not valid TOML ({exc})",
                            "fix the line named, or see layers.toml for the format") from None
    return _Reader(source).contract(doc)


def load(path: Path) -> Contract:
    """The contract in `path`; ContractError when it is missing, unreadable or malformed."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ContractError(f"{path}: larger than {MAX_BYTES} bytes; not a contract")
        raw = path.read_bytes()
    except OSError as exc:
        raise ContractError(f"{path}: cannot read the contract ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ContractError(f"{path}: not UTF-8 text; not a contract") from None
    return parse(text, str(path))


def default() -> Contract:
    """The built-in generic contract (the design notes' layer table)."""
    return parse(DEFAULT_TOML, "built-in contract")
