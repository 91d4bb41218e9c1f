"""A change on other machines is bounded by the circuit breaker no plan lifts: `[limits]
max_seconds`, the wall time of one change (reos/fleet/changing.py `apply(max_seconds=…)`,
from the settings through reos/on_hosts.py and reos plan --hosts). On the fleet bed
(tests/fleet_bed.py): reos-slow takes 4 s to stop, the limit is 2 s; the run is cut off,
its step kept as maybe-run so undo puts it back, and nothing after it starts."""

from __future__ import annotations

import pytest

from reos import paths
from reos.engine import ReasoningEngine
from reos.fleet import changing, deciding, snapshots
from reos.fleet.inventory import Source
from reos.settings import LimitsSettings, Settings
from reos.store.db import Database
from reos.store.journal import Journal


@pytest.mark.usefixtures("reos_home")
def test_a_change_that_outlasts_the_time_limit_is_cut_off_and_kept_for_undo(
        fleet) -> None:  # type: ignore[no-untyped-def]
    from reos.on_hosts import HostsPlan, run

    source = Source((fleet.inventory,), "--inventory")
    known = snapshots.read(source, ["web2"])
    engine = ReasoningEngine(Settings(limits=LimitsSettings(max_seconds=2)))
    read = {h: k.snapshot for h, k in known.items() if k.snapshot is not None}
    parts = deciding.prepare({h: engine.plan_on(s, "stop reos-slow") for h, s in read.items()},
                             read, "stop reos-slow")  # type: ignore[arg-type]
    assert parts[0].plan is not None, parts[0].left_out
    try:
        reply = run(engine, HostsPlan("stop reos-slow", source, parts))
        [outcome] = reply.hosts_applied.outcomes
        assert outcome.status == "unknown", outcome
        assert "timeout" in outcome.said
        tx = Journal(Database(paths.database_file())).transaction(reply.hosts_applied.tx_id)
        assert tx is not None and [s.status for s in tx.steps] == ["running"]
        undone = changing.undo(Journal(Database(paths.database_file())), tx)
        assert undone is not None and undone.ok
    finally:
        fleet.run("web2", "systemctl", "start", "reos-slow")
    assert fleet.state("web2", "reos-slow") == "active"
