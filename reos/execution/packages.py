"""What a package step really changes: the blast radius before, the exact change after.

Before approval, `preview` asks the package manager to simulate each package step
(read-only, no root): an install says what else it brings in; a removal says every
package it takes, is raised to high risk when it takes what reos runs on, the running
kernel, the init system, sudo, the package manager or the SSH server of this session,
and is marked irreversible when a version it takes can no longer be installed from any
source (then undo could not bring it back). During execution, `before_step` and
`after_step` compare the installed packages before and after the step, so the journal
records exactly what an install brought in (undo removes those) or what a removal took,
with versions (undo reinstalls those, pinned); `changed` is that comparison alone, also
made for another machine's packages (reos.fleet.package_changes). Before an undo removes
what an install brought in, `takes_more` asks the dry run again: what was installed since
and depends on it must not go with it.
Not responsible for running steps (the executor), for the dry runs' parsing
(package_sim) or for knowing which packages are vital (package_guard).
"""

from __future__ import annotations

import subprocess
from typing import Any

from reos.execution import package_sim
from reos.model.plan import Step
from reos.model.risk import RiskLevel
from reos.system.privilege import as_root

MANY = 20  # a removal taking this many packages is high-risk whatever they are
_SHOWN = 12  # names listed in a note before "and N more"


def installed_names() -> set[str] | None:
    versions = installed_versions()
    return set(versions) if versions is not None else None


def installed_versions() -> dict[str, str] | None:
    """Installed package name → version, or None when it cannot be read here."""
    from reos.system.collectors import packages
    from reos.system.portable import Unavailable

    try:
        return {p.name: p.version for p in packages()}
    except Unavailable:
        return None


def blast_radius(manager: str | None, action: str, name: str) -> list[str] | None:
    """Other packages an install/remove/purge of `name` would touch, or None if unknown."""
    if action in package_sim.REMOVING:
        sim = package_sim.simulate(manager, action, name)
        return None if sim is None or sim.problem else [p for p in sim.removed if p != name]
    if manager != "apt" or action != "install":
        return None
    try:
        done = subprocess.run(["apt-get", "-s", "-q", "install", name], capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL,
                              env={"LC_ALL": "C.UTF-8", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [p for p in package_sim.parse_apt(done.stdout).installed if p != name]


def _removes(step: Step) -> bool:
    """A package removal: remove/purge of a package, or an autoremove (no target)."""
    if step.action not in package_sim.REMOVING or step.read_only:
        return False
    if step.target is None:
        return step.action == "autoremove"
    return step.target.kind == "package"


def watches(step: Step) -> str | None:
    """"removes" (a package removal), "installs" (a package install) or None: a step
    whose real change `before_step` and `after_step` do not watch."""
    if _removes(step):
        return "removes"
    if step.target is None or step.target.kind != "package" or step.action != "install":
        return None
    return "installs"


def before_step(step: Step) -> set[str] | dict[str, str] | None:
    """What to remember before a package step runs (None: nothing to watch): the installed
    names before an install, the installed names with versions before a removal."""
    watched = watches(step)
    if watched == "removes":
        return installed_versions()
    return installed_names() if watched == "installs" else None


def before_from(step: Step, versions: dict[str, str]) -> set[str] | dict[str, str] | None:
    """`before_step`'s shape from installed packages read elsewhere (name → version)."""
    watched = watches(step)
    if watched == "removes":
        return dict(versions)
    return set(versions) if watched == "installs" else None


def after_step(step: Step, prior: dict[str, Any] | None, before: set[str] | dict[str, str],
               manager: str | None) -> tuple[dict[str, Any], list[str] | None] | None:
    """(prior state to record, undo argv) once the step ran here (`changed`, with this
    machine's packages read now). None: keep what was recorded."""
    now = installed_versions()
    if now is None:
        return None
    return changed(step, prior, before, now, manager, root=step.needs_root)


def changed(step: Step, prior: dict[str, Any] | None, before: set[str] | dict[str, str],
            now: dict[str, str], manager: str | None, *,
            root: bool) -> tuple[dict[str, Any], list[str] | None] | None:
    """(prior state to record, undo argv) from the installed packages `before` the step
    (`before_step`'s shape) and `now` (name → version): an install's undo removes exactly
    what it brought in; a removal's undo reinstalls exactly what it took, at the versions
    it took; `root`: the undo runs through sudo. None: keep what was recorded. The names
    and versions are put in the argv as they are: read from elsewhere, they are checked
    first (`rederive.package_changes`)."""
    from reos.system.state import PACKAGE_REMOVE, reinstall_argv

    if isinstance(before, dict):
        taken = {n: v for n, v in sorted(before.items()) if n not in now}
        recorded = dict(prior or {}, removed_packages=taken)
        # an irreversible removal (a purge, a version no source offers) keeps no undo:
        # the plan said so before approval
        rollback = reinstall_argv(manager, taken) if taken and step.reversible else None
        if rollback and root:
            rollback = as_root(rollback, is_root=False)
        return recorded, rollback
    if manager not in PACKAGE_REMOVE:
        return None
    new = sorted(set(now) - before)
    recorded = dict(prior or {}, new_packages=new)
    undo = [*PACKAGE_REMOVE[manager], *new] if new else None
    if undo and root:
        undo = as_root(undo, is_root=False)
    return recorded, undo


def takes_more(argv: list[str], manager: str | None,
               run: Any = package_sim.simulate) -> str | None:
    """Why a package removal that an undo recorded (`argv`: the package manager's remove
    and the names an install brought in) may not run as it stands: its dry run now says
    it would also remove packages it does not name (installed since, depending on what
    it removes: a person's own work, which no undo may take), or the dry run could not
    be read, or this manager has none (zypper, apk), or it would install something. None
    when it removes only what it names, or when `argv` is no removal. `run`: the dry run
    (package_sim.simulate's shape), given for another machine's answers."""
    from reos.system.privilege import strip_sudo
    from reos.system.state import PACKAGE_REMOVE

    remove = PACKAGE_REMOVE.get(manager or "")
    words = strip_sudo(argv)
    if remove is None or words[:len(remove)] != remove or len(words) == len(remove):
        return None
    names = words[len(remove):]
    if package_sim.simulation_argv(manager, "remove", names[0]) is None:
        return (f"reos has no dry run of a removal with {manager}, so it could not check "
                "what else it would remove")
    from reos.execution.rederive import fit_names

    if not fit_names(names):  # an option among them could turn the dry run into a run
        return "what it names are not all package names"
    sim = run(manager, "remove", names[0], tuple(names[1:]))
    if sim is None:
        return ("reos could not read the package manager's dry run of it, so it could "
                "not check what else it would remove")
    if sim.problem:
        return f"its dry run fails ({sim.problem})"
    named = {name.split(":", 1)[0].split("=", 1)[0] for name in names}
    others = sorted({name.split(":", 1)[0] for name in sim.removed} - named)
    if not others and sim.installed:  # a removal that installs: not what was recorded
        return (f"it would also install {some_names(sorted(sim.installed))}, which undo "
                "never does")
    if not others:
        return None
    those = "it depends" if len(others) == 1 else "they depend"
    return (f"it would also remove {some_names(others)}, installed since ({those} on what "
            "the undo removes), and undo never takes what came after it")


def some_names(names: list[str]) -> str:
    """'a, b and c', or the first dozen 'and 35 more' when the list is long."""
    from reos.words.conversation import join_names

    if len(names) <= _SHOWN:
        return join_names(names)
    return ", ".join(names[:_SHOWN]) + f" and {len(names) - _SHOWN} more"


def preview(plan: Any, manager: str | None) -> bool:
    """Say, before approval, what a plan's package steps also touch (a simulation).

    Sets `also` on each package step, raises the risk of removals that take something
    vital and marks removals undo could not bring back; adds a note per finding. True
    when anything was added (the plan's words, rendered after this, say it)."""
    added = False
    vital: dict[str, str] | None = None
    for step in plan.steps:
        if _removes(step):
            if vital is None:
                from reos.execution.package_guard import protected

                vital = protected(manager)
            judge_removal(plan, step, manager, package_sim.simulate(
                manager, step.action or "", step.target.name if step.target else None), vital)
            added = True
            continue
        if step.target is None or step.target.kind != "package" or step.action != "install":
            continue
        others = blast_radius(manager, "install", step.target.name)
        if others:
            step.also = others
            plan.notes.append(f"{step.title} also installs {some_names(others)} "
                              "(undo removes them too)")
            added = True
    return added


def judge_removal(plan: Any, step: Step, manager: str | None,
                  sim: package_sim.Simulation | None, vital: dict[str, str]) -> None:
    """Put what the simulation of one removal found on the step and in the plan's notes."""
    from reos.execution.package_guard import KERNEL, KERNEL_META, kernel_meta

    name = step.target.name if step.target else None
    taken = dict(sim.removed) if sim is not None else {}
    if sim is None:
        plan.notes.append(f"I couldn't preview what \u201c{step.title}\u201d takes with it "
                          f"(no dry run from {manager or 'a known package manager'} I could read); "
                          "undo will reinstall whatever it really removes")
    elif sim.problem:
        plan.notes.append(f"\u201c{step.title}\u201d will likely fail: {sim.problem}")
    others = sorted(n for n in taken if n != name)
    if sim is not None:
        step.also = others
    touched = set(taken) | ({name} if name else set())
    hits = {n: vital[n] for n in touched if n in vital}
    kernels = {n for n, why in vital.items() if why == KERNEL}
    for meta in kernel_meta(manager, sorted(set(taken) - kernels), kernels):
        hits.setdefault(meta, KERNEL_META)
    grouped: dict[str, list[str]] = {}
    for n, why in sorted(hits.items()):
        grouped.setdefault(why, []).append(n)
    reasons = [f"removes {some_names(names)}, {why}" for why, names in grouped.items()]
    if len(taken) >= MANY:
        reasons.append(f"removes {len(taken)} packages")
    if reasons:
        step.risk = max(step.risk, RiskLevel.HIGH)
        step.risk_reasons.extend(r for r in reasons if r not in step.risk_reasons)
        plan.notes.append(f"\u26a0\ufe0f \u201c{step.title}\u201d {'; '.join(reasons)}")
    if others:
        plan.notes.append(f"{step.title} also removes {some_names(others)}")
    if sim is not None and not sim.problem:  # also when already irreversible: say why
        _check_undo(plan, step, manager, taken)


def _check_undo(plan: Any, step: Step, manager: str | None, taken: dict[str, str]) -> None:
    """Can undo reinstall every package the removal takes, at the version it takes?"""
    from reos.system.state import reinstall_argv

    pinned = {n: v for n, v in sorted(taken.items()) if v}
    if manager == "pacman":
        if step.reversible:
            plan.notes.append("pacman cannot reinstall a chosen version: undo would reinstall "
                              f"{some_names(sorted(taken))} at whatever version the "
                              "repositories offer then")
        return
    offered = package_sim.available_versions(manager, sorted(pinned))
    if offered is None:
        if step.reversible:
            plan.notes.append(f"I couldn't check that undo can reinstall "
                              f"{some_names(sorted(pinned))} at the same versions")
        return
    lost = [f"{n} {v}" for n, v in sorted(pinned.items()) if v not in offered.get(n, set())]
    if lost:
        step.reversible = False
        step.rollback = None
        those = "that version" if len(lost) == 1 else "those versions"
        plan.notes.append(f"Undo can't bring back {some_names(lost)}: no package source "
                          f"offers {those}")
        return
    if not step.reversible:  # the risk engine said so (a core package): no rollback
        return
    rollback = reinstall_argv(manager, pinned)
    if rollback and step.needs_root:
        rollback = as_root(rollback, is_root=False)
    if rollback:
        step.rollback = rollback
    if rollback and len(pinned) > 1:
        plan.notes.append("undo reinstalls " + some_names(
            [f"{n} {v}" for n, v in sorted(pinned.items())]))
