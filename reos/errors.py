"""The one exception tree every foreseeable problem is reported through.

A `ReosError` carries a message (what happened), a hint (what to do) and the exit code
the CLI uses. Surfaces print it; nothing here prints anything. `plainly(exc, doing)` is the
one sentence a person sees for any other exception; its raw text goes to the `reos` log
for developers, never to a person.
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """How `reos` exits: part of the CLI contract (man/reos.1, EXIT STATUS).

    An `IntEnum`, so a code is still the plain int `sys.exit` expects.
    """

    OK = 0  # done: answered, planned, run, or allowed (check)
    FAILED = 1  # a step or an undo failed, or the journal could not be used
    USAGE = 2  # bad arguments, bad settings file, bad context file
    BLOCKED = 3  # the safety engine blocked it or reos refused
    NOTHING = 4  # not understood, no matching target, nothing to undo
    DECLINED = 5  # the user said no, or there was no terminal to ask on


# The spelling the commands use.
EXIT_OK = ExitCode.OK
EXIT_FAILED = ExitCode.FAILED
EXIT_USAGE = ExitCode.USAGE
EXIT_BLOCKED = ExitCode.BLOCKED
EXIT_NOTHING = ExitCode.NOTHING
EXIT_DECLINED = ExitCode.DECLINED


class ReosError(Exception):
    """A problem the user can understand and act on."""

    exit_code: ExitCode = ExitCode.FAILED

    def __init__(self, message: str, hint: str | None = None, *,
                 exit_code: ExitCode | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n{self.hint}"


class SettingsError(ReosError):
    """The settings file cannot be used as written."""

    exit_code = ExitCode.USAGE


class UsageError(ReosError):
    """The command line or an input file is wrong."""

    exit_code = ExitCode.USAGE


class JournalError(ReosError):
    """The journal database cannot be opened or written."""


def log_raw(doing: str, exc: BaseException) -> None:
    """Keep a failure's raw text (its exception and traceback) for developers, on the
    `reos` logger at debug level: never shown to people, never Python's last-resort
    handler printing a traceback on stderr."""
    import logging  # deferred: only a failure needs it

    log = logging.getLogger("reos")
    if not log.handlers:
        log.addHandler(logging.NullHandler())
    log.debug("%s failed", doing, exc_info=exc)


def plainly(exc: BaseException, doing: str) -> str:
    """One plain sentence for a failure while `doing` something ("Saving that for next
    time"): a ReosError's own words, else the cause in words and what to do. The
    exception itself (a repr, a library's message) is logged, never said."""
    if isinstance(exc, ReosError):
        return exc.message
    log_raw(doing, exc)
    if isinstance(exc, PermissionError):
        return f"{doing} failed: permission denied."
    if isinstance(exc, OSError):
        return f"{doing} failed: the system refused it; check the file and its folder."
    return (f"{doing} failed because of a problem in reos itself. Try again; if it stays, "
            "run `reos doctor` and report it.")
