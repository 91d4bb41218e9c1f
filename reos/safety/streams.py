"""What a command prints and what arrives on its stdin, when that can be known statically.

`output_of(command)` follows echo, printf, base64 -d (and openssl's), rev, xxd -r and cat
through a pipeline; a download anywhere upstream taints everything after it, and text
decoded from what is not shown is marked hidden. `stdin_of` adds
here-strings, here-documents and `<` redirections. Nothing is run: unknown output is
described, not guessed. Not responsible for judging what the text does.
"""

from __future__ import annotations

import re

from reos.safety.expand import decode_ansi, printf_output
from reos.safety.programs import DOWNLOADERS
from reos.safety.syntax import SimpleCommand, Source


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
        if redirect.op == "<<<" and redirect.target == "<(...)":  # `< <(…)`, text unknown
            return Source(None, network=command.dynamic_network, what="a process substitution")
        if redirect.op == "<":
            target = redirect.target
            if target.startswith("/dev/tcp/") or target.startswith("/dev/udp/"):
                return Source(None, network=True, what="a network connection")
            return Source(None, what=f"the file {target}")
    if command.upstream is not None:
        return output_of(command.upstream)
    return None


def stdin_fed(command: SimpleCommand) -> bool:
    """Whether anything is given to the command on stdin (a pipe, a file, a here-text)."""
    return command.upstream is not None or command.stdin_text is not None or any(
        r.op in ("<", "<<<", "<<", "<<-", "<>") and r.target != "/dev/null"
        for r in command.redirects) or bool(command.piped_from)


def output_of(command: SimpleCommand) -> Source:
    if command.output is None:
        # work out the upstream commands first, oldest first (no deep recursion)
        chain: list[SimpleCommand] = []
        upstream = command.upstream
        while upstream is not None and upstream.output is None and len(chain) < 100_000:
            chain.append(upstream)
            upstream = upstream.upstream
        for link in reversed(chain):
            link.output = _output(link)
        command.output = _output(command)
    return command.output


def _output(command: SimpleCommand) -> Source:
    program, args = command.program, command.argv[1:]
    source = stdin_of(command)
    network = command.fed_by_download or (source is not None and source.network)
    if program in DOWNLOADERS or command.tool in DOWNLOADERS:
        return Source(None, network=True, what="a download")
    if network:
        return Source(None, network=True, what="a download")
    if program == "echo":
        flags: set[str] = set()
        while args and re.fullmatch(r"-[neE]+", args[0]):
            flags.update(args[0][1:])
            args = args[1:]
        text = " ".join(args)
        return Source(decode_ansi(text) if "e" in flags else text)
    if program == "printf" and args:
        if args[0] == "-v":  # printf -v VAR: prints nothing
            return Source("")
        return Source(printf_output(args[0], args[1:]))
    if program == "cat" and not args and source is not None:
        return source
    if program == "cat" and len(args) == 1 and args[0] in command.procsubs:
        return produced_by(command.procsubs[args[0]])  # cat <(…): what it prints
    if _decodes_base64(program, args):
        if program == "openssl" or (program == "basenc" and "--base64" in args):
            program = "base64"
        elif program == "basenc":
            program = "base32" if "--base32" in args else ""  # other alphabets: not read
        if (program and source is not None and source.text is not None
                and not _unknown_words(command)):
            import base64
            import binascii

            try:
                data = (base64.b64decode(source.text.strip() + "==", validate=False)
                        if program == "base64" else base64.b32decode(source.text.strip()))
                return Source(data.decode("utf-8", "replace"))
            except (binascii.Error, ValueError):
                pass
        return Source(None, what="text decoded at run time", hidden=True)
    if program == "rev" and not args and source is not None and source.text is not None:
        return Source("\n".join(line[::-1] for line in source.text.split("\n")))
    if program == "xxd" and (_short(args, "r") or "-revert" in args):
        if source is None or source.text is None or _unknown_words(command):
            return Source(None, what="text decoded at run time", hidden=True)
        try:
            return Source(bytes.fromhex("".join(source.text.split())).decode("utf-8", "replace"))
        except ValueError:
            pass
    if program == "tee" and source is not None:  # tee copies its stdin to stdout
        return source
    if program == "tr" and source is not None and source.text is not None:
        translated = _tr(args, source.text)
        if translated is not None:
            return Source(translated)
    if program in ("cat", "head", "tail", "tee") and args:
        return Source(None, what=f"the file {args[-1]}")
    return Source(None, what=f"the output of {program}")


def _unknown_words(command: SimpleCommand) -> bool:
    """Whether what is piped into `command` holds a value known only when it runs (`echo
    "$X" |`): its text is the value's name, which decodes to nothing bash would see."""
    upstream = command.upstream
    return upstream is not None and bool(upstream.dynamic - {0})


def _short(args: list[str], letter: str) -> bool:
    """Whether a cluster of short options holds `letter` (`-di`, `-rp`)."""
    return any(a.startswith("-") and not a.startswith("--") and letter in a[1:] for a in args)


def _decodes_base64(program: str, args: list[str]) -> bool:
    """`base64 -d` (or `-di`, `--decode`), `base32 -d`, `basenc --base64 -d`, `openssl
    base64 -d`, `openssl enc -d -base64` (or `-a`)."""
    decoding = "--decode" in args or _short(args, "d") or "-D" in args
    if program in ("base64", "base32", "basenc"):
        return decoding
    if program == "openssl" and args and decoding:
        return args[0] == "base64" or (args[0] == "enc" and bool(set(args) & {"-base64", "-a"}))
    return False


def _tr_set(spec: str) -> str | None:
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            lo, hi = ord(spec[i]), ord(spec[i + 2])
            if hi < lo or hi - lo > 256:
                return None
            out.extend(chr(c) for c in range(lo, hi + 1))
            i += 3
        elif spec[i] in "[\\":
            return None  # classes and escapes: not worth guessing
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


def _tr(args: list[str], text: str) -> str | None:
    """`tr SET1 SET2` and `tr -d SET` on known text (ranges and plain characters)."""
    if args[:1] == ["-d"] and len(args) == 2:
        drop = _tr_set(args[1])
        return None if drop is None else "".join(c for c in text if c not in drop)
    if len(args) != 2 or args[0].startswith("-"):
        return None
    first, second = _tr_set(args[0]), _tr_set(args[1])
    if not first or not second:
        return None
    second = second + second[-1] * max(0, len(first) - len(second))
    return text.translate(str.maketrans(first, second[:len(first)]))


def mapfile_assignment(argv: list[str], text: str | None) -> dict[str, str]:
    """`mapfile -t LINES < <(…)`: the array (kept as its items joined by spaces)."""
    if text is None:
        return {}
    names: list[str] = []
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
        elif word in ("-d", "-n", "-O", "-s", "-u", "-C", "-c"):
            skip = True
        elif not word.startswith("-"):
            names.append(word)
    items = [line for line in text.replace("\0", "\n").split("\n") if line]
    return {(names[-1] if names else "MAPFILE"): " ".join(items)}


def read_assignments(argv: list[str], text: str | None) -> dict[str, str]:
    """`read [-r] A B <<< 'x y z'`: the variables it sets (the last takes the rest)."""
    names: list[str] = []
    skip = False
    for word in argv[1:]:
        if skip:
            skip = False
            continue
        if word in ("-p", "-d", "-n", "-N", "-t", "-u", "-a", "-i"):
            skip = True
            continue
        if not word.startswith("-"):
            names.append(word)
    names = names or ["REPLY"]
    if text is None:
        return {}
    line = text.split("\n", 1)[0].split("\0", 1)[0]  # read -d '': NUL ends a record
    parts = line.split(None, len(names) - 1)
    return {name: (parts[i] if i < len(parts) else "") for i, name in enumerate(names)}
