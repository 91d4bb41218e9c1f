"""What a newcomer found in a first session: "why did you do that?" had no record, undoing
a restart ran `docker start`, and reos's own words (step ids, component names, raw
exceptions) reached the person.

Docker tests use real containers of the test bed (tests/conftest.py); the rest plan
against the homelab snapshot and a real journal in this test's REOS_HOME.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.conftest import Containers, reos, reos_json

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


def homelab() -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.load(FIXTURE))


# -- 6. "why did you do that?" is about the last thing reos did -----------------------------

PRONOUN_FORMS = ["why did you do that?", "why did you do it", "why did you do this?",
                 "how come you did that?", "why did you make the last change?",
                 "why did you do what you just did?"]


@pytest.mark.docker
@pytest.mark.parametrize("asked", PRONOUN_FORMS)
def test_that_is_the_last_change_of_this_session(containers: Containers, asked: str) -> None:
    first, second = containers.run("first"), containers.run("second")
    engine = ReasoningEngine(Settings())
    for request in (f"stop {first}", f"restart {second}"):
        assert engine.respond(request).awaiting_approval
        assert engine.respond("yes").report is not None
    answer = engine.respond(asked).text
    assert answer.startswith(f"Because you asked me to \u201crestart {second}\u201d"), answer
    assert f"docker restart {second}" in answer and first not in answer
    # the same reasoning `why did you restart <it>?` gives
    assert answer == engine.respond(f"why did you restart {second}?").text


@pytest.mark.docker
def test_that_is_the_journals_last_change_in_a_fresh_reos_plan(containers: Containers) -> None:
    name = containers.run("fresh")
    done = reos("plan", "--yes", f"restart {name}")
    assert done.returncode == 0, done.stderr
    asked = reos("plan", "why did you do that?")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith(f"Because you asked me to \u201crestart {name}\u201d"), \
        asked.stdout
    assert f"docker restart {name}" in asked.stdout


def test_that_before_anything_was_done_says_so_plainly() -> None:
    answer = homelab().respond("why did you do that?").text
    assert "wasn't me" not in answer
    assert answer == "I haven't changed anything here yet, so there is nothing to explain."


# -- 7. a restart has no prior state: undo restores nothing for it --------------------------

@pytest.mark.parametrize("request_,argv", [
    ("restart nginx", ["systemctl", "restart", "nginx.service"]),
    ("reload nginx", ["systemctl", "reload", "nginx.service"]),
    ("restart portainer", ["docker", "restart", "portainer"]),
])
def test_a_restart_step_is_never_called_reversible(request_: str, argv: list[str]) -> None:
    engine = homelab()
    plan = engine.plan(request_)
    [step] = plan.steps
    assert step.argv[-len(argv):] == argv
    assert step.reversible is False and step.rollback is None
    data = plan.to_dict()["steps"][0]
    assert data["reversible"] is False and data["rollback"] is None
    assert "cannot be undone: there is nothing to restore" in plan.text()
    # nothing is lost by it, so no second "this can't be taken back" question
    assert engine.second_question(plan) is None


def test_reos_plan_json_does_not_call_a_restart_reversible() -> None:
    data = reos_json("plan", "--json", "--context", str(FIXTURE), "restart nginx")
    [step] = data["steps"]
    assert step["reversible"] is False and step["rollback"] is None


@pytest.mark.docker
def test_undo_restores_the_stop_and_runs_nothing_for_the_restart(
        containers: Containers) -> None:
    stopped, bounced = containers.run("stopped"), containers.run("bounced")
    done = reos("plan", "--yes", f"stop {stopped} and restart {bounced}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert containers.state(stopped) == "exited" and containers.state(bounced) == "running"
    undo = reos("undo")
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert f"(ran: docker start {stopped})" in undo.stdout
    assert f"docker start {bounced}" not in undo.stdout
    assert (f"\u201cRestart {bounced}\u201d cannot be undone: there is nothing to restore"
            in undo.stdout), undo.stdout
    assert containers.state(stopped) == containers.state(bounced) == "running"
    undo_tx = reos_json("history", "--json")["transactions"][0]
    assert undo_tx["kind"] == "undo"
    assert [s["argv"] for s in undo_tx["steps"]] == [["docker", "start", stopped]]


@pytest.mark.docker
def test_undo_of_a_lone_restart_says_so_and_runs_nothing(containers: Containers) -> None:
    name = containers.run("lone")
    assert reos("plan", "--yes", f"restart {name}").returncode == 0
    undo = reos("undo")
    assert undo.returncode == 4, undo.stdout + undo.stderr  # nothing was undone
    assert (f"\u201cRestart {name}\u201d cannot be undone: there is nothing to restore"
            in undo.stdout), undo.stdout
    assert "Done!" not in undo.stdout
    assert containers.state(name) == "running"
    history = reos_json("history", "--json")["transactions"]
    assert all(s["argv"][:2] != ["docker", "start"] for tx in history for s in tx["steps"])


def test_a_restart_recorded_with_an_old_undo_command_is_not_run() -> None:
    """A journal written before this fix holds `docker start` as a restart's undo: it is
    never run (the journal is real; nothing here touches docker)."""
    from reos.execution.undo import undo_latest

    engine = homelab()
    tx = engine.journal.begin("restart portainer")
    row = engine.journal.begin_step(tx, 0, "s1", "Restart portainer",
                                    ["docker", "restart", "portainer"], action="restart",
                                    target_kind="container", target_name="portainer",
                                    prior_state={"state": "running"},
                                    rollback=["docker", "start", "portainer"])
    engine.journal.finish_step(row, "done", 0)
    engine.journal.finish(tx, "completed")
    from reos.model.report import StepResult

    ran: list[list[str]] = []

    def record(argv: list[str], **_: object) -> StepResult:  # what would have run
        ran.append(argv)
        return StepResult("u1", True, 0)

    report = undo_latest(engine.journal, run=record)
    assert ran == [] and report.steps == []
    assert "\u201cRestart portainer\u201d cannot be undone: there is nothing to restore" \
        in report.describe()


# -- 9. reos's own words stay reos's --------------------------------------------------------

def test_the_second_question_numbers_steps_as_people_do() -> None:
    engine = homelab()
    plan = engine.plan("remove portainer")
    question = engine.second_question(plan) or ""
    assert "s2" not in question and "s1" not in question
    assert "  2. Remove portainer" in question


def test_reos_why_says_step_numbers_and_no_component_names() -> None:
    from reos.memory import audit, audit_text, recall
    from reos.store.db import now

    engine = homelab()
    plan = engine.plan("stop portainer")
    text = audit_text.render(audit.chain(plan))
    assert "catalogue parser" not in text and "  s1." not in text
    assert "  1. Stop portainer   $ docker stop portainer" in text
    answer = recall.why("stop portainer", engine.traces.recent(), [], [], now=now())
    assert "catalogue parser" not in answer and "(my own reading; " in answer


def test_a_verbose_plan_names_no_component() -> None:
    done = reos("plan", "--verbose", "--dry-run", "--context", str(FIXTURE), "restart nginx")
    assert done.returncode == 0, done.stderr
    assert "catalogue parser" not in done.stderr and "understanding: " in done.stderr


def test_the_post_flight_summary_says_step_numbers() -> None:
    from reos.execution.gates import postflight
    from reos.model.report import ExecutionReport, StepResult

    plan = Plan("stop x", Kind.ACTION, steps=[Step("s1", "Stop x", ["docker", "stop", "x"])])
    report = ExecutionReport(None, failed=plan.steps[0],
                             results=[StepResult("s1", False, 1, "", "boom")])
    said = " ".join(v.said for v in postflight(report))
    assert "s1" not in said and "step 1" in said


def test_an_edit_that_names_a_missing_step_says_a_number() -> None:
    from reos.editing import edit_step

    plan = homelab().plan("stop portainer")
    assert edit_step(plan, "s9", "docker stop portainer") == "there is no step 9 in this plan"
    said = edit_step(plan, "s1", "docker stop 'portainer")
    assert said is not None and "No closing quotation" not in said
    assert said == "I can't read that as a command: a quotation mark is not closed"


def test_docker_errors_are_one_plain_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    from reos.system import collectors
    from reos.system.portable import Unavailable

    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    with pytest.raises(Unavailable) as caught:
        collectors.docker_client(timeout=1)
    said = str(caught.value)
    assert "Connection aborted" not in said and "FileNotFoundError" not in said
    assert said == ("Docker does not answer at unix:///nonexistent/docker.sock (is the "
                    "docker daemon running?)")


def test_a_failed_save_of_the_verbosity_is_said_without_the_exception(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import reos.settings as settings

    def refuse(*_: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / "settings.toml"))

    monkeypatch.setattr(settings, "save_value", refuse)
    said = homelab().set_verbosity("minimal", keep=True)
    assert "Errno" not in said and "PermissionError" not in said
    assert said == "Okay, keeping it short for this session; saving it for next time " \
        "failed: permission denied."


def test_json_keeps_its_step_ids() -> None:
    data = reos_json("plan", "--json", "--context", str(FIXTURE), "stop portainer")
    assert data["steps"][0]["id"] == "s1"
    assert json.dumps(data)  # the contract is untouched


# -- a restart of something stopped starts it: its undo stops it again ----------------------

def test_a_restart_of_a_stopped_thing_has_an_undo_before_approval() -> None:
    for request, undo in (("restart nextcloud-db", ["docker", "stop", "nextcloud-db"]),
                          ("restart apache2", ["systemctl", "stop", "apache2.service"])):
        step = homelab().plan(request).steps[0]
        assert step.reversible and not step.nothing_to_restore, request
        assert step.rollback is not None and step.rollback[-3:] == undo, request
    running = homelab().plan("restart portainer").steps[0]
    assert running.nothing_to_restore and not running.reversible and not running.rollback


def test_only_the_restart_itself_is_exempt_in_a_restart_recipe(reos_home: Path) -> None:
    # a user's recipe for "restart" that also empties a file: that step is lost for good,
    # and the plan asks the second question for it
    templates = reos_home / "config" / "templates"
    templates.mkdir(parents=True)
    (templates / "mine.toml").write_text(
        '[recipe.container.restart]\nverb = "restart"\nsteps = [\n'
        '  { title = "Empty the log", argv = ["truncate", "-s", "0", "/var/log/app.log"],'
        ' reversible = false },\n'
        '  { title = "Restart {name}", argv = ["docker", "restart", "{name}"] },\n]\n')
    engine = homelab()
    plan = engine.plan("restart portainer")
    emptied, bounced = plan.steps
    assert not emptied.nothing_to_restore and not emptied.reversible
    assert bounced.nothing_to_restore
    assert engine.second_question(plan) is not None  # the emptied log is asked about


@pytest.mark.docker
def test_undo_of_a_restart_that_started_a_stopped_container_stops_it(
        containers: Containers) -> None:
    name = containers.run("sleepy", running=False)
    assert reos("plan", "--yes", f"restart {name}").returncode == 0
    assert containers.state(name) == "running"
    undo = reos("undo")
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert f"docker stop {name}" in undo.stdout
    assert containers.state(name) == "exited"
