"""Freeing disk space: what to measure, what the measurements found, and the plan of it.

"free up disk space" is measured before anything is offered. `probes` says which
read-only commands measure this machine (the package manager's download cache with `du`,
the journal with `journalctl --disk-usage`, containers and images with
`docker system df -v`, installed kernel packages with `dpkg-query`); the engine runs them
through the gate. `items` turns their output into the things worth cleaning, each with
its size, its own step, its risk and what undo can (not) do; `apply` puts those on the
plan with the total said first, or turns the plan into a plain answer when nothing is
worth cleaning. Only real findings become steps: an exited container that frees space
(its own layer, or a dangling image only it holds) by its exact id, a dangling image by
its exact id, an old kernel package by its exact name - never the running kernel, never
the newest installed one.

Not responsible for running the measurements (the engine does, through the gate), for
simulating package removals (execution/packages.py previews the kernel steps) or for
running the cleaning (the executor). Pure: the parsers are functions of the text, so
they are tested on captured real output.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from msgspec import Struct, field

from reos.model.plan import Plan, Step
from reos.model.report import StepResult
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.model.target import Target
from reos.patterns import regex
from reos.system.privilege import as_root
from reos.text import clean
from reos.understanding.names import SAFE_NAMES
from reos.words.conversation import size as words

if TYPE_CHECKING:
    from collections.abc import Callable

OPERATION = "cleanup.free_space"
TIMEOUT = 30.0  # seconds each measurement may take
MIB = 1024 * 1024
WORTH = MIB  # a cache smaller than this is not worth a step
JOURNAL_KEEP = 100 * MIB  # what a vacuum leaves of the journal
JOURNAL_WORTH = 2 * JOURNAL_KEEP  # a journal smaller than this is left alone
KERNELS = "linux-image-*"
SHOWN = 10  # containers or images named in a step's title

# manager → (cache directory measured, the command that empties it, what it is)
CACHES: dict[str, tuple[str, list[str], str]] = {
    "apt": ("/var/cache/apt/archives", ["apt-get", "clean"], "downloaded package files"),
    "dnf": ("/var/cache/dnf", ["dnf", "clean", "all"], "dnf's downloaded packages and lists"),
    "pacman": ("/var/cache/pacman/pkg", ["pacman", "-Sc", "--noconfirm"],
               "cached packages of versions no longer installed"),
    "zypper": ("/var/cache/zypp", ["zypper", "--non-interactive", "clean", "--all"],
               "zypper's downloaded packages and lists"),
    "apk": ("/var/cache/apk", ["apk", "cache", "clean"], "downloaded package files"),
}
_DNF5_CACHE = "/var/cache/libdnf5"
_CONTAINER_ID = regex(r"^[0-9a-f]{64}$")
_IMAGE_ID = regex(r"^sha256:[0-9a-f]{64}$")
_JOURNAL = regex(r"take up (\d+(?:\.\d+)?)\s*([KMGTPE]?)i?B?\b")
_DOCKER_SIZE = regex(r"^(\d+(?:\.\d+)?)\s*([kKMGTP]?)B$")
_KERNEL = regex(r"^linux-image-(?:unsigned-)?(\d+(?:\.\d+)+(?:-\d+)?)(?:[-.+~].*)?$")
_BINARY = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4,
           "P": 1024 ** 5, "E": 1024 ** 6}
_DECIMAL = {"": 1, "k": 1000, "K": 1000, "M": 1000 ** 2, "G": 1000 ** 3, "T": 1000 ** 4,
            "P": 1000 ** 5}


class Probe(Struct):
    """One read-only measurement: `key` names what it measures."""

    key: str
    what: str  # what it measures, in words ("the journal")
    argv: list[str]


class Item(Struct):
    """One thing worth cleaning, with the step that cleans it."""

    key: str
    what: str  # the step's title: what goes, with its size
    size: int  # bytes it frees (at most, when `upto`)
    argv: list[str]
    risk: RiskLevel
    undo: str  # what undo can (not) do, in words
    needs_root: bool = True
    target: Target | None = None
    action: str = "clean"
    upto: bool = False
    after: str | None = None  # the key of an item that must run first
    ids: list[str] = field(default_factory=list)  # exact ids or names acted on




# -- what to measure -------------------------------------------------------------------
def cache_dir(manager: str | None, isdir: Callable[[str], bool]) -> str | None:
    if manager not in CACHES:
        return None
    path = CACHES[manager][0]
    if manager == "dnf" and not isdir(path) and isdir(_DNF5_CACHE):
        return _DNF5_CACHE
    return path if isdir(path) else None


def probes(manager: str | None, is_root: bool, *, which: Callable[[str], str | None],
           isdir: Callable[[str], bool]) -> list[Probe]:
    """The read-only measurements that fit this machine (only tools it has)."""
    found = []
    path = cache_dir(manager, isdir)
    if path is not None:
        found.append(Probe("cache", "the package cache", ["du", "-s", "-B1", path]))
    if which("journalctl"):
        found.append(Probe("journal", "the journal",
                           as_root(["journalctl", "--disk-usage"], is_root)))
    if which("docker"):
        found.append(Probe("docker", "containers and images",
                           ["docker", "system", "df", "-v", "--format", "{{json .}}"]))
    if manager == "apt" and which("dpkg-query"):
        found.append(Probe("kernels", "the installed kernels", [
            "dpkg-query", "-W", "-f",
            "${Package}\t${db:Status-Abbrev}\t${Version}\t${Installed-Size}\n", KERNELS]))
    return found


# -- reading what came back ------------------------------------------------------------
def parse_du(text: str) -> int | None:
    """`du -s -B1 PATH`: "2417651712\t/var/cache/apt/archives" → bytes."""
    for line in text.splitlines():
        first = line.split("\t", 1)[0].strip()
        if first.isdigit():
            return int(first)
    return None


def parse_journal(text: str) -> int | None:
    """`journalctl --disk-usage`: "… journals take up 8.0M in the file system." → bytes."""
    match = _JOURNAL.search(text)
    if match is None:
        return None
    return int(float(match.group(1)) * _BINARY[match.group(2)])


def docker_bytes(text: str) -> int | None:
    """docker's sizes ("300kB", "1.982MB", "0B"; decimal units) → bytes; "N/A" → None."""
    match = _DOCKER_SIZE.match(text.strip())
    if match is None:
        return None
    return int(float(match.group(1)) * _DECIMAL[match.group(2)])


class Container(Struct):
    id: str
    name: str
    image: str
    state: str
    size: int | None


class Image(Struct):
    id: str
    repository: str
    tag: str
    containers: int | None  # how many containers use it (None: docker did not say)
    size: int | None  # what removing it frees (its unique size when docker says it)

    @property
    def dangling(self) -> bool:
        return self.repository == "<none>" and self.tag == "<none>"


def parse_docker_df(text: str) -> tuple[list[Container], list[Image]] | None:
    """`docker system df -v --format '{{json .}}'` → (containers, images); None when the
    text is not that document."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    containers = []
    for row in data.get("Containers") or []:
        if isinstance(row, dict) and _CONTAINER_ID.match(str(row.get("ID", ""))):
            containers.append(Container(str(row["ID"]), clean(str(row.get("Names", ""))),
                                        str(row.get("Image", "")), str(row.get("State", "")),
                                        docker_bytes(str(row.get("Size", "")))))
    images = []
    for row in data.get("Images") or []:
        if not isinstance(row, dict) or not _IMAGE_ID.match(str(row.get("ID", ""))):
            continue
        used = str(row.get("Containers", ""))
        unique = docker_bytes(str(row.get("UniqueSize", "")))
        images.append(Image(str(row["ID"]), str(row.get("Repository", "")),
                            str(row.get("Tag", "")), int(used) if used.isdigit() else None,
                            unique if unique is not None else docker_bytes(
                                str(row.get("Size", "")))))
    return containers, images


class Kernel(Struct):
    package: str
    version: str
    size: int  # bytes, from dpkg's Installed-Size (KiB)

    @property
    def release(self) -> tuple[int, ...]:
        return release_key(self.package.removeprefix("linux-image-").removeprefix(
            "unsigned-"))


def release_key(release: str) -> tuple[int, ...]:
    """"6.1.0-18-amd64" → (6, 1, 0, 18): the numbers that order kernel releases."""
    numbers = []
    for part in re.split(r"[.-]", release):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)


def parse_kernels(text: str) -> list[Kernel]:
    """`dpkg-query -W -f '${Package}\\t${db:Status-Abbrev}\\t${Version}\\t${Installed-Size}\\n'`
    → the versioned kernel image packages that are installed ("ii")."""
    found = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 4 or not parts[1].startswith("ii"):
            continue
        name, version, size = parts[0].strip(), parts[2].strip(), parts[3].strip()
        if _KERNEL.match(name) and SAFE_NAMES["package"].match(name):
            found.append(Kernel(name, version, int(size) * 1024 if size.isdigit() else 0))
    return found


def old_kernels(kernels: list[Kernel], running: str) -> list[Kernel]:
    """The kernels that may go: never the running one (by name or release), never the
    newest installed one. Nothing when the running release cannot be read."""
    now = release_key(running)
    if not now:
        return []
    newest = max((k.release for k in kernels), default=())
    return [k for k in kernels
            if running not in k.package and k.release != now and k.release != newest]


# -- what is worth cleaning ------------------------------------------------------------
def _failed(result: StepResult) -> str:
    said = clean(result.stderr or result.stdout).strip().splitlines()
    return (said[-1] if said else f"exit code {result.exit_code}")[:200]


def items(results: dict[str, StepResult], manager: str | None, running: str,
          refused: dict[str, str] | None = None) -> tuple[list[Item], list[str]]:
    """(what is worth cleaning, what was measured and left alone or could not be
    measured, in words) from the measurements' results by probe key."""
    found: list[Item] = []
    said: list[str] = [f"I couldn't measure {what}: {why}" for what, why in (
        refused or {}).items()]
    cache = results.get("cache")
    if cache is not None:
        size = parse_du(cache.stdout)
        path, argv, what = CACHES[manager or ""] if manager in CACHES else ("", [], "")
        if size is None:
            said.append(f"I couldn't measure the package cache: {_failed(cache)}")
        elif size >= WORTH and argv:
            upto = "up to " if manager == "pacman" else ""
            found.append(Item("cache", f"Delete the package cache in {path} ({upto}"
                              f"{words(size)} of {what})", size, argv,
                              RiskLevel.LOW, "the package cache is not restored by undo; "
                              "packages are downloaded again when they are needed",
                              upto=manager == "pacman"))
        else:
            said.append(f"the package cache holds only {words(size)}")
    journal = results.get("journal")
    if journal is not None:
        size = parse_journal(journal.stdout) if journal.ok else None
        if size is None:
            said.append(f"I couldn't measure the journal: {_failed(journal)}")
        elif size >= JOURNAL_WORTH:
            keep = JOURNAL_KEEP // MIB
            found.append(Item("journal", f"Delete old journal files (up to "
                              f"{words(size - JOURNAL_KEEP)} of {words(size)}; the newest "
                              f"{keep} MiB are kept)", size - JOURNAL_KEEP,
                              ["journalctl", f"--vacuum-size={keep}M"], RiskLevel.MEDIUM,
                              "deleted log entries cannot be brought back",
                              action="vacuum", upto=True))
        else:
            said.append(f"the journal uses {words(size)}, which I'd keep")
    docker = results.get("docker")
    if docker is not None:
        _docker(docker, found, said)
    kernels = results.get("kernels")
    if kernels is not None and running:
        # dpkg-query exits 1 when no package matches: that is "no kernels", not a failure
        installed = parse_kernels(kernels.stdout)
        old = old_kernels(installed, running)
        for kernel in old:
            found.append(Item(
                f"kernel:{kernel.package}", f"Purge the old kernel {kernel.package} "
                f"{kernel.version} ({words(kernel.size)})", kernel.size,
                ["apt-get", "purge", "-y", kernel.package],
                RiskLevel.HIGH, "undo does not reinstall a purged kernel",
                target=Target("package", kernel.package, "installed", version=kernel.version),
                action="purge", ids=[kernel.package]))
        if not installed:
            said.append("no kernel packages are installed")
        elif not old:
            said.append("no old kernels (only the running one and the newest are kept)")
    return found, said


def _some(names: list[str]) -> str:
    """The first SHOWN names and "and N more": the step's argv holds every id."""
    if len(names) <= SHOWN:
        return ", ".join(names)
    return ", ".join(names[:SHOWN]) + f" and {len(names) - SHOWN} more"


def _docker(result: StepResult, found: list[Item], said: list[str]) -> None:
    parsed = parse_docker_df(result.stdout) if result.ok else None
    if parsed is None:
        said.append(f"I couldn't ask docker about containers and images: {_failed(result)}")
        return
    containers, images = parsed
    stopped = [c for c in containers if c.state == "exited"]
    # a container is removed only for the space it frees: its own layer, or a dangling
    # image only it holds; one that frees nothing (0 B written, or a size docker did not
    # say) keeps its settings and logs, which removal would lose for good
    stopped_ids = {c.id for c in stopped}
    held = {i.id for i in images if i.dangling and all(  # used by no container that runs
        c.id in stopped_ids for c in containers if c.image == i.id)}
    exited = [c for c in stopped if (c.size or 0) > 0 or c.image in held]
    if len(exited) < len(stopped):
        left = len(stopped) - len(exited)
        said.append(f"{left} exited container{' frees' if left == 1 else 's free'} "
                    f"no space that docker reports, so I left {'it' if left == 1 else 'them'}"
                    " alone")
    if exited:
        sizes = sum(c.size or 0 for c in exited)
        listed = _some([f"{c.name or c.id[:12]} ({c.id[:12]}, {words(c.size or 0)})"
                        for c in exited])
        found.append(Item("containers", f"Remove {len(exited)} exited container"
                          f"{'' if len(exited) == 1 else 's'} ({words(sizes)}): {listed}",
                          sizes,
                          ["docker", "rm", *(c.id for c in exited)], RiskLevel.MEDIUM,
                          "removed containers cannot be brought back; their volumes are "
                          "kept", needs_root=False, action="delete",
                          ids=[c.id for c in exited]))
    elif not stopped:
        said.append("no exited containers")
    going = {c.id: c.image for c in exited}
    dangling, kept = [], 0
    for image in images:
        if not image.dangling:
            continue
        users = sum(1 for img in going.values() if img == image.id)
        if image.containers is not None and image.containers > users:
            kept += 1  # still used by a container that stays
            continue
        dangling.append((image, users))
    if dangling:
        listed = _some([f"{i.id.removeprefix('sha256:')[:12]} ({words(i.size or 0)})"
                        for i, _ in dangling])
        freed = sum(i.size or 0 for i, _ in dangling)
        found.append(Item("images", f"Remove {len(dangling)} dangling image"
                          f"{'' if len(dangling) == 1 else 's'} ({words(freed)}; untagged, "
                          f"left behind by newer builds or pulls): {listed}", freed,
                          ["docker", "image", "rm", *(i.id for i, _ in dangling)],
                          RiskLevel.MEDIUM, "removed images are not restored by undo; they "
                          "are pulled or built again when needed",
                          needs_root=False, action="delete",
                          after="containers" if any(n for _, n in dangling) else None,
                          ids=[i.id for i, _ in dangling]))
    elif not kept:
        said.append("no dangling images")
    if kept:
        said.append(f"{kept} dangling image{' is' if kept == 1 else 's are'} still used by "
                    "a container that stays, so I left "
                    f"{'it' if kept == 1 else 'them'} alone")


# -- the plan ----------------------------------------------------------------------------
def apply(plan: Plan, found: list[Item], said: list[str], is_root: bool) -> str:
    """Make `plan` the cleaning of `found` (one step each) and return the sentence to say
    before it (the total); or, nothing found, a plain answer with no steps (returns "").
    Its words are rendered after, with every plan's (`words.conversation.render`)."""
    from reos.safety.risk import assess_argv

    plan.steps, plan.notes, plan.said = [], [], []
    if not found:
        plan.kind = Kind.QUERY
        plan.said = ["Nothing worth cleaning: " + "; ".join(said or ["nothing measured"]) + "."]
        return ""
    plan.kind = Kind.ACTION
    ids: dict[str, str] = {}
    for item in found:
        argv = as_root(item.argv, is_root or not item.needs_root)
        verdict = assess_argv(argv, requested=plan.request)
        step = Step(id=f"s{len(plan.steps) + 1}",
                    title=item.what,
                    argv=argv, needs_root=argv[0] == "sudo",
                    risk=max(item.risk, verdict.risk), reversible=False,
                    depends_on=[ids[item.after]] if item.after in ids else [],
                    target=item.target, action=item.action,
                    risk_reasons=list(verdict.reasons))
        if verdict.blocked:
            plan.blocked, plan.blocked_reason = True, "; ".join(verdict.reasons)
        ids[item.key] = step.id
        plan.steps.append(step)
        if item.undo not in plan.notes:
            plan.notes.append(item.undo)
    if said:
        plan.notes.append("also measured: " + "; ".join(said))
    plan.verb = "free space"
    total = sum(i.size for i in found)
    upto = any(i.upto for i in found)
    freed = f"I measured first: {'up to' if upto else 'about'} {words(total)} can be freed"
    return f"{freed}." if len(found) == 1 else \
        f"{freed} from {len(found)} things, each its own step below."
