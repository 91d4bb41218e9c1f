"""The chat's chrome: help (F1, ?), the command palette, a footer of the keys valid now,
a transcript that pages while typing, follows unless scrolled back and can be searched,
requests recalled across sessions, and 80×24. Driven with Pilot against a saved snapshot
(nothing runs on this machine), plus SVG snapshots of the key screens."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import Footer

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.tui.app import ReosApp
from reos.tui.help import HelpScreen
from reos.tui.plan_view import PlanCard
from reos.tui.transcript import HISTORY_FILE, Hanging, Transcript, TranscriptSearch
from reos.tui.widgets import Bubble
from tests.conftest import Containers
from tests.pilot import chat, said, settle


def footer_keys(app: ReosApp) -> list[str]:
    """The descriptions the footer shows right now."""
    footer = app.query_one(Footer)
    return [str(getattr(key, "description", "")) for key in footer.children]


def visible(app: ReosApp, widget) -> bool:  # noqa: ANN001
    """Whether the widget is drawn inside the screen (not scrolled or cut away)."""
    region = widget.region
    width, height = app.size
    return region.height > 0 and region.y >= 0 and region.bottom <= height \
        and region.right <= width


async def test_f1_and_question_mark_open_help_but_a_question_mark_in_a_request_is_text() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        container_example = next(op.examples[0] for op in app.engine.templates.operations.values()
                                 if op.resource == "container" and op.examples)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.text
        assert "Containers:" in text and container_example in text  # from the catalogue
        assert "Quit" in text and "Earlier request" in text  # the chat's and the input's keys
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)

        await pilot.press("question_mark")  # the input is empty: ? asks for help
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert app.focused is app.prompt

        await pilot.press(*"is nginx up", "question_mark")
        assert not isinstance(app.screen, HelpScreen)
        assert app.prompt.value == "is nginx up?"


async def test_palette_offers_reos_commands_and_live_targets_and_sends_the_choice() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await settle(app, pilot)
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"verbosity")
        await settle(app, pilot)
        shown = app.screen.query_one(CommandList)
        titles = [str(shown.get_option_at_index(i).prompt) for i in range(shown.option_count)]
        assert any("Verbosity: detailed" in t for t in titles)

        await pilot.press(*["backspace"] * len("verbosity"), *"restart nginx.service")
        await settle(app, pilot)
        shown = app.screen.query_one(CommandList)
        titles = [str(shown.get_option_at_index(i).prompt) for i in range(shown.option_count)]
        assert any("restart nginx.service" in t for t in titles)  # from the machine
        await pilot.press("enter")
        await settle(app, pilot)
        assert not isinstance(app.screen, CommandPalette)
        assert "You: restart nginx.service" in said(app)  # sent as if typed
        card = app.query(PlanCard).last()
        assert "nginx.service" in card.text and app.engine.pending is card.plan  # it waits
        assert app.engine.history() == []  # choosing ran nothing


async def test_palette_views_open_in_the_chat_without_a_request() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        before = said(app)
        await pilot.press("ctrl+p", *"Search the conversation")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert app.query_one(TranscriptSearch).display and app.focused is not app.prompt
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"Help")
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, HelpScreen)
        assert said(app) == before  # nothing was sent to the engine


async def test_footer_shows_approve_only_while_a_plan_waits() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        keys = footer_keys(app)
        assert "Quit" in keys and "Help" in keys
        assert "Approve plan" not in keys and "Deny plan" not in keys
        await pilot.press(*"restart nginx.service", "enter")
        await settle(app, pilot)
        assert app.engine.pending is not None
        assert "Approve plan" in footer_keys(app) and "Deny plan" in footer_keys(app)
        await pilot.press(*"no", "enter")
        await settle(app, pilot)
        assert "Approve plan" not in footer_keys(app)


async def test_page_up_while_typing_scrolls_back_and_keeps_the_text() -> None:
    app = chat()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        log = app.query_one(Transcript)
        for n in range(40):
            app.say(f"line {n}")
        await pilot.pause()
        assert log.following and log.scroll_y == log.max_scroll_y
        await pilot.press(*"half a requ")
        await pilot.press("pageup")
        await pilot.pause()
        assert log.scroll_y < log.max_scroll_y and not log.following
        assert app.focused is app.prompt and app.prompt.value == "half a requ"

        where = log.scroll_y
        app.say("something new while scrolled back")
        await pilot.pause()
        assert log.scroll_y == where  # not pulled down while reading back

        while log.scroll_y < log.max_scroll_y:
            await pilot.press("pagedown")
            await pilot.pause()
        assert log.following  # at the end: following again
        app.say("and one more")
        await pilot.pause()
        await pilot.pause()
        assert log.scroll_y == log.max_scroll_y
        assert visible(app, app.query(Bubble).last())


async def test_the_transcript_keeps_following_after_a_resize() -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        log = app.query_one(Transcript)
        for n in range(30):
            app.say(f"a fairly long line number {n} " * 3)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        app.say("after the resize")
        await pilot.pause()
        await pilot.pause()
        assert log.following and log.scroll_y == log.max_scroll_y
        assert visible(app, app.query(Bubble).last())


async def test_slash_searches_the_transcript_and_escape_closes_it() -> None:
    app = chat()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(app, pilot)
        app.say("the needle is here")
        for n in range(40):
            app.say(f"hay {n}")
        await pilot.pause()
        await pilot.press("slash")
        search = app.query_one(TranscriptSearch)
        assert search.display and app.focused is search
        await pilot.press(*"NEEDLE")
        await pilot.pause()
        await pilot.pause()
        assert [searchable.text for searchable in search.matches] == ["the needle is here"]
        needle = search.matches[0]
        assert needle.has_class("-search-match") and visible(app, needle)
        await pilot.press("escape")
        assert not search.display and app.focused is app.prompt
        assert not needle.has_class("-search-match")

        await pilot.press(*"a/b")  # typed inside a request, / is text
        assert app.prompt.value == "a/b" and not search.display


async def test_requests_are_recalled_with_up_and_down_in_a_new_session(reos_home: Path) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        for line in ("be brief", "normal verbosity", "yes"):
            await pilot.press(*line, "enter")
            await settle(app, pilot)
    kept = (reos_home / "data" / HISTORY_FILE).read_text().splitlines()
    assert kept == ["be brief", "normal verbosity"]  # an approval answer is never kept

    again = chat()
    async with again.run_test(size=(120, 45)) as pilot:
        await settle(again, pilot)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert again.prompt.value == "normal verbosity"
        await pilot.press("up")
        assert again.prompt.value == "be brief"
        await pilot.press("up")
        assert again.prompt.value == "be brief"  # the oldest stays
        await pilot.press("down", "down")
        assert again.prompt.value == "draft"  # back to what was being typed


async def test_80x24_shows_the_input_and_the_last_message() -> None:
    app = chat()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press(*"restart nginx.service", "enter")
        await settle(app, pilot)
        await pilot.press(*"what can you undo", "enter")
        await settle(app, pilot)
        assert visible(app, app.prompt)
        last = app.query(Bubble).last()
        assert last.text == said(app)[-1] and visible(app, last)
        assert last.size.width <= 80 and last.virtual_size.width <= 80  # wrapped, not cut


def test_long_lines_wrap_under_their_own_text_at_80_columns() -> None:
    from rich.console import Console

    console = Console(width=80, record=True)
    step = ("  1. Restart nginx.service   $ sudo -n systemctl restart nginx.service "
            "--and-a-flag-long-enough-to-wrap --another one")
    console.print(Hanging(f"This will restart 1 service:\n{step}\nplain"))
    lines = console.export_text().splitlines()
    assert lines[0] == "This will restart 1 service:"
    assert lines[1].startswith("  1. Restart nginx.service") and len(lines[1]) <= 80
    assert lines[2].startswith("     ") and lines[2].strip()  # continues under "Restart"
    assert " ".join(" ".join(lines[1:-1]).split()) == " ".join(step.split())  # nothing lost
    assert lines[-1] == "plain"


def note_of(card: PlanCard) -> str:
    return str(card.query_one("#plan-note").render())


@pytest.mark.docker
async def test_plan_cards_stay_with_their_outcome_ran_declined_undone(
        containers: Containers) -> None:
    name = containers.run("kept")
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press(*f"stop {name}", "enter")
        await settle(app, pilot)
        await pilot.press(*"yes", "enter")
        await settle(app, pilot)
        ran = app.query(PlanCard).last()
        assert containers.state(name) == "exited"
        assert note_of(ran).startswith("Approved: it ran to the end")

        await pilot.press(*f"start {name}", "enter")
        await settle(app, pilot)
        await pilot.press(*"no", "enter")
        await settle(app, pilot)
        declined = app.query(PlanCard).last()
        assert declined is not ran and note_of(declined) == "Declined: nothing was changed."

        await pilot.press(*"undo", "enter")
        await settle(app, pilot)
        if app.engine.pending is not None:  # always_confirm: the undo asks first
            await pilot.press(*"yes", "enter")
            await settle(app, pilot)
        assert containers.state(name) == "running"
        cards = list(app.query(PlanCard))
        assert ran in cards and declined in cards  # both still in the transcript
        assert note_of(ran).endswith("Undone later: its changes were reverted.")


# -- SVG snapshots (pytest-textual-snapshot): deterministic screens ---------------------
@pytest.fixture
def steady_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The header's machine line without this machine or the clock in it: a fixed user,
    sudo state and snapshot age (reos/tui/live.py), so the SVGs are the same everywhere."""
    from reos.tui import live

    for name, value in (("user", "alice"), ("probe_sudo", "sudo ok"), ("age", "1 h old")):
        if hasattr(live, name):
            monkeypatch.setattr(live, name, lambda *_a, _v=value, **_k: _v)


async def _steady(pilot) -> None:  # noqa: ANN001
    """Let the first look (and the sudo probe) finish before the picture is taken, with
    the input's cursor held still (a blinking one is drawn or not by the clock)."""
    from textual.widgets import Input

    for field in pilot.app.query(Input):
        field.cursor_blink = False
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_snapshot_welcome(snap_compare, steady_machine) -> None:  # noqa: ANN001
    assert snap_compare(chat(), terminal_size=(120, 45), run_before=_steady)


def test_snapshot_help(snap_compare, steady_machine) -> None:  # noqa: ANN001
    async def run_before(pilot) -> None:  # noqa: ANN001
        await _steady(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(chat(), terminal_size=(120, 45), run_before=run_before)


def test_snapshot_80x24(snap_compare, steady_machine) -> None:  # noqa: ANN001
    async def run_before(pilot) -> None:  # noqa: ANN001
        await _steady(pilot)
        await pilot.press(*"what can you undo", "enter")
        await _steady(pilot)

    assert snap_compare(chat(), terminal_size=(80, 24), run_before=run_before)
