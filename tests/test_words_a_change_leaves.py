"""A change that would leave out words saying what it is about is asked about, never run
(reos/understanding/reading.py: `_address_left`, `_part_of_a_name`): the causes the
seventh stranger lock-out corpus (tests/safety/fleet_lockout/fleet-lockout-7.json)
showed, on sentences of our own and the homelab fixture.

What is checked: an address or network the request names that the reading leaves unused
("ufw drop everything from 10.40.0.0/24" read as removing the ufw package) makes the
plan a question; an account named only as the owner of a part of something ("add the
sshd config line AllowGroups docker" is no change to the account sshd) makes it a
question; the same words with the address or the account used plan as before.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.model.plan import Plan
from reos.settings import Settings
from reos.system.snapshot import SCHEMA, SystemSnapshot

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def _plan(engine: ReasoningEngine, request: str) -> Plan:
    return engine.plan(request)


@pytest.mark.parametrize("request_", [
    "ufw drop everything from 10.40.0.0/24, put it first",
    "fail2ban purge 10.0.0.7 right now",
    "nginx remove 192.168.4.0/22 please"])
def test_an_address_the_change_leaves_unused_is_asked_about(
        engine: ReasoningEngine, request_: str) -> None:
    plan = _plan(engine, request_)
    assert not plan.steps, [s.argv for s in plan.steps]
    assert plan.question is not None


def test_an_address_the_change_uses_plans_as_before(engine: ReasoningEngine) -> None:
    plan = _plan(engine, "deny 203.0.113.5")
    assert [s.argv[-3:] for s in plan.steps] == [["deny", "from", "203.0.113.5"]]


@pytest.mark.parametrize("request_", [
    "please add in the sshd config AllowGroups docker, since only they log in",
    "add the sshd config line AllowGroups docker"])
def test_an_account_named_only_as_the_owner_of_a_part_is_asked_about(
        engine: ReasoningEngine, request_: str) -> None:
    plan = _plan(engine, request_)
    assert not plan.steps, [s.argv for s in plan.steps]


def test_an_account_said_as_itself_is_still_changed(engine: ReasoningEngine) -> None:
    plan = _plan(engine, "add carol to the docker group")
    assert [s.argv[-3:] for s in plan.steps] == [["-aG", "docker", "carol"]]
