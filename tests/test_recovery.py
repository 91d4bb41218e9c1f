"""Adaptive execution with real failures on this machine: already exists, rollback on
failure (real docker), verification, bounds, learning and reflection."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos import paths
from reos.engine import ReasoningEngine
from reos.execution.executor import Checks, Executor, Hooks
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.settings import LimitsSettings, Settings
from reos.store.db import Database
from reos.store.journal import Journal
from reos.store.knowledge import Knowledge, signature
from tests.conftest import Containers, reos, reos_json


def journal() -> Journal:
    return Journal(Database(paths.database_file()))


def said(events: list) -> list[str]:
    from reos.model.events import Said

    return [e.text for e in events if isinstance(e, Said)]


def test_already_exists_is_treated_as_done(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    events: list = []
    plan = Plan("make x", Kind.ACTION, steps=[
        Step(id="s1", title="Make x", argv=["mkdir", str(tmp_path / "x")]),
        Step(id="s2", title="Mark", argv=["touch", str(tmp_path / "after")])])
    report = Executor(journal(), LimitsSettings(), Hooks(events.append)).execute(plan)
    assert report.ok and (tmp_path / "after").exists()
    lines = said(events)
    assert lines[0].startswith("\u2717 Error: mkdir: cannot create directory")
    assert lines[1] == "\u2192 Diagnosed: the file already exists (it already exists)"
    assert lines[2].startswith("\u2192 That's fine: the file already exists.")


def test_not_found_stops_and_asks_with_a_suggestion(tmp_path: Path) -> None:
    events: list = []
    plan = Plan("show", Kind.ACTION, steps=[
        Step(id="s1", title="Show it", argv=["cat", str(tmp_path / "missing")])])
    report = Executor(journal(), LimitsSettings(), Hooks(events.append)).execute(plan)
    assert not report.ok and report.recoveries == []
    assert any(line.startswith("\u2192 I can't fix this on my own: a file or directory "
                               "doesn't exist. Check the name") for line in said(events))


@pytest.mark.docker
def test_rollback_on_failure_undoes_completed_steps_newest_first(
        containers: Containers) -> None:
    first, second = containers.run("a"), containers.run("b")
    plan = Plan("stop a, b and a ghost", Kind.ACTION, steps=[
        Step(id="s1", title=f"Stop {first}", argv=["docker", "stop", first],
             target=Target("container", first, "running"), action="stop"),
        Step(id="s2", title=f"Stop {second}", argv=["docker", "stop", second],
             target=Target("container", second, "running"), action="stop"),
        Step(id="s3", title="Stop ghost", argv=["docker", "stop", f"{first}-ghost"],
             target=Target("container", f"{first}-ghost", "running"), action="stop")])
    events: list = []
    report = Executor(journal(), LimitsSettings(), Hooks(events.append),
                      Checks(verify=True, rollback_on_failure=True)).execute(plan)
    assert report.failed is not None and report.failed.id == "s3"
    assert report.rolled_back is not None and report.rolled_back.ok
    assert [s.argv for s in report.rolled_back.steps] == [["docker", "start", second],
                                                         ["docker", "start", first]]
    assert containers.state(first) == containers.state(second) == "running"
    assert journal().transactions(kind="action")[0].status == "rolled_back"
    assert report.verified == 2
    assert "No such container" in " ".join(said(events))


@pytest.mark.docker
def test_cli_reports_what_was_rolled_back(containers: Containers, tmp_path: Path) -> None:
    name = containers.run("roll")
    context = json.loads(reos("context", "--json").stdout)
    context["containers"].append({"name": f"{name}-gone", "state": "running",
                                  "labels": {"com.docker.compose.project": f"{name}p"}})
    for c in context["containers"]:
        if c["name"] == name:
            c["labels"] = {"com.docker.compose.project": f"{name}p"}
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps(context))
    done = reos("plan", "--yes", "--context", str(path), f"stop the {name}p containers")
    assert done.returncode == 1
    assert "Rolled back, newest first:" in done.stdout
    assert f"(ran: docker start {name})" in done.stdout
    assert containers.state(name) == "running"


def test_unreachable_docker_daemon_is_a_clear_error(tmp_path: Path) -> None:
    context = {"schema": "reos.snapshot/1", "collected_at": "x", "host": {"is_root": True},
               "containers": [{"name": "web", "state": "running"}], "services": None,
               "packages": None}
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps(context))
    done = reos("plan", "--yes", "--allow-other-host", "--context", str(path),
                "stop the web container",
                env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert done.returncode == 1
    assert "Cannot connect to the Docker daemon" in done.stdout
    assert "\u2192 Diagnosed: the docker daemon isn't running or can't be reached" in done.stdout
    assert "Fix the machine first" in done.stdout and "Traceback" not in done.stderr


def test_verification_turns_a_wrong_end_state_into_a_failure() -> None:
    from reos.system.state import intended_state_problem

    assert intended_state_problem("service", "start", {"active": "failed"}) == \
        "is failed, not active"
    assert intended_state_problem("service", "disable", {"enabled": "enabled"}) == \
        "is still enabled at boot"
    assert intended_state_problem("container", "stop", {"state": "running"}) == \
        "is still running"
    assert intended_state_problem("package", "remove", {"state": "installed"}) == \
        "is still installed"
    assert intended_state_problem("service", "enable_now",
                                  {"active": "active", "enabled": "enabled"}) is None


def test_bounds_per_execution_and_per_error_type(tmp_path: Path) -> None:
    from reos.execution.recovery import MAX_PER_CATEGORY, MAX_RECOVERIES

    assert (MAX_RECOVERIES, MAX_PER_CATEGORY) == (3, 2)
    # a step that stays "busy": two waits, then it gives up (per-category bound)
    lock = tmp_path / "lock"
    script = f"echo 'Device or resource busy' >&2; test -e {lock} && exit 1; exit 1"
    events: list = []
    plan = Plan("busy", Kind.ACTION, steps=[Step(id="s1", title="Busy thing",
                                                argv=["sh", "-c", script])])
    executor = Executor(journal(), LimitsSettings(human_checkpoint_after_recoveries=5),
                        Hooks(events.append))
    import reos.execution.recovery as recovery

    original = recovery.BACKOFF_SECONDS
    recovery.BACKOFF_SECONDS = (0.1, 0.2)  # keep the test quick; the logic is the same
    try:
        report = executor.execute(plan)
    finally:
        recovery.BACKOFF_SECONDS = original
    assert not report.ok and executor.breakers.recoveries == 2
    assert sum(line.startswith("\u2192 Trying fix: Waiting") for line in said(events)) == 2
    assert any("as many automatic fixes as I'll try" in line for line in said(events))


def test_knowledge_learns_flags_and_is_capped() -> None:
    from reos.memory.reflection import evaluate

    knowledge = Knowledge(Database(paths.database_file()), cap=3, judge=evaluate)
    argv = ["sudo", "-n", "apt-get", "install", "-y", "htop"]
    assert signature(argv) == "apt-get install *"
    for _ in range(3):
        knowledge.record(argv, False, "missing_dependency")
        knowledge.record(argv, True, fix="refresh")
    assert knowledge.proactive("apt-get install *") == [("refresh", 3)]
    for _ in range(3):
        knowledge.record(["systemctl", "restart", "x.service"], False, "unknown")
    findings = knowledge.reflect()
    assert any("has failed 3 times in a row" in f.text for f in findings)
    assert knowledge.flagged("systemctl restart *")
    knowledge.record(["systemctl", "restart", "x.service"], True)
    knowledge.reflect()
    assert knowledge.flagged("systemctl restart *") is None  # it works again
    for n in range(5):
        knowledge.record(["tool", f"verb{n}"], True)
    assert len(knowledge.all()) == 3  # capped, oldest out


def test_learned_command_lists_and_forgets() -> None:
    knowledge = Knowledge(Database(paths.database_file()))
    knowledge.record(["apt-get", "install", "x"], True, fix="refresh")
    data = reos_json("learned", "--json")
    assert data["patterns"][0]["signature"] == "apt-get install *"
    assert "fixes that worked: refresh" in reos("learned").stdout
    assert reos("learned", "--forget").stdout.startswith("Forgot 1 learned pattern")
    assert reos_json("learned", "--json")["patterns"] == []


def test_a_learned_fix_is_planned_up_front_and_explained(tmp_path: Path) -> None:
    knowledge = Knowledge(Database(paths.database_file()))
    for _ in range(3):
        knowledge.record(["apt-get", "install", "-y", "x"], True, fix="refresh")
    engine = ReasoningEngine(Settings())
    plan = engine.plan("install reos-no-such-package-xyz")
    assert plan.steps[0].argv[-2:] == ["apt-get", "update"] or plan.steps[0].argv == [
        "apt-get", "update"]
    assert "I've seen this 3 times before, so now I do it proactively" in plan.text()
    answer = engine.respond("why did you update apt first?").text
    assert answer.startswith("I learned that on this system, apt-get install often fails "
                             "without a recent cache update. I've seen this 3 times before")

