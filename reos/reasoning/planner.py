"""The plan builder: Intent + matched targets + recipes -> a Plan of argv steps.

Every name that reaches argv comes from the snapshot and is checked against a strict
pattern (a saved snapshot is untrusted input too). Each step gets its risk from the
recipe and the safety assessment (the higher wins), and its rollback from the target's
state in the snapshot; at execution the prior state is read again for real.
Not responsible for understanding words, running anything, or asking for approval.
"""

from __future__ import annotations

import re

from reos.model import Intent, Kind, Plan, RiskLevel, Step, Target
from reos.reasoning import conversation
from reos.reasoning.conversation import Voice
from reos.reasoning.matcher import TargetMatcher
from reos.reasoning.templates import SLOT, Recipe, TemplateSet
from reos.safety.risk import assess_argv
from reos.system.snapshot import SystemSnapshot
from reos.system.state import restore_argv

SAFE_NAMES = {
    "container": re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$"),
    "service": re.compile(r"^[A-Za-z0-9][A-Za-z0-9:_.@\\-]{0,254}$"),
    "package": re.compile(r"^[a-z0-9][a-z0-9+.-]{0,127}$"),
}

HELP = (
    "I can stop, start, restart, kill or remove containers (\u201cstop the nextcloud "
    "containers\u201d), tell you which containers are running, and undo what I did."
)


class PlanBuilder:
    def __init__(self, templates: TemplateSet, snapshot: SystemSnapshot, voice: Voice):
        self.templates = templates
        self.snapshot = snapshot
        self.voice = voice
        self.matcher = TargetMatcher(snapshot)

    def build(self, request: str, intent: Intent | None) -> Plan:
        if intent is None:
            return Plan(request, Kind.UNKNOWN, message=f"Sorry, I didn't understand that. {HELP}")
        plan = Plan(request, intent.kind, source=intent.source, intent=intent)
        if intent.kind == Kind.QUERY:
            return self._query(plan, intent)
        return self._action(plan, intent)

    def _query(self, plan: Plan, intent: Intent) -> Plan:
        recipe = self.templates.recipe(intent.resource or "", intent.action or "")
        if recipe is None:
            plan.kind = Kind.UNKNOWN
            plan.message = f"I don't know how to answer that yet. {HELP}"
            return plan
        for n, rs in enumerate(recipe.steps, start=1):
            plan.steps.append(Step(id=f"s{n}", title=rs.title, argv=list(rs.argv),
                                   read_only=True, risk=RiskLevel.SAFE, action=intent.action))
        plan.message = "Let me check." if not self.voice.brief else ""
        return plan

    def _action(self, plan: Plan, intent: Intent) -> Plan:
        match = self.matcher.resolve(intent.targets, intent.resource, intent.plural)
        if match.question:
            plan.kind = Kind.CLARIFY
            plan.question = plan.message = match.question
            return plan
        if match.missing:
            plan.message = self._no_match(match.missing, intent.resource)
            return plan
        plan.targets = match.targets
        kinds = {t.kind for t in match.targets}
        kind = kinds.pop() if len(kinds) == 1 else None
        recipe = self.templates.recipe(kind, intent.action or "") if kind else None
        if recipe is None:
            plan.kind = Kind.UNKNOWN
            what = conversation.PLURALS.get(kind or "", "those")
            plan.message = f"I don't know how to {intent.action} {what} yet. {HELP}"
            return plan
        self._fill(plan, recipe, match.targets)
        if not plan.steps:
            plan.message = " ".join(n[0].upper() + n[1:] + "." for n in plan.notes) or (
                "There's nothing to do.")
            plan.notes = []
            return plan
        plan.message = conversation.present(plan, self.voice, recipe.verb)
        return plan

    def _fill(self, plan: Plan, recipe: Recipe, targets: list[Target]) -> None:
        root = self.snapshot.is_root
        for target in targets:
            if not SAFE_NAMES[target.kind].match(target.name):
                plan.notes.append(f"skipped {target.name!r}: not a valid {target.kind} name")
                continue
            previous: str | None = None
            for rs in recipe.steps:
                if rs.when_state is not None and target.state not in rs.when_state:
                    if rs.skip_note:
                        plan.notes.append(rs.skip_note.replace(SLOT, target.name))
                    continue
                argv = [target.name if a == SLOT else a for a in rs.argv]
                if rs.needs_root and not root:
                    argv = ["sudo", "-n", *argv]
                verdict = assess_argv(argv)
                step = Step(
                    id=f"s{len(plan.steps) + 1}",
                    title=rs.title.replace(SLOT, target.name),
                    argv=argv,
                    read_only=rs.read_only,
                    needs_root=rs.needs_root and not root,
                    risk=max(RiskLevel.parse(rs.risk), verdict.risk),
                    reversible=rs.reversible and verdict.reversible,
                    depends_on=[previous] if previous else [],
                    target=target,
                    action=recipe.action,
                    risk_reasons=verdict.reasons,
                )
                if step.reversible:
                    step.rollback = restore_argv(target.kind, target.name,
                                                 {"state": target.state})
                if verdict.blocked:
                    plan.blocked = True
                    plan.blocked_reason = "; ".join(verdict.reasons)
                plan.steps.append(step)
                previous = step.id

    def _no_match(self, phrases: list[str], resource: str | None) -> str:
        containers = self.snapshot.containers
        if resource in (None, "container"):
            running = [c.name for c in containers or [] if c.running]
            known = containers is not None
            text = conversation.no_match(phrases, resource or "container", running, known)
            if not known and self.snapshot.unavailable.get("containers"):
                text += f" ({self.snapshot.unavailable['containers']})"
            return text
        return conversation.no_match(phrases, resource, None, True)
