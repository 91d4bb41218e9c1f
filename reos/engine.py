"""ReasoningEngine: the one entry point every surface (CLI, TUI, chat words) goes through.

Holds the session (pending plan, verbosity), routes a request through perception,
understanding, matching and planning, asks for approval through a callback, hands
approved plans to the executor and undo to the journal, and emits events for the UI.
Not responsible for parsing words itself, running commands itself, or drawing anything.
Heavy parts (docker SDK, templates, the database) are loaded on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from reos import paths
from reos.execution.events import EventSink, ignore
from reos.model import Kind, Plan
from reos.reasoning import conversation
from reos.reasoning.conversation import Voice
from reos.reasoning.perception import perceive, split_plan_prefix
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

if TYPE_CHECKING:
    from reos.execution.executor import ExecutionReport
    from reos.execution.undo import UndoReport
    from reos.reasoning.templates import TemplateSet
    from reos.store.journal import Journal, TransactionRecord
    from reos.system.cache import SnapshotCache

Confirm = Callable[[Plan], bool]


@dataclass
class Reply:
    """What the engine says back to one chat utterance."""

    text: str
    plan: Plan | None = None
    awaiting_approval: bool = False
    report: ExecutionReport | None = None


class ReasoningEngine:
    def __init__(self, settings: Settings, snapshot: SystemSnapshot | None = None,
                 journal: Journal | None = None):
        self.settings = settings
        self.voice = Voice(settings.conversation.verbosity, settings.conversation.show_commands)
        self._fixed_snapshot = snapshot
        self._cache: SnapshotCache | None = None
        self._journal = journal
        self._templates: TemplateSet | None = None
        self.pending: Plan | None = None

    # -- what reos knows -------------------------------------------------------------
    def snapshot(self) -> SystemSnapshot:
        if self._fixed_snapshot is not None:
            return self._fixed_snapshot
        if self._cache is None:
            from reos.system.cache import SnapshotCache
            from reos.system.collectors import collect

            self._cache = SnapshotCache(collect)
        return self._cache.get()

    def forget_snapshot(self) -> None:
        if self._cache is not None:
            self._cache.invalidate()

    @property
    def templates(self) -> TemplateSet:
        if self._templates is None:
            from reos.reasoning import templates

            self._templates = templates.load()
        return self._templates

    @property
    def journal(self) -> Journal:
        if self._journal is None:
            from reos.store.db import Database
            from reos.store.journal import Journal

            self._journal = Journal(Database(paths.database_file()))
        return self._journal

    # -- reasoning -------------------------------------------------------------------
    def plan(self, text: str) -> Plan:
        from reos.reasoning import understanding
        from reos.reasoning.planner import PlanBuilder

        _forced, request = split_plan_prefix(text)
        chain = [understanding.template_understander(self.templates),
                 understanding.regex_understander]
        intent = understanding.understand(request, chain)
        return PlanBuilder(self.templates, self.snapshot(), self.voice).build(text, intent)

    # -- doing -----------------------------------------------------------------------
    def answer(self, plan: Plan, on_event: EventSink = ignore) -> str:
        """Run a query's read-only steps and put the result into words."""
        from reos.execution.runner import run_argv

        assert plan.read_only, "only read-only plans are answered directly"
        outputs = []
        for step in plan.steps:
            result = run_argv(step.argv, timeout=60, step_id=step.id)
            if not result.ok:
                return conversation.query_failed(step, result.stderr)
            outputs.append(result.stdout)
        recipe = self.templates.recipe(plan.intent.resource or "", plan.intent.action or "") \
            if plan.intent else None
        summarise = conversation.ANSWERS.get(recipe.answer or "") if recipe else None
        if summarise is None:
            return "\n".join(outputs).strip()
        return summarise("\n".join(outputs), self.voice)

    def execute(self, plan: Plan, on_event: EventSink = ignore) -> ExecutionReport:
        from reos.execution.executor import Executor

        try:
            return Executor(self.journal, self.settings.limits, on_event).execute(plan)
        finally:
            self.forget_snapshot()

    def carry_out(self, plan: Plan, confirm: Confirm, on_event: EventSink = ignore
                  ) -> ExecutionReport | None:
        """Ask through `confirm` when the plan needs approval, then execute. None = declined."""
        if plan.needs_approval and not confirm(plan):
            return None
        return self.execute(plan, on_event)

    def undo(self) -> UndoReport:
        from reos.execution.undo import undo_latest

        try:
            return undo_latest(self.journal)
        finally:
            self.forget_snapshot()

    def history(self, limit: int = 20) -> list[TransactionRecord]:
        return self.journal.transactions(limit=limit)

    def undo_list_text(self, now_iso: str) -> str:
        candidates = self.journal.undoable(limit=10)
        if not candidates:
            return "There's nothing I can undo right now."
        lines = ["Recent actions I can undo:"]
        for n, tx in enumerate(candidates, start=1):
            what = "; ".join(s.title for s in tx.undo_steps[::-1])
            age = conversation.relative_time(tx.started_at, now_iso)
            flag = " \u2014 interrupted" if tx.status == "interrupted" else ""
            lines.append(f"  {n}. {what} ({age}){flag}")
        lines.append("Say \u2018undo\u2019 to revert the most recent one.")
        return "\n".join(lines)

    # -- chat ------------------------------------------------------------------------
    def respond(self, text: str, on_event: EventSink = ignore) -> Reply:
        """One chat utterance in, one reply out (approval is a later utterance)."""
        from reos.execution.undo import describe
        from reos.store.db import now

        meta = perceive(text)
        if meta is not None:
            if meta.action == "undo":
                self.pending = None
                return Reply(describe(self.undo()))
            if meta.action == "list_undo":
                return Reply(self.undo_list_text(now()))
            if meta.action == "yes":
                return self.approve(on_event)
            if meta.action == "no":
                return self.decline()
            if meta.action == "verbosity" and meta.value:
                self.voice.verbosity = meta.value
                return Reply({"minimal": "Okay, keeping it short.",
                              "detailed": "Got it, I'll explain more about what I'm doing.",
                              "normal": "Okay, back to normal."}[meta.value])
        plan = self.plan(text)
        if plan.kind == Kind.QUERY:
            return Reply(self.answer(plan, on_event), plan=plan)
        if plan.needs_approval:
            self.pending = plan
            return Reply(plan.message + "\nProceed? [y/N]", plan=plan, awaiting_approval=True)
        return Reply(plan.message, plan=plan)

    def approve(self, on_event: EventSink = ignore) -> Reply:
        plan, self.pending = self.pending, None
        if plan is None:
            return Reply("There's nothing waiting for approval.")
        report = self.execute(plan, on_event)
        return Reply(conversation.execution_summary(report, plan), plan=plan, report=report)

    def decline(self) -> Reply:
        plan, self.pending = self.pending, None
        if plan is None:
            return Reply("Okay.")
        return Reply("Okay, I won't do that. Nothing was changed.")
