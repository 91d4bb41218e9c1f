"""What a path on a command line can point at: normalised, brace-expanded, glob-matched.

A word such as `/tmp/../etc`, `///etc`, `/{etc,usr}` or `/e*c` is judged by the worst
thing it can name on this machine: braces are expanded (bounded), `.`/`..`/repeated `/`
are normalised, and globs are matched against the system paths reos knows and against the
real filesystem (bounded), so a glob that could match `/etc` is judged as `/etc`; a glob
under /dev/ is also matched against the disk names any machine may have (`/dev/sd?`). Words
whose value cannot be known statically (an unset `$VAR`, a `$(…)`) are reported as such.

Not responsible for deciding how dangerous a program is (`rules`) or for shell syntax
beyond braces and globs (`shell`).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import posixpath
import re
import stat

from reos.patterns import regex

# the directories whose loss (or loss of permissions) breaks the machine
SYSTEM_DIRS = frozenset({
    "/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32",
    "/opt", "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var", "/run", "/snap",
    "/usr/bin", "/usr/lib", "/usr/lib64", "/usr/local", "/usr/sbin", "/usr/share",
    "/usr/include", "/usr/libexec", "/var/lib", "/var/log", "/var/cache", "/var/spool",
    "/etc/ssh", "/etc/systemd", "/etc/default", "/etc/apt",
    "/etc/pam.d", "/etc/security", "/etc/sudoers.d", "/usr/local/bin", "/usr/local/sbin",
    "/usr/local/lib", "/boot/efi", "/boot/grub", "/efi", "/var/lib/dpkg", "/var/lib/apt",
    "/var/lib/rpm", "/var/lib/docker", "/var/lib/systemd", "/lib/modules", "/usr/lib/modules",
})
# files a glob could be aimed at even when this machine lacks them
KNOWN_FILES = frozenset({
    "/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow", "/etc/sudoers", "/etc/fstab",
    "/etc/crypttab", "/etc/ld.so.preload", "/etc/ssh/sshd_config", "/bin/sh", "/bin/bash",
    "/usr/bin/sudo", "/usr/bin/su", "/sbin/init", "/boot/grub/grub.cfg", "/etc/pam.d/sudo",
    "/etc/pam.d/common-auth", "/etc/crontab", "/etc/hosts", "/etc/resolv.conf",
})
# disk names a glob under /dev/ could match on some machine, even when this one lacks them
# (`/dev/sd?` names every SCSI disk; a plan written here may run elsewhere)
KNOWN_DEVICES = frozenset({
    *(f"/dev/{kind}{letter}{part}" for kind in ("sd", "hd", "vd", "xvd")
      for letter in "abcdz" for part in ("", "1", "2")),
    *(f"/dev/nvme{n}n1{part}" for n in (0, 1) for part in ("", "p1", "p2")),
    *(f"/dev/nvme{n}" for n in (0, 1)), "/dev/mmcblk0", "/dev/mmcblk0p1", "/dev/md0",
    "/dev/md127", "/dev/dm-0", "/dev/sr0", "/dev/loop0", "/dev/nbd0", "/dev/mapper/root",
})
HOME_WORDS = frozenset({"~", "$HOME", "${HOME}", "~root"})
RELATIVE_ALL = frozenset({".", "..", "*", "./*", "../*", ".*", "./", "../"})
CREDENTIAL_FILES = regex(r"^(?:/etc/(?:sudoers(?:\.d(?:/.*)?)?|passwd-?|shadow-?|"
                              r"gshadow-?|group-?|security/opasswd|pam\.d(?:/.*)?)|"
                              r"/root/\.ssh/authorized_keys2?)$")
# files whose loss or replacement stops the machine from booting or anyone from logging in
VITAL_FILES = regex(r"^/(?:etc/(?:fstab|crypttab|inittab|nsswitch\.conf|login\.defs|"
                         r"ld\.so\.(?:conf|preload|cache)|sudo\.conf)|"
                         r"(?:usr/)?s?bin/(?:sh|bash|dash|sudo|su|login|init|mount|chmod|"
                         r"chown|ls|cp|mv|ln|rm|systemctl|ssh|sshd)|"
                         r"(?:usr/)?lib(?:32|64|x32)?/(?:ld-linux[^/]*|(?:[^/]+/)?libc\.so[^/]*|"
                         r"systemd/systemd)|boot/(?:vmlinuz[^/]*|initrd[^/]*|grub/grub\.cfg)|"
                         r"sbin/init)$")
BLOCK_DEVICE = regex(r"^/dev/(?:sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|"
                          r"nvme\d+(?:n\d+)?(?:p\d+)?|mmcblk\d+(?:p\d+)?|dm-\d+|mapper/[^/]+|"
                          r"md\d+|md/[^/]+|loop\d+|disk/[^/]+/[^/]+|sr\d+|nbd\d+|rbd\d+|"
                          r"zd\d+|ubd[a-z]+\d*|bcache\d+|[a-z0-9_-]+/[a-z0-9_-]+|"
                          r"mem|kmem|port|nvram|sg\d+|st\d+|mtd\d+|mtdblock\d+)$")
GLOB_CHARS = frozenset("*?[")
MAX_BRACE = 256
MAX_GROUPS = 24  # brace groups in one word
MAX_GLOB = 512  # paths one glob may match on the filesystem
GLOB_BUDGET = 256  # filesystem globs per verdict; past it, globs meet only known paths
_budget = [GLOB_BUDGET]


def reset_budget() -> None:
    """A new verdict: the filesystem may be globbed GLOB_BUDGET times again."""
    _budget[0] = GLOB_BUDGET
    _candidates.cache_clear()


def dynamic(word: str) -> bool:
    """Whether the word's value depends on something not known statically (a variable,
    a substitution, or more brace groups than are expanded)."""
    return "$" in word.replace("$HOME", "").replace("${HOME}", "") or "`" in word or (
        word.count("{") > MAX_GROUPS and "," in word)


def normalise(path: str) -> str:
    """`/tmp/../etc` → `/etc`, `///etc/` → `/etc`; relative paths climbing with `..` are
    resolved against the current directory (that is where they would run)."""
    path = path.strip()
    if not path:
        return path
    if path.startswith("~") and len(path) > 1 and path[1] != "/":  # ~alice: her home
        user, _, rest = path[1:].partition("/")
        path = ("/root" if user == "root" else f"/home/{user}") + ("/" + rest if rest else "")
    elif path.startswith("~") or path.startswith(("$HOME", "${HOME}")):
        head, _, tail = path.partition("/")
        return head if not tail.strip("/.") else head + "/" + posixpath.normpath(tail)
    if not path.startswith("/"):
        if ".." not in path.split("/"):
            return path
        try:
            path = os.path.join(os.getcwd(), path)
        except OSError:
            return path
    norm = posixpath.normpath(path)
    return "/" + norm.lstrip("/")


def expand_braces(word: str, limit: int = MAX_BRACE) -> list[str]:
    """Bash brace expansion (`a{b,c}d`, nested), bounded to `limit` results; a word with
    more than MAX_GROUPS groups is left as it is (and judged as unknown)."""
    if word.count("{") > MAX_GROUPS:
        return [word]
    out: list[str] = []
    todo = [word]
    while todo and len(out) < limit:
        current = todo.pop()
        span = _first_brace(current)
        if span is None:
            out.append(current)
            continue
        start, end, options = span
        for option in reversed(options):
            todo.append(current[:start] + option + current[end + 1:])
            if len(todo) > limit * 4:
                break
    return out[:limit] or [word]


def braces_overflow(word: str, limit: int = MAX_BRACE) -> bool:
    """Whether bash would make more than `limit` words of this word's braces (or it has
    more groups than are read): what it expands to is then not known here."""
    if word.count("{") > MAX_GROUPS:
        return "," in word or ".." in word
    total, rest = 1, word
    while rest:
        span = _first_brace(rest)
        if span is None:
            return False
        start, end, options = span
        total *= max(1, len(options))
        if total > limit:
            return True
        rest = rest[:start] + rest[end + 1:]
    return False


_RANGE_MAX = 1024  # items of one {a..b} range that are made


def _range(body: str) -> list[str] | None:
    """`1..5`, `a..e`, `0..20..5`: bash's sequence expression, or None."""
    parts = body.split("..")
    if len(parts) not in (2, 3) or not all(parts):
        return None
    step = 1
    if len(parts) == 3:
        if not parts[2].lstrip("-").isdigit():
            return None
        step = abs(int(parts[2])) or 1
    a, b = parts[0], parts[1]
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        lo, hi = int(a), int(b)
        way = 1 if hi >= lo else -1
        count = abs(hi - lo) // step + 1
        return [str(lo + way * step * k) for k in range(min(count, _RANGE_MAX + 1))]
    if len(a) == 1 and len(b) == 1 and a.isascii() and b.isascii() and a.isalpha() \
            and b.isalpha():
        lo, hi = ord(a), ord(b)
        way = 1 if hi >= lo else -1
        return [chr(c) for c in range(lo, hi + way, way * step)]
    return None


def _first_brace(word: str) -> tuple[int, int, list[str]] | None:
    """The first `{…,…}` group with its comma-separated options, or `{a..b}` range with its
    items (linear scan)."""
    if "{" not in word or ("," not in word and ".." not in word):
        return None
    stack: list[int] = []
    commas: dict[int, list[int]] = {}
    for i, ch in enumerate(word):
        if ch == "{":
            stack.append(i)
            commas[i] = []
        elif ch == "," and stack:
            commas[stack[-1]].append(i)
        elif ch == "}" and stack:
            start = stack.pop()
            if not commas[start] and not stack and (items := _range(word[start + 1:i])):
                return start, i, items
            if commas[start] and not stack:
                cuts = [start, *commas[start], i]
                return start, i, [word[a + 1:b] for a, b in zip(cuts, cuts[1:], strict=False)]
            if commas[start] and stack:
                continue
    return None


def _component_match(name: str, pattern: str) -> bool:
    parts, pats = name.strip("/").split("/"), pattern.strip("/").split("/")
    if len(parts) != len(pats):
        return False
    return all(fnmatch.fnmatchcase(p, q) for p, q in zip(parts, pats, strict=True))


def candidates(word: str) -> tuple[str, ...]:
    """Every concrete path the word can name: normalised, braces expanded, globs matched
    against system paths and the real filesystem (bounded; cached per verdict)."""
    return _candidates(word)


@functools.lru_cache(maxsize=4096)
def _candidates(word: str) -> tuple[str, ...]:
    out: list[str] = []
    for expanded in expand_braces(word):
        path = normalise(expanded)
        if not GLOB_CHARS & set(path) or dynamic(path):
            out.append(path)
            continue
        if path in RELATIVE_ALL:
            out.append(path)
            continue
        if path.startswith("/dev/"):
            out.extend(d for d in KNOWN_DEVICES if _component_match(d, path))
        if path.startswith("/"):
            out.extend(s for s in SYSTEM_DIRS | KNOWN_FILES if _component_match(s, path))
            out.extend(_through_system_dirs(path))
            out.extend(_glob(path))
        out.append(path)
    return tuple(out)


def _through_system_dirs(pattern: str) -> list[str]:
    """`/e?c/sudoers` → `/etc/sudoers`: a glob in the directory part, matched against the
    system directories, with the literal rest appended (the file need not exist here)."""
    parts = pattern.strip("/").split("/")
    last_glob = max((i for i, p in enumerate(parts) if GLOB_CHARS & set(p)), default=-1)
    if last_glob < 0 or last_glob == len(parts) - 1:
        return []
    head = "/" + "/".join(parts[:last_glob + 1])
    tail = "/".join(parts[last_glob + 1:])
    return [f"{s}/{tail}" for s in SYSTEM_DIRS if _component_match(s, head)]


def _glob(pattern: str) -> list[str]:
    import glob
    from itertools import islice

    if _budget[0] <= 0:
        return []
    _budget[0] -= 1
    try:
        return [normalise(p) for p in islice(glob.iglob(pattern), MAX_GLOB)]
    except (OSError, ValueError, RecursionError):
        return []


def is_system_path(path: str) -> bool:
    """Whether deleting (or recursively changing) this path breaks the machine."""
    return any(_system(c) for c in candidates(path))


# whose contents may be cleaned out (the directory itself must stay)
EXPENDABLE = frozenset({"/var/log", "/var/cache", "/var/tmp", "/tmp", "/var/crash"})


def expendable(path: str) -> bool:
    return any(c.rstrip("/") in EXPENDABLE or c.rstrip("/").rsplit("/", 1)[0] in EXPENDABLE
               for c in candidates(path) if c.startswith("/"))


def _system(path: str) -> bool:
    clean = path.rstrip("/") or "/"
    if clean.endswith("/*") and clean[:-2] in EXPENDABLE:
        return False
    if clean in SYSTEM_DIRS or clean in HOME_WORDS or clean in RELATIVE_ALL:
        return True
    if clean.startswith(("~/", "$HOME/", "${HOME}/")) and clean.split("/", 1)[1] in (
            "*", "", ".*", ".[!.]*", ".??*"):
        return True
    if clean.endswith("/*") and (clean[:-2] or "/") in SYSTEM_DIRS | HOME_WORDS:
        return True
    return bool(re.fullmatch(r"/home/[^/]+|/home/[^/]+/\*|/+\*?", clean))


_BOOT_TREES = ("/boot", "/efi", "/sys/firmware/efi/efivars")


def is_boot(path: str) -> bool:
    """/boot, /efi, the firmware's EFI variables and what is in them: without them the
    machine does not start (deleting some EFI variables leaves boards unable to boot)."""
    return any(c.rstrip("/") in _BOOT_TREES or c.startswith(tuple(t + "/" for t in _BOOT_TREES))
               for c in candidates(path))


def is_credential(path: str) -> bool:
    return any(CREDENTIAL_FILES.match(c.rstrip("/")) for c in candidates(path))


# secrets that must never leave the machine: password hashes, private keys, and the
# folders that hold them whole (sending ~/.ssh sends its keys)
_A_HOME = r"(?:/root|/home/[^/]+|~|\$HOME|\$\{HOME\})"  # a home folder, as a word names it
SECRET_FILES = regex(r"^(?:/etc/g?shadow-?|/etc/ssh/ssh_host_[^/]*_key|"
                     r"/etc/ssl/private(?:/.+)?|" + _A_HOME + r"/\.ssh/id_[^/.]+|"
                     + _A_HOME + r"/\.(?:aws/credentials|docker/config\.json|"
                     r"netrc|pgpass|ssh|gnupg(?:/.+)?|aws(?:/.+)?|kube/config|"
                     r"git-credentials|config/gh/hosts\.yml|pypirc|npmrc))$")


def is_secret(path: str) -> bool:
    """Password hashes and private keys (`/etc/shadow`, `~/.ssh/id_ed25519`)."""
    return any(SECRET_FILES.match(c.rstrip("/")) for c in candidates(path))


def is_vital(path: str) -> bool:
    """Credential files and the files without which the machine does not boot or log in."""
    return any(CREDENTIAL_FILES.match(c.rstrip("/")) or VITAL_FILES.match(c.rstrip("/"))
               for c in candidates(path))


def is_device(path: str) -> bool:
    """A disk, partition or raw memory device (by name, or a block device on this machine)."""
    for c in candidates(path):
        if BLOCK_DEVICE.match(c) and c not in ("/dev/null", "/dev/zero"):
            if not c.startswith(("/dev/pts/", "/dev/shm/", "/dev/fd/")):
                return True
        if c.startswith("/dev/"):
            try:
                if stat.S_ISBLK(os.stat(c).st_mode):
                    return True
            except (OSError, ValueError):
                pass
    return False


def is_tmp(path: str) -> bool:
    cs = candidates(path)
    return bool(cs) and all(c.startswith(("/tmp/", "/var/tmp/"))
                            and c.rstrip("/") not in ("/tmp", "/var/tmp") for c in cs)


def under_system(path: str) -> bool:
    """Inside a system directory (a system file), not the directory itself."""
    return any(c.startswith(("/etc/", "/boot/", "/usr/", "/bin/", "/sbin/", "/lib", "/var/lib/",
                             "/root/", "/proc/", "/sys/", "/opt/", "/srv/"))
               for c in candidates(path))


def harmless_sink(path: str) -> bool:
    return path in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty") or path.startswith(
        ("&", "/dev/fd/"))
