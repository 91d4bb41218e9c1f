"""Adaptive execution against real failures in the Debian/systemd test bed."""

from __future__ import annotations

import json
import time

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _empty_lists(bed) -> None:
    bed.run("sh", "-c", "rm -rf /var/lib/apt/lists/*", check=True)


def test_empty_apt_lists_then_install_refreshes_and_succeeds(bed) -> None:
    home = "/tmp/reos-recovery-1"
    _empty_lists(bed)
    done = bed.reos("plan", "--yes", "install reos-demo-solo", home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "\u2717 Error: E: Unable to locate package reos-demo-solo" in out
    assert "\u2192 Diagnosed: apt doesn't know the package reos-demo-solo: its package lists " \
           "are empty" in out
    assert "\u2192 Trying fix: Updating package cache first" in out
    assert "Completed with 1 recovery action." in out
    assert bed.installed("reos-demo-solo") == "0.5"
    tx = bed.reos_json("history", home=home)["transactions"][0]
    assert [s["status"] for s in tx["steps"]] == ["failed", "done", "done"]  # fix, then retry
    assert bed.reos("undo", home=home).returncode == 0
    assert bed.installed("reos-demo-solo") is None


def test_the_fix_is_learned_after_three_times_and_explained(bed) -> None:
    home = "/tmp/reos-recovery-learn"
    for _ in range(3):
        _empty_lists(bed)
        done = bed.reos("plan", "--yes", "install reos-demo-solo", home=home)
        assert "Trying fix: Updating package cache first" in done.stdout, done.stdout
        assert bed.reos("undo", home=home).returncode == 0
    _empty_lists(bed)
    shown = bed.reos_json("plan", "install reos-demo-solo", home=home)
    assert shown["steps"][0]["argv"] == ["apt-get", "update"]
    assert "I've seen this 3 times before, so now I do it proactively" in shown["message"]
    done = bed.reos("plan", "--yes", "install reos-demo-solo", home=home)
    assert done.returncode == 0 and "Trying fix" not in done.stdout  # no failure this time
    why = bed.reos("plan", "why did you update apt first?", home=home)
    assert why.stdout.startswith("I learned that on this system, apt-get install often fails "
                                 "without a recent cache update. I've seen this 3 times before")
    learned = bed.reos_json("learned", home=home)
    pattern = next(p for p in learned["patterns"] if p["signature"] == "apt-get install *")
    assert pattern["fixes"]["refresh"] == 3 and pattern["failures"]["missing_dependency"] == 3
    bed.reos("undo", home=home)


def test_a_held_dpkg_lock_is_waited_for(bed) -> None:
    home = "/tmp/reos-recovery-lock"
    # held 8 s: long enough for reos to start and meet it on a busy machine, short
    # enough that its second wait (3 s, then 6 s: recovery.BACKOFF_SECONDS) outlasts it
    holder = ("import fcntl, time; f = open('/var/lib/dpkg/lock-frontend', 'w'); "
              "fcntl.lockf(f, fcntl.LOCK_EX); time.sleep(8)")
    bed.run("sh", "-c", f"nohup python3 -c \"{holder}\" >/dev/null 2>&1 &", check=True)
    time.sleep(0.5)
    done = bed.reos("plan", "--yes", "install reos-demo-solo", home=home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Could not get lock /var/lib/dpkg/lock-frontend" in done.stdout
    assert "\u2192 Trying fix: Waiting" in done.stdout
    assert bed.installed("reos-demo-solo") == "0.5"
    bed.reos("undo", home=home)


def test_a_unit_that_is_not_there_stops_and_asks(bed) -> None:
    home = "/tmp/reos-recovery-ghost"
    context = bed.reos_json("context", home=home)
    context["services"].append({"name": "ghost.service", "description": "Gone",
                                "load": "loaded", "active": "active", "sub": "running",
                                "enabled": "enabled"})
    bed.run("sh", "-c", f"cat > /tmp/ghost.json <<'EOF'\n{json.dumps(context)}\nEOF",
            check=True)
    done = bed.reos("plan", "--yes", "--context", "/tmp/ghost.json", "restart ghost",
                    home=home)
    assert done.returncode == 1
    assert "\u2192 Diagnosed: there is no unit called ghost.service" in done.stdout
    assert "I can't fix this on my own" in done.stdout and "Check the name" in done.stdout


def test_permission_denied_as_a_user_is_retried_with_sudo_and_counted(bed) -> None:
    home = "/home/bob/r-perm"
    context = bed.reos_json("context", user="bob", home=home)
    context["host"]["is_root"] = True  # a plan made as if root: no sudo in its steps
    bed.run("sh", "-c", f"cat > /tmp/asroot.json <<'EOF'\n{json.dumps(context)}\nEOF",
            check=True)
    data = bed.reos_json("plan", "--yes", "--context", "/tmp/asroot.json",
                         "restart reos-demo", user="bob", home=home)
    assert data["steps"][0]["argv"] == ["systemctl", "restart", "reos-demo.service"]
    assert data["execution"]["ok"] is True
    assert data["execution"]["recoveries"] == ["Retrying with sudo"]
    assert data["execution"]["escalations"] == 1
    tx = bed.reos_json("history", user="bob", home=home)["transactions"][0]
    assert tx["steps"][-1]["argv"][:2] == ["sudo", "-n"]
