"""Where reos keeps its files.

`REOS_HOME` relocates every path (tests, separate profiles); otherwise the XDG base
directories are used. This module only computes paths; it creates nothing.
"""

from __future__ import annotations

import os
from pathlib import Path


def _xdg(var: str, default: str) -> Path:
    value = os.environ.get(var)
    return Path(value) if value else Path.home() / default


def config_dir() -> Path:
    home = os.environ.get("REOS_HOME")
    return Path(home) / "config" if home else _xdg("XDG_CONFIG_HOME", ".config") / "reos"


def data_dir() -> Path:
    home = os.environ.get("REOS_HOME")
    return Path(home) / "data" if home else _xdg("XDG_DATA_HOME", ".local/share") / "reos"


def settings_file() -> Path:
    return config_dir() / "settings.toml"


def user_templates_dir() -> Path:
    return config_dir() / "templates"


def database_file() -> Path:
    return data_dir() / "reos.db"


def backups_dir() -> Path:
    return data_dir() / "backups"
