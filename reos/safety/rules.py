"""Rules for programs that change files: rm, dd, shred, chmod, mv/cp, ln, truncate, tee,
and writes through redirections or other programs' output options.

Each rule raises a `Verdict` to the level its arguments deserve, with a reason a person
can read. Paths are judged by the worst thing they can name (`paths`). System-level
rules (services, packages, disks, processes, network) live in `rules_system`.
Not responsible for parsing shell syntax (`shell`) or for walking a command line
(`risk`).
"""

from __future__ import annotations

import re

from msgspec import Struct

from reos.model.risk import RiskLevel
from reos.patterns import regex
from reos.safety.paths import (
    candidates,
    dynamic,
    harmless_sink,
    is_boot,
    is_credential,
    is_device,
    is_system_path,
    is_tmp,
    is_vital,
    under_system,
)
from reos.safety.verdict import Verdict

__all__ = ["Context", "judge_write", "FILE_HANDLERS"]

SHELL_LIKE = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "csh", "tcsh",
              "python", "python3", "python2", "perl", "ruby", "node", "php", "lua", "env",
              "find", "vim", "vi", "nano", "less", "more", "awk", "gawk", "mawk", "busybox",
              "tar", "cp", "mv", "tee", "dd", "chmod", "chown", "nice", "timeout", "xargs",
              "nohup", "sudo", "su", "script", "expect", "gdb", "strace", "docker",
              "systemctl", "rsync", "zip", "git", "man", "sed", "ed", "emacs", "flock",
              "setsid", "stdbuf", "ionice", "taskset", "openssl", "nmap", "ssh", "scp"}


class Context(Struct):
    root: bool = False  # runs as root (sudo, doas, pkexec, a root login, …)
    remote: bool = False  # reos runs over SSH (lock-out rules apply)
    requested: str | None = None  # the person's own request text
    network: bool = False  # the code came from the network
    # devices reos planned to format for this request (from the snapshot, shown with their
    # size and model); `live`: check them against the running kernel (the gate does)
    formats: frozenset[str] = frozenset()
    live: bool = False
    # the command puts back what a change recorded before it ran (undo): turning ufw off
    # again is then no lock-out, since reos turned it on (rules_network.judge_firewall)
    undoing: bool = False
    # the caller read the rules of the machine the command runs on and found that they
    # keep reos's SSH in (fleet/deciding.py, with a host's ufw rules): the judge then
    # does not read this machine's own instead
    ssh_checked: bool = False


def flags(argv: list[str]) -> set[str]:
    out: set[str] = set()
    for arg in argv[1:]:
        if arg.startswith("--"):
            out.add(arg.split("=", 1)[0])
        elif arg.startswith("-") and len(arg) > 1:
            out.update(f"-{c}" for c in arg[1:])
    return out


def operands(argv: list[str]) -> list[str]:
    words = argv[1:]
    if "--" in words:
        i = words.index("--")
        return [a for a in words[:i] if not a.startswith("-")] + words[i + 1:]
    return [a for a in words if not a.startswith("-") or a == "-"]


def judge_write(target: str, verdict: Verdict, ctx: Context, how: str = "writes to") -> None:
    """Writing (overwriting or appending) to `target`, by any means."""
    target = target.strip()
    if harmless_sink(target):
        return
    if target.startswith(("/dev/tcp/", "/dev/udp/")):  # bash opens a connection, no file
        _, _, protocol, host, port = (target.split("/", 4) + ["", ""])[:5]
        verdict.raise_to(RiskLevel.HIGH, f"sends data over {protocol} to {host or '?'} port "
                         f"{port or '?'} (a network connection bash opens)")
        return
    if is_device(target):
        verdict.raise_to(RiskLevel.CRITICAL, f"{how} the disk or device {target}", block=True,
                         reversible=False, root=True)
    elif is_vital(target):
        verdict.raise_to(RiskLevel.CRITICAL, f"{how} {target} (logins or boot depend on it)",
                         block=True, reversible=False, root=True)
    elif any(c.startswith(("/proc/sysrq-trigger", "/sys/power/", "/proc/sys/kernel/panic",
                           "/sys/firmware/efi/efivars"))
             or (c.startswith(("/sys/block/", "/sys/bus/", "/sys/devices/", "/sys/class/"))
                 and c.endswith(("/delete", "/remove")))
             for c in candidates(target)):
        verdict.raise_to(RiskLevel.CRITICAL, f"{how} {target} (crashes or halts the kernel)",
                         block=True, reversible=False, root=True)
    elif any(c == "/" or c.rstrip("/") in ("/etc", "/usr", "/boot") for c in candidates(target)):
        verdict.raise_to(RiskLevel.CRITICAL, f"{how} over the system directory {target}",
                         block=True, reversible=False, root=True)
    elif any(c.startswith("/etc/ssh/sshd_config") for c in candidates(target)):
        verdict.raise_to(RiskLevel.HIGH, "edits the SSH server configuration", root=True)
    elif under_system(target) or any(c.startswith(("/dev/", "/proc/", "/sys/"))
                                     for c in candidates(target)):
        verdict.raise_to(RiskLevel.HIGH, f"{how} the system file {target}", root=True)
    elif dynamic(target):
        level = RiskLevel.CRITICAL if ctx.root else RiskLevel.HIGH
        verdict.raise_to(level, f"{how} a file named at run time ({target})",
                         block=ctx.root or ctx.network)
    else:
        verdict.raise_to(RiskLevel.LOW, f"{how} {target}")


_OS_TREES = ("/boot/", "/usr/", "/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/",
             "/var/lib/dpkg/", "/var/lib/rpm/", "/var/lib/pacman/")
_NOT_OS = ("/usr/local/", "/usr/src/", "/usr/share/doc/")


def os_tree(path: str) -> bool:
    """Inside the installed operating system (not /usr/local): removing a tree there
    breaks booting, the package manager or the programs themselves."""
    return any(c.startswith(_OS_TREES) and not c.startswith(_NOT_OS)
               for c in candidates(path) if c.startswith("/"))


def _unknown_target(verdict: Verdict, ctx: Context, what: str) -> None:
    verdict.raise_to(RiskLevel.CRITICAL if ctx.root or ctx.network else RiskLevel.HIGH,
                     f"{what} a path that cannot be known before it runs",
                     block=ctx.root or ctx.network, reversible=False)


# `$DIR/…`, `${DIR}/…`: with DIR empty or unset, a path from the root (`${DIR:?}/` stops)
_EMPTY_IS_ROOT = regex(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))(/.*)")


def _empty_is_system(word: str) -> str:
    """`$DIR/*` is `/*` when DIR is empty or unset: the path it then names, when that is
    the root or a system folder ("" otherwise; HOME is always set)."""
    found = _EMPTY_IS_ROOT.fullmatch(word)
    if found is None or (found.group(1) or found.group(2)) == "HOME" or "$" in found.group(3):
        return ""
    path = found.group(3)
    return path if path.rstrip("/*") == "" or is_system_path(path) or os_tree(path) else ""


def _rm(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    fl, ops = flags(argv), operands(argv)
    recursive = bool(fl & {"-r", "-R", "--recursive"}) or argv[0].rsplit("/", 1)[-1] == "rmdir"
    system = [o for o in ops if is_system_path(o)]
    if system and (recursive or any(c in ("/", "/*") for s in system for c in candidates(s))):
        verdict.raise_to(RiskLevel.CRITICAL, f"recursive deletion of {system[0]}", block=True,
                         reversible=False, root=True)
    elif any(is_vital(o) or is_boot(o) for o in ops):
        verdict.raise_to(RiskLevel.CRITICAL, "deletes files the machine needs to boot or log in",
                         block=True, reversible=False, root=True)
    elif recursive and any(os_tree(o) for o in ops):
        verdict.raise_to(RiskLevel.CRITICAL, "deletes part of the operating system "
                         f"({next(o for o in ops if os_tree(o))})", block=True,
                         reversible=False, root=True)
    elif recursive and any(_empty_is_system(o) for o in ops):
        word = next(o for o in ops if _empty_is_system(o))
        verdict.raise_to(RiskLevel.CRITICAL, f"deletes `{word}`, which is "
                         f"`{_empty_is_system(word)}` when {word.split('/', 1)[0]} is empty "
                         "or unset", block=True, reversible=False, root=True)
    elif any(dynamic(o) for o in ops):
        _unknown_target(verdict, ctx, "deletes")
    elif any(is_device(o) for o in ops):
        verdict.raise_to(RiskLevel.HIGH, "deletes a device node", reversible=False, root=True)
    elif ops and all(is_tmp(o) for o in ops):
        verdict.raise_to(RiskLevel.LOW, "deletes files under /tmp", reversible=False)
    elif any(under_system(o) for o in ops):
        verdict.raise_to(RiskLevel.HIGH, "deletes system files", reversible=False, root=True)
    else:
        verdict.raise_to(RiskLevel.HIGH, "deletes files outside /tmp", reversible=False)


def _dd(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    target = next((a[3:] for a in argv if a.startswith("of=")), "")
    if not target:
        verdict.raise_to(RiskLevel.MEDIUM, "copies raw data")
    elif target == "/dev/null":
        return
    else:
        judge_write(target, verdict, ctx, "writes raw data onto")
        verdict.raise_to(RiskLevel.MEDIUM, "copies raw data", reversible=False)


def _dd_family(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """dcfldd and dc3dd: dd's `of=`, plus their extra outputs (`of1=`, `hof=`, `wipe=`)."""
    outputs = [a.partition("=")[2] for a in argv[1:]
               if a.partition("=")[0] in ("of", "hof", "ofs", "hofs", "wipe", "hwipe")
               or re.fullmatch(r"of\d+", a.partition("=")[0])]
    for target in outputs:
        if target != "/dev/null":
            judge_write(target, verdict, ctx, "writes raw data onto")
    verdict.raise_to(RiskLevel.MEDIUM, "copies raw data", reversible=not outputs)


def _ddrescue(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """`ddrescue [options] INFILE OUTFILE [MAPFILE]`: OUTFILE is written block by block."""
    takes_value = {"-b", "-c", "-e", "-i", "-K", "-l", "-m", "-o", "-s", "-x", "-Z",
                   "-a", "-L", "-O"}
    ops: list[str] = []
    skip = False
    for arg in argv[1:]:
        if skip:
            skip = False
        elif arg in takes_value:
            skip = True
        elif not arg.startswith("-") or arg == "-":
            ops.append(arg)
    if len(ops) >= 2:
        judge_write(ops[1], verdict, ctx, "writes raw data onto")
    verdict.raise_to(RiskLevel.MEDIUM, "copies raw data", reversible=False)


def _shred(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    ops = operands(argv)
    if any(is_device(o) or is_system_path(o) or is_vital(o) or is_boot(o) for o in ops):
        verdict.raise_to(RiskLevel.CRITICAL, "shreds a disk or system files", block=True,
                         reversible=False, root=True)
    elif any(dynamic(o) for o in ops):
        _unknown_target(verdict, ctx, "shreds")
    else:
        verdict.raise_to(RiskLevel.HIGH, "destroys file contents beyond recovery",
                         reversible=False)


_SAFE_SYSTEM_MODES = {"755", "0755", "u=rwx,go=rx", "a+rx", "go+rx", "a+r", "go-w", "o-w",
                      "g-w", "u+rwx"}


def _setuid(mode: str) -> bool:
    if mode.isdigit():
        return len(mode) >= 4 and mode[-4] in "2467"
    return "s" in mode.partition("+")[2] or "s" in mode.partition("=")[2]


def _shells(paths: list[str]) -> bool:
    """Whether any path names a shell or an interpreter (which runs whatever it is told)."""
    return any(c.rsplit("/", 1)[-1] in SHELL_LIKE or c.rsplit("/", 1)[-1].startswith(
        ("python", "perl", "ruby", "bash")) for p in paths for c in candidates(p))


def _chmod_chown(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    program, fl, ops = argv[0].rsplit("/", 1)[-1], flags(argv), operands(argv)
    recursive = bool(fl & {"-R", "--recursive"})
    mode = ops[0] if ops else ""
    symbolic = next((a for a in argv[1:] if len(a) > 1 and a[0] == "-"
                     and set(a[1:]) <= set("rwxXst")), None)
    if program == "chmod" and symbolic:  # `chmod -x FILE`: a mode, not an option
        mode, ops = symbolic, [symbolic, *ops]
    paths = ops[1:]
    system = [p for p in paths if is_system_path(p)]
    if program == "chmod" and _setuid(mode) and _shells(paths):
        verdict.raise_to(RiskLevel.CRITICAL, "makes a shell or interpreter run as root for "
                         "anyone (setuid)", block=True, root=True)
    elif recursive and system:
        verdict.raise_to(RiskLevel.CRITICAL, f"recursive {program} of {system[0]}", block=True,
                         root=True)
    elif recursive and program == "chmod" and mode in ("777", "a+rwx", "ugo+rwx", "0777",
                                                       "o+w", "a+w", "666", "0666"):
        verdict.raise_to(RiskLevel.CRITICAL, "makes a whole tree world-writable", block=True)
    elif any(is_credential(p) or is_vital(p) for p in paths):
        verdict.raise_to(RiskLevel.CRITICAL, f"{program} on files logins depend on",
                         block=True, root=True)
    elif system and (program != "chmod" or mode not in _SAFE_SYSTEM_MODES) and any(
            c.count("/") <= 2 and c not in ("~", "$HOME")
            for s in system for c in candidates(s) if c.startswith("/")):
        verdict.raise_to(RiskLevel.CRITICAL, f"{program} {mode} on the system directory "
                         f"{system[0]}", block=True, root=True)
    elif program == "chmod" and _setuid(mode):
        verdict.raise_to(RiskLevel.HIGH, "sets the setuid/setgid bit", root=True)
    elif system or any(under_system(p) for p in paths):
        verdict.raise_to(RiskLevel.HIGH, f"{program} on system files", root=True)
    elif any(dynamic(p) for p in paths) and recursive:
        _unknown_target(verdict, ctx, f"recursive {program} of")
    else:
        verdict.raise_to(RiskLevel.MEDIUM if recursive else RiskLevel.LOW,
                         f"{'recursive ' if recursive else ''}{program}")


def _mv_cp(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    program, ops = argv[0].rsplit("/", 1)[-1], operands(argv)
    fl = flags(argv)
    target_dir = next((argv[i + 1] for i, a in enumerate(argv[:-1])
                       if a in ("-t", "--target-directory")), None)
    if target_dir is not None:
        sources, dest = [o for o in ops if o != target_dir], target_dir
    else:
        sources, dest = ops[:-1], (ops[-1] if ops else "")
    if program == "install":  # `install -m 4755 /bin/sh /tmp/x`: a setuid copy
        mode = next((argv[i + 1] if a in ("-m", "--mode") else a.partition("=")[2]
                     for i, a in enumerate(argv[:-1]) if a in ("-m", "--mode")
                     or a.startswith("--mode=")), "")
        if _setuid(mode) and _shells(sources):
            verdict.raise_to(RiskLevel.CRITICAL, "installs a shell or interpreter that runs "
                             "as root for anyone (setuid)", block=True, root=True)
        elif _setuid(mode):
            verdict.raise_to(RiskLevel.HIGH, "installs a program with the setuid/setgid bit",
                             root=True)
    moving = program == "mv"
    if moving and any(is_system_path(s) for s in sources):
        verdict.raise_to(RiskLevel.CRITICAL, f"moves the system directory {sources[0]}",
                         block=True, reversible=False, root=True)
    elif moving and any(is_vital(s) or is_boot(s) for s in sources):
        verdict.raise_to(RiskLevel.CRITICAL, "moves away files logins or boot depend on",
                         block=True, reversible=False, root=True)
    elif is_vital(dest) or is_device(dest):
        judge_write(dest, verdict, ctx, "overwrites")
    elif any(c in ("/", "/etc", "/usr", "/boot", "/bin", "/sbin", "/lib") for c in
             candidates(dest)) and (fl & {"-r", "-R", "-a", "--recursive", "--archive"}
                                    or moving):
        verdict.raise_to(RiskLevel.HIGH, f"{program} into {dest}", root=True)
    elif under_system(dest) or is_system_path(dest):
        verdict.raise_to(RiskLevel.HIGH, f"{program} into system files ({dest})", root=True)
    elif moving and any(under_system(s) for s in sources):
        verdict.raise_to(RiskLevel.HIGH, "moves system files", root=True)
    elif dynamic(dest) or (moving and any(dynamic(s) for s in sources)):
        _unknown_target(verdict, ctx, "moves files to" if moving else "copies onto")
    else:
        verdict.raise_to(RiskLevel.LOW, f"{'moves' if moving else 'copies'} files")


def _ln(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    ops = operands(argv)
    dest = ops[-1] if len(ops) >= 2 else ""
    if dest and (is_vital(dest) or is_device(dest)):
        verdict.raise_to(RiskLevel.CRITICAL, f"replaces {dest} with a link", block=True,
                         root=True)
    elif dest and (under_system(dest) or is_system_path(dest)):
        verdict.raise_to(RiskLevel.MEDIUM, "links into system directories", root=True)
    else:
        verdict.raise_to(RiskLevel.LOW, "creates links")


def _create(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    ops = operands(argv)
    if any(under_system(o) for o in ops):
        verdict.raise_to(RiskLevel.MEDIUM, f"{argv[0]} in system directories", root=True)
    else:
        verdict.raise_to(RiskLevel.LOW, f"{argv[0]} creates files")


def _truncate(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    ops = [o for i, o in enumerate(argv[1:], start=1)
           if not o.startswith("-") and argv[i - 1] not in ("-s", "--size", "-r",
                                                            "--reference")]
    if any(is_vital(o) or is_device(o) or is_boot(o) for o in ops):
        verdict.raise_to(RiskLevel.CRITICAL, "empties files the machine depends on",
                         block=True, root=True, reversible=False)
    elif any(under_system(o) for o in ops):
        verdict.raise_to(RiskLevel.HIGH, "changes the size of system files", reversible=False,
                         root=True)
    elif ops and all(is_tmp(o) for o in ops):
        verdict.raise_to(RiskLevel.LOW, "changes the size of a file under /tmp")
    else:
        verdict.raise_to(RiskLevel.HIGH, "empties or resizes files", reversible=False)


def _tee(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    for target in operands(argv):
        judge_write(target, verdict, ctx, "writes to")


def _output_option(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """Programs whose output file is an option (`sort -o FILE`, `curl -o FILE`, …)."""
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):  # the program's grammar read the options exactly
        return
    names = {"-o", "--output", "--output-document", "--out", "-out"}
    for i, arg in enumerate(argv[1:], start=1):
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        if name in names or (len(name) >= 3 and "--output".startswith(name)):  # --o, --ou
            target = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            if target and target != "-":
                judge_write(target, verdict, ctx)


_COMPRESSORS = {"gzip": ".gz", "gunzip": "", "bzip2": ".bz2", "bunzip2": "", "xz": ".xz",
                "unxz": "", "lzma": ".lzma", "lz4": ".lz4", "compress": ".Z", "uncompress": "",
                "zstd": ".zst", "unzstd": "", "pigz": ".gz", "pbzip2": ".bz2",
                "dos2unix": "", "unix2dos": ""}


def _replaces(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """Compressors and converters that replace the files they are given."""
    program, fl = argv[0].rsplit("/", 1)[-1], flags(argv)
    if fl & {"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test", "-h",
             "--help", "-V", "--version"}:
        return
    keeps = bool(fl & {"-k", "--keep"}) or (program in ("zstd", "lz4") and "--rm" not in fl)
    suffix = _COMPRESSORS.get(program, "")
    for op in operands(argv):
        if keeps:
            judge_write(op + suffix, verdict, ctx, f"{program} writes")
        else:
            judge_write(op, verdict, ctx, f"{program} replaces")


def _second_operand(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """`uniq IN OUT`, `xxd IN OUT`, `cmp`-like tools whose second operand is written."""
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):  # the grammar counted the operands after the options' values
        return
    ops = operands(argv)
    if len(ops) >= 2:
        judge_write(ops[1], verdict, ctx, f"{argv[0]} writes")


def _patch(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """`patch FILE < diff` changes FILE; without one, the files named in the diff."""
    ops = [a for i, a in enumerate(argv[1:], start=1)
           if not a.startswith("-") and argv[i - 1] not in ("-i", "--input", "-p", "-d",
                                                            "--directory", "-o", "--output",
                                                            "-r", "-B", "-z")]
    out = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("-o", "--output")), None)
    for target in ([out] if out else ops[:1]) or ["<files named in the patch>"]:
        judge_write(target, verdict, ctx, "patch changes")


def _ed(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    for target in operands(argv)[:1]:
        judge_write(target, verdict, ctx, f"{argv[0]} edits")


def _sudoedit(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """sudoedit: an editor on copies, written back as root when the person saves."""
    ops = [o for o in operands(argv) if o != "-"]
    if any(is_vital(o) or is_credential(o) for o in ops):
        verdict.raise_to(RiskLevel.HIGH, "edits files logins or boot depend on, as root",
                         root=True)
    elif any(under_system(o) or is_system_path(o) for o in ops):
        verdict.raise_to(RiskLevel.MEDIUM, "edits system files as root", root=True)
    else:
        verdict.raise_to(RiskLevel.LOW, "edits files as root", root=True)


def _scp(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """`scp SRC [user@]host:PATH`: PATH is written on that machine."""
    ops = [a for i, a in enumerate(argv[1:], start=1)
           if not a.startswith("-") and argv[i - 1] not in ("-P", "-i", "-o", "-F", "-l", "-S",
                                                            "-c", "-J")]
    if len(ops) < 2:
        return
    dest = ops[-1]
    host, colon, path = dest.partition(":")
    target = path if colon and "/" not in host else dest
    judge_write(target or "~", verdict, ctx, "copies over")


FILE_HANDLERS = {
    "scp": _scp, "sudoedit": _sudoedit,
    **{name: _replaces for name in _COMPRESSORS}, "uniq": _second_operand,
    "xxd": _second_operand, "patch": _patch, "ed": _ed, "sort": _output_option,
    "iconv": _output_option, "shuf": _output_option, "openssl": _output_option,
    "pandoc": _output_option,
    "rm": _rm, "rmdir": _rm, "unlink": _rm, "srm": _rm, "dd": _dd,
    "dcfldd": _dd_family, "dc3dd": _dd_family, "ddrescue": _ddrescue, "gddrescue": _ddrescue,
    "shred": _shred,
    "wipe": _shred, "chmod": _chmod_chown, "chown": _chmod_chown, "chgrp": _chmod_chown,
    "chattr": _chmod_chown, "setfacl": _chmod_chown, "mv": _mv_cp, "cp": _mv_cp,
    "install": _mv_cp, "ln": _ln, "truncate": _truncate, "tee": _tee, "mkdir": _create,
    "touch": _create, "mkfifo": _create, "mknod": _create,
}
