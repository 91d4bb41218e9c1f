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

from reos.patterns import regex

# $NAME, $1, $@, or ${NAME[subscript]OPERATION} (the operation is read by `_operate`)
_VAR = regex(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]{0,63}|[0-9]{1,3}|[@*])(\[[^\]]{0,32}\])?"
                  r"([^}]{0,256})\}|"
                  r"([A-Za-z_][A-Za-z0-9_]*|[0-9@*]))")
# variables whose value is known well enough to judge a path (`rm -rf /home/$USER`)
_KNOWN_ENOUGH = {"USER": "user", "LOGNAME": "user", "PWD": ".", "OLDPWD": "..",
                 "TMPDIR": "/tmp"}
MAX_VALUE = 4096  # characters of a substituted value; longer ones stay unknown
TOO_BIG = "$__TOO_BIG__"  # what stands for a value too long to be worked out
_ANSI_C = regex(r"\$'((?:[^'\\]|\\.){0,4096})'")


# -- expansion -----------------------------------------------------------------------------

_EXPANDS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789{(@*#?$!-")


def substitutions(text: str, limit: int = 8) -> list[str]:
    """The commands of the `$(…)` and backquotes written in a text (balanced, bounded)."""
    found: list[str] = []
    i, n = 0, len(text)
    while i < n and len(found) < limit:
        if text.startswith("$(", i) and not text.startswith("$((", i):
            depth, j = 1, i + 2
            while j < n and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            found.append(text[i + 2:j - 1] if not depth else text[i + 2:])
            i = j
        elif text[i] == "`":
            end = text.find("`", i + 1)
            found.append(text[i + 1:end] if end > 0 else text[i + 1:])
            i = n if end < 0 else end + 1
        else:
            i += 1
    return [f for f in found if f.strip() and "$__UNKNOWN__" not in f]


_NAME = regex(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def hidden_code(raw: str, env: dict[str, str]) -> list[str]:
    """Commands bash runs that a parser does not show as commands: a `$(…)` inside a
    parameter expansion's operator (`${x:-$(cmd)}`), the values arithmetic evaluates
    (`$((x))`, `((x))` with `x='a[$(cmd)]'`: bash expands the subscript and runs it), and
    the values bash expands once more: as a prompt (`${x@P}` with `x='$(cmd)'`) or as the
    name of another variable (`${!x}` with `x='a[$(cmd)]'`)."""
    raw = _unquoted(raw)
    found: list[str] = []
    at = raw.find("${")
    while at >= 0 and len(found) < 8:
        end = _closing_brace(raw, at + 2)
        found += substitutions(raw[at + 2:end])
        found += _expanded_again(raw[at + 2:end - 1], env)
        at = raw.find("${", end)
    if "((" in raw:
        for name in _NAME.findall(raw)[:64]:
            value = env.get(name)
            if value and ("$(" in value or "`" in value):
                found += substitutions(value) or [value]
    return found[:8]


def _expanded_again(inner: str, env: dict[str, str]) -> list[str]:
    """The commands in a known value that `${!NAME}` or `${NAME@P}` (`inner`, between the
    braces) expands again."""
    if not (inner.startswith("!") or inner.endswith("@P")):
        return []
    name = _NAME.match(inner.lstrip("!"))
    value = env.get(name.group(0), "") if name else ""
    return substitutions(value) if "$(" in value or "`" in value else []


def _unquoted(raw: str) -> str:
    """The raw word with its single-quoted parts blanked out (bash takes them literally)."""
    out: list[str] = []
    single = double = False
    for ch in raw:
        if ch == "'" and not double:
            single = not single
            out.append(" ")
            continue
        if ch == '"' and not single:
            double = not double
        out.append(" " if single else ch)
    return "".join(out)


def _closing_brace(text: str, i: int) -> int:
    depth, n = 1, len(text)
    while i < n and depth:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return i


def one_word(raw: str) -> bool | None:
    """For a word wholly inside double quotes (`"$c"`, `"/etc/$x"`), which expands to one
    word: whether it begins with a literal other than `-`. None for any other word (it
    may split, or begin with anything). Inner quotes are not followed: such a word is
    taken as one that may split."""
    if len(raw) < 2 or raw[0] != '"' or raw[-1] != '"' or '"' in raw[1:-1]:
        return None
    return raw[1] not in "$`-\\"


def live_expansion(raw: str) -> bool:
    """Whether a raw word holds a `$…` or a backquote the shell expands (outside single
    quotes): its value is then known only when it runs, unless it was substituted."""
    i, single, double, n = 0, False, False, len(raw)
    while i < n:
        ch = raw[i]
        if ch == "\\" and not single:
            i += 2
            continue
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif not single and (ch == "`" or (ch == "$" and i + 1 < n and raw[i + 1] in
                                            _EXPANDS)):
            return True
        i += 1
    return False


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


def decode_ansi(body: str) -> str:
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
                out.append(shlex.quote(decode_ansi(m.group(1))))
                i = m.end()
                continue
        elif ch == "$" and not single and not double and raw.startswith('$"', i):
            i += 1  # $"…": translated by the locale, where no translation exists it is "…"
            continue
        elif ch == "$" and not single:
            m = _VAR.match(raw, i)
            if m:
                out.append(_variable(m, env, double))
                i = m.end()
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def _variable(m: re.Match[str], env: dict[str, str], double: bool) -> str:
    """One `$NAME`/`${NAME…}` as text for shlex: its value when known, else itself."""
    name = m.group(1) or m.group(4)
    subscript, operation = m.group(2) or "", m.group(3) or ""
    if name == "IFS":
        return " "  # an unquoted ${IFS} splits words
    if name == "HOME":  # ${HOME:?}, ${HOME:-…}: still the home directory
        return "$HOME"
    if name in env:
        value: str | None = env[name]
    elif name in _KNOWN_ENOUGH:
        value = _KNOWN_ENOUGH[name]
    else:
        value = None
    value = _operate(value, operation)
    if value is None:
        return m.group(0)
    if len(value) > MAX_VALUE or TOO_BIG in value:  # a=$a$a …: bounded work, and said so
        return TOO_BIG
    if not double and env.get("IFS"):  # IFS=, makes commas split words
        value = "".join(" " if c in env["IFS"] else c for c in value)
    if double and (name == "@" or subscript in ("[@]", "[*]") and name != "*"):
        return '"' + _literal(value, False) + '"'  # "$@", "${a[@]}": one word per item
    return _literal(value, double)


def _operate(value: str | None, op: str) -> str | None:
    """bash's ${NAME<op>}: defaults, prefix/suffix removal, replacement, substrings, case."""
    if not op:
        return value
    for marker in (":-", ":=", "-", "="):
        if op.startswith(marker):
            default = op[len(marker):]
            if value is None or (marker.startswith(":") and value == ""):
                return default
            return value
    if op.startswith((":?", "?")):
        return value
    if op.startswith((":+", "+")):
        return op.lstrip(":+") if value else ""
    if value is None:
        return None
    if op.startswith(("##", "#", "%%", "%")):
        longest = op[:2] in ("##", "%%")
        pattern = op[2:] if longest else op[1:]
        return _remove(value, pattern, prefix=op[0] == "#", longest=longest)
    if op.startswith("/"):
        every = op.startswith("//")
        body = op[2:] if every else op[1:]
        pattern, _, replacement = body.partition("/")
        if pattern.startswith(("#", "%")) or set("*?[") & set(pattern):
            return None  # anchored or glob replacement: not worth guessing
        return value.replace(pattern, replacement) if every else value.replace(pattern,
                                                                              replacement, 1)
    if op.startswith(":") and op[1:2] not in "-=?+":
        parts = op[1:].split(":")
        try:
            start = int(parts[0].strip() or 0)
            length = int(parts[1]) if len(parts) > 1 else None
        except ValueError:
            return None
        chunk = value[start:]
        return chunk if length is None else chunk[:length] if length >= 0 else chunk[:length]
    if op in ("^^", "^"):
        return value.upper() if op == "^^" else value[:1].upper() + value[1:]
    if op in (",,", ","):
        return value.lower() if op == ",," else value[:1].lower() + value[1:]
    return None


def _remove(value: str, pattern: str, *, prefix: bool, longest: bool) -> str:
    """${v#pat} ${v##pat} ${v%pat} ${v%%pat} with a glob pattern (bounded tries)."""
    import fnmatch

    if len(value) > 1024:  # bounded: long values are not worth the tries
        return value
    cuts = range(len(value) + 1)
    order = list(reversed(cuts)) if longest == prefix else list(cuts)
    for cut in order[:4096]:
        part = value[:cut] if prefix else value[cut:]
        if fnmatch.fnmatchcase(part, pattern):
            return value[cut:] if prefix else value[:cut]
    return value


def _literal(value: str, double: bool) -> str:
    """A variable's value as literal text for shlex: its quotes are data, not syntax
    (unquoted it is still split on whitespace, as bash splits it)."""
    if double:
        return value.replace("\\", "\\\\").replace('"', '\\"')
    return "".join("\\" + c if c in "\\'\"" else c for c in value)


_CONVERSION = regex(r"%[-+ #0-9.]*[sbdiqxXouc]")


def printf_output(fmt: str, args: list[str]) -> str:
    """printf's output: the format is reused until the arguments run out."""
    fmt = decode_ansi(fmt.replace("%%", "\ue000"))  # not NUL: `\0` decodes to NUL
    count = len(_CONVERSION.findall(fmt))
    chunks: list[str] = []
    groups = [args[i:i + count] for i in range(0, len(args), count)] if count else [[]]
    for group in groups[:1024] or [[]]:
        values = iter(group)

        def fill(m: re.Match[str], values: Iterator[str] = values) -> str:
            value = next(values, "")
            return decode_ansi(value) if m.group(0).endswith("b") else value

        chunks.append(_CONVERSION.sub(fill, fmt))
    return "".join(chunks).replace("\ue000", "%")
