"""`reos check "COMMAND"`: the safety engine on its own (exit 0 allowed, 3 blocked).

The command is first held to reos's input limits (`reos.inputs.check_command`: at most
64 KB of UTF-8 text, no NUL bytes); a command outside them is a usage error (exit 2),
reported by the CLI's guard like any other. `read_only` is true only when the read-only
grammar proves it; otherwise the output names the word that decided it (`why_not_read_only`
in `--json`). Not responsible for judging (that is `reos.safety.risk`) or for running
anything.
"""

from __future__ import annotations

from reos.commands.output import emit_json, say
from reos.errors import EXIT_BLOCKED, EXIT_OK
from reos.inputs import check_command
from reos.safety.risk import assess


def run(command: str, *, as_json: bool = False) -> int:
    verdict = assess(check_command(command))
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
        if verdict.read_only:
            say("  (only reads)")
        elif not verdict.blocked and verdict.why_not_read_only:
            say(f"  (not read-only: {verdict.why_not_read_only})")
    return EXIT_BLOCKED if verdict.blocked else EXIT_OK
