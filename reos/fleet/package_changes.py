"""What a change's package steps really did on each host, recorded for undo as on this
machine.

Each install or removal runs on the host between two reads of its package database, in
the same play (`brackets`: a read-only task right before the step and right after it,
which never fails the host nor counts as a change). What differs between those two reads
is what the step did, and nothing else: not what changed on the host between the plan and
the run (unattended upgrades, another admin, a wait at the confirm prompt, an earlier
canary batch), nor what another package step of the same plan did (each is bracketed on
its own). Both reads are made over the same connection, on the host the step ran on, so
the machine cannot have changed between them (no machine-id check is needed), and they
are bounded and cancelled with the run itself.

A package is there unless dpkg says it is not installed or only its configuration files
are left (`present`): one half-installed, half-configured, unpacked, with triggers
pending or held is there, so a package in transit at one read is never "new" nor
"taken". dpkg names a package with its architecture where that tells it apart
(`${binary:Package}`: `lib:i386`), and the packages are keyed so. The step's journal row
then holds what an install brought in (`new_packages`: undo removes them all) or what a
removal took, with the versions it had (`removed_packages`: undo reinstalls them, pinned),
and the undo worked out from that, which undo derives again from the row
(`execution.rederive`). Packages reos needs to reach the host and act there, and the ones
it boots with (`deciding.lifeline_package`), are never credited to a step nor undone.

A read that failed, that says nothing reos can parse, names or versions reos does not put
in a command (`rederive.fit_names`, `fit_packages`), more than MAX_CHANGED packages
changed, or a removal whose package is still there after it: the undo it had, said.
Never a guess.

Not responsible for running steps or undo (changing.py), nor for printing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from reos.execution import packages
from reos.execution.rederive import fit_names, fit_packages, package_changes
from reos.fleet.deciding import lifeline_package
from reos.fleet.running import Task
from reos.model.plan import Step
from reos.store.journal import Journal
from reos.system.privilege import strip_sudo, through_sudo

MAX_CHANGED = 5000  # packages one undo on a host may name, at most
READ_TIMEOUT = 60  # seconds one read of a host's packages may take
RAN = ("done", "running", "failed")  # a step with these may have changed packages
BEFORE, AFTER = "reos reads packages before", "reos reads packages after"
# how each package manager's database is read (a read only: no root, no lock)
_READS: dict[str, list[str]] = {
    "apt": ["dpkg-query", "-W", "-f", "${db:Status-Abbrev}\t${binary:Package}\t${Version}\n"],
    "dnf": ["rpm", "-qa", "--qf", "ii \t%{NAME}\t%{VERSION}-%{RELEASE}\n"],
    "zypper": ["rpm", "-qa", "--qf", "ii \t%{NAME}\t%{VERSION}-%{RELEASE}\n"],
}
# dpkg's second status letter for a package that is not there: not installed, or only
# its configuration files left
_ABSENT = set("nc")


class Ran(Struct):
    """One package step that ran (or may have) on a host: its journal row, the prior
    state and undo recorded before it ran, and the host's packages read right before and
    right after it (None: not read; `problem` says why)."""

    step: Step
    row: int
    prior: dict[str, Any] | None = None
    undo: list[str] | None = None
    before: dict[str, str] | None = None
    after: dict[str, str] | None = None
    problem: str | None = None


class Settled(Struct):
    """What to record on one row instead: the prior state with the real change, its undo."""

    row: int
    prior: dict[str, Any]
    undo: list[str] | None


def touches(step: Step) -> bool:
    """Whether a step may change which packages are installed."""
    return not step.read_only and step.target is not None and step.target.kind == "package"


def read_task(step: Step, manager: str | None, when: str) -> Task | None:
    """The read of the host's packages right `when` (BEFORE or AFTER) `step`, or None
    when the step is not an install or removal, or the manager is not one reos reads."""
    argv = _READS.get(manager or "")
    if argv is None or not touches(step) or not packages.watches(step):
        return None
    return Task(f"{when} {step.id}", "ansible.builtin.command",
                {"argv": argv, "expand_argument_vars": False}, timeout=READ_TIMEOUT,
                environment={"LC_ALL": "C.UTF-8"}, check_mode=False,
                failed_when=False, changed_when=False)


def present(status: str) -> bool:
    """Whether a package with dpkg's status abbreviation `status` ("ii ", "iU ", "hi ",
    "rc ", "un "…) is there: anything but not installed or config files only."""
    return len(status) >= 2 and status[1] not in _ABSENT


def parse(returned: Mapping[str, Any] | None) -> dict[str, str] | None:
    """A read task's result → installed package (name or name:arch) → version; None
    when it failed or holds a line reos cannot read."""
    if not returned or returned.get("rc") != 0:
        return None
    text = returned.get("stdout")
    if not isinstance(text, str) or not text.strip():
        return None
    found: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) != 3:
            return None
        status, name, version = fields
        if present(status):
            found[name] = version
    return found


def _base(name: str) -> str:
    return name.split(":", 1)[0]


def settle(one: Ran) -> tuple[Settled | None, str | None]:
    """What to record for the package step `one` from the host's packages right before
    and right after it, and what to say of it (None: nothing beyond the plan's words)."""
    if not packages.watches(one.step):
        return None, None  # no install or removal: nothing is watched, as on this machine
    name = one.step.target.name if one.step.target is not None else ""
    kept = f"undo does only what the plan said, for {name}"
    if one.before is None or one.after is None:
        why = one.problem or "no answer"
        return None, f"reos could not read its packages around {name} ({why}), so {kept}"
    before = {n: v for n, v in one.before.items() if not lifeline_package(n)}
    after = {n: v for n, v in one.after.items() if not lifeline_package(n)}
    new = sorted(set(after) - set(before))
    taken = sorted(set(before) - set(after))
    if len(new) + len(taken) > MAX_CHANGED:
        return None, (f"{len(new) + len(taken)} packages changed there, more than reos puts "
                      f"in one undo, so {kept}")
    if packages.watches(one.step) == "removes" and one.undo and not any(
            _base(n) == name for n in taken) and any(_base(n) == name for n in after):
        # still there (under another architecture?): what it took is not known
        return None, f"{name} is still installed there after its removal, so {kept}"
    manager = (one.prior or {}).get("manager")
    manager = manager if isinstance(manager, str) else None
    shaped = packages.before_from(one.step, before)
    assert shaped is not None  # watched: an install or a removal
    change = packages.changed(one.step, one.prior, shaped, after, manager,
                              root=through_sudo(one.step.argv))
    if change is None:  # a package manager reos removes nothing with
        return None, None
    prior, undo = change
    removed = prior.get("removed_packages")
    fits = fit_packages(removed) if isinstance(removed, dict) and removed else fit_names(
        prior.get("new_packages") or [])
    if not fits or (undo is not None and strip_sudo(undo) not in [
            strip_sudo(e) for e in package_changes(prior, manager)]):
        return None, (f"what it said of its packages around the step holds names or "
                      f"versions reos does not put in a command, so {kept}")
    return Settled(one.row, prior, undo), _said(one.step, prior, undo)


def _said(step: Step, prior: dict[str, Any], undo: list[str] | None) -> str | None:
    name = step.target.name if step.target is not None else ""
    title = step.title
    taken = prior.get("removed_packages")
    if isinstance(taken, dict):
        if not taken:
            return f"{title} took no package there: undo has nothing to reinstall"
        if [_base(n) for n in taken] == [name]:
            return None
        pins = packages.some_names([f"{n} {v}".strip() for n, v in taken.items()])
        return (f"undo reinstalls what {title.lower()} took, at the versions it had: {pins}"
                if undo else f"{title} took {pins}, and has no undo")
    new = prior.get("new_packages") or []
    if not new:
        return f"{title} brought in no package there: undo has nothing to remove"
    if [_base(n) for n in new] == [name]:
        return None
    return f"undo removes what {title.lower()} brought in: {packages.some_names(new)}"


def record(journal: Journal, ran: Mapping[str, list[Ran]]) -> dict[str, str]:
    """Record on each package step's row what it really changed on its host (`settle`),
    and return what to say per host."""
    said: dict[str, str] = {}
    for host, steps in ran.items():
        texts = []
        for one in steps:
            settled, text = settle(one)
            if settled is not None:
                journal.set_undo(settled.row, settled.prior, settled.undo)
            if text:
                texts.append(text)
        if texts:
            said[host] = "; ".join(texts)
    return said
