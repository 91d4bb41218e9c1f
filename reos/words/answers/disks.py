"""Answers about disks in words: space and inodes per filesystem, the biggest
directories, the disks and partitions, and SMART health; and, for
templates/disks_more.toml, software RAID (/proc/mdstat), the UUIDs and
labels of the filesystems (`lsblk -f -J`), /etc/fstab and a read-only filesystem check
(`e2fsck -n`).

Each renderer reads the output of the read-only steps of templates/disks.toml
(`df -P -B1`, `df -i -P`, `du -x -d 1 -B1`, `lsblk -J -b`, `smartctl -H` or `--scan`) and
says what matters first: what is nearly full, what is biggest, what failed. A warning
quotes the output line it rests on. Everything shown passes `reos.text.clean`.

Not responsible for running anything or for choosing the commands (recipes do).
"""

from __future__ import annotations

import json
from typing import Any

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice, count, size

FULL = 90  # percent used from which a filesystem is said to be nearly full




def _df_rows(text: str) -> list[tuple[list[str], str]]:
    """(the five numeric columns' fields with the device first, mountpoint) of each line
    of `df -P` output after its header, with the line itself kept for quoting."""
    rows = []
    for line in text.splitlines()[1:]:
        parts = line.split(None, 5)
        if len(parts) == 6:
            rows.append((parts, line))
    return rows


def _space(text: str) -> list[dict[str, Any]]:
    out = []
    for parts, line in _df_rows(text):
        if parts[1].isdigit() and parts[2].isdigit() and parts[3].isdigit():
            total, used, free = int(parts[1]), int(parts[2]), int(parts[3])
            # df's own percentage counts what root keeps in reserve as used: so do we
            pct = 100 * used / (used + free) if used + free else 0.0
            out.append({"device": parts[0], "mount": parts[5], "total": total, "used": used,
                        "free": free, "pct": pct, "line": line})
    return out


def _inodes(text: str) -> dict[str, dict[str, Any]]:
    out = {}
    for parts, line in _df_rows(text):
        if parts[1].isdigit() and parts[2].isdigit() and parts[3].isdigit():
            total, used, free = int(parts[1]), int(parts[2]), int(parts[3])
            out[parts[5]] = {"device": parts[0], "total": total, "used": used, "free": free,
                             "pct": 100 * used / total if total else None, "line": line}
    return out


def _failed(result: StepResult, what: str) -> str | None:
    if result.ok and result.stdout.strip():
        return None
    last = (result.stderr.strip().splitlines() or [""])[-1]
    return f"I couldn't read {what}" + (f" ({clean(last[:200])})." if last else ".")


def disk_usage(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`df -P -B1` then `df -P -i`: space per filesystem, fullest first, with inodes."""
    if not results:
        return "I couldn't read the disk usage."
    problem = _failed(results[0], "the disk usage")
    filesystems = _space(results[0].stdout)
    if problem or not filesystems:
        return problem or "I couldn't read the disk usage."
    inodes = _inodes(results[1].stdout) if len(results) > 1 and results[1].ok else {}
    filesystems.sort(key=lambda f: -f["pct"])
    shown = filesystems[: 4 if voice.brief else 12]
    lines, warnings = [], []
    for fs in shown:
        mount = clean(fs["mount"])
        text = (f"  {mount}: {size(fs['used'])} used of {size(fs['total'])} "
                f"({fs['pct']:.0f}%), {size(fs['free'])} free")
        nodes = inodes.get(fs["mount"])
        if nodes and nodes["pct"] is not None:
            text += f"; {nodes['pct']:.0f}% of inodes used"
        if fs["pct"] >= FULL:
            text += "  \u2190 nearly full"
            warnings.append(f"{mount} is {fs['pct']:.0f}% full (df: \u201c"
                            f"{clean(' '.join(fs['line'].split()))}\u201d)")
        if nodes and nodes["pct"] is not None and nodes["pct"] >= FULL:
            text += "  \u2190 running out of inodes"
            warnings.append(f"{mount} has used {nodes['pct']:.0f}% of its inodes: new files "
                            "fail even with space free")
        lines.append(text)
    more = len(filesystems) - len(shown)
    path = params.get("path")
    if path and len(filesystems) == 1:
        mount = filesystems[0]["mount"]
        head = (f"Space on {clean(path)}:" if path.rstrip("/") == mount.rstrip("/") else
                f"{clean(path)} is on the filesystem mounted at {clean(mount)}:")
    else:
        head = f"Space on {count(len(filesystems), 'filesystem')}, fullest first:"
    said = head + "\n" + "\n".join(lines) + (f"\n  \u2026and {more} more" if more > 0 else "")
    if warnings and not voice.brief:
        said += "\n" + "\n".join(f"Note: {w}." for w in warnings)
    elif not warnings and not voice.brief:
        said += "\nNothing is close to full."
    return said


def disk_inodes(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`df -i -P`: inodes used per filesystem, fullest first."""
    problem = _failed(results[0], "the inode usage") if results else "I couldn't read it."
    if problem:
        return problem
    table = _inodes(results[0].stdout)
    if not table:
        return "I couldn't read the inode usage."
    counted = sorted(((m, v) for m, v in table.items() if v["pct"] is not None),
                     key=lambda mv: -mv[1]["pct"])
    uncounted = [m for m, v in table.items() if v["pct"] is None]
    shown = counted[: 4 if voice.brief else 12]
    lines = []
    warnings = []
    for mount, v in shown:
        text = (f"  {clean(mount)}: {v['used']:,} of {v['total']:,} inodes used "
                f"({v['pct']:.0f}%), {v['free']:,} free")
        if v["pct"] >= FULL:
            text += "  \u2190 running out"
            warnings.append(f"{clean(mount)} (df -i: \u201c{clean(' '.join(v['line'].split()))}"
                            "\u201d)")
        lines.append(text)
    path = params.get("path")
    if path and len(table) == 1:
        mount = next(iter(table))
        said = (f"Inodes on {clean(path)}:" if path.rstrip("/") == mount.rstrip("/") else
                f"{clean(path)} is on the filesystem mounted at {clean(mount)}; its inodes:")
    else:
        said = "Inodes (one per file or directory) per filesystem, fullest first:"
    said += "\n" + "\n".join(lines)
    if uncounted and not voice.brief:
        said += ("\n" + ", ".join(clean(m) for m in uncounted[:6])
                 + (" has" if len(uncounted) == 1 else " have")
                 + " no fixed number of inodes (the filesystem makes them as needed).")
    if warnings:
        said += ("\nNearly out of inodes: " + "; ".join(warnings) + ". New files fail there "
                 "even with space free; many small files (caches, mail, sessions) are the "
                 "usual cause.")
    elif not voice.brief:
        said += "\nNo filesystem is running out of inodes."
    return said


def biggest_dirs(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`du -x -d 1 -B1 PATH`: the directories right under PATH, biggest first."""
    if not results:
        return "I couldn't measure the directories."
    result = results[0]
    where = params.get("path") or "/"
    entries, total = [], None
    for line in result.stdout.splitlines():
        number, _, path = line.partition("\t")
        if not number.isdigit() or not path:
            continue
        if path.rstrip("/") == where.rstrip("/") or path == where:
            total = int(number)
        else:
            entries.append((int(number), path))
    if not entries and total is None:
        last = (result.stderr.strip().splitlines() or [""])[-1]
        return f"I couldn't measure {clean(where)}" + (f" ({clean(last[:200])})." if last
                                                         else ".")
    entries.sort(reverse=True)
    top = entries[: 5 if voice.brief else 10]
    width = max((len(size(n)) for n, _ in top), default=0)
    listed = "\n".join(f"  {size(n):>{width}}  {clean(p)}"
                       + (f"  ({100 * n / total:.0f}%)" if total else "") for n, p in top)
    said = f"{clean(where)} holds {size(total)} on its filesystem" if total is not None \
        else f"Under {clean(where)}"
    said += ("; the biggest directories in it:\n" + listed) if top else \
        ", in files directly in it (no directories below it)."
    denied = sum(1 for line in result.stderr.splitlines() if "Permission denied" in line)
    if denied and not voice.brief:
        said += (f"\n{count(denied, 'directory')} could not be read without root, so the "
                 "sizes may be low.")
    if not voice.brief:
        said += "\nOther filesystems mounted below it are not counted (du -x)."
    return said


def _lsblk(text: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    devices = data.get("blockdevices") if isinstance(data, dict) else None
    return [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []


def _points(device: dict[str, Any]) -> list[str]:
    points = device.get("mountpoints")
    if not isinstance(points, list):  # older lsblk: one "mountpoint"
        points = [device.get("mountpoint")]
    return [clean(str(p)) for p in points if p]


def _describe(device: dict[str, Any], depth: int) -> list[str]:
    name = clean(str(device.get("name", "?")))
    kind = str(device.get("type") or "")
    raw = device.get("size")
    bytes_ = int(raw) if isinstance(raw, int) or (isinstance(raw, str) and raw.isdigit()) \
        else None
    words = {"disk": "disk", "part": "partition", "rom": "optical drive", "loop": "loop device",
             "lvm": "LVM volume", "crypt": "encrypted volume"}.get(kind, clean(kind) or "device")
    model = clean(str(device.get("model") or "").strip())
    text = "  " * (depth + 1) + f"{name}: {size(bytes_) if bytes_ is not None else '?'} {words}"
    if model:
        text += f", {model}"
    points = _points(device)
    text += f", mounted on {', '.join(points)}" if points else (
        ", not mounted" if kind in ("part", "lvm", "crypt") or (
            kind == "disk" and not device.get("children")) else "")
    lines = [text]
    for child in device.get("children") or []:
        if isinstance(child, dict):
            lines += _describe(child, depth + 1)
    return lines


def block_devices(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`lsblk -J -b -o NAME,SIZE,TYPE,MODEL,MOUNTPOINTS`: each disk with its partitions."""
    problem = _failed(results[0], "the disks") if results else "I couldn't read the disks."
    if problem:
        return problem
    devices = [d for d in _lsblk(results[0].stdout)
               if not (d.get("type") == "loop" or (d.get("size") in (0, "0")))]
    if not devices:
        return "I found no disks."
    disks = [d for d in devices if d.get("type") == "disk"]
    lines = []
    for device in devices[: 6 if voice.brief else 30]:
        lines += _describe(device, 0)
    others = len(devices) - len(disks)
    head = count(len(disks), "disk") + (f" and {count(others, 'other device')}" if others
                                         else "")
    return head + ":\n" + "\n".join(lines)


def smart(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`smartctl -H /dev/X` (the verdict) or `smartctl --scan` (which disks it can read)."""
    if not results:
        return "I couldn't read the SMART health."
    result = results[0]
    output = result.stdout + "\n" + result.stderr
    if result.exit_code == 127 or "command not found" in output or (
            "No such file or directory" in result.stderr and "smartctl" in result.stderr
            and not result.stdout.strip()):
        return ("smartctl is not installed, so I can't read SMART health. It comes with the "
                "smartmontools package (say \u201cinstall smartmontools\u201d).")
    if "password is required" in output or "a terminal is required" in output:
        return ("Reading SMART health needs root, and sudo asked for a password. Run "
                "`sudo -v` first, or run reos as root.")
    device = params.get("device")
    if device:
        return _verdict(clean(device), output, result)
    found = [line.split()[0] for line in result.stdout.splitlines()
             if line.startswith("/dev/")]
    if not found:
        return "smartctl found no disks it can read SMART data from."
    names = ", ".join(clean(d.removeprefix("/dev/")) for d in found[:12])
    return (f"smartctl can read {count(len(found), 'disk')}: {names}. Name one for its "
            f"health (\u201csmart status of {clean(found[0].removeprefix('/dev/'))}\u201d).")


def _verdict(device: str, output: str, result: StepResult) -> str:
    for line in output.splitlines():
        text = line.strip()
        lowered = text.lower()
        if "overall-health" in lowered or "health status" in lowered:
            verdict = text.split(":", 1)[-1].strip()
            good = verdict.upper() in ("PASSED", "OK")
            said = (f"/dev/{device} passes its SMART self-assessment" if good else
                    f"/dev/{device} FAILS its SMART self-assessment: back up what is on it now")
            return f"{said} (smartctl: \u201c{clean(text)}\u201d)."
    last = (result.stderr.strip() or result.stdout.strip()).splitlines()[-1:] or [""]
    return (f"smartctl gave no health verdict for /dev/{device}"
            + (f" (\u201c{clean(last[0][:200])}\u201d)." if last[0] else "."))


def mount_status(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    """`findmnt -n -o TARGET,SOURCE,FSTYPE,OPTIONS --mountpoint X` (exit 1: not mounted)."""
    where = clean(params.get("target:s1", "") or "That directory")
    if not results:
        return f"I couldn't read whether {where} is mounted."
    lines = [line.split(None, 3) for line in results[0].stdout.splitlines() if line.strip()]
    lines = [parts for parts in lines if len(parts) == 4]
    if not lines:
        if results[0].exit_code == 1:
            return f"{where} is not mounted."
        last = (results[0].stderr.strip().splitlines() or [""])[-1]
        return f"I couldn't read whether {where} is mounted" + (
            f" ({clean(last[:200])})." if last else ".")
    said = []
    for target, source, fstype, options in lines[-3:]:
        mode = "read-only" if "ro" in options.split(",") else "read-write"
        said.append(f"{clean(target)} is mounted from {clean(source)} ({clean(fstype)}), "
                    f"{mode}; options {clean(options)}.")
    if len(lines) > 1:
        said.append("The last one is on top: it is the one programs see.")
    return "\n".join(said)


def _why_not(result: StepResult) -> str:
    text = clean(result.stderr or result.stdout)
    if "password is required" in text or "a terminal is required" in text:
        return "it needs root, and sudo asked for a password"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else f"exit code {result.exit_code}"


_ARRAY = regex(r"^(md\w+)\s*:\s*(active|inactive)(?:\s+\(([^)]*)\))?\s*(\S*)\s*(.*)$")
_HEALTH = regex(r"\[(\d+)/(\d+)\]\s*\[([U_]+)\]")
_PROGRESS = regex(r"(recovery|resync|reshape|check)\s*=\s*([\d.]+%)(?:.*finish=(\S+))?")


def raid(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """/proc/mdstat ("md0 : active raid1 sdb1[1] sda1[0]" then "[2/2] [UU]" and maybe a
    "recovery = 12.6%" line); an array the request named is said alone."""
    if not results:
        return "I couldn't read the RAID state."
    mdstat = results[0]
    if not mdstat.ok:
        if "No such file" in mdstat.stderr:
            return ("There is no software RAID here: the md driver is not loaded "
                    "(/proc/mdstat does not exist).")
        return f"I couldn't read /proc/mdstat ({_why_not(mdstat)})."
    arrays: list[dict[str, Any]] = []
    for line in mdstat.stdout.splitlines():
        if found := _ARRAY.match(line.strip()):
            members = found[5].split()
            arrays.append({"name": found[1], "state": found[2], "level": found[4] or "?",
                           "members": members, "failed": [m for m in members if "(F)" in m]})
        elif arrays and (health := _HEALTH.search(line)):
            arrays[-1]["health"] = health.groups()
        elif arrays and (progress := _PROGRESS.search(line)):
            arrays[-1]["progress"] = progress.groups()
    wanted = params.get("device", "")
    if wanted:
        named = [a for a in arrays if a["name"] == wanted]
        if not named:
            return (f"/proc/mdstat lists no array called {clean(wanted)}"
                    + (f" (it lists {', '.join(clean(a['name']) for a in arrays)})."
                       if arrays else "; there is no software RAID array here."))
        arrays = named
    said = []
    for array in arrays:
        text = f"{clean(array['name'])} ({clean(array['level'])}, {array['state']})"
        health = array.get("health")
        if health:
            wanted_disks, working, marks = int(health[0]), int(health[1]), health[2]
            text += (f": {working} of {wanted_disks} disks working [{marks}]"
                     + (" \u2014 healthy" if working == wanted_disks and "_" not in marks else
                        " \u2014 DEGRADED: replace the missing disk soon"))
        if array["failed"]:
            text += f"; failed: {', '.join(clean(m) for m in array['failed'])}"
        if array.get("progress"):
            kind, done, finish = array["progress"]
            text += f"; {kind} {done} done" + (f", about {finish} to go" if finish else "")
        if not voice.brief:
            text += f"; members {' '.join(clean(m) for m in array['members'])}"
        said.append(f"  {text}")
    if not arrays:
        return "There is no software RAID array on this machine (/proc/mdstat lists none)."
    degraded = [a for a in arrays if a.get("health") and (
        "_" in a["health"][2] or a["health"][0] != a["health"][1])]
    return (f"{count(len(arrays), 'RAID array')}"
            + (f", {len(degraded)} degraded" if degraded else ", all healthy") + ":\n"
            + "\n".join(said))


def _ids(device: dict[str, Any], wanted: str, depth: int, out: list[str]) -> None:
    name = clean(str(device.get("name", "?")))
    if device.get("fstype") and (not wanted or name == wanted):
        text = f"  {name}: {clean(str(device['fstype']))}"
        if device.get("label"):
            text += f", label {clean(str(device['label']))}"
        text += f", UUID {clean(str(device.get('uuid') or 'none'))}"
        points = _points(device)
        text += f", mounted on {', '.join(points)}" if points else ", not mounted"
        out.append(text)
    for child in device.get("children") or []:
        if isinstance(child, dict):
            _ids(child, "" if wanted == name else wanted, depth + 1, out)


def disk_ids(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`lsblk -f -J`: name, fstype, label, uuid, mountpoints of each device."""
    problem = _failed(results[0], "the filesystems") if results else "I couldn't read them."
    if problem:
        return problem
    wanted = clean(params.get("device", ""))
    lines: list[str] = []
    for device in _lsblk(results[0].stdout):
        _ids(device, wanted, 0, lines)
    if not lines:
        return (f"{wanted} holds no filesystem lsblk can name." if wanted
                else "No device holds a filesystem lsblk can name.")
    shown = lines[: 8 if voice.brief else 80]
    return ("The filesystems with their types, labels and UUIDs (fstab takes UUID=\u2026 or "
            "LABEL=\u2026):\n" + "\n".join(shown))


def fstab(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """/etc/fstab: device, mount point, type, options, dump, pass (comments left out)."""
    if not results or not results[0].ok:
        return "I couldn't read /etc/fstab" + (
            f" ({_why_not(results[0])})." if results else ".")
    entries = []
    for line in clean(results[0].stdout).splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 3:
            entries.append(fields)
    if not entries:
        return "/etc/fstab lists nothing: no filesystem is mounted from it at boot."
    lines = []
    for fields in entries[: 10 if voice.brief else 100]:
        device, point, kind = fields[0], fields[1], fields[2]
        options = fields[3] if len(fields) > 3 else "defaults"
        words = {"noauto": "not mounted at boot", "nofail": "boot goes on without it",
                 "ro": "read-only"}
        notes = [w for w in words if w in options.split(",")]
        what = "swap" if kind == "swap" else point
        lines.append(f"  {what} \u2190 {device} ({kind}, {options})"
                     + (f": {', '.join(words[n] for n in notes)}" if notes else ""))
    return (f"/etc/fstab lists {count(len(entries), 'filesystem')} mounted at boot "
            "(mount point \u2190 device):\n" + "\n".join(lines))


def fs_check(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    """`e2fsck -n PATH`: exit 0 clean, 4 errors left uncorrected (-n repairs nothing),
    8 it could not check (not an ext filesystem, no such device)."""
    where = clean(params.get("path", "") or "it")
    short = where.removeprefix("/dev/")
    if not results:
        return f"I couldn't check {where}."
    result = results[0]
    text = clean(result.stdout + "\n" + result.stderr)
    if "password is required" in text or "a terminal is required" in text:
        return (f"Checking {where} needs root, and sudo asked for a password. Run "
                "`sudo -v` first, or run reos as root.")
    if "Bad magic number" in text or "bad magic number" in text or (
            "couldn't find valid filesystem superblock" in text.lower()):
        return (f"{where} does not hold an ext2, ext3 or ext4 filesystem, and e2fsck only "
                "checks those (for others: xfs_repair -n, fsck.vfat -n or fsck.exfat -n, "
                "unmounted, by hand).")
    if "is mounted" in text:
        return (f"{where} is mounted, so this check means nothing: the filesystem changes "
                "while it is read and the errors e2fsck lists need not be real. Unmount it "
                f"first (\u201cunmount {short}\u201d), then ask again.")
    summary = next((line.strip() for line in text.splitlines()
                    if "files" in line and "blocks" in line and ":" in line), "")
    if result.exit_code == 0:
        return (f"The filesystem on {where} is clean: e2fsck found no errors"
                + (f" ({summary})." if summary else ".") + " Nothing was changed.")
    if result.exit_code is not None and result.exit_code & 4:
        found = [line.strip() for line in text.splitlines()
                 if line.strip() and not line.startswith(("Pass ", "e2fsck "))][:8]
        return (f"The filesystem on {where} has errors e2fsck would fix (nothing was changed: "
                "the check only read). A repair runs on the unmounted filesystem "
                f"(`e2fsck -p {where}`), after a backup.\n"
                + "\n".join(f"  {f}" for f in found))
    return f"I couldn't check {where} ({_why_not(result)})."


def dir_size(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`du -s -x -B1 PATH`: the directory's total on its own filesystem."""
    where = clean(params.get("path") or "that directory")
    if not results:
        return f"I couldn't measure {where}."
    result = results[0]
    number = result.stdout.split("\t", 1)[0].strip()
    if not (number.isascii() and number.isdigit()):
        last = (result.stderr.strip().splitlines() or [""])[-1]
        return f"I couldn't measure {where}" + (f" ({clean(last[:200])})." if last else ".")
    said = f"{where} holds {size(int(number))}"
    denied = sum(1 for line in result.stderr.splitlines() if "Permission denied" in line)
    if denied:
        said += (f", not counting {count(denied, 'directory')} I could not read without "
                 "root")
    if voice.brief:
        return said + "."
    return said + " (on its own filesystem; mounts below it are not counted)."


ANSWERS = {"disk_usage": disk_usage, "dir_size": dir_size, "mount_status": mount_status,
           "disk_inodes": disk_inodes,
           "biggest_dirs": biggest_dirs, "block_devices": block_devices, "smart": smart,
           "raid": raid, "disk_ids": disk_ids, "fstab": fstab, "fs_check": fs_check}
# a non-zero exit is part of the answer: du meets unreadable directories, smartctl's exit
# code is a bit mask of findings (and it may not be installed); /proc/mdstat is missing
# without the md driver, e2fsck exits 4 when it finds errors and 8 when the device holds no
# ext filesystem
TOLERANT = {"biggest_dirs", "dir_size", "smart", "mount_status", "raid", "fs_check"}
