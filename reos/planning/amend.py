"""Amendments to a built plan from what this machine says, made by the planner.

After the planner has built a plan from the request, three things may change it, each
only when the live machine can be asked (never for a snapshot of another machine):
- "free up disk space" measures first and becomes the cleaning of what was found
  (planning/cleanup.py);
- package steps learn what else they touch (a simulation: the blast radius);
- what reos learned here: a fix needed again and again is added up front as its own
  step, saying why; a command that keeps failing here makes the plan ask first.

The machine is reached only through the callables of `Machine`, which the engine
supplies (it runs probes through the gate, simulations, and reads the knowledge base).
Not responsible for running anything itself or for the plan's words (the planner
renders them once, after the amendments).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct

from reos.model.plan import Plan, Step
from reos.model.report import StepResult
from reos.model.risk import RiskLevel
from reos.system.privilege import as_root

if TYPE_CHECKING:
    from reos.planning.cleanup import Probe


class Machine(Struct):
    """What the planner may ask of the live machine (supplied by the engine)."""

    # run read-only probes (each through the gate): results by key, and refusals by what
    probe: Callable[[list[Probe], str], tuple[dict[str, StepResult], dict[str, str]]]
    # simulate package steps; True when the plan learned what else it touches
    simulate: Callable[[Plan], bool]
    # a command's signature in the knowledge base ("apt-get install *")
    signature: Callable[[list[str]], str]
    # fixes needed again and again for a signature: [(fix, times)]
    proactive: Callable[[str], list[tuple[str, int]]]
    # why a signature keeps failing here, or None
    flagged: Callable[[str], str | None]
    # the command of a fix by name ("refresh" → the package manager's refresh), or None
    fix_argv: Callable[[str], list[str] | None]
    learning: bool = True  # apply learned fixes up front (reasoning.enabled)


def measure(plan: Plan, machine: Machine, manager: str | None, is_root: bool) -> str | None:
    """"Free up disk space": measure first, then offer only what was found. Returns the
    sentence to say before the plan, or None when the plan is not a cleaning."""
    from reos.model.request import Kind
    from reos.planning import cleanup

    if plan.intent is None or plan.intent.operation != "cleanup.free_space" or (
            plan.blocked or plan.kind not in (Kind.ACTION, Kind.UNKNOWN)):
        return None
    import shutil

    probes = cleanup.probes(manager, is_root, which=shutil.which, isdir=os.path.isdir)
    results, refused = machine.probe(probes, plan.request)
    found, said = cleanup.items(results, manager, os.uname().release, refused)
    return cleanup.apply(plan, found, said, is_root) or None


def learn(plan: Plan, machine: Machine, is_root: bool) -> None:
    """Add fixes this machine needed again and again up front, saying why; make a plan
    whose commands keep failing here ask first."""
    if not plan.steps or plan.read_only:
        return
    added: list[Step] = []
    for step in list(plan.steps):
        sig = machine.signature(step.argv)
        for fix, times in machine.proactive(sig) if machine.learning else []:
            argv = machine.fix_argv(fix)
            if argv is None or any(s.action == fix for s in [*plan.steps, *added]):
                continue
            plain, argv = argv, as_root(argv, is_root)
            added.append(Step(id="", title="Refresh the package lists", argv=argv,
                              risk=RiskLevel.LOW, action=fix, needs_root=argv != plain,
                              why=f"{sig.rstrip(' *')} needed this first {times} times here"))
            plan.notes.insert(0, f"I learned that on this system, {sig.rstrip(' *')} often "
                              "fails without a recent cache update. I've seen this "
                              f"{times} times before, so now I do it proactively.")
        warning = machine.flagged(sig)
        if warning:
            plan.notes.append(f"\u26a0\ufe0f {warning}")
            plan.confirm_reason = warning
    if added:
        _prepend(plan, added)


def _prepend(plan: Plan, added: list[Step]) -> None:
    """Put `added` first and renumber every step, keeping `depends_on` pointing at the
    same steps; the former first steps now wait for the added ones."""
    renamed: dict[str, str] = {}
    steps = [*added, *plan.steps]
    for n, step in enumerate(steps, start=1):
        if step.id:
            renamed[step.id] = f"s{n}"
        step.id = f"s{n}"
    last_added = added[-1].id
    for n, step in enumerate(added[1:], start=1):
        step.depends_on = [added[n - 1].id]
    for step in steps[len(added):]:
        step.depends_on = [renamed.get(d, d) for d in step.depends_on] or [last_added]
    plan.steps = steps
