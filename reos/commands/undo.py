"""`reos undo`: revert the newest undoable transaction and say exactly what ran.

Exit 4 when there is nothing to undo or another reos is undoing it right now; 1 when a
restore failed or was refused. Not responsible for the undo itself (reos.execution.undo).
"""

from __future__ import annotations

from reos.commands.common import make_engine
from reos.commands.output import emit_json, say
from reos.errors import EXIT_FAILED, EXIT_NOTHING, EXIT_OK
from reos.execution.undo import describe


def run(*, as_json: bool = False) -> int:
    report = make_engine().undo()
    if as_json:
        emit_json(report.to_dict())
    else:
        say(describe(report))
    if report.transaction is None or report.busy_with is not None:
        return EXIT_NOTHING
    return EXIT_OK if report.ok else EXIT_FAILED
