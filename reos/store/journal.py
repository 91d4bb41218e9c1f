"""The journal: every transaction and step reos runs, written before it acts.

A step's row (with the prior state of its target and the undo computed from it) is
inserted before the command starts and completed after, so a crash leaves a record that
`reos undo` can still act on. Not responsible for computing prior state or undo commands
(the execution layer hands them in) nor for running anything.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reos.store.db import Database, now

# Transaction statuses. "interrupted" is never stored: it is a "running" transaction whose
# process is gone (killed, crashed, or the machine rebooted).
RUNNING, COMPLETED, FAILED, UNDONE, PARTLY_UNDONE = (
    "running", "completed", "failed", "undone", "partly_undone",
)
INTERRUPTED = "interrupted"
ROLLED_BACK = "rolled_back"  # failed, and reos undid its completed steps itself


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class StepRecord:
    row: int
    seq: int
    step_id: str
    title: str
    argv: list[str]
    action: str | None
    target_kind: str | None
    target_name: str | None
    prior_state: dict[str, Any] | None
    rollback: list[str] | None
    reversible: bool
    status: str
    exit_code: int | None
    output: str
    backups: list[dict[str, Any]] = field(default_factory=list)  # files saved before it ran


@dataclass
class TransactionRecord:
    id: int
    request: str
    kind: str
    status: str
    started_at: str
    finished_at: str | None
    undoes: int | None
    summary: str | None
    steps: list[StepRecord] = field(default_factory=list)

    @property
    def undo_steps(self) -> list[StepRecord]:
        """Steps whose effect can still be reverted, newest first."""
        return [s for s in reversed(self.steps) if _revertible(s)]

    @property
    def undoable(self) -> bool:
        return (
            self.kind == "action"
            and self.status in (COMPLETED, FAILED, INTERRUPTED, PARTLY_UNDONE)
            and bool(self.undo_steps)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "request": self.request,
            "kind": self.kind,
            "status": self.status,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "undoes": self.undoes,
            "summary": self.summary,
            "undoable": self.undoable,
            "steps": [
                {
                    "id": s.step_id,
                    "title": s.title,
                    "argv": s.argv,
                    "status": s.status,
                    "exit_code": s.exit_code,
                    "prior_state": s.prior_state,
                    "rollback": s.rollback,
                    "reversible": s.reversible,
                    "backups": [{k: b[k] for k in ("path", "sha256", "restored")}
                                for b in s.backups],
                }
                for s in self.steps
            ],
        }


class Journal:
    def __init__(self, db: Database):
        self.db = db

    def begin(self, request: str, kind: str = "action", undoes: int | None = None) -> int:
        cur = self.db.connect().execute(
            "INSERT INTO transactions (request, kind, status, pid, boot_id, started_at, undoes)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (request, kind, RUNNING, os.getpid(), _boot_id(), now(), undoes),
        )
        return int(cur.lastrowid or 0)

    def finish(self, tx_id: int, status: str, summary: str | None = None) -> None:
        self.db.connect().execute(
            "UPDATE transactions SET status = ?, finished_at = ?, summary = ? WHERE id = ?",
            (status, now(), summary, tx_id),
        )

    def set_status(self, tx_id: int, status: str) -> None:
        self.db.connect().execute(
            "UPDATE transactions SET status = ? WHERE id = ?", (status, tx_id)
        )

    def begin_step(
        self,
        tx_id: int,
        seq: int,
        step_id: str,
        title: str,
        argv: list[str],
        *,
        action: str | None = None,
        target_kind: str | None = None,
        target_name: str | None = None,
        prior_state: dict[str, Any] | None = None,
        rollback: list[str] | None = None,
        reversible: bool = True,
    ) -> int:
        cur = self.db.connect().execute(
            "INSERT INTO steps (tx_id, seq, step_id, title, argv, action, target_kind,"
            " target_name, prior_state, rollback, reversible, status, started_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'running', ?)",
            (
                tx_id, seq, step_id, title, json.dumps(argv), action, target_kind, target_name,
                json.dumps(prior_state) if prior_state is not None else None,
                json.dumps(rollback) if rollback else None, int(reversible), now(),
            ),
        )
        return int(cur.lastrowid or 0)

    def finish_step(
        self, row: int, status: str, exit_code: int | None = None, output: str = ""
    ) -> None:
        self.db.connect().execute(
            "UPDATE steps SET status = ?, exit_code = ?, output = ?, finished_at = ?"
            " WHERE id = ?",
            (status, exit_code, output[-4000:], now(), row),
        )

    def set_undo(self, row: int, prior_state: dict[str, Any] | None,
                 rollback: list[str] | None) -> None:
        """Correct a step's prior state and undo once what it really changed is known."""
        self.db.connect().execute(
            "UPDATE steps SET prior_state = ?, rollback = ? WHERE id = ?",
            (json.dumps(prior_state) if prior_state is not None else None,
             json.dumps(rollback) if rollback else None, row),
        )

    def add_backup(self, row: int, backup: dict[str, Any]) -> None:
        self.db.connect().execute(
            "INSERT INTO backups (step, path, stored, sha256, mode, uid, gid)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row, backup["path"], backup["stored"], backup["sha256"], backup["mode"],
             backup["uid"], backup["gid"]),
        )

    def mark_restored(self, row: int) -> None:
        self.db.connect().execute("UPDATE backups SET restored = 1 WHERE step = ?", (row,))

    def mark_step(self, row: int, status: str) -> None:
        self.db.connect().execute("UPDATE steps SET status = ? WHERE id = ?", (status, row))

    def transactions(self, limit: int = 50, kind: str | None = None) -> list[TransactionRecord]:
        conn = self.db.connect()
        sql = "SELECT * FROM transactions"
        args: tuple[Any, ...] = ()
        if kind:
            sql += " WHERE kind = ?"
            args = (kind,)
        rows = conn.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
        if not rows:
            return []
        ids = [r["id"] for r in rows]
        marks = ",".join("?" * len(ids))
        steps: dict[int, list[StepRecord]] = {i: [] for i in ids}
        by_row: dict[int, StepRecord] = {}
        for s in conn.execute(
            f"SELECT * FROM steps WHERE tx_id IN ({marks}) ORDER BY tx_id, seq", ids
        ):
            record = _step(s)
            steps[s["tx_id"]].append(record)
            by_row[record.row] = record
        if by_row:
            step_marks = ",".join("?" * len(by_row))
            for b in conn.execute(
                    f"SELECT * FROM backups WHERE step IN ({step_marks}) ORDER BY id",
                    list(by_row)):
                by_row[b["step"]].backups.append(dict(b))
        boot = _boot_id()
        out = []
        for r in rows:
            status = r["status"]
            if status == RUNNING and (not _alive(r["pid"]) or (r["boot_id"] or "") != boot):
                status = INTERRUPTED
            out.append(
                TransactionRecord(
                    id=r["id"], request=r["request"], kind=r["kind"], status=status,
                    started_at=r["started_at"], finished_at=r["finished_at"],
                    undoes=r["undoes"], summary=r["summary"], steps=steps[r["id"]],
                )
            )
        return out

    def undoable(self, limit: int = 50) -> list[TransactionRecord]:
        return [t for t in self.transactions(limit=limit, kind="action") if t.undoable]


def _revertible(step: StepRecord) -> bool:
    saved = any(not b["restored"] for b in step.backups)
    if step.status == "failed":  # it may have half-changed a file: put that back
        return saved
    return step.status in ("done", "running") and (bool(step.rollback) or saved)


def _step(s: Any) -> StepRecord:
    return StepRecord(
        row=s["id"], seq=s["seq"], step_id=s["step_id"], title=s["title"],
        argv=json.loads(s["argv"]), action=s["action"], target_kind=s["target_kind"],
        target_name=s["target_name"],
        prior_state=json.loads(s["prior_state"]) if s["prior_state"] else None,
        rollback=json.loads(s["rollback"]) if s["rollback"] else None,
        reversible=bool(s["reversible"]), status=s["status"], exit_code=s["exit_code"],
        output=s["output"] or "",
    )
