"""The quality gates of an execution, as pure verdicts (design notes, "Quality Gates in
Action"); the executor calls them and records each `GateVerdict` on its report.

- `preflight(plan, max_operations)` before the journal is written: the goal is stated,
  a plan exists, its scope is within the limit, the system context it needs was read,
  and no two steps contradict each other. A failing one means nothing runs.
- `midflight(step, result)` after each step: its result and the warnings in its
  output; a warning that asks a person to look (a reboot or restart required, a
  configuration file kept or replaced, packages held back) pauses the plan for review.
- `postflight(report)` when the run ends: every step done, no critical errors, the
  goal verified (checked for real, not checked, or failed the check).
- `summary(report)`: one or two sentences for the execution summary, None when every
  gate passed quietly.

Not responsible for running, stopping or pausing anything (the executor acts on the
verdicts), or for judging a command's risk (reos.safety).
"""

from __future__ import annotations

import re

from reos.model.plan import Plan, Step, step_words
from reos.model.report import ExecutionReport, GateVerdict, StepResult, StopReason
from reos.patterns import regex
from reos.text import clean

__all__ = ["midflight", "postflight", "preflight", "summary", "MAX_PLAN_STEPS"]

PRE, MID, POST = "pre-flight", "mid-flight", "post-flight"
# the design notes' reasonable scope: a plan larger than this, and larger than the
# person's own operations limit, is refused before it runs (see `preflight`)
MAX_PLAN_STEPS = 25

# What a step does to its target, on one axis: two steps that set the same axis of the
# same target to different values contradict each other (start and stop, enable and
# disable, install and remove, create and delete). `restart` and `reload` are on no
# axis: they are whole operations, and "stop, then restart" ends where a restart does.
_AXES: dict[str, tuple[tuple[str, bool], ...]] = {
    "start": (("running", True),), "stop": (("running", False),),
    "kill": (("running", False),), "terminate": (("running", False),),
    "enable": (("boot", True),), "disable": (("boot", False),),
    "enable_now": (("running", True), ("boot", True)),
    "disable_now": (("running", False), ("boot", False)),
    "mask": (("masked", True),), "unmask": (("masked", False),),
    "pause": (("paused", True),), "unpause": (("paused", False),),
    "install": (("present", True),), "remove": (("present", False),),
    "purge": (("present", False),), "create": (("present", True),),
    "delete": (("present", False),), "delete_with_home": (("present", False),),
    "add": (("present", True),),
    "hold": (("held", True),), "unhold": (("held", False),),
    "lock": (("locked", True),), "unlock": (("locked", False),),
    "grant_admin": (("admin", True),), "revoke_admin": (("admin", False),),
    "mount": (("mounted", True),), "unmount": (("mounted", False),),
    "interface_up": (("up", True),), "interface_down": (("up", False),),
}

# Warning lines in a step's output. The first group asks a person to look before the
# plan goes on (`review`); the second is only noted.
_REVIEW = regex(
    r"reboot(ing)? (is )?required|restart (is )?required|needs? (a )?re(boot|start)"
    r"|configuration file .*(modified|changed|replaced|kept)|conffile"
    r"|(kept|held) back|held packages|dpkg was interrupted", re.I)
_WARNING = regex(r"^(W|E): |warning\b|deprecat", re.I)
_MAX_WARNINGS = 5
_MAX_LINE = 200


def preflight(plan: Plan, max_operations: int) -> list[GateVerdict]:
    """Every pre-flight check's verdict, in order; run nothing unless all passed.

    Scope: a plan passes when it fits the person's operations limit or the design notes'
    25 steps, whichever is larger: a plan the operations breaker would pause is still run
    up to the pause (the person may continue), one beyond both is refused outright.
    Context: what is checkable without touching the machine is that the plan was built
    from its snapshot: each step that acts on a resource carries the resolved target
    (kind and name), and an intent that named targets resolved at least one. (Whether a
    conditional plan's condition still holds is checked live, just after, by the
    executor.)
    """
    verdicts = [
        _verdict("goal", bool(plan.request.strip()), "the goal is stated",
                 "there is no request, so there is no goal to check the plan against"),
        _verdict("plan", bool(plan.steps), "the plan has steps", "the plan has no steps"),
    ]
    ceiling = max(max_operations, MAX_PLAN_STEPS)
    verdicts.append(_verdict(
        "scope", len(plan.steps) <= ceiling, f"{len(plan.steps)} steps, within the limit",
        f"the plan has {len(plan.steps)} steps, more than the {ceiling} one run may do; "
        "ask for fewer at a time"))
    verdicts.append(_context(plan))
    verdicts.append(_conflicts(plan))
    return verdicts


def refusal(plan: Plan, max_operations: int) -> str | None:
    """Why the pre-flight gate would refuse `plan` (its failed checks in words), or None;
    the planner says it before approval instead of after."""
    return "; ".join(v.said for v in preflight(plan, max_operations) if not v.passed) or None


def _context(plan: Plan) -> GateVerdict:
    unresolved = [s for s in plan.steps if s.target is not None
                  and not (s.target.kind and s.target.name)]
    if unresolved:
        return _verdict("context", False, "", f"\u201c{clean(unresolved[0].title)}\u201d "
                        "acts on a target that was never resolved on this machine")
    intent = plan.intent
    named = intent is not None and bool(intent.targets) and not plan.read_only
    if named and not plan.targets and not any(s.target for s in plan.steps):
        return _verdict("context", False, "", "none of the things the request names was "
                        "found on this machine when the plan was made")
    return _verdict("context", True, "the plan was built from what is on this machine", "")


def _conflicts(plan: Plan) -> GateVerdict:
    seen: dict[tuple[str, str, str], tuple[bool, Step]] = {}
    for step in plan.steps:
        if step.target is None or step.read_only or not step.action:
            continue
        for axis, value in _AXES.get(step.action, ()):
            key = (step.target.kind, step.target.name, axis)
            earlier = seen.get(key)
            if earlier is not None and earlier[0] != value:
                return _verdict("conflicts", False, "", (
                    f"\u201c{clean(earlier[1].title)}\u201d and \u201c{clean(step.title)}\u201d "
                    f"contradict each other on {clean(step.target.name)}; ask for one of "
                    "them"))
            seen[key] = (value, step)
    return _verdict("conflicts", True, "no two steps contradict each other", "")


def midflight(step: Step, result: StepResult) -> GateVerdict:
    """A step's result and the warnings in its output (cleaned, at most five)."""
    warnings: list[str] = []
    review = False
    for line in (result.stdout + "\n" + result.stderr).splitlines():
        line = clean(line).strip()
        if not line:
            continue
        asks = bool(_REVIEW.search(line))
        if asks or _WARNING.search(line):
            review = review or asks
            if len(warnings) < _MAX_WARNINGS and line[:_MAX_LINE] not in warnings:
                warnings.append(line[:_MAX_LINE])
    title = clean(step.title)
    if not result.ok:
        why = "it was blocked" if result.blocked else clean(
            (result.stderr.strip().splitlines() or ["it failed"])[-1])[:_MAX_LINE]
        said = f"\u201c{title}\u201d failed: {why}"
    elif review:
        said = f"\u201c{title}\u201d says a person should look: {warnings[0]}"
    elif warnings:
        said = f"\u201c{title}\u201d warned: {warnings[0]}"
    else:
        said = f"\u201c{title}\u201d done"
    return GateVerdict(MID, "result", result.ok, said, step.id, warnings,
                       review and result.ok)


def postflight(report: ExecutionReport) -> list[GateVerdict]:
    """All steps done, no critical errors, the goal verified (or said unchecked)."""
    done = not report.pending and report.failed is None
    left = len(report.pending) + int(report.failed is not None)
    verdicts = [_verdict("completed", done, "every step ran",
                         f"{left} of {len(report.completed) + left} steps did not run to the "
                         "end")]
    errors = [r for r in report.results if not r.ok]
    verdicts.append(_verdict("errors", not errors, "no step failed", "; ".join(
        f"{step_words(r.step_id)} {'was blocked' if r.blocked else 'failed'}"
        for r in errors)))
    failed_check = [r for r in errors if r.stderr.startswith("verification failed")]
    if failed_check:
        verdicts.append(_verdict("verified", False, "", clean(failed_check[0].stderr)))
    else:
        parts = [f"{report.verified} checked for real"] if report.verified else []
        if report.unchecked:
            parts.append(f"{len(report.unchecked)} could not be checked")
        verdicts.append(_verdict("verified", True, ", ".join(parts) or "not checked", ""))
    return verdicts


def summary(report: ExecutionReport) -> str | None:
    """The gates worth mentioning after a run, in a sentence or two; None: all quiet."""
    failed = [v for v in report.gates if not v.passed]
    pre = [v for v in failed if v.gate == PRE]
    if pre:
        return "Checked before running: " + "; ".join(v.said for v in pre) + "."
    sentences = []
    looks = [v for v in report.gates if v.review]
    if looks:  # the last step's warning asks for a look too, with nothing left to pause
        paused = report.stop is StopReason.REVIEW
        sentences.append(f"{'Paused for review' if paused else 'Worth a look'}: "
                         f"{looks[-1].said}.")
    warned = [v for v in report.gates if v.warnings and not v.review and v.passed]
    if warned:
        sentences.append(f"{len(warned)} step{'s' if len(warned) != 1 else ''} warned: "
                         + warned[0].warnings[0] + ("" if len(warned) == 1 else " \u2026")
                         + ".")
    unverified = [v for v in failed if v.gate == POST and v.check == "verified"]
    if unverified:
        sentences.append(f"The goal was not reached: {unverified[0].said}.")
    return " ".join(sentences) or None


def _verdict(check: str, passed: bool, good: str, bad: str) -> GateVerdict:
    gate = POST if check in ("completed", "errors", "verified") else PRE
    return GateVerdict(gate, check, passed, good if passed else bad)
