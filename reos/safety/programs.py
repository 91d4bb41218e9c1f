"""Names of programs the safety parts share: shells, programs that fetch from the network,
interpreters and the tools whose arguments can carry code, plus two small readers of
interpreter names (`python3.12` is python) and code options (`node --eval`), and
`resolve`: which program a command word really names (a bare name is looked up on the
fixed system PATH that reos runs programs with; a path must lie in a root-owned system
directory, else it is unknown code). Plain data and small functions (`os` is imported
only when a path has to be looked at), so the `reos plan` path can read them cheaply. Not
responsible for judging anything.
"""

from __future__ import annotations

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "rbash", "tcsh", "csh",
          "busybox-sh", "yash", "posh"}
DOWNLOADERS = {"curl", "wget", "fetch", "aria2c", "lynx", "links", "w3m", "nc", "ncat",
               "netcat", "socat", "scp", "sftp", "tftp", "ftp", "rsync", "http", "https",
               "xh", "curlie", "s3cmd", "gsutil", "aws", "telnet", "nc.openbsd",
               "nc.traditional"}

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
                      "ex", "view", "vimdiff", "rvim", "gdb", "scp", "sftp", "zip",
                      "sqlite3"})

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


# The PATH reos runs every program with (`execution.runner`), whatever the caller's is:
# a bare program name is judged as the program found here, so it must be what runs.
SYSTEM_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
               "/snap/bin")
_NOT_PLAIN = frozenset("*?[]{}$`\\'\"~=!;&|<>()# \t\n")
_TRUSTED: dict[str, bool] = {}  # directory -> root-owned and writable by root alone


def _root_only(path: str) -> bool:
    """`path` and every folder above it are owned by root and writable by root alone."""
    import os

    try:
        while True:
            if path not in _TRUSTED:
                info = os.stat(path)
                _TRUSTED[path] = info.st_uid == 0 and not info.st_mode & 0o022
            if not _TRUSTED[path]:
                return False
            if path == "/":
                return True
            path = path.rsplit("/", 1)[0] or "/"
    except OSError:
        return False


def resolve(word: str) -> tuple[str | None, str | None]:
    """The program a command word names, judged as that tool: (name, None), or (None, what
    it is, as a phrase: "`./ls`, a relative path …") when it is unknown code (a relative
    path, a folder outside the system's, a folder or file someone other than root could
    change, a name that is not plain)."""
    if not word:
        return None, "an empty program name"
    if word in ("[", "[["):  # the test builtin and keyword
        return word, None
    if "/" not in word:
        if any(c in _NOT_PLAIN for c in word):
            return None, f"`{word}`, which is not a plain program name"
        return word, None
    if not word.startswith("/"):
        return None, f"`{word}`, a relative path (whatever file is there)"
    parts = [p for p in word.split("/") if p not in ("", ".")]
    if ".." in parts:  # the kernel reads `..` after symbolic links, not before
        return None, f"`{word}`, a path that climbs with `..`"
    path = "/" + "/".join(parts)  # //usr//bin//ls and /usr/bin/./ls are /usr/bin/ls
    folder, _, name = path.rpartition("/")
    if not name or any(c in _NOT_PLAIN for c in name):
        return None, f"`{word}`, which is not a plain program name"
    if folder not in SYSTEM_PATH:
        return None, f"`{word}`, outside the system's program folders"
    if not _root_only(folder):
        return None, f"`{word}`, in a folder someone other than root can change"
    import os

    try:
        info = os.stat(path)
    except OSError:
        return name, None  # nothing there: it cannot run at all
    if info.st_uid != 0 or info.st_mode & 0o022:
        return None, f"`{word}`, a file someone other than root can change"
    return name, None
