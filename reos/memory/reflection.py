"""Reflection as a rule engine: findings from what happened when reos ran things here.

The rules are data (`RULES`): each names what it watches, the `[reflection]` settings
that are its thresholds, a function that reads the outcome records, a sentence, and a
suggested action. `evaluate()` runs every rule over plain `Outcome` records passed in
(oldest first) and returns `Finding`s, each with its evidence (the numbers and the last
times it happened) and whether it is cleared (it held, and then things went right).

The rules: a command failing N times in a row; a command timing out again and again; an
operation (a template or a catalogue operation) failing on most of its runs (a command
failing often is what failures in a row are for);
a fix needed again and again (the planner then applies it up front); a step whose
intended state is not reached again and again.

Pure: no database, no clock, no model, no I/O. The records and findings are the store's
types (reos.store.knowledge keeps them); the store runs these rules only when it is
given `evaluate` (the engine composes the two: store never imports reasoning). Not
responsible for keeping records or findings, for acting on a finding (the planner and
executor), or for wording a summary with a model (reos.llm.reflect).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct

from reos.store.knowledge import Evidence, Finding, Outcome

__all__ = ["RULES", "Rule", "describe", "evaluate"]

if TYPE_CHECKING:
    from typing import Any

LAST_SHOWN = 3  # how many of the last times a finding's evidence names
PROACTIVE_FIXES = ("refresh",)  # fixes the planner applies up front (ReasoningEngine)


class Observation(Struct, frozen=True):
    """What a rule's function saw for one subject."""

    holds: bool
    cleared: bool  # did hold, no longer does because a later run went right
    fields: dict[str, Any]  # for the sentences
    summary: str
    numbers: dict[str, float]
    last: tuple[str, ...]


Check = Callable[[Sequence[Outcome], "Any"], "Observation | None"]


class Rule(Struct, frozen=True):
    name: str
    watches: tuple[str, ...]  # the kinds of subject it reads (Outcome.kind)
    thresholds: tuple[str, ...]  # [reflection] keys; the first is the main threshold
    check: Check
    text: str  # sentence template: {subject}, {what} and the check's fields
    suggestion: str
    cleared_text: str = "{what} works again."


# -- what the rules compute ------------------------------------------------------------
def _times(records: Sequence[Outcome]) -> tuple[str, ...]:
    return tuple(r.at for r in reversed(records[-LAST_SHOWN:]))


def _categories(records: Sequence[Outcome]) -> str:
    counts: dict[str, int] = {}
    for r in records:
        counts[r.category or "unknown"] = counts.get(r.category or "unknown", 0) + 1
    return ", ".join(f"{c} \u00d7{n}" for c, n in sorted(counts.items(), key=lambda i: -i[1]))


def _failing_run(records: Sequence[Outcome], end: int) -> list[Outcome]:
    """The failures in a row that end just before index `end`."""
    start = end
    while start and not records[start - 1].ok:
        start -= 1
    return list(records[start:end])


def failures_in_a_row(records: Sequence[Outcome], s: Any) -> Observation | None:
    streak = _failing_run(records, len(records))
    cleared, summary_after = False, ""
    if not streak:  # cleared when the failures before the last successes reached it
        end = len(records)
        while end and records[end - 1].ok:
            end -= 1
        streak, cleared = _failing_run(records, end), True
        if end < len(records):
            summary_after = f", then it worked at {show_time(records[end].at)}"
    n = len(streak)
    if n < s.failures_in_a_row:
        return None
    return Observation(not cleared, cleared, {"streak": n},
                       f"{n} failures in a row ({_categories(streak)}){summary_after}",
                       {"failures_in_a_row": n}, _times(streak))


def _recurring(records: Sequence[Outcome], happened: Callable[[Outcome], bool],
               threshold: int, noun: str, key: str) -> Observation | None:
    """Something that happened at least `threshold` times: it holds while no run has
    gone right since the last time, and is cleared by one that did."""
    at = [i for i, r in enumerate(records) if happened(r)]
    if len(at) < threshold:
        return None
    seen = [records[i] for i in at]
    later_ok = [r for r in records[at[-1] + 1:] if r.ok]
    summary = f"{len(seen)} {noun} in {len(records)} recorded runs"
    if later_ok:
        summary += f", then it worked at {show_time(later_ok[0].at)}"
    targets = sorted({r.target for r in seen if r.target})
    return Observation(not later_ok, bool(later_ok),
                       {"count": len(seen), "targets": ", ".join(targets[:3]) or "it"},
                       summary, {key: len(seen), "runs": len(records)}, _times(seen))


def timeouts(records: Sequence[Outcome], s: Any) -> Observation | None:
    return _recurring(records, lambda r: r.timed_out, s.timeouts, "timeouts", "timeouts")


def verification_failures(records: Sequence[Outcome], s: Any) -> Observation | None:
    return _recurring(records, lambda r: r.verified is False, s.verification_failures,
                      "times the intended state was not reached", "verification_failures")


def failure_rate(records: Sequence[Outcome], s: Any) -> Observation | None:
    runs = len(records)
    failed = [r for r in records if not r.ok]
    if runs < s.min_runs or not failed:
        return None
    rate = len(failed) / runs
    holds = rate >= s.failure_rate
    if not holds:
        return None  # cleared by the store when a stored finding stops holding
    return Observation(True, False, {"failures": len(failed), "runs": runs,
                                     "percent": round(rate * 100)},
                       f"{len(failed)} failures in {runs} runs ({round(rate * 100)}%)",
                       {"failures": len(failed), "runs": runs, "rate": round(rate, 3)},
                       _times(failed))


def fix_repeats(records: Sequence[Outcome], s: Any) -> Observation | None:
    counts: dict[str, list[Outcome]] = {}
    for r in records:
        if r.fix:
            counts.setdefault(r.fix, []).append(r)
    needed = {f: rs for f, rs in counts.items() if len(rs) >= s.fix_repeats}
    if not needed:
        return None
    fix, used = max(needed.items(), key=lambda item: len(item[1]))
    then = ("I now do it up front when I plan it" if fix in PROACTIVE_FIXES else
            "consider doing it before you ask for this")
    return Observation(True, False, {"fix": fix, "times": len(used), "then": then},
                       f"the fix \u201c{fix}\u201d worked {len(used)} times",
                       {"times": len(used)}, _times(used))


RULES: tuple[Rule, ...] = (
    Rule("failing", ("command",), ("failures_in_a_row",), failures_in_a_row,
         "\u201c{subject}\u201d has failed {streak} times in a row here.",
         "I'll ask before trying it again; look at why it fails (reos history) first.",
         "\u201c{subject}\u201d worked again after failing {streak} times in a row."),
    Rule("slow", ("command",), ("timeouts",), timeouts,
         "\u201c{subject}\u201d timed out {count} times here.",
         "Raise the timeout ([limits] max_seconds), or look at what it waits for.",
         "\u201c{subject}\u201d finished in time again after {count} timeouts."),
    Rule("failure_rate", ("template", "operation"), ("failure_rate", "min_runs"), failure_rate,
         "{what} failed {failures} of {runs} times here.",
         "Check the {noun} \u201c{subject}\u201d against this machine before relying on it."),
    Rule("fix_repeats", ("command",), ("fix_repeats",), fix_repeats,
         "\u201c{subject}\u201d needed the fix \u201c{fix}\u201d {times} times here.",
         "{then}."),
    Rule("verification", ("command",), ("verification_failures",), verification_failures,
         "\u201c{subject}\u201d did not reach the intended state {count} times here.",
         "Look at why {targets} never reaches the intended state (reos plan "
         "\"why is it failing?\") before trying again.",
         "\u201c{subject}\u201d reached the intended state again after {count} misses."),
)

_NOUNS = {"command": "command", "template": "template", "operation": "operation"}


def _what(kind: str, subject: str) -> str:
    if kind == "template":
        return f"Plans from the template \u201c{subject}\u201d"
    if kind == "operation":
        return f"The operation \u201c{subject}\u201d"
    return f"\u201c{subject}\u201d"


def evaluate(records: Sequence[Outcome], settings: Any,
             rules: Sequence[Rule] = RULES) -> list[Finding]:
    """Every rule over the records (oldest first); findings that hold and cleared ones."""
    by_subject: dict[tuple[str, str], list[Outcome]] = {}
    for r in records:
        by_subject.setdefault((r.kind, r.subject), []).append(r)
    found: list[Finding] = []
    for rule in rules:
        for (kind, subject), group in by_subject.items():
            if kind not in rule.watches:
                continue
            seen = rule.check(group, settings)
            if seen is None or not (seen.holds or seen.cleared):
                continue
            words = {"subject": subject, "what": _what(kind, subject), "noun": _NOUNS[kind],
                     **seen.fields}
            text = (rule.text if seen.holds else rule.cleared_text).format(**words)
            found.append(Finding(
                rule.name, subject, text,
                Evidence(seen.summary, seen.numbers, seen.last),
                rule.suggestion.format(**words) if seen.holds else "", cleared=seen.cleared,
                kind=kind))
    return found


def show_time(at: str) -> str:
    """'2026-11-22T17:01:02.123456Z' -> '2026-11-22 17:01:02'."""
    return at[:19].replace("T", " ")


def describe(findings: Sequence[Finding]) -> list[str]:
    """One line per finding, for the TUI: the sentence, its evidence, what to do."""
    lines = []
    for f in findings:
        when = ", ".join(show_time(t) for t in f.evidence.last)
        evidence = f.evidence.summary + (f"; last: {when}" if when else "")
        if f.cleared:
            lines.append(f"\u2713 {f.text} ({evidence})")
        else:
            lines.append(f"\u2022 {f.text} ({evidence}) \u2192 {f.suggestion}")
    return lines
