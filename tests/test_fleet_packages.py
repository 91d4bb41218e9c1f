"""What a package step really changed on a host, recorded for undo as on this machine
(reos/fleet/package_changes.py, execution/packages.py `changed`, execution/rederive.py):
the difference between the host's packages before and after, put on the step's journal
row as `new_packages` / `removed_packages` with the undo that follows, and judged again by
undo's own rederivation. The host's words are untrusted: a version holding spaces or
shell characters, a name read as an option, thousands of names. The bed test installs and
removes packages on a fleet host through the real CLI, and undoes them there.
"""

from __future__ import annotations

import json

import pytest

from reos import paths
from reos.errors import EXIT_OK
from reos.execution.rederive import expected_rollbacks
from reos.fleet import package_changes, snapshots
from reos.fleet.inventory import Source
from reos.fleet.package_changes import MAX_CHANGED, Ran, settle
from reos.model.plan import Step
from reos.model.target import Target
from reos.store.db import Database
from reos.store.journal import FLEET, Journal
from reos.system.snapshot import Package, SystemSnapshot
from tests.conftest import reos

MACHINE = "0123456789abcdef0123456789abcdef"
PRIOR = {"manager": "apt", "machine_id": MACHINE, "logins": ["bob", "root"]}
BASE = {"bash": "5.2", "libc6": "2.36", "sudo": "1.9"}


def _install(name: str = "tool") -> Step:
    return Step("s1", f"Install {name}", ["sudo", "-n", "apt-get", "install", "-y", name],
                target=Target("package", name), action="install")


def _remove(name: str = "lib") -> Step:
    return Step("s1", f"Remove {name}", ["sudo", "-n", "apt-get", "remove", "-y", name],
                target=Target("package", name), action="remove")


def _ran(step: Step, undo: list[str] | None, state: dict[str, str]) -> Ran:
    return Ran(step, 7, {**state, **PRIOR}, undo)


def _journal() -> Journal:
    return Journal(Database(paths.database_file()))


def test_an_install_records_what_it_brought_in_and_undo_takes_it() -> None:
    step = _install()
    ran = _ran(step, ["sudo", "-n", "apt-get", "remove", "-y", "tool"], {"state": "absent"})
    [done], said = settle([ran], BASE, {**BASE, "tool": "2.1", "lib": "1.0", "extra": "1.0"})
    assert done.row == 7
    assert done.prior["new_packages"] == ["extra", "lib", "tool"]
    assert done.prior["machine_id"] == MACHINE and done.prior["state"] == "absent"
    assert done.undo == ["sudo", "-n", "apt-get", "remove", "-y", "extra", "lib", "tool"]
    assert said == "undo removes what install tool brought in: extra, lib and tool"

    # the row, as undo reads it back, gives the same undo again
    journal = _journal()
    tx = journal.begin("install tool", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    row = journal.begin_step(tx, 0, "s1", step.title, step.argv, action="install",
                             target_kind="package", target_name="tool",
                             prior_state=ran.prior, rollback=ran.undo, host="web2")
    journal.set_undo(row, done.prior, done.undo)
    [record] = journal.transaction(tx).steps
    assert record.rollback in expected_rollbacks(record, "apt")


def test_a_removal_records_what_it_took_and_undo_reinstalls_it_pinned() -> None:
    step = _remove()
    ran = _ran(step, ["sudo", "-n", "apt-get", "install", "-y", "lib=1.0"],
               {"state": "installed", "version": "1.0"})
    before = {**BASE, "lib": "1.0", "app": "1.0~rc1+deb12u1"}
    [done], said = settle([ran], before, BASE)
    assert done.prior["removed_packages"] == {"app": "1.0~rc1+deb12u1", "lib": "1.0"}
    assert done.undo == ["sudo", "-n", "apt-get", "install", "-y", "--allow-downgrades",
                         "app=1.0~rc1+deb12u1", "lib=1.0"]
    assert said is not None and "app 1.0~rc1+deb12u1" in said


def test_only_the_named_package_changed_says_nothing_more() -> None:
    ran = _ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
               {"state": "absent"})
    [done], said = settle([ran], BASE, {**BASE, "tool": "2.1"})
    assert done.undo == ["sudo", "-n", "apt-get", "remove", "-y", "tool"]
    assert said is None


@pytest.mark.parametrize("version", ["1.0 --allow-unauthenticated", "1.0;rm -rf /",
                                     "$(reboot)", "1.0\nx", "`id`", "1" * 200])
def test_a_hosts_version_that_is_not_a_version_keeps_the_undo_it_had(version: str) -> None:
    undo = ["sudo", "-n", "apt-get", "install", "-y", "lib"]
    ran = _ran(_remove(), undo, {"state": "installed", "version": ""})
    settled, said = settle([ran], {**BASE, "lib": "1.0", "app": version}, BASE)
    assert settled == []
    assert said is not None and "does not put in a command" in said


@pytest.mark.parametrize("name", ["--force-yes", "-o=APT::x", "a b", "x;reboot", "Ü", ""])
def test_a_hosts_name_that_is_not_a_package_name_keeps_the_undo_it_had(name: str) -> None:
    ran = _ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
               {"state": "absent"})
    settled, said = settle([ran], BASE, {**BASE, "tool": "2.1", name: "1"})
    assert settled == [] and said is not None and "does not put in a command" in said


def test_thousands_of_names_are_recorded_exactly_and_too_many_are_not() -> None:
    new = {f"lib{i:05d}": "1.0" for i in range(3000)}
    ran = _ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
               {"state": "absent"})
    [done], said = settle([ran], BASE, {**BASE, **new, "tool": "1"})
    assert done.undo is not None and len(done.undo) == 5 + 3001
    assert done.prior["new_packages"] == sorted([*new, "tool"])
    assert said is not None and "and 2989 more" in said

    flood = {f"lib{i:06d}": "1.0" for i in range(MAX_CHANGED + 1)}
    settled, said = settle([ran], BASE, {**BASE, **flood})
    assert settled == [] and said is not None and "more than reos puts in one undo" in said


def test_a_host_not_read_again_or_not_read_before_keeps_the_undo_it_had() -> None:
    ran = _ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
               {"state": "absent"})
    settled, said = settle([ran], BASE, None, "no answer came (the run ended: failed)")
    assert settled == [] and said == (
        "reos could not read its packages again after the change (no answer came (the "
        "run ended: failed)), so undo does only what the plan said, for tool alone")
    settled, said = settle([ran], None, BASE)
    assert settled == [] and said is not None and "before the change are not known" in said


def test_several_package_steps_on_one_host_keep_their_own_undos_and_say_why() -> None:
    one = _ran(_install("tool"), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
               {"state": "absent"})
    two = _ran(_install("solo"), ["sudo", "-n", "apt-get", "remove", "-y", "solo"],
               {"state": "absent"})
    settled, said = settle([one, two], BASE,
                           {**BASE, "tool": "1", "solo": "1", "lib": "1", "extra": "1"})
    assert settled == []
    assert said is not None and "cannot tell which step brought in or took what" in said
    assert "for tool and solo alone" in said and "also brought in extra and lib" in said


def test_a_package_step_that_neither_installs_nor_removes_is_not_read_again() -> None:
    hold = Step("s1", "Hold tool", ["sudo", "-n", "apt-mark", "hold", "tool"],
                target=Target("package", "tool"), action="hold")
    assert settle([_ran(hold, None, {"state": "installed"})], BASE, None) == ([], None)
    upgrade = Step("s2", "Upgrade lib", ["sudo", "-n", "apt-get", "install", "--only-upgrade",
                                         "-y", "lib"], target=Target("package", "lib"),
                   action="upgrade")
    both = [_ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
                 {"state": "absent"}), _ran(upgrade, None, {"state": "installed"})]
    settled, said = settle(both, BASE, {**BASE, "tool": "1", "dep": "1"})
    assert settled == [] and said is not None and "also brought in dep" in said


def test_an_after_read_that_fails_leaves_the_row_as_it_was(
        monkeypatch: pytest.MonkeyPatch) -> None:
    journal = _journal()
    tx = journal.begin("install tool", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    step = _install()
    undo = ["sudo", "-n", "apt-get", "remove", "-y", "tool"]
    rows = {h: journal.begin_step(tx, i, "s1", step.title, step.argv, action="install",
                                  target_kind="package", target_name="tool",
                                  prior_state={"state": "absent", **PRIOR}, rollback=undo,
                                  host=h)
            for i, h in enumerate(("web1", "web2"))}
    asked: list[list[str]] = []

    def read(source: Source, hosts: list[str], **_: object) -> dict[str, snapshots.Known]:
        asked.append(list(hosts))
        return {"web1": snapshots.Known("web1", problem="it did not answer"),
                "web2": snapshots.Known("web2", SystemSnapshot(collected_at="", packages=[
                    *(Package(n, v) for n, v in BASE.items()), Package("tool", "2"),
                    Package("lib", "1")]))}

    monkeypatch.setattr(snapshots, "read", read)
    before = {h: SystemSnapshot(collected_at="", packages=[Package(n, v) for n, v in
                                                           BASE.items()])
              for h in rows}
    said = package_changes.record(
        journal, Source((), "a test"), {h: [Ran(step, rows[h], {"state": "absent", **PRIOR}, undo)]
                              for h in rows}, before)
    assert asked == [["web1", "web2"]]  # one read for every host
    assert "it did not answer" in said["web1"]
    steps = {s.host: s for s in journal.transaction(tx).steps}
    assert steps["web1"].rollback == undo and "new_packages" not in steps["web1"].prior_state
    assert steps["web2"].rollback == ["sudo", "-n", "apt-get", "remove", "-y", "lib", "tool"]
    assert steps["web2"].prior_state["new_packages"] == ["lib", "tool"]


# -- on the fleet bed ----------------------------------------------------------------------
def test_a_hosts_install_and_removal_are_undone_with_what_came_and_went_with_them(
        fleet) -> None:  # type: ignore[no-untyped-def]
    """reos-demo-app needs reos-demo-base (1.0 and 1.1 in the bed's repository); no other
    fleet test touches them."""
    def installed(host: str) -> dict[str, str]:
        done = fleet.run(host, "dpkg-query", "-W", "-f",
                         "${db:Status-Abbrev}\t${Package}\t${Version}\n",
                         "reos-demo-app", "reos-demo-base")
        rows = [line.split("\t") for line in done.stdout.splitlines()]
        return {r[1]: r[2] for r in rows if len(r) == 3 and r[0].startswith("ii")}

    def plan(request: str):  # type: ignore[no-untyped-def]
        return reos("plan", "--hosts", "web2", "-i", str(fleet.inventory), "--yes",
                    request, timeout=180)

    def last_row():  # type: ignore[no-untyped-def]
        [tx, *_] = _journal().transactions(kind=FLEET)
        [step] = [s for s in tx.steps if s.host == "web2"]
        return step

    assert installed("web2") == {}
    done = plan("install reos-demo-app")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert installed("web2") == {"reos-demo-app": "1.0", "reos-demo-base": "1.1"}
    assert "undo removes what install reos-demo-app brought in" in done.stdout
    step = last_row()
    assert step.prior_state["new_packages"] == ["reos-demo-app", "reos-demo-base"]
    undone = reos("undo", "--host", "web2", timeout=180)
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert installed("web2") == {}

    # the older library, installed by hand; removing it takes the app with it
    put = fleet.run("web2", "apt-get", "install", "-y", "-qq", "reos-demo-base=1.0",
                    "reos-demo-app", timeout=120)
    assert put.returncode == 0, put.stdout + put.stderr
    try:
        done = plan("remove reos-demo-base")
        assert done.returncode == EXIT_OK, done.stdout + done.stderr
        assert installed("web2") == {}
        step = last_row()
        assert step.prior_state["removed_packages"] == {"reos-demo-app": "1.0",
                                                        "reos-demo-base": "1.0"}
        undone = reos("undo", timeout=180)
        assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
        assert installed("web2") == {"reos-demo-app": "1.0", "reos-demo-base": "1.0"}
    finally:
        fleet.run("web2", "apt-get", "purge", "-y", "-qq", "reos-demo-app", "reos-demo-base",
                  timeout=120)
    assert json.loads(json.dumps(step.prior_state))["machine_id"]  # recorded as before
