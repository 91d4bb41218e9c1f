"""Follow-ups to a plan that waits for approval: narrow it, add to it, leave something out,
or ask for it later.

"only the redis one" keeps the plan's targets that the words name; "also restart
portainer" (or "and portainer too") plans the new part and appends its steps, renumbered
with their `depends_on`; "not nginx", "leave X alone", "except X" drop the steps on X; "do
it at 11pm" is answered plainly (the catalogue has no operation that schedules, so the
time is said back, never silently dropped). Words are read by the catalogue's own parser
(`parser.parse`: its exclusion, negation, "only" and name roles) and by `reading`
for an added request; names are matched to the plan's targets as answers to a question
are (`choice.words_of_name`).

`revise` is pure: it reads the words against the plan and says what changes (a
`Revision`), or None when the words are not about the plan (a new request stays a new
request). `follow_up` hands a revision to the planner and returns the plan to offer.
Not responsible for holding the pending plan or asking for approval (the engine), or for
building steps (the planner).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from reos.model.plan import Plan, Traced, renumbered
from reos.model.request import Intent, Kind
from reos.model.target import Target
from reos.patterns import regex
from reos.understanding import moments
from reos.understanding.choice import words_of_name

if TYPE_CHECKING:
    from typing import Any

    from reos.catalogue.templates import TemplateSet
    from reos.understanding.parser import Parse

# words that put a request next to the plan rather than in its place: "also restart X",
# "X too", "X as well" (the lexicon reads them all as fillers, so they are named here)
_ALSO = {"also", "too", "plus", "additionally"}
_ALSO_PHRASES = ("as well", "and also", "in addition")
# the plan itself, referred to: "do it at 11pm", "run this tonight"
_PLAN_WORDS = {"it", "this", "that", "them", "these", "those", "plan", "all"}
_UNIT_TIME = regex(r"^\d+[smhdw]$")
_IN_A_WHILE = regex(r"\bin (?:an?|\d+|a few|a couple of) (?:second|minute|hour|day|week)s?\b")


class Revision(Struct):
    """What a follow-up changes in the pending plan.

    `kind`: "narrow" (keep only `keep`), "drop" (leave out `drop`), "add" (plan `added`
    and append it), "time" (nothing changes: `said` answers the time), "none" (the words
    are about the plan but change nothing: `said` says why)."""

    kind: str
    said: str
    keep: list[Target] = field(default_factory=list)
    drop: list[Target] = field(default_factory=list)
    added: Intent | None = None


def revise(pending: Plan, text: str, templates: TemplateSet, matcher: Any = None
           ) -> Revision | None:
    """How `text` revises `pending`, or None when it is not a follow-up to it."""
    from reos.understanding import parser
    from reos.understanding.perception import perceive

    if not pending.steps or pending.intent is None or perceive(text) is not None:
        return None  # yes / no / undo / help are the engine's
    found = parser.parse(text, templates, matcher)
    if found.refusal is not None or found.shell:
        return None
    units = found.units
    words = [u.text for u in units]
    verbs = _verbs(found)
    plan_op = pending.intent.operation
    # no verb, one that can be the plan's own, or one said of the plan ("run it tonight")
    own = not verbs or plan_op in verbs or bool(_PLAN_WORDS & set(words[1:3]))
    when = _when(units, [w.lower().strip(".,!?") for w in text.split()])
    if when and own and not any("name" in u.roles or "alias" in u.roles for u in units):
        return Revision("time", _not_scheduled(when))
    dropped = _dropped(found, verbs, plan_op)
    if dropped is not None:
        return _leave_out(pending, dropped, templates)
    if _says_also(text, words):
        return _also(pending, text, found, templates, matcher)
    named = _names(units)
    if named and own and _says_only(units):
        return _narrow(pending, named, templates)
    if named and _only_names(units) and _matching(pending, named, templates):
        return _narrow(pending, named, templates)  # "the redis one", "nextcloud-db"
    return None


def follow_up(pending: Plan, text: str, builder: Any) -> Plan | None:
    """The plan to offer after `text` revises `pending` (the same plan with a sentence
    when nothing changes), or None when `text` is not a follow-up."""
    revision = revise(pending, text, builder.templates, builder.matcher)
    if revision is None:
        return None
    intent = copy.deepcopy(pending.intent)
    assert intent is not None  # revise returns None for a plan without one
    if revision.kind in ("narrow", "drop"):
        kept = revision.keep or [t for t in _targets(pending) if t not in revision.drop]
        intent.targets = [t.name for t in kept]
        intent.plural, intent.exclude, intent.qualifiers = len(kept) > 1, [], []
        plan = builder.build(pending.request, intent, trace=[
            *pending.trace, Traced("revising", revision.said)])
        if [s.argv for s in plan.steps] != [s.argv for s in _kept_steps(pending, kept)]:
            # planned anew it is not the same steps (a merged plan of several verbs, a
            # package's service to enable): the plan's own steps on what is kept
            plan = _without(pending, kept, builder)
    elif revision.kind == "add" and revision.added is not None:
        added = builder.build(text, revision.added)
        if not added.steps or added.kind not in (Kind.ACTION, Kind.COMBINED):
            why = added.text().splitlines()[:1]  # the first line it says
            return _unchanged(pending, builder, "I couldn't add that to the plan: "
                              + (why[0] if why else text))
        plan = _merged(pending, added, builder)
    else:
        return _unchanged(pending, builder, revision.said)
    stage = Traced("revising", revision.said)
    if stage not in plan.trace:  # the planner was handed it when it built the plan
        plan.trace = [*pending.trace, stage]
    plan.say_first(revision.said)
    return plan


# -- reading the follow-up ------------------------------------------------------------------
def _verbs(found: Parse) -> list[str]:
    """The operations the words' verbs may be (negated ones left out)."""
    ops: list[str] = []
    for unit in found.units:
        for op in unit.roles.get("verb", ()):
            if op not in found.negated:
                ops.append(op)
    return ops


def _names(units: list[Any]) -> list[str]:
    return [u.text for u in units if ("name" in u.roles or "alias" in u.roles
                                      or u.unknown) and "time" not in u.roles
            and "number" not in u.roles and not _UNIT_TIME.match(u.text)]


def _says_only(units: list[Any]) -> bool:
    return any("only" in u.roles.get("qualifier", ()) for u in units)


def _only_names(units: list[Any]) -> bool:
    """Nothing but names and fillers ("the redis one", "nextcloud-redis")."""
    return all(u.unknown or u.roles.keys() & {"name", "alias", "filler", "number", "conj"}
               for u in units)


def _says_also(text: str, words: list[str]) -> bool:
    said = " ".join(text.lower().split())
    return bool(_ALSO & set(words)) or any(p in said for p in _ALSO_PHRASES) or (
        bool(words) and words[0] in ("and", "plus"))


def _dropped(found: Parse, verbs: list[str], plan_op: str | None) -> list[str] | None:
    """The names a follow-up leaves out ("not nginx", "leave X alone", "don't restart
    X"), or None when it leaves nothing out or is a request of its own."""
    names = list(found.exclude)
    units = found.units
    if units and "negation" in units[0].roles:  # "not nginx", "without portainer"
        rest = units[1:]
        if found.negated and plan_op in found.negated:  # "don't restart the db"
            rest = [u for u in rest if "verb" not in u.roles]
        if rest and all("name" in u.roles or "alias" in u.roles or "filler" in u.roles
                        or u.unknown for u in rest):
            names += _names(rest)
    if not names or (verbs and not set(verbs) <= {plan_op}):
        return None
    return names


def _not_scheduled(when: str) -> str:
    return (f"I can't run it {when}: reos doesn't schedule plans, it runs one only when "
            "you approve it, right away. The plan below still waits: say yes when it's "
            "time, or no to drop it.")


def _when(units: list[Any], texts: list[str]) -> str | None:
    """A time the plan is asked to run at ("at 11pm", "tonight", "in an hour"), in the
    words said, or None."""
    ahead = _IN_A_WHILE.search(" ".join(texts))  # "in an hour": said whole, "in" with it
    if ahead:
        return ahead[0]
    for n, unit in enumerate(units):
        if "time" in unit.roles and unit.roles["time"] is not True:
            start = n  # the words said with it: "tomorrow morning", "next week"
            while start and units[start - 1].roles.get("time") is True:
                start -= 1
            return " ".join(u.said for u in units[start:n + 1])
    for n, word in enumerate(texts):
        clock = moments.clock_at(texts, n, bare=n > 0 and texts[n - 1] in ("at", "by"))
        if clock is not None:
            lead = n and texts[n - 1] in ("at", "by", "until")
            return ("" if lead else "at ") + " ".join(texts[n - 1 if lead else n:clock[1]])
        if word in ("tomorrow", "tonight", "later"):
            return " ".join(texts[n:n + 2]) if texts[n + 1:n + 2] == ["morning"] else word
    return None


# -- what changes ---------------------------------------------------------------------------
def _matching(pending: Plan, names: list[str], templates: TemplateSet) -> list[Target]:
    """The plan's targets the names point at (a whole name, a word of one, an alias)."""
    wanted = {w.lower() for name in names for w in [name, *name.split()]}
    for table in templates.aliases.values():
        for phrase, known in table.items():
            if phrase in wanted:
                wanted |= {k.lower() for k in known}
    return [t for t in _targets(pending) if wanted & words_of_name(t.name)]


def _targets(plan: Plan) -> list[Target]:
    """What the plan acts on: its targets and its steps' (a package's service too)."""
    return list(dict.fromkeys([*plan.targets, *(s.target for s in plan.steps if s.target)]))


def _leave_out(pending: Plan, names: list[str], templates: TemplateSet) -> Revision:
    drop = _matching(pending, names, templates)
    said = ", ".join(names)
    if not drop:
        return Revision("none", f"{said} isn't part of this plan, so nothing changed.")
    if len(drop) == len(_targets(pending)):
        return Revision("none", f"Leaving out {said} leaves nothing to do; the plan is "
                        "unchanged (say no to drop it).")
    return Revision("drop", f"Okay, leaving out {_listed(drop)}.", drop=drop)


def _narrow(pending: Plan, names: list[str], templates: TemplateSet) -> Revision:
    keep = _matching(pending, names, templates)
    if not keep:
        return Revision("none", f"Nothing in this plan is called {' '.join(names)}, so "
                        "nothing changed.")
    if len(keep) == len(_targets(pending)):
        return Revision("none", "That is the whole plan already; nothing changed.")
    return Revision("narrow", f"Okay, only {_listed(keep)} now.", keep=keep)


def _also(pending: Plan, text: str, found: Parse, templates: TemplateSet,
          matcher: Any) -> Revision | None:
    from reos.understanding import reading as understanding

    intent = understanding.understand(text, templates, matcher)
    if intent is None or intent.kind not in (Kind.ACTION, Kind.COMBINED) or not (
            intent.targets):
        names = [n for n in _names(found.units) if n not in _ALSO]
        if not names or _verbs(found):
            return None  # a verb reos could not place is not the plan's verb
        intent = copy.deepcopy(pending.intent)
        assert intent is not None
        intent.targets, intent.exclude, intent.qualifiers = names, [], []
        intent.plural = len(names) > 1
    known = {t.name for t in _targets(pending)}
    if set(intent.targets) <= known:
        return Revision("none", "That is in the plan already; nothing changed.")
    what = f"{intent.action or 'do'} {', '.join(intent.targets)}"
    return Revision("add", f"Okay, I'll also {what}.", added=intent)


# -- building the revised plan --------------------------------------------------------------
def _listed(targets: list[Target]) -> str:
    names = [t.name for t in targets]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _unchanged(pending: Plan, builder: Any, said: str) -> Plan:
    """The pending plan, offered again with what was said about it."""
    plan = replace(pending, lead=list(pending.lead), trace=[
        *pending.trace, Traced("revising", said)])
    said_before = [t.said for t in pending.trace if t.stage == "revising"]
    plan.say_first(said, replacing=said_before[-1] if said_before else None)  # said once
    return plan


def _kept_steps(pending: Plan, kept: list[Target]) -> list[Any]:
    """The pending plan's steps on `kept` (and on no target), less any step that depends
    on one left out (enabling a service whose install is gone)."""
    steps: list[Any] = []
    gone: set[str] = set()
    for step in pending.steps:
        if (step.target is not None and step.target not in kept) or gone & set(
                step.depends_on):
            gone.add(step.id)
        else:
            steps.append(step)
    return steps


def _without(pending: Plan, kept: list[Target], builder: Any) -> Plan:
    """The pending plan's own steps on `kept`, renumbered."""
    return _finished(replace(pending, targets=list(kept), lead=[]),
                     _kept_steps(pending, kept), builder)


def _merged(pending: Plan, added: Plan, builder: Any) -> Plan:
    """The pending plan's steps, then the added plan's, renumbered with `depends_on`."""
    plan = replace(pending, targets=[*pending.targets, *added.targets], lead=[],
                   notes=[*pending.notes, *(n for n in added.notes if n not in pending.notes)],
                   preconditions=[*pending.preconditions, *added.preconditions],
                   blocked=pending.blocked or added.blocked,
                   blocked_reason=pending.blocked_reason or added.blocked_reason,
                   verb=pending.verb if pending.verb == added.verb else None,
                   kind=Kind.ACTION)
    return _finished(plan, [*pending.steps, *added.steps], builder)


def _finished(plan: Plan, steps: list[Any], builder: Any) -> Plan:
    """`steps` renumbered s1… (with what each depends on), judged and said again."""
    plan.steps = renumbered(steps)
    return builder.finish(plan)
