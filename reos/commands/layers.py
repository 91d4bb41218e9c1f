"""`reos layers [PATH] [--contract FILE] [--json]`: layer placement verification.

PATH is a Python package's folder (default: reos itself). The contract is FILE, else,
for reos, its own architecture table (`layers.toml` at the repository's root, shipped in
the wheel as `reos/layers/reos.toml`), else a `layers.toml` beside the package's folder,
else the built-in generic contract of the design notes. Exit 0 when every file was read
and nothing is violated, 1 with violations (or unreadable files), 2 for a bad PATH or a
malformed contract.

Not responsible for the verdicts (reos.layers.check) or for anything on this machine:
it reads source files and runs nothing. reos.layers and grimp are imported here, never
on the path of `reos plan`.
"""

from __future__ import annotations

from pathlib import Path

from reos.commands.output import emit_json, note, say
from reos.errors import EXIT_FAILED, EXIT_OK


def reos_folder() -> Path:
    import reos

    return Path(reos.__file__).resolve().parent


def reos_contract() -> Path | None:
    """reos's own contract: in the wheel, else at the root of the source checkout."""
    folder = reos_folder()
    for candidate in (folder / "layers" / "reos.toml", folder.parent / "layers.toml"):
        if candidate.is_file():
            return candidate
    return None


def choose_contract(folder: Path, given: Path | None):  # noqa: ANN201 - a Contract
    from reos.layers import contract as contracts

    if given is not None:
        return contracts.load(given)
    if folder == reos_folder():
        own = reos_contract()
        if own is None:
            from reos.errors import UsageError

            raise UsageError("reos's own layer contract (layers.toml) is not installed",
                             "pass one with --contract FILE")
        return contracts.load(own)
    beside = folder.parent / "layers.toml"
    return contracts.load(beside) if beside.is_file() else contracts.default()


def run(path: Path | None = None, contract: Path | None = None, *,
        as_json: bool = False) -> int:
    from reos.layers import check, graph

    folder = graph.package_folder(path if path is not None else reos_folder())
    rules = choose_contract(folder, contract)
    base = graph.build(folder)
    report = check.verify(base, rules)
    failed = bool(report.violations or report.problems)
    if rules.package and rules.package != report.package:
        note(f"note: {report.contract} is written for {rules.package}, not {report.package}")
    if as_json:
        emit_json(report.to_dict())
        return EXIT_FAILED if failed else EXIT_OK
    layers = {m.layer for m in report.modules if m.layer}
    say(f"{report.package}: {len(report.modules)} modules in {len(layers)} layers, "
        f"checked against {report.contract}")
    for violation in report.violations:
        say(violation.describe())
    for violation, exc in report.excepted:
        note(f"known exception: {violation.layer} imports {violation.imported_layer} "
             f"({violation.file}:{violation.line}): {exc.reason}")
    for exc in report.stale_exceptions:
        note(f"stale exception: {exc.importer} no longer imports {exc.imported}; "
             "remove it from the contract")
    for problem in report.problems:
        note(f"problem: {problem}")
    if not failed:
        say("OK: every module is in its place.")
    else:
        counts = [f"{len(report.violations)} violation(s)"] if report.violations else []
        counts += [f"{len(report.problems)} file(s) not read"] if report.problems else []
        say("FAILED: " + ", ".join(counts) + ".")
    return EXIT_FAILED if failed else EXIT_OK
