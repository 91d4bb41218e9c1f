"""Editing a step's command before it runs: the person's text, judged again like any step.

`edit_step` splits the text the way a shell would split words (shlex; no shell ever runs
it), judges the new argv with the risk engine (`reos.safety.risk.assess_argv`, with the
person's request and the device a format step was planned for), and only then puts it in
the plan: a blocked command is refused and the step is left as it was; otherwise the
step's risk, reasons, read-only-ness and root need are recomputed from the new command
and the step is marked `edited` (the journal records it).

An edit keeps the step's undo only when it changes nothing but options and numbers
(`docker stop -t 30 web` for `docker stop web`): reos knows how to put back what that
command changes. Any other edit has no known undo: the step is marked irreversible, so
the plan asks its second question ("this can't be taken back") before it runs.

Not responsible for showing the edit (the TUI's plan card), for asking approval (the
engine), nor for the last check right before running (the gate judges every step again).
"""

from __future__ import annotations

import shlex

from reos.model.plan import Plan, Step, render, step_words
from reos.model.risk import RiskLevel

MAX_EDIT = 4000  # characters: a command line, not a script


def _shape(argv: list[str]) -> list[str]:
    """The words that say what a command does: not options, not numbers."""
    return [w for w in argv if not w.startswith("-") and not w.isdigit()]


def edit_step(plan: Plan, step_id: str, text: str) -> str | None:
    """Replace the command of `plan`'s step `step_id` with `text`, judged again.

    Returns None when the step now runs the edited command, or why the edit was refused
    (the step is then unchanged)."""
    step = next((s for s in plan.steps if s.id == step_id), None)
    if step is None:
        return f"there is no {step_words(step_id)} in this plan"
    if plan.blocked:
        return "this plan is blocked; editing a step does not unblock it"
    if len(text) > MAX_EDIT:
        return f"that is longer than {MAX_EDIT} characters"
    try:
        argv = shlex.split(text)
    except ValueError as exc:  # an unclosed quote, a trailing backslash
        quote = "quotation" in str(exc)  # shlex's words, never shown as they are
        return ("I can't read that as a command: " + (
            "a quotation mark is not closed" if quote else "it ends with a lone backslash"))
    if not argv:
        return "an empty command would do nothing; the step is unchanged"
    if argv == step.argv:
        return "that is the command the step already runs"
    from reos.safety.risk import assess_argv, formats_for

    verdict = assess_argv(argv, requested=plan.request,
                          formats=formats_for(step.action, step.target))
    if verdict.blocked:
        return "blocked by the safety check: " + ("; ".join(verdict.reasons) or "blocked")
    _apply(step, argv, verdict.risk, verdict.reasons, verdict.read_only,
           verdict.reversible)
    return None


def _apply(step: Step, argv: list[str], risk: RiskLevel, reasons: list[str],
           read_only: bool, reversible: bool) -> None:
    same_kind = _shape(argv) == _shape(step.argv)
    floor = RiskLevel.SAFE if read_only else RiskLevel.LOW
    step.risk = max(risk, floor, step.risk if same_kind else RiskLevel.SAFE)
    step.risk_reasons = list(reasons)
    step.read_only = read_only
    step.needs_root = argv[0] == "sudo"
    step.shell = False  # the argv runs as words, whatever the step was before
    if not step.edited:  # the plan's own command, once, however often it is edited
        step.why = (f"{step.why}; " if step.why else "") + \
            f"you changed its command (it was: {render(step.argv)})"
    if not same_kind:
        # what the new command changes is not what reos planned to put back: no undo
        step.target, step.action, step.rollback, step.also = None, None, None, None
        step.reversible = read_only
        command = render(argv)
        step.title = "Run " + (command if len(command) <= 60 else command[:59] + "\u2026")
    else:
        step.reversible = step.reversible and reversible
        if not step.reversible:
            step.rollback = None
    step.argv = argv
    step.edited = True
