"""`reos check "COMMAND"`: the safety engine on its own (exit 0 allowed, 3 blocked)."""

from __future__ import annotations

from reos.commands.output import emit_json, say
from reos.errors import EXIT_BLOCKED, EXIT_OK
from reos.safety.risk import assess


def run(command: str, *, as_json: bool = False) -> int:
    verdict = assess(command)
    if as_json:
        emit_json(verdict.to_dict())
    else:
        head = "BLOCKED" if verdict.blocked else f"risk {verdict.risk.label}"
        say(f"{head}: {command}")
        for reason in verdict.reasons:
            say(f"  - {reason}")
        if verdict.needs_root:
            say("  (needs root)")
        if not verdict.reversible:
            say("  (cannot be undone)")
    return EXIT_BLOCKED if verdict.blocked else EXIT_OK
