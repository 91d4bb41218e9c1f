"""A verdict on a command: its risk, whether it is blocked, and the reasons why.

Plain data shared by the risk engine's parts; decides nothing itself. `to_dict()` is the
stable `reos.check/1` JSON contract (`read_only` and, when it is false,
`why_not_read_only` were added to it; nothing was removed).
"""

from __future__ import annotations

from msgspec import Struct, field

from reos.model.risk import RiskLevel

MAX_REASON = 200  # characters
MAX_REASONS = 20


class Verdict(Struct):
    command: str
    risk: RiskLevel = RiskLevel.SAFE
    blocked: bool = False
    reasons: list[str] = field(default_factory=list)
    needs_root: bool = False
    reversible: bool = True
    # verified by the risk engine: every program and argument fits its read-only grammar
    read_only: bool = False
    # when it is not read-only: the word or construct that decided it, in words
    why_not_read_only: str | None = None

    def raise_to(self, level: RiskLevel, reason: str, *, block: bool = False,
                 reversible: bool | None = None, root: bool = False) -> None:
        self.risk = max(self.risk, level)
        self.blocked = self.blocked or block
        if len(reason) > MAX_REASON:  # reasons quote the command; keep them readable
            reason = reason[:MAX_REASON - 1] + "…"
        if reason not in self.reasons and len(self.reasons) < MAX_REASONS:
            self.reasons.append(reason)
        if reversible is False:
            self.reversible = False
        self.needs_root = self.needs_root or root

    def to_dict(self) -> dict[str, object]:
        return {
            "schema": "reos.check/1",
            "command": self.command,
            "risk": self.risk.label,
            "blocked": self.blocked,
            "reasons": list(self.reasons),
            "needs_root": self.needs_root,
            "reversible": self.reversible,
            "read_only": self.read_only,
            **({"why_not_read_only": self.why_not_read_only} if not self.read_only
               and self.why_not_read_only else {}),
        }
