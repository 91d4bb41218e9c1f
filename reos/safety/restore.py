"""Writing a backup back without trusting anything on the way (used by reos.safety.backups).

The folder is reached from / one component at a time with O_NOFOLLOW and must be the
very folder the backup came from (device and inode); what is at the path now must be
what the step could have left there (not a symbolic link, not a file someone else owns);
the content goes to a temporary file created with O_CREAT|O_EXCL|O_NOFOLLOW under an
unguessable name in that folder, gets its owner and mode through the descriptor, is
synced and renamed over the target relative to the folder's descriptor. Anything unsafe
raises `Refused` with the reason in plain words.

Not responsible for making backups, deciding which files a step changes, or the journal.
"""

from __future__ import annotations

import errno
import hashlib
import os
import secrets
import stat
from collections.abc import Callable
from typing import Protocol

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO someone put in place of the file must not hang the backup
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class Refused(OSError):
    """Restoring would be unsafe; the message says why in plain words."""


class BackupRecord(Protocol):
    """What restoring reads of a backup record (`backups.Backup` is the one reos keeps):
    where the file was, its stored copy and hash, its owner and mode, the folder it lived
    in, or the link it was."""

    path: str
    stored: str | None  # None: the file did not exist (or was a link)
    sha256: str | None
    mode: int | None
    uid: int | None
    gid: int | None
    dir: str | None
    dir_ino: int | None
    dir_dev: int | None
    link: str | None


def restore(backup: BackupRecord, *, owner_may_change: bool = False) -> str:
    """Put the file back as it was (or remove it if it did not exist); check the hash.

    Returns what was done, in plain words. Raises `Refused` (an OSError) when doing it
    would be unsafe, and OSError when it failed. `owner_may_change`: the step itself
    could have given the file another owner (see `may_change_owner`).
    """
    folder = backup.dir or os.path.dirname(backup.path)
    name = os.path.basename(backup.path)
    data = None if backup.stored is None else _read_backup(backup)
    dir_fd = open_dir(folder)
    try:
        where = os.fstat(dir_fd)
        if backup.dir_ino is not None and (where.st_ino, where.st_dev) != (
                backup.dir_ino, backup.dir_dev):
            raise Refused(errno.ESTALE, f"the folder {folder} is not the one I backed "
                          f"{backup.path} up from (it was replaced or moved); "
                          "I left it alone")
        if backup.link is not None:
            return _relink(dir_fd, name, backup, owner_may_change)
        if data is None:
            return _remove_created(dir_fd, name, backup, owner_may_change)
        _check_target(_lstat(dir_fd, name), backup, owner_may_change)
        temporary = _write_temporary(dir_fd, name, data, backup)
        _swap_in(dir_fd, temporary, name,
                 lambda: _check_target(_lstat(dir_fd, name), backup, owner_may_change))
        fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
        try:
            written = read_all(fd)
        finally:
            os.close(fd)
    finally:
        os.close(dir_fd)
    if hashlib.sha256(written).hexdigest() != backup.sha256:
        raise OSError(errno.EIO, f"{backup.path} does not match its backup after restoring")
    return f"restored from backup, sha256 {str(backup.sha256)[:12]}\u2026 verified"


def open_dir(path: str) -> int:
    """Open a folder walking from / one component at a time, never through a symlink."""
    fd = os.open("/", DIR_FLAGS)
    walked = ""
    try:
        for part in [p for p in path.split("/") if p]:
            walked += "/" + part
            try:
                child = os.open(part, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    try:
                        link = stat.S_ISLNK(os.lstat(part, dir_fd=fd).st_mode)
                    except OSError:
                        link = False
                    if link:
                        raise Refused(errno.ELOOP, f"{walked} is now a symbolic link; "
                                      "I left it alone") from None
                    raise Refused(errno.ENOTDIR, f"{walked} is not a folder any more; "
                                  "I left it alone") from None
                raise
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return None


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _user(uid: int) -> str:
    try:
        import pwd

        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except (KeyError, ImportError):
        return f"uid {uid}"


def _describe(info: os.stat_result) -> str:
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
             (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))
    return next((word for test, word in kinds if test(info.st_mode)), "not a regular file")


def _read_backup(backup: BackupRecord) -> bytes:
    """The stored copy, only if it is a private regular file reos made, and intact."""
    assert backup.stored is not None
    try:
        fd = os.open(backup.stored, READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(errno.ELOOP, f"the backup copy {backup.stored} is a symbolic link; "
                          f"I left {backup.path} alone") from None
        raise OSError(exc.errno, f"cannot read the backup copy {backup.stored} "
                      f"({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() \
                or info.st_mode & 0o077:
            raise Refused(errno.EPERM, f"the backup copy {backup.stored} is not a private "
                          f"file I made; I left {backup.path} alone")
        data = read_all(fd)
    finally:
        os.close(fd)
    if hashlib.sha256(data).hexdigest() != backup.sha256:
        raise OSError(errno.EIO, f"the backup of {backup.path} is damaged (sha256 mismatch)")
    return data


def _check_target(now: os.stat_result | None, backup: BackupRecord, owner_may_change: bool) -> None:
    """Refuse when what is at the path now is not what the step left there."""
    if now is None:  # the step deleted it: put it back
        return
    if stat.S_ISLNK(now.st_mode):
        raise Refused(errno.ELOOP, f"{backup.path} is now a symbolic link; I left it alone")
    if not stat.S_ISREG(now.st_mode):
        raise Refused(errno.EEXIST, f"{backup.path} is now {_describe(now)}; I left it alone")
    if backup.uid is not None and now.st_uid != backup.uid and not owner_may_change:
        raise Refused(errno.EPERM, f"{backup.path} now belongs to {_user(now.st_uid)}, not "
                      f"{_user(backup.uid)} as when I backed it up; someone may have replaced "
                      "it, so I left it alone")


def _remove_created(dir_fd: int, name: str, backup: BackupRecord, owner_may_change: bool) -> str:
    """Remove what the step created, if it is still what the step could have made."""
    now = _lstat(dir_fd, name)
    if now is None:
        return "the file the step created is already gone"
    if not (stat.S_ISREG(now.st_mode) or stat.S_ISLNK(now.st_mode)):
        raise Refused(errno.EEXIST, f"{backup.path} is now {_describe(now)}, not the file the "
                      "step created; I left it alone")
    if now.st_uid not in (0, os.geteuid()) and not owner_may_change:
        raise Refused(errno.EPERM, f"{backup.path} belongs to {_user(now.st_uid)}, who did "
                      "not create it through me; I left it alone")
    os.unlink(name, dir_fd=dir_fd)  # unlink removes a symbolic link itself, never its target
    os.fsync(dir_fd)
    return "removed the file the step created"


def _relink(dir_fd: int, name: str, backup: BackupRecord, owner_may_change: bool) -> str:
    """Put a symbolic link back (the step replaced it, as `sed -i` does, or re-pointed it)."""
    assert backup.link is not None
    now = _lstat(dir_fd, name)
    if now is not None and stat.S_ISLNK(now.st_mode):
        if now.st_uid != backup.uid and not owner_may_change:
            raise Refused(errno.EPERM, f"{backup.path} is now a symbolic link belonging to "
                          f"{_user(now.st_uid)}; I left it alone")
        if os.readlink(name, dir_fd=dir_fd) == backup.link:
            return "the symbolic link already points where it did"
    elif now is not None:
        _check_target(now, backup, owner_may_change)
    for _attempt in range(16):
        temporary = f".{name[:180]}.reos-{secrets.token_hex(8)}"
        try:
            os.symlink(backup.link, temporary, dir_fd=dir_fd)
        except FileExistsError:
            continue
        break
    else:
        raise OSError(errno.EEXIST, f"cannot create a temporary link next to {backup.path}")
    def own() -> None:
        if backup.uid is not None and backup.gid is not None:
            try:
                os.chown(temporary, backup.uid, backup.gid, dir_fd=dir_fd,
                         follow_symlinks=False)
            except PermissionError:
                pass

    _swap_in(dir_fd, temporary, name, own)
    if os.readlink(name, dir_fd=dir_fd) != backup.link:
        raise OSError(errno.EIO, f"{backup.path} does not point where it did after restoring")
    return f"put the symbolic link back (to {backup.link})"


def _swap_in(dir_fd: int, temporary: str, name: str, before: Callable[[], None]) -> None:
    """Rename the temporary file over `name` (after `before`, which may refuse), or remove
    the temporary file and let the refusal or error through."""
    try:
        before()
        os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except OSError:
            pass
        raise
    os.fsync(dir_fd)


def _write_temporary(dir_fd: int, name: str, data: bytes, backup: BackupRecord) -> str:
    """A new file next to the target, created exclusively under an unguessable name."""
    for _attempt in range(16):
        temporary = f".{name[:180]}.reos-{secrets.token_hex(8)}"
        try:
            fd = os.open(temporary, CREATE_FLAGS, 0o600, dir_fd=dir_fd)
        except FileExistsError:
            continue
        break
    else:
        raise OSError(errno.EEXIST, f"cannot create a temporary file next to {backup.path}")
    try:
        write_all(fd, data)
        if backup.uid is not None and backup.gid is not None:
            try:
                os.fchown(fd, backup.uid, backup.gid)
            except PermissionError:  # not root: the file stays ours, as the step left it
                pass
        if backup.mode is not None:  # after chown, which clears set-id bits
            os.fchmod(fd, backup.mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(temporary, dir_fd=dir_fd)
        raise
    os.close(fd)
    return temporary
