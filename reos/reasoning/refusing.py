"""Refusals by meaning: the catalogue's `[[refusal]]`s matched on a request's words.

A refusal holds when one of its verbs and one of its objects both occur (typos fixed
first, by the caller), unless one of its `unless` words does. With `trees`, an object
that is a path also names the paths under it ("/opt" names "/opt/compose"); an object
with an apostrophe ("'s password") is also looked for in the raw text, and one without
verbs matches its objects there only (fork bombs are mostly punctuation). Every disk
device is also said as "/dev/disk", so one object names them all.

Not responsible for scoring operations (see `parser`) or for the words themselves
(`lexicon`).
"""

from __future__ import annotations

from reos.reasoning.catalogue import Refusal
from reos.reasoning.lexicon import Lexicon


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


def refusal_for(text: str, words: list[str], lex: Lexicon, remote: bool) -> Refusal | None:
    """The first refusal whose verb and object both occur (an object alone when the
    refusal has no verbs, matched on the raw text: fork bombs are mostly punctuation)."""
    words = _refusal_words(words)
    raw = text.lower().replace("\u2019", "'")
    for refusal in lex.refusals:
        if refusal.remote and not remote:
            continue
        if any(contains(words, u) for u in refusal.unless):
            continue
        if not refusal.verbs:
            if any(o in raw for o in refusal.objects):
                return refusal
            continue
        if any(contains(words, v) for v in refusal.verbs) and any(
                contains(words, o) or (refusal.trees and _under(words, o))
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
