"""Editing a step's command before it runs (reos/editing.py), and the journal's record of
it: judged again by the risk engine, against the homelab saved snapshot's plans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos import paths
from reos.editing import edit_step
from reos.engine import ReasoningEngine
from reos.model.plan import Plan
from reos.model.risk import RiskLevel
from reos.settings import Settings
from reos.store.db import Database
from reos.store.journal import Journal
from reos.system.snapshot import SystemSnapshot

SNAPSHOT = SystemSnapshot.from_dict(json.loads(
    (Path(__file__).parent / "fixtures" / "homelab.json").read_text()))


def plan_of(request: str) -> tuple[ReasoningEngine, Plan]:
    engine = ReasoningEngine(Settings(), snapshot=SNAPSHOT)
    plan = engine.respond(request).plan
    assert plan is not None and plan.steps
    return engine, plan


@pytest.mark.parametrize("text", ["rm -rf /", "sudo rm -rf --no-preserve-root /",
                                  "sh -c 'rm -rf /'", "dd if=/dev/zero of=/dev/sda"])
def test_a_blocked_command_is_refused_and_the_step_is_unchanged(text: str) -> None:
    _, plan = plan_of("stop the nextcloud containers")
    before = plan.steps[0].to_dict()
    refusal = edit_step(plan, "s1", text)
    assert refusal is not None and refusal.startswith("blocked by the safety check")
    assert plan.steps[0].to_dict() == before


@pytest.mark.parametrize("text,why", [("echo 'hi", "can't read that"), ("   ", "empty"),
                                      ("docker stop nextcloud-app", "already runs")])
def test_what_is_not_a_new_command_is_refused(text: str, why: str) -> None:
    _, plan = plan_of("stop the nextcloud containers")
    refusal = edit_step(plan, "s1", text)
    assert refusal is not None and why in refusal and not plan.steps[0].edited
    assert edit_step(plan, "s9", "true") == "there is no step 9 in this plan"


def test_an_option_changed_keeps_the_undo_and_the_risk() -> None:
    _, plan = plan_of("stop the nextcloud containers")
    assert edit_step(plan, "s1", "docker stop -t 30 nextcloud-app") is None
    step = plan.steps[0]
    assert step.argv == ["docker", "stop", "-t", "30", "nextcloud-app"] and step.edited
    assert step.rollback == ["docker", "start", "nextcloud-app"] and step.reversible
    assert step.risk == RiskLevel.MEDIUM and step.target is not None
    assert step.why == "you changed its command (it was: docker stop nextcloud-app)"
    assert step.to_dict()["edited"] is True and "edited" not in plan.steps[1].to_dict()


def test_another_command_is_judged_anew_and_has_no_undo() -> None:
    engine, plan = plan_of("stop the nextcloud containers")
    assert engine.second_question(plan) is None
    assert edit_step(plan, "s1", "docker rm -f nextcloud-app") is None
    step = plan.steps[0]
    assert step.edited and not step.reversible and step.rollback is None
    assert step.target is None and step.title == "Run docker rm -f nextcloud-app"
    assert step.risk >= RiskLevel.MEDIUM and step.risk_reasons
    question = engine.second_question(plan)  # what is lost is asked about before it runs
    assert question is not None and "Run docker rm -f nextcloud-app" in question


def test_a_read_only_edit_is_safe_and_a_sudo_edit_needs_root() -> None:
    _, plan = plan_of("stop the nextcloud containers")
    assert edit_step(plan, "s1", "docker ps") is None
    assert plan.steps[0].read_only and plan.steps[0].risk == RiskLevel.SAFE
    assert edit_step(plan, "s2", "sudo -n docker stop nextcloud-redis") is None
    assert plan.steps[1].needs_root and not plan.steps[1].read_only


def test_the_journal_keeps_whether_a_step_was_edited() -> None:
    journal = Journal(Database(paths.database_file()))
    tx = journal.begin("stop the nextcloud containers")
    journal.begin_step(tx, 0, "s1", "Stop nextcloud-app", ["docker", "stop", "-t", "30", "x"],
                       edited=True)
    journal.begin_step(tx, 1, "s2", "Stop nextcloud-redis", ["docker", "stop", "y"])
    record = journal.transaction(tx)
    assert record is not None
    assert [s.edited for s in record.steps] == [True, False]
    assert [s["edited"] for s in record.to_dict()["steps"]] == [True, False]
