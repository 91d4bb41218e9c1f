"""Names of programs the safety parts share: shells, programs that fetch from the network,
interpreters and the tools whose arguments can carry code, plus two small readers of
interpreter names (`python3.12` is python) and code options (`node --eval`). Plain data
and pure functions with no imports, so the `reos plan` path can read them cheaply. Not
responsible for judging anything.
"""

from __future__ import annotations

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "rbash", "tcsh", "csh",
          "busybox-sh", "yash", "posh"}
DOWNLOADERS = {"curl", "wget", "fetch", "aria2c", "lynx", "links", "w3m", "nc", "ncat",
               "netcat", "socat", "scp", "sftp", "tftp", "ftp", "rsync", "http", "https",
               "xh", "curlie", "s3cmd", "gsutil", "aws"}

AWKS = {"awk", "gawk", "mawk", "nawk", "busybox-awk"}
INTERPRETERS = {"python": "-c", "python3": "-c", "python2": "-c", "pypy": "-c",
                "pypy3": "-c", "perl": "-e", "ruby": "-e", "node": "-e", "nodejs": "-e",
                "php": "-r", "lua": "-e", "luajit": "-e", "Rscript": "-e", "tclsh": "",
                "bun": "-e", "deno": "eval", "irb": "", "julia": "-e", "jshell": "",
                "expect": "-c", "osascript": "-e", "pwsh": "-c",
                "powershell": "-c", "groovy": "-e", "scala": "-e", "elixir": "-e",
                "erl": "-eval", "racket": "-e", "guile": "-c", "sbcl": "--eval"}
# programs whose arguments can carry code, writes or deletions (read by `payloads`)
CARRIERS = frozenset({*AWKS, "sed", "gsed", "find", "git", "man", "tar", "bsdtar", "gtar",
                      "rsync", "less", "more", "most", "fd", "fdfind", "vim", "vi", "nvim",
                      "ex", "view", "vimdiff", "rvim", "gdb", "scp", "sftp", "zip"})

# options that introduce a one-liner, beyond the one in INTERPRETERS
_MORE_CODE_FLAGS = {"node": ("--eval", "-p", "--print"), "nodejs": ("--eval", "-p", "--print"),
                    "bun": ("--eval", "-p", "--print"), "perl": ("-E",), "php": ("--run",),
                    "ruby": ("--eval",), "python": ("--command",)}
_PYTHON_SWITCHES = set("bBdEhiIOPqsSuvVx")


def interpreter_name(program: str) -> str | None:
    """`python3.12` → python, `lua5.4` → lua, `perl5.36` → perl; None for other programs."""
    if program in INTERPRETERS:
        return program
    base = program.rstrip("0123456789.")
    if base != program and base in INTERPRETERS:
        return base
    return None


def code_option(program: str, arg: str) -> tuple[bool, str | None]:
    """Whether `arg` brings the one-liner: (True, None) when the code is the next word,
    (True, code) when it is attached (`-cCODE`, `--eval=CODE`, python's `-Ic`)."""
    base = interpreter_name(program) or program
    flags = (INTERPRETERS.get(base, ""), *_MORE_CODE_FLAGS.get(base, ()),
             *_MORE_CODE_FLAGS.get(base.rstrip("0123456789"), ()))
    for flag in flags:
        if not flag:
            continue
        if arg == flag:
            return True, None
        if flag.startswith("--") and arg.startswith(flag + "="):
            return True, arg[len(flag) + 1:]
        if len(flag) == 2 and flag[0] == "-" and arg.startswith(flag) and \
                not arg.startswith("--"):
            return True, arg[2:]
    if base.startswith(("python", "pypy")) and len(arg) > 2 and arg[0] == "-" and \
            arg[-1] == "c" and set(arg[1:-1]) <= _PYTHON_SWITCHES:
        return True, None  # python3 -Ic CODE, -uc CODE
    return False, None
