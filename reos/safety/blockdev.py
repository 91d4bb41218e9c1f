"""Whether a block device may be formatted right now, read from the running kernel.

The risk engine blocks every formatter aimed at a device. The one exception is a format
step that reos itself planned for a device of this machine's snapshot, approved by a
person who was shown the device's size and model: right before it runs, the gate asks
`format_objection` and lets it through (as HIGH, irreversible) only when the device is a
block device here and shares no disk with the filesystem mounted on `/` or with any
swap area. What cannot be read is an objection: fail closed.

Reads /sys, /proc and stat() only; never runs a program. Not responsible for deciding
what a request means or which device it names (see `planning/guards.py` for the
snapshot-based refusal at planning time).
"""

from __future__ import annotations

import os
import stat

from reos.patterns import regex

_NAME = regex(r"[a-z][a-z0-9_-]{0,31}")
SYS_BLOCK = "/sys/class/block"


def format_objection(name: str) -> str | None:
    """Why /dev/NAME must not be formatted now, or None when nothing stands in the way."""
    if not _NAME.fullmatch(name):
        return f"“{name[:40]}” is not a device name"
    path = f"/dev/{name}"
    try:
        if not stat.S_ISBLK(os.stat(path).st_mode):
            return f"{path} is not a block device"
    except OSError:
        return f"{path} does not exist on this machine"
    mine = disks_of(name)
    if not mine:
        return f"cannot tell which disk {path} is on"
    root = root_device()
    if root is None:
        return "cannot tell which disk holds /, so no disk may be formatted"
    if mine & disks_of(root):
        return f"{path} is on the disk holding /"
    for swap in _swaps():
        if mine & disks_of(swap):
            return f"{path} is on a disk with a swap area in use ({swap})"
    return None


def root_device() -> str | None:
    """The kernel name of the block device holding `/` (from stat's device number)."""
    try:
        number = os.stat("/").st_dev
        link = os.path.realpath(f"/sys/dev/block/{os.major(number)}:{os.minor(number)}")
    except OSError:
        return None
    name = os.path.basename(link)
    return name if os.path.isdir(link) and _NAME.fullmatch(name) else None


def disks_of(name: str, depth: int = 0) -> set[str]:
    """The whole disks under a device: itself, its parent for a partition, and for device
    mapper or md devices every disk beneath them (`slaves/`)."""
    if depth > 8 or not _NAME.fullmatch(name):
        return set()
    where = os.path.realpath(os.path.join(SYS_BLOCK, name))
    if not os.path.isdir(where):
        return set()
    if os.path.exists(os.path.join(where, "partition")):
        return disks_of(os.path.basename(os.path.dirname(where)), depth + 1)
    try:
        below = os.listdir(os.path.join(where, "slaves"))
    except OSError:
        below = []
    found = {name}
    for lower in below:
        found |= disks_of(lower, depth + 1)
    return found


def _swaps() -> list[str]:
    try:
        with open("/proc/swaps", encoding="utf-8") as handle:
            lines = handle.read().splitlines()[1:]
    except OSError:
        return []
    out = []
    for line in lines:
        source = line.split()[0] if line.split() else ""
        if source.startswith("/dev/"):
            out.append(os.path.basename(os.path.realpath(source)))
    return out
