"""Refusals by meaning: the catalogue's `[[refusal]]`s matched on a request's words.

A refusal holds when one of its verbs and one of its objects both occur (typos fixed
first, by the caller), unless one of its `unless` words does. With `trees`, an object
that is a path also names the paths under it ("/opt" names "/opt/compose"); an object
with an apostrophe ("'s password") is also looked for in the raw text, and one without
verbs matches its objects there only (fork bombs are mostly punctuation). Every disk
device is also said as "/dev/disk", so one object names them all.

`wipes_a_filesystem` refuses by what the machine holds: everything on a mounted
filesystem deleted at once ("wipe /srv/shares", "rm -rf /data", "yeet everything in
/scratch"), its mount points read from the matcher's snapshot.

`runs_fetched_code` refuses a download piped into a shell ("curl … | sudo bash"),
whatever the words around it.

Not responsible for scoring operations (see `scoring`) or for the words themselves
(`lexicon`).
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from reos.catalogue.lexicon import Lexicon
from reos.catalogue.operations import Refusal
from reos.patterns import regex

if TYPE_CHECKING:
    from typing import Any


def contains(words: list[str], phrase: str) -> bool:
    wanted = phrase.split()
    size = len(wanted)
    return any(words[i:i + size] == wanted for i in range(len(words) - size + 1))


_DISKS = ("/dev/sd", "/dev/vd", "/dev/hd", "/dev/xvd", "/dev/nvme", "/dev/mmcblk",
          "/dev/disk/", "/dev/mapper/", "/dev/dm-", "/dev/md")


def _refusal_words(words: list[str]) -> list[str]:
    """The words refusals are judged on: a leading sudo dropped, any disk device also
    said as "/dev/disk" so one object names them all."""
    while words and words[0] in ("sudo", "doas", "please"):
        words = words[1:]
    out = []
    for word in words:
        out.append(word)
        if word.startswith(("mkfs.", "mke2fs")):
            out.append("mkfs")  # mkfs.ext4, mkfs.xfs, …: making a filesystem
        device = word.split("=", 1)[-1]
        if device.startswith(_DISKS):
            out.append("/dev/disk")
    return out


def _said(words: list[str], said: set[str], phrase: str) -> bool:
    """`contains`, after a look at the phrase's first word: most phrases of most refusals
    share no word with a request, and that look is all they cost."""
    first = phrase.split(" ", 1)[0]
    return first in said and contains(words, phrase)


def refusal_for(text: str, words: list[str], lex: Lexicon, remote: bool) -> Refusal | None:
    """The first refusal whose verb and object both occur (an object alone when the
    refusal has no verbs, matched on the raw text: fork bombs are mostly punctuation)."""
    words = _refusal_words(words)
    said = set(words)
    raw = text.lower().replace("\u2019", "'")
    for refusal in lex.refusals:
        if refusal.remote and not remote:
            continue
        if any(_said(words, said, u) for u in refusal.unless):
            continue
        if not refusal.verbs:
            if any(o in raw for o in refusal.objects):
                return refusal
            continue
        if any(_said(words, said, v) for v in refusal.verbs) and any(
                _said(words, said, o) or (refusal.trees and _under(words, o))
                or ("'" in o and o in raw) for o in refusal.objects):  # "marit's password"
            return refusal
    return None


def _under(words: list[str], path: str) -> bool:
    """Whether a word is a path under `path` ("/opt/compose" under "/opt"); "/" itself
    names only itself here, or every path would be under it."""
    if not path.startswith("/") or " " in path or len(path.rstrip("/*")) < 2:
        return False
    prefix = path.rstrip("/*") + "/"
    return any(w.startswith(prefix) for w in words)


# verbs that delete all they are given, and those that do with "everything" or "all files"
_WIPES = ("wipe", "wipe out", "nuke", "yeet", "shred", "erase", "blow away")
_CLEARS = ("delete", "remove", "clear", "clear out", "empty", "get rid of", "purge", "rm")
_ALL = ("everything", "whole", "entire", "contents", "every file", "all files",
        "all the files", "all of it")
# what makes it a cleanup of some files, or a format, not the whole filesystem deleted
_SOME = ("older", "than", "days", "weeks", "months", "old files", "*.log", "which", "what",
         "how", "show", "list", "size", "usage", "from fstab", "fstab", "-name", "-iname",
         "-mtime", "-mmin", "-type", "-size", "-newer", "format", "exfat", "ext4", "xfs",
         "vfat", "fat32", "ntfs", "mkfs")
# words that may stand between the verb and the place it wipes ("everything in /scratch")
_BETWEEN = {"the", "all", "everything", "in", "on", "of", "out", "contents", "whole",
            "entire", "files", "every", "file", "folder", "directory", "dir", "under",
            "inside", "from", "just", "sudo", "-f", "--force", "--no-preserve-root"}
_PSEUDO = ("tmpfs", "devtmpfs", "overlay", "none", "proc", "sysfs", "cgroup2", "shm")


def _recursive_rm(words: list[str], at: int) -> bool:
    """Whether `rm` at `at` is given a recursive option ("-rf", "-Rv", "--recursive")."""
    return any(re.fullmatch(r"-[a-z]*r[a-z]*", w) or w == "--recursive"
               for w in words[at + 1:at + 4])


def wipes_a_filesystem(words: list[str], matcher: Any) -> Refusal | None:
    """A refusal when `words` delete everything on a mounted filesystem of this machine:
    a destructive verb ("wipe", a recursive rm, "delete everything in") whose object is a
    path that is a mount point ("/srv/shares", "/data/*") or holds one ("/srv" holding
    /srv/data), other than "/" (refused by the catalogue) and memory filesystems. Cleaning
    some files there ("older than 30 days", "the core dumps in") or formatting is not
    this."""
    index = matcher.index("mount") if matcher is not None else None
    if index is None or any(contains(words, w) for w in _SOME):
        return None
    starts = [n for n, w in enumerate(words) if w == "rm" and _recursive_rm(words, n) or (
        w == "find" and "-delete" in words)]  # "find /srv/media -delete": all it finds
    wide = any(contains(words, a) for a in _ALL)
    for size in (1, 2):
        phrases = {" ".join(words[n:n + size]): n for n in range(len(words) - size + 1)}
        starts += [n + size - 1 for p, n in phrases.items()
                   if p in _WIPES or (wide and p in _CLEARS and p != "rm")]
    if not starts:
        return None
    mounts = {posixpath.normpath(t.name).lower(): (t.name, (t.detail or "").split(",")[0])
              for t in index.targets if t.name not in ("/", "")
              and (t.detail or "").split(",")[0] not in _PSEUDO
              and not t.name.startswith(("/dev", "/proc", "/sys"))}
    for at in starts:
        for word in words[at + 1:]:
            if word.startswith("-") or word in _BETWEEN:
                continue
            if not word.startswith("/"):
                break  # "trash the core dumps in …": something smaller is the object
            path = posixpath.normpath(word.rstrip("*")).lower()
            held = sorted(m for m in mounts if m == path or m.startswith(path + "/"))
            if path == "/" or not held:
                break
            from reos.text import clean  # the path was typed, the mount read: both untrusted

            name, device = mounts.get(path, ("", ""))
            what = clean(f"{name} is the filesystem on {device}" if name else
                         f"{word.rstrip('*')} holds the filesystem mounted at "
                         f"{mounts[held[0]][0]}")[:200]
            return Refusal(id="refuse.wipe_filesystem", verbs=[], objects=[path], reason=(
                f"{what}: deleting everything there destroys every file on it at once, "
                "with no undo. I can show what is using the space there, or remove old "
                "files by age or name."))
    return None


_FETCHED = regex(
    r"\b(?:curl|wget|fetch)\b[^|\n]{0,400}\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?"
    r"(?:ba|z|da|k|fi)?sh\b|\b(?:ba|z)?sh\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s*(?:curl|wget)\b",
    re.IGNORECASE)


def runs_fetched_code(text: str) -> Refusal | None:
    """A refusal when `text` pipes a download into a shell ("curl -fsSL URL | sudo bash",
    "bash <(wget -qO- URL)"): code nobody here has read, run as it arrives."""
    found = _FETCHED.search(text)
    if not found:
        return None
    from reos.text import clean

    said = clean(found.group(0))[:80]
    return Refusal(id="refuse.fetched_code", verbs=[], objects=[], reason=(
        f"\u201c{said}\u201d runs a script straight from the network in a shell, unread, "
        "with whatever it was sent that minute, as root when sudo is in the line. Download "
        "it, read it, and if it only does what it claims, run the steps it needs here one "
        "by one."))
