"""The reos chat app: a log of the conversation, an input line, and plan cards.

Requests go to `ReasoningEngine.respond` in a worker thread; step events come back
through `call_from_thread` as they happen.

Approval is only ever on purpose. The focus stays in the input when a plan appears, so
nothing the person is typing is lost and Enter can never approve: a plan runs when the
person types "yes" (the engine reads whole-utterance yes / no), presses ctrl+y (shown in
the footer while a plan waits), clicks Approve, or moves the focus onto the card and
activates its button. Enter on an empty input only says how to approve; any other text
is a new request and the plan keeps waiting (the card says so). While the engine is
working, a submitted line stays in the input instead of being sent or dropped.

The model is warmed in a background worker when the chat starts (never blocking the
input); a status line says which understanding answers and, during a request, the stage
the engine reports with the seconds elapsed; the model's thought streams into one line
of the conversation (reos/tui/status.py). Why the model cannot be used is said once.

Finding one's way: F1 or `?` (on an empty input) opens help (reos/tui/help.py); ctrl+p
offers reos's commands and the machine's targets, sent as if typed (reos/tui/palette.py);
the footer shows only the keys valid now, fitted to the width (reos/tui/footer.py);
the side panels open beside the conversation, or over it under 100 columns
(reos/tui/panels.py), and the history panel takes the keys when it opens. The transcript
follows new messages unless scrolled back (and again once something is sent or a search
is closed), pages with PageUp/PageDown while typing, is searched with `/`, keeps each
plan card with its outcome, and the input recalls earlier requests with up / down
(reos/tui/transcript.py).

Everything shown goes through `reos.text.clean` (in the widgets) and is rendered without
markup. Not responsible for what a plan means or whether it may run: the engine is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Header, Input

from reos.engine import ReasoningEngine
from reos.errors import ReosError, plainly
from reos.model.events import Event
from reos.model.plan import Plan, step_words
from reos.model.report import ExecutionReport
from reos.outcome import Reply
from reos.text import clean
from reos.tui import fleet_panel
from reos.tui.footer import ChatFooter
from reos.tui.help import HelpScreen, keys_now
from reos.tui.hosts_card import HostsCard
from reos.tui.live import Activity, MachineLine, toasts
from reos.tui.palette import ReosCommands
from reos.tui.panels import HistoryPanel, SidePanels
from reos.tui.plan_view import PlanCard
from reos.tui.screens import ConfirmScreen
from reos.tui.status import StatusLine, Thought, resting
from reos.tui.transcript import (
    CardOutcomes,
    PromptInput,
    RequestHistory,
    Transcript,
    TranscriptSearch,
)
from reos.tui.widgets import Bubble
from reos.words import conversation
from reos.words.narrate import fix_question, narrate, paused, resume_question

GREETING = (
    "Hi, I'm reos. Tell me what you'd like to do, in plain words \u2014 for example "
    "\u201cwhat containers are running\u201d, \u201cstop the nextcloud containers\u201d or "
    "\u201cundo\u201d."
)
SHORT_HINT = "type yes to run it, no to cancel (or ctrl+y / ctrl+n)."
STILL_WORKING = "Still working on the last request \u2014 what you typed is kept; send it " \
    "again when I'm done."


class ReosApp(App[None]):
    TITLE = "reos"
    SUB_TITLE = "plain-language Linux, with undo"
    CSS = """
    #log { height: 1fr; padding: 1 1 0 1; }
    #main { height: 1fr; layers: default panels; }  /* narrow: a panel over the chat */
    #bottom { dock: bottom; height: auto; padding: 0 1 1 1; }
    """
    COMMANDS = {ReosCommands}  # reos's commands and live targets replace Textual's own
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", key_display="ctrl+q"),
        Binding("f1", "help", "Help", key_display="F1"),
        Binding("ctrl+p", "command_palette", "Commands", key_display="ctrl+p",
                show=False),  # the footer shows it at its right end
        Binding("ctrl+y", "approve", "Approve plan", key_display="ctrl+y"),
        Binding("escape", "leave_panel", "Back to the request", show=False),
        Binding("escape", "deny", "Deny plan", show=False),
        Binding("ctrl+n", "deny", "Deny plan", key_display="ctrl+n"),
        Binding("ctrl+r", "reasoning", "Reasoning of the latest reply", key_display="ctrl+r",
                show=False),
        Binding("ctrl+l", "learned", "What reos has learned", key_display="ctrl+l",
                show=False),
        # ? and / where no text is typed (a plan card's button); on an empty request line
        # the line itself opens them (PromptInput), inside a request they are text
        Binding("question_mark", "help", "Help", show=False),
        Binding("slash", "search", "Search the conversation", show=False),
        Binding("pageup", "log_page(-1)", "Scroll back", show=False),
        Binding("pagedown", "log_page(1)", "Scroll forward", show=False),
        Binding("f2", "panel('machine')", "Machine"),
        Binding("f3", "panel('history')", "History"),
        Binding("f4", "panel('reasoning')", "Reasoning panel"),
        Binding("f5", "panel('hosts')", "Hosts"),  # only with an Ansible inventory
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # side panels hide when narrow

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

    @dataclass
    class Warmed(Message):
        """Warming the model finished: the engine's state, and why it failed (or None)."""

        state: str
        problem: str | None

    def __init__(self, engine: ReasoningEngine) -> None:
        super().__init__()
        self.engine = engine
        self.busy = False  # an utterance or an approval is with the engine
        self.warming = False  # the model is being loaded in the background
        self.thought: Thought | None = None  # the model's thought about the current request
        self.problems_said: set[str] = set()  # why the model is not used, said once
        self.problems: list[str] = []  # settings and template problems, said at start
        self.last_trace: int | None = None  # the audit trail of the latest reply
        self.card_outcomes = CardOutcomes()  # each plan card keeps what became of its plan
        self.inventory = fleet_panel.source(engine.settings)  # the hosts panel's, or None
        # a typed "yes" runs the plan through the engine too: it asks these modals
        engine.approve_fix, engine.confirm_resume = self.ask_fix, self.ask_resume

    def compose(self) -> ComposeResult:
        log = Transcript(Bubble(GREETING, "reos"), id="log")
        log.can_focus = False  # a click in the conversation must not take the typing away
        yield Header()
        with Horizontal(id="main"):  # the conversation, and the side panels beside it
            yield log
            yield SidePanels(self.engine, id="panels")
        with Vertical(id="bottom"):
            yield Activity(id="activity")
            yield MachineLine(id="machine-line")
            yield StatusLine(self._resting(), id="llm-status")
            yield TranscriptSearch("log", id="search")
            yield PromptInput(RequestHistory(),
                              placeholder="Ask reos\u2026  (e.g. what containers are running)"
                              "  \u00b7  F1 help", id="prompt")
        yield ChatFooter(compact=True)  # fitted: 80 columns never overlap

    def on_mount(self) -> None:
        self.prompt.focus()
        for problem in self.problems:  # settings or template files that are not right
            self.say(problem, "problem")
        self.look_around()
        if self.engine.llm_state != "off":  # off: settings or REOS_LLM; nothing to load
            self.warm_model()
            self.status.rest(self._resting())

    @property
    def prompt(self) -> Input:
        return self.query_one("#prompt", Input)

    @property
    def status(self) -> StatusLine:
        return self.query_one("#llm-status", StatusLine)

    def _resting(self) -> str:
        return resting(self.engine.llm_state, self.engine.settings.llm.model, self.warming)

    @property
    def waiting(self) -> Plan | None:
        """The plan waiting for approval, when there is one and nothing else is running."""
        return None if self.busy else self.engine.pending

    @property
    def hosts_waiting(self) -> Any:
        """Plans on other machines waiting for approval, when nothing else is running."""
        return None if self.busy else self.engine.session.hosts

    # -- showing -------------------------------------------------------------------
    def say(self, text: str, who: str = "reos") -> None:
        # the transcript follows by itself (anchored) unless the person scrolled back
        self.query_one(Transcript).add(Bubble(text, who))

    def show_event(self, event: Event) -> None:
        self.query_one(Activity).track(event)
        for card in self.query(PlanCard):  # the step's line and output in its plan's card
            card.record(event)
        for line in narrate(event, self.engine.voice):  # the words every surface shows
            if line.style == "stage":
                self.status.reached(line.text)
            elif line.style == "thought":
                self.think(line.text)
            else:
                self.say(line.text, "reos" if line.style == "said" else line.style)

    def think(self, text: str) -> None:
        """The model's thought so far: one line, mounted once per request, then rewritten."""
        if not text.strip():
            return
        if self.thought is None:
            self.thought = Thought()
            self.query_one(Transcript).add(self.thought)
        self.thought.grow(text)

    def say_problem_once(self, problem: str | None) -> None:
        """Why the model cannot be used, said once a session (the engine words it)."""
        if not problem or problem in self.problems_said:
            return
        self.problems_said.add(problem)
        if not any(clean(problem) in bubble.text for bubble in self.query(Bubble)):
            self.say(problem, "hint")  # not already said in a reply to a request

    def tell(self, text: str) -> None:
        """A short notification (toast), never interpreted as markup."""
        self.notify(clean(text), markup=False)

    def _sync_cards(self, reply: Reply | None = None) -> None:
        """Close every open card whose plan is no longer the one the engine holds."""
        if reply is not None:  # the card of a plan this reply ran, declined or undid
            self.card_outcomes.settle(reply, list(self.query(PlanCard)), self.engine.pending)
        for hosts_card in self.query(HostsCard):
            if not hosts_card.closed and hosts_card.hosts is not self.engine.session.hosts \
                    and (reply is None or reply.hosts is not hosts_card.hosts):
                hosts_card.close("Not run: this plan is no longer waiting.")
        pending = self.engine.pending
        for card in self.query(PlanCard):
            if card.closed or card.plan is pending:
                continue
            ran = reply is not None and reply.plan is card.plan and reply.report is not None
            card.close("Approved: it ran (see below)." if ran
                       else "Not run: this plan is no longer waiting.")
        self.refresh_bindings()

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
        problems = self.engine.templates.problems  # shown here: stderr is hidden by the TUI
        if problems:
            text += "\n" + "\n".join(f"\u26a0\ufe0f {p}" for p in problems)
        self.post_message(self.Looked(text))

    def warm_model(self) -> None:
        """Load the model in the background so the first request does not wait for it.

        A daemon thread, not a Textual thread worker: those run in asyncio's default
        executor, which is joined when the app exits, so quitting while a slow or silent
        server loads would hang for up to [llm] timeout_seconds. A request never waits
        for this thread either; the engine asks the server itself."""
        self.warming = True
        threading.Thread(target=self._warm, name="reos-warm-model", daemon=True).start()

    def _warm(self) -> None:
        problem: str | None = None
        try:
            state = self.engine.warm_model()
        except Exception as exc:  # noqa: BLE001 - the chat keeps working on its own words
            state, problem = ("built-in understanding (server)",
                              plainly(exc, "Loading the model"))
        else:
            if state.startswith("built-in") and "the model is off" not in state:
                problem = self.engine.llm_problem
        self.post_message(self.Warmed(state, problem))

    def _start(self, job: Callable[[], Reply], stage: str) -> None:
        self.query_one(Transcript).follow()  # sent: the answer is what to look at now
        self.query_one(SidePanels).peek(None)  # and not hidden under a panel
        self.busy = True
        self.thought = None
        self.status.begin(stage)
        self.query_one(Activity).begin(stage)
        self.refresh_bindings()
        self._engine_worker(job)

    @work(thread=True, exclusive=True, exit_on_error=False, group="engine")
    def _engine_worker(self, job: Callable[[], Reply]) -> None:
        try:
            self.post_message(self.Replied(job()))
        except ReosError as exc:
            self.post_message(self.Failed(exc))
        except Exception as exc:  # the chat must come back to life after any failure
            self.post_message(self.Failed(ReosError(plainly(exc, "That"))))

    def ask_engine(self, text: str) -> None:
        self._start(lambda: self.engine.respond(text, self._relay), "understanding")

    def approve_pending(self, approved: bool) -> None:
        self._start(lambda: self.engine.approve(self._relay, self.ask_fix, self.ask_resume)
                    if approved else self.engine.decline(),
                    "running the plan" if approved else "declining")

    def ask(self, question: str) -> bool:
        """Ask `question` in a modal screen and wait for the answer. Called from the
        engine's worker thread: the UI thread only pushes the screen and keeps drawing.
        From the UI thread itself, or once the app is closing, the answer is no."""
        answer: Future[bool] = Future()
        try:
            self.call_from_thread(self.push_screen, ConfirmScreen(question), answer.set_result)
        except RuntimeError:  # the UI thread, or an app that is no longer running
            return False
        while self.is_running:
            try:
                return answer.result(timeout=0.2)
            except TimeoutError:  # still open: look again whether the app is closing
                continue
        return False

    def ask_fix(self, explanation: str) -> bool:
        """May this recovery fix run? (the executor's approval callback)"""
        return self.ask(fix_question(explanation))

    def ask_resume(self, report: ExecutionReport) -> bool:
        """Continue past this pause (the operations limit, or a pause for review)?"""
        return self.ask(f"{paused(report)}\n{resume_question(report)}")

    def _relay(self, event: Event) -> None:
        self.call_from_thread(self.show_event, event)

    # -- deciding ------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("approve", "deny"):  # shown in the footer only while a plan waits
            return self.waiting is not None or self.hosts_waiting is not None
        if action == "panel" and parameters == ("hosts",):
            return self.inventory is not None
        if action == "leave_panel":  # before Escape declines a plan, it leaves a panel
            panels = self.query_one(SidePanels)
            return panels.peeking is not None or self._in(panels)
        return True

    def action_help(self) -> None:
        """Keys for the focused widget (its own first) and what reos understands."""
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(keys_now(self),
                                    list(self.engine.templates.operations.values())))

    def action_search(self) -> None:
        self.query_one(TranscriptSearch).open()

    def action_log_page(self, step: int) -> None:
        self.query_one(Transcript).page(step)

    def action_context(self) -> None:
        """What reos sees on this machine, looked at again."""
        self.engine.forget_snapshot()
        self.look_around()

    def action_doctor(self) -> None:
        self.say(f"Understanding requests: {self._resting()}. For the Ollama server, docker "
                 "and sudo in detail, run \u201creos doctor\u201d in a terminal.", "hint")

    def on_transcript_search_closed(self, message: TranscriptSearch.Closed) -> None:
        self.prompt.focus()

    def action_reasoning(self) -> None:
        """The inspector: the audit trail of the latest reply (stages, alternatives,
        confidence, quality)."""
        self.say(self.engine.reasoning_of(self.last_trace), "hint")

    def action_learned(self) -> None:
        """What reflection found on this machine, with evidence and what to do."""
        found = self.engine.findings()
        self.say("\n".join(["What I've noticed on this machine:", *found]) if found
                 else "Nothing noticed yet: no command keeps failing here.", "hint")

    def action_panel(self, name: str) -> None:
        """Show or hide a side panel: beside the conversation (remembered across
        sessions), or over it on a narrow screen. The history panel takes the keys when
        it opens, so `u` works at once; closed, the typing goes back to the request."""
        panels = self.query_one(SidePanels)
        shown = panels.peek(name) if self.screen.has_class("-narrow") else panels.toggle(name)
        if shown and name == "history":
            panels.query_one(HistoryPanel).options.focus()
        elif self.focused is None or self._in(panels):
            self.prompt.focus()

    def action_leave_panel(self) -> None:
        """Escape: close the panel shown over the conversation, back to the request."""
        self.query_one(SidePanels).peek(None)
        self.prompt.focus()

    def _in(self, widget: Widget) -> bool:
        """Whether the focus is inside `widget`."""
        return self.focused is not None and widget in self.focused.ancestors_with_self

    def action_approve(self) -> None:
        if self.hosts_waiting is not None:
            self._decide_hosts(True)
        else:
            self._decide(self.waiting, True)

    def action_deny(self) -> None:
        if self.hosts_waiting is not None:
            self._decide_hosts(False)
        else:
            self._decide(self.waiting, False)

    def _decide_hosts(self, approved: bool) -> None:
        """Approve or decline the plans on other machines that wait; a yes to plans with
        a step that has no undo somewhere is asked again first (the card stays open)."""
        from reos.on_hosts import lost_for_good

        hosts = self.hosts_waiting
        again = approved and hosts is not None and (
            self.engine.session.hosts_confirming is None) and lost_for_good(hosts) is not None
        self.say("You approved the plan." if approved else "You declined the plan.", "you")
        for card in self.query(HostsCard):
            if card.hosts is hosts and not card.closed and not again:
                card.close("Approved: running it on the hosts\u2026" if approved
                           else "Declined: nothing was changed.")
                card.running = approved
        self.approve_pending(approved)

    def _decide(self, plan: Plan | None, approved: bool) -> None:
        """Approve or decline `plan`, if it is still the one waiting and nothing is running."""
        if plan is None or plan is not self.waiting:
            return
        # a plan that loses something for good is asked about again: its card stays open
        again = approved and self.engine.confirming is not plan \
            and self.engine.second_question(plan) is not None
        self.say("You approved the plan." if approved else "You declined the plan.", "you")
        for card in self.query(PlanCard):
            if card.plan is plan and not card.closed and not again:
                card.close("Approved: running it." if approved
                           else "Declined: nothing was changed.")
        self.approve_pending(approved)

    # -- reacting ------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is not self.prompt:
            return
        text = event.value.strip()
        if self.busy:
            self.tell(STILL_WORKING)  # the line stays in the input, neither sent nor lost
            return
        if not text:
            if self.waiting is not None:
                self.say(f"A plan is waiting: {SHORT_HINT}", "hint")
            return
        event.input.value = ""
        self.send_request(text)

    def send_request(self, text: str) -> None:
        """Send `text` to the engine as if typed (the palette's entries come here too)."""
        if self.busy:
            self.prompt.value = text  # kept, neither sent nor lost
            self.tell(STILL_WORKING)
            return
        self.query_one(PromptInput).remember(text)
        self.say(f"You: {text}", "you")
        self.ask_engine(text)

    def _done(self) -> None:
        """The engine finished with a request: back to saying which understanding answers."""
        self.busy = False
        self.thought = None
        self.status.rest(self._resting())
        self.query_one(Activity).end()

    def on_reos_app_replied(self, message: Replied) -> None:
        self._done()
        reply = message.reply
        if reply.plan is not None and reply.plan.trace_id is not None:
            self.last_trace = reply.plan.trace_id
        self.query_one(SidePanels).refresh_all(self.last_trace)
        for text, severity in toasts(reply):
            self.notify(text, markup=False, severity=severity)  # type: ignore[arg-type]
        self._sync_cards(reply)
        if reply.hosts is not None:
            self._show_hosts(reply)
        elif reply.awaiting_approval and reply.plan is not None \
                and reply.plan is self.engine.pending:
            shown = [c for c in self.query(PlanCard)
                     if c.plan is reply.plan and not c.closed]
            if shown:  # approved once, and it loses something for good: asked again
                shown[-1].ask_again(reply.text)
            else:
                if reply.first:
                    self.say(reply.first)
                self.query_one(Transcript).add(PlanCard(reply.plan))
        else:
            self.say(reply.text)
            if reply.awaiting_approval and reply.plan is None:  # an undo waits for a yes
                self.say("Say yes to go ahead, or no.", "hint")
            elif self.engine.pending is not None:  # something else was said; the plan waits
                self.say(f"The plan above is still waiting: {SHORT_HINT}", "hint")
        self.refresh_bindings()
        if self.focused is None or self.focused.disabled:
            self.prompt.focus()

    def _show_hosts(self, reply: Reply) -> None:
        """Plans on other machines: a card with a host column (waiting for a yes, or
        closed), and how they ran, on the card that showed them."""
        for stale in self.query(HostsCard):
            if stale.running and stale.hosts is not reply.hosts:  # read again: it changed
                stale.running = False
                stale.close("Not run: the hosts changed since they were read; the plan "
                            "as they are now is below.")
        if reply.first:
            self.say(reply.first)
        cards = [c for c in self.query(HostsCard) if c.hosts is reply.hosts]
        card = cards[-1] if cards else None
        if card is None:
            card = HostsCard(reply.hosts, waiting=reply.awaiting_approval)
            self.query_one(Transcript).add(card)
        elif reply.awaiting_approval:  # approved once: what cannot be taken back is asked
            card.ask_again(reply.text)
        if reply.hosts_applied is not None:
            card.ran(reply.hosts_applied)
            if reply.hosts.changes:  # how to undo it, or that nothing changed
                self.say(reply.text.splitlines()[-1])
        elif not reply.awaiting_approval and not reply.hosts.runnable:
            card.close("Nothing to run on these hosts.")

    def on_reos_app_failed(self, message: Failed) -> None:
        self._done()
        for card in self.query(HostsCard):
            if card.running:  # approved, and the run failed before it said how it went
                card.running = False
                card.close(f"Stopped: {message.error}")
        self._sync_cards()
        self.say(str(message.error), "problem")
        if self.focused is None or self.focused.disabled:
            self.prompt.focus()

    def on_reos_app_looked(self, message: Looked) -> None:
        self.say(message.text)

    def on_reos_app_warmed(self, message: Warmed) -> None:
        self.warming = False
        if message.problem:
            self.say_problem_once(message.problem)
        self.status.answers(resting(message.state, self.engine.settings.llm.model))

    def on_plan_card_approved(self, message: PlanCard.Approved) -> None:
        self._decide(message.plan, True)

    def on_plan_card_denied(self, message: PlanCard.Denied) -> None:
        self._decide(message.plan, False)

    def on_plan_card_edited(self, message: PlanCard.Edited) -> None:
        """A step's command edited on its card: judged again before it counts."""
        from reos.editing import edit_step

        plan = message.plan
        refusal = "this plan is no longer waiting" if plan is None or plan is not self.waiting \
            else edit_step(plan, message.step_id, message.text)
        if refusal is None:
            self.engine.session.reconsider()  # what is lost may have changed: ask again
        self.say(f"You edited {step_words(message.step_id)}: {message.text}"
                 + ("" if refusal is None else f" \u2014 refused: {refusal}"), "you")
        message.card.judged(message.step_id, refusal)


def run_tui() -> int:
    from reos.startup import open_engine

    problems: list[str] = []
    app = ReosApp(open_engine(warn=problems.append))
    app.problems = problems  # said in the chat once it is on screen
    app.run()
    return 0
