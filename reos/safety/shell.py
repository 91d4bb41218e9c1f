"""Reading a shell command line the way a shell would: into simple commands.

Parses with bashlex (a real bash grammar) and walks pipelines, lists, compound commands,
functions, command and process substitutions, here-documents and here-strings. Words
are expanded as far as they can be known statically: literal assignments made earlier
in the same script are substituted (`X=/; rm -rf $X`), `${IFS}` is whitespace, `$'\\x72m'`
is decoded, braces are expanded and quotes removed; a `$(…)` whose output is plain text
(`$(echo /)`) is replaced by that text. What stays unknown keeps its `$` so the judge
sees it. Each simple command says what feeds its stdin (`stdin_source`): literal text,
a download, a file or something unknowable.

What cannot be parsed raises `Unparseable`; callers fail closed. Not responsible for
judging anything, nor for running anything (nothing here executes).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 6
MAX_COMMANDS = 20000  # simple commands in one script; 64 KB holds at most ~16000
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "rbash", "tcsh", "csh",
          "busybox-sh", "yash", "posh"}
DOWNLOADERS = {"curl", "wget", "fetch", "aria2c", "lynx", "links", "w3m", "nc", "ncat",
               "netcat", "socat", "scp", "sftp", "tftp", "ftp", "rsync", "http", "https",
               "xh", "curlie", "s3cmd", "gsutil", "aws"}
# wrapper -> options that take a value; kept for `unwrap` (scope and backups use it)
WRAPPERS: dict[str, set[str]] = {
    "sudo": {"-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D", "-R", "-T"},
    "doas": {"-u", "-C"},
    "env": {"-u", "-C", "-S", "--unset", "--chdir"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p", "-t"},
    "nohup": set(),
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "stdbuf": {"-i", "-o", "-e"},
    "command": set(),
    "exec": {"-a"},
    "time": {"-f", "-o"},
    "xargs": {"-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter",
              "--max-args", "--max-procs", "--max-lines", "--replace"},
    "chroot": set(),
    "setsid": set(),
    "unbuffer": set(),
    "flock": {"-w", "-E", "-c"},
    "watch": {"-n", "-d", "--interval"},
    "runuser": {"-u", "-g", "-l"},
    "busybox": set(),
    "pkexec": {"--user"},
    "run0": {"-u", "--user"},
}
POSITIONAL_FIRST = {"timeout": 1, "chroot": 1, "flock": 1}  # durations, dirs, lock files
_VAR = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*])(?:(:?[-=+?])([^}]*))?\}|"
                  r"([A-Za-z_][A-Za-z0-9_]*|[0-9@*]))")
# variables whose value is known well enough to judge a path (`rm -rf /home/$USER`)
_KNOWN_ENOUGH = {"USER": "user", "LOGNAME": "user", "PWD": ".", "OLDPWD": "..",
                 "TMPDIR": "/tmp"}
_QUOTED_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)\\?([A-Za-z_][A-Za-z0-9_]*)\2")
_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'")


class Unparseable(ValueError):
    """The command line uses syntax that cannot be read reliably."""


@dataclass
class Redirect:
    op: str  # > >> < 2> &> <<< << ...
    target: str


@dataclass
class Source:
    """What a command reads on stdin, or what a `$(…)` yields."""

    text: str | None = None  # the literal text, when it can be known
    network: bool = False  # it comes (directly or after filters) from the network
    what: str = ""  # a short description when the text is unknown


@dataclass
class SimpleCommand:
    argv: list[str]  # expanded words, program first (path kept; the judge strips it)
    redirects: list[Redirect] = field(default_factory=list)
    escalated: bool = False  # reached through sudo/doas/su/runuser
    piped_from: list[str] = field(default_factory=list)  # programs earlier in the pipeline
    via: str = ""  # "sh -c", "$(...)", "<(...)" when nested
    fed_by_download: bool = False  # stdin or a process substitution comes from the network
    piped_args: list[str] = field(default_factory=list)  # words of earlier pipeline commands
    stdin_text: str | None = None  # a here-string or here-document
    upstream: SimpleCommand | None = None  # the command piped into this one
    procsubs: dict[str, list[SimpleCommand]] = field(default_factory=dict)  # word -> inside
    dynamic_network: bool = False  # a word was computed from a download
    env: dict[str, str] = field(default_factory=dict)  # NAME=value prefixes
    background: bool = False
    depth: int = 0

    @property
    def program(self) -> str:
        return self.argv[0].rsplit("/", 1)[-1] if self.argv else ""


@dataclass
class Script:
    commands: list[SimpleCommand] = field(default_factory=list)
    fork_bombs: list[str] = field(default_factory=list)  # self-spawning functions


def unwrap(argv: list[str]) -> tuple[list[str], bool]:
    """Strip wrappers (and their options) and paths: (the real argv, sudo/doas seen)."""
    escalated = False
    argv = list(argv)
    while argv:
        program = argv[0].rsplit("/", 1)[-1]
        if program not in WRAPPERS:
            return [program, *argv[1:]], escalated
        escalated = escalated or program in ("sudo", "doas", "runuser", "pkexec", "run0")
        takes_value = WRAPPERS[program]
        rest = argv[1:]
        while rest:
            arg = rest[0]
            if arg == "--":
                rest = rest[1:]
                break
            if program == "env" and "=" in arg and not arg.startswith("-"):
                rest = rest[1:]
            elif arg.startswith("-") and arg != "-":
                rest = rest[2:] if arg in takes_value else rest[1:]
            else:
                break
        skip = POSITIONAL_FIRST.get(program, 0)
        argv = rest[skip:]
    return argv, escalated


# -- parsing -------------------------------------------------------------------------------

def parse(text: str, depth: int = 0, via: str = "",
          env: dict[str, str] | None = None) -> list[SimpleCommand]:
    return parse_script(text, depth, via, env).commands


def parse_script(text: str, depth: int = 0, via: str = "",
                 env: dict[str, str] | None = None) -> Script:
    """The simple commands of `text`, expanded; raises `Unparseable`."""
    if depth > MAX_DEPTH:
        raise Unparseable(f"nested more than {MAX_DEPTH} levels deep")
    import bashlex  # deferred: ~100 ms to import, and plan steps (argv) never need it

    if "<<" in text:  # bashlex does not know quoted here-document delimiters
        text = _QUOTED_HEREDOC.sub(r"<<\1\3", text)
    try:
        try:
            trees = bashlex.parse(text)
        except bashlex.errors.ParsingError:
            if "<<" not in text or text.endswith("\n"):
                raise
            trees = bashlex.parse(text + "\n")  # a here-document ending at end of text
    except (bashlex.errors.ParsingError, NotImplementedError, AttributeError, IndexError,
            TypeError, ValueError, AssertionError, KeyError, RecursionError) as exc:
        raise Unparseable(f"{type(exc).__name__}: {str(exc)[:80]}") from None
    walker = _Walker(text, depth, via, dict(env or {}))
    try:
        for tree in trees:
            walker.walk(tree, None)
    except RecursionError:
        raise Unparseable("nested too deeply") from None
    return Script(walker.out, walker.fork_bombs)


class _Walker:
    def __init__(self, text: str, depth: int, via: str, env: dict[str, str]) -> None:
        self.text, self.depth, self.via, self.env = text, depth, via, env
        self.out: list[SimpleCommand] = []
        self.fork_bombs: list[str] = []

    def emit(self, command: SimpleCommand) -> None:
        if len(self.out) >= MAX_COMMANDS:
            raise Unparseable(f"more than {MAX_COMMANDS} commands")
        self.out.append(command)

    def walk(self, node: Any, upstream: SimpleCommand | None, background: bool = False) -> None:
        kind = node.kind
        if kind == "pipeline":
            previous: SimpleCommand | None = upstream
            for part in node.parts:
                if part.kind == "pipe":
                    continue
                before = len(self.out)
                self.walk(part, previous)
                made = self.out[before:]
                last = next((c for c in reversed(made) if c.depth == self.depth), None)
                previous = last or previous
            return
        if kind == "list":
            parts = node.parts
            for i, part in enumerate(parts):
                if part.kind == "operator":
                    continue
                after = parts[i + 1] if i + 1 < len(parts) else None
                bg = after is not None and after.kind == "operator" and after.op == "&"
                self.walk(part, upstream if i == 0 else None, bg)
            return
        if kind == "function":
            self._function(node)
            return
        if kind == "for" and self._for(node, upstream, background):
            return
        if kind == "command":
            self._command(node, upstream, background)
            return
        for part in (getattr(node, "parts", None) or getattr(node, "list", None) or []):
            if hasattr(part, "kind") and part.kind not in ("reservedword", "operator", "pipe"):
                self.walk(part, upstream, background)
        body = getattr(node, "body", None)
        if body is not None:
            self.walk(body, upstream, background)

    def _for(self, node: Any, upstream: SimpleCommand | None, background: bool) -> bool:
        """`for x in a b c; do …; done`: the body once per value (bounded)."""
        parts = list(getattr(node, "parts", []) or [])
        words = [p for p in parts if p.kind == "word"]
        reserved = [p.word for p in parts if p.kind == "reservedword"]
        if not words or "in" not in reserved:
            return False
        name = words[0].word
        values: list[str] = []
        for part in words[1:]:
            expanded, _ = self._expand(part)
            values.extend(expanded)
        body = [p for p in parts if p.kind not in ("word", "reservedword", "operator")]
        saved = self.env.get(name)
        for value in values[:16] or [""]:
            self.env[name] = value
            for part in body:
                self.walk(part, upstream, background)
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved
        return True

    def _function(self, node: Any) -> None:
        name = node.name.word
        before = len(self.out)
        self.walk(node.body, None)
        calls = [c for c in self.out[before:] if c.argv and c.argv[0] == name]
        if len(calls) >= 2 or any(c.background for c in calls):
            self.fork_bombs.append(name)
        elif calls and "&" in self.text[node.body.pos[0]:node.body.pos[1]]:
            self.fork_bombs.append(name)

    def _command(self, node: Any, upstream: SimpleCommand | None, background: bool) -> None:
        words: list[str] = []
        redirects: list[Redirect] = []
        prefix: dict[str, str] = {}
        procsubs: dict[str, list[SimpleCommand]] = {}
        stdin_text: str | None = None
        network = False
        seen_word = False
        for part in node.parts:
            if part.kind == "assignment" and not seen_word:
                name, _, raw = self.text[part.pos[0]:part.pos[1]].partition("=")
                value, net = self._expand_one(part, raw)
                network = network or net
                prefix[name] = value
            elif part.kind in ("word", "assignment"):
                seen_word = True
                if any(getattr(s, "kind", "") == "processsubstitution"
                       for s in getattr(part, "parts", []) or []):
                    marker = f"/dev/fd/procsub{len(procsubs) + 1}"
                    inner: list[SimpleCommand] = []
                    for sub in part.parts:
                        if sub.kind == "processsubstitution":
                            inner += self._nested(sub.command, "<(...)")
                    procsubs[marker] = inner
                    words.append(marker)
                    continue
                expanded, net = self._expand(part)
                network = network or net
                words.extend(expanded)
            elif part.kind == "redirect":
                redirect, text, net = self._redirect(part)
                network = network or net
                if redirect.op in ("<<<", "<<", "<<-"):
                    stdin_text = text
                    if text is None and net:
                        stdin_text, network = None, True
                redirects.append(redirect)
        if words and words[0] in ("export", "declare", "typeset", "local", "readonly"):
            for word in words[1:]:
                name, eq, value = word.partition("=")
                if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                    self.env[name] = value
        if not words:
            if prefix and not redirects:  # X=/ : a literal assignment for later words
                self.env.update(prefix)
            if redirects:
                self.emit(SimpleCommand([], redirects, via=self.via, depth=self.depth,
                                        env=prefix))
            return
        command = SimpleCommand(words, redirects, via=self.via, stdin_text=stdin_text,
                                upstream=upstream, procsubs=procsubs, dynamic_network=network,
                                env=prefix, background=background, depth=self.depth)
        if upstream is not None:
            command.piped_from = [*upstream.piped_from, upstream.program]
            command.piped_args = [*upstream.piped_args, *upstream.argv[1:]]
        inner_net = any(c.program in DOWNLOADERS or c.fed_by_download
                        for cs in procsubs.values() for c in cs)
        command.fed_by_download = (network or inner_net
                                   or bool(set(command.piped_from) & DOWNLOADERS)
                                   or (upstream is not None and upstream.fed_by_download))
        self.emit(command)

    def _nested(self, node: Any, via: str) -> list[SimpleCommand]:
        if self.depth + 1 > MAX_DEPTH:
            raise Unparseable(f"nested more than {MAX_DEPTH} levels deep")
        walker = _Walker(self.text, self.depth + 1, via, dict(self.env))
        walker.walk(node, None)
        self.fork_bombs += walker.fork_bombs
        for c in walker.out:
            self.emit(c)
        return [c for c in walker.out if c.depth == self.depth + 1]

    def _substitute(self, node: Any, raw: str, base: int) -> tuple[str, bool]:
        """Replace each `$(…)` in raw by its output when that is plain text."""
        network = False
        subs = [s for s in getattr(node, "parts", []) or [] if s.kind == "commandsubstitution"]
        for sub in reversed(subs):
            inner = self._nested(sub.command, "$(...)")
            source = produced_by(inner)
            network = network or source.network
            start, end = sub.pos[0] - base, sub.pos[1] - base
            if source.text is not None and "$" not in source.text:
                raw = raw[:start] + source.text.rstrip("\n") + raw[end:]
            else:
                raw = raw[:start] + "$__UNKNOWN__" + raw[end:]
        return raw, network

    def _expand(self, part: Any) -> tuple[list[str], bool]:
        raw = self.text[part.pos[0]:part.pos[1]]
        raw, network = self._substitute(part, raw, part.pos[0])
        return expand_word(raw, self.env, fallback=part.word), network

    def _expand_one(self, part: Any, raw: str) -> tuple[str, bool]:
        base = part.pos[0] + len(self.text[part.pos[0]:part.pos[1]]) - len(raw)
        raw, network = self._substitute(part, raw, base)
        return " ".join(expand_word(raw, self.env, fallback=raw)), network

    def _redirect(self, part: Any) -> tuple[Redirect, str | None, bool]:
        op = str(part.type)
        target = part.output
        heredoc = getattr(part, "heredoc", None)
        if heredoc is not None:
            body = heredoc.value.rsplit("\n", 1)[0] if "\n" in heredoc.value else ""
            return Redirect(op, "<heredoc>"), body, False
        if not hasattr(target, "kind"):
            return Redirect(op, str(target)), None, False
        raw = self.text[target.pos[0]:target.pos[1]]
        for sub in getattr(target, "parts", []) or []:
            if sub.kind == "processsubstitution":
                inner = self._nested(sub.command, "<(...)")
                source = produced_by(inner)
                if op == "<":  # `< <(…)`: its output is this command's stdin
                    return Redirect("<<<", "<(...)"), source.text or (
                        "$__UNKNOWN__" if not source.network else None), source.network
                return Redirect(op, "<(...)"), source.text, source.network
        raw, network = self._substitute(target, raw, target.pos[0])
        words = expand_word(raw, self.env, fallback=getattr(target, "word", raw))
        value = " ".join(words) if words else raw
        return Redirect(op, value), (value if op == "<<<" else None), network


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


# -- what a pipeline prints ----------------------------------------------------------------

def produced_by(commands: list[SimpleCommand]) -> Source:
    """The text the last command of a `$(…)` or pipeline prints, if statically known."""
    if not commands:
        return Source("")
    return output_of(commands[-1])


def stdin_of(command: SimpleCommand) -> Source | None:
    """What arrives on the command's stdin: a here-string, a file, a pipe, or nothing."""
    if command.stdin_text is not None:
        return Source(command.stdin_text, network=command.dynamic_network)
    for redirect in command.redirects:
        if redirect.op == "<":
            target = redirect.target
            if target.startswith("/dev/tcp/") or target.startswith("/dev/udp/"):
                return Source(None, network=True, what="a network connection")
            return Source(None, what=f"the file {target}")
    if command.upstream is not None:
        return output_of(command.upstream)
    return None


def output_of(command: SimpleCommand) -> Source:
    program, args = command.program, command.argv[1:]
    source = stdin_of(command)
    network = command.fed_by_download or (source is not None and source.network)
    if program in DOWNLOADERS:
        return Source(None, network=True, what="a download")
    if network:
        return Source(None, network=True, what="a download")
    if program == "echo":
        flags = set()
        while args and re.fullmatch(r"-[neE]+", args[0]):
            flags.update(args[0][1:])
            args = args[1:]
        text = " ".join(args)
        return Source(_decode_ansi(text) if "e" in flags else text)
    if program == "printf" and args:
        if args[0] == "-v":  # printf -v VAR: prints nothing
            return Source("")
        return Source(_printf(args[0], args[1:]))
    if program == "cat" and not args and source is not None:
        return source
    if program in ("base64", "base32") and set(args) & {"-d", "--decode", "-D"}:
        if source is not None and source.text is not None:
            import base64
            import binascii

            try:
                data = (base64.b64decode(source.text.strip() + "==", validate=False)
                        if program == "base64" else base64.b32decode(source.text.strip()))
                return Source(data.decode("utf-8", "replace"))
            except (binascii.Error, ValueError):
                pass
        return Source(None, what="decoded text")
    if program == "rev" and not args and source is not None and source.text is not None:
        return Source("\n".join(line[::-1] for line in source.text.split("\n")))
    if program == "xxd" and "-r" in args and source is not None and source.text is not None:
        try:
            return Source(bytes.fromhex("".join(source.text.split())).decode("utf-8", "replace"))
        except ValueError:
            pass
    if program in ("cat", "head", "tail", "tee") and args:
        return Source(None, what=f"the file {args[-1]}")
    return Source(None, what=f"the output of {program}")


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


def split_simple(text: str) -> list[list[str]]:
    """A rough fallback split on shell operators, used only after `parse` failed."""
    return [argv for argv, _ in split_fallback(text)]


def split_fallback(text: str) -> list[tuple[list[str], list[Redirect]]]:
    """Simple commands and their output redirections by a plain split (after a parse
    failure): keywords are skipped, `>`/`>>` take the next word as their target."""
    text = text.replace("${IFS}", " ").replace("$IFS", " ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    keywords = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for",
                "case", "esac", "in", "{", "}", "!", "[[", "]]", "time", "coproc", "select",
                "function", "((", "))", ";;"}
    out: list[tuple[list[str], list[Redirect]]] = [([], [])]
    pending: str | None = None
    try:
        for token in lexer:
            if pending is not None and not set(token) <= set(";&|<>()"):
                out[-1][1].append(Redirect(pending, token))
                pending = None
                continue
            if token in (">", ">>", ">|", "&>", "&>>", "<", "<<", "<<<", "<<-"):
                pending = token
            elif set(token) <= set(";&|<>()"):
                pending = None
                out.append(([], []))
            elif not out[-1][0] and token in keywords:
                continue
            else:
                out[-1][0].append(token)
            if len(out) > MAX_COMMANDS:
                break
    except ValueError:
        return [(text.split(), [])]
    return [(argv, redirects) for argv, redirects in out if argv or redirects]
