"""Recovering from a failed step: diagnose, let one bounded fix in, retry the step.

The loop the executor runs when a step fails (not when the safety gate blocked it):
classify the error (reos.execution.classifier), take the rule's fix for it
(reos.execution.recovery.propose) or, when the classifier gave up, the model's one fix
(the executor's `model_fix` hook, at most once per failed step), let the fix in through
the breakers (checkpoint, injected steps, escalations, scope drift), ask the person when
the fix needs it, run its steps and retry only the failed step, until it succeeds, a
limit says stop, or there is nothing left to try. Every step it runs goes through the
executor's `run_step`, so the journal, the gate and the limits see it like any other.

Not responsible for which fix suits which error (reos.execution.recovery), for asking the
model (reos.llm.recovery, reached through the hook), for the limits' rules
(reos.safety.limits), or for running and journaling a step (reos.execution.executor).
It is the executor's own recovery, a loop of its own: it works through the Executor's
public parts, as the `Executing` protocol names them (`run_step`, `say`, `learn`,
`budget`, `seq`, `per_category`, …), without importing the executor that calls it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from msgspec.structs import replace

from reos.execution.classifier import UNKNOWN, Diagnosis, classify
from reos.execution.recovery import MAX_PER_CATEGORY, MAX_RECOVERIES, Fix, propose
from reos.model.events import EventSink, Notice
from reos.model.plan import Step
from reos.model.report import ExecutionReport, StepResult
from reos.safety.limits import Breakers, LimitReached


class FixAsks(Protocol):
    """Whom recovery asks: a person before a fix that needs it, the model for one fix."""

    @property
    def approve(self) -> Callable[[str], bool] | None: ...

    @property
    def model_fix(self) -> Callable[[Step, StepResult, Diagnosis], Fix | None] | None: ...


class FixChecks(Protocol):
    """The one setting recovery reads: whether every fix that runs something asks first."""

    @property
    def confirm_every_fix(self) -> bool: ...


class Executing(Protocol):
    """The executor's parts recovery works through (`executor.Executor` is the one that
    runs it): its hooks and checks, breakers, step counter and per-category attempts, and
    running, admitting, saying and learning from a step."""

    @property
    def hooks(self) -> FixAsks: ...

    @property
    def checks(self) -> FixChecks: ...

    @property
    def breakers(self) -> Breakers: ...

    @property
    def on_event(self) -> EventSink: ...

    @property
    def is_root(self) -> bool: ...

    @property
    def seq(self) -> int: ...

    @property
    def per_category(self) -> dict[str, int]: ...

    def run_step(self, tx_id: int, seq: int, step: Step, budget: float) -> StepResult: ...

    def admit(self, step: Step, *, escalates: bool = False) -> None: ...

    def budget(self, report: ExecutionReport) -> float: ...

    def say(self, text: str) -> None: ...

    def learn(self, argv: list[str], ok: bool, category: str | None = None,
              fix: str | None = None, timed_out: bool = False,
              verified: bool | None = None) -> None: ...


def recover(ex: Executing, report: ExecutionReport, step: Step,
            result: StepResult) -> StepResult:
    """Diagnose, apply a bounded fix, retry only the failed step; or stop and explain."""
    from reos.system.portable import package_manager

    assert report.tx_id is not None
    diagnosis = classify(result.exit_code, result.stdout, result.stderr)
    ex.say(f"\u2717 Error: {diagnosis.evidence}")
    asked_model = False  # at most one model fix per failed step
    while True:
        ex.say(f"\u2192 Diagnosed: {diagnosis.cause} ({diagnosis.words})")
        ex.learn(step.argv, False, diagnosis.category,
                  timed_out="timeout" in diagnosis.details)
        attempt = ex.per_category.get(diagnosis.category, 0)
        if ex.breakers.recoveries >= MAX_RECOVERIES or attempt >= MAX_PER_CATEGORY:
            ex.say("\u2192 That's as many automatic fixes as I'll try; over to you.")
            return result
        fix = propose(diagnosis, step, manager=package_manager(), is_root=ex.is_root,
                      attempt=attempt)
        if fix.kind == "ask" and diagnosis.category == UNKNOWN and not asked_model and \
                ex.hooks.model_fix is not None:
            asked_model = True
            fix = model_fix(ex, step, result, diagnosis) or fix
        if fix.kind == "ask":
            ex.say(f"\u2192 {fix.explanation}")
            return result
        if fix.kind == "done":
            ex.say(f"\u2192 {fix.explanation}")
            return StepResult(step.id, True, result.exit_code, result.stdout,
                              result.stderr, result.seconds, skipped_reason=diagnosis.cause)
        try:
            ex.breakers.checkpoint()
            for extra in fix.steps:
                ex.admit(extra, escalates=extra.argv[:1] == ["sudo"])
            if fix.escalates:
                ex.admit(replace(step, argv=fix.retry or step.argv), escalates=True)
        except LimitReached as exc:
            ex.say(f"\u26a0\ufe0f {exc.message}")
            report.stop, report.stopped_reason = exc.reason, exc.message
            return result
        approve = ex.hooks.approve
        asks = fix.needs_approval or (ex.checks.confirm_every_fix
                                      and bool(fix.steps or fix.escalates))
        if asks and not (approve and approve(fix.explanation)):
            ex.say("\u2192 Not without your approval: " + fix.explanation.rstrip("\u2026")
                    + ". Ask me to do that first, then try again.")
            return result
        ex.say(f"\u2192 Trying fix: {fix.explanation}")
        ex.per_category[diagnosis.category] = attempt + 1
        ex.breakers.recoveries += 1
        for extra in fix.steps:
            done = ex.run_step(report.tx_id, ex.seq, extra, ex.budget(report))
            report.escalations += int(extra.argv[:1] == ["sudo"])
            ex.say(("\u2713 " if done.ok else "\u2717 ") + extra.title)
            if not done.ok:
                return result
        if fix.wait:
            time.sleep(fix.wait)
        retry = replace(step, argv=fix.retry or step.argv)
        ex.say(f"\u2192 Retrying: {step.title}\u2026")
        result = ex.run_step(report.tx_id, ex.seq, retry, ex.budget(report))
        if result.blocked:
            return result
        report.escalations += int(fix.escalates)
        if result.ok:
            report.recoveries.append(fix.explanation.rstrip("\u2026"))
            ex.learn(step.argv, True, fix=fix.kind)
            return result
        diagnosis = classify(result.exit_code, result.stdout, result.stderr)
        ex.say(f"\u2717 Error: {diagnosis.evidence}")


def model_fix(executor: Executing, step: Step, result: StepResult,
              diagnosis: Diagnosis) -> Fix | None:
    """The model's fix, said before anything else happens to it; None: there is none.

    It is only a proposal: the caller lets it in through the same door as every other
    fix (checkpoint, admit, approval) and the gate judges its step again before it runs."""
    ask = executor.hooks.model_fix
    assert ask is not None
    try:
        fix = ask(step, result, diagnosis)
    except Exception as exc:  # noqa: BLE001 - a broken suggestion never breaks a run
        executor.on_event(Notice(
            f"The model couldn't be asked for a fix ({type(exc).__name__})."))
        return None
    if fix is None or not fix.steps:
        return None
    commands = "; ".join(f"`{extra.command}`" for extra in fix.steps)
    executor.say(f"\u2192 The model suggests: {commands}"
                  + (f" \u2014 {fix.why}" if fix.why else ""))
    fix.needs_approval = True  # whatever the callback said: a person sees it first
    return fix
