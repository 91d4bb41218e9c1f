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
from typing import Any

from reos.execution.runner import run_argv
from reos.model import StepResult, render
from reos.store.journal import PARTLY_UNDONE, UNDONE, Journal, StepRecord, TransactionRecord
from reos.system.state import current_state

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
    steps: list[UndoneStep] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

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
            "notes": list(self.notes),
            "message": describe(self),
        }


def _unchanged(step: StepRecord, probe: Callable[[str, str], dict[str, Any] | None]) -> bool:
    """For a step that was interrupted: did it in fact change nothing? (look, don't guess)"""
    if step.status != "running" or not step.target_kind or not step.target_name:
        return False
    prior = step.prior_state or {}
    now = probe(step.target_kind, step.target_name) or {}
    keys = ("active", "enabled") if step.target_kind == "service" else ("state",)
    return bool(prior) and all(prior.get(k) == now.get(k) for k in keys)


def undo_latest(journal: Journal, run: Callable[..., StepResult] = run_argv,
                probe: Callable[[str, str], dict[str, Any] | None] | None = None) -> UndoReport:
    candidates = journal.undoable()
    if not candidates:
        return UndoReport(transaction=None)
    return _undo(journal, candidates[0], run, probe)


def undo_transaction(journal: Journal, tx_id: int,
                     run: Callable[..., StepResult] = run_argv) -> UndoReport:
    """Undo one transaction (rollback on failure: the plan that just failed)."""
    tx = next((t for t in journal.transactions(limit=20, kind="action") if t.id == tx_id), None)
    if tx is None or not tx.undo_steps:
        return UndoReport(transaction=None)
    return _undo(journal, tx, run, None)


def _undo(journal: Journal, tx: TransactionRecord, run: Callable[..., StepResult],
          probe: Callable[[str, str], dict[str, Any] | None] | None) -> UndoReport:
    report = UndoReport(transaction=tx)
    undo_tx = journal.begin(f"undo: {tx.request}", kind="undo", undoes=tx.id)
    seq = 0
    for step in tx.undo_steps:
        ok = True
        for saved in reversed([b for b in step.backups if not b["restored"]]):
            seq += 1
            ok = _restore(journal, undo_tx, seq, step, saved, report) and ok
        if step.rollback and step.status != "failed" and _unchanged(step, probe or current_state):
            report.notes.append(f"\u201c{step.title}\u201d was interrupted before it changed "
                                "anything, so there was nothing to revert.")
        elif step.rollback and step.status != "failed":
            seq += 1
            title = f"Undo \u201c{step.title}\u201d"
            row = journal.begin_step(undo_tx, seq, f"u{seq}", title, step.rollback,
                                     target_kind=step.target_kind, target_name=step.target_name)
            result = run(step.rollback, timeout=UNDO_TIMEOUT, step_id=f"u{seq}")
            output = (result.stdout + result.stderr).strip()
            journal.finish_step(row, "done" if result.ok else "failed", result.exit_code, output)
            report.steps.append(UndoneStep(step.title, step.rollback, result.ok, output))
            ok = ok and result.ok
        journal.mark_step(step.row, "undone" if ok else "undo_failed")
    ok = all(s.ok for s in report.steps)
    journal.set_status(tx.id, UNDONE if ok else PARTLY_UNDONE)
    journal.finish(undo_tx, "completed" if ok else "failed", describe(report))
    return report


def _restore(journal: Journal, undo_tx: int, seq: int, step: StepRecord,
             saved: dict[str, object], report: UndoReport) -> bool:
    from reos.safety.backups import Backup, BackupStore

    backup = Backup(**{k: saved[k] for k in ("path", "stored", "sha256", "mode", "uid",
                                             "gid")})  # type: ignore[arg-type]
    equivalent = BackupStore.manual_command(backup).split()
    title = f"Restore {backup.path}" if backup.existed else f"Remove {backup.path}"
    row = journal.begin_step(undo_tx, seq, f"u{seq}", title, equivalent)
    try:
        BackupStore.restore(backup)
        ok, output = True, (f"restored from backup, sha256 {str(backup.sha256)[:12]}\u2026 "
                            "verified" if backup.existed else "removed the file the step created")
    except OSError as exc:
        ok, output = False, str(exc)
    journal.finish_step(row, "done" if ok else "failed", 0 if ok else 1, output)
    if ok:
        journal.mark_restored(step.row)
    report.steps.append(UndoneStep(title, equivalent, ok, output))
    return ok


def describe(report: UndoReport) -> str:
    tx = report.transaction
    if tx is None:
        return "Nothing to undo: I haven't changed anything that can be reverted."
    done = [s for s in report.steps if s.ok]
    failed = [s for s in report.steps if not s.ok]
    lines = []
    if tx.status == "interrupted":
        lines.append(f"\u201c{tx.request}\u201d was interrupted (reos was stopped while it "
                     "ran); I checked the real state before undoing it.")
    if done:
        lines.append(f"Done! Undid \u201c{tx.request}\u201d.")
        lines += [f"  ({s.output})  {s.title}" if s.argv[:1] in (["cp"], ["rm"])
                  else f"  (ran: {render(s.argv)})" for s in done]
    for s in failed:
        lines.append(f"Couldn't undo \u201c{s.title}\u201d: {s.output or 'it failed'}.")
        lines.append(f"  To do it by hand, run: {render(s.argv)}")
    lines += report.notes
    if not done and not failed and report.notes:
        lines.insert(0, f"Nothing to run for \u201c{tx.request}\u201d.")
    return "\n".join(lines)
