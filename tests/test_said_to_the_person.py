"""Words that speak of the person or of one copy of a thing, read for what they say (found by
the F18 stranger set, on a language school's server; the machine and sentences here are our
own):

- "drop me the list of …", "hit me with the failed units": a verb that hands something to
  the person is a way to say "show me", never what it acts on (a system account called
  "list" was deleted) — "drop me from the docker group" still moves the person
  (`parser._handing`);
- "remove me from the docker group" takes the person's own account out of the group (it
  removed the docker package: "me" was a filler word; `parser._me_named`);
- "the staging copy of wiki" is wiki's staging copy, never every wiki container
  (`parser._copy_of`);
- ", not the monitoring containers", where nothing here is called "monitoring", is
  something left out, so the request is asked about rather than acted on without it
  (`tagging.exclusions`);
- "delete mueller", "lock Müller's account": a last name two people share, as people
  write it (Müller, Mueller, Muller), is asked about for a change to an account, never
  the one account whose login it is part of (`targeting.people_named`);
- "could you list which users belong to the teachers group": the request's first word, a
  verb, is never a target beside another, though Debian has a group called list
  (`target_words.its_own_verb`);
- "which containers are restarting", "… keep crashing": a container Docker keeps starting
  again is a failed one (`selection`, the containers' answer);
- a story whose asking sentence needs a question ("… Please remove both.") is asked, never
  acted on by the story's own names (`stories.focus`).
"""

from __future__ import annotations

import json

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot


def _container(name: str, project: str, state: str = "running") -> dict:
    return {"name": name, "id": (name * 4)[:12], "image": f"{name}:1", "state": state,
            "status": "Up 2 days" if state == "running" else "Exited (0) 9 days ago",
            "ports": [], "labels": {"com.docker.compose.project": project,
                                    "com.docker.compose.project.working_dir":
                                        f"/srv/{project}"}}


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    snapshot = SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2",
        "host": {"hostname": "quill", "distro_id": "debian", "distro_version": "12",
                 "init": "systemd", "package_manager": "apt", "is_root": False,
                 "user": "ines"},
        "containers": [_container("wiki-web", "wiki"), _container("wiki-db", "wiki"),
                       _container("wiki-staging-web-1", "wiki-staging"),
                       _container("wiki-staging-db-1", "wiki-staging"),
                       _container("monitor-exporter-1", "monitor"),
                       _container("wiki-web-old", "wiki", "exited"),
                       _container("wiki-mailer", "wiki", "restarting")],
        "services": [{"name": "node-exporter.service", "load": "loaded", "active": "active",
                      "sub": "running", "enabled": "enabled"},
                     {"name": "smbd.service", "load": "loaded", "active": "failed",
                      "sub": "failed", "enabled": "enabled"}],
        "packages": [{"name": "docker.io", "version": "24.0"}],
        "users": [{"name": "ines", "uid": 1000, "gid": 1000, "home": "/home/ines",
                   "shell": "/bin/bash", "groups": ["ines", "docker", "sudo"]},
                  {"name": "list", "uid": 38, "gid": 38, "home": "/var/list",
                   "shell": "/usr/sbin/nologin", "groups": ["list"]},
                  {"name": "amueller", "uid": 1001, "gid": 1001, "home": "/home/amueller",
                   "shell": "/bin/bash", "groups": ["amueller"],
                   "gecos": "Anna Mueller (maths),,,"},
                  {"name": "amuller", "uid": 1002, "gid": 1002, "home": "/home/amuller",
                   "shell": "/bin/bash", "groups": ["amuller"], "gecos": "Anton Muller,,,"}],
        "groups": [{"name": "docker", "gid": 120, "members": ["ines"]},
                   {"name": "sudo", "gid": 27, "members": ["ines"]},
                   {"name": "list", "gid": 38, "members": []},
                   {"name": "teachers", "gid": 1100, "members": ["amueller", "amuller"]}],
        "processes": []})
    return ReasoningEngine(Settings(), snapshot=snapshot)


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REOS_LLM", "off")


def changes(engine: ReasoningEngine, said: str) -> list[list[str]]:
    return [s.argv for s in engine.plan(said).steps if not s.read_only]


@pytest.mark.parametrize("said", ["drop me the list of compose projects",
                                  "shoot me the list of containers",
                                  "hit me with the failed units"])
def test_handing_something_to_the_person_only_shows(engine: ReasoningEngine, said: str) -> None:
    plan = engine.plan(said)
    assert plan.steps and all(s.read_only for s in plan.steps), said


@pytest.mark.parametrize("said", ["remove me from the docker group",
                                  "drop me from the docker group",
                                  "take me out of the docker group"])
def test_me_moved_out_of_a_group_is_my_account(engine: ReasoningEngine, said: str) -> None:
    assert changes(engine, said) == [["sudo", "-n", "gpasswd", "-d", "ines", "docker"]]


def test_me_in_a_question_stays_a_filler(engine: ReasoningEngine) -> None:
    assert not changes(engine, "show me the docker group")


@pytest.mark.parametrize("said", ["stop the staging copy of wiki",
                                  "Would you mind stopping the staging instance of wiki?"])
def test_one_copy_of_a_thing_is_that_copy(engine: ReasoningEngine, said: str) -> None:
    stopped = {argv[-1] for argv in changes(engine, said)}
    assert stopped == {"wiki-staging-web-1", "wiki-staging-db-1"}, said


def test_which_copy_is_still_a_question(engine: ReasoningEngine) -> None:
    plan = engine.plan("which version of docker.io is installed")
    assert all(s.read_only for s in plan.steps)


def test_things_left_out_by_words_naming_nothing_are_asked(engine: ReasoningEngine) -> None:
    assert changes(engine, "restart the exporter container") == [
        ["docker", "restart", "monitor-exporter-1"]]
    said = "restart the exporter container, not the monitoring containers"
    assert not changes(engine, said)
    # named, the same words leave those out
    assert not changes(engine, "restart the exporter container, not the monitor containers")


def test_a_story_whose_ask_needs_a_question_is_asked(engine: ReasoningEngine) -> None:
    said = ("We moved to the new wiki container last month and everything works. The old "
            "container from before the move is still around, and I don't need its image "
            "either. Please remove both.")
    plan = engine.plan(said)
    assert not changes(engine, said) and plan.question


@pytest.mark.parametrize("said", ["delete mueller", "delete muller", "lock Müller's account",
                                  "Delete the user Müller please"])
def test_a_last_name_two_people_share_is_asked(engine: ReasoningEngine, said: str) -> None:
    plan = engine.plan(said)
    assert not changes(engine, said) and plan.question
    assert "amueller" in plan.question and "amuller" in plan.question


def test_a_login_said_whole_is_that_account(engine: ReasoningEngine) -> None:
    assert changes(engine, "lock amuller") == [["sudo", "-n", "usermod", "-L", "amuller"]]


@pytest.mark.parametrize("said", ["Could you list which users belong to the teachers group?",
                                  "list the members of the teachers group"])
def test_the_first_word_is_the_verb_not_a_group(engine: ReasoningEngine, said: str) -> None:
    commands = [s.argv for s in engine.plan(said).steps]
    assert ["getent", "group", "teachers"] in commands
    assert ["getent", "group", "list"] not in commands


def test_a_group_called_like_the_verb_is_still_found_alone(engine: ReasoningEngine) -> None:
    assert ["getent", "group", "list"] in [s.argv for s in engine.plan(
        "show the members of list").steps]


@pytest.mark.parametrize("said", ["why smbd failed", "smbd why failed",
                                  "why the smbd service is not running"])
def test_why_a_unit_failed_in_any_order(engine: ReasoningEngine, said: str) -> None:
    plan = engine.plan(said)
    assert any(s.argv[:2] == ["journalctl", "-u"] and "smbd.service" in s.argv
               for s in plan.steps), said


@pytest.mark.parametrize("said", ["which containers are restarting",
                                  "which contianers are restarting",
                                  "which containers keep crashing", "list the failed containers"])
def test_a_container_in_a_restart_loop_is_a_failed_one(engine: ReasoningEngine,
                                                      said: str) -> None:
    from reos.model.report import StepResult
    from reos.words.conversation import Voice, answer_containers

    plan = engine.plan(said)
    assert plan.steps and all(s.read_only for s in plan.steps), said
    assert plan.intent is not None and plan.intent.params.get("filter") == "failed"
    rows = "\n".join(json.dumps({"Names": name, "State": state, "Status": state})
                     for name, state in (("wiki-web", "running"), ("wiki-mailer", "restarting"),
                                         ("wiki-web-old", "exited")))
    said_back = answer_containers([StepResult("s1", "docker ps", 0, rows, "")],
                                  plan.intent.params, Voice())
    assert "wiki-mailer" in said_back and "wiki-web-old" not in said_back


@pytest.mark.parametrize("said", ["delete the extra copy of wiki",
                                  "remove the spare instance of wiki"])
def test_a_copy_said_by_a_word_that_names_nothing_is_asked(engine: ReasoningEngine,
                                                          said: str) -> None:
    assert not changes(engine, said)  # review: every wiki container was removed


@pytest.mark.parametrize("said", ["delete me from the system", "remove me off the machine"])
def test_me_is_my_account_only_before_a_group(engine: ReasoningEngine, said: str) -> None:
    assert not any("userdel" in argv for argv in changes(engine, said))
