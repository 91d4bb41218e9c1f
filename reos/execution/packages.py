"""What a package step really changes: the blast radius before, the new packages after.

`blast_radius` asks the package manager to simulate an install or removal (read-only,
no root needed) so the plan can say "this also installs …" before approval.
`installed_names` is read before and after an install step so the journal records
exactly which packages were newly installed, dependencies included; undo removes those
and nothing else. apt is simulated precisely; other managers report no preview yet.
"""

from __future__ import annotations

import re
import subprocess
from typing import Any

from reos.model import Step

_APT_LINE = re.compile(r"^(Inst|Remv|Purg) (\S+)")


def installed_names() -> set[str] | None:
    from reos.system.collectors import Unavailable, packages

    try:
        return {p.name for p in packages()}
    except Unavailable:
        return None


def blast_radius(manager: str | None, action: str, name: str) -> list[str] | None:
    """Other packages an install/remove/purge of `name` would touch, or None if unknown."""
    if manager != "apt" or action not in ("install", "remove", "purge"):
        return None
    verb = {"install": "install", "remove": "remove", "purge": "purge"}[action]
    try:
        done = subprocess.run(["apt-get", "-s", "-q", verb, name], capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL,
                              env={"LC_ALL": "C.UTF-8", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    touched = [m.group(2) for m in map(_APT_LINE.match, done.stdout.splitlines()) if m]
    return [p for p in touched if p != name]


def before_step(step: Step) -> set[str] | None:
    """What to remember before a package step runs (None: nothing to watch)."""
    if step.target is None or step.target.kind != "package" or step.action != "install":
        return None
    return installed_names()


def after_step(step: Step, prior: dict[str, Any] | None, before: set[str],
               manager: str | None) -> tuple[dict[str, Any], list[str] | None] | None:
    """(prior state to record, undo argv) once the step ran: an install's undo removes
    exactly what it brought in, dependencies included. None: keep what was recorded."""
    from reos.system.state import PACKAGE_REMOVE

    after = installed_names()
    if after is None or manager not in PACKAGE_REMOVE:
        return None
    new = sorted(after - before)
    recorded = dict(prior or {}, new_packages=new)
    rollback = [*PACKAGE_REMOVE[manager], *new] if new else None
    if rollback and step.needs_root:
        rollback = ["sudo", "-n", *rollback]
    return recorded, rollback


def preview(plan: Any, manager: str | None) -> bool:
    """Say, before approval, what a plan's package steps also touch (a simulation).

    Sets `also` on each package step and adds a note per step; True when anything was
    added (the plan's message then needs presenting again)."""
    from reos.reasoning.conversation import join_names

    added = False
    for step in plan.steps:
        if step.target is None or step.target.kind != "package":
            continue
        others = blast_radius(manager, step.action or "", step.target.name)
        if others:
            step.also = others
            verb = "installs" if step.action == "install" else "removes"
            undo = " (undo removes them too)" if step.action == "install" else ""
            plan.notes.append(f"{step.title} also {verb} {join_names(others)}{undo}")
            added = True
    return added
