"""A request that asks for several things at once: "stop paperless and start vaultwarden",
"how long has it been up and what is the load", "lock karl and take him out of docker".

The request is cut where "and", "then", a comma or a semicolon is followed by a new ask (a
verb, a question word, "please"); what follows a join without one goes on naming things
("stop paperless and vaultwarden" is one ask). A bare verb shares the next ask's object
("stop and remove the old container"). "it"/"him" in a later ask is what an earlier one
named. The request is read as its parts only when the whole reading leaves words out (it would
drop a verb and apply the other one to every name), each part reads on its own, whole, as
a query or an action, and they ask for different things. A condition or a time ("when the
disk is full", "once X stopped"), a pronoun for several things ("them") or one nothing
earlier named keeps the request whole. A part the catalogue refuses refuses the whole.

Not responsible for planning the parts (planner) or reading each one (`read`, handed in:
reading.read).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from reos.catalogue.templates import TemplateSet
from reos.model.request import Asking, Intent, Kind, Understood
from reos.patterns import regex
from reos.understanding import parser, stories

if TYPE_CHECKING:
    from typing import Any

Reader = Callable[..., Intent]

MAX_PARTS = 4  # more asks than this in one breath are said back, not guessed at
ONE_AT_A_TIME = ("That asks for several things, and I can't tell which names each one is "
                 "about, so I won't guess. Ask me for them one at a time.")

# where a new ask may begin: "and", "then", "and then", "plus", a comma or a semicolon
_JOIN = regex(r"(\s*(?:[,;]\s*|[.!?]\s+)"
                   r"(?:(?:and\s+)?then\s+|and\s+(?:also\s+)?|also\s+|after\s+that\s+)?"
                   r"|\s+(?:and\s+then|and\s+also|and|then|plus|after\s+that)\s+)",
                   re.IGNORECASE)
# a question asked as a part: "… and what is the load", "… and when did it last run"
_QUESTION = regex(r"^(?:what|what's|whats|which|who|whose|how|where|when|why|is|are|"
                       r"was|were|does|do|did|has|have|show|list|tell|check|give)\b",
                       re.IGNORECASE)
# a value said again for the same ask: an address (or network), a port or a count
_VALUES = (regex(r"(?<![\w./-])\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?(?![\w./-])"),
           regex(r"(?<![\w./-])\d{1,5}(?![\w./-])"))
_POLITE = regex(r"^\s*(?:(?:could|can|would|will)\s+(?:you|u)\s+(?:please\s+|pls\s+)?)",
                     re.IGNORECASE)
# a condition or a time said in a part: the conditional reading's work, never split off
# ("when did it last run" asks; "when the disk is full" sets a condition)
_CONDITION = regex(r"\b(?:if|unless|whenever|once|otherwise|else|until|in\s+case|"
                        r"when(?!\s+(?:did|does|do|is|was|will|are|were|has|have|can|"
                        r"should|would)\b))\b", re.IGNORECASE)
# an ask put as the state it should leave ("make sure it starts at boot")
_ENSURE = regex(r"^(?:make\s+sure|make\s+certain|ensure|be\s+sure)\b", re.IGNORECASE)
_AFTERWARDS = regex(r"\s+(?:afterwards?|after\s+that)\s*$", re.IGNORECASE)
# a pronoun for several things ("stop A and B, then remove them"): which ones is not guessed
_PLURAL = regex(r"\b(?:them|they|their|those|these|both)\b", re.IGNORECASE)


def split(text: str, whole: Intent, templates: TemplateSet, matcher: Any, read: Reader, *,
          remote: bool = False) -> Intent | None:
    """The request as its parts (an Intent whose `parts` are read one by one), a refusal
    when one part is refused, or None when it is one ask or the whole reads as well."""
    if whole.kind == Kind.REFUSE or whole.parts:
        return None
    read_whole = whole.reading
    if whole.kind in (Kind.QUERY, Kind.ACTION, Kind.COMBINED) and not (
            read_whole.unexplained or (read_whole.unhonoured and not whole.params.get("clock"))
    ) and not (whole.kind != Kind.QUERY and _asks_after(text)):
        return None  # "install nginx and enable it": one operation says it all (a
        # qualifier it cannot apply, "start it and make sure it starts at boot", is not;
        # a time it cannot keep is asked about, never split off to run the rest now; a
        # question after a change, "restart nginx and show me its status", is its own)
    groups = _asks(text.strip().rstrip(".!?"), templates, matcher)
    if not 2 <= len(groups) <= MAX_PARTS or not all(
            _begins_ask(g, templates, matcher) for g in groups):
        return None
    # the whole reading acts with a verb of another part left out ("stop it and start
    # n8n" would stop n8n): when the parts cannot be read one by one, it is asked about
    verbs = {_verb_of(g, templates, matcher, acting=True) for g in groups} - {None}
    dropped = whole.kind in (Kind.ACTION, Kind.COMBINED) and bool(
        verbs & set(read_whole.unexplained))
    # the question keeps every word of the request: what the whole reading could not
    # place, and what it took for names (each ask's own is not known)
    fallback = Intent(Kind.CLARIFY, targets=list(whole.targets),
                      asking=Asking(question=ONE_AT_A_TIME), reading=Understood(
                          "catalogue", unexplained=list(read_whole.unexplained))
                      ) if dropped else None
    if any(_CONDITION.search(g) for g in groups):
        return fallback
    said = [stories.referents(g, groups[:n], templates, matcher) if n else g
            for n, g in enumerate(groups)]
    if any(_PLURAL.search(g) or (said[n] == g and stories.refers(g))
           for n, g in enumerate(groups)):
        return fallback  # "remove them" of several, or an "it" nothing earlier named
    intents = [read(g, templates, matcher, remote=remote) for g in said]
    refused = next((i for i in intents if i.kind == Kind.REFUSE), None)
    if refused is not None:
        return refused
    if not all(i.kind in (Kind.QUERY, Kind.ACTION) and i.operation and i.asking is None
               and not i.reading.unhonoured and not i.reading.ignored
               and not i.reading.unexplained
               for i in intents):
        return fallback  # each part is read whole, or the request is not read in parts
    if len({(i.operation, tuple(i.targets), tuple(sorted(i.params.items())))
            for i in intents}) < len(intents):
        return None  # the same ask twice: the whole reading holds it
    if whole.kind != Kind.QUERY and _widens(whole, intents):
        return None  # a state or an exclusion the whole reading kept is never dropped
    acting = any(i.kind == Kind.ACTION for i in intents)
    return Intent(Kind.ACTION if acting else Kind.QUERY, action="several",
                  operation="several", targets=[t for i in intents for t in i.targets],
                  parts=intents,
                  summary="; ".join(i.summary or i.operation or "" for i in intents),
                  reading=Understood(intents[0].reading.source,
                                     min(i.reading.confidence for i in intents)))


def _widens(whole: Intent, parts: list[Intent]) -> bool:
    """Whether the parts would act on more than the whole reading: a part acts on a set
    ("the services", "all containers") and a qualifier or an exclusion the whole reading
    kept, or any reading it asks between, is in no such part ("restart the services,
    which failed, and show me the load" is the failed ones, never every service). A part
    that names what it acts on ("restart nginx") is no wider for a word of the
    question beside it ("… and show me the failed services")."""
    readings = [whole, *(option.intent for option in (
        whole.asking.options if whole.asking else ()))]
    kept = {w for i in readings for w in (*i.qualifiers, *(f"not {x}" for x in i.exclude))}
    sets = [i for i in parts if i.kind == Kind.ACTION and (i.plural or not i.targets or (
        "all" in i.targets))]
    said = {w for i in sets for w in (*i.qualifiers, *(f"not {x}" for x in i.exclude))}
    return bool(sets) and bool(kept - said)


def _asks_after(text: str) -> bool:
    """Whether a piece after the first, joined by "and", "then" or the end of a
    sentence (never a bare comma: "the services, which failed" says which), is a
    question ("… and show me its status", "… and what is the load"): a change's reading
    may take its words for its own and leave the question unanswered."""
    pieces = _ASKED_AFTER.split(text.strip().rstrip(".!?"))[1:]
    return any(_QUESTION_AFTER.match(_POLITE.sub("", piece).strip()) for piece in pieces)


# what joins a question said after a change: "and", "then", a new sentence
_ASKED_AFTER = regex(r"\s*(?:,\s*)?(?:\band\s+then|\band|\bthen|\bplus|\bafter\s+that)\s+"
                     r"|\s*[;.!?]\s+", re.IGNORECASE)
# a question or a request to show, never a word that goes on saying which ("which",
# "who", "that" after a name) nor one that leaves out ("do not touch redis")
_QUESTION_AFTER = regex(r"^(?:what|what's|whats|how|when|why|show|list|tell|give|display|"
                        r"check)\b", re.IGNORECASE)


def asks(text: str, templates: TemplateSet, matcher: Any = None) -> list[str]:
    """The pieces of a request that begin an ask of their own, cut where `split` cuts it:
    "stop cron on db1 and restart nginx" asks twice, "show the uptime and the load" and
    "we had a deploy go wrong, just restart nginx" once. For a caller that must know
    whether words said once apply to one ask or to all (hosts named in words)."""
    pieces = _JOIN.split(text.strip().rstrip(".!?"))[::2]
    return [p.strip() for p in pieces if p.strip() and _begins_ask(p, templates, matcher)]


def _asks(text: str, templates: TemplateSet, matcher: Any) -> list[str]:
    """The request's asks, in order: a piece after a join begins a new one when it asks
    itself; otherwise it goes on the one before ("and vaultwarden")."""
    pieces = _JOIN.split(text)
    if len(pieces) < 3:
        return [text]
    groups = [pieces[0]]
    verb = _verb_of(pieces[0], templates, matcher)
    for join, piece in zip(pieces[1::2], pieces[2::2], strict=True):
        form = next((f for f in _VALUES if f.fullmatch(piece.strip())), None)
        # "the services, which failed": words after a bare comma that say which
        relative = join.strip() == "," and piece.strip().split(" ", 1)[0].lower() in (
            "which", "who", "whose", "that", "where")
        if piece.strip() and not relative and _begins_ask(piece, templates, matcher):
            groups.append(piece)
        elif form is not None and len(form.findall(groups[-1])) == 1:
            # "allow 22 from 10.0.0.1 and 10.0.0.2": the same ask again for the other value
            start, end = form.search(groups[-1]).span()  # type: ignore[union-attr]
            groups.append(groups[-1][:start] + piece.strip() + groups[-1][end:])
        elif verb and _names_more(piece, templates, matcher):
            groups.append(f"{verb} {piece}")  # "show the uptime and the load": show both
        else:
            groups[-1] += join + piece
    # "… and show me its status afterwards": a later ask says it comes after, which its
    # place in the request already says
    groups = [groups[0], *(_AFTERWARDS.sub("", g) for g in groups[1:])]
    return _shared_objects([g.strip() for g in groups if g.strip()], templates, matcher)


def _verb_of(text: str, templates: TemplateSet, matcher: Any, *,
             acting: bool = False) -> str | None:
    """The asking word a request begins with ("show", "list"), or None: only a question
    shares its verb with what follows; an action's verb never reaches further than said
    ("wipe fail2ban, configs and all" wipes nothing else). With `acting`, the acting verb
    it begins with ("stop") instead."""
    units = [u for u in parser.parse(_POLITE.sub("", text), templates, matcher).units
             if u.text not in stories.LEADING]
    if not units:
        return None
    if acting:
        return units[0].text if "verb" in units[0].roles else None
    return units[0].text if "ask" in units[0].roles and "verb" not in units[0].roles else None


def _names_more(piece: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether a piece names something else to show ("and the load"), rather than going
    on naming things ("and vaultwarden") or qualifying them ("and all")."""
    units = parser.parse(piece, templates, matcher).units
    return any("noun" in u.roles for u in units) and not any(
        u.roles.keys() & {"verb", "qualifier"} for u in units)


def _begins_ask(piece: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether a piece asks: it begins with a verb or a question word, after "please"
    or "could you"."""
    words = _POLITE.sub("", piece).split()
    while words and words[0].lower() in stories.LEADING:
        words = words[1:]
    if not words:
        return False
    if _ENSURE.match(" ".join(words)):
        return True  # "… and make sure it starts at boot": an ask of its own
    return bool(_QUESTION.match(words[0])) or stories.imperative(
        " ".join(words), templates, matcher)


def _shared_objects(groups: list[str], templates: TemplateSet, matcher: Any) -> list[str]:
    """"stop and remove the old container": a part that is only a verb takes the object
    of the next part."""
    shared = list(groups)
    for n in range(len(shared) - 2, -1, -1):
        units = parser.parse(shared[n], templates, matcher).units
        if units and all("verb" in u.roles or u.text in stories.LEADING for u in units):
            rest = shared[n + 1].split()
            while rest and rest[0].lower() in stories.LEADING:
                rest = rest[1:]
            if len(rest) > 1:
                shared[n] = f"{shared[n]} {' '.join(rest[1:])}"
    return shared
