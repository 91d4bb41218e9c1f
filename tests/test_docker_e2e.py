"""End to end on the real docker engine: plan, run, history, undo, and the plain answers."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Containers, reos, reos_json

pytestmark = pytest.mark.docker


def test_stop_a_compose_project_then_undo(containers: Containers) -> None:
    project = containers.prefix
    app = containers.run("app", project=project)
    redis = containers.run("redis", project=project)
    main = containers.run("")  # named exactly like the project, without its label
    bystander = containers.run("other", joined=True)  # shares no name token with it

    done = reos("plan", "--yes", f"stop the {project} containers")
    assert done.returncode == 0, done.stderr
    assert "This will stop 3 containers" in done.stdout
    assert f"$ docker stop {app}" in done.stdout and "Done!" in done.stdout
    assert containers.state(app) == containers.state(redis) == containers.state(main) \
        == "exited"
    assert containers.state(bystander) == "running"

    tx = reos_json("history", "--json")["transactions"][0]
    assert tx["request"] == f"stop the {project} containers"
    assert tx["status"] == "completed" and tx["undoable"] is True
    assert sorted(s["argv"][2] for s in tx["steps"]) == sorted([main, app, redis])
    assert all(s["prior_state"]["state"] == "running" for s in tx["steps"])

    undo = reos("undo")
    assert undo.returncode == 0, undo.stderr
    assert f"(ran: docker start {redis})" in undo.stdout
    assert undo.stdout.index(redis) < undo.stdout.index(app)  # newest first
    assert containers.state(app) == containers.state(redis) == containers.state(main) \
        == "running"

    history = reos_json("history", "--json")["transactions"]
    assert history[0]["kind"] == "undo" and history[0]["undoes"] == tx["id"]
    assert history[1]["status"] == "undone" and history[1]["undoable"] is False
    assert reos("undo").returncode == 4  # nothing left to undo


def test_missing_container_gets_a_plain_answer_and_changes_nothing(
        containers: Containers) -> None:
    web = containers.run("web")
    done = reos("plan", "--yes", f"stop the {containers.prefix}zzz containers")
    assert done.returncode == 4
    assert done.stdout.startswith(f"No containers match \u2018{containers.prefix}zzz\u2019.")
    assert web in done.stdout  # it lists what is running
    assert containers.state(web) == "running"
    assert reos_json("history", "--json")["transactions"] == []


def test_query_answers_in_words(containers: Containers) -> None:
    up = containers.run("up")
    down = containers.run("down", running=False)
    done = reos("plan", "what containers are running?")
    assert done.returncode == 0, done.stderr
    assert " running: " in done.stdout and f"{up} (Up" in done.stdout
    assert down not in done.stdout  # the question asked for the running ones only
    done = reos("plan", "list all containers")
    assert done.returncode == 0, done.stderr
    running_part, _, stopped_part = done.stdout.partition("Stopped:")
    assert done.stdout.startswith("You have ") and f"- {up} (Up" in running_part
    assert down in stopped_part and down not in running_part
    done = reos("plan", "which containers are stopped?")
    assert down in done.stdout and up not in done.stdout


def test_start_a_stopped_container_and_undo_stops_it(containers: Containers) -> None:
    name = containers.run("idle", running=False)
    data = reos_json("plan", "--json", "--yes", f"start {name}")
    assert data["execution"]["ok"] is True and data["steps"][0]["argv"] == ["docker", "start",
                                                                           name]
    assert containers.state(name) == "running"
    undo = reos_json("undo", "--json")
    assert undo["ok"] and undo["steps"][0]["command"] == f"docker stop {name}"
    assert containers.state(name) == "exited"


def test_json_without_yes_never_runs(containers: Containers) -> None:
    name = containers.run("keep")
    data = reos_json("plan", "--json", f"kill {name}")
    assert data["steps"][0]["argv"] == ["docker", "kill", name]
    assert "execution" not in data
    assert containers.state(name) == "running"


def test_live_snapshot_sees_compose_labels(containers: Containers) -> None:
    name = containers.run("lbl", project=containers.prefix)
    data = reos_json("context", "--json")
    mine = [c for c in data["containers"] if c["name"] == name]
    assert mine and mine[0]["state"] == "running"
    assert mine[0]["labels"]["com.docker.compose.project"] == containers.prefix
    assert mine[0]["image"] == "reos-test/busybox:latest"


def test_remove_says_it_cannot_be_undone(containers: Containers) -> None:
    name = containers.run("gone")
    done = reos("plan", "--yes", f"remove the {name} container")
    assert done.returncode == 0, done.stderr
    assert "This cannot be undone." in done.stdout
    import docker.errors

    with pytest.raises(docker.errors.NotFound):
        containers.state(name)
    tx = reos_json("history", "--json")["transactions"][0]
    assert tx["steps"][1]["reversible"] is False
    undo = reos_json("undo", "--json")
    # a removed container cannot be started again: its stop has no undo either, and
    # undo runs nothing rather than a start that must fail
    assert undo["steps"] == []


def test_unreachable_docker_is_a_clear_answer_not_a_traceback() -> None:
    done = reos("plan", "--yes", "stop the nextcloud containers",
                env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"})
    assert done.returncode == 4
    assert "can't see any containers" in done.stdout
    assert "Docker does not answer" in done.stdout
    assert "Traceback" not in done.stderr
    ctx = json.loads(reos("context", "--json",
                          env={"DOCKER_HOST": "unix:///nonexistent/docker.sock"}).stdout)
    assert ctx["containers"] is None and "Docker does not answer" in ctx["unavailable"][
        "containers"]


def test_two_reos_processes_at_once_lose_nothing_and_undo_newest_first(
        containers: Containers) -> None:
    import subprocess

    from tests.conftest import REOS_BIN

    first, second = containers.run("one"), containers.run("two")
    procs = [subprocess.Popen([str(REOS_BIN), "plan", "--yes", f"stop {name}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in (first, second)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    assert not any("database is locked" in out + err for out, err in outputs)
    history = reos_json("history", "--json")["transactions"]
    assert len(history) == 2 and all(t["status"] == "completed" for t in history)
    newest = history[0]["steps"][0]["argv"][-1]
    undo = reos_json("undo", "--json")
    assert undo["steps"][0]["argv"] == ["docker", "start", newest]
    reos_json("undo", "--json")
    assert containers.state(first) == containers.state(second) == "running"


def test_an_interrupted_step_that_changed_nothing_is_not_reverted(
        containers: Containers) -> None:
    from reos import paths
    from reos.store.db import Database
    from reos.store.journal import Journal

    name = containers.run("still")
    journal = Journal(Database(paths.database_file()))
    tx = journal.begin(f"stop {name}")
    journal.begin_step(tx, 0, "s1", f"Stop {name}", ["docker", "stop", name],
                       target_kind="container", target_name=name,
                       prior_state={"state": "running"}, rollback=["docker", "start", name])
    journal.db.connect().execute("UPDATE transactions SET pid = 999999999 WHERE id = ?", (tx,))
    undo = reos_json("undo", "--json")  # the container is still running: nothing to do
    assert undo["steps"] == [] and "nothing to revert" in undo["notes"][0]
    assert containers.state(name) == "running"
