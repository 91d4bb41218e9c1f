"""Answering a question reos asked, in the next chat turn: by number, ordinal, name or phrase.

Everything here plans against the saved homelab snapshot (tests/fixtures/homelab.json),
where nothing can be executed; no test approves a plan. In homelab "redis" names the
containers nextcloud-redis and redis-cache and the service redis-server.service, and
"the database" names postgresql.service and redis-server.service.

Each case is an answer people give and what it must pick, or that it picks nothing.
"""

from __future__ import annotations

import json

import pytest

from reos.engine import ReasoningEngine, Reply
from reos.model import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.understanding.evaluate import FIXTURE, engines

REDIS = "restart redis"  # three options: two containers and a service
DATABASE = "restart the database"  # two options: two services
UNSURE = "restart nginx blorp frobnicate"  # one option: words reos could not place


@pytest.fixture
def engine() -> ReasoningEngine:
    return engines()["apt"]


def without_redis_cache() -> ReasoningEngine:
    """Homelab less the redis-cache container: "redis" is one container and one service."""
    data = json.loads(FIXTURE.read_text())
    data["containers"] = [c for c in data["containers"] if c["name"] != "redis-cache"]
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def ask(engine: ReasoningEngine, request: str) -> Reply:
    reply = engine.respond(request)
    assert reply.plan is not None and reply.plan.kind == Kind.CLARIFY, reply.text
    assert engine.asking is reply.plan and reply.plan.options
    assert not reply.awaiting_approval and engine.pending is None
    return reply


def option_index(reply: Reply, name: str) -> int:
    """The 1-based number of the option whose label names `name`."""
    labels = [label for label, _ in reply.plan.options]
    found = [n for n, label in enumerate(labels, start=1) if label.endswith(" " + name)]
    assert len(found) == 1, labels
    return found[0]


def assert_chose(engine: ReasoningEngine, reply: Reply, name: str, command: str) -> None:
    """The reply is the plan for `name` alone, waiting for approval, and nothing else."""
    plan = reply.plan
    assert plan is not None and plan.kind == Kind.ACTION, reply.text
    assert [t.name for t in plan.targets] == [name], reply.text
    assert [s.command for s in plan.steps] == [command]
    assert reply.awaiting_approval and engine.pending is plan
    assert engine.asking is None  # the question is closed


def assert_not_a_choice(engine: ReasoningEngine, reply: Reply) -> None:
    """Read as something else: no option's plan is offered for approval."""
    assert not reply.awaiting_approval and engine.pending is None, reply.text
    assert reply.plan is None or reply.plan.kind != Kind.ACTION, reply.text


# -- the questions -----------------------------------------------------------------------
def test_a_name_that_matches_several_things_is_a_question_with_each_of_them(engine) -> None:
    reply = ask(engine, REDIS)
    assert [label for label, _ in reply.plan.options] == [
        "the container nextcloud-redis", "the container redis-cache",
        "the service redis-server.service"]
    for name in ("nextcloud-redis", "redis-cache", "redis-server.service"):
        assert name in reply.text


def test_a_name_question_lists_numbered_choices(engine) -> None:
    reply = ask(engine, REDIS)
    assert "  1. " in reply.text and "  2. " in reply.text and "  3. " in reply.text


def test_words_reos_could_not_place_make_a_one_option_numbered_question(engine) -> None:
    reply = ask(engine, UNSURE)
    assert len(reply.plan.options) == 1
    assert "blorp" in reply.text and "\n  1. " in reply.text


# -- answered by number or ordinal --------------------------------------------------------
@pytest.mark.parametrize("answer", ["2", "2.", "number 2", "second", "2nd", "option 2"])
def test_answer_by_number(engine, answer: str) -> None:
    question = ask(engine, REDIS)
    assert option_index(question, "redis-cache") == 2
    assert_chose(engine, engine.respond(answer), "redis-cache", "docker restart redis-cache")


def test_answer_by_number_between_two_services(engine) -> None:
    question = ask(engine, DATABASE)
    assert option_index(question, "redis-server.service") == 2
    assert_chose(engine, engine.respond("2"), "redis-server.service",
                 "sudo -n systemctl restart redis-server.service")


def test_the_last_number_picks_the_service(engine) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond("3"), "redis-server.service",
                 "sudo -n systemctl restart redis-server.service")


@pytest.mark.parametrize("answer", ["the second one", "the 2nd one"])
def test_answer_by_ordinal_with_one(engine, answer: str) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond(answer), "redis-cache", "docker restart redis-cache")


def test_answer_the_last_one(engine) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond("the last one"), "redis-server.service",
                 "sudo -n systemctl restart redis-server.service")


# -- answered by name ---------------------------------------------------------------------
@pytest.mark.parametrize(("answer", "name", "command"), [
    ("redis-cache", "redis-cache", "docker restart redis-cache"),
    ("nextcloud-redis", "nextcloud-redis", "docker restart nextcloud-redis"),
    ("redis-server.service", "redis-server.service",
     "sudo -n systemctl restart redis-server.service"),
    ("container redis-cache", "redis-cache", "docker restart redis-cache"),
    ("cache", "redis-cache", "docker restart redis-cache"),
    ("nextcloud", "nextcloud-redis", "docker restart nextcloud-redis"),
])
def test_answer_by_name(engine, answer: str, name: str, command: str) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond(answer), name, command)


@pytest.mark.parametrize(("answer", "name"), [
    ("postgresql", "postgresql.service"),
    ("redis", "redis-server.service"),
    ("redis please", "redis-server.service"),
])
def test_answer_by_name_between_two_services(engine, answer: str, name: str) -> None:
    ask(engine, DATABASE)
    assert_chose(engine, engine.respond(answer), name, f"sudo -n systemctl restart {name}")


def test_answer_by_unit_name_without_suffix(engine) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond("redis-server"), "redis-server.service",
                 "sudo -n systemctl restart redis-server.service")


def test_answer_by_alias(engine) -> None:
    ask(engine, DATABASE)
    assert_chose(engine, engine.respond("postgres"), "postgresql.service",
                 "sudo -n systemctl restart postgresql.service")


# -- answered by phrase -------------------------------------------------------------------
@pytest.mark.parametrize("answer", ["the service", "the redis service"])
def test_answer_by_kind_picks_the_only_option_of_that_kind(engine, answer: str) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond(answer), "redis-server.service",
                 "sudo -n systemctl restart redis-server.service")


def test_answer_the_container_one_when_one_option_is_a_container() -> None:
    engine = without_redis_cache()
    question = ask(engine, REDIS)
    assert len(question.plan.options) == 2
    assert_chose(engine, engine.respond("the container one"), "nextcloud-redis",
                 "docker restart nextcloud-redis")


def test_answer_the_service_one_when_one_option_is_a_service() -> None:
    engine = without_redis_cache()
    ask(engine, REDIS)
    assert_chose(engine, engine.respond("the service one"), "redis-server.service",
                 "sudo -n systemctl restart redis-server.service")


@pytest.mark.parametrize("answer", ["the postgres one", "the postgresql one"])
def test_answer_the_postgres_one(engine, answer: str) -> None:
    ask(engine, DATABASE)
    assert_chose(engine, engine.respond(answer), "postgresql.service",
                 "sudo -n systemctl restart postgresql.service")


def test_answer_the_redis_one_between_two_services(engine) -> None:
    ask(engine, DATABASE)
    assert_chose(engine, engine.respond("the redis one"), "redis-server.service",
                 "sudo -n systemctl restart redis-server.service")


def test_answer_the_cache_one(engine) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond("the cache one"), "redis-cache",
                 "docker restart redis-cache")


def test_answer_the_one_called_a_name(engine) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond("the one called redis-cache"), "redis-cache",
                 "docker restart redis-cache")


# -- answers that pick nothing --------------------------------------------------------------
def test_a_kind_shared_by_every_option_picks_nothing(engine) -> None:
    ask(engine, DATABASE)  # both options are services
    assert_not_a_choice(engine, engine.respond("the service"))


def test_a_phrase_matching_two_options_picks_nothing(engine) -> None:
    ask(engine, REDIS)
    assert_not_a_choice(engine, engine.respond("the container one"))


def test_a_phrase_matching_no_option_picks_nothing(engine) -> None:
    ask(engine, DATABASE)
    assert_not_a_choice(engine, engine.respond("the container one"))


@pytest.mark.parametrize("answer", ["7", "0", "4"])
def test_an_out_of_range_number_is_not_a_choice(engine, answer: str) -> None:
    ask(engine, REDIS)
    assert_not_a_choice(engine, engine.respond(answer))


def test_a_new_request_after_a_question_is_read_as_a_new_request(engine) -> None:
    ask(engine, REDIS)
    reply = engine.respond("how much memory is free")
    assert reply.plan is not None and reply.plan.kind == Kind.QUERY, reply.text
    assert any("free" in s.command for s in reply.plan.steps)
    assert not reply.awaiting_approval and engine.pending is None
    assert engine.asking is None  # the question was dropped, not kept open


def test_a_new_action_after_a_question_is_planned_on_its_own(engine) -> None:
    ask(engine, DATABASE)
    reply = engine.respond("restart nginx")
    assert_chose(engine, reply, "nginx.service", "sudo -n systemctl restart nginx.service")


def test_yes_to_a_question_with_several_options_picks_nothing(engine) -> None:
    ask(engine, REDIS)
    assert_not_a_choice(engine, engine.respond("yes"))


def test_an_answered_question_is_not_answered_twice(engine) -> None:
    ask(engine, REDIS)
    assert_chose(engine, engine.respond("2"), "redis-cache", "docker restart redis-cache")
    engine.decline()
    assert_not_a_choice(engine, engine.respond("3"))


# -- a question with one option --------------------------------------------------------------
@pytest.mark.parametrize("answer", ["yes", "1", "ok", "yep", "sure"])
def test_yes_or_1_picks_the_single_option(engine, answer: str) -> None:
    ask(engine, UNSURE)
    assert_chose(engine, engine.respond(answer), "nginx.service",
                 "sudo -n systemctl restart nginx.service")


def test_the_first_one_picks_the_single_option(engine) -> None:
    ask(engine, UNSURE)
    assert_chose(engine, engine.respond("the first one"), "nginx.service",
                 "sudo -n systemctl restart nginx.service")


@pytest.mark.parametrize("answer", ["2", "no"])
def test_other_answers_to_a_single_option_pick_nothing(engine, answer: str) -> None:
    ask(engine, UNSURE)
    assert_not_a_choice(engine, engine.respond(answer))
