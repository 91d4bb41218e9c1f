"""Where a told request asks, and which process "the java" is (issue 21).

A story's sentence may ask in a later clause ("to keep it quiet during the upgrade,
please stop watchtower"; "before I try anything fancy, just restart mumble and show me
its status afterwards"); "its status" is the thing named before even when a compose
project is called "status"; "kill the java" where three servers each run their own
JVM asks which one, while "kill firefox" ends the browser with its children, and "all
java" ends every one. A clause after "if" or "since" is never the ask; a trailing "why"
asks unless told not to; a bare number is read once. The snapshot is built here.
"""

from __future__ import annotations

import pytest

from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot


def _process(pid: int, ppid: int, user: str, name: str, cmdline: str) -> dict:
    return {"pid": pid, "ppid": ppid, "name": name, "user": user, "cmdline": cmdline,
            "cpu_percent": 5.0, "memory_rss": 1 << 28}


def _container(name: str, project: str) -> dict:
    return {"name": name, "id": f"{name}-id"[:12], "image": f"{name}:1", "state": "running",
            "status": "Up 2 days", "ports": [],
            "labels": {"com.docker.compose.project": project,
                       "com.docker.compose.service": name,
                       "com.docker.compose.project.working_dir": f"/srv/{project}"}}


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    snapshot = SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2",
        "host": {"hostname": "gs1", "distro_id": "debian", "distro_version": "12",
                 "init": "systemd", "package_manager": "apt", "is_root": True},
        "containers": [_container("watchtower", "watchtower"),
                       _container("uptime-kuma", "status")],  # a project called status
        "services": [{"name": "mumble-server.service", "description": "Mumble VoIP Server",
                      "load": "loaded", "active": "active", "sub": "running",
                      "enabled": "enabled"}],
        "processes": [
            _process(1, 0, "root", "systemd", "/sbin/init"),
            _process(1105, 1, "minecraft", "java", "java -Xmx10G -jar paper.jar --nogui"),
            _process(1209, 1, "minecraft", "java", "java -Xmx12G @forge_args.txt nogui"),
            _process(2392, 1, "lavalink", "java", "java -Xmx1G -jar Lavalink.jar"),
            _process(5000, 1, "ana", "firefox", "/usr/lib/firefox/firefox"),
            _process(5001, 5000, "ana", "firefox", "/usr/lib/firefox/firefox -contentproc 1"),
            _process(5002, 5000, "ana", "firefox", "/usr/lib/firefox/firefox -contentproc 2"),
        ],
        "users": [{"name": "ana", "uid": 1000, "gid": 1000, "home": "/home/ana",
                   "shell": "/bin/bash", "groups": []}],
    })
    return ReasoningEngine(Settings(), snapshot=snapshot)


def test_a_story_asks_in_a_later_clause_of_its_sentence(engine: ReasoningEngine) -> None:
    plan = engine.plan("I'm about to upgrade the system packages; to avoid the watchtower "
                       "container randomly restarting things during maintenance, please "
                       "stop watchtower for now. I'll start it again later.")
    assert plan.kind == Kind.ACTION
    assert [s.argv for s in plan.steps] == [["docker", "stop", "watchtower"]]


def test_the_asking_clause_after_a_told_one_is_read_as_its_parts(
        engine: ReasoningEngine) -> None:
    plan = engine.plan("I've been hearing complaints that voice chat drops every few hours. "
                       "Mumble is on the old package from Debian. Before I try anything "
                       "fancy, just restart the mumble service and show me its status "
                       "afterwards.")
    assert plan.intent is not None and plan.intent.operation == "several"
    assert [p.operation for p in plan.intent.parts] == ["service.restart", "service.status"]
    assert [p.targets for p in plan.intent.parts] == [["mumble"], ["mumble"]]
    assert [s.argv for s in plan.steps] == [["systemctl", "restart", "mumble-server.service"]]


def test_its_status_is_the_named_things_beside_a_project_called_status(
        engine: ReasoningEngine) -> None:
    plan = engine.plan("restart the mumble service and show me its status")
    assert plan.intent is not None
    assert [(p.operation, p.targets) for p in plan.intent.parts] == [
        ("service.restart", ["mumble"]), ("service.status", ["mumble"])]
    assert "uptime-kuma" not in plan.text()


def test_the_java_of_three_separate_programs_is_asked_about(engine: ReasoningEngine) -> None:
    plan = engine.plan("kill the java")
    assert plan.kind == Kind.CLARIFY and not plan.steps
    asked = [label for label, _ in plan.options]
    assert len(asked) == 3 and all(f"(process {pid})" in " ".join(asked)
                                   for pid in (1105, 1209, 2392))
    assert [option.targets for _, option in plan.options] == [["1105"], ["1209"], ["2392"]]


def test_all_java_and_a_programs_own_children_are_not_asked_about(
        engine: ReasoningEngine) -> None:
    every = engine.plan("kill all java")
    assert every.kind == Kind.ACTION
    assert sorted(s.argv[-1] for s in every.steps) == ["1105", "1209", "2392"]
    browser = engine.plan("kill firefox")  # the browser and its content processes
    assert browser.kind == Kind.ACTION
    assert sorted(s.argv[-1] for s in browser.steps) == ["5000", "5001", "5002"]
    looked = engine.plan("show the java process")  # reading all of them costs nothing
    assert looked.kind == Kind.QUERY and len(looked.steps) == 3


@pytest.mark.parametrize("say", ["Show me the mumble logs please. If they look bad, stop it.",
                                 "Please show me the mumble logs. Since Monday, restart loops "
                                 "hit it."])
def test_a_clause_after_a_condition_or_a_time_is_no_ask(engine: ReasoningEngine,
                                                        say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.QUERY and all(s.read_only for s in plan.steps), (say, plan.text())


def test_a_trailing_why_asks_unless_it_is_told_not_to(engine: ReasoningEngine) -> None:
    assert engine.plan("mumble restarting again why").kind == Kind.QUERY
    told = engine.plan("restart mumble, do not ask why")
    assert [s.argv for s in told.steps] == [["systemctl", "restart", "mumble-server.service"]]


@pytest.mark.parametrize("say", ["whats on 08080", "what is on 8,080", "what's on 64738"])
def test_a_bare_number_is_read_once(engine: ReasoningEngine, say: str) -> None:
    plan = engine.plan(say)  # never read again and again ("08080" is 8080 as a number)
    assert plan.kind in (Kind.QUERY, Kind.UNKNOWN), (say, plan.kind)


@pytest.mark.parametrize("say", [
    "Since we don't use voice chat any more, could you please stop mumble?",
    "since nobody uses it, can you stop mumble?",
])
def test_a_polite_ask_after_a_reason_is_an_ask(engine: ReasoningEngine, say: str) -> None:
    # F18: "Since we don't use NetBIOS names, could you please stop and disable nmbd?"
    # only looked at nmbd: the polite ask was no ask after the reason's clause
    plan = engine.plan(say)
    assert [s.argv for s in plan.steps] == [["systemctl", "stop", "mumble-server.service"]]


@pytest.mark.parametrize("say", ["mumble keeps crashing, tell me why",
                                 "mumble keeps crashing, could you find out why?"])
def test_why_after_what_was_told_is_why_of_it(engine: ReasoningEngine, say: str) -> None:
    plan = engine.plan(say)  # it read "tell me why" alone: why the disk is full
    assert plan.kind == Kind.QUERY
    assert any("mumble-server.service" in s.argv for s in plan.steps), plan.text()


@pytest.mark.parametrize("say", ["Once the backup finishes, can you stop mumble?",
                                 "Tomorrow, could you stop mumble?",
                                 "Should I stop mumble, can you advise?"])
def test_a_polite_ask_after_a_condition_or_a_time_stays_a_question(
        engine: ReasoningEngine, say: str) -> None:
    plan = engine.plan(say)  # review: these stopped mumble at once
    assert all(s.read_only for s in plan.steps), (say, plan.text())
