"""The evaluation written before the operation catalogue: well-formed and big enough.

Its pass rate has a floor in test_evaluation.py; what is checked here is that the cases
can measure it: at least 600 of them, at least
five phrasings per operation, several voices, a quarter held back, nothing listed twice,
and every field of the right type.
"""

from __future__ import annotations

from collections import Counter

from tests.understanding.evaluate import cases_in

KINDS = {"query", "action", "combined", "meta", "clarify", "refuse", "unknown"}
VOICES = {"terse", "polite", "sloppy", "typo", "verbose", "idiom"}
MAIN, HELD = cases_in("catalogue"), cases_in("held_back")


def test_enough_cases_and_a_quarter_held_back() -> None:
    total = len(MAIN) + len(HELD)
    assert total >= 600
    assert 0.2 <= len(HELD) / total <= 0.3


def test_every_case_is_well_formed() -> None:
    for case in MAIN + HELD:
        where = f"{case['file']}: {case.get('say')!r}"
        assert isinstance(case.get("say"), str) and case["say"].strip(), where
        assert case.get("kind") in KINDS, where
        assert case.get("voice") in VOICES, where
        assert isinstance(case.get("domain"), str) and isinstance(case.get("op"), str), where
        for key in ("argv", "forbid"):
            assert all(isinstance(f, str) and f for f in case.get(key, [])), where
        assert set(case) <= {"say", "kind", "voice", "domain", "op", "argv", "forbid", "says",
                             "manager", "installed", "file"}, where
        assert all(isinstance(p, str) and p for p in case.get("installed", [])), where


def test_at_least_five_phrasings_per_operation_in_several_voices() -> None:
    per_op = Counter(case["op"] for case in MAIN + HELD)
    thin = {op: n for op, n in per_op.items() if n < 5}
    assert not thin, thin
    assert {case["voice"] for case in MAIN + HELD} >= VOICES - {"idiom"}


def test_no_request_is_listed_twice() -> None:
    said = Counter(" ".join(case["say"].lower().split()) for case in MAIN + HELD)
    assert not [s for s, n in said.items() if n > 1]
