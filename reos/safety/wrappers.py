"""Wrappers that run the rest of their argv unchanged (sudo, env, timeout, nice, command,
busybox, …) and `unwrap`, which strips them: what program a command line really runs.

Used by `scope` and `backups` and by the shell reader to see
that `sudo curl …` or `busybox wget …` is a download. Plain data and a pure function;
not responsible for judging the payload (`launchers` reads launchers in full).
"""

from __future__ import annotations

__all__ = ["POSITIONAL_FIRST", "WRAPPERS", "unwrap"]

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
