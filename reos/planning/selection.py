"""Selection: qualifiers and exclusions applied to real resources before any step exists.

"the stopped containers" is the exited ones, "all services except ssh" every service but
ssh. A qualifier only ever narrows what the words selected; one that cannot be applied to
a kind of resource (containers are not "enabled") is reported so the plan builder asks,
never widened into a bigger plan.

`select` and `one_of` put that on a plan: the narrowed targets, or a question (a
qualifier that cannot apply, an exception that names nothing, which of several when one
was meant), or the plain answer that nothing is left.

Not responsible for finding the resources the words name (the matcher does) or for
deciding what to do with them (the plan builder does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.model.plan import Plan
from reos.model.request import Intent, Kind
from reos.model.target import Target
from reos.system.state import RUNNING_STATES
from reos.words import conversation, replies

if TYPE_CHECKING:
    from typing import Any

    from reos.understanding.matcher import TargetMatcher

_ACTIVE = {"active", "activating", "reloading"}
_STOPPED_CONTAINER = {"exited", "created", "dead"}

Test = Callable[[Target], bool]
# qualifier -> kind -> which resources it keeps; a missing entry cannot be applied
FILTERS: dict[str, dict[str, Test]] = {
    "running": {"container": lambda t: t.state in RUNNING_STATES,
                "service": lambda t: t.state in _ACTIVE,
                "interface": lambda t: t.state == "up",
                # "the du jonas is running": every listed process runs, but a zombie
                "process": lambda t: "<defunct>" not in (t.detail or "")},
    "stopped": {"container": lambda t: t.state in _STOPPED_CONTAINER,
                "service": lambda t: t.state in ("inactive", "failed", "deactivating"),
                "interface": lambda t: t.state == "down"},
    "failed": {"service": lambda t: t.state == "failed",
               # dead, or restarting: Docker starting it again after it died, in a loop
               "container": lambda t: t.state in ("dead", "restarting")},
    "paused": {"container": lambda t: t.state == "paused"},
    "enabled": {"service": lambda t: (t.enabled or "") in ("enabled", "enabled-runtime")},
    "disabled": {"service": lambda t: (t.enabled or "") == "disabled"},
    "removable": {"device": lambda t: t.detail.endswith("removable"),
                  "mount": lambda t: t.detail.endswith("removable")},
}
# qualifiers that pick out which thing ("the usb stick") rather than a state: the only one
# of its kind that fits is the one meant, for kinds never selected by state
IDENTIFYING = {"removable": {"device", "mount"}, "biggest": {"process"},
               "busiest": {"process"}}
# qualifiers that pick the one process using the most of something, from the snapshot
SUPERLATIVES = {"biggest": "memory_rss", "busiest": "cpu_percent"}
WIDE = {"all", "only"}  # say how many, never what: no filter of their own
WORDS = {"paused": "paused", "running": "running", "stopped": "stopped", "failed": "failed",
         "enabled": "enabled", "disabled": "disabled", "unused": "unused", "idle": "idle",
         "removable": "removable", "biggest": "biggest", "busiest": "busiest"}


def cannot_apply(qualifiers: list[str], kinds: set[str]) -> list[str]:
    """The qualifiers that have no meaning for some of these kinds of resource."""
    return [q for q in qualifiers if q not in WIDE
            and any(kind not in FILTERS.get(q, {}) for kind in kinds)]


def narrow(targets: list[Target], qualifiers: list[str]) -> list[Target]:
    """Only the targets every qualifier keeps (the order is kept)."""
    kept = targets
    for q in qualifiers:
        if q in WIDE:
            continue
        tests = FILTERS.get(q, {})
        kept = [t for t in kept if t.kind in tests and tests[t.kind](t)]
    return kept


def superlative(targets: list[Target], qualifiers: list[str],
                snapshot: Any) -> list[Target] | None:
    """"the biggest process": the one using the most memory (or CPU, for "busiest") as
    the snapshot measured it; None when no such qualifier was said."""
    said = [q for q in qualifiers if q in SUPERLATIVES]
    if not said:
        return None
    field = SUPERLATIVES[said[0]]
    used = {str(p.pid): getattr(p, field) for p in getattr(snapshot, "processes", None) or []}
    ranked = sorted((t for t in targets if t.name in used), key=lambda t: -used[t.name])
    return ranked[:1]


def why_this_one(target: Target, qualifiers: list[str], snapshot: Any) -> str:
    """"process 2210 (python3) uses the most memory: 812 MiB", from the snapshot."""
    process = next((p for p in getattr(snapshot, "processes", None) or []
                    if str(p.pid) == target.name), None)
    if process is None:
        return f"process {target.name} is the one"
    if "busiest" in qualifiers:
        return (f"process {process.pid} ({process.name}) uses the most CPU here: "
                f"{process.cpu_percent:.0f}% when the snapshot was taken")
    return (f"process {process.pid} ({process.name}) uses the most memory here: "
            f"{conversation.size(process.memory_rss)} when the snapshot was taken")


def partitions_first(targets: list[Target]) -> list[Target]:
    """Devices without the disks that have partitions among them: "format the usb stick"
    means the partition on it (a stick with two partitions gets a question)."""
    devices = [t.name for t in targets if t.kind == "device"]
    return [t for t in targets if t.kind != "device" or not any(
        other != t.name and other.startswith(t.name) for other in devices)]


def leave_out(targets: list[Target], excluded: list[Target]) -> list[Target]:
    out = set(excluded)
    return [t for t in targets if t not in out]


def describe(qualifiers: list[str]) -> str:
    """'stopped' / 'running, enabled': the qualifiers that filter, in words."""
    return ", ".join(WORDS[q] for q in qualifiers if q in WORDS)


def one_of(plan: Plan, intent: Intent, every: list[Target],
           matcher: TargetMatcher) -> list[Target]:
    """"the stopped container": one thing was meant. The only one in that state is it;
    several are asked about with numbered choices; a qualifier never becomes "all"."""
    if cannot_apply(intent.qualifiers, {t.kind for t in every} or {
            intent.resource or "container"}):
        return select(plan, intent, every, matcher)  # says it cannot filter by that
    kept = narrow(every, intent.qualifiers)
    if len(kept) == 1:
        plan.targets = kept
        return kept
    if not kept:
        plan.said = [replies.none_selected(intent, {t.kind for t in every})]
        return []
    plan.kind = Kind.CLARIFY
    plan.options = [(f"the {t.kind} {t.name}", replace(
        intent, targets=[t.name.lower()], resource=t.kind, qualifiers=[], plural=False))
        for t in kept[:9]]
    plan.ask(replies.which_target(
        f"the {describe(intent.qualifiers)} {intent.resource or 'one'}".replace(
            "  ", " "), plan.options))
    return []

def select(plan: Plan, intent: Intent, targets: list[Target],
           matcher: TargetMatcher) -> list[Target]:
    """Qualifiers and exclusions applied to the matched resources."""
    kinds = {t.kind for t in targets} or {intent.resource or "container"}
    unusable = cannot_apply(intent.qualifiers, kinds)
    if unusable:
        plan.kind = Kind.CLARIFY
        plan.ask(replies.cannot_filter(unusable, intent.resource))
        return []
    kept = narrow(targets, intent.qualifiers)
    if intent.exclude:
        found = matcher.resolve(intent.exclude, sorted(kinds), True)
        if found.missing or found.question:
            # "all but the database" where nothing of that kind is called so: what
            # was to be spared is unknown, so nothing is planned until it is
            plan.kind = Kind.CLARIFY
            plan.ask(replies.unknown_exclusion(
                found.missing or intent.exclude, kinds))
            return []
        kept = leave_out(kept, found.targets)
        plan.notes.append("leaving out " + conversation.join_names(
            [t.name for t in found.targets]))
    if not kept:
        plan.said = [replies.none_selected(intent, kinds)]
        return []
    plan.targets = kept
    return kept
