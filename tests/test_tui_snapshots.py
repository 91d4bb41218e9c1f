"""SVG snapshots (pytest-textual-snapshot) of the chat's screens beyond the welcome, help
and 80×24 ones of tests/test_tui_chrome.py: a plan card at normal and detailed verbosity,
a question with choices, and the side panels. A saved snapshot engine and a steady machine
line keep them the same on every machine."""

from __future__ import annotations

import json
from pathlib import Path

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.tui.app import ReosApp
from tests.test_tui_chrome import _steady, steady_machine  # noqa: F401 - the fixture

SNAPSHOT = SystemSnapshot.from_dict(json.loads(
    (Path(__file__).parent / "fixtures" / "homelab.json").read_text()))


def chat(verbosity: str = "normal") -> ReosApp:
    settings = Settings()
    settings.conversation.verbosity = verbosity
    return ReosApp(ReasoningEngine(settings, snapshot=SNAPSHOT))


def asking(text: str):  # noqa: ANN201 - a run_before for snap_compare
    async def run_before(pilot) -> None:  # noqa: ANN001
        await _steady(pilot)
        await pilot.press(*text, "enter")
        await _steady(pilot)

    return run_before


def test_snapshot_plan_card_normal(snap_compare, steady_machine) -> None:  # noqa: ANN001, F811
    assert snap_compare(chat(), terminal_size=(120, 45),
                        run_before=asking("stop the nextcloud containers"))


def test_snapshot_plan_card_detailed(snap_compare, steady_machine) -> None:  # noqa: ANN001, F811
    assert snap_compare(chat("detailed"), terminal_size=(120, 45),
                        run_before=asking("stop the nextcloud containers"))


def test_snapshot_question_with_choices(snap_compare, steady_machine) -> None:  # noqa: ANN001, F811
    assert snap_compare(chat(), terminal_size=(120, 45),
                        run_before=asking("restart the database"))


def test_snapshot_side_panels(snap_compare, steady_machine) -> None:  # noqa: ANN001, F811
    async def run_before(pilot) -> None:  # noqa: ANN001
        await _steady(pilot)
        for key in ("f2", "f3", "f4"):
            await pilot.press(key)
            await _steady(pilot)

    assert snap_compare(chat(), terminal_size=(140, 45), run_before=run_before)


class _StillClock:
    """Time that stands still for reos/tui/live.py, so the spinner's seconds never move."""

    @staticmethod
    def monotonic() -> float:
        return 100.0


def test_snapshot_running_plan_with_progress(snap_compare, steady_machine,  # noqa: ANN001, F811
                                             monkeypatch) -> None:  # noqa: ANN001
    """A plan on its way: its card approved, the first step done with its output, the
    second one spinning with its seconds (the events are the engine's own kinds, sent as
    the engine sends them; nothing runs)."""
    from reos.model.events import StepFinished, StepOutput, StepStarted
    from reos.model.report import StepResult
    from reos.tui import live

    monkeypatch.setattr(live, "time", _StillClock)
    monkeypatch.setattr(live, "TICK", 3600.0)  # the spinner keeps its first frame

    async def run_before(pilot) -> None:  # noqa: ANN001
        await asking("stop the nextcloud containers")(pilot)
        app = pilot.app
        plan = app.engine.pending
        first, second = plan.steps
        app.query_one(live.Activity).begin("running the plan")
        for event in (StepStarted(first), StepOutput(first, first.target.name, "stdout"),
                      StepFinished(first, StepResult(first.id, True, 0)),
                      StepStarted(second)):
            app.show_event(event)
        await pilot.pause()

    assert snap_compare(chat(), terminal_size=(120, 45), run_before=run_before)
