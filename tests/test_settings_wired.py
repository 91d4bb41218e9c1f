"""Every documented setting changes behaviour: each key is flipped and the difference seen.

[reasoning] enabled, auto_assess, always_confirm, explain_steps and [safety]
require_approval_for_permanent; (the [reflection] thresholds are proven in
tests/test_reflection.py, the [llm] keys in tests/test_llm_*.py, [limits] in
tests/test_limits.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reos import paths
from reos.engine import ReasoningEngine
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


def _engine(**changes: object) -> ReasoningEngine:
    settings = Settings()
    for key, value in changes.items():
        section, name = key.split("__")
        setattr(getattr(settings, section), name, value)
    snap = SystemSnapshot.from_dict(json.loads(FIXTURE.read_text()))
    return ReasoningEngine(settings, snapshot=snap)


# -- [reasoning] auto_assess ---------------------------------------------------------------
def test_auto_assess_off_shows_every_request_as_a_plan() -> None:
    routed = _engine().plan("is nginx running?")
    assert routed.kind == Kind.QUERY and not routed.needs_approval  # answered at once
    shown = _engine(reasoning__auto_assess=False).plan("is nginx running?")
    assert shown.needs_approval and shown.forced  # the "plan:" behaviour, for everything
    reply = _engine(reasoning__auto_assess=False).respond("is nginx running?")
    assert reply.awaiting_approval  # nothing ran: it waits for a yes


# -- [reasoning] enabled --------------------------------------------------------------------
def test_reasoning_disabled_drops_trace_quality_and_explanations() -> None:
    on = _engine().plan("install fail2ban and enable it")
    assert on.trace and on.quality is not None and "why:" in on.text()
    assert "quality" in on.to_dict()
    off = _engine(reasoning__enabled=False).plan("install fail2ban and enable it")
    assert off.trace == [] and off.quality is None
    assert "why:" not in off.text() and "Quality" not in off.text()
    assert "quality" not in off.to_dict()
    assert [s.argv for s in off.steps] == [s.argv for s in on.steps]  # the same plan


# -- [reasoning] explain_steps --------------------------------------------------------------
def test_explain_steps_says_why_each_step_is_there_and_the_quality() -> None:
    explained = _engine().plan("install fail2ban and enable it").text()
    assert "why: you asked me to enable and start fail2ban.service too" in explained
    assert "Quality " in explained
    quiet = _engine(reasoning__explain_steps=False).plan("install fail2ban and enable it")
    assert "why:" not in quiet.text() and "Quality " not in quiet.text()
    assert quiet.quality is not None  # still assessed (JSON), only not said


def test_detailed_verbosity_shows_the_quality_even_without_explanations() -> None:
    plan = _engine(reasoning__explain_steps=False,
                   conversation__verbosity="detailed").plan("restart nginx")
    assert "Quality " in plan.text()


# -- [safety] require_approval_for_permanent ----------------------------------------------------
def _edit_plan() -> Plan:
    """A step whose only undo is the backup reos keeps of the file it edits."""
    step = Step(id="s1", title="Edit the config", argv=["sed", "-i", "s/a/b/", "/etc/app.conf"],
                risk=RiskLevel.MEDIUM, reversible=True, rollback=None)
    return Plan("edit the config", Kind.ACTION, steps=[step])


def _removal_plan() -> Plan:
    step = Step(id="s1", title="Remove nextcloud-db", argv=["docker", "rm", "nextcloud-db"],
                risk=RiskLevel.HIGH, reversible=False)
    return Plan("remove nextcloud-db", Kind.ACTION, steps=[step])


def test_permanent_steps_need_their_own_confirmation() -> None:
    strict, lenient = _engine(), _engine(safety__require_approval_for_permanent=False)
    asked = strict.second_question(_edit_plan())
    assert asked and "undo only restores the files I back up first" in asked
    assert lenient.second_question(_edit_plan()) is None  # honoured for backups only
    # a step with no undo at all asks whatever the setting says
    for engine in (strict, lenient):
        question = engine.second_question(_removal_plan())
        assert question and "Remove nextcloud-db" in question and "no undo" in question


def test_the_chat_asks_the_second_question_before_anything_runs() -> None:
    engine = _engine()
    first = engine.respond("remove the exited containers")
    assert first.awaiting_approval
    second = engine.respond("yes")
    assert second.awaiting_approval and "can't be taken back" in second.text
    assert engine.pending is first.plan  # still waiting: nothing ran
    assert engine.respond("no").text.startswith("Okay, I won't do that")
    assert engine.pending is None


# -- [reasoning] always_confirm -----------------------------------------------------------------
def test_always_confirm_makes_undo_ask_in_the_chat(one_undoable: Path) -> None:
    relaxed = _engine()
    assert relaxed.journal.undoable(limit=1)
    strict = _engine(reasoning__always_confirm=True)
    asked = strict.respond("undo")
    assert asked.awaiting_approval and asked.undone is None
    assert "Undo would revert" in asked.text
    assert strict.respond("no").text == "Okay, I won't undo anything."
    assert strict.journal.undoable(limit=1)  # nothing was undone
    strict.respond("undo")
    done = strict.respond("yes")
    assert done.undone is not None and done.undone.ok
    # without the setting, "undo" undoes at once (nothing left to undo now)
    assert relaxed.respond("undo").undone is not None


def test_always_confirm_makes_reos_undo_ask_on_the_command_line(one_undoable: Path) -> None:
    settings = Path(os.environ["REOS_HOME"]) / "config" / "settings.toml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("[reasoning]\nalways_confirm = true\n")
    reos = [str(Path(sys.executable).parent / "reos")]
    refused = subprocess.run([*reos, "undo"], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL)
    assert refused.returncode == 5, refused.stderr
    assert "always_confirm is on" in refused.stderr and "--yes" in refused.stderr
    done = subprocess.run([*reos, "undo", "--yes"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    settings.write_text("[reasoning]\nalways_confirm = false\n")
    assert subprocess.run([*reos, "undo"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL).returncode == 4  # nothing left: no question


def _denied_once(always_confirm: bool) -> tuple[list[list[str]], list[str], bool]:
    """A step that fails with "Permission denied" as a user: the fix is a retry through
    sudo. Returns what ran, what the person was asked, and whether the plan succeeded."""
    from reos.execution.executor import Checks, Executor, Hooks, Machine
    from reos.model.report import StepResult
    from reos.settings import LimitsSettings
    from reos.store.db import Database
    from reos.store.journal import Journal

    ran: list[list[str]] = []
    asked: list[str] = []

    def run(argv: list[str], **_: object) -> StepResult:
        ran.append(list(argv))
        if argv[0] != "sudo":
            return StepResult("s1", False, 1, stderr="touch: /etc/x: Permission denied")
        return StepResult("s1", True, 0)

    def approve(question: str) -> bool:
        asked.append(question)
        return False

    step = Step(id="s1", title="Touch a file", argv=["touch", "/etc/x"])
    executor = Executor(Journal(Database(paths.database_file())), LimitsSettings(),
                        Hooks(approve=approve), Checks(confirm_every_fix=always_confirm),
                        Machine(run=run, probe=lambda kind, name: None, is_root=False))
    report = executor.execute(Plan("touch /etc/x", Kind.ACTION, steps=[step]))
    return ran, asked, report.ok


def test_always_confirm_asks_before_a_recovery_fix() -> None:
    ran, asked, ok = _denied_once(always_confirm=False)
    assert asked == [] and ran[-1][:2] == ["sudo", "-n"] and ok  # retried through sudo
    ran, asked, ok = _denied_once(always_confirm=True)
    assert len(asked) == 1 and "sudo" in asked[0].lower()  # asked, and the answer was no
    assert all(argv[0] != "sudo" for argv in ran) and not ok  # so nothing ran as root


def test_always_confirm_reaches_the_executor_from_settings(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from reos.execution.executor import Executor

    seen = []
    real_init = Executor.__init__

    def spy(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        real_init(self, *args, **kwargs)
        seen.append(self.checks.confirm_every_fix)

    monkeypatch.setattr(Executor, "__init__", spy)
    _engine(reasoning__always_confirm=True).execute(Plan("nothing", Kind.ACTION, steps=[]))
    _engine().execute(Plan("nothing", Kind.ACTION, steps=[]))
    assert seen == [True, False]


def test_a_yes_undoes_only_the_change_that_was_shown(one_undoable: Path) -> None:
    from reos.model.plan import Plan, Step
    from reos.model.request import Kind

    strict = _engine(reasoning__always_confirm=True)
    asked = strict.respond("undo")
    assert asked.awaiting_approval and "edit the config" in asked.text
    newer = one_undoable.parent / "newer.conf"  # another change lands meanwhile
    newer.write_text("a\n")
    assert strict.execute(Plan("edit the newer config", Kind.ACTION, steps=[Step(
        id="s1", title="Edit it", argv=["sed", "-i", "s/a/b/", str(newer)])])).ok
    said = strict.respond("yes")
    assert said.undone is None and "no longer the one I showed" in said.text
    assert newer.read_text() == "b\n" and one_undoable.read_text() == "port 9090\n"
