"""Real systemd in the Debian test bed: each change made by reos, then `reos undo`, then
the real state checked."""

from __future__ import annotations

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
