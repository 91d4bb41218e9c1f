"""The journal: every transaction and step reos runs, written before it acts.

A step's row (with the prior state of its target and the undo computed from it) is
inserted before the command starts and completed after, so a crash leaves a record that
`reos undo` can still act on.

What is read back is not trusted: the database file can be edited, so every row is
checked by type as it is read (a damaged field becomes `StepRecord.problems`, never a
traceback), and a transaction is claimed for undoing with one conditional update under
a write lock (`claim_undo`), so two `reos undo` at once never revert it twice. A claim
whose process died is taken over, the way a dead "running" transaction is "interrupted".

Not responsible for computing prior state or undo commands (the execution layer hands
them in), for judging recorded commands (the gate does), nor for running anything.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from reos.model.plan import RESTARTS
from reos.store.db import Database, now

# Transaction statuses. "interrupted" is never stored: it is a "running" transaction whose
# process is gone (killed, crashed, or the machine rebooted).
RUNNING, COMPLETED, FAILED, UNDONE, PARTLY_UNDONE = (
    "running", "completed", "failed", "undone", "partly_undone",
)
INTERRUPTED = "interrupted"
# claimed by a `reos undo` that is still alive; a dead claimer's transaction reads as
# PARTLY_UNDONE (what it finished is marked per step) and can be claimed again
UNDOING = "undoing"
_CLAIMABLE = (COMPLETED, FAILED, PARTLY_UNDONE)
ROLLED_BACK = "rolled_back"  # failed, and reos undid its completed steps itself
# Transaction kinds besides "action" and "undo": a change made on other machines, and its
# undo there (reos.fleet.changing); this machine's undo never claims either
FLEET, FLEET_UNDO = "fleet", "fleet-undo"


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


class StepRecord(Struct):
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
    problems: list[str] = field(default_factory=list)  # what is wrong with the stored row
    edited: bool = False  # the person changed the command before approving it
    host: str | None = None  # the inventory host it ran on (fleet); None: this machine


class TransactionRecord(Struct):
    id: int
    request: str
    kind: str
    status: str
    started_at: str
    finished_at: str | None
    undoes: int | None
    summary: str | None
    steps: list[StepRecord] = field(default_factory=list)
    claimed_by: int | None = None  # the pid of the live `reos undo` reverting it
    inventory: list[str] | None = None  # a fleet change: the inventory that reached its hosts

    @property
    def undo_steps(self) -> list[StepRecord]:
        """Steps whose effect can still be reverted, newest first."""
        return [s for s in reversed(self.steps) if _revertible(s)]

    @property
    def undoable(self) -> bool:
        """A change on this machine that undo can still revert (a fleet change is undone
        on its hosts, by reos.fleet.changing, never here)."""
        return self.kind == "action" and self.revertible

    @property
    def revertible(self) -> bool:
        return (self.status in (COMPLETED, FAILED, INTERRUPTED, PARTLY_UNDONE)
                and bool(self.undo_steps))

    @property
    def hosts(self) -> list[str]:
        """The hosts a fleet change touched, in the order its steps ran."""
        return list(dict.fromkeys(s.host for s in self.steps if s.host))

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
                    "backups": [{k: b.get(k) for k in ("path", "sha256", "restored")}
                                for b in s.backups],
                    "problems": list(s.problems),
                    "edited": s.edited,
                    **({"host": s.host} if s.host else {}),
                }
                for s in self.steps
            ],
        }


class Journal:
    def __init__(self, db: Database):
        self.db = db

    def begin(self, request: str, kind: str = "action", undoes: int | None = None,
              inventory: list[str] | None = None) -> int:
        cur = self.db.connect().execute(
            "INSERT INTO transactions (request, kind, status, pid, boot_id, started_at, undoes,"
            " inventory) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (request, kind, RUNNING, os.getpid(), _boot_id(), now(), undoes,
             json.dumps(inventory) if inventory is not None else None),
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
        edited: bool = False,
        host: str | None = None,
        status: str = "running",
    ) -> int:
        cur = self.db.connect().execute(
            "INSERT INTO steps (tx_id, seq, step_id, title, argv, action, target_kind,"
            " target_name, prior_state, rollback, reversible, status, started_at, edited,"
            " host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                tx_id, seq, step_id, title, json.dumps(argv), action, target_kind, target_name,
                json.dumps(prior_state) if prior_state is not None else None,
                json.dumps(rollback) if rollback else None, int(reversible), status, now(),
                int(edited), host,
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
        names = [k for k in _BACKUP_COLUMNS if k in backup]
        self.db.connect().execute(
            f"INSERT INTO backups (step, {', '.join(names)})"
            f" VALUES (?{', ?' * len(names)})",
            (row, *(backup[k] for k in names)),
        )

    def mark_restored(self, row: int, backup_id: int | None = None) -> None:
        """Mark a step's backups restored (only `backup_id` when given)."""
        if backup_id is None:
            self.db.connect().execute("UPDATE backups SET restored = 1 WHERE step = ?", (row,))
        else:
            self.db.connect().execute(
                "UPDATE backups SET restored = 1 WHERE step = ? AND id = ?", (row, backup_id))

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
        return self._records(rows)

    def transaction(self, tx_id: int) -> TransactionRecord | None:
        """One transaction as it is now (re-read: another process may have changed it)."""
        rows = self.db.connect().execute(
            "SELECT * FROM transactions WHERE id = ?", (tx_id,)).fetchall()
        records = self._records(rows)
        return records[0] if records else None

    def _records(self, rows: list[Any]) -> list[TransactionRecord]:
        if not rows:
            return []
        conn = self.db.connect()
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
            status, claimed_by = _text(r["status"]), None
            if status == RUNNING and not _live(r["pid"], r["boot_id"], boot):
                status = INTERRUPTED
            elif status == UNDOING:
                if _live(r["claim_pid"], r["claim_boot"], boot):
                    claimed_by = r["claim_pid"]
                else:
                    status = PARTLY_UNDONE
            out.append(
                TransactionRecord(
                    id=r["id"], request=_text(r["request"]), kind=_text(r["kind"]),
                    status=status, started_at=_text(r["started_at"]),
                    finished_at=_optional_text(r["finished_at"]),
                    undoes=r["undoes"] if type(r["undoes"]) is int else None,
                    summary=_optional_text(r["summary"]), steps=steps[r["id"]],
                    claimed_by=claimed_by, inventory=_paths(r["inventory"]),
                )
            )
        return out

    def undoable(self, limit: int = 50) -> list[TransactionRecord]:
        return [t for t in self.transactions(limit=limit, kind="action") if t.undoable]

    def claim_undo(self, tx_id: int, *, own_running: bool = False, kind: str = "action",
                   ) -> bool:
        """Claim a transaction for undoing; False when it is not (or no longer) claimable.

        Atomic across processes: the check and the conditional update run under one write
        lock (BEGIN IMMEDIATE), so of two concurrent claims exactly one succeeds.
        Only a transaction of `kind` is claimed ("fleet": by reos.fleet.changing, which
        undoes on the hosts). Claimable: completed, failed or partly undone; "running" when
        its process is gone
        (interrupted) or, with `own_running`, when it is this process's own transaction
        (rollback on failure); "undoing" when the claimer died.
        """
        conn = self.db.connect()
        boot, me = _boot_id(), os.getpid()
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute(
                "SELECT kind, status, pid, boot_id, claim_pid, claim_boot FROM transactions"
                " WHERE id = ?", (tx_id,)).fetchone()
            status = row["status"] if row is not None else None
            claimable = row is not None and row["kind"] == kind and (
                status in _CLAIMABLE
                or (status == RUNNING and (not _live(row["pid"], row["boot_id"], boot) or (
                    own_running and row["pid"] == me and row["boot_id"] == boot)))
                or (status == UNDOING and not _live(row["claim_pid"], row["claim_boot"], boot))
            )
            won = False
            if claimable:
                cur = conn.execute(
                    "UPDATE transactions SET status = ?, claim_pid = ?, claim_boot = ?,"
                    " claimed_at = ? WHERE id = ? AND status = ?",
                    (UNDOING, me, boot, now(), tx_id, status))
                won = cur.rowcount == 1
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return won


def _live(pid: object, boot_id: object, boot: str) -> bool:
    return type(pid) is int and _alive(pid) and (boot_id or "") == boot


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def _optional_text(value: object) -> str | None:
    return None if value is None else _text(value)


def _paths(raw: object) -> list[str] | None:
    """A fleet change's inventory paths; None when there are none or the column is
    damaged (its hosts then cannot be reached to undo it, and undo says so)."""
    try:
        found = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return found if _words(found) else None


def _revertible(step: StepRecord) -> bool:
    saved = any(not b.get("restored") for b in step.backups)
    if step.status == "failed":  # it may have half-changed a file: put that back
        return saved
    # a damaged row stays listed so that undo reports it instead of skipping it silently;
    # so does a restart, so that undo says there is nothing to restore for it instead of
    # reverting an older change behind the person's back
    return step.status in ("done", "running") and (
        bool(step.rollback) or saved or bool(step.problems) or (
            step.status == "done" and step.action in RESTARTS))


_BACKUP_COLUMNS = ("path", "stored", "sha256", "mode", "uid", "gid", "ino", "dev", "dir",
                   "dir_ino", "dir_dev", "link")


def _json(raw: object, what: str, problems: list[str]) -> Any:
    """Decode one JSON column; a damaged one becomes a problem, never an exception."""
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        problems.append(f"its {what} is not text ({type(raw).__name__})")
        return None
    try:
        return json.loads(raw)
    except ValueError:
        problems.append(f"its {what} is not valid JSON")
        return None


def _words(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(a, str) for a in value)


def _step(s: Any) -> StepRecord:
    problems: list[str] = []
    argv = _json(s["argv"], "command", problems)
    if argv is not None and not _words(argv):
        problems.append(f"its command is not a list of words: {argv!r:.200}")
        argv = None
    prior = _json(s["prior_state"], "prior state", problems)
    if prior is not None and not isinstance(prior, dict):
        problems.append(f"its prior state is not a set of named values: {prior!r:.200}")
        prior = None
    rollback = _json(s["rollback"], "undo command", problems)
    if rollback is not None and not _words(rollback):
        problems.append(f"its undo command is not a list of words: {rollback!r:.200}")
        rollback = None
    return StepRecord(
        row=s["id"], seq=s["seq"] if type(s["seq"]) is int else 0,
        step_id=_text(s["step_id"]), title=_text(s["title"]),
        argv=argv or [], action=_optional_text(s["action"]),
        target_kind=_optional_text(s["target_kind"]),
        target_name=_optional_text(s["target_name"]),
        prior_state=prior, rollback=rollback or None,
        reversible=bool(s["reversible"]), status=_text(s["status"]),
        exit_code=s["exit_code"] if type(s["exit_code"]) is int else None,
        output=_text(s["output"]), problems=problems, edited=s["edited"] == 1,
        host=_optional_text(s["host"]),
    )
