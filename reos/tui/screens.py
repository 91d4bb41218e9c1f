"""Modal screens the chat asks its questions on while a plan runs: `ConfirmScreen`, a
yes/no question (may this recovery fix run? continue past the operations limit?).

A screen answers by dismissing itself with True or False; it never runs anything. The
app's worker thread waits for the answer (`ReosApp.ask`), never the UI thread. Only a
deliberate yes approves: y or the Yes button; n, Escape or the No button (which has the
focus, so a stray Enter says no) decline.
Not responsible for the words of the questions (reos.words.narrate) or for what an
answer does (the engine).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from reos.text import clean


class ConfirmScreen(ModalScreen[bool]):
    """Ask `question`; dismissed with True for yes, False for no."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > Vertical {
        width: 70; max-width: 90%; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    ConfirmScreen #question { width: 100%; margin-bottom: 1; }
    ConfirmScreen Horizontal { height: auto; align-horizontal: right; }
    ConfirmScreen Button { margin-left: 2; }
    """
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = clean(question)  # it can quote a failed command's output

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, id="question", markup=False)
            with Horizontal():
                yield Button("Yes (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
