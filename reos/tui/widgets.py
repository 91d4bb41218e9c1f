"""Chat widgets: one bubble per message, and the plan card with Approve / Deny.

Each widget says what happened by posting a message (`PlanCard.Approved`); the app
decides what to do about it.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static


class Bubble(Static):
    """One thing said in the chat, by the person, by reos, or by a running step."""

    DEFAULT_CSS = """
    Bubble { padding: 0 1; margin: 0 0 1 0; }
    Bubble.you { color: $text; text-style: bold; }
    Bubble.reos { color: $text; }
    Bubble.step { color: $text-muted; margin: 0; }
    Bubble.problem { color: $error; }
    """

    def __init__(self, text: str, who: str) -> None:
        super().__init__(text, markup=False, classes=who)


class PlanCard(Vertical):
    """A plan waiting for approval. y / Enter approves, n / Escape denies."""

    DEFAULT_CSS = """
    PlanCard { border: round $warning; padding: 0 1; height: auto; margin: 0 0 1 0; }
    PlanCard Horizontal { height: auto; }
    PlanCard Button { margin: 0 1 0 0; }
    """
    BINDINGS = [
        Binding("y", "approve", "Approve"),
        Binding("n", "deny", "Deny"),
        Binding("escape", "deny", "Deny", show=False),
    ]

    class Approved(Message):
        """The person approved the plan shown on this card."""

    class Denied(Message):
        """The person said no to the plan shown on this card."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield Static(self.text, markup=False, id="plan-text")
        yield Static("Proceed?  [y] approve   [n] deny", markup=False)
        with Horizontal():
            yield Button("Approve", id="approve", variant="success")
            yield Button("Deny", id="deny", variant="error")

    def on_mount(self) -> None:
        self.query_one("#approve", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_approve() if event.button.id == "approve" else self.action_deny()

    def action_approve(self) -> None:
        self._close()
        self.post_message(self.Approved())

    def action_deny(self) -> None:
        self._close()
        self.post_message(self.Denied())

    def _close(self) -> None:
        for button in self.query(Button):
            button.disabled = True
