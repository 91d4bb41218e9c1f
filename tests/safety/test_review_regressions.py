"""Commands the adversarial review of branch 'shell-gaps-2' found judged more leniently than
the reader of 6ae25e9, and wrongly by bash's rules, kept as data in
`review/shell-gaps-regressions.json` (a `set`/`shift` whose redirection fails, `time set`,
`mapfile -C` callbacks, functions or aliases named set/shift, traps, `"${@: -1}"`, IFS
changed by `printf -v`, arithmetic whose parentheses sit in quotes, plain names followed in
arithmetic). Each case carries the verdict 6ae25e9 gave it as its floor: a reader may judge
it as strictly or more strictly, never less.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reos.model.risk import RiskLevel
from reos.safety.risk import assess

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "review" / "shell-gaps-regressions.json").read_text(
        encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_a_regression_found_is_judged_at_least_as_strictly_as_before(
        case: dict[str, Any]) -> None:
    text, base = case["command"], case["base"]
    verdict = assess(text)
    if base["blocked"]:
        assert verdict.blocked, (text, verdict.reasons)
    assert verdict.blocked or verdict.risk >= RiskLevel[base["risk"]], (text, verdict.reasons)
    if not base["read_only"]:
        assert not verdict.read_only, (text, verdict.reasons)
