"""Open holes an adversarial review found in the shell reader (issue 22): shell texts bash
would run destructively that the risk engine judges read-only, kept as data in
`review/read-only-holes.json` (arrays written item by item, namerefs, `declare x+=`,
`read` option clusters, `${x:=…}` outside command words, arithmetic evaluation of a value
holding `a[$(…)]`, nested function calls' assignments). The closed ones stay as data too
(`closed`), each proved closed.

None of them reaches unasked execution: running unasked needs the read-only grammar's
proof, which never admits a shell, and that is checked here for every case as
`bash -c TEXT`. The verdicts themselves are expected failures, strictly: a reader that
closes a hole makes its case pass, and the xfail must then go.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.safety.grammar import reads_only
from reos.safety.risk import assess, assess_argv

REVIEW = json.loads((Path(__file__).parent / "review" / "read-only-holes.json").read_text(
    encoding="utf-8"))
HOLES = REVIEW["cases"]
CLOSED = REVIEW["closed"]


@pytest.mark.parametrize("text", HOLES + CLOSED)
def test_a_hole_never_runs_unasked_as_a_shell_script(text: str) -> None:
    argv = ["bash", "-c", text]
    assert not reads_only(argv).ok
    assert not assess_argv(argv).read_only


@pytest.mark.xfail(strict=True, reason="an open hole of the shell reader (issue 22 review)")
@pytest.mark.parametrize("text", HOLES)
def test_a_hole_is_not_judged_read_only(text: str) -> None:
    assert not assess(text).read_only


@pytest.mark.parametrize("text", CLOSED)
def test_a_closed_hole_stays_closed(text: str) -> None:
    verdict = assess(text)
    assert not verdict.read_only
    assert verdict.blocked  # each stores `rm -rf ~` where arithmetic runs it

