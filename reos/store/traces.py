"""The reasoning audit trail in SQLite: one chain per request, linked to its transaction.

`Traces.record(chain)` stores a chain built by reos.memory.audit and prunes the
oldest beyond `keep`; `link` ties it to the journal transaction its plan ran as, and
`add_outcome` adds how that ended. Reads (`get`, `latest`, `recent`, `for_transaction`)
return `TraceRecord`s. The file can be edited by anyone who can write it, so what is read
back is not trusted: a row whose chain is not a JSON object reads as an "unreadable
trace" record with the problem said, never as a traceback.

Not responsible for what a chain says or for keeping secrets out of it (audit does that
before anything is stored; this module only re-checks the size), nor for showing it.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from msgspec import Struct, field

from reos.errors import JournalError
from reos.store.db import Database, now

MAX_CHAIN_BYTES = 64 * 1024  # a stored chain larger than this is refused (audit keeps 16 KB)


class TraceRecord(Struct):
    """One stored chain as read back; `problem` says why `chain` is empty."""

    id: int
    created_at: str
    request: str
    kind: str
    tx: int | None
    chain: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None

    @property
    def readable(self) -> bool:
        return self.problem is None

    def to_dict(self) -> dict[str, Any]:
        """The chain with where it is kept: the body of `reos trace --json`."""
        return {**self.chain, "trace_id": self.id, "created_at": self.created_at,
                "tx": self.tx, "request": self.chain.get("request", self.request),
                "kind": self.chain.get("kind", self.kind),
                **({"problem": self.problem} if self.problem else {})}


class Traces:
    def __init__(self, db: Database, keep: int = 500):
        self.db = db
        self.keep = max(1, int(keep))

    def record(self, chain: dict[str, Any]) -> int:
        """Store one chain; the oldest beyond `keep` are pruned. Returns its id."""
        text = _dumps(chain)
        try:
            with self.db.writing() as conn:
                cur = conn.execute(
                    "INSERT INTO traces (created_at, request, kind, tx, chain, size)"
                    " VALUES (?, ?, ?, NULL, ?, ?)",
                    (now(), _text(chain.get("request"))[:500], _text(chain.get("kind"))[:32],
                     text, len(text.encode())))
                trace_id = int(cur.lastrowid or 0)
                conn.execute("DELETE FROM traces WHERE id < (SELECT id FROM traces ORDER BY id DESC"
                             " LIMIT 1 OFFSET ?)", (self.keep - 1,))
        except sqlite3.Error as exc:
            raise JournalError(f"Cannot record the reasoning trace: {exc}.") from None
        return trace_id

    def link(self, trace_id: int, tx_id: int) -> bool:
        """Tie a trace to the transaction its plan ran as; False when either is unknown."""
        conn = self.db.connect()
        known = conn.execute("SELECT 1 FROM transactions WHERE id = ?", (tx_id,)).fetchone()
        if known is None:
            return False
        cur = conn.execute("UPDATE traces SET tx = ? WHERE id = ?", (tx_id, trace_id))
        return cur.rowcount == 1

    def add_outcome(self, trace_id: int, outcome: dict[str, Any]) -> bool:
        """Set how the trace's execution ended (replacing an earlier outcome: a resumed
        execution ends again). False when the trace is gone or unreadable. `outcome` is
        expected bounded and free of secrets (reos.memory.audit.outcome_of)."""
        with self.db.writing() as conn:
            row = conn.execute("SELECT * FROM traces WHERE id = ?", (trace_id,)).fetchone()
            record = _record(row) if row is not None else None
            if record is None or not record.readable:
                conn.execute("ROLLBACK")
                return False
            text = _dumps({**record.chain, "outcome": outcome})
            conn.execute("UPDATE traces SET chain = ?, size = ? WHERE id = ?",
                         (text, len(text.encode()), trace_id))
        return True

    def get(self, trace_id: int) -> TraceRecord | None:
        row = self.db.connect().execute("SELECT * FROM traces WHERE id = ?",
                                        (trace_id,)).fetchone()
        return _record(row) if row is not None else None

    def for_transaction(self, tx_id: int) -> TraceRecord | None:
        """The (latest) trace whose plan ran as transaction `tx_id`."""
        row = self.db.connect().execute(
            "SELECT * FROM traces WHERE tx = ? ORDER BY id DESC LIMIT 1", (tx_id,)).fetchone()
        return _record(row) if row is not None else None

    def latest(self) -> TraceRecord | None:
        found = self.recent(1)
        return found[0] if found else None

    def recent(self, n: int = 20, *, kinds: tuple[str, ...] | None = None) -> list[TraceRecord]:
        """The newest `n` traces, newest first (only of `kinds` when given)."""
        sql = "SELECT * FROM traces"
        args: tuple[str, ...] = ()
        if kinds:
            sql += f" WHERE kind IN ({','.join('?' * len(kinds))})"
            args = kinds
        rows = self.db.connect().execute(sql + " ORDER BY id DESC LIMIT ?",
                                         (*args, max(0, n))).fetchall()
        return [_record(r) for r in rows]

    def count(self) -> int:
        return int(self.db.connect().execute("SELECT COUNT(*) FROM traces").fetchone()[0])


def _dumps(chain: dict[str, Any]) -> str:
    if not isinstance(chain, dict):
        raise JournalError("A reasoning trace must be a set of named values.")
    text = json.dumps(chain, ensure_ascii=False, default=str)
    if len(text.encode()) > MAX_CHAIN_BYTES:
        raise JournalError(f"A reasoning trace of {len(text.encode())} bytes is too large to keep"
                           f" (at most {MAX_CHAIN_BYTES}).",
                           "Build traces with reos.memory.audit, which bounds them.")
    return text


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def _record(row: Any) -> TraceRecord:
    """A row as a record; a damaged chain becomes `problem`, never an exception."""
    problem, chain = None, {}
    raw = row["chain"]
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str):
        problem = f"unreadable trace: its chain is not text ({type(raw).__name__})"
    else:
        try:
            decoded = json.loads(raw)
        except (ValueError, RecursionError):
            problem = "unreadable trace: its chain is not valid JSON"
        else:
            if isinstance(decoded, dict):
                chain = decoded
            else:
                problem = "unreadable trace: its chain is not a set of named values"
    tx = row["tx"]
    return TraceRecord(
        id=row["id"] if type(row["id"]) is int else 0,
        created_at=_text(row["created_at"]), request=_text(row["request"]),
        kind=_text(row["kind"]), tx=tx if type(tx) is int else None,
        chain=chain, problem=problem)
