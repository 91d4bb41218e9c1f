"""The plan card: master-detail, approval only on purpose, a second yes for what is lost,
edits judged again, copy and explain. Driven with Pilot against the homelab saved snapshot;
an approved plan runs through a recording fake instead of the machine (nothing here is
changed), while the executor, its gate and the journal are the real ones."""

from __future__ import annotations

import pytest

from reos.execution import executor
from reos.model.report import StepResult
from reos.tui.app import ReosApp
from reos.tui.plan_view import PlanCard, StepRow
from tests.pilot import chat, said, send, settle


class Recorder:
    """Stands in for running a command: records the argv, prints one line, succeeds."""

    def __init__(self) -> None:
        self.ran: list[list[str]] = []

    def __call__(self, argv: list[str], *, timeout: float, on_line=None,  # noqa: ANN001
                 step_id: str = "") -> StepResult:
        self.ran.append(list(argv))
        if on_line is not None:
            on_line("stdout", f"did {argv[-1]}")
        return StepResult(step_id, True, 0, f"did {argv[-1]}\n", "", 0.01)


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    recorder = Recorder()
    real = executor.Executor

    class Recording(real):  # type: ignore[misc, valid-type]
        def __init__(self, journal, limits, hooks=None, checks=None,  # noqa: ANN001
                     machine=None) -> None:  # noqa: ANN001
            super().__init__(journal, limits, hooks, checks, executor.Machine(
                run=recorder, probe=lambda kind, name: {}, is_root=False))

    monkeypatch.setattr(executor, "Executor", Recording)
    return recorder


async def ask(app: ReosApp, pilot, text: str) -> PlanCard:  # noqa: ANN001
    await send(app, pilot, text)
    return app.query(PlanCard).last()


def shown(widget) -> str:  # noqa: ANN001
    """What a widget shows, as plain text (a Rich renderable drawn at 100 columns)."""
    from rich.console import Console

    console = Console(width=100, record=True, color_system=None)
    console.print(widget.content)
    return console.export_text()


async def test_steps_carry_risk_badges_and_the_detail_follows_the_chosen_step(ran) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "purge nginx")
        rows = list(card.query(StepRow))
        assert len(rows) == 1 and "HIGH" in shown(rows[0]) and "no undo" in shown(rows[0])
        detail = shown(card.query_one("#plan-detail"))
        assert "$ sudo -n apt-get purge -y nginx" in detail
        assert "cannot be undone" in detail and "package nginx (installed)" in detail
        assert app.focused is app.prompt  # the card took nothing from the typing

        card = await ask(app, pilot, "stop the nextcloud containers")
        first, second = card.query(StepRow)
        assert "MEDIUM" in shown(first) and "no undo" not in shown(first)
        assert "docker stop nextcloud-app" in shown(card.query_one("#plan-detail"))
        await pilot.click(second)  # a click shows the step, and the typing stays put
        await pilot.pause()
        detail = shown(card.query_one("#plan-detail"))
        assert "$ docker stop nextcloud-redis" in detail
        assert "docker start nextcloud-redis" in detail  # its undo
        assert app.focused is app.prompt
        await pilot.press("tab")  # into the card, on purpose: now the arrows choose
        assert app.focused is not None and app.focused.id == "approve"
        await pilot.press("up")
        assert "docker stop nextcloud-app" in shown(card.query_one("#plan-detail"))
        assert ran.ran == []


STOPS = [["docker", "stop", "nextcloud-app"], ["docker", "stop", "nextcloud-redis"]]


async def test_the_cards_key_and_its_button_approve(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "stop the nextcloud containers")
        await pilot.press("tab")  # the person moves into the card on purpose
        await pilot.press("y")
        await settle(app, pilot)
        assert ran.ran == STOPS and card.closed
        assert "You approved the plan." in said(app)  # the key, in the transcript
        assert app.focused is app.prompt  # back to typing
        assert "\u2713 done" in shown(card.query(StepRow).first())
        assert "did nextcloud-app" in shown(card.query_one("#plan-detail"))  # its output

        ran.ran.clear()
        card = await ask(app, pilot, "stop the nextcloud containers")
        await pilot.click(card.query_one("#approve"))
        await settle(app, pilot)
        assert ran.ran == STOPS and card.closed


async def test_enter_alone_never_approves_and_y_enter_does(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "stop the nextcloud containers")
        await pilot.press("enter")  # a bare Enter with a plan waiting only explains
        await settle(app, pilot)
        assert said(app)[-1].startswith("A plan is waiting:")
        await pilot.press("tab", "e")  # an edit submitted unchanged: Enter there is the edit's
        await pilot.press("enter")
        await settle(app, pilot)
        assert "already runs" in shown(card.query_one("#plan-edit-note"))
        assert ran.ran == [] and not card.closed and app.engine.pending is card.plan

        await pilot.press("escape")  # leaves the edit; the plan still waits
        await pilot.click("#prompt")
        await pilot.press("y", "enter")
        await settle(app, pilot)
        assert "You: y" in said(app) and ran.ran == STOPS and card.closed


@pytest.mark.parametrize("how", ["n", "escape in the input", "escape on the card"])
async def test_no_n_and_escape_deny(ran: Recorder, how: str) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "stop the nextcloud containers")
        if how == "n":
            await pilot.press("n", "enter")
        elif how == "escape in the input":
            await pilot.press("escape")
        else:
            await pilot.press("tab", "escape")
        await settle(app, pilot)
        assert card.closed and app.engine.pending is None and ran.ran == []
        assert said(app)[-1] == "Okay, I won't do that. Nothing was changed."
        assert ("You: n" if how == "n" else "You declined the plan.") in said(app)


async def test_an_irreversible_plan_asks_again_and_nothing_runs_on_the_first_yes(
        ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "purge nginx")
        await pilot.press("ctrl+y")
        await settle(app, pilot)
        assert ran.ran == [] and card.asking_again and len(app.query(PlanCard)) == 1
        again = shown(card.query_one("#plan-again"))
        assert "can't be taken back" in again and "Purge nginx" in again  # what is lost
        assert str(card.query_one("#approve").label) == "Yes, go ahead"
        assert app.engine.pending is card.plan

        await pilot.press(*"yes", "enter")  # the second yes
        await settle(app, pilot)
        assert ran.ran == [["sudo", "-n", "apt-get", "purge", "-y", "nginx"]]
        assert card.closed and not card.asking_again


async def test_an_irreversible_plan_denied_at_the_second_question_runs_nothing(
        ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "purge nginx")
        await pilot.press(*"yes", "enter")
        await settle(app, pilot)
        assert card.asking_again and ran.ran == []
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert card.closed and ran.ran == [] and app.engine.pending is None


async def edit(app: ReosApp, pilot, card: PlanCard, text: str) -> None:  # noqa: ANN001
    if app.focused is None or app.focused.id != "approve":
        await pilot.press("tab")
    await pilot.press("e")
    editor = card.query_one("#plan-edit")
    assert app.focused is editor
    editor.value = text  # type: ignore[attr-defined]
    await pilot.press("enter")
    await settle(app, pilot)


async def test_an_edit_is_judged_again_blocked_stays_blocked(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "stop the nextcloud containers")
        await edit(app, pilot, card, "rm -rf /")
        note = shown(card.query_one("#plan-edit-note"))
        assert note.startswith("Not changed: blocked by the safety check")
        step = card.plan.steps[0]  # type: ignore[union-attr]
        assert step.argv == STOPS[0] and not step.edited
        assert any(line.startswith("You edited step 1: rm -rf /") and "refused" in line
                   for line in said(app))
        await pilot.press("escape")  # leave the edit
        await pilot.press("y")
        await settle(app, pilot)
        assert ran.ran == STOPS  # what ran is the plan's own commands


async def test_a_benign_edit_runs_the_edited_command(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "stop the nextcloud containers")
        await edit(app, pilot, card, "docker stop -t 30 nextcloud-app")
        step = card.plan.steps[0]  # type: ignore[union-attr]
        assert step.edited and step.argv == ["docker", "stop", "-t", "30", "nextcloud-app"]
        assert "edited" in shown(card.query(StepRow).first())
        detail = shown(card.query_one("#plan-detail"))
        assert "$ docker stop -t 30 nextcloud-app" in detail
        assert "docker start nextcloud-app" in detail  # only an option changed: undo kept
        assert app.focused is not None and app.focused.id == "approve"
        await pilot.press("y")
        await settle(app, pilot)
        assert ran.ran == [["docker", "stop", "-t", "30", "nextcloud-app"], STOPS[1]]


async def test_an_edit_to_another_command_has_no_undo_so_it_asks_again(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "stop the nextcloud containers")
        await edit(app, pilot, card, "docker kill nextcloud-app")
        assert "cannot be undone" in shown(card.query_one("#plan-detail"))
        await pilot.press("y")
        await settle(app, pilot)
        assert ran.ran == [] and card.asking_again  # what is lost is said first
        assert "docker kill nextcloud-app" in shown(card.query_one("#plan-again"))
        await edit(app, pilot, card, "docker kill -s TERM nextcloud-app")  # changed again:
        assert not card.asking_again  # what is lost is asked anew, not taken as answered
        await pilot.press("y")
        await settle(app, pilot)
        assert ran.ran == [] and card.asking_again
        assert "docker kill -s TERM nextcloud-app" in shown(card.query_one("#plan-again"))
        await pilot.press("y")
        await settle(app, pilot)
        assert ran.ran == [["docker", "kill", "-s", "TERM", "nextcloud-app"], STOPS[1]]


async def test_the_journal_row_of_an_edited_step_says_edited(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "stop the nextcloud containers")
        await edit(app, pilot, card, "docker stop -t 30 nextcloud-app")
        await pilot.press("y")
        await settle(app, pilot)
    steps = app.engine.journal.transactions(limit=1)[0].steps
    assert [(s.argv, s.edited) for s in steps] == [
        (["docker", "stop", "-t", "30", "nextcloud-app"], True), (STOPS[1], False)]


async def test_copy_puts_the_command_on_the_clipboard_and_says_so(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        await ask(app, pilot, "stop the nextcloud containers")
        copied: list[str] = []
        toasts: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        real_notify = app.notify
        app.notify = lambda text, **kw: (toasts.append(text), real_notify(text, **kw))[1]  # type: ignore
        await pilot.press("tab", "down", "c")
        await pilot.pause()
        assert copied == ["docker stop nextcloud-redis"]
        assert any(t.startswith("copied") for t in toasts)
        assert ran.ran == []


async def test_explain_shows_the_why_and_how_the_plan_was_reached(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "stop the nextcloud containers")
        explain = card.query_one("#plan-explain")
        assert not explain.display
        await pilot.press("tab", "x")
        await pilot.pause()
        text = " ".join(shown(explain).split())  # the columns' alignment aside
        assert explain.display and text.startswith("Why step 1:")
        assert "stop the nextcloud containers" in text  # it is what was asked
        assert "judging risk: 2 step(s), risk medium" in text  # the plan's trace
        assert "understanding: I read it myself: action container.stop" in text
        await edit(app, pilot, card, "docker stop -t 30 nextcloud-app")
        assert "you changed its command (it was: docker stop nextcloud-app)" \
            in shown(explain)
        assert ran.ran == []


async def test_at_80x24_a_long_command_wraps_under_its_label(ran: Recorder) -> None:
    app = chat()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        card = await ask(app, pilot, "install htop")
        detail = card.query_one("#plan-detail")
        # each line starts with the detail's left border and padding
        text = [strip.text[2:] for strip in detail.render_lines(detail.region.reset_offset)]
        assert detail.size.width < 80
        command = [t for t in text if t.strip()][:3]
        assert command[0].startswith("command $ sudo -n apt-get install")
        assert not command[1].lstrip().startswith(("risk", "affects"))  # the command wrapped
        assert command[1].startswith(" " * len("command"))  # under its label, indented


async def test_the_card_shows_the_words_around_the_steps_and_its_own_rows() -> None:
    # words said before the steps that happen to look like a numbered step (a model's
    # explanation, a list in a note) stay on the card: the card draws the plan's parts
    # (`Plan.shown`), it never edits the message
    from reos.tui.transcript import Transcript

    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        plan = app.engine.plan("stop the nextcloud containers")
        assert plan.shown is not None
        plan.say_first("  1. Both belong to the nextcloud project")
        assert plan.text().startswith("  1. Both belong")
        card = PlanCard(plan)
        app.query_one(Transcript).add(card)
        await pilot.pause()
        head = shown(card.query_one("#plan-text"))
        assert "1. Both belong to the nextcloud project" in head
        assert "$ docker stop" not in head  # the rows show the steps
        assert len(card.query(StepRow)) == 2


async def test_the_cli_and_the_card_say_the_same_parts(capsys) -> None:  # noqa: ANN001
    # one plan's words, made once as parts: `reos plan` says them whole, the card says
    # them around its own rows of steps; both through `Plan.text`, neither edits text
    from pathlib import Path

    from reos.commands.plan import run as reos_plan
    from reos.tui.transcript import Transcript

    request = "stop the nextcloud containers"
    context = Path(__file__).parent / "fixtures" / "homelab.json"
    assert reos_plan(request, dry_run=True, context=context) == 0
    printed = capsys.readouterr().out
    app = chat()
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        plan = app.engine.plan(request)
        assert plan.shown is not None and not plan.said
        assert printed == f"{plan.text()}\n(dry run: nothing was run)\n"
        card = PlanCard(plan)
        app.query_one(Transcript).add(card)
        await pilot.pause()
        head = card.query_one("#plan-text").content
        assert str(head) == plan.text(steps=False) != plan.text()
        assert [line for line in plan.text().splitlines() if line not in str(head)] == [
            line for line in plan.shown.steps]  # all the card leaves to its rows
        assert len(card.query(StepRow)) == len(plan.steps)
