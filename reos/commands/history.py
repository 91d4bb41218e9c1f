"""`reos history`: transactions, newest first, and whether each can be undone."""

from __future__ import annotations

from reos.commands.common import make_engine
from reos.commands.output import emit_json, say
from reos.errors import EXIT_OK


def run(*, as_json: bool = False, limit: int = 20) -> int:
    transactions = make_engine().history(limit)
    if as_json:
        emit_json({"schema": "reos.history/1",
                   "transactions": [t.to_dict() for t in transactions]})
        return EXIT_OK
    if not transactions:
        say("No history yet: I haven't changed anything.")
        return EXIT_OK
    for tx in transactions:
        mark = "undoable" if tx.undoable else ""
        say(f"#{tx.id}  {tx.started_at[:19].replace('T', ' ')}  {tx.status:<13} {mark:<9}"
            f" {tx.request}")
        for step in tx.steps:
            on = f"  (on {step.host})" if step.host else ""
            say(f"      {step.status:<11} {step.title}{on}")
    return EXIT_OK
