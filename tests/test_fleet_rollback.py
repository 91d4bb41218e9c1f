"""A host that fails part way through a change on other machines has the steps it
completed undone there (reos/fleet/changing.py `apply(roll_back=…)`, from `[safety]
rollback_on_failure`), on the fleet bed (tests/fleet_bed.py): the first step stops nginx,
the second starts a unit the host does not have. With the setting, nginx runs again and
the outcome says it was rolled back; without it, nginx stays stopped for `reos undo`."""

from __future__ import annotations

import pytest

from reos import paths
from reos.fleet import changing, deciding, snapshots
from reos.fleet.inventory import Source
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.on_hosts import outcome_lines
from reos.store.db import Database
from reos.store.journal import Journal
from tests.conftest import reos


def _steps() -> list[Step]:
    return [Step("s1", "Stop nginx.service", ["sudo", "-n", "systemctl", "stop",
                                               "nginx.service"], needs_root=True,
                 target=Target("service", "nginx.service"), action="stop"),
            Step("s2", "Start reos-absent.service", ["sudo", "-n", "systemctl", "start",
                                                      "reos-absent.service"],
                 needs_root=True, target=Target("service", "reos-absent.service"),
                 action="start")]


def _apply(fleet, host: str, *, roll_back: bool) -> changing.Applied:  # type: ignore[no-untyped-def]
    source = Source((fleet.inventory,), "--inventory")
    read = {h: k.snapshot for h, k in snapshots.read(source, [host]).items()}
    assert read[host] is not None
    parts = deciding.prepare({host: Plan("stop nginx then start reos-absent", Kind.ACTION,
                                         steps=_steps())}, read, "x")  # type: ignore[dict-item]
    assert parts[0].plan is not None, parts[0].left_out
    return changing.apply(Journal(Database(paths.database_file())), source, "x", parts,
                          roll_back=roll_back)


@pytest.mark.usefixtures("reos_home")
def test_a_host_that_fails_part_way_is_rolled_back_there(fleet) -> None:  # type: ignore[no-untyped-def]
    assert fleet.state("web1", "nginx") == "active"
    applied = _apply(fleet, "web1", roll_back=True)
    [outcome] = applied.outcomes
    assert outcome.status == "failed"
    assert [status for _, status, _ in outcome.steps] == ["done", "failed"]
    assert fleet.state("web1", "nginx") == "active"  # started again by the rollback
    assert outcome.rolled_back is not None and outcome.rolled_back.startswith("rolled back")
    assert "    rolled back" in "\n".join(outcome_lines(applied, True))
    journal = Journal(Database(paths.database_file()))
    record = journal.transaction(applied.tx_id)
    assert record is not None and record.status == "undone"  # nothing left for reos undo


@pytest.mark.usefixtures("reos_home")
def test_without_the_setting_the_completed_steps_stay_for_undo(fleet) -> None:  # type: ignore[no-untyped-def]
    try:
        applied = _apply(fleet, "web2", roll_back=False)
        [outcome] = applied.outcomes
        assert outcome.status == "failed" and outcome.rolled_back is None
        assert fleet.state("web2", "nginx") == "inactive"  # left as the failure left it
        undone = reos("undo", timeout=120)
        assert undone.returncode == 0, undone.stdout + undone.stderr
        assert fleet.state("web2", "nginx") == "active"
    finally:
        fleet.run("web2", "systemctl", "start", "nginx")


@pytest.mark.usefixtures("reos_home")
@pytest.mark.parametrize("setting", [True, False])
def test_the_engine_rolls_back_as_the_setting_says(fleet, setting: bool) -> None:  # type: ignore[no-untyped-def]
    from reos.engine import ReasoningEngine
    from reos.on_hosts import HostsPlan
    from reos.settings import SafetySettings, Settings

    source = Source((fleet.inventory,), "--inventory")
    read = {h: k.snapshot for h, k in snapshots.read(source, ["db1"]).items()}
    parts = deciding.prepare({"db1": Plan("x", Kind.ACTION, steps=_steps())}, read,  # type: ignore[arg-type]
                             "x")
    engine = ReasoningEngine(Settings(safety=SafetySettings(rollback_on_failure=setting)))
    try:
        reply = engine.run_hosts(HostsPlan("x", source, parts))
        [outcome] = reply.hosts_applied.outcomes
        assert (outcome.rolled_back is not None) is setting
        assert fleet.state("db1", "nginx") == ("active" if setting else "inactive")
    finally:
        fleet.run("db1", "systemctl", "start", "nginx")
