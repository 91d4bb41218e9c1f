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
from reos.execution.undo import describe


def run(*, as_json: bool = False, yes: bool = False) -> int:
    engine = make_engine()
    if engine.settings.reasoning.always_confirm and not yes:  # every change asks
        import sys

        if not engine.journal.undoable(limit=1):
            pass  # nothing to ask about: the undo below says so
        elif not sys.stdin.isatty():
            raise ReosError("always_confirm is on, so undo asks first, and there is no "
                            "terminal to ask on. Nothing was undone.",
                            "Rerun with --yes to approve it.", exit_code=EXIT_DECLINED)
        else:
            import typer

            say(engine.undo_preview())
            if not typer.confirm("Proceed?", default=False):
                say("Okay, I won't undo anything.")
                return EXIT_DECLINED
    report = engine.undo()
    if as_json:
        emit_json(report.to_dict())
    else:
        say(describe(report))
    if report.transaction is None or report.busy_with is not None or not report.steps:
        return EXIT_NOTHING
    return EXIT_OK if report.ok else EXIT_FAILED
