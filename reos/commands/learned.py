"""`reos learned`: what reos learned on this machine and what reflection found there.

Shows the patterns per command, the runs of templates and operations, and each finding
with its evidence and suggested action (cleared ones marked); `--summary` adds a model's
summary of the findings when a model answers (reos.llm.reflect); `--forget` clears it
all. Not responsible for the rules (reos.memory.reflection) or storage
(reos.store.knowledge).
"""

from __future__ import annotations

from reos.commands.common import make_engine
from reos.commands.output import emit_json, say
from reos.errors import EXIT_OK
from reos.memory.reflection import show_time
from reos.store.knowledge import Finding

SCHEMA = "reos.learned/1"


def run(*, as_json: bool = False, forget: bool = False, summary: bool = False) -> int:
    engine = make_engine()
    knowledge = engine.knowledge
    if forget:
        count = knowledge.forget()
        if as_json:
            emit_json({"schema": SCHEMA, "forgot": count, "patterns": [], "findings": [],
                       "operations": []})
        else:
            say(f"Forgot {count} learned pattern{'s' if count != 1 else ''}.")
        return EXIT_OK
    patterns, operations = knowledge.all(), knowledge.operations()
    found = knowledge.current(include_cleared=True)
    summarised = None
    if summary:
        from reos.llm.reflect import summarize

        summarised = summarize(found, engine.settings)
    if as_json:
        data: dict[str, object] = {"schema": SCHEMA, "patterns": [p.to_dict() for p in patterns],
                                   "operations": operations,
                                   "findings": [f.to_dict() for f in found]}
        if summarised is not None:
            data["summary"] = summarised.to_dict()
        emit_json(data)
        return EXIT_OK
    if not patterns and not operations and not found:
        say("I haven't learned anything about this machine yet.")
    else:
        _show(patterns, operations, found)
    if summarised is not None:
        say("")
        say(f"In short: {summarised.text}" if summarised.text else summarised.problem or "")
    return EXIT_OK


def _show(patterns: list, operations: list[dict], found: list[Finding]) -> None:
    if patterns:
        say("What I've learned on this machine:")
    for p in patterns:
        failures = ", ".join(f"{n} {c}" for c, n in p.failures.items()) or "none"
        fixes = ", ".join(f"{f} \u00d7{n}" for f, n in p.fixes.items())
        say(f"  {p.signature}: {p.successes} ok, failures: {failures}"
            + (f"; fixes that worked: {fixes}" if fixes else ""))
    if operations:
        say("Plans by template and operation:")
    for o in operations:
        say(f"  {o['kind']} {o['operation']}: {o['runs']} runs, {o['failures']} failed")
    holding = [f for f in found if not f.cleared]
    cleared = [f for f in found if f.cleared]
    if holding:
        say("What I noticed:")
    for f in holding:
        say(f"  \u2022 {f.text}")
        say(f"    Evidence: {_evidence(f)}")
        say(f"    Suggested: {f.suggestion}")
    if cleared:
        say("No longer the case:")
    for f in cleared:
        say(f"  \u2713 {f.text} ({_evidence(f)})")


def _evidence(f: Finding) -> str:
    when = ", ".join(show_time(t) for t in f.evidence.last)
    return f.evidence.summary + (f"; last: {when} UTC" if when else "")
