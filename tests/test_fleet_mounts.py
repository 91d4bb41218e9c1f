"""Filesystems unmounted on another host through Ansible and mounted again by undo
(reos/fleet/deciding.py: the prior state from the host's own mount table, read by the host
module: reos/system/portable.py `mounts`), on the fleet bed: web1 over real SSH, logged in
as bob (tests/fleet_bed.py, whose hosts may mount, as a host's root can). Each change is
looked at from outside (docker exec: mountpoint, findmnt), never through reos. What the
session needs (the system's own folders, the login's home) is never unmounted there.
"""

from __future__ import annotations

import pytest

from reos.errors import EXIT_OK
from reos.system import portable
from tests.conftest import reos


def _plan(fleet, pattern: str, request: str, *more: str):  # type: ignore[no-untyped-def]
    return reos("plan", "--hosts", pattern, "-i", str(fleet.inventory), *more, request,
                timeout=180)


def _mounted(fleet, host: str, point: str) -> bool:  # type: ignore[no-untyped-def]
    return fleet.run(host, "mountpoint", "-q", point).returncode == 0


def test_a_filesystem_unmounted_on_a_host_is_mounted_again_by_undo(
        fleet) -> None:  # type: ignore[no-untyped-def]
    assert fleet.run("web1", "mkdir", "-p", "/mnt/scratch").returncode == 0
    made = fleet.run("web1", "mount", "-t", "tmpfs", "-o", "size=8m,mode=0750", "scratch",
                     "/mnt/scratch")
    assert made.returncode == 0, made.stderr
    try:
        done = _plan(fleet, "web1", "unmount /mnt/scratch", "--yes")
        assert done.returncode == EXIT_OK, done.stdout + done.stderr
        assert "undo: $ mount -t tmpfs" in done.stdout
        assert not _mounted(fleet, "web1", "/mnt/scratch")

        undone = reos("undo", timeout=120)
        assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
        assert _mounted(fleet, "web1", "/mnt/scratch")
        seen = fleet.run("web1", "findmnt", "-no", "SOURCE,FSTYPE,OPTIONS", "/mnt/scratch")
        source, fstype, options = seen.stdout.split()
        assert (source, fstype) == ("scratch", "tmpfs") and "mode=750" in options
    finally:
        fleet.run("web1", "umount", "/mnt/scratch")


@pytest.mark.parametrize("point", ["/tmp", "/home"])
def test_what_the_session_needs_is_never_unmounted_on_a_host(
        fleet, point: str) -> None:  # type: ignore[no-untyped-def]
    if not _mounted(fleet, "web1", point):
        assert fleet.run("web1", "mount", "-t", "tmpfs", "-o", "size=8m", "held",
                         point).returncode == 0
        made = True
    else:
        made = False
    try:
        done = _plan(fleet, "web1", f"unmount {point}", "--yes")
        assert done.returncode != EXIT_OK, done.stdout
        assert "could not undo it" in done.stdout + done.stderr
        assert _mounted(fleet, "web1", point)
    finally:
        if made:
            fleet.run("web1", "umount", point)


def test_the_host_module_reads_the_mount_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    table = tmp_path / "mounts"
    table.write_text("/dev/sdb1 /mnt/my\\040disk ext4 rw,relatime 0 0\n"
                     "proc /proc proc rw 0 0\n"
                     "server:/export /mnt/nfs nfs4 rw,hard 0 0\n")
    rows = portable.mounts(str(table))
    assert [(r["device"], r["mountpoint"], r["fstype"]) for r in rows] == [
        ("/dev/sdb1", "/mnt/my disk", "ext4"), ("server:/export", "/mnt/nfs", "nfs4")]
    assert rows[1]["total"] == 0  # never asked of a server that may hang
    with pytest.raises(portable.Unavailable):
        portable.mounts(str(tmp_path / "none"))
