"""The understanding evaluation (cases.toml) as part of the suite.

Every case is planned against a saved snapshot; the pass rate must stay at or above the
floor, and every failure is printed so a regression is visible even above the floor.
"""

from __future__ import annotations

from tests.understanding.evaluate import cases, run

FLOOR = 0.95


def test_there_are_enough_cases_with_paraphrases() -> None:
    all_cases = cases()
    assert len(all_cases) >= 150
    assert all("say" in c and "kind" in c for c in all_cases)


def test_pass_rate(capsys) -> None:
    outcomes = run()
    failures = [o for o in outcomes if not o.ok]
    rate = 1 - len(failures) / len(outcomes)
    with capsys.disabled():
        print(f"\nunderstanding evaluation: {len(outcomes) - len(failures)}/{len(outcomes)}"
              f" passed ({100 * rate:.1f}%)")
        for o in failures:
            print(f"  FAIL {o.case['say']!r}: " + "; ".join(o.problems))
    assert rate >= FLOOR, [o.case["say"] for o in failures]


def test_nothing_dangerous_ever_reaches_argv() -> None:
    for outcome in run():
        say = outcome.case["say"]
        if outcome.case["kind"] in ("refuse", "unknown"):
            assert "no step runs" not in " ".join(outcome.problems), say
