"""Containers on another machine (reos/system/portable.py: `containers`;
fleet/predicting.py: `_container`; fleet/deciding.py: "container" among the kinds whose
prior state a host's snapshot records, and among what cuts a program; fleet/changing.py:
an undo that stops a container re-checks what carries reos's session first).

On real parts: this machine's Docker engine read by the host module over its socket and
by the docker SDK alike; a fleet host sharing that engine (tests/fleet_bed.py, `engine`)
on which `reos plan --yes "stop the … container"` runs through Ansible and `reos undo`
starts it again (after a dry run that predicts the stop from the host's snapshot and
changes nothing). Without a bed: what the module says of an engine that is missing,
refuses the account, or sends no list, and the decisions on a host's snapshot.
"""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from reos.errors import EXIT_OK
from reos.fleet import changing, deciding
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.system import collectors, portable
from reos.system.snapshot import Container, SystemSnapshot
from tests.conftest import reos

MACHINE = "0123456789abcdef0123456789abcdef"
DIRECT = {"ssh_passers": "", "ssh_passer_pids": ""}


# -- the host module reads the engine --------------------------------------------------------

@pytest.mark.docker
def test_the_module_reads_the_engines_containers_as_the_docker_sdk_does(containers) -> None:  # noqa: ANN001
    running = containers.run("up", project="shop")
    stopped = containers.run("down", running=False)
    read = {row["name"]: row for row in portable.containers()}
    for box in collectors.containers():
        if box.name in (running, stopped):
            assert read[box.name] == {"name": box.name, "id": box.id, "image": box.image,
                                      "state": box.state, "status": box.status,
                                      "labels": dict(box.labels), "ports": list(box.ports)}
    assert read[running]["state"] == "running" and read[stopped]["state"] == "exited"
    assert read[running]["labels"]["com.docker.compose.project"] == "shop"


def test_no_engine_socket_and_no_docker_is_no_containers(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no docker program either
    assert portable.containers(str(tmp_path / "docker.sock")) == []


def test_docker_installed_with_its_engine_down_is_said(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    program = tmp_path / "docker"
    program.write_text("")
    program.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(portable.Unavailable, match="engine is not running"):
        portable.containers(str(tmp_path / "docker.sock"))


def _serve_once(path: Path, answer: bytes) -> threading.Thread:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)

    def reply() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        conn.sendall(answer)
        conn.close()
        server.close()

    thread = threading.Thread(target=reply, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(("answer", "said"), [
    (b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nnot json!", "no list of containers"),
    (b"HTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\n{}", "HTTP 500"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", "no list of containers"),
    (b"garbage\x1b[31m", "did not answer"),
])
def test_an_engine_that_sends_no_list_is_said_never_read_as_empty(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: bytes, said: str) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    path = tmp_path / "engine.sock"
    thread = _serve_once(path, answer)
    with pytest.raises(portable.Unavailable, match=said):
        portable.containers(str(path))
    thread.join(5)


def test_a_docker_host_that_is_no_local_socket_is_not_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "tcp://10.0.0.5:2375")
    with pytest.raises(portable.Unavailable, match="not a local socket"):
        portable.containers()


def test_the_module_ships_containers_in_its_snapshot() -> None:
    assert "containers" in portable.SHIPPED


# -- decided on a host's snapshot -------------------------------------------------------------

def _snapshot(passers: dict[str, str], boxes: list[Container] | None) -> SystemSnapshot:
    return SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **passers},
                          containers=boxes)


def _stop(name: str) -> Step:
    return Step("s1", f"Stop container {name}", ["sudo", "-n", "docker", "stop", name],
                target=Target("container", name), action="stop")


def test_a_containers_state_on_a_host_is_read_from_its_snapshot() -> None:
    snap = _snapshot(DIRECT, [Container("shop-web", id="abc123", state="running")])
    assert deciding.prior_state(snap, "container", "shop-web") == {"state": "running",
                                                                   "id": "abc123"}
    assert deciding.prior_state(snap, "container", "gone") == {"state": "absent"}
    assert deciding.prior_state(_snapshot(DIRECT, None), "container", "shop-web") is None


def test_a_container_stopped_on_a_host_has_its_start_as_undo() -> None:
    snap = _snapshot(DIRECT, [Container("shop-web", id="abc123", state="running")])
    [part] = deciding.prepare({"web1": Plan("stop shop-web", Kind.ACTION,
                                            steps=[_stop("shop-web")])},
                              {"web1": snap}, "stop shop-web")
    assert part.plan is not None, part.left_out
    assert part.undos == [["sudo", "-n", "docker", "start", "shop-web"]]


@pytest.mark.parametrize("passers", [
    {"ssh_passers": "container.scope", "ssh_passer_pids": "4242"},  # a container carries it
    {"ssh_passers_unknown": "the owner could not be seen"},  # not known
])
def test_no_container_is_stopped_where_what_carries_the_session_may_be_one(
        passers: dict[str, str]) -> None:
    snap = _snapshot(passers, [Container("shop-web", id="abc123", state="running")])
    [part] = deciding.prepare({"web1": Plan("stop shop-web", Kind.ACTION,
                                            steps=[_stop("shop-web")])},
                              {"web1": snap}, "stop shop-web")
    assert part.plan is None and "carr" in (part.left_out or ""), part.left_out


def test_an_undo_that_stops_a_container_rechecks_the_carriers_first() -> None:
    assert changing._programs_cut(["sudo", "-n", "docker", "stop", "shop-web"]) == [
        "shop-web"]
    assert changing._programs_cut(["docker", "start", "shop-web"]) is None
    assert changing._carried_now(None, ["docker", "stop", "shop-web"]) is not None


# -- on a fleet host sharing this machine's engine -------------------------------------------

@pytest.fixture(scope="module")
def dock(docker_client, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN001, ANN201
    from tests import fleet_bed

    reason = fleet_bed.available()
    if reason:
        from tests.conftest import testbed_unavailable
        testbed_unavailable(reason)
    started = fleet_bed.start(tmp_path_factory.mktemp("dock"), ("dock1",), engine=("dock1",))
    yield started
    fleet_bed.stop(started)


@pytest.mark.docker
@pytest.mark.slow
def test_a_container_stopped_on_a_host_through_ansible_and_started_again_by_undo(
        dock, containers) -> None:  # noqa: ANN001
    name = containers.run("till")
    ahead = reos("plan", "--hosts", "dock1", "-i", str(dock.inventory), "--dry-run",
                 f"stop the {name} container", timeout=240)
    assert ahead.returncode == EXIT_OK, ahead.stdout + ahead.stderr
    assert "would stop it (now running)" in ahead.stdout, ahead.stdout
    assert containers.state(name) == "running"  # a dry run changes nothing
    done = reos("plan", "--hosts", "dock1", "-i", str(dock.inventory), "--yes", "--json",
                f"stop the {name} container", timeout=240)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert [h["status"] for h in document["execution"]["hosts"]] == ["done"]
    assert containers.state(name) == "exited"
    undone = reos("undo", timeout=180)
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert containers.state(name) == "running"
