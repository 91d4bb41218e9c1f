"""Conditional requests: "is nextcloud running? if so stop it", "restart Y if X is up".

The condition is checked on the resource it names (or on the targets themselves), in the
snapshot, and recorded as preconditions that execution checks again just before acting.
When it does not hold, or what it names cannot be found, the plan says so and acts on
nothing.

Not responsible for splitting the words (understanding does) or for the steps.
"""

from __future__ import annotations

from reos.model.plan import Plan
from reos.model.request import Intent
from reos.model.target import Target
from reos.system.state import RUNNING_STATES
from reos.understanding.matcher import TargetMatcher
from reos.words import conversation

ACTIVE = {"container": RUNNING_STATES, "service": {"active", "activating", "reloading"},
          "package": {"installed"}}


def holds(plan: Plan, intent: Intent, targets: list[Target],
          matcher: TargetMatcher) -> bool:
    """Whether a conditional request may act: checked on what the condition names, and
    recorded as preconditions execution checks again; when not, the plan says why."""
    subject = _named(plan, intent, targets, matcher)
    if subject is None:
        return False
    if subject:  # "if X is running, remove Y": X is checked, Y is acted on
        return _other_holds(plan, intent, subject, targets)
    running = [t for t in targets if t.state in ACTIVE.get(t.kind, ())]
    wanted = running if intent.condition == "if_running" else [
        t for t in targets if t not in running]
    said = conversation.join_names(intent.targets)
    noun = conversation.count(len(targets), targets[0].kind) if targets else ""
    if not wanted:
        state = "isn't running" if intent.condition == "if_running" else "is running"
        plan.said = [f"{said[0].upper()}{said[1:]} {state}, so I won't "
                     f"{intent.action} anything."]
        plan.targets = targets
        return False
    plan.preconditions += [(t, intent.condition == "if_running") for t in wanted]
    state_word = "running" if intent.condition == "if_running" else "not running"
    plan.said = [f"{said[0].upper()}{said[1:]} is {state_word} ({noun}). "
                 "I'll check again just before acting."]
    targets[:] = wanted
    return True

def _named(plan: Plan, intent: Intent, targets: list[Target],
           matcher: TargetMatcher) -> list[Target] | None:
    """What the condition names when that is not what the action acts on: [] when it
    is the same (or not said), None when it cannot be found (the plan says so)."""
    if not intent.condition_subject:
        return []
    phrases, resource = intent.condition_subject
    phrase = conversation.join_names(phrases)
    kinds = [resource] if resource in ("container", "service") else ["container", "service"]
    result = matcher.resolve(phrases, kinds, True)
    if result.question or result.missing:
        plan.said = [f"I couldn't tell which \u201c{phrase}\u201d to check, so I "
                     f"won't {intent.action} anything." if result.question else
                     f"I can't find \u201c{phrase}\u201d to check whether it is "
                     f"running, so I won't {intent.action} anything."]
        plan.targets = targets
        return None
    if set(result.targets) <= set(targets):
        return []  # "is nextcloud running? if so stop it": the same resources
    return result.targets

def _other_holds(plan: Plan, intent: Intent, subject: list[Target],
                targets: list[Target]) -> bool:
    running = [t for t in subject if t.state in ACTIVE.get(t.kind, ())]
    if_running = intent.condition == "if_running"
    plan.targets = targets
    if (not running) if if_running else running:
        shown = subject if if_running else running
        state = "not running" if if_running else "running"
        plan.said = [f"{_sentence(shown)} {state}, so I won't {intent.action} "
                     "anything."]
        return False
    checked = running if if_running else subject
    plan.preconditions += [(t, if_running) for t in checked]
    plan.said = [f"{_sentence(checked)} {'running' if if_running else 'not running'}."
                 " I'll check again just before acting."]
    return True


def _sentence(targets: list[Target]) -> str:
    """'Nginx.service is' / 'Demo-web and demo-db are': the start of a sentence."""
    names = conversation.join_names([t.name for t in targets])
    return f"{names[0].upper()}{names[1:]} {'is' if len(targets) == 1 else 'are'}"
