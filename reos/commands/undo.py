"""`reos undo`: revert the newest undoable transaction and say exactly what ran."""

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
