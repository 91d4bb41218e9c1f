"""Follow-ups to a plan that waits for approval revise it instead of starting over.

Everything plans against the saved homelab snapshot (tests/fixtures/homelab.json:
containers nextcloud-app, nextcloud-redis, nextcloud-db, portainer, n8n …, services
nginx, postgresql, redis-server …). No test approves a plan, and each checks that
nothing ran (the journal holds no transaction).

Each follow-up kind is said in several voices; each case names the revised plan's
commands exactly and a sentence saying what changed.
"""

from __future__ import annotations

import pytest

from reos.engine import ReasoningEngine
from reos.model.plan import Traced
from reos.model.request import Kind
from reos.outcome import Reply
from tests.understanding.evaluate import engines

NEXTCLOUD = "restart the nextcloud containers"
ALL_THREE = ["docker restart nextcloud-app", "docker restart nextcloud-redis",
             "docker restart nextcloud-db"]
SERVICES = "restart nginx and postgresql"


@pytest.fixture
def engine() -> ReasoningEngine:
    return engines()["apt"]


def waiting(engine: ReasoningEngine, request: str, commands: list[str]) -> Reply:
    reply = engine.respond(request)
    assert reply.awaiting_approval and engine.pending is reply.plan, reply.text
    assert [s.command for s in reply.plan.steps] == commands
    return reply


def revised(engine: ReasoningEngine, said: str, commands: list[str], change: str) -> Reply:
    """`said` revised the pending plan into `commands`, saying `change`; nothing ran."""
    before = engine.pending
    reply = engine.respond(said)
    plan = reply.plan
    assert plan is not None and plan is not before, reply.text
    assert plan.kind == Kind.ACTION, reply.text
    assert [s.command for s in plan.steps] == commands, reply.text
    assert [s.id for s in plan.steps] == [f"s{n}" for n in range(1, len(commands) + 1)]
    assert reply.awaiting_approval and engine.pending is plan
    assert reply.text.startswith(change), reply.text
    assert "Proceed?" not in reply.text  # each surface asks its own way
    assert Traced("revising", change) in plan.trace
    assert engine.history() == []  # nothing ran
    return reply


# -- narrowing ----------------------------------------------------------------------------
@pytest.mark.parametrize("said", [
    "only the redis one", "just redis", "only nextcloud-redis", "the redis one",
    "redis only", "just the redis container please"])
def test_only_keeps_the_targets_it_names(engine, said: str) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = revised(engine, said, ["docker restart nextcloud-redis"],
                    "Okay, only nextcloud-redis now.")
    assert [t.name for t in reply.plan.targets] == ["nextcloud-redis"]
    assert "This will restart 1 container:" in reply.text


@pytest.mark.parametrize("said", ["only the app and the db", "just nextcloud-app and nextcloud-db",
                                  "the app and db ones"])
def test_only_keeps_several_targets_in_the_plans_order(engine, said: str) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    revised(engine, said, ["docker restart nextcloud-app", "docker restart nextcloud-db"],
            "Okay, only nextcloud-app and nextcloud-db now.")


@pytest.mark.parametrize("said", ["only nginx", "just the nginx one", "nginx only"])
def test_only_narrows_a_plan_of_services(engine, said: str) -> None:
    waiting(engine, SERVICES, ["sudo -n systemctl restart nginx.service",
                               "sudo -n systemctl restart postgresql.service"])
    revised(engine, said, ["sudo -n systemctl restart nginx.service"],
            "Okay, only nginx.service now.")


@pytest.mark.parametrize("said", ["only apache", "just the apache one"])
def test_only_naming_nothing_in_the_plan_changes_nothing_and_says_so(engine,
                                                                     said: str) -> None:
    first = waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = engine.respond(said)
    assert reply.text.startswith("Nothing in this plan is called apache"), reply.text
    assert [s.command for s in reply.plan.steps] == ALL_THREE
    assert reply.awaiting_approval and engine.pending is reply.plan
    assert first.plan.steps == reply.plan.steps and engine.history() == []


# -- adding -------------------------------------------------------------------------------
@pytest.mark.parametrize("said", [
    "also restart portainer", "and portainer too", "restart portainer as well",
    "portainer too", "plus portainer"])
def test_also_adds_the_same_verb_on_a_new_target(engine, said: str) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = revised(engine, said, [*ALL_THREE, "docker restart portainer"],
                    "Okay, I'll also restart portainer.")
    assert [t.name for t in reply.plan.targets][-1] == "portainer"
    assert "This will restart 4 containers:" in reply.text


@pytest.mark.parametrize("said", ["also stop n8n", "stop n8n too", "and also stop n8n",
                                  "stop n8n as well"])
def test_also_adds_another_verb_as_steps_after_the_plans(engine, said: str) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = revised(engine, said, [*ALL_THREE, "docker stop n8n"],
                    "Okay, I'll also stop n8n.")
    assert "Here's the plan (4 steps):" in reply.text and "4. Stop n8n" in reply.text


@pytest.mark.parametrize("said", ["also install tor and enable it",
                                  "install tor and enable it too",
                                  "install tor and enable it as well"])
def test_added_steps_are_renumbered_with_what_they_depend_on(engine, said: str) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = revised(engine, said, [
        *ALL_THREE,
        "sudo -n apt-get install -y -o Dpkg::Options::=--force-confdef"
        " -o Dpkg::Options::=--force-confold tor",
        "sudo -n systemctl enable --now tor.service"], "Okay, I'll also install tor.")
    assert [s.depends_on for s in reply.plan.steps] == [[], [], [], [], ["s4"]]


def test_also_naming_what_the_plan_already_does_changes_nothing(engine) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = engine.respond("also restart nextcloud-db")
    assert reply.text.startswith("That is in the plan already"), reply.text
    assert [s.command for s in reply.plan.steps] == ALL_THREE


# -- leaving out ----------------------------------------------------------------------------
@pytest.mark.parametrize("said", [
    "not nextcloud-db", "leave the db alone", "but not the db", "except nextcloud-db",
    "don't restart the db", "without the db", "skip the db", "spare nextcloud-db"])
def test_not_drops_the_steps_on_that_target(engine, said: str) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = revised(engine, said, ALL_THREE[:2], "Okay, leaving out nextcloud-db.")
    assert "nextcloud-db" not in [t.name for t in reply.plan.targets]


@pytest.mark.parametrize("said", ["not nginx", "leave nginx alone", "except nginx",
                                  "don't touch nginx"])
def test_not_drops_a_service_from_a_plan_of_services(engine, said: str) -> None:
    waiting(engine, SERVICES, ["sudo -n systemctl restart nginx.service",
                               "sudo -n systemctl restart postgresql.service"])
    revised(engine, said, ["sudo -n systemctl restart postgresql.service"],
            "Okay, leaving out nginx.service.")


@pytest.mark.parametrize("said", ["not apache", "leave apache2 alone"])
def test_leaving_out_what_is_not_in_the_plan_changes_nothing(engine, said: str) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = engine.respond(said)
    assert "isn't part of this plan, so nothing changed" in reply.text, reply.text
    assert [s.command for s in reply.plan.steps] == ALL_THREE and reply.awaiting_approval


def test_leaving_out_everything_keeps_the_plan_and_says_how_to_drop_it(engine) -> None:
    waiting(engine, "restart portainer", ["docker restart portainer"])
    reply = engine.respond("not portainer")
    assert "leaves nothing to do" in reply.text and "say no" in reply.text, reply.text
    assert engine.pending is reply.plan
    assert [s.command for s in reply.plan.steps] == ["docker restart portainer"]


# -- a time -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("said", "when"), [
    ("do it at 11pm", "at 11pm"), ("at 11pm", "at 11pm"), ("run it tonight", "tonight"),
    ("can you do that tomorrow morning", "tomorrow morning"), ("in an hour", "in an hour"),
    ("schedule this for 23:00", "at 23:00")])
def test_a_time_is_answered_plainly_and_the_plan_still_waits(engine, said: str,
                                                            when: str) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = engine.respond(said)
    assert reply.text.startswith(f"I can't run it {when}: reos doesn't schedule"), reply.text
    assert [s.command for s in reply.plan.steps] == ALL_THREE
    assert reply.awaiting_approval and engine.pending is reply.plan
    assert engine.history() == []


# -- what is not a follow-up ------------------------------------------------------------------
def test_a_new_action_while_a_plan_waits_is_a_new_plan(engine) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = engine.respond("restart portainer")
    assert [s.command for s in reply.plan.steps] == ["docker restart portainer"]
    assert not reply.text.startswith("Okay"), reply.text
    assert engine.pending is reply.plan


def test_a_new_action_with_its_own_exclusion_is_a_new_plan(engine) -> None:
    waiting(engine, SERVICES, ["sudo -n systemctl restart nginx.service",
                               "sudo -n systemctl restart postgresql.service"])
    reply = engine.respond("stop the nextcloud containers except the db")
    assert [s.command for s in reply.plan.steps] == [
        "docker stop nextcloud-app", "docker stop nextcloud-redis"], reply.text


def test_a_new_request_with_a_time_is_not_answered_as_a_time(engine) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    reply = engine.respond("stop portainer at 11pm")
    # read as the new request it is, not as a time for the waiting restarts; and a change
    # said for 11pm that nothing here can schedule is not done now instead
    assert reply.plan.request == "stop portainer at 11pm" and not reply.plan.steps, reply.text
    assert "23:00" in reply.text and "won't do it now" in reply.text
    assert not any("restart" in s.command for s in reply.plan.steps)


def test_no_after_a_revision_declines_the_revised_plan(engine) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    revised(engine, "only the redis one", ["docker restart nextcloud-redis"],
            "Okay, only nextcloud-redis now.")
    assert engine.respond("no").text == "Okay, I won't do that. Nothing was changed."
    assert engine.pending is None and engine.history() == []


def test_revisions_stack(engine) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    revised(engine, "not the db", ALL_THREE[:2], "Okay, leaving out nextcloud-db.")
    revised(engine, "also restart portainer", [*ALL_THREE[:2], "docker restart portainer"],
            "Okay, I'll also restart portainer.")
    revised(engine, "leave the app alone", [ALL_THREE[1], "docker restart portainer"],
            "Okay, leaving out nextcloud-app.")


# -- revising a revised plan -------------------------------------------------------------------
TOR = ["sudo -n apt-get install -y -o Dpkg::Options::=--force-confdef"
       " -o Dpkg::Options::=--force-confold tor", "sudo -n systemctl enable --now tor.service"]


def test_leaving_out_part_of_a_plan_of_two_verbs_keeps_each_steps_own_verb(engine) -> None:
    waiting(engine, "restart nginx", ["sudo -n systemctl restart nginx.service"])
    revised(engine, "also stop n8n", ["sudo -n systemctl restart nginx.service",
                                      "docker stop n8n"], "Okay, I'll also stop n8n.")
    revised(engine, "not nginx", ["docker stop n8n"], "Okay, leaving out nginx.service.")


def test_a_step_that_depends_on_one_left_out_goes_with_it(engine) -> None:
    waiting(engine, "restart portainer", ["docker restart portainer"])
    revised(engine, "also install tor and enable it", ["docker restart portainer", *TOR],
            "Okay, I'll also install tor.")
    reply = revised(engine, "not tor", ["docker restart portainer"],
                    "Okay, leaving out tor and tor.service.")
    assert [s.depends_on for s in reply.plan.steps] == [[]]


def test_leaving_out_a_packages_service_keeps_its_install(engine) -> None:
    waiting(engine, "install tor and enable it", TOR)
    reply = revised(engine, "not tor.service", TOR[:1], "Okay, leaving out tor.service.")
    assert "This will install 1 package:" in reply.text


def test_what_was_said_about_a_plan_is_said_once(engine) -> None:
    waiting(engine, NEXTCLOUD, ALL_THREE)
    revised(engine, "not the db", ALL_THREE[:2], "Okay, leaving out nextcloud-db.")
    reply = engine.respond("at 11pm")
    assert reply.text.startswith("I can't run it at 11pm"), reply.text
    assert "Okay, leaving out" not in reply.text
    assert [s.command for s in reply.plan.steps] == ALL_THREE[:2]


# -- in the chat (Pilot, the saved homelab snapshot) -------------------------------------------
async def settle(app, pilot) -> None:  # noqa: ANN001
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_in_the_chat_a_follow_up_replaces_the_card_with_the_revised_plan() -> None:
    from reos.tui.app import ReosApp
    from reos.tui.plan_view import PlanCard

    app = ReosApp(engines()["apt"])
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        await pilot.click("#prompt")
        await pilot.press(*NEXTCLOUD, "enter")
        await settle(app, pilot)
        await pilot.press(*"only the redis one", "enter")
        await settle(app, pilot)
        old, new = app.query(PlanCard)
        assert old.closed and not new.closed
        assert new.plan is app.engine.pending
        assert [s.command for s in new.plan.steps] == ["docker restart nextcloud-redis"]
        assert "Okay, only nextcloud-redis now." in new.text
        assert "nextcloud-app" not in new.text
        assert app.engine.history() == []


async def test_in_the_chat_a_question_is_answered_by_its_number() -> None:
    from reos.tui.app import ReosApp
    from reos.tui.plan_view import PlanCard

    app = ReosApp(engines()["apt"])
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        await pilot.click("#prompt")
        await pilot.press(*"restart redis", "enter")
        await settle(app, pilot)
        assert app.engine.asking is not None and not app.query(PlanCard)
        await pilot.press("2", "enter")
        await settle(app, pilot)
        card = app.query_one(PlanCard)
        assert [s.command for s in card.plan.steps] == ["docker restart redis-cache"]
        assert card.plan is app.engine.pending and app.engine.asking is None
        assert app.engine.history() == []
