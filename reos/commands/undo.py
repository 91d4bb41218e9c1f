"""`reos undo`: revert the newest undoable transaction and say exactly what ran.

The newest change may have been made on other machines (`reos plan --hosts`): it is then
undone there, on every host that changed, through Ansible (reos.fleet.changing); `--host
NAME` undoes the newest such change on that host alone. With `always_confirm` it shows
what it would revert and asks first (`--yes` answers).
Exit 4 when there is nothing to undo (nothing at all, or nothing to run: a restart has
nothing to restore) or another reos is undoing it right now; 1 when a restore failed or
was refused. Not responsible for the undo itself (reos.execution.undo).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.commands.common import make_engine
from reos.commands.output import emit_json, note, say
from reos.errors import EXIT_DECLINED, EXIT_FAILED, EXIT_NOTHING, EXIT_OK, ReosError
from reos.understanding.perception import Meta

if TYPE_CHECKING:
    from reos.engine import ReasoningEngine
    from reos.store.journal import TransactionRecord


def run(*, as_json: bool = False, yes: bool = False, host: str | None = None) -> int:
    """The chat's "undo", on the command line: the engine decides whether it asks first
    (`always_confirm`); this surface asks on the terminal, or takes `--yes` as the answer."""
    engine = make_engine()
    fleet = _newest_fleet(engine, host)
    if fleet is not None or host is not None:
        return _undo_fleet(engine, fleet, host, as_json=as_json, yes=yes)
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


def _newest_fleet(engine: ReasoningEngine, host: str | None) -> TransactionRecord | None:
    """The change made on other machines to undo: with `host`, the newest that still holds
    a change on it; without, the newest, when it is newer than every change here."""
    if host is None:
        return engine.newer_fleet_change()
    from reos.store.journal import FLEET

    return next((tx for tx in engine.journal.transactions(limit=50, kind=FLEET)
                 if tx.revertible and any(s.host == host for s in tx.undo_steps)), None)


def _undo_fleet(engine: ReasoningEngine, tx: TransactionRecord | None, host: str | None,
                *, as_json: bool, yes: bool) -> int:
    if tx is None:
        raise ReosError(f"No change made on {host} is left to undo.", exit_code=EXIT_NOTHING)
    from reos.fleet import changing

    hosts = changing.undo_hosts(tx, host)
    said = f"Undo change {tx.id} ({tx.request!r}) on {', '.join(hosts)}."
    if engine.settings.reasoning.always_confirm and not yes:
        import sys

        if not sys.stdin.isatty():
            raise ReosError("always_confirm is on, so undo asks first, and there is no "
                            "terminal to ask on. Nothing was undone.",
                            "Rerun with --yes to approve it.", exit_code=EXIT_DECLINED)
        from reos.commands.ask import confirm

        say(said)
        if not confirm("Proceed?"):
            say("Nothing was undone.")
            return EXIT_DECLINED
    if not as_json:
        note(f"{said} Reaching {len(hosts)} host{'s' * (len(hosts) != 1)} through Ansible…")
    done = changing.undo(engine.journal, tx, host=host)
    if done is None:
        raise ReosError(f"Another reos is undoing change {tx.id} right now.",
                        exit_code=EXIT_NOTHING)
    if as_json:
        emit_json({"transaction": tx.id, "request": tx.request, "status": done.status,
                   "ok": done.ok,
                   "hosts": [{"host": u.host, "steps": [{"title": t, "said": w}
                                                        for t, w in u.steps]}
                             for u in done.hosts]})
    else:
        out = []
        for undone in done.hosts:
            out.append(f"{'✓' if undone.ok else '✗'} {undone.host}")
            out += [f"    {title}: {what}" for title, what in undone.steps]
        out.append(f"Change {tx.id} is {done.status.replace('_', ' ')}.")
        say("\n".join(out))
    return EXIT_OK if done.ok else EXIT_FAILED
