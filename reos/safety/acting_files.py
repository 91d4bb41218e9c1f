"""Which files act when they are opened: devices whose opening does something (a
watchdog reboots the machine, a tape rewinds), /proc and /sys files whose reading takes
messages from others or never ends (/proc/kmsg, trace_pipe), a process's doors into its
files (/proc/PID/fd), raw PCI registers, and the trees that hold them. A word is looked
at everywhere a program may take a path inside it (`if=`, `file:`, `@FILE`), through
symbolic links and as a pattern (`/dev/w*`).

Disks, partitions and the plain data devices (`/dev/null`, `/dev/zero`, `/dev/urandom`,
`/dev/stdin`…) are harmless to read. Not responsible for options or operand lists
(`grammar_checks`).
"""

from __future__ import annotations

import posixpath

from reos.patterns import regex

__all__ = ["device", "special_tree"]

_DATA_DEVICES = {"null", "zero", "full", "random", "urandom", "stdin", "stdout", "stderr",
                 "kmsg"}
_DISK = regex(r"(?:[shv]d[a-z]{1,3}|xvd[a-z]{1,3}|nvme\d{1,3}n\d{1,3}|mmcblk\d{1,3}|"
                   r"md\d{1,4}|dm-\d{1,5}|loop\d{1,5}|nbd\d{1,4}|zram\d{1,3}|"
                   r"sg\d{1,3}|nvme\d{1,3})(?:p?\d{1,4})?")
_DEVICE_FOLDERS = ("mapper/", "disk/by-id/", "disk/by-uuid/", "disk/by-label/",
                   "disk/by-path/", "disk/by-partuuid/", "disk/by-partlabel/",
                   "disk/by-diskseq/", "fd/")
# devices whose opening acts, for judging a pattern (`/dev/w*`): what it must not match
_ACTING_DEVICES = ("watchdog", "watchdog0", "st0", "nst0", "ht0", "nht0", "tty", "tty0",
                   "ttyS0", "console", "mem", "kmem", "port", "kvm", "fuse", "rfkill",
                   "uinput", "vhost-net", "snd/controlC0", "video0", "input/event0",
                   "mcelog", "cpu/0/msr", "i2c-0", "hidraw0", "sg0")


def _device_name(word: str) -> str | None:
    """What follows /dev/ when `word` names something in /dev (or may, climbing out of
    an unknown folder with `..`); None when it does not."""
    text = word.partition("=")[2] if "=" in word and not word.startswith("/") else word
    if "/dev" not in text and not text.startswith(("dev/", "../")):
        return None
    path = posixpath.normpath(text) if text else text
    parts = [p for p in path.split("/") if p]
    if "dev" not in parts:
        return None
    at = parts.index("dev")
    before = parts[:at]
    if path.startswith("/") and before:
        return None  # /home/me/dev/x: an ordinary folder
    if not path.startswith("/") and any(p != ".." for p in before):
        return None  # proj/dev/x
    return "/".join(parts[at + 1:])


# files whose reading takes what it reads away from others (the kernel log that syslog
# reads, a trace buffer), by their last part (any /proc or /sys path ending so)
_CONSUMED = ("kmsg", "trace_pipe", "trace_pipe_raw", "tracing/trace_pipe", "uevent_seqnum")


def device(word: str) -> str | None:
    """Why reading `word` may act on a device, or None. Every place in the word that a
    program may take as a path is looked at: the word itself, what follows `@` (a response
    file), `=`, `:` or `,` (`if=/dev/x`, `file:/dev/x`, `a,/dev/x`)."""
    if "\0" in word:
        return f"`{word}` holds a NUL byte"
    why = _one_device(word)
    if why is None:
        for at in _PATH_STARTS.finditer(word):
            why = _one_device(word[at.end():])
            if why is not None:
                break
    return why


# where a path may start inside a word: after these marks, or a quote
_PATH_STARTS = regex(r"[@=:,'\"]+(?=[/.]|dev/)")
# files of a process that are doors into it or its files: a process's root or working
# folder, its open files, its mapped files (the devices it holds open among them)
_PROCESS_DOORS = regex(r"/proc/(?:\d+|self|thread-self)(?:/task/\d+)?/"
                            r"(?:root|cwd|fd|map_files)(?:/|$)")
# PCI configuration and memory: reading some registers acts on the device
_PCI_RAW = regex(r"/sys/(?:bus/pci/devices|devices/pci[^/]*(?:/[^/]+)*)/[^/]+/"
                      r"(?:config|resource\d*(?:_wc)?|rom)$")


# what a /proc or /sys pattern must not match (`/proc/*/fd/0`)
_ACTING_SAMPLES = ("/proc/kmsg", *(f"/proc/{p}/{door}{rest}" for p in ("1", "self")
                                   for door in ("root", "cwd", "fd", "map_files")
                                   for rest in ("", "/0", "/dev/watchdog")),
                   "/proc/1/task/1/fd/0", "/sys/kernel/tracing/trace_pipe",
                   "/sys/bus/pci/devices/0000:00:00.0/config",
                   "/sys/bus/pci/devices/0000:00:00.0/resource0")


def _one_device(word: str) -> str | None:
    if word.startswith(("/proc/", "/sys/")):
        if word.rstrip("/").endswith(_CONSUMED):
            return f"reading `{word}` takes the messages away from the ones that wait for them"
        if _PROCESS_DOORS.match(posixpath.normpath(word) + ("/" if word.endswith("/") else "")):
            return (f"`{word}` reaches into another process's files, where it may open a "
                    "device")
        if _PCI_RAW.match(posixpath.normpath(word)):
            return f"`{word}` is a device's raw registers; reading some of them acts"
    if set("*?[") & set(word) and word.startswith(("/proc/", "/sys/")):
        import fnmatch

        if any(fnmatch.fnmatchcase(sample, word) for sample in _ACTING_SAMPLES):
            return f"`{word}` may match a file whose reading acts"
    name = _device_name(word)
    if name is None:
        name = _linked_device(word)
        if name is None:
            return None
    if set("*?[") & set(name):  # /dev/sd?: whatever it can match must be harmless
        import fnmatch

        if not any(fnmatch.fnmatchcase(d, name) for d in _ACTING_DEVICES):
            return None
    elif name == "" or name in _DATA_DEVICES or _DISK.fullmatch(name) or (
            name.startswith(_DEVICE_FOLDERS) and "/" not in name.split("/", 2)[-1]
            and ".." not in name):
        return None
    return f"`{word}` is a device file, and opening some devices acts (a watchdog, a tape)"


def _linked_device(word: str) -> str | None:
    """A path that is a symbolic link into /dev; a word is looked up only when something
    of that name exists (a link `wd` in the working folder names /dev/watchdog)."""
    if not word or "\0" in word or len(word) > 4096:
        return None
    import os

    try:
        if "/" not in word and not os.path.islink(word):
            return None
        real = os.path.realpath(word)
    except (OSError, ValueError):
        return None
    if real.startswith("/dev/"):
        return real[5:]
    return None


_SPECIAL_TREES = ("/dev", "/proc", "/sys")


def special_tree(folder: str) -> bool:
    """Whether every file below `folder` includes /proc's, /sys's or /dev's files."""
    import os

    try:
        real = os.path.realpath(folder)
    except (OSError, ValueError):
        return True
    return real == "/" or real in _SPECIAL_TREES or \
        real.startswith(tuple(t + "/" for t in _SPECIAL_TREES))
