"""The plan card: a plan waiting for approval, shown as master and detail.

The master is the plan's steps, one line each, with a coloured risk badge (safe, low,
medium, high, critical), a marker for a step that cannot be undone and one for a step
the person edited; the detail is the selected step: its exact command (the argv as a
shell would take it, `reos.model.plan.render`), what it affects (its target, the packages an
install pulls in), its undo, why it is there, and, once it ran, its output (from the
step events). Above the master, the plan's own words without its list of steps
(`Plan.text(steps=False)`: the same parts `reos plan` says whole). Long commands wrap
with their label column as indentation, so the card reads at 80x24.

A card never takes the keyboard focus by itself: the person keeps typing in the input,
and nothing typed there can approve. Its keys (y approve, n deny, up/down choose a
step, e edit the step's command, x explain it, c copy the command) work once the person
moved the focus into the card (Tab onto its buttons); a click on a step shows it without
taking the typing away. Escape first closes what is open on the card (an edit, an
explanation), and only on the bare card denies. A plan that loses something for good
asks a second time (`ask_again`): the card says what is lost and nothing runs until the
second yes.

Each widget says what happened by posting a message (`PlanCard.Approved`, `Edited`); the
app and the engine decide (an edit is judged again by `reos.editing.edit_step`). Every
text shown is passed through `reos.text.clean` and rendered without markup. Not
responsible for what approval does, nor for judging a command.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.events import Click
from textual.message import Message
from textual.widgets import Button, Input, Static

from reos.model.events import Event, StepFinished, StepOutput, StepStarted
from reos.model.plan import Plan, Step
from reos.model.risk import RiskLevel
from reos.text import clean
from reos.words.conversation import undo_words

APPROVAL_HINT = ("Type yes to run it or no to cancel (or ctrl+y / ctrl+n); anything else "
                 "is a new request and this plan keeps waiting. "
                 "Tab into the card: \u2191\u2193 step, e edit, x explain, c copy.")
AGAIN_HINT = ("Nothing has run yet. Say yes again (or ctrl+y, or the button) to go ahead; "
              "no or Escape cancels.")
BADGES = {RiskLevel.SAFE: "bold black on green", RiskLevel.LOW: "bold black on cyan",
          RiskLevel.MEDIUM: "bold black on yellow", RiskLevel.HIGH: "bold white on dark_orange3",
          RiskLevel.CRITICAL: "bold white on red"}
OUTPUT_LINES = 8  # the last lines of a step's output shown in the detail
KEPT_LINES = 200  # lines of output a card keeps per step


def badge(risk: RiskLevel) -> Text:
    return Text(f" {risk.label.upper():<8}", style=BADGES[risk])


def affects(step: Step) -> str:
    parts = []
    if step.target is not None:
        state = f" ({step.target.state})" if step.target.state else ""
        parts.append(f"{step.target.kind} {step.target.name}{state}")
    if step.also:
        parts.append("also " + ", ".join(step.also))
    return "; ".join(parts) or "\u2014"


class StepRow(Static):
    """One step in the master list; a click chooses it."""

    DEFAULT_CSS = """
    StepRow { height: auto; }
    StepRow.selected { background: $boost; text-style: bold; }
    """

    class Chosen(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int) -> None:
        super().__init__("", markup=False)
        self.index = index

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Chosen(self.index))


class PlanCard(Vertical):
    """A plan waiting for approval; closed (buttons off, a note shown) once decided."""

    DEFAULT_CSS = """
    PlanCard { border: round $warning; padding: 0 1; height: auto; margin: 0 0 1 0; }
    PlanCard.closed { border: round $panel; }
    PlanCard.confirming { border: heavy $error; }
    PlanCard #plan-steps { height: auto; }
    PlanCard #plan-detail { height: auto; padding: 0 1; border-left: thick $accent; }
    PlanCard #plan-explain { height: auto; color: $text-muted; }
    PlanCard #plan-again { height: auto; color: $error; text-style: bold; }
    PlanCard #plan-edit-note { height: auto; }
    PlanCard Horizontal { height: auto; }
    PlanCard Button { margin: 0 2 0 0; }
    PlanCard #plan-note { color: $text-muted; text-style: italic; }
    """
    # Only active while the focus is inside the card, which the person must put there.
    BINDINGS = [
        Binding("y", "approve", "Approve"),
        Binding("n", "deny", "Deny"),
        Binding("escape", "escape", "Close the edit or explanation, else deny",
                show=False),
        Binding("up", "choose(-1)", "Step \u2191", show=False),
        Binding("down", "choose(1)", "Step \u2193", show=False),
        Binding("e", "edit", "Edit command"),
        Binding("x", "explain", "Explain"),
        Binding("c", "copy", "Copy command"),
    ]

    class Approved(Message):
        """The person approved the plan shown on this card."""

        def __init__(self, plan: Plan | None) -> None:
            super().__init__()
            self.plan = plan

    class Denied(Message):
        """The person said no to the plan shown on this card."""

        def __init__(self, plan: Plan | None) -> None:
            super().__init__()
            self.plan = plan

    class Edited(Message):
        """The person typed a new command for a step; `card.judged` gets the verdict."""

        def __init__(self, card: PlanCard, plan: Plan | None, step_id: str,
                     text: str) -> None:
            super().__init__()
            self.card, self.plan, self.step_id, self.text = card, plan, step_id, text

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan
        self.text = clean(plan.text())  # what the plan says, as every surface says it
        self.closed = False
        self.selected = 0
        self.editing = False
        self.explaining = False
        self.output: dict[str, list[str]] = {}  # step id -> its output lines, as they came
        self.status: dict[str, str] = {}  # step id -> running | ok | failed

    @property
    def steps(self) -> list[Step]:
        return self.plan.steps

    @property
    def step(self) -> Step | None:
        return self.steps[self.selected] if self.steps else None

    def compose(self) -> ComposeResult:
        if not self.steps:  # a plan without steps (an undo, a question) reads as text
            yield Static(self.text, markup=False, id="plan-text")
        else:  # the card's rows show the steps: above them, the plan's words without them
            yield Static(clean(self.plan.text(steps=False)), markup=False, id="plan-text")
            with Vertical(id="plan-steps"):
                for n in range(len(self.steps)):
                    yield StepRow(n)
            yield Static(id="plan-detail")
            yield Static(id="plan-explain")
            yield Static("", markup=False, id="plan-edit-note")
            yield Input(id="plan-edit")
        yield Static("", markup=False, id="plan-again")
        yield Static(APPROVAL_HINT, markup=False, id="plan-note")
        with Horizontal():
            # one line each: a card stays short enough to read whole at 80x24
            yield Button("Approve", id="approve", variant="success", compact=True)
            yield Button("Deny", id="deny", variant="error", compact=True)

    def on_mount(self) -> None:
        for ident in ("#plan-explain", "#plan-edit", "#plan-edit-note", "#plan-again"):
            for widget in self.query(ident):
                widget.display = False
        self.show()

    # -- drawing -------------------------------------------------------------------
    def show(self) -> None:
        """Draw the master lines and the selected step's detail again."""
        if not self.steps:
            return
        for row in self.query(StepRow):
            row.update(self._row(row.index))
            row.set_class(row.index == self.selected, "selected")
        self.query_one("#plan-detail", Static).update(self._detail())
        if self.explaining:
            self.query_one("#plan-explain", Static).update(self._explanation())

    def _row(self, index: int) -> Text:
        step = self.steps[index]
        line = Text("\u25b8 " if index == self.selected else "  ")
        line.append(f"{index + 1}. ")
        line.append_text(badge(step.risk))
        line.append(" ")
        line.append(clean(step.title))
        if not step.read_only and not step.reversible and not step.nothing_to_restore:
            line.append("  \u26a0 no undo", style="bold red")
        if step.edited:
            line.append("  \u270e edited", style="bold magenta")
        status = self.status.get(step.id)
        if status:
            line.append({"running": "  \u2026 running", "ok": "  \u2713 done",
                         "failed": "  \u2717 failed"}[status],
                        style={"ok": "green", "failed": "red"}.get(status, ""))
        return line

    def _detail(self) -> RenderableType:
        step = self.step
        assert step is not None
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column(overflow="fold")
        grid.add_row("command", Text("$ " + clean(step.command), style="bold"))
        grid.add_row("risk", Text(step.risk.label + (
            f" ({'; '.join(clean(r) for r in step.risk_reasons)})"
            if step.risk_reasons else "")))
        grid.add_row("affects", Text(clean(affects(step))))
        grid.add_row("undo", Text(clean(undo_words(step))))
        grid.add_row("why", Text(clean(step.why or "it is what you asked for")))
        if step.edited:
            grid.add_row("edited", Text("you changed this command; it was judged again"))
        lines = self.output.get(step.id)
        if lines:
            grid.add_row("output", Text(clean("\n".join(lines[-OUTPUT_LINES:]))))
        return grid

    def _explanation(self) -> Table:
        """Why the chosen step is there, and the stages that led to the plan (its trace)."""
        step = self.step
        assert step is not None
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column(overflow="fold")
        grid.add_row(f"Why step {self.selected + 1}:", Text(clean(
            step.why or "it is part of what you asked: "
            f"\u201c{self.plan.request}\u201d")))
        if step.risk_reasons:
            grid.add_row(f"Risk {step.risk.label}:",
                         Text(clean("; ".join(step.risk_reasons))))
        if self.plan.trace:
            grid.add_row("How I got here:", "")
        for stage in self.plan.trace:
            grid.add_row(Text(clean(f"  {stage.stage}:"), style="dim"),
                         Text(clean(stage.said)))
        return grid

    # -- the person's keys ---------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("approve", "deny", "edit"):
            return not self.closed and (action != "edit" or bool(self.steps))
        if action in ("choose", "explain", "copy"):
            return bool(self.steps)
        return True

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_approve() if event.button.id == "approve" else self.action_deny()

    def on_step_row_chosen(self, message: StepRow.Chosen) -> None:
        message.stop()
        self.choose(message.index)

    def choose(self, index: int) -> None:
        if self.editing or not self.steps:
            return
        self.selected = max(0, min(index, len(self.steps) - 1))
        self.show()

    def action_choose(self, delta: int) -> None:
        self.choose(self.selected + delta)

    def action_approve(self) -> None:
        if not self.closed:
            self.post_message(self.Approved(self.plan))

    def action_deny(self) -> None:
        if not self.closed:
            self.post_message(self.Denied(self.plan))

    def action_escape(self) -> None:
        """Escape leaves what is open on the card (an edit, an explanation) and only
        then, on the card itself, declines."""
        if self.editing:
            self.stop_editing("Not changed.")
        elif self.explaining:
            self.action_explain()  # closed again: back to the card, the plan still waits
        else:
            self.action_deny()

    def action_edit(self) -> None:
        step = self.step
        if self.closed or step is None:
            return
        self.editing = True
        editor = self.query_one("#plan-edit", Input)
        editor.value = clean(step.command)
        editor.display = True
        note = self.query_one("#plan-edit-note", Static)
        note.update(f"Edit step {self.selected + 1}'s command, Enter to check it, "
                    "Escape to leave it as it was. It is judged again before it counts.")
        note.display = True
        editor.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # the edit of a step, never a request to the engine
        step = self.step
        if not self.editing or step is None:
            return
        self.post_message(self.Edited(self, self.plan, step.id, event.value))

    def judged(self, step_id: str, refusal: str | None) -> None:
        """The edit of `step_id` was taken (refusal None) or refused, and why."""
        if refusal is None:
            if self.has_class("confirming"):  # what is lost is asked anew at the next yes
                self.remove_class("confirming")
                self.query_one("#plan-again", Static).display = False
                self.query_one("#plan-note", Static).update(APPROVAL_HINT)
                self.query_one("#approve", Button).label = "Approve"
            self.stop_editing(f"Step {self.selected + 1} now runs your command "
                              "(judged again: see its risk and undo).")
        else:
            note = self.query_one("#plan-edit-note", Static)
            note.update(clean(f"Not changed: {refusal}."))

    def stop_editing(self, said: str) -> None:
        self.editing = False
        editor = self.query_one("#plan-edit", Input)
        editor.display = False
        self.query_one("#plan-edit-note", Static).update(clean(said))
        self.show()
        self.query_one("#approve", Button).focus()

    def action_explain(self) -> None:
        if not self.steps:
            return
        self.explaining = not self.explaining
        self.query_one("#plan-explain", Static).display = self.explaining
        self.show()

    def action_copy(self) -> None:
        step = self.step
        if step is None:
            return
        self.app.copy_to_clipboard(clean(step.command))
        self.app.notify(f"copied: {clean(step.command)}", markup=False)

    # -- what became of it ---------------------------------------------------------
    def ask_again(self, question: str) -> None:
        """The plan loses something for good: say what, and wait for a second yes."""
        self.add_class("confirming")
        again = self.query_one("#plan-again", Static)
        again.update(clean(question))
        again.display = True
        self.query_one("#plan-note", Static).update(AGAIN_HINT)
        self.query_one("#approve", Button).label = "Yes, go ahead"

    @property
    def asking_again(self) -> bool:
        return self.has_class("confirming") and not self.closed

    def record(self, event: Event) -> None:
        """A step of this card's plan started, printed a line or finished."""
        if not isinstance(event, StepStarted | StepOutput | StepFinished) \
                or not any(s is event.step for s in self.steps):
            return
        sid = event.step.id
        if isinstance(event, StepStarted):
            self.status[sid] = "running"
        elif isinstance(event, StepOutput):
            kept = self.output.setdefault(sid, [])
            kept.append(event.line.rstrip("\n"))
            del kept[:-KEPT_LINES]
        else:
            self.status[sid] = "ok" if event.result.ok else "failed"
            if event.result.ok is False and not self.output.get(sid):
                detail = (event.result.stderr or event.result.stdout).strip()
                if detail:
                    self.output[sid] = detail.splitlines()[-KEPT_LINES:]
        self.show()

    def close(self, note: str) -> None:
        """No longer waiting: turn the buttons off and say what became of the plan."""
        self.closed = True
        self.editing = False
        self.add_class("closed")
        self.remove_class("confirming")
        for button in self.query(Button):
            button.disabled = True
        for editor in self.query("#plan-edit"):
            editor.display = False
        self.query_one("#plan-note", Static).update(clean(note))
