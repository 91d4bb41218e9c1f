"""The risk engine: how dangerous a command is, whether it may run at all, and why.

Commands are parsed, not grepped (`shell`), and judged by what they can *do*: every
program that runs other code (`launchers`: sudo, sh -c, env -S, flock -c, xargs, ssh,
docker exec, …; `payloads`: awk system(), sed e, find -exec, git -c core.pager, man -P,
tar --to-command, interpreter one-liners) has its payload judged recursively; text fed
to a shell or interpreter is judged when it is known (echo, printf, base64 -d of a
literal) and treated as unknown code when it is not (blocked when it would run as root
or comes from the network, HIGH otherwise). Paths are judged by the worst thing they can
name (`paths`), redirections with or without a command word. Read-only is verified
(`grammar`): a verdict is read-only only when every simple command's program and
arguments fit the read-only grammar (`grammar`) and nothing is written but /dev/null;
everything else is at least LOW, and `why_not_read_only` names the word that decided it.
The judge fails closed: if judging itself fails (a RecursionError, any exception), the
verdict is blocked with the reason, never a traceback. What cannot be parsed, or nests
too deeply, is at least HIGH (fail closed), and blocked when a plain split still shows
something destructive.

Plan steps are already argv and are judged with `assess_argv`, without the shell parser
(a payload such as `sh -c '…'` inside the argv is parsed lazily). Remote lock-out
(stopping sshd, downing the default-route interface, dropping the firewall over SSH) is
judged from `remote` (None: read SSH_CONNECTION) and the person's `requested` text.
Not responsible for deciding what the user meant, or for running anything.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable

from reos.model.risk import RiskLevel
from reos.model.target import Target
from reos.safety.judge import Judge
from reos.safety.paths import reset_budget
from reos.safety.rules import Context
from reos.safety.verdict import Verdict

__all__ = ["assess", "assess_argv"]


def _remote(remote: bool | None) -> bool:
    return bool(os.environ.get("SSH_CONNECTION")) if remote is None else remote


def _finish(engine: Judge) -> Verdict:
    verdict = engine.verdict
    why = engine.why_not_read_only
    if not engine.read_only and verdict.risk < RiskLevel.LOW:
        verdict.raise_to(RiskLevel.LOW, f"not shown to only read: {why}" if why else
                         "changes the machine (not on the read-only list)")
    verdict.read_only = engine.read_only and verdict.risk == RiskLevel.SAFE and \
        not verdict.blocked
    if not verdict.read_only:
        verdict.why_not_read_only = why or (verdict.reasons[0] if verdict.reasons else
                                            "it is not on the read-only list")
    return verdict


def _fail_closed(command: str, judge: Callable[[], Verdict]) -> Verdict:
    """The judge's verdict, or, when judging itself failed, a blocked one that says why:
    a command reos could not judge is never let through (and never a traceback)."""
    try:
        return judge()
    except RecursionError:
        why = "it is nested too deeply for reos to judge"
    except Exception as exc:  # noqa: BLE001 - any failure of the judge must block
        why = f"reos could not judge it ({type(exc).__name__})"
    verdict = Verdict(command=command[:2000])
    verdict.raise_to(RiskLevel.CRITICAL, f"{why}; blocked to be safe", block=True,
                     reversible=False)
    verdict.why_not_read_only = why
    return verdict


def formats_for(action: str | None, target: Target | None) -> frozenset[str]:
    """The device a plan step was built to format (from the snapshot), for `formats`."""
    if target is not None and target.kind == "device" and (action or "").startswith("format"):
        return frozenset({target.name})
    return frozenset()


# -- entry points --------------------------------------------------------------------------

def assess_argv(argv: list[str], *, requested: str | None = None,
                remote: bool | None = None, formats: frozenset[str] = frozenset(),
                live: bool = False, undoing: bool = False,
                ssh_checked: bool = False) -> Verdict:
    """Judge one argv that would be run without a shell (a plan step).

    `formats`: devices reos planned to format (a formatter aimed at exactly one of them is
    HIGH instead of blocked); with `live` each is checked against the running kernel first
    (`safety.blockdev`), as the gate does right before the step runs. `undoing`: it is an
    undo putting back a recorded state; `ssh_checked`: the caller found the firewall rules
    of the machine it runs on keep reos's SSH in (`rules.Context`)."""
    def judge() -> Verdict:
        reset_budget()
        engine = Judge(Verdict(command=shlex.join(argv)))
        ctx = Context(root=False, remote=_remote(remote), requested=requested,
                      formats=formats, live=live, undoing=undoing, ssh_checked=ssh_checked)
        engine.argv(list(argv), ctx, 0, None, {}, {})
        return _finish(engine)

    return _fail_closed(" ".join(map(str, argv)), judge)


def assess(command: str, requested: str | None = None, *,
           remote: bool | None = None) -> Verdict:
    """Judge a command line as a shell would run it.

    `requested` is the person's own request text: a download piped into a shell, or a
    lock-out over SSH, is allowed (as HIGH) only when the request names exactly that.
    """
    def judge() -> Verdict:
        reset_budget()
        engine = Judge(Verdict(command=command))
        if command.strip():
            ctx = Context(root=False, remote=_remote(remote), requested=requested)
            engine.script(command, ctx, 0)
        return _finish(engine)

    return _fail_closed(command, judge)
