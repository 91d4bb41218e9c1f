"""The target matcher: words from a request -> real resources in the snapshot.

Strategies, best first: exact name > compose project / name token / alias > prefix or
suffix > substring > description > fuzzy (typos). The best tier wins; several equally
good candidates of different kinds, or several of one kind for a singular request,
become a question. A phrase nothing matches is reported as missing: the matcher never
invents a target.

Lookups go through dictionaries built once per snapshot and kind, on first use; the
scanning strategies only run for a phrase the indexes missed, and the fuzzy one only
compares names with the same first letter and a similar length, so a snapshot with
10,000 packages is not scored word by word.
Not responsible for deciding what to do with the targets.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from dataclasses import dataclass, field

from reos.model import Target
from reos.system.snapshot import SystemSnapshot

EXACT, GROUP, AFFIX, SUBSTRING, DESCRIPTION, FUZZY = 100, 90, 60, 40, 30, 20
_TOKENS = re.compile(r"[-_.@]+")
KINDS = ("container", "service", "package")  # what an unnamed kind of thing may be
# every kind the snapshot can name (reos.snapshot/2), and the section each comes from
EXACT_ONLY = frozenset({"package", "user", "group", "process", "mount", "device", "interface",
                        "timer"})
ALL_KINDS = ("container", "service", "package", "user", "group", "process", "mount",
             "device", "interface", "timer")
GROUPING = ("compose project", "exact name")  # several hits here are one thing, not a tie


@dataclass
class Candidate:
    score: int
    target: Target
    strategy: str


@dataclass
class MatchResult:
    targets: list[Target] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    question: str | None = None
    choices: list[Target] = field(default_factory=list)
    phrase: str | None = None  # the words the question is about
    strategies: dict[str, str] = field(default_factory=dict)  # target name -> strategy


def _variants(phrase: str) -> list[str]:
    """'nextcloud redis' may be written nextcloud-redis, nextcloud_redis, nextcloudredis."""
    if " " not in phrase:
        return [phrase]
    return [phrase.replace(" ", sep) for sep in ("-", "_", "", ".")]


def stem(name: str) -> str:
    return name[: -len(".service")] if name.endswith(".service") else name


class _Index:
    """Name, token, project, alias and description lookups for one kind of resource."""

    def __init__(self, kind: str, targets: list[Target], projects: dict[str, list[Target]],
                 aliases: dict[str, list[str]], descriptions: dict[Target, str]):
        self.kind = kind
        self.targets = targets
        self.projects = projects
        self.aliases = aliases
        self.descriptions = descriptions
        self.by_name: dict[str, Target] = {}
        for t in targets:
            self.by_name.setdefault(stem(t.name).lower(), t)
            self.by_name.setdefault(t.name.lower(), t)
        self._by_token: dict[str, list[Target]] | None = None
        self._fuzzy: dict[str, list[str]] | None = None

    @property
    def by_token(self) -> dict[str, list[Target]]:
        """Name tokens ("redis" in nextcloud-redis), built on the first token lookup."""
        if self._by_token is None:
            self._by_token = defaultdict(list)
            for t in self.targets:
                s = stem(t.name).lower()
                for token in set(_TOKENS.split(s)):
                    if token and token != s:
                        self._by_token[token].append(t)
        return self._by_token

    def lookup(self, phrase: str, plural: bool = False) -> list[Candidate]:
        found: list[Candidate] = []
        for variant in _variants(phrase):
            if variant in self.by_name:
                exact = self.by_name[variant]
                if not plural:
                    return [Candidate(EXACT, exact, "exact name")]
                # "the nextcloud containers": the container named nextcloud *and* the rest
                # of its project are meant, so the exact match joins the group tier
                found.append(Candidate(GROUP, exact, "exact name"))
                break
        if self.kind in EXACT_ONLY:
            # packages, users, disks… are never guessed at: an exact name (for a disk or a
            # mount also its device), an alias, or a suggestion
            found += [Candidate(GROUP, t, "exact name")
                      for t in self.projects.get(phrase, []) if self.kind != "package"]
            if not found and " " in phrase and self.kind != "package":
                # "the 2 TB WD drive": every word names it, so together they name it
                each = [self.projects.get(w, []) for w in phrase.split()]
                if all(each):
                    both = [t for t in each[0] if all(t in group for group in each[1:])]
                    found += [Candidate(GROUP, t, "exact name") for t in both]
            hits = [self.by_name[n.lower()] for n in self.aliases.get(phrase, [])
                    if n.lower() in self.by_name]
            return found or [Candidate(GROUP, t, "alias") for t in hits] or self._fuzzy_lookup(
                phrase)
        for variant in _variants(phrase):
            found += [Candidate(GROUP, t, "compose project")
                      for t in self.projects.get(variant, [])]
        if " " not in phrase:
            found += [Candidate(GROUP, t, "name token") for t in self.by_token.get(phrase, [])]
        for name in self.aliases.get(phrase, []):
            t = self.by_name.get(name.lower())
            if t is not None:
                found.append(Candidate(GROUP, t, "alias"))
        if found:
            return found
        stems = [(t, stem(t.name).lower()) for t in self.targets]
        variants = _variants(phrase)
        found = [Candidate(AFFIX, t, "prefix/suffix") for t, s in stems
                 if any(s.startswith(v) or s.endswith(v) for v in variants)]
        if found or len(phrase) < 3:
            return found
        found = [Candidate(SUBSTRING, t, "substring") for t, s in stems
                 if any(v in s for v in variants)]
        if found:
            return found
        if len(phrase) >= 4:
            found = [Candidate(DESCRIPTION, t, "description")
                     for t, text in self.descriptions.items() if phrase in text]
            if found:
                return found
        return self._fuzzy_lookup(phrase)

    def _fuzzy_lookup(self, phrase: str) -> list[Candidate]:
        """Names one typo away ("jelyfin", "nextclod"): whole names, and for containers and
        services also compose projects and name tokens."""
        if len(phrase) < 4:
            return []
        if self._fuzzy is None:
            self._fuzzy = defaultdict(list)
            self._fuzzy_targets: dict[str, list[Target]] = defaultdict(list)
            for t in self.targets:
                s = stem(t.name).lower()
                self._fuzzy_targets[s].append(t)
            if self.kind != "package":
                for project, members in self.projects.items():
                    self._fuzzy_targets[project] += members
                for token, members in self.by_token.items():
                    if len(token) >= 4:
                        self._fuzzy_targets[token] += members
            for s in self._fuzzy_targets:
                self._fuzzy[s[:1]].append(s)
        pool = [s for s in self._fuzzy.get(phrase[:1], []) if abs(len(s) - len(phrase)) <= 2]
        close = difflib.get_close_matches(phrase, pool, n=3, cutoff=0.8)
        found: list[Candidate] = []
        for name in close:
            for t in dict.fromkeys(self._fuzzy_targets[name]):
                if all(c.target != t for c in found):
                    found.append(Candidate(FUZZY, t, "fuzzy (typo)"))
        return found


class TargetMatcher:
    def __init__(self, snapshot: SystemSnapshot,
                 aliases: dict[str, dict[str, list[str]]] | None = None):
        self.snapshot = snapshot
        self.aliases = aliases or {}
        self._indexes: dict[str, _Index] = {}

    def known(self, kind: str) -> bool:
        return getattr(self.snapshot, section(kind), None) is not None

    def index(self, kind: str) -> _Index | None:
        if kind in self._indexes:
            return self._indexes[kind]
        projects: dict[str, list[Target]] = defaultdict(list)
        descriptions: dict[Target, str] = {}
        if kind == "container" and self.snapshot.containers is not None:
            targets = []
            for c in self.snapshot.containers:
                t = Target("container", c.name, c.state)
                targets.append(t)
                if c.project:
                    projects[c.project.lower()].append(t)
        elif kind == "service" and self.snapshot.services is not None:
            targets = []
            for s in self.snapshot.services:
                t = Target("service", s.name, s.active, s.enabled)
                targets.append(t)
                if s.description:
                    descriptions[t] = s.description.lower()
        elif kind == "package" and self.snapshot.packages is not None:
            targets = [Target("package", p.name, "installed", version=p.version)
                       for p in self.snapshot.packages]
        elif kind in _FACTS:
            found = _FACTS[kind](self.snapshot, projects)
            if found is None:
                return None
            targets = found
        else:
            return None
        index = _Index(kind, targets, projects, self.aliases.get(kind, {}), descriptions)
        self._indexes[kind] = index
        return index

    def resolve(self, phrases: list[str], kinds: list[str], plural: bool) -> MatchResult:
        result = MatchResult()
        indexes = [i for i in (self.index(k) for k in kinds) if i is not None]
        for phrase in (p.lower() for p in phrases):
            if phrase == "all":
                for index in indexes:
                    for t in index.targets:
                        result.strategies[t.name] = "all"
                        if t not in result.targets:
                            result.targets.append(t)
                continue
            candidates = [c for index in indexes for c in index.lookup(phrase, plural)]
            if not candidates:
                result.missing.append(phrase)
                continue
            best = max(c.score for c in candidates)
            top = _unique([c for c in candidates if c.score == best])
            top_kinds = {c.target.kind for c in top}
            group = any(c.strategy in GROUPING for c in top)
            if len(top_kinds) > 1 or (len(top) > 1 and not plural and not group):
                result.question = _question(phrase, [c.target for c in top])
                result.choices = [c.target for c in top]
                result.phrase = phrase
                return result
            for c in top:
                result.strategies.setdefault(c.target.name, c.strategy)
                if c.target not in result.targets:
                    result.targets.append(c.target)
        return result


def _unique(candidates: list[Candidate]) -> list[Candidate]:
    seen: dict[Target, Candidate] = {}
    for c in candidates:
        seen.setdefault(c.target, c)
    return list(seen.values())


def _question(phrase: str, targets: list[Target]) -> str:
    described = [f"the {t.kind} {t.name}" for t in targets[:6]]
    more = f" (and {len(targets) - 6} more)" if len(targets) > 6 else ""
    if len(described) == 2:
        listed = f"{described[0]} or {described[1]}"
    else:
        listed = ", ".join(described[:-1]) + f" or {described[-1]}"
    return f"\u201c{phrase}\u201d could mean several things. Do you mean {listed}{more}?"


# -- the snapshot /2 kinds: each fact as a Target, and what groups several of them --------

def _users(snapshot: SystemSnapshot, _groups: dict[str, list[Target]]) -> list[Target] | None:
    users = getattr(snapshot, "users", None)
    if users is None:
        return None
    return [Target("user", u.name, "locked" if u.locked else "active") for u in users]


def _groups(snapshot: SystemSnapshot, _groups: dict[str, list[Target]]) -> list[Target] | None:
    groups = getattr(snapshot, "groups", None)
    if groups is None:
        return None
    return [Target("group", g.name, "present") for g in groups]


def _processes(snapshot: SystemSnapshot,
               by_program: dict[str, list[Target]]) -> list[Target] | None:
    """A process is named by its pid; its program name ("nginx") names every process of
    that program, as a compose project names its containers."""
    processes = getattr(snapshot, "processes", None)
    if processes is None:
        return None
    targets = []
    for p in processes:
        t = Target("process", str(p.pid), p.name, detail=p.cmdline)
        targets.append(t)
        program = p.name.lower()
        by_program[program].append(t)
        plain = program.rstrip("0123456789.")  # "python" is python3, "php" php8.2
        if plain != program and len(plain) >= 3:
            by_program[plain].append(t)
    return targets


def _mounts(snapshot: SystemSnapshot, by_device: dict[str, list[Target]]) -> list[Target] | None:
    """A mount by its mountpoint; its device and the last word of its path ("backup" for
    /mnt/backup) find it too."""
    mounts = getattr(snapshot, "mounts", None)
    if mounts is None:
        return None
    targets = []
    described = _disk_words(snapshot)
    removable = {d.name for d in getattr(snapshot, "block_devices", None) or [] if d.removable}
    for m in mounts:
        on_usb = m.device.rsplit("/", 1)[-1] in removable
        t = Target("mount", m.mountpoint, "mounted",
                   detail=f"{m.device}, removable" if on_usb else m.device)
        targets.append(t)
        by_device[m.device.lower()].append(t)
        name = m.device.rsplit("/", 1)[-1].lower()
        by_device[name].append(t)
        for word in described.get(name, ()):  # "unmount the sandisk": its only mount
            by_device[word].append(t)
        last = m.mountpoint.rstrip("/").rsplit("/", 1)[-1].lower()
        if len(last) >= 3:
            by_device[last].append(t)
    return targets


def _model_words(model: str) -> set[str]:
    """The words a person calls a disk by: its model's words ("sandisk", "ultra") and the
    letters a model number starts with ("wd" of WD20EFRX, the vendor's code)."""
    words = set()
    for word in re.split(r"[\s_-]+", model.lower()):
        if len(word) >= 3:
            words.add(word)
        letters = re.match(r"[a-z]+", word)
        if letters and len(letters.group(0)) >= 2 and letters.group(0) != word:
            words.add(letters.group(0))
    return words


_CAPACITIES = (1, 2, 4, 8, 16, 32, 64, 120, 128, 240, 250, 256, 480, 500, 512, 960)


def _size_words(size: int) -> set[str]:
    """How people say a disk's size: "2tb" for 2.0 TB, "62gb" and the capacity it was sold
    as ("64gb" for 61.5 GB); the request's "2 TB" is joined to "2tb" when it is read."""
    if size <= 0:
        return set()
    gb = size / 10**9
    if gb >= 999:
        tb = size / 10**12
        return {f"{tb:.0f}tb", f"{tb:.1f}tb".replace(".0tb", "tb")}
    sold = next((c for c in _CAPACITIES if c >= gb * 0.95), None)
    return {f"{gb:.0f}gb"} | ({f"{sold}gb"} if sold else set())


def _disk_words(snapshot: SystemSnapshot) -> dict[str, set[str]]:
    """Device name -> the model words that name it. A disk with exactly one partition
    lends its words to that partition (mounting or formatting "the sandisk" means the
    partition on it); a disk with several keeps them, and a question follows."""
    devices = getattr(snapshot, "block_devices", None) or []
    parts: dict[str, list[str]] = defaultdict(list)
    disks = [d for d in devices if d.type == "disk"]
    for d in devices:
        if d.type == "part":
            owner = next((k.name for k in disks if d.name.startswith(k.name)), None)
            if owner:
                parts[owner].append(d.name)
    out: dict[str, set[str]] = {}
    for disk in disks:
        words = _model_words(disk.model or "") | _size_words(disk.size or 0)
        if disk.name.startswith("nvme"):
            words.add("nvme")  # its kind of drive, as people say it ("the nvme")
        if words:
            mine = parts.get(disk.name, [])
            out[mine[0] if len(mine) == 1 else disk.name] = words
    return out


def _size(size: int) -> str:
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6)):
        if size >= scale:
            return f"{size / scale:.0f} {unit}"
    return f"{size} bytes"


def _devices(snapshot: SystemSnapshot, by_path: dict[str, list[Target]]) -> list[Target] | None:
    """A block device by name (sdb) or path; its model's words ("sandisk") find the disk and
    its partitions, and the plan says size and model so nobody erases the wrong one."""
    devices = getattr(snapshot, "block_devices", None)
    if devices is None:
        return None
    disks = {d.name: d for d in devices if d.type == "disk"}
    described = _disk_words(snapshot)
    targets = []
    for d in devices:
        disk = d if d.type == "disk" else next(
            (v for k, v in disks.items() if d.name.startswith(k)), d)
        model = (d.model or disk.model or "").strip()
        detail = " ".join(p for p in (_size(d.size) if d.size else "", model,
                                      "removable" if disk.removable else "") if p)
        t = Target("device", d.name, "mounted" if d.mountpoints else "unmounted", detail=detail)
        targets.append(t)
        by_path[d.path.lower()].append(t)
        for word in described.get(d.name, ()):
            by_path[word].append(t)
        for point in d.mountpoints or []:  # "format /home": the partition mounted there
            by_path[point.lower()].append(t)
    return targets


# what people call an interface by its kind, from the kernel's naming (en*/eth*: a wired
# port, wl*: wireless); "the wifi" is the machine's only wireless interface, or a question
_LINK_KINDS = (("en", ("wired", "ethernet", "lan", "cable")),
               ("eth", ("wired", "ethernet", "lan", "cable")),
               ("wl", ("wireless", "wifi", "wi-fi", "wlan")))


def _interfaces(snapshot: SystemSnapshot,
                by_kind: dict[str, list[Target]]) -> list[Target] | None:
    interfaces = getattr(snapshot, "interfaces", None)
    if interfaces is None:
        return None
    targets = []
    for i in interfaces:
        t = Target("interface", i.name, i.state.lower())
        targets.append(t)
        for prefix, words in _LINK_KINDS:
            if i.name.startswith(prefix):
                for word in words:
                    by_kind[word].append(t)
                break
    return targets


def _timers(snapshot: SystemSnapshot, by_unit: dict[str, list[Target]]) -> list[Target] | None:
    timers = getattr(snapshot, "timers", None)
    if timers is None:
        return None
    targets = []
    for tm in timers:
        t = Target("timer", tm.name, "waiting")
        targets.append(t)
        by_unit[tm.unit.lower()].append(t)
    return targets


def section(kind: str) -> str:
    """The snapshot section a kind of resource comes from."""
    return {"process": "processes", "device": "block_devices"}.get(kind, kind + "s")


_FACTS = {"user": _users, "group": _groups, "process": _processes, "mount": _mounts,
          "device": _devices, "interface": _interfaces, "timer": _timers}
