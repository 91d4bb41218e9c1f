"""What every command needs: settings and an engine, with their problems shown.

Settings warnings, and problems with the user's template files (each skipped file, with
its line and key), go to stderr before anything else happens. Not responsible for
reading or checking those files (settings, templates and snapshot modules do that).
"""

from __future__ import annotations

from pathlib import Path

from reos import paths
from reos import settings as settings_module
from reos.commands.output import warn
from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot


def load_settings() -> Settings:
    settings = settings_module.load()
    for text in settings.warnings:
        warn(text)
    return settings


def _has_user_templates() -> bool:
    try:
        return any(paths.user_templates_dir().glob("*.toml"))
    except OSError:
        return False


def make_engine(context: Path | None = None) -> ReasoningEngine:
    settings = load_settings()
    snapshot = SystemSnapshot.load(context) if context else None
    engine = ReasoningEngine(settings, snapshot=snapshot)
    # Only the user's files can be broken (the test suite checks the built-in ones), so
    # without any, commands that never plan (undo, history) do not load templates at all.
    if _has_user_templates():
        for problem in engine.templates.problems:
            warn(problem)
    return engine
