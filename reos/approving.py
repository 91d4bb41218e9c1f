"""Running a plan the person approved, for every surface alike.

One flow for the chat and `reos plan`: the plan runs with the surface's recovery approval
(`approve_fix`, handed to the executor), and at each stop a person may continue past
(`report.resumable`: the operations limit or a pause for review) the surface's
`confirm_resume(report)` is asked, and the run resumes while it says yes. The CLI passes
terminal prompts, the TUI modal screens; this module never knows which.
Not responsible for asking (the surfaces), the words of the questions
(reos.words.narrate), or the summary's words (reos.words.conversation).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from reos.execution import ignore
from reos.outcome import Outcome, Reply, outcome_of

if TYPE_CHECKING:
    from reos.model.events import EventSink
    from reos.model.plan import Plan
    from reos.model.report import ExecutionReport
    from reos.session import Session
    from reos.understanding.perception import Meta

ApproveFix = Callable[[str], bool]  # a recovery fix's explanation -> may it run?
ConfirmResume = Callable[["ExecutionReport"], bool]  # a resumable stop -> continue?


class Approvable(Protocol):
    """The parts of the reasoning engine approving works through (`engine.ReasoningEngine`
    is the one, and calls it): what waits and its questions, running and resuming a plan,
    and the surface's own callbacks."""

    @property
    def session(self) -> Session: ...

    @property
    def pending(self) -> Plan | None: ...

    @property
    def confirming(self) -> Plan | None: ...

    @property
    def undo_waiting(self) -> bool: ...

    @property
    def approve_fix(self) -> ApproveFix | None: ...

    @property
    def confirm_resume(self) -> ConfirmResume | None: ...

    def second_question(self, plan: Plan) -> str | None: ...

    def meta(self, meta: Meta, *, perform: bool = True,
             on_event: EventSink = ignore) -> Reply: ...

    def execute(self, plan: Plan, on_event: EventSink = ignore,
                approve: Callable[[str], bool] | None = None) -> ExecutionReport: ...

    def resume(self, report: ExecutionReport) -> ExecutionReport: ...

    def approve_hosts(self, hosts: Any, on_event: EventSink = ignore) -> Reply: ...

    def run_query(self, plan: Plan, on_event: EventSink = ignore) -> Any: ...


def approve(engine: Approvable, on_event: EventSink = ignore,
            approve_fix: ApproveFix | None = None,
            confirm_resume: ConfirmResume | None = None) -> Reply:
    """The person said yes to what waits: an undo (always_confirm), the second question of
    a plan that loses something for good, or the plan itself, which then runs. Without
    callbacks here, the ones the surface gave the engine (`engine.approve_fix`,
    `engine.confirm_resume`) are asked, so a typed "yes" asks as a button does."""
    from reos.understanding.perception import Meta

    if engine.undo_waiting and engine.pending is None:
        return engine.meta(Meta("undo"), on_event=on_event)
    hosts = engine.session.hosts
    if hosts is not None:  # plans on other machines: run there through Ansible
        from reos.on_hosts import lost_for_good

        question = lost_for_good(hosts)
        if question and engine.session.hosts_confirming is None:
            engine.session.confirm()  # the next yes is the answer to this question
            return Reply(f"{question}\nSay yes again to go ahead, or no.",
                         Outcome.NEEDS_APPROVAL, hosts=hosts)
        engine.session.take_hosts()
        return engine.approve_hosts(hosts, on_event)
    plan = engine.pending
    if plan is None:
        return Reply("There's nothing waiting for approval.", Outcome.SAID)
    question = engine.second_question(plan)
    if question and engine.confirming is not plan:
        engine.session.confirm()  # the next yes is the answer to this question
        return Reply(f"{question}\nSay yes again to go ahead, or no.",
                     Outcome.NEEDS_APPROVAL, plan=plan)
    engine.session.approve()
    return run_approved(engine, plan, on_event, approve_fix or engine.approve_fix,
                        confirm_resume or engine.confirm_resume)


def run_approved(engine: Approvable, plan: Plan, on_event: EventSink = ignore,
                 approve_fix: ApproveFix | None = None,
                 confirm_resume: ConfirmResume | None = None) -> Reply:
    """Run `plan` (already approved), continue past resumable stops while the person says
    so, and say how it went. Without `approve_fix` no fix that needs approval runs; without
    `confirm_resume` a pause stays a pause (`Outcome.PAUSED`)."""
    from reos.execution.gates import summary
    from reos.words import replies
    from reos.words.conversation import execution_summary

    report = engine.execute(plan, on_event, approve=approve_fix)
    while report.resumable and confirm_resume is not None and confirm_resume(report):
        report = engine.resume(report)
    engine.session.done()  # a pause not continued is where the run ends
    said = execution_summary(report, plan, summary(report))
    # the questions asked beside it, answered now it has run (not when it failed)
    answers = [engine.run_query(question, on_event).text if report.ok else
               replies.question_not_run(question.intent.summary or "" if
                                        question.intent else "")
               for question in plan.then]
    return Reply("\n\n".join([said, *answers]), outcome_of(report), plan=plan,
                 report=report, answers=answers if report.ok else [])
