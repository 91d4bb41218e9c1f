"""Undo: revert the newest undoable transaction from the prior states it recorded.

Runs each completed step's recorded restore command, newest first, as its own journaled
"undo" transaction, and reports exactly what it ran. A restore that fails is reported
with the command to run by hand and is not retried forever: it no longer blocks undoing
older transactions.

The journal is read as untrusted input. The transaction is first claimed atomically
(`Journal.claim_undo`), so a second `reos undo` running at the same moment says it is
already being undone instead of reverting it twice. A recorded undo command runs only
when it is one reos itself derives from that step's action, target and prior state
(`rederive.expected_rollbacks`) and the one gate (`reos.safety.gate.admit_argv`) admits
it right before it would run; anything else, or a damaged row, is reported and never
run. A recorded package removal (the undo of an install) runs only when the package
manager's dry run says it removes no more than it names (`packages.takes_more`): a package
installed since that depends on it is never taken with it. File restores go through
`BackupStore.restore`, which refuses to write through symbolic links or over a file
someone else put in place.

A restart or reload (`reos.model.plan.RESTARTS`) has no prior state: undo says it cannot be
undone and that there is nothing to restore, runs nothing for it (not even a command an
older journal recorded for it), and still reverts the other steps of its transaction; a
transaction of restarts alone is answered so, never skipped for an older one.

Not responsible for computing restore commands (the executor records them when a step
runs; `rederive` works them out again to check what the journal says), for judging
commands (the gate does), or for understanding the word "undo".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reos.execution.rederive import expected_rollbacks, renewed
from reos.execution.runner import run_argv
from reos.model.plan import RESTARTS, render, restarts
from reos.model.report import StepResult, UndoneStep, UndoReport
from reos.store.journal import (
    PARTLY_UNDONE,
    UNDOING,
    UNDONE,
    Journal,
    StepRecord,
    TransactionRecord,
)
from reos.system.privilege import strip_sudo
from reos.system.state import current_state

__all__ = ["describe", "undo_latest", "undo_transaction"]

UNDO_TIMEOUT = 120.0


def _unchanged(step: StepRecord, probe: Callable[[str, str], dict[str, Any] | None]) -> bool:
    """For a step that was interrupted: did it in fact change nothing? (look, don't guess)"""
    if step.status != "running" or not step.target_kind or not step.target_name:
        return False
    prior = step.prior_state or {}
    now = probe(step.target_kind, step.target_name)
    if not isinstance(now, dict):
        return False
    keys = ("active", "enabled") if step.target_kind == "service" else ("state",)
    return bool(prior) and all(prior.get(k) == now.get(k) for k in keys)


def undo_latest(journal: Journal, run: Callable[..., StepResult] = run_argv,
                probe: Callable[[str, str], dict[str, Any] | None] | None = None) -> UndoReport:
    """Undo the newest action that can be undone; if another reos is undoing it right now,
    say so and do nothing (never skip to an older one behind its back)."""
    for tx in journal.transactions(limit=50, kind="action"):
        if tx.status == UNDOING:
            return _busy(tx, tx.claimed_by)
        if tx.undoable:
            return _claimed(journal, tx, run, probe, own_running=False)
    return UndoReport(transaction=None)


def undo_transaction(journal: Journal, tx_id: int,
                     run: Callable[..., StepResult] = run_argv) -> UndoReport:
    """Undo one transaction (rollback on failure: the plan that just failed)."""
    tx = journal.transaction(tx_id)
    if tx is None or tx.kind != "action" or not tx.undo_steps:
        return UndoReport(transaction=None)
    return _claimed(journal, tx, run, None, own_running=True)


def _claimed(journal: Journal, seen: TransactionRecord, run: Callable[..., StepResult],
             probe: Callable[[str, str], dict[str, Any] | None] | None,
             own_running: bool) -> UndoReport:
    if not journal.claim_undo(seen.id, own_running=own_running):
        now = journal.transaction(seen.id)
        return _busy(now, now.claimed_by if now else None)
    # re-read after claiming: a claimer that died may have reverted some steps already
    tx = journal.transaction(seen.id)
    assert tx is not None
    tx.status = seen.status  # as it was before the claim (e.g. "interrupted"), for the report
    return _undo(journal, tx, run, probe)


def _busy(tx: TransactionRecord | None, pid: int | None) -> UndoReport:
    """Another reos claimed it first (-1: it finished before we could see who)."""
    return UndoReport(transaction=tx, busy_with=pid or -1)


def _undo(journal: Journal, tx: TransactionRecord, run: Callable[..., StepResult],
          probe: Callable[[str, str], dict[str, Any] | None] | None) -> UndoReport:
    report = UndoReport(transaction=tx)
    undo_tx = journal.begin(f"undo: {tx.request}", kind="undo", undoes=tx.id)
    seq = 0
    for step in tx.undo_steps:
        ok = True
        for saved in reversed([b for b in step.backups if not b.get("restored")]):
            seq += 1
            ok = _restore(journal, undo_tx, seq, step, saved, report) and ok
        refused = False
        if _restarted_what_ran(step):
            report.notes.append(nothing_to_restore(step.title))
        elif step.problems and step.status != "failed":
            seq += 1
            refused = True
            _damaged(journal, undo_tx, seq, step, report)
        elif step.rollback and step.status != "failed" and _unchanged(
                step, probe or current_state):
            report.notes.append(f"\u201c{step.title}\u201d was interrupted before it changed "
                                "anything, so there was nothing to revert.")
        elif step.rollback and step.status != "failed":
            seq += 1
            done = _run_rollback(journal, undo_tx, seq, step, run, report)
            refused = done is None
            ok = ok and bool(done)
        journal.mark_step(step.row, "undo_refused" if refused else
                          "undone" if ok else "undo_failed")
    ok = all(s.ok for s in report.steps)
    journal.set_status(tx.id, UNDONE if ok else PARTLY_UNDONE)
    journal.finish(undo_tx, "completed" if ok else "failed", describe(report))
    return report


def _restarted_what_ran(step: StepRecord) -> bool:
    """A step that only restarted or reloaded something running (`reos.model.plan.restarts`):
    nothing to put back. An older journal may hold a "start" as its undo (what was
    running is started): that is nothing to run either. A restart of something stopped
    has "stop" as its undo, and runs it."""
    if step.action not in RESTARTS or not restarts(step.argv) or step.status != "done" \
            or step.problems:
        return False
    undo = strip_sudo(step.rollback or [])
    return not undo or (len(undo) > 1 and undo[1] == "start")


def nothing_to_restore(title: str) -> str:
    return (f"\u201c{title}\u201d cannot be undone: there is nothing to restore (a restart "
            "or reload leaves nothing to put back), so I ran nothing for it.")


def _run_rollback(journal: Journal, undo_tx: int, seq: int, step: StepRecord,
                  run: Callable[..., StepResult], report: UndoReport) -> bool | None:
    """Run the step's recorded undo if the gate admits it, and, for a package removal,
    only when it takes no more than it names now (packages.takes_more): True/False, or
    None (refused)."""
    from reos.execution.packages import takes_more
    from reos.safety.gate import admit_argv

    expected = expected_rollbacks(step, _manager())
    argv = renewed(step.rollback or [], expected) or step.rollback or []
    title = f"Undo \u201c{step.title}\u201d"
    row = journal.begin_step(undo_tx, seq, f"u{seq}", title, argv,
                             target_kind=step.target_kind, target_name=step.target_name)
    admission = admit_argv(argv, approved=True, undoing=True)
    reason: str | None
    if admission.allowed and argv not in expected:
        reason = ("it is not the undo reos works out from that step's action, target and "
                  "prior state (the journal may have been changed)")
    else:
        reason = None if admission.allowed else (admission.reason or
                                                 "the safety check refused it")
    if reason is None:  # only once the argv is reos's own: its names are package names
        reason = takes_more(argv, _manager())
    if reason is not None:
        output = (f"I didn't run the recorded undo `{render(argv)}` because "
                  f"{reason}; check it and run it by hand if it is right")
        journal.finish_step(row, "blocked", None, output)
        report.steps.append(UndoneStep(step.title, argv, False, output, refused=True))
        return None
    result = run(argv, timeout=UNDO_TIMEOUT, step_id=f"u{seq}")
    output = (result.stdout + result.stderr).strip()
    journal.finish_step(row, "done" if result.ok else "failed", result.exit_code, output)
    report.steps.append(UndoneStep(step.title, argv, result.ok, output))
    return result.ok


def _damaged(journal: Journal, undo_tx: int, seq: int, step: StepRecord,
             report: UndoReport) -> None:
    """A step whose journal row is damaged: say what is wrong, run nothing."""
    output = ("its journal record is damaged (" + "; ".join(step.problems) + "), so I "
              "didn't run anything for it; check what it changed and undo that by hand")
    row = journal.begin_step(undo_tx, seq, f"u{seq}", f"Undo \u201c{step.title}\u201d",
                             ["#", "damaged", "journal", "row", str(step.row)])
    journal.finish_step(row, "blocked", None, output)
    report.steps.append(UndoneStep(step.title, [], False, output, refused=True))


def _restore(journal: Journal, undo_tx: int, seq: int, step: StepRecord,
             saved: dict[str, object], report: UndoReport) -> bool:
    from reos.safety.backups import Backup, BackupStore, may_change_owner

    try:
        backup = Backup.from_dict(saved)
    except ValueError as exc:
        where = saved.get("path") if isinstance(saved.get("path"), str) else "a file"
        output = f"the journal's record of the backup of {where} is damaged ({exc}); " \
            "I didn't touch the file"
        row = journal.begin_step(undo_tx, seq, f"u{seq}", "Restore a file",
                                 ["#", "damaged", "backup", "row", str(saved.get("id"))])
        journal.finish_step(row, "blocked", None, output)
        report.steps.append(UndoneStep(f"Restore a file for \u201c{step.title}\u201d", [],
                                       False, output, refused=True))
        return False
    equivalent = BackupStore.manual_command(backup).split()
    title = f"Restore {backup.path}" if backup.existed else f"Remove {backup.path}"
    row = journal.begin_step(undo_tx, seq, f"u{seq}", title, equivalent)
    refused = False
    try:
        output = BackupStore.restore(backup, owner_may_change=may_change_owner(step.argv))
        ok = True
    except OSError as exc:
        from reos.safety.restore import Refused

        refused = isinstance(exc, Refused)
        ok, output = False, (exc.strerror or str(exc))
        if refused and backup.stored:
            output += f" (the saved copy is {backup.stored})"
    journal.finish_step(row, "done" if ok else "blocked" if refused else "failed",
                        0 if ok else None if refused else 1, output)
    if ok:
        backup_id = saved.get("id")
        journal.mark_restored(step.row, backup_id if type(backup_id) is int else None)
    report.steps.append(UndoneStep(title, equivalent, ok, output, refused=refused))
    return ok


def _manager() -> str | None:
    from reos.system.portable import package_manager

    return package_manager()


def describe(report: UndoReport) -> str:
    """What undo did, in words (kept here for its callers; the report says it itself)."""
    return report.describe()
