"""reos's own entries in the command palette (ctrl+p): its commands and live targets.

Commands are requests reos understands ("undo", "what can you undo", the verbosity
levels) and the chat's own views (help, context, doctor, the reasoning inspector, the
search, any panel toggles the app binds). Targets come from the machine as last seen:
"restart nginx.service", "logs of portainer", "stop <container>".

Choosing an entry never runs anything by itself: a request is sent to the engine
exactly as if typed (the app's `send_request`), so a change still shows a plan and
waits for approval. Names from the machine are cleaned before they are shown or sent.
Not responsible for what a request does (the engine is) nor for collecting the
machine's state (reos.system, through the engine's snapshot).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any, Protocol

from msgspec import Struct
from textual.command import DiscoveryHit, Hit, Hits, Provider

from reos.text import clean

SERVICE_LIMIT = 40  # the palette is a shortcut, not an inventory


class Chat(Protocol):
    """What the palette needs of the app."""

    engine: Any

    def send_request(self, text: str) -> None: ...


class Entry(Struct, frozen=True):
    """One palette line: its title, what it does, and a request or an app action."""

    title: str
    help: str
    request: str | None = None
    action: str | None = None


COMMANDS = [
    Entry("Undo the last change", "asks before undoing (sends \u201cundo\u201d)", "undo"),
    Entry("What can you undo?", "the changes that can still be undone",
          "what can you undo"),
    Entry("History of changes", "what reos did, newest first", "show history"),
    Entry("Verbosity: minimal", "short answers for this session", "be brief"),
    Entry("Verbosity: normal", "the usual amount of detail", "normal verbosity"),
    Entry("Verbosity: detailed", "commands, risk and undo for every step",
          "be more detailed"),
    Entry("Help", "keys and what reos understands", action="help"),
    Entry("Context: what reos sees", "containers and the host, looked at again",
          action="context"),
    Entry("Doctor: what reos can use", "the model and how to check docker and sudo",
          action="doctor"),
    Entry("Reasoning of the latest reply", "the audit trail (ctrl+r)", action="reasoning"),
    Entry("What reos has learned", "reflection's findings (ctrl+l)", action="learned"),
    Entry("Search the conversation", "find a line in the transcript (/)", action="search"),
    Entry("Quit", "leave the chat (ctrl+q)", action="quit"),
]


def targets(snapshot: Any) -> list[Entry]:
    """Requests about what is on the machine: containers first, then services."""
    found: list[Entry] = []
    for c in getattr(snapshot, "containers", None) or []:
        name = clean(c.name).strip()
        if not name or name.split() != [name]:
            continue  # a name with spaces could not be sent back as one target
        verbs = ("stop", "restart") if c.running else ("start",)
        found += [Entry(f"{verb} {name}", f"container ({clean(c.state)})", f"{verb} {name}")
                  for verb in verbs]
        found.append(Entry(f"logs of {name}", "container logs", f"logs of {name}"))
    services = [s for s in getattr(snapshot, "services", None) or []
                if clean(s.name).strip().endswith(".service")]
    failed_first = sorted(services, key=lambda s: (s.active != "failed", s.name))
    for s in failed_first[:SERVICE_LIMIT]:
        name = clean(s.name).strip()
        verb = "restart" if s.active in ("active", "failed") else "start"
        found.append(Entry(f"{verb} {name}", f"service ({clean(s.active)})", f"{verb} {name}"))
        found.append(Entry(f"logs of {name}", "service logs", f"logs of {name}"))
    return found


def toggles(app: Any) -> list[Entry]:
    """Panel toggles the app binds (`panel(...)` or `toggle_*` actions), if any."""
    entries: list[Entry] = []
    for _key, binding in app._bindings:  # the app's own BINDINGS, keymap applied
        action = binding.action.removeprefix("app.")
        if action.startswith(("toggle", "panel(")) and binding.description:
            entries.append(Entry(f"Panel: {clean(binding.description)}", f"key {binding.key}",
                                 action=action))
    return entries


class ReosCommands(Provider):
    """Palette hits for reos's commands and the machine's containers and services."""

    async def startup(self) -> None:
        app: Any = self.app
        self.entries = COMMANDS + toggles(app)
        try:  # the snapshot may be collected now; never in the event loop's thread
            snapshot = await asyncio.to_thread(app.engine.snapshot)
        except Exception:  # noqa: BLE001 - no machine view: the commands still work
            snapshot = None
        self.entries = self.entries + targets(snapshot)

    def choose(self, entry: Entry) -> None:
        app: Any = self.app
        if entry.request is not None:
            app.send_request(entry.request)
        elif entry.action is not None:
            app.call_later(app.run_action, entry.action)

    def _hits(self) -> Iterator[tuple[Entry, Callable[[], None]]]:
        for entry in self.entries:
            yield entry, partial(self.choose, entry)

    async def discover(self) -> Hits:
        for entry, run in self._hits():
            yield DiscoveryHit(entry.title, run, text=entry.title, help=entry.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for entry, run in self._hits():
            score = matcher.match(entry.title)
            if score > 0:
                yield Hit(score, matcher.highlight(entry.title), run, text=entry.title,
                          help=entry.help)
