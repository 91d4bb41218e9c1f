"""Formatting runs only as reos's own plan, for a device the running kernel shows is not
on the disk holding /: checked with a real loop device on this host.

The risk engine blocks every formatter aimed at a device (`reos check`), and the gate
lets one through only for the device a format step was planned for, after
`safety.blockdev` has read /sys and /proc. The end-to-end test plans "format loopN as
ext4" from a fresh snapshot of this host, approves it, and reads the new filesystem back
with blkid.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from reos.safety.blockdev import format_objection, root_device
from reos.safety.gate import admit_argv
from reos.safety.risk import assess_argv
from tests.conftest import REOS_BIN

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("losetup") is None,
                                reason="needs root and losetup for a loop device")


@pytest.fixture
def loop(tmp_path):  # noqa: ANN201
    image = tmp_path / "disk.img"
    with image.open("wb") as handle:
        handle.truncate(32 * 2**20)
    made = subprocess.run(["losetup", "-f", "--show", str(image)], capture_output=True,
                          text=True, check=False)
    if made.returncode != 0:
        pytest.skip(f"no loop device here: {made.stderr.strip()}")
    device = made.stdout.strip()
    yield os.path.basename(device)
    subprocess.run(["losetup", "-d", device], check=False)


def test_a_spare_loop_device_has_no_objection(loop: str) -> None:
    assert format_objection(loop) is None


def test_the_disk_holding_root_and_missing_devices_are_objected_to() -> None:
    root = root_device()
    if root is None:
        pytest.skip("/ is not on a block device here (overlay or similar)")
    assert "holding /" in (format_objection(root) or "")
    assert "does not exist" in (format_objection("sdzz9") or "")
    assert "not a device name" in (format_objection("../sda") or "")


def test_the_gate_admits_a_formatter_only_for_the_planned_device(loop: str) -> None:
    argv = ["mkfs.ext4", "-F", f"/dev/{loop}"]
    assert not admit_argv(argv, approved=True).allowed  # nobody planned it
    assert not admit_argv(argv, approved=True, formats=frozenset({"sdzz9"})).allowed
    admitted = admit_argv(argv, approved=True, formats=frozenset({loop}))
    assert admitted.allowed, admitted.reason
    assert admitted.verdict.risk.label == "high" and not admitted.verdict.reversible
    root = root_device()
    if root is not None:
        refused = admit_argv(["mkfs.ext4", "-F", f"/dev/{root}"], approved=True,
                             formats=frozenset({root}))
        assert not refused.allowed and "holding /" in refused.reason
    # a second device on the same line is never covered by the one planned
    assert assess_argv(["mkfs.ext4", f"/dev/{loop}", "/dev/vdb"],
                       formats=frozenset({loop})).blocked


def test_format_plan_runs_on_a_loop_device_end_to_end(loop: str, tmp_path) -> None:
    if shutil.which("mkfs.ext4") is None or shutil.which("blkid") is None:
        pytest.skip("needs mkfs.ext4 and blkid")
    env = dict(os.environ, REOS_HOME=str(tmp_path / "home"), REOS_LLM="off")
    done = subprocess.run([str(REOS_BIN), "plan", "--yes", f"format {loop} as ext4"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"mkfs.ext4 -F /dev/{loop}" in done.stdout
    found = subprocess.run(["blkid", "-o", "value", "-s", "TYPE", f"/dev/{loop}"],
                           capture_output=True, text=True, check=False)
    assert found.stdout.strip() == "ext4", done.stdout
