"""How good a plan is, before anyone approves it: a score, a label, the reasons, and the
anti-patterns its commands carry (the design notes' Quality Commitment Framework).

`assess(plan)` reads a finished `Plan` and judges it on four layers:
- engineering: idempotent forms (`mkdir -p`, `ln -sf`), explicit non-interactive flags
  (`apt-get install -y`), fail-fast (no `|| true`, `2>/dev/null`, `set +e`), no useless
  `cat file | grep`;
- maintainability: no hard-coded addresses or home paths in commands a model or a
  template wrote, every change undoable;
- gates: scope within `max_steps`, every change has a target state the executor reads
  back (verification);
- transparency: the plan carries its reasoning trace, every step has a title.
Each finding lowers the score by a fixed amount, so adding a problem never raises it.
`describe` renders the block shown before approval; `named_anti_patterns` the sentences
a plan carries about commands a model or the user's template wrote; `to_dict` is the
`quality` key of the plan JSON.

Finding the anti-patterns in each step's command (and the shell reading that needs) is
reos.planning.quality_commands' job; this module turns the findings into a score and
reasons.

Pure and fast (it runs for every plan): no I/O, no subprocess, no settings; imports only
`reos.text` and quality_commands. Not responsible for deciding whether a plan may run (the
risk engine and the gates do), for rendering colours (the surfaces do), or for knowing
whose template built a plan: the Plan does not record a recipe's origin, so the caller
says so with `user_template` (see `provided_by`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct, field

from reos.model.plan import step_words
from reos.planning.quality_commands import AntiPattern, step_findings
from reos.text import clean

if TYPE_CHECKING:
    from typing import Any

    from reos.model.plan import Plan, Step

# Labels by score. "excellent" also needs no named anti-pattern: a plan that hides an
# error is never excellent, however few other problems it has.
EXCELLENT, GOOD, FAIR = 0.85, 0.70, 0.50

# What each finding costs, in hundredths of the score.
COST = {
    "ignored-errors": 20,  # a failure reported as success: later steps run on a broken state
    "interactive": 20,  # a prompt with no terminal fails (or waits) mid-plan
    "hidden-errors": 15,
    "not-idempotent": 15,
    "hard-coded-ip": 15,
    "home-path": 15,
    "useless-cat": 5,  # costs a process, hides nothing
}
ANTI_PATTERN_CAP = 60  # many findings already say "poor"; the other layers still count
IRREVERSIBLE_COST, IRREVERSIBLE_CAP = 10, 20
OVER_SCOPE_COST = 20
UNVERIFIED_COST = 10
NO_TRACE_COST = UNTITLED_COST = 5

# Which (kind, action) pairs the executor can read back after a step (a copy of what
# reos/system/state.py `intended_state_problem` and the state_<kind>.py `problem`
# functions check; copied because those modules run commands, and this one must not
# import them). None: any action, the setting is read back whatever it was set to.
CHECKABLE: dict[str, frozenset[str] | None] = {
    "container": frozenset({"stop", "kill", "start", "restart", "restart_policy",
                            "restart_policy_off"}),
    "service": frozenset({"start", "restart", "reload", "enable_now", "stop", "disable_now",
                          "enable", "disable", "mask", "unmask"}),
    "package": frozenset({"install", "upgrade", "remove", "purge", "hold", "upgrade_except",
                          "unhold"}),
    "user": frozenset({"create", "delete", "delete_with_home", "lock", "unlock"}),
    "group": frozenset({"create"}),
    "process": frozenset({"terminate", "kill", "renice", "lower_priority",
                          "lowest_priority"}),
    "mount": frozenset({"unmount", "remount_ro"}),
    "firewall": frozenset({"allow", "deny", "delete_rule", "limit", "enable",
                           "default_policy"}),
    "timer": frozenset({"enable_now", "disable_now"}),
    "interface": None, "hostname": None, "timezone": None, "system": None, "shutdown": None,
}


class Reason(Struct):
    """One line of the assessment: something the plan does well (good) or not."""

    good: bool
    layer: str  # engineering | maintainability | gates | transparency
    text: str  # one short sentence; the ✓ / ✗ is the renderer's
    step_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"good": self.good, "layer": self.layer, "text": self.text,
                "step_id": self.step_id}


class Assessment(Struct):
    score: float  # 0..1, two decimals
    label: str  # excellent | good | fair | poor
    reasons: list[Reason] = field(default_factory=list)
    anti_patterns: list[AntiPattern] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The `quality` key of the plan JSON."""
        return {"score": self.score, "label": self.label,
                "reasons": [r.to_dict() for r in self.reasons],
                "anti_patterns": [a.to_dict() for a in self.anti_patterns]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Assessment:
        """Back from `to_dict` (`Plan.quality` holds the JSON form), for the surfaces to
        `describe` it."""
        return cls(score=float(data.get("score") or 0), label=str(data.get("label") or ""),
                   reasons=[Reason(bool(r.get("good")), str(r.get("layer", "")),
                                   str(r.get("text", "")), r.get("step_id"))
                            for r in data.get("reasons") or []],
                   anti_patterns=[AntiPattern(str(a.get("step_id", "")), str(a.get("name", "")),
                                              str(a.get("says", "")), str(a.get("why", "")),
                                              str(a.get("provided_by", "reos")))
                                  for a in data.get("anti_patterns") or []])


def label_for(score: float, anti_patterns: int = 0) -> str:
    if score >= EXCELLENT and not anti_patterns:
        return "excellent"
    if score >= GOOD:
        return "good"
    return "fair" if score >= FAIR else "poor"


def provided_by(plan: Plan, *, user_template: bool = False) -> str:
    """Who wrote the plan's commands: "model" (a model's command no operation covers),
    "template" (a recipe from the user's own templates: the Plan does not record a
    recipe's origin, and `intent.reading.template` names built-in and user operations
    alike, so the caller passes `templates.origin_is_user(recipe.origin)`), else
    "reos"."""
    intent = plan.intent
    if plan.source.startswith("llm") and intent is not None and intent.operation == "command":
        return "model"
    return "template" if user_template else "reos"


def assess(plan: Plan, *, max_steps: int = 25, verify: bool = True,
           user_template: bool = False) -> Assessment:
    """Score a plan on the four layers; see the module docstring."""
    author = provided_by(plan, user_template=user_template)
    request = plan.request or ""
    found: list[AntiPattern] = []
    explicit_flags = has_shell = False
    for step in plan.steps:
        step_found, flagged, shell = step_findings(step, author, request)
        found.extend(step_found)
        explicit_flags |= flagged
        has_shell |= shell
    reasons: list[Reason] = []
    cost = min(ANTI_PATTERN_CAP, sum(COST[a.name] for a in found))
    changing = [s for s in plan.steps if not s.read_only]
    if not plan.steps:
        reasons.append(Reason(True, "gates", "Nothing to run"))
    elif len(plan.steps) > max_steps:
        cost += OVER_SCOPE_COST
        reasons.append(Reason(False, "gates", f"{len(plan.steps)} steps: more than "
                              f"{max_steps} to review at once"))
    else:
        reasons.append(Reason(True, "gates", "Concise plan with focused steps" if changing
                              else "Only reads: changes nothing"))
    _engineering(reasons, found, changing, explicit_flags, has_shell)
    if changing:
        cost += _gates_and_undo(reasons, changing, verify)
    cost += _transparency(reasons, plan)
    score = max(0, 100 - cost) / 100
    return Assessment(score=round(score, 2), label=label_for(score, len(found)),
                      reasons=reasons, anti_patterns=found)


def _engineering(reasons: list[Reason], found: list[AntiPattern], changing: list[Step],
                 explicit_flags: bool, has_shell: bool) -> None:
    """Reasons for the engineering layer (the findings' costs are counted by `assess`)."""
    names: dict[str, list[str]] = {}
    for a in found:
        steps = names.setdefault(a.name, [])
        if a.step_id not in steps:
            steps.append(a.step_id)
    for name, steps in names.items():
        layer = "maintainability" if name in ("hard-coded-ip", "home-path") else "engineering"
        where = ", ".join(step_words(s) for s in steps)
        reasons.append(Reason(False, layer, f"{_SAYS[name]} ({where})",
                              steps[0] if len(steps) == 1 else None))
    if changing and "not-idempotent" not in names:
        reasons.append(Reason(True, "engineering", "Uses idempotent patterns"))
    if explicit_flags and "interactive" not in names:
        reasons.append(Reason(True, "engineering", "Explicit non-interactive flags"))
    if has_shell and not names.keys() & {"ignored-errors", "hidden-errors"}:
        reasons.append(Reason(True, "engineering", "Fails fast: no error is hidden or ignored"))


_SAYS = {
    "ignored-errors": "Ignores errors",
    "hidden-errors": "Hides error messages",
    "useless-cat": "Pipes a file through cat",
    "hard-coded-ip": "Hard-codes an address",
    "home-path": "Hard-codes a home path",
    "interactive": "May stop at a prompt",
    "not-idempotent": "Fails or repeats itself when run twice",
}


def _gates_and_undo(reasons: list[Reason], changing: list[Step], verify: bool) -> int:
    cost = 0
    unchecked = [s for s in changing if not checkable(s)]
    if not verify:
        cost += UNVERIFIED_COST
        reasons.append(Reason(False, "gates", "Verification is turned off"))
    elif unchecked:
        cost += UNVERIFIED_COST
        ids = ", ".join(step_words(s.id) for s in unchecked)
        reasons.append(Reason(False, "gates", f"No state to check afterwards ({ids})",
                              unchecked[0].id if len(unchecked) == 1 else None))
    else:
        reasons.append(Reason(True, "gates", "Includes verification steps"))
    final = [s for s in changing if not s.reversible and not s.nothing_to_restore]
    if final:
        cost += min(IRREVERSIBLE_CAP, IRREVERSIBLE_COST * len(final))
        for s in final:
            reasons.append(Reason(False, "maintainability", "Cannot be undone", s.id))
    elif any(s.nothing_to_restore for s in changing):  # never "undone": nothing to restore
        reasons.append(Reason(True, "maintainability",
                              "Nothing is lost for good (a restart has nothing to restore)"))
    else:
        reasons.append(Reason(True, "maintainability", "Every change can be undone"))
    return cost


def _transparency(reasons: list[Reason], plan: Plan) -> int:
    cost = 0
    if plan.trace:
        reasons.append(Reason(True, "transparency", "Reasoning traced stage by stage"))
    else:
        cost += NO_TRACE_COST
        reasons.append(Reason(False, "transparency", "No reasoning trace"))
    untitled = [s for s in plan.steps if not (s.title or "").strip()]
    if untitled:
        cost += UNTITLED_COST
        for s in untitled:
            reasons.append(Reason(False, "transparency", "Step has no title", s.id))
    return cost


def checkable(step: Step) -> bool:
    """Whether the executor can read back the state this changing step should leave."""
    target, action = step.target, step.action
    if target is None or not action or target.kind not in CHECKABLE:
        return False
    actions = CHECKABLE[target.kind]
    return actions is None or action in actions


def describe(assessment: Assessment, *, brief: bool = False) -> str:
    """The block shown before approval ("[Quality Assessment]" in the design notes);
    brief: the score line and what is wrong, nothing that is fine."""
    score = f"{assessment.score:.2f}"
    score = score[:-1] if score.endswith("0") else score  # 0.9 and 1.0, as people write them
    said = f"{score} ({assessment.label})"
    lines = [f"Quality {said}"] if brief else ["[Quality Assessment]", f"Plan score {said}"]
    for r in assessment.reasons:
        if brief and r.good:
            continue
        said = step_words(r.step_id) if r.step_id else ""
        where = f"{said}: " if said and not r.text.endswith(f"({said})") else ""
        lines.append(f"{'✓' if r.good else '✗'} {where}{clean(r.text)}")
    if assessment.anti_patterns and not brief:
        lines.append("Anti-patterns:")
        for a in assessment.anti_patterns:
            lines.append(f"  {step_words(clean(a.step_id))}: {clean(a.name)} (from "
                         f"{_WHO.get(a.provided_by, 'reos')}): `{clean(a.says)}`: {clean(a.why)}")
    return "\n".join(lines)


_WHO = {"model": "the model", "template": "your template", "reos": "reos"}


def named_anti_patterns(assessment: Assessment) -> list[str]:
    """One sentence per anti-pattern in a command a model or the user's template wrote,
    for the plan's notes at every verbosity (reos's own commands are reos's to fix, and
    the full block says them at detailed verbosity)."""
    return [f"{step_words(a.step_id)}: {a.name} in the command "
            f"{_WHO.get(a.provided_by, 'reos')} wrote "
            f"(`{clean(a.says)}`): {a.why}." for a in assessment.anti_patterns
            if a.provided_by != "reos"]
