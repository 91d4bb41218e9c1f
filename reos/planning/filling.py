"""Filling a recipe: the steps a catalogue recipe makes for each target of a plan, from the
Intent's values and the snapshot.

The request's values are first made the names this machine has for them ("the ssd": its
device, "dan": daniel's account, "the lan": this machine's network, a mount's name: its
place); an interface value that names none or several here makes the plan a plain answer
or a question instead. Then, for each target (its name checked again: a saved snapshot is
untrusted input too; what `guards` keep out left out, or the plan refused), each recipe
step that applies to it becomes a Step: values reach argv only through
understanding/slots.py, under sudo when reos is not root; its risk is the higher of its
recipe's and the safety assessment's, a recipe's "read only" is kept only when the
assessment verifies it, and its rollback comes from the target's state in the snapshot.
A step that lacks a value is left out and the value recorded, for the plan builder to ask.

Not responsible for which targets the words name (`targeting`, `named`), for which recipe
fits a request or what kind of plan it becomes (`planner`), or for running anything.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.catalogue.schema import SLOT
from reos.catalogue.templates import Recipe, RecipeStep
from reos.model.plan import Plan, Step, render
from reos.model.request import Intent, Kind
from reos.model.risk import RiskLevel
from reos.model.target import Target
from reos.planning import guards, targeting
from reos.safety.risk import assess_argv, formats_for
from reos.system.privilege import as_root
from reos.system.snapshot import SystemSnapshot
from reos.system.state import restore_argv
from reos.system.state_users import changed_group
from reos.understanding import slots
from reos.understanding.matcher import TargetMatcher
from reos.understanding.names import SAFE_NAMES
from reos.words import replies

if TYPE_CHECKING:
    from typing import Any

    from reos.safety.verdict import Verdict
    from reos.understanding.matcher import MatchResult


def fill(plan: Plan, recipe: Recipe, targets: list[Target] | list[None],
         snapshot: SystemSnapshot, matcher: TargetMatcher, *, manager: str | None,
         lacking: set[str], optional: set[str], protected: list[str],
         after: str | None = None) -> None:
    """The steps `recipe` makes for each of `targets` (None: a recipe about no target),
    put on `plan` after the step `after`; the values a step lacked are added to `lacking`,
    those some steps would have used to `optional`, and why a target was left out to
    `protected`, for the plan builder to ask or refuse."""
    if recipe.answer:
        plan.summariser = recipe.answer
    params = dict(plan.intent.params) if plan.intent else {}
    if not _names(plan, params, matcher, snapshot):
        return
    _places(params, recipe.action, matcher, snapshot)
    given = slots.values(params, recipe.defaults)
    for target in targets:
        if not _admitted(plan, recipe, target, snapshot, protected):
            continue
        previous: str | None = after
        for rs in recipe.steps:
            if not (_wanted(rs, target, given, optional) and _has_values(rs, given, lacking)
                    and _fits(plan, rs, target, given, snapshot)):
                continue
            step = _step(plan, recipe, rs, target, given, snapshot, manager, previous)
            plan.steps.append(step)
            previous = step.id


def _names(plan: Plan, params: dict[str, str], matcher: TargetMatcher,
           snapshot: SystemSnapshot) -> bool:
    """Which device, interface, account or group each value names (False: asked or said instead)."""
    # "the ssd", "the wired one", "dan" (Daniel's account): the name of what it names
    for kind in ("device", "interface", "user", "group"):
        if not params.get(kind):
            continue
        found, named = _called(kind, params[kind], matcher)
        if len(named) == 1 and not found.missing and (
                kind not in ("user", "group") or found.sure):
            params[kind] = named.pop()  # an account or group never by a guess
        elif kind == "interface" and matcher.known(kind) and plan.intent and (
                found.question or len(named) != 1):
            _no_one_interface(plan, plan.intent, params[kind], found, named, matcher,
                              snapshot)
            return False
    return True


def _called(kind: str, word: str, matcher: TargetMatcher) -> tuple[MatchResult, set[str]]:
    """The names here a value may stand for: a device's also by where it is mounted."""
    found = matcher.resolve([word], [kind], False)
    named = {t.name for t in found.targets}
    if not named and kind == "device":  # "the backup disk": what it is mounted from
        found = matcher.resolve([word], ["mount"], False)
        named = {(t.detail or "").split(",")[0].rsplit("/", 1)[-1]
                 for t in found.targets} - {""}
    return found, named


def _no_one_interface(plan: Plan, intent: Intent, word: str, found: MatchResult,
                      named: set[str], matcher: TargetMatcher,
                      snapshot: SystemSnapshot) -> None:
    """An interface value that names several here is asked about; one that names none is said."""
    # "the ip of the wifi" where there is none: said, never `dev wifi`;
    # "the ip of the vpn" with two: which one is asked
    if found.question or named:
        plan.kind = Kind.CLARIFY
        plan.options = [(f"the interface {t.name}", replace(
            intent, params={**intent.params, "interface": t.name}))
            for t in found.choices or found.targets]
        plan.ask(replies.which_target(word, plan.options))
    else:
        plan.said = [targeting.no_match([word], "interface", ["interface"], matcher,
                                        snapshot)]


def _places(params: dict[str, str], action: str, matcher: TargetMatcher,
            snapshot: SystemSnapshot) -> None:
    """A timer, "the lan" and a mount's name as what each is on this machine."""
    if params.get("timer"):  # "when does the backup run next": its timers
        params["timer"] = _timers(matcher, params["timer"])
    if params.get("host") == "lan":  # this machine's own network, when it has one
        params["host"] = _lan(snapshot) or "lan"  # unknown: asked, never widened
    if params.get("path") and not params["path"].startswith("/"):
        params["path"] = _mount_path(params["path"], action, matcher)


def _mount_path(word: str, action: str, matcher: TargetMatcher) -> str:
    """The place a mount's name stands for (its device, for a check); else the word as said."""
    found = matcher.resolve([word], ["mount"], False)
    if len(found.targets) == 1 and not found.missing:  # a mount's name: its place,
        mount = found.targets[0]  # or for a filesystem check, its device
        return (mount.detail or "").split(",")[0] if (
            action in _CHECKS_A_DEVICE) else mount.name
    return word


def _admitted(plan: Plan, recipe: Recipe, target: Target | None, snapshot: SystemSnapshot,
              protected: list[str]) -> bool:
    """Whether a target may have steps: a valid name, and nothing `guards` keeps out."""
    if target is not None and not SAFE_NAMES[target.kind].match(target.name):
        plan.notes.append(f"skipped {target.name!r}: not a valid {target.kind} name")
        return False
    guarded = None if target is None or recipe.steps[0].read_only else (
        guards.untouchable(target, recipe.action, snapshot))
    if guarded is not None:
        why, refuse = guarded
        if refuse:
            plan.kind = Kind.REFUSE
            plan.blocked, plan.blocked_reason = True, why
            plan.said = [f"I won't do that: {why}."]
        else:
            protected.append(why)
        return False
    return True


def _wanted(rs: RecipeStep, target: Target | None, given: dict[str, str],
            optional: set[str]) -> bool:
    """Whether the request asks for the step: a target for it, the values it is for given."""
    if target is None and any(SLOT in a for a in rs.argv):
        return False  # a step about one target, and none was named: never "{name}"
    if any(s not in given for s in rs.when_slot or ()) or any(
            s in given for s in rs.unless_slot or ()):
        if rs.when_slot and not rs.unless_slot:
            optional.update(set(rs.when_slot) - given.keys())
        return False
    return True


def _has_values(rs: RecipeStep, given: dict[str, str], lacking: set[str]) -> bool:
    """Whether the request gives every value the step needs (a lacking one is to be asked)."""
    missing = slots.needs(rs.argv) - given.keys()
    if "port" in missing:
        missing.discard("proto")  # comes with the port (TCP unless said)
    if missing:  # it applies as asked, and lacks a value (or was given one
        lacking.update(missing)  # in a form never passed on): asked, never guessed
        return False
    return True


def _fits(plan: Plan, rs: RecipeStep, target: Target | None, given: dict[str, str],
          snapshot: SystemSnapshot) -> bool:
    """Whether the target's state and groups call for the step (if not, its skip note is said)."""
    if target is not None and not (_applies(rs, target) and _member_applies(
            rs, target, given, snapshot)):
        if rs.skip_note:
            plan.notes.append(slots.fill(rs.skip_note.replace(SLOT, target.name), given))
        return False
    return True


def _step(plan: Plan, recipe: Recipe, rs: RecipeStep, target: Target | None,
          given: dict[str, str], snapshot: SystemSnapshot, manager: str | None,
          previous: str | None) -> Step:
    """The Step a recipe step makes for the target; one the risk engine blocks blocks the plan."""
    root = snapshot.is_root
    argv, needs_root = _argv(rs, target, given, root)
    verdict = assess_argv(argv, requested=plan.request,
                          formats=formats_for(recipe.action, target))
    title = _title(rs, target, given)
    read_only = _reads_only(plan, rs, verdict, title, argv)
    tracked = _tracked(recipe, target, argv, read_only)
    step = Step(
        id=f"s{len(plan.steps) + 1}",
        title=title,
        argv=argv,
        read_only=read_only,
        needs_root=needs_root,
        risk=_risk(rs, verdict, read_only),
        reversible=rs.reversible and verdict.reversible,
        depends_on=[previous] if previous else [],
        target=tracked,
        action=recipe.action,
        risk_reasons=verdict.reasons,
    )
    _undo(step, recipe, tracked, argv, needs_root, snapshot, manager)
    if verdict.blocked:
        plan.blocked = True
        plan.blocked_reason = "; ".join(verdict.reasons)
    return step


def _argv(rs: RecipeStep, target: Target | None, given: dict[str, str],
          root: bool) -> tuple[list[str], bool]:
    """The step's argv with the target and values in their slots, and whether it needs sudo."""
    argv = [slots.fill(a.replace(SLOT, target.name) if target else a, given)
            for a in rs.argv]
    needs_root = rs.needs_root and not root
    if needs_root:
        argv = as_root(argv, root)
    return argv, needs_root


def _title(rs: RecipeStep, target: Target | None, given: dict[str, str]) -> str:
    """What the step is called: the recipe's title filled, with which process exactly."""
    title = slots.fill(rs.title.replace(SLOT, target.name) if target else rs.title, given)
    if target is not None and target.detail:  # which process, exactly
        title += f" \u2014 {target.detail[:100]}"
    return title


def _reads_only(plan: Plan, rs: RecipeStep, verdict: Verdict, title: str,
                argv: list[str]) -> bool:
    """Whether the step only reads: the recipe's word, kept only if the risk engine verifies it."""
    # a recipe's word that a step only reads is checked, never taken on trust:
    # a step the risk engine cannot verify as read-only is shown and approved
    read_only = rs.read_only and verdict.read_only
    if rs.read_only and not read_only:
        plan.notes.append(f"\u201c{title}\u201d is said to only read, but "
                          f"`{render(argv)}` is not shown to only read ("
                          f"{verdict.why_not_read_only or 'not on the list'}"
                          "), so I'll ask first")
    return read_only


def _tracked(recipe: Recipe, target: Target | None, argv: list[str],
             read_only: bool) -> Target | None:
    """What the step changes, for undo: its target, or the setting or rule its recipe tracks."""
    if target is None and recipe.tracks and not read_only:
        return Target(recipe.tracks, _tracked_name(recipe.tracks, argv), "")
    return target


def _risk(rs: RecipeStep, verdict: Verdict, read_only: bool) -> RiskLevel:
    """The step's risk: the highest of the recipe's, the risk engine's, and low for a change."""
    return max(RiskLevel.parse(rs.risk), verdict.risk,
               RiskLevel.SAFE if read_only else RiskLevel.LOW)


def _undo(step: Step, recipe: Recipe, tracked: Target | None, argv: list[str],
          needs_root: bool, snapshot: SystemSnapshot, manager: str | None) -> None:
    """How the step is undone: its target put back as the snapshot says it was, if it can be."""
    if step.reversible and tracked is not None and not step.read_only:
        root = snapshot.is_root
        step.rollback = restore_argv(tracked.kind, tracked.name,
                                     _prior(tracked, snapshot, argv), recipe.action, manager)
        if step.rollback and needs_root:
            step.rollback = as_root(step.rollback, root)
    if step.nothing_to_restore:  # a restart of what runs (model.RESTARTS)
        step.reversible = False


# operations whose `path` is the filesystem's device ("check the backup drive": /dev/sdb1)
_CHECKS_A_DEVICE = {"check"}


def _timers(matcher: TargetMatcher, word: str) -> str:
    """The timer a word names, or the pattern systemctl finds each of several by
    ("backup" of restic-backup.timer and db-backup.timer: *backup*); the word as it was
    when it names none (then the slot's check leaves it out, and every timer is listed)."""
    found = matcher.resolve([word], ["timer"], True)
    names = sorted({t.name for t in found.targets})
    if len(names) == 1 and not found.missing:
        return names[0]
    return f"*{word}*" if names and re.fullmatch(r"[a-z0-9-]{2,64}", word) and all(
        word in n.lower() for n in names) else word  # a typo's pattern would match none


def _lan(snapshot: SystemSnapshot) -> str | None:
    """The private IPv4 network this machine is on ("the lan", "my home network"), when it
    is on exactly one: 192.168.1.0/24 of a wifi or wired link's 192.168.1.47/24. Only wired
    and wifi links count: containers', VPNs' and bridges' networks are not the lan."""
    import ipaddress

    found = set()
    for link in getattr(snapshot, "interfaces", None) or []:
        wired_or_wifi = link.kind in ("ethernet", "wifi") or (
            not link.kind and link.name.startswith(("en", "eth", "wl")))
        if link.state != "up" or not wired_or_wifi:
            continue
        for address in link.addresses:
            try:
                network = ipaddress.ip_interface(address).network
            except ValueError:
                continue
            if network.version == 4 and network.is_private and 8 <= network.prefixlen < 32:
                found.add(str(network))
    return found.pop() if len(found) == 1 else None


def _applies(rs: object, target: Target) -> bool:
    """Whether the target's state and boot setting are ones the step is for."""
    when_state = getattr(rs, "when_state", None)
    when_enabled = getattr(rs, "when_enabled", None)
    if when_state is not None and target.state not in when_state:
        return False
    if when_enabled is not None and (target.enabled or "") not in when_enabled:
        return False
    return True


def _member_applies(rs: Any, target: Target, given: dict[str, str],
                    snapshot: SystemSnapshot) -> bool:
    """A step `when_member` / `unless_member` a group, for an account the snapshot lists:
    whether it applies (an account the snapshot does not know keeps the step)."""
    group = rs.when_member or rs.unless_member
    if not group or target.kind != "user":
        return True
    account = next((u for u in snapshot.users or [] if u.name == target.name), None)
    if account is None:
        return True
    named = slots.fill(group, given)
    if rs.when_member:  # taken out of a group: only a supplementary one can be
        return named in account.groups[1:]
    return named not in account.groups  # added: the primary group counts as in


def _tracked_name(tracks: str, argv: list[str]) -> str:
    """What a tracked change is called for its state: a setting by its own name; a
    firewall rule by the rule ("allow 8080/tcp"), so undo knows which one to take out."""
    if tracks != "firewall":
        return tracks
    from reos.system.state_net import rule_name

    return rule_name(argv)


def _prior(target: Target, snapshot: SystemSnapshot, argv: list[str]) -> dict[str, Any]:
    """The target's state before the step, as far as the snapshot knows it: what undo
    would put back (the executor records it again from the live machine when it runs)."""
    if target.kind == "user":
        account = next((u for u in snapshot.users or [] if u.name == target.name), None)
        if account is not None:  # its groups, primary first; the group the step changes
            return {"state": target.state, "groups": list(account.groups[1:]),
                    "shell": account.shell, "gecos": account.gecos,
                    "changed_group": changed_group(argv)}
    if target.kind == "service":
        return {"active": target.state, "enabled": target.enabled}
    if target.kind == "package":
        return {"state": target.state, "version": target.version}
    return {"state": target.state}
