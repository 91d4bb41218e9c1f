"""A request for another machine is never done here instead (reos/planning/planner.py:
`_elsewhere`): "restart nginx on web01" with no web01 known used to restart this
machine's nginx and say "I didn't use web01". Words that only describe this machine, or
name it, still plan here."""

from __future__ import annotations

import os

import pytest

from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "homelab.json")


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.load(FIXTURE))


@pytest.mark.parametrize(("request_text", "name"), [
    ("restart nginx on web01", "web01"),
    ("stop nginx on the server web", "web"),
    ("restart nginx on bastion", "bastion"),
    ("Please restart nginx on host web7.", "web7"),
    ("stop docker on db-east-1 please", "db-east-1"),
])
def test_a_machine_named_that_is_not_this_one_is_said_and_nothing_planned(
        engine: ReasoningEngine, request_text: str, name: str) -> None:
    plan = engine.plan(request_text)
    assert plan.kind == Kind.CLARIFY and not plan.steps
    said = plan.text()
    assert f"\u201c{name}\u201d isn't this machine (this one is homelab)" in said
    assert "inventory" in said


@pytest.mark.parametrize("request_text", [
    "restart nginx on homelab",        # this machine's own name
    "restart nginx on localhost",
    "restart nginx on the web box",    # a word that describes a machine, not its name
    "restart nginx on this server",
])
def test_this_machine_named_or_described_still_plans_here(
        engine: ReasoningEngine, request_text: str) -> None:
    plan = engine.plan(request_text)
    assert [s.argv[-1] for s in plan.steps] == ["nginx.service"]


def test_a_phrase_with_on_that_names_no_machine_is_not_read_as_one(
        engine: ReasoningEngine) -> None:
    plan = engine.plan("touch says no space left on device, are the inodes used up?")
    assert "isn't this machine" not in plan.text()
