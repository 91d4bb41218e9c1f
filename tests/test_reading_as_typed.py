"""Requests read the way admins type them (issue 21): a command line typed as a request, a
reason said beside the ask, a job run now, every process of an account ended, a thing
found by the words of its description, two names side by side, and a question about a
named thing answered by its state.

Planned against tests/fixtures/homelab.json with a few things added (a unit with a
telling description, a timer whose job no unit list showed, an account whose name is a
group too), with no model.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    data = copy.deepcopy(json.loads(FIXTURE.read_text()))
    data["services"].append({
        "name": "qworker.service", "load": "loaded", "active": "active", "sub": "running",
        "enabled": "disabled",
        "description": "Laravel queue worker for the Kessler Bau client portal"})
    data.setdefault("timers", []).append({
        "name": "db-dump.timer", "unit": "db-dump.service", "next": "2026-11-26T01:15:00Z",
        "last": "2026-11-25T01:15:02Z"})
    data["services"].append({
        "name": "imgopt.service", "load": "loaded", "active": "active", "sub": "running",
        "enabled": "enabled",
        "description": "Watch upload folders and losslessly optimise new images"})
    data["packages"].append({"name": "php8.1-fpm", "version": "8.1.30-1"})
    data["services"].append({
        "name": "php8.1-fpm.service", "load": "loaded", "active": "active", "sub": "running",
        "enabled": "enabled", "description": "The PHP 8.1 FastCGI Process Manager"})
    for name, image in (("stats", "matomo:5.1.2-apache"), ("analytics-db-1", "mariadb:11")):
        data["containers"].append({
            "name": name, "id": name, "image": image, "state": "running", "status": "Up",
            "labels": {"com.docker.compose.project": "analytics"}})
    data["services"].append({
        "name": "ModemManager.service", "load": "loaded", "active": "active",
        "sub": "running", "enabled": "enabled", "description": "Modem Manager"})
    for name in ("NetworkManager.service", "NetworkManager-wait-online.service"):
        data["services"].append({
            "name": name, "load": "loaded", "active": "active", "sub": "running",
            "enabled": "enabled", "description": "Network Manager"})
    for pid, name in ((605, "NetworkManager"), (702, "ModemManager")):
        data["processes"].append({"pid": pid, "ppid": 1, "name": name, "user": "root",
                                  "cmdline": f"/usr/sbin/{name}", "cpu_percent": 0.0,
                                  "memory_rss": 10485760})
    data["interfaces"].append({"name": "wg0", "state": "down", "mac": "", "addresses": [],
                               "mtu": 1420, "kind": "wireguard"})
    data["services"].append({
        "name": "wg-quick@wg0.service", "load": "loaded", "active": "inactive",
        "sub": "dead", "enabled": "enabled", "description": "WireGuard via wg-quick for wg0"})
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def commands(engine: ReasoningEngine, say: str) -> list[str]:
    return [s.command for s in engine.plan(say).steps]


# -- a command line typed as a request --------------------------------------------------------

def test_a_read_only_command_line_runs_as_typed(engine) -> None:
    plan = engine.plan("ss -tlnp")
    assert plan.source == "typed" and plan.kind == Kind.QUERY
    assert [s.argv for s in plan.steps] == [["ss", "-tlnp"]]
    assert plan.read_only and not plan.needs_approval


def test_an_acting_command_line_is_judged_and_asked(engine) -> None:
    plan = engine.plan("ip route add 10.20.0.0/16 via 10.66.0.1 dev eth0")
    assert plan.source == "typed" and plan.kind == Kind.ACTION and plan.needs_approval
    (step,) = plan.steps
    assert step.argv[-8:] == ["ip", "route", "add", "10.20.0.0/16", "via", "10.66.0.1",
                              "dev", "eth0"]
    assert not step.shell and "You typed a command" in plan.text()


@pytest.mark.parametrize("say", [
    "dig the MX record of example.com",  # a sentence that starts with a program
    "find large files",  # an English first word needs an option
    "who owns /usr/sbin/nginx",
    "apt cache zorblax",  # words, not yet a command line
])
def test_prose_is_not_a_typed_command(engine, say: str) -> None:
    assert engine.plan(say).source != "typed"


@pytest.mark.parametrize("say", [
    "ls -la | sh",  # shell text is never a typed command
    "rm -rf /srv/*",  # a glob means what a shell makes of it
    "ls -la /var/log/*.log",  # even one that would only read
])
def test_a_command_line_with_shell_text_is_refused_never_run(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.REFUSE and plan.blocked and not plan.steps


def test_a_typed_line_says_run_and_addresses_count(engine) -> None:
    assert [s.argv for s in engine.plan("run ss -tlnp").steps] == [["ss", "-tlnp"]]
    plan = engine.plan("ip route add 10.20.0.0/16 via 10.66.0.1")
    assert plan.source == "typed" and plan.needs_approval


@pytest.mark.parametrize("say", ["sudo sudo -n cat /etc/shadow", "sudo sudo ls -la /root",
                                 "sudo -u git git log -1"])
def test_reos_alone_decides_how_to_be_root(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.source != "typed" or plan.kind == Kind.REFUSE
    assert all(s.argv[:2] != ["sudo", "sudo"] and s.argv[:1] != ["git"] for s in plan.steps)
    assert not any(s.argv[:1] == ["sudo"] and "-n" not in s.argv for s in plan.steps)


@pytest.mark.parametrize("say", ["cat /etc/shadow", "grep root /etc/shadow",
                                 "head -n 5 /etc/sudoers", "cat /home/bob/.ssh/id_ed25519"])
def test_a_typed_line_that_prints_secrets_is_refused(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.REFUSE and plan.blocked and not plan.steps


def test_a_comment_mark_is_shell_text(engine) -> None:
    assert engine.plan("ss -tlnp # which ports").kind == Kind.REFUSE


def test_a_blocked_typed_command_is_refused(engine) -> None:
    plan = engine.plan("mkfs.ext4 -F /dev/sda")
    assert plan.blocked and not any(not s.read_only for s in plan.steps)


# -- a reason said beside the ask -------------------------------------------------------------

def test_a_thing_named_in_the_reason_is_not_a_target(engine) -> None:
    assert commands(engine, "stop bluetooth, cups owns the printing now") == [
        "sudo -n systemctl stop bluetooth.service"]
    assert commands(engine, "mask bluetooth, we use cups for the printer") == [
        "sudo -n systemctl mask bluetooth.service"]


def test_a_reason_without_a_comma_is_a_reason_too(engine) -> None:
    plan = engine.plan("restart nginx its config got messed up")
    assert [s.command for s in plan.steps] == ["sudo -n systemctl restart nginx.service"]


def test_it_in_the_ask_is_what_the_telling_part_named(engine) -> None:
    assert commands(engine, "cups is down, start it") == []  # already running: nothing to do
    assert engine.plan("cups is down, start it").intent.targets == ["cups"]


def test_a_statement_in_a_story_is_never_acted_on(engine) -> None:
    plan = engine.plan("The dump job should run every night. When did it last run?")
    assert not any(not s.read_only for s in plan.steps)


# -- a job run now; a user's processes ended --------------------------------------------------

def test_a_timers_job_runs_now_by_its_name(engine) -> None:
    plan = engine.plan("run the db dump job now, don't wait for the timer")
    assert [s.argv[-3:] for s in plan.steps] == [["systemctl", "start", "db-dump.service"]]
    assert plan.needs_approval


def test_a_timers_job_is_never_among_all_stopped_services(engine) -> None:
    assert not any("db-dump" in c for c in commands(engine, "start all stopped services"))


def test_every_process_of_an_account_is_ended(engine) -> None:
    assert commands(engine, "kill all processes of bob") == [
        "pgrep -a -u bob", "sudo -n pkill -TERM -u bob"]


# -- found by what it is --------------------------------------------------------------------------

def test_a_service_is_found_by_the_words_of_its_description(engine) -> None:
    assert commands(engine, "restart the queue worker for the Kessler Bau portal") == [
        "sudo -n systemctl restart qworker.service"]


def test_two_whole_names_side_by_side_are_two_things(engine) -> None:
    plan = engine.plan("add bob to www-data")
    assert plan.intent.params.get("group") == "www-data"
    assert plan.intent.targets == ["bob"]
    assert engine.plan("usermod -aG docker bob").intent.params.get("group") == "docker"


def test_a_question_about_a_named_thing_is_answered_by_its_state(engine) -> None:
    plan = engine.plan("is nginx enabled to start when the machine boots?")
    assert plan.kind == Kind.QUERY and plan.steps and plan.read_only
    assert any("nginx" in s.command for s in plan.steps)


@pytest.mark.parametrize(("said", "command"), [
    ("was the server rebooted?", "cat /proc/uptime"),  # machine.reboot asked: uptime
    ("When was the last time the computer was restarted?", "cat /proc/uptime"),
    ("is fail2ban banning somebody right now?", "sudo -n fail2ban-client banned"),
    ("is port 8080 open in the firewall?", "sudo -n ufw status verbose"),  # not ss
    ("which ports are open", "ss -H -tulnp"),  # a question whose every word is read
    ("must I restart the machine?", "cat /run/reboot-required"),  # not when it last did
    ("is ssh open to the internet?", "sudo -n ufw status verbose"),  # a state: the rules
])
def test_a_change_put_as_a_question_is_answered_by_what_it_asks(engine, said: str,
                                                                 command: str) -> None:
    plan = engine.plan(said)
    assert plan.kind == Kind.QUERY and plan.read_only, plan.text()
    assert command in [s.command for s in plan.steps]


@pytest.mark.parametrize(("said", "command"), [
    ("portainer dead?", "docker inspect --type container portainer"),
    ("nginx running?", "systemctl show nginx.service"),
])
def test_a_name_and_a_state_alone_ask_whether_it_is_so(engine, said: str, command: str) -> None:
    plan = engine.plan(said)
    assert plan.kind == Kind.QUERY and plan.read_only, plan.text()
    assert any(s.command.startswith(command) for s in plan.steps), plan.text()


# -- words read better ------------------------------------------------------------------------

def test_a_slots_noun_is_its_operations_noun_too(engine) -> None:
    assert commands(engine, "who's got port 5432") == ["ss -H -tulnp 'sport = :5432'"]


def test_a_name_spelled_with_mixed_marks_is_one_name(engine) -> None:
    assert commands(engine, "remove the package of php 8.1 fpm") == [
        "sudo -n apt-get remove -y php8.1-fpm"]
    assert commands(engine, "restart php 8.1 fpm") == [
        "sudo -n systemctl restart php8.1-fpm.service"]


def test_a_name_written_apart_is_no_typo_of_a_catalogue_word(engine) -> None:
    # "modem" alone is one letter from "model"; beside "manager" it is ModemManager
    from reos.understanding import parser

    units = parser.parse("disable the modem manager", engine.templates, engine._matcher).units
    assert [u.text for u in units if "name" in u.roles] == ["modem manager"]
    assert commands(engine, "disable the modem manager") == [
        "sudo -n systemctl disable ModemManager.service"]


def test_a_timer_named_in_a_question_about_when_is_the_timer_listed(engine) -> None:
    listed = "systemctl list-timers --all --output=json --no-pager"
    assert commands(engine, "when does the db dump run next") == [f"{listed} db-dump.timer"]
    assert commands(engine, "when is the next apt run") == [f"{listed} '*apt*'"]  # two
    assert commands(engine, "which timers run next") == [listed]


def test_a_timer_word_with_a_typo_is_no_pattern(engine) -> None:
    listed = "systemctl list-timers --all --output=json --no-pager"
    commands_of = commands(engine, "when does logrotat run next")  # one typo: logrotate's
    assert commands_of == [f"{listed} logrotate.timer"]
    assert not any("*" in c for c in commands(engine, "when does aptt run next"))


def test_running_after_be_is_a_state_not_a_job_run(engine) -> None:
    plan = engine.plan("which kernel is running")
    assert plan.kind == Kind.QUERY and plan.read_only


def test_a_purpose_clause_is_a_reason(engine) -> None:
    plan = engine.plan("install mtr so I can trace network paths")
    assert [s.argv[-1] for s in plan.steps if not s.read_only] == ["mtr"]


def test_description_words_match_by_their_stems(engine) -> None:
    assert commands(engine, "restart the image optimisation service") == [
        "sudo -n systemctl restart imgopt.service"]


def test_a_project_is_named_by_what_one_of_its_containers_runs(engine) -> None:
    assert commands(engine, "restart the matomo db container") == [
        "docker restart analytics-db-1"]


def test_an_exact_name_outranks_a_word_of_another_kinds_name(engine) -> None:
    plan = engine.plan("bring wg0 back up")
    assert plan.kind == Kind.ACTION and plan.intent.operation == "net.interface_up"


def test_a_passing_word_that_names_a_group_here_is_that_group(engine: ReasoningEngine) -> None:
    """"sudo restart nginx": sudo said in passing; "remove sudo from bob": the group sudo,
    never "remove bob" (the account deleted)."""
    said = commands(engine, "remove sudo from bob")
    assert all(c.startswith("sudo -n gpasswd -d bob sudo") for c in said), said
    assert commands(engine, "sudo restart nginx") == ["sudo -n systemctl restart nginx.service"]


def test_a_disk_word_names_its_mounted_filesystem(engine: ReasoningEngine) -> None:
    """"unmount the backup disk": the disk's filesystem is what is mounted; a partition
    of a removable disk is removable even when only the disk says so."""
    assert commands(engine, "unmount the backup disk") == ["sudo -n umount /mnt/backup"]
    data = copy.deepcopy(json.loads(FIXTURE.read_text()))
    for device in data["block_devices"]:
        if device["name"] == "sdb1":
            device["removable"] = False  # as some tools report a partition
    quirky = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    assert commands(quirky, "unmount the usb stick") == ["sudo -n umount /mnt/backup"]


def test_a_polite_question_is_never_a_change(engine: ReasoningEngine) -> None:
    """"Would you mind checking whether X is switched on?" asks; "can you show me the
    last run of the job" shows, never runs it; "checking" is never a name taken from a
    unit's Description."""
    for say in ("Would you mind checking whether bluetooth is even switched on?",
                "Can you show me the last run of the db-dump job and its log?"):
        plan = engine.plan(say)
        assert plan.kind != Kind.ACTION and not any(
            not s.read_only for s in plan.steps), (say, plan.text())


def test_an_idiom_word_is_not_a_package_name(engine: ReasoningEngine) -> None:
    """"apt upgrade" upgrades everything; it is not a question about a package named apt."""
    plan = engine.plan("apt upgrade")
    assert plan.kind == Kind.ACTION
    assert any("apt-get upgrade" in s.command for s in plan.steps)


def test_a_disk_is_found_by_a_word_of_its_label() -> None:
    data = copy.deepcopy(json.loads(FIXTURE.read_text()))
    data["mounts"].append({"device": "/dev/sdc1", "mountpoint": "/media/marek/HERON-BACKUP",
                           "fstype": "ext4", "options": "rw", "total": 1, "used": 0,
                           "free": 1, "label": "HERON-BACKUP"})
    found = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    assert commands(found, "unmount the heron drive") == [
        "sudo -n umount /media/marek/HERON-BACKUP"]


def test_a_program_is_found_by_the_application_its_path_names() -> None:
    """"kill libreoffice": soffice.bin and oosplash live under /usr/lib/libreoffice/; the
    owner's home folder in a path names no application."""
    data = copy.deepcopy(json.loads(FIXTURE.read_text()))
    for pid, name, cmd in ((8790, "oosplash", "/usr/lib/libreoffice/program/oosplash --writer"),
                           (8802, "soffice.bin", "/usr/lib/libreoffice/program/soffice.bin"),
                           (9901, "cargo", "/home/alice/.cargo/bin/cargo build --release")):
        data["processes"].append({"pid": pid, "ppid": 1, "name": name, "user": "alice",
                                  "cmdline": cmd, "cpu_percent": 1.0, "memory_rss": 1})
    found = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    assert commands(found, "kill libreoffice") == ["kill -9 8790", "kill -9 8802"]
    assert not any("9901" in c for c in commands(found, "kill alice"))
