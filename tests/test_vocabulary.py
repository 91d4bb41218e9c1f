"""Issue 3 behaviour beyond the evaluation cases: answers from real commands, conditions
re-checked before acting, questions and their answers, verbosity, "why did you …?"."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reos import paths, settings
from reos.engine import ReasoningEngine
from reos.model.report import StepResult
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.system.state import restore_argv
from reos.words.conversation import Voice
from tests.conftest import Containers

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


def homelab() -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.load(FIXTURE))


def live() -> ReasoningEngine:
    return ReasoningEngine(Settings())


# -- answers from real read-only commands on this machine --------------------------------

@pytest.mark.parametrize("request_text,starts", [
    ("how much memory is free?", "You're using "),
    ("how much disk space is left", "Disk space:\n  /: "),
    ("what's the load", "The machine is "),
    ("uptime", "The machine has been up for "),
    ("what os is this", "This is "),
    ("show me the top processes", "The processes using the most CPU right now"),
])
def test_machine_questions_are_answered_in_words(request_text: str, starts: str) -> None:
    reply = live().respond(request_text)
    assert reply.plan is not None and reply.plan.kind == Kind.QUERY
    assert reply.text.startswith(starts), reply.text


@pytest.mark.parametrize("request_text", [
    "which containers are running at the moment",
    "I'd appreciate it if you could show me which containers are running at present.",
])
def test_polite_words_and_words_for_now_are_read_with_the_request(request_text: str) -> None:
    plan = homelab().plan(request_text)
    assert plan.kind == Kind.QUERY and plan.steps, plan.text()
    assert plan.steps[0].argv[:2] == ["docker", "ps"]
    assert plan.intent is not None and not plan.intent.reading.unexplained, plan.intent


def test_memory_answer_matches_the_kernel() -> None:
    import psutil

    reply = live().respond("how much ram do I have")
    total_gib = psutil.virtual_memory().total / 1024 ** 3
    assert f"of {total_gib:.1f} GiB memory" in reply.text


def test_what_is_listening_on_a_port_names_the_process() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                               "127.0.0.1"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        reply = live().respond(f"what is listening on port {port}?")
        assert reply.text.startswith(f"Port {port}: "), reply.text
        assert f"(pid {server.pid})" in reply.text
        free = live().respond("is anything listening on port 1")
        assert free.text == "Nothing is listening on port 1."
    finally:
        server.terminate()
        server.wait()


def test_summaries_respect_brevity() -> None:
    engine = live()
    engine.voice.verbosity = "minimal"
    assert "swap" not in engine.respond("how much memory is free").text.lower()


# -- conditions ------------------------------------------------------------------------

@pytest.mark.docker
def test_condition_is_rechecked_just_before_acting(containers: Containers) -> None:
    name = containers.run("cond")
    engine = live()
    plan = engine.plan(f"is {name} running? if so stop it")
    assert plan.kind == Kind.COMBINED and plan.steps[0].argv == ["docker", "stop", name]
    assert "is running" in plan.text()
    containers.client.containers.get(name).stop(timeout=5)  # the world changes
    report = engine.execute(plan)
    assert report.tx_id is None and report.completed == []
    assert "condition no longer holds" in (report.stopped_reason or "")


@pytest.mark.docker
def test_condition_false_at_planning_means_no_steps(containers: Containers) -> None:
    name = containers.run("idle", running=False)
    plan = live().plan(f"if {name} is running, restart it")
    assert plan.kind == Kind.COMBINED and plan.steps == []
    assert "isn't running" in plan.text()


# -- questions, and answering them -------------------------------------------------------

def test_a_clarifying_question_can_be_answered_in_chat() -> None:
    engine = homelab()
    first = engine.respond("restart redis")
    assert first.plan is not None and first.plan.kind == Kind.CLARIFY
    assert "the container redis-cache" in first.text
    second = engine.respond("the service")
    assert second.awaiting_approval and second.plan is not None
    assert second.plan.steps[0].argv[-1] == "redis-server.service"


def test_ambiguous_description_asks_which_one() -> None:
    plan = homelab().plan("restart the web server")
    assert plan.kind == Kind.CLARIFY
    assert {o.targets[0] for _, o in plan.options} == {"nginx.service", "apache2.service"}


# -- what reos says ---------------------------------------------------------------------

def test_verbosity_lasts_for_the_session_and_leaves_the_file_alone() -> None:
    path = paths.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text("[conversation]\nverbosity = \"normal\"\n")
    engine = live()
    said = engine.respond("be brief").text
    assert said.startswith("Okay, keeping it short for this session")
    assert "\u201calways be brief\u201d" in said  # how to keep it is said
    assert engine.voice.verbosity == "minimal"
    assert path.read_text() == "[conversation]\nverbosity = \"normal\"\n"
    assert ReasoningEngine(settings.load()).voice.verbosity == "normal"  # the next session


@pytest.mark.parametrize("said", ["always be brief", "be brief by default",
                                  "keep it short, and remember that", "be concise permanently"])
def test_verbosity_is_saved_when_asked_and_comments_survive(said: str) -> None:
    path = paths.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text("# my settings\n[conversation]\nverbosity = \"normal\"  # how chatty\n"
                    "show_commands = true\n\n[limits]\nmax_operations = 9  # mine\n")
    engine = live()
    answer = engine.respond(said).text
    assert answer.startswith("Okay, keeping it short from now on") and str(path) in answer
    text = path.read_text()
    assert "# my settings" in text and 'verbosity = "minimal"  # how chatty' in text
    assert "max_operations = 9  # mine" in text
    assert settings.load().conversation.verbosity == "minimal"
    engine.respond("always be more detailed")
    assert settings.load().conversation.verbosity == "detailed"


def test_verbosity_is_saved_when_there_was_no_file() -> None:
    live().respond("always be concise")
    assert settings.load().conversation.verbosity == "minimal"


def test_a_settings_file_reos_cannot_read_is_never_overwritten() -> None:
    path = paths.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text("[conversation\nverbosity = 'normal'\n")
    engine = ReasoningEngine(Settings())
    answer = engine.respond("always be brief").text
    assert answer.startswith("Okay, keeping it short for this session; ")
    assert path.read_text() == "[conversation\nverbosity = 'normal'\n"
    assert engine.voice.verbosity == "minimal"


def test_a_plan_shows_its_commands_at_every_verbosity() -> None:
    engine = homelab()
    assert "$ docker stop portainer" in engine.plan("stop portainer").text()
    engine.voice = Voice("minimal", True)
    assert "$ docker stop portainer" in engine.plan("stop portainer").text()
    engine.voice = Voice("normal", False)
    assert "$ docker stop portainer" in engine.plan("stop portainer").text()


def test_show_commands_off_and_minimal_quieten_the_running() -> None:
    from reos.words.conversation import step_started

    step = homelab().plan("stop portainer").steps[0]
    assert "$ docker stop portainer" in (step_started(step, Voice("normal", True)) or "")
    assert "$ docker" not in (step_started(step, Voice("normal", False)) or "")
    assert step_started(step, Voice("minimal", True)) is None


def test_detailed_shows_risk_and_undo() -> None:
    engine = homelab()
    engine.voice = Voice("detailed", True)
    message = engine.plan("stop portainer").text()
    assert "risk medium" in message and "undo: docker start portainer" in message


def test_why_did_you_is_answered_from_the_journal() -> None:
    engine = homelab()
    tx = engine.journal.begin("stop the portainer container")
    row = engine.journal.begin_step(tx, 0, "s1", "Stop portainer",
                                    ["docker", "stop", "portainer"])
    engine.journal.finish_step(row, "done", 0)
    engine.journal.finish(tx, "completed")
    answer = engine.respond("why did you stop portainer?").text
    assert answer.startswith("Because you asked me to \u201cstop the portainer container\u201d")
    assert "docker stop portainer" in answer
    assert "don't have a record" in engine.respond("why did you reboot the machine?").text


def test_refusal_is_never_a_plan() -> None:
    reply = homelab().respond("wipe the hard drive")
    assert reply.plan is not None and reply.plan.kind == Kind.REFUSE
    assert reply.plan.steps == [] and reply.text.startswith("I won't do that.")


# -- the boot diagnosis -------------------------------------------------------------------

BLAME = """\
    12.412s NetworkManager-wait-online.service
     3.006s apt-daily.service
     2.100s bluetooth.service
      812ms cups.service
   1min 2.5s some-vendor-thing.service
"""


def test_boot_diagnosis_proposes_only_slow_safe_units() -> None:
    from reos.diagnosis.boot import boot_plan

    engine = homelab()
    results = [StepResult("s1", True, 0, BLAME)]
    plan = boot_plan("speed up my boot time", results, engine.builder())
    assert [s.argv[-1] for s in plan.steps] == ["NetworkManager-wait-online.service",
                                                 "bluetooth.service"]
    assert all(s.argv[-2] == "disable" for s in plan.steps)
    assert "takes 12.4s" in plan.text() and plan.needs_approval
    assert all(s.rollback and s.rollback[-2:] == ["enable", s.argv[-1]] for s in plan.steps)


def test_boot_summary_lists_the_slowest() -> None:
    from reos.words.answers.common import boot_summary

    text = boot_summary([StepResult("s1", True, 0, BLAME)], {}, Voice())
    assert text.splitlines()[1].strip() == "62.5s  some-vendor-thing.service"


# -- undo commands computed from prior state --------------------------------------------

@pytest.mark.parametrize("action,prior,expected", [
    ("stop", {"active": "active", "enabled": "enabled"}, ["systemctl", "start", "x.service"]),
    ("start", {"active": "inactive", "enabled": "disabled"}, ["systemctl", "stop", "x.service"]),
    ("enable", {"active": "inactive", "enabled": "disabled"},
     ["systemctl", "disable", "x.service"]),
    ("disable", {"active": "active", "enabled": "enabled"},
     ["systemctl", "enable", "x.service"]),
    ("disable_now", {"active": "active", "enabled": "enabled"},
     ["systemctl", "enable", "--now", "x.service"]),
    ("disable_now", {"active": "active", "enabled": "disabled"},
     ["systemctl", "start", "x.service"]),
    ("enable_now", {"active": "inactive", "enabled": "disabled"},
     ["systemctl", "disable", "--now", "x.service"]),
    ("mask", {"active": "inactive", "enabled": "disabled"},
     ["systemctl", "unmask", "x.service"]),
    ("mask", {"active": "inactive", "enabled": "masked"}, None),
    ("enable", {"active": "active", "enabled": "static"}, None),
])
def test_service_restore(action, prior, expected) -> None:
    assert restore_argv("service", "x.service", prior, action) == expected


def test_package_restore() -> None:
    assert restore_argv("package", "htop", {"state": "absent"}, "install", "apt") == [
        "apt-get", "remove", "-y", "htop"]
    assert restore_argv("package", "vim", {"state": "installed", "version": "2:9.0"},
                        "remove", "apt") == ["apt-get", "install", "-y", "--no-remove",
                                             "vim=2:9.0"]
    assert restore_argv("package", "vim", {"state": "installed"}, "purge", "apt") is None
    assert restore_argv("package", "htop", {"state": "absent"}, "install", "pacman") == [
        "pacman", "-R", "--noconfirm", "htop"]


def test_plan_prefix_shows_even_a_query_for_approval() -> None:
    engine = homelab()
    reply = engine.respond("plan: how much memory is free")
    assert reply.awaiting_approval and reply.plan is not None and reply.plan.forced
    assert "$ free -b" in reply.text


@pytest.mark.docker
def test_execution_starts_with_a_natural_sentence(containers: Containers) -> None:
    from reos.model.events import Said

    name = containers.run("talk")
    engine = live()
    said: list[str] = []
    engine.execute(engine.plan(f"restart {name}"),
                   lambda e: said.append(e.text) if isinstance(e, Said) else None)
    assert said == [f"Okay, restarting {name}\u2026"]


def test_reos_plan_shows_the_commands_at_minimal_verbosity() -> None:
    from tests.conftest import reos

    path = paths.settings_file()
    path.parent.mkdir(parents=True)
    path.write_text('[conversation]\nverbosity = "minimal"\nshow_commands = false\n')
    done = reos("plan", "--dry-run", "--context", str(FIXTURE), "stop portainer")
    assert "$ docker stop portainer" in done.stdout, done.stdout + done.stderr
