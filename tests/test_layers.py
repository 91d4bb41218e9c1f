"""`reos layers`: layers from contracts, docstrings and paths; forbidden imports and
misplaced code caught with file and line; reos itself passes its own contract; bad
paths and malformed contracts are exit 2 with a message, never a traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reos.cli import main
from reos.layers import contract as contracts
from reos.layers import docstrings
from reos.layers import graph as graphs
from reos.layers.infer import layer_from_path
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
BROKEN = FIXTURES / "layers" / "broken"
CLEAN = FIXTURES / "layers" / "clean"


def line_of(file: Path, text: str) -> int:
    return next(n for n, line in enumerate(file.read_text().splitlines(), 1) if text in line)


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["layers", *args])
    out, err = capsys.readouterr()
    return code, out, err


# -- reos itself ------------------------------------------------------------------------------

def test_reos_passes_its_own_contract_in_a_subprocess(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "reos", "layers"], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "checked against " + str(ROOT / "layers.toml") in done.stdout
    assert "OK: every module is in its place." in done.stdout
    assert "Traceback" not in done.stderr


def test_reos_modules_are_placed_by_the_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--json"], capsys)
    report = json.loads(out)
    assert code == 0 and report["schema"] == "reos.layers/1" and report["ok"] is True
    placed = {m["module"]: m for m in report["modules"]}
    assert placed["reos.llm.client"]["layer"] == "llm_client"
    assert placed["reos.llm.understander"]["layer"] == "llm"
    assert placed["reos.model.events"]["layer"] == "model"
    assert placed["reos.safety.risk"]["source"] == "contract"
    # reos's docstrings are read too: reos/text.py says what it is not responsible for
    assert any("deciding what is trusted" in s
               for s in placed["reos.text"]["not_responsible_for"])


def test_a_misplaced_import_in_a_copy_of_reos_is_caught(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "reos"
    shutil.copytree(ROOT / "reos", copy, ignore=shutil.ignore_patterns("__pycache__"))
    risk = copy / "safety" / "risk.py"
    risk.write_text(risk.read_text() + "\nfrom reos.engine import ReasoningEngine  # noqa\n")
    line = len(risk.read_text().splitlines())
    code, out, _ = run_cli([str(copy), "--contract", str(ROOT / "layers.toml")], capsys)
    assert code == 1
    assert f"VIOLATION: safety imports engine (reos/safety/risk.py:{line}): " in out


def test_a_contract_for_another_package_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([str(CLEAN / "shop"), "--contract", str(ROOT / "layers.toml")],
                           capsys)
    assert "layers.toml is written for reos, not shop" in err
    assert code == 0  # the shop has none of reos's layers, so none of its rules apply


# -- no import cycles -------------------------------------------------------------------------

def import_cycles(base: graphs.CodeBase) -> list[list[str]]:
    """The strongly connected groups of more than one module of `base` (Tarjan), each
    sorted: modules that import one another, directly or round a loop. Every import
    counts, one inside a function or under `if TYPE_CHECKING:` too."""
    imports: dict[str, set[str]] = {m: set() for m in base.files}
    for found in base.imports:
        if found.imported in imports:
            imports[found.importer].add(found.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(imports[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = [stack.pop()]
            while group[-1] != module:
                group.append(stack.pop())
            if len(group) > 1:
                groups.append(sorted(group))

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return sorted(groups)


def test_no_reos_modules_import_one_another_in_a_cycle() -> None:
    """A lower module never knows a higher one: each cycle reos had was broken at its seam
    (a shared piece moved down, a Protocol for what the lower module uses), and none may
    come back, not even through an import made only for type checking."""
    base = graphs.build(ROOT / "reos")
    cycles = import_cycles(base)
    said = [f"{' <-> '.join(group)}: " + "; ".join(
        f"{i.importer} imports {i.imported} ({base.relative(base.files[i.importer])}:"
        f"{i.line})" for i in base.imports if i.importer in group and i.imported in group)
        for group in cycles]
    assert not cycles, "\n".join(said)


def test_an_import_cycle_is_found_even_through_type_checking(tmp_path: Path) -> None:
    package = make_package(tmp_path, {
        "low.py": b"from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                  b"    from pkg.high import High\n",
        "high.py": b"from pkg import low\nclass High: ...\n",
        "alone.py": b"from pkg import low\n"})
    assert import_cycles(graphs.build(package)) == [["pkg.high", "pkg.low"]]


# -- the fixture codebase ---------------------------------------------------------------------

def test_fixture_violations_are_each_caught_with_file_and_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    rpc_line = line_of(BROKEN / "shop" / "rpc_server.py", "def _check_repo_prerequisite")
    db_line = line_of(BROKEN / "shop" / "storage" / "db.py", "from shop import rpc_server")
    code, out, _ = run_cli([str(BROKEN / "shop")], capsys)
    assert code == 1
    violations = [line for line in out.splitlines() if line.startswith("VIOLATION")]
    assert violations == [
        f"VIOLATION: business_logic placed in rpc layer (shop/rpc_server.py:{rpc_line}). "
        "Business logic should not be in RPC layer.",
        f"VIOLATION: storage imports rpc (shop/storage/db.py:{db_line}): "
        "storage persists data; it never handles requests.",
    ]


def test_the_clean_twin_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([str(CLEAN / "shop")], capsys)
    assert code == 0
    assert "VIOLATION" not in out and "OK" in out


def test_json_names_each_module_layer_source_and_responsibilities(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([str(BROKEN / "shop"), "--json"], capsys)
    report = json.loads(out)
    assert code == 1 and report["schema"] == "reos.layers/1" and report["ok"] is False
    placed = {m["module"]: m for m in report["modules"]}
    assert (placed["shop.rpc_server"]["layer"], placed["shop.rpc_server"]["source"]) == \
        ("rpc", "docstring")
    assert (placed["shop.storage.db"]["layer"], placed["shop.storage.db"]["source"]) == \
        ("storage", "inferred")
    assert (placed["shop.agent"]["layer"], placed["shop.agent"]["source"]) == \
        ("agent", "inferred")  # "decides which service answers" names no layer of its own
    service = placed["shop.auth_service"]
    assert (service["layer"], service["source"]) == ("service", "docstring")
    assert service["responsibilities"] == ["User login/logout", "Session management",
                                           "Token validation"]
    assert service["not_responsible_for"] == [
        "HTTP request parsing (that's the RPC layer)",
        "Database queries (that's the auth repository)"]
    kinds = {(v["kind"], v["file"]) for v in report["violations"]}
    assert kinds == {("placement", "shop/rpc_server.py"), ("import", "shop/storage/db.py")}
    imported = next(v for v in report["violations"] if v["kind"] == "import")
    assert (imported["importer"], imported["imported"]) == ("shop.storage.db",
                                                            "shop.rpc_server")


def test_without_a_contract_the_design_notes_rules_still_catch_the_import(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(BROKEN / "shop", tmp_path / "shop")  # no layers.toml beside it
    code, out, _ = run_cli([str(tmp_path / "shop")], capsys)
    assert code == 1
    assert "checked against built-in contract" in out
    assert "VIOLATION: storage imports rpc (shop/storage/db.py:" in out
    assert "placed in" not in out  # placement criteria come only from a contract


def test_a_known_exception_passes_and_a_stale_one_is_said(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    excused = tmp_path / "excused.toml"
    excused.write_text((BROKEN / "layers.toml").read_text() + """
[[exception]]
importer = "shop.storage.db"
imported = "shop.rpc_server"
reason = "being moved"

[[exception]]
importer = "shop.agent"
imported = "shop.storage.db"
reason = "long gone"
""")
    code, out, err = run_cli([str(BROKEN / "shop"), "--contract", str(excused)], capsys)
    assert "storage imports rpc" not in out
    assert "known exception: storage imports rpc (shop/storage/db.py:" in err
    assert "stale exception: shop.agent no longer imports shop.storage.db" in err
    assert code == 1  # the misplaced business logic is still there


def test_a_contract_layer_wins_over_docstring_and_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    placing = tmp_path / "placing.toml"
    placing.write_text('[layers]\nservice = ["shop.rpc_server"]\n'
                       + (BROKEN / "layers.toml").read_text().split("[contract]")[0])
    code, out, _ = run_cli([str(BROKEN / "shop"), "--contract", str(placing), "--json"], capsys)
    placed = {m["module"]: m for m in json.loads(out)["modules"]}
    assert (placed["shop.rpc_server"]["layer"], placed["shop.rpc_server"]["source"]) == \
        ("service", "contract")
    assert code == 0  # storage -> rpc no longer applies: rpc_server is a service here


# -- malformed contracts, bad paths -----------------------------------------------------------

@pytest.mark.parametrize(("text", "message"), [
    ("[[forbidden]\nimporters = 1", "not valid TOML"),
    ('[[forbidden]]\nimporters = ["storag"]\nimported = ["rpc"]\nreason = "x"',
     "forbidden[1].importers: unknown layer 'storag'"),
    ('[[forbidden]]\nimporters = ["storage"]\nimported = ["rpc"]',
     "forbidden[1]: missing key 'reason'"),
    ('[[layer_appropriate]]\npattern = "def ("\nlogic_type = "x"\n'
     'inappropriate_layers = ["rpc"]\nreason = "r"',
     "layer_appropriate[1].pattern: not a regular expression"),
    ('[[layer_appropriate]]\npattern = "x"\nlogic_type = "x"\nreason = "r"',
     "layer_appropriate[1]: needs inappropriate_layers"),
    ('[layers]\nrpc = "shop.rpc_server"', "layers.rpc: must be a list of non-empty strings"),
    ('[alowed]\nrpc = []', "top level: unknown key 'alowed'"),
])
def test_a_malformed_contract_is_exit_2_naming_file_and_fault(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    code, out, err = run_cli([str(BROKEN / "shop"), "--contract", str(bad)], capsys)
    assert code == 2
    assert f"reos: {bad}: " in err and message in err
    assert "Traceback" not in err and out == ""


def test_a_misspelt_name_gets_the_closest_one(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[alowed]\nrpc = []')
    _, _, err = run_cli([str(BROKEN / "shop"), "--contract", str(bad)], capsys)
    assert "did you mean 'allowed'?" in err


def test_a_missing_contract_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli([str(BROKEN / "shop"), "--contract", str(tmp_path / "no.toml")],
                           capsys)
    assert code == 2 and "cannot read the contract" in err


def make_package(root: Path, files: dict[str, bytes]) -> Path:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text('"""A package."""\n')
    for name, content in files.items():
        (package / name).write_bytes(content)
    return package


@pytest.mark.parametrize(("files", "message"), [
    ({"broken.py": b"def f(:\n"}, "broken.py: syntax error on line 1"),
    ({"latin.py": b'x = "\xff\xfe"\n'}, "a file is not UTF-8 text"),
])
def test_an_unreadable_source_file_is_exit_2_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], files: dict[str, bytes],
        message: str) -> None:
    code, _, err = run_cli([str(make_package(tmp_path, files))], capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_a_dangling_module_file_is_exit_2(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    package = make_package(tmp_path, {})
    (package / "gone.py").symlink_to(tmp_path / "nowhere")
    code, _, err = run_cli([str(package)], capsys)
    assert code == 2 and "gone.py: cannot be read" in err


def test_paths_that_are_not_packages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain").mkdir()
    make_package(tmp_path / "plain", {})
    code, _, err = run_cli([str(tmp_path / "plain")], capsys)
    assert code == 2 and "not a Python package (no __init__.py)" in err
    assert "packages inside it: pkg" in err
    code, _, err = run_cli([str(BROKEN / "shop" / "agent.py")], capsys)
    assert code == 2 and "a file, not a package" in err
    code, _, err = run_cli([str(tmp_path / "absent")], capsys)
    assert code == 2 and "no such file or folder" in err


def test_a_package_named_like_a_loaded_one_is_read_from_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A codebase called `reos` is checked, not the reos that is running; sys.path and
    sys.modules are as they were afterwards."""
    other = tmp_path / "reos"
    other.mkdir()
    (other / "__init__.py").write_text("")
    (other / "rpc_handler.py").write_text("from reos import db_storage\n")
    (other / "db_storage.py").write_text("from reos import rpc_handler\n")
    path_before, loaded = list(sys.path), sys.modules["reos"]
    code, out, _ = run_cli([str(other), "--json"], capsys)
    assert sys.path == path_before and sys.modules["reos"] is loaded
    report = json.loads(out)
    assert sorted(m["module"] for m in report["modules"]) == [
        "reos", "reos.db_storage", "reos.rpc_handler"]
    assert code == 1
    assert [v["message"] for v in report["violations"]][0].startswith(
        "VIOLATION: storage imports rpc (reos/db_storage.py:1): ")


# -- the pieces -------------------------------------------------------------------------------

def test_docstrings_of_the_design_notes() -> None:
    rpc = docstrings.read('UI RPC server for the ReOS desktop app.\n\nThis is intentionally '
                          "*not* MCP; it's a UI-facing RPC layer.\n\nDesign goals:\n"
                          "- Local-only (stdio; no network listener).\n")
    assert rpc.layer == "rpc"
    assert rpc.not_responsible_for == ["This is intentionally not MCP"]
    assert rpc.responsibilities == ["Local-only (stdio; no network listener)."]
    reos_style = docstrings.read("Checks things.\n\nNot responsible for judging (that is "
                                 "`reos.safety.risk`) or for running anything.")
    assert reos_style.layer is None
    assert reos_style.not_responsible_for == [
        "judging (that is reos.safety.risk) or for running anything"]
    assert reos_style.responsibilities == ["Checks things"]
    assert docstrings.read("Hands plans to the executor layer.").layer is None
    assert docstrings.read("Small helpers; part of the storage layer.").layer == "storage"


@pytest.mark.parametrize(("module", "layer"), [
    ("shop.rpc", "rpc"), ("shop.api.server", "rpc"), ("shop.handlers.orders", "rpc"),
    ("shop.agent", "agent"), ("shop.jobs.runner", "executor"), ("shop.executor", "executor"),
    ("shop.db", "storage"), ("shop.storage.models", "storage"), ("shop.storage.rpc_client", "rpc"),
    ("shop.billing_service", "service"), ("shop.models", None), ("shop.dbus_glue", None),
])
def test_layers_from_paths(module: str, layer: str | None) -> None:
    assert layer_from_path(module) == layer


def test_the_most_specific_contract_pattern_wins() -> None:
    rules = contracts.parse('[layers]\nexecution = ["app.execution", "app.execution.*"]\n'
                            'events = ["app.execution.events"]\nall = ["app.*"]\n', "t.toml")
    assert rules.layer_of("app.execution.events") == "events"
    assert rules.layer_of("app.execution.runner") == "execution"
    assert rules.layer_of("app.execution") == "execution"
    assert rules.layer_of("app.model") == "all"
    assert rules.layer_of("other") is None


def test_the_plan_path_never_loads_grimp_or_the_layer_checker(tmp_path: Path) -> None:
    from tests.test_import_hygiene import loaded_after

    code = (
        "import os, io, contextlib\n"
        f"os.environ['REOS_HOME'] = {str(tmp_path)!r}\n"
        "from reos.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['plan', '--json', '--context', {str(FIXTURES / 'homelab.json')!r},"
        " 'restart portainer'])\n"
    )
    modules = loaded_after(code)
    assert "reos.commands.plan" in modules  # the plan really ran
    assert not {m for m in modules if m == "grimp" or m.startswith(("grimp.", "reos.layers"))}
