"""Undo: revert the newest undoable transaction from the prior states it recorded.

Runs each completed step's recorded restore command, newest first, as its own journaled
"undo" transaction, and reports exactly what it ran. A restore that fails is reported
with the command to run by hand and is not retried forever: it no longer blocks undoing
older transactions.
Not responsible for computing restore commands (they were computed from prior state
when the step ran) or for understanding the word "undo".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from reos.execution.runner import run_argv
from reos.model import StepResult, render
from reos.store.journal import PARTLY_UNDONE, UNDONE, Journal, TransactionRecord

UNDO_TIMEOUT = 120.0


@dataclass
class UndoneStep:
    title: str
    argv: list[str]
    ok: bool
    output: str

    def to_dict(self) -> dict[str, object]:
        return {"title": self.title, "argv": self.argv, "command": render(self.argv),
                "ok": self.ok, "output": self.output}


@dataclass
class UndoReport:
    transaction: TransactionRecord | None
    undo_tx_id: int | None = None
    steps: list[UndoneStep] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.transaction is not None and all(s.ok for s in self.steps)

    def to_dict(self) -> dict[str, object]:
        tx = self.transaction
        return {
            "schema": "reos.undo/1",
            "undone": tx.id if tx else None,
            "request": tx.request if tx else None,
            "ok": self.ok,
            "steps": [s.to_dict() for s in self.steps],
            "message": describe(self),
        }


def undo_latest(journal: Journal, run: Callable[..., StepResult] = run_argv) -> UndoReport:
    candidates = journal.undoable()
    if not candidates:
        return UndoReport(transaction=None)
    tx = candidates[0]
    report = UndoReport(transaction=tx)
    undo_tx = journal.begin(f"undo: {tx.request}", kind="undo", undoes=tx.id)
    report.undo_tx_id = undo_tx
    for seq, step in enumerate(tx.undo_steps):
        assert step.rollback is not None
        title = f"Undo \u201c{step.title}\u201d"
        row = journal.begin_step(undo_tx, seq, f"u{seq + 1}", title, step.rollback,
                                 target_kind=step.target_kind, target_name=step.target_name)
        result = run(step.rollback, timeout=UNDO_TIMEOUT, step_id=f"u{seq + 1}")
        output = (result.stdout + result.stderr).strip()
        journal.finish_step(row, "done" if result.ok else "failed", result.exit_code, output)
        journal.mark_step(step.row, "undone" if result.ok else "undo_failed")
        report.steps.append(UndoneStep(step.title, step.rollback, result.ok, output))
    ok = all(s.ok for s in report.steps)
    journal.set_status(tx.id, UNDONE if ok else PARTLY_UNDONE)
    journal.finish(undo_tx, "completed" if ok else "failed", describe(report))
    return report


def describe(report: UndoReport) -> str:
    tx = report.transaction
    if tx is None:
        return "Nothing to undo: I haven't changed anything that can be reverted."
    done = [s for s in report.steps if s.ok]
    failed = [s for s in report.steps if not s.ok]
    lines = []
    if done:
        lines.append(f"Done! Undid \u201c{tx.request}\u201d.")
        lines += [f"  (ran: {render(s.argv)})" for s in done]
    for s in failed:
        lines.append(f"Couldn't undo \u201c{s.title}\u201d: {s.output or 'it failed'}.")
        lines.append(f"  To do it by hand, run: {render(s.argv)}")
    return "\n".join(lines)
