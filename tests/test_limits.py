"""The circuit breakers (reos.safety.limits): each trips with its typed reason, and only
the ones a person may continue past are resumable; scope drift judged against the plan."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reos import paths
from reos.execution.executor import Executor, Hooks, Machine
from reos.execution.recovery import Fix
from reos.model.plan import Plan, Step
from reos.model.report import ExecutionReport, StopReason
from reos.model.request import Intent, Kind
from reos.model.target import Target
from reos.safety.limits import Breakers, LimitReached
from reos.safety.scope import Scope
from reos.settings import LimitsSettings
from reos.store.db import Database
from reos.store.journal import Journal


def journal() -> Journal:
    return Journal(Database(paths.database_file()))


def marks(tmp_path: Path, n: int) -> Plan:
    return Plan("mark files", Kind.ACTION, steps=[
        Step(id=f"s{i}", title=f"Mark {i}", argv=["touch", str(tmp_path / f"m{i}")])
        for i in range(1, n + 1)])


def test_only_operations_and_review_are_resumable() -> None:
    assert {r for r in StopReason if r.resumable} == {StopReason.OPERATIONS,
                                                      StopReason.REVIEW}
    assert all(r.sentence for r in StopReason)  # every reason can be said


def test_operations_breaker_is_typed_and_resumable(tmp_path: Path) -> None:
    executor = Executor(journal(), LimitsSettings(max_operations=2))
    report = executor.execute(marks(tmp_path, 3))
    assert report.stop is StopReason.OPERATIONS and report.resumable
    assert report.stopped_reason == "maximum operations reached (2/2)"
    report = executor.resume(report)
    assert report.ok and report.stop is None and not report.resumable
    assert (tmp_path / "m3").exists()


def test_time_breaker_is_typed_and_not_resumable(tmp_path: Path) -> None:
    executor = Executor(journal(), LimitsSettings(max_operations=1, max_seconds=60))
    report = executor.execute(marks(tmp_path, 3))
    assert report.resumable
    report.started -= 61  # a minute went by while the person read the pause
    report = executor.resume(report)  # time keeps counting across a resume
    assert report.stop is StopReason.SECONDS and not report.resumable
    assert report.stopped_reason is not None and "maximum time reached" in \
        report.stopped_reason
    assert [s.id for s in report.pending] == ["s2", "s3"] and not (tmp_path / "m2").exists()
    assert executor.resume(report) is report and report.pending  # nothing more runs


def test_breakers_tripped_between_steps() -> None:
    breakers = Breakers.start(LimitsSettings(max_operations=5, max_seconds=10))
    assert breakers.tripped(4, 9.9) is None
    ops = breakers.tripped(5, 0.0)
    assert ops is not None and ops.reason is StopReason.OPERATIONS
    late = breakers.tripped(0, 10.0)
    assert late is not None and late.reason is StopReason.SECONDS
    assert late.said == "maximum time reached (10s of 10s)"


def test_limits_are_copied_when_execution_starts() -> None:
    limits = LimitsSettings(max_injected_steps=1)
    breakers = Breakers.start(limits)
    limits.max_injected_steps = 100  # a later change to the settings object lifts nothing
    breakers.admit(["apt-get", "update"], Scope())
    with pytest.raises(LimitReached) as caught:
        breakers.admit(["apt-get", "update"], Scope())
    assert caught.value.reason is StopReason.INJECTED


def test_injected_steps_and_escalations_are_bounded() -> None:
    breakers = Breakers.start(LimitsSettings(max_injected_steps=2,
                                             max_privilege_escalations=1))
    scope = Scope(frozenset({"htop"}), "package")
    breakers.admit(["sudo", "-n", "apt-get", "update"], scope, escalates=True)
    with pytest.raises(LimitReached, match="privilege escalations reached \\(1/1\\)") as esc:
        breakers.admit(["sudo", "-n", "apt-get", "update"], scope, escalates=True)
    assert esc.value.reason is StopReason.ESCALATIONS and not esc.value.reason.resumable
    breakers.admit(["apt-get", "update"], scope)
    with pytest.raises(LimitReached, match="injected steps reached \\(2/2\\)") as inj:
        breakers.admit(["apt-get", "update"], scope)
    assert inj.value.reason is StopReason.INJECTED and not inj.value.reason.resumable


def test_human_checkpoint_after_recoveries() -> None:
    breakers = Breakers.start(LimitsSettings(human_checkpoint_after_recoveries=2))
    breakers.recoveries = 2
    with pytest.raises(LimitReached, match="a person should review") as caught:
        breakers.checkpoint()
    assert caught.value.reason is StopReason.CHECKPOINT
    with pytest.raises(LimitReached):  # an added step meets the checkpoint too
        breakers.admit(["apt-get", "update"], Scope())


def test_added_steps_that_drift_from_the_plan_are_blocked() -> None:
    breakers = Breakers.start(LimitsSettings())
    nginx = Scope.of(Plan("install nginx", Kind.ACTION, intent=Intent(
        Kind.ACTION, "install", "package", ["nginx"]),
        targets=[Target("package", "nginx", "absent")]))
    with pytest.raises(LimitReached, match="Scope drift detected - recursive deletion of "
                                           "/var") as caught:
        breakers.admit(["rm", "-rf", "/var"], nginx)
    assert caught.value.reason is StopReason.SCOPE_DRIFT
    with pytest.raises(LimitReached, match="Scope drift detected - turns off the firewall"):
        breakers.admit(["ufw", "disable"], nginx)
    breakers.admit(["apt-get", "update"], nginx)  # on topic: let in
    # the intent's own kind of tool, naming nothing of its own
    breakers.admit(["dpkg", "--force-all", "--configure", "-a"], nginx)
    assert breakers.injected == 2


def test_drift_is_judged_against_the_plans_targets_not_the_requests_words() -> None:
    breakers = Breakers.start(LimitsSettings())
    # "get rid of it": the request names nothing, the plan resolved the container "web"
    web = Scope.of(Plan("get rid of it", Kind.ACTION, intent=Intent(
        Kind.ACTION, "remove", "container", ["it"]), steps=[Step(
            "s1", "Remove web", ["docker", "rm", "web"], target=Target("container", "web"),
            action="remove")]))
    breakers.admit(["docker", "rm", "-f", "web"], web)
    # a request that says "ufw" does not let a firewall change into a plan about nginx
    worded = Scope.of(Plan("restart nginx, ufw is fine", Kind.ACTION, intent=Intent(
        Kind.ACTION, "restart", "service", ["nginx"]),
        targets=[Target("service", "nginx.service", "active")]))
    with pytest.raises(LimitReached) as caught:
        breakers.admit(["ufw", "disable"], worded)
    assert caught.value.reason is StopReason.SCOPE_DRIFT
    with pytest.raises(LimitReached):  # a package tool is not a service plan's own kind
        breakers.admit(["dpkg", "--force-all", "--configure", "-a"], worded)
    # a unit is the plan's target by its short name too
    ssh = Scope.of(Plan("restart the ssh server", Kind.ACTION,
                        targets=[Target("service", "ssh.service", "active")]))
    breakers.admit(["systemctl", "stop", "ssh"], ssh)
    with pytest.raises(LimitReached):
        breakers.admit(["systemctl", "stop", "ssh"], worded)


def failing_then_fixed(marker: Path) -> list[str]:
    return ["sh", "-c", f"test -e {marker} || {{ echo 'weird thing' >&2; exit 3; }}"]


def test_injected_breaker_stops_a_run_for_good(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    plan = Plan("do two things", Kind.ACTION, steps=[
        Step("s1", "First", failing_then_fixed(first)),
        Step("s2", "Second", failing_then_fixed(second))])

    def model_fix(step: Step, result: Any, diagnosis: Any) -> Fix:
        marker = first if step.id == "s1" else second
        return Fix("model", f"Creating {marker.name}",
                   [Step("fix-model", "Create it", ["touch", str(marker)])], retry=None,
                   needs_approval=True)

    events: list[Any] = []
    report = Executor(journal(), LimitsSettings(max_injected_steps=1), Hooks(
        events.append, approve=lambda text: True, model_fix=model_fix)).execute(plan)
    assert first.exists() and not second.exists()
    assert report.stop is StopReason.INJECTED and report.failed is plan.steps[1]
    assert not report.resumable


def test_a_changed_condition_is_typed_and_runs_nothing(tmp_path: Path) -> None:
    ran: list[list[str]] = []
    target = Target("container", "web", "running")
    plan = Plan("if web is running, stop it", Kind.ACTION, steps=[
        Step("s1", "Stop web", ["docker", "stop", "web"], target=target, action="stop")],
        targets=[target], preconditions=[(target, True)])
    report = Executor(journal(), LimitsSettings(), machine=Machine(
        run=lambda argv, **kw: ran.append(argv), probe=lambda kind, name: {
            "state": "exited"})).execute(plan)
    assert report.stop is StopReason.CONDITION_CHANGED and not report.resumable
    assert ran == [] and report.tx_id is None and journal().transactions() == []


def test_a_report_without_a_stop_is_not_resumable() -> None:
    report = ExecutionReport(tx_id=1, pending=[Step("s1", "x", ["true"])])
    assert not report.resumable and not report.ok
