"""The verdicts of `reos layers`: each module's layer (and where that came from), every
import a contract forbids, every line of code placed in a layer it does not belong in.

A module's layer comes from the contract's `[layers]` table (source "contract"), else
its docstring (source "docstring"), else its path (source "inferred"); a module none of
them places has no layer and breaks no layer rule, except rules for every module ("*").
An import is checked against `[[forbidden]]` first, then `[allowed]`; one the contract
lists as a known `[[exception]]` is reported apart and does not fail the check.

Not responsible for building the import graph (reos.layers.graph), reading the contract
(reos.layers.contract) or printing (reos.commands.layers). A file that cannot be read is
a reported problem, never a crash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from msgspec import Struct, field

from reos.layers import docstrings
from reos.layers.contract import Contract, Exception_
from reos.layers.graph import CodeBase, Import
from reos.layers.infer import layer_from_path

SCHEMA = "reos.layers/1"
MAX_FILE_BYTES = 2_000_000
UNPLACED = "unplaced"  # how a module with no layer is named in a report


class ModuleReport(Struct):
    module: str
    file: str
    layer: str | None
    source: str | None  # "contract", "docstring", "inferred", or None
    responsibilities: list[str] = field(default_factory=list)
    not_responsible_for: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"module": self.module, "file": self.file, "layer": self.layer,
                "source": self.source, "responsibilities": self.responsibilities,
                "not_responsible_for": self.not_responsible_for}


class Violation(Struct):
    kind: str  # "import" or "placement"
    file: str
    line: int
    layer: str  # the importer's layer, or the layer the code was found in
    reason: str
    imported_layer: str = ""  # imports only
    importer: str = ""
    imported: str = ""
    logic_type: str = ""  # placements only
    code: str = ""  # the offending line

    def describe(self) -> str:
        reason = self.reason if self.reason.endswith((".", "!", "?")) else self.reason + "."
        if self.kind == "placement":
            return (f"VIOLATION: {self.logic_type} placed in {self.layer} layer "
                    f"({self.file}:{self.line}). {reason}")
        return (f"VIOLATION: {self.layer} imports {self.imported_layer} "
                f"({self.file}:{self.line}): {reason}")

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "file": self.file, "line": self.line,
                                "layer": self.layer, "reason": self.reason,
                                "code": self.code, "message": self.describe()}
        if self.kind == "import":
            data.update(imported_layer=self.imported_layer, importer=self.importer,
                        imported=self.imported)
        else:
            data["logic_type"] = self.logic_type
        return data


class Report(Struct):
    package: str
    contract: str
    modules: list[ModuleReport] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    excepted: list[tuple[Violation, Exception_]] = field(default_factory=list)
    stale_exceptions: list[Exception_] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA, "package": self.package, "contract": self.contract,
            "ok": self.clean,
            "modules": [m.to_dict() for m in self.modules],
            "violations": [v.to_dict() for v in self.violations],
            "known_exceptions": [
                {**v.to_dict(), "exception_reason": e.reason} for v, e in self.excepted],
            "stale_exceptions": [{"importer": e.importer, "imported": e.imported,
                                  "reason": e.reason} for e in self.stale_exceptions],
            "problems": self.problems,
        }


def verify(base: CodeBase, contract: Contract) -> Report:
    report = Report(package=base.package, contract=contract.source)
    sources: dict[str, list[str]] = {}
    for module, file in base.files.items():
        lines = _read(base, file, report)
        sources[module] = lines
        report.modules.append(_place(base, module, file, lines, contract, report))
    layers = {m.module: m.layer for m in report.modules}
    used: set[int] = set()
    for imp in base.imports:
        violation = _import_violation(base, imp, layers, contract)
        if violation is None:
            continue
        exc = contract.exception_for(imp.importer, imp.imported)
        if exc is None:
            report.violations.append(violation)
        else:
            report.excepted.append((violation, exc))
            used.add(id(exc))
    report.stale_exceptions = [e for e in contract.exceptions if id(e) not in used]
    for placed in report.modules:
        for criterion in contract.criteria:
            if not criterion.applies_to(placed.file) or not criterion.misplaced_in(placed.layer):
                continue
            for number, line in enumerate(sources[placed.module], start=1):
                if criterion.pattern.search(line):
                    report.violations.append(Violation(
                        "placement", placed.file, number, placed.layer or UNPLACED,
                        criterion.reason, logic_type=criterion.logic_type,
                        code=line.strip()[:200]))
    report.violations.sort(key=lambda v: (v.file, v.line, v.kind))
    return report


def _read(base: CodeBase, file: Path, report: Report) -> list[str]:
    shown = base.relative(file)
    try:
        if file.stat().st_size > MAX_FILE_BYTES:
            report.problems.append(f"{shown}: larger than {MAX_FILE_BYTES} bytes; not read")
            return []
        return file.read_bytes().decode("utf-8").splitlines()
    except OSError as exc:
        report.problems.append(f"{shown}: cannot be read ({exc.strerror or exc})")
    except UnicodeDecodeError:
        report.problems.append(f"{shown}: not UTF-8 text; not read")
    return []


def _place(base: CodeBase, module: str, file: Path, lines: list[str], contract: Contract,
           report: Report) -> ModuleReport:
    shown = base.relative(file)
    doc = docstrings.ModuleDoc()
    if lines:
        try:
            doc = docstrings.read(docstrings.docstring_of("\n".join(lines), shown))
        except (SyntaxError, ValueError) as exc:
            report.problems.append(f"{shown}: docstring not read ({exc})")
    placed = ModuleReport(module, shown, None, None, doc.responsibilities,
                          doc.not_responsible_for)
    by_contract = contract.layer_of(module)
    inferred = layer_from_path(module)
    if by_contract:
        placed.layer, placed.source = by_contract, "contract"
    elif doc.layer:
        placed.layer, placed.source = doc.layer, "docstring"
    elif inferred:
        placed.layer, placed.source = inferred, "inferred"
    return placed


def _import_violation(base: CodeBase, imp: Import, layers: dict[str, str | None],
                      contract: Contract) -> Violation | None:
    importer = layers.get(imp.importer)
    imported = layers[imp.imported] if imp.imported in layers else \
        contract.layer_of(imp.imported)
    if imported is None or importer == imported:
        return None
    reason = next((rule.reason for rule in contract.forbidden
                   if rule.forbids(importer, imported)), None)
    if reason is None and importer in contract.allowed \
            and imported not in contract.allowed[importer]:
        allowed = ", ".join(contract.allowed[importer]) or "no other layer"
        reason = f"{importer} may import only {allowed} (contract [allowed])"
    if reason is None:
        return None
    return Violation("import", base.relative(base.files[imp.importer]), imp.line,
                     importer or UNPLACED, reason, imported_layer=imported,
                     importer=imp.importer, imported=imp.imported, code=imp.text.strip()[:200])
