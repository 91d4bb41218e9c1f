"""The chat's side panels: the machine, the history of changes, the reasoning inspector.

Each panel is toggled by a key (F2 machine, F3 history, F4 reasoning) and the choice is
remembered across sessions in `panels.json` under the data directory (a damaged or
unreadable file is ignored: every panel starts hidden). On a narrow screen (under 100
columns) there is no room beside the conversation: the column stays hidden, and a
panel's key opens that one panel over the conversation, full width (`peek`), until the
same key, Escape or the next request closes it; that is not remembered.

- *machine*: containers and services with their state, failed units first; refreshed in
  a thread worker after every reply and on a timer, never blocking the input;
- *history*: recent transactions (`engine.history()`), undoable ones marked; `u` on the
  newest undoable one asks in a modal, then undoes it in a worker, and a toast says how
  it went;
- *reasoning*: the audit trail of the latest reply (`engine.reasoning_of`), or of the
  plan card the focus is in.

Everything shown goes through `reos.text.clean` without markup. Not responsible for
what undo does (the engine and reos/execution/undo.py) nor for collecting the snapshot.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Label, OptionList, Static
from textual.widgets.option_list import Option

from reos import paths
from reos.errors import plainly
from reos.text import clean

PANELS = ("machine", "history", "reasoning", "hosts")
REFRESH_SECONDS = 30.0  # the machine panel re-reads the machine this often
HISTORY_LIMIT = 20
UNDOABLE = "\u21b6"  # marks a transaction that can be undone
FAILED, RUNNING, STOPPED = "\u2717", "\u25cf", "\u25cb"


# -- what is remembered ------------------------------------------------------------------
def choice_file() -> Path:
    return paths.data_dir() / "panels.json"


def load_choice() -> dict[str, bool]:
    """Which panels are shown; a missing, unreadable or damaged file shows none."""
    try:
        data = json.loads(choice_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return dict.fromkeys(PANELS, False)
    if not isinstance(data, dict):
        return dict.fromkeys(PANELS, False)
    return {name: data.get(name) is True for name in PANELS}


def save_choice(choice: dict[str, bool]) -> None:
    """Remember the choice; a data directory that cannot be written only forgets it."""
    try:
        choice_file().parent.mkdir(parents=True, exist_ok=True)
        choice_file().write_text(json.dumps(choice, sort_keys=True) + "\n", encoding="utf-8")
    except OSError:
        pass


# -- what the panels show ------------------------------------------------------------------
def machine_lines(snap: Any) -> list[str]:
    """Containers and services with their state, failed units first in each list."""
    lines: list[str] = []
    if snap.containers is None:
        why = snap.unavailable.get("containers", "unknown")
        lines.append(f"Containers: unavailable ({why})")
    else:
        containers = sorted(snap.containers,
                            key=lambda c: (c.state not in ("dead", "restarting"),
                                           c.state == "running", c.name))
        lines.append(f"Containers ({len(containers)})")
        lines += [f"{RUNNING if c.state == 'running' else STOPPED} {c.name}  {c.state}"
                  for c in containers]
    if snap.services is None:
        lines.append(f"Services: unavailable ({snap.unavailable.get('services', 'unknown')})")
    else:
        services = sorted(snap.services, key=lambda s: (s.active != "failed", s.name))
        lines.append(f"Services ({len(services)})")
        lines += [f"{FAILED if s.active == 'failed' else ' '} {s.name}  {s.active}/{s.sub}"
                  for s in services]
    return [clean(line) for line in lines]


def history_label(tx: Any, next_undo: int | None) -> str:
    mark = UNDOABLE if tx.undoable else " "
    when = (tx.started_at or "")[:16].replace("T", " ")
    nxt = "  (u: undo)" if tx.id == next_undo else ""
    return clean(f"{mark} #{tx.id} {when} {tx.status}: {tx.request}{nxt}")


class Panel(VerticalScroll):
    """One side panel: a title and its lines."""

    DEFAULT_CSS = """
    Panel { height: 1fr; border: round $primary; padding: 0 1; display: none; }
    Panel.-shown { display: block; }
    Panel .body { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, title: str, *, id: str) -> None:
        super().__init__(id=id)
        self.border_title = title
        self.can_focus = False

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, classes="body")

    @property
    def text(self) -> str:
        return str(self.query_one(".body", Static).render())

    def show_lines(self, lines: list[str]) -> None:
        self.query_one(".body", Static).update("\n".join(clean(line) for line in lines))


class HistoryPanel(Vertical):
    """Recent transactions; `u` undoes the newest undoable one, after a yes."""

    DEFAULT_CSS = """
    HistoryPanel { height: 1fr; border: round $primary; display: none; }
    HistoryPanel.-shown { display: block; }
    HistoryPanel OptionList { height: 1fr; border: none; }
    """
    BINDINGS = [Binding("u", "undo", "Undo selected")]

    @dataclass
    class UndoAsked(Message):
        """The person asked to undo this transaction (the newest undoable one)."""

        tx_id: int
        request: str

    def __init__(self, *, id: str) -> None:
        super().__init__(id=id)
        self.border_title = "History (F3)  \u21b6 undoable"
        self.records: list[Any] = []
        self.next_undo: int | None = None

    def compose(self) -> ComposeResult:
        yield OptionList(id="history-list")

    @property
    def options(self) -> OptionList:
        return self.query_one("#history-list", OptionList)

    def show(self, records: list[Any]) -> None:
        self.records = records
        self.next_undo = next((tx.id for tx in records
                               if tx.kind == "action" and tx.undoable), None)
        options = self.options
        highlighted = options.highlighted
        options.clear_options()
        if not records:
            options.add_option(Option("Nothing done yet.", disabled=True))
            return
        options.add_options([Option(history_label(tx, self.next_undo), id=str(tx.id))
                             for tx in records])
        options.highlighted = min(highlighted or 0, len(records) - 1)

    @property
    def selected(self) -> Any | None:
        index = self.options.highlighted
        if index is None or not self.records or index >= len(self.records):
            return None
        return self.records[index]

    def action_undo(self) -> None:
        tx = self.selected
        if tx is None:
            return
        if not tx.undoable:
            self.app.notify(clean(f"#{tx.id} cannot be undone."), markup=False,
                            severity="warning")
        elif tx.id != self.next_undo:
            self.app.notify(clean(f"Undo goes newest first: undo #{self.next_undo} before "
                                  f"#{tx.id}."), markup=False, severity="warning")
        else:
            self.post_message(self.UndoAsked(tx.id, tx.request))


class ConfirmUndo(ModalScreen[bool]):
    """Yes or no to undoing one transaction; Escape or n is no."""

    DEFAULT_CSS = """
    ConfirmUndo { align: center middle; }
    ConfirmUndo > Vertical { width: 60; height: auto; border: thick $warning;
                             background: $surface; padding: 1 2; }
    ConfirmUndo Horizontal { height: auto; margin-top: 1; }
    """
    BINDINGS = [Binding("y", "answer(True)", "Yes, undo"),
                Binding("n,escape", "answer(False)", "No")]

    def __init__(self, request: str) -> None:
        super().__init__()
        self.request = clean(request)

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Undo \u201c{self.request}\u201d? This reverts what it changed.",
                        markup=False)
            with Horizontal():
                yield Button("Yes, undo (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class SidePanels(Vertical):
    """The column of side panels on the right of the conversation, or on a narrow screen
    the one panel asked for, over it."""

    SCOPED_CSS = False  # the narrow rules start at the Screen, outside this widget
    DEFAULT_CSS = """
    SidePanels { width: 46; height: 1fr; display: none; }
    SidePanels.-shown { display: block; }
    Screen.-narrow SidePanels { display: none; }
    Screen.-narrow SidePanels.-peeking { display: block; layer: panels; width: 100%;
                                         background: $background; }
    Screen.-narrow SidePanels.-peeking > Panel { display: none; }
    Screen.-narrow SidePanels.-peeking > HistoryPanel { display: none; }
    Screen.-narrow SidePanels.-peeking > .-peeked { display: block; }
    """

    @dataclass
    class Looked(Message):
        """The machine was read: host name and when the snapshot was taken."""

        host: str
        collected_at: str

    @dataclass
    class Undone(Message):
        """Undo from the history panel finished (the engine's report)."""

        report: Any

    def __init__(self, engine: Any, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.engine = engine
        self.choice = load_choice()
        self.peeking: str | None = None  # narrow screen: the panel shown over the chat
        self.trace_id: int | None = None
        self.reached: dict[str, Any] | None = None  # the hosts panel: each host's answer
        self.reached_at: float | None = None
        self.reaching = False  # one reach of the hosts at a time

    def compose(self) -> ComposeResult:
        yield Panel("Machine (F2)", id="panel-machine")
        yield HistoryPanel(id="panel-history")
        yield Panel("Reasoning (F4)", id="panel-reasoning")
        yield Panel("Hosts (F5)", id="panel-hosts")

    def on_mount(self) -> None:
        self._arrange()
        self.refresh_all()
        if self.choice.get("hosts"):
            self._read_hosts(reach=True)
        self.set_interval(REFRESH_SECONDS, self._tick)
        self.watch(self.screen, "focused", self._focus_moved, init=False)

    def _focus_moved(self, focused: Widget | None) -> None:
        """The focus went into a plan card: the inspector shows that reply's reasoning."""
        for node in focused.ancestors_with_self if focused is not None else []:
            trace = getattr(getattr(node, "plan", None), "trace_id", None)
            if isinstance(trace, int):
                if trace != self.trace_id:
                    self.trace_id = trace
                    self._read_journal()
                return

    def _tick(self) -> None:
        if self.display and self.panel("machine").display:  # nobody looks: nothing to do
            self.refresh_machine()

    def panel(self, name: str) -> Panel | HistoryPanel:
        return self.query_one(f"#panel-{name}", Panel | HistoryPanel)  # type: ignore[arg-type]

    def toggle(self, name: str) -> bool:
        """Show or hide one panel in the column, and remember the choice; shown now?"""
        self.choice[name] = not self.choice.get(name, False)
        save_choice(self.choice)
        self._arrange()
        if self.choice[name]:
            self.refresh_all()
            if name == "hosts":
                self._read_hosts(reach=True)
        return self.choice[name]

    def peek(self, name: str | None) -> bool:
        """Show one panel over the conversation (a narrow screen), another panel's in
        its place, or none (`None`, or the key of the one shown); shown now?"""
        self.peeking = None if name == self.peeking else name
        self._arrange()
        if self.peeking is not None:
            self.refresh_all()
            if self.peeking == "hosts":
                self._read_hosts(reach=True)
        return self.peeking is not None

    def _arrange(self) -> None:
        for name in PANELS:
            self.panel(name).set_class(self.choice.get(name, False), "-shown")
            self.panel(name).set_class(name == self.peeking, "-peeked")
            self.panel(name).border_subtitle = "Escape closes" if name == self.peeking else ""
        self.set_class(any(self.choice.values()), "-shown")
        self.set_class(self.peeking is not None, "-peeking")

    # -- refreshing ------------------------------------------------------------------------
    def refresh_all(self, trace_id: int | None = None) -> None:
        """After a reply (and when shown): re-read the machine, the history, the reasoning."""
        if trace_id is not None:
            self.trace_id = trace_id
        self.refresh_machine()
        self._read_journal()
        if self.display and self.panel("hosts").display:
            self._read_hosts(reach=False)

    def refresh_machine(self) -> None:
        self._read_machine()

    @work(thread=True, exclusive=True, exit_on_error=False, group="panel-machine")
    def _read_machine(self) -> None:
        try:
            snap = self.engine.snapshot()
            lines = machine_lines(snap)
            host = str(snap.host.get("hostname", "this machine"))
            self.post_message(self.Looked(host, snap.collected_at))
        except Exception as exc:  # noqa: BLE001 - the panel says why instead of the app dying
            lines = [plainly(exc, "Reading the machine")]
        self.app.call_from_thread(self.panel("machine").show_lines, lines)  # type: ignore[union-attr]

    @work(thread=True, exclusive=False, exit_on_error=False, group="panel-hosts")
    def _read_hosts(self, reach: bool) -> None:
        """The hosts panel: the inventory and each host's snapshot age at once, then, when
        `reach`, whether each answers (one Ansible run; a second reach waits for none)."""
        from reos.tui import fleet_panel

        settings = self.engine.settings
        try:
            where = fleet_panel.source(settings)
            chosen, ages, problem = (None, {}, None) if where is None else fleet_panel.look(where)
        except Exception as exc:  # noqa: BLE001 - the panel says why instead of the app dying
            where, chosen, ages, problem = None, None, {}, plainly(exc, "Reading the hosts")
        reach = (reach and not self.reaching and where is not None and chosen is not None
                 and bool(chosen.hosts))
        self.reaching = self.reaching or reach

        def show() -> None:
            lines = fleet_panel.lines(where, chosen, ages, self.reached, problem=problem,
                                      reaching=self.reaching, checked_at=self.reached_at)
            self.app.call_from_thread(self.panel("hosts").show_lines, lines)  # type: ignore[union-attr]

        show()
        if not reach or where is None or chosen is None:
            return
        try:
            self.reached = fleet_panel.reach(where, [h.name for h in chosen.hosts],
                                             settings.fleet.connect_timeout)
            self.reached_at = time.time()
        except Exception as exc:  # noqa: BLE001 - Ansible missing or failing: said, not raised
            problem = plainly(exc, "Reaching the hosts")
        finally:
            self.reaching = False
        show()

    @work(thread=True, exclusive=True, exit_on_error=False, group="panel-journal")
    def _read_journal(self) -> None:
        try:
            records = self.engine.history(limit=HISTORY_LIMIT)
            chain = self.engine.reasoning_of(self.trace_id)
        except Exception as exc:  # noqa: BLE001 - a damaged journal must not end the chat
            records, chain = [], plainly(exc, "Reading the journal")
        self.app.call_from_thread(self._show_journal, records, chain)

    def _show_journal(self, records: list[Any], chain: str) -> None:
        history = self.panel("history")
        assert isinstance(history, HistoryPanel)
        history.show(records)
        reasoning = self.panel("reasoning")
        assert isinstance(reasoning, Panel)
        reasoning.show_lines(chain.splitlines() or ["No reasoning kept yet."])

    # -- undo ------------------------------------------------------------------------------
    def on_history_panel_undo_asked(self, message: HistoryPanel.UndoAsked) -> None:
        if getattr(self.app, "busy", False):  # the engine is running a request right now
            self.app.notify("Still working on the last request; undo when I'm done.",
                            markup=False, severity="warning")
            return
        if self.engine.pending is not None or self.engine.undo_waiting or (
                self.engine.session.hosts is not None):  # decided first
            self.app.notify("Something is waiting for your yes or no: answer it first, "
                            "then undo.", markup=False, severity="warning")
            return

        self.engine.ask_undo(message.tx_id)  # waits for a yes, as "undo" in the chat does

        def answered(yes: bool | None) -> None:
            if yes:
                self._working(True)
                self._undo()
            else:
                self.engine.decline()
                self.app.notify("Not undone: nothing was changed.", markup=False)

        self.app.push_screen(ConfirmUndo(message.request), answered)

    @work(thread=True, exclusive=True, exit_on_error=False, group="engine")
    def _undo(self) -> None:
        """The yes to the undo shown: the engine undoes that one transaction, or says it is
        no longer the newest change (another reos changed something since)."""
        try:
            reply = self.engine.approve()
        except Exception as exc:  # noqa: BLE001 - said in a toast, never a traceback
            self.app.call_from_thread(self._failed, clean(plainly(exc, "Undo")))
            return
        if reply.undone is None:
            self.app.call_from_thread(self._failed, clean(reply.text))
            self.app.call_from_thread(self.refresh_all)
            return
        self.post_message(self.Undone(reply.undone))

    def _working(self, busy: bool) -> None:
        """The chat is busy while undo runs: a request typed meanwhile waits in the input,
        and the spinner says what is going on."""
        from reos.tui.live import Activity

        self.app.busy = busy  # type: ignore[attr-defined]
        for activity in self.app.query(Activity):
            if busy:
                activity.begin("undoing")
            else:
                activity.end()
        self.app.refresh_bindings()

    def _failed(self, text: str) -> None:
        self._working(False)
        self.app.notify(text, markup=False, severity="error")

    def on_side_panels_looked(self, message: Looked) -> None:
        from reos.tui.live import MachineLine

        for line in self.app.query(MachineLine):
            line.machine(message.host, message.collected_at)

    def on_side_panels_undone(self, message: Undone) -> None:
        self._working(False)
        report = message.report
        self.app.notify(clean(report.describe()), markup=False,
                        severity="information" if report.ok else "warning")
        self.refresh_all()
