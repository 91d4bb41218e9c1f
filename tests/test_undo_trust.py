"""Undo that trusts nothing, on the host: real files, real SQLite, real processes.

Restores never write through a symbolic link (at the target, at a temporary name or in
the folder walk) and never over a file someone else put in place; recorded undo commands
are judged again by the gate and a damaged journal row is reported, not run; two undos at
once revert a transaction once. The same attack as another user, as root, in the Debian
bed: tests/test_bed_undo_attacks.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from reos import paths
from reos.execution.executor import Checks, Executor
from reos.execution.undo import undo_latest
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.safety.backups import Backup, BackupStore, may_change_owner
from reos.safety.restore import Refused
from reos.settings import LimitsSettings
from reos.store.db import Database
from reos.store.journal import Journal
from tests.conftest import REOS_BIN, Containers, reos

ORIGINAL = b"port = 8080\nname = caf\xc3\xa9\n"
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give files other owners")


def journal() -> Journal:
    return Journal(Database(paths.database_file()))


def edit(path: Path, argv: list[str] | None = None) -> Journal:
    """Edit `path` with a real `sed -i` through the executor, backed up as reos does."""
    j = journal()
    step = Step(id="s1", title="Edit the config", risk=RiskLevel.LOW,
                argv=argv or ["sed", "-i", "s/8080/9090/", str(path)])
    report = Executor(j, LimitsSettings(),
                      checks=Checks(backups=BackupStore(paths.backups_dir()))).execute(
        Plan("edit the config", Kind.ACTION, steps=[step]))
    assert report.ok, report
    return j


@pytest.fixture
def config(tmp_path: Path) -> Path:
    shared = tmp_path / "shared"
    shared.mkdir()
    path = shared / "app.conf"
    path.write_bytes(ORIGINAL)
    path.chmod(0o640)
    return path


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """Stands for /etc/shadow: a file an attacker wants written through a symlink."""
    path = tmp_path / "victim"
    path.write_bytes(b"root:$y$secret:19000::::::\n")
    return path


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- restores ---------------------------------------------------------------------------

def test_target_replaced_by_a_symlink_is_left_alone(config: Path, victim: Path) -> None:
    before = sha(victim)
    j = edit(config)
    config.unlink()
    config.symlink_to(victim)
    report = undo_latest(j)
    assert not report.ok
    message = report.to_dict()["message"]
    assert f"{config} is now a symbolic link; I left it alone" in message
    assert "To do it by hand" not in message
    assert sha(victim) == before
    assert config.is_symlink() and os.readlink(config) == str(victim)
    assert [p.name for p in config.parent.iterdir()] == ["app.conf"]  # no temporary left


def test_symlinks_at_the_old_predictable_temporary_name_are_not_followed(
        config: Path, victim: Path) -> None:
    before = sha(victim)
    j = edit(config)
    planted = [config.with_name(".app.conf.reos-restore"), config.with_name(".app.conf.tmp")]
    for link in planted:
        link.symlink_to(victim)
    report = undo_latest(j)
    assert report.ok, report.to_dict()
    assert config.read_bytes() == ORIGINAL and not config.is_symlink()
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert sha(victim) == before
    assert all(os.readlink(link) == str(victim) for link in planted)
    assert sorted(p.name for p in config.parent.iterdir()) == sorted(
        ["app.conf", *(link.name for link in planted)])


def test_a_folder_swapped_for_a_symlink_is_not_walked_through(
        tmp_path: Path, victim: Path) -> None:
    conf_d = tmp_path / "conf.d"
    conf_d.mkdir()
    target = conf_d / "victim"
    target.write_bytes(ORIGINAL)
    before = sha(victim)
    j = edit(target)
    conf_d.rename(tmp_path / "conf.old")
    conf_d.symlink_to(tmp_path)  # conf.d/victim now names the victim
    report = undo_latest(j)
    assert not report.ok
    assert f"{conf_d} is now a symbolic link; I left it alone" in report.to_dict()["message"]
    assert sha(victim) == before


def test_a_folder_replaced_by_another_real_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "conf.d"
    folder.mkdir()
    target = folder / "app.conf"
    target.write_bytes(ORIGINAL)
    j = edit(target)
    folder.rename(tmp_path / "conf.old")
    folder.mkdir()
    (folder / "app.conf").write_bytes(b"someone else's\n")
    report = undo_latest(j)
    assert not report.ok and "is not the one I backed" in report.to_dict()["message"]
    assert (folder / "app.conf").read_bytes() == b"someone else's\n"


@as_root
def test_a_file_now_owned_by_someone_else_is_left_alone(config: Path) -> None:
    j = edit(config)
    replacement = config.with_name("x")
    replacement.write_bytes(b"planted\n")
    os.chown(replacement, 4242, 4242)
    replacement.rename(config)
    report = undo_latest(j)
    assert not report.ok
    assert "now belongs to uid 4242, not" in report.to_dict()["message"]
    assert config.read_bytes() == b"planted\n"


@as_root
def test_a_step_that_chowns_is_undone_even_though_the_owner_changed(config: Path) -> None:
    j = edit(config, ["chown", "4242:4242", str(config)])
    assert config.stat().st_uid == 4242
    report = undo_latest(j)
    assert report.ok, report.to_dict()
    assert (config.stat().st_uid, config.stat().st_gid) == (0, 0)
    assert config.read_bytes() == ORIGINAL


def test_removing_a_created_file_never_follows_a_symlink(tmp_path: Path, victim: Path) -> None:
    created = tmp_path / "new.conf"
    before = sha(victim)
    j = edit(created, ["cp", str(victim), str(created)])
    created.unlink()
    created.symlink_to(victim)
    if os.geteuid() == 0:
        os.lchown(created, 4242, 4242)  # planted by another user
        report = undo_latest(j)
        assert not report.ok and "belongs to uid 4242" in report.to_dict()["message"]
        assert created.is_symlink()
    else:  # our own symlink: removing it removes the link, never what it points to
        assert undo_latest(j).ok
        assert not created.is_symlink()
    assert victim.exists() and sha(victim) == before


def test_removing_a_created_file_refuses_a_folder_put_there(tmp_path: Path) -> None:
    created = tmp_path / "new.conf"
    j = edit(created, ["cp", "/etc/hostname", str(created)])
    created.unlink()
    created.mkdir()
    report = undo_latest(j)
    assert not report.ok and "is now a folder" in report.to_dict()["message"]
    assert created.is_dir()


def test_a_symlinked_config_edited_in_place_gets_its_link_back(
        tmp_path: Path, victim: Path) -> None:
    link = tmp_path / "resolv.conf"
    link.symlink_to(victim)
    before = sha(victim)
    j = edit(link, ["sed", "-i", "s/secret/changed/", str(link)])
    assert not link.is_symlink() and b"changed" in link.read_bytes()  # sed -i replaced it
    report = undo_latest(j)
    assert report.ok, report.to_dict()
    assert link.is_symlink() and os.readlink(link) == str(victim)
    assert sha(victim) == before
    assert "put the symbolic link back" in report.to_dict()["message"]


@as_root
def test_a_link_backup_is_not_restored_over_someone_elses_link(
        tmp_path: Path, victim: Path) -> None:
    link = tmp_path / "current"
    link.symlink_to(victim)
    j = edit(link, ["ln", "-sfn", "/etc/hostname", str(link)])
    link.unlink()
    link.symlink_to("/etc/passwd")
    os.lchown(link, 4242, 4242)
    report = undo_latest(j)
    assert not report.ok and "belonging to uid 4242" in report.to_dict()["message"]
    assert os.readlink(link) == "/etc/passwd"


def test_restore_recreates_a_deleted_file_with_its_mode(config: Path) -> None:
    j = edit(config, ["rm", "-f", str(config)])
    assert not config.exists()
    assert undo_latest(j).ok
    assert config.read_bytes() == ORIGINAL
    assert stat.S_IMODE(config.stat().st_mode) == 0o640


# -- backup copies ----------------------------------------------------------------------

def test_backups_are_private_and_never_read_through_a_symlink(
        tmp_path: Path, config: Path, victim: Path) -> None:
    store = BackupStore(tmp_path / "backups")
    saved = store.save(str(config), "tx1-1")
    assert saved is not None and saved.stored is not None
    assert stat.S_IMODE(os.stat(saved.stored).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(Path(saved.stored).parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / "backups").st_mode) == 0o700
    assert (saved.ino, saved.dir) == (config.stat().st_ino, str(config.parent))
    link = tmp_path / "link.conf"
    link.symlink_to(victim)
    as_link = store.save(str(link), "tx1-2")  # the link itself, not copied through it
    assert as_link is not None and (as_link.link, as_link.stored) == (str(victim), None)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert store.save(str(fifo), "tx1-3") is None  # and opening it does not hang


def test_a_backup_pointer_to_a_file_reos_did_not_make_is_refused(
        tmp_path: Path, config: Path, victim: Path) -> None:
    saved = BackupStore(tmp_path / "b").save(str(config), "tx1-1")
    assert saved is not None
    victim.chmod(0o644)
    forged = Backup(**{**saved.to_dict(), "stored": str(victim), "sha256": sha(victim)})
    with pytest.raises(Refused, match="not a private file I made"):
        BackupStore.restore(forged)
    assert config.read_bytes() == ORIGINAL


def test_backup_rows_are_checked_by_type(tmp_path: Path, config: Path) -> None:
    saved = BackupStore(tmp_path / "b").save(str(config), "tx1-1")
    assert saved is not None
    good = saved.to_dict()
    assert Backup.from_dict(good) == saved
    for bad in ({"path": "relative/app.conf"}, {"path": "/srv/../etc/shadow"},
                {"path": 7}, {"mode": "0644"}, {"mode": 0o100000}, {"uid": -1},
                {"uid": True}, {"sha256": "abc"}, {"stored": ["x"]}, {"dir": "/a/./b"},
                {"link": "/etc/shadow"}, {"link": 3}):
        with pytest.raises(ValueError):
            Backup.from_dict({**good, **bad})


def test_which_steps_may_change_a_files_owner() -> None:
    assert may_change_owner(["sudo", "-n", "chown", "bob", "/x"])
    assert may_change_owner(["cp", "-a", "/a", "/b"]) and may_change_owner(["mv", "/a", "/b"])
    assert not may_change_owner(["sed", "-i", "s/a/b/", "/x"])
    assert not may_change_owner(["cp", "/a", "/b"]) and not may_change_owner(["tee", "/x"])


# -- the journal is untrusted -----------------------------------------------------------

def _stopped(j: Journal, rollback: str, request: str = "stop web") -> int:
    tx = j.begin(request)
    row = j.begin_step(tx, 0, "s1", "Stop web", ["docker", "stop", "web"],
                       target_kind="container", target_name="web",
                       prior_state={"state": "running"}, rollback=["docker", "start", "web"])
    j.finish_step(row, "done", 0)
    j.finish(tx, "completed")
    j.db.connect().execute("UPDATE steps SET rollback = ? WHERE id = ?", (rollback, row))
    return tx


@pytest.mark.parametrize("rollback", [
    json.dumps(["rm", "-rf", "/"]),
    json.dumps(["rm", "-rf", "--no-preserve-root", "/"]),
    json.dumps("rm -rf /"),
    json.dumps({"argv": ["rm", "-rf", "/"]}),
    json.dumps(["rm", 1, None]),
    "[not json",
])
def test_a_tampered_undo_command_is_shown_and_never_run(tmp_path: Path, rollback: str) -> None:
    j = journal()
    tx = _stopped(j, rollback)
    done = reos("undo")
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Didn't undo \u201cStop web\u201d" in done.stdout
    assert "run it by hand if it is right" in done.stdout \
        or "journal record is damaged" in done.stdout
    assert "To do it by hand, run: rm" not in done.stdout
    conn = sqlite3.connect(paths.database_file())
    step = conn.execute("SELECT status FROM steps WHERE tx_id = ?", (tx,)).fetchone()
    assert step == ("undo_refused",)
    ran = conn.execute("SELECT s.status, s.exit_code FROM steps s JOIN transactions t"
                       " ON s.tx_id = t.id WHERE t.undoes = ?", (tx,)).fetchall()
    assert ran == [("blocked", None)]  # journaled as not run
    assert reos("undo").returncode == 4  # reported once; it no longer blocks anything


@pytest.mark.parametrize("rollback", [
    ["sh", "-c", "touch /tmp/reos-should-not-exist"],  # not blocked, and not reos's undo
    ["docker", "rm", "-f", "web"],  # a docker command, not the one the prior state gives
    ["docker", "start", "db"],  # reos's kind of undo, for another target
    ["sudo", "-n", "docker", "start", "web"],  # the step itself did not run through sudo
])
def test_a_rollback_reos_would_not_have_written_is_refused(rollback: list[str]) -> None:
    _stopped(journal(), json.dumps(rollback))
    done = reos("undo")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "not the undo reos works out" in done.stdout, done.stdout
    assert not Path("/tmp/reos-should-not-exist").exists()


def test_the_undo_reos_works_out_is_the_one_it_recorded() -> None:
    from reos.execution.rederive import expected_rollbacks

    j = journal()
    tx = _stopped(j, json.dumps(["docker", "start", "web"]))
    record = j.transaction(tx)
    assert record is not None
    (step,) = record.steps
    assert expected_rollbacks(step, "apt") == [["docker", "start", "web"]]


def test_a_refused_recorded_undo_names_the_command_and_the_reason() -> None:
    _stopped(journal(), json.dumps(["rm", "-rf", "/"]))
    out = json.loads(reos("undo", "--json").stdout)
    step = out["steps"][0]
    assert step["refused"] and not step["ok"] and step["command"] == "rm -rf /"
    assert step["output"].startswith("I didn't run the recorded undo `rm -rf /` because ")
    assert step["output"].endswith("check it and run it by hand if it is right")


def test_garbage_in_other_columns_is_reported_not_a_traceback(config: Path) -> None:
    j = edit(config)
    conn = j.db.connect()
    conn.execute("UPDATE backups SET mode = 'rwx', path = 'etc/shadow'")
    conn.execute("UPDATE steps SET prior_state = '[1, 2]', exit_code = 'x', title = 5")
    conn.execute("UPDATE transactions SET pid = 'x', request = 42")
    history = reos("history", "--json")
    assert history.returncode == 0 and "Traceback" not in history.stderr
    done = reos("undo")
    assert "Traceback" not in done.stderr and done.returncode == 1, done.stderr
    assert "is damaged" in done.stdout and "I didn't touch the file" in done.stdout
    assert b"9090" in config.read_bytes()


# -- one undo at a time -----------------------------------------------------------------

CLAIM = textwrap.dedent("""
    import os, sys, time
    from reos import paths
    from reos.store.db import Database
    from reos.store.journal import Journal
    j = Journal(Database(paths.database_file()))
    j.db.connect()
    time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
    won = j.claim_undo(int(sys.argv[1]))
    print("won" if won else "lost", flush=True)
    if sys.argv[3] == "die":
        os.kill(os.getpid(), 9)
    time.sleep(float(sys.argv[3]))  # stay alive: a dead claimer's claim may be taken over
""")


def claim(tx: int, then: str, start: float = 0.0) -> subprocess.Popen[str]:
    """A process that claims `tx` at `start`, then dies ("die") or lives `then` seconds."""
    return subprocess.Popen([sys.executable, "-c", CLAIM, str(tx), str(start), then],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_of_many_concurrent_claims_exactly_one_wins() -> None:
    j = journal()
    tx = _stopped(j, json.dumps(["docker", "start", "web"]))
    start = time.time() + 2.0
    procs = [claim(tx, "6", start) for _ in range(8)]
    results = [p.communicate(timeout=60) for p in procs]
    assert all(p.returncode == 0 for p in procs), results
    assert sorted(out.strip() for out, _ in results) == ["lost"] * 7 + ["won"]
    assert j.db.connect().execute("SELECT status FROM transactions WHERE id = ?",
                                  (tx,)).fetchone()[0] == "undoing"


def test_a_claim_by_a_process_that_died_is_taken_over(config: Path) -> None:
    j = edit(config)
    tx = j.transactions(kind="action")[0].id
    dead = claim(tx, "die")
    assert dead.communicate(timeout=60)[0].strip() == "won" and dead.returncode == -9
    row = j.db.connect().execute("SELECT status, claim_pid FROM transactions WHERE id = ?",
                                 (tx,)).fetchone()
    assert (row["status"], row["claim_pid"]) == ("undoing", dead.pid)
    now = j.transaction(tx)
    assert now is not None and now.status == "partly_undone" and now.undoable
    report = undo_latest(j)
    assert report.ok, report.to_dict()
    assert config.read_bytes() == ORIGINAL


def test_an_interrupted_plan_is_claimed_and_reported_as_interrupted(config: Path) -> None:
    script = textwrap.dedent("""
        import os, subprocess, sys
        from reos import paths
        from reos.safety.backups import BackupStore
        from reos.store.db import Database
        from reos.store.journal import Journal
        j = Journal(Database(paths.database_file()))
        tx = j.begin("edit the config")
        argv = ["sed", "-i", "s/8080/9090/", sys.argv[1]]
        row = j.begin_step(tx, 0, "s1", "Edit the config", argv)
        saved = BackupStore(paths.backups_dir()).save(sys.argv[1], f"tx{tx}-1")
        j.add_backup(row, saved.to_dict())
        subprocess.run(argv, check=True)
        os.kill(os.getpid(), 9)  # dies with the step still 'running'
    """)
    assert subprocess.run([sys.executable, "-c", script, str(config)]).returncode == -9
    j = journal()
    assert j.transactions()[0].status == "interrupted"
    report = undo_latest(j)
    assert report.ok, report.to_dict()
    assert "\u201cedit the config\u201d was interrupted" in report.to_dict()["message"]
    assert config.read_bytes() == ORIGINAL


def test_a_live_claim_is_not_taken_over_and_undo_says_so(config: Path) -> None:
    j = edit(config)
    tx = j.transactions(kind="action")[0].id
    holder = claim(tx, "60")
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "won"
        done = reos("undo")
        assert done.returncode == 4, done.stdout + done.stderr
        assert f"already being undone by another reos (process {holder.pid})" in done.stdout
        assert b"9090" in config.read_bytes()
        assert [t.kind for t in j.transactions()] == ["action"]  # no undo was started
    finally:
        holder.kill()
        holder.communicate()


UNDO_AT = textwrap.dedent("""
    import sys, time
    from reos.cli import main
    when = float(sys.argv[1])
    time.sleep(max(0.0, when - time.time()))
    sys.exit(main(["undo", "--json"]))
""")


@pytest.mark.docker
def test_two_undos_at_the_same_moment_revert_a_transaction_once(
        containers: Containers) -> None:
    name = containers.run("once")
    done = reos("plan", "--yes", f"stop {name}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert containers.state(name) == "exited"
    # both processes import everything first, then undo at the same instant
    start = time.time() + 2.0
    procs = [subprocess.Popen([str(REOS_BIN.parent / "python"), "-c", UNDO_AT, str(start)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    assert not any("Traceback" in err for _, err in results), results
    reports = [json.loads(out) for out, _ in results]
    winners = [r for r in reports if r["ok"]]
    losers = [r for r in reports if not r["ok"]]
    assert len(winners) == 1 and len(losers) == 1, reports
    assert [s["command"] for s in winners[0]["steps"]] == [f"docker start {name}"]
    assert losers[0]["busy"] and losers[0]["steps"] == [], losers
    assert "already being undone by another reos" in losers[0]["message"]
    assert sorted(p.returncode for p in procs) == [0, 4]
    assert containers.state(name) == "running"
    conn = sqlite3.connect(paths.database_file())
    action = conn.execute("SELECT id, status FROM transactions WHERE kind = 'action'")
    (tx_id, status), = action.fetchall()
    assert status == "undone"
    undos = conn.execute("SELECT id FROM transactions WHERE undoes = ?", (tx_id,)).fetchall()
    assert len(undos) == 1
    assert conn.execute("SELECT COUNT(*) FROM steps WHERE tx_id = ?", undos[0]).fetchone() \
        == (1,)


def test_a_path_written_with_dots_is_backed_up_as_the_kernel_resolves_it(
        tmp_path: Path, config: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    roundabout = tmp_path / "elsewhere" / ".." / "shared" / "app.conf"
    saved = BackupStore(tmp_path / "b").save(str(roundabout), "tx1-1")
    assert saved is not None and saved.path == str(config)
    assert Backup.from_dict(saved.to_dict()) == saved  # a clean path: undo accepts the row
