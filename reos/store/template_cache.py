"""The catalogue's cache: the loaded template set as bytes, while no template file changed.

Reading, parsing and checking the catalogue's TOML costs about 15 ms of every start of
`reos plan`. `TemplateCache` keeps what the catalogue hands it (the loaded set, encoded)
in `~/.local/share/reos/cache/templates.msgpack`, with each file's path, mtime and size
and `VERSION`, and gives it back only for exactly those files at exactly that version.
It is an optimisation only: a missing, unreadable, stale or malformed cache reads as no
cache, a cache that cannot be written (a full disk, a read-only folder) is skipped, and
the file is replaced atomically, so two reos starting at once never read half of one.

Not responsible for what the bytes hold (`reos.catalogue.templates` encodes and decodes
them, and reads the files again when they do not decode), nor for parsing or checking
templates.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from reos import paths

if TYPE_CHECKING:
    from typing import Any

# 3: the loaded set, encoded by the catalogue (2 held each file's TOML). Raise it when
# the envelope changes; the catalogue's records are checked as they are decoded.
VERSION = 3


def stamp(files: list[Path]) -> list[list[Any]]:
    """What identifies this set of files as it is now: path, mtime and size of each."""
    found: list[list[Any]] = []
    for path in files:
        try:
            st = path.stat()
            found.append([str(path), st.st_mtime_ns, st.st_size])
        except OSError:
            found.append([str(path), 0, 0])
    return found


class TemplateCache:
    """The cache file at `path` (by default under reos's data directory, which REOS_HOME
    moves): read while no file changed, rewritten when one did."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path

    @property
    def path(self) -> Path:
        return self._path if self._path is not None else (
            paths.data_dir() / "cache" / "templates.msgpack")

    def read(self, files: list[Path]) -> bytes | None:
        """What was kept for exactly these files at exactly these versions, or None."""
        import msgspec

        try:
            kept = msgspec.msgpack.decode(self.path.read_bytes())
            if (isinstance(kept, list) and len(kept) == 3 and kept[0] == VERSION
                    and kept[1] == stamp(files) and isinstance(kept[2], bytes)):
                return kept[2]
        except Exception:  # unreadable, not MessagePack, a directory: no cache
            pass
        return None

    def write(self, files: list[Path], payload: bytes) -> bool:
        """Keep `payload` for these files; whether it was written (never raises)."""
        import msgspec

        try:
            cache = self.path
            cache.parent.mkdir(parents=True, exist_ok=True)
            data = msgspec.msgpack.encode([VERSION, stamp(files), payload])
            temporary = cache.with_suffix(f".{os.getpid()}.tmp")
            try:
                temporary.write_bytes(data)
                temporary.replace(cache)
            finally:
                temporary.unlink(missing_ok=True)
            if self._path is None:  # the file version 2 kept, now nobody's
                cache.with_name("templates.json").unlink(missing_ok=True)
        except Exception:  # a full disk, a read-only folder: no cache this time
            return False
        return True
