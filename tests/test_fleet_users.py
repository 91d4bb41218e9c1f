"""Accounts and groups changed on several hosts through Ansible and undone there
(reos/fleet/changing.py), on the fleet bed: web1, web2 and db1 over real SSH, logged in as
bob (tests/fleet_bed.py). Each change is looked at from outside (docker exec: getent, id),
never through reos. The unit tests at the end need no bed: the prior state reos reads of
an account or a group from a host's snapshot, the undo worked out from it (and derived
again when it runs), and the accounts reos never cuts on a host.
"""

from __future__ import annotations

import pytest

from reos import paths
from reos.errors import EXIT_NOTHING, EXIT_OK
from reos.fleet import changing
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.store.db import Database
from reos.store.journal import FLEET, Journal
from reos.system.snapshot import SystemSnapshot
from tests.conftest import reos

MACHINE = "0123456789abcdef0123456789abcdef"


def _plan(fleet, pattern: str, request: str, *more: str):  # type: ignore[no-untyped-def]
    return reos("plan", "--hosts", pattern, "-i", str(fleet.inventory), *more, request,
                timeout=180)


def _has_account(fleet, host: str, name: str) -> bool:  # type: ignore[no-untyped-def]
    return fleet.run(host, "getent", "passwd", name).returncode == 0


def _groups(fleet, host: str, name: str) -> list[str]:  # type: ignore[no-untyped-def]
    return fleet.run(host, "id", "-nG", name).stdout.split()


def test_an_account_created_on_two_hosts_and_undone_there(fleet) -> None:  # type: ignore[no-untyped-def]
    done = _plan(fleet, "web1,web2", "create user quinn", "--yes")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "On web1, web2:" in done.stdout
    assert "undo: $ userdel -r quinn" in done.stdout
    assert [_has_account(fleet, h, "quinn") for h in ("web1", "web2", "db1")] == [
        True, True, False]
    assert fleet.run("web1", "test", "-d", "/home/quinn").returncode == 0
    [tx] = [t for t in _journal().transactions(kind=FLEET) if t.request == "create user quinn"]
    assert {s.host: s.prior_state["state"] for s in tx.steps} == {  # type: ignore[index]
        "web1": "absent", "web2": "absent"}

    undone = reos("undo", timeout=120)
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert not _has_account(fleet, "web1", "quinn")
    assert not _has_account(fleet, "web2", "quinn")
    assert fleet.run("web2", "test", "-d", "/home/quinn").returncode != 0  # its home too


def test_a_group_joined_on_a_pattern_with_an_exclusion_undone_host_by_host(
        fleet) -> None:  # type: ignore[no-untyped-def]
    for host in ("web1", "web2", "db1"):
        assert fleet.run(host, "useradd", "-m", "dora").returncode == 0
    done = _plan(fleet, "all:!db1", "add dora to the adm group", "--yes")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "undo: $ gpasswd -d dora adm" in done.stdout
    assert ["adm" in _groups(fleet, h, "dora") for h in ("web1", "web2", "db1")] == [
        True, True, False]

    one = reos("undo", "--host", "web2", timeout=120)
    assert one.returncode == EXIT_OK, one.stdout + one.stderr
    assert "partly undone" in one.stdout
    assert ["adm" in _groups(fleet, h, "dora") for h in ("web1", "web2")] == [True, False]
    assert "dora" in _groups(fleet, "web2", "dora")  # only the one group changed back

    rest = reos("undo", timeout=120)
    assert rest.returncode == EXIT_OK, rest.stdout + rest.stderr
    assert "adm" not in _groups(fleet, "web1", "dora")
    assert _has_account(fleet, "web1", "dora")  # the account itself stays


def test_a_host_where_the_account_is_already_in_the_group_is_left_out_with_why(
        fleet) -> None:  # type: ignore[no-untyped-def]
    for host in ("web1", "web2"):
        assert fleet.run(host, "useradd", "-m", "erin").returncode == 0
    assert fleet.run("web1", "usermod", "-aG", "adm", "erin").returncode == 0
    done = _plan(fleet, "web", "add erin to the adm group", "--dry-run")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "On web2:" in done.stdout and "On web1" not in done.stdout
    assert "web1: erin is already in the adm group" in done.stdout
    assert "adm" not in _groups(fleet, "web2", "erin")  # a dry run changes nothing


def test_a_group_created_on_a_host_and_undone(fleet) -> None:  # type: ignore[no-untyped-def]
    done = _plan(fleet, "db1", "create a group called ops", "--yes")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert fleet.run("db1", "getent", "group", "ops").returncode == 0
    undone = reos("undo", "--host", "db1", timeout=120)
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert fleet.run("db1", "getent", "group", "ops").returncode != 0


def test_the_account_reos_logs_in_as_is_never_deleted_there_even_when_asked(
        fleet) -> None:  # type: ignore[no-untyped-def]
    done = _plan(fleet, "web1", "delete user bob", "--yes")
    assert done.returncode == EXIT_NOTHING, done.stdout + done.stderr
    assert "web1: Delete the account bob" in done.stdout
    assert "the account reos logs in as there" in done.stdout
    assert _has_account(fleet, "web1", "bob")
    assert not [t for t in _journal().transactions(kind=FLEET)
                if t.request == "delete user bob" and t.steps]


# -- no bed needed ------------------------------------------------------------------------
def _journal() -> Journal:
    return Journal(Database(paths.database_file()))


def _snapshot(*, is_root: bool = False, user: str | None = "bob") -> SystemSnapshot:
    host: dict[str, object] = {"machine_id": MACHINE, "package_manager": "apt",
                               "is_root": is_root}
    if user is not None:
        host["user"] = user
    return SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "2026-01-01T00:00:00Z", "host": host,
        "users": [
            {"name": "root", "uid": 0, "gid": 0, "home": "/root", "shell": "/bin/bash",
             "groups": ["root"]},
            {"name": "bob", "uid": 1000, "gid": 1000, "home": "/home/bob",
             "shell": "/bin/bash", "groups": ["bob", "sudo"]},
            {"name": "alice", "uid": 1001, "gid": 1001, "home": "/home/alice",
             "shell": "/bin/zsh", "groups": ["alice", "adm", "docker"], "locked": True,
             "gecos": "Alice Martin,,,"},
            {"name": "deploy", "uid": 1002, "gid": 100, "home": "/srv/deploy",
             "shell": "/bin/sh", "groups": ["users"]}],
        "groups": [
            {"name": "root", "gid": 0}, {"name": "adm", "gid": 4, "members": ["alice"]},
            {"name": "sudo", "gid": 27, "members": ["bob"]}, {"name": "users", "gid": 100},
            {"name": "docker", "gid": 998, "members": ["alice"]},
            {"name": "bob", "gid": 1000}, {"name": "alice", "gid": 1001}]})


def _step(action: str, argv: list[str], name: str, kind: str = "user", *,
          reversible: bool = True) -> Step:
    return Step("s1", f"{action} {name}", ["sudo", "-n", *argv], target=Target(kind, name),
                action=action, needs_root=True, reversible=reversible)


def _one(step: Step, snap: SystemSnapshot, request: str = "x") -> changing.Prepared:
    [part] = changing.prepare({"web1": Plan(request, Kind.ACTION, steps=[step])},
                              {"web1": snap}, request)
    return part


def test_an_accounts_prior_state_comes_from_the_hosts_snapshot() -> None:
    snap = _snapshot()
    alice = changing.prior_state(snap, "user", "alice", ["sudo", "-n", "gpasswd", "-d",
                                                         "alice", "docker"])
    assert alice == {"state": "unknown", "account": "present",
                     "reason": "the host was not read as root", "uid": 1001, "gid": 1001,
                     "group": "alice", "private_group": True, "groups": ["adm", "docker"],
                     "shell": "/bin/zsh", "home": "/home/alice", "gecos": "Alice Martin,,,",
                     "changed_group": "docker"}
    deploy = changing.prior_state(snap, "user", "deploy")
    assert deploy is not None and deploy["private_group"] is False
    assert "changed_group" not in deploy
    assert changing.prior_state(snap, "user", "carol") == {"state": "absent"}
    # the lock is in /etc/shadow: known only when the host was read as root
    assert changing.prior_state(_snapshot(is_root=True), "user", "alice")["state"] == "locked"  # type: ignore[index]
    assert changing.prior_state(_snapshot(is_root=True), "user", "bob")["state"] == "active"  # type: ignore[index]
    assert changing.prior_state(snap, "group", "docker") == {"state": "present", "gid": 998,
                                                             "members": ["alice"]}
    assert changing.prior_state(snap, "group", "ops") == {"state": "absent"}
    bare = SystemSnapshot(collected_at="")
    assert changing.prior_state(bare, "user", "alice") is None
    assert changing.prior_state(bare, "group", "ops") is None


def test_an_accounts_or_groups_change_on_a_host_has_its_undo_and_undo_derives_it_again(
        ) -> None:
    from reos.execution.rederive import expected_rollbacks

    snap = _snapshot()
    cases = [
        (_step("create", ["useradd", "-m", "-s", "/bin/bash", "carol"], "carol"),
         ["userdel", "-r", "carol"]),
        (_step("add_to_group", ["usermod", "-aG", "sudo", "alice"], "alice"),
         ["gpasswd", "-d", "alice", "sudo"]),
        (_step("remove_from_group", ["gpasswd", "-d", "alice", "docker"], "alice"),
         ["usermod", "-aG", "docker", "alice"]),
        (_step("set_shell", ["usermod", "-s", "/bin/bash", "alice"], "alice"),
         ["usermod", "-s", "/bin/zsh", "alice"]),
        (_step("set_fullname", ["usermod", "-c", "Al", "alice"], "alice"),
         ["usermod", "-c", "Alice Martin,,,", "alice"]),
        (_step("delete", ["userdel", "alice"], "alice"),
         ["useradd", "-M", "-u", "1001", "-U", "-G", "adm,docker", "-s", "/bin/zsh", "-d",
          "/home/alice", "-c", "Alice Martin,,,", "alice"]),
        (_step("create", ["groupadd", "ops"], "ops", "group"), ["groupdel", "ops"]),
    ]
    journal = _journal()
    tx = journal.begin("x", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    for seq, (step, undo) in enumerate(cases):
        part = _one(step, snap)
        assert part.plan is not None, part.left_out
        assert part.undos == [["sudo", "-n", *undo]]
        prior = part.priors[0]
        assert prior is not None and prior["machine_id"] == MACHINE
        assert step.target is not None
        journal.begin_step(tx, seq, step.id, step.title, step.argv, action=step.action,
                           target_kind=step.target.kind, target_name=step.target.name,
                           prior_state=prior, rollback=part.undos[0], host="web1")
    recorded = journal.transaction(tx)
    assert recorded is not None
    for record, (_, undo) in zip(recorded.steps, cases, strict=True):  # as `reos undo` does
        assert ["sudo", "-n", *undo] in expected_rollbacks(record, "apt")


@pytest.mark.parametrize(("step", "said"), [
    (_step("delete", ["userdel", "bob"], "bob"), "bob (the account reos logs in as there)"),
    (_step("lock", ["usermod", "-L", "bob"], "bob"), "never deletes, locks"),
    (_step("no_shell", ["usermod", "-s", "/usr/sbin/nologin", "bob"], "bob"),
     "changes the shell"),
    (_step("set_expiry", ["chage", "-E", "2020-01-01", "bob"], "bob"), "expires"),
    (_step("lock", ["usermod", "-L", "root"], "root"), "it needs root"),
    (_step("revoke_admin", ["gpasswd", "-d", "bob", "sudo"], "bob"),
     "could take away the sudo reos needs"),
    (_step("remove_from_group", ["gpasswd", "-d", "bob", "sudo"], "bob"),
     "out of a group"),
])
def test_root_and_the_account_reos_logs_in_as_are_never_cut_on_a_host_even_when_asked(
        step: Step, said: str) -> None:
    part = _one(step, _snapshot(is_root=True), f"{step.title} please")
    assert part.plan is None
    assert said in (part.left_out or "")


def test_another_account_may_be_changed_and_an_unknown_login_refuses_every_cut() -> None:
    lock = _step("lock", ["usermod", "-L", "alice"], "alice")
    leave = _step("remove_from_group", ["gpasswd", "-d", "alice", "docker"], "alice")
    assert _one(lock, _snapshot(is_root=True)).undos == [["sudo", "-n", "usermod", "-L",
                                                         "alice"]]  # it was locked
    assert _one(leave, _snapshot()).plan is not None
    unknown = _snapshot(user=None)
    assert "which account reos logs in as" in (_one(leave, unknown).left_out or "")
    join = _step("add_to_group", ["usermod", "-aG", "adm", "deploy"], "deploy")
    assert _one(join, unknown).plan is not None  # joining a group cuts nobody off


@pytest.mark.parametrize(("step", "said"), [
    (_step("lock", ["usermod", "-L", "alice"], "alice"), "only when it logs in as root"),
    (_step("expire_password", ["chage", "-d", "0", "alice"], "alice"), "/etc/shadow"),
    (_step("delete_with_home", ["userdel", "-r", "alice"], "alice", reversible=False),
     "it cannot be undone"),
    (_step("add_to_group", ["usermod", "-aG", "adm", "zed"], "zed"), "there is no user zed"),
])
def test_an_account_change_reos_could_not_undo_there_is_left_out_with_why(
        step: Step, said: str) -> None:
    part = _one(step, _snapshot())  # read as bob: /etc/shadow was not readable
    assert part.plan is None
    assert said in (part.left_out or "")
