"""Targets no plan may touch, whatever the words: init, reos itself and the shell it runs
in, the root account, the disk holding the root filesystem, and a device whose data is in
use (mounted, swap, or a device another is built on: RAID, LVM, LUKS, ZFS, bcache, btrfs)
for an action that erases it.

`untouchable` is asked for every target of a step that changes something; it says why a
target is left out and whether the whole plan is a refusal. Not responsible for refusing
by meaning before anything is matched (the parser's refusals do that).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from reos.model.target import Target
from reos.system.snapshot import SystemSnapshot

if TYPE_CHECKING:
    from typing import Any

_DESTROYS = ("format", "partition", "wipe", "mkfs", "erase", "repartition")



def protected_pids() -> dict[str, str]:
    """Processes no plan may signal: init, reos itself, and the shell reos runs in."""
    return {"1": "PID 1 is init; stopping it stops the machine",
            str(os.getpid()): "that is reos itself",
            str(os.getppid()): "that is the shell reos runs in"}




def root_disk(snapshot: SystemSnapshot) -> set[str]:
    """The device holding / and every device on the same disk (names and paths)."""
    mounts = getattr(snapshot, "mounts", None) or []
    devices = getattr(snapshot, "block_devices", None) or []
    root = next((m.device for m in mounts if m.mountpoint == "/"), None)
    held = {d.name for d in devices if "/" in (d.mountpoints or [])}
    if root:
        held.add(root.rsplit("/", 1)[-1])
    disks = {d.name for d in devices if d.type == "disk" and any(
        h.startswith(d.name) for h in held)}
    names = {d.name for d in devices if any(d.name.startswith(k) for k in disks)} | held
    return {n.lower() for n in names} | {f"/dev/{n}".lower() for n in names} | {"/"}



def _part_of(part: str, disk: str) -> bool:
    """Whether `part` is a partition of `disk` by the kernel's naming: sdb1 of sdb,
    nvme0n1p2 of nvme0n1, md1p1 of md1 (never sdba1 of sdb, nor nvme0n10p1 of nvme0n1)."""
    return bool(re.fullmatch(re.escape(disk) + r"p?\d+", part))


# signatures of a device whose data another device is built on: (what it is, what to do)
_MEMBERS = {"linux_raid_member": ("a member of the RAID array", "take it out of its array"),
            "lvm2_member": ("a member of an LVM volume group",
                            "take it out of its volume group"),
            "crypto_luks": ("a LUKS-encrypted volume", "close and retire it"),
            "zfs_member": ("a member of a ZFS pool", "take it out of its pool"),
            "bcache": ("a bcache device", "detach it"),
            "btrfs": ("part of a btrfs filesystem", "remove it from the filesystem")}


def in_use(snapshot: SystemSnapshot) -> dict[str, tuple[str, str]]:
    """Devices whose data is in use, by name and path (lower-case): (a sentence saying
    what holds it, what to do first). In use is a mounted filesystem or active swap on
    the device or a partition of it (a mounted removable partition aside: formatting a
    stick unmounts it first, but its whole disk is in use), or a device another one is
    built on (RAID, LVM, LUKS, ZFS, bcache, btrfs). (mkfs itself refuses a mounted
    filesystem; this says so before anything runs.)"""
    devices = getattr(snapshot, "block_devices", None) or []
    names = {d.name.lower() for d in devices}
    what: dict[str, tuple[str, str]] = {}  # every device in use, removable or not
    for d in devices:
        places = [m for m in d.mountpoints or [] if m]
        fstype = (d.fstype or "").lower()
        if places:
            what[d.name.lower()] = ("swap in use" if places == ["[SWAP]"] else
                                    "mounted at " + ", ".join(places), "unmount it")
        elif fstype in _MEMBERS:
            said, first = _MEMBERS[fstype]
            array = f"md{(d.label or '').rsplit(':', 1)[-1]}"  # mdadm's "host:N" is mdN
            if fstype == "linux_raid_member" and (d.label or "").count(":") == 1 and (
                    array in names):
                said += f" {array}"
            what[d.name.lower()] = (said, first)
    removable = {d.name.lower() for d in devices if d.removable}
    why = {n: (f"{n} is {w}", first) for n, (w, first) in what.items()
           if not (n in removable and w.startswith("mounted"))}
    for d in devices:  # a disk or an array is in use when one of its partitions is
        name = d.name.lower()
        parts = sorted(n for n in what if _part_of(n, name))
        if name not in what and parts:
            said, first = what[parts[0]]
            why[name] = (f"{name} holds {parts[0]}, {said}", first)
    return why | {f"/dev/{n}": w for n, w in why.items()}


def destroys(action: str | None) -> bool:
    """Whether an action erases what it acts on (format, partition, wipe...)."""
    return action is not None and action.startswith(_DESTROYS)


def not_exactly(intent: Any, matcher: Any, snapshot: SystemSnapshot) -> str:
    """Why a destructive request naming no device of this machine exactly is refused, with
    the devices it could have meant (never those on the disk holding /)."""
    said = " ".join(intent.targets) or "that"
    index = matcher.index("device")
    system = root_disk(snapshot)
    spare = [f"{t.name} ({t.detail})" if t.detail else t.name
             for t in (index.targets if index is not None else [])
             if t.name.lower() not in system][:8]
    known = (" The disks and partitions that are not the system's: " + ", ".join(spare)
             + ".") if spare else ""
    return (f"I won't {intent.action} anything I can't find exactly: nothing here is called "
            f"\u201c{said}\u201d.{known}")


def untouchable(target: Target, action: str, snapshot: SystemSnapshot) -> tuple[str, bool] | None:
    """(why `target` is never changed, whether that makes the whole plan a refusal), or
    None when it may be."""
    if target.kind in ("device", "mount") and action.startswith(_DESTROYS) and (
            target.name.lower() in root_disk(snapshot)):
        return (f"{target.name} is on the disk holding the root filesystem; formatting or "
                "partitioning it destroys the system", True)
    if target.kind in ("device", "mount") and action.startswith(_DESTROYS):
        held = in_use(snapshot).get(target.name.lower())
        if held:
            said, first = held
            return (f"{said}: formatting or wiping it destroys the data in use there "
                    f"({first} first, then ask again)", True)
    if target.kind == "user" and target.name == "root":
        return "reos never deletes, locks or changes the root account", False
    if target.kind == "process" and (target.name in protected_pids()
                                     or target.state in ("reos", "systemd", "init")):
        why = protected_pids().get(target.name, f"{target.state} is never signalled")
        return f"process {target.name} ({target.state}): {why}", False
    return None
