"""The one exception tree every foreseeable problem is reported through.

A `ReosError` carries a message (what happened), a hint (what to do) and the exit code
the CLI uses. Surfaces print it; nothing here prints or formats anything.
"""

from __future__ import annotations

# Exit codes are part of the CLI contract (see man/reos.1).
EXIT_OK = 0
EXIT_FAILED = 1  # a step or an undo failed
EXIT_USAGE = 2  # bad arguments, bad settings file, bad context file
EXIT_BLOCKED = 3  # the safety engine blocked it or reos refused
EXIT_NOTHING = 4  # not understood, no matching target, nothing to undo
EXIT_DECLINED = 5  # the user said no


class ReosError(Exception):
    """A problem the user can understand and act on."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str, hint: str | None = None, *, exit_code: int | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n{self.hint}"


class SettingsError(ReosError):
    """The settings file cannot be used as written."""

    exit_code = EXIT_USAGE


class UsageError(ReosError):
    """The command line or an input file is wrong."""

    exit_code = EXIT_USAGE


class JournalError(ReosError):
    """The journal database cannot be opened or written."""
