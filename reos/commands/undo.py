"""`reos undo`: revert the newest undoable transaction and say exactly what ran.

With `always_confirm` it shows what it would revert and asks first (`--yes` answers).
Exit 4 when there is nothing to undo (nothing at all, or nothing to run: a restart has
nothing to restore) or another reos is undoing it right now; 1 when a restore failed or
was refused. Not responsible for the undo itself (reos.execution.undo).
"""

from __future__ import annotations

from reos.commands.common import make_engine
from reos.commands.output import emit_json, say
from reos.errors import EXIT_DECLINED, EXIT_FAILED, EXIT_NOTHING, EXIT_OK, ReosError
from reos.understanding.perception import Meta


def run(*, as_json: bool = False, yes: bool = False) -> int:
    """The chat's "undo", on the command line: the engine decides whether it asks first
    (`always_confirm`); this surface asks on the terminal, or takes `--yes` as the answer."""
    engine = make_engine()
    reply = engine.meta(Meta("undo"))
    if reply.awaiting_approval:  # always_confirm: the preview waits for a yes
        if not yes:
            import sys

            if not sys.stdin.isatty():
                engine.decline()
                raise ReosError("always_confirm is on, so undo asks first, and there is no "
                                "terminal to ask on. Nothing was undone.",
                                "Rerun with --yes to approve it.", exit_code=EXIT_DECLINED)
            from reos.commands.ask import confirm

            say(reply.text)
            if not confirm("Proceed?"):
                say(engine.decline().text)
                return EXIT_DECLINED
        reply = engine.approve()
    report = reply.undone
    assert report is not None  # an undo that did not wait was performed
    if as_json:
        emit_json(report.to_dict())
    else:
        say(reply.text)
    if report.transaction is None or report.busy_with is not None or not report.steps:
        return EXIT_NOTHING
    return EXIT_OK if report.ok else EXIT_FAILED
