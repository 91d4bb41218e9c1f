"""The one gate: nothing blocked runs, claims of read-only are checked, reports are honest.

Real parts: the installed `reos` command, user templates in REOS_HOME, real SQLite, real
processes and the real docker engine. The "dangerous" steps below are blocked families
that would do no harm if they ran by mistake (a recursive chmod of a directory that does
not exist), and each carries a marker file that proves whether anything ran.
"""

from __future__ import annotations

import json
import socket
import textwrap
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.execution.executor import Checks, Executor, Machine
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.safety.gate import admit_argv
from reos.settings import LimitsSettings, Settings
from reos.store.db import Database
from reos.store.journal import Journal
from reos.system.portable import machine_id
from reos.system.snapshot import SystemSnapshot
from tests.conftest import FIXTURES, Containers, reos

HARMLESS_BUT_BLOCKED = "chmod -R 777 /reos-test-no-such-dir"


def _template(home: Path, marker: Path, *, read_only: bool, blocked: bool) -> None:
    script = f"touch {marker}" + (f" && {HARMLESS_BUT_BLOCKED}" if blocked else "")
    folder = home / "config" / "templates"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mine.toml").write_text(textwrap.dedent(f"""\
        [[operation]]
        id = "system.mark"
        kind = "{'query' if read_only else 'action'}"
        summary = "leave a mark"
        idioms = ["leave a mark"]
        examples = ["leave a mark"]

        [recipe.system.mark]
        verb = "mark"
        steps = [{{ title = "Leave a mark", argv = ["sh", "-c", "{script}"], read_only = {
            str(read_only).lower()}, risk = "low" }}]
        """))


@pytest.mark.parametrize("read_only", [True, False])
def test_a_blocked_template_step_never_runs(reos_home: Path, tmp_path: Path,
                                            read_only: bool) -> None:
    marker = tmp_path / "ran"
    _template(reos_home, marker, read_only=read_only, blocked=True)
    plan = json.loads(reos("plan", "--json", "leave a mark").stdout)
    assert plan["blocked"] is True and plan["steps"], plan
    for args in (["plan", "leave a mark"], ["plan", "--yes", "leave a mark"]):
        done = reos(*args)
        assert done.returncode == 3, (args, done.stdout, done.stderr)
        assert not marker.exists(), f"{args} ran a step of a blocked plan"
    assert "Traceback" not in done.stderr


def test_a_step_said_to_only_read_is_checked_and_needs_approval(reos_home: Path,
                                                                tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    _template(reos_home, marker, read_only=True, blocked=False)
    plan = json.loads(reos("plan", "--json", "leave a mark").stdout)
    step = plan["steps"][0]
    assert step["read_only"] is False and plan["needs_approval"] is True, plan
    assert "said to only read" in plan["message"]
    done = reos("plan", "leave a mark")  # no terminal to ask on: nothing runs
    assert done.returncode == 5 and not marker.exists(), done.stdout + done.stderr
    done = reos("plan", "--yes", "leave a mark")  # approved: the person saw what it does
    assert done.returncode == 0 and marker.exists(), done.stdout + done.stderr


def test_the_gate_judges_every_step_again_at_execution(tmp_path: Path) -> None:
    """A step that reaches the executor unflagged (a tampered plan, a model's step) is
    refused by the gate and journaled as blocked; the steps before it ran."""
    marker = tmp_path / "ran"
    first = tmp_path / "first"
    plan = Plan("tidy up", Kind.ACTION, steps=[
        Step("s1", "Make a file", ["touch", str(first)]),
        Step("s2", "Tidy", ["sh", "-c", f"touch {marker} && {HARMLESS_BUT_BLOCKED}"],
             read_only=True),
    ])
    journal = Journal(Database(tmp_path / "reos.db"))
    report = Executor(journal, LimitsSettings()).execute(plan)
    assert first.exists() and not marker.exists()
    assert report.failed is plan.steps[1] and report.results[-1].blocked
    steps = journal.transactions(limit=1)[0].steps
    assert [s.status for s in steps] == ["done", "blocked"]
    assert "world-writable" in steps[1].output or "777" in steps[1].output


def test_read_only_answers_pass_the_gate_too() -> None:
    plan = Plan("what is this", Kind.QUERY, steps=[
        Step("s1", "Look", ["sh", "-c", "echo hi > /tmp/reos-gate-test"], read_only=True)])
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot(collected_at=""))
    found = engine.run_query(plan)
    assert found.text.startswith("I didn't run") and not Path("/tmp/reos-gate-test").exists()
    plan.blocked, plan.blocked_reason = True, "a test said so"
    assert engine.run_query(plan).text == "I won't run any of that: a test said so."


def test_admission_reasons() -> None:
    assert admit_argv(["ls", "-l"], claimed_read_only=True).allowed
    refused = admit_argv(["touch", "/tmp/x"], claimed_read_only=True)
    assert not refused.allowed and "only read" in str(refused.reason)
    assert admit_argv(["touch", "/tmp/x"], claimed_read_only=True, approved=True).allowed
    assert not admit_argv(["rm", "-rf", "/"], approved=True).allowed
    assert not admit_argv([]).allowed
    assert not admit_argv(["ls", 3]).allowed  # type: ignore[list-item]


def test_couldnt_check_is_never_goal_reached(tmp_path: Path) -> None:
    """Verification of a service on a machine where its state cannot be read (no systemd
    running here, or the unit unknown) says so instead of claiming success."""
    from reos.words.conversation import execution_summary

    target = Target("service", "reos-no-such-unit.service", "active", "enabled")
    plan = Plan("stop it", Kind.ACTION, steps=[
        Step("s1", "Stop reos-no-such-unit.service", ["true"], target=target, action="stop")])
    journal = Journal(Database(tmp_path / "reos.db"))
    report = Executor(journal, LimitsSettings(), checks=Checks(verify=True), machine=Machine(
        probe=lambda kind, name: {"active": "unknown", "enabled": "unknown"})).execute(plan)
    summary = execution_summary(report, plan)
    assert report.unchecked == plan.steps and report.verified == 0
    assert "couldn't check" in summary and "Goal reached" not in summary


def test_couldnt_check_with_the_real_probe(tmp_path: Path) -> None:
    from reos.system.state import current_state
    from reos.words.conversation import execution_summary

    target = Target("container", "reos-test-no-such-container", "running")
    plan = Plan("stop it", Kind.ACTION, steps=[
        Step("s1", "Stop it", ["true"], target=target, action="stop")])
    journal = Journal(Database(tmp_path / "reos.db"))
    state = current_state("container", target.name)
    report = Executor(journal, LimitsSettings(), checks=Checks(verify=True)).execute(plan)
    summary = execution_summary(report, plan)
    if state.get("state") == "unknown":  # no docker engine here: the state cannot be read
        assert report.unchecked and "couldn't check" in summary
    else:  # the engine answered "absent": that is a real reading, and it is not running
        assert report.verified == 1 and "Goal reached" in summary


# -- plans from another machine's snapshot -------------------------------------------------

def _snapshot(tmp_path: Path, host: dict[str, object]) -> Path:
    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["host"] = {**data["host"], **host}
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(data))
    return path


def test_a_plan_from_another_host_never_runs_here_without_saying_so(tmp_path: Path) -> None:
    other = _snapshot(tmp_path, {"hostname": "elsewhere", "machine_id": "0" * 32})
    done = reos("plan", "--yes", "--context", str(other), "how much memory is free")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "the snapshot is of elsewhere" in done.stderr and "--allow-other-host" in done.stderr
    looked = reos("plan", "--dry-run", "--context", str(other), "restart portainer")
    assert looked.returncode == 0 and "portainer" in looked.stdout  # looking is fine
    done = reos("plan", "--yes", "--allow-other-host", "--context", str(other),
                "how much memory is free")
    assert done.returncode == 0 and "memory" in done.stdout.lower(), done.stderr


def test_a_snapshot_of_this_machine_runs(tmp_path: Path) -> None:
    here = _snapshot(tmp_path, {"hostname": socket.gethostname(), "machine_id": machine_id()})
    done = reos("plan", "--yes", "--context", str(here), "how much memory is free")
    assert done.returncode == 0 and "memory" in done.stdout.lower(), done.stderr


def test_a_request_too_big_is_a_clear_usage_error() -> None:
    done = reos("plan", "restart " + "x" * 5000)
    assert done.returncode == 2 and "at most 4,096" in done.stderr
    assert "Traceback" not in done.stderr


# -- conditions name their own resource ----------------------------------------------------

@pytest.mark.docker
def test_a_condition_is_checked_on_the_resource_it_names(containers: Containers) -> None:
    watched = containers.run("watched")
    acted = containers.run("acted")
    engine = ReasoningEngine(Settings())
    plan = engine.plan(f"if {watched} is stopped, stop {acted}")
    assert not plan.steps and "running, so I won't stop anything" in plan.text()
    plan = engine.plan(f"if {watched} is running, stop {acted}")
    assert [s.argv for s in plan.steps] == [["docker", "stop", acted]]
    assert [t.name for t, _ in plan.preconditions] == [watched]
    containers.client.containers.get(watched).stop(timeout=5)  # type: ignore[attr-defined]
    report = engine.execute(plan)
    assert report.tx_id is None and "no longer" in str(report.stopped_reason)
    assert containers.state(acted) == "running"
