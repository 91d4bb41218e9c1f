"""`reos why [TX]` and `reos trace [TX] [--json]`: the reasoning chain behind a request.

With TX, the chain of the request that ran as transaction TX; without, the latest
request that has one (chat commands such as "undo" are skipped). Printed as the design
notes' block, or with `--json` as one `reos.trace/1` document. An unknown transaction, or
none recorded yet, exits 4 with a plain sentence; a damaged trace is said, not raised.

Not responsible for building or storing chains (reos.memory.audit, reos.store.traces).
"""

from __future__ import annotations

from reos import paths
from reos.commands.output import emit_json, say
from reos.errors import EXIT_FAILED, EXIT_NOTHING, EXIT_OK, ReosError


def run(tx: int | None = None, *, as_json: bool = False) -> int:
    from reos.commands.common import load_settings
    from reos.memory.audit import SCHEMA
    from reos.memory.audit_text import render
    from reos.store.db import Database
    from reos.store.traces import Traces

    load_settings()  # its warnings, like every command
    if not paths.database_file().exists():  # nothing recorded: do not create the database
        raise _nothing(tx)
    traces = Traces(Database(paths.database_file()))
    if tx is not None:
        record = traces.for_transaction(tx)
    else:
        record = next((t for t in traces.recent(50) if t.kind != "meta"), None) or \
            traces.latest()
    if record is None:
        raise _nothing(tx)
    if as_json:
        emit_json({**record.to_dict(), "schema": SCHEMA})
    elif record.readable:
        say(render(record.to_dict()))
    else:
        say(f"Trace #{record.id} (\u201c{record.request}\u201d): {record.problem}.")
    return EXIT_OK if record.readable else EXIT_FAILED


def _nothing(tx: int | None) -> ReosError:
    if tx is None:
        return ReosError("No reasoning trace yet: I haven't planned anything here since "
                         "traces were kept.", "Ask for something with `reos plan`, then try "
                         "again.", exit_code=EXIT_NOTHING)
    return ReosError(f"There is no reasoning trace for transaction #{tx}.",
                     "`reos history` lists the transactions; changes made before traces "
                     "were kept have none.", exit_code=EXIT_NOTHING)
