"""Events the engine and the executor emit while they work, for the CLI and TUI to show.

Plain data; a surface passes a callback and decides how (or whether) to draw them.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct

from reos.model.plan import Step
from reos.model.report import StepResult


class StepStarted(Struct):
    step: Step


class StepOutput(Struct):
    step: Step
    line: str
    stream: str  # stdout | stderr


class StepFinished(Struct):
    step: Step
    result: StepResult


class Said(Struct):
    """A sentence reos says while it works ("Okay, restarting nginx.service…")."""

    text: str


class Notice(Struct):
    """Something the person should know that is not a step (a limit hit, a rollback)."""

    text: str


class Stage(Struct):
    """A stage of understanding or planning a request: perceiving, understanding (and
    which understander), asking the model, model answered, repaired, fell back, matching,
    planning, judging risk. Shown live by the chat and by `reos plan --verbose`."""

    stage: str
    detail: str = ""
    ms: float | None = None


class ModelText(Struct):
    """What the model has written of its reasoning so far (its `thought`, as it streams)."""

    text: str


Event = StepStarted | StepOutput | StepFinished | Said | Notice | Stage | ModelText
EventSink = Callable[[Event], None]

