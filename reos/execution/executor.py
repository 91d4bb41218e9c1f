"""The executor: runs an approved plan step by step under the journal and the limits.

For each step: check the circuit breakers, read the target's prior state, write the
journal row (with the undo computed from that prior state) *before* running, run the
argv, complete the row. The first failure stops the plan; what completed stays undoable.
Limits come from settings when execution starts; nothing in a plan can change them.
When the classifier gives up on an error, an optional `model_fix` callback may propose
one fix step; it is said first and enters like any other fix (checkpoint, limits,
scope drift, approval; no approval callback, no fix).

Not responsible for approval (the engine asks through a callback before calling this)
or for understanding the request.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from reos.errors import EXIT_BLOCKED, ReosError
from reos.execution import ignore, packages
from reos.execution.classifier import UNKNOWN, Diagnosis, classify
from reos.execution.events import (
    EventSink,
    Notice,
    Said,
    StepFinished,
    StepOutput,
    StepStarted,
)
from reos.execution.recovery import MAX_PER_CATEGORY, MAX_RECOVERIES, Fix, propose
from reos.execution.runner import run_argv
from reos.model import Plan, Step, StepResult
from reos.safety.backups import BackupStore, files_changed
from reos.settings import LimitsSettings
from reos.store.journal import COMPLETED, FAILED, ROLLED_BACK, Journal
from reos.store.knowledge import Knowledge
from reos.system.state import (
    ACTIVE_STATES,
    RUNNING_STATES,
    current_state,
    intended_state_problem,
    restore_argv,
    settle_argv,
)

STEP_TIMEOUT = 120.0

Probe = Callable[[str, str], dict[str, Any] | None]
# asked for one fix step when the classifier gives up (reos.llm.recovery.fixer)
ModelFix = Callable[[Step, StepResult, Diagnosis], Fix | None]


class LimitReached(ReosError):
    """A circuit breaker tripped: execution stops and control returns to the person."""


@dataclass
class ExecutionReport:
    tx_id: int | None
    completed: list[Step] = field(default_factory=list)
    results: list[StepResult] = field(default_factory=list)
    failed: Step | None = None
    pending: list[Step] = field(default_factory=list)
    stopped_reason: str | None = None  # a circuit breaker that tripped
    seconds: float = 0.0
    escalations: int = 0  # steps that ran through sudo
    started: float = 0.0  # monotonic time the execution began (limits span a resume)
    recoveries: list[str] = field(default_factory=list)  # fixes that worked, in words
    verified: int = 0  # steps whose intended state was checked for real
    unchecked: list[Step] = field(default_factory=list)  # state could not be read after
    rolled_back: Any = None  # the UndoReport when completed steps were rolled back
    learned: list[str] = field(default_factory=list)  # new reflection findings

    @property
    def ok(self) -> bool:
        return self.failed is None and self.stopped_reason is None and not self.pending


# how long a kind of change may take to show after its command returned
_SETTLE_SECONDS = {"process": 3.0}


class Executor:
    def __init__(
        self,
        journal: Journal,
        limits: LimitsSettings,
        on_event: EventSink = ignore,
        run: Callable[..., StepResult] = run_argv,
        probe: Probe = current_state,
        backups: BackupStore | None = None,
        *,
        knowledge: Knowledge | None = None,
        approve: Callable[[str], bool] | None = None,
        verify: bool = False,
        rollback_on_failure: bool = False,
        is_root: bool | None = None,
        model_fix: ModelFix | None = None,
    ):
        self.journal = journal
        self.backups = backups
        self.knowledge = knowledge
        self.approve = approve  # asked before a recovery installs something new
        self.model_fix = model_fix  # a model's one fix for an error the classifier gave up on
        self.verify = verify
        self.rollback_on_failure = rollback_on_failure
        self.is_root = os.geteuid() == 0 if is_root is None else is_root
        self.request = ""
        self._seq = 0
        self._per_category: dict[str, int] = {}
        # copied when execution starts: nothing a plan, a template, recovery or an LLM
        # does afterwards can lift them (only the person, in settings.toml)
        self.max_operations = limits.max_operations
        self.max_seconds = float(limits.max_seconds)
        self.max_escalations = limits.max_privilege_escalations
        self.max_injected = limits.max_injected_steps
        self.checkpoint_after = limits.human_checkpoint_after_recoveries
        self.injected = 0
        self.escalations_added = 0
        self.recoveries = 0
        self.on_event = on_event
        self.run = run
        self.probe = probe

    def execute(self, plan: Plan) -> ExecutionReport:
        if plan.blocked:
            raise ReosError(f"This plan is blocked: {plan.blocked_reason}.",
                            "reos never runs a blocked plan.", exit_code=EXIT_BLOCKED)
        changed = self._changed_conditions(plan)
        if changed:
            report = ExecutionReport(tx_id=None, pending=list(plan.steps))
            report.stopped_reason = f"the condition no longer holds ({changed}); nothing was run"
            self.on_event(Notice(f"Not run: {changed}, so the condition no longer holds."))
            return report
        tx_id = self.journal.begin(plan.request)
        self.request = plan.request
        report = ExecutionReport(tx_id=tx_id, started=time.monotonic())
        report = self._run(plan.steps, report, first_seq=0)
        if self.knowledge is not None:
            self.knowledge.record_template(plan.intent.template if plan.intent else None,
                                           report.ok)
            report.learned = self.knowledge.reflect()
            for finding in report.learned:
                self.on_event(Said(f"I noticed: {finding}"))
        return report

    def resume(self, report: ExecutionReport) -> ExecutionReport:
        """Continue a paused execution: the person's explicit choice, which resets only the
        operation counter (time, escalations and injected steps keep counting)."""
        if report.tx_id is None or not report.pending or report.failed is not None:
            return report
        pending, report.pending, report.stopped_reason = report.pending, [], None
        self.journal.set_status(report.tx_id, "running")
        return self._run(pending, report, first_seq=len(report.completed), ops_base=len(
            report.completed))

    def _run(self, steps: list[Step], report: ExecutionReport, first_seq: int,
             ops_base: int = 0) -> ExecutionReport:
        assert report.tx_id is not None
        for n, step in enumerate(steps):
            seq = first_seq + n
            elapsed = time.monotonic() - report.started
            reason = self._limit_reached(seq - ops_base, elapsed)
            if reason:
                report.stopped_reason = reason
                report.pending = steps[n:]
                self.on_event(Notice(f"\u26a0\ufe0f Execution paused: {reason}"))
                break
            result = self._run_step(report.tx_id, seq, step, self.max_seconds - elapsed)
            if step.argv[:1] == ["sudo"]:
                report.escalations += 1
            if not result.ok and not result.blocked:
                result = self._recover(report, step, result)
            if result.ok and self.verify and not step.read_only:
                result = self._verified(step, result, report)
            report.results.append(result)
            if not result.ok:
                report.failed = step
                report.pending = steps[n + 1:]
                break
            report.completed.append(step)
        if report.failed is not None and report.stopped_reason is None and \
                self.rollback_on_failure and report.completed:
            self._roll_back(report)
        report.seconds = time.monotonic() - report.started
        status = COMPLETED if report.ok else FAILED
        if report.rolled_back is not None and report.rolled_back.ok:
            status = ROLLED_BACK
        self.journal.finish(report.tx_id, status, _summary(report))
        return report

    # -- recovery -------------------------------------------------------------------------
    def _recover(self, report: ExecutionReport, step: Step, result: StepResult) -> StepResult:
        """Diagnose, apply a bounded fix, retry only the failed step; or stop and explain."""
        assert report.tx_id is not None
        diagnosis = classify(result.exit_code, result.stdout, result.stderr)
        self._say(f"\u2717 Error: {diagnosis.evidence}")
        asked_model = False  # at most one model fix per failed step
        while True:
            self._say(f"\u2192 Diagnosed: {diagnosis.cause} ({diagnosis.words})")
            self._learn(step.argv, False, diagnosis.category,
                        timed_out="timeout" in diagnosis.details)
            attempt = self._per_category.get(diagnosis.category, 0)
            if self.recoveries >= MAX_RECOVERIES or attempt >= MAX_PER_CATEGORY:
                self._say("\u2192 That's as many automatic fixes as I'll try; over to you.")
                return result
            fix = propose(diagnosis, step, manager=_manager(), is_root=self.is_root,
                          attempt=attempt)
            if fix.kind == "ask" and diagnosis.category == UNKNOWN and not asked_model and \
                    self.model_fix is not None:
                asked_model = True
                fix = self._model_fix(step, result, diagnosis) or fix
            if fix.kind == "ask":
                self._say(f"\u2192 {fix.explanation}")
                return result
            if fix.kind == "done":
                self._say(f"\u2192 {fix.explanation}")
                return StepResult(step.id, True, result.exit_code, result.stdout,
                                  result.stderr, result.seconds, skipped_reason=diagnosis.cause)
            try:
                self.checkpoint()
                for extra in fix.steps:
                    self.admit(extra, self.request, escalates=extra.argv[:1] == ["sudo"])
                if fix.escalates:
                    self.admit(replace(step, argv=fix.retry or step.argv), self.request,
                               escalates=True)
            except LimitReached as exc:
                self._say(f"\u26a0\ufe0f {exc.message}")
                report.stopped_reason = exc.message
                return result
            if fix.needs_approval and not (self.approve and self.approve(fix.explanation)):
                self._say("\u2192 Not without your approval: " + fix.explanation.rstrip("\u2026")
                          + ". Ask me to do that first, then try again.")
                return result
            self._say(f"\u2192 Trying fix: {fix.explanation}")
            self._per_category[diagnosis.category] = attempt + 1
            self.recoveries += 1
            for extra in fix.steps:
                done = self._run_step(report.tx_id, self._seq, extra, self._budget(report))
                report.escalations += int(extra.argv[:1] == ["sudo"])
                self._say(("\u2713 " if done.ok else "\u2717 ") + extra.title)
                if not done.ok:
                    return result
            if fix.wait:
                time.sleep(fix.wait)
            retry = replace(step, argv=fix.retry or step.argv)
            self._say(f"\u2192 Retrying: {step.title}\u2026")
            result = self._run_step(report.tx_id, self._seq, retry, self._budget(report))
            if result.blocked:
                return result
            report.escalations += int(fix.escalates)
            if result.ok:
                report.recoveries.append(fix.explanation.rstrip("\u2026"))
                self._learn(step.argv, True, fix=fix.kind)
                return result
            diagnosis = classify(result.exit_code, result.stdout, result.stderr)
            self._say(f"\u2717 Error: {diagnosis.evidence}")

    def _model_fix(self, step: Step, result: StepResult, diagnosis: Diagnosis) -> Fix | None:
        """The model's fix, said before anything else happens to it; None: there is none.

        It is only a proposal: the caller lets it in through the same door as every other
        fix (checkpoint, admit, approval) and the gate judges its step again before it runs."""
        assert self.model_fix is not None
        try:
            fix = self.model_fix(step, result, diagnosis)
        except Exception as exc:  # noqa: BLE001 - a broken suggestion never breaks a run
            self.on_event(Notice(f"The model couldn't be asked for a fix ({type(exc).__name__})."))
            return None
        if fix is None or not fix.steps:
            return None
        commands = "; ".join(f"`{extra.command}`" for extra in fix.steps)
        self._say(f"\u2192 The model suggests: {commands}" + (f" \u2014 {fix.why}" if fix.why
                                                               else ""))
        fix.needs_approval = True  # whatever the callback said: a person sees it first
        return fix

    def _verified(self, step: Step, result: StepResult, report: ExecutionReport) -> StepResult:
        """Check the intended state for real; a mismatch turns the step into a failure."""
        target = step.target
        if target is None:
            return result
        state = self.probe(target.kind, target.name)
        unreadable = _unreadable(target.kind, step.action, state)
        if unreadable:  # never "goal reached" on a state that could not be read
            report.unchecked.append(step)
            self._say(f"? Couldn't check {target.name}: {unreadable}.")
            return result
        assert state is not None
        problem = intended_state_problem(target.kind, step.action, state)
        # a signal is delivered, not obeyed at once: a process gets a moment to end
        deadline = time.monotonic() + _SETTLE_SECONDS.get(target.kind, 0.0)
        while problem is not None and time.monotonic() < deadline:
            time.sleep(0.1)
            state = self.probe(target.kind, target.name)
            if state is None or _unreadable(target.kind, step.action, state):
                break
            problem = intended_state_problem(target.kind, step.action, state)
        if problem is None:
            report.verified += 1
            self._learn(step.argv, True)
            return result
        self._say(f"\u2717 Verification failed: {target.name} {problem}")
        self._learn(step.argv, False, "verification")
        return StepResult(step.id, False, result.exit_code, result.stdout,
                          f"verification failed: {target.name} {problem}", result.seconds)

    def _roll_back(self, report: ExecutionReport) -> None:
        from reos.execution.undo import undo_transaction

        assert report.tx_id is not None
        self._say("Recovery didn't work, so I'm rolling back what I did, newest first\u2026")
        report.rolled_back = undo_transaction(self.journal, report.tx_id, self.run)

    def _budget(self, report: ExecutionReport) -> float:
        return self.max_seconds - (time.monotonic() - report.started)

    def _learn(self, argv: list[str], ok: bool, category: str | None = None,
               fix: str | None = None, timed_out: bool = False) -> None:
        if self.knowledge is not None:
            self.knowledge.record(argv, ok, category, fix, timed_out)

    def _say(self, text: str) -> None:
        self.on_event(Said(text))

    def checkpoint(self) -> None:
        """The human checkpoint: after N recoveries a person reviews before the next."""
        if self.recoveries >= self.checkpoint_after:
            raise LimitReached(f"{self.recoveries} recoveries so far: a person should review "
                               "before more automatic fixes")

    def admit(self, step: Step, request: str, *, escalates: bool = False) -> None:
        """Let a step added during execution (a recovery fix) in, or raise LimitReached.

        Enforces the injected-steps and privilege-escalation breakers, the human
        checkpoint after N recoveries, and scope drift. Nothing can raise these limits.
        """
        from reos.safety.scope import drift

        why = drift(step.argv, request)
        if why:
            self.on_event(Notice(f"\u26d4 BLOCKED: {why}"))
            raise LimitReached(f"\u26d4 BLOCKED: {why}",
                               "Execution paused for your review; nothing more was run.")
        if self.injected >= self.max_injected:
            raise LimitReached(f"maximum injected steps reached ({self.injected}/"
                               f"{self.max_injected})")
        if escalates and self.escalations_added >= self.max_escalations:
            raise LimitReached(f"maximum privilege escalations reached "
                               f"({self.escalations_added}/{self.max_escalations})")
        self.checkpoint()
        self.injected += 1
        self.escalations_added += int(escalates)

    def _changed_conditions(self, plan: Plan) -> str | None:
        """Re-check a conditional plan's targets just before acting on them."""
        for target, must_run in plan.preconditions:
            state = self.probe(target.kind, target.name) or {}
            now = state.get("active") if target.kind == "service" else state.get("state")
            running = now in (ACTIVE_STATES if target.kind == "service" else RUNNING_STATES)
            if running != must_run:
                return f"{target.name} is {'no longer' if must_run else 'now'} running"
        return None

    def _limit_reached(self, done: int, elapsed: float) -> str | None:
        if done >= self.max_operations:
            return f"maximum operations reached ({done}/{self.max_operations})"
        if elapsed >= self.max_seconds:
            return f"maximum time reached ({elapsed:.0f}s of {self.max_seconds:.0f}s)"
        return None

    def _refused(self, tx_id: int, seq: int, step: Step) -> StepResult | None:
        """The one gate, right before the step runs: a blocked step is journaled, never run.

        Every step passes here (plan, template, recovery and retried steps), whatever the
        plan, template or model claimed about it. The plan was approved, so a mutating
        step is allowed unless the risk engine blocks it."""
        from reos.safety.gate import admit_argv
        from reos.safety.risk import formats_for

        admission = admit_argv(step.argv, approved=True, requested=self.request,
                               formats=formats_for(step.action, step.target))
        if admission.allowed:
            return None
        why = f"blocked by the safety check: {admission.reason}"
        row = self.journal.begin_step(tx_id, seq, step.id, step.title, step.argv,
                                      action=step.action, reversible=False)
        self.journal.finish_step(row, "blocked", None, why)
        self.on_event(Notice(f"\u26d4 Not run: {step.command} \u2014 {why}."))
        return StepResult(step.id, False, None, "", why, 0.0, blocked=True)

    def _run_step(self, tx_id: int, seq: int, step: Step, budget: float) -> StepResult:
        seq = max(seq, self._seq)  # journal order follows what really ran (fixes, retries)
        self._seq = seq + 1
        refused = self._refused(tx_id, seq, step)
        if refused is not None:
            return refused
        target = step.target
        prior = None
        rollback = None
        if target is not None and not step.read_only:
            prior = self.probe(target.kind, target.name)
            rollback = restore_argv(target.kind, target.name, prior, step.action,
                                    _manager()) if step.reversible else None
            if rollback and step.needs_root:
                rollback = ["sudo", "-n", *rollback]
        row = self.journal.begin_step(
            tx_id, seq, step.id, step.title, step.argv, action=step.action,
            target_kind=target.kind if target else None,
            target_name=target.name if target else None,
            prior_state=prior, rollback=rollback, reversible=step.reversible,
        )
        if self.backups is not None and not step.read_only:
            self._back_up(tx_id, seq, row, step)
        watched = packages.before_step(step)
        self.on_event(StepStarted(step))
        result = self.run(
            step.argv, timeout=max(1.0, min(STEP_TIMEOUT, budget)), step_id=step.id,
            on_line=lambda stream, line: self.on_event(StepOutput(step, line, stream)),
        )
        output = (result.stdout + result.stderr).strip()
        if watched is not None:
            change = packages.after_step(step, prior, watched, _manager())
            if change is not None:
                self.journal.set_undo(row, *change)
        if target is not None and result.ok and step.reversible and not step.read_only:
            settled = settle_argv(target.kind, target.name, prior, step.action)
            if settled:  # an undo that needs what the step created
                self.journal.set_undo(row, prior, ["sudo", "-n", *settled]
                                      if step.needs_root else settled)
        self.journal.finish_step(row, "done" if result.ok else "failed", result.exit_code,
                                 output)
        self.on_event(StepFinished(step, result))
        return result

    def _back_up(self, tx_id: int, seq: int, row: int, step: Step) -> None:
        """Copy every file the step will change, before it runs, into the journal."""
        assert self.backups is not None
        for path in files_changed(step.argv):
            try:
                saved = self.backups.save(path, f"tx{tx_id}-{seq + 1}")
            except OSError as exc:
                self.on_event(Notice(f"Couldn't back up {path} ({exc.strerror}); "
                                     "undo won't be able to restore it."))
                continue
            if saved is None:
                self.on_event(Notice(f"{path} is not a regular file or is too big to back "
                                     "up; undo won't be able to restore it."))
                continue
            self.journal.add_backup(row, saved.to_dict())


_STATE_KEYS: dict[str, tuple[str, ...]] = {
    "container": ("state",), "service": ("active",), "package": ("state",),
    "mount": ("state",), "device": ("state",)}
_BOOT_ACTIONS = {"enable", "disable", "enable_now", "disable_now", "mask", "unmask"}


def _unreadable(kind: str, action: str | None, state: dict[str, Any] | None) -> str | None:
    """Why a probed state cannot show whether a step reached its goal, or None."""
    if not isinstance(state, dict):
        return "its state could not be read"
    keys = _STATE_KEYS.get(kind, ())
    if kind == "service" and action in _BOOT_ACTIONS:
        keys = ("active", "enabled") if action.endswith("_now") else ("enabled",)
    for key in keys:
        value = state.get(key)
        if not isinstance(value, str) or value in ("", "unknown"):
            reason = state.get("reason")
            return f"its {key} state is unknown" + (
                f" ({reason})" if isinstance(reason, str) and reason else "")
    return None


def _manager() -> str | None:
    from reos.system.collectors import package_manager

    return package_manager()


def _summary(report: ExecutionReport) -> str:
    titles = [s.title for s in report.completed]
    text = "; ".join(titles) if titles else "nothing completed"
    if report.failed:
        text += f"; failed: {report.failed.title}"
    if report.stopped_reason:
        text += f"; paused: {report.stopped_reason}"
    return text
