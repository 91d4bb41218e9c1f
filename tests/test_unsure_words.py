"""A change is never planned past words that could change what it touches (issue 21).

"remove the apt repository of docker" is no removal of the docker package, nor "rm -rf
the synapse-db volume" of the container (deleting a part is asked about); "the webcam on
the voron" is the voron's webcam, not every webcam; "prusa2 octoprint" is
octoprint-prusa2 in any order; the wifi ap is hostapd, "the camera" one of two webcams
(asked); "lock daniel out" where two people are called Daniel asks which; "explain what a
systemd timer is" changes nothing; "cadvisor restarting again why" asks; the system's
python3 is never removed. The snapshot is built here.
"""

from __future__ import annotations

import pytest

from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot


def _container(name: str, service: str) -> dict:
    return {"name": name, "id": f"{name}-0000000"[:12], "image": f"{name}:1",
            "state": "running", "status": "Up 2 days", "ports": [],
            "labels": {"com.docker.compose.project": "matrix",
                       "com.docker.compose.service": service,
                       "com.docker.compose.project.working_dir": "/srv/matrix"}}


def _service(name: str, about: str) -> dict:
    return {"name": name, "description": about, "load": "loaded", "active": "active",
            "sub": "running", "enabled": "enabled"}


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2",
        "host": {"hostname": "ratchet", "distro_id": "debian", "distro_version": "12",
                 "init": "systemd", "package_manager": "apt", "is_root": True},
        "containers": [_container("synapse", "synapse"), _container("synapse-db", "db"),
                       _container("element-web", "element"),
                       *({**_container(f"octoprint-{p}", p), "state": "exited",
                          "labels": {"com.docker.compose.project": "printers"}}
                         for p in ("prusa1", "prusa2", "ender")),
                       {**_container("monitoring-cadvisor-1", "cadvisor"), "labels": {}}],
        "services": [_service("ustreamer@voron.service", "uStreamer webcam stream for voron"),
                     _service("ustreamer@prusa2.service",
                              "uStreamer webcam stream for prusa2"),
                     _service("systemd-tmpfiles-clean.service",
                              "Cleanup of Temporary Directories"),
                     _service("restic-backup.service", "Offsite backup with restic"),
                     _service("wg-quick@wg-offsite.service", "WireGuard via wg-quick(8) for "
                              "wg/offsite"),
                     _service("hostapd.service", "Access point and authentication server "
                              "for Wi-Fi and Ethernet")],
        "timers": [{"name": "systemd-tmpfiles-clean.timer",
                    "unit": "systemd-tmpfiles-clean.service"}],
        "processes": [{"pid": 2520, "ppid": 1, "name": "python", "user": "991",
                       "cmdline": "python -m synapse.app.homeserver", "cpu_percent": 9.0,
                       "memory_rss": 1 << 28}],
        "users": [{"name": "daniel", "uid": 1001, "gid": 1001, "home": "/home/daniel",
                   "shell": "/bin/bash", "groups": [], "gecos": "Daniel Okafor,,,"},
                  {"name": "dlindqvist", "uid": 1002, "gid": 1002, "home": "/home/dlindqvist",
                   "shell": "/bin/bash", "groups": [], "gecos": "Daniel Lindqvist"}],
        "groups": [{"name": "sambashare", "gid": 120, "members": []}],
        "packages": [{"name": n, "version": "1.0"} for n in (
            "python3", "python3-pip", "docker-ce", "apt", "htop")],
    }))


def acted(plan) -> list[list[str]]:  # noqa: ANN001
    return [s.argv for s in plan.steps]


@pytest.mark.parametrize(("say", "part"), [("remove the apt repository of docker", "repository"),
                                          ("just rm -rf the synapse-db volume", "volume")])
def test_deleting_a_part_is_not_deleting_the_thing(engine: ReasoningEngine, say: str,
                                                   part: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.CLARIFY and not plan.steps, (say, plan.text())
    assert part in plan.text()
    assert acted(engine.plan("remove htop")) == [["apt-get", "remove", "-y", "htop"]]
    assert acted(engine.plan("remove the synapse-db test container"))[-1] == [
        "docker", "rm", "synapse-db"]  # a word that describes it is no part of it


def test_a_name_on_another_narrows_it(engine: ReasoningEngine) -> None:
    assert acted(engine.plan("restart the webcam on the voron")) == [
        ["systemctl", "restart", "ustreamer@voron.service"]]


@pytest.mark.parametrize("say", ["start prusa2 octoprint", "start octoprint prusa2",
                                 "start the prusa2's octoprint"])
def test_words_of_one_name_find_it_in_any_order(engine: ReasoningEngine, say: str) -> None:
    assert acted(engine.plan(say)) == [["docker", "start", "octoprint-prusa2"]], say


def test_a_wifi_access_point_is_found_by_its_role(engine: ReasoningEngine) -> None:
    assert acted(engine.plan("restart the wifi ap")) == [
        ["systemctl", "restart", "hostapd.service"]]


@pytest.mark.parametrize("say", ["Could you explain what a systemd timer is, please?",
                                 "cadvisor restartin again why"])
def test_a_question_changes_nothing(engine: ReasoningEngine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind in (Kind.QUERY, Kind.UNKNOWN), (say, plan.kind)
    assert all(s.read_only for s in plan.steps), (say, acted(plan))


@pytest.mark.parametrize("say", ["remove python3", "Please remove the python3, it is too old"])
def test_the_systems_python_is_never_removed(
        engine: ReasoningEngine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.REFUSE and not plan.steps, (say, plan.text())


def test_a_package_named_after_them_is_removed_as_asked(engine: ReasoningEngine) -> None:
    assert acted(engine.plan("remove python3-pip")) == [
        ["apt-get", "remove", "-y", "python3-pip"]]


@pytest.mark.parametrize("say", ["lock daniel out", "Please add Daniel to the sambashare group"])
def test_a_first_name_two_people_share_is_asked_about(engine: ReasoningEngine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.CLARIFY and not plan.steps, (say, plan.text())
    assert "Daniel Okafor" in plan.text() and "Daniel Lindqvist" in plan.text()
    assert [o.targets[0] for _, o in plan.options] == ["daniel", "dlindqvist"]
    assert acted(engine.plan("lock dlindqvist")) == [["usermod", "-L", "dlindqvist"]]
    assert engine.plan("who is daniel").kind == Kind.QUERY  # reading both costs nothing


def test_a_role_two_things_fill_is_asked_about(engine: ReasoningEngine) -> None:
    plan = engine.plan("Please restart the camera.")
    assert plan.kind == Kind.CLARIFY and len(plan.options) == 2, plan.text()
