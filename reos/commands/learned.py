"""`reos learned`: what reos learned on this machine; `--forget` clears it."""

from __future__ import annotations

from reos.commands.common import make_engine
from reos.commands.output import emit_json, say
from reos.errors import EXIT_OK


def run(*, as_json: bool = False, forget: bool = False) -> int:
    engine = make_engine()
    knowledge = engine.knowledge
    if forget:
        count = knowledge.forget()
        if as_json:
            emit_json({"schema": "reos.learned/1", "forgot": count, "patterns": [],
                       "findings": []})
        else:
            say(f"Forgot {count} learned pattern{'s' if count != 1 else ''}.")
        return EXIT_OK
    patterns, findings = knowledge.all(), knowledge.findings()
    if as_json:
        emit_json({"schema": "reos.learned/1", "patterns": [p.to_dict() for p in patterns],
                   "findings": findings})
        return EXIT_OK
    if not patterns:
        say("I haven't learned anything about this machine yet.")
        return EXIT_OK
    say("What I've learned on this machine:")
    for p in patterns:
        failures = ", ".join(f"{n} {c}" for c, n in p.failures.items()) or "none"
        fixes = ", ".join(f"{f} \u00d7{n}" for f, n in p.fixes.items())
        say(f"  {p.signature}: {p.successes} ok, failures: {failures}"
            + (f"; fixes that worked: {fixes}" if fixes else ""))
    for f in findings:
        say(f"  \u2022 {f['text']}")
    return EXIT_OK
