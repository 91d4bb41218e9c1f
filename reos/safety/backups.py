"""Backups: copy a file before a step changes it, and put it back byte for byte.

`files_changed(argv)` says which files a command edits in place, overwrites, moves or
deletes (sed -i, tee, cp, mv, install, rm, truncate, dd of=, chmod, chown, ln -f).
`BackupStore` copies each one, with its sha256, mode and owner, under the backups
directory; `restore` writes it back atomically and checks the hash. A file that did not
exist is recorded as absent, so undo removes what the step created.
Not responsible for deciding whether a step may run, or for the journal rows.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from reos.safety.shell import unwrap

MAX_BYTES = 64 * 1024 * 1024  # larger files are not copied; the step is then irreversible


@dataclass
class Backup:
    path: str
    stored: str | None  # where the copy is; None when the file did not exist
    sha256: str | None
    mode: int | None
    uid: int | None
    gid: int | None

    @property
    def existed(self) -> bool:
        return self.stored is not None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


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


class BackupStore:
    def __init__(self, root: Path):
        self.root = Path(root)

    def save(self, path: str, label: str) -> Backup | None:
        """Copy `path` before it changes. None when it cannot be backed up (too big, a dir)."""
        target = Path(path)
        if not target.exists() and not target.is_symlink():
            return Backup(str(target.absolute()), None, None, None, None, None)
        if not target.is_file() or target.stat().st_size > MAX_BYTES:
            return None
        data = target.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        folder = self.root / label
        folder.mkdir(parents=True, exist_ok=True)
        stored = folder / f"{digest[:16]}-{target.name}"
        stored.write_bytes(data)
        os.chmod(stored, 0o600)
        st = target.stat()
        return Backup(str(target.absolute()), str(stored), digest, st.st_mode & 0o7777,
                      st.st_uid, st.st_gid)

    @staticmethod
    def restore(backup: Backup) -> None:
        """Put the file back as it was (or remove it if it did not exist); check the hash."""
        target = Path(backup.path)
        if backup.stored is None:
            if target.exists() or target.is_symlink():
                target.unlink()
            return
        data = Path(backup.stored).read_bytes()
        if hashlib.sha256(data).hexdigest() != backup.sha256:
            raise OSError(f"the backup of {backup.path} is damaged (sha256 mismatch)")
        temporary = target.with_name(f".{target.name}.reos-restore")
        temporary.write_bytes(data)
        if backup.mode is not None:
            os.chmod(temporary, backup.mode)
        if backup.uid is not None and backup.gid is not None and hasattr(os, "chown"):
            try:
                os.chown(temporary, backup.uid, backup.gid)
            except PermissionError:
                pass
        os.replace(temporary, target)
        if hashlib.sha256(target.read_bytes()).hexdigest() != backup.sha256:
            raise OSError(f"{backup.path} does not match its backup after restoring")

    @staticmethod
    def manual_command(backup: Backup) -> str:
        if backup.stored is None:
            return f"rm {backup.path}"
        return f"cp -p {backup.stored} {backup.path}"
