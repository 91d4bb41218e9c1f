"""Targets no plan may touch, whatever the words: init, reos itself and the shell it runs
in, the root account, the disk holding the root filesystem, and a device whose data is in
use (mounted, swap, or a member of a RAID array or LVM volume group) for an action that
erases it.

`untouchable` is asked for every target of a step that changes something; it says why a
target is left out and whether the whole plan is a refusal. Not responsible for refusing
by meaning before anything is matched (the parser's refusals do that).
"""

from __future__ import annotations

import os

from reos.model import Target
from reos.system.snapshot import SystemSnapshot

TYPE_CHECKING = False  # typing stays unimported at run time: `reos plan` starts faster
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



def in_use(snapshot: SystemSnapshot) -> dict[str, str]:
    """Devices whose data is in use, by name and path (lower-case), each with a sentence
    saying what holds it: a mounted filesystem or active swap on the device or on a
    partition of its disk (a removable one aside: formatting a stick unmounts it first),
    or a member of a RAID array or an LVM volume group. (mkfs itself refuses a mounted
    filesystem; this says so before anything runs.)"""
    devices = getattr(snapshot, "block_devices", None) or []
    arrays = [d for d in devices if d.type.startswith("raid") and d.mountpoints]
    what: dict[str, str] = {}
    removable = {d.name.lower() for d in devices if d.removable}
    for d in devices:
        places = [m for m in d.mountpoints or [] if m]
        fstype = (d.fstype or "").lower()
        if places and d.name.lower() in removable:
            continue  # a stick or an external disk: its recipe unmounts it first
        if places:
            what[d.name.lower()] = ("swap in use" if places == ["[SWAP]"]
                                    else "mounted at " + ", ".join(places))
        elif fstype == "linux_raid_member":
            array = (f" {arrays[0].name} (mounted at {', '.join(arrays[0].mountpoints)})"
                     if len(arrays) == 1 else "")
            what[d.name.lower()] = f"a member of the RAID array{array}"
        elif fstype == "lvm2_member":
            what[d.name.lower()] = "a member of an LVM volume group"
    why = {n: f"{n} is {w}" for n, w in what.items()}
    for d in devices:  # a whole disk is in use when one of its partitions is
        name = d.name.lower()
        parts = sorted(n for n in what if n != name and n.startswith(name))
        if d.type == "disk" and name not in what and parts:
            why[name] = f"{name} holds {parts[0]}, {what[parts[0]]}"
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
            first = "take it out of its array" if "member" in held else "unmount it"
            return (f"{held}: formatting or wiping it destroys the data in use there "
                    f"({first} first, then ask again)", True)
    if target.kind == "user" and target.name == "root":
        return "reos never deletes, locks or changes the root account", False
    if target.kind == "process" and (target.name in protected_pids()
                                     or target.state in ("reos", "systemd", "init")):
        why = protected_pids().get(target.name, f"{target.state} is never signalled")
        return f"process {target.name} ({target.state}): {why}", False
    return None
