"""Processes and mounts changed by reos in the Debian/systemd test bed: a real process
started in the bed and killed by name through a plan; a real ext4 filesystem on a loop
device mounted, unmounted and put back by `reos undo`, checked with `pgrep` and `findmnt`.

The loop device needs the bed's /dev/loop-control and the right to create loop block
devices (tests/debian_bed.py passes both where this machine has /dev/loop-control); where
losetup cannot attach one, the mount tests skip and say why. A loop device is a resource
of the whole machine: the test detaches it however it ends.
"""

from __future__ import annotations

import time

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PROGRAM = "reossleeper"
IMAGE, MOUNTPOINT = "/tmp/reos-disk.img", "/mnt/reos-loop"


def test_a_process_is_killed_by_name_and_the_plan_names_its_pid_and_command(bed) -> None:  # noqa: ANN001
    bed.run("cp", "/bin/sleep", f"/usr/local/bin/{PROGRAM}", check=True)
    bed.run("sh", "-c", f"setsid /usr/local/bin/{PROGRAM} 7777 </dev/null >/dev/null 2>&1 &",
            check=True)
    deadline = time.monotonic() + 10
    pid = ""
    while not pid and time.monotonic() < deadline:
        pid = bed.run("pgrep", "-x", PROGRAM).stdout.strip()
        time.sleep(0.1)
    assert pid.isdigit(), "the process did not start"
    try:
        out = bed.approved(f"kill {PROGRAM}")
        assert f"Kill process {pid} (SIGKILL) \u2014 /usr/local/bin/{PROGRAM} 7777" in out, out
        assert f"$ kill -9 {pid}" in out, out
        assert "cannot be undone" in out, out  # irreversible, and said before it ran
        gone = False
        for _ in range(50):
            if bed.run("kill", "-0", pid).returncode != 0:
                gone = True
                break
            time.sleep(0.1)
        assert gone, f"process {pid} is still there"
        assert bed.run("pgrep", "-x", PROGRAM).returncode == 1
    finally:
        bed.run("pkill", "-x", PROGRAM)


@pytest.fixture
def loop(bed):  # noqa: ANN001, ANN201
    """An ext4 image attached to a free loop device; its name ("loop0")."""
    bed.run("sh", "-c", f"truncate -s 16M {IMAGE} && mkfs.ext4 -q -F {IMAGE}", check=True)
    free = bed.run("losetup", "-f")
    device = free.stdout.strip()
    if free.returncode != 0 or not device.startswith("/dev/loop"):
        pytest.skip(f"no free loop device in the bed: {free.stderr.strip()} "
                    "(needs /dev/loop-control on this machine)")
    if bed.run("test", "-e", device).returncode != 0:
        bed.run("mknod", device, "b", "7", device.removeprefix("/dev/loop"))
    attached = bed.run("losetup", device, IMAGE)
    if attached.returncode != 0:
        pytest.skip(f"the bed cannot attach a loop device: {attached.stderr.strip()}")
    bed.run("mkdir", "-p", MOUNTPOINT, check=True)
    try:
        yield device.removeprefix("/dev/")
    finally:
        bed.run("umount", MOUNTPOINT)
        bed.run("losetup", "-d", device)
        bed.run("rm", "-f", IMAGE)


def _mounted(bed) -> str | None:  # noqa: ANN001
    """The source mounted on MOUNTPOINT, or None."""
    done = bed.run("findmnt", "-n", "-o", "SOURCE", "--mountpoint", MOUNTPOINT)
    return done.stdout.strip() or None if done.returncode == 0 else None


def test_mount_and_unmount_with_undo(loop, bed) -> None:  # noqa: ANN001
    device = f"/dev/{loop}"
    out = bed.approved(f"mount {loop} at {MOUNTPOINT}")
    assert f"$ mount {device} {MOUNTPOINT}" in out, out
    assert _mounted(bed) == device
    bed.run("sh", "-c", f"echo kept > {MOUNTPOINT}/proof", check=True)
    out = bed.approved(f"unmount {MOUNTPOINT}")
    assert f"$ umount {MOUNTPOINT}" in out, out
    assert _mounted(bed) is None
    undo = bed.undone()  # mounted again with the same device, type and options
    assert f"(ran: mount -t ext4 -o rw,relatime {device} {MOUNTPOINT})" in undo, undo
    assert _mounted(bed) == device
    assert bed.read(f"{MOUNTPOINT}/proof") == b"kept\n"
    undo = bed.undone()  # the mount itself
    assert f"(ran: umount {device})" in undo, undo
    assert _mounted(bed) is None
