"""The words for hosts of a fleet ("the web servers", "every host", "on", "except"), and
the cheap first look before any inventory is read: whether a request's words could name
hosts of an inventory at all (`could_name_hosts`, given the words its files write:
`inventory_words`), and whether it says this machine (`says_here`).

The first look runs before every `reos plan` and every chat request when an inventory is
configured, so it reads only words: a False from `could_name_hosts` means the reader
(reos.understanding.hosts) would find no host, and neither Ansible nor the reader is
loaded. Not responsible for what the words mean (the reader is), nor for what the
inventory holds (Ansible is: reos.fleet.inventory).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from reos.patterns import regex

# Words for a machine of the fleet: "the web servers", "every host", "both web boxes".
HOST_NOUNS = {"host": "hosts", "server": "servers", "machine": "machines", "box": "boxes",
              "node": "nodes", "vm": "vms", "instance": "instances"}

# Words for a group as a whole: "the web tier" is the group web, whatever its size.
GROUP_NOUNS = {"tier": "tiers", "cluster": "clusters", "pool": "pools", "farm": "farms",
               "group": "groups", "fleet": "fleets"}

PLURALS = {**{p: s for s, p in HOST_NOUNS.items()}, "boxen": "box",
           **{p: s for s, p in GROUP_NOUNS.items()}}

# Words of place before hosts.
PLACE = {"on", "onto", "across", "over", "in", "at", "throughout", "within"}

# Words for hosts a typo of which is read as the word ("evry box", "all hsts",
# "everywher"), when the catalogue's corrector finds no other word as close, and only
# where such a word is read as hosts: after a word of place or a quantifier, or (for
# "everywhere") anywhere. A typo of a name of the inventory is never read so: it is asked.
HOST_WORDS = frozenset({*HOST_NOUNS, *HOST_NOUNS.values(), "everywhere", "everything",
                        "every", "each", "fleet"})

# Words that say this machine, and files of its ssh that are about hosts: said with names
# of hosts, the request is this machine's, or asked, never the hosts'.
HERE = {"here", "locally", "known_hosts"}

HERE_PAIRS = {("this", noun) for noun in ("machine", "computer", "box", "host", "server",
                                          "laptop", "workstation", "pc")} | {
    ("my", noun) for noun in ("laptop", "machine", "computer", "workstation", "local",
                              "desktop")} | {("known", "hosts"), ("ssh", "config"),
                                             ("etc", "hosts")}

# "the whole fleet" is every host; "the whole box" is this one: whole and entire say "all"
# only of the fleet.
EVERY = {"all", "every", "each", "both", "any"}

NEGATING = {"not", "except", "but", "without", "excluding", "besides", "never", "skip",
            "minus", "other", "apart"}

ASKING = {"which", "what", "any", "do", "does", "are", "is", "have", "has"}

# A word (a glob's "*" and "?" inside it: "web*", "web?1"; a "?" at its end asks), a
# possessive, or punctuation.
TOKEN = regex(r"(?:~|\.{1,2})?/[^\s,;]*|"  # a path ("/etc/hosts"): one token, never a name
              r"[A-Za-z0-9_*](?:[A-Za-z0-9_*?.\-]*[A-Za-z0-9_*])?|'s\b|'|[,;:!?@&+]")

WORD = regex(r"[a-z0-9_.\-]+")
_LEADING_ZEROS = regex(r"(?<![0-9])0+(?=[0-9])")
# an IPv4 address, which an inventory may give a host as the address it is reached at
# (ansible_host, a variable the first look does not read)
_ADDRESS = regex(r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}")

PARTS = regex(r"[._\-]+")

# Ansible's own words in an inventory file, which name no host or group.
_ANSIBLE_WORDS = {"all", "vars", "children", "hosts", "ungrouped", "yes", "no", "true", "false",
                  "group_vars", "host_vars", "ini", "yml", "yaml", "json", "toml", "cfg"}

FILES_READ = 32  # an inventory folder's files read for the first look, at most

BYTES_READ = 256 * 1024  # of each

NAMES_SEEN = 2000  # names of files and folders looked at in an inventory folder


def inventory_words(paths: Iterable[Path]) -> frozenset[str]:
    """The names of hosts and groups an inventory's files write (reos.understanding.
    inventory_names: never its variables' names or values, so "/home/bob/.ssh/id" or
    "/usr/bin/python3" gives no word), and the names of its files and folders
    (host_vars/web1.yml), lowercased, with each name's parts and letters
    ("web1.example.com": web1, example, com, web). A folder's group_vars and host_vars
    files give only their names (they hold variables, not hosts); at most FILES_READ
    files are read, BYTES_READ of each, and NAMES_SEEN names seen, since this runs before
    every `reos plan` when an inventory is configured. Only for `could_name_hosts`:
    nothing here reads the inventory's meaning, which is Ansible's."""
    from reos.understanding.inventory_names import names_in

    words: set[str] = set()
    files: list[Path] = []
    seen = 0
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        for folder, folders, names in os.walk(path):
            folders.sort()
            seen += len(names) + len(folders)
            words.update(WORD.findall(" ".join([*names, *folders]).lower()))
            if not {"group_vars", "host_vars"} & set(Path(folder).parts[-1:]):
                files += [Path(folder) / name for name in sorted(names)]
            if seen > NAMES_SEEN:
                break
    for file in files[:FILES_READ]:
        words.update(WORD.findall(file.stem.lower()))
        try:
            with file.open("rb") as handle:
                text = handle.read(BYTES_READ).decode("utf-8", "replace")
        except OSError:
            continue
        words.update(w for name in names_in(text, file.suffix) for w in WORD.findall(name))
    words = {w for w in words if not w.startswith("ansible") and w not in _ANSIBLE_WORDS}
    more = set()
    for word in words:
        parts = [p for p in PARTS.split(word) if p]
        more.update(parts)
        more.update(letters(p) for p in parts)
        more.add(_LEADING_ZEROS.sub("", word))  # kr-gw5 for kr-gw05
    return frozenset(w for w in words | more if w and not w.isdigit()
                     and w not in _ANSIBLE_WORDS)


def could_name_hosts(request: str, known: frozenset[str]) -> bool:
    """Whether the request's words could name hosts of an inventory whose words are
    `known` (`inventory_words`): a word for every host ("everywhere", "all servers"), a
    host or group noun after a word of place or a quantifier, a word that is, or is
    one letter off, a word of the inventory (of letters only after a word of place or a
    quantifier: "on the proxes"), one letter off a word for hosts with its first
    letter ("everywher"), or an IPv4 address (a host's ansible_host). False means `read`
    would find no host, so the inventory need not be read."""
    words = [t.lower() for t in TOKEN.findall(request.replace("\u2019", "'"))]
    placed = False
    for index, word in enumerate(words):
        if word in ("everywhere", "fleet") or word in PLURALS or _ADDRESS.fullmatch(word):
            return True
        if word in HOST_NOUNS and placed:
            return True
        if word in ("them", "those", "these") and index >= 2 and (  # "on all of them"
                words[index - 1] in PLACE or words[index - 2] in EVERY):
            return True
        if index and ((word in ("everything", "all") and words[index - 1] in PLACE) or (
                word in ("group", "groups") and words[index - 1] == "all")):
            return True  # "on everything", "on all but db1", "on the all group"
        placed = placed or word in PLACE or word in EVERY or word in ASKING
        candidates = {word, letters(word), PLURALS.get(word, word), word.rstrip("s"),
                      stem(word), *plurals(word)}  # "the dbserver", "the proxy"
        if index + 1 < len(words):
            candidates.add(word + words[index + 1])
        if "/" not in word:  # "snowcam-peak", "booking-ap": a word of a name said so
            candidates.update(p for p in PARTS.split(word) if len(p) >= 3 and p != word
                              and not p.isdigit())
        if candidates & known - {""}:
            return True
        if len(word) >= 3 and word.isalpha() and any(  # "prod" for production
                len(k) >= 3 and (k.startswith(word) or word.startswith(k)) for k in known
                if k.isalpha()):
            return True
        if len(word) >= 3 and any(c.isdigit() for c in word) and any(
                one_letter_off(word, k) for k in known if len(k) == len(word)):
            return True
        if len(word) >= 4 and word.isalpha() and word not in HOST_WORDS and any(
                k[0] == word[0] and one_letter_off(word, k) for k in HOST_WORDS):
            return True  # "everywher", "all hsts": read if the corrector reads them so
        if placed and len(word) >= 4 and word.isalpha() and (
                any(one_letter_off(word, k) for k in known if k.isalpha())
                or plurals(word[:-1]) & known):
            return True  # "on proxes", "on proxys": asked, did you mean proxies?
    return False


def says_here(request: str) -> bool:
    """Whether the request says this machine ("here", "locally", "this machine", "my
    laptop") and leaves nothing out ("not here" says the opposite): read without an
    inventory, for when none can be read."""
    words = [m.group().lower() for m in TOKEN.finditer(request.replace("\u2019", "'"))]
    if any(w in NEGATING or w.endswith("n't") for w in words):
        return False  # "not here", "except here": this machine is what is left out
    return any(w in HERE for w in words) or any(
        pair in HERE_PAIRS for pair in zip(words, words[1:], strict=False))


def letters(word: str) -> str:
    """A name without its digits and separators: web1, web-02 -> web."""
    return "".join(c for c in word.split(".", 1)[0] if c.isalpha())

def stem(group: str) -> str:
    """A group's name without a host or group noun at its end: webservers, web_servers,
    web-hosts -> web; a name that is only such a noun stays itself."""
    for noun in sorted({*PLURALS, *HOST_NOUNS, *GROUP_NOUNS}, key=len, reverse=True):
        if group.endswith(noun) and len(group) > len(noun):
            return group[: -len(noun)].rstrip("_-.")
    return group


def plurals(word: str) -> set[str]:
    """The ways a plural of `word` is written: worker -> workers, box -> boxes, proxy ->
    proxies."""
    found = {word + "s", word + "es"}
    if word.endswith("y") and len(word) > 2:
        found.add(word[:-1] + "ies")
    return found


def one_letter_off(word: str, name: str) -> bool:
    """One letter added, dropped, changed or two swapped, the digits left as they are
    (web9 is another host, not a slip for web1)."""
    if word == name or len(name) < 3 or abs(len(word) - len(name)) > 1:
        return False
    if [c for c in word if c.isdigit()] != [c for c in name if c.isdigit()]:
        return False
    if len(word) == len(name):
        diff = [k for k in range(len(word)) if word[k] != name[k]]
        if len(diff) == 1:
            return True
        return len(diff) == 2 and diff[1] == diff[0] + 1 and \
            word[diff[0]] == name[diff[1]] and word[diff[1]] == name[diff[0]]
    short, long = sorted((word, name), key=len)
    return any(long[:k] + long[k + 1:] == short for k in range(len(long)))
