"""Understanding: a request -> an Intent, through the catalogue parser.

The parser (`parser.py`) tags every word and scores every operation; this module turns
its best reading into an Intent, or into a question when two readings are close or an
action would rest on words nothing explained, or into an Intent-less "not understood"
that names the closest operations. Conditional requests ("is X running? if so stop it",
"restart Y if Z is running") are split first and the action part read on its own. A
clause that only tells why ("mask nftables, ufw owns the firewall") is left out of the
reading, a story is read by its asking sentence, and a command line the catalogue cannot
read fully is taken as typed (`typed.py`).

Not responsible for knowing whether the targets exist (the matcher does) or for steps
(the plan builder does). An LLM understander slots in before this one (ARCHITECTURE §7).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from msgspec import Struct
from msgspec.structs import astuple, replace

from reos.catalogue.lexicon import fix_typos
from reos.catalogue.templates import TemplateSet
from reos.model.request import Asking, Intent, Kind, Option, Understood
from reos.patterns import regex
from reos.understanding import parser, stories
from reos.understanding.evidence import Reading
from reos.understanding.parser import Parse
from reos.understanding.tagging import Names

if TYPE_CHECKING:
    from typing import Any

MIN_SCORE = 1.5  # below this the best reading is a guess: not understood
CLOSE = 1.0  # readings this close (with different meanings) are asked about
MIN_CONFIDENCE = 0.5  # fewer explained words than this: not understood
ASK_BELOW = 0.75  # an action resting on fewer explained words than this is asked about
SHELL_REASON = ("The request holds shell text ({shell}), and I never run shell text from a "
                "request. Say what you want in words, or check a command with `reos check`.")

AS_QUESTION = ("That is put as a question, and I have nothing that answers it; I change "
               "nothing for a question.")

_PRONOUNS = {"it", "them", "they", "that", "this", "those", "these"}


def clean_request(text: str) -> str:
    """The request without doubled spaces or punctuation at its ends."""
    return re.sub(r"\s+", " ", text.strip()).strip(" .!?,")


_STATE = (r"(?:(?:actually|still|really|already)\s+)?(?P<state>running|up|active|started|"
          r"alive|stopped|down|dead|inactive|not\s+running|crashed|exited|died|failed|"
          r"not\s+up)")
_BE = r"(?:is|are|has|have|has\s+been|have\s+been|was|were)"
_CONDITION_SOURCES = [
    # "is nextcloud running? if so stop it"
    r"^(?:is|are)\s+(?:the\s+)?(?P<subject>[^?,;]+?)\s+" + _STATE
    + r"\s*\??[\s,.;:-]*(?:and\s+)?(?:if\s+(?P<negated>not|no)|if\s+(?:so|yes|it\s+is|"
    r"they\s+are)|then)[\s,]*(?:then\s+|please\s+)?(?P<rest>.+)$",
    # "if nginx is running, restart it"
    r"^if\s+(?:the\s+)?(?P<subject>[^,;]+?)\s+" + _BE + r"\s+" + _STATE
    + r"[\s,]*(?:then\s+)?(?P<rest>.+)$",
    # "restart nginx if it is running"
    r"^(?P<rest>.+?)[\s,]+(?:but\s+)?(?:only\s+)?if\s+(?:the\s+)?(?P<subject>[^,;]+?)\s+"
    + _BE + r"\s+" + _STATE + r"$",
]


@functools.cache
def _conditions() -> list[re.Pattern[str]]:
    return [re.compile(source, re.IGNORECASE) for source in _CONDITION_SOURCES]


_IF_WORDS = regex(r"\b(?:if|then)\b", re.IGNORECASE)
_PRONOUN_WORDS = regex(r"\b(?:it|them|they|those|these)\b", re.IGNORECASE)
_NOT_RUNNING = {"stopped", "down", "dead", "inactive", "not running", "crashed", "exited",
                "died", "failed", "not up"}
_CONTRACTED = regex(r"\b(it|that|he|she|what)'s\b|\b(is|are|was|has|do|does)n't\b",
                         re.IGNORECASE)


def _expand(text: str) -> str:
    """it's -> it is, isn't -> is not: the condition shapes are written without them."""
    text = text.replace("\u2019", "'")
    return _CONTRACTED.sub(lambda m: f"{m[1]} is" if m[1] else f"{m[2]} not", text)


def split_condition(text: str) -> tuple[str, str, str] | None:
    """(condition, subject words, the action part) of a conditional request, or None."""
    if not _IF_WORDS.search(text) or len(text) > 1_000:
        return None  # no "if" or "then": not conditional, and no regex compiled for it
    text = _expand(text)
    for pattern in _conditions():
        match = pattern.match(text)
        if match:
            state = re.sub(r"\s+", " ", match["state"].lower())
            stopped = state in _NOT_RUNNING
            if match.groupdict().get("negated"):
                stopped = not stopped  # "is X up? if not, start it"
            return ("if_stopped" if stopped else "if_running"), match["subject"], match["rest"]
    return None


def understand(text: str, templates: TemplateSet, matcher: Any = None, *,
               remote: bool = False) -> Intent | None:
    """The Intent of `text`: an operation, a question, a refusal; None when empty."""
    intent = _understand(text, templates, matcher, remote=remote)
    if intent is not None and intent.kind != Kind.REFUSE and (
            intent.kind in (Kind.UNKNOWN, Kind.CLARIFY) or intent.reading.unexplained
            or _shellish(text) or any(" -" in f" {t}" for t in intent.targets)):
        typed_in = _typed(text, intent, templates)
        if typed_in is not None:
            return typed_in
    acting = intent is not None and (intent.kind in (Kind.ACTION, Kind.COMBINED) or any(
        o.intent.kind in (Kind.ACTION, Kind.COMBINED)
        for o in (intent.asking.options if intent.asking else [])))
    ignored = intent.reading.ignored if intent is not None else None
    if intent is not None and acting and ignored:
        from reos.text import clean

        return Intent(Kind.REFUSE, action="refuse", operation="refuse.shell",
                      refusal=SHELL_REASON.format(shell="\u201c" + clean(ignored)[:60]
                                                 + "\u201d"),
                      reading=Understood("catalogue", ignored=ignored))
    return intent




def _shellish(text: str) -> bool:
    from reos.understanding.typed import SHELL_SYNTAX

    return bool(SHELL_SYNTAX.search(text))


def _typed(text: str, intent: Intent, templates: TemplateSet) -> Intent | None:
    """The request as a typed command ("ss -tlnp", "usermod -aG www-data bob") when the
    catalogue could not read it fully: not understood, an option or path of the command
    left unexplained, or asked about while it holds an option ("apt cache zorblax", with
    none, stays a question about what was meant)."""
    from reos.catalogue.lexicon import lexicon
    from reos.understanding import typed

    argv = typed.command_line(text, lexicon(templates).english())
    if argv is None:
        judged = typed.shell_line(text)
        if judged is None:
            return None
        from reos.text import clean

        shown = "\u201c" + clean(text)[:60] + "\u201d"
        return Intent(Kind.REFUSE, action="refuse", operation="refuse.shell",
                      refusal=(f"As a shell would run it, {shown} is blocked: "
                              f"{clean(judged)[:300]}." if judged else
                              SHELL_REASON.format(shell=shown)), reading=Understood("typed"))
    if intent.kind == Kind.UNKNOWN or typed.options_left(
            argv, intent.reading.unexplained, intent.targets) or (
            intent.kind == Kind.CLARIFY and typed.flagged(argv)):
        return typed.typed_intent(argv)
    return None


def _understand(text: str, templates: TemplateSet, matcher: Any = None, *,
                remote: bool = False) -> Intent | None:
    cleaned = clean_request(text)
    if not cleaned:
        return None
    conditional = split_condition(cleaned) or split_condition(  # "if n8n is runing, restart it"
        fix_typos(cleaned, templates, Names(matcher).kinds))
    if conditional:
        condition, subject, rest = conditional
        if subject.lower() not in _PRONOUNS:
            rest = _PRONOUN_WORDS.sub(subject, rest)
        intent = read(rest, templates, matcher, remote=remote)
        if intent.kind == Kind.ACTION:
            intent.kind = Kind.COMBINED
            intent.condition = condition
            about = parser.parse(subject, templates, matcher, remote=remote)
            names = [u.text for u in about.units if "name" in u.roles or "alias" in u.roles
                     or u.unknown]
            kinds = {k for u in about.units for k in u.roles.get("resource", ())}
            if subject.lower() not in _PRONOUNS and names:
                intent.condition_subject = (names, kinds.pop() if len(kinds) == 1 else None)
            return intent
    asked = stories.only_asks(text, templates, matcher)
    whole = stories.read_asking(cleaned, templates, matcher, read, remote=remote, asked=asked)
    from reos.understanding import parts  # several asks, each read on its own?

    intent = stories.focus(re.sub(r"\s+", " ", text.strip()), whole, templates, matcher, read,
                           remote=remote, several=lambda sentence, one: parts.split(
                               sentence, one, templates, matcher, read, remote=remote))

    return parts.split(cleaned, whole, templates, matcher, read, remote=remote) or intent


def read(text: str, templates: TemplateSet, matcher: Any = None, *,
         remote: bool = False, asked: bool = False) -> Intent:
    found = parser.parse(text, templates, matcher, remote=remote)
    if found.refusal is not None:
        return Intent(Kind.REFUSE, action="refuse", operation=found.refusal.id,
                      refusal=found.refusal.reason, reading=Understood("catalogue"))
    best = next((r for r in found.readings if not _acts_unasked(r, found, templates)), None)
    lenient = best is not None and best.op.kind == "query" and bool(
        best.evidence & {"noun", "idiom", "verb"})  # a question costs nothing to answer
    if best is None or best.score < MIN_SCORE or (
            best.confidence < MIN_CONFIDENCE and not lenient):
        if _name_and_state(found):  # "portainer dead?", "nginx running": is it?
            return read(f"is {text}", templates, matcher, remote=remote, asked=True)
        if _why_name_and_state(found):  # "why nginx down": why is it?
            first, rest = text.split(None, 1)
            return read(f"{first} is {rest}", templates, matcher, remote=remote, asked=True)
        if _who_is_someone(found):  # "who is dlindqvist": the account
            return read(f"details of the account {found.units[-1].text}", templates, matcher,
                        remote=remote, asked=True)
        if _bare_port(found):  # "what's on 25565": what is on that port
            said = found.units[-1].text
            ported = re.sub(rf"(?<![\w.,]){re.escape(said)}(?![\w.,])", f"port {said}", text,
                            count=1)
            if ported != text:
                return read(ported, templates, matcher, remote=remote, asked=True)
        return _not_understood(found, templates)
    if best.op.kind == "action" and (asked or _asks(found)):
        # "what services start at boot?", "which containers are stopped": a question is
        # answered, never turned into a change
        query = next((r for r in found.readings if r.op.kind == "query"
                      and r.score >= MIN_SCORE and r.evidence & {"noun", "idiom", "verb"}),
                     None)
        answered_by = best.op.asked if _said_done(found, best) else None
        status = templates.operations.get(answered_by or f"{best.op.target}.status")
        if query is not None and (not answered_by or not query.unexplained):
            # the best question, unless it leaves words out ("is port 22 *allowed*?")
            # and the operation names its own answer (the firewall's rules)
            best = query
        elif status is not None and status.kind == "query" and (
                best.targets or answered_by and status.target == "none"):
            # "is the MariaDB enabled to start at boot?": a question about a named thing
            # that no operation answers as asked is answered by its state
            intent = intent_of(best, found)
            read_as = intent.reading
            return replace(intent, kind=Kind.QUERY, resource=status.resource,
                           action=status.action, operation=status.id,
                           summary=status.summary, then=[],
                           note=status.note, value=status.value, qualifiers=[],
                           reading=replace(read_as, template=status.id, unhonoured=[],
                                           unexplained=[*read_as.unexplained,
                                                        *read_as.unhonoured]))
        else:  # nothing answers it: a question is never turned into a change unasked
            intent = intent_of(best, found)
            return Intent(Kind.CLARIFY, asking=Asking([Option(intent)], AS_QUESTION),
                          reading=Understood("catalogue", best.confidence,
                                             ignored=found.shell,
                                             unexplained=list(intent.reading.unexplained)))
    intent = intent_of(best, found)
    if intent.params.get("clock") and intent.reading.unhonoured:
        return intent  # said for a time it cannot be done at: said so, no other reading
    rivals = _rivals(found, best, asking=asked or _asks(found))
    zones = intent.params.get("timezone", "").split("|")
    if len(zones) > 1:  # a city several zones are named after ("eastern"): which one
        return Intent(Kind.CLARIFY,
                      asking=Asking([Option(replace(
                          intent, params={**intent.params, "timezone": zone},
                          summary=f"{intent.summary} to {zone}")) for zone in zones[:6]]),
                      reading=Understood("catalogue", best.confidence, ignored=found.shell))
    # a removal that leaves out an account the request names ("yank margaret from sudo"
    # read as removing the sudo package) is asked about, never planned without it
    named_left = best.op.action in _REMOVALS and best.op.target not in ("user", "group") and any(
        found.units[n].roles.get("name", set()) & {"user", "group"} for n in best.unplaced
        if n < len(found.units))
    # nothing is deleted past a word it could not place inside what is deleted ("remove
    # the apt source for docker" is no removal of the docker package)
    unsure = intent.kind == Kind.ACTION and intent.reading.unexplained and (
        best.confidence < ASK_BELOW or not best.named_kinds or named_left
        or best.op.action in _DELETIONS and _object_left(found, best)
        or _said_within(found, best) or _address_left(found, best)
        or _part_of_a_name(found, best))
    if rivals or unsure:
        return Intent(Kind.CLARIFY, asking=Asking(
                          [Option(i) for i in [intent, *(intent_of(r, found) for r in rivals)]]),
                      reading=Understood("catalogue", best.confidence, ignored=found.shell,
                                         unexplained=list(best.unexplained)))
    return intent


def _said_within(found: Parse, reading: Reading) -> bool:
    """Whether a word the reading could not place is said right before the noun that
    asks for the operation, after its verb ("give marco *printer* admin rights" is no
    sudo): it may say which kind of it, and is asked about, never dropped."""
    units = found.units
    verbs = [n for n in reading.explained if reading.explained[n] in ("verb", "idiom")]
    return bool(verbs) and any(
        min(verbs) < n and n + 1 < len(units) and units[n].text.isalpha()
        and reading.explained.get(n + 1) in ("noun", "idiom") and "noun" in units[n + 1].roles
        and not units[n].roles.keys() - {"alias", "name"}
        for n in reading.unplaced if n < len(units))


def _address_left(found: Parse, reading: Reading) -> bool:
    """Whether the change leaves unused an address or a network the request names ("drop
    everything from 10.40.0.0/24" read as removing a package called so): the address says
    what the change is about, so it is asked about, never dropped."""
    return any(n < len(found.units) and "ip" in found.units[n].roles for n in reading.unplaced)


def _part_of_a_name(found: Parse, reading: Reading) -> bool:
    """Whether an account the change acts on is named only as the owner of a part of
    something ("add DenyGroups sudo to the *sshd config*" is no change to the account
    sshd): a name right before a word for a part it cannot place (`_PARTS`). An account
    has no config or logs of its own, so the request is about something else."""
    units = found.units
    return reading.op.target in ("user", "group") and any(
        0 < n < len(units) and units[n].text in _PARTS and n - 1 in reading.explained
        and ("name" in units[n - 1].roles or "alias" in units[n - 1].roles)
        for n in reading.unplaced)


def _object_left(found: Parse, reading: Reading) -> bool:
    """Whether a word the reading could not place says a part of what is deleted, not the
    thing itself: between its verb and the last name it acts on ("remove the apt
    *repository* of docker"), or right after that name ("rm -rf the member db
    *volume*"). Deleting a part is another deed; "the cuda test container" is still the
    container, and a reason said after a break ("…, it's at 100 percent") is no part."""
    units = found.units
    placed = [n for n, u in enumerate(units)
              if n in reading.explained and ("name" in u.roles or "alias" in u.roles)]
    verbs = [n for n, u in enumerate(units) if n in reading.explained and "verb" in u.roles]
    if not placed:
        return False
    first, last = (min(verbs) if verbs else -1), max(placed)
    return any((first < n < last or n == last + 1) and units[n].text in _PARTS
               for n in reading.unplaced if n < len(units))


# what a thing has that can be deleted on its own: deleting it is not deleting the thing
_PARTS = frozenset({"volume", "volumes", "repository", "repositories", "repo", "repos",
                    "source", "sources", "key", "keys", "cache", "caches", "image", "images",
                    "config", "configs", "configuration", "log", "logs", "data", "backup",
                    "backups", "snapshot", "snapshots", "file", "files", "folder", "folders",
                    "directory", "directories", "dir", "home", "mailbox", "crontab", "list",
                    "lock", "override", "overrides", "rule", "rules", "secret", "secrets",
                    "token", "tokens", "certificate", "certificates", "cert", "certs"})


def _acts_unasked(reading: Reading, found: Parse, templates: TemplateSet) -> bool:
    """An action no verb or idiom of the request asked for, while the request's asking
    word or a verb only questions use ("check", "show") is left unused: "check the
    filesystem on sdc1" is not "format sdc1", nor "check the ssh config" "purge ssh";
    or one that creates or installs, asked by no verb or idiom at all."""
    if reading.op.kind != "action" or reading.evidence & {"verb", "idiom"}:
        return False
    if reading.op.action in _BRINGS_NEW:
        return True  # "could you explain home simply": no verb asked for an account, and
        # what it would create is named by words nothing here is called
    ops = templates.operations
    # a question word inside the request read only as glue is unused too ("explain what a
    # systemd timer is"); one that opens it makes it a question, answered as one by `read`
    inside = not _asks(found)
    return any(n not in reading.explained and "ask" in u.roles or (
        inside and reading.explained.get(n) == "filler" and u.text in _WH_WORDS) or (
        n not in reading.explained and u.roles.get("verb") and all(
            ops[i].kind == "query" for i in u.roles["verb"] if i in ops))
        for n, u in enumerate(found.units))


_QUESTION_WORDS = {"what", "which", "who", "how", "is", "are", "where", "when", "why",
                   "whats"}
_WH_WORDS = _QUESTION_WORDS - {"is", "are"}
_AUXILIARIES = {"does", "do", "did", "has", "have"}
_ASKED_OF = {"the", "this", "that", "it", "i", "we", "you", "they", "he", "she", "my", "our",
             "any", "anything", "anyone", "somebody", "someone", "these", "those", "a", "an"}


_CHECK_WORDS = {"check", "see", "tell", "find", "verify", "confirm", "know", "wonder"}
# "check whether…", "tell me which…", "find out how…": what is checked is a question
_CHECKED = {"if", "whether", "which", "what", "who", "how", "where", "when", "why"}
_POLITE = {"could", "can", "would", "will", "you", "please", "kindly", "me", "us", "hey",
           "ok", "okay", "so", "i", "want", "to", "need", "like", "just", "quickly",
           "mind", "would you mind", "do you mind"}


_REMOVALS = {"remove", "purge", "delete", "uninstall", "kill", "prune"}
# operations that bring in something new, named by the request's words alone (nothing on
# the machine checks them): only a verb or an idiom of theirs asks for one
_BRINGS_NEW = {"create", "install"}
_DELETIONS = _REMOVALS - {"kill"}  # what is gone afterwards, not only stopped


# said before a request to open it, never part of what it asks
_INTERJECTIONS = frozenset({"yo", "hey", "hi", "hello", "ok", "okay", "so", "well", "oh",
                            "um", "uh", "hmm", "alright", "btw", "quick", "quickly"})


def _asks(found: Parse) -> bool:
    """Whether the request is put as a question ("what …", "is …", "which …", "check
    whether …", "see if …", "tell me which …")."""
    texts = [u.text for u in found.units if u.text != "," and u.text not in _POLITE]
    while texts and texts[0] in _INTERJECTIONS:
        texts = texts[1:]  # "yo is the icecast box vibing rn": still a question
    words = " ".join(texts).split()
    first = words[0] if words else ""
    if words and words[-1] == "why" and len(words) > 1 and not any(
            "negation" in u.roles for u in found.units) and "ask" not in words:
        return True  # "cadvisor restarting again why": asked after the fact (not "restart
        # nginx, do not ask why")
    if first in _AUXILIARIES:  # "does the machine need…" asks; "do not kill…", "have
        # apache start at boot" tell
        if first == "do" and len(words) > 2 and words[1] in ("the", "a", "an") and any(
                "verb" in u.roles for u in found.units if u.text == words[2]):
            return False  # "do the trim of the ssd", "do an update": the deed, named
        return len(words) > 1 and words[1] in _ASKED_OF
    return first in _QUESTION_WORDS or (first in _CHECK_WORDS and bool(
        _CHECKED & set(texts[1:4])))


class Said(Struct):
    """What a request said besides its operation, for checking another reader's answer
    (the LLM's). Unpacks like a tuple, in field order."""

    qualifiers: set[str]  # canonical qualifiers it names ("stopped" for "exited")
    excludes: bool  # it leaves something out ("all but X")
    asks: bool  # it is put as a question
    named: bool  # it names something this machine has, by name or alias
    aliased: set[str]  # what its aliases stand for here ("the web server": nginx.service)
    verb_actions: set[str]  # the actions its verbs can mean ("restart"); empty: no verb

    def __iter__(self) -> Any:
        return iter(astuple(self))


def said(text: str, templates: TemplateSet, matcher: Any = None) -> Said:
    cleaned = clean_request(text)
    conditional = split_condition(cleaned)
    found = parser.parse(cleaned, templates, matcher)
    # the qualifiers of "is X running? if so stop it" are the condition's, not the targets'
    action = parser.parse(conditional[2], templates, matcher) if conditional else found
    qualifiers = {q for u in action.units for q in u.roles.get("qualifier", ())}
    excludes = any("exclude" in u.roles for u in found.units)
    named = any("name" in u.roles or "alias" in u.roles for u in found.units)
    aliased: set[str] = set()
    for unit in found.units:
        kinds = unit.roles.get("alias")
        if kinds and matcher is not None:
            resolved = matcher.resolve([unit.text], sorted(kinds), True)
            aliased |= {t.name for t in resolved.targets}
    verbs = {templates.operations[i].action for u in found.units
             for i in u.roles.get("verb", ()) if i in templates.operations}
    if found.best is not None and verbs:  # its idioms say what its verbs mean ("take X down")
        verbs.add(found.best.op.action)
    # "is nextcloud running? if so stop it" asks only to decide what to do
    asks = _asks(found) and conditional is None
    return Said(qualifiers, excludes, asks, named, aliased, verbs)


def _same_meaning(a: Reading, b: Reading) -> bool:
    return a.op.action == b.op.action and a.op.kind == b.op.kind


def _rivals(found: Parse, best: Reading, asking: bool = False) -> list[Reading]:
    """Readings close to the best that mean something else (at most two). A question's
    answer has no acting rival: "which kernel is running?" is never "run a job"."""
    rivals: list[Reading] = []
    for other in found.readings[1:]:
        if best.score - other.score >= CLOSE:
            break
        if _same_meaning(best, other) or any(_same_meaning(r, other) for r in rivals):
            continue
        if asking and best.op.kind == "query" and other.op.kind == "action":
            continue
        if best.op.kind == "action" and "verb" in best.evidence and other.op.kind == "query" \
                and "verb" not in other.evidence:
            continue  # "kill all processes of bob": the verb said acts; no list is meant
        if best.exact and not other.exact and other.op.target != best.op.target:
            continue  # "bring wg0 back up": the interface wg0, not a word of wg-quick@wg0
        if other.op.id in found.negated or not other.evidence & {"verb", "idiom"}:
            continue
        if best.op.kind == "query" and other.op.kind == "query":
            continue  # two questions: answering the better one costs nothing
        if other.conflicts and not best.conflicts:
            continue  # a word said which kind of thing is meant, and it is not the rival's
        if other.targets and "idiom" in best.evidence and {
                w for t in other.targets for w in t.split()} <= {
                found.units[n].text for n, role in best.explained.items() if role == "idiom"}:
            continue  # "apt upgrade": the idiom's own word, not a package called apt
        rivals.append(other)
        if len(rivals) == 2:
            break
    return rivals


def _said_done(found: Parse, reading: Reading) -> bool:
    """Whether the change was said as done or as a state ("was the server *rebooted*?",
    "is port 22 *allowed*?", "*is* ssh *open* to the internet?"): a question about what
    happened or holds, which the operation's `asked` query answers; "must I restart the
    machine?" asks something else."""
    units = found.units
    verbs = [n for n, role in reading.explained.items() if role == "verb"]
    if units and units[0].text in ("is", "are", "was", "were") and verbs and all(
            n and units[n - 1].text != "to" for n in verbs):
        return True  # "is ssh open?"; "is it safe to shut down?" asks about doing it
    return any(units[n].said.endswith("ed") and units[n].said != units[n].text
               for n in verbs)


def _name_and_state(found: Parse) -> bool:
    """Whether a request is only names of things here and one state ("portainer dead?",
    "nginx running"): the terse form of asking whether they are so."""
    return _names_and_state(found.units)


def _names_and_state(units: list[Any]) -> bool:
    return len(units) >= 2 and "qualifier" in units[-1].roles and all(
        "name" in u.roles or "alias" in u.roles for u in units[:-1])


def _who_is_someone(found: Parse) -> bool:
    """Whether a request only asks who an account is ("who is dlindqvist?")."""
    units = found.units
    return len(units) >= 3 and units[0].text == "who" and "user" in units[-1].roles.get(
        "name", set()) and all(u.roles.keys() <= {"filler", "ask"} for u in units[1:-1])


def _bare_port(found: Parse) -> bool:
    """Whether a request only asks what is on a number ("what's on 25565", "who is
    listening on 1883"): a port, said without the word."""
    units = found.units
    number = units[-1].roles.get("number") if units else None
    return isinstance(number, int) and 20 <= number < 65536 and len(units) >= 3 and (
        units[-2].text in ("on", "at")) and all(
        u.roles.keys() <= {"filler", "ask"} or u.text in ("listening", "running", "using")
        for u in units[:-1])


def _why_name_and_state(found: Parse) -> bool:
    """Whether a request is "why", then names of things here and one state ("why
    creative down"): the terse form of asking why they are so."""
    units = found.units
    return len(units) >= 3 and units[0].text == "why" and _names_and_state(units[1:])


def intent_of(reading: Reading, found: Parse) -> Intent:
    op = reading.op
    resource: str | None = op.resource
    if op.target != "none" and "resource" not in reading.evidence and (
            reading.targets or reading.qualifiers):
        # nothing said which kind of thing these words are ("restart redis": a service
        # and containers are called so): the matcher looks in each and asks
        same = [r for r in found.readings if r.op.action == op.action
                and r.op.kind == op.kind and r.op.target != "none"
                and abs(r.score - reading.score) < 0.01]
        if len({r.op.resource for r in same}) > 1:
            resource = None
    kind = {"query": Kind.QUERY, "action": Kind.ACTION, "meta": Kind.META}[op.kind]
    unhonoured, unexplained = list(reading.unhonoured), list(reading.unexplained)
    if reading.named_kinds and unhonoured and op.kind == "query":
        # "is the crashed portainer up?": a question about named things cannot widen
        # anything, so a state word it cannot filter by is said back, not asked about.
        # An action asks: "remove the enabled nextcloud containers" must never become
        # "remove the nextcloud containers".
        unexplained, unhonoured = unexplained + unhonoured, []
    return Intent(
        kind=kind, action=op.action, resource=resource, targets=list(reading.targets),
        plural=reading.plural, operation=op.id, params=dict(reading.params),
        then=list(op.then), note=op.note, qualifiers=list(dict.fromkeys(reading.qualifiers)),
        exclude=[] if reading.claims_exclusion else list(found.exclude), value=op.value,
        summary=op.summary,
        reading=Understood("catalogue", reading.confidence, template=op.id,
                           unexplained=unexplained, unhonoured=unhonoured,
                           ignored=found.shell),
    )


def _not_understood(found: Parse, templates: TemplateSet) -> Intent:
    """No confident reading: what was understood, and the nearest operations."""
    closest: list[str] = []
    for reading in found.readings:
        if reading.op.summary not in closest and reading.op.kind != "meta":
            closest.append(reading.op.summary)
    if len(closest) < 3:
        words = {u.text for u in found.units if not ({"filler", "conj"} & set(u.roles))}
        ranked = sorted(
            templates.operations.values(),
            key=lambda op: -len(words & {w for e in op.examples for w in e.split()}))
        for op in ranked:
            if len(closest) >= 3 or not words & {w for e in op.examples for w in e.split()}:
                break
            if op.summary not in closest and op.kind != "meta":
                closest.append(op.summary)
    best = found.best
    if best is not None:  # every word the weak reading could not place, guessed names too
        named = {u.text for u in found.units if "name" in u.roles or "alias" in u.roles}
        guessed = [w for t in best.targets for w in t.split() if w not in named]
        unexplained = list(dict.fromkeys([*best.unexplained, *best.conflicts, *guessed]))
    else:
        unexplained = [u.text for u in found.units if u.unknown]
    understood = [found.units[n].said or found.units[n].text
                  for n, role in sorted(best.explained.items())
                  if role in ("verb", "noun", "idiom", "resource", "qualifier", "time")
                  ] if best is not None else []
    return Intent(Kind.UNKNOWN, params={"understood": " ".join(dict.fromkeys(understood))},
                  reading=Understood("catalogue", best.confidence if best else 0.0,
                                     closest=closest[:3], unexplained=list(unexplained),
                                     ignored=found.shell))


def reading(intent: Intent | None) -> str:
    """The parser's reading in a few words (for the trace, and as the model's hint)."""
    if intent is None:
        return "nothing to read"
    what = intent.operation or intent.kind.value
    return (f"{intent.kind.value} {what}" + (f" {', '.join(intent.targets)}" if intent.targets
                                            else "")
            + f" (confidence {intent.reading.confidence:.2f})"
            + (f", could not place: {', '.join(intent.reading.unexplained[:5])}"
               if intent.reading.unexplained else ""))
