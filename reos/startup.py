"""Starting reos: an engine from the settings file, with the problems of the user's files.

Settings problems, problems with the user's template files (each skipped file, with its
line and key), and a data folder an older reos left readable by other users (made
private here, `store.db.make_private`) go to a `warn` callable: stderr for the commands,
the chat for the TUI. Not responsible for reading or checking those files (settings,
templates and snapshot modules do that) or for showing anything itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reos import paths
from reos.engine import ReasoningEngine
from reos.system.snapshot import SystemSnapshot


def ignore_text(_text: str) -> None:
    """A `warn` that says nothing."""


def open_engine(context: Path | None = None, warn: Callable[[str], None] = ignore_text
                ) -> ReasoningEngine:
    """An engine for this machine (or for the snapshot file `context`), from the settings
    file; its problems, and problems with the user's template files (each skipped file,
    with its line and key), go to `warn` (stderr for commands, the chat for the TUI)."""
    from reos import settings as settings_module
    from reos.store.db import make_private

    settings = settings_module.load()
    for text in settings.warnings:
        warn(text)
    try:  # an older reos left its data readable by other users: say it, once, and fix it
        for text in make_private(paths.data_dir()):
            warn(text)
    except OSError as exc:
        warn(f"Couldn't make {paths.data_dir()} private: {exc.strerror}")
    snapshot = SystemSnapshot.load(context) if context else None
    engine = ReasoningEngine(settings, snapshot=snapshot)
    # Only the user's files can be broken (the test suite checks the built-in ones), so
    # without any, commands that never plan (undo, history) do not load templates at all.
    try:
        has_templates = any(paths.user_templates_dir().glob("*.toml"))
    except OSError:
        has_templates = False
    if has_templates:
        for problem in engine.templates.problems:
            warn(problem)
    return engine
