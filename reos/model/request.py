"""What a request means: its Kind, its Intent, how it was read and the question asked.

An Intent holds a request's meaning; how it was read (Understood) and the question
asked instead of a plan (Asking, its Options) are records of their own. Kind is the
`kind` of `reos.plan/1` (a Plan's, and its Intent's), `Intent.to_dict` its `intent`.

Not responsible for reading a request (reos.understanding does), nor for what on the
machine it names (reos.model.target's Target, once it is matched); imports nothing of reos.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

from msgspec import Struct, field

if TYPE_CHECKING:
    from typing import Any


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
