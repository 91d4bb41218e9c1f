"""The long tail: what this machine's own manual says relates to a request reos has no
recipe for.

When nothing in the catalogue fits (and no model answered), the request's content words
are looked up in man-db's index with one bounded `apropos` run (sections 1 and 8, the
commands a person or an administrator runs), and the pages that share the most words
with the request are named, so the answer is "I have no recipe for that; these commands
here relate: …", never a guess. Nothing is planned or run besides that lookup.

Each word passed to `apropos` is plain lower-case letters (apropos reads keywords as
regular expressions), argv only, never a shell. Its output is untrusted text: escapes
are stripped and each line is bounded. No man-db, no index, a timeout or an error: no
pages, said as nothing found.

Here with the collectors because it runs a program; the engine hands `related` to the
planner, which only calls it when nothing fits. Not responsible for understanding
requests (`understanding.reading`) or for the reply around the pages
(`words.replies.no_recipe`).
"""

from __future__ import annotations

import re
import shutil
import subprocess

from reos.patterns import regex
from reos.text import clean

MAX_WORDS = 6  # more content words than this: the first ones (the question, not the story)
MAX_PAGES = 5
TIMEOUT = 3.0
MAX_OUTPUT = 256 * 1024
_LINE = regex(r"^(?P<name>[\w.+:@-]{1,64}) \((?P<section>[1-9][a-z0-9]{0,8})\)\s+- "
                   r"(?P<summary>.{1,300})$")
# words that say nothing about what to do: asking, politeness, and a story's glue
_STOP = frozenset("""
a about after again all also am an and any anything are as at be because been before
being but by can could did do does doing done for from get got had has have having he her
here him his how i if in into is it its just know let like me might more most my need
needs no not now of off on one only or our out please pls right should show so some
something still tell than thank thanks that the their them then there these they this
those to too up us very want wanted was we were what whats when where which while who why
will with would yes you your hi hello hey ok okay help thing things stuff box server
machine computer system today yesterday kindly quickly maybe really actually currently
make makes made give gives take takes put puts go goes going want wants try use using
""".split())


class Page:
    __slots__ = ("name", "section", "summary", "hits")

    def __init__(self, name: str, section: str, summary: str, hits: int):
        self.name, self.section, self.summary, self.hits = name, section, summary, hits

    def __repr__(self) -> str:
        return f"Page({self.name}({self.section}), {self.hits})"


def words_of(text: str) -> list[str]:
    """The request's content words, as apropos may read them: letters only, 3 or more."""
    found: list[str] = []
    for token in text.lower().split():
        word = token.strip(".,;:!?\"'()[]")
        if word.endswith("'s"):
            word = word[:-2]
        # a host, a path or a version names a thing, not what to do with it
        if not word.isalpha() or not word.isascii():
            continue
        if len(word) >= 3 and word not in _STOP and word not in found:
            found.append(word)
    return found[:MAX_WORDS]


def related(text: str) -> list[Page]:
    """Manual pages (sections 1 and 8) sharing the most words with the request, best
    first; empty when man-db is missing, has no index, or nothing shares enough."""
    words = words_of(text)
    apropos = shutil.which("apropos", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if not words or apropos is None:
        return []
    try:
        done = subprocess.run(
            [apropos, "-s", "1,8", "--", *words], capture_output=True, timeout=TIMEOUT,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "MANWIDTH": "200"},
            stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return []
    return rank(done.stdout[:MAX_OUTPUT].decode("utf-8", "replace"), words)


def rank(output: str, words: list[str]) -> list[Page]:
    """apropos's lines ("name (8) - summary") ranked by how many request words each
    shares (a word in the page's name counts twice); two or more must be shared when
    the request has two or more words."""
    need = 2  # two words shared, or one word that is also the page's name
    pages: dict[str, Page] = {}
    for line in output.splitlines():
        match = _LINE.match(clean(line).strip())
        if not match:
            continue
        name, summary = match["name"], match["summary"].strip()
        said = set(re.findall(r"[a-z]+", summary.lower()))
        named = set(re.findall(r"[a-z]+", name.lower()))
        stems = {_stem(w) for w in said}
        hits = sum(1 for w in words if _stem(w) in stems) + sum(1 for w in words if w in named)
        if hits >= need and (name not in pages or pages[name].hits < hits):
            pages[name] = Page(name, match["section"], summary[:120], hits)
    best = sorted(pages.values(), key=lambda p: (-p.hits, len(p.name), p.name))
    out: list[Page] = []
    families: dict[str, int] = {}
    for page in best:  # docker-image-load, docker-image-pull…: two of a family at most
        family = re.split(r"[-_]", page.name, maxsplit=1)[0]
        families[family] = families.get(family, 0) + 1
        if families[family] <= 2:
            out.append(page)
    return out[:MAX_PAGES]


def _stem(word: str) -> str:
    """timestamps -> timestamp, traces -> trace, processes -> process: enough to match
    a summary's words."""
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word
