"""What a change's package steps really did on each host, recorded for undo as on this
machine.

After a change, the hosts where a package step ran (or may have) are read again, all in
one Ansible run (`snapshots.read`), and their installed packages are compared with the
snapshot the plan was made from by the comparison this machine makes around each step
(`execution.packages.changed`). The step's journal row then holds what an install
brought in (`new_packages`: undo removes them all) or what a removal took, with the
versions it had (`removed_packages`: undo reinstalls them, pinned), and the undo worked
out from that, which undo derives again from the row (`execution.rederive`).

A host is compared once, after its whole plan, not around each step: the difference is
the step's only when one package step ran there (no other step of a plan on hosts
changes packages: deciding.py leaves out what it cannot record). With several, which
step brought in or took what is not known: each keeps the undo worked out from its own
package's prior state, and what the plan also changed is said. A host not read again,
whose packages before are not known, whose names or versions are not ones reos puts in a
command (`rederive.fit_packages`, the check undo makes), or where more than MAX_CHANGED
packages changed, keeps the undo it had, said. Never a guess.

Not responsible for running steps or undo (changing.py), for reading hosts
(snapshots.py), nor for printing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from msgspec import Struct

from reos.errors import ReosError
from reos.execution import packages
from reos.execution.rederive import fit_packages, package_changes
from reos.fleet.inventory import Source
from reos.fleet.running import CONNECT_TIMEOUT
from reos.model.plan import Step
from reos.store.journal import Journal
from reos.system.privilege import strip_sudo, through_sudo
from reos.system.snapshot import SystemSnapshot

MAX_CHANGED = 5000  # packages one undo on a host may name, at most
RAN = ("done", "running", "failed")  # a step with these may have changed packages


class Ran(Struct):
    """One package step that ran (or may have) on a host: its journal row, and the prior
    state and undo recorded before it ran."""

    step: Step
    row: int
    prior: dict[str, Any] | None = None
    undo: list[str] | None = None


class Settled(Struct):
    """What to record on one row instead: the prior state with the real change, its undo."""

    row: int
    prior: dict[str, Any]
    undo: list[str] | None


def touches(step: Step) -> bool:
    """Whether a step may change which packages are installed."""
    return not step.read_only and step.target is not None and step.target.kind == "package"


def versions(snapshot: SystemSnapshot | None) -> dict[str, str] | None:
    """A snapshot's installed packages, name -> version (None: not read)."""
    if snapshot is None or snapshot.packages is None:
        return None
    return {p.name: p.version for p in snapshot.packages}


def settle(ran: list[Ran], before: dict[str, str] | None, after: dict[str, str] | None,
           problem: str | None = None) -> tuple[list[Settled], str | None]:
    """What to record for a host's package steps `ran`, from its packages `before` the
    change and `after` it (None: not known; `problem` says why after is not), and what to
    say of it (None: nothing beyond the plan's own words)."""
    if not any(packages.watches(r.step) for r in ran):
        return [], None  # no install or removal: nothing is watched, as on this machine
    named = [r.step.target.name for r in ran if r.step.target is not None]
    kept = f"undo does only what the plan said, for {packages.some_names(named)} alone"
    if before is None:
        return [], f"its packages before the change are not known, so {kept}"
    if after is None:
        return [], (f"reos could not read its packages again after the change "
                    f"({problem or 'no answer'}), so {kept}")
    new = sorted(set(after) - set(before))
    taken = {n: before[n] for n in sorted(set(before) - set(after))}
    if len(new) + len(taken) > MAX_CHANGED:
        return [], (f"{len(new) + len(taken)} packages changed there, more than reos puts in "
                    f"one undo, so {kept}")
    if len(ran) > 1:
        also = [n for n in new if n not in named]
        gone = [n for n in taken if n not in named]
        said = ("reos reads a host's packages only after its whole plan, so it cannot tell "
                f"which step brought in or took what: {kept}")
        if also and fit_packages(dict.fromkeys(also, "")):
            said += f" (the plan also brought in {packages.some_names(also)})"
        if gone and fit_packages(dict.fromkeys(gone, "")):
            said += f" (the plan also took {packages.some_names(gone)})"
        return [], said
    one = ran[0]
    manager = (one.prior or {}).get("manager")
    manager = manager if isinstance(manager, str) else None
    shaped = packages.before_from(one.step, before)
    assert shaped is not None  # watched: an install or a removal
    change = packages.changed(one.step, one.prior, shaped, after, manager,
                              root=through_sudo(one.step.argv))
    if change is None:  # a package manager reos removes nothing with
        return [], None
    prior, undo = change
    words = prior.get("removed_packages") or dict.fromkeys(prior.get("new_packages") or (), "")
    if not fit_packages(words) or (undo is not None and strip_sudo(undo) not in [
            strip_sudo(e) for e in package_changes(prior, manager)]):
        return [], (f"what it said of its packages after the change holds names or versions "
                    f"reos does not put in a command, so {kept}")
    return [Settled(one.row, prior, undo)], _said(one.step, prior, undo)


def _said(step: Step, prior: dict[str, Any], undo: list[str] | None) -> str | None:
    name = step.target.name if step.target is not None else ""
    title = step.title
    taken = prior.get("removed_packages")
    if isinstance(taken, dict):
        if not taken:
            return f"{title} took no package there: undo has nothing to reinstall"
        if list(taken) == [name]:
            return None
        pins = packages.some_names([f"{n} {v}".strip() for n, v in taken.items()])
        return (f"undo reinstalls what {title.lower()} took, at the versions it had: {pins}"
                if undo else f"{title} took {pins}, and has no undo")
    new = prior.get("new_packages") or []
    if not new:
        return f"{title} brought in no package there: undo has nothing to remove"
    if new == [name]:
        return None
    return f"undo removes what {title.lower()} brought in: {packages.some_names(new)}"


def record(journal: Journal, source: Source, ran: Mapping[str, list[Ran]],
           before: Mapping[str, SystemSnapshot] | None, *,
           connect_timeout: int = CONNECT_TIMEOUT,
           cancelled: Callable[[], bool] | None = None) -> dict[str, str]:
    """Read the hosts of `ran` again (one Ansible run), record on each package step's row
    what it really changed there (`settle`), and return what to say per host."""
    hosts = [h for h, steps in ran.items() if any(packages.watches(r.step) for r in steps)]
    if not hosts:
        return {}
    after: dict[str, dict[str, str] | None] = dict.fromkeys(hosts)
    problems: dict[str, str] = {}
    if cancelled is not None and cancelled():
        problems = dict.fromkeys(hosts, "the run was cancelled")
    else:
        from reos.fleet import snapshots

        try:
            known = snapshots.read(source, hosts, connect_timeout=connect_timeout)
        except ReosError as exc:
            problems = dict.fromkeys(hosts, exc.message)
        else:
            for host in hosts:
                found = known.get(host)
                after[host] = versions(found.snapshot) if found is not None else None
                if after[host] is None:
                    problems[host] = (found.problem if found is not None and found.problem
                                      else "its packages were not in what it sent")
    said: dict[str, str] = {}
    for host in hosts:
        settled, text = settle(ran[host], versions((before or {}).get(host)), after[host],
                               problems.get(host))
        for one in settled:
            journal.set_undo(one.row, one.prior, one.undo)
        if text:
            said[host] = text
    return said
