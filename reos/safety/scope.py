"""Scope drift: a step added during execution (by recovery or a model) must stay within
the plan it joins.

The scope is what the plan was built to act on: the targets it resolved on the machine
and the kind of resource the intent names (`Scope.of(plan)`), never the words of the
request. An added step in a blocked family is refused outright; a high-risk one is
refused unless it acts on one of the plan's targets, or it is the intent's own kind of
tool with nothing named of its own (`dpkg --configure -a` while installing a package).
Either way execution pauses for the person ("⛔ BLOCKED: Scope drift detected - …").

Not responsible for deciding which steps to add, or for the counters that bound them
(reos.safety.limits).
"""

from __future__ import annotations

from msgspec import Struct

from reos.model.plan import Plan
from reos.model.risk import RiskLevel
from reos.patterns import regex
from reos.safety.risk import assess_argv
from reos.safety.wrappers import unwrap

_WORDS = regex(r"[a-z0-9][a-z0-9._+@:-]{1,}")
_UNIT = regex(r"\.(service|socket|timer|target|mount|path)$")
# the tools that manage a kind of resource; those whose first word is a subcommand
_FAMILY = {"package": {"apt", "apt-get", "aptitude", "dpkg", "dnf", "yum"},
           "service": {"systemctl", "service"}, "container": {"docker", "podman"}}
_SUBCOMMANDS = {"apt", "apt-get", "aptitude", "dnf", "yum", "systemctl", "docker", "podman"}


class Scope(Struct, frozen=True):
    """What a plan acts on: its targets' names (lower case, units also without their
    suffix) and the resource kind of its intent."""

    targets: frozenset[str] = frozenset()
    resource: str | None = None

    @classmethod
    def of(cls, plan: Plan) -> Scope:
        found = [t for t in plan.targets] + [s.target for s in plan.steps if s.target]
        found += [t for t, _ in plan.preconditions]
        names = set()
        for target in found:
            name = target.name.lower()
            names |= {name, _UNIT.sub("", name)}
        resource = plan.intent.resource if plan.intent else None
        return cls(frozenset(n for n in names if n), resource)


def drift(argv: list[str], scope: Scope) -> str | None:
    """Why an added step drifts from the plan (so it must not run), or None."""
    verdict = assess_argv(argv)
    if verdict.blocked:
        return f"Scope drift detected - {'; '.join(verdict.reasons)}"
    if verdict.risk >= RiskLevel.HIGH and not _within(argv, scope):
        return (f"Scope drift detected - {'; '.join(verdict.reasons)}, which is not part of "
                "the plan")
    return None


def _within(argv: list[str], scope: Scope) -> bool:
    real, _ = unwrap(argv)
    if not real:
        return False
    words = {w for a in real[1:] for w in _WORDS.findall(a.lower())}
    if words & scope.targets or {_UNIT.sub("", w) for w in words} & scope.targets:
        return True
    program = real[0].rsplit("/", 1)[-1]
    if program not in _FAMILY.get(scope.resource or "", ()):
        return False
    named = [a for a in real[1:] if not a.startswith("-")]
    if program in _SUBCOMMANDS:
        named = named[1:]
    return not named  # the intent's own tool, naming nothing of its own
