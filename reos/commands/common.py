"""What every command needs: settings (with their warnings shown) and an engine."""

from __future__ import annotations

from pathlib import Path

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


def make_engine(context: Path | None = None) -> ReasoningEngine:
    settings = load_settings()
    snapshot = SystemSnapshot.load(context) if context else None
    return ReasoningEngine(settings, snapshot=snapshot)
