"""Requests on other machines in the chat (reos/on_hosts.py through the engine; the hosts
card, reos/tui/hosts_card.py), on the fleet bed: web1, web2 and db1 over real SSH
(tests/fleet_bed.py). A change shows a card with a host column and waits for yes; a yes
runs it through Ansible and the card says how each host did; a no changes nothing.
Looked at from outside with docker exec (PIDs and states), never through reos."""

from __future__ import annotations

from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.settings import FleetSettings, Settings
from reos.tui.app import ReosApp
from reos.tui.hosts_card import HostsCard
from tests.pilot import SNAPSHOT, said, settle

WIDE = (140, 50)


def chat(inventory: Path) -> ReosApp:
    settings = Settings(fleet=FleetSettings(inventory=str(inventory)))
    return ReosApp(ReasoningEngine(settings, snapshot=SNAPSHOT))


async def ask(app: ReosApp, pilot, text: str) -> None:  # noqa: ANN001
    app.prompt.value = text
    await pilot.press("enter")
    for _ in range(1800):  # Ansible over SSH: seconds, more on a loaded machine
        await pilot.pause(0.1)
        if not app.busy:
            break
    await settle(app, pilot)


@pytest.mark.usefixtures("reos_home")
async def test_a_change_on_hosts_waits_in_a_card_with_a_host_column_and_runs_on_yes(
        fleet) -> None:  # type: ignore[no-untyped-def]
    before = {h: fleet.pid(h, "nginx") for h in ("web1", "web2", "db1")}
    app = chat(fleet.inventory)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await ask(app, pilot, "restart nginx on the web servers")
        [card] = list(app.query(HostsCard))
        text = card.text
        assert not card.closed and app.engine.session.hosts is card.hosts
        assert "Hosts" in text and "web1, web2" in text and "db1" not in text
        assert "Restart nginx.service" in text and "systemctl restart nginx.service" in text
        assert "nothing to restore" in text  # each host's undo, from its snapshot
        assert {h: fleet.pid(h, "nginx") for h in before} == before  # nothing ran yet
        assert "ctrl+y" in {b.binding.key for b in app.active_bindings.values()
                            if b.enabled}

        await ask(app, pilot, "yes")
        assert card.closed
        text = card.text
        assert any("reos undo" in line for line in said(app))
    after = {h: fleet.pid(h, "nginx") for h in before}
    assert after["web1"] != before["web1"] and after["web2"] != before["web2"]
    assert after["db1"] == before["db1"]
    assert "\u2713 web1 done" in text and "\u2713 web2 done" in text
    assert app.engine.session.hosts is None


@pytest.mark.usefixtures("reos_home")
async def test_no_to_a_change_on_hosts_changes_nothing(fleet) -> None:  # type: ignore[no-untyped-def]
    app = chat(fleet.inventory)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await ask(app, pilot, "stop nginx on db1")
        [card] = list(app.query(HostsCard))
        assert not card.closed
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert card.closed and "Declined: nothing was changed." in card.text
        assert app.engine.session.hosts is None
    assert fleet.state("db1", "nginx") == "active"


@pytest.mark.usefixtures("reos_home")
async def test_a_host_that_lacks_the_target_is_left_out_with_why_in_the_card(
        fleet) -> None:  # type: ignore[no-untyped-def]
    app = chat(fleet.inventory)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await ask(app, pilot, "restart reos-nothing-here on all hosts")
        cards = list(app.query(HostsCard))
        assert cards and cards[-1].closed  # nothing waits: nothing to run anywhere
        assert "Left out: web1" in cards[-1].text
        assert app.engine.session.hosts is None
