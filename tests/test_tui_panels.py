"""The chat's side panels (machine F2, history F3, reasoning F4) and its signs of life
(the spinner of a running step, the machine line, toasts), driven with Pilot against a
saved snapshot; undo from the history panel reverts a real file edit in the test's
journal."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from reos import paths
from reos.engine import ReasoningEngine
from reos.model.events import EventSink, StepFinished, StepStarted
from reos.model.plan import Step
from reos.model.report import ExecutionReport, StepResult, StopReason
from reos.outcome import Reply
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.tui import live
from reos.tui.app import ReosApp
from reos.tui.live import Activity, MachineLine
from reos.tui.panels import ConfirmUndo, HistoryPanel, Panel, SidePanels, load_choice, save_choice
from reos.tui.status import StatusLine

SNAPSHOT = SystemSnapshot.from_dict(json.loads(
    (Path(__file__).parent / "fixtures" / "homelab.json").read_text()))
WIDE = (120, 45)


class Recording(ReosApp):
    """The chat, keeping every toast it shows."""

    def __init__(self, engine: ReasoningEngine) -> None:
        super().__init__(engine)
        self.toasts: list[str] = []

    def notify(self, message: str, **kwargs: Any) -> None:  # type: ignore[override]
        self.toasts.append(message)
        super().notify(message, **kwargs)


def chat(engine: ReasoningEngine | None = None) -> Recording:
    return Recording(engine or ReasoningEngine(Settings(), snapshot=SNAPSHOT))


async def settle(app: ReosApp, pilot) -> None:  # noqa: ANN001
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


def shown(app: ReosApp) -> dict[str, bool]:
    side = app.query_one(SidePanels)
    return {name: side.display and side.panel(name).display
            for name in ("machine", "history", "reasoning")}


# -- panels ----------------------------------------------------------------------------------
async def test_each_panel_toggles_and_the_choice_survives_a_new_app() -> None:
    app = chat()
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        assert shown(app) == {"machine": False, "history": False, "reasoning": False}
        for key in ("f2", "f3", "f4"):
            await pilot.press(key)
        await settle(app, pilot)
        assert shown(app) == {"machine": True, "history": True, "reasoning": True}
        assert app.query_one("#log").region.width < WIDE[0] - 40  # the chat made room
    again = chat()
    async with again.run_test(size=WIDE) as pilot:
        await settle(again, pilot)
        assert shown(again) == {"machine": True, "history": True, "reasoning": True}
        await pilot.press("f3")
        await settle(again, pilot)
    third = chat()
    async with third.run_test(size=WIDE) as pilot:
        await settle(third, pilot)
        assert shown(third) == {"machine": True, "history": False, "reasoning": True}


async def test_a_damaged_choice_file_is_ignored() -> None:
    choice = paths.data_dir() / "panels.json"
    choice.parent.mkdir(parents=True, exist_ok=True)
    choice.write_text('{"machine": tru')
    assert load_choice() == {"machine": False, "history": False, "reasoning": False,
                             "hosts": False}
    app = chat()
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        assert not any(shown(app).values())
        await pilot.press("f2")
        await settle(app, pilot)
        assert shown(app)["machine"]
    assert json.loads(choice.read_text())["machine"] is True  # rewritten whole


async def test_panels_collapse_on_a_narrow_screen_and_a_key_opens_one_over_the_chat() -> None:
    save_choice({"machine": True, "history": True, "reasoning": True})  # chosen when wide
    app = chat()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        assert app.query_one(SidePanels).region.width == 0  # chosen, but no room for them
        assert app.query_one("#log").region.width == 80
        await pilot.press("f2")  # asked for: that one panel, over the conversation
        await settle(app, pilot)
        assert shown(app) == {"machine": True, "history": False, "reasoning": False}
        assert app.query_one(SidePanels).region.width == 80
        await pilot.press("f2")
        await settle(app, pilot)
        assert app.query_one(SidePanels).region.width == 0
        assert load_choice() == {"machine": True, "history": True, "reasoning": True,
                             "hosts": False}
        await pilot.resize_terminal(*WIDE)
        await settle(app, pilot)
        assert app.query_one(SidePanels).region.width > 0


async def test_the_machine_panel_lists_failed_units_first() -> None:
    app = chat()
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await pilot.press("f2")
        await settle(app, pilot)
        lines = app.query_one("#panel-machine", Panel).text.splitlines()
        services = lines[next(i for i, line in enumerate(lines)
                              if line.startswith("Services")) + 1:]
        assert services[0].split()[:3] == ["\u2717", "fail2ban.service", "failed/failed"]
        assert not any("failed" in line for line in services[1:])
        containers = lines[1:lines.index("Services (16)")]
        assert lines[0] == "Containers (7)" and len(containers) == 7
        states = [line.split()[-1] for line in containers]
        assert states == sorted(states, key=lambda s: s == "running")  # stopped ones first


async def test_undo_from_the_history_panel_asks_then_undoes(one_undoable: Path) -> None:
    app = chat()
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        history = app.query_one(HistoryPanel)
        assert history.options.get_option_at_index(0).prompt.startswith("\u21b6 #")
        assert "edit the config" in str(history.options.get_option_at_index(0).prompt)
        history.options.focus()
        await pilot.press("u")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmUndo)
        await pilot.press("n")  # no: nothing changes
        await settle(app, pilot)
        assert one_undoable.read_text() == "port 9090\n"
        assert app.toasts[-1] == "Not undone: nothing was changed."
        await pilot.press("u")
        await settle(app, pilot)
        assert isinstance(app.screen, ConfirmUndo)
        await pilot.press("y")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmUndo)
        assert one_undoable.read_text() == "port 8080\n"  # the file is restored
        assert "edit the config" in app.toasts[-1] and "Not undone" not in app.toasts[-1]
        assert "\u21b6" not in str(history.options.get_option_at_index(0).prompt)


async def test_the_panels_undo_waits_in_the_session_like_any_undo(one_undoable: Path) -> None:
    """`u` shows one transaction's undo, which then waits for a yes in the session (as
    "undo" does in the chat): a yes undoes exactly it, and if another change became the
    newest meanwhile nothing is undone and the toast says so."""
    app = chat()
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        history = app.query_one(HistoryPanel)
        history.options.focus()
        await pilot.press("u")
        await settle(app, pilot)
        engine = app.engine
        shown = engine.session.undo_shown
        assert engine.undo_waiting and shown == engine.journal.undoable(limit=1)[0].id
        await pilot.press("n")
        await settle(app, pilot)
        assert not engine.undo_waiting  # no: nothing waits any more
        await pilot.press("u")
        await settle(app, pilot)
        engine.session.wait_for_undo(shown + 1000)  # as if another change came meanwhile
        await pilot.press("y")
        await settle(app, pilot)
        assert one_undoable.read_text() == "port 9090\n"  # nothing was undone
        assert "no longer the one I showed" in app.toasts[-1]


async def test_the_inspector_panel_shows_the_chain_of_the_latest_reply() -> None:
    app = chat()
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await pilot.press("f4")
        await settle(app, pilot)
        inspector = app.query_one("#panel-reasoning", Panel)
        assert inspector.text.startswith("No reasoning kept yet")
        await pilot.click("#prompt")
        await pilot.press(*"stop the nextcloud containers", "enter")
        await settle(app, pilot)
        chain = inspector.text
        assert chain.startswith("=== REASONING CHAIN: plan_creation ===")
        assert "Goal: stop the nextcloud containers" in chain
        assert "Alternatives:" in chain and "Quality Score:" in chain


# -- live work -------------------------------------------------------------------------------
async def test_a_spinner_runs_while_a_step_runs_and_is_gone_after() -> None:
    engine = ReasoningEngine(Settings(), snapshot=SNAPSHOT)
    release = threading.Event()
    step = Step(id="s1", title="Stopping nextcloud-db", argv=["docker", "stop", "nextcloud-db"])

    def slow(text: str, on_event: EventSink) -> Reply:  # a step that takes its time
        on_event(StepStarted(step))
        release.wait(30)
        on_event(StepFinished(step, StepResult("s1", True, 0)))
        return Reply("Done.")

    engine.respond = slow  # type: ignore[method-assign]
    app = chat(engine)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        activity = app.query_one(Activity)
        assert not activity.display
        await pilot.click("#prompt")
        await pilot.press(*"stop the db", "enter")
        for _ in range(200):  # until the step has started (bounded; no timing asserted)
            await pilot.pause(0.01)
            if "Stopping" in activity.text:
                break
        assert activity.display and activity.has_class("-working")
        assert activity.text[0] in live.SPINNER
        assert activity.text.endswith(" s") and "Stopping nextcloud-db\u2026" in activity.text
        release.set()
        await settle(app, pilot)
        assert not activity.display and activity.text == ""


async def test_toasts_say_a_pause_and_a_rollback() -> None:
    from reos.model.report import UndoReport
    from reos.store.journal import TransactionRecord

    engine = ReasoningEngine(Settings(), snapshot=SNAPSHOT)
    step = Step(id="s2", title="Restart portainer", argv=["docker", "restart", "portainer"])
    paused = ExecutionReport(tx_id=7, pending=[step], stop=StopReason.OPERATIONS,
                             stopped_reason="5 operations reached (limit 5)")
    rolled = ExecutionReport(tx_id=8, failed=step, rolled_back=UndoReport(
        TransactionRecord(
        8, "restart portainer", "action", "failed", "2026-11-22T12:00:00Z", None, None, None)))
    replies = iter([Reply("Paused.", report=paused), Reply("Rolled back.", report=rolled)])
    engine.respond = lambda text, on_event: next(replies)  # type: ignore[method-assign]
    app = chat(engine)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await pilot.click("#prompt")
        await pilot.press(*"go", "enter")
        await settle(app, pilot)
        assert app.toasts[-1] == "Paused: 5 operations reached (limit 5)"
        await pilot.press(*"go", "enter")
        await settle(app, pilot)
        assert app.toasts[-1].startswith("Rolled back: ")


def test_toasts_are_read_from_typed_outcomes_only() -> None:
    stopped = ExecutionReport(tx_id=1, stop=StopReason.SECONDS, stopped_reason="paused 60 s")
    assert live.toasts(Reply("x", report=stopped)) == [("Stopped: paused 60 s", "warning")]
    assert live.toasts(Reply("Paused and rolled back, said in words only")) == []


async def test_the_status_lines_show_host_user_sudo_and_understanding() -> None:
    app = chat()
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        line = app.query_one(MachineLine).text
        assert app.sub_title == line  # in the header: no row of its own at 80x24
        assert line.startswith("homelab \u00b7 user ")
        assert f"user {live.user()}" in line
        expected = live.ROOT if os.geteuid() == 0 else live.probe_sudo()
        assert expected in line and live.SUDO_UNKNOWN not in line
        assert "snapshot " in line and " old" in line
        assert app.query_one(StatusLine).text == "built-in understanding"




def test_snapshot_age_in_words() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    assert live.age("2026-11-22T11:59:30Z", now) == "just now"
    assert live.age("2026-11-22T11:57:00Z", now) == "3 min old"
    assert live.age("2026-11-21T22:00:00Z", now) == "14 h old"
    assert live.age("not a time", now) == "unknown age"




async def test_undo_from_the_panel_waits_for_a_plan_to_be_decided(one_undoable: Path) -> None:
    engine = ReasoningEngine(Settings(), snapshot=SNAPSHOT)
    app = chat(engine)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await pilot.click("#prompt")
        await pilot.press(*"stop the nextcloud containers", "enter")
        await settle(app, pilot)
        assert engine.pending is not None
        app.query_one(HistoryPanel).options.focus()
        await pilot.press("u")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmUndo)
        assert app.toasts[-1].startswith("Something is waiting for your yes or no")
        assert one_undoable.read_text() == "port 9090\n" and engine.pending is not None


async def test_undo_from_the_panel_waits_for_a_plan_on_hosts_to_be_decided(
        one_undoable: Path) -> None:
    from reos.fleet.inventory import Source
    from reos.on_hosts import HostsPlan

    engine = ReasoningEngine(Settings(), snapshot=SNAPSHOT)
    waiting = HostsPlan("restart nginx", Source((Path("/nowhere/hosts.ini"),), "--inventory"))
    app = chat(engine)
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        engine.session.offer_hosts(waiting)  # as a request naming hosts leaves it
        app.query_one(HistoryPanel).options.focus()
        await pilot.press("u")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmUndo)
        assert app.toasts[-1].startswith("Something is waiting for your yes or no")
        assert one_undoable.read_text() == "port 9090\n" and engine.session.hosts is waiting


async def test_the_inspector_follows_the_focus_into_a_plan_card() -> None:
    from textual.widgets import Button

    app = chat()
    async with app.run_test(size=WIDE) as pilot:
        await settle(app, pilot)
        await pilot.press("f4")
        await pilot.click("#prompt")
        await pilot.press(*"restart portainer", "enter")
        await settle(app, pilot)
        await pilot.press(*"what containers are running", "enter")  # a later reply
        await settle(app, pilot)
        inspector = app.query_one("#panel-reasoning", Panel)
        assert "Goal: what containers are running" in inspector.text
        card = next(node for node in app.query("PlanCard") if not getattr(node, "closed", True))
        card.query(Button).first().focus()  # the person moves into the waiting card
        await settle(app, pilot)
        assert "Goal: restart portainer" in inspector.text
        assert app.engine.pending is not None  # looking changed nothing
