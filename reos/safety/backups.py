"""Backups: copy a file before a step changes it, and put it back byte for byte, safely.

`files_changed(argv)` says which files a command edits in place, overwrites, moves or
deletes (sed -i, tee, cp, mv, install, rm, truncate, dd of=, chmod, chown, ln -f).
`BackupStore` copies each one, with its sha256, mode, owner, inode and the identity of
the folder it lives in, into a private folder (0700, copies 0600); `restore` writes it
back atomically and checks the hash. A file that did not exist is recorded as absent, so
undo removes what the step created; a symbolic link is recorded as the link itself (where
it pointed), never copied through, and undo puts the link back.

Restoring (`reos.safety.restore`) trusts nothing on the way: the folder is reached one
component at a time without following symbolic links and must be the very folder the
backup came from; the new content goes to an exclusively created temporary file with an
unpredictable name, gets its owner and mode on the open descriptor, is synced, and is
renamed over the target. A target that became a symbolic link, or a file now owned by
someone else, is left alone with a plain reason (`Refused`), never written through.

Not responsible for deciding whether a step may run, for the journal rows, or for
judging recorded commands (undo and the gate do that).
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat
from pathlib import Path

from msgspec import Struct
from msgspec.structs import asdict

from reos.safety.restore import (
    CREATE_FLAGS,
    READ_FLAGS,
    Refused,
    open_dir,
    read_all,
    restore,
    write_all,
)
from reos.safety.wrappers import unwrap

__all__ = ["Backup", "BackupStore", "files_changed", "may_change_owner"]

MAX_BYTES = 64 * 1024 * 1024  # larger files are not copied; the step is then irreversible


class Backup(Struct):
    path: str
    stored: str | None  # where the copy is; None when the file did not exist
    sha256: str | None
    mode: int | None
    uid: int | None
    gid: int | None
    ino: int | None = None  # the file as it was when backed up (None: absent or older row)
    dev: int | None = None
    dir: str | None = None  # the folder's real path (no symbolic links) when backed up
    dir_ino: int | None = None
    dir_dev: int | None = None
    link: str | None = None  # it was a symbolic link pointing here (stored is then None)

    @property
    def existed(self) -> bool:
        return self.stored is not None or self.link is not None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, row: dict[str, object]) -> Backup:
        """A Backup from a journal row, checked field by field (the journal is not trusted).

        Raises ValueError saying what is wrong with the row.
        """
        path = row.get("path")
        if not isinstance(path, str) or not _clean_absolute(path) or path == "/":
            raise ValueError(f"its path {path!r} is not a clean absolute file path")
        values: dict[str, object] = {"path": path}
        for name in ("stored", "dir"):
            value = row.get(name)
            if value is not None and (not isinstance(value, str) or not _clean_absolute(value)):
                raise ValueError(f"its {name} {value!r} is not a clean absolute path")
            values[name] = value
        digest = row.get("sha256")
        if values["stored"] is not None and not (
                isinstance(digest, str) and len(digest) == 64
                and all(c in "0123456789abcdef" for c in digest)):
            raise ValueError(f"its sha256 {digest!r} is not a sha256")
        values["sha256"] = digest if values["stored"] is not None else None
        link = row.get("link")
        if link is not None and (not isinstance(link, str) or not link or "\0" in link
                                 or len(link) > 4096 or values["stored"] is not None):
            raise ValueError(f"its link {link!r:.80} is not a symbolic link's target")
        values["link"] = link
        for name in ("mode", "uid", "gid", "ino", "dev", "dir_ino", "dir_dev"):
            value = row.get(name)
            if value is not None and (type(value) is not int or value < 0):
                raise ValueError(f"its {name} {value!r} is not a number")
            values[name] = value
        if isinstance(values["mode"], int) and values["mode"] > 0o7777:
            raise ValueError(f"its mode {values['mode']!r} is not a file mode")
        return cls(**{name: values.get(name) for name in cls.__struct_fields__})  # type: ignore[arg-type]


def _clean_absolute(path: str) -> bool:
    """Absolute, no NUL, no '.', '..' or empty components (they would walk elsewhere)."""
    return path.startswith("/") and "\0" not in path and os.path.normpath(path) == path \
        and not path.startswith("//")


# options that take a value, per program (so the value is not taken for a file)
_VALUED = {
    "sed": {"-e", "--expression", "-f", "--file", "-l", "--line-length"},
    "cp": {"-t", "--target-directory", "-S", "--suffix"},
    "mv": {"-t", "--target-directory", "-S", "--suffix"},
    "install": {"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "-g",
                "--owner", "--group"},
    "ln": {"-t", "--target-directory", "-S", "--suffix"},
    "truncate": {"-s", "--size", "-r", "--reference"},
    "shred": {"-n", "--iterations", "-s", "--size"},
    "chown": {"--reference"}, "chmod": {"--reference"}, "chgrp": {"--reference"},
}


def _operands(argv: list[str]) -> list[str]:
    valued = _VALUED.get(argv[0], set())
    out, skip = [], False
    for arg in argv[1:]:
        if skip:
            skip = False
            continue
        if arg in valued:
            skip = True
            continue
        if not arg.startswith("-"):
            out.append(arg)
    return out


def files_changed(argv: list[str]) -> list[str]:
    real, _escalated = unwrap(argv)
    if not real:
        return []
    program, operands = real[0], _operands(real)
    if program == "sed" and any(a.startswith(("-i", "--in-place")) for a in real):
        has_script_option = any(a in ("-e", "--expression", "-f", "--file") for a in real)
        return operands if has_script_option else operands[1:]
    if program == "tee":
        return operands
    if program in ("cp", "install", "ln") and len(operands) >= 2:
        dest = operands[-1]
        if os.path.isdir(dest):
            return [os.path.join(dest, os.path.basename(s)) for s in operands[:-1]]
        return [dest]
    if program == "mv" and len(operands) >= 2:
        dest = operands[-1]
        moved = [os.path.join(dest, os.path.basename(s)) for s in operands[:-1]] \
            if os.path.isdir(dest) else [dest]
        return [*operands[:-1], *moved]
    if program in ("rm", "truncate", "shred", "unlink"):
        return [o for o in operands if not os.path.isdir(o)]
    if program in ("chmod", "chown", "chgrp") and len(operands) >= 2:
        return operands[1:]
    if program == "dd":
        return [a[3:] for a in real if a.startswith("of=") and not a.startswith("of=/dev/")]
    return []


_OWNER_PROGRAMS = {"chown", "chgrp", "install", "mv", "rsync", "tar"}


def may_change_owner(argv: list[str]) -> bool:
    """Can this command itself leave a file owned by another user (chown, mv, cp -p …)?

    For those, a different owner at undo time is the step's own doing, not a sign that
    someone else replaced the file.
    """
    real, _escalated = unwrap(argv) if isinstance(argv, list) else ([], False)
    if not real:
        return False
    if real[0] in _OWNER_PROGRAMS:
        return True
    if real[0] == "cp":
        return any(a in ("--archive", "--preserve") or a.startswith("--preserve=")
                   or (a.startswith("-") and not a.startswith("--") and set(a[1:]) & {"a", "p"})
                   for a in real[1:])
    return False


def _private_dir(path: Path) -> None:
    """Make `path` (and missing parents) a folder only its owner can enter."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise Refused(errno.ENOTDIR, f"{path} is not a folder (a symbolic link?); "
                      "I won't keep backups there")
    if info.st_uid != os.geteuid():
        raise Refused(errno.EPERM, f"{path} belongs to someone else; "
                      "I won't keep backups there")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700, follow_symlinks=False)


class BackupStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    def save(self, path: str, label: str) -> Backup | None:
        """Copy `path` before it changes. None when it cannot be backed up (too big, not a
        regular file, a symbolic link). Reads without following a symbolic link."""
        given = Path(path).absolute()
        if given.name in ("", ".", ".."):
            return None
        folder = os.path.realpath(given.parent)
        # the path as written when it is clean, else as the kernel resolves it ('..')
        target = given if _clean_absolute(str(given)) else Path(folder) / given.name
        try:
            dir_fd = open_dir(folder)
        except FileNotFoundError:  # the step will create the folder too
            return Backup(str(target), None, None, None, None, None, dir=folder)
        try:
            where = os.fstat(dir_fd)
            absent = Backup(str(target), None, None, None, None, None, dir=folder,
                            dir_ino=where.st_ino, dir_dev=where.st_dev)
            try:
                fd = os.open(target.name, READ_FLAGS, dir_fd=dir_fd)
            except FileNotFoundError:
                return absent
            except OSError as exc:
                if exc.errno == errno.ELOOP:  # a symbolic link: keep the link, not its target
                    info = os.lstat(target.name, dir_fd=dir_fd)
                    return Backup(str(target), None, None, None, info.st_uid, info.st_gid,
                                  ino=info.st_ino, dev=info.st_dev, dir=folder,
                                  dir_ino=where.st_ino, dir_dev=where.st_dev,
                                  link=os.readlink(target.name, dir_fd=dir_fd))
                raise
            try:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
                    return None
                data = read_all(fd)
            finally:
                os.close(fd)
        finally:
            os.close(dir_fd)
        digest = hashlib.sha256(data).hexdigest()
        stored = self._keep(data, digest, target.name, label)
        return Backup(str(target), stored, digest, stat.S_IMODE(info.st_mode), info.st_uid,
                      info.st_gid, ino=info.st_ino, dev=info.st_dev, dir=folder,
                      dir_ino=where.st_ino, dir_dev=where.st_dev)

    def _keep(self, data: bytes, digest: str, name: str, label: str) -> str:
        _private_dir(self.root)
        folder = self.root / label.replace("/", "_")
        _private_dir(folder)
        stored = folder / f"{digest[:16]}-{secrets.token_hex(4)}-{name[:120]}"
        fd = os.open(stored, CREATE_FLAGS, 0o600)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        return str(stored)

    @staticmethod
    def restore(backup: Backup, *, owner_may_change: bool = False) -> str:
        """Put the file back as it was (or remove it if it did not exist); check the hash.

        Returns what was done, in plain words. Raises `Refused` (an OSError) when doing it
        would be unsafe, and OSError when it failed. `owner_may_change`: the step itself
        could have given the file another owner (see `may_change_owner`).
        """
        return restore(backup, owner_may_change=owner_may_change)

    @staticmethod
    def manual_command(backup: Backup) -> str:
        if backup.link is not None:
            return f"ln -sfn {backup.link} {backup.path}"
        if backup.stored is None:
            return f"rm {backup.path}"
        return f"cp -p {backup.stored} {backup.path}"
