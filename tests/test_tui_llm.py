"""The chat shows the model at work: warmed in the background, a live status line, the
model's thought streamed into one line, and one sentence when the model cannot be used.

Driven with Pilot against the fake Ollama server on loopback (tests/fake_ollama.py) and
the homelab snapshot, so nothing is run or measured on this machine.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Callable

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.tui.app import ReosApp
from reos.tui.plan_view import PlanCard
from reos.tui.status import StatusLine, Thought
from reos.tui.widgets import Bubble
from tests.conftest import FIXTURES
from tests.fake_ollama import FakeOllama

UNREADABLE = "could you possibly make the nextcloud stuff take a break"
UNREACHABLE = "No Ollama server answers at"


def chat_app(host: str, mode: str = "auto") -> ReosApp:
    settings = Settings()
    settings.llm.host = host
    settings.llm.mode = mode
    settings.llm.timeout_seconds = 10.0
    snap = SystemSnapshot.from_dict(json.loads((FIXTURES / "homelab.json").read_text()))
    return ReosApp(ReasoningEngine(settings, snapshot=snap))


def said(app: ReosApp) -> list[str]:
    return [b.text for b in app.query(Bubble)]


def answer_to(app: ReosApp, request: str) -> str | None:
    """reos's first bubble after the person's line `request`, not a hint about the model
    that the warm-up thread may say at any moment."""
    lines = list(app.query(Bubble))
    asked = [i for i, b in enumerate(lines) if b.text == f"You: {request}"]
    after = [b.text for b in lines[asked[-1] + 1:] if b.has_class("reos")] if asked else []
    return after[0] if after else None


def status(app: ReosApp) -> str:
    return app.query_one("#llm-status", StatusLine).text


async def until(pilot, check: Callable[[], bool]) -> bool:
    """Let the app run until `check()` holds (a bound on waiting, not a timing claim: a
    loaded CI machine once needed more than 10 s; what must come first is asserted after)."""
    for _ in range(1600):
        if check():
            return True
        await pilot.pause(0.025)
    return check()


async def settle(app: ReosApp, pilot) -> None:
    """Wait for the engine's workers and for the model's warm-up (its own thread)."""
    await pilot.pause()
    assert await until(pilot, lambda: not app.warming)
    await app.workers.wait_for_complete()
    await pilot.pause()


async def type_line(pilot, text: str) -> None:
    pilot.app.prompt.value = text  # pressing each key costs ~70 ms; Enter is what matters
    await pilot.press("enter")


async def test_the_status_line_names_the_model_once_it_is_warmed(
        fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REOS_LLM")
    app = chat_app(fake_ollama.url)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(app, pilot)
        assert status(app) == "model llama3.2"
        loads = [r["body"] for r in fake_ollama.requests if r["path"] == "/api/generate"]
        assert len(loads) == 1 and loads[0]["model"] == "llama3.2"
        assert loads[0]["prompt"] == "" and fake_ollama.asked() == []  # loaded, not asked
        (primed,) = fake_ollama.chats()  # the system message read once, for the cache
        assert [m["role"] for m in primed["messages"]] == ["system"]
        assert not any(UNREACHABLE in line for line in said(app))


async def test_typing_works_while_the_model_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that takes the connection and never answers: the chat still answers, and
    the status line says the model is loading until the load fails."""
    monkeypatch.delenv("REOS_LLM")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    app = chat_app(f"http://127.0.0.1:{silent.getsockname()[1]}")
    try:
        async with app.run_test(size=(110, 40)) as pilot:
            # the greeting comes from its own worker: typed before it lands, a reply and
            # the greeting could come in either order
            assert await until(pilot, lambda: any(s.startswith("I can see") for s in said(app)))
            assert status(app) == "loading model llama3.2\u2026"
            await type_line(pilot, "be brief")
            assert await until(
                pilot, lambda: (answer_to(app, "be brief") or "").startswith(
                    "Okay, keeping it short"))
            assert status(app) == "loading model llama3.2\u2026"  # the load is still going

            silent.close()  # the connection waiting in the backlog is reset
            await settle(app, pilot)
            assert status(app).startswith("built-in understanding (")
    finally:
        silent.close()


async def test_an_unreadable_request_streams_the_models_thought_then_shows_the_plan(
        fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REOS_LLM")
    thought = "stop the nextcloud containers [red]now[/red] \x1b[2J\x1b]0;owned\x07please"
    answer = json.dumps({"thought": thought, "kind": "action", "op": "container.stop",
                         "targets": ["nextcloud"], "confidence": 0.9})
    release = threading.Event()

    def held(body: dict) -> str:  # the model "thinks" until the test has looked
        release.wait(10)
        return answer

    app = chat_app(fake_ollama.url)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(app, pilot)
        fake_ollama.reply(held, chunk=4)
        await type_line(pilot, UNREADABLE)
        assert await until(pilot, lambda: "asking the model" in status(app))
        assert re.fullmatch(r"asking the model\u2026 \d+ s  \u00b7  model llama3\.2",
                            status(app)), status(app)
        release.set()
        await settle(app, pilot)

        assert len(fake_ollama.asked()) == 1
        lines = app.query(Thought)
        assert len(lines) == 1  # rewritten as it streamed, not one line per chunk
        shown = lines.first().text
        assert shown == "The model thinks: stop the nextcloud containers [red]now[/red] please"
        assert str(lines.first().render()) == shown  # markup shown as typed, not obeyed
        card = app.query_one(PlanCard)
        assert "docker stop nextcloud-app" in card.text
        assert app.engine.pending is card.plan and card.plan.source == "llm"
        assert status(app) == "model llama3.2"
        children = list(app.query_one("#log").children)
        assert children.index(lines.first()) < children.index(card)

        await pilot.press("ctrl+n")  # the next request gets its own line of thought
        await settle(app, pilot)
        fake_ollama.reply(json.dumps({"thought": "pause nextcloud", "kind": "action",
                                      "op": "container.stop", "targets": ["nextcloud"],
                                      "confidence": 0.9}))
        await type_line(pilot, UNREADABLE)
        await settle(app, pilot)
        assert [t.text for t in app.query(Thought)][-1] == "The model thinks: pause nextcloud"
        assert len(app.query(Thought)) == 2


async def test_with_no_server_the_status_says_built_in_and_one_sentence_says_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REOS_LLM")
    with FakeOllama() as gone:
        url = gone.url  # a port that was an Ollama server a moment ago, now closed
    app = chat_app(url)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(app, pilot)
        assert status(app) == "built-in understanding (no Ollama server answers)"
        assert sum(UNREACHABLE in line for line in said(app)) == 1

        await type_line(pilot, UNREADABLE)  # the model is tried again and fails again
        await settle(app, pilot)
        assert said(app)[-2] == f"You: {UNREADABLE}"
        assert sum(UNREACHABLE in line for line in said(app)) == 1  # said once a session
        assert status(app).startswith("built-in understanding")
        assert not app.query(Thought)


@pytest.mark.parametrize("off_by", ["REOS_LLM", "settings"])
async def test_with_the_model_off_nothing_reaches_the_server(
        fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, off_by: str) -> None:
    if off_by == "settings":
        monkeypatch.delenv("REOS_LLM")
    app = chat_app(fake_ollama.url, mode="off" if off_by == "settings" else "auto")
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(app, pilot)
        assert status(app) == "built-in understanding"
        await type_line(pilot, UNREADABLE)
        await settle(app, pilot)
        assert said(app)[-2] == f"You: {UNREADABLE}"
        assert status(app) == "built-in understanding"
        assert fake_ollama.requests == []
        assert not app.query(Thought)
