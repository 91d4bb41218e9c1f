"""Real systemd in the Debian test bed: each change made by reos, then `reos undo`, then
the real state checked."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_stop_then_undo(bed) -> None:
    assert bed.state("reos-demo.service") == ("active", "enabled")
    done = bed.reos("plan", "--yes", "stop reos-demo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "$ systemctl stop reos-demo.service" in done.stdout  # as root: no sudo
    assert bed.state("reos-demo.service")[0] == "inactive"
    undo = bed.reos("undo")
    assert undo.returncode == 0 and "(ran: systemctl start reos-demo.service)" in undo.stdout
    assert bed.state("reos-demo.service") == ("active", "enabled")


def test_start_then_undo(bed) -> None:
    bed.run("systemctl", "stop", "nginx", check=True)
    try:
        assert bed.reos("plan", "--yes", "start nginx").returncode == 0
        assert bed.state("nginx.service")[0] == "active"
        assert bed.reos("undo").returncode == 0
        assert bed.state("nginx.service")[0] == "inactive"
    finally:
        bed.run("systemctl", "start", "nginx")


def test_disable_then_undo(bed) -> None:
    assert bed.reos("plan", "--yes", "disable reos-demo").returncode == 0
    assert bed.state("reos-demo.service") == ("active", "disabled")
    assert bed.reos("undo").returncode == 0
    assert bed.state("reos-demo.service") == ("active", "enabled")


def test_disable_now_then_undo_restores_both(bed) -> None:
    assert bed.reos("plan", "--yes", "disable and stop reos-demo").returncode == 0
    assert bed.state("reos-demo.service") == ("inactive", "disabled")
    assert bed.reos("undo").returncode == 0
    assert bed.state("reos-demo.service") == ("active", "enabled")


def test_enable_then_undo(bed) -> None:
    bed.run("systemctl", "disable", "reos-demo", check=True)
    try:
        assert bed.reos("plan", "--yes", "enable reos-demo").returncode == 0
        assert bed.state("reos-demo.service")[1] == "enabled"
        assert bed.reos("undo").returncode == 0
        assert bed.state("reos-demo.service")[1] == "disabled"
    finally:
        bed.run("systemctl", "enable", "reos-demo")


def test_mask_then_undo(bed) -> None:
    # (systemd cannot mask a unit whose file lives in /etc/systemd/system: use a packaged one)
    done = bed.reos("plan", "--yes", "mask cron")
    assert done.returncode == 0, done.stdout + done.stderr
    assert bed.state("cron.service")[1] == "masked"
    assert bed.reos("undo").returncode == 0
    assert bed.state("cron.service")[1] == "enabled"


def test_live_snapshot_and_queries_see_systemd(bed) -> None:
    context = bed.reos_json("context")
    services = {s["name"]: s for s in context["services"]}
    assert services["nginx.service"]["active"] == "active"
    assert services["reos-demo.service"]["enabled"] == "enabled"
    assert any(p["name"] == "nginx-light" for p in context["packages"])
    status = bed.reos("plan", "is nginx running?")
    assert status.stdout.startswith("nginx.service is running"), status.stdout
    failed = bed.reos("plan", "which services failed")
    assert failed.returncode == 0 and "failed" in failed.stdout.lower()


def test_install_with_dependencies_then_undo_removes_them_too(bed) -> None:
    assert bed.installed("reos-demo-tool") is None and bed.installed("reos-demo-lib") is None
    shown = bed.reos_json("plan", "install reos-demo-tool")
    assert sorted(
        shown["steps"][0]["also_affects"]) == ["reos-demo-extra", "reos-demo-lib"]
    assert "also installs" in shown["message"] and "undo removes them too" in shown["message"]
    done = bed.reos("plan", "--yes", "install reos-demo-tool")
    assert done.returncode == 0, done.stdout + done.stderr
    assert bed.installed("reos-demo-tool") == "2.1" and bed.installed("reos-demo-lib") == "1.0"
    step = bed.reos_json("history")["transactions"][0]["steps"][0]
    assert sorted(step["prior_state"]["new_packages"]) == [
        "reos-demo-extra", "reos-demo-lib", "reos-demo-tool"]
    undo = bed.reos("undo")
    assert undo.returncode == 0, undo.stdout + undo.stderr
    for package in ("reos-demo-tool", "reos-demo-lib", "reos-demo-extra"):
        assert bed.installed(package) is None, package
    assert bed.installed("nginx-light") is not None  # nothing else went with it


def test_install_of_an_installed_package_says_so(bed) -> None:
    done = bed.reos("plan", "--yes", "install nginx-light")
    assert done.returncode == 4 and "already installed" in done.stdout


def test_remove_then_undo_reinstalls_the_same_version(bed) -> None:
    bed.run("apt-get", "install", "-y", "reos-demo-keep", check=True)
    try:
        done = bed.reos("plan", "--yes", "uninstall reos-demo-keep")
        assert done.returncode == 0, done.stdout + done.stderr
        assert bed.installed("reos-demo-keep") is None
        undo = bed.reos("undo")
        assert undo.returncode == 0, undo.stdout + undo.stderr
        assert "reos-demo-keep=3.0" in undo.stdout
        assert bed.installed("reos-demo-keep") == "3.0"
    finally:
        bed.run("apt-get", "purge", "-y", "reos-demo-keep")


EDIT = """
import os
os.environ["REOS_HOME"] = "/tmp/reos-home"
from reos import paths
from reos.execution.executor import Checks, Executor
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.safety.backups import BackupStore
from reos.settings import LimitsSettings
from reos.store.db import Database
from reos.store.journal import Journal
plan = Plan("change the demo port", Kind.ACTION, steps=[Step(
    id="s1", title="Set the demo port to 9090", risk=RiskLevel.MEDIUM,
    argv=["sed", "-i", "s/listen_port = 8080/listen_port = 9090/", "/etc/reos-demo.conf"])])
report = Executor(Journal(Database(paths.database_file())), LimitsSettings(),
                  checks=Checks(backups=BackupStore(paths.backups_dir()))).execute(plan)
print("ok" if report.ok else "failed")
"""


def test_config_edit_then_undo_is_byte_identical(bed) -> None:
    before = bed.read("/etc/reos-demo.conf")
    done = bed.run("/opt/reos/bin/python", "-c", EDIT)
    assert done.stdout.strip() == "ok", done.stderr
    assert b"listen_port = 9090" in bed.read("/etc/reos-demo.conf")
    undo = bed.reos("undo")
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert "Restore /etc/reos-demo.conf" in undo.stdout
    assert bed.read("/etc/reos-demo.conf") == before


def test_a_plan_killed_halfway_is_interrupted_and_undo_restores_it(bed) -> None:
    import time

    home = "/tmp/reos-home-kill"
    bed.run("sh", "-c", f"REOS_HOME={home} REOS_LLM=off nohup /opt/reos/bin/reos plan --yes "
            "'stop reos-demo and reos-slow' > /tmp/kill.log 2>&1 &", check=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # wait until the slow second step is running
        done = bed.reos("history", "--json", home=home)
        steps = (json.loads(done.stdout)["transactions"] or [{}])[0].get("steps", []) \
            if done.stdout.strip() else []
        if len(steps) == 2 and steps[1]["status"] == "running":
            break
        time.sleep(0.2)
    else:
        raise AssertionError("the second step never started")
    bed.run("pkill", "-9", "-f", "/opt/reos/bin/reos plan", check=True)
    tx = bed.reos_json("history", home=home)["transactions"][0]
    assert tx["status"] == "interrupted" and tx["undoable"]
    assert [s["status"] for s in tx["steps"]] == ["done", "running"]
    undo = bed.reos("undo", home=home)
    assert undo.returncode == 0, undo.stdout + undo.stderr
    assert "was interrupted" in undo.stdout
    for unit in ("reos-demo.service", "reos-slow.service"):
        for _ in range(50):
            if bed.state(unit)[0] == "active":
                break
            time.sleep(0.2)
        assert bed.state(unit) == ("active", "enabled"), unit


def test_as_a_user_with_sudo_steps_use_sudo_n_and_undo_does_too(bed) -> None:
    done = bed.reos("plan", "--yes", "stop reos-demo", user="bob", home="/home/bob/r")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "$ sudo -n systemctl stop reos-demo.service" in done.stdout
    assert bed.state("reos-demo.service")[0] == "inactive"
    undo = bed.reos("undo", user="bob", home="/home/bob/r")
    assert "(ran: sudo -n systemctl start reos-demo.service)" in undo.stdout, undo.stdout
    assert bed.state("reos-demo.service")[0] == "active"


def test_as_a_user_without_sudo_nothing_is_half_done(bed) -> None:
    done = bed.reos("plan", "--yes", "stop reos-demo and nginx", user="alice",
                    home="/home/alice/r")
    assert done.returncode == 1
    assert "needs root" in done.stderr and "Nothing was run" in done.stderr
    assert "Traceback" not in done.stderr
    assert bed.state("reos-demo.service")[0] == "active" and bed.state("nginx")[0] == "active"
    assert bed.reos_json("history", user="alice", home="/home/alice/r")["transactions"] == []


def test_sudo_password_is_asked_once_on_a_terminal(bed) -> None:
    command = ("REOS_HOME=/home/carol/r REOS_LLM=off /opt/reos/bin/reos plan --yes "
               "'restart reos-demo and nginx'")
    done = bed.run("sh", "-c", f"printf 'secret-carol\\n' | script -qec \"{command}\" /dev/null",
                   user="carol")
    assert done.stdout.count("password for carol (asked once)") == 1, done.stdout
    assert "Done!" in done.stdout, done.stdout
    history = bed.reos_json("history", user="carol", home="/home/carol/r")["transactions"]
    assert history[0]["status"] == "completed"
    assert all(s["argv"][:2] == ["sudo", "-n"] for s in history[0]["steps"])


def test_switch_a_timer_off_then_undo_puts_it_back_on(bed) -> None:
    assert bed.state("man-db.timer") == ("active", "enabled")
    try:
        done = bed.reos("plan", "--yes", "turn off the man-db timer")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "$ systemctl disable --now man-db.timer" in done.stdout, done.stdout
        assert bed.state("man-db.timer") == ("inactive", "disabled")
        undo = bed.reos("undo")
        assert "(ran: systemctl enable --now man-db.timer)" in undo.stdout, undo.stdout
        assert bed.state("man-db.timer") == ("active", "enabled")
    finally:
        bed.run("systemctl", "enable", "--now", "man-db.timer")
