"""Things found by what they are, not only by name (issue 21).

The snapshot (tests/fixtures/identities.json) names nothing after its software: a container
"wiki" runs BookStack, "vw" runs Vaultwarden, two compose projects each have a "db" on a
different postgres, two accounts belong to a Maria, the USB disk is found by its label or
vendor, the VPN link is called "staffnet". Each request below would miss or guess without
the image, full name, label, vendor or link kind; ties must still ask.
"""

from __future__ import annotations

import json
import os

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system import collectors, facts, portable
from reos.system.snapshot import SystemSnapshot
from reos.understanding.matcher import TargetMatcher
from tests.conftest import FIXTURES

SNAPSHOT = SystemSnapshot.from_dict(json.loads((FIXTURES / "identities.json").read_text()))


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REOS_LLM", "off")


def plan(say: str):
    return ReasoningEngine(Settings(), snapshot=SNAPSHOT).plan(say)


def commands(say: str) -> list[str]:
    return [s.command for s in plan(say).steps]


@pytest.mark.parametrize(("say", "command"), [
    ("restart bookstack", "docker restart wiki"),  # the image's name
    ("restart the password manager", "docker restart vw"),  # a role, through the image
    ("restart the media server", "docker restart jf"),
    ("How much memory is using the password manager container?",  # a role, words reordered
     "docker stats --no-stream --format '{{json .}}' vw"),
    ("restart postgres 14", "docker restart crm-db"),  # image and tag
    ("stop the one on postgres 16", "docker stop erp-db"),
    ("restart the db of crm", "docker restart crm-db"),  # compose service of a project
    ("restart the db in the erp project", "docker restart erp-db"),
    ("restart the ups monitor", "sudo -n systemctl restart nut-monitor.service"),
    ("lock maria lopez", "sudo -n usermod -L mlopez"),  # a full name
    ("lock tom brandt", "sudo -n usermod -L tbrandt"),
    ("add chris to the docker group", "sudo -n usermod -aG docker cwalsh"),  # a short form
    ("set toms shell to zsh", "sudo -n usermod -s /bin/zsh tbrandt"),  # no apostrophe
    ("list the processes owned by christopher", "pgrep -a -u cwalsh"),  # a slot
    ("what is using the cpu under chris's account",
     "ps -ww -u cwalsh -o pid,user,pcpu,rss,args --sort=-pcpu --no-headers"),
    ("unmount OFFSITE", "sudo -n umount /mnt/usb"),  # the filesystem's label
    ("unmount the seagate", "sudo -n umount /mnt/usb"),  # the disk's vendor
    ("take the vpn down", "sudo -n ip link set staffnet down"),  # the link's kind
    ("what is the ip of the wireguard interface", "ip -j addr show dev staffnet"),
])
def test_found_by_what_it_is(say: str, command: str) -> None:
    assert commands(say) == [command]


@pytest.mark.parametrize(("say", "choices"), [
    ("restart postgres", {"crm-db", "erp-db"}),  # two containers run postgres
    ("lock maria", {"mlopez", "mkeller"}),  # two Marias
    ("lock mar", {"mlopez", "mkeller"}),  # short for either
    ("restart the db", {"crm-db", "erp-db"}),
])
def test_two_that_fit_make_a_question(say: str, choices: set[str]) -> None:
    p = plan(say)
    assert p.kind.value == "clarify" and not p.steps
    assert {label.rsplit(" ", 1)[-1] for label, _ in p.options} == choices


def test_a_role_nothing_here_does_is_not_guessed() -> None:
    p = plan("restart the git server")  # no gitea, gitlab, forgejo here
    assert not p.steps
    assert "git server" in p.text()


def test_destroying_a_disk_found_only_by_label_is_refused() -> None:
    p = plan("format OFFSITE")  # never a guess for a destructive step on a disk
    assert not p.steps


def test_a_full_name_is_not_a_system_accounts_comment() -> None:
    data = json.loads((FIXTURES / "identities.json").read_text())
    data["users"].append({"name": "postgres", "uid": 105, "gid": 105, "home": "/var/lib/pg",
                          "shell": "/bin/bash", "groups": ["postgres"], "system": True,
                          "gecos": "PostgreSQL administrator,,,"})
    matcher = TargetMatcher(SystemSnapshot.from_dict(data))
    assert "administrator" not in matcher.index("user").identities
    assert "lopez" in matcher.index("user").identities


def test_older_snapshots_without_the_new_fields_still_match_by_name() -> None:
    data = json.loads((FIXTURES / "identities.json").read_text())
    for section in ("containers", "users", "mounts", "block_devices", "interfaces"):
        for item in data[section]:
            for key in ("ports", "gecos", "label", "vendor", "kind"):
                item.pop(key, None)
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    assert [s.command for s in engine.plan("lock mlopez").steps] == ["sudo -n usermod -L mlopez"]
    assert not engine.plan("lock maria lopez").steps


# -- the collectors fill the new fields ----------------------------------------------------

def test_published_ports_read_as_docker_prints_them() -> None:
    ports = [{"IP": "0.0.0.0", "PrivatePort": 80, "PublicPort": 8080, "Type": "tcp"},
             {"IP": "::", "PrivatePort": 80, "PublicPort": 8080, "Type": "tcp"},
             {"PrivatePort": 5432, "Type": "tcp"}, "junk", {"PublicPort": 1}]
    assert portable.published_ports(ports) == ["0.0.0.0:8080->80/tcp", ":::8080->80/tcp",
                                               "5432/tcp"]


@pytest.mark.parametrize(("link", "kind"), [
    ({"ifname": "wg0", "link_type": "none", "linkinfo": {"info_kind": "wireguard"}},
     "wireguard"),
    ({"ifname": "br0", "link_type": "ether", "linkinfo": {"info_kind": "bridge"}}, "bridge"),
    ({"ifname": "lo", "link_type": "loopback"}, "loopback"),
    ({"ifname": "tun0", "link_type": "none"}, "tun"),
    ({"ifname": "x", "link_type": "ether", "linkinfo": {"info_kind": "we\x1bird"}}, ""),
    ({"ifname": "x", "link_type": "ether", "linkinfo": "not a table"}, "ethernet"),
])
def test_link_kinds_from_ip_details(link: dict, kind: str) -> None:
    assert facts._link_kind(link) == kind


@pytest.mark.skipif(not os.path.exists("/sys/class/net/lo"), reason="no /sys/class/net")
def test_the_live_snapshot_has_the_new_fields() -> None:
    interfaces = {i.name: i for i in facts.interfaces()}
    assert interfaces["lo"].kind == "loopback"
    me = next(u for u in facts.users() if u.name == "root")
    assert isinstance(me.gecos, str)
    if portable.package_manager() == "apt":
        adduser = next(p for p in collectors.packages() if p.name == "adduser")
        assert "users" in adduser.description


# -- typos in names, and a unit template's instance ----------------------------------------

@pytest.mark.parametrize(("say", "command"), [
    ("restart portainr", "docker restart portainer"),
    ("start the jellyfim container", "docker start media_jellyfin_1"),
    ("logs for nextclod redis", "docker logs --tail 50 --timestamps nextcloud-redis"),
])
def test_a_name_one_typo_away_is_found(say: str, command: str) -> None:
    from tests.understanding.evaluate import engines

    assert [s.command for s in engines()["apt"].plan(say).steps] == [command]


def test_a_role_finds_a_unit_templates_instance() -> None:
    data = json.loads((FIXTURES / "identities.json").read_text())
    data["services"].append({"name": "wg-quick@wg0.service", "description": "WireGuard via "
                             "wg-quick(8) for wg0", "load": "loaded", "active": "active",
                             "sub": "exited", "enabled": "enabled"})
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    assert [s.command for s in engine.plan("restart the vpn service").steps] == [
        "sudo -n systemctl restart wg-quick@wg0.service"]


def test_a_short_form_never_takes_a_login_or_its_possessive() -> None:
    data = json.loads((FIXTURES / "identities.json").read_text())
    for name, uid, gecos in (("bob", 1010, "Bob Marley"), ("btables", 1011, "Bobby Tables"),
                             ("alice", 1012, "Alice Doe"), ("alwin", 1013, "Alicia Winter")):
        data["users"].append({"name": name, "uid": uid, "gid": uid, "home": f"/home/{name}",
                              "shell": "/bin/bash", "groups": [name], "locked": False,
                              "system": False, "gecos": gecos})
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    assert [s.command for s in engine.plan("set bobs shell to zsh").steps] == [
        "sudo -n usermod -s /bin/zsh bob"]  # bob's, not Bobby's
    assert not any("alwin" in s.command for s in engine.plan("lock alic").steps)
    data["users"].append({"name": "amarley", "uid": 1014, "gid": 1014, "home": "/home/am",
                          "shell": "/bin/bash", "groups": [], "locked": False,
                          "system": False, "gecos": "Bob Amarley"})
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    plan = engine.plan("lock bobs account")  # the login bob, and a Bob by his first name
    assert plan.kind.value == "clarify" and not plan.steps, plan.text()


def test_a_group_slot_is_never_a_guess() -> None:
    plan = plan_of("add tbrandt to the dock group")  # no group dock; docker is root's peer
    assert not any("docker" in s.argv for s in plan.steps), plan.text()


def plan_of(say: str):
    return ReasoningEngine(Settings(), snapshot=SNAPSHOT).plan(say)


def _notebooks() -> ReasoningEngine:
    """Each person's notebook container is named after their login, as JupyterHub does."""
    data = json.loads((FIXTURES / "identities.json").read_text())
    for login in ("mlopez", "mkeller", "tbrandt"):
        data["containers"].append({
            "name": f"jupyter-{login}", "id": login, "state": "running", "status": "Up",
            "image": "quay.io/jupyter/scipy-notebook:2024-10-07", "labels": {}})
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def test_a_container_is_found_by_the_person_it_is_named_after() -> None:
    engine = _notebooks()
    assert [s.command for s in engine.plan("restart tom's notebook").steps] == [
        "docker restart jupyter-tbrandt"]
    # the notebooks are three; whose it is narrows them to hers, never all three
    assert [s.command for s in engine.plan(
        "restart the notebook container of maria lopez").steps] == [
        "docker restart jupyter-mlopez"]
    plan = engine.plan("restart the container of maria")  # two Marias: asked
    assert plan.kind.value == "clarify" and not plan.steps
    assert {label.rsplit(" ", 1)[-1] for label, _ in plan.options} == {
        "jupyter-mlopez", "jupyter-mkeller"}


def test_a_unit_is_found_without_the_version_inside_its_name() -> None:
    # F18: "reload php-fpm" found no php8.2-fpm.service; two such units are still a question
    data = json.loads((FIXTURES / "identities.json").read_text())
    data["services"].append({"name": "php8.2-fpm.service", "load": "loaded",
                             "active": "active", "sub": "running", "enabled": "enabled"})
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    assert [s.command for s in engine.plan("reload php-fpm").steps] == [
        "sudo -n systemctl reload php8.2-fpm.service"]
    data["services"].append({"name": "php8.3-fpm.service", "load": "loaded",
                             "active": "active", "sub": "running", "enabled": "enabled"})
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    assert not engine.plan("reload php-fpm").steps
