"""How good a plan is, before anyone approves it: a score, a label, the reasons, and the
anti-patterns its commands carry (the design notes' Quality Commitment Framework).

`assess(plan)` reads a finished `Plan` and judges it on four layers:
- engineering: idempotent forms (`mkdir -p`, `ln -sf`), explicit non-interactive flags
  (`apt-get install -y`), fail-fast (no `|| true`, `2>/dev/null`, `set +e`), no useless
  `cat file | grep`;
- maintainability: no hard-coded addresses or home paths in commands a model or a
  template wrote, every change undoable;
- gates: scope within `max_steps`, every change has a target state the executor reads
  back (verification);
- transparency: the plan carries its reasoning trace, every step has a title.
Each finding lowers the score by a fixed amount, so adding a problem never raises it.
`describe` renders the block shown before approval; `named_anti_patterns` the sentences
a plan carries about commands a model or the user's template wrote; `to_dict` is the
`quality` key of the plan JSON.

Pure and fast (it runs for every plan): no I/O, no subprocess, no settings; imports only
`re` and `reos.text`. Not responsible for deciding whether a plan may run (the
risk engine and the gates do), for rendering colours (the surfaces do), or for knowing
whose template built a plan: the Plan does not record a recipe's origin, so the caller
says so with `user_template` (see `provided_by`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from reos.text import clean

TYPE_CHECKING = False  # typing stays unimported at run time: `reos plan` starts faster
if TYPE_CHECKING:
    from typing import Any

    from reos.model import Plan, Step

# Labels by score. "excellent" also needs no named anti-pattern: a plan that hides an
# error is never excellent, however few other problems it has.
EXCELLENT, GOOD, FAIR = 0.85, 0.70, 0.50

# What each finding costs, in hundredths of the score.
COST = {
    "ignored-errors": 20,  # a failure reported as success: later steps run on a broken state
    "interactive": 20,  # a prompt with no terminal fails (or waits) mid-plan
    "hidden-errors": 15,
    "not-idempotent": 15,
    "hard-coded-ip": 15,
    "home-path": 15,
    "useless-cat": 5,  # costs a process, hides nothing
}
ANTI_PATTERN_CAP = 60  # many findings already say "poor"; the other layers still count
IRREVERSIBLE_COST, IRREVERSIBLE_CAP = 10, 20
OVER_SCOPE_COST = 20
UNVERIFIED_COST = 10
NO_TRACE_COST = UNTITLED_COST = 5

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

# Which (kind, action) pairs the executor can read back after a step (a copy of what
# reos/system/state.py `intended_state_problem` and the state_<kind>.py `problem`
# functions check; copied because those modules run commands, and this one must not
# import them). None: any action, the setting is read back whatever it was set to.
CHECKABLE: dict[str, frozenset[str] | None] = {
    "container": frozenset({"stop", "kill", "start", "restart", "restart_policy",
                            "restart_policy_off"}),
    "service": frozenset({"start", "restart", "reload", "enable_now", "stop", "disable_now",
                          "enable", "disable", "mask", "unmask"}),
    "package": frozenset({"install", "upgrade", "remove", "purge", "hold", "upgrade_except",
                          "unhold"}),
    "user": frozenset({"create", "delete", "delete_with_home", "lock", "unlock"}),
    "group": frozenset({"create"}),
    "process": frozenset({"terminate", "kill", "renice", "lower_priority",
                          "lowest_priority"}),
    "mount": frozenset({"unmount", "remount_ro"}),
    "firewall": frozenset({"allow", "deny", "delete_rule"}),
    "interface": None, "hostname": None, "timezone": None, "system": None,
}

SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "ash"}
_WRAPPER_ARG = {"sudo": {"-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t", "-D"},
                "nice": {"-n"}, "env": {"-u", "-C", "-S"}, "timeout": {"-s", "-k"},
                "nohup": set(), "ionice": {"-c", "-n", "-p"}, "stdbuf": set()}
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
_IGNORED = re.compile(r"\|\|\s*(?:true|:|/bin/true|exit\s+0)(?=\s*(?:$|[;&|)\n]))"
                      r"|;\s*(?:true|:)\s*(?:$|\))|\bset\s+\+e\b|\bset\s+\+o\s+errexit\b")
_HIDDEN = re.compile(r"(?:\b2|&)>\s*/dev/null|\b2>&-|>\s*/dev/null\s+2>&1")
_USELESS_CAT = re.compile(r"(?:^|[;&|(]\s*)(cat\s+(?!-)[^\s|;&<>()]+\s*\|\s*[\w./-]+)")
_APPEND = re.compile(r">>\s*[^\s;&|)]+")
_IPV4 = re.compile(r"(?<![\w.])((?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
                   r"(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})(?![\w.])")
_IPV6 = re.compile(r"(?<![\w:])([0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})(?![\w:])")
_HOME = re.compile(r"(?:^|(?<=[\s=:'\"]))(/home/[\w.-]+|~[\w.-]*/|/root(?=/|$|\s))")


@dataclass
class Reason:
    """One line of the assessment: something the plan does well (good) or not."""

    good: bool
    layer: str  # engineering | maintainability | gates | transparency
    text: str  # one short sentence; the ✓ / ✗ is the renderer's
    step_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"good": self.good, "layer": self.layer, "text": self.text,
                "step_id": self.step_id}


@dataclass
class AntiPattern:
    """A named bad habit in one step's command, and who wrote that command."""

    step_id: str
    name: str  # ignored-errors, hidden-errors, useless-cat, hard-coded-ip, home-path, ...
    says: str  # the part of the command that shows it (untrusted text, cleaned)
    why: str
    provided_by: str  # model | template | reos

    def to_dict(self) -> dict[str, Any]:
        return {"step_id": self.step_id, "name": self.name, "says": self.says, "why": self.why,
                "provided_by": self.provided_by}


@dataclass
class Assessment:
    score: float  # 0..1, two decimals
    label: str  # excellent | good | fair | poor
    reasons: list[Reason] = field(default_factory=list)
    anti_patterns: list[AntiPattern] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The `quality` key of the plan JSON."""
        return {"score": self.score, "label": self.label,
                "reasons": [r.to_dict() for r in self.reasons],
                "anti_patterns": [a.to_dict() for a in self.anti_patterns]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Assessment:
        """Back from `to_dict` (`Plan.quality` holds the JSON form), for the surfaces to
        `describe` it."""
        return cls(score=float(data.get("score") or 0), label=str(data.get("label") or ""),
                   reasons=[Reason(bool(r.get("good")), str(r.get("layer", "")),
                                   str(r.get("text", "")), r.get("step_id"))
                            for r in data.get("reasons") or []],
                   anti_patterns=[AntiPattern(str(a.get("step_id", "")), str(a.get("name", "")),
                                              str(a.get("says", "")), str(a.get("why", "")),
                                              str(a.get("provided_by", "reos")))
                                  for a in data.get("anti_patterns") or []])


def label_for(score: float, anti_patterns: int = 0) -> str:
    if score >= EXCELLENT and not anti_patterns:
        return "excellent"
    if score >= GOOD:
        return "good"
    return "fair" if score >= FAIR else "poor"


def provided_by(plan: Plan, *, user_template: bool = False) -> str:
    """Who wrote the plan's commands: "model" (a model's command no operation covers),
    "template" (a recipe from the user's own templates: the Plan does not record a
    recipe's origin, and `intent.template` names built-in and user operations alike,
    so the caller passes `templates.origin_is_user(recipe.origin)`), else "reos"."""
    intent = plan.intent
    if plan.source.startswith("llm") and intent is not None and intent.operation == "command":
        return "model"
    return "template" if user_template else "reos"


def assess(plan: Plan, *, max_steps: int = 25, verify: bool = True,
           user_template: bool = False) -> Assessment:
    """Score a plan on the four layers; see the module docstring."""
    author = provided_by(plan, user_template=user_template)
    request = plan.request or ""
    found: list[AntiPattern] = []
    explicit_flags = has_shell = False
    for step in plan.steps:
        step_found, flagged, shell = _step_findings(step, author, request)
        found.extend(step_found)
        explicit_flags |= flagged
        has_shell |= shell
    reasons: list[Reason] = []
    cost = min(ANTI_PATTERN_CAP, sum(COST[a.name] for a in found))
    changing = [s for s in plan.steps if not s.read_only]
    if not plan.steps:
        reasons.append(Reason(True, "gates", "Nothing to run"))
    elif len(plan.steps) > max_steps:
        cost += OVER_SCOPE_COST
        reasons.append(Reason(False, "gates", f"{len(plan.steps)} steps: more than "
                              f"{max_steps} to review at once"))
    else:
        reasons.append(Reason(True, "gates", "Concise plan with focused steps" if changing
                              else "Only reads: changes nothing"))
    _engineering(reasons, found, changing, explicit_flags, has_shell)
    if changing:
        cost += _gates_and_undo(reasons, changing, verify)
    cost += _transparency(reasons, plan)
    score = max(0, 100 - cost) / 100
    return Assessment(score=round(score, 2), label=label_for(score, len(found)),
                      reasons=reasons, anti_patterns=found)


def _engineering(reasons: list[Reason], found: list[AntiPattern], changing: list[Step],
                 explicit_flags: bool, has_shell: bool) -> None:
    """Reasons for the engineering layer (the findings' costs are counted by `assess`)."""
    names: dict[str, list[str]] = {}
    for a in found:
        steps = names.setdefault(a.name, [])
        if a.step_id not in steps:
            steps.append(a.step_id)
    for name, steps in names.items():
        layer = "maintainability" if name in ("hard-coded-ip", "home-path") else "engineering"
        where = steps[0] if len(steps) == 1 else ", ".join(steps)
        reasons.append(Reason(False, layer, f"{_SAYS[name]} ({where})",
                              steps[0] if len(steps) == 1 else None))
    if changing and "not-idempotent" not in names:
        reasons.append(Reason(True, "engineering", "Uses idempotent patterns"))
    if explicit_flags and "interactive" not in names:
        reasons.append(Reason(True, "engineering", "Explicit non-interactive flags"))
    if has_shell and not names.keys() & {"ignored-errors", "hidden-errors"}:
        reasons.append(Reason(True, "engineering", "Fails fast: no error is hidden or ignored"))


_SAYS = {
    "ignored-errors": "Ignores errors",
    "hidden-errors": "Hides error messages",
    "useless-cat": "Pipes a file through cat",
    "hard-coded-ip": "Hard-codes an address",
    "home-path": "Hard-codes a home path",
    "interactive": "May stop at a prompt",
    "not-idempotent": "Fails or repeats itself when run twice",
}


def _gates_and_undo(reasons: list[Reason], changing: list[Step], verify: bool) -> int:
    cost = 0
    unchecked = [s for s in changing if not checkable(s)]
    if not verify:
        cost += UNVERIFIED_COST
        reasons.append(Reason(False, "gates", "Verification is turned off"))
    elif unchecked:
        cost += UNVERIFIED_COST
        ids = ", ".join(s.id for s in unchecked)
        reasons.append(Reason(False, "gates", f"No state to check afterwards ({ids})",
                              unchecked[0].id if len(unchecked) == 1 else None))
    else:
        reasons.append(Reason(True, "gates", "Includes verification steps"))
    final = [s for s in changing if not s.reversible]
    if final:
        cost += min(IRREVERSIBLE_CAP, IRREVERSIBLE_COST * len(final))
        for s in final:
            reasons.append(Reason(False, "maintainability", "Cannot be undone", s.id))
    else:
        reasons.append(Reason(True, "maintainability", "Every change can be undone"))
    return cost


def _transparency(reasons: list[Reason], plan: Plan) -> int:
    cost = 0
    if plan.trace:
        reasons.append(Reason(True, "transparency", "Reasoning traced stage by stage"))
    else:
        cost += NO_TRACE_COST
        reasons.append(Reason(False, "transparency", "No reasoning trace"))
    untitled = [s for s in plan.steps if not (s.title or "").strip()]
    if untitled:
        cost += UNTITLED_COST
        for s in untitled:
            reasons.append(Reason(False, "transparency", "Step has no title", s.id))
    return cost


def checkable(step: Step) -> bool:
    """Whether the executor can read back the state this changing step should leave."""
    target, action = step.target, step.action
    if target is None or not action or target.kind not in CHECKABLE:
        return False
    actions = CHECKABLE[target.kind]
    return actions is None or action in actions


def _step_findings(step: Step, author: str, request: str,
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
    """argv without the programs that only run another one (sudo -n, env X=1, nice…)."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if "=" in word and not word.startswith("-") and word.split("=", 1)[0].isidentifier():
            i += 1  # VAR=value before a command (shell text) or after env
            continue
        wrapper = _WRAPPER_ARG.get(_base(word))
        if wrapper is None:
            break
        i += 1
        while i < len(argv) and argv[i].startswith("-"):
            i += 2 if argv[i] in wrapper else 1
            if argv[i - 1] == "--":
                break
        if _base(word) == "timeout" and i < len(argv):
            i += 1  # the duration
        if _base(word) == "nice" and i < len(argv) and argv[i].lstrip("-").isdigit():
            i += 1
    return argv[i:]


def _base(program: str) -> str:
    return program.rsplit("/", 1)[-1]


# Shell words, roughly as a POSIX shell reads them: operators, quoted strings, escapes and
# plain runs; a lone unbalanced quote is kept as a character. (shlex does the same ten
# times slower, and this runs for every shell step of every plan.)
_TOKEN = re.compile(r"""(?P<redir>\d*(?:>>?|<)(?:&(?:\d+|-))?|&>>?)|(?P<op>[;&|()\n]+)"""
                    r"""|'(?P<sq>[^']*)'|"(?P<dq>(?:\\.|[^"\\])*)"|\\(?P<esc>.)"""
                    r"""|(?P<word>[^\s;&|()'"\\<>]+)|(?P<odd>\S)""", re.S)
_DQ_ESCAPE = re.compile(r'\\([\\"$`])')
_REDIRECTION = re.compile(r"^\d*(?:>>?|<)|^&>")


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


def describe(assessment: Assessment, *, brief: bool = False) -> str:
    """The block shown before approval ("[Quality Assessment]" in the design notes);
    brief: the score line and what is wrong, nothing that is fine."""
    score = f"{assessment.score:.2f}"
    score = score[:-1] if score.endswith("0") else score  # 0.9 and 1.0, as people write them
    said = f"{score} ({assessment.label})"
    lines = [f"Quality {said}"] if brief else ["[Quality Assessment]", f"Plan score {said}"]
    for r in assessment.reasons:
        if brief and r.good:
            continue
        where = f"{r.step_id}: " if r.step_id and not r.text.endswith(f"({r.step_id})") else ""
        lines.append(f"{'✓' if r.good else '✗'} {where}{clean(r.text)}")
    if assessment.anti_patterns and not brief:
        lines.append("Anti-patterns:")
        for a in assessment.anti_patterns:
            lines.append(f"  {clean(a.step_id)} {clean(a.name)} (from "
                         f"{_WHO.get(a.provided_by, 'reos')}): `{clean(a.says)}`: {clean(a.why)}")
    return "\n".join(lines)


_WHO = {"model": "the model", "template": "your template", "reos": "reos"}


def named_anti_patterns(assessment: Assessment) -> list[str]:
    """One sentence per anti-pattern in a command a model or the user's template wrote,
    for the plan's notes at every verbosity (reos's own commands are reos's to fix, and
    the full block says them at detailed verbosity)."""
    return [f"{a.step_id}: {a.name} in the command {_WHO.get(a.provided_by, 'reos')} wrote "
            f"(`{clean(a.says)}`): {a.why}." for a in assessment.anti_patterns
            if a.provided_by != "reos"]
