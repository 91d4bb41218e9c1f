"""The knowledge base: what works on this machine, learned from real executions.

Per normalised command signature ("apt-get install *"): successes, failures by
category, the fixes that worked, failures in a row and timeouts. Reflection rules run
after each execution at no LLM cost and store findings (a signature failing 3 times in a
row, repeated timeouts, a template whose plans keep failing). Capped at
`max_learned_patterns` rows, oldest first out. Not responsible for deciding what to do
with what it knows (the engine and planner ask it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from reos.store.db import Database, now

PROACTIVE_AFTER = 3  # a fix needed this many times is applied up front
FLAG_AFTER = 3  # failures in a row before a signature is flagged
SLOW_AFTER = 2  # timeouts before a longer timeout is suggested
TEMPLATE_FAILURE_RATE = 0.5


def signature(argv: list[str]) -> str:
    """'sudo -n apt-get install -y htop' -> 'apt-get install *' (names are not learned)."""
    words = list(argv)
    while words and words[0] in ("sudo", "-n", "doas"):
        words = words[1:]
    if not words:
        return ""
    program = words[0].rsplit("/", 1)[-1]
    verb = next((w for w in words[1:] if not w.startswith("-") and "=" not in w), None)
    return f"{program} {verb} *" if verb else program


@dataclass
class Learned:
    signature: str
    successes: int
    failures: dict[str, int]
    fixes: dict[str, int]
    streak: int
    timeouts: int
    updated_at: str

    def to_dict(self) -> dict[str, Any]:
        return dict(vars(self))


class Knowledge:
    def __init__(self, db: Database, cap: int = 1000):
        self.db = db
        self.cap = cap

    def get(self, sig: str) -> Learned | None:
        row = self.db.connect().execute("SELECT * FROM learned WHERE signature = ?",
                                        (sig,)).fetchone()
        return _learned(row) if row else None

    def record(self, argv: list[str], ok: bool, category: str | None = None,
               fix: str | None = None, timed_out: bool = False) -> None:
        sig = signature(argv)
        if not sig:
            return
        conn = self.db.connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
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
            conn.execute(
                "INSERT OR REPLACE INTO learned VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sig, known.successes, json.dumps(known.failures), json.dumps(known.fixes),
                 known.streak, known.timeouts, now()))
            conn.execute(  # the cap: the least recently updated patterns go first
                "DELETE FROM learned WHERE signature IN (SELECT signature FROM learned "
                "ORDER BY updated_at DESC LIMIT -1 OFFSET ?)", (self.cap,))
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise

    def record_template(self, template: str | None, ok: bool) -> None:
        if not template:
            return
        self.db.connect().execute(
            "INSERT INTO template_outcomes VALUES (?, 1, ?) ON CONFLICT(template) DO UPDATE "
            "SET runs = runs + 1, failures = failures + excluded.failures",
            (template, int(not ok)))

    def proactive(self, sig: str) -> list[tuple[str, int]]:
        """Fixes needed at least PROACTIVE_AFTER times for this signature, with counts."""
        known = self.get(sig)
        if known is None:
            return []
        return [(fix, n) for fix, n in known.fixes.items() if n >= PROACTIVE_AFTER]

    def all(self) -> list[Learned]:
        rows = self.db.connect().execute("SELECT * FROM learned ORDER BY updated_at DESC")
        return [_learned(r) for r in rows]

    def findings(self) -> list[dict[str, str]]:
        rows = self.db.connect().execute("SELECT kind, subject, text, created_at FROM findings "
                                         "ORDER BY id DESC")
        return [dict(r) for r in rows]

    def flagged(self, sig: str) -> str | None:
        row = self.db.connect().execute(
            "SELECT text FROM findings WHERE kind = 'failing' AND subject = ?", (sig,)).fetchone()
        return row[0] if row else None

    def reflect(self) -> list[str]:
        """Rules over recent outcomes, run after each execution. Returns new findings."""
        conn = self.db.connect()
        new = []
        for known in self.all():
            if known.streak >= FLAG_AFTER:
                new += self._find("failing", known.signature,
                                  f"\u201c{known.signature}\u201d has failed {known.streak} "
                                  "times in a row here; I'll ask before trying it again.")
            elif known.streak == 0:
                conn.execute("DELETE FROM findings WHERE kind = 'failing' AND subject = ?",
                             (known.signature,))
            if known.timeouts >= SLOW_AFTER:
                new += self._find("slow", known.signature,
                                  f"\u201c{known.signature}\u201d timed out {known.timeouts} "
                                  "times; it probably needs a longer timeout on this machine.")
        for row in conn.execute("SELECT * FROM template_outcomes WHERE runs >= 3"):
            if row["failures"] / row["runs"] >= TEMPLATE_FAILURE_RATE:
                new += self._find("template", row["template"],
                                  f"Plans from the template {row['template']} failed "
                                  f"{row['failures']} of {row['runs']} times here.")
        return new

    def _find(self, kind: str, subject: str, text: str) -> list[str]:
        cur = self.db.connect().execute(
            "INSERT OR IGNORE INTO findings (kind, subject, text, created_at) VALUES "
            "(?, ?, ?, ?)", (kind, subject, text, now()))
        return [text] if cur.rowcount else []

    def forget(self) -> int:
        conn = self.db.connect()
        count = conn.execute("SELECT COUNT(*) FROM learned").fetchone()[0]
        conn.execute("DELETE FROM learned")
        conn.execute("DELETE FROM findings")
        conn.execute("DELETE FROM template_outcomes")
        return int(count)


def _learned(row: Any) -> Learned:
    return Learned(row["signature"], row["successes"], json.loads(row["failures"]),
                   json.loads(row["fixes"]), row["streak"], row["timeouts"], row["updated_at"])
