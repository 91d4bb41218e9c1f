"""Where a request says a change lands, read before it is planned here (planning/planner.py
asks): a name a change ends on that nothing here is called ("remove sudo from bob" with
no bob: `lost_place`), and a machine named that is not this one ("restart nginx on
web01", "on the server mosswood-nas", "on the remote server": `elsewhere`). Either makes
the plan a question, never the change done here without it.

Not responsible for this machine's own name (understanding/this_machine.py) nor for an
inventory's hosts (understanding/hosts.py).
"""

from __future__ import annotations

import re
from typing import Any

from reos.catalogue.templates import TemplateSet
from reos.model.request import Intent, Kind
from reos.patterns import regex


def lost_place(request: str, intent: Intent, templates: TemplateSet) -> str | None:
    """The name a change on its target ends on ("remove sudo from bob", "add docker to
    alice"), left out of the reading because nothing here is called so and the catalogue
    gives it no meaning: the change would land somewhere else than asked, so it is not
    planned."""
    from reos.catalogue.lexicon import lexicon

    lex = lexicon(templates)
    named = {w for t in intent.targets for w in t.lower().split()}
    for word in intent.reading.unexplained:
        found = re.fullmatch(r"[\w.-]+", word) and word not in lex.phrases and re.search(
            rf"(\S+)\s+(?:from|to|into)\s+(?:the\s+|user\s+|group\s+)?{re.escape(word)}"
            r"\s*(?:$|[,.;!?])", request, re.IGNORECASE)
        if found and found[1].lower() in named:
            return word
    return None


# a machine's name after "on": "on the server web", "on web01" (after "at", only with a
# noun for a machine: "at host web01"); "on the other server" says it is not this one
_NOUN = r"(?:server|host|machine|box|node|vm|computer)"
_NAMED = (r"\b(?:on|at)\s+(?:the\s+)?" + _NOUN + r"\s+{}(?!\s+" + _NOUN
          + r"\b)(?:$|[\s,.;!?])")
_PLAIN = r"\bon\s+(?:the\s+)?{}(?!\s+" + _NOUN + r"\b)(?:$|[\s,.;!?])"
# a name that ends what is said of the machine: "on bastion", "on bastion now, please"
# (never "on long leave", "on call")
_ENDS = (r"\bon\s+(?:the\s+)?{}\s*(?:[,.;!?]|$|\s+(?:now|please|pls|plz|asap|again|"
         r"too|today|tonight|first|then|thanks)\b)")
# words after "on the box" that say how or where on it, never which machine
_SAYS_HOW = frozenset({"itself", "directly", "locally", "here", "too", "also", "again",
                       "instead", "first", "then", "only", "alone", "now", "please",
                       "today", "tonight", "manually", "remotely", "yourself"})
_OTHER = regex(r"\b(?:on|at)\s+(?:the\s+|a\s+|an\s+)?(?:remote|other|another|second|"
               r"different|far)\s+(?:server|host|machine|box|node|vm|computer)s?\b",
               re.IGNORECASE)


def elsewhere(request: str, intent: Intent, templates: TemplateSet,
               host: dict[str, Any]) -> str | None:
    """The machine a request says it is for, when it is not this one: a word no step
    placed, that is not this machine's name (with or without its domain), its
    distribution nor localhost, said as a machine's: after a noun for one ("on the server
    web", "at host web01"), or after "on" when shaped like a host name ("on web01") or, for
    a change, when the catalogue gives it no meaning and it ends what is said of the
    machine ("restart nginx on bastion now"; never "on long leave", nor a number);
    or, for a change, a machine said to be another ("on the remote server", "on the
    other box"). The request would be answered or done here instead of there, so it is
    not planned. A name shaped as only a machine's is ("mosswood-nas", "web01") after a
    noun for a machine is that machine even when the reading took it for something here.
    (A word the catalogue reads as something else, "on gateway", and a machine described
    by a word of its own, "on the staging box", are not seen here.)"""
    from reos.catalogue.lexicon import lexicon

    lex = lexicon(templates)
    here = {"localhost"}
    for fact in (host.get("hostname"), host.get("distro_id")):
        if isinstance(fact, str) and fact:
            here |= {fact.lower(), fact.split(".", 1)[0].lower()}
    change = intent.kind != Kind.QUERY
    if change:
        other = _OTHER.search(request)
        if other:
            return other[0].split(None, 1)[1]
    # a machine's name said after a noun for one ("on the server mosswood-nas"), even when
    # the reading took it for something here: shaped as only a machine's name is
    for found in re.finditer(r"\b(?:on|at)\s+(?:the\s+)?" + _NOUN + r"\s+([\w.-]*[\w])",
                             request, re.IGNORECASE):
        word = found[1]
        if word.lower() not in here and word.split(".", 1)[0].lower() not in here and (
                re.search(r"[a-z]", word, re.I) and re.search(r"[0-9_.-]", word)):
            return word
    for word in intent.reading.unexplained:
        if word.lower() in here or word.split(".", 1)[0].lower() in here or not re.fullmatch(
                r"[\w.-]+", word) or word.lower() in _SAYS_HOW:
            continue
        name = re.escape(word)
        known = word.lower() in lex.phrases
        shaped = bool(re.search(r"[0-9_.-]", word)) and bool(re.search(r"[a-z]", word, re.I))

        def said(pattern: str, name: str = name) -> bool:
            return bool(re.search(pattern.format(name), request, re.IGNORECASE))

        if not re.search(r"[a-z]", word, re.IGNORECASE):  # "on 8888": a port, a value
            continue
        if said(_NAMED) or not known and (shaped and said(_PLAIN) or change and said(_ENDS)):
            return word
    return None
