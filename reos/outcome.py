"""What the engine says back, as types: `Reply` with its `Outcome`, and `Found`.

Every surface decides what to do next from `Reply.outcome` (show a plan card, a question
with its choices, a pause it may continue, a rollback), never by searching the reply's
words. `outcome_of` turns an execution report into the outcome of running it.
Not responsible for the words (reos.words.conversation and reos.words.narrate),
nor for deciding anything: the engine makes replies, this module only types them.
Re-exported by reos.engine, so `from reos.engine import Reply` keeps working.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

if TYPE_CHECKING:
    from reos.model.plan import Plan
    from reos.model.report import ExecutionReport, UndoReport


class Outcome(enum.Enum):
    """What one reply came to."""

    ANSWERED = "answered"  # a query's read-only steps ran; the text says what they found
    NEEDS_APPROVAL = "needs_approval"  # a plan (or an undo) waits for yes or no
    QUESTION = "question"  # reos asked which one was meant: `Reply.choices`
    RAN = "ran"  # an approved plan ran to its end
    FAILED = "failed"  # a step failed or a limit stopped it for good; nothing rolled back
    PAUSED = "paused"  # stopped where a person may continue: `report.resumable`
    ROLLED_BACK = "rolled_back"  # it failed and its completed steps were rolled back
    UNDONE = "undone"  # an undo ran (`Reply.undone` says how it went)
    DECLINED = "declined"  # the person said no; nothing was changed
    REFUSED = "refused"  # reos will not do what was asked (blocked or refused)
    SAID = "said"  # anything else: a plain answer, a setting changed, "why did you…"


def outcome_of(report: ExecutionReport) -> Outcome:
    """The outcome of running a plan, from its report's types (never its sentences)."""
    if report.rolled_back is not None and report.rolled_back.transaction is not None:
        return Outcome.ROLLED_BACK  # something was there to roll back, and it was tried
    if report.resumable:
        return Outcome.PAUSED
    return Outcome.RAN if report.ok else Outcome.FAILED


def outcome_of_undo(undone: UndoReport) -> Outcome:
    """UNDONE when an undo was tried on a transaction; nothing to undo is only said."""
    return Outcome.UNDONE if undone.transaction is not None else Outcome.SAID


def outcome_of_plan(plan: Plan) -> Outcome:
    """The outcome of a plan reos only says (no steps run, no approval asked)."""
    from reos.model.request import Kind

    if plan.kind == Kind.CLARIFY:
        return Outcome.QUESTION
    if plan.blocked or plan.kind == Kind.REFUSE:
        return Outcome.REFUSED
    return Outcome.SAID


class Found(Struct):
    """What the read-only steps of a query found, in words, and a plan they led to
    (diagnoses)."""

    text: str
    follow_up: Plan | None = None


class Reply(Struct):
    """What the engine says back to one chat utterance.

    `awaiting_approval` and `Outcome.NEEDS_APPROVAL` are the same fact; either one given
    sets the other, so older call sites that pass `awaiting_approval=True` stay right."""

    text: str
    outcome: Outcome = Outcome.SAID
    plan: Plan | None = None
    awaiting_approval: bool = False
    report: ExecutionReport | None = None
    undone: UndoReport | None = None  # what an "undo" did
    # what is said before the plan (a query's answer its follow-up plan comes from); a
    # surface that shows the plan its own way says this first
    first: str = ""
    hosts: Any = None  # plans on other machines (reos.on_hosts.HostsPlan), shown or run
    hosts_applied: Any = None  # how they ran (reos.fleet.changing.Applied)
    # the answers to the questions asked beside a change (`Plan.then`), once it ran
    answers: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.awaiting_approval:
            self.outcome = Outcome.NEEDS_APPROVAL
        self.awaiting_approval = self.outcome is Outcome.NEEDS_APPROVAL

    @property
    def choices(self) -> list[str]:
        """The options of a question, in the order they are numbered ([] otherwise)."""
        if self.outcome is not Outcome.QUESTION or self.plan is None:
            return []
        return [label for label, _ in self.plan.options]
