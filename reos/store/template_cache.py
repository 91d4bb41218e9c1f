"""The catalogue's parse cache: each template file's TOML as JSON, while no file changed.

Parsing the catalogue's TOML costs ~8 ms here and checking it ~5 ms, on every start of
`reos plan`. `TemplateCache` keeps what the last start parsed, and which files passed every
check, in `~/.local/share/reos/cache/templates.json`, keyed by each file's path, mtime and
size and by `VERSION`. It is an optimisation only: a missing, unreadable, stale or
malformed cache reads as no cache, a cache that cannot be written (a full disk, TOML
dates JSON cannot hold) is skipped, and the file is replaced atomically, so two reos
starting at once never read half of one.

Not responsible for parsing or checking templates, nor for what the data means (the
catalogue in `reos.catalogue.templates` does both and hands the data in).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from reos import paths

if TYPE_CHECKING:
    from typing import Any

# 2: checked files' phrases are stored normalised. Raise it whenever what the catalogue
# stores changes shape, so an older cache is never read as the new one.
VERSION = 2


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
            paths.data_dir() / "cache" / "templates.json")

    def read(self, files: list[Path]) -> tuple[dict[str, Any], set[str]] | None:
        """Each file's data and the files that passed every check, as written for exactly
        these files at exactly these versions; None when there is no such cache."""
        import json

        try:
            cached = json.loads(self.path.read_text(encoding="utf-8"))
            if (isinstance(cached, dict) and cached.get("version") == VERSION
                    and cached.get("files") == stamp(files)
                    and isinstance(cached.get("data"), dict)
                    and isinstance(cached.get("checked"), list)):
                return dict(cached["data"]), {str(p) for p in cached["checked"]}
        except Exception:  # unreadable, not JSON, not UTF-8, a directory: no cache
            pass
        return None

    def write(self, files: list[Path], data: dict[str, Any], checked: set[str]) -> bool:
        """Keep `data` for these files; whether it was written (never raises)."""
        import json

        try:
            cache = self.path
            cache.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps({"version": VERSION, "files": stamp(files), "data": data,
                               "checked": sorted(checked)})
            temporary = cache.with_suffix(f".{os.getpid()}.tmp")
            try:
                temporary.write_text(text, encoding="utf-8")
                temporary.replace(cache)
            finally:
                temporary.unlink(missing_ok=True)
        except Exception:  # e.g. TOML dates, which JSON cannot hold: no cache this time
            return False
        return True
