"""The live state of one process, and how a nice value is put back.

`current` reads (never changes) a process by pid with psutil: whether it still exists,
its status, program name, command line, owner and nice value; the journal records that
before a step touches it. `restore` is only for renice: the command that sets the nice
value back to the recorded one (an ended or killed process cannot be brought back, so
terminate and kill have none). `problem` says whether a step reached its goal: a process
sent SIGTERM or SIGKILL is gone (a zombie waiting for its parent counts as gone), a
reniced one has the nice value asked for. `protected_pids` names the processes reos must
never end: init (pid 1), reos itself and the shell that started it.

Not responsible for deciding which processes a request names (the matcher) or for
refusing to plan against a protected pid (the plan builder calls `protected_pids`).
"""

from __future__ import annotations

import os
from typing import Any

GONE = "gone"
_ENDING = ("terminate", "kill")
_RENICE = ("renice", "lower_priority", "lowest_priority")


def protected_pids() -> set[int]:
    """Processes reos never ends: init, reos itself and the shell (or program) that
    started it."""
    return {1, os.getpid(), os.getppid()}


def is_protected(pid: int | str) -> bool:
    try:
        return int(pid) in protected_pids()
    except (TypeError, ValueError):
        return False


def current(kind: str, name: str) -> dict[str, Any] | None:
    """{"state": status or "gone", "pid", "name", "cmdline", "user", "nice"}; None for a
    name that is not a pid."""
    if kind != "process" or not str(name).isdigit():
        return None
    import psutil  # deferred: planning a query never needs it

    pid = int(name)
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            status = proc.status()
            info: dict[str, Any] = {"state": status, "pid": pid, "name": proc.name()}
            try:
                info["cmdline"] = " ".join(proc.cmdline())[:1000]
            except (psutil.AccessDenied, psutil.ZombieProcess):
                info["cmdline"] = ""
            try:
                info["user"] = proc.username()
            except (psutil.AccessDenied, KeyError):
                info["user"] = ""
            try:
                info["nice"] = proc.nice()
            except psutil.AccessDenied:
                pass
    except psutil.NoSuchProcess:
        return {"state": GONE, "pid": pid}
    except psutil.AccessDenied as exc:
        return {"state": "unknown", "pid": pid, "reason": f"access denied ({exc})"[:200]}
    if status == psutil.STATUS_ZOMBIE:
        info["state"] = GONE  # it has exited; only its parent's bookkeeping is left
        info["zombie"] = True
    return info


def _live_nice(pid: str, program: str | None) -> int | None:
    """The nice value of `pid` right now, when it is still the program the plan was made
    for (a pid reused by another program is not read)."""
    import psutil

    try:
        proc = psutil.Process(int(pid))
        if program and proc.name() != program:
            return None
        return int(proc.nice())
    except (psutil.Error, ValueError):
        return None


def restore(kind: str, name: str, prior: dict[str, Any], action: str | None
            ) -> list[str] | None:
    """The argv that sets a reniced process's nice value back; None for anything else
    (an ended process is not brought back)."""
    if kind != "process" or action not in _RENICE or not str(name).isdigit():
        return None
    if prior.get("state") == GONE:
        return None
    nice = prior.get("nice")
    if not isinstance(nice, int):
        # at plan time the prior state is only the snapshot's program name: read the
        # value the process has now, which is what the step will change
        nice = _live_nice(name, prior.get("state") if "pid" not in prior else prior.get("name"))
    if not isinstance(nice, int) or not -20 <= nice <= 19:
        return None
    return ["renice", "-n", str(nice), "-p", str(name)]


def problem(kind: str, action: str | None, state: dict[str, Any]) -> str | None:
    """What is wrong after a step: a process that should have ended still runs."""
    if kind != "process":
        return None
    status = state.get("state")
    if action in _ENDING and status not in (GONE, None, "unknown"):
        return f"is still running ({status})"
    if action in _RENICE and status == GONE:
        return "has exited"
    return None
