"""Code health that behaviour tests do not see (issue 12, item 7).

- `sudo -n` is spelled in one place, `reos/system/privilege.py`: no other module of reos
  builds `["sudo", "-n", ...]` by hand (the `sudo -n true` probes of `reos doctor` and
  `reos plan` are a different thing: they ask sudo, they run nothing as root).
- Exit codes are an `IntEnum` whose values are the ones man/reos.1 documents.
- The catalogue's cache is read and written by the store layer
  (`reos.store.template_cache`), and `reos.catalogue.templates` writes nothing itself.
- Dead code stays gone, and what old catalogue files still say is answered clearly.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import msgspec
import pytest

from reos import errors, paths
from reos.catalogue import templates
from reos.catalogue.lexicon import Tables, lexicon
from reos.errors import ExitCode
from reos.store.template_cache import VERSION, TemplateCache, stamp
from reos.system.privilege import SUDO, as_root, strip_sudo, through_sudo

ROOT = Path(__file__).resolve().parent.parent
REOS = ROOT / "reos"

OPERATION = """\
[[operation]]
id = "{id}"
kind = "query"
summary = "probe the box"
verbs = ["{verb}"]
target = "none"
risk = "safe"
"""


def _user_template(text: str) -> Path:
    folder = paths.user_templates_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return path


# -- one helper for sudo ---------------------------------------------------------------------
PRIVILEGE = "reos/system/privilege.py"
# `sudo -n true`: asking whether sudo works without a password, not running anything as root
PROBES = {"reos/commands/doctor.py", "reos/commands/plan.py"}
# Files allowed to spell it out still: none (an entry that no longer does fails the test).
ALLOWED: dict[str, str] = {}


def _sudo_spelled_out(tree: ast.AST) -> list[tuple[int, tuple[object, ...]]]:
    """Each list, tuple or set literal holding "sudo" then "-n", with its line and words."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            words = tuple(e.value if isinstance(e, ast.Constant) else None for e in node.elts)
            if any(words[i:i + 2] == SUDO for i in range(len(words) - 1)):
                found.append((node.lineno, words))
    return sorted(found, key=lambda spot: spot[0])


def _spelled_out_in_reos() -> dict[str, list[int]]:
    spots: dict[str, list[int]] = {}
    for path in sorted(REOS.rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name == PRIVILEGE:
            continue
        for line, words in _sudo_spelled_out(ast.parse(path.read_text(encoding="utf-8"))):
            if name in PROBES and words == (*SUDO, "true"):
                continue
            spots.setdefault(name, []).append(line)
    return spots


def test_sudo_n_is_spelled_out_nowhere_but_the_privilege_module() -> None:
    spots = _spelled_out_in_reos()
    new = {name: lines for name, lines in spots.items() if name not in ALLOWED}
    assert new == {}, ("build these with reos.system.privilege (as_root, strip_sudo, "
                       f"through_sudo) instead of spelling out sudo -n: {new}")
    stale = sorted(set(ALLOWED) - set(spots))
    assert stale == [], f"these no longer spell out sudo -n: remove them from ALLOWED: {stale}"


def test_the_scan_finds_each_way_of_spelling_it_and_not_the_probe() -> None:
    code = """
argv = ["sudo", "-n", *argv]
if argv[:2] == ["sudo", "-n"]: pass
skip = ("sudo", "-n", "doas")
probe = ["sudo", "-n", "true"]
fine = ["sudo", "-v"], ["nice", "-n", "10"], "sudo -n"
"""
    assert [line for line, _ in _sudo_spelled_out(ast.parse(code))] == [2, 3, 4, 5]
    assert {PRIVILEGE, *PROBES} <= {p.relative_to(ROOT).as_posix() for p in REOS.rglob("*.py")}


def test_as_root_adds_sudo_n_unless_root_and_strip_sudo_takes_it_off() -> None:
    argv = ["apt-get", "install", "-y", "htop"]
    assert as_root(argv, is_root=False) == ["sudo", "-n", *argv]
    assert as_root(argv, is_root=True) == argv and as_root(argv, True) is not argv
    assert through_sudo(as_root(argv, False)) and not through_sudo(argv)
    assert strip_sudo(as_root(argv, False)) == argv and strip_sudo(argv) == argv
    # only the prefix reos adds: sudo with other options is a command of its own
    assert strip_sudo(["sudo", "-u", "bob", "id"]) == ["sudo", "-u", "bob", "id"]
    assert not through_sudo(["sudo"]) and strip_sudo([]) == []


# -- exit codes -------------------------------------------------------------------------------
DOCUMENTED = {0: "OK", 1: "FAILED", 2: "USAGE", 3: "BLOCKED", 4: "NOTHING", 5: "DECLINED"}


def _man_exit_codes() -> set[int]:
    text = (ROOT / "man" / "reos.1").read_text(encoding="utf-8")
    section = text.split(".SH EXIT STATUS", 1)[1].split("\n.SH ", 1)[0]
    return {int(line.split()[1]) for line in section.splitlines()
            if line.startswith(".B ") and line.split()[1].isdigit()}


def test_exit_codes_are_an_int_enum_with_the_documented_values() -> None:
    assert issubclass(ExitCode, int) and {c.value: c.name for c in ExitCode} == DOCUMENTED
    assert _man_exit_codes() == set(DOCUMENTED)
    for value, name in DOCUMENTED.items():
        assert getattr(errors, f"EXIT_{name}") is ExitCode[name]  # the spelling importers use
        # what a surface prints is the number, as before
        assert (str(ExitCode[name]), f"{ExitCode[name]}", json.dumps(ExitCode[name])) == (
            str(value),) * 3
    assert errors.ReosError("x").exit_code is ExitCode.FAILED
    assert errors.SettingsError("x").exit_code is ExitCode.USAGE
    assert errors.UsageError("x", exit_code=ExitCode.BLOCKED).exit_code is ExitCode.BLOCKED


def test_every_exit_code_the_readme_names_is_a_documented_one() -> None:
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    named = {int(n) for n in re.findall(r"\bexit (?:code |status )?(\d+)", readme)}
    assert named and named <= set(DOCUMENTED)


@pytest.mark.parametrize("args,code", [
    (["check", "curl https://x.sh | sh"], ExitCode.BLOCKED),  # a command's outcome
    (["undo"], ExitCode.NOTHING),
    (["plan"], ExitCode.USAGE),  # the parser's
])
def test_main_returns_the_code_as_an_int_sys_exit_takes(args: list[str], code: ExitCode,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    from reos.cli import main

    returned = main(args)
    assert returned == code.value and isinstance(returned, int)
    with pytest.raises(SystemExit) as stopped:
        raise SystemExit(returned)
    assert stopped.value.code == code.value


# -- the template cache, written by the store layer --------------------------------------
KEPT = tuple[templates.TemplateSet, Tables]  # what the catalogue hands the cache


def _envelope(cache: TemplateCache) -> list:
    return msgspec.msgpack.decode(cache.path.read_bytes())


def test_loading_the_catalogue_writes_the_cache_where_the_store_says() -> None:
    cache = TemplateCache()
    assert cache.path == paths.data_dir() / "cache" / "templates.msgpack"
    assert not cache.path.exists()
    loaded = templates.load()
    version, files, payload = _envelope(cache)
    assert version == VERSION
    assert [row[0] for row in files] == sorted(row[0] for row in files) and files
    kept, tables = msgspec.msgpack.decode(payload, type=KEPT)
    assert kept == loaded
    assert tables.phrases == lexicon(loaded).phrases  # the lexicon is kept with the set
    assert not loaded.problems
    assert not list(cache.path.parent.glob("*.tmp"))  # the write is atomic


def test_a_cache_object_passed_in_is_the_one_read_and_written(tmp_path: Path) -> None:
    _user_template(OPERATION.format(id="mine.probe", verb="probe"))
    cache = TemplateCache(tmp_path / "elsewhere.msgpack")
    assert "mine.probe" in templates.load(cache=cache).operations
    assert cache.path.is_file() and not TemplateCache().path.exists()
    # while no file changes, the next load takes the set from the cache, not the TOML:
    # an id changed in the cache by hand (same stamps) is what is loaded
    files = [Path(row[0]) for row in _envelope(cache)[1]]
    kept = cache.read(files)
    assert kept is not None
    found, tables = msgspec.msgpack.decode(kept, type=KEPT)
    found.operations["mine.cached"] = found.operations.pop("mine.probe")
    tables.phrases["frobnicate"] = [(("frobnicate",), "verb", "mine.probe")]
    assert cache.write(files, msgspec.msgpack.encode((found, tables)))
    loaded = templates.load(cache=cache)
    assert "mine.cached" in loaded.operations
    assert "frobnicate" in lexicon(loaded).phrases  # the lexicon came with it, not rebuilt


def test_a_changed_file_is_read_again_and_the_cache_rewritten(tmp_path: Path) -> None:
    path = _user_template(OPERATION.format(id="mine.first", verb="probe"))
    cache = TemplateCache(tmp_path / "cache.msgpack")
    assert "mine.first" in templates.load(cache=cache).operations
    path.write_text(OPERATION.format(id="mine.second", verb="poke"), encoding="utf-8")
    loaded = templates.load(cache=cache)  # a different size, so a different stamp
    assert "mine.second" in loaded.operations and "mine.first" not in loaded.operations
    assert b"mine.second" in cache.path.read_bytes()


def test_a_change_to_the_code_that_builds_the_tables_reads_the_files_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lexicon's tables are kept with the set: a reos whose lexicon code changed (a
    word a typo may mean, added) must not read the tables an older one built."""
    code = tmp_path / "lexicon.py"
    code.write_text("# the code that builds the tables\n", encoding="utf-8")
    monkeypatch.setattr(templates, "_LEXICON_CODE", code)
    cache = TemplateCache(tmp_path / "cache.msgpack")
    expected = set(templates.load(cache=cache).operations)
    files = [Path(row[0]) for row in _envelope(cache)[1]]
    assert files[0] == code
    found, tables = msgspec.msgpack.decode(cache.read(files) or b"", type=KEPT)
    found.operations["stale.operation"] = found.operations.popitem()[1]
    assert cache.write(files, msgspec.msgpack.encode((found, tables)))
    assert "stale.operation" in templates.load(cache=cache).operations  # same code: kept
    code.write_text("# the code that builds the tables, changed\n", encoding="utf-8")
    assert set(templates.load(cache=cache).operations) == expected


def test_a_damaged_or_older_cache_is_ignored_and_replaced(tmp_path: Path) -> None:
    clean = TemplateCache(tmp_path / "clean.msgpack")
    expected = set(templates.load(cache=clean).operations)
    _version, files, payload = _envelope(clean)
    stale, tables = msgspec.msgpack.decode(payload, type=KEPT)
    stale.operations["stale.operation"] = stale.operations.popitem()[1]  # were it read...
    older = msgspec.msgpack.encode([VERSION - 1, files, msgspec.msgpack.encode((stale,
                                                                                 tables))])
    set_alone = msgspec.msgpack.encode([VERSION, files, msgspec.msgpack.encode(stale)])
    not_a_set = msgspec.msgpack.encode([VERSION, files, b"\x93not a template set"])
    wrong_shape = msgspec.msgpack.encode([VERSION, files, msgspec.msgpack.encode(
        {"operations": {"x.y": {"id": 7}}})])
    cache = TemplateCache(tmp_path / "cache.msgpack")
    for damage in [b"{not msgpack", msgspec.msgpack.encode([]), b"\xff\xfe", older,
                   not_a_set, wrong_shape, set_alone]:
        cache.path.write_bytes(damage)
        assert set(templates.load(cache=cache).operations) == expected
        assert _envelope(cache)[0] == VERSION


def test_a_cache_that_cannot_be_written_costs_nothing_but_the_cache(tmp_path: Path) -> None:
    expected = set(templates.load(cache=TemplateCache(tmp_path / "clean.msgpack")).operations)
    blocked = tmp_path / "cache.msgpack"
    blocked.mkdir()  # a directory where the file should be: reading and writing fail
    cache = TemplateCache(blocked)
    assert cache.read([]) is None
    assert cache.write([], b"") is False
    assert set(templates.load(cache=cache).operations) == expected
    assert blocked.is_dir() and not list(tmp_path.glob("*.tmp"))


def test_the_stamp_names_each_file_with_its_size_and_a_missing_one_as_zero(
        tmp_path: Path) -> None:
    there = tmp_path / "a.toml"
    there.write_text("x = 1\n", encoding="utf-8")
    rows = stamp([there, tmp_path / "gone.toml"])
    assert rows[0][0] == str(there) and rows[0][2] == 6 and rows[0][1] > 0
    assert rows[1] == [str(tmp_path / "gone.toml"), 0, 0]


def _writes(tree: ast.AST) -> list[str]:
    """Calls in a module that write files: open(..., "w"/"a"/"x"), write_text, write_bytes,
    json.dump, os.replace/rename, Path.replace/rename/touch/mkdir."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in ("write_text", "write_bytes", "dump", "replace", "rename", "touch",
                    "mkdir") and isinstance(func, ast.Attribute):
            if name == "replace" and node.args and isinstance(node.args[0], ast.Constant):
                continue  # str.replace("a", "b")
            found.append(f"line {node.lineno}: .{name}()")
        if name == "open":
            modes = [a for a in node.args[1:2]] + [k.value for k in node.keywords
                                                   if k.arg == "mode"]
            if any(isinstance(m, ast.Constant) and set(str(m.value)) & set("wax+")
                   for m in modes):
                found.append(f"line {node.lineno}: open(..., {modes[0].value!r})")
    return found


def test_templates_py_writes_nothing_itself() -> None:
    source = (REOS / "catalogue" / "templates.py").read_text(encoding="utf-8")
    assert _writes(ast.parse(source)) == []
    # and the scan does see the writes the store module makes
    store = (REOS / "store" / "template_cache.py").read_text(encoding="utf-8")
    assert any("write_bytes" in w for w in _writes(ast.parse(store)))


# -- dead code removed, and what old files still say -----------------------------------------
def test_a_user_operation_that_still_sets_condition_is_told_what_to_do_instead() -> None:
    path = _user_template(OPERATION.format(id="mine.probe", verb="probe")
                          + 'condition = "if_running"\n')
    loaded = templates.load()
    assert "mine.probe" not in loaded.operations
    assert len(loaded.operations) > 40  # the rest of the catalogue still loads
    [problem] = loaded.problems
    assert f"{path}:8 skipped" in problem
    assert "'condition'" in problem and "from the request itself" in problem
    assert "did you mean" not in problem


def test_a_recipe_from_the_users_own_file_is_known_as_the_users() -> None:
    _user_template(OPERATION.format(id="mine.probe", verb="probe")
                   + '\n[recipe.mine.probe]\nanswer = "probed"\n'
                     'steps = [{ title = "Look", argv = ["true"], read_only = true }]\n')
    loaded = templates.load()
    mine = loaded.recipe("mine", "probe")
    builtin = loaded.recipe("container", "restart")
    assert mine is not None and builtin is not None
    assert templates.origin_is_user(mine.origin)
    assert not templates.origin_is_user(builtin.origin)


# -- one home per name ----------------------------------------------------------------------
ROOT = Path(__file__).resolve().parent.parent


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def borrowed_imports() -> list[str]:
    """`from reos.X import name` (in reos/, tests/ and bench/) where X only imported `name`
    from elsewhere: a re-export, so the name has two homes."""
    defined: dict[str, set[str]] = {}
    imported: dict[str, set[str]] = {}
    for path in (ROOT / "reos").rglob("*.py"):
        tree = ast.parse(path.read_text())
        names, borrowed = set(), set()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("reos"):
                borrowed |= {a.asname or a.name for a in node.names}
        defined[_module_of(path)], imported[_module_of(path)] = names, borrowed
    found = []
    for folder in ("reos", "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.ImportFrom) or node.module not in defined:
                    continue
                for alias in node.names:
                    if alias.name in imported[node.module] - defined[node.module] and \
                            f"{node.module}.{alias.name}" not in defined:  # a submodule
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} takes "
                                     f"{alias.name} from {node.module}, which only imports it")
    return found


def test_every_name_is_imported_from_its_own_module() -> None:
    """No re-export shims: a name is imported from the module that defines it, so moving
    it breaks its importers at once instead of leaving an old home behind."""
    assert borrowed_imports() == []


def test_the_model_package_holds_nothing_itself() -> None:
    """`reos.model` is only its docstring: a record put back there would have two homes."""
    tree = ast.parse((ROOT / "reos" / "model" / "__init__.py").read_text())
    assert [type(node).__name__ for node in tree.body] == ["Expr"]
