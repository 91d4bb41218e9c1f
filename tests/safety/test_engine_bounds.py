"""Bounded and linear: hostile sizes and nesting answer fast and fail closed."""

from __future__ import annotations

import time

from reos.model.risk import RiskLevel
from reos.safety.risk import assess


def _seconds(command: str) -> float:
    start = time.perf_counter()
    assess(command)
    return time.perf_counter() - start


def test_hostile_shapes_stay_fast() -> None:
    # generous bound: these were minutes with the backreference regex
    for command in ["f(){ " * 5000, "a" * 60000, ":(){ :|" * 4000, "open(" * 12000,
                    "'" * 60000, "echo " + "$(" * 3000, "{" * 30000 + "a,b" + "}" * 30000,
                    "rm -rf " + "{a,b}" * 13000, "echo " + "${" * 30000,
                    "echo " + "$'\\x" * 16000, "cat <<'" + "a" * 60000,
                    "rm -rf " + "/e*c/?? " * 8000, "x=" + "a" * 2000 + "; echo ${x%%*a}",
                    "sed '" + "w /tmp/x\n" * 6000 + "' f", "find / " + "-exec echo {} ; " * 4000]:
        assert _seconds(command) < 5, command[:30]


def test_deep_nesting_fails_closed() -> None:
    command = "rm -rf /"
    for _ in range(12):
        command = f"sh -c {command!r}"
    verdict = assess(command)
    assert verdict.blocked or verdict.risk >= RiskLevel.HIGH


def test_tests_cases_arrays_and_arithmetic_are_read() -> None:
    assert assess("[[ -d /etc ]] && rm -rf /etc").blocked
    assert assess("case $x in a) rm -rf /;; esac").blocked
    assert assess("a=(/etc /usr); echo $((1+2))").risk <= RiskLevel.LOW
    verdict = assess("case $x in a) echo hi;; esac")
    assert verdict.risk <= RiskLevel.LOW and verdict.read_only


def test_unparseable_with_something_destructive_is_blocked() -> None:
    verdict = assess("rm -rf /etc; echo 'unbalanced")
    assert verdict.blocked and "cannot be parsed" in verdict.reasons[0]
    verdict = assess("echo 'unbalanced")
    assert verdict.risk >= RiskLevel.HIGH and not verdict.blocked
