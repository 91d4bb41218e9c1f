"""The LLM understander: when to ask the model, one call (two with a repair), the fallback.

`should_ask()` decides from the settings and the catalogue parser's own reading:
never for a refusal or a meta utterance (the parser's rules come first whatever the
mode), never with `mode = "off"`, `[llm] enabled = false`, `REOS_LLM=off` or
`[reasoning] depth = "quick"`; always otherwise with `mode = "first"`; with `"auto"` only
when the parser is not confident or left words unexplained.

`ask()` builds the prompt (prompt.py), makes one streamed call with the answer
constrained to the catalogue's schema and to the room the prompt left it (REPLY_TOKENS,
client.py), takes the first JSON object of the reply and checks it (validate.py). An
invalid answer (or one cut off at that room) gets one repair call carrying the
errors; still invalid, a timeout, a refused connection or a missing model give `None`
and the caller keeps the parser's reading. Every stage is emitted as an event and kept
in the trace. A confident-sounding model is not trusted more: an action it is unsure of
(confidence below 0.5) becomes a question, with the parser's reading offered beside it.

Imports the client (and so `ollama`) only inside `ask()`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from reos.model.plan import Traced
from reos.model.request import Asking, Intent, Kind, Option, Understood
from reos.patterns import regex
from reos.settings import Settings

if TYPE_CHECKING:
    from typing import Any

    from reos.llm.turns import Turn
    from reos.model.events import Event

CONFIDENT = 0.75  # the parser's own confidence above which "auto" does not ask the model
UNSURE = 0.5  # a model's action below this confidence is asked about, not planned
_THOUGHT = regex(r'"thought"\s*:\s*"((?:[^"\\]|\\.)*)')


class Asked(Struct):
    """What asking the model came to."""

    intent: Intent | None  # None: use the parser's reading
    trace: list[Traced] = field(default_factory=list)
    problem: str | None = None  # why the model could not be used, in one sentence
    problem_kind: str | None = None  # an LlmError kind, "invalid", or None
    ms: float = 0.0


def should_ask(parsed: Intent | None, settings: Settings) -> tuple[bool, str]:
    """Whether the model reads this request, and why (or why not), for the trace."""
    from reos.settings import llm_forced_off

    llm = settings.llm
    if not llm.enabled or llm.mode == "off" or llm_forced_off():
        return False, "the model is switched off ([llm] enabled / mode, or REOS_LLM=off)"
    if settings.reasoning.depth == "quick":
        return False, "depth is quick: the model is never asked"
    if parsed is None:
        return False, "nothing to read"
    if parsed.kind == Kind.REFUSE:
        return False, "refused by the catalogue's rules, which come before any model"
    if parsed.kind == Kind.META:
        return False, "a chat word reos reads itself"
    if llm.mode == "first":
        return True, 'mode "first": the model reads every request'
    read = parsed.reading
    if parsed.kind in (Kind.QUERY, Kind.ACTION, Kind.COMBINED) and not (
            read.unexplained or read.unhonoured or read.ignored) and (
            read.confidence >= CONFIDENT):
        return False, (f"my own reading is confident ({read.confidence:.2f}) and "
                       "explained every word")
    why = {Kind.UNKNOWN: "I did not understand it myself",
           Kind.CLARIFY: "I found more than one reading myself"}.get(
        parsed.kind, f"my own reading was not sure ({read.confidence:.2f})")
    if read.unexplained:
        why += f"; it could not place: {', '.join(read.unexplained[:5])}"
    return True, why


def _stage(trace: list[Traced], emit: Callable[[Event], None], stage: str,
           said: str, ms: float | None = None) -> None:
    from reos.model.events import Stage

    trace.append(Traced(stage, said))
    emit(Stage(stage, said, ms))


def ask(request: str, *, templates: Any, matcher: Any, snapshot: Any, settings: Settings,
        checked: Any, parsed: Intent | None, emit: Callable[[Event], None],
        client: Any = None,
        turns: list[Turn] | None = None, learned: list[Any] | None = None,
        hint: str | None = None) -> Asked:
    """Ask the model what `request` means; `checked` is the validate.Request of it."""
    from reos.llm import prompt, validate
    from reos.llm import schema as shape
    from reos.llm.client import Client, LlmError
    from reos.model.events import ModelText

    started = time.monotonic()
    trace: list[Traced] = []
    shape_ = shape.schema(templates)
    said_so_far = [""]
    buffer: list[str] = []

    def on_text(piece: str) -> None:
        """Show the answer's `thought` as it streams (only the start of an answer holds it)."""
        if sum(map(len, buffer)) > 2_000:
            return
        buffer.append(piece)
        found = _THOUGHT.search("".join(buffer))
        if found and found[1] != said_so_far[0]:
            said_so_far[0] = found[1]
            try:
                thought = json.loads(f'"{found[1]}"')
            except ValueError:
                thought = found[1]
            emit(ModelText(validate.shown(thought) or ""))

    messages = prompt.messages(request, templates, snapshot, settings.llm.num_ctx,
                               turns=turns, learned=learned, hint=hint)
    errors: list[str] = []
    text = ""
    try:
        client = client or Client(settings.llm)
        for attempt in (1, 2):
            _stage(trace, emit, "asking the model" if attempt == 1 else "repairing",
                   f"{settings.llm.model} at {settings.llm.host}" if attempt == 1 else
                   "asked again with what was wrong: " + "; ".join(errors[:4]))
            buffer.clear()
            said_so_far[0] = ""
            # the answer gets the room the prompt left it, and no more
            result = client.chat(messages, shape_, on_text, max_tokens=prompt.REPLY_TOKENS)
            text = result.text
            loading = f", {result.load_ms / 1000:.1f} s of it loading the model" \
                if result.load_ms > 1500 else ""
            _stage(trace, emit, "model answered",
                   f"{result.ms:.0f} ms, {result.prompt_tokens} prompt tokens, "
                   f"{result.reply_tokens} answer tokens{loading}", result.ms)
            answer = validate.first_object(text)
            if answer is None and result.cut:
                intent, errors = None, [f"the answer ran past {prompt.REPLY_TOKENS} tokens and "
                                        "was cut off: give one short JSON object, a thought of "
                                        "one line, no repeated names"]
            elif answer is None:
                intent, errors = None, ["the reply held no JSON object"]
            else:
                intent, errors = validate.check(answer, templates, matcher, checked)
            if intent is not None:
                source = "llm" if attempt == 1 else "llm-repaired"
                intent.reading = replace(intent.reading, source=source)
                for option in intent.asking.options if intent.asking else []:
                    option.intent.reading = replace(option.intent.reading, source=source)
                intent = _doubt(intent, parsed, trace, emit)
                _stage(trace, emit, "understood",
                       f"{intent.reading.source}: {intent.operation or intent.kind.value}"
                       + (f" {', '.join(intent.targets)}" if intent.targets else ""))
                return Asked(intent, trace, ms=(time.monotonic() - started) * 1000)
            if attempt == 1:
                messages = prompt.messages(request, templates, snapshot, settings.llm.num_ctx,
                                           turns=turns, learned=learned,
                                           repair=(text, errors), hint=hint)
    except LlmError as exc:
        _stage(trace, emit, "fell back", f"{exc} I read it myself instead.")
        return Asked(None, trace, problem=f"{exc} I used my built-in understanding.",
                     problem_kind=exc.kind,
                     ms=(time.monotonic() - started) * 1000)
    _stage(trace, emit, "fell back", "the model's answer was still invalid after a repair ("
           + "; ".join(errors[:4]) + "); I read it myself instead")
    return Asked(None, trace, problem="The model's answers could not be used, so I used my "
                 "built-in understanding.", problem_kind="invalid",
                 ms=(time.monotonic() - started) * 1000)


def _confident(parsed: Intent | None) -> bool:
    return parsed is not None and parsed.kind in (Kind.QUERY, Kind.ACTION, Kind.COMBINED) and (
        not (parsed.reading.unexplained or parsed.reading.unhonoured)) and (
        parsed.reading.confidence >= CONFIDENT)


def _doubt(intent: Intent, parsed: Intent | None, trace: list[Traced],
           emit: Callable[[Event], None]) -> Intent:
    """An action the model is unsure of becomes a question (its reading and the parser's),
    and so does an action that means something else than a confident parser reading
    (mode "first": "restart portainer" read by the model as a removal is asked about)."""
    if intent.kind not in (Kind.ACTION, Kind.COMBINED):
        return intent
    if _confident(parsed) and parsed is not None and (
            parsed.kind == Kind.QUERY or parsed.action != intent.action):
        _stage(trace, emit, "disagreed", f"I read {parsed.operation}, the model "
               f"{intent.operation}: asking which")
        return Intent(Kind.CLARIFY, asking=Asking([Option(parsed), Option(intent)]),
                      reading=Understood(
            intent.reading.source, intent.reading.confidence))
    if intent.reading.confidence >= UNSURE:
        return intent
    options = [intent]
    if parsed is not None and parsed.kind in (Kind.ACTION, Kind.COMBINED, Kind.QUERY) and (
            parsed.operation != intent.operation or parsed.targets != intent.targets):
        options.append(parsed)
    _stage(trace, emit, "unsure", f"the model's confidence is {intent.reading.confidence:.2f}: "
           "asking instead of planning")
    return Intent(Kind.CLARIFY, asking=Asking([Option(o) for o in options]), reading=Understood(
        intent.reading.source, intent.reading.confidence))
