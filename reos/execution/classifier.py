"""ErrorClassifier: what went wrong, from a failed step's exit code and output.

Categories: missing_dependency, permission, transient, busy, already_exists, not_found,
conflict, invalid_usage, system (disk full, read-only fs, out of memory), unknown. Each
diagnosis carries a confidence, the line of output it rests on, and details a fix needs
(the missing package or command, the lock holder's pid). The patterns are the real
messages of apt, dpkg, dnf, pacman, systemd, docker and coreutils.
Not responsible for fixing anything (see `recovery`).
"""

from __future__ import annotations

import re
from pathlib import Path

from msgspec import Struct, field

from reos.patterns import regex

MISSING, PERMISSION, TRANSIENT, BUSY = "missing_dependency", "permission", "transient", "busy"
EXISTS, NOT_FOUND, CONFLICT = "already_exists", "not_found", "conflict"
INVALID, SYSTEM, UNKNOWN = "invalid_usage", "system", "unknown"

WORDS = {
    MISSING: "a missing dependency", PERMISSION: "permission denied",
    TRANSIENT: "a temporary network problem", BUSY: "something else is holding a lock",
    EXISTS: "it already exists", NOT_FOUND: "something doesn't exist",
    CONFLICT: "a conflict", INVALID: "an invalid command", SYSTEM: "a system problem",
    UNKNOWN: "an error I don't recognise",
}


class Diagnosis(Struct):
    category: str
    confidence: float
    evidence: str  # the line of output the diagnosis rests on
    cause: str  # in words, for the person
    details: dict[str, str] = field(default_factory=dict)

    @property
    def words(self) -> str:
        return WORDS[self.category]


# (category, pattern, confidence, cause) - first match wins; more specific first.
_RULES: list[tuple[str, str, float, str]] = [
    (BUSY, r"Could not get lock (?P<lock>\S+?)\.? It is held by process (?P<pid>\d+)", 0.95,
     "another package manager is running (pid {pid})"),
    (BUSY, r"Could not get lock (?P<lock>\S+)", 0.9, "the package database is locked"),
    (PERMISSION, r"Unable to acquire the dpkg frontend lock.*are you root\?", 0.9,
     "installing packages needs root"),
    (PERMISSION, r"Unable to (?:lock|acquire) .*(?:are you root|Permission denied)", 0.9,
     "that needs root"),
    (SYSTEM, r"dpkg was interrupted, you must manually run '(?P<fix>dpkg --configure -a)'", 0.95,
     "an earlier package installation was interrupted"),
    (MISSING, r"Unable to locate package (?P<package>\S+)", 0.8,
     "apt doesn't know the package {package}"),
    (NOT_FOUND, r"Package '?(?P<package>[^' ]+)'? has no installation candidate", 0.85,
     "no repository offers {package}"),
    (EXISTS, r"(?P<package>\S+) is already the newest version", 0.95,
     "{package} is already installed and up to date"),
    (TRANSIENT, r"Temporary failure resolving '(?P<host>[^']+)'", 0.9,
     "the name {host} could not be resolved (network or DNS)"),
    (TRANSIENT, r"Failed to fetch (?P<url>\S+)", 0.8, "a download failed"),
    (TRANSIENT, r"(?:Connection timed out|Network is unreachable|Could not connect to|"
                r"Connection refused|Temporary failure in name resolution)", 0.75,
     "the network is not answering"),
    (NOT_FOUND, r"No match for argument: (?P<package>\S+)", 0.85, "dnf has no package {package}"),
    (EXISTS, r"Package (?P<package>\S+) is already installed", 0.95,
     "{package} is already installed"),
    (PERMISSION, r"This command has to be run with superuser privileges", 0.95,
     "that needs root"),
    (NOT_FOUND, r"target not found: (?P<package>\S+)", 0.85, "pacman has no package {package}"),
    (BUSY, r"unable to lock database", 0.85, "the pacman database is locked"),
    (PERMISSION, r"you cannot perform this operation unless you are root", 0.95,
     "that needs root"),
    (NOT_FOUND, r"Unit (?P<unit>\S+?)\.? (?:could )?not (?:be )?found", 0.9,
     "there is no unit called {unit}"),
    (CONFLICT, r"Unit (?P<unit>\S+?) is masked", 0.9, "{unit} is masked, so it cannot start"),
    (UNKNOWN, r"Job for (?P<unit>\S+?) failed", 0.6,
     "{unit} failed to start; its own logs say why"),
    (PERMISSION, r"(?:Access denied|Interactive authentication required)", 0.85,
     "managing services needs root"),
    (NOT_FOUND, r"No such container: (?P<container>\S+)", 0.95,
     "there is no container called {container}"),
    (SYSTEM, r"Cannot connect to the Docker daemon", 0.95,
     "the docker daemon isn't running or can't be reached"),
    (PERMISSION, r"permission denied while trying to connect to the", 0.95,
     "your user may not talk to the docker daemon"),
    (CONFLICT, r"Conflict\. The container name \"?(?P<container>[^\" ]+)", 0.9,
     "a container with that name already exists"),
    (SYSTEM, r"No space left on device", 0.95, "the disk is full"),
    (SYSTEM, r"Read-only file system", 0.95, "the filesystem is mounted read-only"),
    (SYSTEM, r"(?:Cannot allocate memory|Out of memory|Killed process)", 0.9,
     "the machine ran out of memory"),
    (BUSY, r"Device or resource busy", 0.85, "the device or file is in use"),
    (EXISTS, r"File exists", 0.85, "the file already exists"),
    (MISSING, r"(?:^|: )(?P<command>[\w.+-]+): (?:command )?not found", 0.9,
     "the command {command} is not installed"),
    (PERMISSION, r"Permission denied|Operation not permitted|must be root|are you root", 0.8,
     "that needs more privileges"),
    (NOT_FOUND, r"No such file or directory", 0.8, "a file or directory doesn't exist"),
    (CONFLICT, r"(?:unmet dependencies|Depends: .* but it is not|conflicts with|"
               r"version mismatch|held broken packages)", 0.8,
     "package dependencies conflict"),
    (INVALID, r"(?:invalid option|unrecognized option|Unknown command|usage:|Usage:|"
              r"Invalid operation|unknown flag)", 0.7, "the command was used wrongly"),
]
_COMPILED = [(c, regex(p, re.MULTILINE), conf, cause) for c, p, conf, cause in _RULES]
STALE_LISTS_SECONDS = 24 * 3600
APT_LISTS = Path("/var/lib/apt/lists")


def apt_lists_age(lists: Path | None = None) -> float | None:
    """Seconds since the apt package lists were refreshed; None when there are none."""
    lists = lists or APT_LISTS
    try:
        stamps = [p.stat().st_mtime for p in lists.iterdir() if p.name.endswith("_Packages")
                  or p.name.endswith("_Packages.lz4") or p.name.endswith("Release")]
    except OSError:
        return None
    if not stamps:
        return None
    import time

    return time.time() - max(stamps)


def classify(exit_code: int | None, stdout: str, stderr: str) -> Diagnosis:
    text = f"{stderr}\n{stdout}"
    if exit_code == 127 and "not found" in text:
        match = re.search(r"(?P<command>[\w.+-]+): (?:command )?not found", text)
        command = match["command"] if match else "?"
        return Diagnosis(MISSING, 0.95, match.group(0) if match else text.strip()[:200],
                         f"the command {command} is not installed", {"command": command})
    for category, pattern, confidence, cause in _COMPILED:
        match = pattern.search(text)
        if not match:
            continue
        details = {k: v for k, v in match.groupdict().items() if v}
        line = next((ln.strip() for ln in text.splitlines() if match.group(0) in ln),
                    match.group(0))
        diagnosis = Diagnosis(category, confidence, line, cause.format_map(_Blank(details)),
                              details)
        if category == MISSING and "package" in details:
            age = apt_lists_age()
            if age is None or age > STALE_LISTS_SECONDS:
                diagnosis.details["stale_cache"] = "yes"
                diagnosis.cause = ("apt doesn't know the package "
                                   f"{details['package']}: its package lists are "
                                   + ("empty" if age is None else "out of date"))
            else:  # fresh lists: the package really does not exist
                diagnosis.category, diagnosis.confidence = NOT_FOUND, 0.7
        return diagnosis
    if exit_code is not None and exit_code < 0 or "stopped it after" in stderr:
        return Diagnosis(TRANSIENT, 0.5, stderr.strip().splitlines()[-1] if stderr.strip()
                         else "timed out", "it took too long", {"timeout": "yes"})
    last = (stderr.strip() or stdout.strip()).splitlines()[-1:] or [f"exit code {exit_code}"]
    return Diagnosis(UNKNOWN, 0.3, last[0][:200], "an error I don't recognise")


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "it"
