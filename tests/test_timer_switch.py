"""Timers switched on and off (issue 21): "disable the fstrim timer" is `systemctl disable
--now fstrim.timer`, never the service's own stop; undo puts the timer's recorded state
back; a timer is found by a word of its name, two-character ones too ("b2"); and without
the word "timer" (or a NAME.timer) no timer is ever touched.

Planned against tests/fixtures/homelab.json with a backup timer pair added; the real
systemd run and undo is tests/test_bed_services.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.planning.quality import checkable
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.system.state import restore_argv

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    data = copy.deepcopy(json.loads(FIXTURE.read_text()))
    data["timers"].append({"name": "restic-b2.timer", "unit": "restic-b2.service",
                           "next": "2026-11-22T02:00:00Z", "last": "2026-11-21T02:00:00Z"})
    data["services"].append({"name": "restic-b2.service", "load": "loaded",
                             "active": "inactive", "sub": "dead", "enabled": "static",
                             "description": "restic backup to Backblaze B2"})
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


@pytest.mark.parametrize(("say", "argv"), [
    ("disable the fstrim timer", ["systemctl", "disable", "--now", "fstrim.timer"]),
    ("turn off the certbot timer", ["systemctl", "disable", "--now", "certbot.timer"]),
    ("disable certbot.timer", ["systemctl", "disable", "--now", "certbot.timer"]),
    ("enable the b2 timer", ["systemctl", "enable", "--now", "restic-b2.timer"]),
    ("could you switch the logrotate timer on again please",
     ["systemctl", "enable", "--now", "logrotate.timer"]),
])
def test_a_timer_is_switched_as_a_timer(engine: ReasoningEngine, say: str,
                                        argv: list[str]) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.ACTION, plan.text()
    [step] = plan.steps
    assert step.argv[-len(argv):] == argv
    assert step.target is not None and step.target.kind == "timer"
    assert checkable(step)  # the executor reads the timer's state back afterwards


@pytest.mark.parametrize("say", ["stop the fstrim service", "restart logrotate",
                                 "disable certbot", "stop everything"])
def test_without_the_word_timer_no_timer_is_touched(engine: ReasoningEngine, say: str) -> None:
    plan = engine.plan(say)
    assert not any(s.target is not None and s.target.kind == "timer" for s in plan.steps)
    assert not any(".timer" in s.command for s in plan.steps)


def test_a_two_character_word_of_a_name_finds_it(engine: ReasoningEngine) -> None:
    plan = engine.plan("run the b2 backup now")
    assert [s.argv[-2:] for s in plan.steps] == [["start", "restic-b2.service"]]


def test_undo_puts_the_timer_back_as_it_was() -> None:
    was_on = {"active": "active", "enabled": "enabled"}
    assert restore_argv("timer", "fstrim.timer", was_on, "disable_now") == [
        "systemctl", "enable", "--now", "fstrim.timer"]
    was_off = {"active": "inactive", "enabled": "disabled"}
    assert restore_argv("timer", "fstrim.timer", was_off, "enable_now") == [
        "systemctl", "disable", "--now", "fstrim.timer"]
