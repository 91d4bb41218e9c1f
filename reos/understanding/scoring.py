"""Scoring: how well one operation of the catalogue explains a request's tagged units.

`candidates` are the operations that can read the request at all: a verb or noun of their
own said, their resource noun for a listing, or an idiom whose every word was said.
`score` reads the units as one of them, in named steps, each weighing one kind of
evidence: a word the operation cannot be read without (`_requirement_said`); its longest
idiom said whole (`_weigh_idiom`); the part each unit plays, the first that fits in a
fixed order (`_place_units`: a verb, a noun, a resource noun, a qualifier, an asking word
or a word left over weighed here, a slot's value by `slot_words`, a target by
`target_words`); whether a word of its own named it at all (`_names_the_operation`); its
targets; and the words outside the clause that names it, which cost a quarter
(`_background`). The Reading's score is the sum of the `Weight`s of what it found.

Not responsible for tagging the words (`tagging`), finding idioms (`idioms`), reading
refusals, exclusions and negations (done before scoring, by `parser.parse`), or choosing
among the readings (`parser.parse` ranks them, `reading` decides).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.catalogue.operations import Operation
from reos.catalogue.refusing import contains
from reos.understanding import slot_words, tagging, target_words
from reos.understanding.evidence import Reading, Weight, unplaced
from reos.understanding.idioms import Flat, could_name, idiom_spans, idioms_of
from reos.understanding.tagging import Unit

if TYPE_CHECKING:
    from typing import Any


_STRONG = ("verb", "idiom", "noun")  # evidence that names an operation


def _shared(op: Operation, verbs: set[str]) -> bool:
    """Whether the verb that named `op` also names other operations."""
    return any(other != op.id for other in verbs)


_SHOWING = {"show", "list", "display", "print", "tell", "give", "view"}  # words that only ask


# what an action leaves behind: said with it, a state is its result, not a filter
_AT_BOOT = {"at boot", "on boot", "at startup", "on startup"}
_EFFECTS = {"start": {"running"}, "restart": {"running"}, "stop": {"stopped"},
            "enable": {"enabled"}, "disable": {"disabled"}, "pause": {"paused"}}


def _background(reading: Reading, clauses: list[int]) -> None:
    """Words the reading could not place, outside the clause that names the operation
    ("the nextcloud page won't load, | restart its containers") are background: still said
    back, they cost a quarter and do not count against confidence."""
    anchor = next((clauses[n] for n, role in sorted(reading.explained.items())
                   if role in ("verb", "idiom", "noun")), None)
    if anchor is None:
        return
    for n, cost in reading.unplaced.items():
        if clauses[n] != anchor:
            reading.score += cost * Weight.BACKGROUND
            reading.background += 1
    # a state said in another clause describes ("the site is down because apache isn't
    # running, | start it"); only one in the clause naming the operation filters
    for n in reversed(range(len(reading.unhonoured_at))):
        at = reading.unhonoured_at[n]
        if clauses[at] != anchor:
            reading.explained[at] = "background"
            reading.score -= Weight.UNHONOURED  # given back: it describes, never filters
            del reading.unhonoured[n], reading.unhonoured_at[n]


def _negates_idiom(units: list[Unit], idiom_units: set[int], skip: set[int],
                   fixed: frozenset[str]) -> bool:
    """Whether a negation that is not a word of the idiom points at a verb inside it
    ("make sure nginx does *not* start at boot" against "make {target} start at boot"):
    the idiom is said not to happen. An idiom holding its own negation ("do not start
    {target} at boot") is what is asked."""
    for m in sorted(idiom_units):
        if m in skip and "verb" in units[m].roles:
            for n in range(m - 1, max(m - 5, -1), -1):
                if "negation" in units[n].roles:
                    return n in skip and not set(units[n].text.split()) <= fixed
    return False


def score(op: Operation, units: list[Unit], skip: set[int], negated: set[str],
          words: list[str], flat: Flat | None = None,
          clauses: list[int] | None = None,
          listed: frozenset[str] = frozenset()) -> Reading | None:
    """How well `op` explains the units: a Reading whose score is the sum of the
    `Weight`s of what it found, or None when nothing said names the operation.
    `listed`: kinds whose every name the snapshot holds (users, disks…): a word none of
    them is called is unlikely to mean one.

    The steps, each weighing one kind of evidence:
    1. `_requirement_said`: a word the operation cannot be read without ("kernel");
    2. `_weigh_idiom`: the longest of its idioms said whole;
    3. `_place_units`: what part each unit plays (a verb, a noun, a resource noun, a slot,
       a qualifier, a time, a number, a target…), each part weighed by a step of its own;
    4. `_names_the_operation`: a verb, idiom or noun of its own was said, or no reading;
    5. the targets (`target_words`): the request's first word, a verb, never one of them
       beside another (`its_own_verb`), real names over guesses (`real_names_only`), the new
       name of a thing created (`the_new_name`), an account and a group said either way
       round (`account_and_group`), then weighed (`weigh_targets`);
    6. `_background`: words outside the clause that names the operation cost a quarter.
    """
    if op.requires and not _requirement_said(op, words):
        return None
    reading = Reading(op)
    idiom_units, held, fixed = _weigh_idiom(reading, units, skip, flat or Flat(units))
    target_units, shared_verb = _place_units(reading, units, skip, negated,
                                             idiom_units, held, fixed)
    if not _names_the_operation(reading, shared_verb):
        return None
    target_units = target_words.its_own_verb(reading, units, target_units)
    target_units = target_words.real_names_only(reading, units, target_units)
    if op.creates:
        target_units = target_words.the_new_name(reading, units, target_units)
    if op.target == "user" and "group" in op.slots:
        target_units = target_words.account_and_group(reading, units, target_units)
    if "when" in op.slots and any(  # "shut down postgres in 10 min" is not this machine
            "name" in units[n].roles or "ip" in units[n].roles or units[n].unknown
            for n in reading.unplaced):
        return None
    target_words.weigh_targets(reading, units, target_units, listed)
    if clauses is not None and len(set(clauses)) > 1:
        _background(reading, clauses)
    return reading


def _requirement_said(op: Operation, words: list[str]) -> bool:
    """Whether a word the operation requires was said ("kernel" for upgrading the
    kernel), or ends a word after a dot ("fstrim.timer" for "timer")."""
    return any(contains(words, w) or any(x.endswith("." + w) for x in words)
               for w in op.requires)


def _weigh_idiom(reading: Reading, units: list[Unit], skip: set[int],
                 flat: Flat) -> tuple[set[int], list[int], frozenset[str]]:
    """The longest idiom of the operation whose every word was said ("make {target}
    start at boot"): IDIOM, and IDIOM_WORD for each unit it covers, less IDIOM_HELD for
    each unit of its {target} gap (a name says which thing, not which operation) and
    IDIOM_BORROWED for a gap word that means something else here; NEGATED_IDIOM when a
    negation outside it points at its verb. Returns the units it covers, those of its
    gap, and its own words; all empty when no idiom was said."""
    op = reading.op
    held: list[int] = []
    idiom_units: set[int] = set()
    said = flat.at.keys()
    fixed: frozenset[str] = frozenset()  # the chosen idiom's own words
    for idiom, literal in idioms_of(op):
        if not literal <= said:
            continue  # a word of it was never said: most idioms of most operations
        spans = idiom_spans(idiom, units, flat)
        if spans and spans[0] & skip and not any(
                set(units[n].text.split()) & literal for n in spans[0] & skip):
            # "set the shell of every user except alice to": the gap would span the
            # words set apart; they stay an exclusion, never the idiom's target
            gap = [h for h in spans[1] if h not in skip]
            spans = (spans[0] - skip, gap) if gap else None
        if spans and len(spans[0]) > len(idiom_units):
            (idiom_units, held), fixed = spans, literal
    if idiom_units:
        reading.evidence.add("idiom")
        # "upgrade everything except docker": the idiom takes the excluded words as its
        # target, so they are not an exclusion for this reading
        reading.claims_exclusion = bool(idiom_units & skip)
        borrowed = sum(1 for h in held
                       if units[h].roles and not target_words.names(units[h], op.target))
        reading.score += (Weight.IDIOM + Weight.IDIOM_WORD * len(idiom_units)
                          + Weight.IDIOM_HELD * len(held) + Weight.IDIOM_BORROWED * borrowed)
        if any("name" in units[n].roles and op.id in units[n].roles.get("noun", ())
               and units[n].text in fixed for n in idiom_units if n not in held):
            # "turn ufw on": ufw is the firewall's own noun and a name here, so the idiom
            # is no less sure of which thing than "turn {target} on" with ufw in its gap
            # (a name that is no noun of the operation, "who is in the *sudo* group" for
            # who has sudo, says nothing of it)
            reading.score += Weight.IDIOM_NAMES
        if _negates_idiom(units, idiom_units, skip, fixed):
            # "make sure nginx does not start at boot" is no enable
            reading.score += Weight.NEGATED_IDIOM
    return idiom_units, held, fixed


def _place_units(reading: Reading, units: list[Unit], skip: set[int], negated: set[str],
                 idiom_units: set[int], held: list[int],
                 fixed: frozenset[str]) -> tuple[list[Unit], bool]:
    """The part each unit plays in this reading: the first of these that fits, in this
    order (the order decides what a word with several roles is taken for). Each part is
    weighed by its own step; returns the units taken as targets, and whether the first
    verb also names other operations (`_names_the_operation` reads it)."""
    op = reading.op
    takes = op.target != "none"
    target_units: list[Unit] = []
    verb_seen = shared_verb = False
    for n, unit in enumerate(units):
        roles = unit.roles
        # excluded or said not to ("except X", "don't restart it"): read apart
        if n in skip and n not in idiom_units:
            if reading.claims_exclusion and unit.unknown:
                # "but keep nextcloud-app zorblax": the idiom took the name; the word
                # after it names nothing and is said back
                unplaced(reading, n, unit, Weight.NOT_A_NAME)
            continue
        if n + 2 < len(units) and "qualifier" in units[n + 2].roles and tagging.told_of(
                units, n + 2):
            reading.explained[n] = "background"  # "dns" of "… container dns is down"
            continue
        own_noun = "resource" in roles and (op.target in roles["resource"]
                                            or op.resource in roles["resource"])
        if n in idiom_units and _in_idiom(reading, n, unit, held, fixed, own_noun):
            continue  # the idiom was weighed whole
        if op.target == "process" and slot_words.owner(roles):  # also inside an idiom's {target}
            reading.explained[n] = "slot"  # "kill dan's tracker": whose tracker
            reading.params["owner"] = unit.text
            continue
        if op.slots and n not in held and slot_words.names_its_slot(op, units, n):
            slot = slot_words.slot(op, units, n)  # "add deploy to the www-data group": the group
            # "give ewan macaskill the newsroom group": the last group said is the one
            slot_words.second_value(reading, units, slot)
            if slot is not None:
                reading.explained[n] = "slot"
                if slot[1]:
                    reading.params[slot[0]] = slot[1]
                continue
        # a name of the kind it acts on (or a word of the idiom's {target}): a target,
        # weighed with the others (`target_words.weigh_targets`)
        if (n in held or (takes and "name" in roles and op.target in roles["name"]
                          and "verb" not in roles)) and not own_noun:
            reading.explained[n] = "target"
            target_units.append(unit)
            reading.named_kinds |= roles.get("name", set()) & {op.target}
            reading.exact = reading.exact or op.target in unit.exact
            continue
        slot = slot_words.slot(op, units, n) if op.slots else None
        if slot is not None:
            slot_words.weigh_slot(reading, units, n, unit, slot)
            continue
        if op.id in roles.get("verb", ()):
            if not verb_seen and _shared(op, roles["verb"]) and unit.text not in op.alone:
                shared_verb = True
            verb_seen = _weigh_verb(reading, n, unit, negated, verb_seen)
            continue
        if op.id in roles.get("noun", ()):
            _weigh_noun(reading, n)
            continue
        if takes and op.target in roles.get("alias", ()):
            reading.explained[n] = "target"  # "the wireless card": an alias of the kind
            target_units.append(unit)
            reading.named_kinds.add(op.target)
            continue
        if "resource" in roles:
            _weigh_resource_noun(reading, n, unit, target_units)
            continue
        if "qualifier" in roles:
            _weigh_qualifier(reading, units, n, unit)
            continue
        if "clock" in roles:
            slot_words.place_clock(reading, n, unit)
            continue
        if "time" in roles:
            slot_words.place_time(reading, units, n, unit)
            continue
        if "proto" in roles and "port" in op.slots:
            reading.params["proto"] = roles["proto"]  # "udp port 27015", "27015/udp"
            if "number" not in roles:
                reading.explained[n] = "slot"
                continue
        if "port" in op.slots and not takes and slot_words.weigh_service_port(reading, n, unit):
            continue
        if "number" in roles and slot_words.weigh_number(reading, units, n, unit):
            continue
        if "filler" in roles or "conj" in roles or "negation" in roles or "keep" in roles:
            reading.explained[n] = "filler"
            continue
        if "ask" in roles:
            _weigh_ask(reading, units, n, unit)
            continue
        if takes and target_words.weigh_as_target(reading, n, unit, target_units):
            continue
        _weigh_leftover(reading, units, n, unit)
    return target_units, shared_verb


def _in_idiom(reading: Reading, n: int, unit: Unit, held: list[int],
              fixed: frozenset[str], own_noun: bool) -> bool:
    """A unit inside the chosen idiom: a qualifier it keeps, a word of the idiom, a noun
    of another kind of thing in its gap (a conflict), or glue in its gap. False for a gap
    word the later steps place (a name, a slot's value). Weighs nothing: the idiom was
    weighed whole (`_weigh_idiom`)."""
    op = reading.op
    roles = unit.roles
    if unit.text not in fixed and (kept := [
            q for q in roles.get("qualifier", ())
            if q in op.qualifiers and q not in ("all", "only")]):
        reading.explained[n] = "qualifier"  # "lower the priority of the *busiest*
        reading.qualifiers.append(kept[0])  # clamscan": which one, never dropped
        return True
    if n not in held and (unit.text in fixed or own_noun or "resource" not in roles):
        reading.explained[n] = "idiom"
        return True
    if "resource" in roles and not own_noun and "name" not in roles:
        reading.explained[n] = "resource"  # "turn the man-db *timer* off": the gap
        reading.conflicts.append(unit.text)  # holds a noun of another kind of thing
        return True
    if not could_name(unit):
        reading.explained[n] = "filler"  # "the" inside an idiom's {target}
        return True
    return False


def _weigh_verb(reading: Reading, n: int, unit: Unit, negated: set[str],
                verb_seen: bool) -> bool:
    """A verb of the operation ("restart"): VERB for the first one, DESCRIBING_VERB when
    said in its -s form ("something already *holds* port 80": it describes what
    something does; nobody asks for an action that way), nothing for a second one;
    NEGATED_VERB for each when the request says not to do it. A describing verb is no
    evidence for an action ("the node stuff *runs* in docker" runs nothing). Returns
    whether the first verb has been weighed."""
    op = reading.op
    reading.explained[n] = "verb"
    if op.id in negated:
        reading.score += Weight.NEGATED_VERB
    elif not verb_seen:
        reading.score += Weight.DESCRIBING_VERB if _describes(unit) else Weight.VERB
        verb_seen = True
    if not (_describes(unit) and op.kind == "action"):
        reading.evidence.add("verb")
    return verb_seen


def _weigh_noun(reading: Reading, n: int) -> None:
    """One of the operation's own nouns ("uptime", "hostname", "logs"): NOUN, enough to
    name a question with no verb."""
    reading.explained[n] = "noun"
    reading.score += Weight.NOUN
    reading.evidence.add("noun")


def _weigh_resource_noun(reading: Reading, n: int, unit: Unit,
                         target_units: list[Unit]) -> None:
    """A noun of a kind of thing ("containers", "the service", "the usb stick"):
    RESOURCE when it is the kind the operation acts on, and LISTING more for a listing
    with no target ("what containers do I have"), whose whole request it is; a disk's
    noun for an operation on mounts names the filesystem on it; a name that is also a
    noun ("docker") is a target; a noun that only says which ones ("the usb *stick*")
    is a QUALIFIER; a noun of another kind of thing is a conflict (OTHER_RESOURCE)."""
    op = reading.op
    roles = unit.roles
    if op.target in roles["resource"] or op.resource in roles["resource"]:
        reading.explained[n] = "resource"
        reading.score += Weight.RESOURCE
        reading.evidence.add("resource")
        if op.kind == "query" and op.target == "none" and op.action == "list":
            reading.evidence.add("noun")  # "what containers do I have": a list
            reading.score += Weight.LISTING
        reading.plural = reading.plural or (unit.text.endswith("s")
                                            and not unit.text.endswith("ss"))
        # "the usb stick": a noun that also says which one
        reading.qualifiers += [q for q in roles.get("qualifier", ())
                               if q in op.qualifiers][:1]
    elif op.target == "mount" and "device" in roles["resource"]:
        reading.explained[n] = "resource"  # "unmount the backup disk": a disk's
        reading.evidence.add("resource")  # filesystem is what is mounted
        reading.qualifiers += [q for q in roles.get("qualifier", ())
                               if q in op.qualifiers][:1]  # "the usb stick"
    elif op.target != "none" and "name" in roles:
        reading.explained[n] = "target"  # "docker": a service name, not a noun
        target_units.append(unit)
    elif chosen := [q for q in roles.get("qualifier", ()) if q in op.qualifiers]:
        reading.explained[n] = "qualifier"  # "unmount the usb stick": which mount
        reading.qualifiers.append(chosen[0])
        reading.score += Weight.QUALIFIER
    else:
        reading.conflicts.append(unit.text)
        reading.score += Weight.OTHER_RESOURCE


def _weigh_qualifier(reading: Reading, units: list[Unit], n: int, unit: Unit) -> None:
    """A qualifier ("running", "all", "only", "at boot"): QUALIFIER when the operation
    applies it; glue when it cannot filter anything here (when an enable acts, a state
    an action leaves behind, an operation with no target); otherwise UNHONOURED: it is
    asked about, never dropped."""
    op = reading.op
    roles = unit.roles
    takes = op.target != "none"
    if unit.text in _AT_BOOT and (op.action or "").startswith(("enable", "disable")):
        reading.explained[n] = "filler"  # "enable it at boot", "disable it at boot":
        return  # when it acts, never which ones
    if tagging.told_of(units, n):
        reading.explained[n] = "background"  # "… pihole container dns is down"
        return
    names = roles["qualifier"]
    if names == {"only"} and "filler" in roles and n + 1 < len(units) and (
            units[n + 1].roles.keys() & {"verb", "ask"}):
        reading.explained[n] = "filler"  # "just tell me which …", "just restart it": of
        return  # the verb, never which things
    # every operation on named things takes "all" and "only", except packages:
    # "all packages" is never a list of ten thousand steps
    accepted = [q for q in names if q in op.qualifiers or (
        takes and q == "only") or (takes and op.target != "package" and q == "all")]
    if accepted:
        reading.explained[n] = "qualifier"
        reading.qualifiers.append(accepted[0])
        reading.score += Weight.QUALIFIER
        reading.plural = reading.plural or accepted[0] == "all"
        return
    if "filler" in roles or "ask" in roles and op.kind == "query":
        reading.explained[n] = "filler"
        return
    if not takes and not (op.kind == "action" and "only" in names):
        reading.explained[n] = "filler"  # "what os am I running": nothing to filter
        return  # but "install only the security updates" is not every update
    if names & _EFFECTS.get(op.action or "", set()):
        reading.explained[n] = "filler"  # "have apache start at boot": the result
        return
    reading.unhonoured.append(unit.text)
    reading.unhonoured_at.append(n)
    reading.explained[n] = "qualifier"
    reading.score += Weight.UNHONOURED


def _weigh_ask(reading: Reading, units: list[Unit], n: int, unit: Unit) -> None:
    """An asking word ("show", "can you", "what"): explained by a question; against an
    action it is unplaced, a LEADING_ASK when a showing word leads the request ("can you
    show me the last run of the job": it shows, it does not run), else an ASK_WORD."""
    if reading.op.kind in ("query", "meta"):
        reading.explained[n] = "ask"
        return
    leads = "verb" not in unit.roles and unit.text in _SHOWING and all(
        "filler" in u.roles for u in units[:n])
    unplaced(reading, n, unit, Weight.LEADING_ASK if leads else Weight.ASK_WORD)


def _weigh_leftover(reading: Reading, units: list[Unit], n: int, unit: Unit) -> None:
    """A word no step placed: a STRAY_WORD, or a LEADING_VERB when it is a command's own
    first word ("kill whatever is on port 3000" read as a question about ports), which
    says more against a reading than a stray word does."""
    leads = "verb" in unit.roles and all(
        "filler" in u.roles or "ask" in u.roles for u in units[:n])
    unplaced(reading, n, unit, Weight.LEADING_VERB if leads else Weight.STRAY_WORD)


def _names_the_operation(reading: Reading, shared_verb: bool) -> bool:
    """Whether the words name the operation at all: a verb, idiom or noun of its own; a
    change to the whole machine needs a verb, an idiom or a value to set; and a verb
    other operations share needs a noun or idiom for an operation with no target."""
    op = reading.op
    takes = op.target != "none"
    if not reading.evidence & set(_STRONG):
        return False
    if op.kind == "action" and not takes and not reading.evidence & {"verb", "idiom"} and (
            not reading.params):
        # a noun alone never asks for a change to the whole machine ("what is this
        # computer called" is not "shut the computer down"); terse ones say what to set
        # ("timezone UTC"), and one about a thing asks which thing when none is named
        return False
    # "restart" alone is not "restart the machine"
    return not (shared_verb and not takes and op.nouns
                and not reading.evidence & {"noun", "idiom"})


def _describes(unit: Unit) -> bool:
    """Whether a verb was said in its -s form ("holds", "pushes"), not as a request."""
    said = unit.said
    return " " not in said and said != unit.text and said in (unit.text + "s",
                                                             unit.text + "es")


def candidates(lex: Any, units: list[Unit], flat: Flat) -> list[Operation]:
    """The operations that can read the request at all: each needs a verb or noun of its
    own said, its resource noun (a list), or an idiom whose every word was said; the rest
    score nothing (`score` returns None without such evidence), so they are not scored."""
    named: set[str] = set()
    resources: set[str] = set()
    for unit in units:
        named |= unit.roles.get("verb", set()) | unit.roles.get("noun", set())
        resources |= unit.roles.get("resource", set())
    said = flat.at.keys()
    idiomatic = {op_id for word in ("", *said) for op_id in lex.idiom_ops.get(word, ())}
    return [op for op in lex.operations if op.id in named or (
        op.kind == "query" and op.action == "list" and op.target == "none"
        and op.resource in resources) or (op.id in idiomatic and any(
            literal <= said for _, literal in idioms_of(op)))]
