"""reos: operate a Linux machine in plain language, with plans you approve and changes you can undo.

This package root only carries the version; it imports nothing so that every entry point
(`reos plan`, `reos undo`, the TUI) pays only for what it uses.
"""

__version__ = "0.1.0"
