"""Every long option an installed GNU tool lists in its own `--help` is known to its
read-only grammar (allowed, or known as one that acts).

GNU tools accept any unique prefix of a long option, so the grammar resolves an
abbreviation against the program's full option list: an option missing from the table
could be what a prefix really means. This reads the real tools on this machine (`--help`
only: nothing else is run) and fails naming the program and the options to add.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from reos.safety.grammar import spec_for
from reos.safety.grammars import TABLE
from reos.safety.programs import SYSTEM_PATH

ABBREVIATING = sorted(p for p in TABLE if (s := spec_for(p)) is not None and s.abbrev
                      and not s.anything and s.whole is None and s.style != "single")
_LONG = re.compile(r"(?<![\w-])(--[a-z0-9][a-z0-9-]*)")


def _help(program: str) -> str | None:
    where = shutil.which(program, path=":".join(SYSTEM_PATH))
    if where is None:
        return None
    try:
        done = subprocess.run([where, "--help"], capture_output=True, text=True, timeout=10,
                              stdin=subprocess.DEVNULL, env={"LC_ALL": "C", "PATH": "/usr/bin"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout + done.stderr


def test_there_are_installed_tools_to_compare() -> None:
    assert sum(_help(p) is not None for p in ABBREVIATING) >= 40


@pytest.mark.parametrize("program", ABBREVIATING)
def test_every_long_option_the_tool_lists_is_in_its_grammar(program: str) -> None:
    text = _help(program)
    if text is None:
        pytest.skip(f"{program} is not installed here")
    spec = spec_for(program)
    assert spec is not None
    known = {*spec.flags, *spec.values, *spec.optional, *spec.maybe, *spec.getset,
             *spec.denied}
    missing = sorted(o for o in set(_LONG.findall(text)) if o not in known)
    assert missing == [], f"{program}: add {missing} (allowed, or denied with what they do)"
