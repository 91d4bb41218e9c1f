"""One conversation for every surface: the engine's replies are typed (`Reply.outcome`),
a run asks the surface's callbacks (a recovery fix's approval, whether to continue past a
resumable stop), and events are worded once (reos.words.narrate) for the CLI and the
chat alike.

Plans are made against the saved homelab snapshot, which runs nothing on this machine;
the plans that run are built here from harmless real commands in a temporary folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reos.commands import output
from reos.engine import ReasoningEngine
from reos.model.events import Notice, Said, Stage, StepFinished, StepOutput, StepStarted
from reos.model.plan import Plan, Step
from reos.model.report import ExecutionReport, StepResult, StopReason
from reos.model.request import Kind
from reos.outcome import Found, Outcome, Reply
from reos.settings import LimitsSettings, Settings
from reos.system.snapshot import SystemSnapshot
from reos.words.conversation import Voice
from reos.words.narrate import Line, fix_question, narrate, paused, resume_question

SNAPSHOT = SystemSnapshot.from_dict(json.loads(
    (Path(__file__).parent / "fixtures" / "homelab.json").read_text()))


STEP = Step(id="s1", title="Restart nginx.service", argv=["systemctl", "restart", "nginx"])


def engine(settings: Settings | None = None) -> ReasoningEngine:
    return ReasoningEngine(settings or Settings(), snapshot=SNAPSHOT)


def marks(folder: Path, n: int) -> Plan:
    """`n` steps that each create a file (undone by removing it)."""
    return Plan("mark files", Kind.ACTION, steps=[
        Step(id=f"s{i}", title=f"Mark {i}", argv=["touch", str(folder / f"m{i}")],
             rollback=["rm", "-f", str(folder / f"m{i}")]) for i in range(1, n + 1)])


def waiting(eng: ReasoningEngine, plan: Plan) -> ReasoningEngine:
    eng.session.offer(plan)
    return eng


# -- typed outcomes ------------------------------------------------------------------------
def test_the_engine_module_still_exports_the_reply_types() -> None:
    from reos import outcome

    assert (Reply, Found, Outcome) == (outcome.Reply, outcome.Found, outcome.Outcome)


@pytest.mark.parametrize(("request_", "expected"), [
    ("what containers are running", Outcome.ANSWERED),
    ("stop the nextcloud containers", Outcome.NEEDS_APPROVAL),
    ("wipe the hard drive", Outcome.REFUSED),
    ("be brief", Outcome.SAID),
    ("what can you undo?", Outcome.SAID),
])
def test_each_reply_says_what_it_came_to(request_: str, expected: Outcome) -> None:
    reply = engine().respond(request_)
    assert reply.outcome is expected, reply.text
    assert reply.awaiting_approval is (expected is Outcome.NEEDS_APPROVAL)


def test_a_question_carries_its_choices_in_order() -> None:
    reply = engine().respond("restart redis")
    assert reply.outcome is Outcome.QUESTION
    assert reply.choices == ["the container nextcloud-redis", "the container redis-cache",
                             "the service redis-server.service"]
    assert Reply("hello").choices == []  # only a question has choices


def test_no_to_a_waiting_plan_is_declined_and_no_to_nothing_is_only_said() -> None:
    eng = engine()
    assert eng.respond("stop the nextcloud containers").outcome is Outcome.NEEDS_APPROVAL
    assert eng.respond("no").outcome is Outcome.DECLINED and eng.pending is None
    assert eng.respond("no").outcome is Outcome.SAID
    assert eng.respond("yes").outcome is Outcome.SAID  # nothing waits


def test_the_older_awaiting_approval_flag_and_the_outcome_agree() -> None:
    assert Reply("x", awaiting_approval=True).outcome is Outcome.NEEDS_APPROVAL
    assert Reply("x", Outcome.NEEDS_APPROVAL).awaiting_approval


def test_an_approved_plan_ran(tmp_path: Path) -> None:
    reply = waiting(engine(), marks(tmp_path, 2)).approve()
    assert reply.outcome is Outcome.RAN and reply.report is not None and reply.report.ok
    assert (tmp_path / "m2").exists()


def test_a_question_asked_beside_a_change_is_answered_after_it_ran(tmp_path: Path) -> None:
    """"… and show me the uptime": answered with what is true once the change has run;
    not answered when the change failed (it would not say how things are after it)."""
    eng = engine()
    question = eng.plan("show me the uptime")
    assert question.read_only and question.steps
    plan = marks(tmp_path, 1)
    plan.then = [question]
    reply = waiting(eng, plan).approve()
    assert reply.outcome is Outcome.RAN and (tmp_path / "m1").exists()
    answer = eng.run_query(question).text
    assert answer.split()[0] in reply.text.split("\n\n", 1)[1], reply.text
    assert len(reply.answers) == 1 and reply.answers[0].split()[0] == answer.split()[0]
    assert plan.to_dict()["then"][0]["steps"]  # `reos plan --json` shows what it runs
    failing = marks(tmp_path / "gone", 1)  # its folder is missing: touch fails
    failing.then = [question]
    reply = waiting(engine(), failing).approve()
    assert reply.outcome is Outcome.FAILED and "I did not answer" in reply.text


def test_a_failed_step_with_nothing_to_roll_back_failed(tmp_path: Path) -> None:
    plan = marks(tmp_path, 1)
    plan.steps.append(Step(id="s2", title="Fail", argv=["false"]))
    reply = waiting(engine(), plan).approve()
    assert reply.report is not None and reply.report.failed is not None
    assert reply.outcome is Outcome.FAILED  # a rollback that found nothing is no rollback


def test_a_rollback_that_reverted_a_transaction_is_rolled_back() -> None:
    from types import SimpleNamespace

    from reos.model.report import UndoReport
    from reos.outcome import outcome_of

    tx = SimpleNamespace(id=1, request="mark files", status="completed")
    report = ExecutionReport(tx_id=1, failed=STEP, rolled_back=UndoReport(tx))  # type: ignore[arg-type]
    assert outcome_of(report) is Outcome.ROLLED_BACK
    report.rolled_back = UndoReport(None)
    assert outcome_of(report) is Outcome.FAILED


def test_undo_is_undone_and_nothing_to_undo_is_only_said(tmp_path: Path) -> None:
    eng = engine()
    assert eng.respond("undo").outcome is Outcome.SAID  # nothing to undo yet
    from reos import paths
    from reos.safety.backups import BackupStore

    marker = tmp_path / "m1"
    marker.write_text("before\n")
    tx = eng.journal.begin("mark a file")
    row = eng.journal.begin_step(tx, 0, "s1", "Mark 1", ["tee", str(marker)])
    saved = BackupStore(paths.backups_dir()).save(str(marker), "tx1-1")
    assert saved is not None
    eng.journal.add_backup(row, saved.to_dict())
    marker.write_text("after\n")
    eng.journal.finish_step(row, "done", 0)
    eng.journal.finish(tx, "completed")
    reply = eng.respond("undo")
    assert reply.outcome is Outcome.UNDONE and reply.undone is not None and reply.undone.ok
    assert marker.read_text() == "before\n"  # put back from the copy taken before


# -- callbacks: resuming past a limit --------------------------------------------------------
def limited() -> ReasoningEngine:
    settings = Settings()
    settings.limits = LimitsSettings(max_operations=1)
    return engine(settings)


def test_without_confirm_resume_a_limit_is_a_pause(tmp_path: Path) -> None:
    reply = waiting(limited(), marks(tmp_path, 2)).approve()
    assert reply.outcome is Outcome.PAUSED and reply.report is not None
    assert reply.report.stop is StopReason.OPERATIONS and reply.report.resumable
    assert (tmp_path / "m1").exists() and not (tmp_path / "m2").exists()


def test_confirm_resume_is_asked_at_each_pause_and_yes_continues(tmp_path: Path) -> None:
    asked: list[StopReason | None] = []

    def confirm(report: ExecutionReport) -> bool:
        asked.append(report.stop)
        return True

    reply = waiting(limited(), marks(tmp_path, 3)).approve(confirm_resume=confirm)
    assert asked == [StopReason.OPERATIONS, StopReason.OPERATIONS]
    assert reply.outcome is Outcome.RAN and (tmp_path / "m3").exists()


def test_no_to_confirm_resume_leaves_it_paused(tmp_path: Path) -> None:
    eng = waiting(limited(), marks(tmp_path, 2))
    reply = eng.approve(confirm_resume=lambda r: False)
    assert reply.outcome is Outcome.PAUSED and not (tmp_path / "m2").exists()
    assert eng.session.state == "idle"  # the run ended there: nothing still "running"


def test_a_typed_yes_asks_the_callbacks_the_surface_gave_the_engine(tmp_path: Path) -> None:
    eng = waiting(limited(), marks(tmp_path, 2))
    asked: list[str] = []
    eng.confirm_resume = lambda report: asked.append(resume_question(report)) or True
    reply = eng.respond("yes")
    assert asked == ["Continue? (This resets the operation counter)"]
    assert reply.outcome is Outcome.RAN and (tmp_path / "m2").exists()


# -- one renderer ------------------------------------------------------------------------------


def test_events_are_narrated_with_a_style() -> None:
    voice = Voice("normal", True)
    assert narrate(Said("Okay, restarting."), voice) == [Line("Okay, restarting.", "said")]
    assert narrate(Notice("limit hit"), voice) == [Line("limit hit", "problem")]
    assert narrate(Stage("matching", "3 targets"), voice) == [Line("matching", "stage")]
    assert narrate(StepOutput(STEP, "hello", "stdout"), voice) == [
        Line("    \u2502 hello", "step")]
    assert narrate(StepOutput(STEP, "hello", "stdout"), Voice("minimal", True)) == []
    assert narrate(StepOutput(STEP, "  ", "stdout"), voice) == []
    failed = narrate(StepFinished(STEP, StepResult("s1", False, 1, "", "oops\nno such unit")),
                     voice)
    assert len(failed) == 1 and failed[0].style == "step" and "no such unit" in failed[0].text
    assert all(line.style == "step" for line in narrate(StepStarted(STEP), voice))


def test_the_cli_prints_what_the_narrator_shows(capsys: pytest.CaptureFixture[str]) -> None:
    show = output.event_printer(Voice("normal", True))
    events: list[Any] = [Said("Okay."), StepOutput(STEP, "out", "stdout"),
                         Stage("matching"), Notice("careful")]
    for event in events:
        show(event)
    assert capsys.readouterr().out.splitlines() == ["Okay.", "    \u2502 out", "careful"]
    output.event_printer(Voice("normal", True), quiet=True)(Said("Okay."))
    assert capsys.readouterr().out == ""


def test_the_questions_of_a_run_are_worded_once() -> None:
    assert fix_question("Installing curl\u2026") == "Installing curl. OK?"
    review = ExecutionReport(tx_id=1, stop=StopReason.REVIEW, seconds=3.2,
                             completed=[STEP], pending=[STEP, STEP])
    assert resume_question(review) == "Continue with the remaining steps?"
    assert paused(review) == "Completed: 1 steps; pending: 2; time elapsed: 3s."
    review.stop = StopReason.OPERATIONS
    assert resume_question(review) == "Continue? (This resets the operation counter)"


# -- the command line passes terminal prompts into the same flow -------------------------------
@pytest.mark.parametrize("go_on", [True, False])
def test_reos_plan_asks_on_the_terminal_to_continue_past_the_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        go_on: bool) -> None:
    from reos.commands import plan as plan_cmd
    from reos.errors import EXIT_FAILED, EXIT_OK

    eng = limited()
    eng.plan = lambda text, on_event=None: marks(tmp_path, 2)  # type: ignore[method-assign]
    asked: list[str] = []
    monkeypatch.setattr(plan_cmd, "make_engine", lambda context: eng)
    monkeypatch.setattr(plan_cmd, "interactive", lambda: True)
    monkeypatch.setattr(plan_cmd, "confirm", lambda text: asked.append(text) or (
        text == "Proceed?" or go_on))
    code = plan_cmd.run("mark files", allow_other_host=True)
    assert asked == ["Proceed?", "Continue? (This resets the operation counter)"]
    assert "Completed: 1 steps; pending: 1; time elapsed: 0s." in capsys.readouterr().out
    assert (tmp_path / "m2").exists() is go_on
    assert code == (EXIT_OK if go_on else EXIT_FAILED)


def test_a_plan_to_approve_keeps_its_words_in_parts_and_a_revision_is_said_once() -> None:
    """The plan's words around its steps are data (`Plan.shown`), so no surface edits
    text; what a follow-up says goes first (in the lead), and a second one replaces it."""
    engine = ReasoningEngine(Settings(), snapshot=SNAPSHOT)
    plan = engine.plan("stop the nextcloud containers")
    assert plan.shown is not None and plan.shown.steps and not plan.said
    assert plan.text() == "\n".join(line for line in [*plan.lead, *plan.shown.lines()] if line)
    assert all(line in plan.text() for line in plan.shown.steps)
    assert "$ docker stop" not in plan.text(steps=False)
    plan.say_first("Okay, only nextcloud-app.")
    plan.say_first("Okay, both again.", replacing="Okay, only nextcloud-app.")
    assert plan.lead[0] == "Okay, both again." and plan.lead.count("Okay, both again.") == 1
    assert plan.text().startswith("Okay, both again.\n")
    assert "only nextcloud-app" not in plan.text()
    query = engine.plan("which containers are running?")
    assert query.shown is None and query.said  # nothing to approve: what it says is all


def test_a_plan_keeps_no_text_of_its_own() -> None:
    """A plan's words are data: no field holds rendered text (the `message` of
    `reos.plan/1` is made when it is asked for), and saying something first changes what
    every surface shows through the parts, never by editing text."""
    assert "message" not in Plan.__struct_fields__
    engine = ReasoningEngine(Settings(), snapshot=SNAPSHOT)
    for request in ("stop the nextcloud containers", "which containers are running?",
                    "stop the container", "format my disk please"):
        plan = engine.plan(request)
        before = plan.to_dict()["message"]
        assert before == plan.text() and before
        plan.say_first("Okay, first this.")
        assert plan.to_dict()["message"] == plan.text() == f"Okay, first this.\n{before}"
        if not (plan.steps and plan.read_only):  # a query would be answered by running it
            assert engine.offer(plan).text == plan.text()


def test_a_missing_containers_answer_shows_the_running_names_most_like_it_first() -> None:
    """With more containers running than are listed, the one most like the name said is
    among those shown, whatever its place in the alphabet."""
    from reos.words.conversation import no_match

    running = [f"aaa-service-{n:02d}" for n in range(12)] + ["zz-nextcloud-web"]
    text = no_match(["zz-nextclod"], "container", running, True)
    assert text.startswith(
        "No containers match \u2018zz-nextclod\u2019. Running: zz-nextcloud-web, ")
    assert text.endswith(" and 5 more.")
