"""Words a reading used to drop, never dropped (reos/planning/planner.py, places.py): a
request for another machine is never done here instead (`elsewhere`: "restart nginx on
web01" with no web01 known used to restart this machine's nginx and say "I didn't use web01"; words
that only describe this machine, or name it, still plan here); a group said with an
account that exists asks for it to join (`_joining`: "add user bob to group docker" used
to answer that bob exists, dropping the group)."""

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
    ("stop nginx on bastion now", "bastion"),  # a change: any name, anywhere
    ("delete user carol at host web01", "web01"),
    ("delete user carol on the remote machine", "the remote machine"),
    ("stop docker on the other server", "the other server"),
    # the reading takes "homelab-nas" for a service here, yet it names a machine
    ("restart nginx on the server homelab-nas", "homelab-nas"),
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
    "plan: restart nginx",  # the chat's own word first, not a machine
    "step1: restart nginx",
    "restart nginx at night",  # "at" a time, not a machine
    "restart nginx on homelab.local",  # this machine's name with its domain
    "restart nginx on the main box",
    "restart nginx on the box itself",  # how, not which machine
    "restart nginx on the server directly",
])
def test_this_machine_named_or_described_still_plans_here(
        engine: ReasoningEngine, request_text: str) -> None:
    plan = engine.plan(request_text)
    assert [s.argv[-1] for s in plan.steps] == ["nginx.service"]


@pytest.mark.parametrize("request_text", [
    "stop the nginx thing on 8080 nobody uses it",  # a port, never a machine
    "lock alice's account, she is on long leave",  # "on leave" says nothing of a machine
])
def test_on_before_what_is_no_machine_is_never_asked_as_one(
        engine: ReasoningEngine, request_text: str) -> None:
    assert "isn't this machine" not in engine.plan(request_text).text()




def test_a_phrase_with_on_that_names_no_machine_is_not_read_as_one(
        engine: ReasoningEngine) -> None:
    plan = engine.plan("touch says no space left on device, are the inodes used up?")
    assert "isn't this machine" not in plan.text()


# -- "add user bob to group docker" with bob here: joining, never a no-op ------------------
@pytest.mark.parametrize("request_text", [
    "add user bob to group docker", "add user bob in group docker",
    "Please add the user bob in the group docker.", "add bob into the docker group"])
def test_an_account_here_said_with_a_group_joins_it(engine: ReasoningEngine,
                                                    request_text: str) -> None:
    plan = engine.plan(request_text)  # bob is already in docker in the fixture
    assert plan.intent is not None and plan.intent.operation == "user.add_to_group"
    assert "already in the docker group" in plan.text()


def test_a_new_account_said_with_a_group_is_created_in_it(engine: ReasoningEngine) -> None:
    plan = engine.plan("add user zed to group docker")
    assert [s.argv[-3:] for s in plan.steps] == [["-G", "docker", "zed"]]
    joined = engine.plan("add user carol to group docker")
    assert [s.argv[-3:] for s in joined.steps] == [["-aG", "docker", "carol"]]


@pytest.mark.parametrize("request_text", [
    "create a new user called postgres in the sudo group",  # asked to create, not to join
    "add user www-data to group sudo",  # a system account
    "add user bob with shell /bin/zsh to group docker",  # more than a group was said
])
def test_a_create_a_system_account_or_more_settings_never_become_joining(
        engine: ReasoningEngine, request_text: str) -> None:
    plan = engine.plan(request_text)
    assert not plan.steps
    assert plan.intent is not None and plan.intent.operation != "user.add_to_group"
