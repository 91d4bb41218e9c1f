"""What reos reads on a host as root, and only where a plan needs it (reos/on_hosts.py:
`decide`; reos/fleet/snapshots.py: `read_as_root`, `with_root`): the accounts' locks and
/etc/shadow dates, and whether sudo's rules could depend on the host's name
(reos/system/portable.py: `sudo_by_hostname`), which a hostname change needs to be known
as "cannot" (reos/fleet/deciding.py). No bed: the runner is replaced, the tasks it is
given are looked at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reos.fleet import deciding, snapshots
from reos.fleet.inventory import Source
from reos.fleet.running import Result, Run, Task
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.system import portable
from reos.system.snapshot import SystemSnapshot

MACHINE = "0123456789abcdef0123456789abcdef"
SUDO_DEBIAN = "\n".join([
    "# This file MUST be edited with the 'visudo' command as root.",
    "Defaults\tenv_reset",
    "Defaults\tsecure_path=\"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\"",
    "Defaults:%sudo env_keep += \"SSH_AGENT_PID\"",
    "Cmnd_Alias SHUTDOWN = /sbin/halt, /sbin/reboot",
    "User_Alias ADMINS = bob, \\",
    "    alice",
    "root\tALL=(ALL:ALL) ALL",
    "%sudo\tALL=(ALL:ALL) ALL",
    "bob, alice ALL = (ALL) NOPASSWD: ALL",
    "#1000 ALL=(ALL) ALL",
    ""])


@pytest.mark.parametrize(("line", "said"), [
    ("bob db1 = (ALL) ALL", "some hosts only"),
    ("bob ALL, !db1 = (ALL) ALL", "some hosts only"),
    ("bob ALL = (ALL) /bin/ls : db1 = (ALL) ALL", "some hosts only"),
    ("bob ALL = (ALL) ALL, \\\n  db1 = /bin/cat", "some hosts only"),  # continued
    ("Host_Alias DB = db1, db2", "Host_Alias"),
    ("Defaults@db1 !authenticate", "Defaults for some hosts"),
    ("@include /etc/sudoers.local", "includes /etc/sudoers.local"),
    ("#includedir /etc/other.d", "includes /etc/other.d"),
    ("something reos does not read", "some hosts only, or one reos does not read"),
])
def test_a_sudoers_text_whose_rules_could_depend_on_the_hostname_says_why(
        line: str, said: str) -> None:
    assert portable.sudoers_by_hostname(SUDO_DEBIAN, "/etc/sudoers") == ""
    why = portable.sudoers_by_hostname(SUDO_DEBIAN + line + "\n", "/etc/sudoers")
    assert said in why
    assert portable.sudoers_by_hostname(None, "/etc/sudoers") == (
        "/etc/sudoers could not be read")


def test_sudos_sources_and_its_included_folder_are_read_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "sudoers.d"
    folder.mkdir()
    (tmp_path / "sudoers").write_text(SUDO_DEBIAN + "@includedir /etc/sudoers.d\n")
    (folder / "README").write_text("# files here are read\n")
    (folder / "old.rules").write_text("bob db1 = ALL\n")  # a dot: sudo skips it
    (folder / "bob~").write_text("bob db1 = ALL\n")  # a backup: skipped too
    monkeypatch.setattr(portable, "SUDOERS", tmp_path / "sudoers")
    monkeypatch.setattr(portable, "SUDOERS_D", str(folder))
    monkeypatch.setattr(portable, "NSSWITCH", tmp_path / "nsswitch.conf")
    monkeypatch.setattr(portable, "SUDO_CONF", tmp_path / "sudo.conf")
    # the includedir is followed only when it names the folder sudo reads
    (tmp_path / "sudoers").write_text(f"{SUDO_DEBIAN}@includedir {folder}\n")
    assert portable.sudo_by_hostname() == ""
    (folder / "bob").write_text("bob  db1=(ALL) NOPASSWD: ALL\n")
    assert "some hosts only" in portable.sudo_by_hostname()
    (folder / "bob").write_text("bob ALL=(ALL) NOPASSWD: ALL\n")
    (tmp_path / "nsswitch.conf").write_text("passwd: files\nsudoers: files\n")
    assert portable.sudo_by_hostname() == ""
    (tmp_path / "nsswitch.conf").write_text("passwd: files\nsudoers: files sss\n")
    assert "files sss" in portable.sudo_by_hostname()
    (tmp_path / "nsswitch.conf").write_text("sudoers: files\n")
    (tmp_path / "sudo.conf").write_text("Plugin sudoers_policy sudoers.so "
                                        "sudoers_file=/etc/other\n")
    assert "sudo.conf" in portable.sudo_by_hostname()


def _snapshot(**facts: object) -> SystemSnapshot:
    lena = {"name": "lena", "uid": 1010, "gid": 1010, "groups": ["lena"]}
    return SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "", "users": [lena],
        "host": {"machine_id": MACHINE, "package_manager": "apt", "user": "bob",
                 "hostname": "db1", "static_hostname": "db1", **facts}})


HOSTNAME = Step("s1", "Set the new hostname", ["sudo", "-n", "hostnamectl", "set-hostname",
                                               "db7"], target=Target("hostname", "hostname"),
                action="set_hostname", needs_root=True)
LOCK = Step("s1", "Lock lena", ["sudo", "-n", "usermod", "-L", "lena"],
            target=Target("user", "lena"), action="lock", needs_root=True)
DISK = Step("s1", "Show disk usage", ["df", "-h"], read_only=True)


def _one(step: Step, snap: SystemSnapshot) -> deciding.Prepared:
    [part] = deciding.prepare({"db1": Plan("x", Kind.ACTION, steps=[step])}, {"db1": snap},
                              "x")
    return part


@pytest.mark.parametrize(("facts", "said"), [
    ({"sudo_by_hostname": "/etc/sudoers has a rule for some hosts only"},
     "sudo's rules there could depend on the host's name (/etc/sudoers has a rule"),
    ({}, "reos could not read sudo's rules there as root"),  # not read
    ({"root_read": "sudo: a password is required"},
     "as root (sudo: a password is required)"),
    ({"sudo_by_hostname": "", "pretty_hostname": "Database One"},
     "it has a pretty hostname, which a new hostname clears"),
])
def test_a_hostname_change_is_left_out_where_it_could_cut_sudo(
        facts: dict[str, object], said: str) -> None:
    part = _one(HOSTNAME, _snapshot(**facts))
    assert part.plan is None, part.undos
    assert said in (part.left_out or "")
    done = _one(HOSTNAME, _snapshot(sudo_by_hostname=""))
    assert done.undos == [["sudo", "-n", "hostnamectl", "set-hostname", "db1"]]


class _Engine:
    """The one engine's part `decide` uses: a plan per snapshot, the settings."""

    class settings:  # noqa: N801
        class fleet:  # noqa: N801
            connect_timeout = 10

    def __init__(self, step: Step) -> None:
        self.step = step

    def plan_on(self, snapshot: SystemSnapshot, request: str) -> Plan:
        return Plan(request, Kind.ACTION, steps=[self.step])


def _runner(monkeypatch: pytest.MonkeyPatch, answer: dict[str, Any] | None
            ) -> list[tuple[list[str], list[Task]]]:
    given: list[tuple[list[str], list[Task]]] = []

    def run(source: Source, hosts: Any, tasks: list[Task], *, on_result: Any = None,
            **_: Any) -> Run:
        names = list(hosts)
        given.append((names, tasks))
        for name in names:
            on_result(Result(name, tasks[0].name, "ok" if answer else "failed",
                             said="sudo: a password is required",
                             returned=answer or {}))
        return Run(tuple(names), status="successful")

    monkeypatch.setattr(snapshots, "run", run)
    return given


def test_sudo_runs_on_a_host_only_when_its_plan_needs_what_root_reads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from reos.on_hosts import decide

    source = Source((Path("/nowhere/hosts.ini"),), "test")
    read = {"web1": _snapshot(), "web2": _snapshot()}
    given = _runner(monkeypatch, {"shadow": {"lena": {"password_locked": False}},
                                  "sudo_by_hostname": ""})
    # reading a host is done as the login: no become
    snapshots.read(source, ["web1"])
    assert given and not any(t.become for _, tasks in given for t in tasks)
    given.clear()
    parts = decide(_Engine(DISK), source, "show disk usage", dict(read))  # type: ignore[arg-type]
    assert [p.plan is not None for p in parts] == [True, True]
    assert given == []  # no sudo for a request that only reads
    parts = decide(_Engine(LOCK), source, "lock lena", read)  # type: ignore[arg-type]
    [(hosts, tasks)] = given
    assert hosts == ["web1", "web2"] and [t.args for t in tasks] == [{"read": "root"}]
    assert tasks[0].become
    assert [p.undos for p in parts] == [[["sudo", "-n", "usermod", "-U", "lena"]]] * 2


def test_a_host_where_the_root_read_failed_has_those_steps_left_out_with_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from reos.on_hosts import decide

    _runner(monkeypatch, None)
    source = Source((Path("/nowhere/hosts.ini"),), "test")
    for step in (LOCK, HOSTNAME):
        [part] = decide(_Engine(step), source, "x", {"db1": _snapshot()})  # type: ignore[arg-type]
        assert part.plan is None
        assert "(sudo wants a password there)" in (part.left_out or ""), part.left_out
