"""The executor: runs an approved plan step by step under the journal and the limits.

Before anything: the pre-flight gates (reos.execution.gates); a failing one runs
nothing and writes no journal row. For each step: check the circuit breakers
(reos.safety.limits), read the target's prior state, write the journal row (with the
undo computed from that prior state) *before* running, run the argv, complete the row,
then the mid-flight gate (a warning that asks a person to look pauses the plan). The
first failure stops the plan; what completed stays undoable; the post-flight gates run
when it ends. Every gate's verdict is on the report.
Limits are copied from settings when execution starts; nothing in a plan can change them.
A failed step goes to recovery (reos.execution.recovering: diagnose, one bounded fix,
retry); when the classifier gives up on an error, an optional `model_fix` hook may
propose one fix step; it is said first and enters like any other fix (checkpoint,
limits, scope drift, approval; no approval hook, no fix).

Not responsible for approval (the engine asks through a hook before calling this), for
understanding the request, for the recovery loop (reos.execution.recovering), or for
the limits' and gates' rules (safety.limits, gates).
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Callable
from typing import Any

from msgspec import Struct

from reos.errors import EXIT_BLOCKED, ReosError
from reos.execution import gates, ignore, packages
from reos.execution.classifier import Diagnosis
from reos.execution.recovering import recover
from reos.execution.recovery import Fix
from reos.execution.runner import run_argv
from reos.model.events import (
    EventSink,
    Notice,
    Said,
    StepFinished,
    StepOutput,
    StepStarted,
)
from reos.model.plan import RESTARTS, Plan, Step, restarts
from reos.model.report import ExecutionReport, StepResult, StopReason
from reos.safety.backups import BackupStore, files_changed
from reos.safety.limits import Breakers, LimitReached
from reos.safety.scope import Scope
from reos.settings import LimitsSettings
from reos.store.journal import COMPLETED, FAILED, ROLLED_BACK, Journal
from reos.store.knowledge import Knowledge
from reos.system.privilege import as_root
from reos.system.state import (
    ACTIVE_STATES,
    RUNNING_STATES,
    current_state,
    intended_state_problem,
    restore_argv,
    settle_argv,
)
from reos.system.state_users import changed_group

__all__ = ["Checks", "Executor", "Hooks", "Machine"]

STEP_TIMEOUT = 120.0

Probe = Callable[[str, str], dict[str, Any] | None]
# asked for one fix step when the classifier gives up (reos.llm.recovery.fixer)
ModelFix = Callable[[Step, StepResult, Diagnosis], Fix | None]


class Hooks(Struct):
    """How the executor reaches the person and the model: events out, a question to a
    person before a recovery installs something new, a model's one fix for an error the
    classifier gave up on. No `approve`: nothing that needs approval is done."""

    on_event: EventSink = ignore
    approve: Callable[[str], bool] | None = None
    model_fix: ModelFix | None = None


class Checks(Struct):
    """What the executor does around each step besides running it (from settings)."""

    verify: bool = False  # check each change's intended state for real
    rollback_on_failure: bool = False  # undo what completed when a step fails for good
    backups: BackupStore | None = None  # copy files a step changes before it runs
    knowledge: Knowledge | None = None  # record outcomes for reflection
    # [reasoning] always_confirm: every fix that runs something new or escalates asks
    # first (without it, only fixes that install something new ask)
    confirm_every_fix: bool = False


class Machine(Struct):
    """How the executor touches the machine: tests swap in recorders and fake probes."""

    run: Callable[..., StepResult] = run_argv
    probe: Probe = current_state
    is_root: bool | None = None  # None: ask the OS


# how long a kind of change may take to show after its command returned
_SETTLE_SECONDS = {"process": 3.0}


class Executor:
    def __init__(self, journal: Journal, limits: LimitsSettings, hooks: Hooks | None = None,
                 checks: Checks | None = None, machine: Machine | None = None):
        hooks, checks, machine = hooks or Hooks(), checks or Checks(), machine or Machine()
        self.journal = journal
        self.hooks = hooks
        self.checks = checks
        self.on_event = hooks.on_event
        self.run = machine.run
        self.probe = machine.probe
        self.is_root = os.geteuid() == 0 if machine.is_root is None else machine.is_root
        self.request = ""
        self.scope = Scope()
        self.seq = 0
        self.per_category: dict[str, int] = {}
        # copied when execution starts: nothing a plan, a template, recovery or an LLM
        # does afterwards can lift them (only the person, in settings.toml)
        self.breakers = Breakers.start(limits)

    def execute(self, plan: Plan) -> ExecutionReport:
        if plan.blocked:
            raise ReosError(f"This plan is blocked: {plan.blocked_reason}.",
                            "reos never runs a blocked plan.", exit_code=EXIT_BLOCKED)
        preflight = gates.preflight(plan, self.breakers.max_operations)
        failed = [v for v in preflight if not v.passed]
        if failed:  # before the journal: a plan that fails a pre-flight check never began
            report = ExecutionReport(tx_id=None, pending=list(plan.steps), gates=preflight)
            _stop(report, StopReason.PREFLIGHT, "; ".join(v.said for v in failed)
                  + "; nothing was run")
            self.on_event(Notice(f"Not run: {report.stopped_reason}."))
            return report
        changed = self._changed_conditions(plan)
        if changed:
            report = ExecutionReport(tx_id=None, pending=list(plan.steps), gates=preflight)
            _stop(report, StopReason.CONDITION_CHANGED,
                  f"the condition no longer holds ({changed}); nothing was run")
            self.on_event(Notice(f"Not run: {changed}, so the condition no longer holds."))
            return report
        tx_id = self.journal.begin(plan.request)
        self.request = plan.request
        self.scope = Scope.of(plan)
        report = ExecutionReport(tx_id=tx_id, started=time.monotonic(), gates=preflight)
        report = self._run(plan.steps, report, first_seq=0)
        knowledge = self.checks.knowledge
        if knowledge is not None:
            knowledge.record_template(plan.intent.reading.template if plan.intent else None,
                                      report.ok)
            report.learned = [str(f) for f in knowledge.reflect()]
            for finding in report.learned:
                self.on_event(Said(f"I noticed: {finding}"))
        return report

    def resume(self, report: ExecutionReport) -> ExecutionReport:
        """Continue a paused execution: the person's explicit choice, which resets only the
        operation counter (time, escalations and injected steps keep counting). Only a
        resumable stop (`report.resumable`) is continued; any other report comes back
        as it was."""
        if not report.resumable:
            return report
        assert report.tx_id is not None
        pending, report.pending = report.pending, []
        report.stop = report.stopped_reason = None
        self.journal.set_status(report.tx_id, "running")
        return self._run(pending, report, first_seq=len(report.completed), ops_base=len(
            report.completed))

    def _run(self, steps: list[Step], report: ExecutionReport, first_seq: int,
             ops_base: int = 0) -> ExecutionReport:
        assert report.tx_id is not None
        for n, step in enumerate(steps):
            seq = first_seq + n
            elapsed = time.monotonic() - report.started
            tripped = self.breakers.tripped(seq - ops_base, elapsed)
            if tripped:
                _stop(report, tripped.reason, tripped.said)
                report.pending = steps[n:]
                self.on_event(Notice(f"\u26a0\ufe0f Execution paused: {tripped.said}"))
                break
            result = self.run_step(report.tx_id, seq, step,
                                    self.breakers.max_seconds - elapsed)
            if step.argv[:1] == ["sudo"]:
                report.escalations += 1
            if not result.ok and not result.blocked:
                result = recover(self, report, step, result)
            if result.ok and self.checks.verify and not step.read_only:
                result = self._verified(step, result, report)
            report.results.append(result)
            verdict = gates.midflight(step, result)
            report.gates.append(verdict)
            if not result.ok:
                report.failed = step
                report.pending = steps[n + 1:]
                break
            report.completed.append(step)
            if verdict.warnings:
                self.on_event(Notice(("\u26a0\ufe0f " if verdict.review else "")
                                     + verdict.said))
            if verdict.review and n + 1 < len(steps):
                _stop(report, StopReason.REVIEW, verdict.said)
                report.pending = steps[n + 1:]
                self.on_event(Notice("\u26a0\ufe0f Execution paused for your review: the "
                                     "rest of the plan waits until you say to go on."))
                break
        if report.failed is not None and report.stop is None and \
                self.checks.rollback_on_failure and report.completed:
            self._roll_back(report)
        report.seconds = time.monotonic() - report.started
        if not report.resumable:  # a pause is not the end: post-flight when it ends
            self._postflight(report)
        status = COMPLETED if report.ok else FAILED
        if report.rolled_back is not None and report.rolled_back.ok:
            status = ROLLED_BACK
        self.journal.finish(report.tx_id, status, _summary(report))
        return report

    def _postflight(self, report: ExecutionReport) -> None:
        # recorded, not announced: what a failed post-flight check finds was said as it
        # happened (the failed step, the breaker, the failed verification)
        report.gates += gates.postflight(report)

    def _verified(self, step: Step, result: StepResult, report: ExecutionReport) -> StepResult:
        """Check the intended state for real; a mismatch turns the step into a failure."""
        target = step.target
        if target is None:
            return result
        state = self.probe(target.kind, target.name)
        unreadable = _unreadable(target.kind, step.action, state)
        if unreadable:  # never "goal reached" on a state that could not be read
            report.unchecked.append(step)
            self.say(f"? Couldn't check {target.name}: {unreadable}.")
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
            self.learn(step.argv, True)
            return result
        self.say(f"\u2717 Verification failed: {target.name} {problem}")
        self.learn(step.argv, False, "verification", verified=False)
        return StepResult(step.id, False, result.exit_code, result.stdout,
                          f"verification failed: {target.name} {problem}", result.seconds)

    def _roll_back(self, report: ExecutionReport) -> None:
        from reos.execution.undo import undo_transaction

        assert report.tx_id is not None
        self.say("Recovery didn't work, so I'm rolling back what I did, newest first\u2026")
        report.rolled_back = undo_transaction(self.journal, report.tx_id, self.run)

    def budget(self, report: ExecutionReport) -> float:
        return self.breakers.max_seconds - (time.monotonic() - report.started)

    def learn(self, argv: list[str], ok: bool, category: str | None = None,
               fix: str | None = None, timed_out: bool = False,
               verified: bool | None = None) -> None:
        knowledge = self.checks.knowledge
        if knowledge is None:
            return
        if verified is not None and _knows_verified(knowledge):
            knowledge.record(argv, ok, category, fix, timed_out, verified=verified)
        else:
            knowledge.record(argv, ok, category, fix, timed_out)

    def say(self, text: str) -> None:
        self.on_event(Said(text))

    def admit(self, step: Step, *, escalates: bool = False) -> None:
        """Let a step added during execution in (scope drift, injected steps, escalations,
        the checkpoint: reos.safety.limits), or raise LimitReached; a drift is announced."""
        try:
            self.breakers.admit(step.argv, self.scope, escalates=escalates)
        except LimitReached as exc:
            if exc.reason is StopReason.SCOPE_DRIFT:
                self.on_event(Notice(exc.message))
            raise

    def _changed_conditions(self, plan: Plan) -> str | None:
        """Re-check a conditional plan's targets just before acting on them."""
        for target, must_run in plan.preconditions:
            state = self.probe(target.kind, target.name) or {}
            now = state.get("active") if target.kind == "service" else state.get("state")
            running = now in (ACTIVE_STATES if target.kind == "service" else RUNNING_STATES)
            if running != must_run:
                return f"{target.name} is {'no longer' if must_run else 'now'} running"
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
                                      action=step.action, reversible=False,
                                      edited=step.edited)
        self.journal.finish_step(row, "blocked", None, why)
        self.on_event(Notice(f"\u26d4 Not run: {step.command} \u2014 {why}."))
        return StepResult(step.id, False, None, "", why, 0.0, blocked=True)

    def run_step(self, tx_id: int, seq: int, step: Step, budget: float) -> StepResult:
        seq = max(seq, self.seq)  # journal order follows what really ran (fixes, retries)
        self.seq = seq + 1
        refused = self._refused(tx_id, seq, step)
        if refused is not None:
            return refused
        target = step.target
        prior = None
        rollback = None
        if target is not None and not step.read_only:
            prior = self.probe(target.kind, target.name)
            if target.kind == "user" and isinstance(prior, dict):
                # undo changes back exactly the step's group; None: one reos cannot name,
                # and then no undo (never the whole list, which would undo others' joins)
                prior = {**prior, "changed_group": changed_group(step.argv)}
            # a restart is judged again on the live state: one of something stopped
            # since the plan was made starts it, and undo must stop it again
            rollback = restore_argv(target.kind, target.name, prior, step.action,
                                    _manager()) if step.reversible or (
                step.action in RESTARTS and restarts(step.argv)) else None
            if rollback and step.needs_root:  # as it always was: through sudo -n
                rollback = as_root(rollback, is_root=False)
        row = self.journal.begin_step(
            tx_id, seq, step.id, step.title, step.argv, action=step.action,
            target_kind=target.kind if target else None,
            target_name=target.name if target else None,
            prior_state=prior, rollback=rollback, reversible=step.reversible,
            edited=step.edited,
        )
        if self.checks.backups is not None and not step.read_only:
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
                self.journal.set_undo(row, prior, as_root(settled, is_root=False)
                                      if step.needs_root else settled)
        self.journal.finish_step(row, "done" if result.ok else "failed", result.exit_code,
                                 output)
        self.on_event(StepFinished(step, result))
        return result

    def _back_up(self, tx_id: int, seq: int, row: int, step: Step) -> None:
        """Copy every file the step will change, before it runs, into the journal."""
        backups = self.checks.backups
        assert backups is not None
        for path in files_changed(step.argv):
            try:
                saved = backups.save(path, f"tx{tx_id}-{seq + 1}")
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
    from reos.system.portable import package_manager

    return package_manager()


def _stop(report: ExecutionReport, reason: StopReason, said: str) -> None:
    report.stop, report.stopped_reason = reason, said


def _knows_verified(knowledge: Knowledge) -> bool:
    """Whether `Knowledge.record` takes `verified=` yet (it is being added alongside)."""
    try:
        return "verified" in inspect.signature(knowledge.record).parameters
    except (TypeError, ValueError):
        return False


def _summary(report: ExecutionReport) -> str:
    titles = [s.title for s in report.completed]
    text = "; ".join(titles) if titles else "nothing completed"
    if report.failed:
        text += f"; failed: {report.failed.title}"
    if report.stopped_reason:
        text += f"; paused: {report.stopped_reason}"
    return text
