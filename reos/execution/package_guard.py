"""Which installed packages a removal must not take lightly, and why.

`protected(manager)` finds, on the live machine, the packages that own the Python
interpreter reos runs on (and its standard library), the running kernel (and, through
`kernel_meta`, the meta packages that pull it in), the init system, sudo, the package
manager itself and - over SSH - the SSH server. It asks the package database who owns
those files (dpkg -S / rpm -qf / pacman -Qqo), read-only.
Not responsible for simulating removals (package_sim) or for changing plans
(packages.preview); it never decides that a removal is forbidden, only why it is risky.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from reos.patterns import regex

RUNS_REOS = "which reos itself runs on"
KERNEL = "the running kernel"
KERNEL_META = "which pulls in the running kernel"
INIT = "the init system"
SUDO = "which provides the sudo command"
MANAGER = "the package manager itself"
SSH = "the SSH server you are connected through"

_ENV = {"LC_ALL": "C.UTF-8", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"}
_MANAGER_TOOLS = {
    "apt": ["apt-get", "apt", "dpkg", "dpkg-query"], "dnf": ["dnf", "dnf5", "rpm"],
    "pacman": ["pacman"], "zypper": ["zypper", "rpm"], "apk": ["apk"],
}
_MANAGER_NAMES = {
    "apt": {"apt", "dpkg"}, "dnf": {"dnf", "dnf5", "rpm", "python3-dnf", "libdnf5"},
    "pacman": {"pacman"}, "zypper": {"zypper", "rpm", "libzypp"}, "apk": {"apk-tools"},
}
_DEPENDENCY_NAME = regex(r"^\s*([^\s(:]+)")


def _read(argv: list[str]) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=30, env=_ENV,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None


def symlink_chain(path: str, limit: int = 12) -> list[str]:
    """`path` and every link it passes through on the way to the real file."""
    chain = [path]
    while os.path.islink(chain[-1]) and len(chain) < limit:
        chain.append(os.path.normpath(os.path.join(os.path.dirname(chain[-1]),
                                                   os.readlink(chain[-1]))))
    real = os.path.realpath(path)
    return [*chain, real] if real not in chain else chain


def _variants(paths: list[str]) -> list[str]:
    """Each path and its merged-/usr twin: dpkg records /sbin/init and /usr/bin/python3
    as shipped, whatever the link farm of a merged-/usr system resolves them to."""
    out: list[str] = []
    for path in paths:
        twin = path[4:] if path.startswith("/usr/") else "/usr" + path
        for candidate in (path, twin):
            if candidate not in out:
                out.append(candidate)
    return out


def parse_dpkg_search(text: str) -> dict[str, set[str]]:
    """`dpkg -S PATH…` output ("pkg1, pkg2:amd64: /path") → path → owning packages."""
    owners: dict[str, set[str]] = {}
    for line in text.splitlines():
        if line.startswith("diversion by") or ": /" not in line:
            continue
        names, path = line.split(": /", 1)
        owners.setdefault("/" + path.strip(), set()).update(
            n.strip().split(":", 1)[0] for n in names.split(",") if n.strip())
    return owners


def owners(manager: str | None, paths: list[str]) -> set[str]:
    """The rpm or pacman packages that own any of `paths` (files nobody owns are simply
    not counted; dpkg's answer names each path, so `protected` asks it once for all)."""
    wanted = _variants([p for p in paths if p])
    if not wanted:
        return set()
    if manager in ("dnf", "zypper"):
        done = _read(["rpm", "-qf", "--qf", "%{NAME}\n", *wanted])
    elif manager == "pacman":
        done = _read(["pacman", "-Qqo", *wanted])
    else:
        return set()
    if done is None:
        return set()
    # "file … is not owned by any package" and error lines contain spaces; names never do
    return {line.strip() for line in done.stdout.splitlines()
            if line.strip() and " " not in line.strip()}


def _interpreter_paths() -> list[str]:
    paths = symlink_chain(sys.executable) if sys.executable else []
    base = getattr(sys, "_base_executable", None)
    if base and base != sys.executable:
        paths += symlink_chain(base)
    stdlib = os.path.dirname(os.__file__)
    return [*paths, os.path.join(os.path.realpath(stdlib), "os.py")]


def _kernel_paths(release: str) -> list[str]:
    return [f"/boot/vmlinuz-{release}", f"/lib/modules/{release}/vmlinuz",
            f"/lib/modules/{release}/modules.order"]


def protected(manager: str | None) -> dict[str, str]:
    """Installed package name → why removing it would hurt (one lookup per reason)."""
    release = os.uname().release
    tools = [shutil.which(t) for t in _MANAGER_TOOLS.get(manager or "", [])]
    groups: list[tuple[str, list[str], set[str]]] = [
        (RUNS_REOS, _interpreter_paths(), set()),
        (KERNEL, _kernel_paths(release), {f"linux-image-{release}"}),
        (INIT, symlink_chain("/sbin/init") + ["/lib/systemd/systemd"], set()),
        (SUDO, [shutil.which("sudo") or "/usr/bin/sudo"], {"sudo"}),
        (MANAGER, [t for t in tools if t], set(_MANAGER_NAMES.get(manager or "", ()))),
    ]
    if os.environ.get("SSH_CONNECTION"):
        groups.append((SSH, [shutil.which("sshd") or "/usr/sbin/sshd"], {"openssh-server"}))
    reasons: dict[str, str] = {}
    if manager == "apt":  # dpkg -S names the path each owner belongs to: one call for all
        every = [p for _, paths, _ in groups for p in paths]
        done = _read(["dpkg", "-S", *_variants(every)])
        found = parse_dpkg_search(done.stdout) if done is not None else {}
        for why, paths, names in groups:
            for path in _variants(paths):
                for name in found.get(path, ()):
                    reasons.setdefault(name, why)
            for name in names:
                reasons.setdefault(name, why)
        return reasons
    for why, paths, names in groups:
        for name in owners(manager, paths) | names:
            reasons.setdefault(name, why)
    return reasons


def parse_dependencies(text: str) -> dict[str, set[str]]:
    """`dpkg-query -W -f '${Package}\\t${Depends}, ${Pre-Depends}\\n'` → name → the names
    it depends on (alternatives included, versions and architectures dropped)."""
    depends: dict[str, set[str]] = {}
    for line in text.splitlines():
        if "\t" not in line:
            continue
        name, rest = line.split("\t", 1)
        wanted = set()
        for part in re.split(r"[,|]", rest):
            match = _DEPENDENCY_NAME.match(part)
            if match:
                wanted.add(match.group(1))
        depends[name.strip()] = wanted
    return depends


def kernel_meta(manager: str | None, removed: list[str], kernels: set[str]) -> set[str]:
    """The packages among `removed` that depend on a running-kernel package (apt only:
    linux-image-amd64 and friends; dnf itself refuses to remove the running kernel)."""
    if manager != "apt" or not removed or not kernels:
        return set()
    done = _read(["dpkg-query", "-W", "-f", "${Package}\t${Depends}, ${Pre-Depends}\n",
                  *removed])
    if done is None:
        return set()
    return {name for name, wanted in parse_dependencies(done.stdout).items()
            if wanted & kernels}
