"""A request's sentences and clauses: which ask and which only tell.

"mask nftables, ufw owns the firewall" asks in its first clause and tells why in its
second; "We moved to Prometheus. Please stop the old agent." tells a story and asks in its
last sentence. This module finds the asking part (`read_asking`, `focus`), what "it" in it
refers to (the thing the telling part named, a person for him/her), and whether a request
only asks a question (`only_asks`, `marked`). The reading itself is the caller's (`read`,
handed in: understanding.read); this module parses a clause only to see how it starts.

Not responsible for the operations or the targets: it only chooses which words to read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from reos.model import Intent, Kind
from reos.reasoning import parser, targeting
from reos.reasoning.templates import TemplateSet

TYPE_CHECKING = False  # typing stays unimported at run time: `reos plan` starts faster
if TYPE_CHECKING:
    from typing import Any

Reader = Callable[..., Intent]  # understanding.read(text, templates, matcher, *, remote, asked)


def only_asks(text: str, templates: TemplateSet, matcher: Any) -> bool:
    """Whether the request is put as a question and asks nothing else: a sentence with a
    question mark, and no other sentence that asks or tells reos to do something ("The
    volume is mounted? I am not sure after the reboot.")."""
    said = [c for c in _SENTENCE_END.split(re.sub(r"\s+", " ", text.strip())) if c.strip()]
    return any(map(marked, said)) and not any(
        _ASKING.match(c) or imperative(c, templates, matcher) for c in said if not marked(c))


# a reason begun without a comma: "reinstall php-fpm its config got messed"
_UNMARKED = re.compile(r"(?<!\band)(?<!\bor)(?<!\bof)(?<!\bwith)(?<!\bfor)(?<!\bto)(?<!\bthat)"
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
_CLAUSE_BREAK = re.compile(r"\s*(?:[,;]|\s[-\u2013\u2014]\s)\s*")
_STATEMENT = re.compile(
    r"^(?:so\s+(?:that\s+)?(?:i|we|you|they|it|he|she|nobody|no\s+one|everyone|anyone)|"
    r"because|since|as|cause|coz|cuz|cos|"
    r"we|we're|we've|i|i'm|i've|it|it's|its|they|"
    r"they're|nobody|no\s+one|everyone|everybody|he|she|he's|she's|that's|there's)\b|"
    r"^(?!(?:what|which|who|whose|how|where|when|why|is|are|do|does|did|can|could|will|"
    r"would|should|has|have)\b)[\w.@-]+(?:\s+[\w.@-]+){0,4}\s+(?:owns|handles|does|runs|"
    r"uses|took|replaced|"
    r"is|are|was|were|has|have|keeps|seems|needs|lives|sits|works)\b", re.IGNORECASE)
_STATEMENT_ASKS = re.compile(r"^(?:i|we)\s+(?:need|want|would|'d|must|have\s+to)\b|"
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
                             or listing(c, templates, matcher))
                   for t, c in zip(telling, clauses, strict=True)]
    if not any(telling) or all(telling):
        return whole
    reasons = [c for c, t in zip(clauses, telling, strict=True) if t]
    asking = ", ".join(c for c, t in zip(clauses, telling, strict=True) if not t)
    first = telling.index(False)  # "it" is what was told before the ask, else after it
    told = [c for c, t in zip(clauses[:first], telling[:first], strict=True) if t] or reasons
    asking = referents(asking, told, templates, matcher)
    intent = read(asking, templates, matcher, remote=remote, asked=asked)
    if not intent.targets and whole.targets and intent.operation == whole.operation:
        return whole  # "i don't want portainer removed, just restarted": the name was told
    if intent.kind in _SETTLED:
        # the reasons' words nothing knows are said back, never dropped in silence
        words = parser.parse(", ".join(reasons), templates, matcher).units
        intent.unexplained = list(dict.fromkeys(
            [*intent.unexplained, *(u.text for u in words if u.unknown)]))
        return intent
    return whole


_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+(?=\S)")
_ASKING = re.compile(r"^(?:please|pls|kindly|can|could|would|will|i\s+need|i\s+want|"
                     r"i'd\s+like|i\s+would\s+like|we\s+need|let's|help\s+me)\b|\?$",
                     re.IGNORECASE)
_REFERS = re.compile(r"\b(?:it|them|him|her|his|he|she|its|their|that one|this one|"
                     r"the (?:current|existing|same|present) one)\b", re.IGNORECASE)
_PERSONAL = re.compile(r"\b(?:him|her|his|he|she)\b", re.IGNORECASE)
# where a sentence goes on to say why or when: "Priya's container isn't needed since we
# moved to MLflow" is about the container, not MLflow
_SUBORDINATE = re.compile(r"\s(?:since|because|as|after|before|until|now\s+that|while|"
                          r"ever\s+since|so\s+that)\s(?!(?:then|that|now|well|soon|"
                          r"long|usual|always)\b)", re.IGNORECASE)  # not "since then"
_SETTLED = (Kind.QUERY, Kind.ACTION, Kind.COMBINED, Kind.REFUSE)


def focus(text: str, whole: Intent, templates: TemplateSet, matcher: Any, read: Reader, *,
          remote: bool, several: Callable[[str, Intent], Intent | None] | None = None
          ) -> Intent:
    """A request told with its story ("We moved to Prometheus last month and the old
    agent keeps failing. Please stop it.") is read by its asking sentence when the whole
    text could not be read cleanly: the sentence that asks (please, can you, a question
    mark) first, later ones before earlier ones; "it" there is what the story named.
    `several` reads a sentence that asks for several things as its parts (parts.split)."""
    settled = whole.kind not in (Kind.UNKNOWN, Kind.CLARIFY)
    said = [s.strip() for s in _SENTENCE_END.split(text) if s.strip(" .!?;:")]
    if not 1 < len(said) <= 12:
        return whole
    order = sorted(range(len(said)), key=lambda n: (not _ASKING.search(said[n]), -n))
    sentences = [s.strip(" .!?;:") for s in said]
    if settled and len(whole.unexplained) < 3:
        n = order[0]  # read whole, unless the sentence that asks says the same ask cleanly
        if not _ASKING.search(said[n]):  # ("… Lena agreed her run can go slower. Please
            return whole  # lower the priority of her process.": the story's words are no
        asking = read_asking(referents(sentences[n], sentences[:n], templates, matcher),
                             templates, matcher, read, remote=remote, asked=marked(said[n]))
        clean = asking.kind in _SETTLED and not asking.unexplained and (
            asking.operation == whole.operation)
        return asking if clean else whole  # targets of hers)
    for n in order:
        sentence = referents(sentences[n], sentences[:n], templates, matcher)
        intent = read_asking(sentence, templates, matcher, read, remote=remote,
                             asked=marked(said[n]))
        if several is not None and intent.kind not in _SETTLED:
            intent = several(sentence, intent) or intent  # "kill her process and take
            # her out of lab-data": two asks in the asking sentence
        if intent.kind in (Kind.ACTION, Kind.COMBINED) and not _ASKING.search(said[n]) and (
                not imperative(sentence, templates, matcher)):
            continue  # "The archive job should run every hour.": the story, not the ask
        if intent.kind in _SETTLED and (not settled or len(intent.unexplained) <= 1 or (
                _ASKING.search(said[n]) and len(intent.unexplained) < len(whole.unexplained))):
            return intent  # the asking sentence, read better than the whole story
        if intent.kind == Kind.QUERY and whole.kind in (Kind.ACTION, Kind.COMBINED) and (
                _ASKING.search(said[n])):
            return intent  # "… I would like to know when that job last ran": it asks
    return whole


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
    named, when it names nothing itself."""
    if not before or not _REFERS.search(sentence):
        return sentence
    own = parser.parse(sentence, templates, matcher).units
    personal = bool(_PERSONAL.search(sentence))
    if any("user" in u.roles.get("name", ()) if personal else (
            "name" in u.roles or "alias" in u.roles) for n, u in enumerate(own)
            if not _REFERS.fullmatch(u.text) and not _where(own, n)):  # a group called
        return sentence  # "it" is still "it" here; it names its own (a person, for
        # him/her: "the docker group"), not only where ("close it in the firewall")
    for earlier in reversed(before):
        units, named = _named(earlier, templates, matcher)
        main = _SUBORDINATE.split(earlier, maxsplit=1)[0]
        if main != earlier and (told := _named(main, templates, matcher))[1]:
            units, named = told  # what the sentence is about, not its why nor its when
        if personal:  # "carol needs docker, make her a member": her is a person
            people = [u for u in named if "user" in u.roles.get("name", ()) and _person(
                u.text, matcher)]
            apart = {u.text for u, before in zip(people, [None, *people], strict=False)
                     if before is None or before.start + before.size != u.start}
            if len(apart) > 1:  # "jan kowalski" is one person, said in two words
                return sentence  # "chen and rafael both run jobs; stop his": which is asked
            named = people  # "her home is archived" names no one: the one before does
        if not personal:  # "it" is never a person ("nobody" is an account too)
            named = [u for u in named if "alias" in u.roles or (
                u.roles.get("name", set()) - {"user"})]
            at, port = _port_named(units)
            if port and (not named or at > named[-1].start) and _about_ports(own):
                return _REFERS.sub(port, sentence)  # "…reach port 3001. Close it in the
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
            said = _PERSONAL if personal else _REFERS  # "she said it's fine to kill it":
            return said.sub(" ".join(u.text for u in last), sentence)  # she is a person
    return sentence


def _person(word: str, matcher: Any) -> bool:
    """Whether a word names one account as it is said (a login, a full or first name),
    never by a guess at a typo ("says" is not the account sys)."""
    return targeting.account(word, matcher) is not None


def _named(sentence: str, templates: TemplateSet, matcher: Any) -> tuple[list[Any], list[Any]]:
    """A sentence's units, and those that name something."""
    units = parser.parse(sentence, templates, matcher).units
    return units, [u for u in units if "name" in u.roles or "alias" in u.roles]


_WHERE = {"in", "on", "at", "through", "via", "inside", "within"}


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


_POLITE_ASK = re.compile(r"^\s*(?:(?:hey|hi|ok|okay|so|and|also|oh|right)[,!\s]+)*"
                         r"(?:please|pls|can|could|would|will|may|shall|mind)\b",
                         re.IGNORECASE)


# a learner's "can you …?": "You can make …?" (not "so you can …?", "you can …, right?")
_LEARNER_ASK = re.compile(r"^\s*you\s+can\s+(?!see|tell|check|show|\w+\s+it\b)\w+\b(?!.*"
                          r"(?:,\s*right|isn't it|no|yes)\?\s*$)", re.IGNORECASE)


def marked(text: str) -> bool:
    """Put as a question by its question mark ("the server need a restart after the
    updates?"), unless it is a polite request ("can you restart nginx?", and as a learner
    puts it, "you can restart nginx?")."""
    return text.rstrip().endswith("?") and not (
        _POLITE_ASK.match(text) or _LEARNER_ASK.match(text))
