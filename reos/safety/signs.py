"""Small signs the risk engine reads: a shell handed to the network (reverse shells),
code that is only a variable, a request that names the command, and, in text the shell
reader could not read, fork bombs and the commands a plain split shows. Each check is one
bounded pass over its input.

Not responsible for judging (the risk engine decides what a sign means), nor for reading
shell text that can be read (`shell`).
"""

from __future__ import annotations

import shlex

from reos.safety.paths import expand_braces
from reos.safety.programs import INTERPRETERS, SHELLS
from reos.safety.syntax import MAX_COMMANDS, Redirect

SHELL_OR_CODE = SHELLS | set(INTERPRETERS) | {"sh", "busybox"}
NETCATS = {"nc", "ncat", "netcat", "socat", "nc.openbsd", "nc.traditional", "telnet"}


def netcat_exec(argv: list[str]) -> bool:
    """`nc -e /bin/sh`, `ncat --sh-exec`, `socat … EXEC:bash`: a program on a socket."""
    for arg in argv[1:]:
        if arg in ("-e", "-c", "--exec", "--sh-exec", "--lua-exec") or arg.startswith(
                ("--exec=", "--sh-exec=", "--lua-exec=")):
            return True
        if argv[0] == "socat" and arg.lower().startswith(("exec:", "system:")):
            return True
        if arg.startswith("-") and not arg.startswith("--") and ("e" in arg[1:] or "c" in
                                                                 arg[1:]) and argv[0] in (
                "nc", "ncat", "netcat", "nc.traditional"):
            return True
    return False

def just_a_variable(word: str) -> bool:
    body = word.strip()
    if body.startswith("${") and body.endswith("}"):
        body = "$" + body[2:-1]
    return body.startswith("$") and (body[1:].replace("_", "a").isalnum() or body[1:] in
                                     ("@", "*") or body == "$__UNKNOWN__")

def requested_exactly(requested: str, command: str) -> bool:
    return " ".join(command.split()) in " ".join(requested.split())


def fork_bomb_text(text: str) -> bool:
    """`name(){ … name|name& … }` in text the shell reader could not read (bash's grammar
    reports errors in it: `f(){ f|f&` never closed, thousands of nested definitions),
    where no reading shows the function. Linear, bounded."""
    compact = "".join(text.split())
    start = 0
    seen = 0
    while seen < 2000:
        at = compact.find("(){", start)
        if at < 0:
            return False
        seen += 1
        j = at
        while j > 0 and (compact[j - 1].isalnum() or compact[j - 1] in "_:.-"):
            j -= 1
            if at - j > 64:
                break
        name = compact[j:at]
        end = compact.find("}", at)
        body = compact[at + 3:(end if end >= 0 else at + 4096)][:4096]
        if name and (body.count(name) >= 2 or (name in body and "&" in body)):
            return True
        start = at + 3
    return False


_OPERATORS = ";&|<>()\n"


def plain_commands(text: str) -> list[tuple[list[str], list[Redirect]]]:
    """Simple commands and their redirections by a plain split (`_plain`)."""
    return [(argv, redirects) for argv, redirects, _ in _plain(text)]


_RUNNERS = {"sudo", "doas", "env", "command", "exec", "nohup", "time", "nice", "builtin",
            "setsid", "stdbuf", "timeout", "coproc"}


def plain_program(argv: list[str]) -> str:
    """The program a plain command runs, past launchers, their options and assignments."""
    for word in argv:
        name = word.rsplit("/", 1)[-1]
        if word.startswith("-") or "=" in word or name in _RUNNERS or word.isdigit():
            continue
        return name
    return ""


def download_into_shell(text: str, fetchers: set[str] | frozenset[str]) -> bool:
    """Whether a plain split of text the shell reader could not read shows a program of
    `fetchers` piped into a shell or an interpreter (`curl … | sh`)."""
    commands = _plain(text)
    return any(piped and plain_program(before[0]) in fetchers and
               plain_program(argv) in SHELL_OR_CODE
               for before, (argv, _, piped) in zip(commands, commands[1:], strict=False))


def _plain(text: str) -> list[tuple[list[str], list[Redirect], bool]]:
    """Simple commands and their redirections by a plain split, for text the shell reader
    could not read: what lies inside an error of bash's grammar (`{rm,-rf,/}`, a brace
    expansion where the grammar expects a group; a here-document never closed) or nests
    past the reader's bounds. Operators and line breaks end a command, keywords are
    skipped, braces expanded, `>`/`>>`/`<>`/`>&` take the next word as their target; each
    command says whether a pipe feeds it."""
    text = text.replace("${IFS}", " ").replace("$IFS", " ").replace("\\\n", " ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=_OPERATORS)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    keywords = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for",
                "case", "esac", "in", "{", "}", "!", "[[", "]]", "time", "coproc", "select",
                "function", "((", "))", ";;"}
    out: list[tuple[list[str], list[Redirect], bool]] = [([], [], False)]
    pending: str | None = None
    try:
        for token in lexer:
            if pending is not None and not set(token) <= set(_OPERATORS):
                out[-1][1].append(Redirect(pending, token))
                pending = None
                continue
            if token in (">", ">>", ">|", "&>", "&>>", "<", "<<", "<<<", "<<-", "<>", ">&"):
                pending = token
            elif set(token) <= set(_OPERATORS):
                pending = None
                out.append(([], [], token in ("|", "|&")))
            elif not out[-1][0] and token in keywords:
                continue
            elif "{" in token:  # {rm,-rf,/}: brace expansion, which the grammar cannot read
                out[-1][0].extend(expand_braces(token))
            else:
                out[-1][0].append(token)
            if len(out) > MAX_COMMANDS:
                break
    except ValueError:
        return [(text.split(), [], False)]
    return [(argv, redirects, piped) for argv, redirects, piped in out if argv or redirects]
