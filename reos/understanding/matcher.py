"""The target matcher: words from a request -> real resources in the snapshot.

Strategies, best first: exact name > compose project / name token / alias > prefix or
suffix > substring > description > fuzzy (typos). The best tier wins; several equally
good candidates of different kinds, or several of one kind for a singular request,
become a question. A phrase nothing matches is reported as missing: the matcher never
invents a target.

Lookups go through dictionaries built once per snapshot and kind, on first use; the
scanning strategies only run for a phrase the indexes missed, and the fuzzy one only
compares names with the same first letter and a similar length, so a snapshot with
10,000 packages is not scored word by word. What a thing is besides its name (image,
full name, label, description words) is read by `identity.py`; the snapshot's other facts
become targets in `facts.py`.
Not responsible for deciding what to do with the targets.
"""

from __future__ import annotations

from collections import defaultdict

from msgspec import Struct, field

from reos.model.target import Target
from reos.patterns import regex
from reos.system.snapshot import SystemSnapshot
from reos.understanding.facts import FACTS
from reos.understanding.identity import (
    COMMON,
    IDENTITIES,
    TOKENS,
    WORD,
    compose_service,
    image_words,
    owners,
    people,
    stem_of,
)

EXACT, GROUP, AFFIX, SUBSTRING, DESCRIPTION, FUZZY = 100, 90, 60, 40, 30, 20
KINDS = ("container", "service", "package")  # what an unnamed kind of thing may be
# every kind the snapshot can name (reos.snapshot/2), and the section each comes from
EXACT_ONLY = frozenset({"package", "user", "group", "process", "mount", "device", "interface"})
ALL_KINDS = ("container", "service", "package", "user", "group", "process", "mount",
             "device", "interface", "timer")
GROUPING = ("compose project", "exact name")  # several hits here are one thing, not a tie


class Candidate(Struct):
    score: int
    target: Target
    strategy: str


# how a user, a mount, a device… may be found without asking "did you mean": its exact
# name, an alias, or what it is (a full name, a filesystem label, a link's kind)
SURE = ("exact name", "alias", "what it is", "words together")


class MatchResult(Struct):
    targets: list[Target] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    question: str | None = None
    choices: list[Target] = field(default_factory=list)
    phrase: str | None = None  # the words the question is about
    strategies: dict[str, str] = field(default_factory=dict)  # target name -> strategy

    @property
    def sure(self) -> bool:
        """Whether each name was found as it is, not by guessing at a typo or a part."""
        return all(how in SURE or how == "compose project" for how in self.strategies.values())


_SEPARATORS = ("-", "_", "", ".")


_MARKED = regex(r"(?<=[a-z])[-_](?=[a-z])")


def spellings(phrase: str) -> list[str]:
    """'nextcloud redis' may be written nextcloud-redis, nextcloud_redis, nextcloudredis;
    a name of up to four words with a different mark between each ("php 8.1 fpm" is
    php8.1-fpm), the same mark everywhere first."""
    if " " not in phrase:
        parts = _MARKED.split(phrase)  # "pi-hole" may be pihole, "home_assistant" home-assistant
        if 1 < len(parts) <= 4 and all(parts):
            return [phrase, *(s for s in spellings(" ".join(parts)) if s != phrase)]
        return [phrase]
    same = [phrase.replace(" ", sep) for sep in _SEPARATORS]
    words = phrase.split()
    if not 2 < len(words) <= 4:
        return same
    import itertools

    mixed = ["".join(w + sep for w, sep in zip(words, (*seps, ""), strict=True))
             for seps in itertools.product(_SEPARATORS, repeat=len(words) - 1)]
    return [*same, *(m for m in mixed if m not in same)]


def stem(name: str) -> str:
    """A unit's name without its type (nginx.service, fstrim.timer): what people say."""
    for suffix in (".service", ".timer"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


WHOSE = "whose it is"  # a container found by the person it is named after


# a version between a name's letters and its next word: php8.2-fpm, postgresql-15-main
_VERSION_INSIDE = regex(r"(?<=[a-z])-?[0-9][0-9.]*(?=[-_@])")


class _Index:
    """Name, token, project, alias and description lookups for one kind of resource."""

    def __init__(self, kind: str, targets: list[Target], projects: dict[str, list[Target]],
                 aliases: dict[str, list[str]], descriptions: dict[Target, str],
                 identities: dict[str, list[Target]] | None = None,
                 named_only: list[Target] | None = None,
                 whose: dict[str, list[Target]] | None = None):
        self.kind = kind
        self.targets = targets
        self.projects = projects
        self.aliases = aliases
        self.descriptions = descriptions
        # what a thing is, besides its name: a container's image, a person's full name,
        # a filesystem's label, a link's kind (`identity_words`)
        self.identities = identities or {}
        # whose it is: the person a container is named after ("anna": jupyter-aschmidt)
        self.whose = whose or {}
        self.by_name: dict[str, Target] = {}
        # things found by their name, or a word no listed thing has, never by "all" or a state
        self.named_only = named_only or []
        for t in [*targets, *self.named_only]:
            self.by_name.setdefault(stem(t.name).lower(), t)
            self.by_name.setdefault(t.name.lower(), t)
        if kind == "service":  # "icecast" is icecast2.service, "apache" apache2.service,
            plain: dict[str, set[Target]] = defaultdict(set)  # "php-fpm" php8.2-fpm.service
            for t in targets:
                name = stem(t.name).lower()
                for said in (name.rstrip("0123456789."), _VERSION_INSIDE.sub("", name)):
                    if said != name and len(said) >= 4 and said[-1].isalpha():
                        plain[said].add(t)
            for said, units in plain.items():
                if len(units) == 1:  # never when another unit is so called too
                    self.by_name.setdefault(said, next(iter(units)))
        self._by_token: dict[str, list[Target]] | None = None
        self._fuzzy: dict[str, list[str]] | None = None
        self._described: dict[str, list[Target]] | None = None

    @property
    def by_token(self) -> dict[str, list[Target]]:
        """Name tokens ("redis" in nextcloud-redis), built on the first token lookup."""
        if self._by_token is None:
            self._by_token = defaultdict(list)
            for t in self.targets:
                s = stem(t.name).lower()
                for token in set(TOKENS.split(s)):
                    if token and token != s:
                        self._by_token[token].append(t)
            listed = set(self._by_token)
            for t in self.named_only:  # a timer's job: by a word only it has ("dump")
                s = stem(t.name).lower()
                for token in set(TOKENS.split(s)) - listed:
                    if token and token != s:
                        self._by_token[token].append(t)
        return self._by_token

    @property
    def described(self) -> dict[str, list[Target]]:
        """Words that set one or two things apart in their descriptions ("kessler" of
        "Laravel queue worker for the Kessler Bau client portal", "milter" of "OpenDKIM
        Milter"), built on first use. A word in more descriptions, or a common one, says
        nothing about which thing is meant."""
        if self._described is None:
            found: dict[str, list[Target]] = defaultdict(list)
            for t, text in self.descriptions.items():
                for word in {stem_of(w) for w in WORD.findall(text) if w not in COMMON}:
                    if len(word) >= 3:
                        found[word].append(t)
            self._described = {w: ts for w, ts in found.items() if len(ts) <= 2}
        return self._described

    def lookup(self, phrase: str, plural: bool = False) -> list[Candidate]:
        found: list[Candidate] = []
        for variant in spellings(phrase):
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
            found += [Candidate(GROUP, t, "exact name") for t in dict.fromkeys(
                t for variant in spellings(phrase) for t in self.projects.get(variant, []))
                      if self.kind != "package"]  # "cargo build" is cargo-build too
            if not found and " " in phrase and self.kind != "package":
                # "the 2 TB WD drive": every word names it, so together they name it
                each = [self.projects.get(w, []) for w in phrase.split()]
                if all(each):
                    both = [t for t in each[0] if all(t in group for group in each[1:])]
                    found += [Candidate(GROUP, t, "exact name") for t in both]
            found += self._identified(phrase)
            hits = self._aliased(phrase)
            return found or [Candidate(GROUP, t, "alias") for t in hits] or self._fuzzy_lookup(
                phrase)
        for variant in spellings(phrase):
            found += [Candidate(GROUP, t, "compose project")
                      for t in self.projects.get(variant, [])]
        if " " not in phrase:
            found += [Candidate(GROUP, t, "name token") for t in self.by_token.get(phrase, [])]
        found += self._identified(phrase)
        found += [Candidate(GROUP, t, "alias") for t in self._aliased(phrase)]
        if found and " " in phrase:
            # "prusa2 octoprint" where every octoprint is called so: a word of the phrase
            # is a word of fewer of the names found, and the words together name just
            # those (never one that was not found)
            together = list(dict.fromkeys(c.target for c in self._together(phrase)))
            if together and set(together) < {c.target for c in found} and any(
                    set(self.by_token.get(w, ())) == set(together) for w in phrase.split()):
                return [Candidate(GROUP, t, "words together") for t in together]
        if found:
            return found
        found = self._together(phrase)
        if found:
            return found
        stems = [(t, stem(t.name).lower()) for t in self.targets]
        variants = spellings(phrase)
        found = [Candidate(AFFIX, t, "prefix/suffix") for t, s in stems
                 if any(s.startswith(v) or s.endswith(v) for v in variants)]
        if found or len(phrase) < 3:
            return found
        found = [Candidate(SUBSTRING, t, "substring") for t, s in stems
                 if any(v in s for v in variants)]
        if found:
            return found
        if len(phrase) >= 4:
            # every word of the phrase in the description, in any order ("the queue worker
            # of the kessler portal")
            words = {stem_of(w) for w in phrase.split() if w not in COMMON}
            found = [Candidate(DESCRIPTION, t, "description")
                     for t, text in self.descriptions.items()
                     if phrase in text or words and words <= {
                         stem_of(w) for w in WORD.findall(text)}]
            if found:
                return found
        return self._fuzzy_lookup(phrase)

    def _together(self, phrase: str) -> list[Candidate]:
        """"the nextcloud database": words that each name a group, together naming what is
        in both (the database of project nextcloud). Exact tiers only, never guessed."""
        words = phrase.split()
        if not 1 < len(words) <= 4:
            return []
        for stacked in (False, True):  # what both words name, else what one names and
            for cut in range(1, len(words)):  # the other's compose project holds
                left, right = " ".join(words[:cut]), " ".join(words[cut:])
                first, second = self._named(left), self._named(right)
                both = [t for t in (self._stack(first) if stacked else first) if t in second]
                if both:
                    return [Candidate(GROUP, t, "words together") for t in both]
        return []

    def _stack(self, found: list[Target]) -> list[Target]:
        """What was named, with the rest of each one's compose project ("matomo" names the
        container running matomo; "the matomo db" is the database of its project)."""
        stacks = [members for members in self.projects.values()
                  if any(t in members for t in found)]
        return list(dict.fromkeys([*found, *(t for group in stacks for t in group)]))

    def _named(self, phrase: str) -> list[Target]:
        """Everything a phrase names exactly: by name, project, word, what it is, alias."""
        found = [self.by_name[v] for v in spellings(phrase) if v in self.by_name]
        for variant in spellings(phrase):
            found += self.projects.get(variant, [])
        if " " not in phrase and self.kind not in EXACT_ONLY:
            found += self.by_token.get(phrase, [])
        found += [c.target for c in self._identified(phrase)]
        found += self._aliased(phrase)
        return list(dict.fromkeys(found))

    def _identified(self, phrase: str) -> list[Candidate]:
        """Things the phrase names by what they are ("bookstack": the container running
        that image; "maria lopez": the account with that full name)."""
        for variant in spellings(phrase):
            if variant in self.identities:
                return [Candidate(GROUP, t, "what it is") for t in self.identities[variant]]
            if variant in self.whose:
                return [Candidate(GROUP, t, WHOSE) for t in self.whose[variant]]
        return []

    def _aliased(self, phrase: str) -> list[Target]:
        """What an alias or role word stands for here: each name it lists, found by name,
        by what a thing is, or (containers, services) by a word of its name."""
        hits: list[Target] = []
        for name in self.aliases.get(phrase, []):
            key = name.lower()
            if key in self.by_name:
                found = [self.by_name[key]]
            elif key in self.identities:
                found = self.identities[key]
            elif self.kind not in EXACT_ONLY:  # a word of a name, or a unit template's
                # instance ("wg-quick" is wg-quick@wg0.service)
                found = self.by_token.get(key, []) or [
                    t for t in self.targets if t.name.lower().startswith(key + "@")]
            else:
                found = []
            hits += [t for t in found if t not in hits]
        return hits

    def _fuzzy_lookup(self, phrase: str) -> list[Candidate]:
        """Names one typo away ("jelyfin", "nextclod"): whole names, and for containers and
        services also compose projects and name tokens. Never for a name the catalogue
        knows as software of its own ("chrony" is not a typo of cron)."""
        if len(phrase) < 4 or phrase.lower() in {
                name.lower() for names in self.aliases.values() for name in names}:
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
        from difflib import get_close_matches  # only for a word no target has

        close = get_close_matches(phrase, pool, n=3, cutoff=0.8)
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
        identities: dict[str, list[Target]] = defaultdict(list)
        whose: dict[str, list[Target]] = defaultdict(list)
        jobs: list[Target] = []
        if kind == "container" and self.snapshot.containers is not None:
            targets = []
            who = people(self.snapshot)
            for c in self.snapshot.containers:
                t = Target("container", c.name, c.state)
                targets.append(t)
                if c.project:
                    projects[c.project.lower()].append(t)
                for word in image_words(c.image) | compose_service(c.labels, c.name):
                    identities[word].append(t)  # a set of words: each container once
                for word in owners(self.snapshot, c.name, who) - set(identities):
                    whose[word].append(t)  # "anna's container": jupyter-aschmidt
        elif kind == "service" and self.snapshot.services is not None:
            targets = []
            for s in self.snapshot.services:
                t = Target("service", s.name, s.active, s.enabled)
                targets.append(t)
                if s.description:
                    descriptions[t] = s.description.lower()
            # a timer's service is a unit too, though no unit list showed it (a job that
            # only runs when its timer fires is not loaded in between): found by its
            # name, never by "all" or a state ("start the stopped services")
            listed = {s.name for s in self.snapshot.services}
            for tm in getattr(self.snapshot, "timers", None) or []:
                if tm.unit.endswith(".service") and tm.unit not in listed:
                    listed.add(tm.unit)
                    jobs.append(Target("service", tm.unit, "inactive"))
        elif kind == "package" and self.snapshot.packages is not None:
            targets = [Target("package", p.name, "installed", version=p.version)
                       for p in self.snapshot.packages]
        elif kind in FACTS:
            found = FACTS[kind](self.snapshot, projects)
            if found is None:
                return None
            targets = found
            if kind in IDENTITIES:
                IDENTITIES[kind](self.snapshot, targets, identities)
        else:
            return None
        index = _Index(kind, targets, projects, self.aliases.get(kind, {}), descriptions,
                       identities, named_only=jobs, whose=whose)
        self._indexes[kind] = index
        return index

    def account(self, owner: str) -> str | None:
        """The one account a person's name finds as it is said ("rafael": rsantos), or
        None."""
        found = self.resolve([owner], ["user"], False)
        if len(found.targets) != 1 or found.missing or found.question or not found.sure:
            return None
        return found.targets[0].name

    def resolve(self, phrases: list[str], kinds: list[str], plural: bool) -> MatchResult:
        result = MatchResult()
        indexes = [i for i in (self.index(k) for k in kinds) if i is not None]
        tops = {}
        for phrase in (p.lower() for p in phrases):
            candidates = [c for index in indexes for c in index.lookup(phrase, plural)]
            best = max((c.score for c in candidates), default=0)
            tops[phrase] = _unique([c for c in candidates if c.score == best])
        _within_named(tops)
        _whose(tops)
        for phrase, top in tops.items() if not plural else ():
            own = [c for c in top if stem(c.target.name).lower() not in UPKEEP]
            if own and len(own) < len(top) and all(c.strategy not in (
                    "exact name", "alias") for c in top):
                tops[phrase] = own  # "run the backup": borg-backup, not dpkg-db-backup;
                # "all the backup timers" are every one
        for phrase in (p.lower() for p in phrases):
            if phrase == "all":
                for index in indexes:
                    for t in index.targets:
                        result.strategies[t.name] = "all"
                        if t not in result.targets:
                            result.targets.append(t)
                continue
            top = tops[phrase]
            if not top:
                result.missing.append(phrase)
                continue
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


# units every Debian or Ubuntu system runs for its own upkeep: a word one shares with the
# machine's own units ("backup", "update", "clean") means the machine's, not the distro's
UPKEEP = frozenset({
    "apt-daily", "apt-daily-upgrade", "dpkg-db-backup", "man-db", "logrotate",
    "e2scrub_all", "e2scrub_reap", "fstrim", "systemd-tmpfiles-clean", "plocate-updatedb",
    "mlocate", "updatedb", "phpsessionclean", "sysstat-collect", "sysstat-summary",
    "exim4-base", "motd-news", "fwupd-refresh", "apt-news", "esm-cache", "ua-timer",
    "ua-reboot-cmds", "systemd-journal-flush", "systemd-update-utmp", "mdcheck_start",
    "mdcheck_continue", "mdmonitor-oneshot", "btrfs-scrub", "update-notifier-download",
    "update-notifier-motd", "snapd.snap-repair", "certbot-renew-hook"})


def _within_named(tops: dict[str, list[Candidate]]) -> None:
    """"the gitea stack and its database": a phrase that fits several things by what they
    are keeps those another phrase of the request names as a group (gitea's database,
    not every database here)."""
    for phrase, top in tops.items():
        if len(top) < 2 or any(c.strategy in GROUPING for c in top):
            continue
        for other, named in tops.items():
            group = {c.target for c in named if c.strategy in GROUPING}
            inside = [c for c in top if c.target in group]
            if other != phrase and inside and len(inside) < len(top):
                tops[phrase] = inside
                break


def _whose(tops: dict[str, list[Candidate]]) -> None:
    """"the notebook container of anna schmidt": a phrase that says only whose a thing is
    narrows the other phrases to the things that are that person's; together they are one
    thing, never every notebook and hers too."""
    for phrase, top in list(tops.items()):
        if not top or any(c.strategy != WHOSE for c in top):
            continue
        hers = {c.target for c in top}
        for other, named in tops.items():
            inside = [c for c in named if c.target in hers]
            if other != phrase and inside and any(c.strategy != WHOSE for c in named):
                tops[other] = inside
                tops[phrase] = inside


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


def section(kind: str) -> str:
    """The snapshot section a kind of resource comes from."""
    return {"process": "processes", "device": "block_devices"}.get(kind, kind + "s")


