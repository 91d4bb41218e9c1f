"""reos: operate a Linux machine in plain language, with plans you approve and changes you can undo.

This package root carries the version and loads msgspec, which every entry point needs
for its records, without typing_extensions: msgspec prefers that module's
`get_type_hints` when it is installed (textual brings it), and importing it pulls in
`inspect`, `ast` and `tokenize`, about a tenth of `reos plan`'s start. On Python 3.11 and
later the `typing` module has all msgspec asks of it for reos's records. If
typing_extensions or msgspec is already loaded (the TUI, a test run), nothing changes.
Nothing else is imported here, so each entry point pays only for what it uses.
"""

import sys

__version__ = "0.1.0"


def _load_msgspec() -> None:
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # an ImportError
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]


_load_msgspec()
