"""Found by review of requests on other machines through the engine and the chat
(reos/on_hosts.py, reos/approving.py, reos/tui/app.py): after a request on hosts the chat
plans for this machine again; what cannot be taken back on a host is asked twice; a
question about hosts drops the plan that waited, so a "yes" meant for the question never
runs it; an inventory that cannot be read leaves requests on this machine; a late yes to
hosts that changed closes the old card and says why; after a rollback nothing is said to
be left for undo. On the fleet bed where a host is needed (tests/fleet_bed.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.fleet.changing import Applied
from reos.fleet.changing import Outcome as HostOutcome
from reos.fleet.deciding import Prepared
from reos.fleet.inventory import Source
from reos.model.events import Notice
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.on_hosts import HostsPlan, lost_for_good, outcome_lines
from reos.outcome import Outcome
from reos.settings import FleetSettings, Settings
from reos.tui.app import ReosApp
from reos.tui.hosts_card import HostsCard
from tests.pilot import SNAPSHOT, said, settle


def _engine(inventory: Path) -> ReasoningEngine:
    return ReasoningEngine(Settings(fleet=FleetSettings(inventory=str(inventory))),
                           snapshot=SNAPSHOT)


@pytest.mark.usefixtures("reos_home")
def test_after_a_request_on_hosts_the_next_is_planned_for_this_machine(fleet) -> None:  # type: ignore[no-untyped-def]
    engine = _engine(fleet.inventory)
    assert engine.respond("restart nginx on db1").outcome is Outcome.NEEDS_APPROVAL
    engine.decline()
    assert engine.snapshot() is SNAPSHOT
    here = engine.respond("restart portainer")  # a container of this machine's snapshot
    assert here.plan is not None and here.plan.steps, here.text
    assert "portainer" in " ".join(here.plan.steps[0].argv)


@pytest.mark.usefixtures("reos_home")
def test_what_cannot_be_taken_back_on_a_host_is_asked_twice(fleet) -> None:  # type: ignore[no-untyped-def]
    assert fleet.run("db1", "apt-get", "install", "-y", "-qq", "reos-demo-tool",
                     timeout=180).returncode == 0
    engine = _engine(fleet.inventory)
    offered = engine.respond("purge reos-demo-tool on db1")
    assert offered.outcome is Outcome.NEEDS_APPROVAL, offered.text
    again = engine.approve()
    assert again.outcome is Outcome.NEEDS_APPROVAL, again.text
    assert again.text.startswith("This can't be taken back: ")
    assert "on db1" in again.text
    engine.decline()
    assert fleet.run("db1", "dpkg", "-s", "reos-demo-tool").returncode == 0  # not purged


@pytest.mark.usefixtures("reos_home")
def test_a_question_about_hosts_drops_the_plan_that_waited(fleet) -> None:  # type: ignore[no-untyped-def]
    engine = _engine(fleet.inventory)
    before = fleet.pid("web2", "nginx")
    assert engine.respond("restart nginx on web2").outcome is Outcome.NEEDS_APPROVAL
    asked = engine.respond("restart nginx on web9")  # no such host: said, and nothing waits
    assert "web9" in asked.text and "is dropped: nothing ran there" in asked.text
    assert engine.session.hosts is None
    engine.respond("yes")
    assert fleet.pid("web2", "nginx") == before


@pytest.mark.usefixtures("reos_home")
def test_an_inventory_that_cannot_be_read_leaves_requests_on_this_machine(
        tmp_path: Path) -> None:
    engine = _engine(tmp_path / "missing.ini")
    heard: list[object] = []
    reply = engine.respond("restart portainer on this machine", heard.append)
    assert reply.plan is not None and reply.plan.steps, reply.text
    notices = [e.text for e in heard if isinstance(e, Notice)]
    assert notices and "taken as a request for this machine" in notices[0]
    assert "missing.ini" in notices[0]
    # an inventory that names web-01 but cannot be read: without words for this machine,
    # the request may name its hosts, and it is never done here instead
    broken = tmp_path / "broken.ini"
    broken.write_text("[web\nweb-01 ansible_host=10.0.0.1\n")
    engine = _engine(broken)
    reply = engine.respond("stop nginx, web-01")
    assert reply.plan is None and "so I did nothing" in reply.text, reply.text
    assert "broken.ini" in reply.text
    # "here" left out is not this machine said
    reply = engine.respond("restart nginx on the web-01 box, not here")
    assert reply.plan is None and "so I did nothing" in reply.text, reply.text


def _part(host: str, undo: list[str] | None) -> Prepared:
    step = Step("s1", "Purge nginx", ["sudo", "-n", "apt-get", "purge", "-y", "nginx"],
                needs_root=True)
    return Prepared(host, plan=Plan("x", Kind.ACTION, steps=[step]), priors=[None],
                    undos=[undo], read_only=False)


def test_the_second_question_names_each_step_and_its_hosts() -> None:
    source = Source((Path("/nowhere.ini"),), "--inventory")
    both = HostsPlan("x", source, [_part("web1", None), _part("db1", None)])
    assert lost_for_good(both) == "This can't be taken back: Purge nginx on web1, db1."
    undoable = HostsPlan("x", source, [_part("web1", ["sudo", "-n", "apt-get", "install",
                                                      "-y", "nginx"])])
    assert lost_for_good(undoable) is None


def test_after_a_full_rollback_nothing_is_said_to_be_left_for_undo() -> None:
    rolled = HostOutcome("web1", "failed", "it failed", [("s1", "done", ""),
                                                         ("s2", "failed", "")],
                         rolled_back="rolled back", put_back=True)
    said = outcome_lines(Applied(3, [rolled]), True)
    assert "Rolled back where it failed: nothing is left changed." in said
    assert not [line for line in said if "reos undo" in line]
    kept = HostOutcome("web2", "done", "", [("s1", "done", "")])
    assert any("reos undo" in line for line in outcome_lines(Applied(3, [rolled, kept]), True))


@pytest.mark.usefixtures("reos_home")
async def test_a_late_yes_to_hosts_that_changed_closes_the_old_card_and_says_why(
        fleet) -> None:  # type: ignore[no-untyped-def]
    app = ReosApp(_engine(fleet.inventory))
    async with app.run_test(size=(140, 50)) as pilot:
        await settle(app, pilot)
        app.prompt.value = "restart nginx on web1"
        await pilot.press("enter")
        for _ in range(1200):
            await pilot.pause(0.1)
            if not app.busy:
                break
        await settle(app, pilot)
        [old] = list(app.query(HostsCard))
        try:
            fleet.run("web1", "systemctl", "stop", "nginx")
            old.hosts.read_at -= 3600
            await pilot.press("ctrl+y")
            for _ in range(1200):
                await pilot.pause(0.1)
                if not app.busy:
                    break
            await settle(app, pilot)
            cards = list(app.query(HostsCard))
            assert len(cards) == 2 and cards[0] is old
            assert old.closed and "Not run: the hosts changed" in old.text
            assert not cards[1].closed
            assert any(line.startswith("The hosts changed since I read them")
                       for line in said(app))
            assert fleet.state("web1", "nginx") == "inactive"  # nothing ran
            await pilot.press("ctrl+n")
            await settle(app, pilot)
        finally:
            fleet.run("web1", "systemctl", "start", "nginx")
