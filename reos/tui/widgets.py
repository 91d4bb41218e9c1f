"""Chat widgets: one bubble per message; the plan card lives in reos/tui/plan_view.py.

Each widget says what happened by posting a message (`PlanCard.Approved`); the app
decides what to do about it. Every text shown is passed through `reos.text.clean` and
rendered without markup, because most of it (names, logs, step output, model answers)
did not come from reos. Not responsible for what approval does (the app and the engine
are).
"""

from __future__ import annotations

from textual.widgets import Static

from reos.text import clean

__all__ = ["Bubble"]


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
