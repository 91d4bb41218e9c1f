"""Signs of life in the chat: a spinner for the work under way, the machine line, toasts.

`Activity` is one line above the input: a spinner with the seconds elapsed for the step
that is running (from `StepStarted` to `StepFinished`) or, between steps, for the request
the engine is working on; it is hidden when nothing runs. `MachineLine` says where reos
works: host, user, what sudo allows (probed once with `sudo -n true`, bounded, never
prompting) and the snapshot's age, in the header's sub-title, so it costs no row of an
80x24 screen; which understanding answers stays on the StatusLine (reos/tui/status.py).
`toasts` turns a reply's typed outcome (a paused plan, a rollback, an undo) into short
notifications.

Not responsible for what runs or when (the engine), for the stage line of a request
(reos/tui/status.py), or for how a step's output is written into the conversation (the
app's renderer).
"""

from __future__ import annotations

import getpass
import os
import time
from datetime import UTC, datetime

from textual import work
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from reos.model.events import Event, StepFinished, StepStarted
from reos.text import clean

SPINNER = "\u280b\u2819\u2839\u2838\u283c\u2834\u2826\u2827\u2807\u280f"
TICK = 0.1  # seconds between spinner frames
SUDO_SECONDS = 3.0  # `sudo -n true` answers at once or not at all

ROOT = "root"
SUDO_FREE = "sudo without password"
SUDO_PASSWORD = "sudo needs a password"
NO_SUDO = "no sudo"
SUDO_UNKNOWN = "sudo: checking\u2026"


class Activity(Static):
    """A spinner and the seconds elapsed for what is being worked on right now."""

    DEFAULT_CSS = """
    Activity { height: 1; padding: 0 1; color: $accent; display: none; }
    Activity.-working { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.request: str | None = None  # what the engine is working on, between steps
        self.steps: dict[str, tuple[str, float]] = {}  # running step id -> (title, since)
        self.since = 0.0
        self.frame = 0
        self.text = ""
        self._ticker: Timer | None = None

    @property
    def working(self) -> bool:
        return self.request is not None or bool(self.steps)

    def begin(self, what: str) -> None:
        """A request or an approval went to the engine."""
        self.request = clean(what)
        self.since = time.monotonic()
        self._show()

    def track(self, event: Event) -> None:
        """Follow the engine's events: a step starts spinning, a finished one stops."""
        if isinstance(event, StepStarted):
            self.steps[event.step.id] = (clean(event.step.title), time.monotonic())
        elif isinstance(event, StepFinished):
            self.steps.pop(event.step.id, None)
        else:
            return
        self._show()

    def end(self) -> None:
        """The engine answered: nothing is being worked on any more."""
        self.request = None
        self.steps.clear()
        self._show()

    def _show(self) -> None:
        self.set_class(self.working, "-working")
        if not self.working:
            if self._ticker is not None:
                self._ticker.stop()
                self._ticker = None
            self.text = ""
            self.update("")
            return
        if self._ticker is None and self.is_mounted:
            self._ticker = self.set_interval(TICK, self._spin)
        self._render_line()

    def _spin(self) -> None:
        self.frame = (self.frame + 1) % len(SPINNER)
        self._render_line()

    def _render_line(self) -> None:
        if self.steps:
            title, since = list(self.steps.values())[-1]
        else:
            title, since = self.request or "", self.since
        self.text = f"{SPINNER[self.frame]} {title}\u2026 {int(time.monotonic() - since)} s"
        self.update(self.text)


# -- where reos works ----------------------------------------------------------------
def probe_sudo() -> str:
    """What sudo allows, in the status line's words: `sudo -n true` asked once (never
    prompting, at most SUDO_SECONDS, `reos.system.sudo`); call it in a worker."""
    from reos.system import sudo

    try:
        found = sudo.probe(SUDO_SECONDS)
    except Exception:  # noqa: BLE001 - a status line never breaks the chat
        return NO_SUDO
    return {sudo.ROOT: ROOT, sudo.FREE: SUDO_FREE, sudo.PASSWORD: SUDO_PASSWORD}.get(
        found.state, NO_SUDO)


def age(collected_at: str, now: datetime | None = None) -> str:
    """How old a snapshot is, in words ("just now", "3 min", "2 h", "1 d")."""
    try:
        then = datetime.fromisoformat(collected_at.replace("Z", "+00:00"))
        if then.tzinfo is None:
            then = then.replace(tzinfo=UTC)
    except (ValueError, AttributeError):
        return "unknown age"
    seconds = max(0, int(((now or datetime.now(UTC)) - then).total_seconds()))
    if seconds < 60:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} old"
    return "just now"  # pragma: no cover - the loop always answers


def user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no name for this uid (a bare container)
        return str(os.geteuid())


class MachineLine(Widget):
    """host · user · sudo state · snapshot age, kept up to date in the header's sub-title
    (the header is there anyway; a row of its own would cost the conversation a line at
    80x24). Which understanding answers is on the StatusLine above the input."""

    DEFAULT_CSS = """
    MachineLine { display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.host = "this machine"
        self.user = clean(user())
        self.sudo = SUDO_UNKNOWN
        self.collected_at = ""
        self.text = ""

    def on_mount(self) -> None:
        self._show()
        self.set_interval(30.0, self._show)  # the snapshot's age moves on by itself
        self._probe_sudo()

    @work(thread=True, exit_on_error=False, group="sudo")
    def _probe_sudo(self) -> None:
        state = probe_sudo()
        self.app.call_from_thread(self.sudo_is, state)

    def machine(self, host: str, collected_at: str) -> None:
        self.host, self.collected_at = clean(host) or "this machine", collected_at
        self._show()

    def sudo_is(self, state: str) -> None:
        self.sudo = clean(state)
        self._show()

    def _show(self) -> None:
        parts = [self.host, f"user {self.user}", self.sudo]
        if self.collected_at:
            parts.append(f"snapshot {age(self.collected_at)}")
        self.text = " \u00b7 ".join(parts)
        if self.is_attached:
            self.app.sub_title = self.text  # shown as plain text (Content), never markup


# -- toasts ----------------------------------------------------------------------------
def toasts(reply: object) -> list[tuple[str, str]]:
    """(text, severity) for a reply's outcome worth a toast: a pause, a rollback, an undo.
    Read from the typed fields (`report.stop`, `report.rolled_back`, `undone`)."""
    said: list[tuple[str, str]] = []
    report = getattr(reply, "report", None)
    if report is not None:
        if report.stop is not None:
            why = report.stopped_reason or report.stop.value
            verb = "Paused" if report.resumable else "Stopped"
            said.append((f"{verb}: {why}", "warning"))
        if report.rolled_back is not None:
            said.append((f"Rolled back: {report.rolled_back.describe()}",
                         "information" if report.rolled_back.ok else "error"))
    undone = getattr(reply, "undone", None)
    if undone is not None:
        said.append((undone.describe(), "information" if undone.ok else "warning"))
    return [(clean(text), severity) for text, severity in said]
