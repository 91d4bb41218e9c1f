"""The catalogue parser: every word of a request tagged, then the operations scored.

`parse` is the entry. A request is normalised (case, contractions, possessives, verb
forms, typos checked against the catalogue's own words, "turn of" read as "turn off", a
full name taken out whole: `slot_words.full_name`), cut at the first piece of shell text,
and split into *units* (`tagging`): the longest phrase the catalogue knows (a verb such
as "get rid of", a resource noun, a qualifier such as "not running", an exclusion marker,
a time expression, a name from the snapshot) or a single unknown word. Each operation
that can read the request (`scoring.candidates`) then explains the units it can
(`scoring.score`, with `slot_words` and `target_words`): its verbs, nouns and idioms, its
resource noun, the qualifiers it accepts, the snapshot names of its target kind, typed
values its slots take, and the shared filler and ask words. What an operation cannot
explain counts against it; what the chosen reading cannot explain is returned, never
dropped, and lowers its confidence. The person's own account ("add *me* to docker":
`target_words.myself`) and a full name are added to the readings that take them, and
the readings are ranked best first (a `Parse`).

Refusals are found by meaning first (`refusing`): a destructive verb and a protected
object anywhere in the request (shell text included), and again once typos are fixed.
Exclusions ("except X", "leave X alone") and negations ("do not restart it, just reload
it") are read before the operations are scored; where an operation's idioms occur is
`idioms`' work.

Not responsible for what each piece of evidence is worth (`evidence.Weight`), for
choosing among the readings (`reading`), for resolving names to resources (the matcher
does), for plans, or for chat words such as "undo" and "yes" said alone (perception
does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.catalogue.lexicon import correct, lexicon, split_shell, words_of
from reos.catalogue.operations import Refusal
from reos.catalogue.refusing import refusal_for, runs_fetched_code, wipes_a_filesystem
from reos.catalogue.templates import TemplateSet
from reos.understanding import slot_words, tagging, target_words
from reos.understanding.evidence import Reading, Weight
from reos.understanding.idioms import Flat
from reos.understanding.scoring import candidates, score
from reos.understanding.tagging import Names, Unit, units_of

if TYPE_CHECKING:
    from typing import Any


class Parse:
    """What the parser found: units, the refusal if any, readings best first."""

    def __init__(self, text: str, units: list[Unit], shell: str | None = None):
        self.text = text
        self.units = units
        self.refusal: Refusal | None = None
        self.readings: list[Reading] = []
        self.exclude: list[str] = []
        self.shell = shell  # the shell text cut from the request, said back
        self.negated: set[str] = set()  # operation ids the request said not to

    @property
    def best(self) -> Reading | None:
        return self.readings[0] if self.readings else None


_OFF_VERBS = {"turn", "switch", "shut"}


def _particle_typos(words: list[str]) -> list[str]:
    """"turn of wifi", "switch of avahi": "of" after a verb that takes "off" is "off"
    (never after an article: "the turn of events")."""
    return [("off" if w == "of" and n and words[n - 1] in _OFF_VERBS and (
        n < 2 or words[n - 2] not in ("the", "a", "an", "this", "that")) else w)
            for n, w in enumerate(words)]


# verbs that hand something over, said to the person ("drop me the list of …", "shoot me
# the logs", "hit me with the failed units"): a way to say "show me", never what they act on
_HANDING = {"drop", "send", "shoot", "toss", "throw", "slide", "pass", "hit", "fetch", "bring"}
_HANDED = {"the", "a", "an", "some", "all", "every", "with", "your", "that", "those", "this"}
# what "give me the …" grants rather than hands over ("give me the sudo rights")
_GRANTED = {"access", "rights", "right", "permission", "permissions", "privileges", "sudo",
            "group", "groups", "shell", "password", "key", "keys", "ownership", "ability",
            "power", "powers", "same", "role"}


def _handing(words: list[str]) -> list[str]:
    """"drop me the list of compose projects" as "show me the list …" ("hit me with the
    logs": "show me the logs", "give me the ram situation"); never "drop me from the
    docker group", where the person is what the verb acts on, nor "give me the sudo
    rights", which grants."""
    out: list[str] = []
    for n, word in enumerate(words):
        if n and out[-1:] == ["me"] and len(out) > 1 and out[-2] == "show" and word == "with":
            continue
        handed = words[n + 1:n + 2] in (["me"], ["us"]) and bool(words[n + 2:n + 3]) and (
            words[n + 2] in _HANDED)
        out.append("show" if handed and (word in _HANDING or word == "give" and not set(
            words[n + 3:n + 6]) & _GRANTED) else word)
    return out


# nouns for one of several copies of a thing: "the staging copy of kursplan" is kursplan's
# staging one, said as its name would be ("kursplan staging")
_COPIES = {"copy", "instance", "deployment", "environment", "variant", "clone", "stack"}
_ARTICLES = {"the", "a", "an", "my", "our", "that", "this"}
# words before such a noun that say which copy by no name of its own ("which instance of",
# "the latest copy of", "every instance of")
_NOT_A_NAME = {"which", "what", "whose", "latest", "newest", "current", "other", "another",
               "every", "each", "any", "some", "one", "first", "last", "second", "same"}


def _copy_of(words: list[str], names: Names) -> list[str]:
    """"stop the staging copy of kursplan" as "stop the kursplan staging": the word before
    the copy's noun said after the name (one word each, the name not a filler), only when
    that word is a word of a name here (kursplan-staging-web-1): a word that names nothing
    ("the spare copy of moodle") stays, and with it the question."""
    for n in range(1, len(words) - 2):
        if words[n] in _COPIES and words[n + 1] == "of" and words[n - 1] not in (
                _ARTICLES | _NOT_A_NAME) and names.kinds(words[n - 1]):
            rest = n + 2 + (words[n + 2] in _ARTICLES)
            if rest < len(words) and words[rest] not in _ARTICLES:
                return [*words[:n - 1], words[rest], words[n - 1], *words[rest + 1:]]
    return words


# verbs that put an account in or out of a group, and the words after the account: "me"
# there is the person's own account ("remove me from the docker group")
_MOVING = {"add", "put", "remove", "take", "kick", "drop", "yank", "pull", "boot", "throw",
           "get", "move", "delete", "strip", "stick", "chuck", "shove", "toss"}
_INTO_OR_OUT = {"from", "to", "into", "in", "out", "off", "outta", "onto"}


def _me_named(words: list[str], matcher: Any, names: Names) -> list[str]:
    """"remove me from the docker group" as "remove alice from the docker group", when the
    snapshot says the person is alice: "me" there is the account the verb moves into or
    out of a group, which a filler word cannot be ("show me the logs" stays); only where a
    group is said after it ("delete me from the system" stays as said)."""
    from reos.understanding.names import SAFE_NAMES

    host = getattr(getattr(matcher, "snapshot", None), "host", None) or {}
    me = host.get("user") if isinstance(host, dict) else None
    if not isinstance(me, str) or not SAFE_NAMES["user"].match(me):
        return words
    return [me if w in ("me", "myself") and 0 < n < len(words) - 1 and words[n - 1] in _MOVING
            and words[n + 1] in _INTO_OR_OUT and any(
                later in _GROUP_WORDS or "group" in names.kinds(later, tokens=False)
                for later in words[n + 2:]) else w for n, w in enumerate(words)]


_GROUP_WORDS = {"group", "groups", "sudoers", "sudo", "wheel", "admins"}


# kinds the snapshot lists completely (packages are not: any package can be installed)
_LISTED = ("user", "group", "mount", "device", "interface", "timer")


def _joins_a_name(words: list[str], n: int, names: Names) -> bool:
    """Whether word `n` and a word beside it are one name here, written apart ("modem
    manager" is ModemManager): then neither is a typo of a catalogue word ("model")."""
    from reos.understanding.matcher import spellings

    pairs = [words[m:m + 2] for m in (n - 1, n) if m >= 0 and m + 2 <= len(words)]
    return any(names.kinds(spelled, tokens=False) for pair in pairs
               if all(w.isalpha() for w in pair) for spelled in spellings(" ".join(pair)))


def _inner_fix(word: str, lex: Any, names: Names) -> str:
    if word in lex.phrases or names.kinds(word):
        return word
    fixed = correct(word, lex)
    return fixed if fixed and fixed not in lex.phrases else word


def parse(text: str, templates: TemplateSet, matcher: Any = None, *,
          remote: bool = False) -> Parse:
    """Tag every word of `text` and score every operation of the catalogue."""
    lex = lexicon(templates)
    before, shell = split_shell(text)
    all_words = words_of(text, lex)
    found = Parse(text=text, units=[], shell=shell)
    found.refusal = runs_fetched_code(text) or wipes_a_filesystem(  # the machine's own
        all_words, matcher) or refusal_for(text, all_words, lex, remote)  # reason first
    if found.refusal is not None:
        return found
    fullname = slot_words.full_name(before)
    if fullname is not None:  # "… full name to 'Daniel J. Tremblay'": one value, as said
        before = before[:fullname[1]] + " " + before[fullname[2]:]
    names = Names(matcher)
    words = _me_named(_copy_of(_handing(_particle_typos(words_of(before, lex))), names),
                      matcher, names)
    # a typo of a word that only ever follows another ("dns setings"): the tagger corrects
    # words that start a phrase, so these are corrected before it reads the phrase
    words = [w if (mended := _inner_fix(w, lex, names)) == w or _joins_a_name(words, n, names)
             else mended for n, w in enumerate(words)]
    units = units_of(words, lex, names)
    found.units = units
    fixed = [w if w in lex.phrases or names.kinds(w) else correct(w, lex) or w
             for w in all_words]
    if fixed != all_words:  # "delte all users", "uninstal the kernal"
        found.refusal = refusal_for(text, fixed, lex, remote)
        if found.refusal is not None:
            return found
    excluded, found.exclude = tagging.exclusions(units)
    found.negated, negation_units = tagging.negated(units)
    skip = excluded | negation_units
    words = [w for u in units for w in u.text.split()]
    flat = Flat(units)
    clauses = tagging.clauses(units)
    listed = frozenset(k for k in _LISTED if matcher is not None
                       and matcher.index(k) is not None)
    readings = [r for op in candidates(lex, units, flat)
                if (r := score(op, units, skip, found.negated, words, flat, clauses, listed))
                is not None]
    target_words.myself(readings, units, matcher)
    if fullname is not None:
        for reading in readings:
            if "fullname" in reading.op.slots and len(reading.targets) <= 1:
                reading.params["fullname"] = fullname[0]  # one name for one account: two
                reading.score += Weight.FULL_NAME  # accounts and one name is asked,
                # never given twice
    # a tie goes to the reading no word contradicts ("the b2 backup *timer*": not a service)
    readings.sort(key=lambda r: (-r.score, bool(r.conflicts), r.op.priority))
    found.readings = readings
    return found
