"""The risk engine: how dangerous a command is, whether it may run at all, and why.

Commands are parsed, not grepped (`reos.safety.shell`): each simple command is judged by
its argv after wrappers and paths are stripped (`reos.safety.rules`), including commands
nested in `sh -c`, `eval`, `$(...)` and `<(...)`, and the code of interpreter one-liners
(`python3 -c`, `perl -e`). What cannot be parsed is at least HIGH and needs approval
(fail closed). Plan steps are already argv and are judged with `assess_argv`, without
the parser. Every verdict carries short reasons a person can read.
Not responsible for deciding what the user meant, or for running anything.
"""

from __future__ import annotations

import re
import shlex

from reos.model import RiskLevel
from reos.safety.rules import (
    BLOCK_DEVICE,
    CREDENTIAL_FILES,
    DISK_TOOLS,
    HANDLERS,
    INTERPRETERS,
    READ_ONLY,
    _clean,
    _judge_editor,
    _rm,
    is_system_path,
)
from reos.safety.shell import DOWNLOADERS, SHELLS, Redirect, SimpleCommand, Unparseable
from reos.safety.verdict import Verdict

__all__ = ["Verdict", "assess", "assess_argv", "is_system_path"]

_DELETING_CODE = re.compile(r"rmtree|unlink|remove|rmdir|rmSync|truncate|os\.system|subprocess|"
                            r"system\s*\(|exec\s*\(|popen|spawn|File\.delete|FileUtils\.rm|"
                            r"fs\.rm|rm_rf|open\([^)]*['\"]w")
_SYSTEM_LITERAL = re.compile(r"['\"](?:/|/(?:etc|usr|bin|sbin|boot|var|home|lib|lib64|root|"
                             r"opt|srv|dev|sys|proc)(?:/[^'\"]*)?|~|\$HOME)['\"]")
_QUOTED = re.compile(r"(?:system|popen|exec)\s*\(\s*['\"]([^'\"]+)['\"]")


# -- judging one simple command ------------------------------------------------------------

def judge(cmd: SimpleCommand, verdict: Verdict, requested: str | None = None) -> None:
    argv = cmd.argv
    program = argv[0]
    verdict.needs_root = verdict.needs_root or cmd.escalated
    for redirect in cmd.redirects:
        _judge_redirect(redirect, verdict)
    if program in SHELLS and cmd.fed_by_download:
        if requested is not None and _requested(requested, verdict.command):
            verdict.raise_to(RiskLevel.HIGH, "runs a downloaded script (you asked for it)")
        else:
            verdict.raise_to(RiskLevel.CRITICAL, "pipes a download straight into a shell",
                             block=True)
        return
    if program in READ_ONLY and program not in ("tee", "sed", "awk", "git"):
        return
    handler = HANDLERS.get(program)
    if handler is _rm and cmd.via == "xargs":
        _rm(argv, verdict, cmd.piped_args, cmd.piped_from[0] if cmd.piped_from else "")
    elif handler is not None:
        handler(argv, verdict)
    elif program in INTERPRETERS:
        _judge_interpreter(argv, verdict, requested)
    elif program.startswith("mkfs") or program in DISK_TOOLS:
        verdict.raise_to(RiskLevel.CRITICAL, f"{program} changes disks or partitions",
                         block=True, reversible=False, root=True)
    elif program in SHELLS or program in ("eval", "su", "runuser", "source"):
        verdict.raise_to(RiskLevel.MEDIUM, f"starts {program}")
    elif program in DOWNLOADERS:
        target = next((a for i, a in enumerate(argv) if argv[i - 1] in ("-o", "-O",
                                                                           "--output")), "")
        if target and (is_system_path(target) or target.startswith("/etc/")):
            verdict.raise_to(RiskLevel.HIGH, f"downloads over {target}")
        else:
            verdict.raise_to(RiskLevel.LOW, "downloads from the network")
    elif program in ("sed", "awk", "tee", "git"):
        _judge_editor(argv, verdict)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"{program} is not a command reos knows to be safe")


def _requested(requested: str, command: str) -> bool:
    return " ".join(command.split()) in " ".join(requested.split())


def _judge_redirect(redirect: Redirect, verdict: Verdict) -> None:
    if redirect.op not in (">", ">>", ">|", "&>", "&>>", "2>", "1>"):
        return
    target = _clean(redirect.target)
    if BLOCK_DEVICE.match(target):
        verdict.raise_to(RiskLevel.CRITICAL, f"writes straight onto the disk {target}",
                         block=True, reversible=False, root=True)
    elif CREDENTIAL_FILES.match(target):
        verdict.raise_to(RiskLevel.CRITICAL, f"overwrites {target} (credentials)", block=True,
                         reversible=False, root=True)
    elif target.startswith("/etc/ssh/sshd_config"):
        verdict.raise_to(RiskLevel.HIGH, "edits the SSH server configuration", root=True)
    elif target.startswith(("/etc/", "/boot/", "/usr/")):
        verdict.raise_to(RiskLevel.HIGH, f"overwrites the system file {target}", root=True)
    elif target in ("/dev/null", "/dev/stdout", "/dev/stderr") or target.startswith("&"):
        return
    else:
        verdict.raise_to(RiskLevel.LOW, f"writes to {target}")


def _judge_interpreter(argv: list[str], verdict: Verdict, requested: str | None) -> None:
    flag = INTERPRETERS[argv[0]]
    code = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag), None)
    if code is None:
        verdict.raise_to(RiskLevel.MEDIUM, f"runs a {argv[0]} program")
        return
    for inner in _QUOTED.findall(code):  # a shell command run from the code
        nested = assess(inner, requested)
        if nested.risk >= RiskLevel.HIGH:
            verdict.raise_to(nested.risk, f"{argv[0]} runs: {'; '.join(nested.reasons)}",
                             block=nested.blocked, reversible=nested.reversible)
    if _DELETING_CODE.search(code) and _SYSTEM_LITERAL.search(code):
        verdict.raise_to(RiskLevel.CRITICAL, f"{argv[0]} one-liner deletes or overwrites "
                         "system paths", block=True, reversible=False)
    elif _DELETING_CODE.search(code):
        verdict.raise_to(RiskLevel.HIGH, f"{argv[0]} one-liner deletes files or runs commands")
    else:
        verdict.raise_to(RiskLevel.LOW, f"runs a {argv[0]} one-liner")


# -- entry points --------------------------------------------------------------------------

def assess_argv(argv: list[str]) -> Verdict:
    """Judge one argv that would be run without a shell (a plan step)."""
    from reos.safety.shell import unwrap

    verdict = Verdict(command=shlex.join(argv))
    real, escalated = unwrap(argv)
    if real:
        judge(SimpleCommand(real, escalated=escalated), verdict)
    verdict.needs_root = verdict.needs_root or escalated
    verdict.read_only = verdict.risk == RiskLevel.SAFE and not verdict.blocked  # provisional
    return verdict


def assess(command: str, requested: str | None = None) -> Verdict:
    """Judge a command line as a shell would run it.

    `requested` is the person's own request text: a download piped into a shell is
    allowed (as HIGH) only when that exact command appears in it.
    """
    from reos.safety.shell import parse, split_simple, unwrap

    verdict = Verdict(command=command)
    compact = re.sub(r"\s+", "", command)
    if re.search(r"(\w+|:)\(\)\{[^}]*\1\s*\|\s*\1\s*&", compact):
        verdict.raise_to(RiskLevel.CRITICAL, "fork bomb", block=True)
        return verdict
    if not command.strip():
        return verdict
    try:
        commands = parse(command)
    except Unparseable as exc:
        verdict.raise_to(RiskLevel.HIGH, f"cannot be parsed reliably ({exc}); treated as "
                         "dangerous")
        for argv in split_simple(command):  # still catch what is plainly destructive
            real, escalated = unwrap(argv)
            if real:
                judge(SimpleCommand(real, escalated=escalated), verdict, requested)
        return verdict
    for simple in commands:
        judge(simple, verdict, requested)
    return verdict
