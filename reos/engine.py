"""ReasoningEngine: the one entry point every surface (CLI, TUI, chat words) goes through.

Holds the session (pending plan, verbosity), routes a request through perception,
understanding, matching and planning, asks for approval, hands approved plans to the
executor and undo to the journal, and emits events for the UI. It gives the planner the
live machine (`planning.amend.Machine`) and applies the settings that decide routing
(`auto_assess`), the reasoning extras (`reasoning.enabled`, kept by reos/memory/keeping.py) and
confirmations (`always_confirm`, `require_approval_for_permanent`).
Not responsible for reading words (understanding), editing plans (the planner), running
commands itself (execution), or drawing anything. Heavy parts load on first use.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from reos import paths
from reos.execution import ignore
from reos.model.plan import Plan, Traced, step_words
from reos.model.request import Intent, Kind
from reos.outcome import Found, Outcome, Reply, outcome_of_plan, outcome_of_undo
from reos.session import Session
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.understanding.perception import Meta, keeps, perceive, split_plan_prefix
from reos.words import conversation
from reos.words.conversation import Voice

if TYPE_CHECKING:
    from typing import Any

    from reos.approving import ApproveFix, ConfirmResume
    from reos.catalogue.templates import TemplateSet
    from reos.execution.executor import Executor
    from reos.llm.session import ModelSession
    from reos.llm.turns import Turn
    from reos.memory.keeping import Memory
    from reos.model.events import EventSink
    from reos.model.report import ExecutionReport, UndoReport
    from reos.store.journal import Journal, TransactionRecord
    from reos.store.knowledge import Knowledge
    from reos.store.traces import Traces
    from reos.system.cache import SnapshotCache


CHAT = {  # small talk gets a word back, never a plan
    "thanks": "You're welcome.",
    "hello": "Hello. Tell me what to do or ask about this machine, in your own words; "
             "\u201chelp\u201d shows what I can do.",
}


def _manual_pages(text: str) -> list[Any]:
    """man-db's pages on a request's words (system/manual.py, imported when asked)."""
    from reos.system import manual

    return manual.related(text)


class ReasoningEngine:
    def __init__(self, settings: Settings, snapshot: SystemSnapshot | None = None,
                 journal: Journal | None = None):
        self.settings = settings
        self.voice = Voice(settings.conversation.verbosity, settings.conversation.show_commands,
                           explain=settings.reasoning.explain_steps
                           and settings.reasoning.enabled)
        self._fixed_snapshot = snapshot
        self._on_host = False  # planning for another machine (plan_on)
        self._cache: SnapshotCache | None = None
        self._journal = journal
        self._templates: TemplateSet | None = None
        self.session = Session()  # what waits for the person, and what runs
        self._matcher = None
        self._executor: Executor | None = None
        self._memory: Memory | None = None
        self._model: ModelSession | None = None
        self.hosts_problem: str | None = None  # why the inventory could not be read
        self.approve_fix: ApproveFix | None = None  # the surface's questions while
        self.confirm_resume: ConfirmResume | None = None  # a plan runs (approving.py)

    # -- the conversation's state (reos/session.py), read here by the surfaces --------
    @property
    def pending(self) -> Plan | None:
        """The plan waiting for approval."""
        return self.session.waiting

    @property
    def asking(self) -> Plan | None:
        """The clarify plan whose question is open."""
        return self.session.question

    @property
    def confirming(self) -> Plan | None:
        """The waiting plan, when its second question is open."""
        return self.session.confirming

    @property
    def undo_waiting(self) -> bool:
        return self.session.undo_waiting

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
            from reos.catalogue import templates

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
        from functools import partial

        from reos.execution.gates import refusal
        from reos.planning.planner import PlanBuilder
        from reos.understanding.matcher import TargetMatcher

        snapshot = self.snapshot()
        # the matcher's indexes cost milliseconds to build: keep them while the snapshot lives
        if self._matcher is None or self._matcher.snapshot is not snapshot:
            self._matcher = TargetMatcher(snapshot, self.templates.aliases)
        # only this machine can be asked what it would do (never a saved snapshot)
        builder = PlanBuilder(self.templates, snapshot, self.voice, self._matcher,
                              machine=self._machine() if self._fixed_snapshot is None else None)
        builder.assess = self.settings.reasoning.enabled
        builder.max_steps = self.settings.limits.max_operations
        builder.verify = self.settings.safety.verify_each_step
        # a question beside a change is answered after it here; on a host it waits
        builder.answers_after = not self._on_host
        builder.manual = _manual_pages  # when nothing fits: what this machine's manual has
        # what the pre-flight gate would refuse is said before approval
        builder.preflight = partial(refusal, max_operations=self.settings.limits.max_operations)
        return builder

    def _machine(self):  # noqa: ANN202 - planning.amend.Machine, imported lazily
        """The live machine as the planner may ask it: read-only probes through the gate,
        package simulations, and what reos learned here."""
        from reos.execution import packages, reads
        from reos.execution.recovery import REFRESH
        from reos.planning import cleanup
        from reos.planning.amend import Machine
        from reos.store.knowledge import signature

        manager = self.snapshot().host.get("package_manager")
        learned = paths.database_file().exists()
        return Machine(
            probe=lambda probes, request: reads.probe_all(probes, request, cleanup.TIMEOUT),
            simulate=lambda plan: packages.preview(plan, manager),
            signature=signature,
            proactive=lambda sig: self.knowledge.proactive(sig) if learned else [],
            flagged=lambda sig: self.knowledge.flagged(sig) if learned else None,
            fix_argv=lambda fix: REFRESH.get(manager or "") if fix == "refresh" else None,
            learning=self.settings.reasoning.enabled)

    def plan_on(self, snapshot: SystemSnapshot, text: str) -> Plan:
        """The plan for `text` against another machine's snapshot (a host's), as with a
        saved snapshot: the templates stay loaded, the indexes are built for it. The
        engine's own snapshot comes back afterwards, so the next request (in the chat) is
        planned for this machine again, never for the last host read."""
        before = self._fixed_snapshot
        self._fixed_snapshot, self._on_host = snapshot, True
        try:
            return self.plan(text)
        finally:
            self._fixed_snapshot, self._on_host = before, False

    def plan(self, text: str, on_event: EventSink = ignore) -> Plan:
        """The plan for one request; chat words ("undo", "help") come back as kind meta."""
        import time

        from reos.inputs import check_request
        from reos.model.events import Stage
        from reos.understanding import reading as understanding

        forced, request = split_plan_prefix(check_request(text))
        # auto_assess off: nothing is routed by itself; every request is shown as a plan
        forced = forced or not self.settings.reasoning.auto_assess
        meta = perceive(request)
        if meta is not None:
            return self._record_trace(Plan(text, Kind.META, intent=Intent(
                Kind.META, action=meta.action, value=meta.value)))
        request = self._as_this_machine(request)
        builder = self.builder()
        started = time.monotonic()
        intent = understanding.understand(request, self.templates, builder.matcher,
                                          remote=bool(os.environ.get("SSH_CONNECTION")))
        said = "I read it myself: " + understanding.reading(intent)
        trace = [Traced("understanding", said)]
        on_event(Stage("understanding", said, (time.monotonic() - started) * 1000))
        intent, notes = self.model.consult(
            request, intent, templates=self.templates, matcher=builder.matcher,
            snapshot=self.snapshot, learned=lambda: self.memory.learned(), trace=trace,
            emit=on_event,
            hint=understanding.reading(intent) if intent is not None and intent.kind in (
                Kind.QUERY, Kind.ACTION, Kind.COMBINED) else None)
        if intent is not None and intent.kind == Kind.META:
            return self._record_trace(Plan(text, Kind.META, intent=intent,
                                            source=intent.reading.source))
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
        plan.trace.append(Traced("judging risk", judged))
        on_event(Stage("judging risk", judged, (time.monotonic() - started) * 1000))
        for step in plan.steps:
            if step.why:
                plan.trace.append(Traced("planning", f"{step_words(step.id)}: {step.why}"))
        if plan.quality is not None:
            plan.trace.append(Traced("assessing quality", (
                f"score {plan.quality.get('score')} ({plan.quality.get('label')})")))
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

    def warm_model(self) -> str:
        """Load the model ahead of the first request (the chat calls this in the
        background), with the system message every request starts with read once;
        returns the state to show."""
        if not self.model.may_ask():
            return self.model.warm()
        from reos.llm.prompt import system_message

        return self.model.warm(system_message(self.templates))

    def choose(self, text: str) -> Plan | None:
        """The answer to an open question ("2", "demo-web", "the web one"), as the plan of
        the chosen option, or None when the words pick none of them (a new request)."""
        from reos.understanding.choice import pick

        asked = self.session.take_question()
        if asked is None or not asked.options:
            return None
        picked = pick(text, asked.options, self.templates.aliases)
        if picked is None:
            return None
        plan = self.builder().build(asked.request, picked)
        if plan.kind == Kind.CLARIFY:
            self.session.ask(plan)
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
        from reos.execution import reads
        from reos.words.answers.common import ANSWERS, TOLERANT

        assert plan.read_only, "only read-only plans are answered directly"
        if plan.blocked:  # nothing of a blocked plan runs, not even its read-only steps
            return Found(f"I won't run any of that: {plan.blocked_reason}.")
        if plan.parts:  # several questions: each answered in turn
            return Found("\n\n".join(self.run_query(part, on_event).text if part.steps
                                      else part.text() for part in plan.parts))
        if self.settings.reasoning.depth == "deep" and plan.intent and plan.targets and (
                plan.intent.operation in ("service.why_failed", "container.why_failed")):
            return Found(self._investigate(plan, on_event))
        results, stopped, refused = reads.read_steps(
            plan, tolerant=plan.summariser in TOLERANT)
        if stopped is not None:
            return Found(f"I didn't run {stopped.command}: {refused}." if refused else
                         conversation.query_failed(stopped, results[-1].stderr))
        params = dict(plan.intent.params) if plan.intent else {}
        params.update({f"target:{s.id}": s.target.name for s in plan.steps if s.target})
        params["self_pid"] = str(os.getpid())  # reos itself is not an answer to "what's busy"
        summarise = ANSWERS.get(plan.summariser or "")
        text = summarise(results, params, self.voice) if summarise else "\n".join(
            r.stdout for r in results).strip()
        follow_up = None
        if plan.intent and plan.intent.action == "speed_up_boot":
            from reos.diagnosis.boot import boot_plan

            follow_up = boot_plan(plan.request, results, self.builder())
        return Found(text, follow_up)

    def _investigate(self, plan: Plan, on_event: EventSink) -> str:
        """"Why did X fail?" at depth deep: evidence in up to 3 rounds of read-only probes,
        each through the gate, and an answer whose every claim cites its evidence line."""
        from reos.diagnosis import investigate
        from reos.execution import reads

        explain = None
        if self.model.may_ask():
            from reos.llm import diagnose

            def explain(target: Any, evidence: Any) -> Any:
                return diagnose.explain(target, evidence, self.settings)

        return investigate.run(plan, lambda argv: reads.probe(argv, plan.request),
                               self.snapshot(), explain, on_event).text

    # -- what reos keeps (reos/memory/keeping.py) -------------------------------------------
    @property
    def memory(self) -> Memory:
        if self._memory is None:
            from reos.memory.keeping import Memory

            self._memory = Memory(self.settings, lambda: self.journal)
        return self._memory

    @property
    def knowledge(self) -> Knowledge:
        return self.memory.knowledge

    @property
    def traces(self) -> Traces:
        return self.memory.traces

    def _record_trace(self, plan: Plan) -> Plan:
        return self.memory.record(plan, self.snapshot)

    def why(self, what: str) -> str:
        """Answer "why did you …?" (reos/memory/keeping.py)."""
        return self.memory.why(what)

    def reasoning_of(self, trace_id: int | None = None) -> str:
        return self.memory.reasoning_of(trace_id)

    def findings(self) -> list[str]:
        return self.memory.findings()

    def execute(self, plan: Plan, on_event: EventSink = ignore,
                approve: Callable[[str], bool] | None = None) -> ExecutionReport:
        from reos.execution.executor import Checks, Executor, Hooks
        from reos.llm.recovery import fixer
        from reos.model.events import Said
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
        self._executor = executor
        self.session.run(plan)
        report = None
        try:
            report = executor.execute(plan)
            self.memory.outcome(plan, report)
            return report
        finally:
            if report is None or not report.resumable:
                self.session.done()  # a pause keeps the plan for resume
            self.forget_snapshot()

    def resume(self, report: ExecutionReport) -> ExecutionReport:
        """Continue a paused execution (`report.resumable`: the operations breaker or a
        pause for review), because the person chose to."""
        running = self.session.running
        if self._executor is None or running is None:
            return report
        resumed = None
        try:
            resumed = self._executor.resume(report)
            self.memory.outcome(running, resumed)
            return resumed
        finally:
            if resumed is None or not resumed.resumable:
                self.session.done()
            self.forget_snapshot()

    def undo(self) -> UndoReport:
        from reos.execution.undo import undo_latest

        self.memory.last_tx = None  # the undo is now the last change: the journal's newest
        try:
            return undo_latest(self.journal)
        finally:
            self.forget_snapshot()

    def newer_fleet_change(self) -> TransactionRecord | None:
        """The newest change made on other machines (`reos plan --hosts`) that undo can
        revert, when it is newer than every change here that can be undone; else None."""
        from reos.store.journal import FLEET

        fleet = next((tx for tx in self.journal.transactions(limit=20, kind=FLEET)
                      if tx.revertible), None)
        here = self.journal.undoable(limit=1)
        return fleet if fleet is not None and (not here or here[0].id < fleet.id) else None

    def ask_undo(self, tx_id: int) -> None:
        """A surface showed the undo of transaction `tx_id` (the history panel's `u`): it
        waits for a yes like any undo, and `approve` undoes exactly it (or says it is no
        longer the newest change), `decline` leaves it."""
        if self.session.waiting is not None:
            self.session.decline()
        self.session.wait_for_undo(tx_id)

    def history(self, limit: int = 20) -> list[TransactionRecord]:
        return self.journal.transactions(limit=limit)

    def undo_list_text(self, now_iso: str) -> str:
        return conversation.undo_list(self.journal.undoable(limit=10), now_iso)

    # -- chat ------------------------------------------------------------------------
    def respond(self, text: str, on_event: EventSink = ignore) -> Reply:
        """One chat utterance in, one reply out (approval is a later utterance)."""
        from reos.inputs import check_request

        said = check_request(text)
        if self.asking is not None:
            chosen = self.choose(said)
            if chosen is not None:
                return self.offer(chosen, on_event)
        if self.pending is not None:  # "only the redis one", "not nginx": revise the plan
            from reos.understanding.followup import follow_up

            revised = follow_up(self.pending, said, self.builder())
            if revised is not None:
                return self.offer(self._record_trace(revised), on_event)
        self.hosts_problem = None
        on_hosts = self.hosts_named(said)
        if on_hosts is not None:
            return self.offer_hosts(on_hosts, on_event)
        if self.hosts_problem:
            from reos.model.events import Notice
            from reos.understanding.host_words import says_here

            if not says_here(said):  # its words may name hosts: never done here instead
                return Reply(f"{self.hosts_problem.rstrip('.')}, and the request may name "
                             "its hosts, so I did nothing. Fix the inventory, or say "
                             "“… on this machine” to do it here.", Outcome.SAID)
            on_event(Notice(f"{self.hosts_problem.rstrip('.')}; so this is taken as a "
                            "request for this machine."))
        plan = self.plan(said, on_event)
        if plan.kind == Kind.META:
            return self.meta(_meta_of(plan, said), on_event=on_event)
        return self.offer(plan, on_event)

    def _as_this_machine(self, request: str) -> str:
        """The request with this machine's own name said as "this machine"
        (understanding/this_machine.py); the snapshot is read only when the name is in
        it."""
        from reos.errors import ReosError
        from reos.understanding.this_machine import as_this_machine

        def taken() -> frozenset[str] | None:
            from reos.on_hosts import names_here

            return names_here(self.snapshot())

        def words() -> set[str]:
            from reos.catalogue.lexicon import lexicon

            return lexicon(self.templates).tables().known

        try:
            return as_this_machine(request, self.snapshot().host.get("hostname"), taken,
                                   words)
        except (ReosError, OSError):  # no snapshot: the words stay as said
            return request

    # -- other machines: reos/on_hosts.py holds the flow --------------------------------
    def hosts_named(self, text: str) -> Any:
        """The inventory and what `text` names in it, or None (see on_hosts.reading_for);
        an engine planning against a given snapshot reads hosts only with an inventory in
        its settings."""
        if self._fixed_snapshot is not None and not self.settings.fleet.inventory:
            return None
        from reos.errors import ReosError, plainly
        from reos.on_hosts import names_here, reading_for

        def here() -> frozenset[str] | None:
            try:
                return names_here(self.snapshot())
            except (ReosError, OSError):  # not known: a name said alone stays asked
                return None

        try:
            return reading_for(self.settings, text, here=here)
        except (ReosError, OSError) as exc:  # the inventory cannot be read: this machine's
            self.hosts_problem = plainly(exc, "Reading the Ansible inventory")
            return None

    def offer_hosts(self, found: Any, on_event: EventSink = ignore) -> Reply:
        from reos import on_hosts

        return on_hosts.offer(self, found, on_event)

    def approve_hosts(self, hosts: Any, on_event: EventSink = ignore) -> Reply:
        from reos import on_hosts

        return on_hosts.approve(self, hosts, on_event)

    def run_hosts(self, hosts: Any, on_event: EventSink = ignore, *, shown: str = "") -> Reply:
        from reos import on_hosts

        return on_hosts.run(self, hosts, on_event, shown=shown)

    def meta(self, meta: Meta, *, perform: bool = True, on_event: EventSink = ignore) -> Reply:
        """A meta utterance ("undo", "what can you undo?", "be brief", "why did you …?",
        yes / no). `perform=False` only says what it would do and changes nothing."""
        from reos.execution.undo import describe
        from reos.store.db import now

        if meta.action == "undo":
            if not perform:
                return Reply(self.undo_preview(), Outcome.SAID)
            if self.session.waiting is not None:
                self.session.decline()  # "undo" instead of the waiting plan
            newest = self.journal.undoable(limit=1)
            if self.settings.reasoning.always_confirm and not self.undo_waiting and newest:
                # every change asks, an undo too (with nothing to undo, the undo says so)
                self.session.wait_for_undo(newest[0].id)
                return Reply(self.undo_preview(), Outcome.NEEDS_APPROVAL)  # the surface asks
            fleet = self.newer_fleet_change()
            if fleet is not None:  # never an older change here behind the person's back
                return Reply(f"The newest change ({fleet.request!r}) was made on other "
                             f"machines ({', '.join(fleet.hosts)}): `reos undo` undoes it "
                             "there. Nothing was undone here.", Outcome.SAID)
            shown = self.session.undo_shown
            self.session.undo_answered()
            if shown is not None and (not newest or newest[0].id != shown):
                return Reply("The newest change that can be undone is no longer the one I "
                             "showed, so nothing was undone. Say undo again to see it.",
                             Outcome.SAID)
            undone = self.undo()
            return Reply(describe(undone), outcome_of_undo(undone), undone=undone)
        if meta.action == "list_undo":
            return Reply(self.undo_list_text(now()), Outcome.SAID)
        if meta.action == "yes":
            return self.approve(on_event) if perform else Reply(
                "I'd run the plan waiting for approval." if self.pending else
                "There's nothing waiting for approval.", Outcome.SAID)
        if meta.action == "no":
            return self.decline() if perform else Reply("Okay.", Outcome.SAID)
        if meta.action == "verbosity" and meta.value:
            if not perform:
                return Reply(f"I'd switch to {meta.value} replies (nothing changed).",
                             Outcome.SAID)
            return Reply(self.set_verbosity(meta.value, keep=meta.keep), Outcome.SAID)
        if meta.action == "why" and meta.value:
            return Reply(self.why(meta.value), Outcome.SAID)
        if meta.action == "help":
            from reos.words.replies import tour

            return Reply(tour(list(self.templates.operations.values()), self.voice.brief),
                         Outcome.SAID)
        if meta.action == "chat":
            return Reply(CHAT.get(meta.value or "", "Okay."), Outcome.SAID)
        return Reply("Okay.", Outcome.SAID)

    def meta_plan(self, text: str, *, perform: bool) -> tuple[Plan, Reply] | None:
        """A meta utterance as a `kind: meta` plan for `reos plan` (None: not meta)."""
        plan = self.plan(text)
        if plan.kind != Kind.META:
            return None
        return plan, self.meta_reply(plan, perform=perform)

    def meta_reply(self, plan: Plan, *, perform: bool) -> Reply:
        """Do (or with `perform=False` only describe) what a kind-meta plan asks for."""
        reply = self.meta(_meta_of(plan, plan.request), perform=perform)
        plan.said = [reply.text]  # what it came to is what the plan says
        return reply

    def undo_preview(self) -> str:
        """What `undo` would revert and run, without running anything."""
        return conversation.undo_preview(self.journal.undoable(limit=1))

    def offer(self, plan: Plan, on_event: EventSink = ignore) -> Reply:
        """Answer a query at once; hold an action for approval; say anything else. Every
        surface (the chat, `reos plan`) hands a plan over here, so each decides alike what
        runs unasked and what waits: a query's follow-up that changes things waits too."""
        if plan.kind == Kind.CLARIFY:
            self.session.ask(plan)
        if plan.steps and plan.read_only and not plan.needs_approval and not plan.blocked:
            found = self.run_query(plan, on_event)
            if found.follow_up is not None and found.follow_up.needs_approval:
                self.session.offer(found.follow_up)
                return Reply(f"{found.text}\n\n{found.follow_up.text()}\nWant me to go ahead?",
                             Outcome.NEEDS_APPROVAL, plan=found.follow_up, first=found.text)
            if found.follow_up is not None:
                return Reply(f"{found.text}\n\n{found.follow_up.text()}", Outcome.ANSWERED,
                             plan=plan)
            return Reply(found.text, Outcome.ANSWERED, plan=plan)
        if plan.needs_approval:
            self.session.offer(plan)
            return Reply(plan.text(), Outcome.NEEDS_APPROVAL, plan=plan)  # the surface asks
        return Reply(plan.text(), outcome_of_plan(plan), plan=plan)

    def set_verbosity(self, level: str, *, keep: bool = False) -> str:
        """Change how much reos says for this session; with `keep` (the person asked to
        keep it: "always be brief") also in the settings file, for the next ones."""
        from reos.errors import ReosError, plainly
        from reos.settings import save_value

        self.voice.verbosity = level
        said = {"minimal": "Okay, keeping it short", "detailed": "Okay, explaining more",
                "normal": "Okay, back to normal"}[level]
        still = " (plans still show their commands)" if level == "minimal" else ""
        if not keep:
            return (f"{said} for this session{still}. Say \u201calways {_SAYING[level]}"
                    "\u201d to keep it.")
        try:
            where = save_value("conversation", "verbosity", level)
        except (OSError, ReosError) as exc:
            failed = plainly(exc, "Saving it for next time").rstrip(".")
            return f"{said} for this session; {failed[:1].lower()}{failed[1:]}."
        return f"{said} from now on (saved as verbosity = \"{level}\" in {where})."

    def second_question(self, plan: Plan) -> str | None:
        """What a plan that loses something for good must ask on its own, after the
        approval, or None: steps with no undo at all always; with
        `require_approval_for_permanent` also steps whose undo is only a restored backup."""
        return conversation.lost_for_good(
            plan, backups_count=self.settings.safety.require_approval_for_permanent)

    def approve(self, on_event: EventSink = ignore, approve_fix: ApproveFix | None = None,
                confirm_resume: ConfirmResume | None = None) -> Reply:
        """Yes to what waits: reos/approving.py runs it, asking what the surface asks."""
        from reos.approving import approve

        return approve(self, on_event, approve_fix, confirm_resume)

    def decline(self) -> Reply:
        plan, undo = self.session.decline()
        if undo:
            return Reply("Okay, I won't undo anything.", Outcome.DECLINED)
        if plan is None:
            return Reply("Okay.", Outcome.SAID)
        return Reply("Okay, I won't do that. Nothing was changed.", Outcome.DECLINED)


# how each verbosity is asked for, to tell how to keep it
_SAYING = {"minimal": "be brief", "detailed": "be detailed", "normal": "normal verbosity"}


def _meta_of(plan: Plan, said: str) -> Meta:
    intent = plan.intent
    if intent is None:
        return Meta("")
    return Meta(intent.action or "", intent.value, keep=intent.action == "verbosity"
                and keeps(said))
