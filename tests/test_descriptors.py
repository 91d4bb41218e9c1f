"""Things named the way people name them, against the homelab snapshot: disks by model,
vendor code, size, kind ("the nvme", "the usb stick"), the mount on such a disk, network
interfaces by kind ("the wifi", "the wired interface"); and what a destructive request
that names nothing exactly gets (a refusal, never a guess).

The homelab fixture has nvme0n1 (Samsung SSD 980, 512 GB, holds /), sdb (SanDisk Ultra,
62 GB, removable, sdb1 mounted at /mnt/backup) and sdc (WDC WD20EFRX, 2 TB, sdc1 not
mounted); interfaces enp3s0 (up), wlp2s0 (down), docker0, lo.
"""

from __future__ import annotations

import pytest

from reos.model.request import Kind


@pytest.fixture(scope="module")
def engine():  # noqa: ANN201
    from tests.understanding.evaluate import engines

    return engines()["apt"]


def _argvs(plan) -> list[list[str]]:  # noqa: ANN001
    return [s.argv[2:] if s.argv[:2] == ["sudo", "-n"] else s.argv for s in plan.steps]


@pytest.mark.parametrize(("say", "device"), [
    ("mount the wd disk at /srv/media", "sdc1"),  # WD20EFRX: the vendor's code
    ("mount the 2 TB drive at /srv/media", "sdc1"),  # its size, said apart
    ("mount the 2tb drive at /srv/media", "sdc1"),
    ("could you mount the 2 TB WD drive at /srv/media?", "sdc1"),  # two words, one disk
    ("mount the sandisk at /srv/media", "sdb1"),  # a model word; its only partition
    ("mount the 64gb stick at /srv/media", "sdb1"),  # the size it was sold as
])
def test_a_disk_is_found_by_what_people_call_it(engine, say: str, device: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.ACTION, plan.text()
    assert ["mount", f"/dev/{device}", "/srv/media"] in _argvs(plan)


@pytest.mark.parametrize("say", ["unmount the usb stick", "eject the usb thing",
                                 "umount the external drive",
                                 "safely unmount the sandisk drive"])
def test_the_mount_on_the_removable_disk_is_the_one_meant(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.ACTION, plan.text()
    assert _argvs(plan) == [["umount", "/mnt/backup"]]
    assert "removable" in plan.steps[0].title


def test_formatting_the_usb_stick_formats_its_partition_after_unmounting_it(engine) -> None:
    plan = engine.plan("format the usb stick as ext4")
    assert plan.kind == Kind.ACTION and not plan.blocked, plan.text()
    assert _argvs(plan) == [["umount", "/dev/sdb1"], ["mkfs.ext4", "-F", "/dev/sdb1"]]
    assert "SanDisk Ultra" in plan.text()


@pytest.mark.parametrize("say", ["format /dev/sda", "format sdz1 as ext4",
                                 "format the toshiba drive"])
def test_formatting_something_not_exactly_here_is_refused_not_guessed(engine, say) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.REFUSE and plan.steps == [], plan.text()
    assert "sdc1" in plan.text()  # says what does exist


@pytest.mark.parametrize("say", ["format the main drive", "reformat the root partition",
                                 "format /", "format the nvme disk", "format /home"])
def test_the_system_disk_is_refused_whatever_it_is_called(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.REFUSE and plan.steps == [], (say, plan.text())


def test_formatting_without_saying_which_asks(engine) -> None:
    plan = engine.plan("format the drive")
    assert plan.kind == Kind.CLARIFY and plan.steps == [], plan.text()


def test_smart_of_a_disk_named_by_a_word_uses_its_real_name(engine) -> None:
    plan = engine.plan("smart health of the 512 GB ssd")
    assert ["smartctl", "-H", "/dev/nvme0n1"] in _argvs(plan), plan.text()


@pytest.mark.parametrize(("say", "wanted"), [
    ("bring the wireless card back up", ["ip", "link", "set", "wlp2s0", "up"]),
    ("turn off the wifi", ["ip", "link", "set", "wlp2s0", "down"]),
    ("show the error counts of the wired interface", ["ip", "-j", "-s", "link", "show", "dev",
                                                      "enp3s0"]),
])
def test_an_interface_is_found_by_its_kind(engine, say: str, wanted: list[str]) -> None:
    plan = engine.plan(say)
    assert wanted in _argvs(plan), (say, plan.text())


def test_a_query_missing_its_value_asks_for_it(engine) -> None:
    plan = engine.plan("could you ping it please?")
    assert plan.kind == Kind.CLARIFY and plan.steps == []
    assert "which host" in plan.text()


@pytest.mark.parametrize(("say", "wanted"), [
    ("shwo dns setings", ["cat", "/etc/resolv.conf"]),  # a word that only follows another
    ("show the defualt rout", ["ip", "-j", "route"]),  # the last letter dropped
    ("show the logs from the lsat hour", ["journalctl", "--since", "-1h"]),  # a time word
    ("whos loged in", ["who"]),  # the typo starts a phrase ("logged in"), not "log"
    ("statsu of nginx", ["systemctl", "show", "nginx.service"]),  # swapped, not "stats"
])
def test_typos_inside_phrases_and_dropped_letters(engine, say: str, wanted) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.QUERY, plan.text()
    assert any(a[:len(wanted)] == wanted for a in _argvs(plan)), _argvs(plan)


@pytest.mark.parametrize(("say", "operation"), [
    ("remove tmux", "package.remove"),  # not installed, and no user is called tmux either
    ("purge htop", "package.purge"),
    ("put htop on this box", "package.install"),
])
def test_a_word_no_listed_thing_is_called_is_not_read_as_one(engine, say: str,
                                                             operation: str) -> None:
    plan = engine.plan(say)
    assert plan.kind != Kind.CLARIFY, plan.text()
    assert plan.intent is not None and plan.intent.operation == operation, plan.text()


def test_a_verb_said_with_s_describes_rather_than_asks(engine) -> None:
    # "holds" is what something does; nobody asks reos to hold a package that way
    plan = engine.plan("apache won't come up because something else already holds port 80,"
                       " what is sitting on that port?")
    assert plan.intent is not None and plan.intent.operation == "process.port", plan.text()


def test_port_is_not_a_network_interface(engine) -> None:
    plan = engine.plan("which program is listening on port 443")
    assert plan.intent is not None and plan.intent.resource != "interface"


@pytest.mark.parametrize("say", ["expire bob on 2026-12-31", "set bob to expire on 2026-12-31",
                                 "could you make bob's account expire on 2026-12-31?"])
def test_a_day_said_as_a_moment_fills_the_date_an_operation_takes(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.ACTION, plan.text()
    assert ["chage", "-E", "2026-12-31", "bob"] in _argvs(plan)


@pytest.mark.parametrize(("say", "operation"), [
    ("who is in the sudo grup", "group.members"),  # a letter dropped in 4 letters
    ("creat a new usr called henry", "user.create"),  # usual abbreviations
    ("what groups r there", "group.list"),
])
def test_dropped_letters_and_abbreviations(engine, say: str, operation: str) -> None:
    plan = engine.plan(say)
    assert plan.intent is not None and plan.intent.operation == operation, plan.text()


def test_deleting_an_account_with_everything_in_its_home_is_not_wiping_the_machine(engine):
    plan = engine.plan("wipe carol off this machine, home dir and all")
    assert ["userdel", "-r", "carol"] in _argvs(plan), plan.text()
    for said in ("delete my account and everything on /", "wipe this machine",
                 "remove everything"):
        assert engine.plan(said).kind == Kind.REFUSE, said


def test_the_name_an_idiom_holds_is_its_target_before_a_slot(engine) -> None:
    # alice is a user and (her own) group: "alice's groups" asks about the user
    plan = engine.plan("alice's groups")
    assert plan.kind == Kind.QUERY and plan.intent.targets == ["alice"], plan.text()


def test_the_word_after_called_is_the_new_name_the_rest_describes_it(engine) -> None:
    plan = engine.plan("could you set up a new group for the web people called webdev?")
    assert _argvs(plan) == [["groupadd", "webdev"]], plan.text()


@pytest.mark.parametrize("say", ["Could you tell me what this computer is called?",
                                 "what is this machine called", "the computer"])
def test_a_noun_alone_never_changes_the_whole_machine(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind != Kind.ACTION and not any(
        "poweroff" in a or "reboot" in a for argv in _argvs(plan) for a in argv), plan.text()


def test_terse_settings_still_read(engine) -> None:
    assert ["timedatectl", "set-timezone", "UTC"] in _argvs(engine.plan("timezone UTC"))


def test_a_plan_says_which_part_undo_cannot_take_back(engine) -> None:
    plan = engine.plan("mount sdc1 at /srv/media")  # undo unmounts; the directory stays
    assert "This cannot be undone" not in plan.text()
    assert "Undo can take back all of this except: Create the directory" in plan.text()
    assert "This cannot be undone." in engine.plan("remove the n8n container").text()


@pytest.mark.parametrize(("say", "rule"), [
    ("allow udp port 27015", "27015/udp"), ("allow 27015/udp", "27015/udp"),
    ("allow 3000/tcp", "3000/tcp"), ("open port 8080", "8080/tcp"),  # TCP when none is said
])
def test_a_port_rule_is_for_the_protocol_said(engine, say: str, rule: str) -> None:
    plan = engine.plan(say)
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "ufw", "allow", rule]], plan.text()
    assert plan.steps[0].rollback == ["sudo", "-n", "ufw", "delete", "allow", rule]


def test_the_biggest_and_the_busiest_process_are_the_ones_the_snapshot_measured(engine):
    snapshot = engine.snapshot()
    biggest = max(snapshot.processes, key=lambda p: p.memory_rss)
    busiest = max(snapshot.processes, key=lambda p: p.cpu_percent)
    plan = engine.plan("kill the biggest process")
    assert _argvs(plan) == [["kill", "-9", str(biggest.pid)]], plan.text()
    assert "uses the most memory" in plan.text() and "iB when the snapshot" in plan.text()
    plan = engine.plan("terminate the busiest process")
    assert _argvs(plan) == [["kill", str(busiest.pid)]], plan.text()


@pytest.mark.parametrize(("say", "wanted"), [
    # the state an action leaves is its result, not a filter
    ("have apache start automatically at boot", ["systemctl", "enable", "apache2.service"]),
    # a state in another clause describes; the clause naming the operation decides
    ("portainer froze up, could you force kill it for me", ["docker", "kill", "portainer"]),
])
def test_a_state_that_describes_is_not_a_filter(engine, say: str, wanted) -> None:
    plan = engine.plan(say)
    assert wanted in _argvs(plan), (say, plan.text())


def test_a_state_in_the_clause_of_the_operation_still_filters(engine) -> None:
    plan = engine.plan("the stopped containers, restart them")
    assert plan.intent.qualifiers == ["stopped"]
    stopped = {c.name for c in engine.snapshot().containers if c.state == "exited"}
    assert {a[-1] for a in _argvs(plan)} <= stopped, plan.text()


def test_a_program_is_found_without_its_version_number(engine) -> None:
    python = [p for p in engine.snapshot().processes if p.name == "python3"]
    plan = engine.plan("end the python app nicely")
    assert sorted(_argvs(plan)) == sorted(["kill", str(p.pid)] for p in python), plan.text()


@pytest.mark.parametrize(("say", "wanted"), [
    ("allow ssh through the firewall", ["ufw", "allow", "22/tcp"]),
    ("get rid of the ssh allow rule", ["ufw", "delete", "allow", "22/tcp"]),
    ("open https", ["ufw", "allow", "443/tcp"]),
])
def test_a_firewall_rule_for_a_service_by_name_is_for_its_port(engine, say, wanted) -> None:
    plan = engine.plan(say)
    assert _argvs(plan) == [wanted], plan.text()


def test_killing_a_service_by_name_is_never_read_as_its_port(engine) -> None:
    plan = engine.plan("kill java")
    assert all("ss" not in a[0] for a in _argvs(plan)), plan.text()


@pytest.mark.parametrize("say", ["add him to the docker group too", "close that port"])
def test_a_request_missing_who_or_what_asks(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.CLARIFY and plan.steps == [], plan.text()
    assert "all" not in plan.text().split("“")[0]  # never offers every user or rule


def test_what_listens_on_one_port_asks_about_that_port(engine) -> None:
    assert ["ss", "-H", "-tulnp", "sport = :3000"] in _argvs(
        engine.plan("what's listening on port 3000"))
    assert ["ss", "-H", "-tulnp"] in _argvs(engine.plan("what is listening"))


def test_a_doubled_letter_said_once_in_three_letters(engine) -> None:
    plan = engine.plan("kil n8n")
    assert _argvs(plan) == [["docker", "kill", "n8n"]], plan.text()
    assert engine.plan("kil init").kind == Kind.REFUSE


def test_how_full_a_path_is_measures_that_path(engine) -> None:
    assert ["df", "-P", "-B1", "/var/lib/docker"] in _argvs(
        engine.plan("Could you tell me how full /var/lib/docker is?"))
