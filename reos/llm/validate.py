"""Believing nothing a model says: its answer, checked, becomes an Intent or a list of errors.

`first_object()` finds the first JSON object in the reply even when the model wrapped it
in prose or code fences. `check()` then checks the shape (types, sizes, known keys) and
the meaning against the catalogue and this machine:
- the operation exists and is not a meta operation; a request put as a question, or an
  answer of kind "query", never carries an operation that changes anything;
- every target resolves in the snapshot through the same matcher the parser uses (a
  name that does not exist is never used); when the request names anything this machine
  has, every target has to do with the request's words or the last turns (a model cannot
  add nginx to "stop nextcloud"), while "restart the web server" may become nginx;
- slots are the operation's own and pass the plan builder's checks (understanding/slots.py);
- qualifiers are the operation's own; every qualifier and exclusion the request said is
  kept, and "all" is never added when the request did not say it (narrow, never widen);
- a condition names something that exists; choices are checked like answers;
- a "command" is an argv of plain words: no shell operators, no sudo (reos adds it).
  Whether it only reads is decided later by the risk engine, never by the model.

The errors are sentences the model can act on (they go into the repair call). Text the
model wrote (thought, reply, question, consequences) is cleaned and bounded and is only
ever shown. Pure: imports no model client.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.catalogue.templates import TemplateSet
from reos.llm import schema as shape
from reos.llm.prompt import closeness, words_of
from reos.model.request import Asking, Intent, Kind, Option, Understood
from reos.patterns import regex
from reos.safety.risk import assess_argv
from reos.text import clean
from reos.understanding import slots as slot_checks

if TYPE_CHECKING:
    from typing import Any

MAX_SCAN = 64_000
SHELL_WORDS = {"|", "||", "&&", ";", ">", ">>", "<", "<<", "&", "2>", "2>&1", "&>", "|&"}
_SHELL_TEXT = regex(r"\$\(|`|\$\{|\n")
# programs that would run the model's text as code, or run another program it names
SHELLS = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
          "ash", "rbash", "eval", "exec", "source"}
WRAPPERS = {"env", "nice", "ionice", "timeout", "xargs", "nohup", "setsid", "stdbuf",
            "chroot", "unshare", "nsenter", "flock", "watch", "script", "time", "chrt",
            "taskset", "systemd-run", "at", "batch", "parallel"}
_INTERPRETER = regex(r"^(?:python[0-9.]*|perl[0-9.]*|ruby|node|nodejs|php[0-9.]*|lua"
                          r"[0-9.]*|tclsh|Rscript)$")
_INLINE_CODE = {"-c", "-e", "-E", "--eval", "-r", "--command", "-m"}
_TOKEN = regex(r"[a-z0-9][a-z0-9+._-]*")
_NEW_NAME = regex(r"[A-Za-z0-9][A-Za-z0-9+._-]{0,99}")  # a package or user to create
ALL_WORDS = {"all", "every", "everything", "*", "any"}
_KNOWN_KEYS = {"thought", "kind", "op", "targets", "qualifiers", "exclude", "slots",
               "condition", "command", "question", "choices", "reply", "confidence"}


def first_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in `text` (prose and ``` fences around it are skipped)."""
    text = text[:MAX_SCAN]
    decoder = json.JSONDecoder()
    start = text.find("{")
    tries = 0
    while start != -1 and tries < 50:
        try:
            found, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            found = None
        if isinstance(found, dict):
            return found
        start = text.find("{", start + 1)
        tries += 1
    return None


def shown(value: object, limit: int = shape.MAX_TEXT) -> str | None:
    """Model text as reos may show it: a string, cleaned, one paragraph, bounded."""
    if not isinstance(value, str):
        return None
    said = clean(value).strip()
    if len(said) > limit:
        said = said[:limit - 1] + "…"
    return said or None


# how the matcher found a name only by guessing at it (one typo away, part of a name)
_GUESSED = frozenset({"fuzzy (typo)", "prefix/suffix", "substring"})


class Request:
    """What the checks need to know about the request itself (from the catalogue parse)."""

    def __init__(self, text: str, qualifiers: set[str], excludes: bool, asks: bool,
                 context_words: set[str] | None = None, *, named: bool = True,
                 aliased: set[str] | None = None, verb_actions: set[str] | None = None):
        self.text = text
        self.words = words_of(text) | (context_words or set())
        self.qualifiers = qualifiers  # canonical qualifiers the words said ("stopped")
        self.excludes = excludes  # "all but", "except", "leave X alone"
        self.asks = asks  # put as a question
        self.said_all = bool(words_of(text) & (ALL_WORDS | {"both", "each"}))
        # the request names something this machine has: every target must then be one it
        # names ("stop nextcloud" never gains nginx); naming nothing ("the web server"), a
        # target is the model's reading of its words, shown before anything runs
        self.named = named
        self.aliased = {a.lower() for a in aliased or ()}  # "the web server": nginx.service
        # the actions the request's verbs can mean: an action answer must be one of them
        # ("restart portainer" never becomes a removal); empty when no verb was said
        self.verb_actions = verb_actions or set()


def request_of(text: str, templates: TemplateSet, matcher: Any,
               context_words: set[str] | None = None) -> Request:
    """The request as the checks see it, read by the catalogue parser."""
    from reos.understanding.reading import said

    found = said(text, templates, matcher)
    return Request(text, found.qualifiers, found.excludes, found.asks, context_words,
                   named=found.named, aliased=found.aliased, verb_actions=found.verb_actions)


class Checker:
    def __init__(self, templates: TemplateSet, matcher: Any, request: Request):
        self.templates = templates
        self.matcher = matcher
        self.request = request
        self.errors: list[str] = []
        self.inferred: list[str] = []  # targets read from words that do not name them
        self.doubts: list[str] = []  # why an action the model read must be asked about

    # -- pieces ------------------------------------------------------------------------
    def _strings(self, value: object, what: str, limit: int = shape.MAX_TARGETS) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.errors.append(f"{what} must be a list of strings")
            return []
        if len(value) > limit:
            self.errors.append(f"{what} may hold at most {limit} entries")
            return []
        kept = []
        for v in value:
            if not v.strip() or len(v) > 100 or clean(v) != v:
                self.errors.append(f"{what} holds an unusable entry {json.dumps(v[:40])}")
                return []
            kept.append(v.strip())
        return kept

    def operation(self, op_id: object) -> Any:
        if not isinstance(op_id, str):
            self.errors.append("op must be an operation id from the list")
            return None
        if op_id == shape.COMMAND:
            return shape.COMMAND
        op = self.templates.operations.get(op_id)
        if op is None or op.kind == "meta":
            self.errors.append(f"there is no operation {json.dumps(op_id[:60])}; use an id "
                               "from the list, or \"command\"")
            return None
        return op

    def targets(self, op: Any, names: list[str]) -> list[str]:
        if not names or op.target == "none":
            if names and op.target == "none":
                self.errors.append(f"{op.id} takes no targets")
            return []
        kept = []
        for name in names:
            if name.lower() in ALL_WORDS:
                if not self.request.said_all:
                    self.errors.append("the request does not say all or every; name the "
                                       "targets the request names")
                    continue
                kept.append("all")
                continue
            related = closeness(self.request.words, name) > 0 or (
                name.lower() in self.request.text.lower())
            if op.creates:  # a new name is the request's own word, whole
                if name.lower() not in set(_TOKEN.findall(self.request.text.lower())):
                    self.errors.append(f"{json.dumps(name)} is not named in the request")
                elif _NEW_NAME.fullmatch(name):
                    kept.append(name)
                else:
                    self.errors.append(f"{json.dumps(name)} is not a valid new name")
                continue
            if not self.matcher.known(op.target):
                if related:  # this snapshot has no such section: the plan builder says so
                    kept.append(name)
                else:
                    self.errors.append(f"{json.dumps(name)} is not named in the request")
                continue
            found = self.matcher.resolve([name], [op.target], True)
            if found.missing:
                self.errors.append(f"there is no {op.target} called {json.dumps(name)} on "
                                   "this machine; use a name from the facts or the "
                                   "person's own word")
                continue
            if not related and not {t.name.lower() for t in found.targets} & (
                    self.request.aliased):
                if self.request.named:
                    self.errors.append(f"{json.dumps(name)} is not named in the request")
                    continue
                if set(found.strategies.values()) <= _GUESSED:
                    # a name the request never said is one this machine has: the
                    # matcher's near guess ("nginx" for "nginx2") is not the model's name
                    self.errors.append(f"there is no {op.target} called {json.dumps(name)} "
                                       "on this machine; use a name from the facts")
                    continue
                self.inferred.append(name)
            kept.append(name)
        return kept

    def slots(self, op: Any, given: object) -> dict[str, str]:
        if given is None:
            return {}
        if not isinstance(given, dict):
            self.errors.append("slots must be an object")
            return {}
        out: dict[str, str] = {}
        for name, value in list(given.items())[:20]:
            if value is None or value == "":
                continue
            if name not in op.slots and not (name == "proto" and "port" in op.slots):
                self.errors.append(f"{op.id} has no slot {json.dumps(str(name)[:40])} "
                                   f"(its slots: {', '.join(op.slots) or 'none'})")
                continue
            if isinstance(value, bool) or not isinstance(value, str | int | float) or (
                    isinstance(value, float) and not math.isfinite(value)):
                self.errors.append(f"slot {name} must be a string")
                continue
            text = str(int(value)) if isinstance(value, float) and value.is_integer() else str(
                value).strip()
            if not _slot_ok(name, text):
                self.errors.append(f"slot {name} has the value {json.dumps(text[:40])}, which "
                                   f"is not {shape.SLOT_FORMS.get(name, 'a valid value')}")
                continue
            out[name] = text
        return out

    def qualifiers(self, op: Any, given: list[str]) -> list[str]:
        """The operation's own qualifiers; an action keeps every one the request said (a
        question may leave out one the words only set the scene with: "is java still
        running")."""
        kept = []
        for q in given:
            if q not in op.qualifiers:
                self.errors.append(f"{op.id} takes no qualifier {json.dumps(q[:30])} (it "
                                   f"takes: {', '.join(op.qualifiers) or 'none'})")
            elif q == "all" and not self.request.said_all:
                self.errors.append("the request does not say all or every: leave out "
                                   "the qualifier all")
            else:
                kept.append(q)
        dropped = sorted((self.request.qualifiers & set(op.qualifiers)) - set(kept) - {"all"})
        if dropped and op.kind == "action":
            self.errors.append(f"the request says {', '.join(dropped)}: keep it in "
                               "qualifiers (a qualifier is never dropped)")
        return kept

    def command(self, given: object) -> tuple[list[str], str | None]:
        if not isinstance(given, dict):
            self.errors.append('op "command" needs "command": {"argv": [...], "purpose": '
                               '"...", "read_only": true|false}')
            return [], None
        argv = given.get("argv")
        if not isinstance(argv, list) or not argv or len(argv) > shape.MAX_ARGV or not all(
                isinstance(a, str) and 0 < len(a) <= 1000 for a in argv):
            self.errors.append("command.argv must be a list of 1 to 64 non-empty strings")
            return [], None
        if any("\x00" in a or clean(a) != a for a in argv):
            self.errors.append("command.argv holds control characters")
            return [], None
        if any(a in SHELL_WORDS or _SHELL_TEXT.search(a) for a in argv):
            self.errors.append("command.argv holds shell syntax (pipes, redirections, ;, "
                               "&&, $( )): give one program and its arguments, no shell")
            return [], None
        program = argv[0].rsplit("/", 1)[-1]
        if program in ("sudo", "doas", "su", "pkexec", "run0"):
            self.errors.append("leave sudo out of command.argv: reos adds it when needed")
            return [], None
        if program in SHELLS or program in WRAPPERS or (
                _INTERPRETER.match(program) and set(argv[1:]) & _INLINE_CODE):
            self.errors.append(f"command.argv may not start a shell, an interpreter with "
                               f"inline code or another program ({program}): give the one "
                               "program that does the work and its arguments")
            return [], None
        return list(argv), shown(given.get("purpose")) or "run " + argv[0][:40]

    # -- the answer --------------------------------------------------------------------
    def intent(self, answer: object) -> Intent | None:
        """The answer as an Intent, or None with `errors` saying why."""
        if not isinstance(answer, dict):
            self.errors.append("the answer must be one JSON object")
            return None
        unknown = sorted(str(k)[:30] for k in answer if k not in _KNOWN_KEYS)
        if unknown:
            self.errors.append(f"unknown keys: {', '.join(unknown[:5])}")
        kind = answer.get("kind")
        if kind not in shape.KINDS:
            self.errors.append(f"kind must be one of {', '.join(shape.KINDS)}")
            return None
        confidence = answer.get("confidence", 0.5)
        if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not (
                0 <= confidence <= 1):
            self.errors.append("confidence must be a number from 0 to 1")
            confidence = 0.5
        if kind == "unknown":
            return Intent(Kind.UNKNOWN, reading=Understood(
                "llm", float(confidence), said=shown(answer.get("reply"), shape.MAX_REPLY)))
        if kind == "clarify":
            return self._clarify(answer, float(confidence))
        intent = self._reading(answer, kind, self.request.asks)
        if intent is not None:
            intent.reading = replace(intent.reading, confidence=float(confidence),
                                     said=shown(answer.get("reply"), shape.MAX_REPLY))
        return intent

    def _reading(self, answer: dict[str, Any], kind: str, asks: bool,
                 choosing: bool = False) -> Intent | None:
        op = self.operation(answer.get("op"))
        if op is None:
            return None
        if op == shape.COMMAND:
            argv, purpose = self.command(answer.get("command"))
            if not argv:
                return None
            if asks and not assess_argv(argv).read_only:  # the request's form, not the
                # model's "kind", decides: its claims about a command are never believed
                self.errors.append("the request asks a question: give a command that only "
                                   "reads (this one changes the machine)")
                return None
            return Intent(Kind.QUERY, action="command", operation=shape.COMMAND,
                          argv=argv, purpose=purpose, reading=Understood("llm"))
        if op.kind == "action" and (kind == "query" or asks):
            self.errors.append(f"the request asks a question, and {op.id} changes the "
                               "machine: answer with a query operation")
            return None
        if op.kind == "action" and not choosing and self.request.verb_actions and (
                op.action not in self.request.verb_actions) and op.risk in ("high", "critical"):
            # a destructive operation the request's verbs do not say ("restart portainer" or
            # "tell me about the disks" read as a removal) is asked about, never planned
            self.doubts.append(f"The request does not say to {op.action.replace('_', ' ')}; "
                               "is this what you mean?")
        names = self._strings(answer.get("targets"), "targets")
        exclude = self._strings(answer.get("exclude"), "exclude")
        said_qualifiers = self._strings(answer.get("qualifiers"), "qualifiers", 8)
        before = len(self.errors)
        targets = self.targets(op, names)
        qualifiers = self.qualifiers(op, said_qualifiers)
        params = self.slots(op, answer.get("slots"))
        if self.request.excludes and not exclude and op.target != "none":
            self.errors.append("the request leaves something out: name it in exclude")
        if any(e.lower() in (t.lower() for t in targets) for e in exclude):
            self.errors.append("a target is also in exclude")
        condition, subject = self._condition(op, answer.get("condition"))
        if len(self.errors) > before:
            return None
        intent_kind = Kind.QUERY if op.kind == "query" else (
            Kind.COMBINED if condition else Kind.ACTION)
        if op.kind == "action" and op.target != "none" and not targets and not (
                set(qualifiers) - {"all"}) and not self.request.said_all:
            self.errors.append(f"{op.id} needs its targets: name what the request means, "
                               "or answer kind clarify")
            return None
        plural = "all" in targets or "all" in qualifiers or len(targets) > 1 or (
            not targets and bool(qualifiers))
        return Intent(
            kind=intent_kind, action=op.action, resource=op.resource,
            targets=[t for t in targets if t != "all"] or (["all"] if "all" in targets else []),
            condition=condition, condition_subject=subject, plural=plural, operation=op.id,
            params=params, then=list(op.then), note=op.note, qualifiers=qualifiers,
            exclude=exclude, summary=op.summary, value=op.value,
            reading=Understood("llm", template=op.id))

    def _condition(self, op: Any, given: object) -> tuple[str | None, Any]:
        if not given:
            return None, None
        if not isinstance(given, dict) or given.get("if") not in ("running", "stopped") or (
                not isinstance(given.get("subject"), str)):
            self.errors.append('condition must be {"if": "running"|"stopped", "subject": name}')
            return None, None
        if op.kind != "action":
            self.errors.append("only an action can have a condition")
            return None, None
        subject = given["subject"].strip()[:100]
        kinds = [k for k in ("container", "service") if self.matcher.known(k)]
        if not subject or closeness(self.request.words, subject) == 0 or (
                kinds and self.matcher.resolve([subject], kinds, True).missing):
            self.errors.append(f"the condition's subject {json.dumps(subject[:40])} is not a "
                               "container or service the request names")
            return None, None
        return f"if_{given['if']}", ([subject], None)

    def _clarify(self, answer: dict[str, Any], confidence: float) -> Intent | None:
        question = shown(answer.get("question"))
        choices = answer.get("choices")
        if not isinstance(choices, list) or not 1 <= len(choices) <= shape.MAX_CHOICES:
            self.errors.append(f"kind clarify needs 1 to {shape.MAX_CHOICES} choices")
            return None
        options = []
        for choice in choices:
            if not isinstance(choice, dict):
                self.errors.append("each choice must be an object")
                return None
            reading = self._reading({**choice, "kind": "action"}, "action", self.request.asks,
                                    choosing=True)
            if reading is None:
                return None
            options.append(Option(reading, shown(choice.get("consequence"), 120)))
        return Intent(Kind.CLARIFY, asking=Asking(options, question),
                      reading=Understood("llm", confidence))


def _slot_ok(name: str, value: str) -> bool:
    if name in ("lines", "count"):
        return value.isdigit() and 1 <= int(value) <= slot_checks.MAX_LINES
    if name in ("since", "until"):
        return bool(slot_checks.values({"since": value}, {}))
    if name == "proto":
        return value in ("tcp", "udp")
    if name == "size":
        return "vacuum_size" in slot_checks.values({"size": value}, {})
    if name == "priority":
        return bool(re.fullmatch(r"-?\d{1,2}|emerg|alert|crit|err|warning|notice|info|debug",
                                 value))
    return name in slot_checks.values({name: value}, {})


def check(answer: object, templates: TemplateSet, matcher: Any,
          request: Request) -> tuple[Intent | None, list[str]]:
    """The Intent an answer stands for and the errors found (an Intent only when none)."""
    checker = Checker(templates, matcher, request)
    intent = checker.intent(answer)
    errors = list(dict.fromkeys(checker.errors))
    if errors or intent is None:
        return None, errors
    if checker.inferred:
        named = ", ".join(dict.fromkeys(checker.inferred))
        checker.doubts.append(f"I take that to mean {named}; the request does not name it.")
    if checker.doubts and intent.kind in (Kind.ACTION, Kind.COMBINED):
        # the model's reading of words that do not say it is a question before any plan
        intent = Intent(Kind.CLARIFY,
                        asking=Asking([Option(intent)], clean(" ".join(checker.doubts))),
                        reading=Understood("llm", intent.reading.confidence))
    return intent, []
