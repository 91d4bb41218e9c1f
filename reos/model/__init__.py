"""The data reos reasons about: intents, targets, steps, plans and their JSON form.

An Intent holds a request's meaning; how it was read (Understood) and the question
asked instead of a plan (Asking, its Options) are records of their own.

Pure data with no behaviour beyond serialisation; imports nothing of reos, so every
layer can use it. The JSON shape of `Plan.to_dict` is the `reos.plan/1` contract.
"""

from __future__ import annotations

import enum
import shlex
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

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


class Understood(Struct, frozen=True):
    """How a request was read (an Intent's `reading`): who read it and how surely, and
    what of the request the reading leaves unexplained. The plan says those words back
    or asks about them, and a model, when one is set up, is asked to read a request
    whose parser reading leaves some or is unsure (llm/understander.py). A value,
    replaced and never changed in place, so the copies of an Intent that `replace`
    makes may share it."""

    source: str = "none"  # catalogue | typed | llm | llm-repaired | template | none
    # 0-1: the share of the request's words the parser placed, or the model's own claim
    confidence: float = 1.0
    template: str | None = None  # the catalogue operation read (outcomes are learned by it)
    unexplained: list[str] = field(default_factory=list)  # words it could not place
    unhonoured: list[str] = field(default_factory=list)  # qualifiers it cannot apply
    ignored: str | None = None  # shell text cut from the request
    closest: list[str] = field(default_factory=list)  # not understood: the nearest operations
    said: str | None = None  # the model's reply in words (untrusted: shown, never acted on)


class Intent(Struct):
    """What the person wants, before it is matched against the machine.

    Its own fields are the request's meaning: an operation, what it acts on and how.
    The other roles a reading plays are records of their own, so that no field does two
    jobs: `reading` (Understood) is how it was read and what it left unexplained;
    `asking` (Asking), for kind clarify, is the question asked instead of a plan, whose
    options hold Intents themselves; `refusal`, for kind refuse, is why nothing is done.
    A clarify Intent leaves the meaning empty (it is in the options); a refusal names
    only its rule (action "refuse", `operation` "refuse.shell", …). `to_dict` is the
    `intent` of `reos.plan/1`.
    """

    kind: Kind
    # -- what is wanted ------------------------------------------------------------------
    action: str | None = None  # stop, start, list, ...
    resource: str | None = None  # container, service, package, or None when not said
    targets: list[str] = field(default_factory=list)  # the words naming what to act on
    plural: bool = False  # "the nextcloud containers", "all", "both"
    qualifiers: list[str] = field(default_factory=list)  # filters: running, stopped, ...
    exclude: list[str] = field(default_factory=list)  # words naming what to leave out
    operation: str | None = None  # the catalogue operation id ("service.restart")
    # the operation in words, for labels and questions ("stop containers"), and its caveat
    # said with the plan ("the home directory stays")
    summary: str | None = None
    note: str | None = None
    params: dict[str, str] = field(default_factory=dict)  # other named slots (port, ...)
    value: str | None = None  # a meta operation's value ("minimal")
    condition: str | None = None  # e.g. "if_running"
    # what the condition is about, when the request names it: (target phrases, resource)
    condition_subject: tuple[list[str], str | None] | None = None
    then: list[str] = field(default_factory=list)  # follow-up actions on the same targets
    # op "command" (a typed command line, or a model's answer no operation covers): the
    # argv and what it is for
    argv: list[str] = field(default_factory=list)
    purpose: str | None = None
    # a request that asks for several things ("stop X and start Y"): each ask's Intent
    parts: list[Intent] = field(default_factory=list)
    # shown as a plan to approve even when it only reads ("plan: …", or auto_assess off)
    forced: bool = False
    # -- its other roles -----------------------------------------------------------------
    reading: Understood = field(default_factory=Understood)  # how it was read
    asking: Asking | None = None  # kind clarify: the question asked instead of a plan
    refusal: str | None = None  # kind refuse: why it is refused, in a sentence

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "resource": self.resource,
            "targets": list(self.targets),
            "condition": self.condition,
            "operation": self.operation,
            "confidence": self.reading.confidence,
            "qualifiers": list(self.qualifiers),
            "exclude": list(self.exclude),
            "unexplained": list(self.reading.unexplained),
            **({"argv": list(self.argv), "purpose": self.purpose} if self.argv else {}),
            **({"parts": [p.to_dict() for p in self.parts]} if self.parts else {}),
        }


class Option(Struct, frozen=True):
    """One reading a question offers (`Asking.options`): chosen by its number, a name
    or a phrase (understanding/choice.py), it is planned as the request."""

    intent: Intent
    # what choosing it means, in the model's words ("no downtime"): said in its label
    consequence: str | None = None


class Asking(Struct, frozen=True):
    """A question asked instead of a plan (an Intent's `asking`, kind clarify): the
    readings it offers, numbered from 1 in the plan (`Plan.options`), and the reader's
    own words. A question with no options only says its words ("ask me for them one at
    a time"), and the person asks again."""

    options: list[Option] = field(default_factory=list)
    # the reader's own words, said before the options (the model's question, a doubt
    # about its reading, "that is put as a question…"); None: reos words it itself
    question: str | None = None


class Keyed(Struct, frozen=True, eq=False):
    """A record equal to another of its kind, and hashed, by its `key()` alone: what it
    carries besides (a process's command line, a container's labels) is never compared."""

    def key(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.key() == other.key()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.key())


class Target(Keyed, frozen=True, eq=False):
    """A real resource on the machine that a request resolved to: hashable (a key), and
    equal to another when all but its `detail` are."""

    kind: str  # container | service | package | user | group | process | mount | …
    name: str  # for a process, its pid
    state: str | None = None  # running / exited / active / installed / absent, at snapshot time
    enabled: str | None = None  # a service's unit-file state (enabled, disabled, masked, ...)
    version: str | None = None  # a package's installed version
    # said with the target, never compared: a process's command line
    detail: str = ""

    def key(self) -> tuple[str, str, str | None, str | None, str | None]:
        return (self.kind, self.name, self.state, self.enabled, self.version)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name}


# Actions that leave a running thing as it was: a restart runs it again, a reload rereads
# what it already has. For a step that really is one (`restarts(argv)`) of something that
# was running, undo has nothing to restore (it says so and runs nothing) and nothing is
# lost, so the step is neither "reversible" nor asked about as lost for good. A restart
# of something stopped starts it: that has an undo (stop it again), like any start.
RESTARTS = frozenset({"restart", "reload", "daemon_reload"})
_RESTART_WORDS = {"docker": {"restart"}, "podman": {"restart"},
                  "systemctl": {"restart", "reload", "try-restart", "reload-or-restart",
                                "try-reload-or-restart", "daemon-reload"}}


def restarts(argv: list[str]) -> bool:
    """Whether `argv` (with or without `sudo -n`) only restarts or reloads something."""
    words = list(argv)
    while words and (words[0] == "sudo" or words[0].startswith("-")):
        words = words[1:]  # the privilege prefix (reos.system.privilege) and its options
    if not words:
        return False
    verbs = _RESTART_WORDS.get(words[0].rsplit("/", 1)[-1], set())
    said = [w for w in words[1:] if not w.startswith("-")]
    return bool(said) and said[0] in verbs


def step_words(step_id: str) -> str:
    """A step's id as a person says it: "s3" is "step 3" (ids stay in JSON and the
    journal; people count steps as the plan numbers them)."""
    number = step_id[1:] if step_id[:1] in ("s", "u") else ""
    return f"step {number}" if number.isdigit() else "a step"


def render(argv: list[str]) -> str:
    """How a person would type this argv in a shell."""
    return shlex.join(argv)


class Traced(Struct, frozen=True):
    """One stage of how a request was understood and planned, and what it found: why a
    path was taken and why the others were passed (`Plan.trace`)."""

    stage: str  # "understanding", "model needed", "judging risk", "revising", …
    said: str


class Step(Struct):
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
    # why this step is in the plan, when it is not plainly the request itself (a learned
    # fix, a dependency, a state saved first); shown with `explain_steps`
    why: str | None = None
    # the person changed this step's command before approving it (judged again by the
    # risk engine: reos/editing.py); the journal row records it
    edited: bool = False

    @property
    def command(self) -> str:
        return render(self.argv)

    @property
    def nothing_to_restore(self) -> bool:
        """A restart or reload (`RESTARTS`, and its command is one) of something that was
        running: it cannot be undone, and there is nothing to. One of something stopped
        has its undo (`rollback`: stop it again)."""
        return (not self.read_only and self.action in RESTARTS and not self.rollback
                and restarts(self.argv))

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
            **({"why": self.why} if self.why else {}),
            **({"edited": True} if self.edited else {}),  # only when the person changed it
        }


class Shown(Struct):
    """A plan's words as rendered around its list of steps (`words.conversation.render`):
    the message is `before`, `steps` and `after` joined, line by line."""

    before: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)

    def text(self) -> str:
        return "\n".join(line for line in [*self.before, *self.steps, *self.after] if line)

    def around(self) -> str:
        """The words without the list of steps."""
        return "\n".join(line for line in [*self.before, *self.after] if line)


class Plan(Struct):
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
    # shown as a plan to approve even when it only reads ("plan: ..." or auto_assess off)
    forced: bool = False
    # why this plan must be asked about even when it only reads (a command that keeps
    # failing on this machine), or None
    confirm_reason: str | None = None
    # which wording in words/answers/common.py puts the output of read-only steps into words
    summariser: str | None = None
    # what a clarify question offers, numbered from 1: (label, the intent it stands for)
    options: list[tuple[str, Intent]] = field(default_factory=list)
    verb: str | None = None  # what the plan does, in words ("restart")
    # how the request was understood, stage by stage (why a path was
    # taken and why the others were passed)
    trace: list[Traced] = field(default_factory=list)
    lead: list[str] = field(default_factory=list)  # sentences said before the steps
    quality: dict[str, Any] | None = None  # planning/quality.py's assessment, as JSON
    trace_id: int | None = None  # the audit trail's record of how this plan was decided
    # a request that asks several questions: each one's plan, answered in turn
    parts: list[Plan] = field(default_factory=list)
    # a plan with steps to approve: its words as rendered around the list of steps, which
    # a surface that draws the steps its own way (the chat's card) shows instead of message
    shown: Shown | None = None

    @property
    def risk(self) -> RiskLevel:
        return max((s.risk for s in self.steps), default=RiskLevel.SAFE)

    @property
    def read_only(self) -> bool:
        return all(s.read_only for s in self.steps)

    @property
    def needs_approval(self) -> bool:
        return bool(self.steps) and (self.forced or self.confirm_reason is not None
                                     or not self.read_only) and not self.blocked

    @property
    def reversible(self) -> bool:
        return all(s.reversible for s in self.steps)

    def say_first(self, text: str, replacing: str | None = None) -> None:
        """Put `text` before everything the plan says, in its lead, its rendered parts and
        its message alike; in place of `replacing` when that is what it says first."""
        for lines in (self.lead, self.shown.before if self.shown is not None else None):
            if lines is None:
                continue
            if replacing is not None and lines and lines[0] == replacing:
                lines[0] = text
            else:
                lines.insert(0, text)
        message = self.message
        if replacing is not None and message.startswith(replacing + "\n"):
            message = message[len(replacing) + 1:]
        self.message = f"{text}\n{message}" if message else text

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
            "trace": [{"stage": t.stage, "said": t.said} for t in self.trace],
            **({"quality": self.quality} if self.quality is not None else {}),
        }


def renumbered(steps: list[Step], *, once: bool = False) -> list[Step]:
    """Steps gathered from several plans, numbered s1… again, each depending on the
    renumbered steps before it that it depended on (ids repeat between two plans). With
    `once`, a command already in the list is not run twice ("stop and remove X": the
    removal stops X itself)."""
    out: list[Step] = []
    seen: dict[str, str] = {}  # an old id -> its new one, as far as the steps go
    done: dict[tuple[str, ...], str] = {}  # a command -> the new id of its step
    for step in steps:
        if once and tuple(step.argv) in done:
            seen[step.id] = done[tuple(step.argv)]
            continue
        new = replace(step, id=f"s{len(out) + 1}", depends_on=[
            seen[d] for d in step.depends_on if d in seen])
        seen[step.id] = done[tuple(step.argv)] = new.id
        out.append(new)
    return out


class StepResult(Struct):
    step_id: str
    ok: bool
    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    skipped_reason: str | None = None
    blocked: bool = False  # the gate refused it: it never ran


# -- what running a plan came to ---------------------------------------------------------
# (ExecutionReport, UndoReport and the types they need: the executor and undo fill them,
# every surface reads them)

if TYPE_CHECKING:
    from typing import Protocol

    class UndoneTransaction(Protocol):
        """The journal's record of the transaction undone (reos.store.journal's
        TransactionRecord); only what a report says about it."""

        id: int
        request: str
        status: str


class StopReason(enum.Enum):
    """Why an execution stopped before its plan was done (a failed step is not a stop).

    `resumable`: a person may continue past it (`Executor.resume`). Only two are:
    OPERATIONS (the operation counter is the one the person may reset) and REVIEW (a
    step's output asked a person to look; looking is the person's call). The time budget,
    escalations and injected steps span a resume, so continuing past them would trip them
    again at once; a checkpoint, a drift or an escalation stop happen while a failed step
    is being recovered, so there is nothing to continue; a changed condition and a failed
    pre-flight ran nothing: the person asks again instead.
    """

    OPERATIONS = "operations"
    SECONDS = "seconds"
    ESCALATIONS = "escalations"
    INJECTED = "injected"
    CHECKPOINT = "checkpoint"
    SCOPE_DRIFT = "scope_drift"
    CONDITION_CHANGED = "condition_changed"
    PREFLIGHT = "preflight"
    REVIEW = "review"

    @property
    def resumable(self) -> bool:
        return self in (StopReason.OPERATIONS, StopReason.REVIEW)

    @property
    def sentence(self) -> str:
        """The reason in words, without the numbers (`stopped_reason` has those)."""
        return _STOP_SENTENCES[self]


_STOP_SENTENCES = {
    StopReason.OPERATIONS: "it did as many operations as one run may",
    StopReason.SECONDS: "it used all the time one run may take",
    StopReason.ESCALATIONS: "recovery added as many privilege escalations as one run may",
    StopReason.INJECTED: "recovery added as many steps as one run may",
    StopReason.CHECKPOINT: "enough automatic fixes were tried that a person should review",
    StopReason.SCOPE_DRIFT: "a step added while it ran strayed from the plan, so it was "
                            "blocked",
    StopReason.CONDITION_CHANGED: "the condition the plan depended on no longer holds",
    StopReason.PREFLIGHT: "a check before running failed, so nothing was run",
    StopReason.REVIEW: "a step's output asks a person to look before going on",
}


class GateVerdict(Struct):
    """One quality gate's verdict: pre-flight (before the journal is written), mid-flight
    (after a step) or post-flight (when the run ends). `check` names what was checked
    (goal, plan, scope, context, conflicts; result; completed, errors, verified)."""

    gate: str  # pre-flight | mid-flight | post-flight
    check: str
    passed: bool
    said: str  # what was found, in words (cleaned of untrusted bytes)
    step_id: str | None = None
    warnings: list[str] = field(default_factory=list)  # a step's warning lines, cleaned
    review: bool = False  # a warning asks a person to look before the plan goes on

    def to_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "check": self.check, "passed": self.passed,
                "said": self.said, "step_id": self.step_id, "warnings": list(self.warnings),
                "review": self.review}


class UndoneStep(Struct):
    title: str
    argv: list[str]
    ok: bool
    output: str
    refused: bool = False  # not run: the gate refused it or its journal row is damaged

    def to_dict(self) -> dict[str, object]:
        return {"title": self.title, "argv": self.argv,
                "command": render(self.argv) if self.argv else "",
                "ok": self.ok, "refused": self.refused, "output": self.output}


class UndoReport(Struct):
    transaction: UndoneTransaction | None
    steps: list[UndoneStep] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    busy_with: int | None = None  # pid of another reos already undoing it (nothing done)

    @property
    def ok(self) -> bool:
        return self.transaction is not None and self.busy_with is None \
            and all(s.ok for s in self.steps)

    def describe(self) -> str:
        """What undo did, in words (the `message` of `reos.undo/1`)."""
        tx = self.transaction
        if self.busy_with is not None:
            request = f"\u201c{tx.request}\u201d" if tx else "That transaction"
            who = f" (process {self.busy_with})" if self.busy_with > 0 else ""
            return (f"{request} is already being undone by another reos{who}, or was just "
                    "undone; I left it alone.")
        if tx is None:
            return "Nothing to undo: I haven't changed anything that can be reverted."
        done = [s for s in self.steps if s.ok]
        failed = [s for s in self.steps if not s.ok]
        lines = []
        if tx.status == "interrupted":
            lines.append(f"\u201c{tx.request}\u201d was interrupted (reos was stopped while "
                         "it ran); I checked the real state before undoing it.")
        if done:
            lines.append(f"Done! Undid \u201c{tx.request}\u201d.")
            lines += [f"  ({s.output})  {s.title}" if s.argv[:1] in (["cp"], ["rm"], ["ln"])
                      else f"  (ran: {render(s.argv)})" for s in done]
        for s in failed:
            if s.refused:  # never suggest running what was refused or what a damaged row holds
                lines.append(f"Didn't undo \u201c{s.title}\u201d: {s.output}.")
                continue
            lines.append(f"Couldn't undo \u201c{s.title}\u201d: {s.output or 'it failed'}.")
            lines.append(f"  To do it by hand, run: {render(s.argv)}")
        lines += self.notes
        if not done and not failed and self.notes:
            lines.insert(0, f"Nothing to run for \u201c{tx.request}\u201d.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, object]:
        tx = self.transaction
        return {
            "schema": "reos.undo/1",
            "undone": tx.id if tx and self.busy_with is None else None,
            "request": tx.request if tx else None,
            "ok": self.ok,
            "busy": self.busy_with is not None,
            "steps": [s.to_dict() for s in self.steps],
            "notes": list(self.notes),
            "message": self.describe(),
        }


class ExecutionReport(Struct):
    """What running a plan came to: filled by the executor, read by every surface."""

    tx_id: int | None
    completed: list[Step] = field(default_factory=list)
    results: list[StepResult] = field(default_factory=list)
    failed: Step | None = None
    pending: list[Step] = field(default_factory=list)
    stop: StopReason | None = None  # why it stopped before the plan was done
    stopped_reason: str | None = None  # the same in words, with its numbers, for display
    seconds: float = 0.0
    escalations: int = 0  # steps that ran through sudo
    started: float = 0.0  # monotonic time the execution began (limits span a resume)
    recoveries: list[str] = field(default_factory=list)  # fixes that worked, in words
    verified: int = 0  # steps whose intended state was checked for real
    unchecked: list[Step] = field(default_factory=list)  # state could not be read after
    rolled_back: UndoReport | None = None  # when completed steps were rolled back
    learned: list[str] = field(default_factory=list)  # new reflection findings
    gates: list[GateVerdict] = field(default_factory=list)  # quality gates' verdicts

    @property
    def ok(self) -> bool:
        return self.failed is None and self.stop is None and not self.pending

    @property
    def resumable(self) -> bool:
        """A person may continue it (`Executor.resume`): never search `stopped_reason`."""
        return (self.stop is not None and self.stop.resumable and bool(self.pending)
                and self.failed is None and self.tx_id is not None)
