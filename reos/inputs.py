"""Limits on what a person (or a script) can hand reos: requests and commands.

A request over MAX_REQUEST bytes or a command over MAX_COMMAND bytes, text with NUL
bytes or that is not valid text gets a clear `UsageError` (exit 2) before any work is
done, so no input can make reos slow or strange. Not responsible for understanding or
judging the text.
"""

from __future__ import annotations

from reos.errors import UsageError

MAX_REQUEST = 4 * 1024  # bytes of UTF-8: far beyond any sentence a person types
MAX_COMMAND = 64 * 1024  # bytes of UTF-8 for `reos check`


def _text(text: str, what: str, limit: int) -> str:
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:  # undecodable bytes from the command line (surrogates)
        raise UsageError(f"The {what} is not valid text (it has bytes that are not UTF-8).",
                         f"Give the {what} as plain UTF-8 text.") from None
    if "\x00" in text:
        raise UsageError(f"The {what} contains a NUL byte, so it is not text.",
                         f"Give the {what} as plain text.")
    if size > limit:
        raise UsageError(f"The {what} is {size:,} bytes; reos takes at most {limit:,}.",
                         f"Shorten the {what}.")
    return text


def check_request(text: str) -> str:
    """The request, unchanged, or a UsageError saying why it cannot be taken."""
    return _text(text, "request", MAX_REQUEST)


def check_command(text: str) -> str:
    """The command for `reos check`, unchanged, or a UsageError saying why not."""
    return _text(text, "command", MAX_COMMAND)
