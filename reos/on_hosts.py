"""A request on other machines, for every surface (the chat and `reos plan`): which hosts
its words name, each host read and planned for, what may run where, and how that is said.

- `reading_for(settings, request)`: the hosts and groups of the person's inventory the
  request names in words (reos.understanding.hosts), a question, an unknown name, or
  None: no inventory is configured, or no word of the request could name a host (then
  nothing of Ansible is imported).
- `read_and_plan(engine, source, hosts, request)`: each host read now
  (fleet.snapshots: reos's own collectors there; a host not reached is said, never
  guessed), the request planned against each snapshot by the one engine (`plan_each`),
  and `fleet.deciding.prepare`'s decision per host (`decide`: only the hosts whose plan
  needs it are read again as root, through sudo, first): a `HostsPlan`.
- `offer`, `approve`, `run`: the conversation's part, for the engine (which keeps what
  waits, `session.hosts`): a query runs at once, a change waits for a yes; a yes given
  more than a minute after reading reads the hosts again and shows a changed plan instead
  of running it; the run rolls back a host that failed part way when the settings say so.
- `lines`, `outcome_lines`, `known_line`, `result_line`: the words every surface shows
  for a plan on hosts (hosts with the same steps and the same undos once), how it went,
  and each host's progress.

Not responsible for reaching hosts, running or journaling (reos.fleet), for reading the
words (reos.understanding.hosts), nor for asking the person (the surfaces; the engine
holds what waits, reos/session.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct, field

from reos.execution import ignore

if TYPE_CHECKING:
    from reos.fleet.changing import Applied
    from reos.fleet.deciding import Prepared
    from reos.fleet.inventory import Source
    from reos.fleet.running import Result
    from reos.fleet.snapshots import Known
    from reos.model.events import EventSink
    from reos.model.plan import Plan
    from reos.outcome import Reply
    from reos.session import Session
    from reos.settings import Settings
    from reos.store.journal import Journal
    from reos.system.snapshot import SystemSnapshot
    from reos.understanding.hosts import Chosen, Reading

OUTPUT_LINES = 20  # of a read-only step's output, per host


class ReasoningEngine(Protocol):
    """What this module uses of the engine (reos.engine.ReasoningEngine, which calls it)."""

    settings: Settings

    @property
    def journal(self) -> Journal: ...

    @property
    def session(self) -> Session: ...

    def plan_on(self, snapshot: SystemSnapshot, text: str) -> Plan: ...


class HostsPlan(Struct):
    """One request's plans on hosts: each read host's part (its plan, or why it is left
    out) and the hosts not reached, with why; `heading` says how the hosts were chosen."""

    request: str
    source: Source
    parts: list[Prepared] = field(default_factory=list)
    unreached: dict[str, str] = field(default_factory=dict)
    heading: str = ""
    read_at: float = 0.0  # when the hosts were read (seconds since the epoch)
    read: dict[str, SystemSnapshot] = field(default_factory=dict)  # what was planned on

    @property
    def hosts(self) -> list[str]:
        """Every host it was made for, read or not."""
        return [p.host for p in self.parts] + list(self.unreached)

    def same_as(self, other: HostsPlan) -> bool:
        """Whether `other` (read again) would run the same steps with the same undos on
        the same hosts, and leaves the same hosts out."""
        def shape(plan: HostsPlan) -> list[Any]:
            return [(p.host, p.left_out is not None,
                     [(tuple(s.argv), tuple(u or ())) for s, u in zip(
                         p.plan.steps, p.undos, strict=True)] if p.plan else None)
                    for p in plan.parts] + sorted(plan.unreached)
        return shape(self) == shape(other)

    @property
    def runnable(self) -> list[Prepared]:
        return [p for p in self.parts if p.plan is not None]

    @property
    def changes(self) -> bool:
        """Whether a step changes something (it waits for a yes); else it only reads."""
        return not all(p.read_only for p in self.runnable)


def reading_for(settings: Settings, request: str,
                environ: dict[str, str] | None = None,
                here: Callable[[], frozenset[str] | None] | None = None,
                ) -> tuple[Source, Reading] | None:
    """The inventory and what the request's words name in it, or None (see the module's
    docstring); `here` as for `hosts_named`."""
    env = os.environ if environ is None else environ
    if not settings.fleet.inventory and not env.get("ANSIBLE_INVENTORY", "").strip(" ,"):
        return None  # nothing names an inventory: nothing more is read
    from reos.fleet.inventory import find_source

    source = find_source(None, settings, env)
    if source is None:
        return None
    reading = hosts_named(request, source, here)
    return None if reading is None else (source, reading)


def names_here(snapshot: SystemSnapshot) -> frozenset[str]:
    """The names of things on this machine a host's name said alone could mean instead
    (lower case): containers, services (with and without their unit type), packages,
    accounts, groups, processes, interfaces, timers."""
    found: set[str] = set()
    sections: list[list[Any] | None] = [snapshot.containers, snapshot.packages,
                                        snapshot.users, snapshot.groups, snapshot.processes,
                                        snapshot.interfaces]
    for section in sections:
        found.update(str(item.name).lower() for item in section or [])
    units: list[Any] = [*(snapshot.services or []), *(snapshot.timers or [])]
    for unit in units:
        name = str(unit.name).lower()
        found.update((name, name.rsplit(".", 1)[0]))
    return frozenset(found)


def hosts_named(request: str, source: Source,
                here: Callable[[], frozenset[str] | None] | None = None) -> Reading | None:
    """The hosts and groups of the inventory at `source` that `request` names in words,
    or None when it names none. Ansible reads the inventory only when a word of the
    request is in its files or is a word for hosts (`could_name_hosts`). `here`: the
    names of things on this machine (`names_here`), asked only when a host's name is
    said alone; without it such a name is always asked about."""
    from reos.understanding.host_words import could_name_hosts, inventory_words

    if not could_name_hosts(request, inventory_words(source.paths)):
        return None
    from reos.catalogue.templates import load
    from reos.fleet.inventory import select
    from reos.understanding import hosts

    templates = load()
    # every host by a glob: Ansible reads the pattern "all" as a host called all, if one is
    chosen = select(source, "*")
    where = source.paths[0].name if len(source.paths) == 1 else source.names()
    names = hosts.Names(tuple(host.name for host in chosen.hosts), chosen.groups, where,
                        {host.name: host.ansible_host for host in chosen.hosts
                         if host.ansible_host and "{" not in host.ansible_host})
    reading = hosts.read(request, names, hosts.from_catalogue(templates), here)
    read = reading if isinstance(reading, hosts.Chosen) else \
        reading.read if isinstance(reading, hosts.Asked) else None
    if read is None:
        return reading
    from reos.understanding.parts import asks

    several = asks(request, templates)
    if len(several) > 1:  # "reboot this machine and restart nginx on web1": which ask?
        return hosts.several_asks(read, several)
    return as_ansible_chooses(reading, source) if isinstance(reading, hosts.Chosen) \
        else reading


def as_ansible_chooses(reading: Chosen, source: Source) -> Reading:
    """The reading, when Ansible's own choice for its pattern is exactly the hosts it
    means; otherwise a refusal, said plainly. The pattern names each host, so this
    fails only where Ansible reads a name as more than itself (a host called like a
    group, "ungrouped", "all", "localhost"): fail closed, never run on hosts not meant."""
    from reos.errors import ReosError
    from reos.fleet.inventory import select
    from reos.understanding.hosts import Unknown

    hint = "Give the hosts with --hosts PATTERN (`reos hosts --hosts PATTERN` shows its hosts)."
    try:
        chosen = {host.name for host in select(source, reading.pattern).hosts}
    except ReosError as exc:
        return Unknown("", f"Ansible cannot choose {', '.join(reading.hosts)} by the pattern "
                           f"{reading.pattern!r}: {exc.message}", hint)
    if chosen != set(reading.hosts):
        more = sorted(chosen - set(reading.hosts))
        less = sorted(set(reading.hosts) - chosen)
        said = "; ".join(part for part in (
            f"it would add {', '.join(more)}" if more else "",
            f"it would leave out {', '.join(less)}" if less else "") if part)
        return Unknown("", f"Ansible reads the pattern {reading.pattern!r} for "
                           f"{', '.join(reading.hosts)} otherwise: {said}. Nothing was run.",
                       hint)
    return reading


def read_and_plan(engine: ReasoningEngine, source: Source, hosts: list[str], request: str,
                  *, on_known: Callable[[Known], None] | None = None,
                  heading: str = "") -> HostsPlan:
    """Each host read now, the request planned on each, and what may run where."""
    import time

    from reos.fleet import snapshots

    read_at = time.time()

    known = snapshots.read(source, hosts,
                           connect_timeout=engine.settings.fleet.connect_timeout,
                           on_known=on_known)
    read = {name: found.snapshot for name, found in known.items()
            if found.snapshot is not None}
    parts = decide(engine, source, request, read)
    unreached = {name: found.problem or "not read" for name, found in known.items()
                 if found.snapshot is None}
    return HostsPlan(request, source, parts, unreached, heading, read_at, read)


def decide(engine: ReasoningEngine, source: Source, request: str,
           read: dict[str, SystemSnapshot]) -> list[Prepared]:
    """The request planned on each host read, then what may run where. Only the hosts
    whose plan needs what is read there as root (`deciding.needs_root_read`: an account's
    lock or dates, a ufw rule, the owners of the sockets a passed-on session may come
    through where a program is stopped) are read again, with sudo, in one Ansible run
    (with ufw's rules where a plan changes one), before deciding (with the inventory's
    port for each host whose plan changes a firewall rule or stops a program:
    inventory.ssh_ports); `read` is given their snapshots with it. A read-only request
    runs no sudo."""
    from reos.fleet import deciding, inventory, snapshots

    plans = plan_each(engine, request, read)
    # the port Ansible connects to there, which a firewall change must never cut, and
    # which tells whether the session was passed on where a program is stopped
    touching = [name for name, plan in plans.items() if deciding.changes_firewall(plan)
                or any(deciding.cuts_program(step) for step in plan.steps)]
    ports = inventory.ssh_ports(source, touching) if touching else {}
    wanting = [name for name, plan in plans.items()
               if deciding.needs_root_read(plan, read[name], ports.get(name))]
    if wanting:
        answers = snapshots.read_as_root(
            source, wanting, connect_timeout=engine.settings.fleet.connect_timeout,
            firewall=any(deciding.changes_firewall(plans[name]) for name in wanting),
            ssh_ports=[read[name].host.get("ssh_port") for name in wanting])
        for name in wanting:
            read[name] = snapshots.with_root(read[name], answers[name], name)
    # apt's dry run there of what a package step installs and removes
    packages = {name: plan for name, plan in plans.items() if deciding.dry_run_wanted(plan)}
    dry_runs = {}
    if packages:
        from reos.fleet.predicting import dry_run_packages

        dry_runs = dry_run_packages(source, packages, read,
                                    connect_timeout=engine.settings.fleet.connect_timeout)
    return deciding.prepare(plans, read, request, ports, dry_runs)


def plan_each(engine: ReasoningEngine, request: str,
              read: dict[str, SystemSnapshot]) -> dict[str, Plan]:
    """The request planned against each host's snapshot by the engine that plans for
    this machine (one engine: the templates are read once, the indexes per snapshot)."""
    return {name: engine.plan_on(snapshot, request) for name, snapshot in read.items()}


# -- the conversation: what the engine offers, approves and runs ---------------------------
STALE_SECONDS = 60.0  # plans on hosts approved later than this after reading are read again


def offer(engine: ReasoningEngine, found: tuple[Source, Reading],
          on_event: EventSink = ignore) -> Reply:
    """A request on the hosts its words name: each host read and planned for; a query
    runs at once, a change waits for yes (`session.hosts`); a question or a name the
    inventory lacks is said."""
    from reos.model.events import Said, Stage
    from reos.outcome import Outcome, Reply
    from reos.understanding.hosts import Asked, Chosen
    from reos.understanding.perception import perceive

    source, reading = found
    if not isinstance(reading, Chosen):
        # asked back, or a name the inventory lacks: a plan on hosts that waited is
        # dropped, so a "yes" meant for this question never runs it
        dropped = engine.session.take_hosts()
        said = reading.question if isinstance(reading, Asked) else (
            f"{reading.message} {reading.hint}".strip())
        if dropped is not None:
            said = (f"{said}\n(The plan that waited for {names(dropped.hosts)} is dropped: "
                    "nothing ran there.)")
        return Reply(said, Outcome.SAID)
    if perceive(reading.request) is not None:
        return Reply(f"\u201c{reading.request}\u201d is said to reos, not done on hosts: "
                     "to undo on one host, `reos undo --host NAME`; on every host that "
                     "changed, `reos undo`.", Outcome.SAID)
    on_event(Stage(f"reading {count(len(reading.hosts))}"))
    hosts = read_and_plan(engine, source, list(reading.hosts), reading.request,
                          heading=reading.heading(),
                          on_known=lambda known: on_event(Said(known_line(known).strip())))
    shown = "\n".join([hosts.heading, *lines(hosts.request, hosts.parts, hosts.unreached)])
    if not hosts.runnable:
        return Reply(shown, Outcome.SAID, hosts=hosts)
    if hosts.changes:
        engine.session.offer_hosts(hosts)
        return Reply(shown, Outcome.NEEDS_APPROVAL, hosts=hosts)
    return run(engine, hosts, on_event, shown=shown)


def approve(engine: ReasoningEngine, hosts: HostsPlan,
            on_event: EventSink = ignore) -> Reply:
    """Yes to plans on hosts. Hosts read more than STALE_SECONDS ago are read again
    first: when what would run or its undo differs (a host changed meanwhile), the new
    plan is shown and waits instead, since the yes was to the old one."""
    import time

    from reos.model.events import Stage
    from reos.outcome import Outcome, Reply

    if time.time() - hosts.read_at > STALE_SECONDS:
        on_event(Stage(f"reading {count(len(hosts.hosts))} again"))
        again = read_and_plan(engine, hosts.source, hosts.hosts, hosts.request,
                              heading=hosts.heading)
        if not again.same_as(hosts):
            first = ("The hosts changed since I read them, so nothing ran. The plan as "
                     "they are now:")
            shown = "\n".join([first, again.heading, *lines(again.request, again.parts,
                                                            again.unreached)])
            if again.runnable and again.changes:
                engine.session.offer_hosts(again)
                return Reply(shown, Outcome.NEEDS_APPROVAL, hosts=again, first=first)
            return Reply(shown, Outcome.SAID, hosts=again, first=first)
        hosts = again  # the same steps, with prior states read just now
    return run(engine, hosts, on_event)


def run(engine: ReasoningEngine, hosts: HostsPlan, on_event: EventSink = ignore, *,
        shown: str = "") -> Reply:
    """Run plans on hosts (approved, or only reading), journaled as one change; a host
    that fails part way is rolled back there with `[safety] rollback_on_failure`."""
    from reos.fleet import changing
    from reos.model.events import Said
    from reos.outcome import Outcome, Reply

    settings = engine.settings
    applied = changing.apply(
        engine.journal, hosts.source, hosts.request, hosts.parts,
        on_result=lambda result: on_event(Said(result_line(result).strip())),
        connect_timeout=settings.fleet.connect_timeout,
        max_fail_percent=settings.fleet.max_fail_percent,
        roll_back=settings.safety.rollback_on_failure,
        max_seconds=settings.limits.max_seconds)
    said = "\n".join([shown, *outcome_lines(applied, hosts.changes)]).strip()
    if not hosts.changes:
        return Reply(said, Outcome.ANSWERED, hosts=hosts, hosts_applied=applied)
    return Reply(said, Outcome.RAN if applied.ok else Outcome.FAILED, hosts=hosts,
                 hosts_applied=applied)


def lost_for_good(hosts: HostsPlan) -> str | None:
    """The second question plans on hosts ask after the yes, when a step has no undo on
    some host (as on this machine: what cannot be taken back is asked twice), or None."""
    lost: dict[str, list[str]] = {}
    for part in hosts.runnable:
        assert part.plan is not None
        for step, undo in zip(part.plan.steps, part.undos, strict=True):
            if not step.read_only and not undo and not step.nothing_to_restore:
                lost.setdefault(step.title, []).append(part.host)
    if not lost:
        return None
    said = "; ".join(f"{title} on {names(where)}" for title, where in lost.items())
    return f"This can't be taken back: {said}."


# -- words ---------------------------------------------------------------------------------
def groups(parts: list[Prepared]) -> list[list[Prepared]]:
    """The planned hosts, those with the same commands and the same undos (what each
    host was) together, in the order first seen."""
    found: dict[tuple[Any, ...], list[Prepared]] = {}
    for part in parts:
        if part.plan is not None:
            key = tuple((tuple(s.argv), tuple(u or ())) for s, u in zip(
                part.plan.steps, part.undos, strict=True))
            found.setdefault(key, []).append(part)
    return list(found.values())


def lines(request: str, parts: list[Prepared], unreached: dict[str, str]) -> list[str]:
    """The plans, grouped: hosts with the same steps and the same undos once, the rest
    each on its own; then the hosts left out and not reached, with why."""
    from reos.system.privilege import through_sudo

    total = len(parts) + len(unreached)
    out = [f"Plan for {request!r} on {count(total)}:"]
    for members in groups(parts):
        first = members[0]
        assert first.plan is not None
        out.append("")
        out.append(f"On {names([m.host for m in members])}:")
        for number, (step, undo) in enumerate(zip(first.plan.steps, first.undos, strict=True),
                                              start=1):
            root = " (as root)" if through_sudo(step.argv) or step.needs_root else ""
            out.append(f"  {number}. {step.title}   $ {shown(step.argv)}{root}")
            if not step.read_only:
                out.append(f"     risk {step.risk.label}; undo: {undo_words(step, undo)}")
    left = [p for p in parts if p.plan is None]
    if left:
        out.append("")
        out.append("Left out:")
        out += [f"  {p.host}: {p.left_out}" for p in left]
    if unreached:
        out.append("")
        out.append("Not reached:")
        out += [f"  {host}: {why}" for host, why in unreached.items()]
    return out


def outcome_lines(applied: Applied, changes: bool) -> list[str]:
    """How it went on each host (✓ done, ✗ failed, ? not known, – not started), a
    query's output, and how to undo a change."""
    out = [""]
    for outcome in applied.outcomes:
        if outcome.status == "left out":
            continue
        if outcome.status == "not started":  # an earlier batch failed: nothing ran there
            out.append(f"\u2013 {outcome.host} not started ({outcome.said})")
            continue
        mark = {"done": "\u2713", "failed": "\u2717"}.get(outcome.status, "?")
        said = f": {outcome.said}" if outcome.said and outcome.status != "done" else ""
        out.append(f"{mark} {outcome.host} {outcome.status}{said}")
        if outcome.packages:
            out.append(f"    {outcome.packages}")
        if outcome.rolled_back:
            out.append(f"    {outcome.rolled_back}")
        if not changes:
            for _, _, output in outcome.steps:
                printed = output.splitlines()
                out += [f"    {line}" for line in printed[:OUTPUT_LINES]]
                if len(printed) > OUTPUT_LINES:
                    out.append(f"    \u2026 {len(printed) - OUTPUT_LINES} more lines")
    kept = [o for o in applied.outcomes if not o.put_back and any(
        status in ("done", "running") for _, status, _ in o.steps)]
    if changes and applied.changed and not kept:
        out.append("Rolled back where it failed: nothing is left changed.")
    elif changes and applied.changed:
        out.append(f"Recorded as change {applied.tx_id}: `reos undo` puts it back on every "
                   "host that changed, `reos undo --host NAME` on one.")
    elif changes:
        out.append("Nothing was changed on any host.")
    return out


def known_line(known: Known) -> str:
    """A host read (✓) or not (✗, with why), as it is known."""
    if known.snapshot is None:
        return f"  \u2717 {known.host}: {known.problem}"
    return f"  \u2713 {known.host} read"


def result_line(result: Result) -> str:
    """One step's result on one host, as it arrives."""
    mark = "\u2713" if result.status in ("ok", "changed") else "\u2717"
    return f"  {mark} {result.host}: {result.task.split(' ', 1)[-1]}"


def undo_words(step: Any, undo: list[str] | None) -> str:
    if undo:
        return f"$ {shown(undo)}"
    if step.nothing_to_restore:
        return "nothing to restore (a restart of something running)"
    return "none: it cannot be undone"


def shown(argv: list[str]) -> str:
    import shlex

    from reos.system.privilege import strip_sudo

    return shlex.join(strip_sudo(argv))


def names(hosts: list[str]) -> str:
    if len(hosts) > 6:
        return f"{len(hosts)} hosts ({', '.join(hosts[:5])} and {len(hosts) - 5} more)"
    return ", ".join(hosts)


def count(n: int) -> str:
    return f"{n} host{'s' * (n != 1)}"
