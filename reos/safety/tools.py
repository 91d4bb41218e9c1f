"""Code carried by everyday tools that are not interpreters: git (-c core.pager, aliases,
GIT_SSH_COMMAND), man (-P, MANPAGER), tar (--to-command, --checkpoint-action, -I),
rsync (-e, --rsync-path, --delete), vim (-c '!…'), gdb (-ex 'shell …'), fd (-x),
sqlite3 (writefile(), .shell, .output).

Each returns a `Carried` (see `code_scan`) saying what the argv runs, writes or deletes.
Not responsible for judging what is found.
"""

from __future__ import annotations

from reos.safety.code_scan import Carried, judge_code, literals


def fd(argv: list[str]) -> Carried:
    """`fd PATTERN -x CMD` / `-X CMD`: CMD runs on every match, like find -exec."""
    out = Carried()
    for i, arg in enumerate(argv):
        if arg in ("-x", "--exec", "-X", "--exec-batch") and i + 1 < len(argv):
            command = []
            for word in argv[i + 1:]:
                if word == ";":
                    break
                command.append(word)
            if command:
                out.argvs.append(("fd --exec", [w.replace("{}", "<match>") for w in command]))
    return out


def vim(argv: list[str]) -> Carried:
    """`vim -c ':!CMD'`, `vim +'!CMD'`, `--cmd`, `:call system("…")`: commands it runs."""
    out = Carried()
    commands: list[str] = []
    for i, arg in enumerate(argv[1:], start=1):
        if arg in ("-c", "--cmd", "-S") and i + 1 < len(argv):
            commands.append(argv[i + 1] if arg != "-S" else "")
            if arg == "-S":
                out.unknown.append(f"{argv[0]} runs the commands in {argv[i + 1]}")
        elif arg.startswith("+") and len(arg) > 1:
            commands.append(arg[1:])
    for command in commands:
        text = command.lstrip(": ")
        if text.startswith(("!", "r !", "r!", "w !", "w!", "silent !", "silent!")):
            out.scripts.append((f"{argv[0]} !", text.split("!", 1)[1]))
        elif "system(" in text or "systemlist(" in text or "terminal" in text:
            judge_code(text, argv[0], out)
    out.mutates.append(f"{argv[0]} edits files")
    return out


def gdb(argv: list[str]) -> Carried:
    out = Carried()
    for i, arg in enumerate(argv[1:], start=1):
        if arg in ("-ex", "--ex", "-eval-command", "--eval-command") and i + 1 < len(argv):
            text = argv[i + 1].strip()
            if text.startswith(("shell ", "!", "pipe ", "|")):
                out.scripts.append(("gdb shell", text.lstrip("!|").removeprefix("shell ")
                                    .removeprefix("pipe ")))
            elif text.startswith(("python", "py ")):
                judge_code(text, "gdb", out)
    out.mutates.append("gdb runs and changes programs")
    return out


# -- git, man ------------------------------------------------------------------------------

_GIT_CODE_KEYS = ("pager", "editor", "sshcommand", "fsmonitor", "askpass", "hookspath",
                  "gitproxy", "external", "textconv", "clean", "smudge", "process",
                  "helper", "uploadpack", "receivepack", "sequenceeditor", "command",
                  "program", "cmd", "tool", "difftool", "mergetool", "alternaterefscommand",
                  "proxycommand", "exec")

def git(argv: list[str], env: dict[str, str]) -> Carried:
    out = Carried()
    for name in ("GIT_PAGER", "GIT_EDITOR", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS",
                 "GIT_EXTERNAL_DIFF", "GIT_SEQUENCE_EDITOR", "PAGER", "EDITOR", "VISUAL",
                 "GIT_PROXY_COMMAND", "SSH_ASKPASS", "LESSOPEN"):
        if name in env and not _plain_pager(name, env[name]):
            out.scripts.append((f"git {name}", env[name].lstrip("|")))
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        arg = argv[i]
        if arg in ("-c", "--config-env") and i + 1 < len(argv):
            _git_config(argv[i + 1], out)
            i += 2
            continue
        if arg.startswith("-c") and len(arg) > 2:
            _git_config(arg[2:], out)
        elif arg.startswith("--exec-path="):
            out.unknown.append("git runs its commands from another directory")
        elif arg in ("-C", "--git-dir", "--work-tree", "--namespace", "--exec-path"):
            if arg == "--exec-path":
                out.unknown.append("git runs its commands from another directory")
            i += 2
            continue
        i += 1
    verb = argv[i] if i < len(argv) else ""
    rest = argv[i + 1:]
    from reos.safety.grammar import is_read_only

    if not is_read_only(argv):  # git's read-only grammar says what only reads
        out.mutates.append(f"git {verb}".strip())
    for arg in rest:
        if arg.startswith(("--upload-pack=", "--receive-pack=", "--exec=", "--extcmd=",
                           "--tool=")):
            out.scripts.append(("git " + arg.split("=", 1)[0], arg.split("=", 1)[1]))
        elif arg.startswith("--output="):
            out.writes.append(arg.split("=", 1)[1])
    return out


def _git_config(item: str, out: Carried) -> None:
    """`git -c KEY=VALUE`: the code a key runs (a pager, an alias); whether the key keeps
    the command read-only is the grammar's to say."""
    key, _, value = item.partition("=")
    low = key.lower()
    if low.startswith("alias."):
        if value.startswith("!"):
            out.scripts.append((f"git alias {key[6:]}", value[1:]))
        return
    if any(low.endswith(k) for k in _GIT_CODE_KEYS) and value:
        out.scripts.append((f"git -c {key}", value))


def man(argv: list[str], env: dict[str, str]) -> Carried:
    out = Carried()
    for name in ("MANPAGER", "PAGER", "BROWSER", "MANROFFSEQ", "LESSOPEN", "MANOPT"):
        if name in env and not _plain_pager(name, env[name]):
            out.scripts.append((f"man {name}", env[name].lstrip("|")))
    for i, arg in enumerate(argv[1:], start=1):
        value = None
        if arg in ("-P", "--pager", "-H", "--html") and i + 1 < len(argv) and arg in (
                "-P", "--pager"):
            value = argv[i + 1]
        elif arg.startswith(("--pager=", "--html=")):
            value = arg.split("=", 1)[1]
        elif arg.startswith(("-P", "-H")) and len(arg) > 2:
            value = arg[2:]
        elif arg in ("-H", "--html"):
            out.mutates.append("man opens a browser")
        if value is not None and not _plain_pager("PAGER", value):
            out.scripts.append(("man pager", value))
    return out


def _plain_pager(name: str, value: str) -> bool:
    """`PAGER=cat`, `-P less`: a pager that only shows the text (the same list the
    read-only grammar takes for *PAGER variables)."""
    from reos.safety.grammar_checks import safe_assignment

    return name.endswith("PAGER") and safe_assignment(f"{name}={value}")


# -- tar, rsync ----------------------------------------------------------------------------

_TAR_CODE = ("--to-command", "--checkpoint-action", "--use-compress-program", "--info-script",
             "--new-volume-script", "--rsh-command", "--rmt-command", "-I", "-F")


def tar(argv: list[str]) -> Carried:
    out = Carried()
    args = argv[1:]
    if args and not args[0].startswith("-"):
        args = ["-" + args[0], *args[1:]]  # old style: `tar xzf a.tar`
    letters: set[str] = set()
    directory = ""
    archive = ""
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if name in _TAR_CODE or (arg in ("-I", "-F") and i + 1 < len(args)):
            code = value if eq else (args[i + 1] if i + 1 < len(args) else "")
            if name == "--checkpoint-action":
                code = code.partition("=")[2] if code.startswith(("exec", "sh")) else ""
            if code:
                out.scripts.append((f"tar {name}", code))
            i += 1 if eq else 2
            continue
        if name in ("-C", "--directory"):
            directory = value if eq else (args[i + 1] if i + 1 < len(args) else "")
            i += 1 if eq else 2
            continue
        if name in ("-f", "--file"):
            archive = value if eq else (args[i + 1] if i + 1 < len(args) else "")
            i += 1 if eq else 2
            continue
        if name in ("--extract", "--get"):
            letters.add("x")
        elif name in ("--create", "--append", "--update", "--delete", "--concatenate"):
            letters.add("c")
        elif name == "--remove-files":
            out.mutates.append("tar deletes the files it archives")
        elif name == "--list":
            letters.add("t")
        elif arg.startswith("-") and not arg.startswith("--"):
            for k, ch in enumerate(arg[1:], start=1):
                letters.add(ch)
                if ch == "f":
                    archive = arg[k + 1:] or (args[i + 1] if i + 1 < len(args) else "")
                    if not arg[k + 1:]:
                        i += 1
                    break
                if ch == "C":
                    directory = arg[k + 1:] or (args[i + 1] if i + 1 < len(args) else "")
                    if not arg[k + 1:]:
                        i += 1
                    break
        i += 1
    if letters & {"x"} and not (letters & {"O"} or "--to-stdout" in args):  # -xO: prints
        out.mutates.append("tar extracts files into " + (directory or "."))
        out.extracts_into = directory or "."
    if letters & {"c", "r", "u", "A"} and archive and archive != "-":
        out.writes.append(archive)
    return out


def rsync(argv: list[str], env: dict[str, str] | None = None) -> Carried:
    out = Carried()
    if (env or {}).get("RSYNC_RSH"):  # the remote shell, run here like `-e`
        out.scripts.append(("rsync RSYNC_RSH", (env or {})["RSYNC_RSH"]))
    operands: list[str] = []
    deleting = False
    i = 1
    while i < len(argv):
        arg = argv[i]
        name, eq, value = arg.partition("=")
        if name in ("-e", "--rsh", "--rsync-path"):
            code = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            out.scripts.append((f"rsync {name}", code))
            i += 1 if eq else 2
            continue
        if name.startswith("--delete") or name in ("--remove-source-files",):
            deleting = True
        elif arg.startswith("-") and not arg.startswith("--") and "e" in arg[1:]:
            code = arg[arg.index("e") + 1:] or (argv[i + 1] if i + 1 < len(argv) else "")
            out.scripts.append(("rsync -e", code))
            i += 1 if arg[arg.index("e") + 1:] else 2
            continue
        elif not arg.startswith("-"):
            operands.append(arg)
        i += 1
    if len(operands) >= 2:
        dest = operands[-1]
        host, colon, path = dest.partition(":")
        if colon and "/" not in host:  # host:PATH is written on that machine
            dest = path.lstrip(":") or "~"
        out.writes.append(dest)
        if deleting:
            out.deletes.append(dest)
    out.mutates.append("rsync copies files")
    return out


def ssh_client(argv: list[str]) -> Carried:
    """scp and sftp: `-S PROGRAM` is run to connect, `-o ProxyCommand=…` runs here."""
    from reos.safety.launch import ssh_option_commands

    out = Carried()
    out.scripts += [(f"{argv[0]} -o", text) for text in ssh_option_commands(argv[1:])]
    for i, arg in enumerate(argv[1:-1], start=1):
        if arg == "-S":
            out.argvs.append((f"{argv[0]} -S", [argv[i + 1]]))
        elif arg.startswith("-S") and len(arg) > 2 and arg[2] != "-":
            out.argvs.append((f"{argv[0]} -S", [arg[2:]]))
    return out


def zip_test(argv: list[str]) -> Carried:
    """zip `-TT CMD` / `--unzip-command CMD`: CMD is run to test the archive."""
    out = Carried()
    for i, arg in enumerate(argv[1:], start=1):
        name, eq, value = arg.partition("=")
        if name in ("-TT", "--unzip-command"):
            command = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            if command:
                out.scripts.append((f"zip {name}", command))
    return out


_SQL_CHANGES = ("insert", "update", "delete", "drop", "create", "alter", "replace",
                "vacuum", "reindex", "attach", "detach", "begin", "commit")


def sqlite(argv: list[str]) -> Carried:
    """sqlite3's SQL and dot-commands: `writefile('F', …)`, `VACUUM INTO 'F'`, `ATTACH 'F'`,
    `.output F` and `.once F` write F; `.shell`/`.system` and `.output |CMD` run commands;
    `load_extension()`, `.load` and `-init FILE` run code reos cannot see; statements that
    change the database change it. A plain SELECT is found harmless here (the program is
    still not proved read-only: that needs its own grammar)."""
    out = Carried()
    texts: list[str] = []
    words = argv[1:]
    i, seen_db = 0, False
    while i < len(words):
        word = words[i]
        if word in ("-init", "-cmd") and i + 1 < len(words):
            if word == "-init":
                out.unknown.append(f"sqlite3 runs the commands in {words[i + 1]}")
            else:
                texts.append(words[i + 1])
            i += 2
            continue
        if not word.startswith("-"):
            if seen_db:
                texts.append(word)
            seen_db = True
        i += 1
    for text in texts:
        for line in text.splitlines() or [text]:
            _sqlite_line(line.strip(), out)
    return out


def _sqlite_line(line: str, out: Carried) -> None:
    lowered = line.lower()
    if line.startswith("."):
        command, _, rest = line[1:].partition(" ")
        rest = rest.strip().strip("'\"")
        if command in ("shell", "system"):
            out.scripts.append((f"sqlite3 .{command}", rest))
        elif command in ("output", "once", "excel", "backup", "save", "dump") and rest:
            if rest.startswith("|"):
                out.scripts.append((f"sqlite3 .{command}", rest[1:]))
            elif command != "dump":
                out.writes.append(rest.split()[-1] if command in ("backup", "save") else rest)
        elif command in ("load", "open", "import", "restore", "read", "clone", "recover"):
            out.unknown.append(f"sqlite3 .{command} {rest[:40]}".strip())
        return
    for marker in ("writefile(", "vacuum into", "attach"):  # the file named next
        at = lowered.find(marker)
        while at >= 0:
            found = literals(line[at + len(marker):], limit=1)
            out.writes.append(found[0] if found else "a file named at run time")
            at = lowered.find(marker, at + 1)
    if "load_extension(" in lowered or "edit(" in lowered:
        out.unknown.append("sqlite3 loads or runs code the command line does not show")
    for statement in lowered.split(";"):
        first = statement.strip().split(" ", 1)[0]
        if first in _SQL_CHANGES or ("pragma" in first and "=" in statement):
            out.mutates.append("sqlite3 changes the database")
