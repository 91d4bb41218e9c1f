"""The journal (real SQLite) and the executor (real processes) without docker."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from reos import paths
from reos.execution.executor import Checks, Executor, Machine
from reos.execution.undo import undo_latest
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.model.target import Target
from reos.settings import LimitsSettings
from reos.store.db import Database
from reos.store.journal import Journal


def journal() -> Journal:
    return Journal(Database(paths.database_file()))


def file_plan(tmp_path: Path, n: int) -> Plan:
    """A plan of n steps that each create a marker file (real side effects)."""
    steps = [
        Step(id=f"s{i}", title=f"Mark {i}", argv=["touch", str(tmp_path / f"m{i}")],
             risk=RiskLevel.LOW)
        for i in range(1, n + 1)
    ]
    return Plan("mark files", Kind.ACTION, steps=steps)


def test_migrations_are_recorded_once_and_wal_is_on() -> None:
    db = Database(paths.database_file())
    conn = db.connect()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    again = Database(paths.database_file()).connect()
    assert [r[0] for r in again.execute("SELECT name FROM migrations")] == [
        "001_journal", "002_backups", "003_knowledge", "004_undo_claims",
        "005_link_backups", "006_traces", "007_reflection", "008_edited_steps",
        "009_fleet"]


def test_steps_run_in_order_and_are_journaled(tmp_path: Path) -> None:
    j = journal()
    report = Executor(j, LimitsSettings()).execute(file_plan(tmp_path, 3))
    assert report.ok and [s.id for s in report.completed] == ["s1", "s2", "s3"]
    assert all((tmp_path / f"m{i}").exists() for i in (1, 2, 3))
    tx = j.transactions()[0]
    assert tx.status == "completed" and [s.status for s in tx.steps] == ["done"] * 3


def test_first_failure_stops_the_plan(tmp_path: Path) -> None:
    plan = file_plan(tmp_path, 3)
    plan.steps[1] = Step(id="s2", title="Fail", argv=["false"])
    report = Executor(journal(), LimitsSettings()).execute(plan)
    assert not report.ok and report.failed is not None and report.failed.id == "s2"
    assert [s.id for s in report.pending] == ["s3"]
    assert not (tmp_path / "m3").exists()
    assert journal().transactions()[0].status == "failed"


def test_missing_program_is_a_failed_step_not_a_crash(tmp_path: Path) -> None:
    plan = Plan("x", Kind.ACTION, steps=[Step(id="s1", title="Nope",
                                             argv=["reos-no-such-program"])])
    report = Executor(journal(), LimitsSettings()).execute(plan)
    assert report.failed is not None and report.results[0].exit_code == 127


def test_max_operations_breaker_stops_and_reports_pending(tmp_path: Path) -> None:
    report = Executor(journal(), LimitsSettings(max_operations=2)).execute(
        file_plan(tmp_path, 4))
    assert [s.id for s in report.completed] == ["s1", "s2"]
    assert [s.id for s in report.pending] == ["s3", "s4"]
    assert report.stopped_reason == "maximum operations reached (2/2)"
    assert not (tmp_path / "m3").exists()


def test_max_seconds_breaker_kills_a_step_that_runs_too_long(tmp_path: Path) -> None:
    plan = Plan("slow", Kind.ACTION, steps=[
        Step(id="s1", title="Sleep", argv=["sleep", "30"]),
        Step(id="s2", title="Mark", argv=["touch", str(tmp_path / "after")]),
    ])
    report = Executor(journal(), LimitsSettings(max_seconds=1)).execute(plan)
    assert report.failed is not None and report.failed.id == "s1"
    assert "stopped it after" in report.results[0].stderr
    assert not (tmp_path / "after").exists()


def test_limits_are_copied_when_execution_starts(tmp_path: Path) -> None:
    limits = LimitsSettings(max_operations=1)
    executor = Executor(journal(), limits)
    limits.max_operations = 100  # a later change to the settings object cannot lift it
    report = executor.execute(file_plan(tmp_path, 2))
    assert report.stopped_reason is not None and len(report.completed) == 1


def test_step_row_is_written_before_the_command_runs(tmp_path: Path) -> None:
    seen = []

    def spying_run(argv, **kwargs):
        # the row must already be in the database, from another connection, before we run
        conn = sqlite3.connect(paths.database_file())
        seen.append(conn.execute("SELECT status, prior_state, rollback FROM steps").fetchall())
        conn.close()
        from reos.execution.runner import run_argv

        return run_argv(argv, **kwargs)

    plan = Plan("stop x", Kind.ACTION, steps=[
        Step(id="s1", title="Stop x", argv=["true"], target=Target("container", "x", "running"),
             action="stop")])
    Executor(journal(), LimitsSettings(), machine=Machine(
        run=spying_run, probe=lambda kind, name: {"state": "running"})).execute(plan)
    assert seen == [[("running", '{"state": "running"}', '["docker", "start", "x"]')]]


def test_undo_runs_recorded_restores_newest_first(tmp_path: Path) -> None:
    log = tmp_path / "undo.log"
    ran: list[list[str]] = []

    def recording_run(argv, **kwargs):
        ran.append(argv)
        from reos.model.report import StepResult

        return StepResult(kwargs.get("step_id", ""), True, 0)

    j = journal()
    tx = j.begin("stop a and b")
    for seq, name in enumerate(["a", "b"]):
        row = j.begin_step(tx, seq, f"s{seq + 1}", f"Stop {name}", ["docker", "stop", name],
                           target_kind="container", target_name=name,
                           prior_state={"state": "running"},
                           rollback=["docker", "start", name])
        j.finish_step(row, "done", 0)
    j.finish(tx, "completed")
    report = undo_latest(j, run=recording_run)
    assert ran == [["docker", "start", "b"], ["docker", "start", "a"]]
    assert report.ok and "(ran: docker start b)" in report.to_dict()["message"]
    history = j.transactions()
    assert history[0].kind == "undo" and history[0].undoes == tx
    assert history[1].status == "undone" and not history[1].undoable
    assert undo_latest(j, run=recording_run).transaction is None  # nothing left
    assert not log.exists()


def test_failed_undo_says_what_to_run_and_does_not_block_older(tmp_path: Path) -> None:
    from reos.model.report import StepResult

    j = journal()
    for request, name in (("stop old", "old"), ("stop new", "new")):
        tx = j.begin(request)
        row = j.begin_step(tx, 0, "s1", f"Stop {name}", ["docker", "stop", name],
                           target_kind="container", target_name=name,
                           prior_state={"state": "running"}, rollback=["docker", "start", name])
        j.finish_step(row, "done", 0)
        j.finish(tx, "completed")
    failing = undo_latest(j, run=lambda argv, **kw: StepResult("u1", False, 1, "", "boom"))
    assert not failing.ok
    message = failing.to_dict()["message"]
    assert "Couldn't undo" in message and "run: docker start new" in message
    nxt = undo_latest(j, run=lambda argv, **kw: StepResult("u1", True, 0))
    assert nxt.transaction is not None and nxt.transaction.request == "stop old"


def test_a_killed_process_leaves_an_interrupted_undoable_transaction(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import os, signal
        os.environ["REOS_HOME"] = {str(os.environ["REOS_HOME"])!r}
        from reos import paths
        from reos.store.db import Database
        from reos.store.journal import Journal
        j = Journal(Database(paths.database_file()))
        tx = j.begin("stop web")
        row = j.begin_step(tx, 0, "s1", "Stop web", ["docker", "stop", "web"],
                           target_kind="container", target_name="web",
                           prior_state={{"state": "running"}}, rollback=["docker", "start", "web"])
        os.kill(os.getpid(), signal.SIGKILL)  # dies with the step still 'running'
    """)
    done = subprocess.run([sys.executable, "-c", script])
    assert done.returncode == -9
    tx = journal().transactions()[0]
    assert tx.status == "interrupted"
    assert tx.undoable and tx.undo_steps[0].rollback == ["docker", "start", "web"]


def test_concurrent_writers_lose_no_rows(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import os
        os.environ["REOS_HOME"] = {str(os.environ["REOS_HOME"])!r}
        from reos import paths
        from reos.store.db import Database
        from reos.store.journal import Journal
        j = Journal(Database(paths.database_file()))
        for i in range(40):
            tx = j.begin(f"w{{os.getpid()}}-{{i}}")
            r = j.begin_step(tx, 0, "s1", "t", ["true"])
            j.finish_step(r, "done", 0)
            j.finish(tx, "completed")
    """)
    journal().transactions()  # create and migrate first
    procs = [subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    errors = [p.communicate()[1] for p in procs]
    assert all(p.returncode == 0 for p in procs), errors
    conn = sqlite3.connect(paths.database_file())
    assert conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0] == 160
    assert conn.execute("SELECT COUNT(*) FROM steps WHERE status='done'").fetchone()[0] == 160


def _edit_plan(argv: list[str]) -> Plan:
    return Plan("edit the config", Kind.ACTION,
                steps=[Step(id="s1", title="Edit the config", argv=argv, risk=RiskLevel.LOW)])


def test_a_file_edit_is_backed_up_and_undo_restores_it_byte_for_byte(tmp_path: Path) -> None:
    from reos.safety.backups import BackupStore

    config = tmp_path / "app.conf"
    original = b"port = 8080\nname = caf\xc3\xa9\n\x00binary tail"
    config.write_bytes(original)
    config.chmod(0o640)
    j = journal()
    store = BackupStore(tmp_path / "backups")
    report = Executor(j, LimitsSettings(), checks=Checks(backups=store)).execute(
        _edit_plan(["sed", "-i", "s/8080/9090/", str(config)]))
    assert report.ok and b"9090" in config.read_bytes()
    saved = j.transactions()[0].steps[0].backups
    assert saved and saved[0]["path"] == str(config) and saved[0]["restored"] == 0
    undone = undo_latest(j)
    assert undone.ok, undone.to_dict()
    assert config.read_bytes() == original
    assert config.stat().st_mode & 0o777 == 0o640
    assert "sha256" in undone.to_dict()["message"]
    assert not j.transactions(kind="action")[0].undoable


def test_a_file_the_step_created_is_removed_by_undo(tmp_path: Path) -> None:
    from reos.safety.backups import BackupStore

    created = tmp_path / "new.conf"
    j = journal()
    Executor(j, LimitsSettings(), checks=Checks(backups=BackupStore(tmp_path / "b"))).execute(
        _edit_plan(["cp", "/etc/hostname", str(created)]))
    assert created.exists()
    assert undo_latest(j).ok
    assert not created.exists()


def test_a_damaged_backup_is_refused_and_reported(tmp_path: Path) -> None:
    from reos.safety.backups import BackupStore

    config = tmp_path / "x.conf"
    config.write_text("a\n")
    j = journal()
    Executor(j, LimitsSettings(), checks=Checks(backups=BackupStore(tmp_path / "b"))).execute(
        _edit_plan(["sed", "-i", "s/a/b/", str(config)]))
    stored = j.transactions()[0].steps[0].backups[0]["stored"]
    Path(stored).write_text("tampered\n")
    report = undo_latest(j)
    assert not report.ok and "damaged" in report.to_dict()["message"]
    assert config.read_text() == "b\n"  # left alone rather than restored from a bad copy


def test_files_changed_by_common_commands(tmp_path: Path) -> None:
    from reos.safety.backups import files_changed

    assert files_changed(["sed", "-i", "s/a/b/", "/etc/x.conf"]) == ["/etc/x.conf"]
    assert files_changed(["sudo", "-n", "sed", "-i.bak", "-e", "s/a/b/", "f1", "f2"]) == [
        "f1", "f2"]
    assert files_changed(["tee", "-a", "/etc/hosts"]) == ["/etc/hosts"]
    assert files_changed(["cp", "new.conf", "/etc/app.conf"]) == ["/etc/app.conf"]
    assert files_changed(["mv", "a.conf", "b.conf"]) == ["a.conf", "b.conf"]
    assert files_changed(["rm", "-f", "/etc/app.conf"]) == ["/etc/app.conf"]
    assert files_changed(["truncate", "-s", "0", "log.txt"]) == ["log.txt"]
    assert files_changed(["chmod", "600", "/etc/app.conf"]) == ["/etc/app.conf"]
    assert files_changed(["docker", "stop", "x"]) == []


def test_resume_resets_only_the_operation_counter(tmp_path: Path) -> None:
    executor = Executor(journal(), LimitsSettings(max_operations=2))
    report = executor.execute(file_plan(tmp_path, 5))
    assert len(report.completed) == 2 and len(report.pending) == 3
    report = executor.resume(report)  # the person said "continue"
    assert [s.id for s in report.completed] == ["s1", "s2", "s3", "s4"]
    assert [s.id for s in report.pending] == ["s5"]
    assert "maximum operations" in (report.stopped_reason or "")
    report = executor.resume(report)
    assert report.ok and all((tmp_path / f"m{i}").exists() for i in range(1, 6))
    tx = journal().transactions()[0]
    assert tx.status == "completed" and len(tx.steps) == 5


def test_escalations_are_counted(tmp_path: Path) -> None:
    plan = Plan("x", Kind.ACTION, steps=[Step(id="s1", title="as root", argv=["sudo", "-n",
                                                                            "true"])])
    report = Executor(journal(), LimitsSettings()).execute(plan)
    assert report.escalations == 1
