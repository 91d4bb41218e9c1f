"""The knowledge base: what happened when reos ran things on this machine, and findings.

Keeps, per normalised command signature ("apt-get install *"), the counters `reos learned`
shows (successes, failures by category, the fixes that worked, failures in a row,
timeouts), capped at `max_learned_patterns` rows, oldest first out; per operation (a
template or a catalogue operation id) its runs and failures; and the recent outcome
records (the last RECORDS_PER_SUBJECT per subject) that reflection reads, and the
findings. `reflect()`, run after each execution, hands those records to the rules it was
given (reos.memory.reflection.evaluate, passed in by the engine: the store never
imports memory), stores the findings with their evidence and suggestion, clears the
ones that no longer hold, and returns the new ones. The record and finding types live
here because they are what is kept.

Storage only: not responsible for the rules or for deciding what to do with what it
knows (the planner and executor ask it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from msgspec import Struct, field
from msgspec.structs import asdict

from reos.settings import ReflectionSettings
from reos.store.db import Database, now
from reos.system.privilege import SUDO

RECORDS_PER_SUBJECT = 100  # the recent history each rule reads, per command or operation
CLEARED_SHOWN = 20  # cleared findings kept for `reos learned`, newest first
KINDS = ("command", "template", "operation")  # what an outcome's subject is


def signature(argv: list[str]) -> str:
    """'sudo -n apt-get install -y htop' -> 'apt-get install *' (names are not learned)."""
    words = list(argv)
    while words and (words[0] in SUDO or words[0] == "doas"):
        words = words[1:]
    if not words:
        return ""
    program = words[0].rsplit("/", 1)[-1]
    verb = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), None)
    return f"{program} {verb} *" if verb else program


def _target(argv: list[str], sig: str) -> str | None:
    """What a command acted on: its last plain word after the verb ('nginx.service')."""
    plain = [w for w in argv if not w.startswith("-") and "=" not in w]
    last = plain[-1][:200] if plain else None
    return last if last and len(sig.split()) > 1 and last != sig.split()[1] else None


class Outcome(Struct, frozen=True):
    """One thing reos ran and how it went: a command (by signature) or an operation."""

    subject: str  # "apt-get install *", a template name, or a catalogue operation id
    ok: bool
    at: str  # when (ISO 8601, UTC)
    kind: str = "command"  # one of KINDS
    category: str | None = None  # the diagnosed category of a failure
    timed_out: bool = False
    verified: bool | None = None  # False: it ran, but the intended state was not reached
    fix: str | None = None  # the automatic fix that made it work
    target: str | None = None  # what it acted on, e.g. "reos-demo.service"


class Evidence(Struct, frozen=True):
    summary: str  # the numbers in words: "3 failures in a row (unknown ×3)"
    numbers: dict[str, float] = field(default_factory=dict)
    last: tuple[str, ...] = ()  # the last times it happened, newest first

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.summary, "numbers": dict(self.numbers), "last": list(self.last)}


class Finding(Struct, frozen=True):
    rule: str
    subject: str
    text: str  # one plain sentence: what happened
    evidence: Evidence
    suggestion: str  # what the person or reos should do
    cleared: bool = False  # it held, and a later run went right
    kind: str = "command"  # what the subject is (see Outcome.kind)
    created_at: str | None = None  # set by the store
    cleared_at: str | None = None

    def __str__(self) -> str:
        return f"{self.text} {self.suggestion}".strip()

    def to_dict(self) -> dict[str, Any]:
        # "kind" is the rule's name, as reos.learned/1 had it before rules had names
        return {"kind": self.rule, "rule": self.rule, "subject": self.subject,
                "subject_kind": self.kind, "text": self.text,
                "evidence": self.evidence.to_dict(), "suggestion": self.suggestion,
                "cleared": self.cleared, "created_at": self.created_at,
                "cleared_at": self.cleared_at}


class Learned(Struct):
    signature: str
    successes: int
    failures: dict[str, int]
    fixes: dict[str, int]
    streak: int
    timeouts: int
    updated_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Judge = Callable[[Sequence[Outcome], ReflectionSettings], list[Finding]]


class Knowledge:
    """`judge` is the rules (reos.memory.reflection.evaluate), given by whoever builds
    the knowledge base (the engine): without it, outcomes are kept and stored findings
    shown, but `reflect()` finds nothing and clears nothing."""

    def __init__(self, db: Database, cap: int = 1000,
                 reflection: ReflectionSettings | None = None, *, judge: Judge | None = None):
        self.db = db
        self.cap = cap
        self.reflection = reflection or ReflectionSettings()
        self.judge = judge

    def get(self, sig: str) -> Learned | None:
        row = self.db.connect().execute("SELECT * FROM learned WHERE signature = ?",
                                        (sig,)).fetchone()
        return _learned(row) if row else None

    def record(self, argv: list[str], ok: bool, category: str | None = None,
               fix: str | None = None, timed_out: bool = False,
               verified: bool | None = None) -> None:
        """One run of a command. `verified=False`: it ran but its intended state was not
        reached (a failure of category "verification" means the same when not given)."""
        sig = signature(argv)
        if not sig:
            return
        if verified is None and not ok and category == "verification":
            verified = False
        with self.db.writing() as conn:
            row = conn.execute("SELECT * FROM learned WHERE signature = ?", (sig,)).fetchone()
            known = _learned(row) if row else Learned(sig, 0, {}, {}, 0, 0, now())
            if ok:
                known.successes += 1
                known.streak = 0
            else:
                known.failures[category or "unknown"] = known.failures.get(
                    category or "unknown", 0) + 1
                known.streak += 1
            if fix:
                known.fixes[fix] = known.fixes.get(fix, 0) + 1
            known.timeouts += int(timed_out)
            at = now()
            conn.execute(
                "INSERT OR REPLACE INTO learned VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sig, known.successes, json.dumps(known.failures), json.dumps(known.fixes),
                 known.streak, known.timeouts, at))
            self._add_outcome(conn, "command", sig, ok, at, category=category,
                              timed_out=timed_out, verified=verified, fix=fix,
                              target=_target(argv, sig))
            capped = conn.execute(  # the cap: the least recently updated patterns go first
                "DELETE FROM learned WHERE signature IN (SELECT signature FROM learned "
                "ORDER BY updated_at DESC LIMIT -1 OFFSET ?)", (self.cap,)).rowcount
            if capped:
                conn.execute("DELETE FROM outcomes WHERE kind = 'command' AND subject NOT IN "
                             "(SELECT signature FROM learned)")

    def record_operation(self, operation: str | None, ok: bool,
                         kind: str = "operation") -> None:
        """One run of a plan made by a template (kind "template") or for a catalogue
        operation id ("service.restart")."""
        if not operation:
            return
        with self.db.writing() as conn:
            at = now()
            conn.execute(
                "INSERT INTO operation_outcomes VALUES (?, ?, 1, ?, ?) ON CONFLICT(kind, "
                "operation) DO UPDATE SET runs = runs + 1, failures = failures + "
                "excluded.failures, updated_at = excluded.updated_at",
                (kind, operation, int(not ok), at))
            self._add_outcome(conn, kind, operation, ok, at)
            capped = conn.execute(
                "DELETE FROM operation_outcomes WHERE (kind, operation) IN (SELECT kind, "
                "operation FROM operation_outcomes ORDER BY updated_at DESC LIMIT -1 "
                "OFFSET ?)", (self.cap,)).rowcount
            if capped:
                conn.execute("DELETE FROM outcomes WHERE kind != 'command' AND (kind, subject) "
                             "NOT IN (SELECT kind, operation FROM operation_outcomes)")

    def record_template(self, template: str | None, ok: bool) -> None:
        self.record_operation(template, ok, kind="template")

    def operations(self) -> list[dict[str, Any]]:
        """Runs and failures per template and catalogue operation, most recent first."""
        rows = self.db.connect().execute(
            "SELECT kind, operation, runs, failures, updated_at FROM operation_outcomes "
            "ORDER BY updated_at DESC")
        return [dict(r) for r in rows]

    def _add_outcome(self, conn: Any, kind: str, subject: str, ok: bool, at: str, *,
                     category: str | None = None, timed_out: bool = False,
                     verified: bool | None = None, fix: str | None = None,
                     target: str | None = None) -> None:
        conn.execute(
            "INSERT INTO outcomes (kind, subject, ok, category, timed_out, verified, fix, "
            "target, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (kind, subject, int(ok), category if not ok else None, int(timed_out),
             None if verified is None else int(verified), fix, target, at))
        conn.execute(  # only the recent history of each subject is kept
            "DELETE FROM outcomes WHERE kind = ? AND subject = ? AND id <= (SELECT id FROM "
            "outcomes WHERE kind = ? AND subject = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
            (kind, subject, kind, subject, RECORDS_PER_SUBJECT))

    def outcomes(self) -> list[Outcome]:
        """The recorded outcomes, oldest first: what reflection reads."""
        rows = self.db.connect().execute("SELECT * FROM outcomes ORDER BY id")
        return [Outcome(r["subject"], bool(r["ok"]), r["at"], r["kind"], r["category"],
                        bool(r["timed_out"]), None if r["verified"] is None
                        else bool(r["verified"]), r["fix"], r["target"]) for r in rows]

    def proactive(self, sig: str) -> list[tuple[str, int]]:
        """Fixes needed at least `[reflection] fix_repeats` times for this signature."""
        known = self.get(sig)
        if known is None:
            return []
        return [(fix, n) for fix, n in known.fixes.items() if n >= self.reflection.fix_repeats]

    def all(self) -> list[Learned]:
        rows = self.db.connect().execute("SELECT * FROM learned ORDER BY updated_at DESC")
        return [_learned(r) for r in rows]

    def current(self, include_cleared: bool = False) -> list[Finding]:
        """Stored findings, newest first: those that hold, then (if asked) the latest
        cleared ones."""
        conn = self.db.connect()
        rows = list(conn.execute("SELECT * FROM findings WHERE cleared_at IS NULL "
                                 "ORDER BY id DESC"))
        if include_cleared:
            rows += conn.execute("SELECT * FROM findings WHERE cleared_at IS NOT NULL "
                                 "ORDER BY cleared_at DESC LIMIT ?", (CLEARED_SHOWN,))
        return [_finding(r) for r in rows]

    def findings(self, include_cleared: bool = False) -> list[dict[str, Any]]:
        """Stored findings as dicts (kind, subject, text, created_at, evidence, ...)."""
        return [f.to_dict() for f in self.current(include_cleared)]

    def flagged(self, sig: str) -> str | None:
        """The warning for a command that keeps failing here, or None."""
        row = self.db.connect().execute(
            "SELECT text, suggestion FROM findings WHERE kind = 'failing' AND subject = ? "
            "AND cleared_at IS NULL", (sig,)).fetchone()
        return f"{row[0]} {row[1]}".strip() if row else None

    def reflect(self, settings: ReflectionSettings | None = None) -> list[Finding]:
        """Run the rules over the recorded outcomes (after each execution); store what they
        find, clear what no longer holds, and return the findings that are new."""
        if self.judge is None:
            return []
        found = self.judge(self.outcomes(), settings or self.reflection)
        with self.db.writing() as conn:
            stored = {(r["kind"], r["subject"]): r for r in conn.execute(
                "SELECT * FROM findings")}
            at, new = now(), []
            holding = {(f.rule, f.subject) for f in found if not f.cleared}
            cleared = {(f.rule, f.subject): f for f in found if f.cleared}
            for f in found:
                if f.cleared:
                    continue
                row = stored.get((f.rule, f.subject))
                fresh = row is None or row["cleared_at"] is not None
                conn.execute(
                    "INSERT INTO findings (kind, subject, text, created_at, subject_kind, "
                    "evidence, suggestion, cleared_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL) "
                    "ON CONFLICT(kind, subject) DO UPDATE SET text = excluded.text, "
                    "evidence = excluded.evidence, suggestion = excluded.suggestion, "
                    "subject_kind = excluded.subject_kind, cleared_at = NULL, "
                    "created_at = CASE WHEN findings.cleared_at IS NULL THEN "
                    "findings.created_at ELSE excluded.created_at END",
                    (f.rule, f.subject, f.text, at, f.kind,
                     json.dumps(f.evidence.to_dict()), f.suggestion))
                if fresh:
                    new.append(Finding(f.rule, f.subject, f.text, f.evidence, f.suggestion,
                                       kind=f.kind, created_at=at))
            for key, row in stored.items():
                if row["cleared_at"] is not None or key in holding:
                    continue
                why = cleared.get(key)
                conn.execute(
                    "UPDATE findings SET cleared_at = ?, text = ?, evidence = ?, "
                    "suggestion = '' WHERE id = ?",
                    (at, why.text if why else row["text"],
                     json.dumps(why.evidence.to_dict()) if why else row["evidence"],
                     row["id"]))
            conn.execute(  # cleared findings beyond the newest few are forgotten
                "DELETE FROM findings WHERE cleared_at IS NOT NULL AND id NOT IN (SELECT id "
                "FROM findings WHERE cleared_at IS NOT NULL ORDER BY cleared_at DESC "
                "LIMIT ?)", (CLEARED_SHOWN,))
        return new

    def forget(self) -> int:
        conn = self.db.connect()
        count = conn.execute("SELECT COUNT(*) FROM learned").fetchone()[0]
        conn.execute("DELETE FROM learned")
        conn.execute("DELETE FROM findings")
        conn.execute("DELETE FROM operation_outcomes")
        conn.execute("DELETE FROM outcomes")
        return int(count)


def _learned(row: Any) -> Learned:
    return Learned(row["signature"], row["successes"], json.loads(row["failures"]),
                   json.loads(row["fixes"]), row["streak"], row["timeouts"], row["updated_at"])


def _finding(row: Any) -> Finding:
    try:
        data = json.loads(row["evidence"] or "{}")
    except ValueError:
        data = {}
    evidence = Evidence(str(data.get("summary", "")), dict(data.get("numbers") or {}),
                        tuple(str(t) for t in data.get("last") or ()))
    return Finding(row["kind"], row["subject"], row["text"], evidence, row["suggestion"],
                   cleared=row["cleared_at"] is not None, kind=row["subject_kind"],
                   created_at=row["created_at"], cleared_at=row["cleared_at"])
