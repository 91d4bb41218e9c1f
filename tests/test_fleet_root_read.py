"""What reos reads on a host as root, and only where a plan needs it (reos/on_hosts.py:
`decide`; reos/fleet/snapshots.py: `read_as_root`, `with_root`): the accounts' locks and
/etc/shadow dates (and ufw's rules: tests/test_fleet_firewall.py); a hostname is never
changed on a host (reos/fleet/deciding.py). No bed: the runner is replaced, the tasks it
is given are looked at."""

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
from reos.system.snapshot import SystemSnapshot
from tests.fleet_fakes import OneStepEngine

MACHINE = "0123456789abcdef0123456789abcdef"
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


@pytest.mark.parametrize("facts", [{}, {"root_read": "sudo: a password is required"}])
def test_a_hostname_is_never_changed_on_a_host(facts: dict[str, object]) -> None:
    """sudo's rules (a host list, a Host_Alias, LDAP or sssd) and sssd's host-based logins
    can depend on the host's own name: a new one could cut the login and the sudo reos
    needs to undo it, so it is left out, saying why, whatever the host says."""
    part = _one(HOSTNAME, _snapshot(**facts))
    assert part.plan is None, part.undos
    assert "a new name could cut reos off from the host" in (part.left_out or "")
    assert "rename it on the machine itself" in (part.left_out or "")
    assert not deciding.needs_root_read(Plan("x", Kind.ACTION, steps=[HOSTNAME]))


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
    given = _runner(monkeypatch, {"shadow": {"lena": {"password_locked": False}}})
    # reading a host is done as the login: no become
    snapshots.read(source, ["web1"])
    assert given and not any(t.become for _, tasks in given for t in tasks)
    given.clear()
    parts = decide(OneStepEngine(DISK), source, "show disk usage", dict(read))  # type: ignore[arg-type]
    assert [p.plan is not None for p in parts] == [True, True]
    assert given == []  # no sudo for a request that only reads
    parts = decide(OneStepEngine(LOCK), source, "lock lena", read)  # type: ignore[arg-type]
    [(hosts, tasks)] = given
    assert hosts == ["web1", "web2"] and [t.args for t in tasks] == [{"read": "root"}]
    assert tasks[0].become
    assert [p.undos for p in parts] == [[["sudo", "-n", "usermod", "-U", "lena"]]] * 2


def test_a_host_where_the_root_read_failed_has_those_steps_left_out_with_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from reos.on_hosts import decide

    _runner(monkeypatch, None)
    source = Source((Path("/nowhere/hosts.ini"),), "test")
    for step in (LOCK,):
        [part] = decide(OneStepEngine(step), source, "x", {"db1": _snapshot()})  # type: ignore[arg-type]
        assert part.plan is None
        assert "(sudo wants a password there)" in (part.left_out or ""), part.left_out
