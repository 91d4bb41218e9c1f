"""What one step's command does wrong: the named anti-patterns in a plan's commands, and
the rough shell reading needed to find them (the engineering and maintainability
findings of the design notes' Quality Commitment Framework).

`step_findings(step, author, request)` reads one `Step` and returns its `AntiPattern`s:
ignored or hidden errors (`|| true`, `2>/dev/null`, `set +e`), a useless `cat file |`,
appends that repeat (`>>`), prompts a step without a terminal cannot answer (`apt-get
install` without `-y`, `rm -i`, `docker run -it`), non-idempotent forms (`mkdir` without
`-p`, `ln -s` without `-f`, `useradd`), and, in commands a model or a user's template
wrote, hard-coded addresses and home paths the request did not name. Shell text (a shell
step, or the payload of `sh -c`) is split into simple commands by a small tokenizer
(`_commands`), and wrappers such as `sudo -n`, `env X=1`, `nice` are looked through.

Pure and fast (it runs for every step of every plan): no I/O, no subprocess, no
settings; imports only `re`, `reos.text` and, to look through wrappers, the risk
engine's wrapper table (`reos.safety.wrappers`, the one table both read). Not
responsible for the score, the label, the other layers' reasons or the rendering
(reos.planning.quality does those), nor for parsing shell exactly: it reads shell text
well enough to name habits, never to run it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec import Struct

from reos.patterns import regex
from reos.text import clean

if TYPE_CHECKING:
    from typing import Any

    from reos.model.plan import Step

# Why each named habit matters, in the words a plan note and the JSON carry.
WHY = {
    "ignored-errors": "a failure is reported as success, so later steps run on a broken state",
    "hidden-errors": "the error message is thrown away, so a failure cannot be diagnosed",
    "useless-cat": "the command can read the file itself; the pipe adds a process and "
                   "hides which file failed",
    "hard-coded-ip": "the address ties the command to one network; it breaks when the "
                     "address changes",
    "home-path": "the path ties the command to one person's account",
    "interactive": "reos runs steps without a terminal: a prompt fails or waits forever",
    "not-idempotent": "running it a second time fails or changes more",
}

SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "ash"}
_PACKAGERS = {"apt-get", "apt", "aptitude", "dnf", "yum", "microdnf", "zypper", "pacman",
              "apk", "pip", "pip3"}
_APT_CHANGES = {"install", "remove", "purge", "upgrade", "dist-upgrade", "full-upgrade",
                "autoremove", "reinstall", "build-dep"}
_DNF_CHANGES = {"install", "remove", "erase", "upgrade", "update", "autoremove", "reinstall",
                "downgrade", "distro-sync", "groupinstall", "groupremove"}
_ZYPPER_CHANGES = {"install", "in", "remove", "rm", "update", "up", "dist-upgrade", "dup",
                   "patch"}
_NON_INTERACTIVE = {"-y", "--yes", "--assume-yes", "--assumeyes", "--noconfirm",
                    "--non-interactive", "-n", "-qq", "--force-yes"}

# Shell text (a shell step, or the payload of `sh -c`): error handling and pipes.
_IGNORED = regex(r"\|\|\s*(?:true|:|/bin/true|exit\s+0)(?=\s*(?:$|[;&|)\n]))"
                      r"|;\s*(?:true|:)\s*(?:$|\))|\bset\s+\+e\b|\bset\s+\+o\s+errexit\b")
_HIDDEN = regex(r"(?:\b2|&)>\s*/dev/null|\b2>&-|>\s*/dev/null\s+2>&1")
_USELESS_CAT = regex(r"(?:^|[;&|(]\s*)(cat\s+(?!-)[^\s|;&<>()]+\s*\|\s*[\w./-]+)")
_APPEND = regex(r">>\s*[^\s;&|)]+")
_IPV4 = regex(r"(?<![\w.])((?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
                   r"(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})(?![\w.])")
_IPV6 = regex(r"(?<![\w:])([0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})(?![\w:])")
_HOME = regex(r"(?:^|(?<=[\s=:'\"]))(/home/[\w.-]+|~[\w.-]*/|/root(?=/|$|\s))")


class AntiPattern(Struct):
    """A named bad habit in one step's command, and who wrote that command."""

    step_id: str
    name: str  # ignored-errors, hidden-errors, useless-cat, hard-coded-ip, home-path, ...
    says: str  # the part of the command that shows it (untrusted text, cleaned)
    why: str
    provided_by: str  # model | template | reos

    def to_dict(self) -> dict[str, Any]:
        return {"step_id": self.step_id, "name": self.name, "says": self.says, "why": self.why,
                "provided_by": self.provided_by}


def step_findings(step: Step, author: str, request: str,
                  ) -> tuple[list[AntiPattern], bool, bool]:
    """A step's anti-patterns, whether it states a non-interactive flag, whether it has
    shell text."""
    found: list[AntiPattern] = []
    seen: set[tuple[str, str]] = set()

    def add(name: str, says: str) -> None:
        says = clean(says.strip())[:80]
        if (name, says) not in seen:
            seen.add((name, says))
            found.append(AntiPattern(step.id, name, says, WHY[name], author))

    argv = _unwrapped(list(step.argv))
    texts: list[str] = []
    if step.shell:
        texts.append(step.argv[0] if len(step.argv) == 1 else " ".join(step.argv))
    elif len(argv) >= 3 and _base(argv[0]) in SHELLS:
        flag = next((i for i, a in enumerate(argv[1:3], 1) if a.startswith("-")
                     and "c" in a and not a.startswith("--")), None)
        if flag is not None and flag + 1 < len(argv):
            texts.append(argv[flag + 1])
    commands = [argv] if not texts else [c for t in texts for c in _commands(t)]
    flagged = False
    for command in commands:
        flagged |= _command_findings(command, add, reos_checked=author == "reos"
                                     and step.target is not None)
    for text in texts:
        for m in _IGNORED.finditer(text):
            add("ignored-errors", m.group(0).lstrip(";"))
        for m in _HIDDEN.finditer(text):
            add("hidden-errors", m.group(0))
        for m in _USELESS_CAT.finditer(text):
            add("useless-cat", m.group(1))
        for m in _APPEND.finditer(text):
            add("not-idempotent", m.group(0).lstrip())
    if author != "reos":  # reos puts only what the request named into its commands
        joined = " ".join(step.argv)
        _hard_coded(joined, request, argv, add)
    return found, flagged, bool(texts)


def _hard_coded(text: str, request: str, argv: list[str], add: Any) -> None:
    pinned = argv and _base(argv[0]) in _PACKAGERS  # pkg=1.2.3.4 is a version, not a host
    for m in _IPV4.finditer(text):
        ip = m.group(1)
        if ip.startswith("127.") or ip == "0.0.0.0" or ip in request:
            continue  # loopback and "every address" mean the same on every machine
        if pinned and text[max(0, m.start() - 1)] == "=":
            continue
        add("hard-coded-ip", ip)
    for m in _IPV6.finditer(text):
        ip = m.group(1)
        if _is_ipv6(ip) and ip not in ("::1", "::") and ip not in request:
            add("hard-coded-ip", ip)
    for m in _HOME.finditer(text):
        if m.group(1) not in request:
            add("home-path", m.group(1))


def _is_ipv6(text: str) -> bool:
    if not any(c.isdigit() for c in text) or text.count("::") > 1:
        return False
    groups = [g for g in text.replace("::", ":").split(":") if g]
    if any(len(g) > 4 for g in groups):
        return False
    return len(groups) == 8 or ("::" in text and len(groups) < 8)


# certbot's subcommands that ask at a prompt unless told not to (no subcommand is `run`)
_CERTBOT_ASKS = frozenset({"run", "certonly", "install", "delete", "revoke", "register",
                           "unregister", "enhance"})


def _command_findings(argv: list[str], add: Any, reos_checked: bool) -> bool:
    """Interactive and non-idempotent forms of one simple command; True when it states
    a non-interactive flag a package manager needs."""
    argv = _unwrapped(argv)
    if not argv:
        return False
    prog, args = _base(argv[0]), argv[1:]
    shown = " ".join(argv)[:80]
    opts = {a for a in args if a.startswith("-")}
    words = [a for a in args if not a.startswith("-")]
    short = "".join(a[1:] for a in opts if not a.startswith("--"))
    flagged = False
    changes = _package_change(prog, args, words)
    if changes:
        yes = bool(opts & _NON_INTERACTIVE) or (prog in ("apt-get", "apt", "aptitude", "dnf",
                                                         "yum", "microdnf") and "y" in short)
        yes |= any(a.lower().endswith("assume-yes=true") for a in args)
        if prog == "apk" and "-i" not in opts and "--interactive" not in opts:
            yes = True  # apk asks nothing unless told to
        if yes:
            flagged = prog != "apk"
        else:
            add("interactive", shown)
    if prog in ("rm", "cp", "mv", "ln") and ("-i" in opts or "--interactive" in opts
                                            or ("i" in short and prog != "ln")):
        add("interactive", shown)
    if prog in ("docker", "podman") and words[:1] in (["run"], ["exec"]) and (
            {"-it", "-ti", "--interactive", "--tty"} & opts):
        add("interactive", shown)
    if prog == "ufw" and words[:1] in (["enable"], ["reset"]) and not (
            {"-f", "--force"} & opts):
        add("interactive", shown)  # under SSH it asks "Proceed (y|n)?", hears no answer
        # and gives up, exiting 0: the change silently never happens
    if prog == "certbot" and (not words or words[0] in _CERTBOT_ASKS) and not (
            {"-n", "--non-interactive", "--noninteractive"} & opts):
        add("interactive", shown)  # it asks for an e-mail, the terms, which names, or
        # "are you sure" (delete, revoke); `renew` and `certificates` ask nothing
    if prog == "adduser" and len(words) == 1 and not any(
            a.startswith(("--gecos", "--comment")) for a in args):
        add("interactive", shown)  # Debian's adduser asks for a name and a password
    if prog == "mkdir" and not ({"-p", "--parents"} & opts or "p" in short):
        add("not-idempotent", shown)
    if prog == "ln" and ("s" in short or "--symbolic" in opts) and not (
            {"-f", "--force"} & opts or "f" in short):
        add("not-idempotent", shown)
    if prog in ("useradd", "groupadd", "adduser", "addgroup") and not reos_checked and not (
            prog == "groupadd" and ({"-f", "--force"} & opts)):
        add("not-idempotent", shown)  # reos adds an account only after finding it absent
    return flagged


def _package_change(prog: str, args: list[str], words: list[str]) -> bool:
    if prog in ("apt-get", "apt", "aptitude"):
        return bool(words) and words[0] in _APT_CHANGES
    if prog in ("dnf", "yum", "microdnf"):
        return bool(words) and words[0] in _DNF_CHANGES
    if prog == "zypper":
        return bool(words) and words[0] in _ZYPPER_CHANGES
    if prog == "pacman":
        return any(a.startswith(("-S", "-R", "-U")) and a not in ("-Ss", "-Si", "-Sl")
                   for a in args)
    if prog == "apk":
        return bool(words) and words[0] in ("add", "del", "upgrade")
    return False


def _unwrapped(argv: list[str]) -> list[str]:
    """argv without the programs that only run another one (sudo -n, env X=1, nice…),
    read with the risk engine's own wrapper table (`safety.wrappers`)."""
    from reos.safety.wrappers import unwrap

    i = 0
    while i < len(argv) and "=" in argv[i] and not argv[i].startswith("-") and \
            argv[i].split("=", 1)[0].isidentifier():
        i += 1  # VAR=value before a command (shell text)
    real, _escalated = unwrap(argv[i:])
    return real


def _base(program: str) -> str:
    return program.rsplit("/", 1)[-1]


# Shell words, roughly as a POSIX shell reads them: operators, quoted strings, escapes and
# plain runs; a lone unbalanced quote is kept as a character. (shlex does the same ten
# times slower, and this runs for every shell step of every plan.)
_TOKEN = regex(r"""(?P<redir>\d*(?:>>?|<)(?:&(?:\d+|-))?|&>>?)|(?P<op>[;&|()\n]+)"""
                    r"""|'(?P<sq>[^']*)'|"(?P<dq>(?:\\.|[^"\\])*)"|\\(?P<esc>.)"""
                    r"""|(?P<word>[^\s;&|()'"\\<>]+)|(?P<odd>\S)""", re.S)
_DQ_ESCAPE = regex(r'\\([\\"$`])')
_REDIRECTION = regex(r"^\d*(?:>>?|<)|^&>")


def _commands(text: str) -> list[list[str]]:
    """The simple commands of shell text, each as words without redirections."""
    commands: list[list[str]] = [[]]
    word: list[str] = []
    end = -1
    for m in _TOKEN.finditer(text):
        if word and m.start() != end:  # whitespace ended the word
            commands[-1].append("".join(word))
            word = []
        end = m.end()
        kind = m.lastgroup
        if kind == "redir":  # a redirection is a word of its own, with its file if attached
            if word:
                commands[-1].append("".join(word))
            word = [m.group()]
        elif kind == "op":
            if word:
                commands[-1].append("".join(word))
                word = []
            commands.append([])
        elif kind == "dq":
            word.append(_DQ_ESCAPE.sub(r"\1", m.group("dq")))
        else:
            word.append(m.group(kind or "odd") or "")
    if word:
        commands[-1].append("".join(word))
    return [_without_redirections(c) for c in commands if c]


def _without_redirections(words: list[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for w in words:
        if skip:
            skip = False
        elif _REDIRECTION.match(w):
            skip = _REDIRECTION.sub("", w) in ("", "&")  # `> file`: the file is next
        else:
            kept.append(w)
    return kept
