"""Targets that are named, not found: packages to install, new users and groups, the
process holding a port, the work a person runs ("his process"), and packages asked
about by a name they are known by.

Each function checks the words (strict name patterns, already there or not) and says
what it found on the plan. Not responsible for matching names of things that exist (the
matcher does) or for steps (the plan builder does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.model.plan import Plan
from reos.model.request import Intent, Kind
from reos.model.target import Target
from reos.patterns import regex
from reos.planning import guards
from reos.system.snapshot import SystemSnapshot
from reos.understanding.matcher import TargetMatcher
from reos.understanding.names import SAFE_NAMES
from reos.words import replies

if TYPE_CHECKING:
    from typing import Any


def to_install(plan: Plan, phrases: list[str], snapshot: SystemSnapshot,
               aliases: dict[str, list[str]]) -> tuple[list[Target], list[str]]:
    """(packages to install, requested packages that are already installed)."""
    installed = {p.name: p.version for p in snapshot.packages or []}
    targets, present = [], []
    if not phrases:
        plan.kind = Kind.CLARIFY
        plan.ask("Which packages should I install?")
        return [], []
    for phrase in phrases:
        known = [n for n in aliases.get(phrase, [])
                 if n in installed]
        if phrase not in installed and known:  # "install docker" where docker.io is
            plan.notes.append(f"{phrase} is already installed (as {known[0]}"
                              f" {installed[known[0]]})")
            present.append(known[0])
            continue
        if phrase in ("all", "everything"):
            plan.said = ["I can't install everything; tell me which packages you want."]
            return [], []
        if not SAFE_NAMES["package"].match(phrase):
            plan.said = [f"\u201c{phrase}\u201d doesn't look like a package name, so I "
                         "won't pass it to the package manager."]
            return [], []
        if phrase in installed:
            plan.notes.append(f"{phrase} is already installed ({installed[phrase]})")
            present.append(phrase)
            continue
        targets.append(Target("package", phrase, "absent"))
    if snapshot.packages is None:
        plan.notes.append("I couldn't read the installed packages, so some of these may "
                          "already be there")
    plan.targets = targets
    return targets, present


def listener(plan: Plan, intent: Intent, snapshot: SystemSnapshot,
             matcher: TargetMatcher) -> list[Target]:
    """"kill whatever is on port 3000": the process listening there, by its pid."""
    port = intent.params["port"]
    listening = getattr(snapshot, "listening", None) or []
    pids = sorted({str(entry.pid) for entry in listening
                   if str(entry.port) == port and entry.pid})
    index = matcher.index("process")
    known = {t.name: t for t in index.targets} if index is not None else {}
    targets = [known.get(pid) or Target("process", pid, "") for pid in pids]
    if not targets:
        plan.said = [f"Nothing I can see is listening on port {port}"
                     + ("" if listening else " (I couldn't read the listening ports)")
                     + ", so there's nothing to do."]
        return []
    plan.targets = targets
    return targets


# what keeps a person's session going, not the work they run in it: their systemd
# manager, login shells, terminal multiplexers, ssh and the agents and buses of a desktop
_SESSION = frozenset({"systemd", "(sd-pam)", "sd-pam", "sshd", "ssh-agent", "gpg-agent",
                      "dbus-daemon", "dbus-broker", "tmux", "screen", "mosh-server", "login",
                      "pipewire", "pipewire-pulse", "wireplumber", "pulseaudio",
                      "gnome-keyring-daemon", "at-spi-bus-launcher", "at-spi2-registryd"})
_SHELLS = frozenset({"bash", "zsh", "sh", "dash", "fish", "ksh", "tcsh"})


def session(process: Any) -> bool:
    """Whether a process only keeps its owner's session going (a login shell, tmux, the
    user's systemd), or is a zombie: what "his process" never means."""
    name = process.name.split(":", 1)[0].strip().lower()
    args = (process.cmdline or "").split()
    if "<defunct>" in (process.cmdline or ""):
        return True
    if name in _SHELLS:
        return len(args) <= 1 or args[1].startswith("-")  # not `bash backup.sh`
    return name in _SESSION


def programs(processes: list[Any]) -> dict[Any, list[Any]]:
    """Each program among `processes` with its workers: a process whose parent (among
    them) runs the same command line belongs to that parent's program."""
    by_pid = {p.pid: p for p in processes}
    found: dict[Any, list[Any]] = {}
    for p in processes:
        root, seen = p, {p.pid}
        while root.ppid in by_pid and root.ppid not in seen and (
                by_pid[root.ppid].cmdline == root.cmdline):  # a hostile snapshot's
            root = by_pid[root.ppid]  # parent loop ends here
            seen.add(root.pid)
        found.setdefault(root, []).append(p)
    return found


def owners_work(plan: Plan, intent: Intent, account: str, snapshot: SystemSnapshot,
                matcher: TargetMatcher) -> list[Target]:
    """"lower the priority of rafael's process", "kill his job": what the account runs
    beyond its session. One program (with its workers, children running the same
    command) is that process; several are asked about, unless all were asked for."""
    index = matcher.index("process")
    known = {t.name: t for t in index.targets} if index is not None else {}
    mine = [p for p in getattr(snapshot, "processes", None) or []
            if p.user == account and not session(p) and guards.untouchable(
                known.get(str(p.pid)) or Target("process", str(p.pid), p.name),
                intent.action or "", snapshot) is None]  # never reos itself
    if not mine:
        plan.said = [f"{account} runs nothing here besides their session (shells, "
                     "tmux, their systemd), so there's nothing to do."]
        return []
    roots = list(programs(mine))
    if len(roots) > 1 and not intent.plural:
        plan.kind = Kind.CLARIFY
        plan.options = [(f"the process {p.pid} ({p.cmdline or p.name})", replace(
            intent, targets=[str(p.pid)], resource="process", plural=False,
            params={k: v for k, v in intent.params.items() if k != "owner"}))
            for p in roots]
        plan.ask(replies.which_target(f"{account}'s process", plan.options))
        return []
    targets = [known.get(str(p.pid)) or Target("process", str(p.pid), p.name,
                                                detail=p.cmdline) for p in mine]
    plan.targets = targets
    return targets


# words that say how many, never what a new thing is called
_QUANTIFIERS = frozenset({"all", "everything", "every", "each", "any", "anything", "none",
                          "nothing", "everyone", "everybody", "both"})


_PRONOUNS = frozenset({"me", "you", "him", "her", "us", "them", "it", "he", "she", "they",
                       "we", "i", "his", "their", "my", "our", "your"})


def to_create(plan: Plan, kind: str, phrases: list[str],
              matcher: TargetMatcher) -> list[Target]:
    """New names ("create user dave"): each must look like a name of that kind and not
    exist yet; the plan says so otherwise."""
    index = matcher.index(kind)
    existing = {t.name.lower() for t in index.targets} if index is not None else set()
    # "create her an account as smarchetti": her is whom it is for, never its name;
    # "create everything" gives no name at all
    phrases = [p for p in phrases if p.lower() not in _PRONOUNS]
    if not phrases or any(p.lower() in _QUANTIFIERS for p in phrases):
        plan.kind = Kind.CLARIFY
        plan.ask(f"What should the new {kind} be called?")
        return []
    targets = []
    for phrase in phrases:
        if not SAFE_NAMES[kind].match(phrase):
            plan.said = [f"\u201c{phrase}\u201d can't be a {kind} name (lowercase"
                         " letters, digits, - and _)."]
            return []
        if phrase.lower() in existing:
            plan.said = [f"There is already a {kind} called {phrase}, so there's "
                         "nothing to do."]
            return []
        targets.append(Target(kind, phrase, "absent"))
    plan.targets = targets
    return targets


def package_names(plan: Plan, phrases: list[str], snapshot: SystemSnapshot,
                  aliases: dict[str, list[str]]) -> list[Target]:
    installed = {p.name for p in snapshot.packages or []}
    aliases = aliases
    # "is docker installed?": the installed package the word is known by, if any
    phrases = [p if p in installed else next(
        (n for n in aliases.get(p, []) if n in installed), p) for p in phrases]
    good = [p for p in phrases if SAFE_NAMES["package"].match(p)]
    if len(good) != len(phrases):
        bad = next(p for p in phrases if p not in good)
        plan.said = [f"\u201c{bad}\u201d doesn't look like a package name."]
        return []
    plan.targets = [Target("package", p) for p in good]
    return plan.targets


def program(intent: Intent, targets: list[Target], plan: Plan) -> str | None:
    """The program a "find the X process" question names when the snapshot, which lists
    only the processes using the most and those listening, holds none of that name: the
    live process table is then asked by program name (`ps -C`). None otherwise."""
    if targets or intent.resource != "process" or intent.action != "find" or len(
            intent.targets) != 1:
        return None
    word = intent.targets[0].lower()
    if plan.kind == Kind.CLARIFY and plan.options:
        return None  # a name that fits several things: the question stands
    return word if _PROGRAM.fullmatch(word) and not word.isdigit() else None


_PROGRAM = regex(r"[a-z0-9][a-z0-9_.+-]{0,14}")  # a process name as the kernel keeps it


def missing_program(needs: list[str], snapshot: SystemSnapshot,
                    summary: str | None) -> str | None:
    """What reos says instead of a plan whose program is not installed here: `needs` are
    the packages of which one provides it (a recipe's `needs`: certbot), `summary` what the
    operation would have done. None when one of them is installed, when the recipe needs
    none, or when the snapshot could not list the packages (then the steps are planned,
    and their own error says it)."""
    if not needs or snapshot.packages is None:
        return None
    installed = {p.name for p in snapshot.packages}
    if installed & set(needs):
        return None
    cannot = f", so I can't {summary}" if summary else ""
    return (f"{needs[0]} is not installed here (no {needs[0]} package is listed){cannot}: "
            f"I have planned nothing. Say \u201cinstall {needs[0]}\u201d to install it.")
