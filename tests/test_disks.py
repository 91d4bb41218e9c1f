"""Disks, mounts and cleanup: answers read from this host's real `df`, `lsblk` and `du`
output compared with psutil and the tools themselves, the state module against a mount
table written by the test, and plans against the homelab snapshot (nvme0n1 holds /,
sdb1 is the USB stick on /mnt/backup, sdc1 is not mounted).

Nothing here mounts, unmounts or formats anything: actions are planned, never run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import psutil
import pytest

from reos.model.report import StepResult
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.system import state, state_disks
from reos.words.answers.common import ANSWERS
from reos.words.conversation import Voice, size

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"
EXCLUDED = ["-x", "tmpfs", "-x", "devtmpfs", "-x", "squashfs", "-x", "overlay",
            "-x", "efivarfs"]


def _homelab() -> dict:
    return json.loads(FIXTURE.read_text())


@pytest.fixture(scope="module")
def engine():
    from tests.understanding.evaluate import engines

    return engines()["apt"]  # the homelab fixture, with its /2 sections


def _run(argv: list[str]) -> StepResult:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    return StepResult("s1", done.returncode == 0, done.returncode, done.stdout, done.stderr, 0.0)


def _argvs(plan) -> list[list[str]]:
    return [s.argv[2:] if s.argv[:2] == ["sudo", "-n"] else s.argv for s in plan.steps]


# -- answers from this host ----------------------------------------------------------------

def test_usage_answer_names_every_filesystem_with_psutil_numbers() -> None:
    space = _run(["df", "-P", "-B1", *EXCLUDED])
    inodes = _run(["df", "-P", "-i", *EXCLUDED])
    assert space.ok, space.stderr
    said = ANSWERS["disk_usage"]([space, inodes], {}, Voice())
    mounts = [line.split(None, 5)[5] for line in space.stdout.splitlines()[1:]]
    for mount in mounts[:12]:
        assert f"  {mount}: " in said
    usage = psutil.disk_usage("/")
    if "/" in mounts:
        line = next(x for x in said.splitlines() if x.startswith("  /: "))
        assert f"of {size(usage.total)}" in line
        assert f"({usage.percent:.0f}%)" in line or f"({usage.percent + 0.5:.0f}%)" in line \
            or f"({usage.percent - 0.5:.0f}%)" in line


def test_usage_of_a_path_says_which_filesystem_holds_it() -> None:
    here = os.path.realpath(os.getcwd())
    space = _run(["df", "-P", "-B1", here])
    inodes = _run(["df", "-P", "-i", here])
    said = ANSWERS["disk_usage"]([space, inodes], {"path": here}, Voice())
    mount = space.stdout.splitlines()[1].split(None, 5)[5]
    assert mount in said
    assert here in said.splitlines()[0]


def test_inode_answer_matches_statvfs() -> None:
    result = _run(["df", "-i", "-P", "/"])
    assert result.ok, result.stderr
    said = ANSWERS["disk_inodes"]([result], {"path": "/"}, Voice())
    fields = result.stdout.splitlines()[1].split()
    total = int(fields[1])
    if total == 0:
        assert "no fixed number of inodes" in said
        return
    stat = os.statvfs("/")
    assert stat.f_files == total
    assert f"of {total:,} inodes used" in said


def test_devices_answer_lists_what_lsblk_lists() -> None:
    if shutil.which("lsblk") is None:
        pytest.skip("lsblk is not installed")
    result = _run(["lsblk", "-J", "-b", "-o", "NAME,SIZE,TYPE,MODEL,MOUNTPOINTS"])
    if not result.ok:
        pytest.skip(f"lsblk cannot read the devices here: {result.stderr.strip()}")
    said = ANSWERS["block_devices"]([result], {}, Voice())
    data = json.loads(result.stdout)["blockdevices"]
    disks = [d for d in data if d.get("type") == "disk" and d.get("size")]
    for disk in disks:
        assert f"{disk['name']}: {size(int(disk['size']))}" in said
    assert said.startswith(f"{len(disks)} disk")


def test_biggest_dirs_answer_sorts_what_du_measured(tmp_path: Path) -> None:
    (tmp_path / "big").mkdir()
    (tmp_path / "small").mkdir()
    (tmp_path / "big" / "f").write_bytes(b"x" * 300_000)
    (tmp_path / "small" / "f").write_bytes(b"x" * 5_000)
    result = _run(["du", "-x", "-d", "1", "-B1", str(tmp_path)])
    said = ANSWERS["biggest_dirs"]([result], {"path": str(tmp_path)}, Voice())
    lines = said.splitlines()
    assert str(tmp_path / "big") in lines[1] and str(tmp_path / "small") in lines[2]


def test_a_missing_smartctl_names_smartmontools() -> None:
    missing = StepResult("s1", False, 127, "", "smartctl: command not found", 0.0)
    assert "smartmontools" in ANSWERS["smart"]([missing], {"device": "sda"}, Voice())
    passed = StepResult("s1", True, 0, "SMART overall-health self-assessment test result: "
                        "PASSED\n", "", 0.0)
    assert "passes" in ANSWERS["smart"]([passed], {"device": "sda"}, Voice())
    failed = StepResult("s1", False, 8, "SMART overall-health self-assessment test result: "
                        "FAILED!\n", "", 0.0)
    assert "FAILS" in ANSWERS["smart"]([failed], {"device": "sda"}, Voice())


# -- the state module -----------------------------------------------------------------------

TABLE = """/dev/nvme0n1p2 / ext4 rw,relatime 0 0
/dev/sdb1 /mnt/my\\040backup exfat rw,nosuid,nodev,uid=1000 0 0
/dev/sdc1 /srv/ro ext4 ro,relatime 0 0
"""


def test_current_reads_the_mount_table(tmp_path: Path) -> None:
    table = tmp_path / "mounts"
    table.write_text(TABLE)
    backup = state_disks.current("mount", "/mnt/my backup", str(table))
    assert backup == {"state": "mounted", "mounted": True, "device": "/dev/sdb1",
                      "fstype": "exfat", "options": "rw,nosuid,nodev,uid=1000",
                      "read_only": False}
    assert state_disks.current("mount", "/nowhere", str(table))["mounted"] is False
    assert state_disks.current("device", "sdc1", str(table))["mountpoints"] == ["/srv/ro"]
    assert state_disks.current("mount", "/", str(tmp_path / "gone"))["state"] == "unknown"


def test_the_live_root_mount_is_read_without_a_shell() -> None:
    now = state.current_state("mount", "/")
    assert now is not None and now["mounted"] is True
    assert now["device"] == next(p.device for p in psutil.disk_partitions(all=True)
                                 if p.mountpoint == "/")


def test_restore_puts_back_what_was_recorded() -> None:
    prior = {"state": "mounted", "mounted": True, "device": "/dev/sdb1", "fstype": "exfat",
             "options": "rw,nosuid,nodev", "read_only": False}
    assert state_disks.restore("mount", "/mnt/backup", prior, "unmount") == [
        "mount", "-t", "exfat", "-o", "rw,nosuid,nodev", "/dev/sdb1", "/mnt/backup"]
    assert state_disks.restore("mount", "/mnt/backup", prior, "remount_ro") == [
        "mount", "-o", "remount,rw,nosuid,nodev", "/mnt/backup"]
    assert state_disks.restore("mount", "/srv/ro", {**prior, "read_only": True},
                               "remount_ro") is None  # it was read-only already
    assert state_disks.restore("mount", "/x", {"mounted": False}, "unmount") is None
    assert state_disks.restore("device", "sdc1", {"mounted": False, "mountpoints": []},
                               "mount") == ["umount", "/dev/sdc1"]
    # a recorded value that could be read as an option never reaches argv
    odd = {**prior, "device": "-oexec", "options": "rw"}
    assert "-oexec" not in (state_disks.restore("mount", "/mnt/backup", odd, "unmount") or [])


def test_problem_says_what_is_wrong_after_a_step() -> None:
    assert state_disks.problem("mount", "unmount", {"mounted": True}) == "is still mounted"
    assert state_disks.problem("mount", "unmount", {"mounted": False}) is None
    assert state_disks.problem("mount", "remount_ro",
                               {"mounted": True, "read_only": False}) == "is still writable"
    assert state_disks.problem("mount", "remount_ro",
                               {"mounted": True, "read_only": True}) is None


def test_the_devices_holding_root_are_protected() -> None:
    data = _homelab()
    protected = state_disks.protected_devices(data["mounts"], data["block_devices"])
    assert {"nvme0n1", "nvme0n1p1", "nvme0n1p2", "nvme0n1p3", "nvme0n1p4"} <= set(protected)
    assert not {"sdb", "sdb1", "sdc", "sdc1"} & set(protected)


# -- plans against the homelab snapshot ------------------------------------------------------

def test_unmount_plans_umount_with_a_mount_back(engine) -> None:
    plan = engine.plan("unmount /mnt/backup")
    assert plan.kind == Kind.ACTION
    assert _argvs(plan) == [["umount", "/mnt/backup"]]
    rollback = plan.steps[0].rollback
    assert rollback is not None and "mount" in rollback and "/mnt/backup" in rollback


def test_remount_read_only_is_undone_read_write(engine) -> None:
    plan = engine.plan("remount /mnt/backup read-only")
    assert _argvs(plan) == [["mount", "-o", "remount,ro", "/mnt/backup"]]
    assert plan.steps[0].rollback[-3:] == ["-o", "remount,rw", "/mnt/backup"]


def test_mount_takes_the_device_and_the_directory(engine) -> None:
    plan = engine.plan("mount sdc1 on /mnt/data")
    assert ["mount", "/dev/sdc1", "/mnt/data"] in _argvs(plan)
    assert all("umount" not in " ".join(a) for a in _argvs(plan))


@pytest.mark.parametrize("say", ["format the root disk", "format nvme0n1",
                                 "wipe the system drive", "mkfs.ext4 /dev/nvme0n1p2",
                                 "format nvme0n1p2", "format nvme0n1p4 as xfs",
                                 "format /dev/nvme0n1p1 as exfat"])
def test_the_disk_holding_root_is_never_formatted(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.REFUSE and plan.steps == [], (say, plan.text())


@pytest.mark.parametrize(("say", "wanted"), [
    ("format /dev/sdc1 as ext4", ["mkfs.ext4", "-F", "/dev/sdc1"]),
    ("format sdc1 as xfs", ["mkfs.xfs", "-f", "/dev/sdc1"]),
    ("format sdc1 as exfat", ["mkfs.exfat", "/dev/sdc1"]),
])
def test_formatting_a_spare_partition_is_a_high_risk_plan(engine, say: str,
                                                          wanted: list[str]) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.ACTION, plan.text()
    assert not plan.blocked, plan.blocked_reason  # reos's own format step is not refused
    assert _argvs(plan) == [wanted]
    assert plan.steps[0].risk >= RiskLevel.HIGH
    assert not plan.steps[0].reversible and plan.steps[0].rollback is None
    assert "erase" in plan.text().lower()


def test_free_space_measures_before_it_cleans(engine) -> None:
    plan = engine.plan("free up disk space")
    argvs = _argvs(plan)
    assert argvs[-1] == ["apt-get", "clean"]
    assert all(s.read_only for s in plan.steps[:-1])
    assert ["journalctl", "--disk-usage"] in argvs
    assert not any("prune" in a or "rm" == a[0] for a in argvs)


@pytest.mark.parametrize(("say", "wanted"), [
    ("how many inodes are free on /var", ["df", "-i", "-P", "/var"]),
    ("biggest directories under /srv", ["du", "-x", "-d", "1", "-B1", "/srv"]),
    ("which drives are attached", ["lsblk", "-J", "-b", "-o", "NAME,SIZE,TYPE,MODEL,MOUNTPOINTS"]),
    ("smart health of sdc", ["smartctl", "-H", "/dev/sdc"]),
])
def test_questions_plan_their_read_only_command(engine, say: str, wanted: list[str]) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.QUERY, plan.text()
    assert wanted in _argvs(plan)
    assert plan.read_only


@pytest.mark.parametrize("say", ["is /mnt/backup mounted", "how is /home mounted",
                                 "is /mnt/backup mounted read-only"])
def test_asking_whether_something_is_mounted_changes_nothing(engine, say: str) -> None:
    plan = engine.plan(say)
    assert plan.kind == Kind.QUERY and plan.read_only, plan.text()
    assert all(a[0] == "findmnt" for a in _argvs(plan))


def test_mount_status_answer_matches_the_mount_table() -> None:
    result = _run(["findmnt", "-n", "-o", "TARGET,SOURCE,FSTYPE,OPTIONS", "--mountpoint", "/"])
    if shutil.which("findmnt") is None or not result.ok:
        pytest.skip("findmnt cannot read / here")
    said = ANSWERS["mount_status"]([result], {"target:s1": "/"}, Voice())
    live = state.current_state("mount", "/")
    assert f"mounted from {live['device']} ({live['fstype']})" in said
    gone = StepResult("s1", False, 1, "", "", 0.0)
    assert ANSWERS["mount_status"]([gone], {"target:s1": "/nowhere"}, Voice()) == \
        "/nowhere is not mounted."
