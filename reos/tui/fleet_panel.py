"""What the chat's hosts panel (F5) says: the hosts of the person's Ansible inventory,
group by group, how old reos's snapshot of each is, and, once reached, whether each
answers and lets reos act as root.

The panel's key exists only when an inventory is configured (`[fleet] inventory` in the
settings or ANSIBLE_INVENTORY; `source`). Reading the inventory and the kept snapshots'
ages is local (`look`). Reaching the hosts is one Ansible run (`reach`), made when the
panel is opened and never on a timer: the chat does not knock on other machines every
half minute unasked. Every failure (an inventory that does not parse, Ansible missing, a
host that does not answer) becomes the panel's words, never an exception.

Not responsible for reading the inventory, reaching hosts or keeping snapshots
(reos.fleet), nor for drawing (reos/tui/panels.py).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from reos.errors import ReosError, plainly

if TYPE_CHECKING:
    from reos.fleet.inventory import Inventory, Source
    from reos.fleet.reach import Reach
    from reos.settings import Settings

MARK = {"ready": "\u2713", "answers": "!", "unreached": "\u2717"}
NONE_YET = "never read"


def source(settings: Settings) -> Source | None:
    """The inventory the settings or ANSIBLE_INVENTORY name, or None (no hosts panel)."""
    from reos.fleet.inventory import find_source

    return find_source(None, settings)


def look(where: Source) -> tuple[Inventory | None, dict[str, str], str | None]:
    """The inventory's hosts and when reos last read each one (its kept snapshot, by
    this machine's clock), or why the inventory could not be read."""
    from reos.fleet.inventory import select
    from reos.fleet.snapshots import cached, stamp
    from reos.words.conversation import relative_time

    try:
        chosen = select(where, "all", None)
    except ReosError as exc:
        return None, {}, plainly(exc, "Reading the inventory")
    now = stamp(time.time())
    ages: dict[str, str] = {}
    for host in chosen.hosts:
        known = cached(host.name)
        when = None if known is None or known.snapshot is None else known.read_stamp()
        ages[host.name] = NONE_YET if when is None else f"read {relative_time(when, now)}"
    return chosen, ages, None


def reach(where: Source, hosts: list[str], connect_timeout: int) -> dict[str, Reach]:
    """Whether each host answers (one Ansible run for all of them)."""
    from reos.fleet.reach import check

    return {r.host: r for r in check(where, hosts, connect_timeout=connect_timeout)}


def lines(where: Source | None, chosen: Inventory | None, ages: dict[str, str],
          reached: dict[str, Any] | None, *, problem: str | None = None,
          reaching: bool = False, checked_at: float | None = None) -> list[str]:
    """The panel's text: where the inventory is, then each group's hosts with their
    snapshot age and (reached) their answer, then what is not known."""
    if where is None:
        return ["No Ansible inventory is configured.",
                "Set inventory = \"FILE\" under [fleet] in the settings, or "
                "ANSIBLE_INVENTORY."]
    out = [f"Inventory: {where.names()}"]
    if problem is not None or chosen is None:
        return [*out, problem or "The inventory could not be read."]
    count = len(chosen.hosts)
    out.append(f"{count} host{'s' * (count != 1)}")
    sections = list(chosen.groups.items())
    loose = tuple(h.name for h in chosen.hosts if not any(h.name in m for _, m in sections))
    if loose:
        sections.append(("(no group)", loose))
    for group, members in sections:
        out += ["", f"{group} ({len(members)})"]
        for name in members:
            age = ages.get(name, NONE_YET)
            answer = None if reached is None else reached.get(name)
            if answer is None:
                out.append(f"  {name}  {age}")
            else:
                why = f": {answer.problem}" if answer.problem else ""
                out.append(f"{MARK[answer.state]} {name}  {answer.state}{why}; {age}")
    out.append("")
    if reaching:
        out.append("Reaching the hosts\u2026")
    elif reached is None:
        out.append("Not reached yet: opening this panel reaches them.")
    else:
        ready = sum(r.state == "ready" for r in reached.values())
        when = time.strftime("%H:%M", time.localtime(checked_at)) if checked_at else "now"
        out.append(f"{ready} of {len(reached)} ready (reached at {when}).")
    return out
