"""The chat's footer: the keys valid now, on one line that never overlaps itself.

Textual's footer lays the keys out in a row and docks the command palette's key on the
right, over whatever does not fit: at 80 columns, with a plan waiting, "f4 Reasoning
panel" ran off the edge and "ctrl+p Commands" was drawn over "f2 Machine f3 History".
`ChatFooter` measures the line first. When it does not fit it uses the short words
(`SHORT`), then leaves out the palette's key, then the panel keys (`SPARED`), then keys
from the end of the line; whatever is left out still works, and help (F1) lists it.

Not responsible for which keys are valid (the app and widgets bind them) nor for help.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey  # the footer's key; not re-exported

# Shorter words for a crowded line, by the binding's action.
SHORT = {"approve": "Approve", "deny": "Deny", "panel('reasoning')": "Why"}
# Left out of a line that is still too long, in this order (each is in help).
SPARED = ("panel('hosts')", "panel('reasoning')", "panel('history')", "panel('machine')")
PALETTE = "-command-palette"


def width_of(key: FooterKey) -> int:
    """Cells a key takes in the compact footer: key, space, words, and the gap (or, for
    the palette's key docked on the right, its border)."""
    words = f" {key.description}" if key.description else ""
    return cell_len(key.key_display) + cell_len(words) + 1


def fitting(keys: list[FooterKey], width: int) -> list[FooterKey]:
    """The keys to show on a line of `width` cells, shortened or left out as needed."""
    def fits(shown: list[FooterKey]) -> bool:
        return sum(width_of(key) for key in shown) <= width

    if fits(keys):
        return keys
    for key in keys:
        key.description = SHORT.get(key.action, key.description)
    keys = [key for key in keys if not key.has_class(PALETTE)] if not fits(keys) else keys
    for action in SPARED:
        if fits(keys):
            break
        keys = [key for key in keys if key.action != action]
    while not fits(keys) and len(keys) > 1:
        keys = keys[:-1]
    return keys


class ChatFooter(Footer):
    """The footer, fitted to the screen's width (measured again on every resize)."""

    def compose(self) -> ComposeResult:
        keys = list(super().compose())  # the chat binds no key groups: FooterKeys only
        yield from fitting([k for k in keys if isinstance(k, FooterKey)],
                           self.size.width or self.app.size.width)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self.recompose)  # another width: measured again
