"""The target matcher: words from a request -> real resources in the snapshot.

Strategies, best first: exact name > compose project / name token > prefix or suffix >
substring > fuzzy (typos). The best tier wins; several equally good candidates of
different kinds, or several of one kind for a singular request, become a question. A
phrase nothing matches is reported as missing: the matcher never invents a target.

Lookups go through dictionaries built once per snapshot; the scanning strategies
(prefix, substring, fuzzy) only run for a phrase the exact and token indexes missed.
Not responsible for deciding what to do with the targets.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from dataclasses import dataclass, field

from reos.model import Target
from reos.system.snapshot import SystemSnapshot

EXACT, GROUP, AFFIX, SUBSTRING, FUZZY = 100, 90, 60, 40, 20
_TOKENS = re.compile(r"[-_.@]+")
KIND_WORDS = {"container": "container", "service": "service", "package": "package"}


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
    strategies: dict[str, str] = field(default_factory=dict)  # target name -> strategy


def _variants(phrase: str) -> list[str]:
    """'nextcloud redis' may be written nextcloud-redis, nextcloud_redis, nextcloudredis."""
    if " " not in phrase:
        return [phrase]
    return [phrase.replace(" ", sep) for sep in ("-", "_", "", ".")]


def _stem(name: str) -> str:
    return name[: -len(".service")] if name.endswith(".service") else name


class _Index:
    """Name, token and project lookups for one kind of resource."""

    def __init__(self, kind: str, targets: list[Target], projects: dict[str, list[Target]]):
        self.kind = kind
        self.targets = targets
        self.by_name: dict[str, Target] = {}
        self.by_token: dict[str, list[Target]] = defaultdict(list)
        self.projects = projects
        for t in targets:
            stem = _stem(t.name).lower()
            self.by_name[stem] = t
            self.by_name[t.name.lower()] = t
            for token in set(_TOKENS.split(stem)):
                if token:
                    self.by_token[token].append(t)

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
        for variant in _variants(phrase):
            for t in self.projects.get(variant, []):
                found.append(Candidate(GROUP, t, "compose project"))
        tokens = phrase.split()
        if len(tokens) == 1:
            found += [Candidate(GROUP, t, "name token") for t in self.by_token.get(phrase, [])]
        if found:
            return found
        stems = [(t, _stem(t.name).lower()) for t in self.targets]
        found = [
            Candidate(AFFIX, t, "prefix/suffix")
            for t, s in stems
            for v in _variants(phrase)
            if s.startswith(v) or s.endswith(v)
        ]
        if found:
            return found
        found = [
            Candidate(SUBSTRING, t, "substring")
            for t, s in stems
            for v in _variants(phrase)
            if len(v) >= 3 and v in s
        ]
        if found:
            return found
        close = difflib.get_close_matches(
            phrase, [s for _, s in stems if abs(len(s) - len(phrase)) <= 3], n=3, cutoff=0.8
        )
        by_stem = {s: t for t, s in stems}
        return [Candidate(FUZZY, by_stem[c], "fuzzy (typo)") for c in close]


class TargetMatcher:
    def __init__(self, snapshot: SystemSnapshot):
        self.snapshot = snapshot
        self._indexes: dict[str, _Index] = {}

    def index(self, kind: str) -> _Index | None:
        if kind in self._indexes:
            return self._indexes[kind]
        projects: dict[str, list[Target]] = defaultdict(list)
        if kind == "container":
            if self.snapshot.containers is None:
                return None
            targets = []
            for c in self.snapshot.containers:
                t = Target("container", c.name, c.state)
                targets.append(t)
                if c.project:
                    projects[c.project.lower()].append(t)
        elif kind == "service":
            if self.snapshot.services is None:
                return None
            targets = [Target("service", s.name, s.active) for s in self.snapshot.services]
        else:
            return None
        self._indexes[kind] = _Index(kind, targets, projects)
        return self._indexes[kind]

    def available_kinds(self, resource: str | None) -> list[str]:
        kinds = [resource] if resource else ["container", "service"]
        return [k for k in kinds if self.index(k) is not None]

    def resolve(self, phrases: list[str], resource: str | None, plural: bool) -> MatchResult:
        result = MatchResult()
        kinds = self.available_kinds(resource)
        for phrase in phrases:
            if phrase == "all":
                for kind in kinds:
                    index = self.index(kind)
                    assert index is not None
                    for t in index.targets:
                        result.strategies[t.name] = "all"
                        if t not in result.targets:
                            result.targets.append(t)
                continue
            candidates: list[Candidate] = []
            for kind in kinds:
                index = self.index(kind)
                assert index is not None
                candidates += index.lookup(phrase, plural)
            if not candidates:
                result.missing.append(phrase)
                continue
            best = max(c.score for c in candidates)
            top = _unique([c for c in candidates if c.score == best])
            top_kinds = {c.target.kind for c in top}
            group = any(c.strategy in ("compose project", "exact name") for c in top)
            if len(top_kinds) > 1 or (len(top) > 1 and not plural and not group):
                result.question = _question(phrase, [c.target for c in top])
                result.choices = [c.target for c in top]
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
