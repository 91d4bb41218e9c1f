"""The live state of a mount or a block device, and the command that puts it back.

`current` reads (never changes) `/proc/self/mounts` right before a step touches a
mountpoint or a device: whether it is mounted, from which device, with which filesystem
type and options; the journal keeps that as the step's prior state. `restore` turns a
prior state into the one argv that brings it back: an unmounted filesystem is mounted
again with its recorded device, type and options; a filesystem remounted read-only is
remounted read-write; a device that was not mounted before is unmounted again. `problem`
says what is wrong with the state a step left on a mount ("is still mounted"). `protected_devices`
names the devices no plan may format: the ones holding /, and the disks they are on.
No shell: argv lists only, and the mount table is read as a file.

Not responsible for running anything (the executor does), for choosing the steps
(recipes in templates/disks.toml do) or for matching words to mounts (the matcher).
"""

from __future__ import annotations

from typing import Any

MOUNTS = "/proc/self/mounts"
# a recorded value that may be passed back to mount(8) as one argv item
_SAFE_FIELD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                        "/._+-=,:@")


def mount_table(path: str = MOUNTS) -> list[dict[str, str]] | None:
    """Every line of the mount table as {device, mountpoint, fstype, options}
    (`portable.mount_table`, which the host module reads too); None when it cannot be
    read."""
    from reos.system.portable import mount_table as read

    try:
        return read(path)
    except OSError:
        return None


def _norm(mountpoint: str) -> str:
    return mountpoint.rstrip("/") or "/"


def _mount(mountpoint: str, table: list[dict[str, str]]) -> dict[str, Any]:
    # the last line for a mountpoint is the mount on top, the one a person sees
    found = [m for m in table if _norm(m["mountpoint"]) == _norm(mountpoint)]
    if not found:
        return {"state": "unmounted", "mounted": False}
    top = found[-1]
    options = top["options"].split(",")
    return {"state": "mounted", "mounted": True, "device": top["device"],
            "fstype": top["fstype"], "options": top["options"],
            "read_only": "ro" in options}


def _device(name: str, table: list[dict[str, str]]) -> dict[str, Any]:
    path = name if name.startswith("/dev/") else f"/dev/{name}"
    points = [m["mountpoint"] for m in table if m["device"] == path]
    return {"state": "mounted" if points else "unmounted", "mounted": bool(points),
            "device": path, "mountpoints": points}


def current(kind: str, name: str, table_path: str = MOUNTS) -> dict[str, Any] | None:
    """The state to record before a step changes the mount `name` (a mountpoint) or the
    device `name` (sdc1 or /dev/sdc1); None for another kind."""
    if kind not in ("mount", "device"):
        return None
    table = mount_table(table_path)
    if table is None:
        return {"state": "unknown", "reason": f"cannot read {table_path}"}
    return _mount(name, table) if kind == "mount" else _device(name, table)


def _clean(value: Any) -> str | None:
    """A recorded value fit to be one argv item of mount(8), or None."""
    if not isinstance(value, str) or not value or len(value) > 4096 or value.startswith("-"):
        return None
    return value if set(value) <= _SAFE_FIELD else None


def _without_ro(options: str) -> str:
    kept = [o for o in options.split(",") if o and o not in ("ro", "rw")]
    return ",".join(["rw", *kept])


def restore(kind: str, name: str, prior: dict[str, Any] | None,
            action: str | None) -> list[str] | None:
    """The argv that returns `name` to `prior` after `action`, or None when none can (or
    the prior state does not say enough)."""
    if not prior:
        return None
    if kind == "mount":
        if action == "unmount":
            if prior.get("mounted") is False or prior.get("state") == "unmounted":
                return None  # it was not mounted: nothing to put back
            device, fstype, options = (_clean(prior.get(k))
                                       for k in ("device", "fstype", "options"))
            if device and fstype and options:
                return ["mount", "-t", fstype, "-o", options, device, name]
            if device:
                return ["mount", device, name]
            # at plan time only "mounted" is known: the table of fstab says how
            return ["mount", name]
        if action == "remount_ro":
            if prior.get("read_only") is True:
                return None  # it was read-only already
            options = _clean(prior.get("options"))
            if options:
                return ["mount", "-o", "remount," + _without_ro(options), name]
            return ["mount", "-o", "remount,rw", name]
        return None
    if kind == "device" and action == "mount":
        if prior.get("mounted") is True or prior.get("mountpoints"):
            return None  # already mounted elsewhere: unmounting by device would take both
        path = name if name.startswith("/dev/") else f"/dev/{name}"
        return ["umount", path] if _clean(path) else None
    return None


def problem(kind: str, action: str | None, state: dict[str, Any]) -> str | None:
    """What is wrong with the state a step left, or None when it is what was meant."""
    mounted = state.get("mounted")
    if kind == "mount":
        if action == "unmount" and mounted:
            return "is still mounted"
        if action == "remount_ro":
            if not mounted:
                return "is no longer mounted"
            if state.get("read_only") is not True:
                return "is still writable"
    # a device's "mount" recipe first creates the directory (same target, same action): a
    # device not mounted yet after that step is no failure, so mounting is judged by
    # mount's own exit status alone
    return None


def protected_devices(mounts: list[Any] | None,
                      devices: list[Any] | None) -> dict[str, str]:
    """Devices no plan may format or wipe, each with the reason: the device holding /
    (and /boot, /usr, /var), the disk it is a partition of, and that disk's other
    partitions. `mounts` and `devices` are the snapshot's sections (objects or dicts)."""
    def get(item: Any, key: str) -> Any:
        return item.get(key) if isinstance(item, dict) else getattr(item, key, None)

    system = {"/", "/boot", "/boot/efi", "/usr", "/var"}
    holding = {}
    for m in mounts or []:
        point, device = get(m, "mountpoint"), get(m, "device")
        if point in system and isinstance(device, str) and device.startswith("/dev/"):
            holding[device.rsplit("/", 1)[-1]] = point
    names = [get(d, "name") for d in devices or [] if isinstance(get(d, "name"), str)]
    for d in devices or []:  # lsblk also lists the mountpoints of each device
        name = get(d, "name")
        points = get(d, "mountpoints") or []
        for point in points if isinstance(points, list) else []:
            if point in system and isinstance(name, str):
                holding.setdefault(name, point)
    out: dict[str, str] = {}
    for part, point in holding.items():
        out[part] = f"it holds {point}"
        disk = _disk_of(part, names)
        if disk and disk != part:
            out.setdefault(disk, f"{part} on it holds {point}")
            for other in names:
                if other != disk and _disk_of(other, names) == disk:
                    out.setdefault(other, f"it is on {disk}, the disk holding {point}")
    return out


def _disk_of(part: str, names: list[str]) -> str | None:
    """The whole disk a partition name belongs to (nvme0n1p2 -> nvme0n1, sdb1 -> sdb)."""
    best = None
    for name in names:
        if part.startswith(name) and (best is None or len(name) < len(best)):
            rest = part[len(name):]
            if rest == "" or rest.isdigit() or (rest[:1] == "p" and rest[1:].isdigit()):
                best = name
    return best
