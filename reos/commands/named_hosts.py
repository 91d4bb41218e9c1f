"""`reos plan "restart nginx on the web servers"`: a request that names hosts or groups of
the person's Ansible inventory in words goes to the fleet path (reos/commands/fleet_plan.py)
with the pattern those words make, said first ("On web1, web2 (group web):").

Only when an inventory is configured (`-i`, `[fleet] inventory`, ANSIBLE_INVENTORY), and
only when the request's words could name something of it (`host_words.could_name_hosts`, a
look at the inventory's files that imports nothing of Ansible nor the reader), is the
inventory read with Ansible and the words read (reos/understanding/hosts.py). Otherwise
`run` answers None and the request is this machine's, as without an inventory: `reos plan
"restart nginx"` never loads Ansible.

The reading (`reos.on_hosts.hosts_named`, which the chat uses too) is followed by two
checks, both failing closed. A request that asks for several things
(reos.understanding.parts.asks: "reboot this machine and restart nginx on the web
servers") is asked about, since hosts said once may be meant for one ask or all. And the
hosts Ansible itself chooses for the reading's pattern (reos.fleet.inventory.select) must
be exactly the hosts the words meant, else nothing runs and the difference is said.
A question (which web server?) is printed like any plan's question (exit 4); a name the
inventory lacks, or hosts Ansible would choose otherwise, is an error that says so (exit
4); "undo that on web2" is `reos undo --host web2`.

Not responsible for reading words (reos.understanding.hosts), reading the inventory
(reos.fleet.inventory), nor planning or running on hosts (fleet_plan); `--hosts PATTERN`
given explicitly never comes here (reos/cli.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path



def run(request: str, *, inventory: Path | None = None, limit: str | None = None,
        yes: bool = False, dry_run: bool = False, as_json: bool = False,
        verbose: bool = False) -> int | None:
    """The request on the hosts it names, through the fleet path; None when no inventory
    is configured or the request names no host of it."""
    import os

    from reos import settings as settings_module

    settings = settings_module.load()
    if inventory is None and not settings.fleet.inventory and not os.environ.get(
            "ANSIBLE_INVENTORY", "").strip(" ,"):
        return None  # nothing names one (find_source's three places): 4 ms not spent
    from reos.fleet.inventory import find_source

    source = find_source(inventory, settings)
    if source is None:
        return None
    from reos.on_hosts import hosts_named

    reading = hosts_named(request, source, _here)
    if reading is None:
        return None
    from reos.commands.output import emit_json, note, say
    from reos.errors import EXIT_NOTHING, ReosError
    from reos.understanding.hosts import Asked, Chosen

    if isinstance(reading, Asked):
        from reos.commands.plan import as_json_data
        from reos.model.plan import Plan
        from reos.model.request import Kind

        asked = Plan(request, Kind.CLARIFY)
        asked.ask(reading.question)
        if as_json:
            emit_json(as_json_data(asked))
        else:
            say(asked.text())
        return EXIT_NOTHING
    if not isinstance(reading, Chosen):
        raise ReosError(reading.message, reading.hint, exit_code=EXIT_NOTHING)
    from reos.understanding.perception import perceive

    meta = perceive(reading.request)
    if meta is not None and meta.action == "undo" and len(reading.hosts) == 1:
        from reos.commands import undo

        return undo.run(as_json=as_json, yes=yes, host=reading.hosts[0])
    if meta is not None:
        raise ReosError(f"“{reading.request}” is said to reos, not done on hosts.",
                        "To undo on one host: reos undo --host NAME; on every host that "
                        "changed: reos undo.", exit_code=EXIT_NOTHING)
    from reos.commands import fleet_plan

    (note if as_json else say)(reading.heading())
    if verbose:
        note("(--verbose says nothing more on hosts: each host's plan is shown.)")
    return fleet_plan.run(reading.request, pattern=reading.pattern, inventory=inventory,
                          limit=limit, yes=yes, dry_run=dry_run, as_json=as_json)


def _here() -> frozenset[str] | None:
    """What this machine has a host's name said alone could mean instead (read only
    then); None when it cannot be read, so the name is asked about."""
    from reos.errors import ReosError
    from reos.on_hosts import names_here
    from reos.system.cache import SnapshotCache
    from reos.system.collectors import collect

    try:
        return names_here(SnapshotCache(collect).get())
    except (ReosError, OSError):
        return None
