"""The chat's hosts panel (F5, reos/tui/fleet_panel.py): the Ansible inventory's hosts by
group, the age of reos's snapshot of each, and whether each answers, reached through
Ansible over real SSH on the fleet bed (tests/fleet_bed.py) when the panel opens. Without
an inventory the key is not offered and does nothing; an inventory that does not parse is
said in the panel, and the chat goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.settings import FleetSettings, Settings
from reos.tui.app import ReosApp
from reos.tui.panels import SidePanels
from tests.pilot import SNAPSHOT, settle

WIDE = (120, 45)


def chat(inventory: Path | None, connect_timeout: int = 10) -> ReosApp:
    fleet = FleetSettings(inventory=str(inventory or ""), connect_timeout=connect_timeout)
    return ReosApp(ReasoningEngine(Settings(fleet=fleet), snapshot=SNAPSHOT))


def hosts_text(app: ReosApp) -> str:
    return app.query_one(SidePanels).panel("hosts").text  # type: ignore[union-attr]


def footer_keys(app: ReosApp) -> set[str]:
    return {key for key, active in app.active_bindings.items() if active.enabled}


@pytest.mark.usefixtures("reos_home")
async def test_without_an_inventory_there_is_no_hosts_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANSIBLE_INVENTORY", raising=False)
    app = chat(None)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        assert "f5" not in footer_keys(app)
        assert "f2" in footer_keys(app)
        await pilot.press("f5")
        await settle(app, pilot)
        assert not app.query_one(SidePanels).panel("hosts").display


@pytest.mark.usefixtures("reos_home")
async def test_an_inventory_that_does_not_parse_is_said_in_the_panel(tmp_path: Path) -> None:
    broken = tmp_path / "hosts.yml"
    broken.write_text("all:\n  hosts:\n    web1: [unclosed\n")
    app = chat(broken)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        assert "f5" in footer_keys(app)
        await pilot.press("f5")
        await settle(app, pilot)
        text = hosts_text(app)
        assert f"Inventory: {broken}" in text
        assert "hosts.yml" in text.split("\n", 1)[1]  # why, naming the file
        assert "Traceback" not in text
        app.prompt.value = "what containers are running"  # the chat goes on
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.is_running


@pytest.mark.usefixtures("reos_home")
async def test_opening_the_panel_reaches_each_host_and_says_which_answers(fleet) -> None:  # type: ignore[no-untyped-def]
    app = chat(fleet.inventory, connect_timeout=2)
    fleet.pause("db1")
    try:
        async with app.run_test(size=WIDE) as pilot:
            await settle(app, pilot)
            await pilot.press("f5")
            for _ in range(600):  # Ansible over SSH: seconds, more on a loaded machine
                if "of 3 ready" in hosts_text(app):
                    break
                await pilot.pause(0.1)
            text = hosts_text(app)
    finally:
        fleet.unpause("db1")
    assert "web (2)" in text and "db (1)" in text
    assert "\u2713 web1  ready" in text and "\u2713 web2  ready" in text
    assert "\u2717 db1  unreached: it did not answer within 2 s" in text  # the setting's
    assert "2 of 3 ready" in text
    assert "never read" in text  # no snapshot kept yet in this REOS_HOME


def test_the_panel_says_while_it_reaches_and_when_it_reached() -> None:
    from reos.fleet.inventory import Host, Inventory, Source
    from reos.fleet.reach import Reach
    from reos.tui.fleet_panel import lines

    where = Source((Path("/etc/ansible/hosts"),), "ANSIBLE_INVENTORY")
    chosen = Inventory(("/etc/ansible/hosts",), "all", None,
                       (Host("a", ("web",)), Host("b", ())), {"web": ("a",)})
    ages = {"a": "read 3 minutes ago"}
    reaching = lines(where, chosen, ages, None, reaching=True)
    assert reaching[-1] == "Reaching the hosts\u2026"
    assert "  a  read 3 minutes ago" in reaching and "  b  never read" in reaching
    assert "(no group) (1)" in reaching  # a host in no group is still listed
    reached = lines(where, chosen, ages,
                    {"a": Reach("a", "ready"), "b": Reach("b", "answers", "sudo wants a password")},
                    checked_at=0.0)
    assert "! b  answers: sudo wants a password; never read" in reached
    assert reached[-1].startswith("1 of 2 ready (reached at ")
