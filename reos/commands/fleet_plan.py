"""`reos plan --hosts PATTERN "…"`: one request planned on each host an Ansible pattern
chooses, shown grouped, approved once, run through Ansible, journaled host by host.

Each host is read now (`fleet.snapshots.read`: reos's own collectors on the host; a host
not reached is said, never guessed), the request is planned against each host's snapshot
by the same engine as on this machine (nginx may be on web1 and not on web2: each says
so), and `fleet.deciding.prepare` decides what may run where (`on_hosts.decide`: sudo
runs on a host only when its plan needs what is read there as root). Hosts with the same steps
are shown once ("on web1, web2"), the others each with theirs. A plan that only reads runs
at once (the gate must find every step read-only); a change waits for yes (or --yes),
then runs in canary batches (`[fleet] max_fail_percent`; a host an earlier batch's
failure kept from the change is said as not started).
`--dry-run` runs none of the steps: it predicts, read only, what each would do on each
host (`fleet.predicting`: the snapshot, apt-get -s, Ansible's check mode), labelled
predicted, and needs no --yes. `--json` prints a reos.fleet-plan/1 document (it runs only
with --yes; with --dry-run each host has its `predicted` part). Exit 0 when every host
that was planned for did its part, 1 when one failed, was not started or its outcome is
unknown, 4 when no host has anything to run, 5 when declined.

Not responsible for reaching hosts, reading them, running or journaling (reos.fleet), nor
for planning (the engine).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reos import on_hosts
from reos import settings as settings_module
from reos.commands.output import emit_json, note, say, warn
from reos.errors import EXIT_DECLINED, EXIT_FAILED, EXIT_NOTHING, EXIT_OK, UsageError
from reos.fleet import changing, snapshots
from reos.fleet.inventory import find_source, select

if TYPE_CHECKING:
    from reos.catalogue.templates import TemplateSet
    from reos.fleet.changing import Applied
    from reos.fleet.deciding import Prepared
    from reos.fleet.predicting import Predicted
    from reos.fleet.running import Result
    from reos.system.snapshot import SystemSnapshot

SCHEMA = "reos.fleet-plan/1"


def run(request: str, *, pattern: str, inventory: Path | None = None,
        limit: str | None = None, yes: bool = False, dry_run: bool = False,
        as_json: bool = False) -> int:
    from reos.commands.plan import interactive

    settings = settings_module.load()
    for text in settings.warnings:
        warn(text)
    source = find_source(inventory, settings)
    if source is None:
        raise UsageError("No Ansible inventory given, so there are no hosts to plan for.",
                         "Give one with -i FILE, set `inventory` under [fleet] in "
                         f"{settings.path}, or set ANSIBLE_INVENTORY.")
    chosen = select(source, pattern, limit)
    names = [host.name for host in chosen.hosts]
    note(f"Reading {len(names)} host{'s' * (len(names) != 1)} through Ansible…")
    from reos.engine import ReasoningEngine

    engine = ReasoningEngine(settings)
    hosts = on_hosts.read_and_plan(engine, source, names, request,
                                   on_known=None if as_json else _said_known)
    parts, unreached = hosts.parts, hosts.unreached
    read = hosts.read
    runnable = [p for p in parts if p.plan is not None]
    changes = not all(p.read_only for p in runnable)
    predicted = None
    if dry_run and runnable:
        from reos.fleet import predicting

        if changes and not as_json:
            note("Predicting what each step would do there (read only)…")
        predicted = predicting.predict(source, parts, read,
                                       modules_of(engine.templates, parts, read),
                                       connect_timeout=settings.fleet.connect_timeout)
    if as_json and (dry_run or not yes or not runnable):
        emit_json(document(request, parts, unreached, predicted=predicted))
        return EXIT_OK if runnable else EXIT_NOTHING
    if not as_json:
        say("\n".join(on_hosts.lines(request, parts, unreached)))
    if not runnable:
        return EXIT_NOTHING
    if dry_run:
        if changes and predicted is not None:
            say("\n".join(predicted_lines(parts, predicted)))
            say("(dry run: nothing was run)")
        return EXIT_OK
    if changes and not yes:
        if not interactive():
            say("Not run: say yes with --yes to run it without a terminal.")
            return EXIT_DECLINED
        from reos.commands.ask import confirm

        if not confirm(f"Run it on {on_hosts.count(len(runnable))}?"):
            say("Nothing was run.")
            return EXIT_DECLINED
        lost = on_hosts.lost_for_good(hosts)
        if lost and not confirm(f"{lost} Go ahead anyway?"):  # asked twice, as here
            say("Nothing was run.")
            return EXIT_DECLINED
        if time.time() - hosts.read_at > on_hosts.STALE_SECONDS:
            # the yes came late: what it approved must still be what would run
            note(f"Reading {on_hosts.count(len(hosts.hosts))} again (the yes came more "
                 f"than {on_hosts.STALE_SECONDS:.0f} s after they were read)…")
            again = on_hosts.read_and_plan(engine, source, names, request)
            if not again.same_as(hosts):
                say("\n".join(["The hosts changed since I read them, so nothing ran. The "
                               "plan as they are now:",
                               *on_hosts.lines(request, again.parts, again.unreached)]))
                return EXIT_DECLINED
            parts = again.parts  # the same steps, with prior states read just now
    from reos import paths
    from reos.store.db import Database
    from reos.store.journal import Journal

    applied = changing.apply(Journal(Database(paths.database_file())), source, request, parts,
                             on_result=None if as_json else _said_result,
                             connect_timeout=settings.fleet.connect_timeout,
                             max_fail_percent=settings.fleet.max_fail_percent,
                             roll_back=settings.safety.rollback_on_failure,
                             max_seconds=settings.limits.max_seconds)
    if as_json:
        emit_json(document(request, parts, unreached, applied))
    else:
        say("\n".join(on_hosts.outcome_lines(applied, changes)))
    return EXIT_OK if applied.ok else EXIT_FAILED


def modules_of(templates: TemplateSet, parts: list[Prepared],
               read: dict[str, SystemSnapshot]) -> dict[tuple[str, str], tuple[str, Any]]:
    """(host, step id) -> the Ansible module and arguments the step's recipe names
    (`ansible = {module, args}` in the templates), its slots filled from the step's
    target and the request's values; a step whose slots cannot all be filled has none."""
    import re

    found: dict[tuple[str, str], tuple[str, Any]] = {}
    for part in parts:
        if part.plan is None:
            continue
        manager = read[part.host].host.get("package_manager")
        params = dict(part.plan.intent.params) if part.plan.intent is not None else {}
        for step in part.plan.steps:
            if step.read_only or step.target is None or not step.action:
                continue
            recipe = templates.recipe(step.target.kind, step.action,
                                      manager if isinstance(manager, str) else None)
            if recipe is None or not recipe.ansible:
                continue
            values = {**params, "name": step.target.name}

            def filled(slot: re.Match[str], values: dict[str, str] = values) -> str:
                return values.get(slot.group(1)) or "\0"  # "\0": a slot not given

            args: dict[str, Any] = {}
            for key, value in dict(recipe.ansible.get("args") or {}).items():
                args[key] = re.sub(r"\{([a-z_]+)\}", filled, value) if isinstance(
                    value, str) else value
            if not any("\0" in str(v) for v in args.values()):
                found[(part.host, step.id)] = (str(recipe.ansible["module"]), args)
    return found


_BY = {"snapshot": "from its snapshot", "simulation": "apt-get -s on the host",
       "check mode": "Ansible check mode"}


def predicted_lines(parts: list[Prepared], predicted: dict[str, list[Predicted]]
                    ) -> list[str]:
    """What each step would do on each host, labelled predicted: hosts with the same
    predictions once."""
    out = ["", "Predicted (a dry run: read-only checks on each host; a host can still "
               "change before a run):"]
    groups: dict[tuple[Any, ...], list[str]] = {}
    titles: dict[str, list[str]] = {}
    for part in parts:
        if part.plan is None or part.host not in predicted:
            continue
        titles[part.host] = [step.title for step in part.plan.steps]
        key = tuple((title, p.by, p.said, p.diff) for title, p in zip(
            titles[part.host], predicted[part.host], strict=True))
        groups.setdefault(key, []).append(part.host)
    for key, hosts in groups.items():
        out += ["", f"On {on_hosts.names(hosts)}:"]
        for number, (title, by, said, diff) in enumerate(key, start=1):
            label = f" — {_BY[by]}" if by in _BY else ""
            out.append(f"  {number}. {title}: {said}{label}")
            out += [f"       | {line}" for line in diff.splitlines()]
    return out


def document(request: str, parts: list[Prepared], unreached: dict[str, str],
             applied: Applied | None = None,
             predicted: dict[str, list[Predicted]] | None = None) -> dict[str, Any]:
    hosts: list[dict[str, Any]] = []
    for part in parts:
        entry: dict[str, Any] = {"host": part.host, "plan": None, "left_out": part.left_out}
        if part.plan is not None:
            entry["plan"] = part.plan.to_dict()
            for step, undo in zip(entry["plan"]["steps"], part.undos, strict=True):
                step["rollback"] = {"argv": undo} if undo else None
        if predicted is not None:
            found = predicted.get(part.host)
            entry["predicted"] = [p.to_dict() for p in found] if found is not None else None
        hosts.append(entry)
    hosts += [{"host": host, "plan": None, "unreached": why} for host, why in unreached.items()]
    data: dict[str, Any] = {"schema": SCHEMA, "request": request, "hosts": hosts}
    if applied is not None:
        data["execution"] = {
            "transaction": applied.tx_id, "ok": applied.ok,
            "hosts": [{"host": o.host, "status": o.status, "said": o.said,
                       "packages": o.packages, "rolled_back": o.rolled_back,
                       "steps": [{"id": sid, "status": st, "output": text}
                                 for sid, st, text in o.steps]}
                      for o in applied.outcomes]}
    return data


def _said_known(known: snapshots.Known) -> None:
    note(on_hosts.known_line(known))


def _said_result(result: Result) -> None:
    note(on_hosts.result_line(result))
