"""What a command prints and what arrives on its stdin, when that can be known statically.

`output_of(command)` follows echo, printf, base64 -d, rev, xxd -r and cat through a
pipeline; a download anywhere upstream taints everything after it. `stdin_of` adds
here-strings, here-documents and `<` redirections. Nothing is run: unknown output is
described, not guessed. Not responsible for judging what the text does.
"""

from __future__ import annotations

import re

from reos.safety.expand import _decode_ansi, _printf
from reos.safety.syntax import DOWNLOADERS, SimpleCommand, Source


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
        flags: set[str] = set()
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
