"""The circuit breakers of one execution, and the typed reason each one stops it for.

`Breakers.start(settings.limits)` copies the limits when execution starts, so nothing a
plan, a template, recovery or a model does afterwards can lift them (only the person,
in settings.toml). The executor asks `tripped` before each step (operations, time),
`checkpoint` before each automatic fix, and `admit` for each step added while it runs
(scope drift, injected steps, escalations, the checkpoint); a tripped breaker says
which `StopReason` it is and the sentence to show.

Not responsible for running or recovering anything, for the quality gates
(reos.execution.gates), or for judging a command itself (reos.safety.gate does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

from reos.errors import ReosError
from reos.model.report import StopReason
from reos.safety.scope import Scope, drift

if TYPE_CHECKING:
    from reos.settings import LimitsSettings

__all__ = ["Breakers", "LimitReached", "Tripped"]


class LimitReached(ReosError):
    """A circuit breaker tripped: execution stops and control returns to the person."""

    def __init__(self, reason: StopReason, message: str, hint: str | None = None):
        super().__init__(message, hint)
        self.reason = reason


class Tripped(Struct, frozen=True):
    """A breaker that tripped between steps: which, and in words (with its numbers)."""

    reason: StopReason
    said: str


class Breakers(Struct):
    """One execution's limits (copied, frozen in spirit) and the counters they bound."""

    max_operations: int
    max_seconds: float
    max_escalations: int
    max_injected: int
    checkpoint_after: int
    injected: int = 0  # steps added during execution
    escalations_added: int = 0  # of those, steps that escalate through sudo
    recoveries: int = 0  # automatic fixes tried

    @classmethod
    def start(cls, limits: LimitsSettings) -> Breakers:
        return cls(limits.max_operations, float(limits.max_seconds),
                   limits.max_privilege_escalations, limits.max_injected_steps,
                   limits.human_checkpoint_after_recoveries)

    def tripped(self, done: int, elapsed: float) -> Tripped | None:
        """Before a step: `done` operations since the run (or the person's resume) began."""
        if done >= self.max_operations:
            return Tripped(StopReason.OPERATIONS,
                           f"maximum operations reached ({done}/{self.max_operations})")
        if elapsed >= self.max_seconds:
            return Tripped(StopReason.SECONDS, f"maximum time reached ({elapsed:.0f}s of "
                                               f"{self.max_seconds:.0f}s)")
        return None

    def checkpoint(self) -> None:
        """The human checkpoint: after N recoveries a person reviews before the next."""
        if self.recoveries >= self.checkpoint_after:
            raise LimitReached(StopReason.CHECKPOINT,
                               f"{self.recoveries} recoveries so far: a person should review "
                               "before more automatic fixes")

    def admit(self, argv: list[str], scope: Scope, *, escalates: bool = False) -> None:
        """Let a step added during execution (a recovery fix) in, or raise LimitReached.

        Scope drift first (a drifting step is refused whatever the counters say), then the
        injected-steps and privilege-escalation breakers and the human checkpoint.
        """
        why = drift(argv, scope)
        if why:
            raise LimitReached(StopReason.SCOPE_DRIFT, f"\u26d4 BLOCKED: {why}",
                               "Execution paused for your review; nothing more was run.")
        if self.injected >= self.max_injected:
            raise LimitReached(StopReason.INJECTED, f"maximum injected steps reached "
                                                    f"({self.injected}/{self.max_injected})")
        if escalates and self.escalations_added >= self.max_escalations:
            raise LimitReached(StopReason.ESCALATIONS,
                               f"maximum privilege escalations reached "
                               f"({self.escalations_added}/{self.max_escalations})")
        self.checkpoint()
        self.injected += 1
        self.escalations_added += int(escalates)
