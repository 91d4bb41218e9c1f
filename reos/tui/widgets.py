"""Chat widgets: one bubble per message, and the plan card with Approve / Deny.

Each widget says what happened by posting a message (`PlanCard.Approved`); the app
decides what to do about it. Every text shown is passed through `reos.text.clean` and
rendered without markup, because most of it (names, logs, step output, model answers)
did not come from reos.

A plan card never takes the keyboard focus: the person keeps typing in the input, and
a key pressed there can never approve anything. The card's buttons and its y / n keys
work only after the person moved the focus onto the card (Tab) or clicked a button.
Not responsible for what approval does (the app and the engine are).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static

from reos.model import Plan
from reos.text import clean

APPROVAL_HINT = ("Type yes to run it or no to cancel (or ctrl+y / ctrl+n). "
                 "Anything else you type is a new request; this plan keeps waiting.")


class Bubble(Static):
    """One thing said in the chat, by the person, by reos, or by a running step."""

    DEFAULT_CSS = """
    Bubble { padding: 0 1; margin: 0 0 1 0; }
    Bubble.you { color: $text; text-style: bold; }
    Bubble.reos { color: $text; }
    Bubble.step { color: $text-muted; margin: 0; }
    Bubble.hint { color: $text-muted; text-style: italic; }
    Bubble.problem { color: $error; }
    """

    def __init__(self, text: str, who: str) -> None:
        self.text = clean(text)
        super().__init__(self.text, markup=False, classes=who)


class PlanCard(Vertical):
    """A plan waiting for approval; closed (buttons off, a note shown) once decided."""

    DEFAULT_CSS = """
    PlanCard { border: round $warning; padding: 0 1; height: auto; margin: 0 0 1 0; }
    PlanCard.closed { border: round $panel; }
    PlanCard Horizontal { height: auto; }
    PlanCard Button { margin: 0 1 0 0; }
    PlanCard #plan-note { color: $text-muted; text-style: italic; }
    """
    # Only active while the focus is inside the card, which the person must put there.
    BINDINGS = [
        Binding("y", "approve", "Approve"),
        Binding("n", "deny", "Deny"),
        Binding("escape", "deny", "Deny", show=False),
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

    def __init__(self, text: str, plan: Plan | None = None) -> None:
        super().__init__()
        self.text = clean(text)
        self.plan = plan
        self.closed = False

    def compose(self) -> ComposeResult:
        yield Static(self.text, markup=False, id="plan-text")
        yield Static(APPROVAL_HINT, markup=False, id="plan-note")
        with Horizontal():
            yield Button("Approve", id="approve", variant="success")
            yield Button("Deny", id="deny", variant="error")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_approve() if event.button.id == "approve" else self.action_deny()

    def action_approve(self) -> None:
        if not self.closed:
            self.post_message(self.Approved(self.plan))

    def action_deny(self) -> None:
        if not self.closed:
            self.post_message(self.Denied(self.plan))

    def close(self, note: str) -> None:
        """No longer waiting: turn the buttons off and say what became of the plan."""
        self.closed = True
        self.add_class("closed")
        for button in self.query(Button):
            button.disabled = True
        self.query_one("#plan-note", Static).update(clean(note))
