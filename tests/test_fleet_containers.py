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
import time
from pathlib import Path

import pytest

from reos.errors import EXIT_OK
from reos.execution.package_sim import Simulation
from reos.fleet import changing, deciding
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.system import collectors, portable
from reos.system.snapshot import Container, Package, Service, SystemSnapshot
from tests.conftest import reos

MACHINE = "0123456789abcdef0123456789abcdef"
DIRECT = {"ssh_passers": "", "ssh_passer_pids": ""}


# -- the host module reads the engine --------------------------------------------------------

@pytest.mark.docker
def test_the_module_reads_the_engines_containers_as_the_docker_sdk_does(containers) -> None:  # noqa: ANN001
    running = containers.run("up", project="shop")
    stopped = containers.run("down", running=False)
    gone = f"{containers.prefix}-rm"
    containers.created.append(containers.client.containers.run(
        "reos-test/busybox:latest", ["sleep", "300"], name=gone, detach=True, remove=True,
        restart_policy=None, labels={"reos.test.run": "x"}))
    read = {row["name"]: row for row in portable.containers()}
    for box in collectors.containers():
        if box.name in (running, stopped):
            assert {k: read[box.name][k] for k in ("name", "id", "image", "state", "status",
                                                   "labels", "ports")} == {
                "name": box.name, "id": box.id, "image": box.image, "state": box.state,
                "status": box.status, "labels": dict(box.labels), "ports": list(box.ports)}
    assert read[running]["state"] == "running" and read[stopped]["state"] == "exited"
    assert read[running]["labels"]["com.docker.compose.project"] == "shop"
    # each one's inspect: what undo needs (docker run --rm removes it once it stops)
    assert (read[running]["auto_remove"], read[gone]["auto_remove"]) == (False, True)
    assert read[running]["restart"] == "no"


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
    snap = _snapshot(DIRECT, [Container("shop-web", id="abc123", state="running",
                                        restart="always", auto_remove=False)])
    assert deciding.prior_state(snap, "container", "shop-web") == {
        "state": "running", "id": "abc123", "auto_remove": False, "restart": "always"}
    assert deciding.prior_state(snap, "container", "gone") == {"state": "absent"}
    assert deciding.prior_state(_snapshot(DIRECT, None), "container", "shop-web") is None


def test_a_container_stopped_on_a_host_has_its_start_as_undo() -> None:
    snap = _snapshot(DIRECT, [Container("shop-web", id="abc123", state="running",
                                        auto_remove=False)])
    [part] = deciding.prepare({"web1": Plan("stop shop-web", Kind.ACTION,
                                            steps=[_stop("shop-web")])},
                              {"web1": snap}, "stop shop-web")
    assert part.plan is not None, part.left_out
    assert part.undos == [["sudo", "-n", "docker", "start", "shop-web"]]


@pytest.mark.parametrize("passers", [
    {"ssh_passers": "container.scope", "ssh_passer_pids": "4242"},  # a container carries it
    # one named by its id, another than shop-web: shop-web may still hold its network
    # (`--network container:shop-web`), which no snapshot says (a review found it)
    {"ssh_passers": f"docker-proxy docker-{'a' * 64}.scope", "ssh_passer_pids": "4242"},
    {"ssh_passers_unknown": "the owner could not be seen"},  # not known
])
def test_no_container_is_stopped_where_what_carries_the_session_may_be_one(
        passers: dict[str, str]) -> None:
    snap = _snapshot(passers, [Container("shop-web", id="abc123", state="running",
                                         auto_remove=False)])
    [part] = deciding.prepare({"web1": Plan("stop shop-web", Kind.ACTION,
                                            steps=[_stop("shop-web")])},
                              {"web1": snap}, "stop shop-web")
    assert part.plan is None and "carr" in (part.left_out or ""), part.left_out


def _decided(step: Step, snap: SystemSnapshot) -> deciding.Prepared:
    [part] = deciding.prepare({"web1": Plan("x", Kind.ACTION, steps=[step])}, {"web1": snap},
                              step.title.lower())
    return part


def _step(action: str, name: str = "shop-web", argv: list[str] | None = None,
          kind: str = "container") -> Step:
    return Step("s1", f"{action.title()} {name}",
                argv or ["sudo", "-n", "docker", action.replace("remove", "rm"), name],
                target=Target(kind, name), action=action)


@pytest.mark.parametrize(("state", "action", "undo"), [
    ("running", "pause", ["docker", "unpause", "shop-web"]),
    ("paused", "unpause", ["docker", "pause", "shop-web"]),
    ("paused", "restart", ["docker", "pause", "shop-web"]),
    ("exited", "start", ["docker", "stop", "shop-web"]),
])
def test_a_containers_undo_puts_back_the_state_it_was_in(state: str, action: str,
                                                         undo: list[str]) -> None:
    snap = _snapshot(DIRECT, [Container("shop-web", id="abc123", state=state,
                                        auto_remove=False)])
    part = _decided(_step(action), snap)
    assert part.plan is not None, part.left_out
    assert part.undos == [["sudo", "-n", *undo]]


def test_a_restart_policy_changed_on_a_host_is_undone_to_the_one_its_snapshot_read() -> None:
    step = Step("s1", "Make shop-web start on boot",
                ["sudo", "-n", "docker", "update", "--restart=unless-stopped", "shop-web"],
                target=Target("container", "shop-web"), action="restart_policy")
    read = _snapshot(DIRECT, [Container("shop-web", id="abc123", state="running",
                                        restart="no", auto_remove=False)])
    part = _decided(step, read)
    assert part.undos == [["sudo", "-n", "docker", "update", "--restart=no", "shop-web"]]
    unread = _snapshot(DIRECT, [Container("shop-web", id="abc123", state="running",
                                          auto_remove=False)])
    assert _decided(step, unread).plan is None  # no policy read: no undo, left out


@pytest.mark.parametrize(("state", "action", "auto", "said"), [
    ("running", "remove", False, "undo"),  # a removed container cannot come back
    ("paused", "stop", False, "undo"),  # started again, it would run, not be paused
    ("running", "stop", True, "--rm"),  # Docker removes it once it stops
    ("running", "kill", None, "--rm"),  # not read: it may be
])
def test_a_container_change_that_could_not_be_undone_is_left_out_on_a_host(
        state: str, action: str, auto: bool | None, said: str) -> None:
    snap = _snapshot(DIRECT, [Container("shop-web", id="abc123", state=state,
                                        auto_remove=auto)])
    part = _decided(_step(action), snap)
    assert part.plan is None and said in (part.left_out or ""), part.left_out


@pytest.mark.parametrize(("facts", "name", "refused"), [
    ({"in_container": True, "container_id": "abc123abc123"}, "sshbox", True),  # its own
    ({"in_container": True, "container_id": ""}, "shop-web", True),  # which one: not known
    ({"in_container": True, "container_id": "abc123abc123"}, "shop-web", False),
    ({"in_container": False, "container_id": ""}, "shop-web", False),
])
def test_the_container_reos_session_runs_in_is_never_stopped(
        facts: dict[str, object], name: str, refused: bool) -> None:
    snap = _snapshot({**DIRECT, **facts}, [
        Container("sshbox", id="abc123abc123", state="running", auto_remove=False,
                  restart="always"),
        Container("shop-web", id="def456def456", state="running", auto_remove=False,
                  restart="always")])
    snap.services = [Service("docker.service", active="active", enabled="enabled",
                             load="loaded")]
    part = _decided(_step("stop", name), snap)
    assert (part.plan is None) == refused, part.left_out
    assert not refused or "runs in a container" in (part.left_out or "")
    engine = _decided(_step("stop", "docker.service", ["sudo", "-n", "systemctl", "stop",
                                                       "docker.service"], "service"), snap)
    assert (engine.plan is None) == (facts["in_container"] is True), engine.left_out


@pytest.mark.parametrize(("restart", "runs"), [("no", False), ("always", True), ("", False)])
def test_the_engine_is_stopped_on_a_host_only_where_its_containers_come_back_with_it(
        restart: str, runs: bool) -> None:
    snap = _snapshot(DIRECT, [Container("shop-web", id="def456def456", state="running",
                                        restart=restart, auto_remove=False)])
    snap.services = [Service("docker.service", active="active", enabled="enabled",
                             load="loaded")]
    part = _decided(_step("restart", "docker.service", ["sudo", "-n", "systemctl",
                                                        "restart", "docker.service"],
                          "service"), snap)
    assert (part.plan is not None) == runs, part.left_out
    assert runs or "would not start again" in (part.left_out or "")


def test_a_running_container_restarted_on_a_host_runs_with_nothing_to_put_back() -> None:
    snap = _snapshot(DIRECT, [Container("shop-web", id="abc123", state="running",
                                        auto_remove=False)])
    part = _decided(_step("restart"), snap)
    assert part.plan is not None and part.undos == [None], part.left_out


def _engine_snapshot(facts: dict[str, object], state: str = "running",
                     restart: str = "no") -> SystemSnapshot:
    snap = _snapshot({**DIRECT, "package_manager": "apt", **facts}, [
        Container("shop-web", id="def456def456", state=state, auto_remove=False,
                  restart=restart)])
    snap.services = [Service(n, active="active", enabled="enabled", load="loaded")
                     for n in ("docker.service", "snap.docker.dockerd.service")]
    return snap


@pytest.mark.parametrize("step", [
    _step("stop", "snap.docker.dockerd.service",
          ["sudo", "-n", "systemctl", "stop", "snap.docker.dockerd.service"], "service"),
    _step("remove", "docker.io", ["sudo", "-n", "apt-get", "remove", "-y", "docker.io"],
          "package"),
    _step("upgrade", "docker-ce", ["sudo", "-n", "apt-get", "install", "-y",
                                   "--only-upgrade", "docker-ce"], "package"),
])
def test_the_engine_by_any_unit_or_package_is_never_stopped_with_containers_that_stay_down(
        step: Step) -> None:
    part = _decided(step, _engine_snapshot({}))
    assert part.plan is None and "engine" in (part.left_out or ""), part.left_out


def test_every_package_is_never_upgraded_where_the_session_runs_in_a_container_there(
        ) -> None:
    step = Step("s1", "Upgrade every package", ["sudo", "-n", "apt-get", "upgrade", "-y"],
                action="upgrade_all")
    ours = _engine_snapshot({"in_container": True, "container_id": "def456def456"},
                            restart="always")
    assert _decided(step, ours).plan is None
    apart = _engine_snapshot({"in_container": True, "container_id": "0123456789ab"},
                             restart="always")
    assert "container" not in (_decided(step, apart).left_out or "")


@pytest.mark.parametrize(("restart", "in_container", "runs"), [
    ("no", False, False),  # shop-web would stay down once the engine is replaced
    ("always", False, True),  # it comes back with the engine
    ("always", True, False),  # the session's own container stops with it
])
def test_an_install_that_replaces_the_engine_is_judged_as_the_engines_own_upgrade(
        restart: str, in_container: bool, runs: bool) -> None:
    snap = _engine_snapshot({"in_container": in_container,
                             "container_id": "def456def456" if in_container else ""},
                            restart=restart)
    snap.packages = [Package("docker-ce", version="26.1.0"), Package("vim", version="9")]
    step = _step("install", "docker-buildx-plugin",
                 ["sudo", "-n", "apt-get", "install", "-y", "docker-buildx-plugin"], "package")
    dry_run = Simulation(installed={"docker-buildx-plugin": "0.14", "docker-ce:amd64": "27.0"})
    [part] = deciding.prepare({"web1": Plan("x", Kind.ACTION, steps=[step])}, {"web1": snap},
                              "install docker-buildx-plugin", {"web1": 22},
                              {"web1": {"s1": dry_run}})
    assert (part.plan is not None) == runs, part.left_out
    assert runs or "would also remove or replace docker-ce" in (part.left_out or "")
    # what replaces no engine package runs, whatever its containers
    calm = Simulation(installed={"docker-buildx-plugin": "0.14", "vim": "9.1"})
    [part] = deciding.prepare({"web1": Plan("x", Kind.ACTION, steps=[step])}, {"web1": snap},
                              "install docker-buildx-plugin", {"web1": 22},
                              {"web1": {"s1": calm}})
    assert part.plan is not None, part.left_out


@pytest.mark.parametrize(("action", "state", "runs"), [
    ("reload", "running", True),  # a reload stops no container
    ("restart", "paused", False),  # it would come back running, not paused
])
def test_the_engine_reloaded_or_restarted_with_its_containers_as_they_are(
        action: str, state: str, runs: bool) -> None:
    step = _step(action, "docker.service",
                 ["sudo", "-n", "systemctl", action, "docker.service"], "service")
    part = _decided(step, _engine_snapshot({}, state=state, restart="always"))
    assert (part.plan is not None) == runs, part.left_out


def test_containers_read_in_time_are_kept_without_what_was_not_inspected(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(portable, "ENGINE_SECONDS", 1.0)
    monkeypatch.setattr(portable, "_engine_get", lambda path, url: [
        {"Names": [f"/c{n}"], "Id": f"{n:064x}", "State": "running"} for n in range(5)])

    def slow(path: str, ident: str) -> dict[str, object]:
        time.sleep(0.4)
        return {"auto_remove": False, "restart": "no"}

    monkeypatch.setattr(portable, "_inspected", slow)
    path = tmp_path / "engine.sock"
    path.write_text("")  # there: the engine's reads are the stand-ins above
    rows = portable.containers(str(path))
    assert [r["name"] for r in rows] == [f"c{n}" for n in range(5)]
    read = [r for r in rows if "auto_remove" in r]
    assert 0 < len(read) < 5  # those inspected in time, and only those


def test_the_module_says_which_container_it_runs_in(tmp_path: Path) -> None:
    ident = "0123456789ab" + "c" * 52
    cgroup = tmp_path / "cgroup"
    cgroup.write_text(f"0::/system.slice/docker-{ident}.scope\n")
    assert portable.own_container(str(cgroup)) == {"in_container": True,
                                                   "container_id": ident[:12]}
    cgroup.write_text(f"12:pids:/docker/{ident}\n0::/docker/{ident}/init.scope\n")
    assert portable.own_container(str(cgroup))["container_id"] == ident[:12]


def test_an_engine_that_answers_a_byte_at_a_time_is_given_up_on_in_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.setattr(portable, "ENGINE_SECONDS", 1.0)
    path = tmp_path / "slow.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    stop = threading.Event()

    def drip() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n":
            if stop.wait(0.3):
                break
            conn.sendall(bytes([byte]))
        conn.close()

    threading.Thread(target=drip, daemon=True).start()
    started = time.monotonic()
    with pytest.raises(portable.Unavailable, match="did not answer within"):
        portable.containers(str(path))
    assert time.monotonic() - started < 5
    stop.set()
    server.close()


def test_a_state_no_engine_gives_is_unknown_never_printed() -> None:
    row = portable._container_row({"Names": ["/x"], "State": "exited)\n\nOn web1: fine"})
    assert row["state"] == "unknown"


def test_a_docker_context_other_than_the_default_is_not_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DOCKER_HOST", raising=False)
    monkeypatch.delenv("DOCKER_CONTEXT", raising=False)
    (tmp_path / "config.json").write_text(json.dumps({"currentContext": "rootless"}))
    monkeypatch.setenv("DOCKER_CONFIG", str(tmp_path))
    with pytest.raises(portable.Unavailable, match="rootless"):
        portable.containers()


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
