"""Answers about processes: the busiest ones, the biggest ones, one program, one user's
processes (`pgrep -a -u`), and what holds a port, in words.

The renderers read the output of read-only `ps` and `ss` steps: `ps` with the columns
pid, user, %cpu or %mem, rss (KiB) and the whole command line last (`args`, so its spaces
stay in one field; a few steps put the elapsed time before it), and `ss -Htulnp` with its
`users:(("name",pid=N,fd=M))` column. Memory is said in MiB from the resident set size,
not only as a percentage. Every name and command line is cleaned before it is shown; reos
itself and the `ps` that listed the processes are left out.

Not responsible for running anything or choosing the command (recipes do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reos.model import StepResult
from reos.reasoning.conversation import Voice
from reos.text import clean

_ETIME = re.compile(r"^(?:\d+-)?(?:\d{1,2}:)?\d{1,2}:\d{2}$")
_SS_USERS = re.compile(r'\("([^"]+)",pid=(\d+)')


def _count(n: int) -> str:
    return f"{n} process" + ("" if n == 1 else "es")


@dataclass
class Row:
    pid: str
    user: str
    share: float  # %cpu or %mem, as the step listed it
    rss_kib: int
    args: str
    elapsed: str = ""

    @property
    def program(self) -> str:
        """The program's name: the first word of its command line without the path
        ("[kworker/0:1]" for a kernel thread stays as it is)."""
        first = self.args.split()[0] if self.args.split() else "?"
        if first.startswith("["):
            return first
        return first.rstrip(":").rsplit("/", 1)[-1] or first

    @property
    def mib(self) -> float:
        return self.rss_kib / 1024


def rows(text: str, skip_pid: str = "") -> list[Row]:
    """`ps` lines (pid user share rss [etime] args) as rows; reos and ps itself left out."""
    out = []
    for line in text.splitlines():
        parts = line.split(None, 4)
        if len(parts) < 5 or not parts[0].isdigit() or parts[0] == skip_pid:
            continue
        elapsed = ""
        rest = parts[4]
        if _ETIME.match(rest.split(None, 1)[0]) and len(rest.split(None, 1)) == 2:
            elapsed, rest = rest.split(None, 1)
        try:
            row = Row(parts[0], parts[1], float(parts[2]), int(parts[3]), rest.strip(),
                      elapsed)
        except ValueError:
            continue
        if row.program == "ps" and " -o" in f" {rest}" and "pid,user" in rest:
            continue  # the step that made this list
        out.append(row)
    return out


def _wanted(params: dict[str, str], voice: Voice) -> int:
    asked = params.get("count", "")
    if asked.isdigit() and 1 <= int(asked) <= 50:
        return int(asked)
    return 3 if voice.brief else 5


def _command(row: Row, voice: Voice) -> str:
    limit = 400 if voice.detailed else 70
    args = clean(row.args)
    return args if len(args) <= limit else args[: limit - 1] + "\u2026"


def _line(row: Row, voice: Voice, share: str) -> str:
    text = (f"  {clean(row.program)} (pid {row.pid}, {clean(row.user)}): {share}, "
            f"{row.mib:.1f} MiB")
    if not voice.brief:
        text += f"\n      {_command(row, voice)}"
    return text


def top_cpu(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    found = rows(results[0].stdout, params.get("self_pid", "")) if results else []
    if not found:
        return "I couldn't read the process list."
    found.sort(key=lambda r: r.share, reverse=True)
    shown = found[: _wanted(params, voice)]
    text = "The processes using the most CPU right now (100% is one full core):\n"
    text += "\n".join(_line(r, voice, f"{r.share:.1f}% CPU") for r in shown)
    if shown[0].share < 5 and not voice.brief:
        text += "\nNothing is working hard: the machine is mostly idle."
    return text


def top_memory(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    found = rows(results[0].stdout, params.get("self_pid", "")) if results else []
    if not found:
        return "I couldn't read the process list."
    found.sort(key=lambda r: r.rss_kib, reverse=True)
    shown = found[: _wanted(params, voice)]
    text = "The processes using the most memory (resident, in MiB):\n"
    text += "\n".join(_line(r, voice, f"{r.share:.1f}% of memory") for r in shown)
    if not voice.brief:
        total = sum(r.rss_kib for r in found) / 1024
        text += (f"\nTogether {_count(len(found))} hold {total:.0f} MiB "
                 "(shared pages counted once per process).")
    return text


def find(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    found: list[Row] = []
    missing: list[str] = []
    for result in results:
        got = rows(result.stdout)
        if got:
            found += got
        else:
            missing.append(params.get(f"target:{result.step_id}", "that process"))
    if not found:
        if params.get("program"):  # looked up by name in the live process table
            return f"No: nothing called {clean(params['program'])} is running."
        return (f"No: process {', '.join(clean(m) for m in missing)} is not running any more."
                if missing else "That process is not running.")
    programs = sorted({clean(r.program) for r in found})
    head = (f"Yes, {programs[0]} is running" if len(programs) == 1
            else f"Yes, these are running ({', '.join(programs)})")
    head += f": {_count(len(found))}."
    lines = []
    for r in found[: 5 if voice.brief else 20]:
        since = f", up {r.elapsed}" if r.elapsed and not voice.brief else ""
        lines.append(f"  pid {r.pid} ({clean(r.user)}{since}): {r.share:.1f}% CPU, "
                     f"{r.mib:.1f} MiB \u2014 {_command(r, voice)}")
    if len(found) > len(lines):
        lines.append(f"  and {len(found) - len(lines)} more")
    text = head + "\n" + "\n".join(lines)
    if missing and not voice.brief:
        text += f"\nGone since I last looked: {', '.join(clean(m) for m in missing)}."
    return text


def by_user(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`pgrep -a -u USER`: one "pid command line" per process (exit 1 when none)."""
    user = clean(params.get("user", "that user"))
    skip = params.get("self_pid", "")
    found = []
    for line in (results[0].stdout if results else "").splitlines():
        pid, _, args = line.strip().partition(" ")
        if pid.isdigit() and pid != skip and args.strip():
            found.append((pid, args.strip()))
    if not found:
        return f"{user} is running no processes right now."
    shown = found[: 8 if voice.brief else 25]
    limit = 400 if voice.detailed else 90
    lines = []
    for pid, args in shown:
        args = clean(args)
        args = args if len(args) <= limit else args[: limit - 1] + "\u2026"
        lines.append(f"  pid {pid}: {args}")
    if len(found) > len(shown):
        lines.append(f"  and {len(found) - len(shown)} more")
    return f"{user} runs {_count(len(found))}:\n" + "\n".join(lines)


def port(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    wanted = params.get("port", "")
    holders: dict[str, set[str]] = {}
    for line in results[0].stdout.splitlines() if results else []:
        parts = line.split()
        if len(parts) < 5:
            continue
        local = parts[4]
        if wanted and local.rsplit(":", 1)[-1] != wanted:
            continue
        who = _SS_USERS.findall(line)
        names = [f"{clean(n)} (pid {p})" for n, p in who] or [
            "a process ss didn't name (other users' sockets need root)"]
        for name in names:
            holders.setdefault(name, set()).add(f"{parts[0]} {clean(local)}")
    if not holders:
        return f"Nothing is listening on port {wanted}." if wanted else "Nothing is listening."
    if wanted:
        said = "; ".join(f"{name} on {', '.join(sorted(where))}"
                         for name, where in sorted(holders.items()))
        return f"Port {wanted} is held by {said}."
    lines = [f"  {name}: {', '.join(sorted(where))}" for name, where in sorted(holders.items())]
    return "Listening sockets by process:\n" + "\n".join(lines)


ANSWERS = {
    "process_top_cpu": top_cpu,
    "process_top_memory": top_memory,
    "process_find": find,
    "process_by_user": by_user,
    "process_port": port,
}
# `ps -p`, `pgrep` and `ss` exit 1 when nothing matches: that is the answer, not a failure
TOLERANT = {"process_find", "process_by_user", "process_port"}
