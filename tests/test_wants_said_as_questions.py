"""A want said as a question is answered, never turned into a change
(reos/understanding/idioms.py: an idiom's gap is no infinitive; parser._handing: "give
me the …" hands over), the causes the nineteenth stranger set
(tests/understanding/strangers/set-f19.json) showed, on sentences of our own and the
homelab fixture.

What is checked: "I need to know the … of the installed X" installs nothing (it read as
"need {target} installed" with "to know the size of the" in the gap, and installed
packages called "size" and "newer"); "give me the …" shows what it names, as "drop me
the …" does, and plans no account change; "give me the sudo rights" still grants; "just"
before a verb ("just tell me which units are in a failed state") is of the verb, never
a filter of which things (reos/understanding/scoring.py `_weigh_qualifier`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SCHEMA, SystemSnapshot

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    data["host"]["user"] = "carol"  # "me" is someone: "give me …" could add carol
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def _acting(engine: ReasoningEngine, request: str) -> list[list[str]]:
    plan = engine.plan(request)
    return [step.argv for step in plan.steps if not step.read_only]


@pytest.mark.parametrize("request_", [
    "I need to know the size of the installed postgresql and whether a newer one exists",
    "we want to check the version of the installed redis-server"])
def test_a_want_to_know_about_what_is_installed_installs_nothing(
        engine: ReasoningEngine, request_: str) -> None:
    assert _acting(engine, request_) == []


def test_a_thing_wanted_installed_is_still_installed(engine: ReasoningEngine) -> None:
    [install] = _acting(engine, "I need htop installed")
    assert install[:4] == ["sudo", "-n", "apt-get", "install"] and install[-1] == "htop"


@pytest.mark.parametrize("request_", ["give me the ram situation",
                                      "give me the logs of nginx"])
def test_give_me_the_hands_over_what_it_names(engine: ReasoningEngine,
                                              request_: str) -> None:
    plan = engine.plan(request_)
    assert _acting(engine, request_) == []
    assert plan.intent is None or plan.intent.operation != "user.add_to_group"


def test_give_me_the_rights_still_grants(engine: ReasoningEngine) -> None:
    plan = engine.plan("give me the sudo rights")
    assert plan.intent is not None and plan.intent.operation == "user.add_to_group"
    assert [s.argv[-3:] for s in plan.steps] == [["-aG", "sudo", "carol"]]


@pytest.mark.parametrize("request_", ["just tell me which units are in a failed state",
                                      "just show me which units are in a failed state"])
def test_just_before_a_verb_is_of_the_verb_never_a_filter(engine: ReasoningEngine,
                                                          request_: str) -> None:
    # "just" is a word for "only", a filter, except where it says how to ask
    plan = engine.plan(request_)
    assert plan.intent is not None and plan.intent.operation == "service.failed", plan.text()
