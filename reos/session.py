"""The conversation's state, owned in one place: what waits for the person, and what runs.

A chat (and one `reos plan` run, which is a conversation of one request) is at any moment
in one of these states, `Session.state`:

    idle                nothing waits
    asking              a question is open ("which redis?"); the answer picks an option
    awaiting approval   a plan waits for yes or no (on this machine, or on hosts:
                        `hosts`, a reos.on_hosts.HostsPlan)
    confirming          the waiting plan loses something for good: its second question
                        is open, and only a second yes runs it
    undo waiting        "undo" waits for a yes (`always_confirm`)
    running             an approved plan runs (a pause for review keeps it here)

A question can be open while a plan waits (a new request asked back; the plan keeps
waiting), so `state` names the most pressing of them, and `waiting` and `question` are
each kept. Every change goes through a method named for what happened (`offer`, `ask`,
`confirm`, `approve`, `decline`…), so no surface or module sets a field by hand.

Not responsible for: deciding what to say or do (reos.engine, reos.approving), or how a
surface asks (the chat's cards and modals, the CLI's prompts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reos.model.plan import Plan

HostsPlan = Any  # reos.on_hosts.HostsPlan (which reads the engine, and so this module)

IDLE = "idle"
ASKING = "asking"
AWAITING = "awaiting approval"
CONFIRMING = "confirming"
UNDO_WAITING = "undo waiting"
RUNNING = "running"


class Session:
    """One conversation's state (see the module's docstring)."""

    __slots__ = ("_confirming", "_running", "_undo", "hosts", "question", "waiting")

    def __init__(self) -> None:
        self.waiting: Plan | None = None  # the plan waiting for approval
        self.question: Plan | None = None  # a clarify plan whose question is open
        self._confirming = False  # the waiting plan's second question is open
        self._undo: int | None = None  # "undo" waits for a yes: the transaction shown
        self._running: Plan | None = None  # the plan the executor holds (for resume)
        self.hosts: HostsPlan | None = None  # plans on other machines waiting for a yes

    @property
    def state(self) -> str:
        if self._running is not None:
            return RUNNING
        if self.waiting is not None:
            return CONFIRMING if self._confirming else AWAITING
        if self.hosts is not None:
            return AWAITING
        if self._undo is not None:
            return UNDO_WAITING
        return ASKING if self.question is not None else IDLE

    @property
    def confirming(self) -> Plan | None:
        """The waiting plan, when its second question is open."""
        return self.waiting if self._confirming else None

    @property
    def undo_waiting(self) -> bool:
        return self._undo is not None

    @property
    def undo_shown(self) -> int | None:
        """The transaction a waiting undo showed (and only that one may be undone)."""
        return self._undo

    @property
    def running(self) -> Plan | None:
        return self._running

    # -- what happened ---------------------------------------------------------------
    def offer(self, plan: Plan) -> None:
        """`plan` waits for approval (instead of whatever waited, and of a waiting undo)."""
        self.waiting, self._confirming, self._undo, self.hosts = plan, False, None, None

    def offer_hosts(self, hosts: HostsPlan) -> None:
        """Plans on other machines wait for approval (instead of whatever waited)."""
        self.waiting, self._confirming, self._undo, self.hosts = None, False, None, hosts

    @property
    def hosts_confirming(self) -> HostsPlan | None:
        """The plans on hosts that wait, when their second question is open."""
        return self.hosts if self._confirming and self.waiting is None else None

    def take_hosts(self) -> HostsPlan | None:
        """Yes to the plans on other machines (or they are dropped): they no longer
        wait."""
        hosts, self.hosts, self._confirming = self.hosts, None, False
        return hosts

    def ask(self, plan: Plan) -> None:
        """`plan`'s question is open; a plan that waits keeps waiting."""
        self.question = plan

    def take_question(self) -> Plan | None:
        """The open question, now answered (or passed over): closed."""
        asked, self.question = self.question, None
        return asked

    def confirm(self) -> None:
        """The waiting plan's (or plans on hosts') second question was asked: the next
        yes answers it."""
        self._confirming = self.waiting is not None or self.hosts is not None

    def reconsider(self) -> None:
        """What the plan loses may have changed (an edited step): ask again on yes."""
        self._confirming = False

    def wait_for_undo(self, tx_id: int) -> None:
        """The undo of transaction `tx_id` was shown and waits for a yes."""
        self.waiting, self._confirming, self._undo, self.hosts = None, False, tx_id, None

    def undo_answered(self) -> None:
        self._undo = None

    def approve(self) -> Plan | None:
        """Yes to the waiting plan: it no longer waits (it is about to run)."""
        plan, self.waiting, self._confirming = self.waiting, None, False
        return plan

    def decline(self) -> tuple[Plan | HostsPlan | None, bool]:
        """No: the waiting plan (on this machine or on hosts, or None) and whether an undo
        was what waited."""
        plan, undo = self.waiting or self.hosts, self._undo is not None
        self.waiting, self._confirming, self._undo, self.hosts = None, False, None, None
        return plan, undo

    def run(self, plan: Plan) -> None:
        self._running = plan

    def done(self) -> None:
        """The run ended (completed, failed, or paused for good)."""
        self._running = None
