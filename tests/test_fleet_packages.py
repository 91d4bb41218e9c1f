"""What a package step really changed on a host, recorded for undo as on this machine
(reos/fleet/package_changes.py, execution/packages.py `changed`, execution/rederive.py):
the difference between the host's packages read right before and right after the step in
the same play, put on the step's journal row as `new_packages` / `removed_packages` with
the undo that follows, and judged again by undo's own rederivation. dpkg's states in
transit count as installed; what reos needs on the host is never credited nor undone.
The host's words are untrusted: a version holding spaces or
shell characters, a name read as an option, thousands of names. The bed test installs and
removes packages on a fleet host through the real CLI, and undoes them there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos import paths
from reos.errors import EXIT_OK
from reos.execution.rederive import expected_rollbacks, fit_packages
from reos.fleet import changing, package_changes
from reos.fleet.deciding import Prepared
from reos.fleet.inventory import Source
from reos.fleet.package_changes import MAX_CHANGED, Ran, parse, settle
from reos.fleet.running import Result, Run, Task
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.store.db import Database
from reos.store.journal import COMPLETED, FLEET, Journal
from tests.conftest import reos

MACHINE = "0123456789abcdef0123456789abcdef"
PRIOR = {"manager": "apt", "machine_id": MACHINE, "logins": ["bob", "root"]}
BASE = {"bash": "5.2", "libc6": "2.36", "sudo": "1.9"}


def _install(name: str = "tool") -> Step:
    return Step("s1", f"Install {name}", ["sudo", "-n", "apt-get", "install", "-y", name],
                target=Target("package", name), action="install")


def _remove(name: str = "lib") -> Step:
    return Step("s1", f"Remove {name}", ["sudo", "-n", "apt-get", "remove", "-y", name],
                target=Target("package", name), action="remove")


def _ran(step: Step, undo: list[str] | None, state: dict[str, str],
         before: dict[str, str] | None, after: dict[str, str] | None,
         problem: str | None = None) -> Ran:
    return Ran(step, 7, {**state, **PRIOR}, undo, before, after, problem)


def _journal() -> Journal:
    return Journal(Database(paths.database_file()))


def _dpkg(rows: dict[str, str], status: str = "ii ") -> str:
    """dpkg-query's output for `rows` (name → version), as the read task gets it."""
    return "".join(f"{status}\t{n}\t{v}\n" for n, v in rows.items())


def test_an_install_records_what_it_brought_in_and_undo_takes_it() -> None:
    step = _install()
    ran = _ran(step, ["sudo", "-n", "apt-get", "remove", "-y", "tool"], {"state": "absent"},
               BASE, {**BASE, "tool": "2.1", "lib": "1.0", "extra": "1.0"})
    done, said = settle(ran)
    assert done is not None and done.row == 7
    assert done.prior["new_packages"] == ["extra", "lib", "tool"]
    assert done.prior["machine_id"] == MACHINE and done.prior["state"] == "absent"
    assert done.undo == ["sudo", "-n", "apt-get", "remove", "-y", "extra", "lib", "tool"]
    assert said == "undo removes what install tool brought in: extra, lib and tool"

    # the row, as undo reads it back, gives the same undo again
    journal = _journal()
    tx = journal.begin("install tool", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    row = journal.begin_step(tx, 0, "s1", step.title, step.argv, action="install",
                             target_kind="package", target_name="tool",
                             prior_state=ran.prior, rollback=ran.undo, host="web2")
    journal.set_undo(row, done.prior, done.undo)
    [record] = journal.transaction(tx).steps
    assert record.rollback in expected_rollbacks(record, "apt")


def test_a_removal_records_what_it_took_and_undo_reinstalls_it_pinned() -> None:
    ran = _ran(_remove(), ["sudo", "-n", "apt-get", "install", "-y", "lib=1.0"],
               {"state": "installed", "version": "1.0"},
               {**BASE, "lib": "1.0", "app": "1.0~rc1+deb12u1"}, BASE)
    done, said = settle(ran)
    assert done is not None
    assert done.prior["removed_packages"] == {"app": "1.0~rc1+deb12u1", "lib": "1.0"}
    assert done.undo == ["sudo", "-n", "apt-get", "install", "-y", "--no-remove",
                         "--allow-downgrades",
                         "app=1.0~rc1+deb12u1", "lib=1.0"]
    assert said is not None and "app 1.0~rc1+deb12u1" in said


def test_only_the_named_package_changed_says_nothing_more() -> None:
    ran = _ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
               {"state": "absent"}, BASE, {**BASE, "tool": "2.1"})
    done, said = settle(ran)
    assert done is not None and done.undo == ["sudo", "-n", "apt-get", "remove", "-y", "tool"]
    assert said is None


@pytest.mark.parametrize("version", ["1.0 --allow-unauthenticated", "1.0;rm -rf /",
                                     "$(reboot)", "1.0\nx", "`id`", "1" * 200, ""])
def test_a_hosts_version_that_is_not_a_version_keeps_the_undo_it_had(version: str) -> None:
    undo = ["sudo", "-n", "apt-get", "install", "-y", "lib"]
    ran = _ran(_remove(), undo, {"state": "installed", "version": ""},
               {**BASE, "lib": "1.0", "app": version}, BASE)
    settled, said = settle(ran)
    assert settled is None
    assert said is not None and "does not put in a command" in said


def test_a_pinned_reinstall_needs_a_version() -> None:
    assert fit_packages({"lib": "1.0", "lib2:i386": "2.0"})
    assert not fit_packages({"lib": ""})  # would reinstall whatever the sources offer
    assert not fit_packages({"lib:i386;x": "1"})


@pytest.mark.parametrize("name", ["--force-yes", "-o=APT::x", "a b", "x;reboot", "Ü", "",
                                  "lib:i 386", "lib:"])
def test_a_hosts_name_that_is_not_a_package_name_keeps_the_undo_it_had(name: str) -> None:
    ran = _ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
               {"state": "absent"}, BASE, {**BASE, "tool": "2.1", name: "1"})
    settled, said = settle(ran)
    assert settled is None and said is not None and "does not put in a command" in said


def test_thousands_of_names_are_recorded_exactly_and_too_many_are_not() -> None:
    new = {f"lib{i:05d}": "1.0" for i in range(3000)}
    undo = ["sudo", "-n", "apt-get", "remove", "-y", "tool"]
    done, said = settle(_ran(_install(), undo, {"state": "absent"}, BASE,
                             {**BASE, **new, "tool": "1"}))
    assert done is not None and done.undo is not None and len(done.undo) == 5 + 3001
    assert done.prior["new_packages"] == sorted([*new, "tool"])
    assert said is not None and "and 2989 more" in said

    flood = {f"lib{i:06d}": "1.0" for i in range(MAX_CHANGED + 1)}
    settled, said = settle(_ran(_install(), undo, {"state": "absent"}, BASE,
                                {**BASE, **flood}))
    assert settled is None and said is not None and "more than reos puts in one undo" in said


def test_a_read_that_failed_keeps_the_undo_it_had() -> None:
    undo = ["sudo", "-n", "apt-get", "remove", "-y", "tool"]
    settled, said = settle(_ran(_install(), undo, {"state": "absent"}, BASE, None,
                                "the read failed"))
    assert settled is None and said == (
        "reos could not read its packages around tool (the read failed), so undo does "
        "only what the plan said, for tool")
    settled, said = settle(_ran(_install(), undo, {"state": "absent"}, None, BASE))
    assert settled is None and said is not None and "could not read" in said


def test_a_package_step_that_neither_installs_nor_removes_is_not_read() -> None:
    hold = Step("s1", "Hold tool", ["sudo", "-n", "apt-mark", "hold", "tool"],
                target=Target("package", "tool"), action="hold")
    assert settle(_ran(hold, None, {"state": "installed"}, BASE, None)) == (None, None)
    assert package_changes.read_task(hold, "apt", package_changes.BEFORE) is None
    read = package_changes.read_task(_install(), "apt", package_changes.BEFORE)
    assert read is not None and read.failed_when is False and read.changed_when is False
    assert read.args["argv"][0] == "dpkg-query" and not read.become
    assert package_changes.read_task(_install(), "pacman", package_changes.BEFORE) is None


# dpkg-query -W -f '${db:Status-Abbrev}\t${binary:Package}\t${Version}\n', as a host in
# the middle of other work answers it
IN_TRANSIT = (
    "ii \tbash\t5.2.15-2+b2\n"
    "iU \tlibssl3:amd64\t3.0.11-1~deb12u2\n"     # unpacked, not yet configured
    "iF \tpython3-yaml\t6.0-3+b2\n"              # half-configured
    "it \tman-db\t2.11.2-2\n"                    # triggers pending
    "iW \tlibc-bin\t2.36-9+deb12u3\n"            # triggers awaited
    "hi \tnginx\t1.22.1-9\n"                     # held
    "iHR\tbroken\t1.0\n"                         # half-installed, reinstall required
    "rc \told-tool\t0.9-1\n"                     # config files only
    "un \tnever\t\n"                             # not installed
    "pn \tpurged\t\n"                            # purged
    "ii \tlib:i386\t1.0\n"
)


def test_dpkg_states_in_transit_count_as_installed() -> None:
    found = parse({"rc": 0, "stdout": IN_TRANSIT})
    assert found == {"bash": "5.2.15-2+b2", "libssl3:amd64": "3.0.11-1~deb12u2",
                     "python3-yaml": "6.0-3+b2", "man-db": "2.11.2-2",
                     "libc-bin": "2.36-9+deb12u3", "nginx": "1.22.1-9", "broken": "1.0",
                     "lib:i386": "1.0"}
    assert parse({"rc": 1, "stdout": IN_TRANSIT}) is None
    assert parse({"rc": 0, "stdout": "garbage line\n"}) is None
    assert parse({"rc": 0, "stdout": ""}) is None


def test_a_package_in_transit_at_one_read_is_neither_new_nor_taken() -> None:
    settled = parse({"rc": 0, "stdout": IN_TRANSIT.replace("iU ", "ii ").replace(
        "iF ", "ii ").replace("it ", "ii ").replace("iW ", "ii ").replace("hi ", "ii ")})
    moving = parse({"rc": 0, "stdout": IN_TRANSIT})
    assert settled is not None and moving is not None
    done, _ = settle(_ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
                          {"state": "absent"}, moving, {**settled, "tool": "1"}))
    assert done is not None and done.prior["new_packages"] == ["tool"]
    done, _ = settle(_ran(_remove("nginx"), ["sudo", "-n", "apt-get", "install", "-y",
                                             "nginx=1.22.1-9"],
                          {"state": "installed"}, settled,
                          {n: v for n, v in moving.items() if n != "nginx"} | {
                              "nginx-common": "1"}))
    assert done is None or done.prior["removed_packages"] == {"nginx": "1.22.1-9"}


def test_what_reos_needs_on_the_host_is_never_credited_to_a_step() -> None:
    before = {**BASE, "python3": "3.11.2-1"}
    after = {n: v + "+1" for n, v in before.items()}
    after |= {"tool": "1", "sudo-ldap": "1", "openssh-server": "9.2",
              "linux-image-6.1.0-13-amd64": "6.1.55-1", "grub-pc": "2.06"}
    done, _ = settle(_ran(_install(), ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
                          {"state": "absent"}, before, after))
    # sudo-ldap is the sudo of a host whose accounts come from LDAP: never undone either
    assert done is not None and done.prior["new_packages"] == ["tool"]
    gone = {"libc6": "2.36", "sudo": "1.9", "openssh-server": "9.2", "systemd": "252",
            "linux-image-6.1.0-13-amd64": "6.1.55-1"}
    done, _ = settle(_ran(_remove(), ["sudo", "-n", "apt-get", "install", "-y", "lib=1"],
                          {"state": "installed"}, {**gone, "lib": "1"}, {}))
    assert done is not None and done.prior["removed_packages"] == {"lib": "1"}


def test_a_removal_whose_package_stays_under_another_architecture_keeps_its_undo() -> None:
    undo = ["sudo", "-n", "apt-get", "install", "-y", "lib=1.0"]
    both = {**BASE, "lib:amd64": "1.0", "lib:i386": "1.0"}
    done, _ = settle(_ran(_remove(), undo, {"state": "installed"}, both,
                          {**BASE, "lib:i386": "1.0"}))
    assert done is not None and done.prior["removed_packages"] == {"lib:amd64": "1.0"}
    assert done.undo == ["sudo", "-n", "apt-get", "install", "-y", "--no-remove",
                         "--allow-downgrades",
                         "lib:amd64=1.0"]
    # nothing of it went, yet it is still there: what it did is not known
    settled, said = settle(_ran(_remove(), undo, {"state": "installed"}, both, both))
    assert settled is None and said is not None and "still installed" in said


# -- the wiring: reads in the play, recorded before rolling back ---------------------------
class _Host:
    """A host's package database as the fake play changes it, task by task."""

    def __init__(self, installed: dict[str, str]) -> None:
        self.installed = dict(installed)
        self.tasks: list[list[Task]] = []


def _carriers(task: Task) -> dict[str, object]:
    """The root read's answer of a host reached straight from outside: nothing on it
    carries reos's session (what undo reads before it removes a package)."""
    from reos.fleet import snapshots

    return {"ssh": {"ssh_passers": "", "ssh_passer_pids": ""}} if task.name.startswith(
        snapshots.ROOT_READ) else {}


def _fake_run(host: _Host, effects: dict[str, tuple[dict[str, str], str]]):  # type: ignore[no-untyped-def]
    """`running.run` on one host: each task's effect on its packages (by the step's id:
    what it installs, and "changed" or "failed"), reads answered from them."""
    def run(source: Source, hosts: list[str], tasks: list[Task], *, on_result=None,  # type: ignore[no-untyped-def]
            **_: object) -> Run:
        host.tasks.append(list(tasks))
        out = Run(hosts=tuple(hosts), status="successful", ended=True)
        for name in hosts:
            for task in tasks:
                if task.name.startswith((package_changes.BEFORE, package_changes.AFTER)):
                    result = Result(name, task.name, "ok", "", {
                        "rc": 0, "stdout": _dpkg(host.installed)})
                else:
                    sid = task.name.split(" ", 1)[0]
                    adds, status = effects.get(sid, ({}, "changed"))
                    for n, v in adds.items():
                        if v:
                            host.installed[n] = v
                        else:
                            host.installed.pop(n, None)
                    result = Result(name, task.name, status, "",
                                    {"rc": 0 if status == "changed" else 1})
                out.results.append(result)
                if on_result is not None:
                    on_result(result)
                if result.status == "failed":
                    break
        return out
    return run


def _part(steps: list[Step], undos: list[list[str] | None]) -> Prepared:
    return Prepared("web2", Plan("install tool", Kind.ACTION, steps=steps),
                    priors=[{"state": "absent", **PRIOR} for _ in steps], undos=undos,
                    read_only=False)


def test_the_change_reads_packages_around_each_step_and_records_only_its_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Something upgraded between the plan and the run, and a second package step: each
    is credited only what changed between its own two reads."""
    host = _Host({**BASE, "unattended": "1"})  # came after the plan was read
    monkeypatch.setattr(changing, "run", _fake_run(host, {
        "s1": ({"tool": "2", "dep": "1"}, "changed"),
        "s2": ({"solo": "1", "solo-dep": "1"}, "changed")}))
    one, two = _install("tool"), Step("s2", "Install solo", [
        "sudo", "-n", "apt-get", "install", "-y", "solo"], target=Target("package", "solo"),
        action="install")
    journal = _journal()
    applied = changing.apply(journal, Source((), "a test"), "install tool and solo",
                             [_part([one, two], [
                                 ["sudo", "-n", "apt-get", "remove", "-y", "tool"],
                                 ["sudo", "-n", "apt-get", "remove", "-y", "solo"]])])
    [tasks] = host.tasks
    assert [t.name.split(" ")[-1] if t.name.startswith("reos") else t.name.split(" ")[0]
            for t in tasks] == ["s1", "s1", "s1", "s2", "s2", "s2"]
    assert tasks[0].name == f"{package_changes.BEFORE} s1"
    assert tasks[2].name == f"{package_changes.AFTER} s1"
    steps = {s.step_id: s for s in journal.transaction(applied.tx_id).steps}
    assert steps["s1"].prior_state["new_packages"] == ["dep", "tool"]
    assert steps["s1"].rollback == ["sudo", "-n", "apt-get", "remove", "-y", "dep", "tool"]
    assert steps["s2"].prior_state["new_packages"] == ["solo", "solo-dep"]
    assert [o.status for o in applied.outcomes] == ["done"]


def test_what_a_step_did_is_recorded_before_rolling_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    host = _Host(BASE)
    undo_runs: list[list[str]] = []
    fake = _fake_run(host, {"s1": ({"tool": "2", "dep": "1"}, "changed"),
                            "s2": ({}, "failed")})

    def run(source, hosts, tasks, **kw):  # type: ignore[no-untyped-def]
        if tasks and tasks[0].name == changing.SAME_MACHINE:
            # the first run reads apt's dry run of the removal; the second undoes
            first = any(t.name.startswith(changing.DRY_RUN) for t in tasks)
            if not first:
                undo_runs.extend(t.args["argv"] for t in tasks[1:])
            out = Run(hosts=tuple(hosts), status="successful", ended=True)
            for t in tasks:
                said = "Remv dep [1]\nRemv tool [2]\n" if t.name.startswith(
                    changing.DRY_RUN) else ""
                result = Result(hosts[0], t.name, "changed", "", {"rc": 0, "stdout": said,
                                                                   **_carriers(t)})
                out.results.append(result)
                if kw.get("on_result"):
                    kw["on_result"](result)
            return out
        return fake(source, hosts, tasks, **kw)

    monkeypatch.setattr(changing, "run", run)
    broken = Step("s2", "Restart web", ["sudo", "-n", "systemctl", "restart", "web"],
                  target=Target("service", "web"), action="restart")
    changing.apply(_journal(), Source((Path("/nowhere/hosts.ini"),), "a test"),
                   "install tool", [_part([_install(), broken], [
                       ["sudo", "-n", "apt-get", "remove", "-y", "tool"], None])],
                   roll_back=True)
    assert undo_runs == [["apt-get", "remove", "-y", "dep", "tool"]]


def _undone(rollback: list[str], prior: dict[str, object]) -> list[tuple[str, str]]:
    journal = _journal()
    step = _install()
    tx = journal.begin("install tool", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    journal.begin_step(tx, 0, "s1", step.title, step.argv, action="install",
                       target_kind="package", target_name="tool",
                       prior_state={"state": "absent", **PRIOR, **prior}, rollback=rollback,
                       host="web2", status="done")
    journal.finish(tx, COMPLETED)
    record = journal.transaction(tx)
    assert record is not None
    undone = changing.undo(journal, record)
    assert undone is not None
    return undone.hosts[0].steps


@pytest.mark.parametrize(("rollback", "prior", "named"), [
    (["sudo", "-n", "apt-get", "remove", "-y", "sudo", "tool"],
     {"new_packages": ["sudo", "tool"]}, "sudo"),
    (["sudo", "-n", "apt-get", "remove", "-y", "linux-image-6.1.0-13-amd64", "tool"],
     {"new_packages": ["linux-image-6.1.0-13-amd64", "tool"]}, "linux-image-6.1.0-13-amd64"),
    (["sudo", "-n", "apt-get", "install", "-y", "--no-remove", "--allow-downgrades",
      "libc6=2.31", "tool=1"],
     {"removed_packages": {"libc6": "2.31", "tool": "1"}}, "libc6"),
])
def test_a_journal_row_never_undoes_what_reos_needs_on_the_host(
        monkeypatch: pytest.MonkeyPatch, rollback: list[str], prior: dict[str, object],
        named: str) -> None:
    monkeypatch.setattr(changing, "run", lambda *a, **k: pytest.fail("nothing may run"))
    [(_, said)] = _undone(rollback, prior)
    assert said.startswith("refused: it would change " + named), said


def _dry_run_answers(monkeypatch: pytest.MonkeyPatch, stdout: str, rc: int = 0,
                     stderr: str = "") -> list[list[list[str]]]:
    """The runner replaced: apt's dry run on the host answers `stdout`; every run's argvs
    are kept."""
    runs: list[list[list[str]]] = []

    def run(source, hosts, tasks, **kw):  # type: ignore[no-untyped-def]
        runs.append([t.args["argv"] for t in tasks if "argv" in t.args])
        out = Run(hosts=tuple(hosts), status="successful", ended=True)
        for t in tasks:
            dry = t.name.startswith(changing.DRY_RUN)
            result = Result(hosts[0], t.name, "changed", "", {
                "rc": rc if dry else 0, "stdout": stdout if dry else "",
                "stderr": stderr if dry else "", **_carriers(t)})
            out.results.append(result)
            if kw.get("on_result"):
                kw["on_result"](result)
        return out

    monkeypatch.setattr(changing, "run", run)
    return runs


def test_an_install_undo_on_a_host_runs_when_its_dry_run_takes_only_what_it_names(
        monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _dry_run_answers(monkeypatch, "Remv dep [1]\nRemv tool [2]\n")
    [(_, said)] = _undone(["sudo", "-n", "apt-get", "remove", "-y", "dep", "tool"],
                          {"new_packages": ["dep", "tool"]})
    assert said == "undone"
    assert ["apt-get", "-s", "-q", "remove", "dep", "tool"] in runs[0]
    assert runs[1][1:] == [["apt-get", "remove", "-y", "dep", "tool"]]


@pytest.mark.parametrize(("stdout", "rc", "stderr", "why"), [
    ("Remv app [1]\nRemv tool [2]\n", 0, "", "would also remove app"),
    ("", 100, "E: Unable to lock the administration directory", "apt refuses"),
])
def test_an_install_undo_on_a_host_that_would_take_more_is_refused_and_runs_nothing(
        monkeypatch: pytest.MonkeyPatch, stdout: str, rc: int, stderr: str,
        why: str) -> None:
    runs = _dry_run_answers(monkeypatch, stdout, rc, stderr)
    [(_, said)] = _undone(["sudo", "-n", "apt-get", "remove", "-y", "tool"],
                          {"new_packages": ["tool"]})
    assert said.startswith("refused:") and why in said, said
    assert len(runs) == 1  # the read; no undo ran


def test_an_install_undo_on_a_host_without_apt_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _dry_run_answers(monkeypatch, "")
    [(_, said)] = _undone(["sudo", "-n", "dnf", "remove", "-y", "tool"],
                          {"new_packages": ["tool"], "manager": "dnf"})
    assert said.startswith("refused:") and "only through apt's dry run" in said, said
    assert all(argv[0] != "dnf" for run in runs for argv in run)


# -- on the fleet bed ----------------------------------------------------------------------
def test_a_hosts_install_and_removal_are_undone_with_what_came_and_went_with_them(
        fleet) -> None:  # type: ignore[no-untyped-def]
    """reos-demo-app needs reos-demo-base (1.0 and 1.1 in the bed's repository); no other
    fleet test touches them."""
    def installed(host: str) -> dict[str, str]:
        done = fleet.run(host, "dpkg-query", "-W", "-f",
                         "${db:Status-Abbrev}\t${Package}\t${Version}\n",
                         "reos-demo-app", "reos-demo-base")
        rows = [line.split("\t") for line in done.stdout.splitlines()]
        return {r[1]: r[2] for r in rows if len(r) == 3 and r[0].startswith("ii")}

    def plan(request: str):  # type: ignore[no-untyped-def]
        return reos("plan", "--hosts", "web2", "-i", str(fleet.inventory), "--yes",
                    request, timeout=180)

    def last_row():  # type: ignore[no-untyped-def]
        [tx, *_] = _journal().transactions(kind=FLEET)
        [step] = [s for s in tx.steps if s.host == "web2"]
        return step

    assert installed("web2") == {}
    done = plan("install reos-demo-app")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert installed("web2") == {"reos-demo-app": "1.0", "reos-demo-base": "1.1"}
    assert "undo removes what install reos-demo-app brought in" in done.stdout
    step = last_row()
    assert step.prior_state["new_packages"] == ["reos-demo-app", "reos-demo-base"]
    undone = reos("undo", "--host", "web2", timeout=180)
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert installed("web2") == {}

    # the older library, installed by hand; removing it takes the app with it
    put = fleet.run("web2", "apt-get", "install", "-y", "-qq", "reos-demo-base=1.0",
                    "reos-demo-app", timeout=120)
    assert put.returncode == 0, put.stdout + put.stderr
    try:
        done = plan("remove reos-demo-base")
        assert done.returncode == EXIT_OK, done.stdout + done.stderr
        assert installed("web2") == {}
        step = last_row()
        assert step.prior_state["removed_packages"] == {"reos-demo-app": "1.0",
                                                        "reos-demo-base": "1.0"}
        undone = reos("undo", timeout=180)
        assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
        assert installed("web2") == {"reos-demo-app": "1.0", "reos-demo-base": "1.0"}
    finally:
        fleet.run("web2", "apt-get", "purge", "-y", "-qq", "reos-demo-app", "reos-demo-base",
                  timeout=120)
    assert json.loads(json.dumps(step.prior_state))["machine_id"]  # recorded as before


def test_a_removal_that_takes_the_ssh_server_with_it_is_left_out_by_apt_s_dry_run(
        fleet) -> None:  # type: ignore[no-untyped-def]
    """libwrap0 is not a name reos knows as vital, but Debian 12's openssh-server
    depends on it: apt's dry run on the host says so, and nothing runs there."""
    before = fleet.run("web2", "dpkg-query", "-W", "libwrap0", "openssh-server").stdout
    assert "libwrap0" in before and "openssh-server" in before
    done = reos("plan", "--hosts", "web2", "-i", str(fleet.inventory), "--yes",
                "remove libwrap0", timeout=180)
    said = done.stdout + done.stderr
    assert "would also remove openssh-server" in said, said
    assert fleet.run("web2", "dpkg-query", "-W", "libwrap0", "openssh-server").stdout == before


def test_undoing_an_install_on_a_host_never_takes_what_was_installed_since_on_top(
        fleet) -> None:  # type: ignore[no-untyped-def]
    """As on this machine: apt's dry run on the host, read in the undo's first run, says
    the removal would take reos-demo-app, installed by hand since; nothing is removed."""
    def installed() -> set[str]:
        done = fleet.run("web2", "dpkg-query", "-W", "-f", "${db:Status-Abbrev} ${Package}\n",
                         "reos-demo-app", "reos-demo-base")
        return {line.split()[1] for line in done.stdout.splitlines()
                if line.startswith("ii")}

    fleet.run("web2", "apt-get", "purge", "-y", "-qq", "reos-demo-app", "reos-demo-base",
              timeout=120)
    try:
        done = reos("plan", "--hosts", "web2", "-i", str(fleet.inventory), "--yes",
                    "install reos-demo-base", timeout=180)
        assert done.returncode == EXIT_OK, done.stdout + done.stderr
        put = fleet.run("web2", "apt-get", "install", "-y", "-qq", "reos-demo-app",
                        timeout=120)
        assert put.returncode == 0, put.stdout + put.stderr
        undone = reos("undo", "--host", "web2", timeout=180)
        said = undone.stdout + undone.stderr
        assert "would also remove reos-demo-app" in said, said
        assert installed() == {"reos-demo-app", "reos-demo-base"}
    finally:
        fleet.run("web2", "apt-get", "purge", "-y", "-qq", "reos-demo-app", "reos-demo-base",
                  timeout=120)
