"""Processes: the catalogue's process operations planned against the homelab snapshot, the
answers read from real `ps`/`ss` output compared with psutil, the live state module, and
a real process of this test ended by `reos plan --yes`.

Only ever a process this test started is signalled, and only by its pid.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import time
import uuid
from pathlib import Path

import psutil
import pytest

from reos.model.report import StepResult
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.system import state_processes
from reos.words.answers.common import ANSWERS
from reos.words.answers.processes import rows
from reos.words.conversation import Voice
from tests.conftest import reos

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


@pytest.fixture(scope="module")
def engine():
    from tests.understanding.evaluate import engines

    return engines()["apt"]  # the homelab fixture, with its /2 sections


@pytest.fixture()
def sleeper():
    """A `sleep` of this test with an argv no other process has; killed at the end."""
    mark = str(300 + uuid.uuid4().int % 1000)
    proc = subprocess.Popen(["sleep", f"{mark}.{os.getpid()}"], stdin=subprocess.DEVNULL)
    yield proc
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=10)


def _argvs(plan) -> list[list[str]]:
    return [s.argv[2:] if s.argv[:2] == ["sudo", "-n"] else s.argv for s in plan.steps]


# --- planning against the homelab snapshot ---------------------------------------------


def test_kill_by_program_name_lists_every_pid_high_risk_and_irreversible(engine) -> None:
    plan = engine.plan("kill nginx")
    assert plan.kind == Kind.ACTION
    assert sorted(_argvs(plan)) == [["kill", "-9", p] for p in ("1021", "1022", "1023")]
    for step in plan.steps:
        assert step.risk >= RiskLevel.HIGH and not step.reversible and step.rollback is None
    assert "can't be undone" in plan.text() or "cannot be undone" in plan.text()


@pytest.mark.parametrize(("said", "argv"), [
    ("kill 4242", ["kill", "-9", "4242"]),
    ("force quit the node process", ["kill", "-9", "3300"]),
    ("terminate java", ["kill", "4242"]),
    ("send a sigterm to redis-server", ["kill", "1150"]),
    ("ask 3300 to exit", ["kill", "3300"]),
])
def test_end_one_process_by_pid_or_name(engine, said: str, argv: list[str]) -> None:
    plan = engine.plan(said)
    assert plan.kind == Kind.ACTION, plan.text()
    assert _argvs(plan) == [argv]
    assert all(not s.reversible for s in plan.steps)


@pytest.mark.parametrize(("said", "argv"), [
    ("kill www-data's nginx", [["kill", "-9", p] for p in ("1022", "1023")]),  # whose
    ("kill the nginx of root", [["kill", "-9", "1021"]]),
    ("kill alice's node", [["kill", "-9", "3300"]]),
    ("kill the avahi process", [["kill", "-9", "611"]]),  # by its name's first word
])
def test_a_process_said_with_its_owner_is_that_owners(engine, said: str,
                                                       argv: list[list[str]]) -> None:
    plan = engine.plan(said)
    assert plan.kind == Kind.ACTION, plan.text()
    assert sorted(_argvs(plan)) == argv


def test_a_state_said_of_one_programs_processes_describes_them() -> None:
    from reos.engine import ReasoningEngine
    from reos.settings import Settings
    from reos.system.snapshot import SystemSnapshot

    data = json.loads(FIXTURE.read_text())
    for pid, name in ((8790, "oosplash"), (8802, "soffice.bin")):  # one application
        data["processes"].append({"pid": pid, "ppid": 1, "name": name, "user": "alice",
                                  "cmdline": f"/usr/lib/libreoffice/program/{name} --writer",
                                  "cpu_percent": 0.0, "memory_rss": 1})
    plan = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data)).plan(
        "libreoffice is frozen kill it")
    assert sorted(_argvs(plan)) == [["kill", "-9", "8790"], ["kill", "-9", "8802"]], plan.text()


@pytest.mark.parametrize("said", [
    "kill bob's node",  # node runs as alice only
    "renice bob's node to 10",  # the owner said inside an idiom's {target}
    "kill bob's node gracefully",
    "kill alcie's node",  # an owner is never guessed from a typo
])
def test_an_owner_with_no_such_process_finds_none_of_anyone_elses(engine, said: str) -> None:
    plan = engine.plan(said)
    assert not plan.steps and "'s node" in plan.text(), plan.text()


def test_a_script_run_by_an_interpreter_is_named_by_its_words() -> None:
    from reos.engine import ReasoningEngine
    from reos.settings import Settings
    from reos.system.snapshot import SystemSnapshot

    data = json.loads(FIXTURE.read_text())
    for pid, user, script in ((7001, "alice", "train_seg.py"), (7002, "bob", "train.py"),
                              (7003, "alice", "finetune_llm.py")):
        data["processes"].append({"pid": pid, "ppid": 1, "name": "python", "user": user,
                                  "cmdline": f"python -u {script} --config c.yaml",
                                  "cpu_percent": 90.0, "memory_rss": 1})
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    plan = engine.plan("lower the priority of alice's training")  # train_seg.py: hers
    assert _argvs(plan) == [["renice", "-n", "10", "-p", "7001"]], plan.text()
    plan = engine.plan("kill bob's training")
    assert _argvs(plan) == [["kill", "-9", "7002"]], plan.text()
    assert _argvs(engine.plan("kill the finetuning")) == [["kill", "-9", "7003"]]


def test_an_owner_said_once_for_two_programs_drops_neither_in_silence(engine) -> None:
    plan = engine.plan("kill java and node of alice")  # java runs as deploy
    assert not plan.steps and "alice's java" in plan.text(), plan.text()


def test_a_first_word_another_program_also_starts_with_names_neither(engine) -> None:
    # docker-proxy and dockerd both start with "docker": "docker" is never docker-proxy
    for said in ("kill docker", "kill the docker process"):
        assert ["kill", "-9", "1502"] not in _argvs(engine.plan(said)), said


@pytest.mark.parametrize(("said", "argv"), [
    ("stop the java process gracefully", ["kill", "4242"]),
    ("Could you please stop process 3300?", ["kill", "3300"]),
    ("stop the node process nicely", ["kill", "3300"]),
    ("terminate whatever holds port 6379", ["kill", "1150"]),
    ("please kill the process on port 3000", ["kill", "-9", "3300"]),
])
def test_stopping_a_named_process_is_a_signal_never_a_service_or_container_stop(
        engine, said: str, argv: list[str]) -> None:
    """"stop the X *process*" ends that process politely (SIGTERM); "whatever holds port
    N" is the one listener on that port, by its pid."""
    plan = engine.plan(said)
    assert plan.kind == Kind.ACTION, plan.text()
    assert _argvs(plan) == [argv]
    assert not any(word in s.command for s in plan.steps
                   for word in ("systemctl", "docker")), plan.text()


def test_renice_takes_the_priority_and_the_pid(engine) -> None:
    plan = engine.plan("renice java to 10")
    assert _argvs(plan) == [["renice", "-n", "10", "-p", "4242"]]
    assert plan.steps[0].reversible
    plan = engine.plan("set the niceness of 3300 to -5")
    assert _argvs(plan) in ([["renice", "-n", "-5", "-p", "3300"]], [])  # or asks the value


@pytest.mark.parametrize("said", ["kill 1", "kill -9 1", "terminate 1", "end process 1",
                                  "kill systemd", "force kill pid 1"])
def test_init_is_never_planned(engine, said: str) -> None:
    plan = engine.plan(said)
    assert not any("kill" in s.argv and "1" in s.argv for s in plan.steps), plan.text()


@pytest.mark.parametrize(("said", "fragment"), [
    ("which programs are burning the most cpu", "--sort=-pcpu"),
    ("top processes by resident memory", "--sort=-pmem"),
    ("what is the pid of java", "-p 4242"),
    ("list the processes owned by deploy", "pgrep -a -u deploy"),
    ("which process owns port 9000", "-tulnp 'sport = :9000'"),
])
def test_questions_only_read(engine, said: str, fragment: str) -> None:
    plan = engine.plan(said)
    assert plan.kind == Kind.QUERY and plan.read_only, plan.text()
    assert any(fragment in s.command for s in plan.steps), [s.command for s in plan.steps]


# --- answers from real output, compared with psutil --------------------------------------


def _run(argv: list[str]) -> StepResult:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    return StepResult("s1", done.returncode == 0, done.returncode, done.stdout, done.stderr, 0.1)


def test_top_memory_in_mib_matches_psutil(engine) -> None:
    plan = engine.plan("which programs take the most ram in megabytes")
    result = _run(plan.steps[0].argv)
    listed = rows(result.stdout)
    assert listed, result.stderr
    by_rss = sorted(psutil.process_iter(["pid", "memory_info"]),
                    key=lambda p: p.info["memory_info"].rss if p.info["memory_info"] else 0,
                    reverse=True)
    biggest = {str(p.info["pid"]) for p in by_rss[:5]}
    text = ANSWERS[plan.summariser](([result]), {}, Voice())
    shown = [r for r in sorted(listed, key=lambda r: r.rss_kib, reverse=True)[:5]]
    assert biggest & {r.pid for r in shown}, (biggest, text)
    for row in shown:
        assert f"pid {row.pid}" in text and "MiB" in text
        try:
            real = psutil.Process(int(row.pid)).memory_info().rss / 2**20
        except psutil.NoSuchProcess:
            continue
        assert abs(real - row.mib) <= max(8.0, 0.2 * real), (row, real)
        assert f"{row.mib:.1f} MiB" in text


def test_top_cpu_answer_names_real_processes(engine, sleeper) -> None:
    plan = engine.plan("which programs are burning the most cpu")
    result = _run(plan.steps[0].argv)
    text = ANSWERS[plan.summariser]([result], {"self_pid": str(os.getpid())}, Voice())
    assert "CPU" in text and "pid " in text
    for row in rows(result.stdout)[:3]:
        assert psutil.pid_exists(int(row.pid)) or row.program == "ps"


def test_zombies_answer_names_a_real_zombie_and_its_parent(engine) -> None:
    plan = engine.plan("are there any zombie processes?")
    assert plan.kind == Kind.QUERY and plan.read_only
    child = subprocess.Popen(["true"])  # ends at once; not waited for, it stays a zombie
    try:
        deadline = time.monotonic() + 10
        while psutil.Process(child.pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the child never became a zombie"
            time.sleep(0.05)
        said = ANSWERS["process_zombies"]([_run(plan.steps[0].argv)], {}, Voice())
    finally:
        child.wait()
    assert "is a zombie" in said or "are zombies" in said, said
    assert f"under {os.getpid()} (" in said and str(child.pid) in said, said
    healthy = ANSWERS["process_zombies"](
        [StepResult("s1", True, 0, "  PID  PPID STAT USER COMMAND\n  1 0 Ss root /sbin/init\n",
                    "", 0.1)], {}, Voice())
    assert healthy == "No zombie processes among 1 process."


def test_find_answers_from_ps_and_says_when_gone(sleeper) -> None:
    argv = ["ps", "-o", "pid,user,pcpu,rss,etime,args", "--no-headers", "-p", str(sleeper.pid)]
    text = ANSWERS["process_find"]([_run(argv)], {"target:s1": str(sleeper.pid)}, Voice())
    assert text.startswith("Yes, sleep is running") and f"pid {sleeper.pid}" in text
    assert " ".join(sleeper.args) in text
    sleeper.kill()
    sleeper.wait(timeout=10)
    text = ANSWERS["process_find"]([_run(argv)], {"target:s1": str(sleeper.pid)}, Voice())
    assert text.startswith("No") and str(sleeper.pid) in text


def test_port_answer_reads_ss_users() -> None:
    line = ('tcp LISTEN 0 511 0.0.0.0:3000 0.0.0.0:* users:(("node",pid=3300,fd=20))\n')
    result = StepResult("s1", True, 0, line, "", 0.1)
    assert ANSWERS["process_port"]([result], {"port": "3000"}, Voice()) == (
        "Port 3000 is held by node (pid 3300) on tcp 0.0.0.0:3000.")
    assert ANSWERS["process_port"]([result], {}, Voice()) == (
        "Listening sockets by process:\n  node (pid 3300): tcp 0.0.0.0:3000")
    empty = StepResult("s1", True, 0, "", "", 0.1)
    assert "Nothing is listening on port 81" in ANSWERS["process_port"](
        [empty], {"port": "81"}, Voice())


def test_answers_clean_what_they_show() -> None:
    out = "4242 deploy 1.0 2048 java -jar \x1b[31mevil\x1b[0m.jar\n"
    result = StepResult("s1", True, 0, out, "", 0.1)
    for name in ("process_top_cpu", "process_top_memory"):
        assert "\x1b" not in ANSWERS[name]([result], {}, Voice())
    listed = StepResult("s1", True, 0, "4242 java -jar \x1b[31mevil\x1b[0m.jar\n", "", 0.1)
    text = ANSWERS["process_by_user"]([listed], {"user": "deploy"}, Voice())
    assert "\x1b" not in text and text.startswith("deploy runs 1 process")


def test_by_user_answers_from_pgrep(sleeper) -> None:
    import getpass

    me = getpass.getuser()
    done = _run(["pgrep", "-a", "-u", me])
    mine = [line for line in done.stdout.splitlines()
            if line.startswith(f"{sleeper.pid} ")]
    assert mine == [f"{sleeper.pid} {' '.join(sleeper.args)}"]
    text = ANSWERS["process_by_user"]([done], {"user": me}, Voice())
    total = len([line for line in done.stdout.splitlines() if line.strip()])
    assert text.startswith(f"{me} runs {total} process")
    first = done.stdout.splitlines()[0].split(" ", 1)
    assert f"pid {first[0]}: " in text
    only = StepResult("s1", True, 0, mine[0] + "\n", "", 0.1)
    assert ANSWERS["process_by_user"]([only], {"user": me}, Voice()) == (
        f"{me} runs 1 process:\n  pid {sleeper.pid}: {' '.join(sleeper.args)}")
    none = StepResult("s1", False, 1, "", "", 0.1)
    assert ANSWERS["process_by_user"]([none], {"user": "nobody"}, Voice()) == (
        "nobody is running no processes right now.")


# --- the live state module ---------------------------------------------------------------


def test_state_reads_a_live_process_and_sees_it_gone(sleeper) -> None:
    state = state_processes.current("process", str(sleeper.pid))
    assert state is not None and state["name"] == "sleep" and state["state"] != "gone"
    assert state["cmdline"] == " ".join(sleeper.args) and isinstance(state["nice"], int)
    assert state_processes.problem("process", "kill", state) == (
        f"is still running ({state['state']})")
    sleeper.kill()
    time.sleep(0.2)  # a zombie until reaped: it counts as gone
    after = state_processes.current("process", str(sleeper.pid))
    assert after is not None and after["state"] == "gone"
    assert state_processes.problem("process", "kill", after) is None
    sleeper.wait(timeout=10)
    assert state_processes.current("process", str(sleeper.pid)) == {
        "state": "gone", "pid": sleeper.pid}


def test_renice_is_restored_to_the_recorded_value(sleeper) -> None:
    pid = str(sleeper.pid)
    prior = state_processes.current("process", pid)
    assert prior is not None
    assert state_processes.restore("process", pid, prior, "renice") == [
        "renice", "-n", str(prior["nice"]), "-p", pid]
    # at plan time only the program name is known: the live value is read
    assert state_processes.restore("process", pid, {"state": "sleep"}, "renice") == [
        "renice", "-n", str(prior["nice"]), "-p", pid]
    assert state_processes.restore("process", pid, {"state": "java"}, "renice") is None
    assert state_processes.restore("process", pid, prior, "kill") is None
    assert state_processes.restore("process", pid, prior, "terminate") is None
    subprocess.run(["renice", "-n", "7", "-p", pid], capture_output=True, check=True)
    assert psutil.Process(sleeper.pid).nice() == 7
    subprocess.run(state_processes.restore("process", pid, prior, "renice"),
                   capture_output=True, check=True)
    assert psutil.Process(sleeper.pid).nice() == prior["nice"]


def test_protected_pids_are_init_reos_and_its_parent() -> None:
    assert state_processes.protected_pids() == {1, os.getpid(), os.getppid()}
    assert state_processes.is_protected("1") and not state_processes.is_protected("x")


# --- a real process ended through the command line ---------------------------------------


def _context_with(proc: subprocess.Popen, home: Path) -> Path:
    """The live snapshot, with this test's process in its list (the collector keeps only
    the busiest ~100)."""
    done = reos("context", "--json", env={"REOS_HOME": str(home), "REOS_LLM": "off"})
    data = json.loads(done.stdout)
    if not isinstance(data.get("processes"), list):
        pytest.skip("this reos collects no processes yet")
    data = copy.deepcopy(data)
    info = psutil.Process(proc.pid)
    data["processes"] = [p for p in data["processes"] if p.get("pid") != proc.pid] + [{
        "pid": proc.pid, "ppid": os.getpid(), "name": info.name(), "user": info.username(),
        "cmdline": " ".join(info.cmdline()), "cpu_percent": 0.0,
        "memory_rss": info.memory_info().rss}]
    path = home / "context.json"
    path.write_text(json.dumps(data))
    return path


def test_kill_by_pid_plans_exactly_that_pid_and_ends_it(sleeper, reos_home: Path) -> None:
    reos_home.mkdir(parents=True, exist_ok=True)
    context = _context_with(sleeper, reos_home)
    pid = str(sleeper.pid)
    plan = json.loads(reos("plan", "--json", "--context", str(context), f"kill {pid}").stdout)
    argvs = [s["argv"][2:] if s["argv"][:2] == ["sudo", "-n"] else s["argv"]
             for s in plan["steps"]]
    assert argvs == [["kill", "-9", pid]], plan
    done = reos("plan", "--yes", "--context", str(context), f"kill {pid}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sleeper.wait(timeout=10) == -9


def test_terminate_by_pid_sends_sigterm(sleeper, reos_home: Path) -> None:
    reos_home.mkdir(parents=True, exist_ok=True)
    context = _context_with(sleeper, reos_home)
    pid = str(sleeper.pid)
    done = reos("plan", "--yes", "--context", str(context), f"terminate process {pid}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sleeper.wait(timeout=10) == -15


def test_stopping_a_process_gracefully_sends_sigterm(sleeper, reos_home: Path) -> None:
    reos_home.mkdir(parents=True, exist_ok=True)
    context = _context_with(sleeper, reos_home)
    pid = str(sleeper.pid)
    done = reos("plan", "--yes", "--context", str(context), f"stop process {pid} gracefully")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sleeper.wait(timeout=10) == -15


def test_kill_1_is_never_run(reos_home: Path) -> None:
    done = reos("plan", "--json", "kill 1")
    plan = json.loads(done.stdout)
    assert not any("kill" in s["argv"] and "1" in s["argv"] for s in plan.get("steps", []))


def test_a_process_that_takes_a_moment_to_end_is_verified_gone(tmp_path) -> None:
    """SIGTERM is delivered, not obeyed at once: the executor's check gives the process a
    moment (a real one that needs ~1 s to clean up) before it calls the step failed."""
    import subprocess
    import sys

    from reos.execution.executor import Checks, Executor
    from reos.model.plan import Plan, Step
    from reos.model.request import Kind
    from reos.model.target import Target
    from reos.settings import LimitsSettings
    from reos.store.db import Database
    from reos.store.journal import Journal

    slow = subprocess.Popen([sys.executable, "-c", (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *a: (time.sleep(1), sys.exit(0)))\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert slow.stdout is not None and slow.stdout.readline().strip() == "ready"
        pid = str(slow.pid)
        plan = Plan("end it", Kind.ACTION, steps=[Step(
            "s1", f"End process {pid}", ["kill", pid], reversible=False,
            target=Target("process", pid, "python3"), action="terminate")])
        journal = Journal(Database(tmp_path / "reos.db"))
        report = Executor(journal, LimitsSettings(), checks=Checks(verify=True)).execute(plan)
        assert report.ok and report.verified == 1, report
    finally:
        slow.kill()
        slow.wait(timeout=10)


def test_a_program_the_snapshot_does_not_list_is_looked_up_live(tmp_path) -> None:
    """The snapshot keeps ~100 processes; "is there a X process" asks the live table by
    name (ps -C) when X is not among them, and says plainly when nothing is called that."""
    import os
    import shutil
    import subprocess

    from tests.conftest import REOS_BIN

    env = dict(os.environ, REOS_HOME=str(tmp_path / "home"), REOS_LLM="off")
    copy = tmp_path / "reosidler"  # a program name nothing else on the machine has
    shutil.copy(shutil.which("sleep") or "/bin/sleep", copy)
    idler = subprocess.Popen([str(copy), "60"])
    try:
        done = subprocess.run([str(REOS_BIN), "plan", "is there a reosidler process"],
                              capture_output=True, text=True, env=env, timeout=60, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Yes, reosidler is running" in done.stdout and f"pid {idler.pid}" in done.stdout
    finally:
        idler.kill()
        idler.wait(timeout=10)
    done = subprocess.run([str(REOS_BIN), "plan", "is there a reosnothere process"],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert "nothing called reosnothere is running" in done.stdout, done.stdout


def test_a_long_command_line_is_read_whole_when_columns_is_set(tmp_path) -> None:
    """ps cuts its last column at COLUMNS when that is set (shells and test runners export
    it): with COLUMNS=80 a program under a long path lost its own name ("Yes, t is
    running"). The recipes ask ps for unlimited width."""
    import shutil

    from tests.conftest import REOS_BIN

    folder = tmp_path / ("a-folder-with-a-rather-long-name-" * 3)
    folder.mkdir()
    copy = folder / "reoslongidler"
    shutil.copy(shutil.which("sleep") or "/bin/sleep", copy)
    idler = subprocess.Popen([str(copy), "60"])
    env = dict(os.environ, REOS_HOME=str(tmp_path / "home"), REOS_LLM="off", COLUMNS="80")
    try:
        done = subprocess.run([str(REOS_BIN), "plan", "is there a reoslongidler process"],
                              capture_output=True, text=True, env=env, timeout=60, check=False)
        assert "Yes, reoslongidler is running" in done.stdout, done.stdout + done.stderr
        assert f"pid {idler.pid}" in done.stdout
    finally:
        idler.kill()
        idler.wait(timeout=10)
