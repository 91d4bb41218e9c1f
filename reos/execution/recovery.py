"""Recovery: the small, well-understood fix for a diagnosed failure, or "stop and ask".

The design notes' table: a stale package cache -> refresh, then retry; a missing command
-> install the package that provides it (a new install, so it needs approval); permission
denied -> retry with sudo (an escalation); transient or busy -> wait with backoff, then
retry; already exists -> treat as done. Not found, conflict, invalid usage, system and
unknown errors -> stop, explain, suggest (for an unknown error the executor may then ask
a model for one fix step: `reos.llm.recovery`). Pure: it proposes; the executor decides
whether the limits allow it and runs it.
"""

from __future__ import annotations

from msgspec import Struct, field

from reos.execution.classifier import (
    BUSY,
    CONFLICT,
    EXISTS,
    INVALID,
    MISSING,
    NOT_FOUND,
    PERMISSION,
    SYSTEM,
    TRANSIENT,
    Diagnosis,
)
from reos.model.plan import Step
from reos.model.risk import RiskLevel
from reos.system.privilege import as_root

MAX_RECOVERIES = 3  # per execution (design notes: "Maximum 3 recovery attempts")
MAX_PER_CATEGORY = 2  # "Maximum 2 fix attempts per error type"
BACKOFF_SECONDS = (3.0, 6.0)

REFRESH = {"apt": ["apt-get", "update"], "dnf": ["dnf", "makecache"], "pacman": ["pacman", "-Sy"],
           "zypper": ["zypper", "--non-interactive", "refresh"], "apk": ["apk", "update"]}
INSTALL = {"apt": ["apt-get", "install", "-y"], "dnf": ["dnf", "install", "-y"],
           "pacman": ["pacman", "-S", "--noconfirm", "--needed"],
           "zypper": ["zypper", "--non-interactive", "install"], "apk": ["apk", "add"]}
# commands whose package has another name (otherwise the package is named like the command)
PROVIDERS = {"ip": "iproute2", "ss": "iproute2", "dig": "dnsutils", "nslookup": "dnsutils",
             "ifconfig": "net-tools", "netstat": "net-tools", "ps": "procps", "free": "procps",
             "top": "procps", "killall": "psmisc", "pstree": "psmisc", "lsof": "lsof",
             "curl": "curl", "wget": "wget", "rg": "ripgrep", "fd": "fd-find", "jq": "jq"}
SUGGESTIONS = {
    NOT_FOUND: "Check the name (\u201cwhat containers are running\u201d, \u201cwhich services "
               "failed\u201d), then ask again.",
    CONFLICT: "This needs a person to decide; look at the message above.",
    INVALID: "That looks like a bug in the plan; please report it with the message above.",
    SYSTEM: "Fix the machine first (free some disk, remount read-write, start the daemon), "
            "then ask again.",
}


class Fix(Struct):
    kind: str  # refresh | install | sudo | wait | done | ask | model
    explanation: str  # "Updating package cache first…"
    steps: list[Step] = field(default_factory=list)  # run before retrying
    retry: list[str] | None = None  # the failed step's argv to run again
    wait: float = 0.0
    escalates: bool = False
    needs_approval: bool = False
    why: str = ""  # a model's fix: the model's own reason, cleaned (shown, never run)


def propose(diagnosis: Diagnosis, step: Step, *, manager: str | None, is_root: bool,
            attempt: int) -> Fix:
    """The fix for this diagnosis on its `attempt`-th try (0-based) for its category."""
    category = diagnosis.category
    if category == MISSING and diagnosis.details.get("stale_cache") and manager in REFRESH:
        refresh = Step(id="fix-refresh", title="Refresh the package lists",
                       argv=as_root(REFRESH[manager], is_root), risk=RiskLevel.LOW,
                       needs_root=not is_root, action="refresh")
        return Fix("refresh", "Updating package cache first\u2026", [refresh], step.argv)
    if category == MISSING and diagnosis.details.get("command") and manager in INSTALL:
        command = diagnosis.details["command"]
        package = PROVIDERS.get(command, command)
        install = Step(id="fix-install", title=f"Install {package} (provides {command})",
                       argv=as_root([*INSTALL[manager], package], is_root), risk=RiskLevel.MEDIUM,
                       needs_root=not is_root, action="install")
        return Fix("install", f"Installing {package}, which provides {command}\u2026", [install],
                   step.argv, needs_approval=True)
    if category == PERMISSION and not is_root and step.argv[:1] != ["sudo"]:
        return Fix("sudo", "Retrying with sudo\u2026", retry=as_root(step.argv, is_root),
                   escalates=True)
    if category in (TRANSIENT, BUSY):
        wait = BACKOFF_SECONDS[min(attempt, len(BACKOFF_SECONDS) - 1)]
        what = "the lock to be released" if category == BUSY else "the network"
        return Fix("wait", f"Waiting {wait:.0f}s for {what}, then retrying\u2026",
                   retry=step.argv, wait=wait)
    if category == EXISTS:
        return Fix("done", f"That's fine: {diagnosis.cause}. Treating the step as done.")
    suggestion = diagnosis.details.get("fix")
    hint = f"Run `{suggestion}` first." if suggestion else SUGGESTIONS.get(
        category, "I don't know a safe fix for this; please look at the message above.")
    return Fix("ask", f"I can't fix this on my own: {diagnosis.cause}. {hint}")
