"""The time zone changed on other machines and undone there (reos/fleet/deciding.py: its
prior state from the host's facts, which the host module reads, reos/system/portable.py:
`settings`), and the hostname never changed there (it could cut the login and sudo). The
bed test changes web1's time zone through the real CLI and undoes it, looked at from
outside (docker exec: timedatectl), with a host whose zone reads as no zone left out with
why, and db1's hostname left out with why. The unit tests need no bed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reos import paths
from reos.errors import EXIT_OK
from reos.fleet import deciding
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.store.db import Database
from reos.store.journal import FLEET, Journal
from reos.system import portable
from reos.system.snapshot import SystemSnapshot
from tests.conftest import reos

MACHINE = "0123456789abcdef0123456789abcdef"


def _plan(fleet, pattern: str, request: str, *more: str):  # type: ignore[no-untyped-def]
    return reos("plan", "--hosts", pattern, "-i", str(fleet.inventory), *more, request,
                timeout=180)


def _zone(fleet, host: str) -> str:  # type: ignore[no-untyped-def]
    return fleet.run(host, "timedatectl", "show", "-p", "Timezone", "--value").stdout.strip()


def test_a_time_zone_set_on_a_host_and_undone_there_and_a_hostname_left_out(
        fleet) -> None:  # type: ignore[no-untyped-def]
    before = {h: _zone(fleet, h) for h in ("web1", "web2")}
    assert before["web1"] != "Europe/Berlin"
    # web2's zone reads as a path out of the zone folder: no zone reos would set back
    link = fleet.run("web2", "readlink", "/etc/localtime").stdout.strip()
    timezone_file = fleet.run("web2", "cat", "/etc/timezone").stdout
    assert fleet.run("web2", "rm", "/etc/localtime").returncode == 0
    assert fleet.run("web2", "sh", "-c", "echo ../../etc/shadow > /etc/timezone"
                     ).returncode == 0
    try:
        done = _plan(fleet, "web1,web2", "set the timezone to Europe/Berlin", "--yes")
        assert done.returncode == EXIT_OK, done.stdout + done.stderr
        assert "undo: $ timedatectl set-timezone " + before["web1"] in done.stdout
        assert "web2: Set the new time zone: the time zone the host's snapshot gives is " \
               "not one reos could set again" in done.stdout
        assert _zone(fleet, "web1") == "Europe/Berlin"
        assert fleet.run("web1", "readlink", "/etc/localtime").stdout.strip().endswith(
            "/usr/share/zoneinfo/Europe/Berlin")
        assert fleet.run("web2", "test", "-e", "/etc/localtime").returncode != 0  # untouched
        [tx] = [t for t in _journal().transactions(kind=FLEET)
                if t.request == "set the timezone to Europe/Berlin"]
        [step] = tx.steps
        assert step.host == "web1" and step.prior_state is not None
        assert step.prior_state["state"] == before["web1"]

        undone = reos("undo", timeout=120)
        assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
        assert _zone(fleet, "web1") == before["web1"]
    finally:
        fleet.run("web2", "ln", "-sfn", link, "/etc/localtime")
        fleet.run("web2", "sh", "-c", 'printf %s "$1" > /etc/timezone', "-", timezone_file)
        fleet.run("web1", "timedatectl", "set-timezone", before["web1"])

    # the hostname: never changed on a host, said why
    planned = _plan(fleet, "db1", "set the hostname to db7", "--yes")
    assert planned.returncode != EXIT_OK, planned.stdout + planned.stderr
    assert "a new name could cut reos off from the host" in planned.stdout
    assert fleet.run("db1", "hostname").stdout.strip() == "db1"


# -- no bed needed ------------------------------------------------------------------------
def _journal() -> Journal:
    return Journal(Database(paths.database_file()))


def _snapshot(**facts: object) -> SystemSnapshot:
    host = {"machine_id": MACHINE, "package_manager": "apt", "user": "bob",
            "hostname": "db1", **facts}
    return SystemSnapshot.from_dict({"schema": "reos.snapshot/2", "collected_at": "",
                                     "host": host})


def _step(kind: str, value: str) -> Step:
    tool, verb = (("hostnamectl", "set-hostname") if kind == "hostname" else
                  ("timedatectl", "set-timezone"))
    title = "Set the new hostname" if kind == "hostname" else "Set the new time zone"
    return Step("s1", title, ["sudo", "-n", tool, verb, value], target=Target(kind, kind),
                action=f"set_{kind}", needs_root=True)


def _one(step: Step, snap: SystemSnapshot) -> deciding.Prepared:
    [part] = deciding.prepare({"db1": Plan("x", Kind.ACTION, steps=[step])}, {"db1": snap},
                              "x")
    return part


def test_the_host_module_reads_the_linked_zone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    etc, zoneinfo = tmp_path / "etc", tmp_path / "usr" / "share" / "zoneinfo"
    etc.mkdir()
    (zoneinfo / "Europe").mkdir(parents=True)
    (zoneinfo / "Europe" / "Berlin").write_text("TZif")
    monkeypatch.setattr(portable, "TIMEZONE_FILE", etc / "timezone")
    monkeypatch.setattr(portable, "LOCALTIME", etc / "localtime")
    monkeypatch.setattr(portable, "ZONEINFO", f"{zoneinfo}/")
    assert portable.settings() == {}
    (etc / "hostname").write_text("# set by the installer\n\ndb1\n")
    (etc / "timezone").write_text("Etc/UTC\n")  # stale: timedatectl leaves it
    os.symlink("../usr/share/zoneinfo/Europe/Berlin", etc / "localtime")  # as it writes it
    assert portable.settings() == {"timezone": "Europe/Berlin"}
    (etc / "localtime").unlink()  # a link out of the zone folder is no zone
    os.symlink("../usr/share/zoneinfo/../../../etc/shadow", etc / "localtime")
    assert portable.settings()["timezone"] == "Etc/UTC"
    (etc / "localtime").unlink()
    (etc / "localtime").write_text("TZif")  # a copy, not a link: /etc/timezone says
    assert portable.settings()["timezone"] == "Etc/UTC"


def test_the_time_zone_is_recorded_as_here_and_undone_there() -> None:
    from reos.execution.rederive import expected_rollbacks
    from reos.system.state_settings import restore

    snap = _snapshot(static_hostname="db1", timezone="America/New_York")
    assert deciding.prior_state(snap, "hostname", "hostname") is None  # never changed there
    zone = deciding.prior_state(snap, "timezone", "timezone")
    assert zone is not None and zone["state"] == "America/New_York"
    cases = [(_step("timezone", "Europe/Berlin"),
              ["timedatectl", "set-timezone", "America/New_York"])]
    journal = _journal()
    tx = journal.begin("x", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    for seq, (step, undo) in enumerate(cases):
        part = _one(step, snap)
        assert part.plan is not None, part.left_out
        assert part.undos == [["sudo", "-n", *undo]]
        prior = part.priors[0]
        assert prior is not None and prior["machine_id"] == MACHINE
        assert restore(step.target.kind, step.target.name, prior, step.action) == undo  # type: ignore[union-attr]
        journal.begin_step(tx, seq, step.id, step.title, step.argv, action=step.action,
                           target_kind=step.target.kind, target_name=step.target.name,  # type: ignore[union-attr]
                           prior_state=prior, rollback=part.undos[0], host="db1")
    recorded = journal.transaction(tx)
    assert recorded is not None
    for record, (_, undo) in zip(recorded.steps, cases, strict=True):  # as `reos undo` does
        assert ["sudo", "-n", *undo] in expected_rollbacks(record, "apt")


@pytest.mark.parametrize(("facts", "step", "said"), [
    ({}, _step("timezone", "Europe/Berlin"), "cannot read what its time zone was before"),
    ({"static_hostname": "db1"}, _step("hostname", "db7"),
     "a new name could cut reos off from the host"),
    ({"timezone": "../../etc/shadow"}, _step("timezone", "Europe/Berlin"),
     "the time zone the host's snapshot gives is not one reos could set again"),
    ({"timezone": "Europe/Berlin;reboot"}, _step("timezone", "Asia/Tokyo"), "set again"),
    # a value ending in a newline is no value the tool takes (`$` would match before it)
    ({"timezone": "Europe/Berlin\n"}, _step("timezone", "Asia/Tokyo"), "set again"),
])
def test_a_setting_reos_could_not_set_back_there_is_left_out_with_why(
        facts: dict[str, object], step: Step, said: str) -> None:
    part = _one(step, _snapshot(**facts))
    assert part.plan is None
    assert said in (part.left_out or "")
    prior = deciding.prior_state(_snapshot(**facts), step.target.kind, step.target.name)  # type: ignore[union-attr]
    assert prior is None or prior["state"] == ""  # the host's word is never kept


def test_a_value_read_back_with_a_newline_is_no_value() -> None:
    from reos.system.state_settings import restore, valid
    from reos.system.state_users import changed_group

    assert valid("hostname", "db1") and valid("timezone", "Europe/Berlin")
    for kind, value in (("hostname", "db1\n"), ("timezone", "Europe/Berlin\n"),
                        ("timezone", "CET\n")):
        assert not valid(kind, value)
        assert restore(kind, kind, {"state": value}) is None
    assert changed_group(["usermod", "-aG", "sudo", "bob"]) == "sudo"
    assert changed_group(["usermod", "-aG", "sudo\n", "bob"]) is None
