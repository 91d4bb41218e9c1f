"""`reos plan "REQUEST"`: plan, show, and (after approval) run or answer."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from reos.commands.ask import confirm
from reos.commands.common import make_engine
from reos.commands.output import StagePrinter, emit_json, event_printer, say
from reos.commands.shell_init import record_ran
from reos.engine import ReasoningEngine
from reos.errors import (
    EXIT_BLOCKED,
    EXIT_DECLINED,
    EXIT_FAILED,
    EXIT_NOTHING,
    EXIT_OK,
    ReosError,
)
from reos.model.plan import Plan
from reos.model.request import Kind
from reos.outcome import Outcome, Reply

if TYPE_CHECKING:
    from reos.model.report import ExecutionReport

_EXIT_FOR_KIND = {Kind.UNKNOWN: EXIT_NOTHING, Kind.CLARIFY: EXIT_NOTHING,
                  Kind.REFUSE: EXIT_BLOCKED}


def plan_exit_code(plan: Plan) -> int:
    if plan.blocked:
        return EXIT_BLOCKED
    if plan.kind in _EXIT_FOR_KIND:
        return _EXIT_FOR_KIND[plan.kind]
    if plan.kind in (Kind.ACTION, Kind.COMBINED) and not plan.steps:
        return EXIT_NOTHING if plan.intent and not plan.targets else EXIT_OK
    return EXIT_OK


def ensure_sudo(plan: Plan) -> None:
    """Ask for the sudo password once, up front, so no step waits on a hidden prompt."""
    if os.geteuid() == 0 or not any(s.needs_root for s in plan.steps):
        return
    import subprocess

    from reos.system import sudo

    found = sudo.probe(30)
    if found.state == sudo.MISSING:
        raise ReosError("This plan needs root, and sudo is not installed. Nothing was run.",
                        "Run reos as root, or install sudo.")
    if found.state in (sudo.FREE, sudo.ROOT):
        return
    if not interactive():
        raise ReosError(f"This plan needs root, and sudo won't run without a password "
                        f"(sudo said: {found.said}). Nothing was run.",
                        "Run it in a terminal so I can ask for the password once, or as root.")
    if subprocess.run(["sudo", "-v", "-p", "[reos] password for %u (asked once): "]
                      ).returncode != 0:
        raise ReosError("sudo was refused, so nothing was run.",
                        "Check that your user may use sudo, or run reos as root.")


def interactive() -> bool:
    """Whether there is a person at a terminal to ask."""
    return sys.stdin.isatty()


def _confirm(plan: Plan, question: str | None = None) -> bool:
    """Ask at the terminal (`question` first, when there is one); no terminal is an error
    that says how to approve."""
    if not interactive():
        raise ReosError(
            "This plan needs approval and there is no terminal to ask on.",
            "Nothing was run. Rerun with --yes to approve it, or --dry-run to only look.",
            exit_code=EXIT_DECLINED,
        )
    if question:
        say(question)
        return confirm("Run it anyway?")
    return confirm("Proceed?")


def _approve_fix(explanation: str) -> bool:
    """The terminal's answer to a recovery fix that needs approval (default no)."""
    from reos.text import clean  # the explanation can quote a failed command's output
    from reos.words.narrate import fix_question

    return confirm(fix_question(clean(explanation)))


def _confirm_resume(report: ExecutionReport) -> bool:
    """The terminal's answer at a resumable stop: where the run is, then whether to go on
    (default no)."""
    from reos.words.narrate import paused, resume_question

    say(paused(report))
    return confirm(resume_question(report))


def _meta_exit_code(reply: Reply) -> int:
    undone = reply.undone
    if undone is None:
        return EXIT_OK
    if undone.transaction is None or undone.busy_with is not None or not undone.steps:
        return EXIT_NOTHING  # nothing to undo, or nothing to run (a restart)
    return EXIT_OK if undone.ok else EXIT_FAILED


def as_json_data(plan: Plan) -> dict:
    """`reos.plan/1`: the plan's own fields, and each step's undo in words (the command
    when the snapshot says enough, else what will be recorded when the step runs)."""
    from reos.words.conversation import undo_words

    data = plan.to_dict()
    for step, shown in zip(plan.steps, data["steps"], strict=True):
        shown["undo"] = undo_words(step)
    return data


def refuse_other_host(engine: ReasoningEngine, allow_other_host: bool) -> None:
    """A plan made from another machine's snapshot never runs here without a word."""
    why = engine.other_host()
    if why and not allow_other_host:
        raise ReosError(f"Not run: {why}. Its plan names that machine's containers, "
                        "services and packages.",
                        "Use --dry-run or --json to only look, or --allow-other-host if you "
                        "really mean to run it here.", exit_code=EXIT_BLOCKED)


def model_note(engine: ReasoningEngine, plan: Plan) -> str | None:
    """The sentence the engine said first (in the plan's lead) when the model could not be
    used, or None. An answered query shows what its steps found instead of the plan's words,
    so this sentence would otherwise be lost."""
    problem = engine.llm_problem
    return problem if problem and problem in plan.lead else None


def run(request: str, *, yes: bool = False, dry_run: bool = False, as_json: bool = False,
        context: Path | None = None, allow_other_host: bool = False,
        verbose: bool = False) -> int:
    engine = make_engine(context)
    # a meta utterance ("undo", "be brief", "why did you …") works here as in the chat;
    # --json and --dry-run only say what it would do (--json --yes does it)
    if verbose:  # how the request was understood goes to stderr; stdout is unchanged
        stages = StagePrinter()
        plan = engine.plan(request, stages)
        stages.flush()
    else:
        plan = engine.plan(request)
    if plan.kind == Kind.META:
        reply = engine.meta_reply(plan, perform=not dry_run and (yes or not as_json))
        if reply.awaiting_approval and engine.undo_waiting:  # always_confirm: undo asks
            if not as_json:
                say(plan.text())
            if yes or _confirm(plan):
                reply = engine.approve()
                plan.said = [reply.text]
            else:
                plan.said = [engine.decline().text]
                if not as_json:
                    say(plan.text())
                return EXIT_DECLINED
        if as_json:
            emit_json(as_json_data(plan))
        else:
            say(plan.text())
        return _meta_exit_code(reply)
    code = plan_exit_code(plan)
    if (as_json and not yes) or dry_run:
        if as_json:
            emit_json(as_json_data(plan))
        else:
            say(plan.text())
            if plan.steps and not plan.read_only:
                say("(dry run: nothing was run)")
        return code
    if plan.steps and not plan.blocked:
        refuse_other_host(engine, allow_other_host)
    # the engine answers a query at once and holds a change for approval, as in the chat;
    # this surface only says what it decided
    reply = engine.offer(plan)
    said = model_note(engine, plan)
    if reply.outcome is Outcome.ANSWERED:
        if said and said not in reply.text:
            say(said)
        say(reply.text)
        return code
    if reply.outcome is not Outcome.NEEDS_APPROVAL or reply.plan is None:
        if as_json:
            emit_json(as_json_data(plan))
        else:
            say(plan.text())
        return plan_exit_code(plan)
    if reply.first:  # a query's answer, then the change it leads to ("speed up boot")
        if said and said not in reply.first:
            say(said)
        say(reply.first)
        say("")
    plan = reply.plan
    if not as_json:
        say(plan.text())
    # the plan waits in the session (engine.offer) and is approved through it, as in the
    # chat: this surface only asks (on the terminal, or --yes answers every question)
    if not yes and plan.needs_approval and not _confirm(plan):
        say(engine.decline().text)
        return EXIT_DECLINED
    question = engine.second_question(plan)
    if question:
        engine.approve()  # the first yes: now the second question waits
        if not yes and not _confirm(plan, question):
            say(engine.decline().text)
            return EXIT_DECLINED
    ensure_sudo(plan)
    asking = interactive() and not as_json  # a person at a terminal answers these
    ran = engine.approve(event_printer(engine.voice, quiet=as_json),
                         approve_fix=_approve_fix if asking else None,
                         confirm_resume=_confirm_resume if asking else None)
    report = ran.report
    assert report is not None  # the second yes ran the plan
    record_ran(report)  # the shell snippet's history (reos shell-init), when it asks
    if as_json:
        data = as_json_data(plan)
        data["execution"] = {
            "transaction": report.tx_id,
            "ok": report.ok,
            "completed": [s.id for s in report.completed],
            "failed": report.failed.id if report.failed else None,
            "pending": [s.id for s in report.pending],
            "stopped_reason": report.stopped_reason,
            "stop": report.stop.value if report.stop else None,
            "resumable": report.resumable,
            "gates": [v.to_dict() for v in report.gates],
            "escalations": report.escalations,
            "recoveries": report.recoveries,
            "verified": report.verified,
            "rolled_back": report.rolled_back.to_dict() if report.rolled_back else None,
            "seconds": round(report.seconds, 3),
        }
        if plan.then:  # the questions answered after it, in words
            data["execution"]["answers"] = ran.answers
        emit_json(data)
    else:
        say(ran.text)
    return EXIT_OK if report.ok else EXIT_FAILED
