"""Running tasks on the hosts an inventory chose, through ansible-runner and ansible-core's
real modules: the one place reos reaches another machine.

`run(source, hosts, tasks)` writes a one-play playbook to a private folder, hands it to
`ansible_runner.run` with the person's inventory limited to exactly the chosen hosts, and
returns what happened on each host, task by task (`Result`), streaming each as it arrives
to `on_result`. What reos decides about the run:
- the playbook is one document tagged `!unsafe`, so Ansible never renders a text a task
  carries as a template (a service or file name holding "{{ lookup('pipe', …) }}" is passed
  as it is written, never run on this machine), and every text stays the text it is: the
  tag on each string alone would make Ansible read `"0755"` as 493, `"yes"` as true and
  `"!"` as no YAML at all;
- hosts are named one by one in the limit, never by a pattern a person or a model wrote,
  and a name Ansible would read as more than a name (`!`, `&`, `:`, `,`, `*`, a template)
  is refused;
- the configuration is the one `inventory._ansible` chose (never an ansible.cfg in the
  current folder), static inventory plugins only, host keys checked (a key not yet known
  is an error, never accepted, whatever ssh's own config says), no fact gathering,
  pipelining on, a connection timeout,
  each task's `timeout:` and the whole run's `job_timeout`, so a frozen host cannot hang
  a run; ssh's control sockets and Ansible's temporary files live in the run's folder,
  which is removed afterwards;
- Ctrl-C (or `cancelled()` turning true) cancels the run through ansible-runner's
  cancel_callback; hosts with no result are reported as unknown, never as done;
- with a `Canary`, the play runs in batches (`serial: [1, "25%", "100%"]`: one host, then
  a quarter of them, then the rest) with `max_fail_percentage`, so a change that fails on
  the first host never reaches the others. Hosts a normally ended play never reached are
  `not_started` (Ansible's final stats came, so nothing is in flight), apart from the
  unknown ones of a cancelled or timed-out run. A batch that stopped only because its
  hosts did not answer says nothing about the change: the hosts after it get a run of
  their own (Ansible would end the play there, as for a batch whose every host failed).

Not responsible for choosing hosts (inventory.py), for what to run (the catalogue's
recipes and planning), for judging risk (safety), nor for printing.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from reos.errors import ReosError
from reos.fleet.inventory import STATIC_PLUGINS, Source, config_file
from reos.text import clean

CONNECT_TIMEOUT = 10  # seconds ssh waits for a host to answer ([fleet] connect_timeout)
TASK_TIMEOUT = 120  # seconds one task may take on one host
MAX_RESULT_BYTES = 64 * 2**20  # of one task's result (a snapshot is bounded by as much)
# the canary batches: one host, then a quarter of the hosts, then the rest (Ansible's
# `serial`; a percentage is of all the play's hosts, at least one)
SERIAL = (1, "25%", "100%")
# the characters that make a limit entry more than one host's name (Ansible's pattern
# syntax) or a template
_NOT_A_NAME = set("!&:,*[]~@{}%# \t\n\r\"'")


class Task(Struct, frozen=True):
    """One task of the play: an Ansible module and its arguments, with root or not."""

    name: str
    module: str  # fully qualified: ansible.builtin.systemd_service…
    args: dict[str, Any] = field(default_factory=dict)
    become: bool = False
    ignore_errors: bool = False
    timeout: int = TASK_TIMEOUT
    environment: dict[str, str] = field(default_factory=dict)  # for the module, on the host
    # Ansible's `check_mode` keyword: False runs the task even in a check-mode run (a
    # command reos knows only reads); None follows the run
    check_mode: bool | None = None
    # Ansible's `failed_when` / `changed_when` as a constant (None: Ansible's own): a
    # read reos makes for itself is never the host failing, nor a change
    failed_when: bool | None = None
    changed_when: bool | None = None


class Canary(Struct, frozen=True):
    """Run in batches (`SERIAL`): a batch in which more than `max_fail_percent` of the
    hosts failed ends the run there (Ansible's `max_fail_percentage`), and so does one in
    which every host failed, whatever the percentage (Ansible's own rule)."""

    max_fail_percent: int = 0


class Result(Struct, frozen=True):
    """What one task did on one host: "ok", "changed", "failed", "unreachable" or
    "skipped"; `said` is the module's message (cleaned of terminal escapes), `returned`
    the module's whole return value."""

    host: str
    task: str
    status: str
    said: str = ""
    returned: dict[str, Any] = field(default_factory=dict)


class Run(Struct):
    """A whole run: each host's results in the order they came, and how the run ended
    ("successful", "failed" when a host failed or was unreachable, "canceled", "timeout").
    With a canary, `not_started` are the hosts of batches the play ended before (nothing
    ran there), `stopped_by` the hosts whose failure ended it, `canary` the first host."""

    hosts: tuple[str, ...]
    results: list[Result] = field(default_factory=list)
    status: str = "unknown"
    not_started: list[str] = field(default_factory=list)
    stopped_by: list[str] = field(default_factory=list)
    canary: str | None = None
    ended: bool = False  # the play ended by itself (its final stats came): none in flight

    def of(self, host: str) -> list[Result]:
        return [r for r in self.results if r.host == host]

    def unknown(self) -> list[str]:
        """Hosts with no result at all that may have been reached (the run was cut short
        before their results came); the hosts never started are not among them."""
        seen = {r.host for r in self.results}
        return [h for h in self.hosts if h not in seen and h not in self.not_started]

    def failed(self) -> list[str]:
        """Hosts where a task failed (not the ones that did not answer)."""
        return list(dict.fromkeys(r.host for r in self.results if r.status == "failed"))


def run(source: Source, hosts: Iterable[str], tasks: list[Task], *,
        check: bool = False, diff: bool = False,
        on_result: Callable[[Result], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        connect_timeout: int = CONNECT_TIMEOUT, job_timeout: int | None = None,
        modules: Mapping[str, Path] | None = None, canary: Canary | None = None,
        pipelining: bool = True) -> Run:
    """Run `tasks` in order on `hosts` (names from `source`'s inventory); `modules` are
    reos's own Ansible modules the tasks use (name -> source file), put in the playbook's
    library folder; `canary`: in batches (see the module's docstring); `pipelining` off
    copies each module over first (slower, but a missing interpreter is then said as such
    rather than as a connection that broke while the module was sent). Raises ReosError
    when Ansible cannot be started or a host's name cannot be limited to safely."""
    names = tuple(hosts)
    for name in names:
        if not name or set(name) & _NOT_A_NAME or name.startswith("-"):
            raise ReosError(f"reos will not run anything on the host {clean(name)!r}: its "
                            "name holds characters Ansible reads as a pattern or a template.",
                            "Rename it in the inventory, or reach it by ansible_host.")
    runner = _runner()
    outcome = Run(hosts=names)
    if not names or not tasks:
        outcome.status = "successful"
        return outcome
    folder = Path(tempfile.mkdtemp(prefix="reos-fleet-"))
    stop = threading.Event()

    raised: list[BaseException] = []  # by on_result: the run stops, then it is raised
    ended: list[bool] = []  # the play's final stats came: it ended by itself

    def on_event(event: dict[str, Any]) -> bool:
        if event.get("event") == "playbook_on_stats":
            ended.append(True)
        result = _result(event)
        if result is not None:
            outcome.results.append(result)
            if on_result is not None and not raised:
                try:
                    on_result(result)
                except BaseException as exc:  # noqa: BLE001 - raised again after the run
                    raised.append(exc)
                    stop.set()
        return True  # keep every event: False would empty the runner's stats

    def cancel() -> bool:
        return stop.is_set() or (cancelled is not None and cancelled())

    previous = _on_interrupt(stop)
    try:
        (folder / "project" / "library").mkdir(parents=True)
        (folder / "project" / "main.yml").write_text(playbook(tasks, canary))
        for name, path in (modules or {}).items():
            shutil.copyfile(path, folder / "project" / "library" / f"{name}.py")
        args = ["--check"] * check + ["--diff"] * diff
        pending, statuses = names, []
        while True:
            ended.clear()
            before = len(outcome.results)
            done = runner.run(
                private_data_dir=str(folder), playbook="main.yml",
                inventory=[os.path.abspath(path) for path in source.paths],
                limit=",".join(pending),
                envvars=environment(folder, connect_timeout, pipelining=pipelining),
                cmdline=" ".join(args) or None,
                settings={"job_timeout": job_timeout or TASK_TIMEOUT * (len(tasks) + 1),
                          "suppress_ansible_output": True, "suppress_output_file": True,
                          # how often the runner asks cancel_callback (and checks the job
                          # timeout) while Ansible is quiet: Ctrl-C is heard within a second
                          "pexpect_timeout": 0.5},
                quiet=True, event_handler=on_event, cancel_callback=cancel)
            statuses.append(str(done.status))
            outcome.ended = bool(ended)
            if canary is None or not ended or cancel():
                break
            this = outcome.results[before:]
            if outcome.canary is None and this:
                outcome.canary = this[0].host
            seen = {r.host for r in outcome.results}
            left = [h for h in pending if h not in seen]
            if not left:
                break
            stoppers = [r.host for r in this if r.status == "failed"]
            if stoppers or not any(r.status == "unreachable" for r in this):
                outcome.not_started = left
                outcome.stopped_by = list(dict.fromkeys(stoppers))
                break
            pending = tuple(left)  # only hosts that did not answer stopped the play
        last = statuses[-1]
        outcome.status = last if last in ("canceled", "timeout") or "failed" not in statuses \
            else "failed"
    except Exception as exc:  # noqa: BLE001 - ansible-runner's own failure, said in words
        if raised:
            raise raised[0] from None
        said = clean(str(exc)).strip().split("\n", 1)[0] or type(exc).__name__
        raise ReosError(f"Ansible could not run: {said}") from None
    finally:
        _restore_interrupt(previous)
        shutil.rmtree(folder, ignore_errors=True)
    if raised:
        raise raised[0]
    return outcome


def playbook(tasks: list[Task], canary: Canary | None = None) -> str:
    """The play as YAML text: JSON (JSON is YAML) under one `!unsafe` tag, so no value
    in it is ever read as a template, and each string is read as a string (quoted). Hosts
    come from the limit: the play is on all."""
    play: dict[str, Any] = {
        "name": "reos", "hosts": "all", "gather_facts": False,
        **({"serial": list(SERIAL), "max_fail_percentage": canary.max_fail_percent}
           if canary is not None else {}),
        "tasks": [{"name": task.name, task.module: task.args, "become": task.become,
                   "ignore_errors": task.ignore_errors, "timeout": task.timeout,
                   **({"environment": task.environment} if task.environment else {}),
                   **({"check_mode": task.check_mode} if task.check_mode is not None
                      else {}),
                   **({"failed_when": task.failed_when} if task.failed_when is not None
                      else {}),
                   **({"changed_when": task.changed_when} if task.changed_when is not None
                      else {})}
                  for task in tasks]}
    return "!unsafe " + json.dumps([_checked(play)], ensure_ascii=False) + "\n"


def _checked(value: Any) -> Any:
    """`value` as it is, once every text in it is known to hold no control character."""
    if isinstance(value, str):
        if any(ord(ch) < 32 and ch not in "\t\n" or 0xD800 <= ord(ch) < 0xE000
               or ch in "\x7f\ufeff\ufffe\uffff" for ch in value):
            raise ReosError(f"reos will not hand Ansible the text {clean(value)!r}: it holds "
                            "control characters.")
        return value
    if isinstance(value, bool) or value is None or isinstance(value, int | float):
        return value
    if isinstance(value, dict):
        return {str(_checked(str(k))): _checked(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_checked(v) for v in value]
    raise TypeError(f"cannot put a {type(value).__name__} in a playbook")


def environment(folder: Path, connect_timeout: int = CONNECT_TIMEOUT, *,
                pipelining: bool = True) -> dict[str, str]:
    """What Ansible is run with (see the module's docstring)."""
    bin_dir = str(Path(sys.executable).parent)  # ansible-playbook beside reos's python
    return {
        "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", os.defpath)]),
        "ANSIBLE_CONFIG": os.environ.get("ANSIBLE_CONFIG") or config_file(),
        "ANSIBLE_INVENTORY_ENABLED": ",".join(STATIC_PLUGINS),
        "ANSIBLE_INVENTORY_UNPARSED_FAILED": "True",
        "ANSIBLE_INVENTORY_ANY_UNPARSED_IS_FAILED": "True",
        "ANSIBLE_HOST_KEY_CHECKING": "True",
        "ANSIBLE_GATHERING": "explicit",
        "ANSIBLE_PIPELINING": str(pipelining),
        "ANSIBLE_TIMEOUT": str(connect_timeout),
        "ANSIBLE_RETRY_FILES_ENABLED": "False",
        "ANSIBLE_NOCOWS": "1",
        "ANSIBLE_LOCAL_TEMP": str(folder / "tmp"),
        "ANSIBLE_SSH_CONTROL_PATH_DIR": str(folder / "cp"),
        "ANSIBLE_VARS_ENABLED": "host_group_vars",
        "ANSIBLE_DEPRECATION_WARNINGS": "False",
        # Ansible's own ssh options, and a host key ssh does not know is refused even
        # when the person's ssh config says accept-new
        "ANSIBLE_SSH_ARGS": "-C -o ControlMaster=auto -o ControlPersist=60s "
                            "-o StrictHostKeyChecking=yes",
        # ansible-runner empties a result larger than this (a snapshot of a big host)
        "MAX_EVENT_RES": str(MAX_RESULT_BYTES),
    }


def _result(event: dict[str, Any]) -> Result | None:
    kind = event.get("event", "")
    status = {"runner_on_ok": "ok", "runner_on_failed": "failed",
              "runner_on_unreachable": "unreachable", "runner_on_skipped": "skipped"}.get(kind)
    if status is None:
        return None
    data = event.get("event_data") or {}
    returned = data.get("res") or {}
    if not isinstance(returned, dict):
        returned = {}
    if status == "ok" and returned.get("changed"):
        status = "changed"
    said = returned.get("msg") or returned.get("stderr") or ""
    return Result(host=str(data.get("host", "")), task=str(data.get("task", "")),
                  status=status, said=clean(str(said)).strip(), returned=returned)


def _on_interrupt(stop: threading.Event) -> Any:
    """Ctrl-C sets `stop` (the runner then cancels its child) instead of raising; only
    possible from the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, lambda *_: stop.set())


def _restore_interrupt(previous: Any) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)


def _runner() -> Any:
    try:
        import ansible_runner  # deferred: only the fleet runs Ansible
    except ImportError as exc:
        raise ReosError(f"The fleet needs ansible-runner 2.4, which is not installed "
                        f"({exc.name or 'ansible_runner'} is missing).",
                        "Install it with: pip install 'reos[fleet]'") from None
    return ansible_runner
