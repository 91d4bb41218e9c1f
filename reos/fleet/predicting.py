"""What each prepared host's steps would do there, predicted without changing anything
(`reos plan --dry-run --hosts PATTERN "…"`).

`predict(source, parts, snapshots)` says, step by step and host by host, whether a step
would change something and what, each prediction labelled with where it comes from:
- a step that only reads changes nothing: it is not run;
- a service or timer: from the host's snapshot, read just before planning (what it is now,
  and what starting, stopping, restarting, enabling or masking it would make of it).
  Better here than Ansible's check mode, which reports every restart as a change and fails
  on a unit an earlier step of the plan would install;
- a package, where the host's manager is apt: `apt-get -s -q ACTION NAME` run on the host
  as an ordinary command (the gate must find it read-only; no root), which says what else
  would be installed or removed with it;
- any other step whose recipe names one of the modules in `CHECKED` (handed in as
  `modules`, from the catalogue, by the command): that module in Ansible's check mode with
  diff. The `user` module says whether it would change but gives no diff; a step that
  needs an earlier one's change cannot be predicted there, and is said so;
- anything else: no prediction, said so (check mode skips commands).
Hosts with the same simulations and checks share one Ansible run in check mode
(`--check --diff`; a simulation carries `check_mode: false`), each task `ignore_errors`,
so one prediction's failure hides no other. A dry run with nothing to simulate or check
reaches no host beyond the snapshot read.

Not responsible for deciding what may run where (`deciding.prepare`), for running or
journaling anything (`changing.apply`), for mapping a step to its module (the catalogue's
recipes, read by the command), nor for printing. Nothing here is a promise: a host can
change between the prediction and a run.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

import msgspec
from msgspec import Struct, field

from reos.execution.package_sim import Simulation, parse_apt
from reos.fleet.changing import ENVIRONMENT
from reos.fleet.deciding import Prepared
from reos.fleet.inventory import Source
from reos.fleet.running import CONNECT_TIMEOUT, Result, Task, run
from reos.model.plan import Plan, Step
from reos.safety.gate import admit_argv
from reos.system.privilege import through_sudo
from reos.system.snapshot import SystemSnapshot
from reos.text import clean

# modules that honour check mode and report a change faithfully, all in ansible-core (a
# collection's module may be missing on this machine, or run in check mode unasked)
CHECKED = frozenset({"ansible.builtin.user", "ansible.builtin.group",
                     "ansible.builtin.package", "ansible.builtin.apt", "ansible.builtin.dnf",
                     "ansible.builtin.systemd_service", "ansible.builtin.dpkg_selections"})
PREDICT_TIMEOUT = 120  # seconds one simulation or check may take on one host
DIFF_LINES = 40  # of a check's diff, per step
_PACKAGE_ACTIONS = {"install", "remove", "purge"}
SNAPSHOT, SIMULATION, CHECK_MODE, READS, NONE = (
    "snapshot", "simulation", "check mode", "reads only", "none")


class Predicted(Struct):
    """One step's prediction on one host: `changes` True, False, or None when it cannot
    be told; `by` where it comes from (`SNAPSHOT`, `SIMULATION`, `CHECK_MODE`, `READS`,
    `NONE`); `said` in words; a check's `diff`; the other packages a simulation would
    install or remove with it."""

    step: str
    by: str
    changes: bool | None
    said: str
    diff: str = ""
    installs: list[str] = field(default_factory=list)
    removes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "by": self.by, "changes": self.changes,
                "said": self.said, "diff": self.diff or None,
                "installs": list(self.installs), "removes": list(self.removes)}


Module = tuple[str, dict[str, Any]]  # an Ansible module's name and arguments


def predict(source: Source, parts: list[Prepared], snapshots: Mapping[str, SystemSnapshot],
            modules: Mapping[tuple[str, str], Module] | None = None, *,
            connect_timeout: int = CONNECT_TIMEOUT) -> dict[str, list[Predicted]]:
    """Each prepared host's predictions, in its plan's order (left-out hosts have none).
    `modules`: (host, step id) -> the module and arguments its recipe names."""
    found: dict[str, list[Predicted | Task]] = {}
    for part in parts:
        if part.plan is None:
            continue
        snapshot = snapshots[part.host]
        manager = snapshot.host.get("package_manager")
        ahead: list[Predicted | Task] = []
        for number, step in enumerate(part.plan.steps):
            earlier = any(not s.read_only for s in part.plan.steps[:number])
            module = (modules or {}).get((part.host, step.id))
            ahead.append(_ahead(step, snapshot, manager, module, earlier))
        found[part.host] = ahead
    heard = _run_all(source, found, connect_timeout)
    out: dict[str, list[Predicted]] = {}
    for host, ahead in found.items():
        steps = next(p.plan.steps for p in parts if p.host == host and p.plan is not None)
        out[host] = [item if isinstance(item, Predicted) else _heard(
            item, heard.get((host, item.name)), any(not s.read_only for s in steps[:i]))
                     for i, item in enumerate(ahead)]
    return out


# -- what can be said without reaching the host, and what must be asked there ------------
def _ahead(step: Step, snapshot: SystemSnapshot, manager: Any, module: Module | None,
           earlier: bool) -> Predicted | Task:
    """The prediction, when the snapshot or the plan says it; else the task that asks."""
    if step.read_only:
        return Predicted(step.id, READS, False, "only reads: changes nothing")
    target = step.target
    if target is not None and target.kind in ("service", "timer"):
        return _unit(step, snapshot, earlier)
    if target is not None and target.kind == "container":
        return _container(step, snapshot, earlier)
    simulation = _simulation(step, manager)
    if simulation is not None:
        return simulation
    if module is not None and module[0] in CHECKED:
        return Task(f"{step.id} {CHECK_MODE}", module[0], module[1],
                    become=through_sudo(step.argv) or step.needs_root,
                    timeout=PREDICT_TIMEOUT, ignore_errors=True)
    return Predicted(step.id, NONE, None, "no prediction: reos has no simulation for this "
                                          "step, and Ansible's check mode skips commands")


def _simulation(step: Step, manager: Any, names: list[str] | None = None) -> Task | None:
    """apt's own dry run of a package step (of `names`, when given: this step's and the
    plan's earlier ones of the same action, in one transaction), as a task on the host
    (read-only, no root), or None when there is none (another manager, another step, a
    name the gate does not find read-only as an operand)."""
    target = step.target
    if step.read_only or target is None or target.kind != "package" or manager != "apt" or (
            step.action not in _PACKAGE_ACTIONS) or any(
            name.startswith("-") for name in names or [target.name]):
        return None
    argv = ["apt-get", "-s", "-q", str(step.action), *(names or [target.name])]
    admission = admit_argv(argv, claimed_read_only=True, remote=True)
    if not admission.allowed or not admission.read_only:
        return None
    return Task(f"{step.id} {SIMULATION}", "ansible.builtin.command",
                {"argv": argv, "expand_argument_vars": False}, timeout=PREDICT_TIMEOUT,
                environment=ENVIRONMENT, ignore_errors=True, check_mode=False)


def dry_run_packages(source: Source, plans: Mapping[str, Plan],
                     snapshots: Mapping[str, SystemSnapshot], *,
                     connect_timeout: int = CONNECT_TIMEOUT,
                     ) -> dict[str, dict[str, Simulation | str]]:
    """apt's dry run of each package step of each host's plan, run there before deciding
    (`deciding.prepare` leaves out a step whose dry run takes what reos needs), each with
    the plan's package steps before it (a plan that both installs and removes is not
    dry-run: said so): host -> step id -> what apt said it would install and remove, or
    why there is no answer (apt refuses, the host did not answer). Hosts with the same
    steps share one run."""
    found: dict[str, list[Predicted | Task]] = {}
    out: dict[str, dict[str, Simulation | str]] = {}
    for host, plan in plans.items():
        manager = snapshots[host].host.get("package_manager")
        steps = [step for step in plan.steps if _simulation(step, manager)]
        if len({step.action for step in steps}) > 1:  # each would be dry-run apart
            out[host] = {step.id: "the plan both installs and removes packages there, which "
                                  "reos dry-runs only one way at a time" for step in steps}
            continue
        tasks: list[Predicted | Task] = []
        names: list[str] = []
        for step in steps:  # each with the steps before it: they run first
            assert step.target is not None
            names.append(step.target.name)
            task = _simulation(step, manager, list(names))
            if task is not None:
                tasks.append(task)
        if tasks:
            found[host] = tasks
    heard = _run_all(source, found, connect_timeout)
    for host, ahead in found.items():
        for task in (item for item in ahead if isinstance(item, Task)):
            step_id = task.name.split(" ", 1)[0]
            out.setdefault(host, {})[step_id] = _dry_run(heard.get((host, task.name)))
    return out


def _dry_run(result: Result | None) -> Simulation | str:
    if result is None:
        return "the host gave no answer"
    if result.status == "unreachable":
        return f"the host did not answer ({clean(result.said or 'unreachable')})"
    if result.status == "failed" or (result.status in ("ok", "changed")
                                     and result.returned.get("rc") != 0):
        errors = [line[3:] for line in str(result.returned.get("stderr") or "").splitlines()
                  if line.startswith("E: ")]
        return "apt refuses: " + clean(errors[0] if errors else result.said or "it failed")
    if result.status not in ("ok", "changed"):
        return f"the dry run did not run there ({clean(result.status)})"
    return parse_apt(str(result.returned.get("stdout") or ""))


_STARTS = {"start", "restart", "enable_now"}
_STOPS = {"stop", "disable_now"}


def _container(step: Step, snapshot: SystemSnapshot, earlier: bool) -> Predicted:
    """A container's step, from the state the snapshot says it is in now."""
    assert step.target is not None
    action, name = step.action or "", step.target.name
    if snapshot.containers is None:
        return Predicted(step.id, NONE, None, "no prediction: the host's snapshot does not "
                                              "list its containers")
    box = next((c for c in snapshot.containers if c.name == name), None)
    if box is None:
        return Predicted(step.id, SNAPSHOT, None if earlier else False,
                         "not on the host yet: an earlier step would bring it" if earlier
                         else "not on the host: the step would fail")
    now, running = box.state, box.running
    if action in ("start", "unpause"):
        said, changes = (("already running: no change", False) if running and (
            action == "start" or now != "paused") else (f"would start it (now {now})", True))
    elif action in ("stop", "kill", "pause"):
        said, changes = ((f"would {action} it (now {now})", True) if running else
                         (f"already stopped ({now}): no change", False))
    elif action == "restart":
        said, changes = ("would restart it: its processes are replaced" if running else
                         f"would start it (now {now})", True)
    elif action == "remove":
        said, changes = (f"would remove it (now {now})", True)
    else:
        return Predicted(step.id, NONE, None, "no prediction: reos has no simulation for "
                                              "this step")
    return Predicted(step.id, SNAPSHOT, changes, said)


def _unit(step: Step, snapshot: SystemSnapshot, earlier: bool) -> Predicted:
    """A service's or timer's step, from what the snapshot says it is now."""
    assert step.target is not None
    action, name = step.action or "", step.target.name
    if snapshot.services is None:
        return Predicted(step.id, NONE, None, "no prediction: the host's snapshot does not "
                                              "list its services")
    unit = next((s for s in snapshot.services if s.name == name), None)
    if unit is None:
        if earlier:
            return Predicted(step.id, SNAPSHOT, None, "not on the host yet: an earlier step "
                                                      "would bring it, so it cannot be "
                                                      "predicted from what is there now")
        return Predicted(step.id, SNAPSHOT, False, "not on the host: the step would fail")
    active = unit.active or "unknown"
    enabled = unit.enabled or "unknown"
    running = active == "active"
    said: list[str] = []
    changes = False
    if action in _STARTS or action in _STOPS or action == "reload":
        if action == "restart" and running:
            said.append("would restart it: its processes are replaced (running now)")
            changes = True
        elif action == "reload":
            said.append("would reload its configuration (running now)" if running else
                        f"a reload would fail: it is not running ({active})")
            changes = running
        elif action in _STARTS:
            said.append("already running: no change" if running else
                        f"would start it (now {active})")
            changes = changes or not running
        else:
            said.append(f"would stop it (now {active})" if running else
                        f"already stopped ({active}): no change")
            changes = changes or running
    if action in ("enable", "enable_now", "disable", "disable_now"):
        wanted = "enabled" if action.startswith("enable") else "disabled"
        same = enabled == wanted
        said.append(f"already {wanted}" if same else f"would make it {wanted} (now {enabled})")
        changes = changes or not same
    if action in ("mask", "unmask"):
        masked = enabled.startswith("masked")
        same = masked == (action == "mask")
        said.append(f"already {'masked' if masked else 'not masked'}" if same else
                    f"would {action} it (now {enabled})")
        changes = changes or not same
    if not said:
        return Predicted(step.id, NONE, None, f"no prediction for {action or 'this step'}: "
                                              f"it is {active}, {enabled} now")
    return Predicted(step.id, SNAPSHOT, changes, "; ".join(said))


# -- asking the hosts ---------------------------------------------------------------------
def _run_all(source: Source, found: dict[str, list[Predicted | Task]],
             connect_timeout: int) -> dict[tuple[str, str], Result]:
    """One Ansible run in check mode per set of hosts with the same tasks."""
    groups: dict[bytes, tuple[list[Task], list[str]]] = {}
    for host, ahead in found.items():
        tasks = [item for item in ahead if isinstance(item, Task)]
        if tasks:
            groups.setdefault(msgspec.json.encode(tasks), (tasks, []))[1].append(host)
    heard: dict[tuple[str, str], Result] = {}

    def keep(result: Result) -> None:
        heard[(result.host, result.task)] = result

    for tasks, hosts in groups.values():
        run(source, hosts, tasks, check=True, diff=True, on_result=keep,
            connect_timeout=connect_timeout,
            job_timeout=PREDICT_TIMEOUT * (len(tasks) + 1))
    return heard


def _heard(task: Task, result: Result | None, earlier: bool) -> Predicted:
    step, by = task.name.split(" ", 1)
    if result is None:
        return Predicted(step, by, None, "no prediction: the host gave no answer")
    if result.status == "unreachable":
        return Predicted(step, by, None, f"no prediction: the host did not answer "
                                         f"({result.said or 'unreachable'})")
    if by == SIMULATION:
        return _simulated(step, result, str(task.args["argv"][-1]))
    if result.status == "failed":
        why = result.said or "it failed"
        if earlier:
            return Predicted(step, by, None, "check mode could not tell, maybe because it "
                                             f"needs an earlier step's change: {why}")
        return Predicted(step, by, None, f"check mode says it would fail: {why}")
    if result.status == "skipped":
        return Predicted(step, by, None, "check mode skipped it")
    changes = result.status == "changed"
    diff = _diff(result.returned.get("diff"))
    return Predicted(step, by, changes, "would change it" if changes else "no change",
                     diff=diff)


def _simulated(step: str, result: Result, name: str) -> Predicted:
    """apt-get -s about package `name`: what it would install and remove (with it), or
    why apt refuses."""
    stdout = str(result.returned.get("stdout") or "")
    if result.status == "failed":
        errors = [line[3:] for line in str(result.returned.get("stderr") or "").splitlines()
                  if line.startswith("E: ")]
        return Predicted(step, SIMULATION, False, "apt refuses, so the step would fail: "
                         + clean(errors[0] if errors else result.said or "it failed"))
    sim = parse_apt(stdout)
    installs, removes = sorted(sim.installed), sorted(sim.removed)
    if not installs and not removes:
        return Predicted(step, SIMULATION, False, "apt would change nothing: no change")
    said = [f"would {verb} {_listed(names, name)}"
            for verb, names in (("install", installs), ("remove", removes)) if names]
    return Predicted(step, SIMULATION, True, "; ".join(said), installs=installs,
                     removes=removes)


def _listed(names: list[str], name: str) -> str:
    """"vim", "vim and with it 2 more: a, b", or "3 packages: a, b, c" (not vim itself)."""
    others = [n for n in names if n != name]
    shown = ", ".join(clean(n) for n in others[:12]) + (" …" if len(others) > 12 else "")
    if len(others) == len(names):
        return f"{len(names)} package{'s' * (len(names) != 1)}: {shown}"
    return f"{clean(name)} and with it {len(others)} more: {shown}" if others else clean(name)


def _diff(value: Any) -> str:
    """Ansible's diff (one or a list of before/after or prepared text) as lines of text."""
    items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
    lines: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("prepared"), str):
            lines += item["prepared"].splitlines()
        before, after = item.get("before"), item.get("after")
        if isinstance(before, str) and isinstance(after, str) and before != after:
            lines += list(difflib.unified_diff(
                before.splitlines(), after.splitlines(),
                str(item.get("before_header") or "before"),
                str(item.get("after_header") or "after"), lineterm=""))
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"… {len(lines) - DIFF_LINES} more lines"]
    return clean("\n".join(lines))
