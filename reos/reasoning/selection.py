"""Selection: qualifiers and exclusions applied to real resources before any step exists.

"the stopped containers" is the exited ones, "all services except ssh" every service but
ssh. A qualifier only ever narrows what the words selected; one that cannot be applied to
a kind of resource (containers are not "enabled") is reported so the plan builder asks,
never widened into a bigger plan.

Not responsible for finding the resources the words name (the matcher does) or for
deciding what to do with them (the plan builder does).
"""

from __future__ import annotations

from collections.abc import Callable

from reos.model import Target
from reos.system.state import RUNNING_STATES

_ACTIVE = {"active", "activating", "reloading"}
_STOPPED_CONTAINER = {"exited", "created", "dead"}

Test = Callable[[Target], bool]
# qualifier -> kind -> which resources it keeps; a missing entry cannot be applied
FILTERS: dict[str, dict[str, Test]] = {
    "running": {"container": lambda t: t.state in RUNNING_STATES,
                "service": lambda t: t.state in _ACTIVE},
    "stopped": {"container": lambda t: t.state in _STOPPED_CONTAINER,
                "service": lambda t: t.state in ("inactive", "failed", "deactivating")},
    "failed": {"service": lambda t: t.state == "failed",
               "container": lambda t: t.state == "dead"},
    "paused": {"container": lambda t: t.state == "paused"},
    "enabled": {"service": lambda t: (t.enabled or "") in ("enabled", "enabled-runtime")},
    "disabled": {"service": lambda t: (t.enabled or "") == "disabled"},
}
WIDE = {"all", "only"}  # say how many, never what: no filter of their own
WORDS = {"paused": "paused", "running": "running", "stopped": "stopped", "failed": "failed",
         "enabled": "enabled", "disabled": "disabled", "unused": "unused", "idle": "idle"}


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


def leave_out(targets: list[Target], excluded: list[Target]) -> list[Target]:
    out = set(excluded)
    return [t for t in targets if t not in out]


def describe(qualifiers: list[str]) -> str:
    """'stopped' / 'running, enabled': the qualifiers that filter, in words."""
    return ", ".join(WORDS[q] for q in qualifiers if q in WORDS)
