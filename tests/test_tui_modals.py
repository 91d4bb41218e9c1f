"""The chat asks its questions while a plan runs in modal screens (reos/tui/screens.py):
may a recovery fix run, and continue past the operations limit? Driven with Pilot.

The engine plans against the saved homelab snapshot (it never looks at this machine);
the plans that run are built here from harmless real commands in a temporary folder, and
the model that suggests a fix is the fake Ollama server on loopback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.outcome import Outcome
from reos.settings import LimitsSettings, Settings
from reos.tui.app import ReosApp
from reos.tui.screens import ConfirmScreen
from tests.fake_ollama import FakeOllama
from tests.pilot import SNAPSHOT, said, settle


async def modal(app: ReosApp, pilot) -> ConfirmScreen:  # noqa: ANN001
    """The question the engine's worker is waiting on (the worker cannot finish first)."""
    for _ in range(400):
        if isinstance(app.screen, ConfirmScreen):
            await pilot.pause()
            return app.screen
        await pilot.pause(0.05)
    raise AssertionError(f"no question was asked; the chat said {said(app)[-3:]}")


def marks(folder: Path, n: int) -> Plan:
    return Plan("mark files", Kind.ACTION, steps=[
        Step(id=f"s{i}", title=f"Mark {i}", argv=["touch", str(folder / f"m{i}")],
             rollback=["rm", "-f", str(folder / f"m{i}")]) for i in range(1, n + 1)])


def limited() -> ReasoningEngine:
    settings = Settings()
    settings.limits = LimitsSettings(max_operations=1)
    return ReasoningEngine(settings, snapshot=SNAPSHOT)


class Recording(ReosApp):
    """The chat, noting the outcome of every reply it shows (ReosApp's own handler, run
    by Textual after this one, shows it as ever)."""

    def __init__(self, engine: ReasoningEngine) -> None:
        super().__init__(engine)
        self.outcomes: list[Outcome] = []

    def on_reos_app_replied(self, message: ReosApp.Replied) -> None:
        self.outcomes.append(message.reply.outcome)


@pytest.mark.parametrize("how", ["ctrl+y", "typed yes"])
async def test_a_plan_paused_by_the_operations_limit_resumes_from_the_modal(
        tmp_path: Path, how: str) -> None:
    engine = limited()
    engine.session.offer(marks(tmp_path, 2))
    app = Recording(engine)
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        if how == "ctrl+y":
            await pilot.press("ctrl+y")
        else:
            await pilot.press(*"yes", "enter")
        screen = await modal(app, pilot)
        assert screen.question == ("Completed: 1 steps; pending: 1; time elapsed: 0s.\n"
                                   "Continue? (This resets the operation counter)")
        assert (tmp_path / "m1").exists() and not (tmp_path / "m2").exists()
        assert app.prompt.value == ""  # nothing typed reached the input meanwhile
        await pilot.press("y")
        await settle(app, pilot)
        assert not isinstance(app.screen, ConfirmScreen)
        assert (tmp_path / "m2").exists() and app.outcomes == [Outcome.RAN]
        assert app.focused is app.prompt


async def test_no_in_the_modal_leaves_the_plan_paused(tmp_path: Path) -> None:
    engine = limited()
    engine.session.offer(marks(tmp_path, 2))
    app = Recording(engine)
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+y")
        await modal(app, pilot)
        await pilot.press("escape")
        await settle(app, pilot)
        assert app.outcomes == [Outcome.PAUSED] and not (tmp_path / "m2").exists()


def check(marker: Path) -> list[str]:
    """A real program that fails with a message no rule knows until `marker` exists."""
    return ["python3", "-c", f"import os, sys; sys.exit(0 if os.path.exists({str(marker)!r}) "
                             "else 'weird failure 42')"]


@pytest.mark.parametrize("answer", ["y", "n"])
async def test_a_recovery_fix_is_approved_or_refused_in_a_modal(
        fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        answer: str) -> None:
    monkeypatch.delenv("REOS_LLM")
    settings = Settings()
    settings.llm.host = fake_ollama.url
    settings.llm.timeout_seconds = 5
    engine = ReasoningEngine(settings, snapshot=SNAPSHOT)
    marker = tmp_path / "marker"
    engine.session.offer(Plan("run the frobnicator check", Kind.ACTION, steps=[
        Step(id="s1", title="Run the check", argv=check(marker))]))
    app = Recording(engine)
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        while app.warming:  # the model's warm-up must not take the fix's answer
            await pilot.pause(0.05)
        fake_ollama.reply(json.dumps({"argv": ["touch", str(marker)], "confidence": 0.9,
                                      "explanation": "create the marker the check wants"}))
        await pilot.press("ctrl+y")
        screen = await modal(app, pilot)
        assert screen.question == (f"Running `touch {marker}`, as the model suggests "
                                   "(create the marker the check wants). OK?")
        await pilot.press(answer)
        await settle(app, pilot)
        if answer == "y":
            assert marker.exists() and app.outcomes == [Outcome.RAN]
        else:
            assert not marker.exists() and app.outcomes == [Outcome.FAILED]
            assert any(line.startswith("\u2192 Not without your approval") for line in said(app))


async def test_asking_from_the_ui_thread_never_blocks_it() -> None:
    app = ReosApp(ReasoningEngine(Settings(), snapshot=SNAPSHOT))
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        assert app.ask("Continue?") is False  # no modal the UI thread would wait on
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)


async def test_the_modal_says_no_unless_yes_is_chosen_on_purpose() -> None:
    app = ReosApp(ReasoningEngine(Settings(), snapshot=SNAPSHOT))
    answers: list[bool | None] = []
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        for keys in (["enter"], ["n"], ["tab", "enter"], ["y"]):
            app.push_screen(ConfirmScreen("Continue? \x1b[31mred\x1b[0m"), answers.append)
            await pilot.pause()
            assert "\x1b" not in app.screen.question  # type: ignore[attr-defined]
            await pilot.press(*keys)
            await pilot.pause()
    # Enter on the focused No, n, the Yes button chosen by moving to it, y
    assert answers == [False, False, True, True]
