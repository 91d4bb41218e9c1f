"""The one gate: every command reos is about to run is judged again, right before it runs.

Plan steps, recovery fixes, template steps, steps a model proposed and rollback commands
read back from the journal all pass through `admit_argv` just before they run (the
executor, undo and the engine's query answering call it; nothing else runs commands).
It never trusts a claim made elsewhere: a step that runs without approval must be proven
read-only by the exact read-only grammar (`grammar.reads_only`: the program resolved on
the system's PATH, every option parsed as the program parses it) and by the rest of the
risk engine; a blocked command never runs, whatever the plan, the template or the journal
said about it.

Not responsible for deciding what the person meant, asking for approval, or running
anything: it only says yes or no, and why.
"""

from __future__ import annotations

from msgspec import Struct

from reos.safety.grammar import reads_only
from reos.safety.risk import assess_argv
from reos.safety.verdict import Verdict


class Admission(Struct):
    """The gate's answer for one argv."""

    allowed: bool
    verdict: Verdict
    read_only: bool  # verified by the risk engine, not claimed
    reason: str | None = None  # why it may not run (when not allowed)


def admit_argv(argv: list[str], *, claimed_read_only: bool = False,
               approved: bool = False, requested: str | None = None,
               formats: frozenset[str] = frozenset(), remote: bool | None = None,
               undoing: bool = False, ssh_checked: bool = False) -> Admission:
    """Judge `argv` as it is about to run.

    `claimed_read_only`: the caller is about to run it without approval because someone
    said it only reads; that is allowed only when the risk engine agrees.
    `approved`: a person approved the plan this step belongs to (a mutating step is
    then allowed unless it is blocked).
    `requested`: the person's request, for the few things allowed only when asked for
    in exactly those words (a download piped into a shell, cutting off a remote session).
    `formats`: the device a format step was planned for; the formatter is admitted only
    if the running kernel shows that device is not on the disk holding / (`blockdev`).
    `remote`: the step runs on a machine reached over SSH, so the remote lock-out rules
    apply (every fleet step); None: as reos itself runs, over SSH or not.
    `undoing`: it is an undo, derived from the state a change recorded (undo and the
    fleet's undo): turning ufw off again after reos turned it on is then allowed.
    `ssh_checked`: the caller read the firewall rules of the machine the step runs on and
    found they keep reos's SSH in (the fleet, from a host's ufw rules); otherwise turning
    ufw on or denying by default over SSH is judged on this machine's own rules.
    """
    if not argv or not all(isinstance(a, str) for a in argv):
        verdict = Verdict(command=repr(argv))
        verdict.raise_to(verdict.risk.CRITICAL, "not a command reos can judge", block=True)
        return Admission(False, verdict, False, "it is not a list of words reos can judge")
    verdict = assess_argv(argv, requested=requested, formats=formats, live=True,
                          remote=remote, undoing=undoing, ssh_checked=ssh_checked)
    # what may run unasked is decided by the read-only grammar itself, even if the rest
    # of the risk engine were wrong: both must agree
    proof = reads_only(argv)
    read_only = verdict.read_only and proof.ok
    if verdict.blocked:
        return Admission(False, verdict, read_only, "; ".join(verdict.reasons) or "blocked")
    if claimed_read_only and not read_only and not approved:
        why = proof.why if not proof.ok else (verdict.why_not_read_only or
                                              "; ".join(verdict.reasons))
        return Admission(False, verdict, False,
                         "it was said to only read, but it is not shown to only read ("
                         + (why or "not on the read-only list") + "), so it needs your "
                         "approval")
    return Admission(True, verdict, read_only)
