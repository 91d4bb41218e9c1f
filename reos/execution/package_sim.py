"""Ask the package manager what a removal would take, and which versions it could bring back.

`simulate` runs the manager's own dry run of a remove/purge/autoremove (apt `-s`, dnf
`--assumeno`, pacman `--print`) and `available_versions` asks which versions of some
packages can still be installed from a configured source (apt `apt-cache policy`, dnf
`repoquery`). Both are read-only and need no root. The parsers are plain functions of the
text so they can be tested on recorded output.
Not responsible for deciding what is risky (package_guard) or for changing the plan
(packages.preview).
"""

from __future__ import annotations

import re
import subprocess

from msgspec import Struct, field

from reos.patterns import regex

REMOVING = ("remove", "purge", "autoremove")
_ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
_APT_LINE = regex(r"^(Inst|Remv|Purg) (\S+)(?: \[([^\]]*)\])?(?: \(([^ )]+))?")
# dnf 4 and dnf 5 both head each group of the transaction table with "Removing…:"
_DNF_REMOVING = regex(r"^Removing(?: [a-z ]+)?:\s*$")
_PACMAN_TARGET = regex(r"^(\S+) (\S+)$")
_POLICY_PACKAGE = regex(r"^(\S+):$")
_POLICY_VERSION = regex(r"^ (?:\*\*\*| {3}) (\S+) (-?\d+)$")
_POLICY_SOURCE = regex(r"^ {8}(-?\d+) (.+)$")


class Simulation(Struct):
    """What a dry run said: packages removed (name → version, '' when not shown) and
    installed, or why the manager would refuse."""

    removed: dict[str, str] = field(default_factory=dict)
    installed: dict[str, str] = field(default_factory=dict)
    problem: str | None = None


def _bare(name: str) -> str:
    # apt and dpkg add ":amd64" to multi-arch names; the collectors list bare names
    return name.split(":", 1)[0]


def parse_apt(text: str) -> Simulation:
    """`apt-get -s` output: "Remv name [version]", "Purg …", "Inst name (version …)"."""
    sim = Simulation()
    for match in map(_APT_LINE.match, text.splitlines()):
        if match is None:
            continue
        verb, name = match.group(1), _bare(match.group(2))
        if verb == "Inst":
            sim.installed[name] = match.group(4) or ""
        else:
            sim.removed[name] = match.group(3) or ""
    return sim


def parse_dnf(text: str) -> Simulation:
    """`dnf remove --assumeno` output: the rows under "Removing:", "Removing dependent
    packages:" and "Removing unused dependencies:" (name, arch, version, repo, size).
    dnf 4 wraps a long name onto its own line; the rest of the row follows."""
    sim = Simulation()
    section = False
    pending: str | None = None
    for line in text.splitlines():
        if _DNF_REMOVING.match(line):
            section, pending = True, None
            continue
        if not line.startswith(" "):  # a heading, a rule or a blank line ends the group
            section, pending = False, None
            continue
        if not section or not line.strip():
            continue
        words = line.split()
        if pending is not None:
            words, pending = [pending, *words], None
        if len(words) == 1:
            pending = words[0]
        elif len(words) >= 3:
            sim.removed[words[0]] = _without_epoch(words[2])
    problem = re.search(r"Problem: (.+)", text)
    if problem and ("protected" in problem.group(1) or "running kernel" in problem.group(1)):
        sim.problem = "dnf refuses: " + problem.group(1).strip()
    return sim


def parse_pacman(text: str) -> Simulation:
    """`pacman -R --print --print-format '%n %v'` output: one "name version" per target."""
    sim = Simulation()
    for match in map(_PACMAN_TARGET.match, text.splitlines()):
        if match and not match.group(1).endswith(":"):
            sim.removed[match.group(1)] = match.group(2)
    return sim


def parse_apt_policy(text: str) -> dict[str, set[str]]:
    """`apt-cache policy A B …`: for each package, the versions some source still offers
    (a version known only from /var/lib/dpkg/status is installed, not available)."""
    offered: dict[str, set[str]] = {}
    package: str | None = None
    version: str | None = None
    for line in text.splitlines():
        if (head := _POLICY_PACKAGE.match(line)) is not None:
            package, version = _bare(head.group(1)), None
            offered.setdefault(package, set())
        elif package and (row := _POLICY_VERSION.match(line)) is not None:
            version = row.group(1)
        elif package and version and (source := _POLICY_SOURCE.match(line)) is not None:
            if source.group(2).strip() != "/var/lib/dpkg/status":
                offered[package].add(version)
    return offered


def parse_dnf_repoquery(text: str) -> dict[str, set[str]]:
    """`dnf repoquery --qf '%{name} %{evr}'` output: name → versions the repositories offer."""
    offered: dict[str, set[str]] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) == 2:
            offered.setdefault(words[0], set()).add(_without_epoch(words[1]))
    return offered


def _without_epoch(version: str) -> str:
    # rpm's collectors list VERSION-RELEASE; dnf prints EPOCH:VERSION-RELEASE when set
    return version.split(":", 1)[1] if re.match(r"^\d+:", version) else version


def simulation_argv(manager: str | None, action: str, name: str | None,
                    also: tuple[str, ...] = ()) -> list[str] | None:
    """The read-only dry run matching a recipe's removal (of `name` and `also`, in one
    transaction, as an undo removes what an install brought in), or None when there is
    none."""
    if action not in REMOVING or (name is None and action != "autoremove"):
        return None
    names = [name, *also] if name else []
    if manager == "apt":
        return ["apt-get", "-s", "-q", action, *names]
    if manager == "dnf":
        verb = "autoremove" if action == "autoremove" else "remove"
        return ["dnf", verb, "--assumeno", *names]
    if manager == "pacman" and action != "autoremove":
        flags = "-Rns" if action == "purge" else "-R"  # the same flags as the recipes
        return ["pacman", flags, "--print", "--print-format", "%n %v", *names]
    return None


def _run(argv: list[str], timeout: float = 60) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, env=_ENV, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def simulate(manager: str | None, action: str, name: str | None,
             also: tuple[str, ...] = ()) -> Simulation | None:
    """The dry run's answer, or None when this manager or action cannot be previewed."""
    argv = simulation_argv(manager, action, name, also)
    if argv is None:
        return None
    done = _run(argv)
    if done is None:
        return None
    if manager == "apt":
        sim = parse_apt(done.stdout)
        if done.returncode != 0:
            errors = [line[3:] for line in done.stderr.splitlines() if line.startswith("E: ")]
            sim.problem = "apt refuses: " + (errors[0] if errors else "the simulation failed")
        return sim
    if manager == "dnf":
        # --assumeno always ends in "Operation aborted" (exit 1): judge by what it printed
        sim = parse_dnf(done.stdout + "\n" + done.stderr)
        return sim if sim.removed or sim.problem else None
    sim = parse_pacman(done.stdout)
    if done.returncode != 0:
        detail = [line for line in done.stderr.splitlines() if line.startswith(":: ")]
        sim.problem = "pacman refuses: " + (detail[0][3:] if detail else done.stderr.strip())
    return sim


def available_versions(manager: str | None, names: list[str]) -> dict[str, set[str]] | None:
    """name → versions still installable from some source (one read-only call), or None
    when this cannot be asked here."""
    if not names:
        return {}
    if manager == "apt":
        done = _run(["apt-cache", "policy", *names], timeout=30)
        return parse_apt_policy(done.stdout) if done is not None and done.returncode == 0 \
            else None
    if manager == "dnf":
        done = _run(["dnf", "repoquery", "--quiet", "--cacheonly", "--qf",
                     "%{name} %{evr}\n", *names], timeout=60)
        return parse_dnf_repoquery(done.stdout) if done is not None and done.returncode == 0 \
            else None
    return None
