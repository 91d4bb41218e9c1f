"""`reos hosts`: the hosts of the Ansible inventory a pattern chooses, group by group, with
the address, port and user reos would reach each by.

The inventory is `--inventory`, else the settings' `[fleet] inventory`, else
ANSIBLE_INVENTORY (reos.fleet.inventory reads it, with Ansible's own code); none of them
is a usage error that says how to give one (exit 2), as is an inventory that is missing
or does not parse; a pattern that chooses no host is exit 4. `--json` prints a
reos.hosts/1 document. Whether each host answers and how old reos's snapshot of it is
are not known yet, and the listing says so rather than guess. Not responsible for reading
the inventory (reos.fleet.inventory) nor for reaching any host (nothing does yet).
"""

from __future__ import annotations

from pathlib import Path

from reos import settings as settings_module
from reos.commands.output import emit_json, say, warn
from reos.errors import EXIT_OK, UsageError
from reos.fleet.inventory import Host, Inventory, find_source, select

SCHEMA = "reos.hosts/1"
NOT_YET = ("Not checked: whether these hosts answer, or what reos knows of each (reos does "
           "not reach other machines yet).")


def run(pattern: str = "all", *, inventory: Path | None = None, limit: str | None = None,
        as_json: bool = False) -> int:
    settings = settings_module.load()
    for text in settings.warnings:
        warn(text)
    source = find_source(inventory, settings)
    if source is None:
        raise UsageError(
            "No Ansible inventory given, so there are no hosts to list.",
            "Give one with `reos hosts -i FILE`, set `inventory = \"FILE\"` under [fleet] "
            f"in {settings.path}, or set ANSIBLE_INVENTORY.")
    chosen = select(source, pattern, limit)
    if as_json:
        emit_json({"schema": SCHEMA, **chosen.to_dict()})
        return EXIT_OK
    say("\n".join(lines(chosen, source.given_by)))
    return EXIT_OK


def lines(chosen: Inventory, given_by: str) -> list[str]:
    """The listing: where the inventory is, how many hosts the pattern chose, then each
    group with its chosen hosts and their addresses, and what is not known yet."""
    count = len(chosen.hosts)
    within = f", within --limit '{chosen.limit}'" if chosen.limit is not None else ""
    out = [f"Inventory: {', '.join(chosen.sources)} (from {given_by})",
           f"{count} host{' matches' if count == 1 else 's match'} '{chosen.pattern}'"
           f"{within}."]
    by_name = {host.name: host for host in chosen.hosts}
    sections = list(chosen.groups.items())
    loose = tuple(h.name for h in chosen.hosts if not any(h.name in m for _, m in sections))
    if loose:  # Ansible's implicit localhost is in no group
        sections.append(("(no group)", loose))
    width = max(len(name) for name in by_name)
    for group, members in sections:
        out.append("")
        out.append(f"{group} ({len(members)})")
        for name in members:
            out.append(f"  {name:<{width}}  {address(by_name[name])}")
    out.append("")
    out.append(NOT_YET)
    return out


def address(host: Host) -> str:
    """How ssh would be told to reach the host: [user@]address[:port], the address being
    the inventory name when the inventory gives no ansible_host (an IPv6 address is
    bracketed before a port)."""
    text = host.ansible_host or host.name
    if host.ansible_port:
        text = f"[{text}]:{host.ansible_port}" if ":" in text else f"{text}:{host.ansible_port}"
    if host.ansible_user:
        text = f"{host.ansible_user}@{text}"
    return text
