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
- slots are the operation's own and pass the plan builder's checks (reasoning/slots.py);
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

from reos.llm import schema as shape
from reos.llm.prompt import _closeness, _words
from reos.model import Intent, Kind
from reos.reasoning import slots as slot_checks
from reos.reasoning.templates import TemplateSet
from reos.text import clean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_SCAN = 64_000
SHELL_WORDS = {"|", "||", "&&", ";", ">", ">>", "<", "<<", "&", "2>", "2>&1", "&>", "|&"}
_SHELL_TEXT = re.compile(r"\$\(|`|\$\{|\n")
_NEW_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9+._-]{0,99}")  # a package or user to create
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


class Request:
    """What the checks need to know about the request itself (from the catalogue parse)."""

    def __init__(self, text: str, qualifiers: set[str], excludes: bool, asks: bool,
                 context_words: set[str] | None = None, *, named: bool = True):
        self.text = text
        self.words = _words(text) | (context_words or set())
        self.qualifiers = qualifiers  # canonical qualifiers the words said ("stopped")
        self.excludes = excludes  # "all but", "except", "leave X alone"
        self.asks = asks  # put as a question
        self.said_all = bool(_words(text) & ALL_WORDS) or "both" in _words(text)
        # the request names something this machine has: every target must then be one it
        # names ("stop nextcloud" never gains nginx); naming nothing ("the web server"), a
        # target is the model's reading of its words, shown before anything runs
        self.named = named


class Checker:
    def __init__(self, templates: TemplateSet, matcher: Any, request: Request):
        self.templates = templates
        self.matcher = matcher
        self.request = request
        self.errors: list[str] = []

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
            if self.request.named and _closeness(self.request.words, name) == 0 and (
                    name.lower() not in self.request.text.lower()):
                self.errors.append(f"{json.dumps(name)} is not named in the request")
                continue
            if op.creates:
                if _NEW_NAME.fullmatch(name):
                    kept.append(name)
                else:
                    self.errors.append(f"{json.dumps(name)} is not a valid new name")
                continue
            if not self.matcher.known(op.target):
                kept.append(name)  # this snapshot has no such section: the plan builder says so
                continue
            found = self.matcher.resolve([name], [op.target], True)
            if found.missing:
                self.errors.append(f"there is no {op.target} called {json.dumps(name)} on "
                                   "this machine; use a name from the facts or the "
                                   "person's own word")
                continue
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
            if name not in op.slots:
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
        if dropped:
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
        if argv[0].rsplit("/", 1)[-1] in ("sudo", "doas", "su", "pkexec"):
            self.errors.append("leave sudo out of command.argv: reos adds it when needed")
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
            return Intent(Kind.UNKNOWN, source="llm", confidence=float(confidence),
                          said=shown(answer.get("reply"), shape.MAX_REPLY))
        if kind == "clarify":
            return self._clarify(answer, float(confidence))
        intent = self._reading(answer, kind, self.request.asks)
        if intent is not None:
            intent.confidence = float(confidence)
            intent.said = shown(answer.get("reply"), shape.MAX_REPLY)
        return intent

    def _reading(self, answer: dict[str, Any], kind: str, asks: bool) -> Intent | None:
        op = self.operation(answer.get("op"))
        if op is None:
            return None
        if op == shape.COMMAND:
            argv, purpose = self.command(answer.get("command"))
            if not argv:
                return None
            return Intent(Kind.QUERY, action="command", source="llm", operation=shape.COMMAND,
                          argv=argv, purpose=purpose)
        if op.kind == "action" and (kind == "query" or asks):
            self.errors.append(f"the request asks a question, and {op.id} changes the "
                               "machine: answer with a query operation")
            return None
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
        plural = "all" in targets or "all" in qualifiers or len(targets) != 1
        return Intent(
            kind=intent_kind, action=op.action, resource=op.resource,
            targets=[t for t in targets if t != "all"] or (["all"] if "all" in targets else []),
            condition=condition, condition_subject=subject, source="llm",
            plural=plural, template=op.id, operation=op.id, params=params,
            then=list(op.then), note=op.note, qualifiers=qualifiers, exclude=exclude,
            summary=op.summary, value=op.value)

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
        if not subject or _closeness(self.request.words, subject) == 0 or (
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
            reading = self._reading({**choice, "kind": "action"}, "action", self.request.asks)
            if reading is None:
                return None
            reading.consequence = shown(choice.get("consequence"), 120)
            options.append(reading)
        return Intent(Kind.CLARIFY, source="llm", confidence=confidence, options=options,
                      question=question)


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
    return (intent if not errors else None), errors
