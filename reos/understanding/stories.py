"""A request's sentences and clauses: which ask and which only tell.

"mask nftables, ufw owns the firewall" asks in its first clause and tells why in its
second; "We moved to Prometheus. Please stop the old agent." tells a story and asks in its
last sentence. This module finds the asking part (`read_asking`, `focus`), what "it" in it
refers to (the thing the telling part named, a person for him/her), and whether a request
only asks a question (`only_asks`, `marked`). The reading itself is the caller's (`read`,
handed in: reading.read); this module parses a clause only to see how it starts.

Not responsible for the operations or the targets: it only chooses which words to read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.catalogue.templates import TemplateSet
from reos.model.request import Asking, Intent, Kind, Understood
from reos.patterns import regex
from reos.understanding import parser

if TYPE_CHECKING:
    from typing import Any

Reader = Callable[..., Intent]  # reading.read(text, templates, matcher, *, remote, asked)


def only_asks(text: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether the request is put as a question and asks nothing else: a sentence with a
    question mark, and no other sentence that asks or tells reos to do something ("The
    volume is mounted? I am not sure after the reboot.")."""
    said = [c for c in split_sentences(re.sub(r"\s+", " ", text.strip())) if c.strip()]
    return any(map(marked, said)) and not any(
        _ASKING.match(c) or imperative(c, templates, matcher) for c in said if not marked(c))


# a reason begun without a comma: "reinstall php-fpm its config got messed"
_UNMARKED = regex(r"(?<!\band)(?<!\bor)(?<!\bof)(?<!\bwith)(?<!\bfor)(?<!\bto)(?<!\bthat)"
                       r"(?<!\bon)(?<!\bin)(?<!\bby)(?<!\ball)(?<!\bso)(?<!\bwhichever)"
                       r"(?<!\bwhether)(?<!\bif)(?<!\bwhy)(?<!\bhow)(?<!\bwhen)(?<!\bwhat)"
                       r"(?<!\bwhich)(?<!\bwhere)"
                       r"(?<!,)\s+(?=(?:because|cause|coz|cuz|it's|we|we're|nobody|"
                       r"they're|so\s+(?:that\s+)?(?:i|we|you|they|it|he|she|nobody|no\s+one|"
                       r"everyone|anyone))\s+\S|"
                       # what it is for: "… for making space in /boot", "… to free up room"
                       r"(?:to|for)\s+(?:make|making|free|freeing|save|saving|get|getting|"
                       r"clear|clearing|gain|gaining)\s+(?:up\s+)?(?:some\s+|more\s+)?"
                       r"(?:disk\s+)?(?:space|room)\b|"
                       # "its" for "it's" ("reinstall cups its broken"), not "its config"
                       r"its\s+(?:\w+ed|\w+ing|broken|down|dead|full|slow|gone|stuck|not|huge|"
                       r"massive|enormous|big|bloated|weird|wrong|old|useless|unused|"
                       r"been|a|an|the|too|very|so|still|always|never|just|fine|ok|okay)\b|"
                       r"its\s+\w+\s+(?:got|is|was|has|had|keeps|kept|broke|died|crashed|stopped|"
                       r"failed|seems|went|looks)\b|"
                       # "reinstall munge pls auth is broken": a thing and its state told
                       r"(?!(?:that|which|who|whatever|what|everything|anything|all|those|"
                       r"these|it)\b)\w+\s+(?:is|are|seems|keeps)\s+(?:broken|dead|slow|stuck|"
                       r"gone|failing|hanging|crashing|acting)\b)",
                       re.IGNORECASE)
# a clause that goes on with the ask's own words ("…, in the office and scanner groups",
# "…, without admin rights"), not a reason beside it
_COMPLEMENT = regex(r"^\s*(?:in|into|on|onto|with|at|under|"
                         r"via|using)\s+(?:the\s+|a\s+|an\s+|my\s+|our\s+)?\S",
                         re.IGNORECASE)
_CLAUSE_BREAK = regex(r"\s*(?:[,;]|\s[-\u2013\u2014]\s)\s*")
_STATEMENT = regex(
    r"^(?:so\s+(?:that\s+)?(?:i|we|you|they|it|he|she|nobody|no\s+one|everyone|anyone)|"
    r"because|since|as|cause|coz|cuz|cos|"
    r"we|we're|we've|i|i'm|i've|it|it's|its|they|"
    r"they're|nobody|no\s+one|everyone|everybody|he|she|he's|she's|that's|there's)\b|"
    r"^(?!(?:what|which|who|whose|how|where|when|why|is|are|do|does|did|can|could|will|"
    r"would|should|has|have)\b)[\w.@-]+(?:\s+[\w.@-]+){0,4}\s+(?:owns|handles|does|runs|"
    r"uses|took|replaced|"
    r"is|are|was|were|has|have|keeps|seems|needs|lives|sits|works)\b", re.IGNORECASE)
_STATEMENT_ASKS = regex(r"^(?:i|we)\s+(?:need|want|would|'d|must|have\s+to)\b|"
                             r"^(?:it|they)\s+(?:needs?|should|must)\b", re.IGNORECASE)


def _statement(clause: str) -> bool:
    """Whether a clause tells rather than asks: a reason or a remark ("ufw owns the
    firewall", "it's acting weird", "we use node_exporter now", "since nobody uses it")."""
    return bool(_STATEMENT.match(clause)) and not (
        _ASKING.search(clause) or _STATEMENT_ASKS.match(clause))


def read_asking(sentence: str, templates: TemplateSet, matcher: Any, read: Reader, *,
                remote: bool = False, asked: bool = False) -> Intent:
    """A sentence read by its asking clauses when others only tell why: "mask nftables,
    ufw owns the firewall" masks nftables; ufw, named in the reason, is not a target.
    "it"/"them" in the asking part is what the telling part named ("nginx is down, start
    it"). When the asking part alone is not understood, the whole sentence is read."""
    clauses = [c for c in _CLAUSE_BREAK.split(_UNMARKED.sub(", ", sentence))
               if c.strip(" .!?")]
    whole = read(sentence, templates, matcher, remote=remote, asked=asked)
    if not 1 < len(clauses) <= 8 or _SENTENCE_END.search(sentence.strip()):
        return whole  # several sentences: `_focus` reads each
    telling = [_statement(c) and not imperative(c, templates, matcher) for c in clauses]
    if any(_ASKING.match(c) for c in clauses):
        # "the process clamd takes too much memory, please restart it": beside a clause
        # that asks, one that neither asks nor starts with a verb tells
        telling = [t or not (_ASKING.match(c) or imperative(c, templates, matcher)
                             or listing(c, templates, matcher) or _COMPLEMENT.match(c))
                   for t, c in zip(telling, clauses, strict=True)]
    # "…, but leave the old test one alone": a clause that leaves things out is the ask's
    telling = [t and not _leaves_out(c, templates, matcher)
               for t, c in zip(telling, clauses, strict=True)]
    if not any(telling) or all(telling):
        return whole
    reasons = [c for c, t in zip(clauses, telling, strict=True) if t]
    asking = ", ".join(c for c, t in zip(clauses, telling, strict=True) if not t)
    first = telling.index(False)  # "it" is what was told before the ask, else after it
    told = [c for c, t in zip(clauses[:first], telling[:first], strict=True) if t] or reasons
    asking = referents(asking, told, templates, matcher)
    if _only_why(asking, templates, matcher) and whole.kind == Kind.QUERY:
        return whole  # "nginx keeps crashing, tell me why": why of what was told (never a
        # change told in the past: "I purged docker …, tell me why")
    intent = read(asking, templates, matcher, remote=remote, asked=asked)
    if not intent.targets and whole.targets and intent.operation == whole.operation:
        return whole  # "i don't want portainer removed, just restarted": the name was told
    if intent.kind in _SETTLED:
        # the reasons' words nothing knows are said back, never dropped in silence
        words = parser.parse(", ".join(reasons), templates, matcher).units
        intent.reading = replace(intent.reading, unexplained=list(dict.fromkeys(
            [*intent.reading.unexplained, *(u.text for u in words if u.unknown)])))
        return intent
    return whole


def _only_why(clause: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether a clause only asks why ("tell me why", "could you find out why?"): its
    words, but for the ones that only ask or are filler, are "why" alone."""
    units = parser.parse(clause, templates, matcher).units
    if any(u.text in ("you", "your", "reos") for u in units):
        return False  # "why did you do that?": about what reos did
    said = [u.text for u in units if u.text != "," and not (
        u.roles.keys() <= {"filler", "ask"} and u.roles)]
    return said == ["why"] or (not said and any(u.text == "why" for u in units))


def _leaves_out(clause: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether a clause begins by leaving something out of the ask ("but leave the test
    one alone", "except portainer"; not "carol runs docker without sudo", a reason)."""
    from reos.understanding import tagging

    units = parser.parse(clause, templates, matcher).units
    first = next((u for u in units if u.text not in LEADING and u.text != "but"), None)
    return first is not None and bool({"exclude", "keep"} & set(first.roles)) and bool(
        tagging.exclusions(units)[1])


_SENTENCE_END = regex(r"(?<=[.!?;:])\s+(?=\S)")
_QUOTED = regex(r"(?<!\w)['\"\u201c\u2018][^'\"\u201d\u2019\n]{1,64}['\"\u201d\u2019](?!\w)")


def split_sentences(text: str) -> list[str]:
    """The text cut where a sentence ends (". ", "? ", "; "…), never inside something
    quoted ("… to 'Daniel J. Tremblay'")."""
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    cuts = [m for m in _SENTENCE_END.finditer(text)
            if not any(a < m.start() < b for a, b in quoted)]
    pieces, at = [], 0
    for cut in cuts:
        pieces.append(text[at:cut.start()])
        at = cut.end()
    return [*pieces, text[at:]]
_ASKING = regex(r"^(?:please|pls|kindly|can|could|would|will|i\s+need|i\s+want|"
                     r"i'd\s+like|i\s+would\s+like|we\s+need|let's|help\s+me)\b|\?$",
                     re.IGNORECASE)
_REFERS = regex(r"\b(?:it|them|him|her|his|he|she|its|their|that one|this one|"
                     r"the (?:current|existing|same|present) one)\b", re.IGNORECASE)
_PERSONAL = regex(r"\b(?:him|her|his|he|she)\b", re.IGNORECASE)
_THINGS = regex(r"\b(?:it|them|its|their|that one|this one|"
                     r"the (?:current|existing|same|present) one)\b", re.IGNORECASE)
# "them", "those", "both": several things, which "it" resolution never narrows to one
_SEVERAL = regex(r"\b(?:them|they|their|those|these|both)\b", re.IGNORECASE)
_SETTLED = (Kind.QUERY, Kind.ACTION, Kind.COMBINED, Kind.REFUSE)
_BOTH = regex(r"\bboth\b", re.IGNORECASE)


def focus(text: str, whole: Intent, templates: TemplateSet, matcher: Any, read: Reader, *,
          remote: bool, several: Callable[[str, Intent], Intent | None] | None = None
          ) -> Intent:
    """A request told with its story ("We moved to Prometheus last month and the old
    agent keeps failing. Please stop it.") is read by its asking sentence when the whole
    text could not be read cleanly: the sentence that asks (please, can you, a question
    mark) first, then one with a clause that asks ("before I try anything fancy, just
    restart mumble"; never one after "if" or "since"), later ones before earlier ones;
    "it" there is what the story named.
    `several` reads a sentence that asks for several things as its parts (parts.split)."""
    settled = whole.kind not in (Kind.UNKNOWN, Kind.CLARIFY)
    said = [s.strip() for s in split_sentences(text) if s.strip(" .!?;:")]
    if not 1 < len(said) <= 12:
        return whole
    asks = [_asks(s, templates, matcher) for s in said]
    order = sorted(range(len(said)), key=lambda n: (  # "please…", "can you…", a question
        not _ASKING.search(said[n]), not asks[n], -n))  # first, then a clause that asks
    sentences = [s.strip(" .!?;:") for s in said]

    def reading(n: int) -> tuple[str, Intent]:
        sentence = referents(sentences[n], sentences[:n], templates, matcher)
        intent = read_asking(sentence, templates, matcher, read, remote=remote,
                             asked=marked(said[n]))
        if several is not None and (intent.kind not in _SETTLED
                                    or intent.reading.unexplained):
            # "kill her process and take her out of lab-data": two asks in the asking
            # sentence, or in its asking clauses ("before I try anything else, restart
            # mumble and show its status") when the sentence leaves words out
            asking = _from_ask(sentence, templates, matcher) if (
                intent.kind not in _SETTLED or len(intent.reading.unexplained) > 1) else None
            intent = several(sentence, intent) or (
                asking and several(asking, intent)) or intent
        return sentence, intent

    if settled and len(whole.reading.unexplained) < 3:
        n = order[0]  # read whole, unless the sentence that asks says the same ask cleanly
        if not asks[n] or _SEVERAL.search(said[n]):
            return whole  # ("… Lena agreed her run can go slower. Please lower the
        asking = reading(n)[1]  # priority of her process.": the story's words are no
        clean = asking.kind in _SETTLED and len(asking.reading.unexplained) <= 1 and (  # targets
            asking.operation == whole.operation or len(whole.targets) > len(  # of hers;
                asking.targets) + 1)  # "restart them" is every one the story named)
        return asking if clean else whole
    question: Intent | None = None
    for n in order:
        sentence, intent = reading(n)
        if question is None and asks[n] and _BOTH.search(sentence) and len(
                whole.targets) != 2 and not any(t.lower() in sentence.lower()
                                               for t in whole.targets):
            # "… the old container … and its image. Please remove both.": "both" is two
            # things the story told, which its reading does not name two of ("moodle":
            # every Moodle container); asked, with no reading to say yes to
            question = Intent(Kind.CLARIFY, asking=Asking(question=(
                "“both”: which two do you mean? Name them, and I'll plan it.")),
                reading=Understood("catalogue", unexplained=list(
                    whole.reading.unexplained)))
        if settled and intent.operation == whole.operation and whole.targets and any(
                t in whole.reading.unexplained and _finds_none(t, intent, matcher)
                for t in intent.targets):
            continue  # "… java thing that deploy runs … just make it play nicer": the
            # sentence takes for a name a word the whole story placed as none, and
            # nothing here is called that
        if intent.kind in (Kind.ACTION, Kind.COMBINED) and not asks[n] and (
                not imperative(sentence, templates, matcher)):
            continue  # "The archive job should run every hour.": the story, not the ask
        if intent.kind in _SETTLED and (not settled or len(intent.reading.unexplained) <= 1 or (
                asks[n] and len(intent.reading.unexplained) < len(whole.reading.unexplained))):
            return intent  # the asking sentence, read better than the whole story
        if intent.kind == Kind.QUERY and whole.kind in (Kind.ACTION, Kind.COMBINED) and (
                asks[n]):
            return intent  # "… I would like to know when that job last ran": it asks
    if question is not None and whole.kind in (Kind.ACTION, Kind.COMBINED) and len(
            whole.reading.unexplained) >= 3:
        return question  # a change read from the story's words, never done in silence
    return whole


def _asks(sentence: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether a sentence asks: put as a question, or a clause after its first begins as
    a request ("to keep it quiet during the upgrade, please stop watchtower") or with a
    verb ("before I try anything fancy, just restart mumble")."""
    return bool(_ASKING.search(sentence)) or _from_ask(sentence, templates, matcher) is not None


def _from_ask(sentence: str, templates: TemplateSet, matcher: Any) -> str | None:
    """The sentence from its first asking clause after the first one on ("just restart
    mumble and show its status" of "before I try anything fancy, just restart…"), or
    None when only its first clause may ask."""
    breaks = list(_CLAUSE_BREAK.finditer(sentence))
    begun = 0
    for cut, after in zip(breaks, [*breaks[1:], None], strict=False):
        clause = sentence[cut.end():after.start() if after else len(sentence)]
        told = sentence[begun:cut.start()]
        begun = cut.end()
        if _CONDITIONAL.match(told.strip()):
            continue  # "if they look bad, stop it", "since Monday, restart loops hit…":
            # what follows a condition or a time is the conditional reading's, never an ask
        if clause and (_ASKING.match(clause) or imperative(clause, templates, matcher)):
            return sentence[cut.end():]
    return None


# "since" with a subject gives a reason ("since we don't use NetBIOS, please stop nmbd");
# with a time it is one ("since Monday, restart loops hit …")
_CONDITIONAL = regex(r"^(?:if|unless|when|whenever|once|since(?!\s+(?:we|we're|i|i'm|you|they|"
                     r"it|it's|he|she|nobody|no\s+one|everyone|there)\b)|after|until|in\s+case|"
                          r"should|otherwise|else|later)\b", re.IGNORECASE)


def listing(clause: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether a clause only goes on naming things ("please install htop, jq and tmux")."""
    units = parser.parse(clause, templates, matcher).units
    return all({"name", "alias", "conj", "filler", "qualifier"} & set(u.roles) or (
        u.unknown and len(units) <= 3) for u in units)


# words said before the ask itself ("please", "just", "so"): parts.py reads past them too
LEADING = {"please", "pls", "plz", "just", "now", "so", "then", "and", "ok", "okay", "also",
           "kindly", "quickly", "hey", "oh", "right"}


def imperative(sentence: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether a sentence tells reos to do something: its first word (after "please",
    "just", "so"…) is a verb ("Stop the old agent."), not a subject ("The job should run
    every hour.", "I am new in the team")."""
    units = parser.parse(sentence, templates, matcher).units
    first = next((u for u in units if u.text not in LEADING), None)
    return first is not None and "verb" in first.roles


def refers(sentence: str) -> bool:
    """Whether the sentence says "it", "them", "him"… for something named elsewhere."""
    return bool(_REFERS.search(sentence))


def referents(sentence: str, before: list[str], templates: TemplateSet,
               matcher: Any) -> str:
    """The sentence with "it"/"them" replaced by the last thing the sentences before it
    named, and "him"/"her"/"his" (and "he"/"she" inside a clause) by the one person
    they named, when the sentence names none of its own; "that rule", "that address",
    "that stack" by what the story said of it (`_demonstrated`)."""
    if before and _THAT.search(sentence):
        sentence = _demonstrated(sentence, before, templates, matcher)
    if not before or not _REFERS.search(sentence):
        return sentence
    own = parser.parse(sentence, templates, matcher).units
    if _personal(sentence) and not any(
            "user" in u.roles.get("name", ()) for u in own if not _REFERS.fullmatch(u.text)):
        sentence = _to_person(sentence, before, templates, matcher)
    if _THINGS.search(sentence) and not any(
            ("name" in u.roles or "alias" in u.roles) and not (u.roles.keys() & _WORDS)
            for n, u in enumerate(own) if not _REFERS.fullmatch(u.text) and not _where(own, n)):
        # "it" is still "it" when the sentence names its own thing, not only where it is
        # ("close it in the firewall"), nor when a word of its ask is also a name ("show
        # its status" beside a compose project called status)
        sentence = _to_thing(sentence, before, own, templates, matcher)
    return sentence


# "that rule", "that one address", "that stack": a thing the story said, by its kind ("this
# host", "this box" is this machine, never an earlier address)
_THAT = regex(r"\b(?:(?:that|the\s+same)\s+(?:one\s+)?(?P<address>(?:ip\s+)?address|ip|host|"
                   r"network|subnet)|(?:that|this|the\s+same)\s+(?:one\s+)?(?:(?P<port>(?:firewall\s+)?"
                   r"rule|port)|(?P<thing>stack|project|container)))\b", re.IGNORECASE)
_ADDRESS = regex(r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?(?![\w.])")


def _demonstrated(sentence: str, before: list[str], templates: TemplateSet,
                  matcher: Any) -> str:
    """"that rule" as "the rule for port 3001", "that one address" as "198.51.100.23",
    "that stack" as "the podcast stack": what the sentences before said of that kind (an
    address by its digits, a rule or a port by its port number, a stack, container or
    service by its name). Left as said when the asking sentence says its own (an
    address, a port, a name), or when the story said none or two different ones: which
    one is then asked, never guessed."""
    found = _THAT.search(sentence)
    if found is None:
        return sentence
    own_units = parser.parse(sentence, templates, matcher).units
    if (found["address"] and _ADDRESS.search(sentence)) or (
            found["port"] and _port_named(own_units)[1]) or (
            found["thing"] and any("name" in u.roles or "alias" in u.roles for u in own_units)):
        return sentence  # "block this ip: 203.0.113.9", "stop this service: cups"
    said: list[str] = []
    for earlier in before:
        if found["address"]:
            said += _ADDRESS.findall(earlier)
        elif found["port"]:
            units = parser.parse(earlier, templates, matcher).units
            said += [f"port {u.roles['number']}" for b, u in zip(units, units[1:], strict=False)
                     if b.text in ("port", "tcp port", "udp port") and "number" in u.roles]
        else:
            _, named = _named(earlier, templates, matcher)
            things = [u.text for u in named if u.roles.get("name", set()) - {"user"} or (
                "alias" in u.roles)]
            index = matcher.index("container") if matcher is not None else None
            if found["thing"].lower() in ("stack", "project") and index is not None:
                things = [t for t in things if t in index.projects] or things
            said += things
    if len(set(said)) != 1:
        return sentence
    if found["port"]:  # "that port" is "port 80"; "that rule", "the rule for port 80"
        value = said[0] if found["port"].lower() == "port" else (
            f"the {found['port'].lower()} for {said[0]}")
    elif found["thing"]:
        value = f"the {said[0]} {found['thing'].lower()}"
    else:
        value = said[0]
    return sentence[:found.start()] + value + sentence[found.end():]


# a clause begins here: "delete it, he said it's fine" tells who agreed, names no target
_CLAUSE_START = regex(r"(?:^|[,;:]|\b(?:and|but|so|because|since|as|if|when|though|"
                           r"although|while|cause|cuz)\s*)\s*$", re.IGNORECASE)


def _personal(sentence: str) -> list[re.Match[str]]:
    """The words in a sentence that stand for a person: him, her, his anywhere; he and
    she only inside a clause ("what groups is she in"), never as a clause's subject
    ("…, she agreed")."""
    return [m for m in _PERSONAL.finditer(sentence)
            if m[0].lower() not in ("he", "she") or not _CLAUSE_START.search(
                sentence[:m.start()])]


def _to_person(sentence: str, before: list[str], templates: TemplateSet,
               matcher: Any) -> str:
    """Him/her/his as the one account the story named (by login, full or first name);
    left as said when it named none, or two (never a guess at which one)."""
    accounts: list[str] = []
    for earlier in before:
        _, named = _named(earlier, templates, matcher)
        people = [u for u in named if "user" in u.roles.get("name", ())]
        group: list[Any] = []
        for u in [*people, None]:
            if u is not None and (not group or group[-1].start + group[-1].size == u.start):
                group.append(u)  # "jan kowalski": one person in two words
                continue
            whole = matcher.account(" ".join(g.text for g in group))
            found = [whole] if whole else [  # each word alone, never by a guess
                login for g in group if (login := matcher.account(g.text))]
            accounts += [login for login in found if login not in accounts]
            group = [u] if u is not None else []
    if len(accounts) != 1:
        return sentence  # "Hanna left. Tom took over her scripts. Kill her process": asked
    spans = _personal(sentence)
    for m in reversed(spans):
        sentence = sentence[:m.start()] + accounts[0] + sentence[m.end():]
    return sentence


def _to_thing(sentence: str, before: list[str], own: list[Any], templates: TemplateSet,
              matcher: Any) -> str:
    """It/them as the last thing the sentences before named (never a person)."""
    for earlier in reversed(before):
        units, named = _named(earlier, templates, matcher)
        full = _full_names(named, matcher)  # "Jan Kowalski" is a person, not group jan
        named = [u for u in named if u not in full and ("alias" in u.roles or (
            u.roles.get("name", set()) - {"user"}) or u.unknown)]  # "nobody" is an account
        # too; an unknown word is here only when said after "called"
        at, port = _port_named(units)
        if port and (not named or at > named[-1].start) and _about_ports(own):
            return _THINGS.sub(port, sentence)  # "…reach port 3001. Close it in the
            # firewall"; "nginx proxies to port 3000. Restart it" is still nginx
        if named:
            last = [named[-1]]
            for u in reversed(named[:-1]):  # "the old Zabbix agent": the whole name
                if u.start + u.size != last[0].start:
                    break
                last.insert(0, u)
            for u in units[units.index(named[-1]) + 1:]:  # "the php 8.2": its version too
                if u.start != last[-1].start + last[-1].size or not (
                        "number" in u.roles or u.unknown) or not any(c.isdigit() for c in u.text):
                    break
                last.append(u)
            return _THINGS.sub(" ".join(u.text for u in last), sentence)
    return sentence


def _full_names(named: list[Any], matcher: Any) -> list[Any]:
    """The units that together say one person's full name ("jan kowalski")."""
    people = [u for u in named if "user" in u.roles.get("name", ())]
    found: list[Any] = []
    for u, after in zip(people, people[1:], strict=False):
        if u.start + u.size == after.start and matcher.account(
                f"{u.text} {after.text}"):
            found += [u, after]
    return found


def _finds_none(phrase: str, intent: Intent, matcher: Any) -> bool:
    """Whether nothing of the kind the intent acts on is called `phrase` here."""
    if matcher is None or not intent.resource:
        return False
    return bool(matcher.resolve([phrase], [intent.resource], intent.plural).missing)


def _named(sentence: str, templates: TemplateSet, matcher: Any) -> tuple[list[Any], list[Any]]:
    """A sentence's units, and those that name something."""
    units = parser.parse(sentence, templates, matcher).units
    return units, [u for n, u in enumerate(units) if "name" in u.roles or "alias" in u.roles
                   or (u.unknown and n and units[n - 1].text in ("called", "named"))]
    # "a terminal tool called ncdu": a thing said by its name, though nothing here has it


_WHERE = {"in", "on", "at", "through", "via", "inside", "within"}
_WORDS = {"noun", "verb", "ask"}  # a unit's roles as a word of the catalogue


def _where(units: list[Any], n: int) -> bool:
    """Whether unit `n` only says where ("in the firewall", "on this box")."""
    before = n - 1
    while before >= 0 and units[before].text in ("the", "a", "an", "this", "our", "my"):
        before -= 1
    return before >= 0 and units[before].text in _WHERE


def _about_ports(units: list[Any]) -> bool:
    """Whether a sentence is about the firewall or ports ("close it in the firewall")."""
    return any(op.startswith("firewall.") for u in units
               for role in ("noun", "verb", "resource") for op in u.roles.get(role, ())
               if isinstance(op, str))


def _port_named(units: list[Any]) -> tuple[int, str]:
    """Where and how a sentence last names a port by number ("port 3001"), or (-1, "")."""
    found = (-1, "")
    for before, unit in zip(units, units[1:], strict=False):
        if before.text in ("port", "tcp port", "udp port") and "number" in unit.roles:
            found = (unit.start, f"port {unit.roles['number']}")
    return found


_POLITE_ASK = regex(r"^\s*(?:(?:hey|hi|ok|okay|so|and|also|oh|right)[,!\s]+)*"
                         r"(?:please|pls|can|could|would|will|may|shall|mind)\b",
                         re.IGNORECASE)


# a learner's "can you …?": "You can make …?" (not "so you can …?", "you can …, right?")
_LEARNER_ASK = regex(r"^\s*you\s+can\s+(?!see|tell|check|show|\w+\s+it\b)\w+\b(?!.*"
                          r"(?:,\s*right|isn't it|no|yes)\?\s*$)", re.IGNORECASE)


# a clause that gives the reason for the ask after it, with its subject ("since we don't
# use NetBIOS names", "because nobody needs it"); never a condition, a time or a question
_REASON = regex(r"^\s*(?:since|because|as|cause|coz|cuz|cos)\s+(?:we|we're|i|i'm|you|they|"
                r"it|it's|nobody|no\s+one|everyone|there)\b", re.IGNORECASE)


def marked(text: str) -> bool:
    """Put as a question by its question mark ("the server need a restart after the
    updates?"), unless it is a polite request ("can you restart nginx?", and as a learner
    puts it, "you can restart nginx?"), also after a clause that gives the reason ("Since
    we don't use NetBIOS, could you please stop nmbd?")."""
    clauses = _CLAUSE_BREAK.split(text.strip())
    after_reason = len(clauses) > 1 and all(_REASON.match(c) for c in clauses[:-1])
    return text.rstrip().endswith("?") and not any(
        _POLITE_ASK.match(said) or _LEARNER_ASK.match(said)
        for said in (text, clauses[-1] if after_reason else text))
