"""Dates and spellings as people write them (issue 21): "19 December 2026", "March 31st"
and "the 31st of march" are the date an account expires (the next such day when no year
is said); British spellings read as the catalogue's ("synchronised"); "would you be able
to" only asks.

Planned against tests/fixtures/homelab.json with no model.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(
        json.loads(FIXTURE.read_text())))


def commands(engine: ReasoningEngine, say: str) -> list[str]:
    return [s.command for s in engine.plan(say).steps]


def _next(month: int, day: int) -> str:
    today = datetime.date.today()
    when = datetime.date(today.year, month, day)
    return (when if when >= today else datetime.date(today.year + 1, month, day)).isoformat()


@pytest.mark.parametrize(("say", "date"), [
    ("set the account expiry of carol to December 19, 2026", "2026-12-19"),
    ("Would you please set an expiry date of 19 December 2026 on carol's account?",
     "2026-12-19"),
    ("make carol's account expire on 31 March", _next(3, 31)),
    ("carol's account should expire on the 31st of march", _next(3, 31)),
])
def test_a_date_in_words_is_the_expiry_date(engine: ReasoningEngine, say: str,
                                            date: str) -> None:
    assert commands(engine, say) == [f"sudo -n chage -E {date} carol"]


def test_an_impossible_date_is_never_made_up(engine: ReasoningEngine) -> None:
    plan = engine.plan("make carol's account expire on 31 February 2027")
    assert not plan.steps and plan.question


def test_a_leap_day_without_a_year_is_the_next_one(engine: ReasoningEngine) -> None:
    today = datetime.date.today()
    year = next(y for y in range(today.year, today.year + 9)
                if y % 4 == 0 and (y % 100 or y % 400 == 0)
                and datetime.date(y, 2, 29) >= today)
    assert commands(engine, "make carol's account expire on 29 February") == [
        f"sudo -n chage -E {year}-02-29 carol"]


@pytest.mark.parametrize("say", [
    "Could you please tell me if the clock is synchronised properly?",
    "Would you be able to check whether the clock is in sync?",
])
def test_british_and_polite_words_are_read(engine: ReasoningEngine, say: str) -> None:
    plan = engine.plan(say)
    assert [s.command for s in plan.steps] == ["timedatectl show"]
    assert "didn't use" not in plan.text()


@pytest.mark.parametrize(("say", "days"), [
    ("max password age 90 days for bob", "90"),
    ("Put the limit of password age for carol to 180 days.", "180"),
    ("make alice change her password every 12 weeks", "84"),
])
def test_a_span_of_days_is_a_password_age(engine: ReasoningEngine, say: str,
                                          days: str) -> None:
    [command] = commands(engine, say)
    assert command.startswith(f"sudo -n chage -M {days} ")


def test_a_password_age_without_days_is_asked_for(engine: ReasoningEngine) -> None:
    plan = engine.plan("set the password age of bob")
    assert not plan.steps and plan.question and "how many days" in plan.question
