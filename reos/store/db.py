"""Opening the reos database: WAL, busy timeout, one connection per thread, migrations.

Schema changes are ordered, named functions recorded in the `migrations` table; a
migration that ran is never run again, and a new one is appended, never edited.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from reos.errors import JournalError

# the schema's history, in order: each function below marked @migration, by its name
# without "_m" ("001_journal"); append new ones at the end, never edit or reorder
MIGRATIONS: list[tuple[str, Callable[[sqlite3.Connection], None]]] = []


def migration(change: Callable[[sqlite3.Connection], None]
              ) -> Callable[[sqlite3.Connection], None]:
    MIGRATIONS.append((change.__name__.removeprefix("_m"), change))
    return change


def _statements(db: sqlite3.Connection, script: str) -> None:
    # not executescript(): it commits first, which would break the migration transaction
    for statement in script.split(";\n"):
        if statement.strip():
            db.execute(statement)


@migration
def _m001_journal(db: sqlite3.Connection) -> None:
    _statements(
        db,
        """
        CREATE TABLE transactions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            request TEXT NOT NULL,
            kind TEXT NOT NULL,              -- action | undo
            status TEXT NOT NULL,            -- running | completed | failed | undone | ...
            pid INTEGER,
            boot_id TEXT,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            undoes INTEGER REFERENCES transactions(id),
            summary TEXT
        );
        CREATE TABLE steps (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            tx_id INTEGER NOT NULL REFERENCES transactions(id),
            seq INTEGER NOT NULL,
            step_id TEXT NOT NULL,
            title TEXT NOT NULL,
            argv TEXT NOT NULL,              -- JSON list
            action TEXT,
            target_kind TEXT,
            target_name TEXT,
            prior_state TEXT,                -- JSON, recorded before the step runs
            rollback TEXT,                   -- JSON argv computed from prior_state, or NULL
            reversible INTEGER NOT NULL DEFAULT 1,
            status TEXT NOT NULL,            -- running | done | failed | skipped | undone
            exit_code INTEGER,
            output TEXT,
            started_at TEXT NOT NULL,
            finished_at TEXT
        );
        CREATE INDEX steps_by_tx ON steps(tx_id, seq);
        """
    )


@migration
def _m002_backups(db: sqlite3.Connection) -> None:
    _statements(
        db,
        """
        CREATE TABLE backups (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            step INTEGER NOT NULL REFERENCES steps(id),
            path TEXT NOT NULL,
            stored TEXT,                     -- NULL: the file did not exist before the step
            sha256 TEXT,
            mode INTEGER,
            uid INTEGER,
            gid INTEGER,
            restored INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX backups_by_step ON backups(step);
        """,
    )


@migration
def _m003_knowledge(db: sqlite3.Connection) -> None:
    _statements(
        db,
        """
        CREATE TABLE learned (
            signature TEXT PRIMARY KEY,      -- a normalised command, e.g. "apt-get install *"
            successes INTEGER NOT NULL DEFAULT 0,
            failures TEXT NOT NULL DEFAULT '{}',   -- JSON: category -> count
            fixes TEXT NOT NULL DEFAULT '{}',      -- JSON: fix that worked -> count
            streak INTEGER NOT NULL DEFAULT 0,     -- failures in a row, most recent first
            timeouts INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE findings (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,              -- failing | slow | template
            subject TEXT NOT NULL,
            text TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (kind, subject)
        );
        CREATE TABLE template_outcomes (
            template TEXT PRIMARY KEY,
            runs INTEGER NOT NULL DEFAULT 0,
            failures INTEGER NOT NULL DEFAULT 0
        );
        """,
    )


@migration
def _m004_undo_claims(db: sqlite3.Connection) -> None:
    # who is undoing a transaction (status 'undoing'), so a second `reos undo` keeps off
    # it and a dead claimer's claim can be taken over; and, per backup, the identity of the
    # file and of its folder, so a restore can tell that something else was put there
    _statements(
        db,
        """
        ALTER TABLE transactions ADD COLUMN claim_pid INTEGER;
        ALTER TABLE transactions ADD COLUMN claim_boot TEXT;
        ALTER TABLE transactions ADD COLUMN claimed_at TEXT;
        ALTER TABLE backups ADD COLUMN ino INTEGER;
        ALTER TABLE backups ADD COLUMN dev INTEGER;
        ALTER TABLE backups ADD COLUMN dir TEXT;
        ALTER TABLE backups ADD COLUMN dir_ino INTEGER;
        ALTER TABLE backups ADD COLUMN dir_dev INTEGER
        """,
    )


@migration
def _m005_link_backups(db: sqlite3.Connection) -> None:
    # a symbolic link is backed up as where it pointed, never copied through
    db.execute("ALTER TABLE backups ADD COLUMN link TEXT")


@migration
def _m006_traces(db: sqlite3.Connection) -> None:
    # the reasoning audit trail: one chain per request (what reos decided and why, never
    # command output), linked to its transaction once it runs; kind is the plan's kind
    _statements(
        db,
        """
        CREATE TABLE traces (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            created_at TEXT NOT NULL,
            request TEXT NOT NULL,
            kind TEXT NOT NULL,              -- query | action | combined | clarify | ...
            tx INTEGER REFERENCES transactions(id),
            chain TEXT NOT NULL,             -- JSON, reos.trace/1, bounded in size
            size INTEGER NOT NULL            -- bytes of chain
        );
        CREATE INDEX traces_by_tx ON traces(tx)
        """,
    )


@migration
def _m007_reflection(db: sqlite3.Connection) -> None:
    # reflection's rules read outcome records (when, how, which fix) rather than counters;
    # findings keep their evidence and suggestion and are cleared, not deleted; template
    # counts become operation counts (templates and catalogue operations)
    _statements(
        db,
        """
        CREATE TABLE outcomes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,              -- command | template | operation
            subject TEXT NOT NULL,           -- a command signature or an operation's id
            ok INTEGER NOT NULL,
            category TEXT,                   -- a failure's diagnosed category
            timed_out INTEGER NOT NULL DEFAULT 0,
            verified INTEGER,                -- 0: the intended state was not reached
            fix TEXT,                        -- the automatic fix that made it work
            target TEXT,
            at TEXT NOT NULL
        );
        CREATE INDEX outcomes_by_subject ON outcomes(kind, subject, id);
        CREATE TABLE operation_outcomes (
            kind TEXT NOT NULL,              -- template | operation
            operation TEXT NOT NULL,
            runs INTEGER NOT NULL DEFAULT 0,
            failures INTEGER NOT NULL DEFAULT 0,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (kind, operation)
        );
        ALTER TABLE findings ADD COLUMN subject_kind TEXT NOT NULL DEFAULT 'command';
        ALTER TABLE findings ADD COLUMN evidence TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE findings ADD COLUMN suggestion TEXT NOT NULL DEFAULT '';
        ALTER TABLE findings ADD COLUMN cleared_at TEXT;
        UPDATE findings SET kind = 'failure_rate', subject_kind = 'template'
            WHERE kind = 'template'
        """,
    )
    db.execute("INSERT INTO operation_outcomes SELECT 'template', template, runs, failures, ? "
               "FROM template_outcomes", (now(),))
    db.execute("DROP TABLE template_outcomes")
    # what the counters knew becomes records, so a flagged command stays flagged and a
    # learned fix stays learned: the streak's failures last, all at the last update
    keep = 100
    for row in db.execute("SELECT * FROM learned").fetchall():
        sig, at = row[0], row[6]
        failures = json.loads(row[2] or "{}")
        fixes = [f for f, n in json.loads(row[3] or "{}").items() for _ in range(min(n, keep))]
        streak, timeouts = row[4], row[5]
        earlier = min(max(sum(failures.values()) - streak, 0), keep)
        records: list[tuple[int, str | None, str | None]] = [(0, "unknown", None)] * earlier
        records += [(1, None, fixes[i] if i < len(fixes) else None)
                    for i in range(min(max(row[1], len(fixes)), keep))]
        category = max(failures, key=failures.get) if failures else "unknown"
        records += [(0, category, None)] * min(streak, keep)
        failed = [i for i, r in enumerate(records) if not r[0]]
        slow = set(failed[-timeouts:]) if timeouts else set()
        for i, (ok, cat, fix) in enumerate(records):
            db.execute("INSERT INTO outcomes (kind, subject, ok, category, timed_out, fix, at) "
                       "VALUES ('command', ?, ?, ?, ?, ?, ?)",
                       (sig, ok, cat, int(i in slow), fix, at))
    for kind, name, runs, failures, at in db.execute(
            "SELECT * FROM operation_outcomes").fetchall():
        for ok in [0] * min(failures, keep) + [1] * min(runs - failures, keep):
            db.execute("INSERT INTO outcomes (kind, subject, ok, at) VALUES (?, ?, ?, ?)",
                       (kind, name, ok, at))


@migration
def _m008_edited_steps(db: sqlite3.Connection) -> None:
    # a step whose command the person edited before approving it (the plan's own command
    # was replaced; what ran is in argv)
    db.execute("ALTER TABLE steps ADD COLUMN edited INTEGER NOT NULL DEFAULT 0")


@migration
def _m009_fleet(db: sqlite3.Connection) -> None:
    # a change made on other machines (transactions.kind 'fleet'): which inventory reached
    # them (JSON list of paths) and, per step, the host it ran on (NULL: this machine)
    _statements(
        db,
        """
        ALTER TABLE transactions ADD COLUMN inventory TEXT;
        ALTER TABLE steps ADD COLUMN host TEXT
        """,
    )




def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


_OTHERS = 0o077  # permission bits for the group and everyone else


def make_private(folder: Path) -> list[str]:
    """Keep reos's data to its owner: `folder` (made if missing) and its backups folder
    0700, the database and its WAL files 0600. Returns what had to be tightened (an older
    reos created them readable by every local user), in words, or [] when nothing was."""
    notes: list[str] = []
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for path in (folder, *(folder / n for n in ("reos.db", "reos.db-wal", "reos.db-shm",
                                                 "backups"))):
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            continue
        if mode & _OTHERS:
            path.chmod(mode & ~_OTHERS)
            notes.append(f"{path} was readable by other users ({mode:o}); reos made it "
                         f"private ({mode & ~_OTHERS:o})")
    return notes


def _create_private(path: Path) -> None:
    """The database file, created 0600 before SQLite opens it (SQLite gives its WAL files
    the database file's mode), so no other user reads requests, commands or output."""
    import os

    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass


class Database:
    """Connections to one database file, one per thread, migrated on first open; the
    folder is kept 0700 and the file 0600 (`make_private`)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.tightened: list[str] = []  # what `make_private` had to tighten on opening
        self._local = threading.local()
        self._migrated = False
        self._lock = threading.Lock()

    def connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        try:
            self.tightened = make_private(self.path.parent)
            _create_private(self.path)
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
        except (OSError, sqlite3.Error) as exc:
            raise JournalError(
                f"Cannot open the reos database {self.path}: {exc}.",
                "Check that the directory is writable (REOS_HOME moves it).",
            ) from None
        self._local.conn = conn
        with self._lock:
            if not self._migrated:
                self._migrate(conn)
                self._migrated = True
        return conn

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """This thread's connection inside one write transaction (BEGIN IMMEDIATE: other
        writers wait), committed when the block ends, rolled back when it raises."""
        conn = self.connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        if conn.in_transaction:
            conn.execute("COMMIT")

    def _migrate(self, conn: sqlite3.Connection) -> None:
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT)"
            )
            done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
            for name, migrate in MIGRATIONS:
                if name not in done:
                    migrate(conn)
                    conn.execute("INSERT INTO migrations VALUES (?, ?)", (name, now()))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise JournalError(f"Cannot prepare the reos database {self.path}: {exc}.") from None

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
