"""The help screen (F1, or `?` on an empty input): keys that work now, and what reos understands.

The keys are the ones valid for the widget that had the focus when help was asked for
(its own bindings first, then the chat's), read from Textual's active bindings so a
remapped or disabled key is never shown wrong. What reos understands is generated from
the operation catalogue: each area with what it can do and an example, the same words
as the "help" reply (`reos.words.replies.tour`). Escape (or F1, q) closes it.

Not responsible for the keys themselves (the app and widgets bind them) nor for the
catalogue (templates/*.toml).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from reos.catalogue.operations import Operation
from reos.text import clean

# Keys the chat handles itself (not as bindings), said in words.
TYPED = [
    ("yes / no + Enter", "approve or decline the plan that waits"),
    ("up / down", "recall earlier requests"),
    ("pageup / pagedown", "scroll the conversation while typing"),
    ("/", "search the conversation (input empty)"),
    ("? or F1", "this help (input empty)"),
]


def key_lines(bindings: Iterable[tuple[str, str]]) -> list[str]:
    """`key  what it does` lines, each key once, widest key setting the column."""
    seen: dict[str, str] = {}
    for key, description in bindings:
        if key and description and key not in seen:
            seen[key] = description
    width = max((len(k) for k in seen), default=0)
    return [f"  {key.ljust(width)}  {what}" for key, what in seen.items()]


def understood(operations: Iterable[Operation]) -> list[str]:
    """Each area of the catalogue: what reos can do there, and one example request."""
    from reos.words.replies import AREAS

    areas: dict[str, list[Operation]] = {}
    for op in operations:
        if op.kind != "meta":
            areas.setdefault(AREAS.get(op.resource, op.resource.title()), []).append(op)
    lines: list[str] = []
    for area, ops in areas.items():
        doings = list(dict.fromkeys(op.action.replace("_", " ") for op in ops))
        example = next((op.examples[0] for op in ops if op.examples), None)
        lines.append(f"  {area}: {', '.join(doings)}")
        if example:
            lines.append(f"      e.g. \u201c{example}\u201d")
    lines.append("  And: undo, \u201cwhat can you undo?\u201d, \u201cwhy did you \u2026?\u201d, "
                 "\u201cbe brief\u201d, \u201cmore details please\u201d.")
    return lines


Section = tuple[str, list[tuple[str, str]]]


# What the person calls the widgets that bind keys of their own.
PLACES = {"PromptInput": "the request line", "TranscriptSearch": "the search line",
          "PlanCard": "the plan card"}


def keys_now(app: App[Any]) -> list[Section]:
    """The keys valid now: the chat's own, then those of the focused widget and the
    widgets around it (a plan card's keys while one of its buttons has the focus)."""
    mine: list[tuple[str, str]] = []
    theirs: list[tuple[str, str]] = []
    places: list[str] = []
    for active in app.screen.active_bindings.values():
        binding = active.binding
        if not active.enabled or not binding.description:
            continue
        key = binding.key_display or app.get_key_display(binding)
        if active.node is app or active.node is app.screen:
            mine.append((key, binding.description))
        else:
            theirs.append((key, binding.description))
            name = type(active.node).__name__
            place = PLACES.get(name, name)
            if place not in places:
                places.append(place)
    return [("Keys", mine), (f"In {' / '.join(places) or 'the chat'}", theirs)]


def help_text(sections: Iterable[Section], operations: Iterable[Operation]) -> str:
    parts: list[str] = []
    for title, keys in [*sections, ("While typing", TYPED)]:
        if keys:
            parts += [f"{title}:", *key_lines(keys), ""]
    parts += ["What I understand \u2014 ask in your own words; I always show a plan "
              "before changing anything:", *understood(operations)]
    return clean("\n".join(parts))


class HelpScreen(ModalScreen[None]):
    """Keys for the focused widget and the catalogue, in one scrolling page."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90%; max-width: 110; height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { text-style: bold; margin: 0 0 1 0; }
    """
    BINDINGS = [
        Binding("escape", "dismiss", "Close help"),
        Binding("f1", "dismiss", "Close help", show=False),
        Binding("q", "dismiss", "Close help", show=False),
    ]

    def __init__(self, sections: list[Section], operations: list[Operation]) -> None:
        super().__init__()
        self.text = help_text(sections, operations)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("reos help  \u00b7  Escape closes", markup=False, id="help-title")
            yield Static(self.text, markup=False, id="help-text")
