"""A request's plans run on other machines through Ansible, journaled host by host, and
undone there from what each host was before.

What may run where, with each change's prior state and undo, is decided before
(deciding.py: `prepare`).

`apply` runs the prepared hosts: hosts with the same steps share one Ansible run (each
step `ansible.builtin.command` with its argv, never a shell; `become` where the plan said
`sudo -n`), in one journal transaction of kind "fleet" that records the inventory and,
per host and step, the prior state, the undo, the outcome and the output. A host that
fails stops there (Ansible's own rule); a host with no result is said as unknown. A
change runs as a canary (`running.Canary`): one host first, then a quarter, then the
rest; a failed batch (more than `max_fail_percent` of its hosts failed) ends it there, and
the hosts after it, in this run and in the runs of other steps, are "not started" (their
steps skipped, so undo leaves them alone). A host that does not answer is not a failure of
the change: the others go on. Each install or removal runs between two reads of the
host's packages in the same play, and its row records what it really brought in or took
there, with the undo that follows, as on this machine (`package_changes`).

`undo` reverts the newest fleet change on each host that changed (or on one host), newest
step first: each recorded undo runs only when it is one reos derives again from the
recorded prior state (`execution.rederive`) and the gate admits it; a firewall undo that
denies a port, or deletes an allow, runs only once one Ansible run has read the port the
host is reached on now (`_read_first`), keeping it, the inventory's and the recorded
ones (else it is refused, saying why); a package removal (an install's undo) runs only
once apt's dry run there, in that same run, says it takes no more than it names (nothing
installed since on top of it; on a host without apt, it is refused); an undo that stops,
restarts, kills, removes or sets back a program runs only once the host module, in that
same run and as root, says what carries reos's session there now and it is not that
(`_carried_now`; not known is refused). The change is then
undone, or partly undone while a host keeps its change (undo it again later, or on that
host). Not responsible for reading hosts (snapshots.py) or the inventory (inventory.py
gives a host's port), nor for
planning, nor for printing.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from reos.execution.package_sim import parse_apt
from reos.fleet import package_changes
from reos.fleet.deciding import (
    MACHINE_ID,
    Prepared,
    firewall_cuts_ssh,
    lifeline_package,
    login_safe_undo,
    ssh_connection,
    ssh_ports,
)
from reos.fleet.inventory import Source
from reos.fleet.inventory import ssh_ports as inventory_ports
from reos.fleet.running import CONNECT_TIMEOUT, Canary, Result, Run, Task, run
from reos.model.plan import RESTARTS, Plan, Step
from reos.safety.gate import admit_argv
from reos.store.journal import (
    COMPLETED,
    FAILED,
    FLEET,
    FLEET_UNDO,
    INTERRUPTED,
    PARTLY_UNDONE,
    UNDONE,
    Journal,
    StepRecord,
    TransactionRecord,
)
from reos.system.privilege import strip_sudo, through_sudo
from reos.system.state import PACKAGE_REMOVE
from reos.text import clean

STEP_TIMEOUT = 300  # seconds one step may take on one host
ENVIRONMENT = {"LC_ALL": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"}


class Outcome(Struct):
    """What happened on one host: "done", "failed", "unknown" (no result came), "left
    out", "not started" (an earlier batch failed: nothing ran there) or "stopped" (its
    batch failed on other hosts after some of its steps), with what each step did
    (status, output)."""

    host: str
    status: str
    said: str = ""
    steps: list[tuple[str, str, str]] = field(default_factory=list)  # (step id, status, output)
    rolled_back: str | None = None  # after a failure there: what rolling back did
    put_back: bool = False  # rolling back undid every step it completed
    packages: str | None = None  # what undo does of its package steps' real change, said


class Applied(Struct):
    tx_id: int
    outcomes: list[Outcome]

    @property
    def ok(self) -> bool:
        return all(o.status in ("done", "left out") for o in self.outcomes)

    @property
    def changed(self) -> bool:
        """Whether a step ran, or may have (so there is something undo can revert)."""
        return any(status in ("done", "running") for o in self.outcomes
                   for _, status, _ in o.steps)


def _undo_cuts_login(step: StepRecord, rollback: list[str]) -> str | None:
    """Why running `rollback` could cut reos off from the host, or None: the forward
    step's lifeline rule, kept for its undo too (a prior state gone stale, or a forged
    journal row, must not delete, lock or narrow root or the login account)."""
    if step.target_kind != "user" or step.target_name is None:
        return None
    recorded = (step.prior_state or {}).get("logins")
    logins = {"root", *(recorded if isinstance(recorded, list) else ())}
    if step.target_name not in logins:
        return None
    if login_safe_undo(rollback):  # the same test deciding makes at plan time
        return None
    return (f"it would change {step.target_name}, an account reos needs on the host, in a "
            "way that could cut reos off there")


def _undo_cuts_ssh(step: StepRecord, rollback: list[str]) -> str | None:
    """Why running a firewall step's `rollback` could cut reos's SSH to the host, or
    None: the test deciding makes at plan time (`deciding.firewall_cuts_ssh`), with the
    ports the step recorded (none recorded: no port is taken to be safe)."""
    if step.target_kind != "firewall":
        return None
    recorded = (step.prior_state or {}).get("ssh_ports")
    ports = {p for p in recorded if isinstance(p, int) and not isinstance(p, bool)} if (
        isinstance(recorded, list) and recorded) else None
    return firewall_cuts_ssh(rollback, ports | {22} if ports else None, undoing=True)


def _needs_port_now(step: StepRecord, rollback: list[str]) -> bool:
    """Whether `rollback` denies a port, or stops allowing one: it runs only once the
    port reos reaches the host's SSH on now is known (`_cuts_ssh_now`)."""
    return step.target_kind == "firewall" and firewall_cuts_ssh(
        rollback, None, undoing=True) is not None


# an undo that stops, restarts, reloads, kills, removes or puts back another version of
# a program: it runs only once what carries reos's session there now is read
_SYSTEMCTL_CUTS = {"stop", "disable", "mask", "restart", "reload", "try-restart",
                   "reload-or-restart", "kill"}
_APT_CUTS = {"remove", "purge", "autoremove"}  # and an install that pins a version
_DOCKER_CUTS = {"stop", "restart", "kill", "rm", "pause"}


def _programs_cut(rollback: list[str]) -> list[str] | None:
    """The names of the units, packages or processes `rollback` stops, restarts or
    removes (or sets to another version), or None when it cuts none."""
    words = strip_sudo(rollback)
    names = [w for w in words[2:] if not w.startswith("-")]
    if words[:1] == ["systemctl"] and len(words) > 1 and words[1] in _SYSTEMCTL_CUTS:
        return names
    if words[:1] in (["apt-get"], ["apt"], ["dnf"], ["yum"], ["zypper"], ["pacman"]) and (
            len(words) > 1 and (words[1] in _APT_CUTS or words[1].startswith("-R") or (
                words[1] in ("install", "downgrade") and any("=" in n for n in names)))):
        return [n.split("=", 1)[0] for n in names]
    if words[:1] in (["kill"], ["pkill"], ["killall"]):
        return [w for w in words[1:] if not w.startswith("-")]
    if words[:1] == ["docker"] and len(words) > 1 and words[1] in _DOCKER_CUTS:
        return names  # a container: any carrier in one makes the carriers not known
    return None


def _carried_now(heard: Result | None, rollback: list[str]) -> str | None:
    """Why `rollback` may not run on the host as it is now: it cuts a program that
    carries reos's SSH session there (`heard`: the root read's answer, just before), or
    that is not known; None when it cuts none that does."""
    from reos.fleet.deciding import carried, carriers

    names = _programs_cut(rollback)
    if not names:
        return None
    facts: dict[str, Any] = {}
    if heard is not None and heard.status in ("ok", "changed") and isinstance(
            heard.returned.get("ssh"), dict):
        facts = {k: v for k, v in heard.returned["ssh"].items() if isinstance(v, str)}
    known, _, why = carriers(facts, None)
    if known is None:
        return ("reos could not read what carries its SSH session there now "
                f"({why or 'no answer came'}), and this could cut it")
    if known and (strip_sudo(rollback)[:1] in (["kill"], ["pkill"], ["killall"])
                  or carried(names, known)):
        return "it would cut reos's SSH session, which is carried through it on the host now"
    return None


def _cuts_ssh_now(step: StepRecord, rollback: list[str], reached: Result | None,
                  inventory_port: int | None) -> str | None:
    """Why running a firewall step's `rollback` could cut reos's SSH to the host as it is
    now, or None: the ports it recorded, 22, the one the host was reached on just now
    (`reached`: SSH_CONNECTION there, REACHED's answer) and the inventory's port for it
    are all kept; when the port it is reached on is not known, no deny and no deletion of
    an allow runs (deciding.ssh_ports)."""
    said = reached.returned.get("stdout") if reached is not None and (
        reached.status in ("ok", "changed")) else None
    port, loopback = ssh_connection(said) if isinstance(said, str) else (None, None)
    recorded = (step.prior_state or {}).get("ssh_ports")
    ports, unknown = ssh_ports(port, loopback, inventory_port,
                               recorded if isinstance(recorded, list) else ())
    return firewall_cuts_ssh(rollback, ports, unknown, undoing=True)


def _undo_takes_lifeline(step: StepRecord, rollback: list[str]) -> str | None:
    """Why running a package step's `rollback` could cut reos off from the host or leave
    it unbootable, or None: it removes or reinstalls (at another version) a package reos
    needs there or one the host boots with (`deciding.lifeline_package`), whatever the
    journal row says it brought in or took."""
    if step.target_kind != "package":
        return None
    named = [w for w in strip_sudo(rollback)[1:] if not w.startswith("-")]
    hit = next((w for w in named if lifeline_package(w)), None)
    if hit is None:
        return None
    return (f"it would change {hit.split('=', 1)[0]}, which reos needs to reach the host "
            "and act there, or which the host boots with")


# -- running ------------------------------------------------------------------------------
def _command(argv: list[str]) -> dict[str, Any]:
    """The command module's arguments for `argv` as the gate judged it: no `sudo -n`
    (become does that), and no expansion of `$VAR` or `~` on the host."""
    return {"argv": strip_sudo(argv), "expand_argument_vars": False}

def _task(step: Step) -> Task:
    return Task(f"{step.id} {step.title}", "ansible.builtin.command",
                _command(step.argv), become=through_sudo(step.argv) or
                step.needs_root, timeout=STEP_TIMEOUT, environment=ENVIRONMENT)


def apply(journal: Journal, source: Source, request: str, parts: list[Prepared], *,
          on_result: Callable[[Result], None] | None = None,
          cancelled: Callable[[], bool] | None = None,
          connect_timeout: int = CONNECT_TIMEOUT, max_fail_percent: int = 0,
          roll_back: bool = False, max_seconds: int | None = None) -> Applied:
    """Run every prepared host's steps (the left-out ones are reported as such); a change
    in canary batches (`max_fail_percent`: see the module's docstring). With `roll_back`
    (`[safety] rollback_on_failure`), a host that failed or was stopped part way has the
    steps it completed undone there, as `reos undo --host` would. `max_seconds` (`[limits]
    max_seconds`, the circuit breaker no plan lifts) bounds the whole change: a run is cut
    off when it is spent (its step in flight kept as maybe-run, for undo), and the hosts
    not reached by then are not started. Each install or removal is bracketed by reads
    of the host's packages (`package_changes`), and its row records what it really did."""
    import time

    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    tx = journal.begin(request, kind=FLEET,
                       inventory=[os.path.abspath(p) for p in source.paths])
    outcomes: dict[str, Outcome] = {}
    rows: dict[tuple[str, str], int] = {}  # (host, task name) -> journal row
    reads: dict[tuple[str, str], Result] = {}  # (host, read task name) -> what it read
    groups: dict[tuple[tuple[str, ...], ...], list[Prepared]] = {}
    seq = 0
    for part in parts:
        if part.plan is None:
            outcomes[part.host] = Outcome(part.host, "left out", part.left_out or "")
            continue
        for step, prior, undo in zip(part.plan.steps, part.priors, part.undos, strict=True):
            rows[(part.host, _task(step).name)] = journal.begin_step(
                tx, seq, step.id, step.title, step.argv, action=step.action,
                target_kind=step.target.kind if step.target else None,
                target_name=step.target.name if step.target else None,
                prior_state=prior, rollback=undo, reversible=step.reversible,
                host=part.host, status="pending")
            seq += 1
        key = tuple(tuple(s.argv) for s in part.plan.steps)
        groups.setdefault(key, []).append(part)
    stopped: str | None = None  # why the hosts after a failed batch are not started
    rows_run = False  # whether a run came before (the first run's first host: the canary)
    for members in groups.values():
        plan = members[0].plan
        assert plan is not None
        hosts = [m.host for m in members]
        left = None if deadline is None else int(deadline - time.monotonic())
        if stopped is None and left is not None and left < 1:
            stopped = f"reos's time limit for one change ({max_seconds} s) was spent"
        if stopped is not None:
            _not_started(journal, rows, outcomes, hosts, plan, stopped)
            continue
        for host in hosts:
            for step in plan.steps:
                journal.mark_step(rows[(host, _task(step).name)], "running")

        def heard(result: Result) -> None:
            if result.task.startswith((package_changes.BEFORE, package_changes.AFTER)):
                reads[(result.host, result.task)] = result
                if result.status == "unreachable":  # the host stopped answering
                    outcome = outcomes.setdefault(result.host, Outcome(result.host, "done"))
                    outcome.status, outcome.said = "unknown", result.said
                return  # reos's own read: not a step, nor a line to show
            row = rows.get((result.host, result.task))
            if row is not None:
                # a host that stopped answering during a step may have run it: "running"
                # is undone like an interrupted step here (back to the prior state)
                status = {"ok": "done", "changed": "done",
                          "unreachable": "running"}.get(result.status, "failed")
                output = "\n".join(str(result.returned.get(k) or "")
                                   for k in ("stdout", "stderr")).strip() or result.said
                journal.finish_step(row, status, _code(result.returned.get("rc")), output)
                outcome = outcomes.setdefault(result.host, Outcome(result.host, "done"))
                outcome.steps.append((result.task.split(" ", 1)[0], status, output))
                if status != "done":
                    outcome.status = "failed" if status == "failed" else "unknown"
                    outcome.said = result.said or output
            if on_result is not None:
                on_result(result)

        changes = not all(m.read_only for m in members)  # a query runs everywhere at once
        tasks = _tasks(plan, members[0])
        done = run(source, hosts, tasks, on_result=heard,
                   cancelled=cancelled, connect_timeout=connect_timeout,
                   job_timeout=min(STEP_TIMEOUT * (len(tasks) + 1),
                                   left if left is not None else STEP_TIMEOUT * 1000),
                   canary=Canary(max_fail_percent) if changes else None)
        stopped = _stopped(done, max_fail_percent, first=not rows_run) if changes else None
        rows_run = True
        if done.not_started:
            _not_started(journal, rows, outcomes, done.not_started, plan,
                         stopped or "the run ended before it reached them")
        for host in hosts:
            if host in done.not_started:
                continue
            outcome = outcomes.setdefault(host, Outcome(host, "done"))
            finished = {sid for sid, _, _ in outcome.steps}
            if done.ended and outcome.status == "done" and len(finished) < len(plan.steps):
                # the play ended by itself before this host's last step: its batch failed
                # on other hosts (Ansible's max_fail_percentage); nothing is in flight
                outcome.status = "stopped"
                outcome.said = (f"stopped after {len(finished)} of {len(plan.steps)} steps: "
                                f"{stopped or 'the run ended'}")
            in_flight = outcome.status == "done"  # no failure of its own: the run ended
            for step in plan.steps:
                if step.id in finished:
                    continue
                row = rows[(host, _task(step).name)]
                if in_flight:  # the step the run ended in may have run: undo treats it so
                    in_flight = False
                    outcome.steps.append((step.id, "running", ""))
                    outcome.status = "unknown"
                    outcome.said = (f"the run ended ({done.status}) before it was known "
                                    f"whether {step.title.lower()} ran")
                else:  # after its host's failure, or after the step in flight
                    journal.mark_step(row, "skipped")
                    outcome.steps.append((step.id, "skipped", ""))
    _record_packages(journal, parts, rows, reads, outcomes)
    ordered = [outcomes[p.host] for p in parts]
    journal.finish(tx, COMPLETED if all(o.status in ("done", "left out") for o in ordered)
                   else FAILED, summary=_summary(ordered))
    if roll_back:
        _roll_back(journal, tx, ordered, on_result)
    return Applied(tx, ordered)


def _manager(prior: dict[str, Any] | None) -> str | None:
    manager = (prior or {}).get("manager")
    return manager if isinstance(manager, str) else None


def _tasks(plan: Plan, part: Prepared) -> list[Task]:
    """The play's tasks: each step's, an install or removal between two reads of the
    host's packages (`package_changes.read_task`)."""
    tasks: list[Task] = []
    for step, prior in zip(plan.steps, part.priors, strict=True):
        manager = _manager(prior)
        before = package_changes.read_task(step, manager, package_changes.BEFORE)
        after = package_changes.read_task(step, manager, package_changes.AFTER)
        tasks += [t for t in (before, _task(step), after) if t is not None]
    return tasks


def _record_packages(journal: Journal, parts: list[Prepared],
                     rows: dict[tuple[str, str], int],
                     reads: dict[tuple[str, str], Result],
                     outcomes: dict[str, Outcome]) -> None:
    """Each host's package steps that ran given what they really changed there, from the
    reads right before and right after each, or the undo they had, said
    (`package_changes`). Before any rolling back, which undoes with what this records."""
    ran: dict[str, list[package_changes.Ran]] = {}
    for part in parts:
        outcome = outcomes.get(part.host)
        if part.plan is None or outcome is None:
            continue
        status = {sid: what for sid, what, _ in outcome.steps}
        ran[part.host] = []
        for step, prior, undo in zip(part.plan.steps, part.priors, part.undos, strict=True):
            if status.get(step.id) not in package_changes.RAN or not (
                    package_changes.touches(step)):
                continue
            got = [reads.get((part.host, f"{when} {step.id}"))
                   for when in (package_changes.BEFORE, package_changes.AFTER)]
            found = [package_changes.parse(r.returned) if r is not None else None
                     for r in got]
            problem = None if None not in found else (
                "its package manager is not one reos reads"
                if package_changes.read_task(step, _manager(prior), "") is None
                else "the read did not answer" if None in got else "the read failed")
            ran[part.host].append(package_changes.Ran(
                step, rows[(part.host, _task(step).name)], prior, undo,
                found[0], found[1], problem))
    for host, text in package_changes.record(journal, ran).items():
        outcomes[host].packages = text


def _roll_back(journal: Journal, tx_id: int, outcomes: list[Outcome],
               on_result: Callable[[Result], None] | None) -> None:
    """Undo, on each host that failed or was stopped part way, the steps it completed
    (a host whose outcome is unknown is not reached now: `reos undo --host` later)."""
    for outcome in outcomes:
        if outcome.status not in ("failed", "stopped") or not any(
                status == "done" for _, status, _ in outcome.steps):
            continue
        record = journal.transaction(tx_id)
        undone = undo(journal, record, host=outcome.host, on_result=on_result) if (
            record is not None) else None
        if undone is None:
            outcome.rolled_back = "not rolled back: another undo holds the change"
            continue
        said = [f"{title}: {what}" for h in undone.hosts for title, what in h.steps]
        outcome.put_back = undone.ok
        outcome.rolled_back = ("rolled back" if undone.ok else "not fully rolled back") + (
            f" ({'; '.join(said)})" if said else "")


# -- canary batches -----------------------------------------------------------------------
def _stopped(done: Run, max_fail_percent: int, *, first: bool) -> str | None:
    """Why the hosts after this run are not started, or None when the change goes on: it
    stops when the play ended before some of its hosts, or more than `max_fail_percent`
    of the hosts it reached failed (a host that did not answer is not counted: it says
    nothing about the change)."""
    failed = done.failed()
    if not failed:
        return None
    reached = {r.host for r in done.results if r.status != "unreachable"}
    if not done.not_started and len(failed) * 100 <= max_fail_percent * len(reached):
        return None
    if first and done.canary in failed:
        return f"the canary failed on {done.canary}"
    names = done.stopped_by or failed
    return f"an earlier batch failed on {', '.join(names)}"


def _not_started(journal: Journal, rows: dict[tuple[str, str], int],
                 outcomes: dict[str, Outcome], hosts: list[str], plan: Plan,
                 why: str) -> None:
    """Nothing ran on `hosts`: each step is skipped (undo leaves it alone), said why."""
    for host in hosts:
        for step in plan.steps:
            journal.finish_step(rows[(host, _task(step).name)], "skipped", None,
                                f"not started ({why})")
        outcomes[host] = Outcome(host, "not started", why,
                                 [(step.id, "skipped", "") for step in plan.steps])


def _code(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _summary(outcomes: list[Outcome]) -> str:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    return ", ".join(f"{n} {status}" for status, n in counts.items())


# -- undo ---------------------------------------------------------------------------------
class Undone(Struct):
    """What undo did on one host: each step's title and what happened to it ("undone",
    "nothing to restore", "refused: …", "failed: …")."""

    host: str
    steps: list[tuple[str, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(not said.startswith(("refused", "failed", "not reached"))
                   for _, said in self.steps)


class UndoneChange(Struct):
    tx: TransactionRecord
    hosts: list[Undone]
    status: str  # the change's status afterwards: undone or partly undone

    @property
    def ok(self) -> bool:
        return all(h.ok for h in self.hosts)


SAME_MACHINE = "reos: is this the machine the change was made on"
# the port the host is reached on over SSH now, read before a firewall undo that denies
# a port or stops allowing one (SSH_CONNECTION, as sshd set it for this session)
REACHED = "reos: which port reaches this host's SSH"
DRY_RUN = "reos: apt's dry run of the removal"


def _machine_of(steps: list[tuple[StepRecord, list[str]]]) -> str | None:
    """The machine-id every one of a host's steps recorded, or None."""
    found = {(s.prior_state or {}).get("machine_id") for s, _ in steps}
    if len(found) != 1:
        return None
    machine = found.pop()
    return machine if isinstance(machine, str) and MACHINE_ID.fullmatch(machine) else None


def _removal(step: StepRecord, rollback: list[str]) -> list[str] | None:
    """The names a package step's `rollback` removes (the undo of an install), or None
    when it removes none: it runs only as apt's dry run there allows (`_read_first`)."""
    if step.target_kind != "package":
        return None
    apt = (step.prior_state or {}).get("manager") == "apt"
    words = strip_sudo(rollback)
    for manager, remove in PACKAGE_REMOVE.items():
        if words[:len(remove)] == remove:  # another manager's: no dry run of it there
            return words[len(remove):] if apt and manager == "apt" else []
    return None


def _dry_run_task(number: int, names: list[str]) -> Task:
    return Task(f"{DRY_RUN} {number}", "ansible.builtin.command",
                _command(["apt-get", "-s", "-q", "remove", *names]), timeout=STEP_TIMEOUT,
                environment=ENVIRONMENT, check_mode=False, failed_when=False,
                changed_when=False)


def _taken(heard: Result | None, names: list[str]) -> str | None:
    """Why apt's dry run there (`heard`) keeps a removal of `names` (this step's and the
    earlier undo steps' of this run) from running, or None."""
    from reos.execution.packages import takes_more

    if heard is None or heard.status not in ("ok", "changed"):
        return "reos could not dry-run it there, so it could not check what else it removes"
    code = heard.returned.get("rc")
    stdout, stderr = (str(heard.returned.get(key) or "") for key in ("stdout", "stderr"))
    errors = [line[3:] for line in stderr.splitlines() if line.startswith("E: ")]
    sim = parse_apt(stdout)
    if code != 0:
        sim.problem = "apt refuses: " + clean(errors[0] if errors else "the dry run failed")
    return takes_more(["apt-get", "remove", "-y", *names], "apt", lambda *_: sim)


def _read_first(source: Source, name: str, same: Task,
                steps: list[tuple[StepRecord, list[str]]], undone: Undone,
                on_result: Callable[[Result], None] | None,
                ) -> list[tuple[StepRecord, list[str]]]:
    """The steps of `name` whose undo may run there as it is now; the others are refused
    on `undone`, saying why. One Ansible run reads, after the machine-id check, the port
    the host is reached on (REACHED; the inventory gives its port), for an undo that
    could cut SSH, and apt's dry run of each package removal, with the removals of the
    undo steps before it in this run (`_removal`): one that takes more than they name
    (what was installed since on top of it, or what reos needs) is refused, as on this
    machine (`execution.packages.takes_more`)."""
    from reos.fleet.snapshots import MODULE, root_task
    from reos.system import portable

    reached = Task(REACHED, "ansible.builtin.command",
                   _command(["printenv", "SSH_CONNECTION"]), timeout=STEP_TIMEOUT,
                   check_mode=False, failed_when=False, changed_when=False)
    carriers = root_task(ssh_ports=[inventory_ports(source, [name]).get(name)]) if any(
        _programs_cut(argv) for _, argv in steps) else None
    removing: list[str] = []
    dry_runs: dict[int, tuple[Task, list[str]]] = {}
    for number, (step, argv) in enumerate(steps):
        names = _removal(step, argv)
        if names:
            removing += names
            dry_runs[number] = (_dry_run_task(number, removing), list(removing))
    heard: dict[str, Result] = {}

    def keep(result: Result) -> None:
        heard[result.task] = result
        if on_result is not None:
            on_result(result)

    run(source, [name], [same, reached, *([carriers] if carriers else []),
                         *(task for task, _ in dry_runs.values())],
        on_result=keep, modules={MODULE: Path(portable.__file__)} if carriers else None)
    check = heard.get(SAME_MACHINE)
    if check is None or check.status not in ("ok", "changed"):
        said = (check.said if check is not None else "") or "no answer came"
        why = ("the host named so now is another machine (its machine-id differs)"
               if check is not None and check.status == "failed" else
               f"reos could not check that it is the same machine ({said})")
        undone.steps += [(s.title, f"refused: {why}") for s, _ in steps]
        return []
    inventory_port = inventory_ports(source, [name]).get(name)
    kept = []
    for number, (step, argv) in enumerate(steps):
        cut = _cuts_ssh_now(step, argv, heard.get(REACHED), inventory_port) if (
            _needs_port_now(step, argv)) else None
        if _removal(step, argv) == []:
            cut = ("reos checks what a removal takes with it only through apt's dry run, "
                   "and this host uses another package manager")
        elif number in dry_runs:
            task, names = dry_runs[number]
            cut = _taken(heard.get(task.name), names)
        if not cut and carriers is not None:
            cut = _carried_now(heard.get(carriers.name), argv)
        if cut:
            undone.steps.append((step.title, f"refused: {cut}"))
        else:
            kept.append((step, argv))
    return kept


def undo_hosts(tx: TransactionRecord, host: str | None = None) -> list[str]:
    """The hosts of `tx` (or `host` alone) that still hold a change undo can revert."""
    return [h for h in tx.hosts if (host is None or h == host)
            and any(s.host == h for s in tx.undo_steps)]


def undo(journal: Journal, tx: TransactionRecord, *, host: str | None = None,
         on_result: Callable[[Result], None] | None = None) -> UndoneChange | None:
    """Revert `tx` on its hosts (or on `host`); None when another undo holds it."""
    from reos.execution.rederive import expected_rollbacks, renewed

    if not journal.claim_undo(tx.id, kind=FLEET):
        return None
    hosts = undo_hosts(tx, host)
    results: list[Undone] = []
    undo_tx = journal.begin(f"undo: {tx.request}", kind=FLEET_UNDO, undoes=tx.id,
                            inventory=tx.inventory)
    plans: dict[str, list[tuple[StepRecord, list[str]]]] = {}
    for name in hosts:
        undone = Undone(name)
        results.append(undone)
        for step in (s for s in tx.undo_steps if s.host == name):
            if step.action in RESTARTS and not step.rollback:
                undone.steps.append((step.title, "nothing to restore"))
                journal.mark_step(step.row, "undone")
                continue
            manager = (step.prior_state or {}).get("manager")
            expected = expected_rollbacks(step, manager if isinstance(manager, str) else None)
            rollback = renewed(step.rollback or [], expected) or step.rollback
            if step.problems or not rollback or (
                    strip_sudo(rollback) not in [strip_sudo(e) for e in expected]):
                undone.steps.append((step.title, "refused: its recorded undo is not one "
                                                 "reos derives from what it was before"))
                continue
            cut = (_undo_cuts_login(step, rollback) or _undo_takes_lifeline(step, rollback)
                   or _undo_cuts_ssh(step, rollback))
            if cut:
                undone.steps.append((step.title, f"refused: {cut}"))
                continue
            # a firewall undo passed the lock-out test with the host's ports just above
            admission = admit_argv(rollback, approved=True, remote=True, undoing=True,
                                   ssh_checked=step.target_kind == "firewall")
            if not admission.allowed:
                undone.steps.append((step.title, f"refused: {admission.reason}"))
                continue
            plans.setdefault(name, []).append((step, rollback))
    source = Source(tuple(Path(p) for p in tx.inventory or ()), "the change's journal")
    by_name = {u.host: u for u in results}
    seq = 0
    for name, steps in plans.items():
        if not tx.inventory:
            by_name[name].steps += [(s.title, "not reached: the journal does not say which "
                                              "inventory reached it") for s, _ in steps]
            continue
        machine = _machine_of(steps)
        if machine is None:
            by_name[name].steps += [(s.title, "refused: the journal does not say which "
                                              "machine it was, so reos cannot make sure this "
                                              "is the same one") for s, _ in steps]
            continue
        # the first task fails (and Ansible stops there) on any other machine
        same = Task(SAME_MACHINE, "ansible.builtin.command",
                    _command(["grep", "-qxF", machine, "/etc/machine-id"]),
                    timeout=STEP_TIMEOUT)
        tasks = [same, *(Task(f"u{i} {s.title}", "ansible.builtin.command", _command(argv),
                              become=through_sudo(argv), timeout=STEP_TIMEOUT,
                              environment=ENVIRONMENT)
                         for i, (s, argv) in enumerate(steps))]
        heard: dict[str, Result] = {}

        def keep(result: Result, heard: dict[str, Result] = heard) -> None:
            heard[result.task] = result
            if on_result is not None:
                on_result(result)

        if any(_needs_port_now(s, argv) or _removal(s, argv) is not None
               or _programs_cut(argv) for s, argv in steps):
            steps = _read_first(source, name, same, steps, by_name[name], on_result)
            if not steps:
                continue
            tasks = [same, *(Task(f"u{i} {s.title}", "ansible.builtin.command",
                                  _command(argv), become=through_sudo(argv),
                                  timeout=STEP_TIMEOUT, environment=ENVIRONMENT)
                             for i, (s, argv) in enumerate(steps))]
        run(source, [name], tasks, on_result=keep)
        check = heard.get(SAME_MACHINE)
        if check is not None and check.status == "failed":
            by_name[name].steps += [(s.title, "refused: the host named so now is another "
                                              "machine (its machine-id differs)")
                                    for s, _ in steps]
            continue
        for task, (step, argv) in zip(tasks[1:], steps, strict=True):
            got = heard.get(task.name)
            row = journal.begin_step(undo_tx, seq, f"undo-{step.step_id}",
                                     f"Undo: {step.title}", argv, host=name)
            seq += 1
            if got is not None and got.status in ("ok", "changed"):
                journal.finish_step(row, "done", 0, str(got.returned.get("stdout") or ""))
                journal.mark_step(step.row, "undone")
                by_name[name].steps.append((step.title, "undone"))
            else:
                said = (got.said if got is not None else "no result came") or "it failed"
                journal.finish_step(row, "failed", None, said)
                by_name[name].steps.append((step.title, f"failed: {said}"))
    after = journal.transaction(tx.id)
    left = bool(after and [s for s in after.undo_steps if s.status in ("done", "running")])
    reverted = any(what in ("undone", "nothing to restore") for u in results
                   for _, what in u.steps)
    # nothing reverted: the change stays as it was (failed, completed…), not "partly undone"
    status = (PARTLY_UNDONE if left else UNDONE) if reverted else (
        FAILED if tx.status == INTERRUPTED else tx.status)
    journal.set_status(tx.id, status)
    ok = all(u.ok for u in results)
    journal.finish(undo_tx, COMPLETED if ok else FAILED)
    return UndoneChange(tx, results, status)
