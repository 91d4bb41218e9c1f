"""Code carried inside the arguments of tools that look harmless: awk, sed, find, git, man,
tar, rsync, scp/sftp/zip options that run local commands, and interpreter one-liners
(`python3 -c`, `perl -e`, `node --eval`, Tcl's bare `exec`, …).

`carried(argv, env)` returns what such an argv can do besides reading: shell text it runs
(`awk 'BEGIN{system("…")}'`, `sed 's/x/y/e'`, `man -P`, `git -c core.pager=…`,
`tar --to-command=…`, `rsync -e …`), commands it runs on files (`find -exec`), files it
writes (`sed w FILE`, `awk print > FILE`, `find -fprint FILE`) or deletes, and code that
cannot be known statically. Every scan here is a single pass over the text (no regular
expression with nested repetition or back-references), so hostile input stays linear.

Not responsible for judging what is found (`risk` does, recursively), for what a one-liner's
text can do (`code_scan`) or for programs that only launch other programs (`launchers`).
"""

from __future__ import annotations

from reos.safety import tools  # the other carriers (git, man, tar, …)
from reos.safety.code_scan import Carried, judge_code, literals
from reos.safety.programs import AWKS, INTERPRETERS, code_option, interpreter_name

__all__ = ["carried", "interpreter"]


def carried(argv: list[str], env: dict[str, str] | None = None) -> Carried | None:
    program = argv[0].rsplit("/", 1)[-1]
    env = env or {}
    if program in AWKS:
        return _awk(argv)
    if program in ("sed", "gsed"):
        return _sed(argv)
    if program == "find":
        return _find(argv)
    if program == "git":
        return tools.git(argv, env)
    if program == "man":
        return tools.man(argv, env)
    if program in ("tar", "bsdtar", "gtar"):
        return tools.tar(argv)
    if program == "rsync":
        return tools.rsync(argv, env)
    if program in ("less", "more", "most"):
        out = Carried()
        out.scripts += [(f"{program} LESSOPEN", env[k].lstrip("|"))
                        for k in ("LESSOPEN", "LESSCLOSE") if k in env]
        for arg in argv[1:]:  # less '+!CMD' runs CMD as soon as it starts
            if arg.startswith("+") and "!" in arg:
                out.scripts.append((f"{program} +!", arg.split("!", 1)[1]))
        return out
    if program in ("fd", "fdfind"):
        return tools.fd(argv)
    if program in ("scp", "sftp"):
        return tools.ssh_client(argv)
    if program == "zip":
        return tools.zip_test(argv)
    if program in ("vim", "vi", "nvim", "ex", "view", "vimdiff", "rvim"):
        return tools.vim(argv)
    if program == "gdb":
        return tools.gdb(argv)
    if program == "sqlite3":
        return tools.sqlite(argv)
    if interpreter_name(program) is not None:
        return interpreter(argv)
    return None


# -- awk -----------------------------------------------------------------------------------

def _awk(argv: list[str]) -> Carried:
    out = Carried()
    program: str | None = None
    files: list[str] = []
    i = 1
    inplace = False
    while i < len(argv):
        arg = argv[i]
        if arg in ("-F", "-v", "--assign", "--field-separator"):
            i += 2
            continue
        if arg in ("-f", "--file", "-E", "--exec"):
            where = argv[i + 1] if i + 1 < len(argv) else "a file"
            out.unknown.append(f"{argv[0]} runs the program in {where}")
            program = ""
            i += 2
            continue
        if arg in ("-i", "--include", "-l", "--load"):
            if i + 1 < len(argv) and argv[i + 1] == "inplace":
                inplace = True
            else:
                out.unknown.append(f"{argv[0]} loads code")
            i += 2
            continue
        if arg in ("-e", "--source") and i + 1 < len(argv):
            program = (program or "") + "\n" + argv[i + 1]
            i += 2
            continue
        if arg.startswith("-") and program is None and len(arg) > 1:
            if arg.startswith(("-F", "-v")):
                i += 1
                continue
            i += 1
            continue
        if program is None:
            program = arg
        elif "=" not in arg:
            files.append(arg)
        i += 1
    if inplace:
        out.writes += files
    _awk_code(program or "", argv[0], out)
    return out


def _awk_code(code: str, name: str, out: Carried) -> None:
    lits = None
    if "system" in code or "|" in code.replace("||", ""):
        lits = literals(code)
        runs = [s for s in lits if " " in s or "/" in s] or lits
        if runs:
            out.scripts += [(f"{name} runs", s) for s in runs]
        if "system" in code or "getline" in code or "|" in code.replace("||", ""):
            out.mutates.append(f"{name} runs commands")
        at = code.find("system")
        after = code[at + len("system"):].lstrip("( \t") if at >= 0 else ""
        if at >= 0 and not after.startswith(("\"", "'")):
            out.runs_input = True  # system($0), system(cmd): commands made from its input
        if not lits and not out.runs_input:
            out.unknown.append(f"{name} runs commands it builds at run time")
    # print/printf with > or >> writes a file
    for segment in _segments(code, ";{}\n"):
        at = segment.find("print")
        if at >= 0 and ">" in segment[at:]:
            target = literals(segment[segment.index(">", at):], 1)
            if target:
                out.writes.append(target[0])
            else:
                out.mutates.append(f"{name} writes to a file named at run time")


def _segments(text: str, cuts: str) -> list[str]:
    out: list[str] = []
    start = 0
    for i, ch in enumerate(text):
        if ch in cuts:
            if i > start:
                out.append(text[start:i])
            start = i + 1
    if start < len(text):
        out.append(text[start:])
    return out


# -- sed -----------------------------------------------------------------------------------

def _sed(argv: list[str]) -> Carried:
    out = Carried()
    scripts: list[str] = []
    files: list[str] = []
    inplace = False
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg in ("-e", "--expression") and i + 1 < len(argv):
            scripts.append(argv[i + 1])
            i += 2
            continue
        if arg.startswith("--expression="):
            scripts.append(arg.partition("=")[2])
        elif arg in ("-f", "--file"):
            where = argv[i + 1] if i + 1 < len(argv) else "a file"
            out.unknown.append(f"sed runs the script in {where}")
            scripts.append("")
            i += 2
            continue
        elif arg in ("-l", "--line-length"):
            i += 2
            continue
        elif arg.startswith("--in-place") or (arg.startswith("-") and not arg.startswith("--")
                                               and "i" in arg[1:].split("e")[0]
                                               and len(arg) > 1):
            inplace = True
        elif arg.startswith("-") and len(arg) > 1:
            if arg.startswith("-") and not arg.startswith("--") and arg.endswith("e") \
                    and i + 1 < len(argv):
                scripts.append(argv[i + 1])
                i += 2
                continue
        elif not scripts:
            scripts.append(arg)
        else:
            files.append(arg)
        i += 1
    for script in scripts:
        _sed_script(script, out)
    if inplace:
        out.writes += files or ["<files>"]
    return out


def _sed_script(script: str, out: Carried) -> None:
    """One pass over a sed script: commands `e`, `w`, `W`, and `s///` flags `e`, `w`."""
    i, n = 0, len(script)

    def rest_of_line(k: int) -> tuple[str, int]:
        end = script.find("\n", k)
        end = n if end < 0 else end
        return script[k:end].strip(), end

    while i < n:
        ch = script[i]
        if ch in " \t\n;!{}":
            i += 1
            continue
        if ch.isdigit() or ch in "$,~+":  # addresses
            i += 1
            continue
        if ch == "/" or (ch == "\\" and i + 1 < n):  # /regex/ or \cregexc address
            delim = "/" if ch == "/" else script[i + 1]
            i = _skip_delimited(script, i + (1 if ch == "/" else 2), delim)
            while i < n and script[i] in "IM":
                i += 1
            continue
        if ch == ":" or ch in "btT":  # labels
            end = min([p for p in (script.find(";", i), script.find("\n", i)) if p >= 0]
                      or [n])
            i = end
            continue
        if ch in "aic":  # text to the end of the line
            _, i = rest_of_line(i + 1)
            continue
        if ch == "e":
            command, i = rest_of_line(i + 1)
            if command:
                out.scripts.append(("sed e", command))
            else:
                out.runs_input = True
            continue
        if ch in "wW":
            target, i = rest_of_line(i + 1)
            out.writes.append(target or "<a file>")
            continue
        if ch in "rR":
            _, i = rest_of_line(i + 1)
            continue
        if ch in "sy" and i + 1 < n:
            delim = script[i + 1]
            j = _skip_delimited(script, i + 2, delim)
            j = _skip_delimited(script, j, delim)
            if ch == "y":
                i = j
                continue
            k = j
            while k < n and script[k] not in ";\n}":
                if script[k] == "e":
                    out.runs_input = True
                    replacement = script[i + 2:j - 1].split(delim, 1)[-1]
                    if replacement:
                        out.scripts.append(("sed s///e", replacement.replace("\\" + delim,
                                                                             delim)))
                if script[k] == "w":
                    target, k = rest_of_line(k + 1)
                    out.writes.append(target or "<a file>")
                    break
                k += 1
            i = k
            continue
        i += 1


def _skip_delimited(script: str, i: int, delim: str) -> int:
    n = len(script)
    while i < n and script[i] != delim:
        i += 2 if script[i] == "\\" else 1
    return i + 1


# -- find ----------------------------------------------------------------------------------

_FIND_VALUE = {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex",
               "-iregex", "-type", "-xtype", "-maxdepth", "-mindepth", "-newer", "-anewer",
               "-cnewer", "-perm", "-user", "-group", "-uid", "-gid", "-size", "-mtime",
               "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-inum", "-links",
               "-samefile", "-fstype", "-lname", "-ilname", "-used", "-context",
               "-regextype", "-printf", "-files0-from", "-newermt", "-D", "-O"}


def _find(argv: list[str]) -> Carried:
    out = Carried()
    roots: list[str] = []
    i = 1
    while i < len(argv) and not argv[i].startswith(("-", "(", "!", "\\(")):
        roots.append(argv[i])
        i += 1
    roots = roots or ["."]
    name = next((argv[k + 1] for k in range(i, len(argv) - 1)
                 if argv[k] in ("-name", "-iname")), None)
    while i < len(argv):
        arg = argv[i]
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(argv) and argv[j] not in (";", "+", "\\;"):
                j += 1
            command = argv[i + 1:j]
            if command:
                for root in roots[:4]:
                    out.argvs.append((f"find {arg}", _applied(command, root, name)))
            i = j + 1
            continue
        if arg == "-delete":
            out.deletes += roots
        elif arg in ("-fprint", "-fprint0", "-fls", "-fprintf") and i + 1 < len(argv):
            out.writes.append(argv[i + 1])
            i += 3 if arg == "-fprintf" else 2
            continue
        elif arg in _FIND_VALUE:
            i += 2
            continue
        i += 1
    return out


_RECURSIVE_FLAG = {"rm": "-r", "chmod": "-R", "chown": "-R", "chgrp": "-R", "setfacl": "-R",
                   "chattr": "-R", "shred": "", "unlink": "", "rmdir": "", "truncate": "",
                   "mv": ""}


def _applied(command: list[str], root: str, name: str | None = None) -> list[str]:
    """`find ROOT … -exec CMD {}`: CMD applied to everything under ROOT. For programs that
    delete or change what they are given that is `CMD -R ROOT`, which is how it is judged;
    other programs get the worst match: ROOT/NAME (`-name NAME`), under /etc for `/`."""
    from reos.safety.launchers import LAUNCHERS
    from reos.safety.paths import expendable, normalise

    absolute = root.startswith(("/", "~", "$HOME", "${HOME}")) and not expendable(root)
    program = command[0].rsplit("/", 1)[-1]
    runs_anything = program in LAUNCHERS or program in INTERPRETERS
    if absolute and (program in _RECURSIVE_FLAG or (runs_anything and not name)):
        target = root  # find's first match is ROOT itself
    else:
        base = "/etc" if normalise(root) == "/" else root.rstrip("/")
        target = base + "/" + (name or "<match>")
    out = [a.replace("{}", target) for a in command]
    flag = _RECURSIVE_FLAG.get(program)
    if flag and absolute:
        out.insert(1, flag)
    return out


# -- interpreters --------------------------------------------------------------------------

def interpreter(argv: list[str]) -> Carried:
    """An interpreter's argv: the code it runs (one-liner, stdin, file, module)."""
    program = argv[0].rsplit("/", 1)[-1]
    out = Carried()
    code_parts: list[str] = []
    i = 1
    operands: list[str] = []
    inplace = False
    while i < len(argv):
        arg = argv[i]
        is_code, attached = code_option(program, arg)
        if is_code and (attached is not None or i + 1 < len(argv)):
            code_parts.append(attached if attached is not None else argv[i + 1])
            i += 2 if attached is None else 1
            continue
        if program.startswith(("perl", "ruby")) and _cluster(arg) and "i" in arg[1:]:
            inplace = True
        if program.startswith(("perl", "ruby")) and _cluster(arg) and arg[-1] in "eE" \
                and i + 1 < len(argv):
            code_parts.append(argv[i + 1])  # perl -ne / -pe / -lne / -pie
            i += 2
            continue
        if arg == "-m" and program.startswith("python") and i + 1 < len(argv):
            out.mutates.append(f"{program} runs the module {argv[i + 1]}")
            return out
        if not arg.startswith("-") or arg == "-":
            if code_parts:  # after the code: the files it reads (or edits with -i)
                operands.extend(a for a in argv[i:] if not a.startswith("-"))
            else:
                operands.append(arg)
            break
        i += 1
    if code_parts:
        judge_code("\n".join(code_parts), program, out)
        if inplace:
            out.writes += operands or ["<files>"]
    elif operands and operands[0] != "-":
        out.mutates.append(f"{program} runs the program {operands[0]}")
    return out


def _cluster(arg: str) -> bool:
    """`-pie`, `-ne`, `-i.bak`: single-letter switches (not `-MFile::Path=rmtree`)."""
    if not arg.startswith("-") or arg.startswith(("--", "-M", "-m", "-I", "-x", "-C")):
        return False
    body = arg[1:]
    if body.startswith("i") or "i" in body:
        body = body.split("i", 1)[0] + "i"  # -i.bak: a backup suffix follows -i
    return body.isalpha()
