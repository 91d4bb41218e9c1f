"""ReasoningEngine: the one entry point every surface (CLI, TUI, chat words) goes through.

Holds the session (pending plan, verbosity), routes a request through perception,
understanding, matching and planning, asks for approval through a callback, hands
approved plans to the executor and undo to the journal, and emits events for the UI.
It supplies the planner with the live machine (`reasoning.amend.Machine`: probes through
the gate, package simulations, the knowledge base) and applies the settings that decide
routing (`auto_assess`), the reasoning layer's extras (`reasoning.enabled`) and
confirmations (`always_confirm`, `require_approval_for_permanent`).
Not responsible for reading words itself (reasoning does), editing plans (the planner
does), running commands itself, or drawing anything.
Heavy parts (docker SDK, templates, the database) are loaded on first use.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from reos import paths
from reos.execution import ignore
from reos.model import Intent, Kind, Plan
from reos.reasoning import conversation
from reos.reasoning.conversation import Voice
from reos.reasoning.perception import Meta, perceive, split_plan_prefix
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

TYPE_CHECKING = False  # typing stays unimported at run time: `reos plan` starts faster
MAX_TRACES = 500  # requests whose reasoning is kept; the oldest go first

if TYPE_CHECKING:
    from typing import Any

    from reos.execution.events import EventSink
    from reos.execution.executor import ExecutionReport, Executor
    from reos.execution.undo import UndoReport
    from reos.llm.session import ModelSession, Turn
    from reos.reasoning.templates import TemplateSet
    from reos.store.journal import Journal, TransactionRecord
    from reos.store.knowledge import Knowledge
    from reos.store.traces import Traces
    from reos.system.cache import SnapshotCache

def _reading(intent: Intent | None) -> str:
    """The parser's reading in a few words, for the trace."""
    if intent is None:
        return "nothing to read"
    what = intent.operation or intent.kind.value
    return (f"{intent.kind.value} {what}" + (f" {', '.join(intent.targets)}" if intent.targets
                                            else "")
            + f" (confidence {intent.confidence:.2f})"
            + (f", could not place: {', '.join(intent.unexplained[:5])}"
               if intent.unexplained else ""))


@dataclass
class Found:
    """What the read-only steps of a query found, in words, and a plan they led to
    (diagnoses)."""

    text: str
    follow_up: Plan | None = None


@dataclass
class Reply:
    """What the engine says back to one chat utterance."""

    text: str
    plan: Plan | None = None
    awaiting_approval: bool = False
    report: ExecutionReport | None = None
    undone: UndoReport | None = None  # what an "undo" did


class ReasoningEngine:
    def __init__(self, settings: Settings, snapshot: SystemSnapshot | None = None,
                 journal: Journal | None = None):
        self.settings = settings
        self.voice = Voice(settings.conversation.verbosity, settings.conversation.show_commands,
                           explain=settings.reasoning.explain_steps
                           and settings.reasoning.enabled)
        self._fixed_snapshot = snapshot
        self._cache: SnapshotCache | None = None
        self._journal = journal
        self._templates: TemplateSet | None = None
        self.pending: Plan | None = None
        self.asking: Plan | None = None  # a clarify plan whose question is open
        self.confirming: Plan | None = None  # the pending plan asked about a second time
        self.undo_waiting = False  # "undo" waits for a yes (always_confirm)
        self._matcher = None
        self._executor: Executor | None = None
        self._knowledge: Knowledge | None = None
        self._model: ModelSession | None = None
        self._traces: Traces | None = None
        self._executing: Plan | None = None  # the plan the executor holds (for resume)

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
    def builder(self):  # noqa: ANN201 - PlanBuilder, imported lazily
        from reos.reasoning.matcher import TargetMatcher
        from reos.reasoning.planner import PlanBuilder

        snapshot = self.snapshot()
        # the matcher's indexes cost milliseconds to build: keep them while the snapshot lives
        if self._matcher is None or self._matcher.snapshot is not snapshot:
            self._matcher = TargetMatcher(snapshot, self.templates.aliases)
        # only this machine can be asked what it would do (never a snapshot from elsewhere)
        builder = PlanBuilder(self.templates, snapshot, self.voice, self._matcher,
                              machine=self._machine() if self._fixed_snapshot is None else None)
        builder.assess = self.settings.reasoning.enabled
        builder.max_steps = self.settings.limits.max_operations
        builder.verify = self.settings.safety.verify_each_step
        return builder

    def _machine(self):  # noqa: ANN202 - reasoning.amend.Machine, imported lazily
        """The live machine as the planner may ask it: read-only probes through the gate,
        package simulations, and what reos learned here."""
        from reos.execution import packages
        from reos.execution.recovery import REFRESH
        from reos.reasoning.amend import Machine
        from reos.store.knowledge import signature

        manager = self.snapshot().host.get("package_manager")
        learned = paths.database_file().exists()
        return Machine(
            probe=self._probe,
            simulate=lambda plan: packages.preview(plan, manager),
            signature=signature,
            proactive=lambda sig: self.knowledge.proactive(sig) if learned else [],
            flagged=lambda sig: self.knowledge.flagged(sig) if learned else None,
            fix_argv=lambda fix: REFRESH.get(manager or "") if fix == "refresh" else None,
            learning=self.settings.reasoning.enabled)

    def _probe(self, probes: list[Any], request: str) -> tuple[dict[str, Any], dict[str, str]]:
        """Run read-only probes side by side, each through the gate and bounded in time:
        results by key, and what the gate refused (with why)."""
        from concurrent.futures import ThreadPoolExecutor

        from reos.execution.runner import run_argv
        from reos.reasoning import cleanup
        from reos.safety.gate import admit_argv

        refused = {}
        for probe in list(probes):
            admission = admit_argv(probe.argv, claimed_read_only=True, requested=request)
            if not admission.allowed:
                refused[probe.what] = admission.reason or "the gate refused it"
                probes.remove(probe)
        with ThreadPoolExecutor(max_workers=max(1, len(probes))) as pool:
            runs = {p.key: pool.submit(run_argv, p.argv, timeout=cleanup.TIMEOUT, step_id=p.key)
                    for p in probes}
            return {key: run.result() for key, run in runs.items()}, refused

    def plan(self, text: str, on_event: EventSink = ignore) -> Plan:
        """The plan for one request; chat words ("undo", "help") come back as kind meta."""
        import time

        from reos.execution.events import Stage
        from reos.inputs import check_request
        from reos.reasoning import understanding

        forced, request = split_plan_prefix(check_request(text))
        # auto_assess off: nothing is routed by itself; every request is shown as a plan
        forced = forced or not self.settings.reasoning.auto_assess
        meta = perceive(request)
        if meta is not None:
            return self._record_trace(Plan(text, Kind.META, intent=Intent(
                Kind.META, action=meta.action, value=meta.value)))
        builder = self.builder()
        started = time.monotonic()
        intent = understanding.understand(request, self.templates, builder.matcher,
                                          remote=bool(os.environ.get("SSH_CONNECTION")))
        trace = [{"stage": "understanding", "said": "catalogue parser: " + _reading(intent)}]
        on_event(Stage("understanding", trace[0]["said"], (time.monotonic() - started) * 1000))
        intent, notes = self.model.consult(
            request, intent, templates=self.templates, matcher=builder.matcher,
            snapshot=self.snapshot, learned=self._learned, trace=trace, emit=on_event,
            hint=_reading(intent) if intent is not None and intent.kind in (
                Kind.QUERY, Kind.ACTION, Kind.COMBINED) else None)
        if intent is not None and intent.kind == Kind.META:
            return self._record_trace(Plan(text, Kind.META, intent=intent, source=intent.source))
        if intent is not None:
            intent.forced = forced
        started = time.monotonic()
        on_event(Stage("planning", "matching the words to this machine and building steps"))
        plan = builder.build(text, intent, lead=notes if intent is None or (
            intent.kind != Kind.META) else None, trace=trace)
        judged = (f"{len(plan.steps)} step(s), risk {plan.risk.label}"
                  + (", blocked" if plan.blocked else "")
                  + (f"; targets: {', '.join(t.name for t in plan.targets[:6])}"
                     if plan.targets else ""))
        plan.trace.append({"stage": "judging risk", "said": judged})
        on_event(Stage("judging risk", judged, (time.monotonic() - started) * 1000))
        for step in plan.steps:
            if step.why:
                plan.trace.append({"stage": "planning", "said": f"{step.id}: {step.why}"})
        if plan.quality is not None:
            plan.trace.append({"stage": "assessing quality", "said": (
                f"score {plan.quality.get('score')} ({plan.quality.get('label')})")})
        if not self.settings.reasoning.enabled:  # the reasoning layer's extras are off
            plan.trace = []
        self.model.remember(request, plan)
        return self._record_trace(plan)

    # -- the model -------------------------------------------------------------------
    @property
    def model(self) -> ModelSession:
        """The model's side of this conversation (loaded on first use: `reos undo` never
        imports reos.llm)."""
        if self._model is None:
            from reos.llm.session import ModelSession

            self._model = ModelSession(self.settings)
        return self._model

    @property
    def turns(self) -> list[Turn]:
        return self.model.turns

    @property
    def llm_state(self) -> str:
        return self.model.state

    @property
    def llm_problem(self) -> str | None:
        return self.model.problem

    def _may_ask_model(self) -> bool:
        return self.model.may_ask()

    def warm_model(self) -> str:
        """Load the model ahead of the first request (the chat calls this in the
        background); returns the state to show."""
        return self.model.warm()

    def choose(self, text: str) -> Plan | None:
        """The answer to an open question ("2", "demo-web", "the web one"), as the plan of
        the chosen option, or None when the words pick none of them (a new request)."""
        from reos.reasoning.choice import pick

        asked, self.asking = self.asking, None
        if asked is None or not asked.options:
            return None
        picked = pick(text, asked.options, self.templates.aliases)
        if picked is None:
            return None
        plan = self.builder().build(asked.request, picked)
        if plan.kind == Kind.CLARIFY:
            self.asking = plan
        return plan

    def other_host(self) -> str | None:
        """Why the snapshot being planned against is not this machine, or None."""
        if self._fixed_snapshot is None:
            return None
        from reos.system.identity import other_host

        return other_host(self._fixed_snapshot.host)

    # -- doing -----------------------------------------------------------------------
    def run_query(self, plan: Plan, on_event: EventSink = ignore) -> Found:
        """Run read-only steps and put what they found into words (plus any follow-up)."""
        from reos.execution.runner import run_argv
        from reos.reasoning.answers import ANSWERS, TOLERANT
        from reos.safety.gate import admit_argv

        assert plan.read_only, "only read-only plans are answered directly"
        if plan.blocked:  # nothing of a blocked plan runs, not even its read-only steps
            return Found(f"I won't run any of that: {plan.blocked_reason}.")
        if self.settings.reasoning.depth == "deep" and plan.intent and plan.targets and (
                plan.intent.operation in ("service.why_failed", "container.why_failed")):
            return Found(self._investigate(plan, on_event))
        results = []
        for step in plan.steps:
            admission = admit_argv(step.argv, claimed_read_only=True, requested=plan.request)
            if not admission.allowed:
                return Found(f"I didn't run {step.command}: {admission.reason}.")
            result = run_argv(step.argv, timeout=60, step_id=step.id)
            if not result.ok and plan.summariser not in TOLERANT:
                return Found(conversation.query_failed(step, result.stderr))
            results.append(result)
        params = dict(plan.intent.params) if plan.intent else {}
        params.update({f"target:{s.id}": s.target.name for s in plan.steps if s.target})
        params["self_pid"] = str(os.getpid())  # reos itself is not an answer to "what's busy"
        summarise = ANSWERS.get(plan.summariser or "")
        text = summarise(results, params, self.voice) if summarise else "\n".join(
            r.stdout for r in results).strip()
        follow_up = None
        if plan.intent and plan.intent.action == "speed_up_boot":
            from reos.reasoning.diagnosis import boot_plan

            follow_up = boot_plan(plan.request, results, self.builder())
        return Found(text, follow_up)

    def _investigate(self, plan: Plan, on_event: EventSink) -> str:
        """"Why did X fail?" at depth deep: evidence in up to 3 rounds of read-only probes,
        each through the gate, and an answer whose every claim cites its evidence line."""
        from reos.execution.runner import run_argv
        from reos.model import StepResult
        from reos.reasoning import investigate
        from reos.safety.gate import admit_argv

        def gated(argv: list[str]) -> StepResult:
            admission = admit_argv(argv, claimed_read_only=True, requested=plan.request)
            if not admission.allowed:
                return StepResult("probe", False, None, skipped_reason=admission.reason,
                                  blocked=True)
            return run_argv(argv, timeout=30, step_id="probe")

        explain = None
        if self._may_ask_model():
            from reos.llm import diagnose

            def explain(target: Any, evidence: Any) -> Any:
                return diagnose.explain(target, evidence, self.settings)

        return investigate.run(plan, gated, self.snapshot(), explain, on_event).text

    def _learned(self) -> list[Any]:
        """What reos learned on this machine (for the model's prompt)."""
        return self.knowledge.all() if paths.database_file().exists() else []

    @property
    def knowledge(self) -> Knowledge:
        if self._knowledge is None:
            from reos.reasoning.reflection import evaluate
            from reos.store.knowledge import Knowledge

            # the rules are reasoning's, given to the store (which never imports reasoning)
            self._knowledge = Knowledge(self.journal.db, self.settings.limits.max_learned_patterns,
                                        self.settings.reflection, judge=evaluate)
        return self._knowledge

    @property
    def traces(self) -> Traces:
        """The reasoning audit trail (reos/store/traces.py)."""
        if self._traces is None:
            from reos.store.traces import Traces

            self._traces = Traces(self.journal.db, keep=MAX_TRACES)
        return self._traces

    def _record_trace(self, plan: Plan) -> Plan:
        """Keep how `plan` was decided in the audit trail (not with reasoning.enabled
        false); a trail that cannot be written never stops a plan."""
        if not self.settings.reasoning.enabled:
            return plan
        from reos.errors import ReosError
        from reos.reasoning import audit

        context = audit.context_of(self.snapshot()) if plan.kind != Kind.META else None
        try:
            plan.trace_id = self.traces.record(audit.chain(plan, context=context))
        except (ReosError, OSError) as exc:
            plan.trace.append({"stage": "audit trail", "said": f"not kept: {exc}"})
        return plan

    def _record_outcome(self, plan: Plan, report: ExecutionReport) -> None:
        """Link the plan's trace to its transaction and add what running it came to."""
        if plan.trace_id is None:
            return
        from reos.errors import ReosError
        from reos.reasoning import audit

        try:
            if report.tx_id is not None:
                self.traces.link(plan.trace_id, report.tx_id)
            self.traces.add_outcome(plan.trace_id, audit.outcome_of(report))
        except (ReosError, OSError):
            pass  # the journal has the transaction; only the trail's copy is missing

    def execute(self, plan: Plan, on_event: EventSink = ignore,
                approve: Callable[[str], bool] | None = None) -> ExecutionReport:
        from reos.execution.events import Said
        from reos.execution.executor import Checks, Executor, Hooks
        from reos.llm.recovery import fixer
        from reos.safety.backups import BackupStore

        if not self.voice.brief:
            on_event(Said(conversation.starting(plan)))
        safety = self.settings.safety
        hooks = Hooks(on_event, approve, fixer(self.settings, lambda: self.snapshot().host,
                                               emit=on_event))
        checks = Checks(verify=safety.verify_each_step,
                        rollback_on_failure=safety.rollback_on_failure,
                        backups=BackupStore(paths.backups_dir())
                        if safety.auto_backup_configs else None,
                        knowledge=self.knowledge,
                        confirm_every_fix=self.settings.reasoning.always_confirm)
        executor = Executor(self.journal, self.settings.limits, hooks, checks)
        self._executor, self._executing = executor, plan
        try:
            report = executor.execute(plan)
            self._record_outcome(plan, report)
            return report
        finally:
            self.forget_snapshot()

    def resume(self, report: ExecutionReport) -> ExecutionReport:
        """Continue a paused execution (`report.resumable`: the operations breaker or a
        pause for review), because the person chose to."""
        if self._executor is None:
            return report
        try:
            report = self._executor.resume(report)
            if self._executing is not None:
                self._record_outcome(self._executing, report)
            return report
        finally:
            self.forget_snapshot()

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
        from reos.inputs import check_request

        said = check_request(text)
        if self.asking is not None:
            chosen = self.choose(said)
            if chosen is not None:
                return self._offer(chosen, on_event)
        plan = self.plan(said, on_event)
        if plan.kind == Kind.META:
            return self.meta(_meta_of(plan), on_event=on_event)
        return self._offer(plan, on_event)

    def meta(self, meta: Meta, *, perform: bool = True, on_event: EventSink = ignore) -> Reply:
        """A meta utterance ("undo", "what can you undo?", "be brief", "why did you …?",
        yes / no). `perform=False` only says what it would do and changes nothing."""
        from reos.execution.undo import describe
        from reos.store.db import now

        if meta.action == "undo":
            if not perform:
                return Reply(self.undo_preview())
            self.pending = None
            if self.settings.reasoning.always_confirm and not self.undo_waiting:
                # every change asks, and an undo is a change
                preview = self.undo_preview()
                if not self.journal.undoable(limit=1):
                    return Reply(preview)
                self.undo_waiting = True
                return Reply(f"{preview}\nProceed? [y/N]", awaiting_approval=True)
            self.undo_waiting = False
            undone = self.undo()
            return Reply(describe(undone), undone=undone)
        if meta.action == "list_undo":
            return Reply(self.undo_list_text(now()))
        if meta.action == "yes":
            return self.approve(on_event) if perform else Reply(
                "I'd run the plan waiting for approval." if self.pending else
                "There's nothing waiting for approval.")
        if meta.action == "no":
            return self.decline() if perform else Reply("Okay.")
        if meta.action == "verbosity" and meta.value:
            if not perform:
                return Reply(f"I'd switch to {meta.value} replies (nothing changed).")
            return Reply(self.set_verbosity(meta.value))
        if meta.action == "why" and meta.value:
            return Reply(self.why(meta.value))
        if meta.action == "help":
            from reos.reasoning.replies import tour

            return Reply(tour(list(self.templates.operations.values()), self.voice.brief))
        return Reply("Okay.")

    def meta_plan(self, text: str, *, perform: bool) -> tuple[Plan, Reply] | None:
        """A meta utterance as a `kind: meta` plan for `reos plan` (None: not meta)."""
        plan = self.plan(text)
        if plan.kind != Kind.META:
            return None
        return plan, self.meta_reply(plan, perform=perform)

    def meta_reply(self, plan: Plan, *, perform: bool) -> Reply:
        """Do (or with `perform=False` only describe) what a kind-meta plan asks for."""
        reply = self.meta(_meta_of(plan), perform=perform)
        plan.message = reply.text
        return reply

    def undo_preview(self) -> str:
        """What `undo` would revert and run, without running anything."""
        candidates = self.journal.undoable(limit=1)
        if not candidates:
            return "Nothing to undo: I haven't changed anything that can be reverted."
        tx = candidates[0]
        lines = [f"Undo would revert \u201c{tx.request}\u201d, newest first:"]
        for step in tx.undo_steps:
            how = " ".join(step.rollback) if step.rollback else "restore the files it changed"
            lines.append(f"  {step.title}: {how}")
        return "\n".join(lines)

    def _offer(self, plan: Plan, on_event: EventSink) -> Reply:
        """Answer a query at once; hold an action for approval; say anything else."""
        if plan.kind == Kind.CLARIFY:
            self.asking = plan
        if plan.steps and plan.read_only and not plan.needs_approval and not plan.blocked:
            found = self.run_query(plan, on_event)
            if found.follow_up is not None and found.follow_up.needs_approval:
                self.pending = found.follow_up
                return Reply(f"{found.text}\n\n{found.follow_up.message}\nWant me to go ahead?",
                             plan=found.follow_up, awaiting_approval=True)
            if found.follow_up is not None:
                return Reply(f"{found.text}\n\n{found.follow_up.message}", plan=plan)
            return Reply(found.text, plan=plan)
        if plan.needs_approval:
            self.pending, self.confirming, self.undo_waiting = plan, None, False
            return Reply(plan.message + "\nProceed? [y/N]", plan=plan, awaiting_approval=True)
        return Reply(plan.message, plan=plan)

    def set_verbosity(self, level: str) -> str:
        """Change how much reos says, for this session and (saved) for the next ones."""
        from reos.errors import ReosError
        from reos.settings import save_value

        self.voice.verbosity = level
        said = {"minimal": "Okay, keeping it short.",
                "detailed": "Got it, I'll explain more about what I'm doing.",
                "normal": "Okay, back to normal."}[level]
        try:
            save_value("conversation", "verbosity", level)
        except (OSError, ReosError) as exc:
            said += f" (I couldn't save that for next time: {exc})"
        return said

    def why(self, what: str) -> str:
        """Answer "why did you …?" from the audit trail, what reos learned here, and the
        journal (the words are read by reasoning/recall.py)."""
        from reos.reasoning import recall
        from reos.store.db import now

        if not paths.database_file().exists():
            return recall.why(what, [], [], [], now=now())
        return recall.why(what, self.traces.recent(200),
                          self.journal.transactions(limit=200, kind="action"),
                          self.knowledge.all(), now=now())

    def reasoning_of(self, trace_id: int | None = None) -> str:
        """The audit trail of one request in the design notes' shape (default: the latest
        that is not a chat word), for the chat's inspector."""
        from reos.reasoning.audit import render

        if not paths.database_file().exists():
            return "No reasoning kept yet: ask me for something first."
        record = self.traces.get(trace_id) if trace_id is not None else next(
            (t for t in self.traces.recent(50) if t.kind != "meta"), None)
        if record is None:
            return "No reasoning kept yet: ask me for something first."
        if not record.readable:
            return f"Trace #{record.id} (\u201c{record.request}\u201d): {record.problem}."
        return render(record.to_dict())

    def findings(self) -> list[str]:
        """What reflection found on this machine, one line each (evidence, what to do)."""
        from reos.reasoning.reflection import describe

        if not paths.database_file().exists():
            return []
        return describe(self.knowledge.current(include_cleared=True))

    def second_question(self, plan: Plan) -> str | None:
        """What a plan that loses something for good must ask on its own, after the
        approval, or None: steps with no undo at all always; with
        `require_approval_for_permanent` also steps whose undo is only a restored backup."""
        return conversation.lost_for_good(
            plan, backups_count=self.settings.safety.require_approval_for_permanent)

    def approve(self, on_event: EventSink = ignore) -> Reply:
        if self.undo_waiting and self.pending is None:
            return self.meta(Meta("undo"), on_event=on_event)
        plan = self.pending
        if plan is None:
            return Reply("There's nothing waiting for approval.")
        question = self.second_question(plan)
        if question and self.confirming is not plan:
            self.confirming = plan  # the next yes is the answer to this question
            return Reply(f"{question}\nSay yes again to go ahead, or no.", plan=plan,
                         awaiting_approval=True)
        self.pending = self.confirming = None
        report = self.execute(plan, on_event)
        from reos.execution.gates import summary

        return Reply(conversation.execution_summary(report, plan, summary(report)), plan=plan,
                     report=report)

    def decline(self) -> Reply:
        plan, self.pending, self.confirming = self.pending, None, None
        if self.undo_waiting:
            self.undo_waiting = False
            return Reply("Okay, I won't undo anything.")
        if plan is None:
            return Reply("Okay.")
        return Reply("Okay, I won't do that. Nothing was changed.")


def ignore_text(_text: str) -> None:
    """A `warn` that says nothing."""


def open_engine(context: Any = None, warn: Callable[[str], None] = ignore_text
                ) -> ReasoningEngine:
    """An engine for this machine (or for the snapshot file `context`), from the settings
    file; its problems, and problems with the user's template files (each skipped file,
    with its line and key), go to `warn` (stderr for commands, the chat for the TUI)."""
    from reos import settings as settings_module

    settings = settings_module.load()
    for text in settings.warnings:
        warn(text)
    snapshot = SystemSnapshot.load(context) if context else None
    engine = ReasoningEngine(settings, snapshot=snapshot)
    # Only the user's files can be broken (the test suite checks the built-in ones), so
    # without any, commands that never plan (undo, history) do not load templates at all.
    try:
        has_templates = any(paths.user_templates_dir().glob("*.toml"))
    except OSError:
        has_templates = False
    if has_templates:
        for problem in engine.templates.problems:
            warn(problem)
    return engine


def _meta_of(plan: Plan) -> Meta:
    intent = plan.intent
    return Meta(intent.action or "", intent.value) if intent else Meta("")
