"""The hosts card: a request's plans on other machines in the chat, a row per step with
the hosts it runs on in the first column.

Hosts whose steps and undos are the same share their rows (`on_hosts.groups`: "web1,
web2" once, not twice); each row has the step, its command, its risk badge and its undo
(worked out from that host's snapshot). Under the table, the hosts left out and those not
reached, each with why; while it waits, how to approve; once decided, what became of it
(each host's ✓/✗ from the run). The card takes no keys: yes/no or ctrl+y/ctrl+n in the
chat decide, as for a plan on this machine.

Every text shown passes through `reos.text.clean` and is drawn without markup. Not
responsible for planning on hosts or running there (reos.on_hosts, the engine).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from reos import on_hosts
from reos.text import clean
from reos.tui.plan_view import badge

HINT = ("Type yes to run it on these hosts or no to cancel (or ctrl+y / ctrl+n); anything "
        "else is a new request and this plan keeps waiting.")


def table(hosts: Any) -> Table:
    """The steps of each group of hosts, a row each, the hosts named in the first row."""
    grid = Table(expand=True, show_edge=False, pad_edge=False, header_style="bold")
    for name, ratio in (("Hosts", 2), ("#", None), ("Step", 3), ("Command", 3),
                        ("Risk", None), ("Undo", 3)):
        grid.add_column(name, ratio=ratio, overflow="fold", no_wrap=ratio is None)
    for members in on_hosts.groups(hosts.parts):
        first = members[0]
        assert first.plan is not None  # groups() holds planned hosts only
        who = on_hosts.names([m.host for m in members])
        for number, (step, undo) in enumerate(zip(first.plan.steps, first.undos, strict=True),
                                              start=1):
            risk: RenderableType = Text("read", style="dim") if step.read_only else badge(
                step.risk)
            grid.add_row(Text(clean(who) if number == 1 else ""), Text(str(number)),
                         Text(clean(step.title)), Text(clean(on_hosts.shown(step.argv))), risk,
                         Text("\u2014" if step.read_only else clean(
                             on_hosts.undo_words(step, undo))))
    return grid


def notes(hosts: Any) -> list[str]:
    """The hosts left out and not reached, with why."""
    out = [f"Left out: {p.host}: {p.left_out}" for p in hosts.parts if p.plan is None]
    out += [f"Not reached: {host}: {why}" for host, why in hosts.unreached.items()]
    return [clean(line) for line in out]


class HostsCard(Vertical):
    """A plan on other machines (see the module's docstring)."""

    DEFAULT_CSS = """
    HostsCard { height: auto; border: round $accent; padding: 0 1; margin: 0 0 1 0; }
    HostsCard .status { color: $text-muted; }
    """

    def __init__(self, hosts: Any, *, waiting: bool) -> None:
        super().__init__()
        self.hosts = hosts
        self.closed = not waiting
        self.running = False  # approved; its outcome not known yet
        self.said = HINT if waiting else ""
        self.border_title = clean(hosts.heading or f"On {on_hosts.count(len(hosts.parts))}")

    def compose(self) -> ComposeResult:
        yield Static(self.body, classes="body")
        yield Static(Text(self.said), classes="status")

    @property
    def body(self) -> RenderableType:
        said = Text(clean(f"Plan for {self.hosts.request!r}:"), style="bold")
        return Group(said, table(self.hosts), *[Text(line) for line in notes(self.hosts)])

    @property
    def text(self) -> str:
        """What the card says, as plain text (for the tests and a screen reader)."""
        import io

        from rich.console import Console

        out = io.StringIO()
        console = Console(file=out, width=200, color_system=None)
        console.print(self.body)
        console.print(self.said)
        return out.getvalue()

    def ask_again(self, question: str) -> None:
        """Approved once, and a step has no undo on some host: the second question."""
        self._say(question)

    def close(self, said: str) -> None:
        """Decided: approved (running), declined, or replaced by another plan."""
        self.closed = True
        self._say(said)

    def _say(self, said: str) -> None:
        self.said = clean(said)
        for status in self.query(".status").results(Static):  # none before it is composed
            status.update(Text(self.said))

    def ran(self, applied: Any) -> None:
        """How it went on each host."""
        lines = on_hosts.outcome_lines(applied, self.hosts.changes)
        self.running = False
        self.close("\n".join(line for line in lines if line).strip())
