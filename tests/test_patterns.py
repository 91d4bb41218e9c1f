"""Import-time patterns come from the table of compiled programs, and equal `re.compile`'s.

The table is the package's (beside its bytecode); these tests point `reos.patterns` at a
scratch file instead, except the one that reads what reos's own start wrote.
"""

from __future__ import annotations

import ast
import marshal
import os
import re
import subprocess
import sys
from array import array
from collections.abc import Callable
from pathlib import Path

import pytest

from reos import patterns

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    table = tmp_path / "patterns.marshal"
    monkeypatch.setattr(patterns, "table_path", lambda: str(table))
    monkeypatch.setattr(patterns, "_table", None)
    monkeypatch.setattr(patterns, "_new", {})
    return table


SOURCES = [(r"(?P<user>[a-z_][a-z0-9_-]*)\s+(?:is|was)\b", re.IGNORECASE),
           (r"^\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?$", 0),
           (r"(?<![\w./-])\d{1,5}(?![\w./-])", 0),
           ("caf\u00e9|na\u00efve", re.IGNORECASE | re.VERBOSE)]


def test_a_pattern_from_the_table_is_the_pattern_re_compiles(scratch) -> None:
    first = [patterns.regex(source, flags) for source, flags in SOURCES]
    patterns.save()
    assert scratch.exists()
    patterns._table = None  # a new start: the table is read again
    again = [patterns.regex(source, flags) for source, flags in SOURCES]
    assert again == first == [re.compile(source, flags) for source, flags in SOURCES]
    assert again[0].groupindex == {"user": 1}
    assert again[0].match("Bob was here").group("user") == "Bob"
    assert not patterns._new  # every one came from the table


def _garbage(source: str, flags: int) -> bytes:
    """A table that is not marshal data at all."""
    return b"\x00garbage that is not marshal data"


def _an_entry_sre_rejects(source: str, flags: int) -> bytes:
    """A table of this Python whose entry for the pattern holds no program sre accepts."""
    bad = (flags, array("I", [999999, 1, 2]).tobytes(), 0, {}, (None,))  # no program
    return marshal.dumps((patterns._STAMP, {(source, flags): bad}))


@pytest.mark.parametrize(("pattern", "table"), [
    pytest.param(SOURCES[1], _garbage, id="not marshal data"),
    pytest.param(SOURCES[2], _an_entry_sre_rejects, id="an entry sre rejects"),
])
def test_a_table_that_cannot_give_the_pattern_is_compiled_instead_and_rewritten(
        scratch, pattern: tuple[str, int], table: Callable[[str, int], bytes]) -> None:
    source, flags = pattern
    scratch.write_bytes(table(source, flags))
    assert patterns.regex(source, flags) == re.compile(source, flags)
    patterns.save()
    patterns._table = None
    assert patterns.regex(source, flags) == re.compile(source, flags)
    assert not patterns._new


def test_a_table_from_another_python_is_not_used(scratch) -> None:
    source, flags = SOURCES[0]
    patterns.regex(source, flags)
    patterns.save()
    _stamp, entries = marshal.loads(scratch.read_bytes())
    scratch.write_bytes(marshal.dumps((("cpython-00", 0, 0, 4), entries)))
    patterns._table = None
    assert patterns.regex(source, flags) == re.compile(source, flags)
    assert (source, flags) in patterns._new  # compiled, to be written under this Python


def test_a_read_only_folder_means_compiling_as_usual(scratch, monkeypatch) -> None:
    monkeypatch.setattr(patterns, "table_path", lambda: "/proc/reos-cannot-write/p.marshal")
    source, flags = SOURCES[3]
    assert patterns.regex(source, flags) == re.compile(source, flags)
    patterns.save()  # says nothing, raises nothing


def test_a_start_after_the_first_compiles_none_of_reos_patterns_with_re() -> None:
    code = ("import re, sys\n"
            "import reos.understanding.reading, reos.planning.planner, reos.safety.risk\n"
            "from reos import patterns\n"
            "print(len(patterns._new))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    again = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                           capture_output=True, text=True)
    assert again.stdout.strip() == "0"  # every import-time pattern came from the table


def test_every_pattern_in_the_package_table_equals_re_compile() -> None:
    table = patterns._read()
    for (source, flags), entry in table.items():
        assert patterns.from_entry(source, entry) == re.compile(source, flags), source


def module_level_compiles(path: Path) -> list[int]:
    """Lines of `re.compile(...)` evaluated when the module loads (not inside a function)."""
    found: list[int] = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Lambda))
            if (not in_function and isinstance(child, ast.Call)
                    and isinstance(child.func, ast.Attribute) and child.func.attr == "compile"
                    and isinstance(child.func.value, ast.Name) and child.func.value.id == "re"):
                found.append(child.lineno)
            walk(child, inside)

    walk(ast.parse(path.read_text()), False)
    return found


def test_import_time_patterns_are_made_one_way() -> None:
    """Module-level patterns use `regex` (one way per job; `reos layers` is a developer's
    tool and compiles what its contract file says)."""
    offenders = []
    for path in sorted((ROOT / "reos").rglob("*.py")):
        rel = path.relative_to(ROOT / "reos")
        if rel.parts[0] == "layers" or rel.name == "patterns.py":
            continue
        offenders += [f"{rel}:{line}" for line in module_level_compiles(path)]
    assert offenders == []
