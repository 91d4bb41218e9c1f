"""The record of what a launcher runs (`Launch`), and getopt-style option reading.

Shared by `launchers` (sudo, env, shells, xargs, …) and `remote_launchers` (ssh, docker,
kubectl, ansible, …). Not responsible for deciding what any program runs.
"""

from __future__ import annotations

from msgspec import Struct, field


class Launch(Struct):
    label: str
    argv: list[str] | None = None  # the program it runs, as words
    script: str | None = None  # shell text it runs
    stdin_runs: bool = False  # runs what arrives on stdin as shell code
    file_runs: str | None = None  # runs a script file
    escalated: bool = False
    remote: bool = False  # runs on another machine
    mounts: dict[str, str] = field(default_factory=dict)  # container path -> host path
    transparent: bool = True  # read-only when what it runs is read-only
    interactive: bool = False  # nothing given: an interactive shell or session
    scripts: list[str] = field(default_factory=list)  # more shell texts (parallel)
    args_from_stdin: bool = False  # xargs/parallel: stdin supplies arguments
    replace: str | None = None  # xargs -I / parallel: placeholder for stdin items
    env: dict[str, str] = field(default_factory=dict)  # NAME=value it sets
    cwd: str | None = None  # the directory it runs the payload in (env -C, sudo -D)
    local_scripts: list[str] = field(default_factory=list)  # run here (ssh ProxyCommand)
    args_file: str | None = None  # xargs -a <(…): the process substitution giving arguments


_LOCAL_COMMAND_OPTIONS = ("proxycommand", "localcommand", "knownhostscommand")


def ssh_option_commands(args: list[str]) -> list[str]:
    """The commands `-o ProxyCommand=…` (LocalCommand, KnownHostsCommand) make ssh, scp or
    sftp run on this machine; `-o Key=value` and `-o 'Key value'` are both read."""
    values: list[str] = []
    for i, arg in enumerate(args):
        if arg == "-o" and i + 1 < len(args):
            values.append(args[i + 1])
        elif arg.startswith("-o") and len(arg) > 2:
            values.append(arg[2:])
    out: list[str] = []
    for value in values:
        value = value.strip()
        cut = min((i for i in (value.find("="), value.find(" "), value.find("\t")) if i > 0),
                  default=-1)
        if cut > 0 and value[:cut].lower() in _LOCAL_COMMAND_OPTIONS:
            command = value[cut + 1:].strip().lstrip("=").strip()
            if command and command.lower() != "none":
                out.append(command)
    return out


def options(args: list[str], short: str, long: set[str],
             stop_at_operand: bool = True) -> tuple[dict[str, str], list[str]]:
    """Parse getopt-style options: (option -> value ('' for flags), the operands).

    With `stop_at_operand` the operands are everything from the first one on (the
    command a launcher runs); otherwise options and operands may be mixed."""
    opts: dict[str, str] = {}
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return opts, operands + args[i + 1:]
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg.partition("=")
            if eq:
                opts[name] = value
            elif name in long and i + 1 < len(args):
                opts[name] = args[i + 1]
                i += 1
            else:
                opts[name] = ""
        elif arg.startswith("-") and len(arg) > 1:
            j = 1
            while j < len(arg):
                c = arg[j]
                if c in short:
                    value = arg[j + 1:]
                    if not value and i + 1 < len(args):
                        i += 1
                        value = args[i]
                    opts[f"-{c}"] = value
                    break
                opts[f"-{c}"] = ""
                j += 1
        elif stop_at_operand:
            return opts, args[i:]
        else:
            operands.append(arg)
        i += 1
    return opts, operands
