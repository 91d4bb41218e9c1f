"""What a piece of code can do, read from its text without running it, and the record of
what an argv carries (`Carried`): the quoted literals of code (`literals`) and the commands,
writes, deletions, forks and reverse shells of an interpreter one-liner (`judge_code`).
Shared by the carriers (`payloads`, `tools`), which find the code in an argv. Every scan is
a single pass over the text, so hostile input stays linear.

Not responsible for finding code in an argv (`payloads`, `tools`) or for judging what is
found (`judge_code`'s `CodeJudge`, `risk`).
"""

from __future__ import annotations

import re

from msgspec import Struct, field

__all__ = ["MAX_LITERALS", "Carried", "judge_code", "literals"]

_SHELL_OUT = ("system", "popen", "exec", "spawn", "subprocess", "shell_exec", "passthru",
              "proc_open", "child_process", "execSync", "execFile", "os.execv", "qx",
              "Runtime", "IO.popen", "Open3", "pcntl_exec", "os.execute", "io.popen", "`",
              "Process", "check_output", "check_call", "getoutput", "getstatusoutput",
              "pty.spawn", "Popen", "run(", "call(", "ProcessBuilder")
_DELETES = ("rmtree", "unlink", "remove", "rmdir", "rmSync", "rm_rf", "rm_r", "rimraf",
            "truncate", "File.delete", "FileUtils.rm", "fs.rm", "os.rename", "rename",
            "shutil.move", "os.replace", "write_text", "write_bytes", "writeFile",
            "File.write", "file_put_contents", "chmod", "chown", "ftruncate", "mkfs")
# copy, link or install a file: the destination (a later argument) is written
_COPIES = ("copy", "cpSync", "FileUtils.cp", "FileUtils.install", "FileUtils.ln", "symlink",
           "link(", "ln_s", "File.link")
_WRITE_OPENS = ("'w'", '"w"', "'wb'", '"wb"', "'a'", '"a"', "'w+'", '"w+"', "'r+'", '"r+"',
                ">", "O_WRONLY", "O_RDWR", "O_TRUNC")
MAX_LITERALS = 200
# a one-liner that opens a network connection and gives it a shell: a reverse shell
_CONNECTS = ("socket", "fsockopen", "TCPSocket", "net.Socket", "IO::Socket", "connect(",
             "/dev/tcp/")
_SHELL_HANDS = ("/bin/sh", "/bin/bash", "sh -i", "bash -i", "pty.spawn", "dup2(",
                "'sh'", '"sh"', "'bash'", '"bash"', "cmd.exe")


class Carried(Struct):
    """What an argv can do besides reading, as found by the carriers."""

    scripts: list[tuple[str, str]] = field(default_factory=list)  # (how, shell text)
    argvs: list[tuple[str, list[str]]] = field(default_factory=list)  # (how, argv)
    writes: list[str] = field(default_factory=list)  # files it writes
    deletes: list[str] = field(default_factory=list)  # what it deletes (find -delete)
    unknown: list[str] = field(default_factory=list)  # code that cannot be known
    mutates: list[str] = field(default_factory=list)  # other changes (not read-only)
    code_paths: list[str] = field(default_factory=list)  # paths a one-liner deletes/writes
    fork_bomb: bool = False
    connects_back: bool = False  # opens a connection and hands it a shell
    runs_input: bool = False  # runs the text it reads (awk system($0), sed e) as commands
    extracts_into: str | None = None  # tar -x: the directory files are unpacked into

    @property
    def read_only(self) -> bool:
        # commands it runs (`argvs`, `scripts`) are judged, read-only or not, on their own
        return not (self.scripts or self.writes or self.deletes or self.unknown
                    or self.mutates or self.code_paths or self.fork_bomb or self.runs_input)


def literals(code: str, limit: int = MAX_LITERALS) -> list[str]:
    """The quoted string literals of a piece of code (one linear pass)."""
    out: list[str] = []
    i, n = 0, len(code)
    while i < n and len(out) < limit:
        quote = code[i]
        if quote == "q" and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")):
            # perl's q(…), qq{…}, qx[…], qw<…>: quotes with brackets
            j = i + 1 + (1 if i + 1 < n and code[i + 1] in "qxw" else 0)
            if j < n and code[j] in "({[</|!":
                closer = {"(": ")", "{": "}", "[": "]", "<": ">"}.get(code[j], code[j])
                end = code.find(closer, j + 1)
                end = n if end < 0 else end
                out.append(code[j + 1:end])
                i = end + 1
                continue
        if quote not in "'\"`":
            i += 1
            continue
        j = i + 1
        buf: list[str] = []
        while j < n and code[j] != quote:
            if code[j] == "\\" and j + 1 < n:
                buf.append(code[j + 1])
                j += 2
                continue
            buf.append(code[j])
            j += 1
        out.append("".join(buf))
        i = j + 1
    return out


def _bare_commands(code: str, program: str) -> list[str]:
    """Tcl (expect, tclsh) runs commands written as bare words: `exec rm -rf /`,
    `spawn ssh host`, `[exec ls]`; each segment after such a word is a command."""
    if not program.startswith(("expect", "tclsh", "wish")):
        return []
    out: list[str] = []
    for segment in re.split(r"[;\n\[\]{}]", code)[:MAX_LITERALS]:
        words = segment.split()
        if len(words) >= 2 and words[0] in ("exec", "spawn", "system"):
            words = words[1:]
            while words and words[0] in ("-noecho", "-console", "-nottycopy", "-nottyinit",
                                         "-pty", "-keepnewline", "-ignorestderr", "--"):
                words = words[1:]  # the Tcl command's own switches
            out.append(" ".join(w.strip("\"'") for w in words))
    return out


def judge_code(code: str, program: str, out: Carried) -> None:
    """What a one-liner can do: commands it runs, paths it deletes or writes, forks."""
    shells_out = any(word in code for word in _SHELL_OUT)
    deletes = any(word in code for word in _DELETES) or (
        "open" in code and any(mode in code for mode in _WRITE_OPENS))
    copies = any(word in code for word in _COPIES)
    lits = literals(code) if shells_out or deletes or copies else []
    if copies:  # copy(SRC, DEST): reading SRC is harmless, DEST is overwritten
        out.writes += [s for s in lits if s.startswith(("/", "~", "$HOME"))][1:] or []
        out.mutates.append(f"{program} one-liner copies or links files")
    if shells_out:
        commands = [s for s in lits if s.strip()] + _bare_commands(code, program)
        for s in commands:
            out.scripts.append((f"{program} runs", s))
        if len(commands) > 1:  # an argv list: ["rm", "-rf", "/"], spawn('rm', ['-rf', …])
            out.scripts.append((f"{program} runs", " ".join(commands)))
            starts = [i for i, c in enumerate(commands[1:], start=1)
                      if re.fullmatch(r"[a-z][a-z0-9_.+-]{0,31}", c)][:6]
            out.scripts += [(f"{program} runs", " ".join(commands[i:])) for i in starts]
        if not commands:
            out.unknown.append(f"{program} runs commands it builds at run time")
        out.mutates.append(f"{program} one-liner runs commands")
    if deletes:  # perl/ruby open modes lead the path: ">/etc/passwd", "+< /etc/x"
        paths = [s.lstrip("+<>| ") for s in lits]
        out.code_paths += [s for s in paths if s.startswith(("/", "~", "$HOME"))] or [
            "<files>"]
        out.mutates.append(f"{program} one-liner deletes or writes files")
    if "fork" in code and any(w in code for w in ("while", "for", "loop", "until", "times",
                                                   "each", "repeat")):
        out.fork_bomb = True
    if any(w in code for w in _CONNECTS) and any(w in code for w in _SHELL_HANDS):
        out.connects_back = True
    if not (shells_out or deletes or copies):
        out.mutates.append(f"runs a {program} one-liner")
