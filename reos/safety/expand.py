"""Word expansion as a shell does it, as far as it can be known before anything runs.

`expand_word(raw, env)` turns one raw word into the words bash would make of it: literal
assignments made earlier are substituted, `${IFS}` (and an assigned IFS) splits words,
`$'\\x72m'` and printf formats are decoded, braces are expanded, quotes removed. What
stays unknown keeps its `$` so the judge sees it. One pass per word, no backtracking
regular expressions. Not responsible for parsing command lines or judging words.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])(?:(:?[-=+?])([^}]*))?\}|"
                  r"([A-Za-z_][A-Za-z0-9_]*|[0-9@*]))")
# variables whose value is known well enough to judge a path (`rm -rf /home/$USER`)
_KNOWN_ENOUGH = {"USER": "user", "LOGNAME": "user", "PWD": ".", "OLDPWD": "..",
                 "TMPDIR": "/tmp"}
_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'")


# -- expansion -----------------------------------------------------------------------------

def expand_word(raw: str, env: dict[str, str], fallback: str = "") -> list[str]:
    """One raw word → the words a shell would make of it (as far as statically known)."""
    from reos.safety.paths import expand_braces

    if "$" in raw:
        raw = _substitute_vars(raw, env)
    pieces = expand_braces(raw) if "{" in raw and not set("'\"") & set(raw) else [raw]
    out: list[str] = []
    for piece in pieces:
        try:
            out.extend(shlex.split(piece, posix=True))
        except ValueError:
            out.append(fallback or piece)
    return out


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
            "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _decode_ansi(body: str) -> str:
    """Backslash escapes as bash's $'…' and printf's format decode them (one pass)."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            digits = ""
            j = i + 2
            while j < n and len(digits) < width and body[j] in "0123456789abcdefABCDEF":
                digits += body[j]
                j += 1
            out.append(chr(int(digits, 16)) if digits and int(digits, 16) < 0x110000
                       else body[i:j])
            i = j
        elif nxt in "01234567":
            j = i + 1
            digits = ""
            while j < n and len(digits) < 3 and body[j] in "01234567":
                digits += body[j]
                j += 1
            out.append(chr(int(digits, 8)))
            i = j
        else:
            out.append(body[i:i + 2])
            i += 2
    return "".join(out)


def _substitute_vars(raw: str, env: dict[str, str]) -> str:
    """`$NAME`/`${NAME}` → the literal value assigned earlier; not inside single quotes."""
    out: list[str] = []
    i, single, double, n = 0, False, False, len(raw)
    while i < n:
        ch = raw[i]
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif ch == "\\" and not single and i + 1 < n:
            # shlex keeps the backslash of \$ and \` inside double quotes; bash does not
            out.append(raw[i + 1] if double and raw[i + 1] in "$`" else raw[i:i + 2])
            i += 2
            continue
        elif ch == "$" and not single and not double and raw.startswith("$'", i):
            m = _ANSI_C.match(raw, i)  # $'\x72m': bash decodes the escapes
            if m:
                out.append(shlex.quote(_decode_ansi(m.group(1))))
                i = m.end()
                continue
        elif ch == "$" and not single:
            m = _VAR.match(raw, i)
            if m:
                name = m.group(1) or m.group(4)
                op, default = m.group(2), m.group(3)
                if name == "IFS":
                    out.append(" ")  # an unquoted ${IFS} splits words
                elif name == "HOME":  # ${HOME:?}, ${HOME:-…}: still the home directory
                    out.append("$HOME")
                elif name in _KNOWN_ENOUGH and name not in env:
                    out.append(_KNOWN_ENOUGH[name])
                elif name in env:
                    value = env[name]
                    if not double and env.get("IFS"):  # IFS=, makes commas split words
                        value = "".join(" " if c in env["IFS"] else c for c in value)
                    out.append(_literal(value, double))
                elif op in (":-", "-", ":=", "=") and default is not None:
                    out.append(_literal(default, double))
                else:
                    out.append(m.group(0))
                i = m.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _literal(value: str, double: bool) -> str:
    """A variable's value as literal text for shlex: its quotes are data, not syntax
    (unquoted it is still split on whitespace, as bash splits it)."""
    if double:
        return value.replace("\\", "\\\\").replace('"', '\\"')
    return "".join("\\" + c if c in "\\'\"" else c for c in value)


_CONVERSION = re.compile(r"%[-+ #0-9.]*[sbdiqxXouc]")


def _printf(fmt: str, args: list[str]) -> str:
    """printf's output: the format is reused until the arguments run out."""
    fmt = _decode_ansi(fmt.replace("%%", "\x00"))
    count = len(_CONVERSION.findall(fmt))
    chunks: list[str] = []
    groups = [args[i:i + count] for i in range(0, len(args), count)] if count else [[]]
    for group in groups[:1024] or [[]]:
        values = iter(group)

        def fill(m: re.Match[str], values: Iterator[str] = values) -> str:
            value = next(values, "")
            return _decode_ansi(value) if m.group(0).endswith("b") else value

        chunks.append(_CONVERSION.sub(fill, fmt))
    return "".join(chunks).replace("\x00", "%")
