"""What a thing is called besides its name: the words that identify it.

A container by its image ("bookstack" of lscr.io/linuxserver/bookstack:24.1, "postgres-14"
of postgres:14-alpine) and its compose service; an account by its owner's full name
(GECOS); a mount and a device by its filesystem's label; a unit by the words of its
Description that set it apart, matched by their stems ("optimisation" finds "optimise"):
the words and stems are made here (`stem_of`, `WORD`, `COMMON`), the matcher reads the
descriptions with them. The matcher (`matcher.py`) indexes all of these.

Not responsible for looking anything up or for questions on ties (the matcher).
"""

from __future__ import annotations

import re

from reos.model.target import Target
from reos.patterns import regex
from reos.system.snapshot import SystemSnapshot

TOKENS = regex(r"[-_.@]+")  # the marks between the words of a name


WORD = regex(r"[a-z][a-z0-9]+")
# description words too common to tell one thing from another
COMMON = frozenset({
    "service", "services", "daemon", "server", "system", "systemd", "manager", "with",
    "from", "that", "this", "into", "over", "using", "user", "users", "file", "files",
    "unit", "units", "support", "network", "data", "default", "target", "client",
    "clients", "local", "remote", "linux", "debian", "ubuntu", "tool", "tools", "agent",
    "the", "and", "for", "daily", "weekly", "load", "start", "stop", "main", "base",
    "core", "common", "simple", "small", "light", "lightweight", "fast", "high",
    "performance", "version", "instance", "run", "runs", "running", "new", "old", "all",
    "any", "more", "other", "some", "such", "only", "own", "same", "than", "very", "can",
    "will", "just", "when", "where", "which", "while", "about", "after", "before", "under",
    "again", "then", "once", "here", "there", "each", "both", "few", "most", "not", "its",
    "are", "was", "has", "have", "per", "via", "onto", "your", "you", "our",
    "config", "configuration", "interface", "interfaces", "watch", "make", "makes", "keep",
    "keeps", "up", "down", "out", "off", "on", "one", "two", "first", "last", "next", "now",
    "time", "times", "set", "sets", "get", "gets", "use", "used", "uses", "work", "works",
    "worked", "working", "application", "applications", "engine", "engines", "container",
    "containers", "program", "programs", "process", "processes", "thing", "things",
})


_SUFFIXES = ("isations", "izations", "isation", "ization", "ations", "ation", "ising",
             "izing", "ised", "ized", "iser", "izer", "ise", "ize", "ers", "ing", "ed", "er",
             "es", "s", "e")


def stem_of(word: str) -> str:
    """A description word without its ending ("optimisation", "optimise" and "optimiser"
    are "optim"; "images" and "image" are "imag"), so either form finds the other."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


_IMAGE_NOISE = {"latest", "stable", "library", "linuxserver", "lscr", "ghcr", "docker", "io",
                "server", "app", "image", "official", "alpine", "slim", "main", "release"}


def image_words(image: str) -> set[str]:
    """The words an image gives a container: its repository's last part ("bookstack" of
    lscr.io/linuxserver/bookstack:24.1), that part's words, and with the tag's version
    ("postgres-14", "postgres14" of postgres:14-alpine) for "the one on postgres 14"."""
    if not image or image.startswith("sha256:"):
        return set()
    image = image.lower().split("@")[0]
    path, _, tag = image.rpartition(":") if ":" in image.rsplit("/", 1)[-1] else (
        image, "", "")
    parts = path.split("/")
    if len(parts) > 1 and ("." in parts[0] or ":" in parts[0] or parts[0] == "localhost"):
        parts = parts[1:]  # the registry's host is not what the image is
    base = parts[-1]
    if not base:
        return set()
    words = {p for p in parts if p not in _IMAGE_NOISE}  # vaultwarden of vaultwarden/server
    words |= {w for w in TOKENS.split(base) if len(w) >= 3}
    version = re.match(r"v?(\d+)", tag)
    if version:
        for name in words & {base, *parts[:-1]}:
            words |= {f"{name}-{version.group(1)}", f"{name}{version.group(1)}"}
    return words - _IMAGE_NOISE


def compose_service(labels: dict[str, str], name: str) -> set[str]:
    """The compose service a container runs ("db" of project nextcloud)."""
    service = (labels or {}).get("com.docker.compose.service", "").lower()
    return {service} if len(service) >= 2 and service != name.lower() else set()


def people(snapshot: SystemSnapshot) -> dict[str, set[str]]:
    """Each person's login and the words that name them besides it: their full name,
    first name or surname (GECOS's first field), short forms and possessives. System
    accounts' comments ("PostgreSQL administrator") name no person."""
    users = getattr(snapshot, "users", None) or []
    logins = {u.name.lower() for u in users}
    keys: dict[str, set[str]] = {}
    for u in users:
        if u.system:
            continue
        mine = keys.setdefault(u.name, set())
        if not u.name.endswith("s") and f"{u.name}s".lower() not in logins:
            mine.add(f"{u.name}s".lower())  # "bobs shell": bob's
        full = (u.gecos or "").split(",", 1)[0].strip().lower()
        words = [w for w in re.split(r"\s+", full) if len(w) >= 2 and w.isalpha()]
        if words:
            mine |= {*words, "-".join(words), *_short_forms(words, logins)}
    return keys


def _full_names(snapshot: SystemSnapshot, targets: list[Target],
                found: dict[str, list[Target]]) -> None:
    """A person's account by what they are called (`people`)."""
    by_name = {t.name: t for t in targets}
    for login, keys in people(snapshot).items():
        if login in by_name:
            for key in keys:
                found[key].append(by_name[login])  # a set of keys: each account once


def owners(snapshot: SystemSnapshot, name: str,
           who: dict[str, set[str]]) -> set[str]:
    """The words of the people a thing's name is named after ("jupyter-aschmidt" is Anna
    Schmidt's: "anna", "schmidt", "aschmidt"), from the logins among its name's parts."""
    parts = {p for p in TOKENS.split(name.lower()) if len(p) >= 3}
    return {key for login, keys in who.items() if login.lower() in parts
            for key in {login.lower(), *keys}}


def _short_forms(words: list[str], logins: set[str]) -> set[str]:
    """What people call a person besides their full names: the first name cut short
    ("dan" of Daniel, "chris" of Christopher; at least three letters, two left off) and
    the possessive typed without its apostrophe ("dans shell", "margarets printer").
    Never a short form that begins an account's login ("ali" and "alic" stay alice's
    typos, not Alicia's; "bob" and "bobs" stay bob's, not Bobby's). A whole name keeps its
    possessive ("jans" is jan's and Jan Kowalski's: a question)."""
    first = words[0]
    shorts = {first[:n] for n in range(3, len(first) - 1)}
    shorts = {s for s in shorts if not any(login.startswith(s) for login in logins)}
    return shorts | {f"{w}s" for w in {*shorts, *words} if not w.endswith("s")
                     and f"{w}s" not in logins}


def _labels_of_mounts(snapshot: SystemSnapshot, targets: list[Target],
                      found: dict[str, list[Target]]) -> None:
    """A mount by its filesystem's label ("BACKUP") and by each word of it ("backup" of
    HERON-BACKUP), as people name the disk they plugged in."""
    labels = {d.path: d.label for d in getattr(snapshot, "block_devices", None) or []
              if d.label}
    by_point = {t.name: t for t in targets}
    for m in getattr(snapshot, "mounts", None) or []:
        label = (m.label or labels.get(m.device, "")).lower()
        if len(label) >= 2 and m.mountpoint in by_point:
            target = by_point[m.mountpoint]
            for word in {label} | {w for w in TOKENS.split(label) if len(w) >= 3}:
                if target not in found[word]:
                    found[word].append(target)


def _labels_of_devices(snapshot: SystemSnapshot, targets: list[Target],
                       found: dict[str, list[Target]]) -> None:
    """A device by its filesystem's label."""
    by_name = {t.name: t for t in targets}
    for d in getattr(snapshot, "block_devices", None) or []:
        label = (d.label or "").lower()
        if len(label) >= 2 and d.name in by_name:
            found[label].append(by_name[d.name])


IDENTITIES = {"user": _full_names, "mount": _labels_of_mounts, "device": _labels_of_devices}
