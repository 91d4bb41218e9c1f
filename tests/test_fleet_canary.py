"""A change on several hosts runs as a canary (reos/fleet/running.py `Canary`,
changing.apply): one host first, then a quarter, then the rest; a failed batch stops the
change before the hosts after it, which are said to be not started and left alone by
undo. `[fleet] max_fail_percent` sets how much of a batch may fail. On the fleet bed
(tests/fleet_bed.py: web1, web2, db1 in that inventory order, so web1 is the canary); each
host is broken on purpose from outside (docker exec) and looked at from outside.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from reos import paths
from reos.errors import EXIT_FAILED, EXIT_NOTHING, SettingsError
from reos.store.db import Database
from reos.store.journal import FLEET, Journal
from tests.conftest import reos

BROKEN = "/etc/nginx/conf.d/reos-broken.conf"
HOSTS = ("web1", "web2", "db1")


@contextmanager
def _nginx_broken(fleet, host: str) -> Iterator[None]:  # type: ignore[no-untyped-def]
    """nginx's configuration on `host` no longer parses: a restart there fails (its
    ExecStartPre, `nginx -t`, refuses), while the running nginx and the snapshot are
    untouched. Put back afterwards."""
    fleet.run(host, "cp", "/etc/hostname", BROKEN)  # "web1" alone is no nginx directive
    try:
        yield
    finally:
        fleet.run(host, "rm", "-f", BROKEN)
        fleet.run(host, "systemctl", "start", "nginx")


def _journal() -> Journal:
    return Journal(Database(paths.database_file()))


def test_a_canary_that_fails_stops_the_change_before_the_other_hosts(
        fleet) -> None:  # type: ignore[no-untyped-def]
    before = {h: fleet.pid(h, "nginx") for h in HOSTS}
    with _nginx_broken(fleet, "web1"):
        done = reos("plan", "--hosts", "all", "-i", str(fleet.inventory), "--yes",
                    "restart nginx", timeout=180)
        assert done.returncode == EXIT_FAILED, done.stdout + done.stderr
        assert "✗ web1 failed" in done.stdout
        assert "– web2 not started (the canary failed on web1)" in done.stdout
        assert "– db1 not started (the canary failed on web1)" in done.stdout
        # nothing ran on the others: the same nginx processes
        assert {h: fleet.pid(h, "nginx") for h in ("web2", "db1")} == {
            h: before[h] for h in ("web2", "db1")}
        assert fleet.state("web2", "nginx") == fleet.state("db1", "nginx") == "active"
        [tx] = _journal().transactions(kind=FLEET)
        steps = {s.host: s for s in tx.steps}
        assert steps["web1"].status == "failed"
        assert (steps["web2"].status, steps["db1"].status) == ("skipped", "skipped")
        assert steps["db1"].output == "not started (the canary failed on web1)"
        assert tx.undo_steps == []  # nothing changed that undo could put back
        assert reos("undo", timeout=120).returncode == EXIT_NOTHING
        assert {h: fleet.pid(h, "nginx") for h in ("web2", "db1")} == {
            h: before[h] for h in ("web2", "db1")}


def test_max_fail_percent_says_how_much_of_a_batch_may_fail_before_the_rest_stops(
        fleet, reos_home: Path) -> None:  # type: ignore[no-untyped-def]
    # reos-demo stopped on db1 alone: db1's plan is only the restart, so it runs after
    # web1 and web2 (one run for the hosts with the same steps); web2 fails the restart,
    # so 1 of their 2 hosts failed
    (reos_home / "config").mkdir(parents=True, exist_ok=True)
    for percent, db1_runs in ((0, False), (50, True)):  # 50 %: not more than 50 %
        (reos_home / "config" / "settings.toml").write_text(
            f"[fleet]\nmax_fail_percent = {percent}\n")
        fleet.run("db1", "systemctl", "stop", "reos-demo")
        db1_nginx = fleet.pid("db1", "nginx")
        try:
            with _nginx_broken(fleet, "web2"):
                done = reos("plan", "--hosts", "all", "-i", str(fleet.inventory), "--yes",
                            "stop reos-demo and restart nginx", timeout=240)
            said = done.stdout + done.stderr
            assert done.returncode == EXIT_FAILED, said
            assert "On web1, web2:" in said and "On db1:" in said
            assert "✓ web1 done" in said and "✗ web2 failed" in said
            assert fleet.state("web1", "reos-demo") == "inactive"  # the canary did its part
            if db1_runs:
                assert "✓ db1 done" in said
                assert fleet.pid("db1", "nginx") != db1_nginx
            else:
                assert "– db1 not started (an earlier batch failed on web2)" in said
                assert fleet.pid("db1", "nginx") == db1_nginx
        finally:
            for host in HOSTS:
                fleet.run(host, "systemctl", "start", "reos-demo")


# -- no bed needed ------------------------------------------------------------------------
def test_the_play_of_a_change_runs_in_canary_batches() -> None:
    import json

    from reos.fleet.running import Canary, Task, playbook

    task = Task("s1 Restart nginx", "ansible.builtin.command", {"argv": ["true"]})
    [play] = json.loads(playbook([task], Canary(25)).removeprefix("!unsafe "))
    assert (play["serial"], play["max_fail_percentage"]) == ([1, "25%", "100%"], 25)
    [plain] = json.loads(playbook([task]).removeprefix("!unsafe "))
    assert "serial" not in plain and "max_fail_percentage" not in plain


@pytest.mark.parametrize("value", ["-1", "101", '"10%"', "12.5"])
def test_max_fail_percent_is_a_whole_percentage(value: str, tmp_path: Path) -> None:
    from reos import settings

    path = tmp_path / "settings.toml"
    with pytest.raises(SettingsError, match=r"\[fleet\] max_fail_percent must be"):
        settings.parse(f"[fleet]\nmax_fail_percent = {value}\n", path)
    assert settings.parse("[fleet]\nmax_fail_percent = 100\n", path).fleet.max_fail_percent \
        == 100
    assert settings.Settings().fleet.max_fail_percent == 0  # any failed host stops


def test_the_words_of_a_host_never_started() -> None:
    from reos.fleet.changing import Applied, Outcome
    from reos.on_hosts import outcome_lines

    shown = outcome_lines(Applied(7, [
        Outcome("web1", "failed", "Job for nginx.service failed"),
        Outcome("web2", "not started", "the canary failed on web1", [("s1", "skipped", "")]),
    ]), changes=True)
    assert "✗ web1 failed: Job for nginx.service failed" in shown
    assert "– web2 not started (the canary failed on web1)" in shown
