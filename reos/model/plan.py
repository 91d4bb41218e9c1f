"""What reos would do for a request: a Plan of Steps, and a command in words.

A Plan holds its Steps, its trace (Traced stages) and its words as data: what it says
first (`lead`), and either the words rendered around its list of steps (Shown, a plan to
approve) or what it says instead (`said`); `Plan.text` joins them into the one text every
surface shows, when it is shown. `renumbered` numbers steps gathered from several plans
again. A command's words: `render` (as a shell would take it), `restarts` and RESTARTS (a
restart or reload, which has nothing to restore), `step_words` ("step 3"). The JSON shape
of `Plan.to_dict` is the `reos.plan/1` contract.

Not responsible for making a plan (reos.planning does), judging its risk (reos.safety
does) or running it (reos.execution does; what that came to is reos.model.report's).
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from reos.model.request import Intent, Kind
from reos.model.risk import RiskLevel
from reos.model.target import Target

if TYPE_CHECKING:
    from typing import Any


# Actions that leave a running thing as it was: a restart runs it again, a reload rereads
# what it already has. For a step that really is one (`restarts(argv)`) of something that
# was running, undo has nothing to restore (it says so and runs nothing) and nothing is
# lost, so the step is neither "reversible" nor asked about as lost for good. A restart
# of something stopped starts it: that has an undo (stop it again), like any start.
RESTARTS = frozenset({"restart", "reload", "daemon_reload"})
_RESTART_WORDS = {"docker": {"restart"}, "podman": {"restart"},
                  "systemctl": {"restart", "reload", "try-restart", "reload-or-restart",
                                "try-reload-or-restart", "daemon-reload"},
                  "ufw": {"reload"}}
# a program whose reload is an option alone: `firewall-cmd --reload` (its rules, loaded
# again from the permanent configuration)
_RESTART_OPTIONS = {"firewall-cmd": ["--reload"]}


def restarts(argv: list[str]) -> bool:
    """Whether `argv` (with or without `sudo -n`) only restarts or reloads something."""
    words = list(argv)
    while words and (words[0] == "sudo" or words[0].startswith("-")):
        words = words[1:]  # the privilege prefix (reos.system.privilege) and its options
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    if program in _RESTART_OPTIONS:
        return words[1:] == _RESTART_OPTIONS[program]
    verbs = _RESTART_WORDS.get(program, set())
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
    """A plan's words around its list of steps, as rendered for approval
    (`words.conversation.present`): `before` the steps, the `steps` one line each (or
    more, with why and risk), and `after` them. What is said first (`Plan.lead`) is not
    here: `Plan.text` puts it before these lines."""

    before: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)

    def lines(self, *, steps: bool = True) -> list[str]:
        """Its lines in order; without the list of steps when `steps` is False."""
        return [*self.before, *(self.steps if steps else []), *self.after]


class Plan(Struct):
    request: str
    kind: Kind
    source: str = "none"
    intent: Intent | None = None
    targets: list[Target] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    blocked: bool = False
    blocked_reason: str | None = None
    # what a plan without steps to approve says (an answer, a refusal, a question back,
    # nothing to do, what a query will look at), in order, an entry a line or a block of
    # lines; a plan with steps to approve says `shown` instead
    said: list[str] = field(default_factory=list)
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
    # sentences said first, before everything else the plan says (why the model was not
    # used, what was measured, what a follow-up changed)
    lead: list[str] = field(default_factory=list)
    quality: dict[str, Any] | None = None  # planning/quality.py's assessment, as JSON
    trace_id: int | None = None  # the audit trail's record of how this plan was decided
    # a request that asks several questions: each one's plan, answered in turn
    parts: list[Plan] = field(default_factory=list)
    # questions asked beside a change ("restart nginx and show me its status"): each
    # one's read-only plan, answered once the change has run
    then: list[Plan] = field(default_factory=list)
    # a plan with steps to approve: its words as rendered around the list of steps
    # (`words.conversation.render`), None for any other plan
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

    def text(self, *, steps: bool = True) -> str:
        """The plan's words, as every surface says them (and as the `message` of
        `reos.plan/1`): what is said first (`lead`), then the words rendered around its
        steps (`shown`) or, with no steps to approve, what it says (`said`); empty lines
        left out. Made from those parts each time, never kept. Without the list of steps
        when `steps` is False (a surface that draws the steps its own way: the chat's
        card)."""
        words = self.shown.lines(steps=steps) if self.shown is not None else self.said
        return "\n".join(line for line in [*self.lead, *words] if line)

    def ask(self, question: str) -> None:
        """A question back instead of a plan: what is asked is all the plan says."""
        self.question = question
        self.said = [question]

    def say_first(self, text: str, replacing: str | None = None) -> None:
        """Put `text` before everything the plan says (first in its lead); in place of
        `replacing` when that is what it says first."""
        if replacing is not None and self.lead[:1] == [replacing]:
            self.lead[0] = text
        else:
            self.lead.insert(0, text)

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
            "message": self.text(),
            "question": self.question,
            "choices": [label for label, _ in self.options],
            "trace": [{"stage": t.stage, "said": t.said} for t in self.trace],
            **({"quality": self.quality} if self.quality is not None else {}),
            # the questions answered once the change has run: their read-only steps
            **({"then": [{"summary": p.intent.summary if p.intent else None,
                          "steps": [s.to_dict() for s in p.steps]} for p in self.then]}
               if self.then else {}),
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
