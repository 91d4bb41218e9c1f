"""What a newcomer ran into in the chat, each driven with Pilot against the homelab saved
snapshot (nothing runs on this machine): the view follows new answers again after a
search; a `?` typed quickly inside a request is text; the side panels open at 80
columns, the history panel takes the keys at once and the footer reads at 80 columns;
Escape after explaining a step goes back to the plan card, the plan still waiting.

Tests wait for what they then read (`until`): the machine may be loaded, so nothing here
counts on a worker or a layout being done after a fixed time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.widgets import Footer

from reos.tui.app import ReosApp
from reos.tui.help import HelpScreen
from reos.tui.panels import ConfirmUndo, HistoryPanel, Panel, SidePanels
from reos.tui.plan_view import PlanCard
from reos.tui.transcript import Transcript, TranscriptSearch
from reos.tui.widgets import Bubble
from tests.pilot import chat, said, send, settle, until


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
        await send(app, pilot, "be brief")
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
        await send(app, pilot, "stop the nextcloud containers")
        await pilot.press("tab")  # onto the plan card's button: not a place for text
        assert app.focused is not None and app.focused.id == "approve"
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)


# -- 4: side panels at 80 columns, the history panel's keys, the footer -------------------
def panel_on_screen(app: ReosApp, name: str) -> bool:
    side = app.query_one(SidePanels)
    panel = side.panel(name)
    region = panel.region
    return side.display and panel.display and region.width >= 40 and region.height >= 5 \
        and region.right <= app.size.width


async def test_the_panels_open_at_80_columns_and_close_again() -> None:
    app = chat()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(app, pilot)
        await pilot.press("f2")
        await settle(app, pilot)
        await until(pilot, lambda: panel_on_screen(app, "machine"), "the machine panel")
        machine = app.query_one("#panel-machine", Panel)
        await until(pilot, lambda: machine.text.startswith("Containers (7)"),
                    "the machine read into the panel")
        assert app.focused is app.prompt  # the machine panel takes nothing from the typing

        await pilot.press("f4")  # another panel's key shows that one instead
        await settle(app, pilot)
        await until(pilot, lambda: panel_on_screen(app, "reasoning"), "the reasoning panel")
        assert not panel_on_screen(app, "machine")

        await pilot.press("escape")  # closes it: the conversation is back, whole
        await until(pilot, lambda: not app.query_one(SidePanels).display, "panel closed")
        assert app.query_one(Transcript).region.width == 80
        assert visible(app, app.query(Bubble).last())


@pytest.mark.parametrize("size", [(120, 45), (80, 24)])
async def test_f3_opens_the_history_panel_with_the_keys_in_it_at_once(
        one_undoable: Path, size: tuple[int, int]) -> None:
    app = chat()
    async with app.run_test(size=size) as pilot:
        await started(app, pilot)
        await pilot.press("f3")
        await settle(app, pilot)
        await until(pilot, lambda: panel_on_screen(app, "history"), "the history panel")
        history = app.query_one(HistoryPanel)
        await until(pilot, lambda: bool(history.records), "the journal read")
        await pilot.press("u")  # no Tab first
        await until(pilot, lambda: isinstance(app.screen, ConfirmUndo), "undo asked")
        await pilot.press("n")
        await settle(app, pilot)
        assert one_undoable.read_text() == "port 9090\n"  # said no: nothing undone
        await pilot.press("f3")  # closed again: the typing goes back to the request
        await settle(app, pilot)
        assert app.focused is app.prompt


async def test_the_footer_reads_at_80_columns_with_a_plan_waiting() -> None:
    app = chat()
    async with app.run_test(size=(80, 24)) as pilot:
        await started(app, pilot)
        await send(app, pilot, "restart nginx.service")
        assert app.engine.pending is not None
        footer = app.query_one(Footer)
        await until(pilot, lambda: any("ctrl+y" in str(getattr(k, "key_display", ""))
                                       for k in footer.children), "the approve key shown")
        await pilot.pause()
        keys = [k for k in footer.children if k.region.width]
        labels = [f"{k.key_display} {k.description}" for k in keys]  # type: ignore[attr-defined]
        assert any(label.startswith("ctrl+y Approve") for label in labels)
        assert any(label.startswith("ctrl+n Deny") for label in labels)
        assert any(label.startswith("ctrl+q Quit") for label in labels)
        spans = sorted((k.region.x, k.region.right) for k in keys)
        assert all(right <= 80 for _, right in spans), labels  # nothing cut off
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:],
                                                                        strict=False)), labels


# -- 5: Escape after explaining a step ----------------------------------------------------
async def test_escape_after_explain_goes_back_to_the_card_and_the_plan_waits() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await started(app, pilot)
        await send(app, pilot, "stop the nextcloud containers")
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
