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
from reos.system import portable
from reos.system.snapshot import SystemSnapshot
from tests.fleet_fakes import OneStepEngine

MACHINE = "0123456789abcdef0123456789abcdef"
def _snapshot(**facts: object) -> SystemSnapshot:
    lena = {"name": "lena", "uid": 1010, "gid": 1010, "groups": ["lena"]}
    return SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "", "users": [lena],
        "host": {"machine_id": MACHINE, "package_manager": "apt", "user": "bob",
                 "hostname": "db1", "static_hostname": "db1",
                 "ssh_passers": "", "ssh_passer_pids": "", **facts}})


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
    assert hosts == ["web1", "web2"]
    assert [t.args for t in tasks] == [{"read": "root", "ssh_ports": []}]
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


RESTART = Step("s1", "Restart cron", ["sudo", "-n", "systemctl", "restart", "cron.service"],
               target=Target("service", "cron.service"), action="restart", needs_root=True)
# web1 reached through something on it (SSH saw the session come from loopback), whose
# owner the login account cannot see
_RELAYED = {"ssh_port": 22, "ssh_loopback": True, "ssh_passers": None, "ssh_passer_pids": None,
            "ssh_passers_unknown": "something on the host carries reos's session, and "
                                   "this account may not see what"}
_SEEN = [{"proto": "tcp", "address": "0.0.0.0", "port": 443, "pid": 401, "process": "sslh",
          "unit": "sslh.service"}]
_CARRIED = {"ssh_passers": "sshd sslh sslh.service ssh.service",
            "ssh_passer_pids": "401 402"}


def _relayed(**facts: object) -> SystemSnapshot:
    data = _snapshot(**{**_RELAYED, **facts}).to_dict()
    data["services"] = [{"name": name, "active": "active", "enabled": "enabled",
                         "load": "loaded"} for name in ("cron.service", "sslh.service")]
    return SystemSnapshot.from_dict(data)


def test_what_carries_the_session_is_read_as_root_only_where_the_login_could_not_see_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A program stopped or restarted where what carries the session could not be seen
    by the login account: read again as root, then decided (cron is not the relay);
    never for a read, nor where it was read (nothing from the host carries it), nor
    where reos logs in as root."""
    from reos.on_hosts import decide

    plan = Plan("x", Kind.ACTION, steps=[RESTART])
    assert deciding.needs_root_read(plan, _relayed())
    assert not deciding.needs_root_read(plan, _relayed(is_root=True))
    assert not deciding.needs_root_read(
        plan, _snapshot(ssh_port=22, ssh_loopback=False, ssh_passers="", ssh_passer_pids=""))
    assert not deciding.needs_root_read(plan, _snapshot(ssh_port=22, ssh_loopback=False), 22)
    assert not deciding.needs_root_read(Plan("x", Kind.QUERY, steps=[DISK]), _relayed())

    source = Source((Path("/nowhere/hosts.ini"),), "test")
    given = _runner(monkeypatch, {"shadow": {}, "listening": _SEEN, "ssh": _CARRIED})
    [part] = decide(OneStepEngine(RESTART), source, "restart cron", {"web1": _relayed()})  # type: ignore[arg-type]
    [(hosts, tasks)] = given
    assert hosts == ["web1"] and tasks[0].become
    assert part.plan is not None, part.left_out

    relay = Step("s1", "Stop sslh", ["sudo", "-n", "systemctl", "stop", "sslh.service"],
                 target=Target("service", "sslh.service"), action="stop", needs_root=True)
    [part] = decide(OneStepEngine(relay), source, "stop sslh", {"web1": _relayed()})  # type: ignore[arg-type]
    assert part.plan is None and "carried through it" in (part.left_out or "")


def test_where_what_carries_it_cannot_be_read_as_root_no_program_is_stopped_saying_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from reos.on_hosts import decide

    _runner(monkeypatch, None)  # sudo wants a password
    source = Source((Path("/nowhere/hosts.ini"),), "test")
    [part] = decide(OneStepEngine(RESTART), source, "restart cron", {"web1": _relayed()})  # type: ignore[arg-type]
    assert part.plan is None
    assert "does not know what" in (part.left_out or "")
    assert "may not see what" in (part.left_out or ""), part.left_out


def test_what_root_sends_replaces_the_logins_only_when_it_is_rows_and_names() -> None:
    snap = _relayed()
    read = snapshots.with_root(snap, {"shadow": {}, "listening": _SEEN, "ssh": _CARRIED},
                               "web1")
    assert [(r.process, r.unit) for r in read.listening or []] == [("sslh", "sslh.service")]
    assert read.host["ssh_passers"] == _CARRIED["ssh_passers"]
    assert "ssh_passers_unknown" not in read.host
    for bad in ("sslh", [{"port": "22"}], [{"port": 22}] * (portable.LISTEN_ROWS + 1)):
        kept = snapshots.with_root(snap, {"shadow": {}, "listening": bad}, "web1")
        assert kept.listening is None
    for bad_ssh in ("sslh", {"ssh_passers": 5}, {"other": "x"}, None,
                    {"ssh_passers": "sslh"}):  # without its pids: not the whole answer
        kept = snapshots.with_root(snap, {"shadow": {}, "ssh": bad_ssh}, "web1")
        assert "ssh_passers" not in kept.host and kept.host["ssh_passers_unknown"]
