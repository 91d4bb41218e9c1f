"""The quality gates of an execution (reos.execution.gates) as the executor applies them:
pre-flight stops a bad plan before the journal is written, mid-flight pauses on a
warning that asks for a person, post-flight says whether the goal was reached."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reos import paths
from reos.execution import gates
from reos.execution.executor import Checks, Executor, Hooks, Machine
from reos.model.events import Notice
from reos.model.plan import Plan, Step
from reos.model.report import ExecutionReport, GateVerdict, StepResult, StopReason
from reos.model.request import Intent, Kind
from reos.model.target import Target
from reos.settings import LimitsSettings
from reos.store.db import Database
from reos.store.journal import Journal

NGINX = Target("service", "nginx.service", "active", "enabled")


def journal() -> Journal:
    return Journal(Database(paths.database_file()))


class Recorder:
    """Stands in for the runner: records each argv and answers with canned output."""

    def __init__(self, outputs: dict[str, str] | None = None):
        self.ran: list[list[str]] = []
        self.outputs = outputs or {}

    def __call__(self, argv: list[str], **kwargs: Any) -> StepResult:
        self.ran.append(argv)
        step_id = kwargs.get("step_id", "")
        return StepResult(step_id, True, 0, self.outputs.get(step_id, ""), "")


def unit_step(n: int, action: str, target: Target = NGINX) -> Step:
    return Step(f"s{n}", f"{action.capitalize()} {target.name}",
                ["systemctl", action, target.name], target=target, action=action)


def service_plan(*steps: Step) -> Plan:
    return Plan("start nginx and stop nginx", Kind.ACTION, targets=[NGINX],
                intent=Intent(Kind.ACTION, "start", "service", ["nginx"]), steps=list(steps))


def failed(verdicts: list[GateVerdict]) -> list[str]:
    return [v.check for v in verdicts if not v.passed]


def test_a_conflicting_plan_is_stopped_before_anything_runs() -> None:
    run, events = Recorder(), []
    plan = service_plan(unit_step(1, "start"), unit_step(2, "stop"))
    report = Executor(journal(), LimitsSettings(), Hooks(events.append),
                      machine=Machine(run=run, probe=lambda kind, name: {"active": "active"}
                                      )).execute(plan)
    assert run.ran == [] and journal().transactions() == []  # no journal row either
    assert report.stop is StopReason.PREFLIGHT and not report.resumable and not report.ok
    assert report.tx_id is None and report.pending == plan.steps
    conflict = [v for v in report.gates if v.check == "conflicts"][0]
    assert not conflict.passed and conflict.gate == "pre-flight"
    assert "\u201cStart nginx.service\u201d and \u201cStop nginx.service\u201d contradict" \
        in conflict.said
    assert report.stopped_reason is not None and "nothing was run" in report.stopped_reason
    assert [e.text for e in events if isinstance(e, Notice)] == [
        f"Not run: {report.stopped_reason}."]
    said = gates.summary(report)
    assert said is not None and said.startswith("Checked before running:")


def test_what_is_and_is_not_a_conflict() -> None:
    other = Target("service", "redis.service", "active", "enabled")
    fine = [
        service_plan(unit_step(1, "stop"), unit_step(2, "restart")),  # ends as a restart
        service_plan(unit_step(1, "start"), unit_step(2, "stop", other)),  # two units
        service_plan(unit_step(1, "stop"), unit_step(2, "disable")),  # two axes
        service_plan(unit_step(1, "install"), unit_step(2, "enable_now")),
    ]
    for plan in fine:
        assert failed(gates.preflight(plan, 25)) == [], plan.steps
    clashing = [
        service_plan(unit_step(1, "enable_now"), unit_step(2, "disable")),
        service_plan(unit_step(1, "install"), unit_step(2, "purge")),
        service_plan(unit_step(1, "stop"), unit_step(2, "start")),  # either order
    ]
    for plan in clashing:
        assert failed(gates.preflight(plan, 25)) == ["conflicts"], plan.steps


def test_too_many_steps_are_refused_before_the_journal(tmp_path: Path) -> None:
    steps = [Step(f"s{i}", f"Mark {i}", ["touch", str(tmp_path / f"m{i}")])
             for i in range(1, 27)]
    plan = Plan("mark 26 files", Kind.ACTION, steps=steps)
    run = Recorder()
    report = Executor(journal(), LimitsSettings(max_operations=10),
                      machine=Machine(run=run)).execute(plan)
    assert report.stop is StopReason.PREFLIGHT and run.ran == []
    assert failed(report.gates) == ["scope"]
    assert "26 steps, more than the 25 one run may do" in (report.stopped_reason or "")
    # the person's own larger limit is the ceiling; one within it is run (and paused by
    # the operations breaker, as before, when it is over that)
    assert failed(gates.preflight(plan, 30)) == []
    assert failed(gates.preflight(Plan("x", Kind.ACTION, steps=steps[:25]), 10)) == []


def test_goal_plan_and_context_checks() -> None:
    assert failed(gates.preflight(Plan("  ", Kind.ACTION, steps=[Step("s1", "x", ["true"])]),
                                  25)) == ["goal"]
    assert failed(gates.preflight(Plan("stop nginx", Kind.ACTION), 25)) == ["plan"]
    # an intent that names targets, and a plan that found none of them on the machine
    blind = Plan("restart nginx", Kind.ACTION, steps=[Step("s1", "Restart",
                                                           ["systemctl", "restart", "x"])],
                 intent=Intent(Kind.ACTION, "restart", "service", ["nginx"]))
    verdicts = gates.preflight(blind, 25)
    assert failed(verdicts) == ["context"]
    assert "none of the things the request names was found" in verdicts[3].said
    blind.targets = [NGINX]
    assert failed(gates.preflight(blind, 25)) == []


def test_a_warning_that_asks_for_a_person_pauses_for_review_then_resumes() -> None:
    run = Recorder({"s1": "Setting up nginx (1.22)\n*** System restart required ***\n"})
    events: list[Any] = []
    plan = Plan("upgrade nginx and restart it", Kind.ACTION, steps=[
        Step("s1", "Upgrade nginx", ["apt-get", "install", "--only-upgrade", "-y", "nginx"]),
        Step("s2", "Restart nginx", ["systemctl", "restart", "nginx"])])
    executor = Executor(journal(), LimitsSettings(), Hooks(events.append),
                        machine=Machine(run=run))
    report = executor.execute(plan)
    assert [argv[0] for argv in run.ran] == ["apt-get"]  # s2 waits
    assert report.stop is StopReason.REVIEW and report.resumable
    assert [s.id for s in report.pending] == ["s2"]
    review = [v for v in report.gates if v.review]
    assert len(review) == 1 and review[0].step_id == "s1"
    assert review[0].warnings == ["*** System restart required ***"]
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert any("says a person should look: *** System restart required" in n
               for n in notices)
    assert any(n.startswith("\u26a0\ufe0f Execution paused for your review") for n in notices)
    assert not [v for v in report.gates if v.gate == "post-flight"]  # not the end yet
    assert gates.summary(report) == ("Paused for review: \u201cUpgrade nginx\u201d says a "
                                     "person should look: *** System restart required ***.")
    report = executor.resume(report)  # the person looked and said go on
    assert [argv[0] for argv in run.ran] == ["apt-get", "systemctl"]
    assert report.ok and report.stop is None
    post = [v for v in report.gates if v.gate == "post-flight"]
    assert [(v.check, v.passed) for v in post] == [("completed", True), ("errors", True),
                                                   ("verified", True)]
    assert journal().transactions()[0].status == "completed"


def test_a_plain_warning_is_noted_and_does_not_pause() -> None:
    run = Recorder({"s1": "W: \x1b]0;owned\x07Some index files failed to download\n"})
    events: list[Any] = []
    plan = Plan("refresh and upgrade", Kind.ACTION, steps=[
        Step("s1", "Refresh", ["apt-get", "update"]),
        Step("s2", "Upgrade", ["apt-get", "upgrade", "-y"])])
    report = Executor(journal(), LimitsSettings(), Hooks(events.append),
                      machine=Machine(run=run)).execute(plan)
    assert report.ok and len(run.ran) == 2
    warned = [v for v in report.gates if v.warnings]
    assert warned[0].warnings == ["W: Some index files failed to download"]  # cleaned
    assert not warned[0].review
    assert "\u201cRefresh\u201d warned: W: Some index files" in [
        e.text for e in events if isinstance(e, Notice)][0]
    assert gates.summary(report) == "1 step warned: W: Some index files failed to download."


def test_a_review_warning_on_the_last_step_has_nothing_to_pause() -> None:
    run = Recorder({"s1": "Configuration file '/etc/nginx/nginx.conf' ==> Modified (by you "
                          "or by a script) since installation."})
    report = Executor(journal(), LimitsSettings(), machine=Machine(run=run)).execute(
        Plan("upgrade nginx", Kind.ACTION, steps=[Step("s1", "Upgrade nginx", [
            "apt-get", "install", "-y", "nginx"])]))
    assert report.ok and report.stop is None
    said = gates.summary(report)
    assert said is not None and said.startswith("Worth a look: \u201cUpgrade nginx\u201d")


def test_postflight_goal_verified_unchecked_and_failed() -> None:
    plan = service_plan(unit_step(1, "stop"))
    stopped = Executor(journal(), LimitsSettings(), checks=Checks(verify=True),
                       machine=Machine(run=Recorder(), probe=lambda kind, name: {
                           "active": "inactive", "enabled": "enabled"})).execute(plan)
    assert stopped.ok and stopped.verified == 1
    assert [v.said for v in stopped.gates if v.check == "verified"] == ["1 checked for real"]
    assert gates.summary(stopped) is None  # everything passed quietly

    unread = Executor(journal(), LimitsSettings(), checks=Checks(verify=True),
                      machine=Machine(run=Recorder(), probe=lambda kind, name: {
                          "active": "unknown", "enabled": "unknown"})).execute(plan)
    verdict = [v for v in unread.gates if v.check == "verified"][0]
    assert verdict.passed and verdict.said == "1 could not be checked"

    still = Executor(journal(), LimitsSettings(), checks=Checks(verify=True),
                     machine=Machine(run=Recorder(), probe=lambda kind, name: {
                         "active": "active", "enabled": "enabled"})).execute(plan)
    post = {v.check: v for v in still.gates if v.gate == "post-flight"}
    assert not still.ok and not post["completed"].passed and not post["errors"].passed
    assert not post["verified"].passed
    assert post["verified"].said.startswith("verification failed: nginx.service")
    said = gates.summary(still)
    assert said is not None and "The goal was not reached: verification failed" in said


class Remembering:
    """A knowledge base that remembers how `record` was called (the reflection hook)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def record(self, argv: list[str], ok: bool, category: str | None = None,
               fix: str | None = None, timed_out: bool = False,
               verified: bool | None = None) -> None:
        self.calls.append({"argv": argv, "ok": ok, "category": category,
                           "verified": verified})

    def record_template(self, template: str | None, ok: bool) -> None:
        pass

    def reflect(self) -> list[str]:
        return []


class Older(Remembering):
    def record(self, argv: list[str], ok: bool, category: str | None = None,  # type: ignore[override]
               fix: str | None = None, timed_out: bool = False) -> None:
        self.calls.append({"argv": argv, "ok": ok, "category": category})


def test_a_failed_verification_is_recorded_for_reflection() -> None:
    plan = service_plan(unit_step(1, "stop"))
    for knowledge, expected in ((Remembering(), {"verified": False}), (Older(), {})):
        Executor(journal(), LimitsSettings(), checks=Checks(
            verify=True, knowledge=knowledge),  # type: ignore[arg-type]
            machine=Machine(run=Recorder(), probe=lambda kind, name: {
                "active": "active", "enabled": "enabled"})).execute(plan)
        assert knowledge.calls == [{"argv": ["systemctl", "stop", "nginx.service"],
                                    "ok": False, "category": "verification", **expected}]


def test_gate_verdicts_serialise_for_the_audit_trail() -> None:
    report = ExecutionReport(tx_id=None)
    report.gates = gates.preflight(service_plan(unit_step(1, "start")), 25)
    assert [v.to_dict()["check"] for v in report.gates] == [
        "goal", "plan", "scope", "context", "conflicts"]
    assert report.gates[0].to_dict() == {
        "gate": "pre-flight", "check": "goal", "passed": True, "said": "the goal is stated",
        "step_id": None, "warnings": [], "review": False}


# -- said before approval ---------------------------------------------------------------------
def test_the_planner_says_what_pre_flight_would_refuse_before_approval() -> None:
    import json

    from reos.engine import ReasoningEngine
    from reos.settings import Settings
    from reos.system.snapshot import SystemSnapshot

    snap = SystemSnapshot.from_dict(json.loads(
        (Path(__file__).parent / "fixtures" / "homelab.json").read_text()))
    engine = ReasoningEngine(Settings(), snapshot=snap)
    builder = engine.builder()
    conflicting = Plan("start and stop nginx", Kind.ACTION, steps=[
        Step("s1", "Start nginx.service", ["systemctl", "start", "nginx.service"],
             target=NGINX, action="start"),
        Step("s2", "Stop nginx.service", ["systemctl", "stop", "nginx.service"],
             target=NGINX, action="stop")])
    why = builder.preflight(conflicting)
    assert why and "contradict each other on nginx.service" in why
    assert builder.preflight(engine.plan("restart nginx")) is None  # a sound plan passes
    # the planner turns such a refusal into a blocked plan, said before any approval
    builder.preflight = lambda plan: "the steps contradict each other"
    plan = builder.build("restart nginx", engine.plan("restart nginx").intent)
    assert plan.blocked and not plan.needs_approval
    assert "\u26d4 I won't run this: the steps contradict each other" in plan.text()
