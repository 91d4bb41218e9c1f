"""What running a plan, or undoing one, came to: StepResult, ExecutionReport, UndoReport.

An ExecutionReport says which steps ran (their StepResults), why it stopped before the
plan was done (StopReason) and the quality gates' verdicts (GateVerdict); an UndoReport
says what undo ran (UndoneStep), in words too (`describe`; `to_dict` is `reos.undo/1`).
The executor and undo fill them, every surface reads them.

Not responsible for running or undoing anything (reos.execution does), nor for saying
what a run came to (reos.words does), bar undo's own message.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from msgspec import Struct, field

from reos.model.plan import Step, render

if TYPE_CHECKING:
    from typing import Any


class StepResult(Struct):
    step_id: str
    ok: bool
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    skipped_reason: str | None = None
    blocked: bool = False  # the gate refused it: it never ran


if TYPE_CHECKING:
    from typing import Protocol

    class UndoneTransaction(Protocol):
        """The journal's record of the transaction undone (reos.store.journal's
        TransactionRecord); only what a report says about it."""

        id: int
        request: str
        status: str


class StopReason(enum.Enum):
    """Why an execution stopped before its plan was done (a failed step is not a stop).

    `resumable`: a person may continue past it (`Executor.resume`). Only two are:
    OPERATIONS (the operation counter is the one the person may reset) and REVIEW (a
    step's output asked a person to look; looking is the person's call). The time budget,
    escalations and injected steps span a resume, so continuing past them would trip them
    again at once; a checkpoint, a drift or an escalation stop happen while a failed step
    is being recovered, so there is nothing to continue; a changed condition and a failed
    pre-flight ran nothing: the person asks again instead.
    """

    OPERATIONS = "operations"
    SECONDS = "seconds"
    ESCALATIONS = "escalations"
    INJECTED = "injected"
    CHECKPOINT = "checkpoint"
    SCOPE_DRIFT = "scope_drift"
    CONDITION_CHANGED = "condition_changed"
    PREFLIGHT = "preflight"
    REVIEW = "review"

    @property
    def resumable(self) -> bool:
        return self in (StopReason.OPERATIONS, StopReason.REVIEW)

    @property
    def sentence(self) -> str:
        """The reason in words, without the numbers (`stopped_reason` has those)."""
        return _STOP_SENTENCES[self]


_STOP_SENTENCES = {
    StopReason.OPERATIONS: "it did as many operations as one run may",
    StopReason.SECONDS: "it used all the time one run may take",
    StopReason.ESCALATIONS: "recovery added as many privilege escalations as one run may",
    StopReason.INJECTED: "recovery added as many steps as one run may",
    StopReason.CHECKPOINT: "enough automatic fixes were tried that a person should review",
    StopReason.SCOPE_DRIFT: "a step added while it ran strayed from the plan, so it was "
                            "blocked",
    StopReason.CONDITION_CHANGED: "the condition the plan depended on no longer holds",
    StopReason.PREFLIGHT: "a check before running failed, so nothing was run",
    StopReason.REVIEW: "a step's output asks a person to look before going on",
}


class GateVerdict(Struct):
    """One quality gate's verdict: pre-flight (before the journal is written), mid-flight
    (after a step) or post-flight (when the run ends). `check` names what was checked
    (goal, plan, scope, context, conflicts; result; completed, errors, verified)."""

    gate: str  # pre-flight | mid-flight | post-flight
    check: str
    passed: bool
    said: str  # what was found, in words (cleaned of untrusted bytes)
    step_id: str | None = None
    warnings: list[str] = field(default_factory=list)  # a step's warning lines, cleaned
    review: bool = False  # a warning asks a person to look before the plan goes on

    def to_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "check": self.check, "passed": self.passed,
                "said": self.said, "step_id": self.step_id, "warnings": list(self.warnings),
                "review": self.review}


class UndoneStep(Struct):
    title: str
    argv: list[str]
    ok: bool
    output: str
    refused: bool = False  # not run: the gate refused it or its journal row is damaged

    def to_dict(self) -> dict[str, object]:
        return {"title": self.title, "argv": self.argv,
                "command": render(self.argv) if self.argv else "",
                "ok": self.ok, "refused": self.refused, "output": self.output}


class UndoReport(Struct):
    transaction: UndoneTransaction | None
    steps: list[UndoneStep] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    busy_with: int | None = None  # pid of another reos already undoing it (nothing done)

    @property
    def ok(self) -> bool:
        return self.transaction is not None and self.busy_with is None \
            and all(s.ok for s in self.steps)

    def describe(self) -> str:
        """What undo did, in words (the `message` of `reos.undo/1`)."""
        tx = self.transaction
        if self.busy_with is not None:
            request = f"\u201c{tx.request}\u201d" if tx else "That transaction"
            who = f" (process {self.busy_with})" if self.busy_with > 0 else ""
            return (f"{request} is already being undone by another reos{who}, or was just "
                    "undone; I left it alone.")
        if tx is None:
            return "Nothing to undo: I haven't changed anything that can be reverted."
        done = [s for s in self.steps if s.ok]
        failed = [s for s in self.steps if not s.ok]
        lines = []
        if tx.status == "interrupted":
            lines.append(f"\u201c{tx.request}\u201d was interrupted (reos was stopped while "
                         "it ran); I checked the real state before undoing it.")
        if done:
            lines.append(f"Done! Undid \u201c{tx.request}\u201d.")
            lines += [f"  ({s.output})  {s.title}" if s.argv[:1] in (["cp"], ["rm"], ["ln"])
                      else f"  (ran: {render(s.argv)})" for s in done]
        for s in failed:
            if s.refused:  # never suggest running what was refused or what a damaged row holds
                lines.append(f"Didn't undo \u201c{s.title}\u201d: {s.output}.")
                continue
            lines.append(f"Couldn't undo \u201c{s.title}\u201d: {s.output or 'it failed'}.")
            lines.append(f"  To do it by hand, run: {render(s.argv)}")
        lines += self.notes
        if not done and not failed and self.notes:
            lines.insert(0, f"Nothing to run for \u201c{tx.request}\u201d.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        tx = self.transaction
        return {
            "schema": "reos.undo/1",
            "undone": tx.id if tx and self.busy_with is None else None,
            "request": tx.request if tx else None,
            "ok": self.ok,
            "busy": self.busy_with is not None,
            "steps": [s.to_dict() for s in self.steps],
            "notes": list(self.notes),
            "message": self.describe(),
        }


class ExecutionReport(Struct):
    """What running a plan came to: filled by the executor, read by every surface."""

    tx_id: int | None
    completed: list[Step] = field(default_factory=list)
    results: list[StepResult] = field(default_factory=list)
    failed: Step | None = None
    pending: list[Step] = field(default_factory=list)
    stop: StopReason | None = None  # why it stopped before the plan was done
    stopped_reason: str | None = None  # the same in words, with its numbers, for display
    seconds: float = 0.0
    escalations: int = 0  # steps that ran through sudo
    started: float = 0.0  # monotonic time the execution began (limits span a resume)
    recoveries: list[str] = field(default_factory=list)  # fixes that worked, in words
    verified: int = 0  # steps whose intended state was checked for real
    unchecked: list[Step] = field(default_factory=list)  # state could not be read after
    rolled_back: UndoReport | None = None  # when completed steps were rolled back
    learned: list[str] = field(default_factory=list)  # new reflection findings
    gates: list[GateVerdict] = field(default_factory=list)  # quality gates' verdicts

    @property
    def ok(self) -> bool:
        return self.failed is None and self.stop is None and not self.pending

    @property
    def resumable(self) -> bool:
        """A person may continue it (`Executor.resume`): never search `stopped_reason`."""
        return (self.stop is not None and self.stop.resumable and bool(self.pending)
                and self.failed is None and self.tx_id is not None)
