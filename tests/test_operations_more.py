"""The everyday operations of the new catalogue files (packages_extra, containers_extra,
services_more, users_more, system_more, disks_more, network_more, logs, security): each
planned from ordinary requests against the homelab snapshot (copies of it for the other
package managers) with the exact argv it runs; every read-only step proven read-only by
the risk engine as `reos check` judges it; the actions that cannot be undone say so and
record no rollback; a forced password change is undone from the recorded last-change date
(and `rederive` works out the same undo); and the answers read the tools' output into
words. Nothing here runs any of these commands.
"""

from __future__ import annotations

import json
import shlex

import pytest

from reos.catalogue import templates
from reos.model.report import StepResult
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.safety.risk import assess, assess_argv
from reos.words.answers.common import ANSWERS, TOLERANT
from reos.words.conversation import Voice

NEW_FILES = ("packages_extra.toml", "containers_extra.toml", "services_more.toml",
             "users_more.toml", "system_more.toml", "disks_more.toml", "network_more.toml",
             "logs.toml", "security.toml")
FORMAT = "{{json .}}"
FAILED_SSH = "Failed password|Invalid user|authentication failure"
JOURNAL = ["--no-pager", "-n", "200", "--output=short-iso"]


@pytest.fixture(scope="module")
def engines() -> dict:
    """One engine per package manager, on the homelab snapshot (the evaluation's own)."""
    from tests.understanding.evaluate import engines as per_manager

    return per_manager()


@pytest.fixture(scope="module")
def catalogue() -> templates.TemplateSet:
    return templates.load()


def _plain(argv: list[str]) -> list[str]:
    return argv[2:] if argv[:2] == ["sudo", "-n"] else argv


def _argvs(plan) -> list[list[str]]:
    return [_plain(s.argv) for s in plan.steps]


# -- questions: (request, operation, the exact argv of each step, package manager) ---------

QUERIES = [
    # packages
    ("which packages can be upgraded", "package.upgradable",
     [["apt", "list", "--upgradable"]], "apt"),
    ("are there any updates", "package.upgradable", [["apt", "list", "--upgradable"]], "apt"),
    ("list upgradable packages", "package.upgradable", [["dnf", "-q", "check-update"]], "dnf"),
    ("list upgradable packages", "package.upgradable", [["pacman", "-Qu"]], "pacman"),
    ("list upgradable packages", "package.upgradable",
     [["zypper", "--non-interactive", "list-updates"]], "zypper"),
    ("list the files in the curl package", "package.files", [["dpkg", "-L", "curl"]], "apt"),
    ("which files did openssh-server install", "package.files",
     [["rpm", "-ql", "openssh-server"]], "dnf"),
    ("list the files of vim", "package.files", [["pacman", "-Ql", "vim"]], "pacman"),
    ("which packages are held back", "package.held", [["apt-mark", "showhold"]], "apt"),
    ("list the held packages", "package.held",
     [["zypper", "--non-interactive", "locks"]], "zypper"),
    # containers
    ("how much cpu and memory do my containers use", "container.stats",
     [["docker", "stats", "--no-stream", "--format", FORMAT]], "apt"),
    ("docker stats", "container.stats",
     [["docker", "stats", "--no-stream", "--format", FORMAT]], "apt"),
    ("how much memory does n8n use", "container.usage",
     [["docker", "stats", "--no-stream", "--format", FORMAT, "n8n"]], "apt"),
    ("list docker images", "container.images",
     [["docker", "image", "ls", "--format", FORMAT]], "apt"),
    ("which ports does nextcloud-app publish", "container.ports",
     [["docker", "port", "nextcloud-app"]], "apt"),
    ("what processes run inside n8n", "container.top", [["docker", "top", "n8n"]], "apt"),
    ("list my compose projects", "container.projects",
     [["docker", "compose", "ls", "--all", "--format", "json"]], "apt"),
    # services
    ("show the unit file of nginx", "service.cat",
     [["systemctl", "cat", "--no-pager", "nginx.service"]], "apt"),
    ("what does nginx.service depend on", "service.dependencies",
     [["systemctl", "list-dependencies", "--no-pager", "--plain", "nginx.service"]], "apt"),
    # users
    ("show the last logins", "user.last_logins", [["last", "-n", "25", "-F", "-w"]], "apt"),
    ("when did bob last log in", "user.last_logins",
     [["last", "-n", "10", "-F", "bob"], ["lastlog", "-u", "bob"]], "apt"),
    ("when does alice's password expire", "user.password_status",
     [["chage", "-l", "alice"]], "apt"),
    # processes
    ("show the process tree", "process.tree",
     [["ps", "-ww", "-e", "--forest", "-o", "pid,ppid,user,args"]], "apt"),
    # system
    ("does the machine need a reboot", "system.reboot_required",
     [["cat", "/run/reboot-required"], ["cat", "/run/reboot-required.pkgs"]], "apt"),
    ("list installed kernels", "system.kernels",
     [["dpkg-query", "-W", "-f", "${db:Status-Abbrev}\t${Package}\t${Version}\n",
       "linux-image-*"], ["uname", "-r"]], "apt"),
    ("which kernels do i have", "system.kernels",
     [["rpm", "-q", "--qf", "ii\t%{NAME}\t%{VERSION}-%{RELEASE}.%{ARCH}\n", "kernel-core"],
      ["uname", "-r"]], "dnf"),
    ("what locale is set", "system.locale", [["localectl", "status"]], "apt"),
    ("how long did the boot take", "system.boot_time",
     [["systemd-analyze", "time"], ["systemd-analyze", "blame", "--no-pager"]], "apt"),
    ("what model is this machine", "system.hardware",
     [["hostnamectl", "status"], ["lscpu", "-J"]], "apt"),
    ("list loaded kernel modules", "system.modules", [["lsmod"]], "apt"),
    # disks
    ("show the raid status", "disk.raid", [["cat", "/proc/mdstat"]], "apt"),
    ("show the uuids of the partitions", "disk.ids", [["lsblk", "-f", "-J"]], "apt"),
    ("show /etc/fstab", "disk.fstab", [["cat", "/etc/fstab"]], "apt"),
    ("check the filesystem on /dev/sdc1", "disk.check", [["e2fsck", "-n", "/dev/sdc1"]],
     "apt"),
    # network
    ("show wireguard status", "net.wireguard", [["wg", "show"]], "apt"),
    ("who is connected to the vpn", "net.wireguard", [["wg", "show"]], "apt"),
    ("look up the address of example.com", "net.resolve",
     [["getent", "ahosts", "example.com"]], "apt"),
    ("can this box resolve debian.org", "net.resolve",
     [["getent", "ahosts", "debian.org"]], "apt"),
    ("show the arp table", "net.neighbours", [["ip", "-j", "neigh"]], "apt"),
    ("neighbors on enp3s0", "net.neighbours",
     [["ip", "-j", "neigh", "show", "dev", "enp3s0"]], "apt"),
    ("show active connections", "net.connections",
     [["ss", "-H", "-tnp", "state", "established"]], "apt"),
    ("trace the route to example.com", "net.trace",
     [["tracepath", "-n", "-m", "20", "example.com"]], "apt"),
    # logs
    ("list the recorded boots", "logs.boots", [["journalctl", "--list-boots", "--no-pager"]],
     "apt"),
    ("show the auth log", "logs.auth",
     [["journalctl", "SYSLOG_FACILITY=4", "SYSLOG_FACILITY=10", *JOURNAL]], "apt"),
    ("who used sudo today", "logs.auth",
     [["journalctl", "SYSLOG_FACILITY=4", "SYSLOG_FACILITY=10", "--since", "today",
       *JOURNAL]], "apt"),
    # security
    ("show failed login attempts", "security.failed_logins",
     [["journalctl", "-u", "ssh.service", "-u", "sshd.service", "--grep", FAILED_SSH,
       "--no-pager", "-n", "500", "--output=short-iso"]], "apt"),
    ("failed ssh logins today", "security.failed_logins",
     [["journalctl", "-u", "ssh.service", "-u", "sshd.service", "--grep", FAILED_SSH,
       "--since", "today", "--no-pager", "-n", "500", "--output=short-iso"]], "apt"),
    ("which ips has fail2ban banned", "security.bans",
     [["fail2ban-client", "status"], ["fail2ban-client", "banned"]], "apt"),
    ("check the ssh server config", "security.sshd_check", [["sshd", "-t"]], "apt"),
]


@pytest.mark.parametrize("said, op, argvs, manager", QUERIES)
def test_a_question_is_answered_by_reading_with_the_exact_commands(engines, said, op, argvs,
                                                                   manager) -> None:
    plan = engines[manager].plan(said)
    assert plan.intent is not None and plan.intent.operation == op, plan.text()
    assert plan.kind == Kind.QUERY and not plan.blocked, plan.text()
    assert _argvs(plan) == argvs
    for step in plan.steps:
        assert step.read_only and step.risk == RiskLevel.SAFE, step.command
        # `reos check` judges the command line the same way
        verdict = assess(shlex.join(step.argv))
        assert verdict.read_only and not verdict.blocked, (step.command, verdict.reasons)


@pytest.mark.parametrize("said, argv", [
    ("show wireguard status", ["sudo", "-n", "wg", "show"]),
    ("which ips has fail2ban banned", ["sudo", "-n", "fail2ban-client", "status"]),
    ("check the ssh server config", ["sudo", "-n", "sshd", "-t"]),
    ("check the filesystem on /dev/sdc1", ["sudo", "-n", "e2fsck", "-n", "/dev/sdc1"]),
    ("when does alice's password expire", ["sudo", "-n", "chage", "-l", "alice"]),
])
def test_reads_that_need_root_go_through_sudo_and_still_only_read(engines, said, argv) -> None:
    plan = engines["apt"].plan(said)
    assert plan.steps[0].argv == argv and plan.steps[0].read_only


# -- actions -----------------------------------------------------------------------------------

ACTIONS = [
    ("reinstall nginx", "package.reinstall",
     [["apt-get", "install", "--reinstall", "-y", "-o", "Dpkg::Options::=--force-confdef",
       "-o", "Dpkg::Options::=--force-confold", "nginx"]], "apt"),
    ("reinstall nginx", "package.reinstall", [["dnf", "reinstall", "-y", "nginx"]], "dnf"),
    ("reinstall nginx", "package.reinstall", [["pacman", "-S", "--noconfirm", "nginx"]],
     "pacman"),
    ("reinstall nginx", "package.reinstall",
     [["zypper", "--non-interactive", "install", "--force", "nginx"]], "zypper"),
    ("remove dangling images", "container.prune_images",
     [["docker", "image", "prune", "-f"]], "apt"),
    ("remove all unused docker images", "container.prune_all_images",
     [["docker", "image", "prune", "-a", "-f"]], "apt"),
    ("reload the systemd daemon", "service.daemon_reload", [["systemctl", "daemon-reload"]],
     "apt"),
    ("reset the failed units", "service.reset_failed",
     [["systemctl", "list-units", "--failed", "--no-legend", "--plain", "--no-pager"],
      ["systemctl", "reset-failed"]], "apt"),
    ("make bob change his password at next login", "user.expire_password",
     [["chage", "-d", "0", "bob"]], "apt"),
    ("run trim on the ssds", "disk.trim", [["fstrim", "-av"]], "apt"),
    ("rotate the logs now", "logs.rotate",
     [["journalctl", "--rotate"], ["logrotate", "-f", "/etc/logrotate.conf"]], "apt"),
    ("unban 203.0.113.5 in fail2ban", "security.unban",
     [["fail2ban-client", "unban", "203.0.113.5"]], "apt"),
    ("remove the ban for 203.0.113.5", "security.unban",
     [["fail2ban-client", "unban", "203.0.113.5"]], "apt"),
]


@pytest.mark.parametrize("said, op, argvs, manager", ACTIONS)
def test_an_action_is_planned_with_the_exact_commands_and_waits_for_approval(
        engines, said, op, argvs, manager) -> None:
    plan = engines[manager].plan(said)
    assert plan.intent is not None and plan.intent.operation == op, plan.text()
    assert plan.kind == Kind.ACTION and not plan.blocked, plan.text()
    assert _argvs(plan) == argvs
    assert not plan.read_only and plan.needs_approval
    assert any(not s.read_only for s in plan.steps)


@pytest.mark.parametrize("said", ["ban 203.0.113.5 in the sshd jail",
                                  "ban 203.0.113.5, it is in no jail yet"])
def test_a_ban_is_never_read_as_lifting_one(engines, said) -> None:
    # "ban" and "jail" were nouns of security.unban: a ban asked for was offered as lifted
    plan = engines["apt"].plan(said)
    offered = [plan.intent, *((o.intent for o in plan.intent.asking.options)
                              if plan.intent is not None and plan.intent.asking else ())]
    assert all(i is None or i.operation != "security.unban" for i in offered), plan.text()


def test_a_reinstall_never_removes_or_purges(engines) -> None:
    for manager in ("apt", "dnf", "pacman", "zypper"):
        plan = engines[manager].plan("reinstall curl")
        words = {w for argv in _argvs(plan) for w in argv}
        assert words & {"install", "reinstall", "-S"}, manager
        assert not words & {"remove", "purge", "erase", "-R", "-Rns", "autoremove",
                            "--purge"}, (manager, words)
        assert all(not s.reversible and s.rollback is None for s in plan.steps)


def test_a_reinstall_names_only_installed_packages(engines) -> None:
    plan = engines["apt"].plan("reinstall notapackage")
    assert not plan.steps


@pytest.mark.parametrize("said", [
    "remove dangling images", "reload the systemd daemon", "reset the failed units",
    "run trim on the ssds", "rotate the logs now", "unban 203.0.113.5 in fail2ban",
    "remove all unused docker images",
])
def test_what_cannot_be_undone_records_no_rollback(engines, said) -> None:
    plan = engines["apt"].plan(said)
    acting = [s for s in plan.steps if not s.read_only]
    assert acting and all(not s.reversible and s.rollback is None for s in acting)


def test_the_operations_say_how_undo_goes(catalogue) -> None:
    ops = catalogue.operations
    assert ops["container.prune_images"].undo.startswith("none: a removed image is pulled")
    assert ops["security.unban"].undo.startswith("none:")
    assert "last password change" in ops["user.expire_password"].undo


# -- undo of a forced password change ------------------------------------------------------------

def _record(prior: dict, argv: list[str]):
    from reos.store.journal import StepRecord

    return StepRecord(row=1, seq=1, step_id="s1", title="Make bob change its password",
                      argv=argv, action="expire_password", target_kind="user",
                      target_name="bob", prior_state=prior, rollback=None, reversible=True,
                      status="done", exit_code=0, output="")


PRIOR = {"state": "active", "uid": 1001, "gid": 1001, "groups": ["users"],
         "shell": "/bin/bash", "home": "/home/bob", "expiry": "", "last_change": "20045"}


def test_a_forced_password_change_is_undone_by_setting_the_last_change_back() -> None:
    from reos.system.state import intended_state_problem, restore_argv

    assert restore_argv("user", "bob", PRIOR, "expire_password") == [
        "chage", "-d", "20045", "bob"]
    # without the date (not read: reos was not root) or with ageing off: no undo at all
    assert restore_argv("user", "bob", {**PRIOR, "last_change": ""}, "expire_password") is None
    no_date = {k: v for k, v in PRIOR.items() if k != "last_change"}
    assert restore_argv("user", "bob", no_date, "expire_password") is None
    assert restore_argv("user", "bob", {"state": "absent"}, "expire_password") is None
    assert intended_state_problem("user", "expire_password", {**PRIOR, "last_change": "0"}) \
        is None
    assert intended_state_problem("user", "expire_password", PRIOR)


def test_rederive_works_out_the_same_undo_and_nothing_else() -> None:
    from reos.execution.rederive import expected_rollbacks

    through_sudo = _record(PRIOR, ["sudo", "-n", "chage", "-d", "0", "bob"])
    assert expected_rollbacks(through_sudo, "apt") == [
        ["chage", "-d", "20045", "bob"], ["sudo", "-n", "chage", "-d", "20045", "bob"]]
    as_root = _record(PRIOR, ["chage", "-d", "0", "bob"])
    assert expected_rollbacks(as_root, "apt") == [["chage", "-d", "20045", "bob"]]
    # a date that is not a number of days is never put in a command
    assert expected_rollbacks(_record({**PRIOR, "last_change": "-d 0 root"}, ["chage"]),
                              "apt") == []


def test_the_shadow_file_gives_the_last_change_and_never_the_hash(tmp_path, monkeypatch) -> None:
    from reos.system import state_users

    shadow = tmp_path / "shadow"
    shadow.write_text("bob:$y$secret:20045:0:99999:7:::\ncarol:!:0:0:99999:7::20500:\n")
    monkeypatch.setattr(state_users, "SHADOW", str(shadow))
    assert state_users._shadow("bob") == {"locked": False, "expiry": "", "last_change": "20045",
                                          "max_days": "99999"}
    assert state_users._shadow("carol")["last_change"] == "0"
    assert "secret" not in json.dumps(state_users._shadow("bob"))


def test_the_plan_for_a_forced_password_change_can_be_undone(engines) -> None:
    plan = engines["apt"].plan("expire the password of carol")
    (step,) = plan.steps
    assert step.reversible and step.target is not None and step.target.kind == "user"
    assert step.action == "expire_password"
    # the date is only known when the step runs (read from /etc/shadow, as root)
    assert assess_argv(["chage", "-d", "20045", "carol"]).blocked is False


# -- the catalogue -------------------------------------------------------------------------------

def test_every_example_of_the_new_operations_is_read_as_it(engines, catalogue) -> None:
    wrong = []
    for op in catalogue.operations.values():
        if not op.origin.endswith(NEW_FILES):
            continue
        for example in op.examples:
            plan = engines["apt"].plan(example)
            got = plan.intent.operation if plan.intent else None
            if got != op.id or not plan.steps:
                wrong.append((op.id, example, got, plan.text()[:80]))
    assert wrong == []


def test_every_new_answer_is_a_known_renderer(catalogue) -> None:
    missing = [(key, r.answer) for key, r in catalogue.recipes.items()
               if r.origin.endswith(NEW_FILES) and r.answer and r.answer not in ANSWERS]
    assert missing == []


# -- the answers ---------------------------------------------------------------------------------

def _ok(out: str, code: int = 0, err: str = "") -> StepResult:
    return StepResult("s1", code == 0, code, out, err)


def _say(answer: str, results: list[StepResult], **params: str) -> str:
    return ANSWERS[answer](results, dict(params), Voice())


def test_updates_are_read_from_every_manager() -> None:
    apt = ("Listing... Done\nopenssl/stable-security 3.0.15-1 amd64 [upgradable from: "
           "3.0.14-1]\ncurl/stable 7.88.1-10+deb12u8 amd64 [upgradable from: 7.88.1-10]\n")
    said = _say("package_upgradable", [_ok(apt)])
    assert "2 installed packages have an update" in said and "3.0.14-1 \u2192 3.0.15-1" in said
    dnf = "\nkernel-core.x86_64   6.8.9-300.fc40   updates\ncurl.x86_64  8.6.0-9.fc40  updates\n"
    assert "2 installed packages" in _say("package_upgradable", [_ok(dnf, 100)])
    assert "newest version" in _say("package_upgradable", [_ok("", 1)])  # pacman -Qu: none
    assert "couldn't" in _say("package_upgradable", [_ok("", 1, "error: no database")])
    assert {"package_upgradable", "kernels", "reboot_required", "fs_check", "fail2ban",
            "sshd_check", "failed_logins", "resolve"} <= TOLERANT


def test_a_reboot_is_said_to_be_waiting_only_when_the_mark_is_there() -> None:
    missing = _ok("", 1, "cat: /run/reboot-required: No such file or directory")
    assert _say("reboot_required", [missing, missing]).startswith("No:")
    said = _say("reboot_required", [_ok("*** System restart required ***\n"),
                                     _ok("linux-image-6.1.0-27-amd64\nlibc6\n")])
    assert said.startswith("Yes:") and "linux-image-6.1.0-27-amd64 and libc6" in said


def test_the_kernels_and_the_running_one() -> None:
    rows = ("ii \tlinux-image-6.1.0-26-amd64\t6.1.112-1\nii \tlinux-image-6.1.0-27-amd64\t"
            "6.1.115-1\nii \tlinux-image-amd64\t6.1.115-1\nun \tlinux-image-6.1.0-9-amd64\t\n")
    said = _say("kernels", [_ok(rows), _ok("6.1.0-26-amd64\n")])
    assert said.startswith("2 kernels installed")
    assert "6.1.0-26-amd64 6.1.112-1 (running)" in said and "newer one" in said


def test_a_degraded_array_is_said_first() -> None:
    mdstat = ("Personalities : [raid1]\nmd0 : active raid1 sdb1[1](F) sda1[0]\n"
              "      976630464 blocks super 1.2 [2/1] [U_]\n\nunused devices: <none>\n")
    said = _say("raid", [_ok(mdstat)])
    assert "1 degraded" in said and "DEGRADED" in said and "sdb1[1](F)" in said
    assert "no software RAID array" in _say("raid", [_ok("Personalities : \nunused devices: "
                                                         "<none>\n")])


def test_a_device_the_engine_cannot_prove_harmless_to_open_makes_the_check_ask(engines) -> None:
    plan = engines["apt"].plan("check the filesystem on /dev/sr0")
    assert not plan.read_only and plan.needs_approval  # opening an optical drive acts
    asked = engines["apt"].plan("check the filesystem on sdc1")
    assert asked.kind == Kind.CLARIFY and not asked.steps  # the path is asked, never guessed


def test_a_filesystem_check_of_a_mounted_or_foreign_filesystem_is_not_trusted() -> None:
    mounted = _ok("Warning!  /dev/sdb1 is mounted.\n/dev/sdb1: clean, 11/65536 files", 0)
    assert "is mounted, so this check means nothing" in _say(
        "fs_check", [mounted], path="/dev/sdb1")
    clean_ = _ok("Pass 1: Checking inodes\n/dev/sdc1: 11/65536 files (0.0% non-contiguous),"
                 " 12955/262144 blocks\n")
    assert "is clean" in _say("fs_check", [clean_], path="/dev/sdc1")
    foreign = _ok("", 8, "e2fsck: Bad magic number in super-block while trying to open")
    assert "does not hold an ext2" in _say("fs_check", [foreign], path="/dev/sdb1")


def test_wireguard_peers_with_their_last_handshake() -> None:
    out = ("interface: wg0\n  public key: AAAA\n  private key: (hidden)\n  listening port: "
           "51820\n\npeer: KEYONE1234567890=\n  endpoint: 203.0.113.9:51820\n  allowed ips: "
           "10.8.0.2/32\n  latest handshake: 1 minute, 5 seconds ago\n  transfer: 1.2 MiB "
           "received, 3.4 MiB sent\n\npeer: KEYTWO1234567890=\n  allowed ips: 10.8.0.3/32\n")
    said = _say("wireguard", [_ok(out)])
    assert "wg0: 2 peers, listening on UDP port 51820" in said
    assert "connected (last handshake 1 minute, 5 seconds ago)" in said
    assert "never connected" in said and "(hidden)" not in said


def test_failed_logins_are_counted_by_address_and_name() -> None:
    lines = ("2026-11-21T10:00:01+0000 homelab sshd[1]: Failed password for root from "
             "198.51.100.7 port 5 ssh2\n2026-11-21T10:00:02+0000 homelab sshd[1]: Invalid "
             "user admin from 198.51.100.7 port 6\n2026-11-21T10:00:03+0000 homelab sshd[2]: "
             "Failed password for invalid user admin from 203.0.113.5 port 7 ssh2\n")
    said = _say("failed_logins", [_ok(lines)], since="today")
    assert said.startswith("3 failed SSH logins today, from 2 addresses")
    assert "198.51.100.7 (2)" in said and "admin (2)" in said
    assert _say("failed_logins", [_ok("-- No entries --\n", 1)]).startswith("No failed")


def test_fail2ban_bans_and_one_address() -> None:
    status = _ok("Status\n|- Number of jail:\t2\n`- Jail list:\tsshd, recidive\n")
    banned = _ok("[{'sshd': ['198.51.100.7', '203.0.113.5']}, {'recidive': []}]\n")
    said = _say("fail2ban", [status, banned])
    assert "2 jails: sshd, recidive" in said and "sshd: 198.51.100.7, 203.0.113.5" in said
    assert _say("fail2ban", [status, banned], host="203.0.113.5").startswith(
        "Yes: 203.0.113.5 is banned in sshd")
    assert _say("fail2ban", [status, banned], host="192.0.2.1").startswith("No:")


def test_the_ssh_server_configuration_check() -> None:
    assert "is valid" in _say("sshd_check", [_ok("")])
    bad = _ok("", 255, "/etc/ssh/sshd_config line 12: Bad configuration option: PermitRoot")
    said = _say("sshd_check", [bad])
    assert "has errors" in said and "line 12" in said


def test_other_answers_read_their_tools() -> None:
    stats = _ok('{"Name":"n8n","CPUPerc":"1.50%","MemUsage":"120MiB / 7.6GiB",'
                '"MemPerc":"1.5%","PIDs":"12","NetIO":"1kB / 2kB","BlockIO":"0B / 0B"}\n')
    assert "n8n: 1.50% CPU, memory 120MiB / 7.6GiB" in _say("container_stats", [stats])
    assert "example.com resolves to 93.184.216.34 (IPv4)" in _say(
        "resolve", [_ok("93.184.216.34   STREAM example.com\n93.184.216.34   DGRAM\n")],
        host="example.com")
    assert "does not resolve" in _say("resolve", [_ok("", 2)], host="nowhere.invalid")
    boot = _ok("Startup finished in 3.1s (kernel) + 9.8s (userspace) = 12.9s\n")
    assert _say("boot_time", [boot, _ok("5.2s docker.service\n")]).startswith(
        "The last boot took 12.9s")
    chage = _ok("Last password change\t\t\t\t\t: Nov 20, 2026\nPassword expires\t\t\t\t\t: "
                "never\nAccount expires\t\t\t\t\t\t: never\n")
    assert _say("password_status", [chage], **{"target:s1": "alice"}).startswith(
        "The password of alice was last changed on Nov 20, 2026. It never expires.")
    fstab = _ok("# comment\nUUID=abc / ext4 errors=remount-ro 0 1\n/swapfile none swap sw 0 0\n")
    assert "2 filesystems" in _say("fstab", [fstab])
    ports = _ok("80/tcp -> 0.0.0.0:8080\n80/tcp -> [::]:8080\n")
    assert "container port 80/tcp \u2192 host port 8080 on every address" in _say(
        "container_ports", [ports], **{"target:s1": "nextcloud-app"})


def test_the_remaining_answers_read_their_tools() -> None:
    unit = _ok("# /lib/systemd/system/nginx.service\n[Service]\nExecStart=/usr/sbin/nginx\n\n"
               "# /etc/systemd/system/nginx.service.d/override.conf\n[Service]\nNice=5\n")
    said = _say("unit_file", [unit], **{"target:s1": "nginx.service"})
    assert said.startswith("nginx.service is defined in /lib/systemd/system/nginx.service, "
                           "with 1 drop-in that changes it")
    deps = _ok("nginx.service\n  system.slice\n  sysinit.target\n    dev-hugepages.mount\n")
    assert "needs 2 units directly" in _say("unit_dependencies", [deps],
                                            **{"target:s1": "nginx.service"})
    boots = _ok("IDX BOOT ID                          FIRST ENTRY                 LAST ENTRY\n"
                " -1 0f1e2d3c4b5a69788796a5b4c3d2e1f0 Mon 2026-11-16 01:02:03 UTC Tue "
                "2026-11-17 02:00:00 UTC\n  0 aaaabbbbccccddddeeeeffff00001111 Tue "
                "2026-11-17 02:01:00 UTC Thu 2026-11-26 10:00:00 UTC\n")
    assert "The journal holds 2 boots, the first on 2026-11-16 01:02:03" in _say(
        "boots", [boots])
    assert _say("modules", [_ok("Module Size Used by\next4 1060864 2\nwireguard 94208 0\n")]) \
        == "2 kernel modules loaded: ext4, wireguard."
    locale = _ok("System Locale: LANG=en_GB.UTF-8\n    VC Keymap: uk\n   X11 Layout: gb\n")
    assert _say("locale", [locale]) == ("The system language is en_GB.UTF-8 (LANG); the "
                                        "console keymap is uk and the X11 keyboard layout is "
                                        "gb.")
    host = _ok("Static hostname: homelab\n        Chassis: desktop\n Virtualization: kvm\n"
               "Hardware Vendor: QEMU\n Hardware Model: Standard PC\n")
    said = _say("hardware", [host, _ok('{"lscpu": [{"field": "Model name:", "data": "EPYC"}]}')])
    assert "This is a QEMU Standard PC (desktop)." in said and "virtual machine" in said
    neigh = _ok('[{"dst": "192.168.1.1", "dev": "enp3s0", "lladdr": "aa:bb:cc:dd:ee:ff", '
                '"router": null, "state": ["REACHABLE"]}]')
    assert "192.168.1.1 \u2192 aa:bb:cc:dd:ee:ff on enp3s0 (reachable), a router" in _say(
        "neighbours", [neigh])
    conns = _ok('0 0 192.168.1.5:22 192.168.1.10:54321 users:(("sshd",pid=1234,fd=4))\n')
    assert _say("connections", [conns]).startswith(
        "1 TCP connection open right now; by program: sshd (pid 1234) 1.")
    trace = _ok(" 1?: [LOCALHOST]   pmtu 1500\n 1:  192.168.1.1   0.563ms\n 2:  no reply\n"
                " 3:  93.184.216.34   12.1ms reached\n     Resume: pmtu 1500 hops 3 back 3\n")
    assert _say("trace", [trace], host="example.com").startswith(
        "example.com is reached in 3 hops")
    ids = _ok('{"blockdevices": [{"name": "sdc", "fstype": null, "children": [{"name": '
              '"sdc1", "fstype": "ext4", "label": "backup", "uuid": "1234-abcd", '
              '"mountpoints": [null]}]}]}')
    assert "sdc1: ext4, label backup, UUID 1234-abcd, not mounted" in _say("disk_ids", [ids])
    images = _ok('{"Repository":"nginx","Tag":"latest","Size":"187MB","CreatedSince":"3 weeks'
                 ' ago"}\n{"Repository":"<none>","Tag":"<none>","Size":"1.2GB",'
                 '"CreatedSince":"2 months ago"}\n')
    said = _say("container_images", [images])
    assert said.startswith("2 images, 1.4 GB") and "1 image is dangling" in said
    projects = _ok('[{"Name":"media","Status":"exited(1)","ConfigFiles":"/srv/media/c.yml"}]')
    assert "media: exited(1)" in _say("compose_projects", [projects])
    top = _ok("UID PID PPID C STIME TTY TIME CMD\nroot 4242 4200 0 10:00 ? 00:00:01 node n8n\n")
    assert "pid 4242 (root): node n8n" in _say("container_top", [top], **{"target:s1": "n8n"})
    stopped = _ok("", 1, "Error response from daemon: container abc is not running")
    assert "is not running" in _say("container_top", [stopped], **{"target:s1": "n8n"})
    tree = _ok("    PID    PPID USER     COMMAND\n      1       0 root     /sbin/init\n"
               "      2       0 root     [kthreadd]\n      9       2 root      \\_ [kworker]\n"
               "    700       1 root     /usr/sbin/sshd\n")
    said = _say("process_tree", [tree])
    assert "2 processes" in said and "kthreadd" not in said and "/usr/sbin/sshd" in said
    files = _ok("/.\n/usr\n/usr/bin\n/usr/bin/curl\n/usr/share/doc/curl/copyright\n")
    assert _say("package_files", [files], **{"target:s1": "curl"}).startswith(
        "curl put 2 files on the disk (1 of them documentation).\nCommands: /usr/bin/curl.")
    assert "2 packages are held" in _say("package_held", [_ok("docker.io\nlinux-image-amd64\n")])
    assert _say("package_held", [_ok("")]).startswith("No package is held")


def test_a_directorys_size_and_each_containers_disk_are_read_whatever_comes_back() -> None:
    assert _say("dir_size", [_ok("3221225472\t/srv/media\n")], path="/srv/media").startswith(
        "/srv/media holds 3 GiB")
    denied = _say("dir_size", [_ok("4096\t/home\n", 1, "du: cannot read directory "
                                   "'/home/x': Permission denied\n")], path="/home")
    assert "1 directory I could not read" in denied
    for garbage in ("\u00b2\t/srv", "", "\x1b[31mboom\x1b[0m", "12 34"):
        said = _say("dir_size", [_ok(garbage, 1, "du: \x1b[2Jno")], path="/srv")
        assert said.startswith("I couldn't measure /srv") and "\x1b" not in said, said
    rows = [{"Names": "small", "Size": "12kB (virtual 5MB)"},
            {"Names": "big", "Size": "3.5MB (virtual 90MB)"},
            {"Names": "odd", "Size": "1.2.3kB"}, {"Names": "none", "Size": None},
            {"Names": "\x1b[2Jx", "Size": ".kB"}]
    said = _say("container_sizes", [_ok("\n".join(json.dumps(r) for r in rows) + "\nnot json\n")])
    lines = said.splitlines()
    assert lines[0].startswith("5 containers have written"), said
    assert lines[1].startswith("  big: 3.5MB written (90MB with its image)"), said
    assert "None" not in said and "\x1b" not in said, said
    one = _say("container_sizes", [_ok(json.dumps(rows[0]))])
    assert one.startswith("1 container has written"), one
