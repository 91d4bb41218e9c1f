"""The understanding evaluation as part of the suite: cases.toml and the catalogue cases.

Every case is planned against a saved snapshot; each pass rate must stay at or above its
floor, and every failure is printed so a regression is visible even above the floor. The
held-back cases are not run here: they are run once, at the end of a piece of work.
"""

from __future__ import annotations

from tests.understanding.evaluate import by_domain, cases, cases_in, rate, run

FLOOR = 0.95
CATALOGUE_FLOOR = 0.87  # all domains: 89.6% when issue 10's domains were complete
DOMAIN_FLOOR = 0.80  # each domain: the lowest measured then was settings, 83.7%


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


def test_catalogue_cases_pass_rate(capsys) -> None:
    outcomes = run(cases_in("catalogue"))
    domains = by_domain(outcomes)
    with capsys.disabled():
        print(f"\ncatalogue evaluation: {rate(outcomes)}; " + ", ".join(
            f"{domain} {rate(group)}" for domain, group in domains.items()))
    assert sum(o.ok for o in outcomes) / len(outcomes) >= CATALOGUE_FLOOR
    low = {d: rate(g) for d, g in domains.items() if sum(o.ok for o in g) / len(g) < DOMAIN_FLOOR}
    assert not low, low


def test_no_catalogue_case_that_must_not_act_ever_plans_a_step() -> None:
    """Refusals, not-understood and questions: whatever else fails, nothing is planned."""
    for outcome in run(cases_in("catalogue")):
        case = outcome.case
        if case["kind"] in ("refuse", "unknown", "clarify") and case["op"] in (
                "refuse", "unknown", "clarify"):
            assert "a step runs forbidden" not in " ".join(outcome.problems), case["say"]
