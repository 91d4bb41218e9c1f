"""One renderer for every surface: an event, in the voice of this session, as the lines
to show, each tagged with how it is meant ("step", "said", "problem", "stage",
"thought"); and the words of the questions a run asks while it works (a recovery fix, a
resumable stop).

Pure: nothing is printed or drawn here, and nothing is cleaned (the CLI and the chat
clean at their boundary). `reos/commands/output.py` prints the lines; the chat's
`show_event` mounts them, sends "stage" to its status line and "thought" to the model's
thought line. Not responsible for the sentences about steps (reos.words.conversation
words them; this module chooses which to say for which event).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

from reos.words import conversation
from reos.words.conversation import Voice

if TYPE_CHECKING:
    from reos.model.events import Event
    from reos.model.report import ExecutionReport

SHOWN = ("step", "said", "problem")  # styles that are lines of the conversation itself


class Line(Struct, frozen=True):
    """One line to show: `style` is "step", "said", "problem", "stage" (the stage's
    name, for a status line) or "thought" (the model's reasoning so far)."""

    text: str
    style: str


def narrate(event: Event, voice: Voice) -> list[Line]:
    """What to show for `event` ([] for nothing)."""
    # the event types load with the first event: a plan that only shows runs nothing
    from reos.model.events import (
        ModelText,
        Notice,
        Said,
        Stage,
        StepFinished,
        StepOutput,
        StepStarted,
    )

    if isinstance(event, StepStarted):
        line = conversation.step_started(event.step, voice)
        return [Line(line, "step")] if line else []
    if isinstance(event, StepOutput):
        if voice.show_commands and not voice.brief and event.line.strip():
            return [Line(f"    \u2502 {event.line}", "step")]
        return []
    if isinstance(event, StepFinished):
        detail = event.result.stderr.strip().splitlines()[-1:] if not event.result.ok else []
        return [Line(conversation.step_finished(event.step, event.result.ok,
                                                detail[0] if detail else ""), "step")]
    if isinstance(event, Said):
        return [Line(event.text, "said")]
    if isinstance(event, Notice):
        return [Line(event.text, "problem")]
    if isinstance(event, Stage):
        return [Line(event.stage, "stage")]
    if isinstance(event, ModelText):
        return [Line(event.text, "thought")] if event.text.strip() else []
    return []


def fix_question(explanation: str) -> str:
    """Asking whether a recovery fix may run (the explanation can quote a failed
    command's output: the surface cleans it)."""
    return f"{explanation.rstrip(chr(0x2026))}. OK?"


def paused(report: ExecutionReport) -> str:
    """Where a resumable stop left the run."""
    return (f"Completed: {len(report.completed)} steps; pending: {len(report.pending)}; "
            f"time elapsed: {report.seconds:.0f}s.")


def resume_question(report: ExecutionReport) -> str:
    """Asking whether to continue past a resumable stop: a pause for review asks about
    the remaining steps; the operations limit says that going on resets its counter."""
    from reos.model.report import StopReason

    return ("Continue with the remaining steps?" if report.stop is StopReason.REVIEW
            else "Continue? (This resets the operation counter)")
