"""First risk assessment of commands, by their argv.

A command line is split into simple commands (on `|`, `;`, `&&`, `||`, `&`), wrappers such
as `sudo`, `env`, `nice`, `nohup`, `timeout` and full paths are unwrapped, and each argv
is judged by rules keyed on the program. What cannot be tokenised is at least HIGH (fail
closed). Every verdict carries short reasons a person can read.

Not yet here (a later issue deepens this module): nested `sh -c`/`eval` strings,
interpreter one-liners, redirections onto devices, backups, scope drift.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from reos.model import RiskLevel

OPERATORS = {"|", "||", "&&", ";", "&", ";;", "|&"}
WRAPPERS = {"sudo", "doas", "env", "nice", "nohup", "timeout", "ionice", "stdbuf", "command"}
SYSTEM_DIRS = {
    "/", "/*", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc",
    "/root", "/sbin", "/srv", "/sys", "/usr", "/var", "~", "$HOME", "/home/*",
}
READ_ONLY = {
    "ls", "cat", "grep", "egrep", "head", "tail", "less", "more", "echo", "printf", "true",
    "pwd", "whoami", "id", "uname", "uptime", "free", "df", "du", "ps", "top", "who", "w",
    "hostname", "date", "journalctl", "wc", "sort", "uniq", "stat", "file", "which", "ip",
    "ss", "lsblk", "findmnt", "env", "printenv", "dpkg-query", "test", "[",
}
DISK_TOOLS = {"fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "wipefs", "mkswap"}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish"}
FIREWALLS = ("ufw", "firewalld", "nftables", "iptables", "netfilter-persistent")
CORE_PACKAGES = ("linux-image", "linux-generic", "kernel", "linux", "linux-lts", "openssh-server",
                 "systemd", "libc6", "glibc", "sudo", "grub", "dpkg", "apt", "rpm", "pacman")


@dataclass
class Verdict:
    command: str
    risk: RiskLevel = RiskLevel.SAFE
    blocked: bool = False
    reasons: list[str] = field(default_factory=list)
    needs_root: bool = False
    reversible: bool = True

    def raise_to(self, level: RiskLevel, reason: str, *, block: bool = False,
                 reversible: bool | None = None) -> None:
        self.risk = max(self.risk, level)
        self.blocked = self.blocked or block
        if reason not in self.reasons:
            self.reasons.append(reason)
        if reversible is False:
            self.reversible = False

    def to_dict(self) -> dict[str, object]:
        return {
            "schema": "reos.check/1",
            "command": self.command,
            "risk": self.risk.label,
            "blocked": self.blocked,
            "reasons": list(self.reasons),
            "needs_root": self.needs_root,
            "reversible": self.reversible,
        }


def split_commands(text: str) -> list[list[str]]:
    """Simple commands of a command line, as argv lists. Raises ValueError when unparseable."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    for token in lexer:
        if token in OPERATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def unwrap(argv: list[str]) -> tuple[list[str], bool]:
    """Strip wrappers and paths: (the real argv, whether sudo/doas was among them)."""
    escalated = False
    while argv:
        program = argv[0].rsplit("/", 1)[-1]
        if program not in WRAPPERS:
            return [program, *argv[1:]], escalated
        escalated = escalated or program in ("sudo", "doas")
        rest = argv[1:]
        # skip the wrapper's own options and arguments (env assignments, timeout's duration)
        while rest and (rest[0].startswith("-") or "=" in rest[0] or
                        (program == "timeout" and rest[0][:1].isdigit())):
            takes_value = program in ("sudo", "doas") and rest[0] in ("-u", "-g", "-C", "-h")
            rest = rest[2:] if takes_value else rest[1:]
        argv = rest
    return argv, escalated


def _flags(argv: list[str]) -> set[str]:
    out: set[str] = set()
    for arg in argv[1:]:
        if arg.startswith("--"):
            out.add(arg)
        elif arg.startswith("-") and len(arg) > 1:
            out.update(f"-{c}" for c in arg[1:])
    return out


def _operands(argv: list[str]) -> list[str]:
    return [a for a in argv[1:] if not a.startswith("-")]


def _is_system_path(path: str) -> bool:
    clean = path.rstrip("/") or "/"
    return clean in SYSTEM_DIRS or (clean.startswith("/home/") and clean.count("/") == 2)


def _judge(argv: list[str], verdict: Verdict) -> None:
    program, flags, operands = argv[0], _flags(argv), _operands(argv)
    if program in READ_ONLY:
        return
    if program == "rm":
        recursive = flags & {"-r", "-R", "--recursive"}
        targets = [o for o in operands if _is_system_path(o)]
        verdict.needs_root = verdict.needs_root or bool(targets)
        if recursive and targets:
            verdict.raise_to(RiskLevel.CRITICAL, f"recursive deletion of {targets[0]}",
                             block=True, reversible=False)
        elif all(o.startswith("/tmp/") for o in operands) and operands:
            verdict.raise_to(RiskLevel.LOW, "deletes files under /tmp", reversible=False)
        else:
            verdict.raise_to(RiskLevel.HIGH, "deletes files outside /tmp", reversible=False)
    elif program == "dd" and any(a.startswith("of=/dev/") for a in argv):
        verdict.raise_to(RiskLevel.CRITICAL, "writes raw data onto a device", block=True,
                         reversible=False)
    elif program.startswith("mkfs") or program in DISK_TOOLS:
        verdict.raise_to(RiskLevel.CRITICAL, f"{program} changes disks or partitions",
                         block=True, reversible=False)
    elif program in ("chmod", "chown") and flags & {"-R", "--recursive"}:
        if "777" in operands or any(_is_system_path(o) for o in operands):
            verdict.raise_to(RiskLevel.CRITICAL, f"recursive {program} of system paths or 777",
                             block=True)
        else:
            verdict.raise_to(RiskLevel.MEDIUM, f"recursive {program}")
    elif program in ("shutdown", "reboot", "poweroff", "halt"):
        verdict.raise_to(RiskLevel.HIGH, "shuts down or restarts the machine", reversible=False)
        verdict.needs_root = True
    elif program == "docker":
        _judge_docker(operands, verdict)
    elif program == "systemctl":
        verb = operands[0] if operands else ""
        if verb in ("status", "show", "is-active", "is-enabled", "list-units", "cat"):
            return
        units = operands[1:]
        stopping = verb in ("stop", "disable", "mask", "kill")
        if verb in ("poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"):
            verdict.raise_to(RiskLevel.HIGH, "shuts down or restarts the machine",
                             reversible=False)
        elif stopping and any(u.startswith(("ssh.", "sshd.", "ssh", "sshd")) and
                              u.split(".")[0] in ("ssh", "sshd") for u in units):
            verdict.raise_to(RiskLevel.HIGH, "stops remote (SSH) logins; you may lose access")
        elif stopping and any(u.split(".")[0] in FIREWALLS for u in units):
            verdict.raise_to(RiskLevel.HIGH, "turns off the firewall")
        else:
            verdict.raise_to(RiskLevel.MEDIUM, f"changes a service ({verb})")
        verdict.needs_root = True
    elif program == "ufw" and operands[:1] in (["disable"], ["reset"]):
        verdict.raise_to(RiskLevel.HIGH, "turns off the firewall")
        verdict.needs_root = True
    elif (program == "iptables" and flags & {"-F", "--flush"}) or (
            program == "nft" and operands[:2] == ["flush", "ruleset"]):
        verdict.raise_to(RiskLevel.HIGH, "removes every firewall rule")
        verdict.needs_root = True
    elif program in ("apt", "apt-get", "dnf", "yum", "pacman", "zypper", "apk", "dpkg"):
        verdict.raise_to(RiskLevel.MEDIUM, "changes installed packages")
        verdict.needs_root = True
        if "purge" in operands or "--purge" in flags:
            verdict.raise_to(RiskLevel.HIGH, "purges packages and their configuration",
                             reversible=False)
        names = [o for o in operands if o not in ("install", "remove", "purge", "upgrade",
                                                  "update", "add", "del", "autoremove")]
        core = [n for n in names if n.split("=")[0].startswith(CORE_PACKAGES)
                and not n.startswith("linux-") or n.split("=")[0].startswith("linux-image")
                or n.split("=")[0] in CORE_PACKAGES]
        if core:
            removing = any(o in ("remove", "purge", "del", "erase") for o in operands) or \
                flags & {"-R", "-Rns", "-Rs", "-e"}
            verdict.raise_to(RiskLevel.HIGH, ("removes" if removing else "changes")
                             + f" a core package, {core[0].split('=')[0]}")
    elif program in ("kill", "pkill", "killall"):
        if "1" in operands:
            verdict.raise_to(RiskLevel.CRITICAL, "kills PID 1 (init)", block=True)
        else:
            verdict.raise_to(RiskLevel.HIGH, "kills processes", reversible=False)
    elif program in ("curl", "wget"):
        verdict.raise_to(RiskLevel.LOW, "downloads from the network")
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"{program} is not a command reos knows to be safe")


def _judge_docker(operands: list[str], verdict: Verdict) -> None:
    verb = operands[0] if operands else ""
    if verb in ("ps", "inspect", "logs", "images", "version", "info", "stats", "top"):
        return
    if verb in ("rm", "rmi", "prune") or operands[:2] in (["volume", "rm"], ["system", "prune"],
                                                         ["volume", "prune"]):
        verdict.raise_to(RiskLevel.HIGH, "deletes containers, images or volumes",
                         reversible=False)
    elif verb == "start":
        verdict.raise_to(RiskLevel.LOW, "starts containers")
    elif verb in ("stop", "restart", "kill", "pause", "unpause"):
        verdict.raise_to(RiskLevel.MEDIUM, f"{verb}s containers")
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"docker {verb} changes the docker engine")


def assess_argv(argv: list[str]) -> Verdict:
    """Judge one argv that would be run without a shell."""
    verdict = Verdict(command=shlex.join(argv))
    real, escalated = unwrap(list(argv))
    verdict.needs_root = escalated
    if real:
        _judge(real, verdict)
    return verdict


def assess(command: str) -> Verdict:
    """Judge a command line as a shell would run it."""
    verdict = Verdict(command=command)
    compact = command.replace(" ", "")
    if ":(){" in compact and ":|:&" in compact:
        verdict.raise_to(RiskLevel.CRITICAL, "fork bomb", block=True)
        return verdict
    try:
        commands = split_commands(command)
    except ValueError as exc:
        verdict.raise_to(RiskLevel.HIGH, f"cannot be parsed ({exc}); treated as dangerous")
        return verdict
    previous: str | None = None
    for argv in commands:
        real, escalated = unwrap(argv)
        verdict.needs_root = verdict.needs_root or escalated
        if not real:
            continue
        if real[0] in SHELLS and previous in ("curl", "wget"):
            verdict.raise_to(RiskLevel.CRITICAL, "pipes a download straight into a shell",
                             block=True)
        else:
            _judge(real, verdict)
        previous = real[0]
    return verdict
