"""A deep diagnosis ("why is X failing?"): evidence in bounded rounds, claims that cite it.

With `[reasoning] depth = "deep"` the engine hands a `service.why_failed` or
`container.why_failed` plan to `run()`. An `Investigation` names the read-only probes
of each round: first the unit's status and journal (or the container's inspect and
logs), then, chosen by rules from what the evidence says, who holds a port that could
not be bound (`ss -ltnp`), how full the filesystem of a path is (`df -h`), the program's
own configuration test, the unit's dependencies, the owner and mode of a path that was
refused. At most three rounds; no probe twice; every probe must be verified read-only by
the risk engine (`assess_argv`) or it is not run and the answer says so.

Every output line becomes numbered evidence `[n] = (command, line)`, cleaned of escape
sequences and cut to 200 characters. Claims (`Claim(text, cites, quote)`) come from rules
and, when a model is at hand, from `explain` (reos/llm/diagnose.py); each is kept only
when its quote occurs in the line it cites (`supported`), and the answer counts what was
left out. Evidence is data: nothing in it is ever turned into a step except a port
number or a path that passes a strict pattern, and those only as arguments of fixed
read-only commands.

Not responsible for running anything: the engine passes `run` (argv -> StepResult,
through the gate) and `explain`; this module only chooses, weighs and words.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from msgspec import Struct, field

from reos.model.events import Event, Stage
from reos.model.plan import Plan
from reos.model.report import StepResult
from reos.model.target import Target
from reos.patterns import regex
from reos.text import clean

if TYPE_CHECKING:
    from reos.system.snapshot import SystemSnapshot

WHY_OPS = frozenset({"service.why_failed", "container.why_failed"})
MAX_ROUNDS = 3
MAX_LINE = 200  # characters of one evidence line, or of a quote
MAX_LINES = 80  # evidence lines kept per probe (the last ones: the failure is at the end)
MAX_PROBES = 4  # per round
_PATH = regex(r"(?<![\w.:-])(/[A-Za-z0-9._@+-][A-Za-z0-9._@+/-]{0,199})")
_SAFE_PATH = regex(r"/[A-Za-z0-9._@+/-]{0,200}")

# (what the rule is about, pattern). A pattern's match is the quote of its claim.
_PORT_TAKEN = regex(
    r"[^\n]{0,60}(?:Address already in use|address already in use|port is already "
    r"allocated|bind\(\) to \S+ failed)[^\n]{0,80}")
_PORT_NUMBER = regex(r"(?:\]|\b\d{1,3}(?:\.\d{1,3}){3}|\*|::|\blocalhost|\b0\.0\.0\.0)"
                          r":(\d{1,5})\b|\bport (\d{1,5})\b")
_DISK_FULL = regex(r"No space left on device")
_CONFIG = regex(
    r"\[emerg\][^\n]*|Syntax error on line[^\n]*|AH00526[^\n]*|unknown directive[^\n]*|"
    r"configuration file \S+ test failed|Bad configuration option[^\n]*|"
    r"[Ii]nvalid configuration[^\n]*|Configuration (?:test )?failed[^\n]*|"
    r"terminating, \d+ bad configuration options")
_DENIED = regex(r"[Pp]ermission denied")
_DEPENDENCY = regex(r"Dependency failed for [^\n]*|dependency job [^\n]*failed[^\n]*")
_OOM = regex(r"Out of memory: Killed process[^\n]*|oom-kill[^\n]*|\"OOMKilled\": true")
_ACTIVE = regex(r"Active: (failed|inactive|activating|active)[^\n]*")
_EXITED = regex(r"Main process exited, code=\w+, status=[^\n]*|"
                     r"code=exited, status=\d+/\w+|\"ExitCode\": [1-9]\d*")
_CONTAINER_ERROR = regex(r"\"Error\": \"[^\"]+")

# Configuration tests by program: run only when the risk engine verifies they only read.
CONFIG_TESTS: dict[str, list[str]] = {
    "nginx": ["nginx", "-t"],
    "apache2": ["apache2ctl", "-t"],
    "httpd": ["apachectl", "configtest"],
    "ssh": ["sshd", "-t"],
    "sshd": ["sshd", "-t"],
    "named": ["named-checkconf"],
    "bind9": ["named-checkconf"],
    "haproxy": ["haproxy", "-c", "-f", "/etc/haproxy/haproxy.cfg"],
}
_CONFIG_PACKAGES = {"nginx": ("nginx", "nginx-core", "nginx-full", "nginx-light"),
                    "apache2": ("apache2",), "httpd": ("httpd",),
                    "ssh": ("openssh-server",), "sshd": ("openssh-server",),
                    "named": ("bind9", "bind"), "bind9": ("bind9",),
                    "haproxy": ("haproxy",)}


class Probe(Struct, frozen=True):
    """One read-only command and what it is run to find out."""

    argv: tuple[str, ...]
    looks_for: str
    label: str = ""  # how the answer names it (`journalctl -u apache2.service`)

    @property
    def command(self) -> str:
        return shlex.join(self.argv)

    @property
    def name(self) -> str:
        return self.label or self.command


class Line(Struct, frozen=True):
    n: int
    command: str  # the probe's short name
    text: str


class Claim(Struct):
    text: str
    cites: list[int]
    quote: str
    about: str = ""  # the rules' finding (port, disk, config, ...); "" for the model's
    source: str = "rules"  # rules | model


def bounded(text: str, limit: int = MAX_LINE) -> str:
    said = " ".join(clean(text).split())
    return said if len(said) <= limit else said[:limit - 1] + "\u2026"


def _normal(text: str) -> str:
    return " ".join(clean(text).split())


class Evidence(Struct):
    """Numbered lines from every probe run so far, and the probes that could not run."""

    lines: list[Line] = field(default_factory=list)
    ran: list[Probe] = field(default_factory=list)
    unrun: list[tuple[Probe, str]] = field(default_factory=list)  # (probe, why not)

    def add(self, probe: Probe, result: StepResult) -> list[Line]:
        if result.blocked or result.skipped_reason:
            self.unrun.append((probe, bounded(result.skipped_reason or "refused")))
            return []
        self.ran.append(probe)
        text = (result.stdout or "") + "\n" + (result.stderr or "")
        kept = [raw for raw in text.splitlines() if raw.strip() and not
                raw.startswith("-- ")][-MAX_LINES:]
        new = [Line(len(self.lines) + i + 1, probe.name, bounded(raw))
               for i, raw in enumerate(kept)]
        self.lines.extend(new)
        return new

    def line(self, n: int) -> Line | None:
        return self.lines[n - 1] if isinstance(n, int) and 0 < n <= len(self.lines) else None

    def of(self, *commands: str) -> Iterable[Line]:
        return (ln for ln in self.lines if any(ln.command.startswith(c) for c in commands))

    def numbered(self) -> str:
        """The evidence as the model reads it: `[n] command: line`."""
        return "\n".join(f"[{ln.n}] {ln.command}: {ln.text}" for ln in self.lines)


def supported(claim: Claim, evidence: Evidence) -> bool:
    """The claim cites lines that exist, and its quote occurs in the first one it cites
    (whitespace normalised). A quote of a few letters proves nothing, so it must be at
    least 8 characters, or the whole line when the line is shorter."""
    if not claim.cites or not claim.text.strip():
        return False
    cited = [evidence.line(n) for n in claim.cites]
    if any(c is None for c in cited):
        return False
    first = cited[0]
    assert first is not None
    quote, line = _normal(claim.quote), _normal(first.text)
    if not quote or (len(quote) < 8 and quote != line):
        return False
    return quote in line


def _verified(argv: list[str]) -> tuple[bool, str]:
    from reos.safety.risk import assess_argv

    verdict = assess_argv(argv)
    if verdict.read_only:
        return True, ""
    return False, "; ".join(verdict.reasons) or "the risk engine cannot verify it only reads"


def _program(unit: str) -> str:
    base = unit.rsplit(".", 1)[0] if unit.endswith(".service") else unit
    return base.split("@", 1)[0]


class Investigation:
    """The probes of each round for one target, chosen from what was found so far."""

    def __init__(self, target: Target, snapshot: SystemSnapshot | None = None,
                 verify: Callable[[list[str]], tuple[bool, str]] = _verified):
        self.target = target
        self.container = target.kind == "container"
        self.snapshot = snapshot
        self.verify = verify
        self.rounds = 0
        self.seen: set[tuple[str, ...]] = set()
        self.refused: list[tuple[Probe, str]] = []  # not verified read-only: never run

    def _admit(self, probes: list[Probe]) -> list[Probe]:
        chosen: list[Probe] = []
        for probe in probes:
            if probe.argv in self.seen or probe in chosen:
                continue
            if len(chosen) >= MAX_PROBES:
                break  # the rest wait for the next round (not marked seen)
            self.seen.add(probe.argv)
            ok, why = self.verify(list(probe.argv))
            if ok:
                chosen.append(probe)
            else:
                self.refused.append((probe, why))
        if chosen:
            self.rounds += 1
        return chosen

    def first_round(self) -> list[Probe]:
        name = self.target.name
        if self.container:
            probes = [Probe(("docker", "inspect", "--type", "container", name),
                            "the container's state, exit code and error",
                            f"docker inspect {name}"),
                      Probe(("docker", "logs", "--tail", "80", "--timestamps", name),
                            "what it wrote before it stopped", f"docker logs {name}")]
        else:
            probes = [Probe(("systemctl", "status", "--no-pager", "-l", name),
                            "whether it runs and how it last exited",
                            f"systemctl status {name}"),
                      Probe(("journalctl", "-u", name, "-n", "80", "--no-pager",
                             "-o", "short-precise"),
                            "the errors it logged", f"journalctl -u {name}")]
        return self._admit(probes)

    def next_round(self, evidence: Evidence) -> list[Probe]:
        if self.rounds >= MAX_ROUNDS:
            return []
        probes: list[Probe] = []
        for line in evidence.lines:
            probes.extend(self._follow(line.text))
        return self._admit(probes)

    def _follow(self, text: str) -> list[Probe]:
        """The probes a line asks for (rules; the line is data, only fixed commands)."""
        found = []
        if _PORT_TAKEN.search(text):
            found.append(Probe(("ss", "-ltnp"), "which program holds the port", "ss -ltnp"))
        if _DISK_FULL.search(text):
            path = _path_in(text)
            argv = ("df", "-h", "--", path) if path else ("df", "-h")
            found.append(Probe(argv, "how full the filesystem is",
                               f"df -h {path}" if path else "df -h"))
        if _CONFIG.search(text) and not self.container:
            test = self._config_test()
            if test:
                found.append(Probe(tuple(test), "what the configuration test says",
                                   shlex.join(test)))
        if _DEPENDENCY.search(text) and not self.container:
            name = self.target.name
            found.append(Probe(("systemctl", "list-dependencies", name, "--no-pager"),
                               "which dependency failed",
                               f"systemctl list-dependencies {name}"))
        if _DENIED.search(text):
            path = _path_in(text)
            if path:
                found.append(Probe(("ls", "-ld", "--", path), "who may use the path",
                                   f"ls -ld {path}"))
        return found

    def _config_test(self) -> list[str] | None:
        program = _program(self.target.name)
        test = CONFIG_TESTS.get(program)
        packages = self.snapshot.packages if self.snapshot is not None else None
        if test and packages is not None:
            names = {p.name for p in packages}
            if not names & set(_CONFIG_PACKAGES.get(program, ())):
                return None
        return test


def _path_in(text: str) -> str | None:
    for found in _PATH.finditer(text):
        path = found.group(1).rstrip(".,:;")
        if _SAFE_PATH.fullmatch(path) and "/../" not in path + "/" and len(path) > 1:
            return path
    return None


# -- claims from rules -----------------------------------------------------------------

def _port_of(text: str) -> str | None:
    found = _PORT_NUMBER.search(text)
    return (found.group(1) or found.group(2)) if found else None


_CONFIGURED = regex(r'^\s*"(?:[^"]*)"\s*,?\s*$|^\s*"(?:Cmd|Entrypoint|Env|Args|Path|Labels)"')
_HOLDER = regex(r"users:\(\(\"([^\"]{1,64})\",pid=(\d+)")


def rule_claims(target: Target, evidence: Evidence) -> list[Claim]:
    """What the rules read in the evidence, each claim quoting the line it rests on."""
    name = target.name
    claims: list[Claim] = []
    ports: set[str] = set()
    about: set[str] = set()

    def once(kind: str, claim: Claim) -> None:
        if kind not in about:
            about.add(kind)
            claims.append(claim)

    for ln in evidence.lines:
        text = ln.text
        if ln.command.startswith("docker inspect") and _CONFIGURED.search(text):
            continue  # a container's configuration (its command, environment, labels)
            # says what it would do, not what happened
        if (m := _ACTIVE.search(text)) and ln.command.startswith("systemctl status"):
            state = m.group(1)
            said = {"failed": f"{name} has failed", "inactive": f"{name} is not running",
                    "activating": f"{name} is still starting (or restarting)",
                    "active": f"{name} is running now"}[state]
            once("state", Claim(said + ".", [ln.n], m.group(0), "state"))
        if m := _EXITED.search(text):
            once("exit", Claim(f"Its main process exited with an error ({m.group(0)}).",
                               [ln.n], m.group(0), "exit"))
        if m := _PORT_TAKEN.search(text):
            port = _port_of(text)
            if port:
                ports.add(port)
            where = f"port {port}" if port else "its address"
            once("port", Claim(f"{name} could not bind {where}: it is already in use.",
                               [ln.n], m.group(0).strip(), "port"))
        if _DISK_FULL.search(text):
            once("disk", Claim("A write failed because the disk was full.", [ln.n],
                               text, "disk"))
        if m := _CONFIG.search(text):
            once("config", Claim("Its configuration has an error.", [ln.n],
                                 m.group(0).strip(), "config"))
        if _DENIED.search(text) and not ln.command.startswith("ls -ld"):
            path = _path_in(text)
            once("denied", Claim(f"It was refused access{' to ' + path if path else ''}.",
                                 [ln.n], text, "denied"))
        if m := _DEPENDENCY.search(text):
            once("dependency", Claim("A unit it depends on failed.", [ln.n],
                                     m.group(0).strip(), "dependency"))
        if m := _OOM.search(text):
            once("oom", Claim("It was killed for running out of memory.", [ln.n],
                              m.group(0).strip(), "oom"))
        if (m := _CONTAINER_ERROR.search(text)) and ln.command.startswith("docker inspect"):
            once("error", Claim("Docker recorded an error starting it.", [ln.n],
                                m.group(0), "error"))
            port = _port_of(text)
            if port and "already allocated" in text:
                ports.add(port)
    for ln in evidence.of("ss "):
        if not ln.text.startswith("LISTEN"):
            continue  # the header, or anything else a scripted or odd ss printed
        holder = _HOLDER.search(ln.text)
        for port in sorted(ports):
            if re.search(rf":{port}\s", ln.text + " "):
                who = f"{holder.group(1)} (pid {holder.group(2)})" if holder \
                    else "Another program (its name is hidden without root)"
                once(f"holder:{port}", Claim(f"{who} is listening on port {port}.", [ln.n],
                                             ln.text, f"holder:{port}"))
    for ln in evidence.of("df "):
        if re.search(r"\b(?:9[5-9]|100)%", ln.text):
            once("full", Claim("That filesystem is full (or nearly).", [ln.n], ln.text,
                               "full"))
    for ln in evidence.of("ls -ld"):
        if ln.text[:1] in "d-l" and len(ln.text.split()) >= 4:
            mode, _links, owner, group = ln.text.split()[:4]
            once("owner", Claim(f"The path belongs to {owner}:{group} with mode {mode}.",
                                [ln.n], ln.text, "owner"))
    for ln in evidence.lines:
        if ln.command in {shlex.join(t) for t in CONFIG_TESTS.values()} and \
                re.search(r"test failed|[Ss]yntax error|emerg|\berror\b", ln.text):
            once("config-test", Claim("Its configuration test fails.", [ln.n], ln.text,
                                      "config-test"))
    return claims


def conclusion(target: Target, claims: list[Claim], evidence: Evidence) -> str:
    """One sentence from the strongest finding (the claims are cited below it)."""
    name = target.name
    kinds = {c.about: c for c in claims}
    holders = [c for c in claims if c.about.startswith("holder:")]
    if "port" in kinds:
        if holders:
            who = holders[0].text
            if who.startswith("Another"):
                who = "a" + who[1:]
            return f"{name} cannot start because its port is taken: {who}"
        return f"{name} cannot start because the address it binds is already in use."
    for kind, said in (("disk", f"{name} failed because the disk it writes to is full."),
                       ("config", f"{name} failed because its configuration has an error."),
                       ("config-test", f"{name}'s configuration test fails."),
                       ("denied", f"{name} failed because it was refused access to a file "
                                  "or folder."),
                       ("dependency", f"{name} did not start because a unit it depends on "
                                      "failed."),
                       ("oom", f"{name} was killed for running out of memory."),
                       ("error", f"Docker could not start {name}.")):
        if kind in kinds:
            return said
    if kinds.get("state") and kinds["state"].text.endswith("running now."):
        return f"{name} is running now; the evidence shows no failure."
    if evidence.lines:
        return f"I could not find why {name} failed in what I read."
    return f"I could not read anything about {name}."


# -- the whole diagnosis ---------------------------------------------------------------

class Diagnosis(Struct):
    text: str
    evidence: Evidence
    claims: list[Claim]  # the supported ones, as shown
    dropped: int  # claims left out: their quote is not in the line they cite
    rounds: int
    refused: list[tuple[Probe, str]]


Explain = Callable[[str, Evidence], "list[Claim] | None"]


def _ignore(_event: Event) -> None:
    pass


def run(plan: Plan, run: Callable[[list[str]], StepResult],
        snapshot: SystemSnapshot | None = None, explain: Explain | None = None,
        emit: Callable[[Event], None] = _ignore,
        verify: Callable[[list[str]], tuple[bool, str]] = _verified) -> Diagnosis:
    """Gather evidence in at most three rounds, weigh it, and put it into words.

    `run` runs one argv through the gate; `explain` is the model's reading (None: rules
    only); `verify` judges each probe before it is offered to `run` (the risk engine)."""
    if not plan.targets:
        ev = Evidence()
        return Diagnosis("I don't know which service or container you mean.", ev, [], 0, 0,
                         [])
    target = plan.targets[0]
    inquiry = Investigation(target, snapshot, verify)
    evidence = Evidence()
    probes = inquiry.first_round()
    while probes:
        emit(Stage("gathering evidence", f"round {inquiry.rounds}: "
                   + ", ".join(p.name for p in probes)))
        for probe in probes:
            evidence.add(probe, run(list(probe.argv)))
        probes = inquiry.next_round(evidence)
    emit(Stage("weighing evidence", f"{len(evidence.lines)} lines from "
               f"{len(evidence.ran)} commands"))
    claims = rule_claims(target, evidence)
    offered = list(claims)
    if explain is not None and evidence.lines:
        emit(Stage("asking the model", "to explain the evidence"))
        said = explain(target.name, evidence)
        if said:
            offered.extend(said)
    kept, dropped, cited = [], 0, set()
    for claim in offered:
        if not supported(claim, evidence):
            dropped += 1
            continue
        if claim.source == "model" and claim.cites[0] in cited:
            continue  # the rules already said what that line shows
        cited.update(claim.cites[:1])
        kept.append(claim)
    text = answer(target, evidence, kept, dropped, inquiry.refused)
    return Diagnosis(text, evidence, kept, dropped, inquiry.rounds, inquiry.refused)


def answer(target: Target, evidence: Evidence, claims: list[Claim], dropped: int = 0,
           refused: list[tuple[Probe, str]] | None = None) -> str:
    """A short conclusion, then each claim with the evidence line it rests on."""
    lines = [conclusion(target, [c for c in claims if c.source == "rules"], evidence)]
    for claim in claims:
        lines.append(f"\u2022 {bounded(claim.text)}" + (" (the model's reading)"
                                                         if claim.source == "model" else ""))
        first = evidence.line(claim.cites[0])
        assert first is not None  # supported() checked it
        lines.append(f"  [{first.n}] `{first.command}`: \u201c{bounded(claim.quote)}\u201d")
        for n in claim.cites[1:]:
            other = evidence.line(n)
            if other is not None:
                lines.append(f"  [{n}] `{other.command}`: \u201c{other.text}\u201d")
    if dropped:
        lines.append(f"I left out {dropped} claim{'s' if dropped != 1 else ''} the "
                     "evidence did not support.")
    for probe, why in evidence.unrun:
        lines.append(f"I couldn't run `{probe.command}`: {why}.")
    for probe, _why in refused or []:
        lines.append(f"I didn't run `{probe.command}` ({probe.looks_for}): I can't verify "
                     "that it only reads. You can run it yourself.")
    return "\n".join(lines)
