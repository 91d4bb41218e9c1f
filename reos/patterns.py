"""Import-time regular expressions, compiled once per installation instead of once per start.

`re`'s parser and compiler are written in Python: compiling the ~230 patterns reos makes
when its modules load took about 20 ms of every `reos plan`, a sixth of its start.
`regex(source, flags)` returns the same `re.Pattern` as `re.compile` would, made by
`_sre.compile` from the compiled program kept in a table beside the package's bytecode
(`reos/__pycache__/patterns.<python tag>.marshal`), which is trusted as that bytecode is.
A pattern missing from the table is compiled, and added to the table when the process
ends, only if the pattern rebuilt from its entry compares equal to `re.compile`'s (a
Pattern's equality covers its source, flags and program). Programs are kept as bytes:
tens of thousands of small int objects would cost more in garbage collection than
compiling saves. A table that cannot be read,
was written by another Python, or has an entry `_sre` rejects is passed over, and
rewritten. Where the package folder is read-only, patterns are compiled as usual.

Only for patterns made at import from constants (module and class bodies); a pattern made
from what a person typed is compiled with `re`, so the table cannot grow with requests.
The table has a cap all the same. Relies on `re._parser` and `re._compiler` (Python 3.11
and later) to read a pattern's program; if they change, every pattern is simply compiled.
"""

from __future__ import annotations

import _sre
import marshal
import os
import re
import sys
from array import array
from typing import Any, AnyStr

_STAMP = (sys.implementation.cache_tag, _sre.MAGIC, _sre.CODESIZE, array("I").itemsize)
_LIMIT = 4000  # entries: reos makes about 250 at import; a table this big is not ours
_table: dict[tuple[Any, int], tuple[Any, ...]] | None = None  # (source, flags) -> entry
_new: dict[tuple[Any, int], tuple[Any, ...]] = {}


def table_path() -> str:
    return os.path.join(os.path.dirname(__file__), "__pycache__",
                        f"patterns.{sys.implementation.cache_tag}.marshal")


def _read() -> dict[tuple[Any, int], tuple[Any, ...]]:
    try:
        with open(table_path(), "rb") as stream:
            data = marshal.loads(stream.read())  # load(stream) reads bytes at a time: slow
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if type(data) is tuple and len(data) == 2 and data[0] == _STAMP and type(data[1]) is dict:
        return data[1]
    return {}


def regex(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(source, flags)`, from the table when the pattern is in it (a pattern of
    bytes as well as of text)."""
    global _table
    if _table is None:
        _table = _read()
    flags = int(flags)
    entry = _table.get((source, flags))
    if entry is not None:
        try:
            return from_entry(source, entry)
        except Exception:  # noqa: BLE001 - a wrong entry of any shape: compile it instead
            pass
    compiled = re.compile(source, flags)
    _remember(source, flags, compiled)
    return compiled


def from_entry(source: AnyStr, entry: tuple[Any, ...]) -> re.Pattern[AnyStr]:
    """The pattern a table entry describes; raises whatever `_sre` says of a wrong one."""
    final, program, groups, groupindex, indexgroup = entry
    return _sre.compile(source, final, array("I", program).tolist(), groups, groupindex,
                        indexgroup)


def _remember(source: AnyStr, flags: int, compiled: re.Pattern[AnyStr]) -> None:
    if len(_new) + len(_table or ()) >= _LIMIT:
        return
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(source, flags)
        code = [int(op) for op in _compiler._code(parsed, flags)]  # opcodes are int subclasses
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        final, groups = int(flags | parsed.state.flags), int(parsed.state.groups - 1)
        if _sre.compile(source, final, code, groups, groupindex, tuple(indexgroup)) != compiled:
            return
        # the program as bytes: tens of thousands of int objects would cost the start more
        # in garbage collection than they save
        entry = (final, array("I", code).tobytes(), groups, groupindex, tuple(indexgroup))
    except Exception:  # noqa: BLE001 - re's internals moved: this pattern is compiled each time
        return
    if not _new:
        import atexit

        atexit.register(save)
    _new[(source, flags)] = entry


def save() -> None:
    """Add the patterns compiled by this process to the table (what another process wrote
    meanwhile is kept); silently nothing where the folder cannot be written."""
    if not _new:
        return
    table = _read()
    table.update(_new)
    _new.clear()
    path = table_path()
    scratch = f"{path}.{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(scratch, "wb") as stream:
            marshal.dump((_STAMP, table), stream)
        os.replace(scratch, path)
    except (OSError, ValueError):  # read-only folder; ValueError: an entry marshal refuses
        try:
            os.unlink(scratch)
        except OSError:
            pass
