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

from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.outcome import Reply
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.understanding.evaluate import FIXTURE, engines

REDIS = "restart redis"  # three options: two containers and a service
DATABASE = "restart the database service"  # two options: two services
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


# -- answers that pick one option ------------------------------------------------------------
SERVICE = "sudo -n systemctl restart {}.service"
CHOSEN = [  # (question, answer, the one target it picks)
    *[(REDIS, a, "redis-cache") for a in ("2", "2.", "number 2", "second", "2nd",
                                          "option 2", "the second one", "the 2nd one")],
    (REDIS, "3", "redis-server.service"),
    (REDIS, "the last one", "redis-server.service"),
    (DATABASE, "2", "redis-server.service"),
    # by name, a word of a name, or an alias
    (REDIS, "redis-cache", "redis-cache"),
    (REDIS, "nextcloud-redis", "nextcloud-redis"),
    (REDIS, "redis-server.service", "redis-server.service"),
    (REDIS, "redis-server", "redis-server.service"),
    (REDIS, "container redis-cache", "redis-cache"),
    (REDIS, "cache", "redis-cache"),
    (REDIS, "nextcloud", "nextcloud-redis"),
    (DATABASE, "postgresql", "postgresql.service"),
    (DATABASE, "postgres", "postgresql.service"),
    (DATABASE, "redis", "redis-server.service"),
    (DATABASE, "redis please", "redis-server.service"),
    # by phrase
    (REDIS, "the service", "redis-server.service"),
    (REDIS, "the redis service", "redis-server.service"),
    (REDIS, "the cache one", "redis-cache"),
    (REDIS, "the one called redis-cache", "redis-cache"),
    (DATABASE, "the postgres one", "postgresql.service"),
    (DATABASE, "the postgresql one", "postgresql.service"),
    (DATABASE, "the redis one", "redis-server.service"),
    # a question with one option
    *[(UNSURE, a, "nginx.service") for a in ("yes", "1", "ok", "yep", "sure",
                                             "the first one")],
]


@pytest.mark.parametrize(("question", "answer", "name"), CHOSEN)
def test_an_answer_picks_exactly_its_option(engine, question: str, answer: str,
                                            name: str) -> None:
    ask(engine, question)
    command = (SERVICE.format(name.removesuffix(".service")) if name.endswith(".service")
               else f"docker restart {name}")
    assert_chose(engine, engine.respond(answer), name, command)


@pytest.mark.parametrize(("answer", "name", "command"), [
    ("the container one", "nextcloud-redis", "docker restart nextcloud-redis"),
    ("the service one", "redis-server.service", SERVICE.format("redis-server")),
])
def test_a_kind_picks_the_only_option_of_that_kind(answer: str, name: str,
                                                   command: str) -> None:
    engine = without_redis_cache()
    assert len(ask(engine, REDIS).plan.options) == 2
    assert_chose(engine, engine.respond(answer), name, command)


def test_the_numbers_in_the_question_are_the_options(engine) -> None:
    assert option_index(ask(engine, REDIS), "redis-cache") == 2
    engine.session.take_question()
    assert option_index(ask(engine, DATABASE), "redis-server.service") == 2


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
@pytest.mark.parametrize("answer", ["2", "no"])
def test_other_answers_to_a_single_option_pick_nothing(engine, answer: str) -> None:
    ask(engine, UNSURE)
    assert_not_a_choice(engine, engine.respond(answer))


# -- "demo-web or demo-db?" (issue 13): answers in several voices --------------------------------
DEMO = "restart demo"  # two options: the containers demo-web and demo-db


def with_demo() -> ReasoningEngine:
    """Homelab plus the containers demo-web (nginx) and demo-db (postgres)."""
    data = json.loads(FIXTURE.read_text())
    for name, image in (("demo-web", "nginx:1.27"), ("demo-db", "postgres:16")):
        data["containers"].append({**data["containers"][0], "name": name, "image": image,
                                   "labels": {}})
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


DEMO_WEB = [
    "demo-web", "Demo-Web", "demo-web please", "demo-web, please", "demo-web.",
    "the demo-web one", "the web one", "web", "the web container", "I meant demo-web",
    "go with demo-web", "i'll take demo-web", "hmm, the web one I guess",
    "1", "#1", "the first", "first one", "number one", "option one", "choice 1",
    "the former", "the top one",
    # by saying which one it is not
    "not demo-db", "not the db one", "the one that isn't the db", "demo-web not demo-db",
    "demo-web, not the db", "anything except demo-db",
]
DEMO_DB = [
    "demo-db", "db", "the db one", "let's do the db", "2", "the second", "number two",
    "option two", "the latter", "the last one", "the bottom one", "not demo-web",
    "not the web one", "the one that is not web",
]


@pytest.mark.parametrize(("answer", "name"), [*((a, "demo-web") for a in DEMO_WEB),
                                              *((a, "demo-db") for a in DEMO_DB)])
def test_demo_web_or_demo_db_is_answered(answer: str, name: str) -> None:
    engine = with_demo()
    reply = ask(engine, DEMO)
    assert [label for label, _ in reply.plan.options] == [
        "the container demo-web", "the container demo-db"]
    assert_chose(engine, engine.respond(answer), name, f"docker restart {name}")


@pytest.mark.parametrize("answer", ["not the container one", "demo-web and demo-db",
                                    "not demo-web or demo-db", "option three", "the top"])
def test_demo_answers_that_pick_nothing(answer: str) -> None:
    engine = with_demo()
    ask(engine, DEMO)
    assert_not_a_choice(engine, engine.respond(answer))


@pytest.mark.parametrize(("answer", "name"), [
    ("not the service", None),  # two containers remain: no answer
    ("the container, not redis-cache", "nextcloud-redis"),
    ("not a container", "redis-server.service"),
    ("neither container", "redis-server.service"),
])
def test_saying_what_it_is_not_leaves_the_one_remaining(engine, answer: str,
                                                        name: str | None) -> None:
    ask(engine, REDIS)
    reply = engine.respond(answer)
    if name is None:
        assert_not_a_choice(engine, reply)
    else:
        command = (SERVICE.format(name.removesuffix(".service")) if name.endswith(".service")
                   else f"docker restart {name}")
        assert_chose(engine, reply, name, command)
