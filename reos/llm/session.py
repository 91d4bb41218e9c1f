"""The model's side of one conversation: whether to ask it, what came of asking, its state.

`ModelSession` holds what lives as long as a conversation (a chat, or one `reos plan`):
the last turns (for pronouns and follow-ups), the client (one per session: building one
costs ~50 ms), the state a surface shows ("model llama3.2", "built-in understanding
(unreachable)"), the problems already said (each is said once a session), and a rest
after the server failed, so later requests do not wait on it. `consult()` decides with
`understander.should_ask`, asks, and returns the reading to plan from and what to say.

Cheap to import (the engine imports it on the `reos plan` path): the understander, the
prompt, the validator and the client are imported only when the model is asked.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.llm.turns import Turn
from reos.model.plan import Plan, Traced
from reos.model.request import Intent, Kind
from reos.settings import Settings, llm_forced_off

if TYPE_CHECKING:
    from typing import Any

    from reos.model.events import Event

RESTING_SECONDS = 60.0  # after the server failed, the next requests do not wait on it
TURNS_KEPT = 5
SERVER_FAILURES = ("unreachable", "missing_model", "timeout", "server")


class ModelSession:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.turns: list[Turn] = []
        self.problem: str | None = None  # why the model could not be used, when it failed
        self.state = "not asked yet" if self.may_ask() else "off"
        self._said: set[str] = set()  # kinds of problem already said this session
        self._resting_until = 0.0
        self._client: Any = None

    def may_ask(self) -> bool:
        llm = self.settings.llm
        return llm.enabled and llm.mode != "off" and self.settings.reasoning.depth != "quick" \
            and not llm_forced_off()

    def _failed(self, kind: str, problem: str, rest: bool = True) -> None:
        self.state = f"built-in understanding ({kind})"
        self.problem = problem
        if rest and kind in SERVER_FAILURES:
            self._resting_until = time.monotonic() + RESTING_SECONDS

    def consult(self, request: str, parsed: Intent | None, *, templates: Any, matcher: Any,
                snapshot: Callable[[], Any], learned: Callable[[], list[Any]],
                trace: list[Traced], emit: Callable[[Event], None],
                hint: str | None = None) -> tuple[Intent | None, list[str]]:
        """The model's reading when it should be asked and its answer holds up, else the
        parser's; plus what to say about the model (a problem is said once a session)."""
        from reos.llm.understander import should_ask
        from reos.model.events import Stage

        wanted, why = should_ask(parsed, self.settings)
        if wanted and time.monotonic() < self._resting_until:
            wanted, why = False, f"it failed moments ago ({self.state})"
        trace.append(Traced("model needed", ("yes: " if wanted else "no: ") + why))
        emit(Stage(trace[-1].stage, trace[-1].said))
        if not wanted:
            return parsed, []
        from reos.llm import understander, validate
        from reos.llm.client import Client

        context = {w.lower() for t in self.turns[-3:]
                   for w in (t.request + " " + t.outcome).split()}
        checked = validate.request_of(request, templates, matcher, context)
        if self._client is None:
            self._client = Client(self.settings.llm)
        asked = understander.ask(request, templates=templates, matcher=matcher,
                                 client=self._client, snapshot=snapshot(),
                                 settings=self.settings, checked=checked, parsed=parsed,
                                 emit=emit, turns=self.turns[-3:], learned=learned(),
                                 hint=hint)
        trace.extend(asked.trace)
        if asked.intent is None:
            kind = asked.problem_kind or "invalid"
            if kind == "invalid":  # an unusable answer: the server itself is fine
                self.problem = asked.problem
            else:
                self._failed(kind, asked.problem or "")
            said = [] if kind in self._said else [asked.problem or ""]
            self._said.add(kind)
            return parsed, [s for s in said if s]
        self.state = f"model {self.settings.llm.model}"
        intent = asked.intent
        if intent.kind == Kind.UNKNOWN and parsed is not None:
            if parsed.kind != Kind.UNKNOWN:
                trace.append(Traced("understood", "the model could not place it; "
                                                "my own reading is used"))
                return parsed, []
            parsed.reading = replace(parsed.reading, said=intent.reading.said,
                                     source=intent.reading.source)
            return parsed, []
        return intent, []

    def warm(self, system: str | None = None) -> str:
        """Load the model ahead of the first request (and read `system`, the system
        message every request starts with); returns the state to show."""
        if not self.may_ask():
            self.state = "built-in understanding (the model is off)"
            return self.state
        from reos.llm.client import Client, LlmError

        try:
            if self._client is None:
                self._client = Client(self.settings.llm)
            self._client.warm(system)
            self.state = f"model {self.settings.llm.model}"
        except LlmError as exc:
            self._failed(exc.kind, str(exc), rest=False)  # a request may still try it
            self._said.add(exc.kind)
        return self.state

    def remember(self, request: str, plan: Plan) -> None:
        """Keep the last turns for the model (pronouns, follow-ups)."""
        intent = plan.intent
        what = plan.kind.value
        if intent is not None and intent.operation:
            what += f" {intent.operation}"
        if plan.targets:
            what += " " + ", ".join(t.name for t in plan.targets[:5])
        self.turns = [*self.turns[-(TURNS_KEPT - 1):], Turn(request[:300], what[:200])]
