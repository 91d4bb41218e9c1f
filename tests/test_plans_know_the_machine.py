"""Plans use what reos knows about the machine (issue 22, newcomer item 8): a machine
that does not run systemd gets no systemctl steps but a plain answer, and freeing disk
space never offers to remove a container that frees nothing.

The no-systemd machine is the saved homelab snapshot with its init said as a container's
shell would be; the docker measurement is captured `docker system df -v` output (the one
tests/test_cleanup.py reads), with one exited container changed to use a tagged image."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.planning import cleanup
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.test_cleanup import DOCKER_DF, ran

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


def engine(init: str | None) -> ReasoningEngine:
    data: dict[str, Any] = json.loads(FIXTURE.read_text())
    if init is None:
        data["host"].pop("init", None)
    else:
        data["host"]["init"] = init
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


@pytest.mark.parametrize("request_text", [
    "restart nginx", "show failed services", "list the timers", "stop ssh",
    "set the timezone to Europe/Paris"])
def test_without_systemd_no_systemctl_step_is_planned(request_text: str) -> None:
    plan = engine("bash").plan(request_text)
    assert plan.steps == []
    assert "does not run systemd (process 1 is bash)" in plan.text()
    assert not plan.needs_approval


def test_with_systemd_or_an_unknown_init_the_plan_stays() -> None:
    for init in ("systemd", None):
        plan = engine(init).plan("restart nginx")
        assert plan.kind == Kind.ACTION
        assert plan.steps[0].argv[-2:] == ["restart", "nginx.service"]


def test_without_systemd_a_container_is_still_restarted() -> None:
    plan = engine("bash").plan("restart portainer")
    assert [s.argv for s in plan.steps] == [["docker", "restart", "portainer"]]


def test_a_hostile_init_name_is_said_cleanly() -> None:
    plan = engine("sh\x1b[2Jx" + "y" * 200).plan("show failed services")
    assert "\x1b" not in plan.text() and len(plan.text()) < 200


def _df(change: dict[str, str]) -> str:
    data = json.loads(DOCKER_DF)
    for c in data["Containers"]:
        if c["Names"] == "h2cap-b":
            c.update(change)
    return json.dumps(data)


def test_an_exited_container_that_frees_nothing_is_left_alone() -> None:
    # h2cap-b wrote nothing and runs a tagged image: removing it frees 0 B
    found, said = cleanup.items({"docker": ran("docker", _df(
        {"Image": "reos-test/busybox:latest"}))}, "apt", "6.1.0-20-amd64")
    containers = [i for i in found if i.key == "containers"]
    assert len(containers) == 1 and "h2cap-b" not in containers[0].what
    assert "h2cap-a" in containers[0].what
    assert "1 exited container frees no space that docker reports, so I left it alone" in said


def test_an_empty_container_holding_a_dangling_image_goes_with_it() -> None:
    # as captured: h2cap-b wrote 0 B, but it alone holds a 300 kB dangling image
    found, _ = cleanup.items({"docker": ran("docker", _df({}))}, "apt", "6.1.0-20-amd64")
    containers = next(i for i in found if i.key == "containers")
    assert "h2cap-b" in containers.what
    assert any(i.key == "images" for i in found)


# -- accounts and their groups, as the snapshot lists them (bob: docker, developers;
#    alice: sudo, docker) -------------------------------------------------------------------

def test_adding_someone_to_a_group_they_are_in_is_said_not_planned() -> None:
    plan = engine("systemd").plan("add bob to the docker group")
    assert plan.steps == [] and plan.text() == "bob is already in the docker group."
    plan = engine("systemd").plan("remove alice from developers")
    assert plan.steps == [] and plan.text() == "alice is not in the developers group."


def test_a_group_change_shows_its_undo_before_approval() -> None:
    from tests.conftest import reos_json

    data = reos_json("plan", "--json", "--context", str(FIXTURE),
                     "add alice to the developers group")
    step = data["steps"][0]
    assert step["argv"][-3:] == ["-aG", "developers", "alice"]
    assert step["reversible"] is True
    # exactly the group the step adds: any other group she joins meanwhile stays
    assert step["rollback"]["argv"][-4:] == ["gpasswd", "-d", "alice", "developers"]
    assert step["undo"] == step["rollback"]["command"]


def test_each_step_says_its_undo_in_words_in_json() -> None:
    from tests.conftest import reos_json

    data = reos_json("plan", "--json", "--context", str(FIXTURE), "restart portainer")
    assert data["steps"][0]["undo"].startswith("cannot be undone: there is nothing to")
    data = reos_json("plan", "--json", "--context", str(FIXTURE), "kill the n8n container")
    words = [s["undo"] for s in data["steps"]]
    assert all(isinstance(w, str) and w for w in words)
    data = reos_json("plan", "--json", "--context", str(FIXTURE), "stop portainer")
    assert data["steps"][0]["undo"] == "docker start portainer"


def test_an_empty_container_whose_image_a_running_one_uses_is_left_alone() -> None:
    # h2cap-b wrote 0 B; its dangling image is also what the running h2cap-c runs, so
    # removing h2cap-b frees nothing at all
    data = json.loads(_df({}))
    dangling = next(c["Image"] for c in data["Containers"] if c["Names"] == "h2cap-b")
    for c in data["Containers"]:
        if c["Names"] == "h2cap-c":
            c["Image"] = dangling
    found, said = cleanup.items({"docker": ran("docker", json.dumps(data))}, "apt",
                                "6.1.0-20-amd64")
    containers = [i for i in found if i.key == "containers"]
    assert not any("h2cap-b" in i.what for i in containers)
    assert not any(i.key == "images" for i in found)  # still used by h2cap-c


def test_without_systemd_only_the_systemd_steps_are_left_out() -> None:
    plan = engine("bash").plan("show failed services and disk usage")
    assert [s.argv[0] for s in plan.steps] == ["df"]
    assert "I left out \u201clist failed services\u201d" in plan.text()
    assert all(not p.steps or p.steps[0].argv[0] != "systemctl" for p in plan.parts)
    plan = engine("bash").plan("restart portainer and show the failed services")
    assert [s.argv for s in plan.steps] == [["docker", "restart", "portainer"]]


def test_a_group_undo_changes_back_only_that_group() -> None:
    from reos.system.state_users import changed_group, restore

    prior = {"state": "active", "groups": ["docker"], "changed_group": "developers"}
    assert restore("user", "bob", prior, "add_to_group") == ["gpasswd", "-d", "bob",
                                                             "developers"]
    assert restore("user", "bob", {**prior, "groups": ["developers"]}, "add_to_group") is None
    assert restore("user", "bob", {**prior, "groups": ["developers"]},
                   "remove_from_group") == ["usermod", "-aG", "developers", "bob"]
    assert changed_group(["sudo", "-n", "gpasswd", "-d", "bob", "sudo"]) == "sudo"
    assert changed_group(["usermod", "-aG", "$(id)", "bob"]) is None  # never a non-name
    old = {"state": "active", "groups": ["docker"]}  # an older journal: the whole list
    assert restore("user", "bob", old, "add_to_group") == ["usermod", "-G", "docker", "bob"]
