"""Making untrusted text safe to show: no terminal control sequences, no Rich markup.

Container names, labels, logs, command output, model answers, journal rows and errors
quoting a request can all carry bytes that a terminal obeys instead of showing: a title
change (OSC 0), a clipboard write (OSC 52), a hyperlink (OSC 8), erased lines (CSI 2K),
cursor moves, a reset (ESC c), their 8-bit C1 forms (U+009B is CSI), backspaces and
carriage returns that overwrite what was printed, and bidi overrides that reorder it.

`clean()` removes all of those and keeps the printable text, `\\n` and `\\t`. Every
surface calls it at its output boundary (`reos.commands.output`, `reos.tui`), so text
that did not come from reos itself never reaches a terminal raw. `markup()` adds Rich's
markup escaping for the few places that interpret markup; `json_safe()` finishes a JSON
document whose strings json.dumps left with raw C1 or bidi characters.

Not responsible for: deciding what is trusted (callers clean everything they show), or
validating snapshots and requests (reos.system / reos.inputs). Imports only `re`, so it
is cheap on the `reos plan` path; Rich is imported only inside `markup()`.
"""

from __future__ import annotations

from reos.patterns import regex

# Strings opened by OSC, DCS, SOS, PM or APC (7- or 8-bit) run to ST, BEL, or the end of
# the line: a terminal would swallow everything up to its terminator, and dropping the
# payload of an unterminated one (rather than the rest of a log) keeps later lines.
_STRING = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
_CSI = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
_ESC = r"\x1b[ -/]*[0-~]?"  # ESC c, ESC 7, ESC ( B, ESC =, and a lone ESC
_CONTROL = r"[\x00-\x08\x0b-\x1f\x7f-\x9f]"  # C0 but \t \n, DEL, C1 (incl. a bare ESC)
_BIDI = r"[\u202a-\u202e\u2066-\u2069]"

# One pass: the alternatives are tried in order at each position, so a sequence is
# removed whole before its ESC could be removed alone. The last two classes catch every
# remaining control character, so nothing unsafe survives whatever the input.
_UNSAFE = regex("|".join((_STRING, _CSI, _ESC, _CONTROL, _BIDI)))
_ANY_UNSAFE = regex(f"{_CONTROL}|{_BIDI}")  # cheap test for the common, clean case
_JSON_UNSAFE = regex(r"[\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """`text` without control or escape sequences; printable text, \\n and \\t are kept."""
    if _ANY_UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub("", text)


def markup(text: str) -> str:
    """`clean(text)` with Rich markup escaped, for places that interpret `[bold]…`."""
    from rich.markup import escape  # deferred: the plain CLI paths never load Rich

    return escape(clean(text))


def json_safe(document: str) -> str:
    """A JSON document with DEL, C1 and bidi characters written as \\u escapes.

    json.dumps escapes C0 controls but, with ensure_ascii=False, passes U+007F–U+009F and
    bidi overrides through raw. Those characters can only occur inside JSON strings, so
    escaping them keeps the document's meaning exactly.
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
