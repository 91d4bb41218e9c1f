"""The plan builder: Intent + matched targets + recipes -> a Plan of argv steps.

It decides what a request becomes: a refusal, a question back (close readings, words
nothing explained, which target, a value a recipe lacks), a plain answer, several parts
planned in turn, or the steps of a query or of an action, and which recipe serves which
targets (found by `targeting` and `named`). The recipe's steps are made by `filling`:
every name that reaches argv comes from the snapshot, or (packages to install) passes a
strict package-name pattern, and a saved snapshot is untrusted input too, so snapshot
names are checked again there; each step's risk and rollback are decided there too.
Conditional requests are evaluated against the snapshot (`conditions`) and recorded as
preconditions that execution re-checks. After building, the steps a machine without
systemd cannot run are left out (`init_system`), the amendments of planning/amend.py
(cleanup measured, package blast radius, learned fixes) are made when the live machine
can be asked, and then the plan's words are rendered, once (`conversation.render`):
what a plan says is kept as data (`Plan.said`, `lead`, `shown`), never as finished text.
Not responsible for understanding words, running anything, or asking for approval.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.catalogue.schema import SLOT
from reos.catalogue.templates import Recipe, TemplateSet
from reos.model.plan import Plan, Traced, renumbered
from reos.model.request import Intent, Kind, Option
from reos.model.target import Target
from reos.planning import (
    conditions,
    filling,
    init_system,
    mail,
    named,
    places,
    selection,
    targeting,
)
from reos.system.snapshot import SystemSnapshot
from reos.understanding.matcher import ALL_KINDS, TargetMatcher
from reos.understanding.names import SAFE_NAMES
from reos.words import conversation, replies
from reos.words.conversation import Voice

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from reos.planning.amend import Machine

HELP = "Say \u201chelp\u201d for a tour of what I can do."


# qualifiers that pick one of several, never a state: said of one named thing, they
# describe it ("the old reporting db", "that runaway clamscan")
_DESCRIBING = frozenset({"unused", "busiest", "biggest", "paused"})


class PlanBuilder:
    def __init__(self, templates: TemplateSet, snapshot: SystemSnapshot, voice: Voice,
                 matcher: TargetMatcher | None = None, machine: Machine | None = None):
        self.templates = templates
        self.machine = machine  # the live machine, for amendments (None: a saved snapshot)
        self.assess = True  # assess the plan's quality ([reasoning] enabled)
        self.max_steps = 25  # the scope the quality assessment accepts ([limits])
        self.verify = True  # execution verifies each step ([safety] verify_each_step)
        # a question asked beside a change is answered once it has run (`Plan.then`);
        # False where the change runs elsewhere (another machine, through Ansible)
        self.answers_after = True
        # the manual pages this machine has on a request's words (the engine's; None: none)
        self.manual: Callable[[str], list[Any]] | None = None
        # why execution's pre-flight gate would refuse a plan, or None (the engine's)
        self.preflight: Callable[[Plan], str | None] | None = None
        self.snapshot = snapshot
        self.voice = voice
        self.manager = snapshot.host.get("package_manager")
        self.matcher = matcher or TargetMatcher(snapshot, templates.aliases)
        self.lacking: set[str] = set()  # values a recipe needed that the request lacked
        self.optional: set[str] = set()  # values some of its steps would have used
        self.protected: list[str] = []  # why targets were left out (init, root, …)

    def recipe(self, resource: str | None, action: str | None) -> Recipe | None:
        if not resource or not action:
            return None
        if resource == "firewall":  # recipes per firewall backend; ufw when none is known
            wall = self.snapshot.firewall or {}
            return self.templates.recipe(resource, action, wall.get("backend") or "ufw")
        if resource == "mail":  # recipes per mail system: Postfix's, or "not installed"
            return self.templates.recipe(resource, action, mail.system(self.snapshot))
        return self.templates.recipe(resource, action, self.manager)

    def build(self, request: str, intent: Intent | None, lead: list[str] | None = None,
              trace: list[Traced] | None = None) -> Plan:
        """The plan for `intent`, amended from the live machine when there is one, with its
        words rendered once; `lead` is said before it (e.g. why the model was not used),
        `trace` is how the request was understood so far."""
        plan = self._build(request, intent)
        init_system.without_systemd(plan, self.snapshot, self.voice)
        plan.trace = trace if trace is not None else plan.trace
        measured = None
        if self.machine is not None and plan.kind != Kind.META:
            from reos.planning import amend

            measured = amend.measure(plan, self.machine, self.manager, self.snapshot.is_root)
            if plan.steps and not plan.read_only:
                self.machine.simulate(plan)
                amend.learn(plan, self.machine, self.snapshot.is_root)
        plan.lead[:0] = [*(lead or []), *([measured] if measured else [])]
        return self.finish(plan)

    def finish(self, plan: Plan) -> Plan:
        """The last of building, for every plan however it was made (built here, or merged
        from a follow-up): what execution's pre-flight gate would refuse is said before
        approval, the quality is assessed, and the words are rendered once."""
        if self.preflight is not None and plan.steps and not plan.read_only and (
                not plan.blocked):
            refused = self.preflight(plan)
            if refused:
                plan.blocked, plan.blocked_reason = True, refused
        said = None
        intent = plan.intent
        if self.assess and plan.steps:
            from reos.catalogue.templates import origin_is_user
            from reos.planning import quality

            recipe = self.recipe(intent.resource, intent.action) if intent else None
            assessment = quality.assess(  # a user's template is judged as not reos's own
                plan, max_steps=self.max_steps, verify=self.verify,
                user_template=recipe is not None and bool(recipe.origin)
                and origin_is_user(recipe.origin))
            plan.quality = assessment.to_dict()
            plan.notes.extend(quality.named_anti_patterns(assessment))  # a model's or a
            # template's command that ignores errors, asks interactively, … is said as such
            said = quality.describe(assessment, brief=not self.voice.detailed)
        conversation.render(plan, self.voice, said)
        return plan

    def _build(self, request: str, intent: Intent | None) -> Plan:
        if intent is None or intent.kind == Kind.UNKNOWN:
            said = replies.not_understood(intent)
            model_said = intent.reading.said if intent is not None else None
            if model_said:  # the model's words: shown, never acted on
                said = f"{model_said}\n" + said.removeprefix("Sorry, I didn't understand that. ")
            elif intent is not None and self.manual is not None:
                pages = self.manual(request)  # the long tail: the machine's own manual
                if pages:
                    said = replies.no_recipe(pages, intent)
            return Plan(request, Kind.UNKNOWN, intent=intent,
                        source=intent.reading.source if intent else "none", said=[said])
        plan = Plan(request, intent.kind, source=intent.reading.source, intent=intent)
        plan.forced = intent.forced
        if intent.kind == Kind.REFUSE:
            plan.blocked = True
            plan.blocked_reason = intent.refusal
            plan.said = [f"I won't do that. {intent.refusal}"]
            return plan
        if intent.parts:
            return self._several(request, intent)
        qualifiers = self.templates.vocabulary.qualifiers
        if intent.kind != Kind.CLARIFY and intent.reading.unhonoured and all(
                any(w in qualifiers.get(q, ()) for q in _DESCRIBING)
                for w in intent.reading.unhonoured) and self._describes_one(intent):
            # "remove the old reporting db", "kill that runaway clamscan": one thing here
            # is called so; the word describes it, it cannot narrow anything
            plan.notes.append(replies.described(intent.reading.unhonoured))
            intent = replace(intent, reading=replace(intent.reading, unhonoured=[]))
            plan.intent = intent
        if intent.kind == Kind.CLARIFY or intent.reading.unhonoured:
            self._ask(plan, intent)
            return plan
        if intent.note:
            plan.notes.append(intent.note)
        if intent.operation == "command":  # a model's command: judged, never trusted
            from reos.planning.proposed import plan_command

            plan_command(plan, intent, self.snapshot.is_root, self.voice)
            return plan
        lost = places.lost_place(request, intent, self.templates) if (
            intent.kind != Kind.QUERY) else None
        if lost:  # "remove sudo from bob" with no bob here: never the change without him
            plan.kind = Kind.CLARIFY
            plan.said = [replies.place_not_found(lost)]
            return plan
        away = places.elsewhere(request, intent, self.templates, self.snapshot.host)
        if away:  # "restart nginx on web01": never here instead of there
            plan.kind = Kind.CLARIFY
            plan.said = [replies.machine_not_found(away, self.snapshot.host.get("hostname"))]
            return plan
        queue_id = intent.params.get("queue_id")
        if queue_id is not None:  # as the request wrote it: Postfix's ids are told by case
            spelled = mail.spelled(queue_id, request)
            if spelled is None:
                del intent.params["queue_id"]  # not in the request: asked for, never made up
            else:
                intent.params["queue_id"] = spelled
        if intent.kind == Kind.QUERY:
            self._query(plan, intent)
        else:
            self._action(plan, intent)
        read = (plan.intent or intent).reading  # targeting may have used a word of it
        if read.ignored:
            plan.notes.append(replies.ignored_shell(read.ignored))
        if read.unexplained:
            plan.notes.append(replies.unused_words(read.unexplained))
        if plan.steps and plan.read_only and plan.kind != Kind.CLARIFY:
            plan.lead = []  # what a query will look at is all it says
            looks = conversation.investigating(plan, self.voice)
            if read.ignored or read.unexplained:  # said on its last line
                looks += " " + _as_sentences(plan.notes)
            plan.said = [looks]
            plan.notes = []
        return plan

    def _several(self, request: str, intent: Intent) -> Plan:
        """A request that asks for several things: each part planned on its own. Several
        questions are answered in turn; actions are one plan to approve, in the order
        asked, and a question beside them waits until they are done. A part that asks
        back or cannot be planned is said instead of all of it: nothing is done by halves
        unasked."""
        plans = [self._build(request, part) for part in intent.parts]
        for plan in plans:
            if plan.blocked or plan.kind in (Kind.REFUSE, Kind.CLARIFY, Kind.UNKNOWN):
                if plan.kind == Kind.CLARIFY:
                    plan.lead.insert(0, replies.one_part_first(len(plans)))
                return plan
        merged = Plan(request, intent.kind, source=intent.reading.source, intent=intent,
                      forced=intent.forced)
        acting = [p for p in plans if p.kind in (Kind.ACTION, Kind.COMBINED)]
        if not acting:  # questions: each answered in turn
            merged.parts = plans
            merged.steps = renumbered([s for p in plans for s in p.steps])
            merged.targets = [t for p in plans for t in p.targets]
            merged.said = [conversation.investigating(merged, self.voice) if merged.steps
                           else "\n\n".join(p.text() for p in plans)]
            return merged
        merged.kind = Kind.ACTION
        merged.steps = renumbered([s for p in acting for s in p.steps], once=True)
        merged.targets = [t for p in acting for t in p.targets]
        merged.preconditions = [c for p in acting for c in p.preconditions]
        merged.notes = list(dict.fromkeys(n for p in acting for n in p.notes))
        # a part with nothing to do ("already running", "no containers match") is said
        # first, so that nobody approves the rest without reading it
        merged.lead = [said for said in (p.text() for p in acting if not p.steps) if said]
        merged.verb = acting[0].verb if len({p.verb for p in acting}) == 1 else None
        merged.confirm_reason = next((p.confirm_reason for p in acting if p.confirm_reason),
                                     None)
        # a question beside the change is answered once it has run, with what it finds
        # then; one that needs no reading of this machine waits to be asked again
        # (only one asked after the change: "check nginx and then restart it" waits)
        first = plans.index(acting[0])
        merged.then = [p for p in plans[first + 1:] if p not in acting and p.steps
                       and p.read_only and not p.blocked and not p.needs_approval] if (
            merged.steps and self.answers_after) else []
        after = [p.intent.summary or p.intent.operation or "" for p in merged.then
                 if p.intent is not None]
        if after:
            merged.notes.append(replies.question_after(after))
        waiting = [p.intent.summary or p.intent.operation or "" for p in plans
                   if p not in acting and p not in merged.then and p.intent is not None]
        if waiting:
            merged.notes.append(replies.question_waits(waiting))
        if not merged.steps:  # nothing to do for any part
            merged.said = [*merged.lead, *merged.notes]
            merged.lead, merged.notes = [], []
        return merged

    def _describes_one(self, intent: Intent) -> bool:
        """Whether each named phrase is one thing here, found without a question (so a
        state or a "which one" word said with it can only describe it)."""
        if not intent.targets or intent.exclude:
            return False
        kinds = [intent.resource] if intent.resource else [
            k for k in ALL_KINDS if self.recipe(k, intent.action)]
        kinds = [k for k in kinds if k != "package"]
        if not kinds:
            return False
        found = self.matcher.resolve(intent.targets, kinds, False)
        if found.question or found.missing or not found.targets:
            return False
        # the processes a program name finds are that one program ("libreoffice is frozen,
        # kill it": soffice.bin and its oosplash); "volkov's old jupyter container" is one
        # said in the plural ("the old ones"), more than one would be narrowed by the
        # word: asked, never described
        things = len([t for t in found.targets if t.kind != "process"])
        return things <= (1 if intent.plural else len(intent.targets))

    def _ask(self, plan: Plan, intent: Intent) -> None:
        """A question instead of a plan: close readings, words nothing explained, or a
        qualifier that cannot be applied (never a wider plan)."""
        plan.kind = Kind.CLARIFY
        unhonoured, asking = intent.reading.unhonoured, intent.asking
        if unhonoured and intent.params.get("clock"):
            question = replies.cannot_schedule(intent.params["clock"])
        elif unhonoured:
            question = replies.cannot_filter(unhonoured, intent.resource)
        elif asking is not None and asking.question and not asking.options and (
                intent.operation is None):
            question = asking.question  # nothing to offer: "one at a time, please"
        else:
            options = asking.options if asking is not None and asking.options else [
                Option(intent)]
            plan.options = [(replies.label(o), o.intent) for o in options]
            question = replies.which_reading(plan.options, intent.reading.unexplained,
                                             asking.question if asking else None)
        plan.ask(question)

    @staticmethod
    def _unknown(plan: Plan, said: str) -> None:
        plan.kind = Kind.UNKNOWN
        plan.said = [said]

    def _takes_target(self, intent: Intent) -> bool:
        recipe = self.recipe(intent.resource, intent.action)
        return recipe is not None and any(SLOT in a for s in recipe.steps for a in s.argv)

    def _targetless(self, plan: Plan, intent: Intent, not_known: str) -> Recipe | None:
        """Steps for a request that names no target ("how much memory", "upgrade everything")."""
        recipe = self.recipe(intent.resource, intent.action)
        if recipe is None:
            self._unknown(plan, f"{not_known} {HELP}")
            return None
        if recipe.unsupported:  # this machine's backend has no way to do it: said plainly
            plan.said = [recipe.unsupported]
            return recipe
        missing = named.missing_program(recipe.needs, self.snapshot, intent.summary)
        if missing:  # "renew the certificates" with no certbot here: said, never tried
            plan.said = [missing]
            return recipe
        self._fill(plan, recipe, [None])
        return recipe

    # -- queries -----------------------------------------------------------------------
    def _query(self, plan: Plan, intent: Intent) -> None:
        recipe: Recipe | None = None
        if not intent.targets and (intent.qualifiers or intent.plural) and self._takes_target(
                intent) and intent.resource != "package":
            targets = self._match(plan, intent)  # "the status of the failed services"
            recipe = self.recipe(intent.resource, intent.action)
            if targets and recipe:
                self._fill(plan, recipe, targets)
        elif not intent.targets and self._takes_target(intent):
            plan.kind = Kind.CLARIFY  # "show me the status": of which one is never guessed
            plan.ask(replies.which_targets(intent))
        elif not intent.targets:
            filters = [q for q in intent.qualifiers if q not in selection.WIDE]
            if filters:  # "which containers are stopped": the answer is filtered
                intent.params["filter"] = ",".join(filters)
            if "all" in intent.qualifiers:
                intent.params["all"] = "yes"
            recipe = self._targetless(plan, intent, "I don't know how to answer that yet.")
        elif intent.resource == "package":
            targets = named.package_names(plan, intent.targets, self.snapshot,
                                               self.templates.aliases.get("package", {}))
            recipe = self.recipe("package", intent.action)
            if targets and recipe:
                self._fill(plan, recipe, targets)
        else:
            targets = self._match(plan, intent)
            program = named.program(intent, targets, plan)
            if program:  # "is redis-server running": the snapshot lists ~100 processes,
                intent.params["program"] = program  # so the live table is asked
                plan.kind, plan.said, plan.question = Kind.QUERY, [], None
                recipe = self._targetless(plan, intent, "I can't look that up yet.")
            for kind in sorted({t.kind for t in targets}):
                recipe = self.recipe(kind, intent.action)
                if recipe is None:
                    self._unknown(plan, f"I can't check that for {conversation.PLURALS[kind]} yet.")
                    return
                self._fill(plan, recipe, [t for t in targets if t.kind == kind])
        if recipe is not None and plan.steps and not plan.read_only:
            self._finish(plan, recipe)  # a "question" that can change things is an action
        elif recipe is not None and not plan.steps and (
                self.lacking or self.optional) and not plan.said:
            self.lacking = self.lacking or self.optional  # "how big is it": which path
            plan.kind = Kind.CLARIFY  # "ping it": which host is asked, never guessed
            plan.ask(replies.which_value(sorted(self.lacking), recipe))

    # -- actions -----------------------------------------------------------------------
    def _joining(self, request: str, intent: Intent) -> Intent:
        """"add user bob to group docker" with bob already here: said with "add" or "put"
        (never "create", "new"…), a group and nothing else, of people's accounts that all
        exist (never a system account), it asks for them to join the group, never a
        no-op that drops the group."""
        group = intent.params.get("group")
        op = self.templates.operations.get(intent.operation or "")
        joins = self.templates.operations.get("user.add_to_group")
        if not group or set(intent.params) != {"group"} or op is None or not op.creates or (
                intent.resource != "user" or joins is None or not intent.targets):
            return intent
        words = set(re.findall(r"[a-z]+", request.lower()))
        if not words & {"add", "put"} or words & _CREATING or intent.reading.unexplained:
            return intent
        people = {u.name.lower() for u in self.snapshot.users or [] if not u.system}
        if not all(name.lower() in people for name in intent.targets):
            return intent
        return replace(intent, operation=joins.id, action=joins.action, summary=joins.summary,
                       note=joins.note, then=list(joins.then), value=joins.value)

    def _action(self, plan: Plan, intent: Intent) -> None:
        intent = self._joining(plan.request, intent)
        plan.intent = intent
        op = self.templates.operations.get(intent.operation or "")
        if intent.resource == "package" and intent.action == "install":
            targets, present = named.to_install(plan, intent.targets, self.snapshot,
                                                  self.templates.aliases.get("package", {}))
            recipe = self.recipe("package", "install")
        elif op is not None and op.creates and intent.resource and (
                intent.resource in SAFE_NAMES):
            present = []
            targets = named.to_create(plan, intent.resource, intent.targets, self.matcher)
            recipe = self.recipe(intent.resource, intent.action) if targets else None
            if not targets:
                group = intent.params.get("group")
                if group and plan.said and plan.said[0].startswith("There is already"):
                    plan.said.append(f"I didn't add it to {group} either: say \u201cadd "
                                     f"{intent.targets[0]} to the {group} group\u201d if "
                                     "you mean that.")
                return
        elif (not intent.targets and intent.resource == "process"
              and intent.params.get("port")):
            present = []
            # "kill whatever holds port 3000"
            targets = named.listener(plan, intent, self.snapshot, self.matcher)
            recipe = self.recipe("process", intent.action) if targets else None
            if not targets:
                return
        elif not intent.targets and intent.resource == "process" and (
                intent.params.get("owner")):
            present = []  # "lower the priority of rafael's process": the work he runs
            account = self.matcher.account(intent.params["owner"])
            targets = named.owners_work(plan, intent, account, self.snapshot,
                                        self.matcher) if account else []
            if not account:
                plan.said = [targeting.no_match([intent.params["owner"]], "user", ["user"],
                                                self.matcher, self.snapshot)]
            recipe = self.recipe("process", intent.action) if targets else None
            if not targets:
                return
        elif not intent.targets and self._takes_target(intent) and not (
                intent.qualifiers or intent.plural):
            plan.kind = Kind.CLARIFY  # "stop the container": which one is never guessed
            plan.ask(replies.which_targets(intent))
            return
        elif not intent.targets and not self._takes_target(intent) and not (
                intent.resource is None and (intent.qualifiers or intent.plural)):
            recipe = self._targetless(plan, intent, "Sorry, I didn't understand that.")
            if recipe is not None and (not plan.steps or not plan.read_only):
                self._finish(plan, recipe)  # no steps: a value to ask for, or nothing to do
            return
        else:
            present = []
            targets = self._match(plan, intent)
            if plan.said:  # a question or a plain answer
                return
            intent = plan.intent or intent  # "stop the http.server": a process, ended
            kinds = {t.kind for t in targets}
            recipe = self.recipe(kinds.pop(), intent.action) if len(kinds) == 1 else None
        if recipe is None:
            if not plan.said:
                self._unknown(plan, f"I don't know how to {intent.action} those yet. {HELP}")
            return
        if intent.condition and not conditions.holds(plan, intent, targets, self.matcher):
            return
        self._fill(plan, recipe, targets)
        for follow_up in intent.then:
            self._then(plan, follow_up, [t.name for t in targets] + present)
        self._finish(plan, recipe)

    def _finish(self, plan: Plan, recipe: Recipe) -> None:
        if recipe.resource == "firewall" and plan.steps:  # where a new rule takes effect
            from reos.planning import firewall_rules

            firewall_rules.adjust(plan, self.snapshot.firewall)
        if not plan.steps and self.protected and plan.kind != Kind.CLARIFY:
            plan.kind = Kind.REFUSE  # everything named is something reos never touches
            plan.blocked = True
            plan.blocked_reason = "; ".join(self.protected)
            plan.said = [f"I won't do that: {plan.blocked_reason}."]
            return
        if not plan.steps and not self.lacking and self.optional:
            self.lacking = self.optional  # "close that port": no step runs without one
        if not plan.steps and self.lacking:
            plan.kind = Kind.CLARIFY  # "add bob to a group": which group is asked
            plan.ask(replies.which_value(sorted(self.lacking), recipe))
            return
        if not plan.steps:
            said = _as_sentences(plan.notes, frozenset(t.name for t in plan.targets))
            plan.said = [" ".join([*plan.said, said]).strip() or "There's nothing to do."]
            plan.notes = []
            return
        plan.verb = recipe.verb
        if recipe.affects:
            plan.notes.append(f"What this affects: {recipe.affects}")
        plan.lead += plan.said  # said before the steps (a condition that was checked, …)
        plan.said = []

    def _match(self, plan: Plan, intent: Intent) -> list[Target]:
        return targeting.match(plan, intent, self.matcher, self.snapshot, self.recipe)

    def _then(self, plan: Plan, action: str, names: list[str]) -> None:
        """Follow-up steps on the services of the packages ("install and enable fail2ban")."""
        recipe = self.recipe("service", action)
        if recipe is None:
            return
        services = {s.name: s for s in self.snapshot.services or []}
        targets = []
        for name in names:
            unit = f"{name}.service"
            known = services.get(unit)
            targets.append(Target("service", unit, known.active if known else "inactive",
                                  known.enabled if known else "unknown"))
        first = len(plan.steps)
        self._fill(plan, recipe, targets, after=plan.steps[-1].id if plan.steps else None)
        for step in plan.steps[first:]:
            what = step.target.name if step.target else "it"
            step.why = f"you asked me to {recipe.verb or action} {what} too, once it is installed"

    def _fill(self, plan: Plan, recipe: Recipe, targets: list[Target] | list[None],
              after: str | None = None) -> None:
        """The recipe's steps for each target, on the plan (`filling.fill`); what they
        lacked or left out is kept here, for the question or refusal after."""
        filling.fill(plan, recipe, targets, self.snapshot, self.matcher,
                     manager=self.manager, lacking=self.lacking, optional=self.optional,
                     protected=self.protected, after=after)

# words that ask for a new account, which `_joining` never reads as joining a group
_CREATING = frozenset({"create", "creating", "new", "make", "useradd", "adduser", "setup",
                       "set", "open", "register", "fresh", "another", "system", "login",
                       "nologin", "shell", "home", "uid", "if", "unless", "exist", "exists"})

def _as_sentences(notes: list[str], names: frozenset[str] = frozenset()) -> str:
    """Notes said as sentences: a capital first (never on a name: "bob is already in the
    docker group", "ssh.service is already enabled"), one full stop last."""
    return " ".join((n if n.split(" ", 1)[0] in names else n[0].upper() + n[1:]).rstrip(".")
                    + "." for n in notes if n)
