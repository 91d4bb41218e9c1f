"""The data reos reasons about: intents, targets, steps, plans and their JSON form.

Pure data with no behaviour beyond serialisation; imports nothing of reos, so every
layer can use it. The JSON shape of `Plan.to_dict` is the `reos.plan/1` contract.
"""

from __future__ import annotations

import enum
import shlex
from dataclasses import dataclass, field

TYPE_CHECKING = False  # typing stays unimported at run time: `reos plan` starts faster
if TYPE_CHECKING:
    from typing import Any


class RiskLevel(enum.IntEnum):
    SAFE = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> RiskLevel:
        return cls[text.upper()]


class Kind(enum.StrEnum):
    """What a request turned out to be (the `kind` field of `reos.plan/1`)."""

    QUERY = "query"
    ACTION = "action"
    COMBINED = "combined"
    META = "meta"
    CLARIFY = "clarify"
    REFUSE = "refuse"
    UNKNOWN = "unknown"


@dataclass
class Intent:
    """What the person wants, before it is matched against the machine."""

    kind: Kind
    action: str | None = None  # stop, start, list, ...
    resource: str | None = None  # container, service, package, or None when not said
    targets: list[str] = field(default_factory=list)  # the words naming what to act on
    condition: str | None = None  # e.g. "if_running"
    # what the condition is about, when the request names it: (target phrases, resource)
    condition_subject: tuple[list[str], str | None] | None = None
    confidence: float = 1.0
    source: str = "none"  # llm | template | regex | none
    plural: bool = False  # "the nextcloud containers", "all", "both"
    template: str | None = None  # name of the template that matched, when one did
    params: dict[str, str] = field(default_factory=dict)  # other named slots (port, ...)
    then: list[str] = field(default_factory=list)  # follow-up actions on the same targets
    note: str | None = None  # something to say with the plan
    reason: str | None = None  # why a request is refused
    forced: bool = False  # the request began with "plan:"
    operation: str | None = None  # the catalogue operation id ("service.restart")
    qualifiers: list[str] = field(default_factory=list)  # filters: running, stopped, ...
    exclude: list[str] = field(default_factory=list)  # words naming what to leave out
    unexplained: list[str] = field(default_factory=list)  # words the parse could not place
    unhonoured: list[str] = field(default_factory=list)  # qualifiers it cannot apply
    options: list[Intent] = field(default_factory=list)  # readings to choose between
    closest: list[str] = field(default_factory=list)  # summaries of the nearest operations
    ignored: str | None = None  # shell text cut from the request
    value: str | None = None  # a meta operation's value ("minimal")
    summary: str | None = None  # the operation's summary, for questions ("stop containers")
    # op "command" (a model's answer no operation covers): the argv and what it is for
    argv: list[str] = field(default_factory=list)
    purpose: str | None = None
    question: str | None = None  # the understander's own question, when it asks one
    consequence: str | None = None  # what choosing this option means ("no downtime")
    said: str | None = None  # the model's reply in words (untrusted: shown, never acted on)

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "resource": self.resource,
            "targets": list(self.targets),
            "condition": self.condition,
            "operation": self.operation,
            "confidence": self.confidence,
            "qualifiers": list(self.qualifiers),
            "exclude": list(self.exclude),
            "unexplained": list(self.unexplained),
            **({"argv": list(self.argv), "purpose": self.purpose} if self.argv else {}),
        }


@dataclass(unsafe_hash=True)
class Target:
    """A real resource on the machine that a request resolved to.

    Hashable (used as a key) but not frozen: a frozen dataclass costs ~2 us more per
    object, which is 20 ms for a snapshot of 10,000 packages. Treat it as immutable.
    """

    kind: str  # container | service | package | user | group | process | mount | …
    name: str  # for a process, its pid
    state: str | None = None  # running / exited / active / installed / absent, at snapshot time
    enabled: str | None = None  # a service's unit-file state (enabled, disabled, masked, ...)
    version: str | None = None  # a package's installed version
    # said with the target, never compared: a process's command line
    detail: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name}


def render(argv: list[str]) -> str:
    """How a person would type this argv in a shell."""
    return shlex.join(argv)


@dataclass
class Step:
    id: str
    title: str
    argv: list[str]
    read_only: bool = False
    needs_root: bool = False
    risk: RiskLevel = RiskLevel.LOW
    reversible: bool = True
    rollback: list[str] | None = None
    depends_on: list[str] = field(default_factory=list)
    target: Target | None = None
    action: str | None = None  # the verb applied to the target (for prior state and undo)
    shell: bool = False
    risk_reasons: list[str] = field(default_factory=list)
    also: list[str] | None = None  # other packages this step touches (from a simulation)

    @property
    def command(self) -> str:
        return render(self.argv)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "argv": list(self.argv),
            "command": self.command,
            "shell": self.shell,
            "read_only": self.read_only,
            "needs_root": self.needs_root,
            "risk": self.risk.label,
            "reversible": self.reversible,
            "rollback": (
                {"argv": list(self.rollback), "command": render(self.rollback)}
                if self.rollback
                else None
            ),
            "depends_on": list(self.depends_on),
            "risk_reasons": list(self.risk_reasons),
            **({"also_affects": list(self.also)} if self.also is not None else {}),
        }


@dataclass
class Plan:
    request: str
    kind: Kind
    source: str = "none"
    intent: Intent | None = None
    targets: list[Target] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    blocked: bool = False
    blocked_reason: str | None = None
    message: str = ""
    question: str | None = None
    notes: list[str] = field(default_factory=list)  # things said alongside the plan
    # (target, must it be running?) re-checked when execution starts (conditional requests)
    preconditions: list[tuple[Target, bool]] = field(default_factory=list)
    forced: bool = False  # "plan: ..." - show even a query as a plan to approve
    answer: str | None = None  # how the output of read-only steps is put into words
    # what a clarify question offers, numbered from 1: (label, the intent it stands for)
    options: list[tuple[str, Intent]] = field(default_factory=list)
    verb: str | None = None  # what the plan does, in words ("restart")
    # how the request was understood, stage by stage: {"stage", "said"} (why a path was
    # taken and why the others were passed)
    trace: list[dict[str, str]] = field(default_factory=list)

    @property
    def risk(self) -> RiskLevel:
        return max((s.risk for s in self.steps), default=RiskLevel.SAFE)

    @property
    def read_only(self) -> bool:
        return all(s.read_only for s in self.steps)

    @property
    def needs_approval(self) -> bool:
        return bool(self.steps) and (self.forced or not self.read_only) and not self.blocked

    @property
    def reversible(self) -> bool:
        return all(s.reversible for s in self.steps)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": "reos.plan/1",
            "request": self.request,
            "kind": self.kind.value,
            "source": self.source,
            "intent": self.intent.to_dict() if self.intent else None,
            "targets": [t.to_dict() for t in self.targets],
            "steps": [s.to_dict() for s in self.steps],
            "risk": self.risk.label,
            "needs_approval": self.needs_approval,
            "blocked": self.blocked,
            "blocked_reason": self.blocked_reason,
            "message": self.message,
            "question": self.question,
            "choices": [label for label, _ in self.options],
            "trace": [dict(t) for t in self.trace],
        }


@dataclass
class StepResult:
    step_id: str
    ok: bool
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    skipped_reason: str | None = None
    blocked: bool = False  # the gate refused it: it never ran
