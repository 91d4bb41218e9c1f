"""Printing for the CLI: JSON to stdout, people's text to stdout, problems to stderr.

With `--json`, stdout carries exactly one JSON document and nothing else. Rich is
imported only to draw an error panel, so the common paths start fast.

Everything shown passes through `reos.text.clean` here, at the boundary, because much of
it (container names, logs, step output, errors quoting a request) did not come from reos
and may carry terminal escape sequences. JSON is escaped by json.dumps plus
`reos.text.json_safe`. Not responsible for wording: reos.words.conversation and
reos.words.narrate (the words of events, shared with the chat) are.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from reos.errors import ReosError
from reos.text import clean, json_safe
from reos.words.conversation import Voice
from reos.words.narrate import SHOWN, narrate

if TYPE_CHECKING:
    from typing import Any

    from reos.model.events import Event


def emit_json(data: Any) -> None:
    sys.stdout.write(json_safe(json.dumps(data, indent=2, ensure_ascii=False)) + "\n")
    sys.stdout.flush()


def say(text: str) -> None:
    if text:
        print(clean(text), flush=True)


def warn(text: str) -> None:
    print(f"warning: {clean(text)}", file=sys.stderr, flush=True)


def note(text: str) -> None:
    """A line for the person on stderr, so stdout stays what it would be without it."""
    if text:
        print(clean(text), file=sys.stderr, flush=True)


def error(exc: ReosError) -> None:
    if not sys.stderr.isatty():  # plain lines for logs and scripts: nothing wrapped or cut
        print(f"reos: {clean(exc.message)}", file=sys.stderr)
        if exc.hint:
            print(f"  {clean(exc.hint)}", file=sys.stderr)
        return
    try:
        from rich.console import Console
        from rich.panel import Panel

        from reos.text import markup

        body = markup(exc.message) + (f"\n\n[dim]{markup(exc.hint)}[/dim]" if exc.hint
                                      else "")
        Console(stderr=True).print(Panel(body, title="reos", title_align="left",
                                         border_style="red", expand=False))
    except Exception:  # never let the error printer hide the error
        print(f"reos: {clean(str(exc))}", file=sys.stderr)


def event_printer(voice: Voice, quiet: bool = False):  # noqa: ANN201 - returns an EventSink
    """Show steps as they start, their output as it streams, and how they ended: the lines
    reos.words.narrate writes for every surface (stages and the model's thought are
    StagePrinter's, with --verbose)."""

    def show(event: Event) -> None:
        if quiet:
            return
        for line in narrate(event, voice):
            if line.style in SHOWN:
                say(line.text)

    return show


class StagePrinter:
    """`reos plan --verbose`: how the request is being understood, one line per stage, on
    stderr. The model's thought streams as ever longer texts of one answer; only the last
    of each answer is shown, when the next stage comes (or at `flush`)."""

    def __init__(self) -> None:
        self.thought = ""

    def __call__(self, event: Event) -> None:
        from reos.model.events import ModelText, Stage

        if isinstance(event, ModelText):
            if event.text.strip():
                self.thought = " ".join(event.text.split())
            return
        self.flush()
        if isinstance(event, Stage):
            took = f" ({event.ms:.0f} ms)" if event.ms is not None else ""
            detail = " ".join(event.detail.split())
            note(f"\u00b7 {event.stage}: {detail}{took}" if detail
                 else f"\u00b7 {event.stage}{took}")

    def flush(self) -> None:
        if self.thought:
            note(f"\u00b7 model: {self.thought}")
            self.thought = ""
