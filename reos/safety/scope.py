"""Scope drift: a step added during execution (by recovery or an LLM) must stay close to
what the person asked for.

An added step that falls in a blocked family is refused outright; a high-risk one is
refused unless it acts on something the request named. Either way execution pauses
for the person ("⛔ BLOCKED: Scope drift detected - …"). Not responsible for deciding
which steps to add.
"""

from __future__ import annotations

import re

from reos.model import RiskLevel
from reos.safety.risk import assess_argv
from reos.safety.shell import unwrap

_WORDS = re.compile(r"[a-z0-9][a-z0-9._+-]{2,}")
_COMMON = {"the", "and", "please", "can", "you", "stop", "start", "restart", "install",
           "remove", "service", "services", "container", "containers", "package", "packages",
           "sudo", "systemctl", "docker", "apt-get", "apt"}


def drift(argv: list[str], request: str) -> str | None:
    """Why an added step drifts from the request (so it must not run), or None."""
    verdict = assess_argv(argv)
    if verdict.blocked:
        return f"Scope drift detected - {'; '.join(verdict.reasons)}"
    if verdict.risk >= RiskLevel.HIGH:
        asked = set(_WORDS.findall(request.lower())) - _COMMON
        real, _ = unwrap(argv)
        touched = {w.lower() for a in real[1:] for w in _WORDS.findall(a.lower())}
        if not asked & touched:
            return (f"Scope drift detected - {'; '.join(verdict.reasons)}, which you did not "
                    "ask for")
    return None
