"""Which real resources a request's words name, for the plan builder.

`match` resolves an Intent's target words against the snapshot (through the matcher),
for the kinds whose recipes can do the action: qualifiers and exclusions narrow what was
found (`selection`), never widen it; "the usb stick", "the biggest process" pick one;
a name fitting several things, or only loosely one of those never guessed at (packages,
users, disks…), turns the plan into a question; "every process", or a device to erase
that is not exactly here, into a refusal; nothing called that into a plain answer
(`no_match`).

Not responsible for building steps (the plan builder does) or for reading the words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.model.plan import Plan
from reos.model.request import Intent, Kind
from reos.model.target import Target
from reos.patterns import regex
from reos.planning import guards, named, selection
from reos.system.snapshot import SystemSnapshot
from reos.text import clean
from reos.understanding.matcher import (
    ALL_KINDS,
    EXACT_ONLY,
    KINDS,
    SURE,
    MatchResult,
    TargetMatcher,
    section,
)
from reos.understanding.names import SAFE_NAMES
from reos.words import conversation, replies

if TYPE_CHECKING:
    from typing import Any

SELECTABLE = {"container", "service"}  # the kinds "all" or a state may select
# words that stand for something said before; a request that names only these says nothing
_PRONOUNS = frozenset({"him", "her", "them", "he", "she", "they", "his", "hers", "theirs",
                       "it", "this", "that", "these", "those"})


MAX_EACH = 6  # a question about more things than this fit asks which one instead


def match(plan: Plan, intent: Intent, matcher: TargetMatcher, snapshot: SystemSnapshot,
          recipe: Callable[[str | None, str | None], Any]) -> list[Target]:
    """The real resources a request's words name, narrowed by its qualifiers and
    exclusions; [] with the plan turned into a question, a refusal or a plain answer
    when they name none, several, or too many."""
    if intent.targets and all(t in _PRONOUNS for t in intent.targets):
        plan.kind = Kind.CLARIFY  # "add him to the group": who, is never guessed
        plan.ask(replies.which_targets(intent))
        return []
    kinds = [intent.resource] if intent.resource in ALL_KINDS else [
        k for k in KINDS if recipe(k, intent.action)]
    if intent.resource is None:
        kinds = [k for k in kinds if k != "package"]  # packages only by exact name, below
    if not intent.targets and kinds == ["process"] and intent.params.get("port"):
        return named.listener(plan, intent, snapshot, matcher)
    picked = [q for q in intent.qualifiers if q not in selection.WIDE]
    if not intent.targets and not intent.plural and picked and all(
            set(kinds) <= selection.IDENTIFYING.get(q, set()) for q in picked):
        every = [t for k in kinds if (i := matcher.index(k)) for t in i.targets]
        top = selection.superlative(every, picked, snapshot)
        if top is not None:  # "the biggest process": the one the snapshot measured
            plan.targets = top
            if top:
                plan.notes.append(selection.why_this_one(top[0], picked, snapshot))
            return top
        return selection.one_of(plan, intent, selection.partitions_first(every),
                                matcher)  # "the usb stick"
    if not intent.targets and (intent.qualifiers or intent.plural) and not (
            set(kinds) <= SELECTABLE):
        # "kill all processes", "delete the users": never every one of those
        things = " or ".join(conversation.PLURALS.get(k, k) for k in kinds)
        plan.kind = Kind.REFUSE  # as asked, never done; naming them is another request
        plan.said = [
            f"I won't {_verb(intent)} every one of the {things}. Name the ones you mean."]
        return []
    if not intent.targets and (intent.qualifiers or intent.plural):
        if intent.resource is None and len(kinds) > 1 and intent.exclude:
            # "stop everything but portainer": the rest of what portainer is
            spared = {t.kind for t in matcher.resolve(intent.exclude, kinds,
                                                          True).targets}
            if len(spared) == 1:
                kind = spared.pop()
                intent = replace(intent, resource=kind)
                kinds = [kind]
                plan.intent = intent
        if intent.resource is None and len(kinds) > 1:
            # "restart everything": every container, or every service? never both
            plan.kind = Kind.CLARIFY
            plan.options = [(f"{intent.action} {conversation.PLURALS[k]}",
                             replace(intent, resource=k)) for k in kinds]
            plan.ask(replies.which_reading(plan.options, []))
            return []
        # "the stopped containers", "all services": every one of the kind, narrowed below
        every = [t for k in kinds if (i := matcher.index(k)) for t in i.targets]
        if intent.plural:
            return selection.select(plan, intent, every, matcher)
        return selection.one_of(plan, intent, every, matcher)
    result = matcher.resolve(intent.targets, kinds, intent.plural)
    if intent.params.get("owner") and "process" in kinds:
        result = _owned(intent.params["owner"], intent.targets, kinds, intent.plural,
                        matcher, snapshot)
    if result.question and intent.kind == Kind.QUERY and not intent.plural:
        # a question costs nothing to answer for each: "is the mail server running?"
        # looks at postfix and dovecot both rather than asking which
        each = matcher.resolve(intent.targets, kinds, True)
        if each.question and len(intent.targets) == 1 and 1 < len(each.choices) <= MAX_EACH:
            # "is redis running?": the redis container and the redis service both fit;
            # each is looked at with its own kind's steps
            each = MatchResult(targets=list(each.choices), phrase=each.phrase,
                               strategies={t.name: "each" for t in each.choices})
        if not each.question and not each.missing and 1 < len(each.targets) <= MAX_EACH:
            plan.notes.append(f"\u201c{result.phrase}\u201d fits "
                              f"{conversation.join_names([t.name for t in each.targets])}"
                              ": I look at each.")
            result = each
    if guards.destroys(intent.action) and set(kinds) <= {"device", "mount"} and (
            result.missing or result.question or any(
                result.strategies.get(t.name) not in ("exact name", "alias")
                for t in result.targets)):
        plan.kind = Kind.REFUSE  # "format /dev/sda" where there is none: never a guess
        plan.said = [guards.not_exactly(intent, matcher, snapshot)]
        return []
    if intent.resource is None and result.missing and recipe("package", intent.action):
        # "remove htop": not a container or service; maybe an installed package
        packages = matcher.resolve(result.missing, ["package"], intent.plural)
        if not packages.missing and not packages.question and all(
                packages.strategies.get(t.name) in ("exact name", "alias")
                for t in packages.targets):
            result.targets += packages.targets
            result.strategies.update(packages.strategies)
            result.missing = []
    if intent.resource is None and len(intent.targets) == 1 and not intent.plural and (
            intent.action in ("remove", "purge")) and recipe("package", intent.action) and (
            len(result.targets) == 1 and not result.question and not result.missing):
        # "remove jellyfin" where jellyfin is a container and an installed package too:
        # which one is asked, never the container taken for it
        packages = matcher.resolve(intent.targets, ["package"], False)
        if packages.targets and packages.strategies.get(packages.targets[0].name) == (
                "exact name") and result.strategies.get(result.targets[0].name) == "exact name":
            result = MatchResult(question="x", choices=[*result.targets, packages.targets[0]],
                                 phrase=intent.targets[0])
    if intent.resource is None and intent.action == "stop" and result.missing and not (
            result.targets or result.question):
        # "stop the http.server yuna left up": no container or service, but a program
        # running here; a process is stopped by asking it to end (SIGTERM)
        running = matcher.resolve(result.missing, ["process"], intent.plural)
        if running.targets and not running.missing and not running.question and all(
                how in SURE for how in running.strategies.values()):
            intent = replace(intent, action="terminate", resource="process",
                             operation="process.terminate",
                             reading=replace(intent.reading, template="process.terminate"))
            plan.intent, result = intent, running
            plan.notes.append("no container or service is called that: the program "
                              "running here is asked to end (SIGTERM)")
    said = _said_of_one(result.choices, intent.reading.unexplained, plan.request,
                        intent.targets) if result.question and not intent.plural else None
    if said is not None:  # "restart the UPS monitoring service": nut-monitor, of the ups
        word, one = said
        result = MatchResult(targets=[one], strategies={one.name: "words together"})
        intent = replace(intent, reading=replace(intent.reading, unexplained=[
            w for w in intent.reading.unexplained if w != word]))
        plan.intent = intent
        plan.notes.append(f"\u201c{word}\u201d says which: {one.name}")
    if result.question:
        plan.kind = Kind.CLARIFY
        plan.options = [(f"the {t.kind} {t.name}", replace(
            intent, targets=[t.name.lower()], resource=t.kind, plural=False))
            for t in result.choices]
        plan.ask(replies.which_target(result.phrase or "that", plan.options))
        return []
    if result.missing and intent.kind in (Kind.ACTION, Kind.COMBINED) and "user" in kinds and (
            len(intent.targets) == 1):
        people = people_named(intent.targets[0], getattr(snapshot, "users", None) or [])
        if people:  # "delete the user Müller": the person's account, asked, never guessed
            full = {u.name: _full_name(u)
                    for u in getattr(snapshot, "users", None) or []}
            plan.kind = Kind.CLARIFY
            plan.options = [(f"the account {name}" + (f" ({full[name]})" if full.get(name)
                                                      else ""),
                             replace(intent, targets=[name], resource="user", plural=False))
                            for name in people]
            plan.ask(replies.which_target(intent.targets[0], plan.options))
            return []
    if result.missing:
        if intent.resource is None and recipe("package", intent.action):
            kinds = [*kinds, "package"]  # it was looked for among installed packages too
        plan.said = [no_match(result.missing, intent.resource, kinds, matcher, snapshot)]
        return []
    if EXACT_ONLY & {t.kind for t in result.targets}:
        loose = [t.name for t in result.targets if t.kind in EXACT_ONLY
                 and result.strategies.get(t.name) not in SURE]
        if loose:  # never remove a package we only guessed at
            plan.kind = Kind.CLARIFY
            plan.ask(f"I couldn't find one called exactly that. Did you mean "
                     f"{conversation.join_names(loose)}?")
            kinds_of = {t.name: t.kind for t in result.targets}
            plan.options = [(f"the {kinds_of[name]} {name}", replace(
                intent, targets=[name], resource=kinds_of[name], plural=False))
                for name in loose]
            return []
    if _several_peoples(plan, intent, result, matcher, snapshot) or _namesakes(
            plan, intent, result, snapshot):
        return []
    return selection.select(plan, intent, result.targets, matcher)


def _several_peoples(plan: Plan, intent: Intent, result: MatchResult, matcher: TargetMatcher,
                     snapshot: SystemSnapshot) -> bool:
    """"kill train.py" where Chen and Priya each run one: one program was asked for, and
    which person's is asked, never both people's work stopped. Asked for each name of a
    list ("kill train.py and du"), unless all were asked for ("all python processes").
    The same when one thing is acted on ("kill the java") and the name finds one program
    started apart several times (four game servers, each its own JVM; a browser's
    children are its family, a zombie no one's program, libreoffice's two programs one
    application). True when the plan asks."""
    if intent.params.get("owner") or not result.targets or any(
            t.kind != "process" for t in result.targets):
        return False
    if intent.plural and (len(intent.targets) < 2 or "all" in intent.qualifiers):
        return False  # "kill all python processes": every one, as asked
    people = {u.name for u in getattr(snapshot, "users", None) or [] if not u.system}
    processes = {str(p.pid): p for p in getattr(snapshot, "processes", None) or []}
    for phrase in intent.targets:
        found = [processes[t.name] for t in matcher.resolve([phrase], ["process"], True).targets
                 if t.name in processes and t in result.targets]
        live = [p for p in found if p.user in people and not named.session(p)]
        if len({p.user for p in live}) >= 2:
            groups = named.programs(live)
        elif intent.kind in (Kind.ACTION, Kind.COMBINED) and not intent.plural and _twins(
                groups := _families([p for p in found if not named.session(p)], snapshot)):
            pass
        else:
            continue
        plan.kind = Kind.CLARIFY
        plan.options = []
        for p, workers in groups.items():  # a program and its workers
            pids = [str(x.pid) for x in workers]  # are one choice
            rest = [t for t in intent.targets if t != phrase]  # "… and du" stays asked
            plan.options.append((
                f"{p.user}'s {clean(p.cmdline or p.name)[:80]} (process {p.pid})",
                replace(intent, targets=[*pids, *rest], resource="process",
                        plural=len(pids) + len(rest) > 1)))
        plan.ask(replies.which_target(phrase, plan.options))
        return True
    return False


def _namesakes(plan: Plan, intent: Intent, result: MatchResult,
               snapshot: SystemSnapshot) -> bool:
    """"lock daniel out" where daniel is Daniel Okafor and dlindqvist Daniel Lindqvist: a
    first name said for a change to an account is asked about when another person has
    it too, even when it is one account's login. True when the plan asks."""
    if intent.kind not in (Kind.ACTION, Kind.COMBINED):
        return False
    users = getattr(snapshot, "users", None) or []
    logins = {u.name for u in users}
    for phrase in intent.targets:
        said = phrase.strip().lower()
        if said in logins and re.search(
                rf"\b(?:user|account|login|username)\s+{re.escape(said)}\b",
                plan.request.lower()):
            continue  # "lock user ewan": the login, said as one
        found = [t for t in result.targets if t.kind == "user"]
        login = next((t for t in found if t.name == said), None) or (
            found[0] if len(found) == 1 and len(result.targets) == 1 else None)
        others = [name for name in people_named(said, users)
                  if login is None or name != login.name]
        if login is None or not others:
            continue
        full = {u.name: _full_name(u) for u in users}
        plan.kind = Kind.CLARIFY
        plan.options = [(f"the account {name}" + (f" ({full[name]})" if full.get(name) else ""),
                         replace(intent, targets=[name if t == phrase else t
                                                  for t in intent.targets],
                                 resource="user", plural=False))
                        for name in [login.name, *others]]
        plan.ask(replies.which_target(phrase, plan.options))
        return True
    return False


def people_named(said: str, users: list[Any]) -> list[str]:
    """The accounts whose person has `said` as a first or a last name (the full name their
    account gives, before any remark in brackets), spelled as people write it without the
    letters of another language: Müller, Mueller and Muller alike."""
    want = _folded(said)
    found = []
    for user in users:
        words = _full_name(user).split()
        if want and words and want in {_folded(words[0]), _folded(words[-1])}:
            found.append(user.name)
    return found


def _full_name(user: Any) -> str:
    """The person's name an account gives ("Jana Mueller" of "Jana Mueller (German),,,")."""
    return clean((user.gecos or "").split(",")[0].split("(")[0]).strip()[:60]


_FOLDS = (("ü", "u"), ("ö", "o"), ("ä", "a"), ("ß", "ss"), ("ue", "u"), ("oe", "o"),
          ("ae", "a"), ("é", "e"), ("è", "e"), ("á", "a"), ("í", "i"), ("ó", "o"), ("ñ", "n"))


def _folded(word: str) -> str:
    word = word.lower().strip(".'’")
    for letter, plain in _FOLDS:
        word = word.replace(letter, plain)
    return word


def _twins(families: dict[Any, list[Any]]) -> bool:
    """Whether two of the families are the same program started apart (four JVMs), not
    the parts of one application (libreoffice's oosplash and soffice.bin)."""
    names = [root.name for root in families]
    return len(names) != len(set(names))


def _families(found: list[Any], snapshot: SystemSnapshot) -> dict[Any, list[Any]]:
    """The processes found, each under the eldest of its ancestors that was found too
    (each parent is climbed once; a hostile snapshot's parent loop ends the climb)."""
    parent = {p.pid: p.ppid for p in getattr(snapshot, "processes", None) or []}
    chosen = {p.pid: p for p in found}
    eldest: dict[Any, Any] = {}  # pid -> the eldest process found at or above it, or None
    for p in found:
        path, at, seen = [], p.pid, set()
        while at is not None and at not in eldest and at not in seen:
            seen.add(at)
            path.append(at)
            at = parent.get(at)
        above = eldest.get(at) if at is not None and at not in seen else None
        for pid in reversed(path):  # from the top down: the first found is the eldest
            above = above if above is not None else chosen.get(pid)
            eldest[pid] = above
    families: dict[Any, list[Any]] = {}
    for p in found:
        families.setdefault(eldest.get(p.pid) or p, []).append(p)
    return families


def _said_of_one(choices: list[Target], words: list[str], request: str,
                 names: list[str]) -> tuple[str, Target] | None:
    """The one of several things a name fits that a word the reading left over names by a
    part of its own name ("monitoring" of nut-monitor, among nut-server, nut-driver…),
    with that word, when it is said right beside the name (within two words, no comma
    between) and nothing before it denies it ("not the monitoring one"); None when no
    word, or more than one thing, fits so."""
    said = _WORDS.findall(request.lower())
    where = {w for name in names for w in name.lower().split()}
    found: list[tuple[str, Target]] = []
    for word in words:
        if len(word) < 4 or not word.isalpha() or word in _NOT_WHICH or word not in said:
            continue
        k = said.index(word)
        near = said[max(0, k - 2):k + 3]
        if not where & set(near) or _DENYING & set(said[max(0, k - 3):k]):
            continue
        stems = {word, *(word[:-len(end)] for end in ("ing", "ed", "er", "s")
                         if word.endswith(end) and len(word) - len(end) >= 4)}
        fit = [t for t in choices if stems & {p for p in re.split(r"[-_.@:/]+", t.name.lower())
                                               if len(p) >= 4}]
        if len(fit) == 1:
            found.append((word, fit[0]))
    return found[0] if len({t.name for _, t in found}) == 1 else None


_WORDS = regex(r"[a-z0-9@._-]+|[,;.!?]")
_DENYING = frozenset({"not", "never", "no", "except", "but", "without", "nor", ",", ";"})
# words said of a thing's kind or state, never which of several it is
_NOT_WHICH = frozenset({"service", "services", "container", "containers", "server",
                        "daemon", "process", "unit", "units", "running", "stopped",
                        "failed", "please", "again", "now", "thing", "stuff"})


def _owned(owner: str, phrases: list[str], kinds: list[str], plural: bool,
           matcher: TargetMatcher, snapshot: SystemSnapshot) -> MatchResult:
    """The processes each phrase finds that run as the account `owner` names ("dan's
    tracker": Daniel's, not Margaret's). The account is found as it is said, never by a
    guess; a phrase none of whose processes are that account's is not found, never
    someone else's, and never dropped in silence."""
    account_name = matcher.account(owner)
    if account_name is None:
        return MatchResult(missing=[f"{owner}'s {p}" for p in phrases])
    runs_as = {str(p.pid): p.user for p in getattr(snapshot, "processes", None) or []}
    out = MatchResult()
    for phrase in phrases:
        found = matcher.resolve([phrase], kinds, plural)
        mine = [t for t in (found.choices if found.question else found.targets)
                if t.kind != "process" or runs_as.get(t.name) == account_name]
        if found.missing or not mine:
            out.missing.append(f"{owner}'s {phrase}")
            continue
        if len(mine) > 1 and found.question:
            out.question, out.choices, out.phrase = found.question, mine, found.phrase
            return out
        for t in mine:
            out.strategies.setdefault(t.name, found.strategies.get(t.name, "owner"))
            if t not in out.targets:
                out.targets.append(t)
    return out


def no_match(phrases: list[str], resource: str | None, kinds: list[str],
             matcher: TargetMatcher, snapshot: SystemSnapshot) -> str:
    """What to say when nothing here is called what the request named."""
    if resource == "package" or (resource is None and "package" in kinds and all(
            SAFE_NAMES["package"].match(p) for p in phrases)):
        text = conversation.not_installed(phrases)
        others = [conversation.PLURALS[k] for k in kinds if k != "package"]
        if others:  # looked for among the others too
            text = text.rstrip(".") + f" (and no {' or '.join(others)} are called that)."
        return text
    unknown = [k for k in kinds if not matcher.known(k)]
    if kinds == ["container"] or (resource is None and kinds and kinds[0] == "container"
                                  and len(kinds) == 1):
        containers = snapshot.containers
        running = [c.name for c in containers or [] if c.running]
        text = conversation.no_match(phrases, "container", running, containers is not None)
    else:
        text = conversation.no_match(phrases, resource, None, True, kinds)
    if unknown:
        reasons = "; ".join(snapshot.unavailable.get(
            section(k), f"{conversation.PLURALS.get(k, k)} unknown")
                            for k in unknown)
        text += f" ({reasons})"
    return text


def _verb(intent: Intent) -> str:
    """What the request asks done, said as a verb ("kill", "lock"); an operation whose
    name is no verb on its own ("set_shell") is said by its summary."""
    action = intent.action or ""
    if action and "_" not in action:
        return action
    return f"{intent.summary} for" if intent.summary else "act on"
