"""The chat's transcript and input line: following, paging, searching, recalling.

`Transcript` is the scrolling log of the conversation. It is anchored: it follows new
messages (also across a resize) until the person scrolls back, and follows again once
they scroll to the end, send something (`follow`) or close a search that moved the view
(the next message is followed). `page` scrolls it by a screen while the focus stays in
the input. `TranscriptSearch` is the `/` search line: it marks every message containing
the text and scrolls to one (Enter: the next), Escape closes it. `PromptInput` is the request
line; up / down recall earlier requests, kept by `RequestHistory` in a file under the
data directory across sessions; on an empty line `?` and `/` open help and the search,
inside a request they are text, however quickly typed. `CardOutcomes` keeps each plan
card in the transcript with what became of its plan (ran, paused, failed, rolled back,
declined, later undone), through the card's `close(note)`, read from the reply's typed
outcome, never its words.

What is recalled is a request the person typed, cleaned, one line each, at most
`HISTORY_LIMIT` lines. Answers to an approval (yes / no and their synonyms, as the
engine perceives them) are never kept: recalling "yes" and pressing Enter out of habit
must never approve the plan of the day. Not responsible for what a request means (the
engine is) nor for the messages' look (reos/tui/widgets.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Input

from reos import paths
from reos.patterns import regex
from reos.text import clean

HISTORY_LIMIT = 500
HISTORY_FILE = "requests.history"
MATCH = "-search-match"  # the class marking a message that contains the searched text
CURRENT = "-search-current"
CHAT_KEYS = {"?": "app.help", "/": "app.search"}  # on an empty request line only


class RequestHistory:
    """Requests typed earlier, oldest first, kept in a file under the data directory."""

    def __init__(self, path: Path | None = None, limit: int = HISTORY_LIMIT) -> None:
        self.path = path or paths.data_dir() / HISTORY_FILE
        self.limit = limit
        self.lines: list[str] = self._read()

    def _read(self) -> list[str]:
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:  # none yet, or unreadable: start with an empty memory
            return []
        return [line for line in (clean(raw).strip() for raw in text.splitlines()) if line
                ][-self.limit:]

    @staticmethod
    def keeps(text: str) -> bool:
        """Whether a line is worth recalling: not empty, not an answer to an approval."""
        from reos.understanding.perception import perceive

        meta = perceive(text)
        return bool(text.strip()) and (meta is None or meta.action not in ("yes", "no"))

    def add(self, text: str) -> None:
        line = " ".join(clean(text).split())
        if not self.keeps(line):
            return
        if self.lines and self.lines[-1] == line:
            return  # the same request twice in a row is recalled once
        self.lines = [*self.lines, line][-self.limit:]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text("\n".join(self.lines) + "\n", encoding="utf-8")
        except OSError:
            pass  # a read-only home loses the memory, never the chat


class PromptInput(Input):
    """The request line; up and down walk through the requests typed before, and on an
    empty line ? and / open help and the search."""

    BINDINGS = [
        Binding("up", "recall(-1)", "Earlier request", show=False),
        Binding("down", "recall(1)", "Later request", show=False),
        # an input line has nothing to page; the conversation above it does
        Binding("pageup", "app.log_page(-1)", "Scroll the conversation back", show=False),
        Binding("pagedown", "app.log_page(1)", "Scroll the conversation on", show=False),
    ]

    def __init__(self, history: RequestHistory, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.history = history
        self.recalling: int | None = None  # index into history.lines while walking it
        self.draft = ""  # what was typed before walking back, restored at the end

    def check_consume_key(self, key: str, character: str | None) -> bool:
        # on an empty line ? and / are the chat's keys (help, search); inside a request, text
        if character in CHAT_KEYS and not self.value:
            return False
        return super().check_consume_key(key, character)

    async def _on_key(self, event: events.Key) -> None:
        # Decided here, where the keys arrive in the order they were typed, never by an app
        # binding: the app sees a key before this line has taken the ones typed just
        # before it, so quick typing made the ? of "port 80?" look like one on an empty line.
        if event.character in CHAT_KEYS and not self.value:
            event.stop()
            event.prevent_default()  # not inserted: it opens help or the search instead
            await self.run_action(CHAT_KEYS[event.character])

    def remember(self, text: str) -> None:
        self.history.add(text)
        self.recalling = None

    def action_recall(self, step: int) -> None:
        lines = self.history.lines
        if not lines:
            return
        if self.recalling is None:
            if step > 0:
                return
            self.draft = self.value
            index = len(lines) - 1
        else:
            index = self.recalling + step
        if index < 0:
            index = 0
        if index >= len(lines):
            self.recalling = None
            self.value = self.draft
        else:
            self.recalling = index
            self.value = lines[index]
        self.cursor_position = len(self.value)


class Transcript(VerticalScroll):
    """The conversation; follows new messages unless the person scrolled back."""

    def __init__(self, *messages: Widget, **kwargs: Any) -> None:
        super().__init__(*messages, **kwargs)
        self.follow_next = False  # the next message brings the view back to the end

    def on_mount(self) -> None:
        self.anchor()

    @property
    def following(self) -> bool:
        return self.is_anchored and not self._anchor_released

    def add(self, message: Widget) -> None:
        """Show a new message: at the end, and in view unless the person reads back."""
        self.mount(message)
        if self.follow_next:
            self.follow()

    def follow(self) -> None:
        """Follow the newest message again, wherever the view was (a request was sent)."""
        self.follow_next = False
        self.scroll_end(animate=False)  # at the end, Textual's anchor holds again

    def resume_following(self) -> None:
        """The search closed: the view stays on what was found, and the next message is
        followed again (a search scrolls like a person, so it let the anchor go)."""
        self.follow_next = True

    def page(self, step: int) -> None:
        """One screen back (-1) or forward (1); back stops following, the end resumes."""
        if step < 0:
            self.scroll_page_up(animate=False)
        else:
            self.scroll_page_down(animate=False)


def searchable(widget: Widget) -> str:
    """The text a message shows (bubbles and plan cards keep it in `text`)."""
    text = getattr(widget, "text", "")
    return text if isinstance(text, str) else ""


class TranscriptSearch(Input):
    """The `/` search line over the transcript: marks matches, Enter goes to the next."""

    SCOPED_CSS = False  # the marks are drawn on the transcript's messages
    DEFAULT_CSS = """
    TranscriptSearch { display: none; }
    .-search-match { background: $warning 15%; }
    .-search-current { background: $warning 35%; }
    """
    BINDINGS = [Binding("escape", "close", "Close search")]

    class Closed(Message):
        """The person closed the search; the focus goes back to the request line."""

    def __init__(self, transcript_id: str, **kwargs: object) -> None:
        super().__init__(placeholder="Find in the conversation (Enter: next, Escape: close)",
                         **kwargs)  # type: ignore[arg-type]
        self.transcript_id = transcript_id
        self.matches: list[Widget] = []
        self.current = -1

    @property
    def transcript(self) -> Transcript:
        return self.app.query_one(f"#{self.transcript_id}", Transcript)

    def open(self) -> None:
        self.display = True
        self.value = ""
        self.focus()

    def find(self, text: str) -> list[Widget]:
        """Mark every message containing `text` (any case); the first is scrolled to."""
        wanted = clean(text).strip().casefold()
        self.clear_marks()
        self.matches = [w for w in self.transcript.children
                        if wanted and wanted in searchable(w).casefold()]
        for widget in self.matches:
            widget.add_class(MATCH)
        self.current = -1
        if self.matches:
            self.next_match()
        return self.matches

    def next_match(self) -> None:
        if not self.matches:
            return
        if self.current >= 0:
            self.matches[self.current].remove_class(CURRENT)
        self.current = (self.current + 1) % len(self.matches)
        widget = self.matches[self.current]
        widget.add_class(CURRENT)
        self.transcript.scroll_to_widget(widget, animate=False, top=True)

    def clear_marks(self) -> None:
        for widget in self.transcript.query(f".{MATCH}"):
            widget.remove_class(MATCH, CURRENT)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.find(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # never a request: the app only sends the prompt's lines
        self.next_match()

    def action_close(self) -> None:
        self.clear_marks()
        if self.current >= 0:  # the view was taken to a match: new answers bring it back
            self.transcript.resume_following()
        self.matches, self.current = [], -1
        self.display = False
        self.post_message(self.Closed())


# What became of a decided plan, by the reply's typed outcome (reos.outcome.Outcome).
NOTES = {
    "ran": "Approved: it ran to the end (see below).",
    "paused": "Approved: it ran and paused before the end; it can be continued (see below).",
    "failed": "Approved: a step failed (see below); nothing was rolled back.",
    "rolled_back": "Approved: a step failed, and what had run was rolled back (see below).",
    "declined": "Declined: nothing was changed.",
}
UNDONE = "Undone later: its changes were reverted."
UNDO_FAILED = "Undo was tried later and did not finish (see below)."


class CardOutcomes:
    """Notes each plan card with its plan's outcome, and later with its undo."""

    def __init__(self) -> None:
        self.ran: dict[int, tuple[Any, str]] = {}  # transaction id -> (card, its note)

    def settle(self, reply: Any, cards: list[Any], pending: Any = None) -> None:
        """After `reply`: note the card of the plan it decided or ran, or the card whose
        transaction it undid. Cards still waiting or untouched by the reply are left.
        A typed "no" names no plan: it declined the open card that no longer waits."""
        outcome = getattr(getattr(reply, "outcome", None), "value", None)
        for card in cards:
            declined_by_word = outcome == "declined" and reply.plan is None \
                and not card.closed and card.plan is not pending
            if card.plan is None or (reply.plan is not card.plan and not declined_by_word):
                continue
            note = NOTES.get(outcome or "")
            if note is None:
                continue
            card.close(note)
            tx = reply.report.tx_id if reply.report is not None else None
            if tx is not None:
                self.ran[tx] = (card, note)
        undone: Any = getattr(reply, "undone", None)
        transaction = getattr(undone, "transaction", None)
        if transaction is not None and transaction.id in self.ran:
            card, note = self.ran[transaction.id]
            card.close(f"{note} {UNDONE if undone.ok else UNDO_FAILED}")


_LEAD = regex(r"^(\s*)((?:[-\u2022\u2502*]|\d+[.)]|\$)\s+)?")


class Hanging:
    """Text that wraps with a hanging indent: a wrapped line continues under the start
    of its own text (after its indentation and any bullet, number or `$`), so a long
    command or step stays readable at 80 columns. A Rich renderable; the text is shown
    as given (clean it first)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.text import Text

        width = max(options.max_width, 1)
        for raw in self.text.split("\n"):
            lead = _LEAD.match(raw)
            hang = len(lead.group(0)) if lead else 0
            if hang > width // 2:
                hang = 0  # a deep indent on a narrow screen: wrap plainly
            lines = Text(raw).wrap(console, width)
            if len(lines) <= 1:
                yield Text(raw)
                continue
            first = lines[0].plain.rstrip()
            yield Text(first)
            tail = raw[len(first):].strip()
            for line in Text(tail).wrap(console, width - hang):
                yield Text(" " * hang + line.plain.rstrip())
