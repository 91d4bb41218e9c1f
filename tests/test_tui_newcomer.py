"""What a newcomer ran into in the chat, each driven with Pilot against the homelab saved
snapshot (nothing runs on this machine): the view follows new answers again after a
search; a `?` typed quickly inside a request is text; the side panels open at 80
columns, the history panel takes the keys at once and the footer reads at 80 columns;
Escape after explaining a step goes back to the plan card, the plan still waiting.

Tests wait for what they then read (`until`): the machine may be loaded, so nothing here
counts on a worker or a layout being done after a fixed time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from textual import events

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.tui.app import ReosApp
from reos.tui.help import HelpScreen
from reos.tui.transcript import Transcript, TranscriptSearch
from reos.tui.widgets import Bubble, PlanCard

SNAPSHOT = SystemSnapshot.from_dict(json.loads(
    (Path(__file__).parent / "fixtures" / "homelab.json").read_text()))


def chat() -> ReosApp:
    return ReosApp(ReasoningEngine(Settings(), snapshot=SNAPSHOT))


def said(app: ReosApp) -> list[str]:
    return [b.text for b in app.query(Bubble)]


async def settle(app: ReosApp, pilot) -> None:  # noqa: ANN001
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot, condition: Callable[[], bool], what: str) -> None:  # noqa: ANN001
    """Wait (up to ~10 s of a loaded machine) for `condition`; fail saying `what`."""
    for _ in range(200):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never happened: {what}")


async def started(app: ReosApp, pilot) -> None:  # noqa: ANN001
    """The chat is up: the greeting and the first look at the machine are on screen."""
    await settle(app, pilot)
    await until(pilot, lambda: len(said(app)) >= 2, "the greeting and the first look")
    await pilot.pause()


def visible(app: ReosApp, widget) -> bool:  # noqa: ANN001
    """Whether the widget is drawn inside the screen and inside the transcript's view."""
    region, log = widget.region, app.query_one(Transcript).region
    return region.height > 0 and region.y >= log.y and region.bottom <= log.bottom


KEYS = {"?": "question_mark", " ": "space", "/": "slash", "\r": "enter"}


def burst(app: ReosApp, text: str) -> None:
    """Keys as a terminal delivers quick typing: all posted before any is handled."""
    for char in text:
        app.post_message(events.Key(KEYS.get(char, char), char))


# -- 1: after a search, new answers are followed again ------------------------------------
async def test_after_a_search_the_view_follows_the_next_answer_again() -> None:
    app = chat()
    async with app.run_test(size=(100, 30)) as pilot:
        await started(app, pilot)
        log = app.query_one(Transcript)
        app.say("the needle is here")
        for n in range(40):
            app.say(f"hay {n}")
        await until(pilot, lambda: visible(app, app.query(Bubble).last()), "following")
        await pilot.press("slash", *"needle")
        search = app.query_one(TranscriptSearch)
        await until(pilot, lambda: bool(search.matches) and visible(app, search.matches[0]),
                    "the view at the older match")
        needle = search.matches[0]

        app.say("said while the person reads the match")  # reading: the view stays
        await pilot.pause()
        await pilot.pause()
        assert visible(app, needle)

        await pilot.press("escape")  # closed: the next answer is followed
        app.say("a late answer")
        await until(pilot, lambda: said(app)[-1] == "a late answer", "the late answer")
        await until(pilot, lambda: visible(app, app.query(Bubble).last()),
                    "the late answer on screen after the search closed")

        await pilot.press("pageup", "pageup")  # reading back by hand, then a new request
        await until(pilot, lambda: not visible(app, app.query(Bubble).last()), "paged back")
        app.prompt.value = "be brief"
        await pilot.press("enter")
        await settle(app, pilot)
        await until(pilot, lambda: "You: be brief" in said(app)[-2:], "the answer")
        await until(pilot, lambda: visible(app, app.query(Bubble).last()),
                    "the answer to a new request on screen")
        assert log.scroll_y == log.max_scroll_y


# -- 3: a quick ? inside a request is a character ---------------------------------------
async def test_a_question_mark_typed_quickly_inside_a_request_is_text() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await started(app, pilot)
        burst(app, "what is on port 80?\r")
        await until(pilot, lambda: "You: what is on port 80?" in said(app)
                    or isinstance(app.screen, HelpScreen), "the request sent")
        assert not isinstance(app.screen, HelpScreen)
        assert "You: what is on port 80?" in said(app)  # the ? kept, Enter sent it
        await settle(app, pilot)

        burst(app, "?")  # on an empty input, ? is still help, however quick
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help on ?")
        await pilot.press("escape")
        assert app.focused is app.prompt and app.prompt.value == ""

        burst(app, "a/b?")  # / too is text inside a request
        await until(pilot, lambda: app.prompt.value == "a/b?", "a/b? typed")
        assert not app.query_one(TranscriptSearch).display
        assert not isinstance(app.screen, HelpScreen)


async def test_a_question_mark_outside_the_input_opens_help() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await started(app, pilot)
        app.prompt.value = "stop the nextcloud containers"
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("tab")  # onto the plan card's button: not a place for text
        assert app.focused is not None and app.focused.id == "approve"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


# -- 5: Escape after explaining a step ----------------------------------------------------
async def test_escape_after_explain_goes_back_to_the_card_and_the_plan_waits() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await started(app, pilot)
        app.prompt.value = "stop the nextcloud containers"
        await pilot.press("enter")
        await settle(app, pilot)
        card = app.query(PlanCard).last()
        explain = card.query_one("#plan-explain")
        await pilot.press("tab", "x")
        await until(pilot, lambda: explain.display, "the explanation shown")

        await pilot.press("escape")
        await settle(app, pilot)
        assert not explain.display  # the explanation closed
        assert not card.closed and app.engine.pending is card.plan  # the plan still waits
        assert "You declined the plan." not in said(app)
        assert app.focused is not None and card in app.focused.ancestors  # still on the card

        await pilot.press("escape")  # Escape on the card itself declines, as documented
        await settle(app, pilot)
        assert card.closed and app.engine.pending is None
