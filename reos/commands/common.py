"""What every command needs: settings and an engine, with their problems shown.

Settings warnings, and problems with the user's template files (each skipped file, with
its line and key), go to stderr before anything else happens. Not responsible for
reading or checking those files (settings, templates and snapshot modules do that), or
for building the engine (`reos.startup.open_engine`).
"""

from __future__ import annotations

from pathlib import Path

from reos import settings as settings_module
from reos.commands.output import warn
from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.startup import open_engine


def load_settings() -> Settings:
    settings = settings_module.load()
    for text in settings.warnings:
        warn(text)
    return settings


def make_engine(context: Path | None = None) -> ReasoningEngine:
    return open_engine(context, warn)
