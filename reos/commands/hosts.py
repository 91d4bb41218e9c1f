"""`reos hosts`: the hosts of the Ansible inventory a pattern chooses, group by group, with
the address, port and user reos would reach each by; with `--check`, whether each answers
and lets reos act as root.

The inventory is `--inventory`, else the settings' `[fleet] inventory`, else
ANSIBLE_INVENTORY (reos.fleet.inventory reads it, with Ansible's own code); none of them
is a usage error that says how to give one (exit 2), as is an inventory that is missing
or does not parse; a pattern that chooses no host is exit 4. `--check` reaches each host
through Ansible (reos.fleet.reach), says each as it answers (on stderr, so stdout stays
the listing), and exits 1 when a host is not ready. `--json` prints a reos.hosts/1
document, each host with its `reach` when checked. Each host's line says how old reos's
last snapshot of it is (`reos plan --hosts` reads them). Not responsible for reading the
inventory nor for reaching a host (reos.fleet).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from reos import settings as settings_module
from reos.commands.output import emit_json, note, say, warn
from reos.errors import EXIT_FAILED, EXIT_OK, UsageError
from reos.fleet.inventory import VAULT_HINT, Host, Inventory, find_source, select

if TYPE_CHECKING:
    from reos.fleet.reach import Reach

SCHEMA = "reos.hosts/1"
NOT_CHECKED = "Not checked whether these hosts answer: reos hosts --check reaches each."
SNAPSHOTS = ("Snapshots are what reos last read of each host; reos plan --hosts reads "
             "them again before it plans.")
SEALED = "(vault)"  # in an address: a value reos cannot decrypt
MARK = {"ready": "✓", "answers": "!", "unreached": "✗"}


def run(pattern: str = "all", *, inventory: Path | None = None, limit: str | None = None,
        check: bool = False, as_json: bool = False) -> int:
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
    reached: dict[str, Reach] | None = None
    if check:
        from reos.fleet.reach import check as reach

        count = len(chosen.hosts)
        note(f"Reaching {count} host{'s' * (count != 1)} through Ansible…")
        found = reach(source, [host.name for host in chosen.hosts],
                      connect_timeout=settings.fleet.connect_timeout,
                      on_reach=None if as_json else lambda r: note(f"  {reach_line(r)}"))
        reached = {r.host: r for r in found}
    code = EXIT_OK if reached is None or all(
        r.state == "ready" for r in reached.values()) else EXIT_FAILED
    if as_json:
        from reos.fleet.snapshots import cached

        document: dict[str, Any] = {"schema": SCHEMA, **chosen.to_dict()}
        for host in document["hosts"]:
            for name in host["vaulted"]:  # never shown, as Ansible shows them
                host[name] = None
            known = cached(host["name"])
            host["snapshot_age_seconds"] = (round(known.age() or 0.0) if known is not None
                                            and known.snapshot is not None else None)
            if reached is not None:
                host["reach"] = reached[host["name"]].to_dict()
        emit_json(document)
        return code
    say("\n".join(lines(chosen, source.given_by, reached)))
    return code


def reach_line(reach: Reach) -> str:
    """One host's answer: ✓ ready, ! answers but not as root, ✗ not reached, with why."""
    return f"{MARK[reach.state]} {reach.host} {answer(reach)}"


def answer(reach: Reach) -> str:
    said = {"ready": "answers; reos may act as root", "answers": "answers, not as root",
            "unreached": "not reached"}[reach.state]
    why = f": {reach.problem}" if reach.problem else ""
    hint = f" ({reach.hint})" if reach.hint else ""
    return f"{said}{why}{hint}"


def lines(chosen: Inventory, given_by: str,
          reached: dict[str, Reach] | None = None) -> list[str]:
    """The listing: where the inventory is, how many hosts the pattern chose, then each
    group with its chosen hosts, their addresses and (checked) their answers, then what
    is not known."""
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
            line = f"  {name:<{width}}  {address(by_name[name])}  snapshot: {_age(name)}"
            if reached is not None:
                line = f"{line}  {MARK[reached[name].state]} {answer(reached[name])}"
            out.append(line)
    out.append("")
    if any(host.sealed for host in chosen.hosts):
        out.append(f"{SEALED}: vault-encrypted in the inventory, and reos has no vault "
                   f"password to open it (it never runs a vault password script, nor "
                   f"asks). {VAULT_HINT}")
    elif any(host.vaulted for host in chosen.hosts):
        out.append(f"{SEALED}: vault-encrypted in the inventory (opened with Ansible's "
                   "vault password file, never shown).")
    if reached is None:
        out.append(NOT_CHECKED)
    else:
        ready = sum(r.state == "ready" for r in reached.values())
        out.append(f"{ready} of {len(reached)} ready.")
    out.append(SNAPSHOTS)
    return out


def _age(host: str) -> str:
    """When reos last read the host (by this machine's clock: the file it kept)."""
    import time

    from reos.fleet.snapshots import cached, stamp
    from reos.words.conversation import relative_time

    known = cached(host)
    if known is not None and known.problem:
        return "unreadable (read again by the next plan)"
    when = None if known is None else known.read_stamp()
    return "none yet" if when is None else relative_time(when, stamp(time.time()))


def address(host: Host) -> str:
    """How ssh would be told to reach the host: [user@]address[:port], the address being
    the inventory name when the inventory gives no ansible_host (an IPv6 address is
    bracketed before a port); SEALED stands for a vault-encrypted value, opened or not,
    which is never shown."""
    def said(name: str) -> str | None:
        return SEALED if name in host.vaulted or name in host.sealed else getattr(host, name)

    text = said("ansible_host") or host.name
    if port := said("ansible_port"):
        text = f"[{text}]:{port}" if ":" in text else f"{text}:{port}"
    if user := said("ansible_user"):
        text = f"{user}@{text}"
    return text
