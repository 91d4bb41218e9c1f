"""Where a command acts: paths seen from the directory `cd` chose, container bind mounts,
the items a pipe hands to `xargs`, and one spelling per file (to recognise a file this
same command line downloaded or wrote when it is run later).

Not responsible for judging paths (`paths`, `rules`) or for parsing (`shell`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.safety.paths import dynamic

if TYPE_CHECKING:
    from reos.safety.syntax import SimpleCommand


def host_paths(arg: str, mounts: dict[str, str]) -> str:
    """Paths inside a container (also inside a script word), as the host paths they are
    bind-mounted from: `-v /etc:/e … sh -c 'echo x > /e/passwd'` writes /etc/passwd."""
    for inside in sorted(mounts, key=len, reverse=True):
        if not inside.startswith("/"):
            continue
        host = mounts[inside].rstrip("/")
        if inside == "/":
            if arg.startswith("/"):
                return host + arg if host else arg
            continue
        out: list[str] = []
        start = 0
        while True:
            at = arg.find(inside, start)
            if at < 0:
                break
            end = at + len(inside)
            before_ok = at == 0 or arg[at - 1] in " \t'\"=;|&<>("
            after_ok = end == len(arg) or arg[end] in "/ \t'\";|&)"
            if before_ok and after_ok:
                out.append(arg[start:at] + (host or "/"))
            else:
                out.append(arg[start:end])
            start = end
        arg = "".join(out) + arg[start:]
    return arg


_PATH_PROGRAMS = {"rm", "rmdir", "unlink", "shred", "srm", "wipe", "mv", "cp", "install", "ln",
                  "truncate", "tee", "mkdir", "touch", "find", "rsync", "chmod", "chown",
                  "chgrp", "chattr", "setfacl", "patch", "ed", "gzip", "bzip2", "xz", "zstd"}
_MODE_FIRST = {"chmod", "chown", "chgrp", "chattr", "setfacl"}


def relative(word: str) -> bool:
    return bool(word) and not word.startswith(("/", "~", "$", "-", "<")) and "://" not in word \
        and not dynamic(word)


def join_path(cwd: str, path: str) -> str:
    from reos.safety.paths import normalise

    return normalise(cwd.rstrip("/") + "/" + path) if not dynamic(cwd) else cwd + "/" + path


def rebase(argv: list[str], cwd: str) -> list[str]:
    """Relative path operands of file programs, as seen from the directory `cd` chose."""
    program = argv[0]
    if program == "dd":
        return [a[:3] + join_path(cwd, a[3:]) if a.startswith(("of=", "if=")) and relative(a[3:])
                else a for a in argv]
    if program not in _PATH_PROGRAMS:
        return argv
    out = [program]
    skipped_mode = program not in _MODE_FIRST
    after_dashes = False
    for arg in argv[1:]:
        if arg == "--":
            after_dashes = True
            out.append(arg)
            continue
        if arg.startswith("-") and not after_dashes:
            out.append(arg)
            continue
        if not skipped_mode:
            skipped_mode = True
            out.append(arg)
            continue
        out.append(join_path(cwd, arg) if relative(arg) else arg)
        if program == "find" and arg.startswith(("(", "!")):
            out.extend(argv[len(out):])
            break
    return out


def _found_under(root: str, find_argv: list[str]) -> str:
    """A name `find ROOT …` may print. Under /dev it is the `-name` pattern (or any name),
    so that `find /dev -name 'sd?'` is judged by the disks it can find."""
    root = root.rstrip("/") or "/"
    if root == "/dev" or root.startswith("/dev/"):
        pattern = next((find_argv[i + 1] for i, w in enumerate(find_argv[:-1])
                        if w in ("-name", "-iname")), "*")
        return f"{root}/{pattern}" if "/" not in pattern else f"{root}/*"
    return root + "/<matches>"


def piped_item(command: SimpleCommand | None) -> str:
    """One item of `… | xargs -I{}` when the pipe's text is unknown: a path under the
    root `find` searches, or any name at all (a glob that matches everything)."""
    upstream = command.upstream if command is not None else None
    if upstream is not None and upstream.program == "find":
        roots = [w for w in upstream.argv[1:] if not w.startswith(("-", "(", "!"))][:1]
        if roots:
            return _found_under(roots[0], upstream.argv)
    if upstream is not None and upstream.program in ("ls", "echo", "printf", "cat", "grep",
                                                      "awk", "cut", "sed", "sort", "head",
                                                      "tail", "xargs", "tr"):
        return "*"
    return "$ARGUMENTS_FROM_A_PIPE"


def piped_paths(command: SimpleCommand | None, argv: list[str]) -> list[str]:
    """What `… | xargs CMD` would get as arguments, as well as it can be told."""
    if command is None or command.upstream is None:
        return ["$ARGUMENTS_FROM_A_PIPE"]
    upstream = command.upstream
    words = upstream.argv[1:]
    paths = [w for w in words if w.startswith(("/", "~", "$HOME", ".")) or w == "*"]
    if upstream.program == "find" and any(w.startswith("-") for w in words):
        return [_found_under(p, upstream.argv) for p in paths] or ["<paths from a pipe>"]
    return paths or ["<paths from a pipe>"]

def same_file(path: str) -> str:
    from reos.safety.paths import normalise

    path = normalise(path)
    return path[2:] if path.startswith("./") else path
