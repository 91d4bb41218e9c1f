"""What reos keeps about its own work on this machine, and what it answers from it.

- The audit trail: every request's reasoning chain (memory/audit.py builds it,
  store/traces.py keeps it), linked to its transaction with the outcome after it ran.
- The knowledge base: outcomes of commands and operations, with reflection's rules
  (memory/reflection.py) and the `[reflection]` thresholds.
- "Why did you …?" (memory/recall.py reads the words) from the trail, what was
  learned and the journal, "that" being the last change this session made (else the
  journal's newest transaction); the chain of one request in words; reflection's findings.

The database is opened on first use, and nothing is created when nothing is asked to be
kept. Not responsible for deciding anything about a plan, or for the journal itself
(store/journal.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from reos import paths
from reos.model.plan import Plan, Traced
from reos.model.request import Kind
from reos.settings import Settings

if TYPE_CHECKING:
    from typing import Any

    from reos.model.report import ExecutionReport
    from reos.store.journal import Journal
    from reos.store.knowledge import Knowledge
    from reos.store.traces import Traces

MAX_TRACES = 500  # requests whose reasoning is kept; the oldest go first
NOTHING_KEPT = "No reasoning kept yet: ask me for something first."


class Memory:
    def __init__(self, settings: Settings, journal: Callable[[], Journal]):
        self.settings = settings
        self._journal = journal
        self._knowledge: Knowledge | None = None
        self._traces: Traces | None = None
        # the transaction of the last plan this session ran ("why did you do that?");
        # None: ask the journal for its newest (a fresh `reos plan`, or after an undo)
        self.last_tx: int | None = None

    @property
    def knowledge(self) -> Knowledge:
        if self._knowledge is None:
            from reos.memory.reflection import evaluate
            from reos.store.knowledge import Knowledge

            # the rules are memory's, given to the store (which never imports memory)
            self._knowledge = Knowledge(self._journal().db,
                                        self.settings.limits.max_learned_patterns,
                                        self.settings.reflection, judge=evaluate)
        return self._knowledge

    @property
    def traces(self) -> Traces:
        if self._traces is None:
            from reos.store.traces import Traces

            self._traces = Traces(self._journal().db, keep=MAX_TRACES)
        return self._traces

    def learned(self) -> list[Any]:
        """What reos learned here (for the model's prompt); nothing when nothing was kept."""
        return self.knowledge.all() if paths.database_file().exists() else []

    def record(self, plan: Plan, snapshot: Callable[[], Any] | None) -> Plan:
        """Keep how `plan` was decided, with a summary of the `snapshot` it was decided
        against (not with reasoning.enabled false). A trail that cannot be written never
        stops a plan: the plan's trace says it was not kept."""
        if not self.settings.reasoning.enabled:
            return plan
        from reos.errors import ReosError
        from reos.memory import audit

        try:
            context = audit.context_of(snapshot()) if snapshot and plan.kind != Kind.META \
                else None
            plan.trace_id = self.traces.record(audit.chain(plan, context=context))
        except (ReosError, OSError) as exc:
            plan.trace.append(Traced("audit trail", f"not kept: {exc}"))
        return plan

    def outcome(self, plan: Plan, report: ExecutionReport) -> None:
        """Link the plan's trace to its transaction and add what running it came to."""
        if report.tx_id is not None:
            self.last_tx = report.tx_id
        if plan.trace_id is None:
            return
        from reos.errors import ReosError
        from reos.memory import audit

        try:
            if report.tx_id is not None:
                self.traces.link(plan.trace_id, report.tx_id)
            self.traces.add_outcome(plan.trace_id, audit.outcome_of(report))
        except (ReosError, OSError):
            pass  # the journal has the transaction; only the trail's copy is missing

    def why(self, what: str) -> str:
        """Answer "why did you …?" from the trail, what was learned, and the journal."""
        from reos.memory import recall
        from reos.store.db import now

        if not paths.database_file().exists():
            return recall.why(what, [], [], [], now=now())
        journal = self._journal()
        last = None
        if recall.points_back(what):  # "that": this session's last change, else the journal's
            last = journal.transaction(self.last_tx) if self.last_tx is not None else None
            last = last or next(iter(journal.transactions(limit=1)), None)
        return recall.why(what, self.traces.recent(200),
                          journal.transactions(limit=200, kind="action"),
                          self.knowledge.all(), now=now(), last=last)

    def reasoning_of(self, trace_id: int | None = None) -> str:
        """The chain of one request in the design notes' shape (default: the latest that
        is not a chat word)."""
        from reos.memory.audit_text import render

        if not paths.database_file().exists():
            return NOTHING_KEPT
        record = self.traces.get(trace_id) if trace_id is not None else next(
            (t for t in self.traces.recent(50) if t.kind != "meta"), None)
        if record is None:
            return NOTHING_KEPT
        if not record.readable:
            return f"Trace #{record.id} (\u201c{record.request}\u201d): {record.problem}."
        return render(record.to_dict())

    def findings(self) -> list[str]:
        """What reflection found here, one line each (evidence, what to do)."""
        from reos.memory.reflection import describe

        if not paths.database_file().exists():
            return []
        return describe(self.knowledge.current(include_cleared=True))
