"""The snapshot's facts as targets: users, groups, processes, mounts, devices, interfaces
and timers, each a Target, with what groups several of them (a device's partitions, a
disk's model and size words, a link's kind: "the wireguard tunnel", "the 2 TB WD drive").

The matcher (`matcher.py`) builds its indexes from these. Not responsible for looking
anything up; containers, services and packages are read by the matcher itself.
"""

from __future__ import annotations

import re
from collections import defaultdict

from reos.model.target import Target
from reos.system.snapshot import SystemSnapshot

VENDOR_NOISE = {"ata", "usb", "scsi", "generic", "mass", "storage", "device", "disk"}


def _users(snapshot: SystemSnapshot, _groups: dict[str, list[Target]]) -> list[Target] | None:
    users = getattr(snapshot, "users", None)
    if users is None:
        return None
    return [Target("user", u.name, "locked" if u.locked else "active") for u in users]


def _groups(snapshot: SystemSnapshot, _groups: dict[str, list[Target]]) -> list[Target] | None:
    groups = getattr(snapshot, "groups", None)
    if groups is None:
        return None
    return [Target("group", g.name, "present") for g in groups]


def _processes(snapshot: SystemSnapshot,
               by_program: dict[str, list[Target]]) -> list[Target] | None:
    """A process is named by its pid; its program name ("nginx") names every process of
    that program, as a compose project names its containers."""
    processes = getattr(snapshot, "processes", None)
    if processes is None:
        return None
    targets = []
    for p in processes:
        t = Target("process", str(p.pid), p.name, detail=p.cmdline)
        targets.append(t)
        program = p.name.lower()
        by_program[program].append(t)
        plain = program.rstrip("0123456789.")  # "python" is python3, "php" php8.2
        if plain != program and len(plain) >= 3:
            by_program[plain].append(t)
        for word in _app_words(p.cmdline) - {program, plain}:
            by_program[word].append(t)  # "libreoffice" of /usr/lib/libreoffice/program/…
        for word in _task_words(p.cmdline) - {program, plain}:
            by_program[f"{plain or program}-{word}"].append(t)  # "the cargo build"
            if (plain or program) in _INTERPRETERS:
                for key in _script_words(word):  # "priya's training": her train_seg.py
                    by_program[key].append(t)
        if (plain or program) in _INTERPRETERS and (script := _script_file(p.cmdline)):
            by_program[script].append(t)  # "kill train.py": the script as it is called
    _first_words(targets, by_program)
    return targets


# programs that run a script: the script is what the process is ("python train.py")
_INTERPRETERS = frozenset({"python", "node", "ruby", "perl", "php", "rscript", "julia",
                           "bash", "sh", "zsh", "deno", "bun", "java"})
# a script's words too common to say which process it is
_PLAIN_WORDS = frozenset({"main", "server", "launcher", "script", "scripts", "worker",
                          "runner", "index", "config", "start", "run", "app", "test"})


def _script_words(script: str) -> set[str]:
    """The words a script is called by: its name and each word of it ("train_seg":
    train_seg, train, seg), with the -ing form a person says of a run ("training",
    "finetuning")."""
    pieces = {w for w in re.split(r"[-_]", script) if len(w) >= 5 and w.isalpha()}
    words = ({script} | pieces) - _PLAIN_WORDS
    return words | {(w[:-1] if w.endswith("e") else w) + "ing" for w in words if w.isalpha()}


def _first_words(targets: list[Target], by_program: dict[str, list[Target]]) -> None:
    """A program by the first word of its name, when no other program's name starts
    with that word ("firefox" of firefox-esr, "tracker" of tracker-miner-f; never "gnome"
    for gnome-shell and gnome-session, nor "docker" for docker-proxy beside dockerd)."""
    names = {(t.state or "").lower() for t in targets}
    programs: dict[str, set[str]] = {}
    for name in names:
        first = re.split(r"[-_.]", name, maxsplit=1)[0]
        if len(first) >= 4 and first.isalpha() and first != name:
            programs.setdefault(first, set()).add(name)
    for first, named in programs.items():
        others = {n for n in names if n.startswith(first)} - named
        if len(named) == 1 and not others and first not in by_program:
            by_program[first] = [t for t in targets if (t.state or "").lower() in named]


def _task_words(cmdline: str) -> set[str]:
    """What a program was started to do, said after its name ("the cargo build": `cargo
    build --release`; "the node vite": `node …/.bin/vite`): the first word after the
    program that is no option, as a file's name without its folders and extension."""
    args = (cmdline or "").split()
    for n, arg in enumerate(args[1:3], start=1):
        if arg.startswith("-"):
            continue
        if args[n - 1] == "-m":  # python -m http.server: the module, dots as dashes
            arg = arg.replace(".", "-")
        name = arg.rsplit("/", 1)[-1].split(".", 1)[0].lower()
        return {name} if len(name) >= 3 and re.fullmatch(r"[a-z][a-z0-9_-]*", name) else set()
    return set()


def _script_file(cmdline: str) -> str:
    """The file or module an interpreter runs, as its name is written ("train.py" of
    `python train.py --gpus 0`, "backup.sh" of `bash /opt/backup.sh`, "http.server" of
    `python3 -m http.server 8888`), or ""."""
    args = (cmdline or "").split()
    if len(args) > 2 and args[1] == "-m":
        module = args[2].lower()
        return module if re.fullmatch(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+", module) else ""
    script = next((a for a in args[1:3] if not a.startswith("-")), "")
    name = script.rsplit("/", 1)[-1].lower()
    return name if re.fullmatch(r"[a-z0-9][a-z0-9_-]*\.[a-z]{1,4}", name) else ""


# folders every program lives under: they say nothing about which application it is
_GENERIC_DIRS = frozenset({"usr", "lib", "lib32", "lib64", "libexec", "bin", "sbin", "local",
                           "share", "opt", "program", "programs", "home", "snap", "current",
                           "root", "var", "run", "tmp", "etc", "app", "apps", "node_modules",
                           "resources", "dist", "build", "target", "release", "debug",
                           "toolchains", "stable", "x86_64", "amd64", "jre", "jdk"})


def _app_words(cmdline: str) -> set[str]:
    """The application a program's path names ("libreoffice" of
    /usr/lib/libreoffice/program/soffice.bin, "cargo" of ~/.cargo/bin/cargo): the folders
    of its first word, without the generic ones and without a home folder's owner."""
    first = (cmdline or "").split(" ", 1)[0]
    if not first.startswith("/"):
        return set()
    parts = first.lower().split("/")[1:-1]
    words = set()
    for n, part in enumerate(parts):
        part = part.lstrip(".")
        if n and parts[n - 1] == "home":
            continue  # /home/marek/...: the owner, not the application
        if len(part) >= 4 and part.isascii() and part[0].isalpha() and (
                part not in _GENERIC_DIRS) and re.fullmatch(r"[a-z][a-z0-9_.+-]*", part):
            words.add(part)
    return words


def _mounts(snapshot: SystemSnapshot, by_device: dict[str, list[Target]]) -> list[Target] | None:
    """A mount by its mountpoint; its device and the last word of its path ("backup" for
    /mnt/backup) find it too."""
    mounts = getattr(snapshot, "mounts", None)
    if mounts is None:
        return None
    targets = []
    described = _disk_words(snapshot)
    removable = {d.name for d in getattr(snapshot, "block_devices", None) or [] if d.removable}
    for m in mounts:
        device = m.device.rsplit("/", 1)[-1]
        # a partition of a removable disk is removable too (sdc1 of sdc, mmcblk0p1)
        on_usb = device in removable or _disk_of(device) in removable
        t = Target("mount", m.mountpoint, "mounted",
                   detail=f"{m.device}, removable" if on_usb else m.device)
        targets.append(t)
        by_device[m.device.lower()].append(t)
        name = m.device.rsplit("/", 1)[-1].lower()
        by_device[name].append(t)
        for word in described.get(name, ()):  # "unmount the sandisk": its only mount
            by_device[word].append(t)
        last = m.mountpoint.rstrip("/").rsplit("/", 1)[-1].lower()
        if len(last) >= 3:
            by_device[last].append(t)
    return targets


def _model_words(model: str) -> set[str]:
    """The words a person calls a disk by: its model's words ("sandisk", "ultra") and the
    letters a model number starts with ("wd" of WD20EFRX, the vendor's code)."""
    words = set()
    for word in re.split(r"[\s_-]+", model.lower()):
        if len(word) >= 3:
            words.add(word)
        letters = re.match(r"[a-z]+", word)
        if letters and len(letters.group(0)) >= 2 and letters.group(0) != word:
            words.add(letters.group(0))
    return words


_CAPACITIES = (1, 2, 4, 8, 16, 32, 64, 120, 128, 240, 250, 256, 480, 500, 512, 960)


def _size_words(size: int) -> set[str]:
    """How people say a disk's size: "2tb" for 2.0 TB, "62gb" and the capacity it was sold
    as ("64gb" for 61.5 GB); the request's "2 TB" is joined to "2tb" when it is read."""
    if size <= 0:
        return set()
    gb = size / 10**9
    if gb >= 999:
        tb = size / 10**12
        return {f"{tb:.0f}tb", f"{tb:.1f}tb".replace(".0tb", "tb")}
    sold = next((c for c in _CAPACITIES if c >= gb * 0.95), None)
    return {f"{gb:.0f}gb"} | ({f"{sold}gb"} if sold else set())


def _disk_words(snapshot: SystemSnapshot) -> dict[str, set[str]]:
    """Device name -> the model words that name it. A disk with exactly one partition
    lends its words to that partition (mounting or formatting "the sandisk" means the
    partition on it); a disk with several keeps them, and a question follows."""
    devices = getattr(snapshot, "block_devices", None) or []
    parts: dict[str, list[str]] = defaultdict(list)
    disks = [d for d in devices if d.type == "disk"]
    for d in devices:
        if d.type == "part":
            owner = next((k.name for k in disks if d.name.startswith(k.name)), None)
            if owner:
                parts[owner].append(d.name)
    out: dict[str, set[str]] = {}
    for disk in disks:
        vendor = {w for w in re.split(r"[\s_-]+", (getattr(disk, "vendor", "") or "").lower())
                  if len(w) >= 2 and w.isalpha() and w not in VENDOR_NOISE}  # "wd" too
        words = _model_words(disk.model or "") | vendor | _size_words(disk.size or 0)
        if disk.name.startswith("nvme"):
            words.add("nvme")  # its kind of drive, as people say it ("the nvme")
        if words:
            mine = parts.get(disk.name, [])
            out[mine[0] if len(mine) == 1 else disk.name] = words
    return out


def _size(size: int) -> str:
    for unit, scale in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6)):
        if size >= scale:
            return f"{size / scale:.0f} {unit}"
    return f"{size} bytes"


def _devices(snapshot: SystemSnapshot, by_path: dict[str, list[Target]]) -> list[Target] | None:
    """A block device by name (sdb) or path; its model's words ("sandisk") find the disk and
    its partitions, and the plan says size and model so nobody erases the wrong one."""
    devices = getattr(snapshot, "block_devices", None)
    if devices is None:
        return None
    disks = {d.name: d for d in devices if d.type == "disk"}
    described = _disk_words(snapshot)
    targets = []
    for d in devices:
        disk = d if d.type == "disk" else next(
            (v for k, v in disks.items() if d.name.startswith(k)), d)
        model = (d.model or disk.model or "").strip()
        detail = " ".join(p for p in (_size(d.size) if d.size else "", model,
                                      "removable" if disk.removable else "") if p)
        t = Target("device", d.name, "mounted" if d.mountpoints else "unmounted", detail=detail)
        targets.append(t)
        by_path[d.path.lower()].append(t)
        for word in described.get(d.name, ()):
            by_path[word].append(t)
        for point in d.mountpoints or []:  # "format /home": the partition mounted there
            by_path[point.lower()].append(t)
    return targets


# what people call an interface by its kind; "the wifi" is the machine's only wireless
# interface, or a question
def _interfaces(snapshot: SystemSnapshot,
                by_kind: dict[str, list[Target]]) -> list[Target] | None:
    interfaces = getattr(snapshot, "interfaces", None)
    if interfaces is None:
        return None
    targets = []
    for i in interfaces:
        t = Target("interface", i.name, i.state.lower())
        targets.append(t)
        kind = (i.kind or "").lower() or next(
            (k for prefix, k in _NAMED_KINDS if i.name.startswith(prefix)), "")
        for word in _KIND_WORDS.get(kind, ()):
            by_kind[word].append(t)
    return targets


# the kind of a link, from `ip -d` (the snapshot's `kind`) or else from the kernel's
# naming (en*/eth*: wired, wl*: wireless, wg*: wireguard), and the words people use for it
_NAMED_KINDS = (("en", "ethernet"), ("eth", "ethernet"), ("wl", "wifi"), ("wg", "wireguard"),
                ("br", "bridge"), ("tun", "tun"), ("tap", "tun"))
_KIND_WORDS = {
    "ethernet": ("wired", "ethernet", "lan", "cable"),
    "wifi": ("wireless", "wifi", "wi-fi", "wlan"),
    "wireguard": ("wireguard", "vpn", "wg", "tunnel"),
    "tun": ("vpn", "tunnel", "tun"),
    "bridge": ("bridge",),
    "bond": ("bond", "bonded"),
    "vlan": ("vlan",),
}


def _timers(snapshot: SystemSnapshot, by_unit: dict[str, list[Target]]) -> list[Target] | None:
    timers = getattr(snapshot, "timers", None)
    if timers is None:
        return None
    targets = []
    for tm in timers:
        t = Target("timer", tm.name, "waiting")
        targets.append(t)
        by_unit[tm.unit.lower()].append(t)
    return targets


def _disk_of(partition: str) -> str:
    """The disk a partition's name belongs to: sdc1 -> sdc, nvme0n1p2 -> nvme0n1."""
    if re.fullmatch(r"(?:nvme\d+n\d+|mmcblk\d+)p\d+", partition):
        return partition.rsplit("p", 1)[0]
    return partition.rstrip("0123456789")


FACTS = {"user": _users, "group": _groups, "process": _processes, "mount": _mounts,
          "device": _devices, "interface": _interfaces, "timer": _timers}
