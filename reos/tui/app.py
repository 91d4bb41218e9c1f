"""The reos chat app: a log of the conversation, an input line, and plan cards.

Requests go to `ReasoningEngine.respond` in a worker thread; step events come back
through `call_from_thread` as they happen. Approval comes from the plan card (buttons
or keys) or from typing "yes" / "no".
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import work
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Footer, Header, Input

from reos.engine import ReasoningEngine, Reply
from reos.errors import ReosError
from reos.execution.events import Event, Notice, Said, StepFinished, StepOutput, StepStarted
from reos.reasoning import conversation
from reos.tui.widgets import Bubble, PlanCard

GREETING = (
    "Hi, I'm reos. Tell me what you'd like to do, in plain words \u2014 for example "
    "\u201cwhat containers are running\u201d, \u201cstop the nextcloud containers\u201d or "
    "\u201cundo\u201d."
)


class ReosApp(App[None]):
    TITLE = "reos"
    SUB_TITLE = "plain-language Linux, with undo"
    CSS = """
    #log { height: 1fr; padding: 1 1 0 1; }
    #prompt { dock: bottom; margin: 0 1 1 1; }
    """
    BINDINGS = [("ctrl+q", "quit", "Quit")]

    @dataclass
    class Replied(Message):
        """The engine answered an utterance."""

        reply: Reply

    @dataclass
    class Failed(Message):
        """The engine could not handle an utterance (a foreseeable problem)."""

        error: ReosError

    @dataclass
    class Looked(Message):
        """The first look at the machine finished (text says what reos can see)."""

        text: str

    def __init__(self, engine: ReasoningEngine) -> None:
        super().__init__()
        self.engine = engine

    def compose(self) -> ComposeResult:
        yield Header()
        yield VerticalScroll(Bubble(GREETING, "reos"), id="log")
        yield Input(placeholder="Ask reos\u2026  (e.g. what containers are running)",
                    id="prompt")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#prompt", Input).focus()
        self.look_around()

    # -- showing -------------------------------------------------------------------
    def say(self, text: str, who: str = "reos") -> None:
        log = self.query_one("#log", VerticalScroll)
        log.mount(Bubble(text, who))
        log.scroll_end(animate=False)

    def show_event(self, event: Event) -> None:
        voice = self.engine.voice
        if isinstance(event, StepStarted):
            line = conversation.step_started(event.step, voice)
            if line:
                self.say(line, "step")
        elif isinstance(event, StepOutput):
            if voice.show_commands and not voice.brief and event.line.strip():
                self.say(f"    \u2502 {event.line}", "step")
        elif isinstance(event, StepFinished):
            detail = event.result.stderr.strip().splitlines()[-1:] if not event.result.ok else []
            self.say(conversation.step_finished(event.step, event.result.ok,
                                                detail[0] if detail else ""), "step")
        elif isinstance(event, Said):
            self.say(event.text)
        elif isinstance(event, Notice):
            self.say(event.text, "problem")

    # -- workers -------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="engine")
    def look_around(self) -> None:
        snap = self.engine.snapshot()
        if snap.containers is None:
            reason = snap.unavailable.get("containers", "unknown reason")
            text = f"Containers are unavailable right now ({reason})."
        else:
            running = sum(1 for c in snap.containers if c.running)
            text = (f"I can see {conversation.count(len(snap.containers), 'container')} "
                    f"on {snap.host.get('hostname', 'this machine')} ({running} running).")
        self.post_message(self.Looked(text))

    @work(thread=True, exclusive=True, exit_on_error=False, group="engine")
    def ask_engine(self, text: str) -> None:
        self._call(lambda: self.engine.respond(text, self._relay))

    @work(thread=True, exclusive=True, exit_on_error=False, group="engine")
    def approve_pending(self, approved: bool) -> None:
        self._call(lambda: self.engine.approve(self._relay) if approved
                   else self.engine.decline())

    def _call(self, job) -> None:  # noqa: ANN001 - a zero-argument callable returning Reply
        try:
            self.post_message(self.Replied(job()))
        except ReosError as exc:
            self.post_message(self.Failed(exc))

    def _relay(self, event: Event) -> None:
        self.call_from_thread(self.show_event, event)

    # -- reacting ------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if not text:
            return
        self.say(f"You: {text}", "you")
        for card in self.query(PlanCard):  # typing instead of pressing a button
            card.remove()
        self.ask_engine(text)

    def on_reos_app_replied(self, message: Replied) -> None:
        reply = message.reply
        if reply.awaiting_approval and reply.plan is not None:
            log = self.query_one("#log", VerticalScroll)
            log.mount(PlanCard(reply.plan.message))
            log.scroll_end(animate=False)
        else:
            self.say(reply.text)
            self.query_one("#prompt", Input).focus()

    def on_reos_app_failed(self, message: Failed) -> None:
        self.say(str(message.error), "problem")

    def on_reos_app_looked(self, message: Looked) -> None:
        self.say(message.text)

    def on_plan_card_approved(self, _message: PlanCard.Approved) -> None:
        self.approve_pending(True)

    def on_plan_card_denied(self, _message: PlanCard.Denied) -> None:
        self.approve_pending(False)


def run_tui() -> int:
    from reos.commands.common import make_engine

    ReosApp(make_engine()).run()
    return 0
