"""Plans on other machines approved through the engine (reos/engine.py `approve_hosts`), on
the fleet bed: a yes given more than a minute after the hosts were read reads them again,
and a host that changed meanwhile gets its new plan shown, not run; unchanged hosts run
at once. Looked at from outside with docker exec."""

from __future__ import annotations

import pytest

from reos.engine import ReasoningEngine
from reos.outcome import Outcome
from reos.settings import FleetSettings, Settings
from tests.pilot import SNAPSHOT


def _engine(fleet) -> ReasoningEngine:  # type: ignore[no-untyped-def]
    return ReasoningEngine(Settings(fleet=FleetSettings(inventory=str(fleet.inventory))),
                           snapshot=SNAPSHOT)


@pytest.mark.usefixtures("reos_home")
def test_a_late_yes_to_a_host_that_changed_shows_the_new_plan_and_runs_nothing(
        fleet) -> None:  # type: ignore[no-untyped-def]
    engine = _engine(fleet)
    offered = engine.respond("restart nginx on web1")
    assert offered.outcome is Outcome.NEEDS_APPROVAL, offered.text
    assert "nothing to restore" in offered.text  # nginx runs there now
    try:
        fleet.run("web1", "systemctl", "stop", "nginx")
        engine.session.hosts.read_at -= 3600  # type: ignore[union-attr]  # approved an hour later
        late = engine.approve()
        assert late.outcome is Outcome.NEEDS_APPROVAL, late.text
        assert late.text.startswith("The hosts changed since I read them, so nothing ran.")
        assert "systemctl stop nginx.service" in late.text  # undo of starting it now
        assert fleet.state("web1", "nginx") == "inactive"
        assert engine.session.hosts is late.hosts
        ran = engine.approve()  # the new plan, just read: it runs
        assert ran.outcome is Outcome.RAN, ran.text
        assert fleet.state("web1", "nginx") == "active"
    finally:
        fleet.run("web1", "systemctl", "start", "nginx")


@pytest.mark.usefixtures("reos_home")
def test_a_late_yes_to_unchanged_hosts_runs(fleet) -> None:  # type: ignore[no-untyped-def]
    engine = _engine(fleet)
    before = fleet.pid("web2", "nginx")
    assert engine.respond("restart nginx on web2").outcome is Outcome.NEEDS_APPROVAL
    engine.session.hosts.read_at -= 3600  # type: ignore[union-attr]
    ran = engine.approve()
    assert ran.outcome is Outcome.RAN, ran.text
    assert fleet.pid("web2", "nginx") != before


@pytest.mark.usefixtures("reos_home")
def test_a_late_yes_at_the_terminal_reads_the_hosts_again_and_runs_nothing_changed(
        fleet, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """`reos plan --hosts` asking on the terminal: a yes that comes after the hosts could
    have changed reads them again, and a host that changed gets its new plan shown, not
    run (the yes was to the old one)."""
    from reos import on_hosts
    from reos.commands import ask, fleet_plan
    from reos.commands import plan as plan_command
    from reos.errors import EXIT_DECLINED

    asked: list[str] = []

    def confirm(question: str) -> bool:  # the person takes their time; web1 changes
        asked.append(question)
        fleet.run("web1", "systemctl", "stop", "nginx")
        return True

    monkeypatch.setattr(plan_command, "interactive", lambda: True)
    monkeypatch.setattr(ask, "confirm", confirm)
    monkeypatch.setattr(on_hosts, "STALE_SECONDS", -1.0)  # every yes counts as late
    try:
        done = fleet_plan.run("restart nginx", pattern="web1", inventory=fleet.inventory)
        said = capsys.readouterr().out
        assert done == EXIT_DECLINED, said
        assert asked and "The hosts changed since I read them, so nothing ran." in said
        assert "systemctl stop nginx.service" in said.split("nothing ran.", 1)[1]
        assert fleet.state("web1", "nginx") == "inactive"  # the old plan did not run
    finally:
        fleet.run("web1", "systemctl", "start", "nginx")
