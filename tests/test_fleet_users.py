"""Accounts and groups changed on several hosts through Ansible and undone there
(reos/fleet/changing.py), on the fleet bed: web1, web2 and db1 over real SSH, logged in as
bob (tests/fleet_bed.py). Each change is looked at from outside (docker exec: getent, id),
never through reos. The unit tests at the end need no bed: the prior state reos reads of
an account or a group from a host's snapshot, the undo worked out from it (and derived
again when it runs), and the accounts reos never cuts on a host.
"""

from __future__ import annotations

import json

import pytest

from reos import paths
from reos.errors import EXIT_NOTHING, EXIT_OK
from reos.fleet import changing, deciding
from reos.fleet.snapshots import Known
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
    assert fleet.run("web2", "usermod", "-aG", "users", "dora").returncode == 0  # since

    rest = reos("undo", timeout=120)
    assert rest.returncode == EXIT_OK, rest.stdout + rest.stderr
    assert "adm" not in _groups(fleet, "web1", "dora")
    assert "users" in _groups(fleet, "web2", "dora")  # only the one group was changed back
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
                               "is_root": is_root, "home_base": "/home",
                               "homes": "alice/bob/vera",
                               # nothing on the host carries reos's session
                               "ssh_passers": "", "ssh_passer_pids": ""}
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


def _one(step: Step, snap: SystemSnapshot, request: str = "x") -> deciding.Prepared:
    [part] = deciding.prepare({"web1": Plan(request, Kind.ACTION, steps=[step])},
                              {"web1": snap}, request)
    return part


def test_an_accounts_prior_state_comes_from_the_hosts_snapshot() -> None:
    snap = _snapshot()
    alice = deciding.prior_state(snap, "user", "alice", ["sudo", "-n", "gpasswd", "-d",
                                                         "alice", "docker"])
    assert alice == {"state": "unknown", "account": "present",
                     "reason": deciding.NOT_AS_ROOT,
                     "uid": 1001, "gid": 1001, "uid_shared": False,
                     "group": "alice", "private_group": True, "groups": ["adm", "docker"],
                     "shell": "/bin/zsh", "home": "/home/alice", "gecos": "Alice Martin,,,",
                     "changed_group": "docker"}
    deploy = deciding.prior_state(snap, "user", "deploy")
    assert deploy is not None and deploy["private_group"] is False
    assert "changed_group" not in deploy
    # a new account's home is removed by undo only when the host's home folder had none
    assert deciding.prior_state(snap, "user", "carol") == {"state": "absent",
                                                           "home_free": True}
    assert deciding.prior_state(snap, "user", "vera") == {"state": "absent",
                                                          "home_free": False}
    # `locked` counts "*" (no password) as locked too: the lock is never taken from it
    assert deciding.prior_state(_snapshot(is_root=True), "user", "alice")["state"] == "unknown"  # type: ignore[index]
    assert deciding.prior_state(snap, "group", "docker") == {"state": "present", "gid": 998,
                                                             "members": ["alice"]}
    assert deciding.prior_state(snap, "group", "ops") == {"state": "absent"}
    bare = SystemSnapshot(collected_at="")
    assert deciding.prior_state(bare, "user", "alice") is None
    assert deciding.prior_state(bare, "group", "ops") is None


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
    assert _one(lock, _snapshot(is_root=True)).plan is None  # no /etc/shadow fields
    assert _one(leave, _snapshot()).plan is not None
    unknown = _snapshot(user=None)
    assert "which account reos logs in as" in (_one(leave, unknown).left_out or "")
    join = _step("add_to_group", ["usermod", "-aG", "adm", "deploy"], "deploy")
    assert _one(join, unknown).plan is not None  # joining a group cuts nobody off


@pytest.mark.parametrize(("step", "said"), [
    (_step("lock", ["usermod", "-L", "alice"], "alice"),
     "does not hold its /etc/shadow fields"),
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


# -- found by review: undo never loses what was there, nor cuts the login ------------------
def test_undoing_a_new_account_keeps_a_home_that_was_there_before(fleet) -> None:  # type: ignore[no-untyped-def]
    assert fleet.run("web2", "useradd", "-m", "vera").returncode == 0
    assert fleet.run("web2", "su", "vera", "-c", "echo draft > ~/thesis.txt").returncode == 0
    assert fleet.run("web2", "userdel", "vera").returncode == 0  # the home stays
    done = _plan(fleet, "web1,web2", "create user vera", "--yes")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "undo: $ userdel -r vera" in done.stdout  # web1: its home was free
    assert "undo: $ userdel vera" in done.stdout  # web2: it held vera's old files
    undone = reos("undo", timeout=120)
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert not _has_account(fleet, "web2", "vera")
    assert fleet.run("web2", "cat", "/home/vera/thesis.txt").stdout == "draft\n"
    assert fleet.run("web1", "test", "-e", "/home/vera").returncode != 0


def test_a_new_accounts_home_is_removed_by_undo_only_when_it_was_free(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import uuid

    from reos.system.portable import home_base
    from reos.system.state_users import current, restore

    assert restore("user", "vera", {"state": "absent", "home_free": True}, "create") == [
        "userdel", "-r", "vera"]
    assert restore("user", "vera", {"state": "absent", "home_free": False}, "create") == [
        "userdel", "vera"]
    # a row recorded before reos kept it: as it was undone then
    assert restore("user", "vera", {"state": "absent"}, "create") == ["userdel", "-r", "vera"]
    name = f"reos-t-{uuid.uuid4().hex[:8]}"
    assert current("user", name) == {"state": "absent", "home_free": True}
    home = f"{home_base()}/{name}"
    os.mkdir(home)
    try:
        assert current("user", name) == {"state": "absent", "home_free": False}
    finally:
        os.rmdir(home)


def test_a_group_undo_changes_back_only_its_group_or_nothing() -> None:
    from reos.system.state_users import changed_group, restore

    assert changed_group(["sudo", "-n", "usermod", "-aG", "dev.ops", "pete"]) == "dev.ops"
    was = {"state": "active", "groups": ["adm"], "changed_group": "dev.ops"}
    assert restore("user", "pete", was, "add_to_group") == ["gpasswd", "-d", "pete", "dev.ops"]
    unnamed = {"state": "active", "groups": ["adm"], "changed_group": None}
    assert restore("user", "pete", unnamed, "add_to_group") is None  # never the whole list
    older = {"state": "active", "groups": ["adm"]}  # a row from before the group was kept
    assert restore("user", "pete", older, "add_to_group") == ["usermod", "-G", "adm", "pete"]


def test_a_deleted_account_comes_back_as_it_was_or_its_delete_is_left_out() -> None:
    from reos.system.state_users import restore

    shared = {"state": "active", "uid": 1700, "gid": 1700, "uid_shared": True,
              "shell": "/bin/sh"}
    assert restore("user", "svctwo", shared, "delete")[:5] == [  # type: ignore[index]
        "useradd", "-M", "-u", "1700", "-o"]
    assert "-o" not in restore("user", "svctwo", {**shared, "uid_shared": False},  # type: ignore[operator]
                               "delete")
    assert restore("user", "svctwo", {**shared, "incomplete": True}, "delete") is None

    def with_user(**fields: object) -> SystemSnapshot:
        snap = _snapshot().to_dict()
        snap["users"].append({"name": "odd", "uid": 1003, "gid": 100, "home": "/home/odd",
                              "shell": "/bin/sh", "groups": ["users"], **fields})
        return SystemSnapshot.from_dict(snap)

    for hostile in (with_user(gecos="a:b"), with_user(shell="/bin/sh\x1b[2J"),
                    with_user(groups=["users", *(f"g{n:05d}" for n in range(6000))])):
        part = _one(_step("delete", ["userdel", "odd"], "odd"), hostile)
        assert part.plan is None, "a lesser copy would come back"
        assert "how to undo it" in (part.left_out or "")


@pytest.mark.parametrize(("rollback", "refused"), [
    (["usermod", "-s", "/usr/sbin/nologin", "bob"], True),
    (["userdel", "-r", "bob"], True),
    (["usermod", "-L", "bob"], True),
    (["usermod", "-G", "", "bob"], True),
    (["gpasswd", "-d", "bob", "sudo"], True),
    (["usermod", "-aG", "adm", "bob"], False),
    (["usermod", "-U", "bob"], False),
])
def test_an_undo_never_cuts_the_login_whatever_its_row_says(rollback: list[str],
                                                             refused: bool) -> None:
    from reos.store.journal import StepRecord

    def record(name: str, logins: list[str] | None) -> StepRecord:
        prior = {"state": "unknown"} if logins is None else {"state": "unknown",
                                                             "logins": logins}
        return StepRecord(1, 0, "s1", "x", [], "set_shell", "user", name, prior,
                          ["sudo", "-n", *rollback], True, "completed", 0, "")

    said = changing._undo_cuts_login(record("bob", ["bob", "root"]), ["sudo", "-n", *rollback])
    assert (said is not None) is refused
    assert changing._undo_cuts_login(record("bob", None), rollback) is None  # not known as it
    root = [w if w != "bob" else "root" for w in rollback]
    assert (changing._undo_cuts_login(record("root", None), root) is not None) is refused


# -- an account's lock and /etc/shadow dates, read as root on the host --------------------
# a password field as /etc/shadow holds one: it must never leave the host's module
HASH = "$6$reosbed$Qm2c1V7Zy0xWb3hT9kLpR4sN8dE6fG5jU1iO0aS2dF3gH4jK5lZ6xC7vB8nM9qW0eR"



def _shadow_line(fleet, host: str, name: str) -> str:  # type: ignore[no-untyped-def]
    return fleet.run(host, "getent", "shadow", name).stdout.strip()


def test_a_lock_and_a_password_age_changed_on_hosts_and_undone_a_host_without_sudo_left_out(
        fleet) -> None:  # type: ignore[no-untyped-def]
    from reos.fleet import snapshots

    hosts = ("web1", "web2", "db1")
    for host in hosts:
        assert fleet.run(host, "useradd", "-m", "-p", HASH, "lena").returncode == 0
        assert fleet.run(host, "chage", "-M", "90", "lena").returncode == 0
    before = {h: _shadow_line(fleet, h, "lena") for h in hosts}
    assert before["web1"].split(":")[4] == "90"
    # on db1 sudo wants a password: /etc/shadow is not read there (the snapshot still is)
    assert fleet.run("db1", "mv", "/etc/sudoers.d/bob", "/root/bob.sudoers").returncode == 0
    try:
        locked = _plan(fleet, "all", "lock lena", "--yes")
    finally:
        fleet.run("db1", "mv", "/root/bob.sudoers", "/etc/sudoers.d/bob")
    assert locked.returncode == EXIT_OK, locked.stdout + locked.stderr
    assert "On web1, web2:" in locked.stdout and "undo: $ usermod -U lena" in (
        locked.stdout)
    assert ("db1: Lock the account lena: what it was before is in /etc/shadow, and the "
            "host's snapshot does not hold its /etc/shadow fields") in locked.stdout
    assert [_shadow_line(fleet, h, "lena").split(":")[1].startswith("!") for h in hosts] == [
        True, True, False]
    kept = (snapshots.folder() / "web2.json").read_text()
    assert HASH not in kept and "reosbed" not in kept  # the hash never left the host

    aged = _plan(fleet, "web1", "set the password age of lena to 30 days", "--yes")
    assert aged.returncode == EXIT_OK, aged.stdout + aged.stderr
    assert "undo: $ chage -M 90 lena" in aged.stdout
    assert _shadow_line(fleet, "web1", "lena").split(":")[4] == "30"

    for _ in ("the password age", "the lock"):  # newest first
        undone = reos("undo", timeout=120)
        assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert {h: _shadow_line(fleet, h, "lena") for h in hosts} == before

def test_the_host_module_reads_the_lock_and_dates_never_the_hash() -> None:
    from reos.system import portable

    text = "\n".join([
        f"lena:{HASH}:19800:0:90:7::30000:",  # a password: active; ageing 90 days
        f"mark:!{HASH}:19801:0:99999:7:::",  # "!": locked
        "svc:*:19802:0:::::",  # "*": no password, which is not a lock
        "odd:!:1980x:0:9 9:7::$6$salt$x:",  # dates that are not days: not sent
        "short:!:19800",  # not a shadow line
        "lena:!:1:0:1:7::1:"])  # a second line of a name: the first one counts
    rows = portable.shadow(text)
    assert rows == {
        "lena": {"password_locked": False, "last_change": "19800", "max_days": "90",
                 "expiry": "30000"},
        "mark": {"password_locked": True, "last_change": "19801", "max_days": "99999",
                 "expiry": ""},
        "svc": {"password_locked": False, "last_change": "19802", "max_days": "",
                "expiry": ""},
        "odd": {"password_locked": True}}
    assert "$6$" not in repr(rows) and "reosbed" not in repr(rows)


def _read(users: list[dict[str, object]], rows: object, status: str = "ok"):  # type: ignore[no-untyped-def]
    """What `on_hosts.decide` makes of a host's snapshot (read as the login) and what its
    module read as root (`status`: how that task went)."""
    from reos.fleet import snapshots
    from reos.fleet.running import Result

    data = {"schema": "reos.snapshot/2", "collected_at": "", "users": users,
            "host": {"machine_id": MACHINE, "user": "bob", "ssh_passers": "",
                     "ssh_passer_pids": ""}}
    first = Result("web1", snapshots.READ.name, "ok", returned={"snapshot": data})
    known = snapshots._known(first, 10)
    assert known.snapshot is not None
    answer = ({"shadow": rows} if status == "ok" else
              "sudo: a password is required")
    return Known("web1", snapshots.with_root(known.snapshot, answer, "web1"))


def test_the_rows_read_as_root_join_the_snapshot_checked_and_old_snapshots_still_load(
        ) -> None:
    lena = {"name": "lena", "uid": 1010, "gid": 1010, "groups": ["lena"]}
    known = _read([dict(lena)], {"lena": {"password_locked": True, "last_change": "19800",
                                          "max_days": "", "expiry": "",
                                          "password": HASH}})  # an extra key: not taken
    assert known.snapshot is not None
    [user] = known.snapshot.users  # type: ignore[misc]
    assert (user.password_locked, user.last_change, user.max_days, user.expiry) == (
        True, "19800", "", "")
    assert HASH not in json.dumps(known.snapshot.to_dict())
    # sudo did not work there (the task failed), or it answered nothing like rows
    for failed in (_read([dict(lena)], None, "failed"), _read([dict(lena)], "rows")):
        [user] = failed.snapshot.users  # type: ignore[misc, union-attr]
        assert user.password_locked is None and user.expiry is None
    assert failed.snapshot.host.get("root_read")  # type: ignore[union-attr]
    # a field of the wrong type: none of it is taken, and the snapshot says why
    wrong = _read([dict(lena)], {"lena": {"password_locked": "yes"}})
    assert wrong.snapshot is not None
    assert wrong.snapshot.users[0].password_locked is None  # type: ignore[index]
    assert "users[0].password_locked must be true, false or null" in (
        wrong.snapshot.host.get("root_read") or "")
    # a row for an account the snapshot does not list is dropped, not made an account
    extra = _read([dict(lena)], {"lena": {"password_locked": False},
                                 "ghost": {"password_locked": True, "expiry": "1"}})
    assert [u.name for u in extra.snapshot.users] == ["lena"]  # type: ignore[union-attr]
    assert "ghost" not in json.dumps(extra.snapshot.to_dict())  # type: ignore[union-attr]
    # a snapshot kept before these fields loads; they are unknown
    old = SystemSnapshot.from_dict({"schema": "reos.snapshot/2", "collected_at": "",
                                    "users": [dict(lena, locked=True)]})
    assert old.users[0].password_locked is None and old.users[0].locked  # type: ignore[index]


def _shadowed(**alice: object) -> SystemSnapshot:
    """The usual host, read as root: /etc/shadow's fields for every account."""
    snap = _snapshot().to_dict()
    dates = {"password_locked": False, "last_change": "19800", "max_days": "99999",
             "expiry": ""}
    for user in snap["users"]:
        user.update(dates)
        if user["name"] == "alice":
            user.update(alice)
    return SystemSnapshot.from_dict(snap)


def test_a_lock_and_the_shadow_dates_are_recorded_as_here_and_undone_there() -> None:
    from reos.execution.rederive import expected_rollbacks

    locked = _shadowed(password_locked=True, expiry="20500", max_days="90")
    prior = deciding.prior_state(locked, "user", "alice")
    assert prior is not None
    # the shape `state_users.current` records on this machine when it is root
    assert {k: prior[k] for k in ("state", "expiry", "last_change", "max_days")} == {
        "state": "locked", "expiry": "20500", "last_change": "19800", "max_days": "90"}
    assert "reason" not in prior and "account" not in prior
    cases = [
        (locked, _step("unlock", ["usermod", "-U", "alice"], "alice"),
         ["usermod", "-L", "alice"]),
        (_shadowed(), _step("lock", ["usermod", "-L", "alice"], "alice"),
         ["usermod", "-U", "alice"]),
        (locked, _step("set_expiry", ["chage", "-E", "2030-01-01", "alice"], "alice"),
         ["chage", "-E", "20500", "alice"]),
        (_shadowed(), _step("set_expiry", ["chage", "-E", "2030-01-01", "alice"], "alice"),
         ["chage", "-E", "-1", "alice"]),  # it never expired
        (_shadowed(), _step("expire_password", ["chage", "-d", "0", "alice"], "alice"),
         ["chage", "-d", "19800", "alice"]),
        (locked, _step("password_max_age", ["chage", "-M", "30", "alice"], "alice"),
         ["chage", "-M", "90", "alice"]),
        (_shadowed(max_days=""), _step("password_max_age", ["chage", "-M", "30", "alice"],
                                       "alice"), ["chage", "-M", "-1", "alice"]),
    ]
    journal = _journal()
    tx = journal.begin("x", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    for seq, (snap, step, undo) in enumerate(cases):
        part = _one(step, snap)
        assert part.plan is not None, (step.title, part.left_out)
        assert part.undos == [["sudo", "-n", *undo]], step.title
        assert step.target is not None
        journal.begin_step(tx, seq, step.id, step.title, step.argv, action=step.action,
                           target_kind=step.target.kind, target_name=step.target.name,
                           prior_state=part.priors[0], rollback=part.undos[0], host="web1")
    recorded = journal.transaction(tx)
    assert recorded is not None
    for record, (_, _, undo) in zip(recorded.steps, cases, strict=True):  # as `reos undo`
        assert ["sudo", "-n", *undo] in expected_rollbacks(record, "apt")


@pytest.mark.parametrize(("alice", "step", "said"), [
    # not read as root there: no /etc/shadow fields at all
    (None, _step("unlock", ["usermod", "-U", "alice"], "alice"), "does not hold its "
                                                                  "/etc/shadow fields"),
    (None, _step("set_expiry", ["chage", "-E", "2030-01-01", "alice"], "alice"),
     "through sudo without a password"),
    # a host's words that are not days never reach an argv
    ({"expiry": "$6$salt$c2VjcmV0"}, _step("set_expiry", ["chage", "-E", "2030-01-01",
                                                          "alice"], "alice"),
     "not a number of days"),
    ({"last_change": "1980x"}, _step("expire_password", ["chage", "-d", "0", "alice"],
                                     "alice"), "not a number of days"),
    ({"max_days": "\u0669\u0660"}, _step("password_max_age", ["chage", "-M", "30", "alice"],
                                         "alice"), "not a number of days"),  # Arabic digits
    ({"max_days": "9" * 11}, _step("password_max_age", ["chage", "-M", "30", "alice"],
                                   "alice"), "not a number of days"),
    ({"last_change": ""}, _step("expire_password", ["chage", "-d", "0", "alice"], "alice"),
     "password ageing is off"),
])
def test_a_lock_or_date_change_without_its_fields_is_left_out_with_why(
        alice: dict[str, object] | None, step: Step, said: str) -> None:
    snap = _snapshot(is_root=True) if alice is None else _shadowed(**alice)
    part = _one(step, snap)
    assert part.plan is None, part.undos
    assert said in (part.left_out or "")


@pytest.mark.parametrize("step", [
    _step("lock", ["usermod", "-L", "bob"], "bob"),
    _step("set_expiry", ["chage", "-E", "2020-01-01", "bob"], "bob"),
    _step("expire_password", ["chage", "-d", "0", "bob"], "bob"),
    _step("password_max_age", ["chage", "-M", "1", "bob"], "bob"),
    _step("lock", ["usermod", "-L", "root"], "root"),
    _step("set_expiry", ["chage", "-E", "2020-01-01", "root"], "root"),
])
def test_with_the_shadow_fields_root_and_the_login_are_still_never_locked_or_expired(
        step: Step) -> None:
    part = _one(step, _shadowed(), f"{step.title} please")
    assert part.plan is None
    assert "cut reos off" in (part.left_out or "")


def _locked(name: str) -> SystemSnapshot:
    snap = _shadowed().to_dict()
    for user in snap["users"]:
        if user["name"] == name:
            user["password_locked"] = True
    return SystemSnapshot.from_dict(snap)


@pytest.mark.parametrize(("name", "said"), [
    ("root", "it would unlock root, which could let root log in with a password"),
    ("bob", "its undo would change bob (the account reos logs in as there)"),
])
def test_unlocking_root_or_the_login_on_a_host_is_left_out_with_why(name: str,
                                                                     said: str) -> None:
    part = _one(_step("unlock", ["usermod", "-U", name], name), _locked(name),
                f"unlock {name}")
    assert part.plan is None, part.undos
    assert said in (part.left_out or "")


def test_unlocking_another_account_runs_with_the_undo_reos_undo_runs() -> None:
    step = _step("unlock", ["usermod", "-U", "alice"], "alice")
    part = _one(step, _locked("alice"), "unlock alice")
    assert part.plan is not None, part.left_out
    assert part.undos == [["sudo", "-n", "usermod", "-L", "alice"]]
    # what the plan lets run on the login, undo runs too: the one test
    assert deciding.login_safe_undo(["sudo", "-n", "usermod", "-U", "bob"])
    assert not deciding.login_safe_undo(["sudo", "-n", "usermod", "-L", "bob"])
    assert not deciding.login_safe_undo(["-U", "usermod", "bob"])
