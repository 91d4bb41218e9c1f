"""Reading a shell command line the way a shell would: into simple commands.

Parses with bashlex (a real bash grammar), walks pipelines, lists, compound commands,
functions, command and process substitutions, and re-parses the strings given to
`sh -c`, `bash -c`, `su -c` and `eval` (up to MAX_DEPTH levels). Each simple command
comes out as a `SimpleCommand`: its words (wrappers such as sudo/env/timeout/xargs
stripped, paths reduced to the program name), its redirections, what fed it through a
pipe, and how it was reached. What cannot be parsed raises `Unparseable`; callers fail
closed. Not responsible for judging anything.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

MAX_DEPTH = 5
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "busybox-sh"}
DOWNLOADERS = {"curl", "wget", "fetch", "aria2c"}
# wrapper -> options that take a value (the wrapper's own argv is skipped up to the command)
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
}
POSITIONAL_FIRST = {"timeout": 1, "chroot": 1, "flock": 1}  # durations, dirs, lock files


class Unparseable(ValueError):
    """The command line uses syntax that cannot be read reliably."""


@dataclass
class Redirect:
    op: str  # > >> < 2> &> ...
    target: str


@dataclass
class SimpleCommand:
    argv: list[str]  # program first, wrappers removed, path stripped from the program
    redirects: list[Redirect] = field(default_factory=list)
    escalated: bool = False  # reached through sudo/doas/su/runuser
    piped_from: list[str] = field(default_factory=list)  # programs earlier in the pipeline
    via: str = ""  # "sh -c", "eval", "$(...)", "<(...)", "xargs" when nested or wrapped
    fed_by_download: bool = False  # stdin or a process substitution comes from curl/wget
    piped_args: list[str] = field(default_factory=list)  # words of earlier pipeline commands

    @property
    def program(self) -> str:
        return self.argv[0] if self.argv else ""


def unwrap(argv: list[str]) -> tuple[list[str], bool]:
    """Strip wrappers (and their options) and paths: (the real argv, sudo/doas seen)."""
    escalated = False
    argv = list(argv)
    while argv:
        program = argv[0].rsplit("/", 1)[-1]
        if program not in WRAPPERS:
            return [program, *argv[1:]], escalated
        escalated = escalated or program in ("sudo", "doas", "runuser")
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


def parse(text: str, depth: int = 0, via: str = "") -> list[SimpleCommand]:
    if depth > MAX_DEPTH:
        raise Unparseable(f"nested more than {MAX_DEPTH} levels deep")
    import bashlex  # deferred: ~100 ms to import, and plan steps (argv) never need it

    try:
        trees = bashlex.parse(text)
    except (bashlex.errors.ParsingError, NotImplementedError, AttributeError, IndexError,
            TypeError, ValueError, AssertionError) as exc:
        raise Unparseable(f"{type(exc).__name__}: {exc}") from None
    out: list[SimpleCommand] = []
    for tree in trees:
        _walk(tree, text, depth, via, out, [])
    return out


def _walk(node: Any, text: str, depth: int, via: str, out: list[SimpleCommand],
          piped_from: list[str]) -> None:
    kind = node.kind
    if kind == "pipeline":
        seen: list[str] = []
        words: list[str] = []
        for part in node.parts:
            if part.kind == "pipe":
                continue
            before = len(out)
            _walk(part, text, depth, via, out, list(seen))
            for c in out[before:]:
                if not c.piped_args:
                    c.piped_args = list(words)
            seen += [c.program for c in out[before:] if c.program]
            words += [w for c in out[before:] for w in c.argv[1:]]
        return
    if kind in ("list", "compound", "function", "if", "for", "while", "until", "case"):
        for part in getattr(node, "parts", None) or getattr(node, "list", None) or []:
            if hasattr(part, "kind") and part.kind not in ("operator", "reservedword", "pipe"):
                _walk(part, text, depth, via, out, piped_from)
        body = getattr(node, "body", None)
        if body is not None:
            _walk(body, text, depth, via, out, piped_from)
        return
    if kind == "command":
        _command(node, text, depth, via, out, piped_from)
        return
    for part in getattr(node, "parts", []) or []:  # anything else: look inside
        if hasattr(part, "kind"):
            _walk(part, text, depth, via, out, piped_from)


def _command(node: Any, text: str, depth: int, via: str, out: list[SimpleCommand],
             piped_from: list[str]) -> None:
    words: list[str] = []
    redirects: list[Redirect] = []
    downloads_in = False
    for part in node.parts:
        if part.kind == "word":
            words.append(part.word)
            for sub in getattr(part, "parts", []) or []:
                if sub.kind in ("commandsubstitution", "processsubstitution"):
                    inner_via = "$(...)" if sub.kind == "commandsubstitution" else "<(...)"
                    before = len(out)
                    _walk(sub.command, text, depth + 1, inner_via, out, [])
                    if any(c.program in DOWNLOADERS for c in out[before:]):
                        downloads_in = True
        elif part.kind == "redirect":
            target = part.output
            target_text = getattr(target, "word", None) if hasattr(target, "kind") else None
            if target_text is None and hasattr(target, "kind"):
                target_text = text[target.pos[0]:target.pos[1]]
            redirects.append(Redirect(str(part.type), str(target_text if target_text is not None
                                                          else target)))
            if hasattr(target, "kind"):
                for sub in getattr(target, "parts", []) or []:
                    if sub.kind in ("commandsubstitution", "processsubstitution"):
                        before = len(out)
                        _walk(sub.command, text, depth + 1, "<(...)", out, [])
                        if any(c.program in DOWNLOADERS for c in out[before:]):
                            downloads_in = True
        # assignments (FOO=bar) are data
    argv, escalated = unwrap(words)
    if not argv:
        return
    wrapped_by_xargs = any(w.rsplit("/", 1)[-1] == "xargs" for w in words[: len(words) - len(argv)])
    command = SimpleCommand(argv, redirects, escalated, piped_from,
                            "xargs" if wrapped_by_xargs else via,
                            downloads_in or any(p in DOWNLOADERS for p in piped_from))
    out.append(command)
    nested = _nested_script(argv)
    if nested is not None:
        label, script = nested
        for inner in parse(script, depth + 1, label):
            inner.escalated = inner.escalated or escalated or argv[0] in ("su",)
            inner.fed_by_download = inner.fed_by_download or command.fed_by_download
            out.append(inner)


def _nested_script(argv: list[str]) -> tuple[str, str] | None:
    """The script text a command runs: `sh -c 'x'`, `eval x y`, `su -c 'x'`."""
    program = argv[0]
    if program == "eval" and len(argv) > 1:
        return "eval", " ".join(argv[1:])
    if program in SHELLS or program in ("su", "runuser"):
        for i, arg in enumerate(argv[1:], start=1):
            if (arg == "-c" or (arg.startswith("-") and not arg.startswith("--")
                                and arg.endswith("c"))) and i + 1 < len(argv):
                return f"{program} -c", argv[i + 1]
    return None


def split_simple(text: str) -> list[list[str]]:
    """A rough fallback split on shell operators, used only after `parse` failed."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if set(token) <= set(";&|<>()"):
                commands.append([])
            else:
                commands[-1].append(token)
    except ValueError:
        return [text.split()]
    return [c for c in commands if c]
