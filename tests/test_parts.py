"""Several asks in one request (issue 21): "stop X and start Y" does both and nothing else,
questions are answered in turn, a bare verb shares its object, a refused part refuses the
whole, and a condition or a qualifier is never split off.

Planned against tests/fixtures/homelab.json with no model; the two questions are answered
from this machine's own /proc (read-only).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    snapshot = SystemSnapshot.from_dict(json.loads(FIXTURE.read_text()))
    return ReasoningEngine(Settings(), snapshot=snapshot)


def commands(engine: ReasoningEngine, say: str) -> list[str]:
    return [s.command for s in engine.plan(say).steps]


def test_each_verb_applies_to_its_own_names_only(engine: ReasoningEngine) -> None:
    plan = engine.plan("stop portainer and start nextcloud-db")
    assert plan.kind == Kind.ACTION
    assert [s.command for s in plan.steps] == ["docker stop portainer",
                                               "docker start nextcloud-db"]
    assert [s.id for s in plan.steps] == ["s1", "s2"]
    assert [p["operation"] for p in plan.to_dict()["intent"]["parts"]] == [
        "container.stop", "container.start"]


def test_a_pronoun_in_a_later_part_is_what_an_earlier_one_named(
        engine: ReasoningEngine) -> None:
    got = commands(engine, "lock bob and remove him from the docker group")
    assert got == ["sudo -n usermod -L bob", "sudo -n gpasswd -d bob docker"]


def test_a_bare_verb_shares_the_next_object_and_a_command_runs_once(
        engine: ReasoningEngine) -> None:
    assert commands(engine, "stop and remove portainer") == [
        "docker stop portainer", "docker rm portainer"]


def test_names_after_and_stay_one_ask(engine: ReasoningEngine) -> None:
    plan = engine.plan("stop portainer and n8n")
    assert plan.intent is not None and not plan.intent.parts
    assert [s.command for s in plan.steps] == ["docker stop portainer", "docker stop n8n"]


def test_one_operation_that_says_it_all_is_not_split(engine: ReasoningEngine) -> None:
    plan = engine.plan("install nginx and enable it")
    assert plan.intent is not None and not plan.intent.parts
    assert plan.intent.operation == "package.install_and_enable"


def test_two_questions_are_answered_in_turn(engine: ReasoningEngine) -> None:
    plan = engine.plan("show the uptime and the load")
    assert plan.kind == Kind.QUERY and len(plan.parts) == 2
    assert not plan.needs_approval
    answer = engine.run_query(plan).text
    uptime, load = answer.split("\n\n")
    assert "has been up" in uptime
    assert "load" in load and "CPU" in load


def test_a_polite_question_of_two_halves(engine: ReasoningEngine) -> None:
    plan = engine.plan(
        "Could you tell me how long the machine has been running and what the load is?")
    assert [p.intent.operation for p in plan.parts if p.intent] == [
        "system.uptime", "system.load"]


def test_an_action_verb_is_never_lent_to_a_qualifier(engine: ReasoningEngine) -> None:
    """"configs and all" qualifies the package: no "wipe all" of every container."""
    plan = engine.plan("wipe fail2ban off this box, configs and all")
    assert not any(s.command.startswith("docker") for s in plan.steps)


def test_a_condition_is_never_split_off(engine: ReasoningEngine) -> None:
    plan = engine.plan("check if redis-cache is running and restart it if it is")
    restarts = [s for s in plan.steps if s.command == "docker restart redis-cache"]
    assert not restarts or plan.preconditions
    assert restarts or "restart" in plan.text()  # never dropped in silence
    for say in ("when the disk is full, stop portainer",
                "remove redis-cache once portainer is stopped, then restart n8n",
                "restart nginx at 3am and stop portainer"):
        plan = engine.plan(say)
        assert not any(not s.read_only for s in plan.steps), (say, plan.text())


@pytest.mark.parametrize("say", [
    "stop it and start n8n",  # "it" names nothing: the whole reading would stop n8n
    "add bob and carol to docker and lock them",  # "them" of several is not guessed
    "stop portainer and n8n, then remove them",
])
def test_a_part_whose_names_are_unclear_is_asked_about(engine: ReasoningEngine,
                                                       say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.CLARIFY and not plan.steps, (say, plan.text())


def test_a_refused_part_refuses_the_whole(engine: ReasoningEngine) -> None:
    plan = engine.plan("restart nginx and drop all databases")
    assert plan.kind == Kind.REFUSE and not plan.steps


def test_a_part_with_nothing_to_do_is_said_before_the_steps(engine: ReasoningEngine) -> None:
    plan = engine.plan("stop portainer and remove the blorp container; then reboot")
    assert [s.command for s in plan.steps][0] == "docker stop portainer"
    assert plan.text().index("No containers match") < plan.text().index("1. Stop")


def test_a_question_beside_an_action_is_answered_once_it_has_run(
        engine: ReasoningEngine) -> None:
    plan = engine.plan("stop portainer, then show me the disk usage")
    assert [s.command for s in plan.steps] == ["docker stop portainer"]
    assert "Once it has run, I answer: “show disk space used and free”" in plan.text()
    [question] = plan.then
    assert question.read_only and question.steps and not question.needs_approval


@pytest.mark.parametrize("say", ["restart nginx and what is the load",
                                 "restart nginx and show me its status"])
def test_a_question_after_a_change_is_never_read_into_the_change(
        engine: ReasoningEngine, say: str) -> None:
    """"… and what is the load" was read with the restart: it restarted
    systemd-modules-load.service too, a change nobody asked for."""
    plan = engine.plan(say)
    assert [s.command for s in plan.steps] == ["sudo -n systemctl restart nginx.service"] \
        or all("nginx" in s.command for s in plan.steps), [s.command for s in plan.steps]
    assert len(plan.then) == 1


def test_a_question_beside_a_change_on_another_machine_waits(
        engine: ReasoningEngine) -> None:
    plan = engine.plan_on(engine.snapshot(), "stop portainer, then show me the disk usage")
    assert not plan.then and "ask me again" in plan.text()


def test_a_part_that_asks_back_asks_and_says_so(engine: ReasoningEngine) -> None:
    """Three things here are called redis: the question comes first, nothing runs."""
    plan = engine.plan("stop portainer and restart the redis")
    assert plan.kind == Kind.CLARIFY and not plan.steps
    assert "You asked for 2 things" in plan.text()
    assert "redis-cache" in plan.text() and "redis-server.service" in plan.text()


def test_a_second_address_is_the_same_ask_again_never_dropped(engine: ReasoningEngine) -> None:
    assert commands(engine, "allow 22 from 10.0.0.1 and 10.0.0.2") == [
        "sudo -n ufw allow from 10.0.0.1 to any port 22 proto tcp",
        "sudo -n ufw allow from 10.0.0.2 to any port 22 proto tcp"]
    assert commands(engine, "block 203.0.113.7 and 203.0.113.8") == [
        "sudo -n ufw prepend deny from 203.0.113.7", "sudo -n ufw prepend deny from 203.0.113.8"]


@pytest.mark.parametrize(("say", "commands_"), [
    # "which …" after a comma says which services; it was read as a question of its own,
    # and the restart lost its state: every service restarted (a review found it)
    ("restart the services, which have failed",
     ["sudo -n systemctl restart fail2ban.service"]),
    ("restart the services, which are failing",
     ["sudo -n systemctl restart fail2ban.service"]),
    ("stop the containers, which use the most memory", []),
])
def test_words_that_say_which_after_a_comma_are_never_split_off(
        engine: ReasoningEngine, say: str, commands_: list[str]) -> None:
    plan = engine.plan(say)
    assert [s.command for s in plan.steps] == commands_ and not plan.then, plan.text()


@pytest.mark.parametrize(("say", "commands_", "after"), [
    # a second review: the state said after a comma, with a question after it
    ("restart the services, which failed, and show me the load",
     ["sudo -n systemctl restart fail2ban.service"], 1),
    # the exclusion is the change's, never the question's: nothing wider runs
    ("restart the containers and show me the load, but not portainer", [], 0),
    # a state of the question is no state of a change that names what it acts on
    ("restart nginx and show me the failed services",
     ["sudo -n systemctl restart nginx.service"], 1),
    # a question asked before the change is not answered after it: it waits
    ("check nginx status and then restart it", ["sudo -n systemctl restart nginx.service"], 0),
])
def test_a_split_never_widens_a_change_nor_moves_a_question_after_it(
        engine: ReasoningEngine, say: str, commands_: list[str], after: int) -> None:
    plan = engine.plan(say)
    assert [s.command for s in plan.steps] == commands_, plan.text()
    assert len(plan.then) == after, plan.text()
