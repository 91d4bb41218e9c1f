"""The shell reader (`reos.safety.shell`) and what the judge makes of its reading.

Each command here is only parsed and judged, never run."""

from __future__ import annotations

import pytest

from reos.model import RiskLevel
from reos.safety.risk import assess

# values bash expands a second time: the `$(…)` in them runs then, though the assignment
# quoted it (`x='$(cmd)'` alone runs nothing)
EXPANDED_AGAIN = [
    ("x='$(reboot)'; echo ${x@P}", "shuts down or restarts"),
    ("p='$(touch /tmp/p)'; echo \"${p@P}\"", "touch creates files"),
    ("x='a[$(touch /tmp/p)]'; echo \"${!x}\"", "touch creates files"),
    ("PS4='$(reboot)' bash -xc uptime", "shuts down or restarts"),
    ("PS4='$(touch /tmp/p) '; set -x; true", "touch creates files"),
]


@pytest.mark.parametrize(("command", "reason"), EXPANDED_AGAIN)
def test_code_in_a_value_expanded_again_is_judged(command: str, reason: str) -> None:
    verdict = assess(command)
    assert any(reason in r for r in verdict.reasons), verdict.reasons
    assert not verdict.read_only


def test_a_quoted_value_alone_runs_nothing() -> None:
    verdict = assess("x='$(reboot)'; echo \"$x\"")
    assert verdict.risk <= RiskLevel.LOW and not verdict.blocked
