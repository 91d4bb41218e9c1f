"""In the chat a plan runs only on purpose: never on Enter, never by taking the focus.

Driven two ways against the real docker engine: with Textual's Pilot, and as a person
would, in a real terminal (tmux) running the installed `reos` command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.tui.app import ReosApp
from reos.tui.plan_view import PlanCard
from reos.tui.widgets import Bubble
from tests import conftest
from tests.conftest import IMAGE, REOS_BIN, RUN_ID, Containers, reos_json

pytestmark = pytest.mark.docker


def said(app: ReosApp) -> list[str]:
    return [b.text for b in app.query(Bubble)]


async def settle(app: ReosApp, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def type_line(pilot, text: str) -> None:
    await pilot.press(*text, "enter")


def nothing_ran() -> bool:
    return reos_json("history", "--json")["transactions"] == []


def started_at(containers: Containers, name: str) -> str:
    return containers.client.containers.get(name).attrs["State"]["StartedAt"]  # type: ignore


async def test_plan_card_leaves_focus_and_typing_in_the_input(containers: Containers) -> None:
    name = containers.run("keep")
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        await type_line(pilot, f"stop {name}")
        await pilot.press(*"wait")  # typed while the plan is being made and shown
        await settle(app, pilot)
        card = app.query_one(PlanCard)
        assert f"Stop {name}" in card.text and not card.closed
        assert app.focused is app.prompt and app.prompt.value == "wait"

        await pilot.press("y")  # the card's old approve key is now just a letter
        await settle(app, pilot)
        assert app.prompt.value == "waity" and containers.state(name) == "running"

        app.prompt.value = ""
        await pilot.press("enter")  # a bare Enter with a plan waiting only explains
        await settle(app, pilot)
        assert said(app)[-1].startswith("A plan is waiting: type yes to run it, no to cancel")
        assert containers.state(name) == "running" and not card.closed

        await type_line(pilot, "wait what")
        await settle(app, pilot)
        lines = said(app)
        assert "You: wait what" in lines  # sent as a new utterance, not lost
        assert lines[-1].startswith("The plan above is still waiting: type yes")
        assert app.engine.pending is card.plan and not card.closed
        assert containers.state(name) == "running" and nothing_ran()

        await type_line(pilot, "no")
        await settle(app, pilot)
        assert said(app)[-1] == "Okay, I won't do that. Nothing was changed."
        assert card.closed and app.engine.pending is None
        assert containers.state(name) == "running" and nothing_ran()


async def test_yes_typed_ctrl_y_and_a_chosen_button_approve(containers: Containers) -> None:
    by_word, by_key, by_button = (containers.run(s) for s in ("word", "key", "button"))
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        assert app.check_action("approve", ()) is False  # nothing waits: hidden in the footer

        await type_line(pilot, f"stop {by_word}")
        await settle(app, pilot)
        await type_line(pilot, "yes")
        await settle(app, pilot)
        assert containers.state(by_word) == "exited"
        assert app.query(PlanCard).last().closed

        await type_line(pilot, f"stop {by_key}")
        await settle(app, pilot)
        assert app.check_action("approve", ()) is True  # shown in the footer while it waits
        await pilot.press("ctrl+y")
        await settle(app, pilot)
        assert containers.state(by_key) == "exited"
        assert app.check_action("approve", ()) is False

        await type_line(pilot, f"stop {by_button}")
        await settle(app, pilot)
        assert containers.state(by_button) == "running"
        await pilot.press("tab")  # the person moves the focus onto the card on purpose
        assert app.focused is not None and app.focused.id == "approve"
        await pilot.press("enter")
        await settle(app, pilot)
        assert containers.state(by_button) == "exited"
        assert app.focused is app.prompt  # back to typing once it is done


async def test_a_newer_plan_replaces_the_waiting_one(containers: Containers) -> None:
    first, second = containers.run("first"), containers.run("second")
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        await type_line(pilot, f"stop {first}")
        await settle(app, pilot)
        await type_line(pilot, f"stop {second}")
        await settle(app, pilot)
        old, new = app.query(PlanCard)
        assert old.closed and not new.closed
        assert "Not run" in str(old.query_one("#plan-note").render())
        await pilot.click(old.query_one("#approve"))  # a stale card's button does nothing
        await settle(app, pilot)
        assert containers.state(first) == containers.state(second) == "running"
        await pilot.press("ctrl+y")
        await settle(app, pilot)
        assert containers.state(first) == "running" and containers.state(second) == "exited"


async def test_enter_while_working_keeps_the_line(containers: Containers) -> None:
    # ignores SIGTERM, so `docker stop` takes its 10-second grace period
    slow = f"{containers.prefix}-slow"
    containers.created.append(containers.client.containers.run(  # type: ignore[attr-defined]
        IMAGE, ["sh", "-c", "trap '' TERM; while :; do sleep 1; done"], name=slow,
        detach=True, network_mode="none", labels={"reos.test.run": RUN_ID}))
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        await type_line(pilot, f"stop {slow}")
        await settle(app, pilot)
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert app.busy
        await type_line(pilot, "yes")  # neither sent to the engine nor dropped
        assert app.prompt.value == "yes"
        assert app.check_action("approve", ()) is False
        await settle(app, pilot)
        assert not app.busy and containers.state(slow) == "exited"
        assert "You: yes" not in said(app) and app.prompt.value == "yes"


# -- a real terminal -------------------------------------------------------------------
class Terminal:
    """A command (by default the installed `reos` chat) in a pane of its own tmux server.

    The server has its own socket (-L) and config: the pane stays after the command ends
    (so its last screen can be read) and OSC 52 clipboard writes are honoured, so an
    escape sequence that reached this terminal shows up as a pane title or a paste buffer.
    """

    def __init__(self, home: Path, argv: list[str] | None = None) -> None:
        self.socket = f"reos-test-{uuid.uuid4().hex[:8]}"
        self.config = home.parent / f"{self.socket}.conf"
        self.config.write_text("set -g remain-on-exit on\nset -g set-clipboard on\n")
        # argv, not a shell command line: tmux execs several arguments directly
        self.tmux(["new-session", "-d", "-x", "140", "-y", "42", "-s", "reos",
                   "env", f"REOS_HOME={home}", "REOS_LLM=off",
                   *(argv or [str(REOS_BIN)])])

    def tmux(self, args: list[str]) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, "-f", str(self.config), *args],
                              capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def type(self, text: str) -> None:
        self.tmux(["send-keys", "-t", "reos", "-l", text])

    def key(self, key: str) -> None:
        self.tmux(["send-keys", "-t", "reos", key])

    def screen(self) -> str:
        return self.tmux(["capture-pane", "-p", "-t", "reos"])

    def wait_for(self, text: str, seconds: float = 30) -> str:
        deadline = time.monotonic() + seconds
        while True:
            shown = self.screen()
            if text in shown:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} never appeared; the screen:\n{shown}")
            time.sleep(0.2)

    def alive(self) -> bool:
        """Whether the command in the pane is still running."""
        return self.tmux(["display", "-p", "-t", "reos", "#{pane_dead}"]).strip() == "0"

    def title(self) -> str:
        return self.tmux(["display", "-p", "-t", "reos", "#{pane_title}"]).strip()

    def buffers(self) -> str:
        """tmux's paste buffers: where an OSC 52 clipboard write would land."""
        return self.tmux(["list-buffers"])

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=30)
        self.config.unlink(missing_ok=True)


def need_tmux() -> None:
    if shutil.which("tmux") is None:
        conftest.testbed_unavailable("tmux is not installed (apt-get install tmux)")
    if not os.access(REOS_BIN, os.X_OK):
        conftest.testbed_unavailable(f"{REOS_BIN} is not installed")


@pytest.fixture
def terminal(reos_home: Path) -> Iterator[Terminal]:
    need_tmux()
    term = Terminal(reos_home)
    yield term
    term.close()


def test_in_a_real_terminal_wait_what_and_enter_never_run_the_plan(
        containers: Containers, terminal: Terminal) -> None:
    name = containers.run("tty")
    before = started_at(containers, name)
    terminal.wait_for("I can see ")
    terminal.type(f"restart {name}")
    terminal.key("Enter")
    shown = terminal.wait_for("This will restart")
    assert "ctrl+y Approve" in shown  # the footer offers ctrl+y while the plan waits

    terminal.type("wait what")
    terminal.key("Enter")
    shown = terminal.wait_for("The plan above is still waiting")
    assert "You: wait what" in shown  # the typed text became part of the conversation
    terminal.key("Enter")
    shown = terminal.wait_for("A plan is waiting:")

    time.sleep(1)  # anything wrongly set off by those keys would have started by now
    assert containers.state(name) == "running" and started_at(containers, name) == before
    assert "Restarted" not in terminal.screen()
    assert reos_json("history", "--json")["transactions"] == []

    terminal.key("C-n")
    terminal.wait_for("Nothing was changed.")
    terminal.key("C-q")
    deadline = time.monotonic() + 15  # the app exits, and with it tmux's only pane
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not terminal.alive()
    assert started_at(containers, name) == before
    assert reos_json("history", "--json")["transactions"] == []


@pytest.fixture
def wide_terminal(reos_home: Path) -> Iterator[Terminal]:
    """140×42, said to the app too (COLUMNS/LINES win over the pane's size in Python)."""
    need_tmux()
    term = Terminal(reos_home, ["env", "COLUMNS=140", "LINES=42", str(REOS_BIN)])
    yield term
    term.close()


def test_end_to_end_request_enter_approve_then_undo_from_the_history_panel(
        containers: Containers, wide_terminal: Terminal) -> None:
    """The installed `reos` in a real terminal against the real docker engine: a request,
    Enter on the plan (nothing runs), y to approve, the result, then undo from the
    history panel (F3, u, a yes in the confirmation)."""
    terminal = wide_terminal
    name = containers.run("e2e")
    terminal.wait_for("I can see ")
    terminal.type(f"stop {name}")
    terminal.key("Enter")
    terminal.wait_for("This will stop")
    terminal.key("Enter")  # Enter alone never approves
    terminal.wait_for("A plan is waiting:")
    time.sleep(1)
    assert containers.state(name) == "running"

    terminal.type("y")
    terminal.key("Enter")
    terminal.wait_for("Done! Stopped")
    assert containers.state(name) == "exited"

    terminal.key("F3")
    terminal.wait_for("History (F3)")
    for _ in range(6):  # move the focus from the request line into the history list
        if "(u: undo)" in terminal.screen() and _history_focused(terminal):
            break
        terminal.key("Tab")
        time.sleep(0.3)
    terminal.key("u")
    terminal.wait_for("Yes, undo")
    terminal.key("y")
    deadline = time.monotonic() + 30
    while containers.state(name) != "running" and time.monotonic() < deadline:
        time.sleep(0.3)
    assert containers.state(name) == "running"  # undone: the container runs again
    stopped = next(tx for tx in reos_json("history", "--json")["transactions"]
                   if tx["request"] == f"stop {name}")
    assert stopped["status"] == "undone"


def _history_focused(terminal: Terminal) -> bool:
    """Whether the footer offers the history list's own key (it has the focus)."""
    return "Undo selected" in terminal.screen()
