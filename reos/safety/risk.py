"""The risk engine: how dangerous a command is, whether it may run at all, and why.

Commands are parsed, not grepped (`shell`), and judged by what they can *do*: every
program that runs other code (`launchers`: sudo, sh -c, env -S, flock -c, xargs, ssh,
docker exec, …; `payloads`: awk system(), sed e, find -exec, git -c core.pager, man -P,
tar --to-command, interpreter one-liners) has its payload judged recursively; text fed
to a shell or interpreter is judged when it is known (echo, printf, base64 -d of a
literal) and treated as unknown code when it is not (blocked when it would run as root
or comes from the network, HIGH otherwise). Paths are judged by the worst thing they can
name (`paths`), redirections with or without a command word. Read-only is verified
(`readonly`): a verdict is read-only only when every simple command's program and
arguments are on the read-only list and nothing is written but /dev/null; everything
else is at least LOW. What cannot be parsed, or nests too deeply, is at least HIGH
(fail closed), and blocked when a plain split still shows something destructive.

Plan steps are already argv and are judged with `assess_argv`, without the shell parser
(a payload such as `sh -c '…'` inside the argv is parsed lazily). Remote lock-out
(stopping sshd, downing the default-route interface, dropping the firewall over SSH) is
judged from `remote` (None: read SSH_CONNECTION) and the person's `requested` text.
Not responsible for deciding what the user meant, or for running anything.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import replace

from reos.model import RiskLevel
from reos.safety.launchers import Launch, open_launcher
from reos.safety.paths import candidates, dynamic, expendable, is_system_path, is_tmp
from reos.safety.payloads import AWKS, INTERPRETERS, Carried, carried, judge_code
from reos.safety.readonly import PURE, is_read_only
from reos.safety.rules import FILE_HANDLERS, Context, judge_write
from reos.safety.rules_system import handler_for
from reos.safety.shell import (
    DOWNLOADERS,
    SHELLS,
    Redirect,
    Script,
    SimpleCommand,
    Source,
    Unparseable,
    output_of,
    parse_script,
    produced_by,
    split_fallback,
    stdin_of,
)
from reos.safety.verdict import Verdict

__all__ = ["Verdict", "assess", "assess_argv", "is_system_path"]

MAX_DEPTH = 8  # payload inside payload inside …
MAX_STEPS = 20000  # simple commands judged for one verdict
BASHLEX_LIMIT = 8 * 1024  # characters; larger scripts go to tree-sitter (milliseconds)
_WRITE_OPS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
_CODE_ENV = ("LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "PROMPT_COMMAND",
             "PYTHONSTARTUP", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS", "PYTHONPATH", "PERL5LIB",
             "GCONV_PATH", "SHELLOPTS", "PS4", "BASH_FUNC_")
_FETCHERS = DOWNLOADERS - {"rsync", "scp", "sftp", "nc", "ncat", "netcat", "socat", "aws",
                           "gsutil", "s3cmd"}


class _Engine:
    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.read_only = True
        self.steps = 0
        self.downloaded: set[str] = set()  # files this script downloads (then maybe runs)
        self.shell_copies: set[str] = set()  # copies of shells and interpreters it makes
        self.written: dict[str, str] = {}  # files it writes, with their known content
        self.cwd: str | None = None  # the directory `cd` moved to (None: where reos runs)

    def mutates(self) -> None:
        self.read_only = False

    # -- scripts -----------------------------------------------------------------------

    def script(self, text: str, ctx: Context, depth: int, env: dict[str, str] | None = None,
               only_if_high: bool = False) -> None:
        if only_if_high:  # a guess (string literals of code): count it only if it is bad
            probe = _Engine(Verdict(command=text))
            probe.steps = self.steps
            probe.script(text, ctx, depth, env)
            self.steps = probe.steps
            if probe.verdict.risk >= RiskLevel.HIGH:
                self._merge(probe.verdict)
            return
        if depth > MAX_DEPTH:
            self._too_deep(text, ctx)
            return
        try:
            if len(text) > BASHLEX_LIMIT:  # bashlex takes seconds on large scripts
                raise Unparseable("too long for the first parser")
            parsed = parse_script(text, env=env)
        except Unparseable as exc:
            second = _second_reading(text, env)
            if second is None or second[1]:
                self.verdict.raise_to(RiskLevel.HIGH, f"cannot be parsed reliably ({exc}); "
                                      "treated as dangerous")
                self.mutates()
                self._fallback(text, ctx, depth)
            if second is None:
                return
            if not second[1]:  # the real grammar read it cleanly: judged as read, no alarm
                self.verdict.raise_to(RiskLevel.SAFE, f"cannot be parsed by bashlex ({exc}); "
                                      "read with tree-sitter-bash instead")
            parsed = second[0]
        for name in parsed.fork_bombs:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"fork bomb (the function {name} "
                                  "spawns copies of itself)", block=True)
        for command in parsed.commands:
            self.command(command, ctx, depth)

    def _merge(self, other: Verdict) -> None:
        for reason in other.reasons:
            self.verdict.raise_to(other.risk, reason, block=other.blocked,
                                  reversible=other.reversible, root=other.needs_root)

    def _too_deep(self, text: str, ctx: Context) -> None:
        self.verdict.raise_to(RiskLevel.HIGH, "nested too deeply to judge; treated as "
                              "dangerous")
        self.mutates()
        self._fallback(text, ctx, MAX_DEPTH + 1)

    def _fallback(self, text: str, ctx: Context, depth: int) -> None:
        """After a parse failure: still catch what a plain split shows to be destructive."""
        if _fork_bomb_text(text):
            self.verdict.raise_to(RiskLevel.CRITICAL, "fork bomb", block=True)
        for argv, redirects in split_fallback(text)[:500]:
            for redirect in redirects:
                self.redirect(redirect, ctx)
            if argv:
                self.argv(argv, ctx, min(depth, MAX_DEPTH), None, {}, {},
                          shallow=depth > MAX_DEPTH)

    # -- one simple command ------------------------------------------------------------

    def command(self, command: SimpleCommand, ctx: Context, depth: int) -> None:
        for redirect in command.redirects:
            self.redirect(redirect, ctx)
            if redirect.op in (">", ">>", ">|", "&>", "&>>") and command.argv:
                content = output_of(command)
                self._written_code(redirect.target, content, ctx, depth)
                self._remember_written(redirect.target, content, redirect.op == ">>")
        if not command.argv:
            return
        if command.dynamic_network:
            ctx = replace(ctx, network=True)
        self.argv(command.argv, ctx, depth, command, command.env, command.procsubs)

    def _written_code(self, target: str, content: Source, ctx: Context, depth: int) -> None:
        """Text written to a cron table, start-up file or unit runs later: judge it."""
        from reos.safety.later import code_in, kind_of

        kind = kind_of(target)
        if kind is None:
            return
        if content.text is None:
            if content.network:
                self.payload(content, ctx, depth, f"{target} (runs later)", shell=True)
            return
        for script, as_root in code_in(kind, content.text):
            self.script(script, replace(ctx, root=ctx.root or as_root), depth + 1)

    def redirect(self, redirect: Redirect, ctx: Context) -> None:
        if redirect.op not in _WRITE_OPS:
            return
        target = redirect.target
        if target.isdigit() or target.startswith("&") or target == "-":
            return
        if self.cwd is not None and _relative(target):
            target = _join(self.cwd, target)
        if target not in ("/dev/null",):
            self.mutates()
        judge_write(target, self.verdict, ctx, "writes to")

    def argv(self, argv: list[str], ctx: Context, depth: int, command: SimpleCommand | None,
             env: dict[str, str], procsubs: dict[str, list[SimpleCommand]],
             shallow: bool = False) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            if self.steps == MAX_STEPS + 1:
                self.verdict.raise_to(RiskLevel.HIGH, "too many commands to judge; treated "
                                      "as dangerous")
            self.mutates()
            return
        if not argv:
            return
        stdin = stdin_of(command) if command is not None else None
        word = argv[0]
        if dynamic(word):
            self._unknown(ctx, "runs a program chosen at run time")
            return
        if self.downloaded and _same_file(word) in self.downloaded:
            self.payload(Source(None, network=True), ctx, depth, word, shell=True)
            return
        if _same_file(word) in self.written:  # a script this same command line wrote
            self.mutates()
            self.script(self.written[_same_file(word)], ctx, depth + 1)
            return
        program = word.rsplit("/", 1)[-1]
        argv = [program, *argv[1:]]
        if program in ("cd", "pushd", "popd", "chdir"):
            self._cd(argv)
            return
        if self.cwd is not None:
            argv = _rebase(argv, self.cwd)
        if command is not None and program in _SHELL_OR_CODE and any(
                r.target.startswith(("/dev/tcp/", "/dev/udp/")) for r in command.redirects):
            self.verdict.raise_to(RiskLevel.CRITICAL, f"connects {program} to another machine "
                                  "(a reverse shell)", block=True)
        if program in _NETCATS and _netcat_exec(argv):
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} hands a shell or program to "
                                  "the network", block=True)
        self._environment(env, ctx, depth)
        launch = open_launcher(argv) if not shallow or program in SHELLS else None
        if launch is not None:
            self.launch(launch, argv, ctx, depth, command, stdin, env, procsubs)
            return
        if program in INTERPRETERS or program.startswith(("python3.", "python2.")):
            self.interpreter(argv, ctx, depth, stdin, procsubs)
            return
        found = carried(argv, env)
        if found is not None:
            self.carried(found, argv, ctx, depth)
            if found.runs_input:
                self._runs_input(program, argv, stdin, ctx, depth)
        handler = FILE_HANDLERS.get(program) or handler_for(program)
        if handler is not None:
            handler(argv, self.verdict, ctx)
        if stdin is not None and program in ("tee", "crontab", "dd", "cp", "install"):
            self._stdin_lands(program, argv, stdin, ctx, depth)
        if program == "chmod" and self.shell_copies:
            self._setuid_copy(argv)
        if program in ("cp", "install", "ln", "rsync") and len(argv) > 2:
            self._remember_copies(argv)
        elif program in _FETCHERS:
            self._download(argv, ctx)
        if found is not None and not found.read_only:
            self.mutates()
        if not is_read_only(argv):
            self.mutates()
            if handler is None and found is None and program not in PURE and \
                    program not in _FETCHERS:
                self.verdict.raise_to(RiskLevel.MEDIUM,
                                      f"{program} is not a command reos knows to be safe")

    def _runs_input(self, program: str, argv: list[str], stdin: Source | None, ctx: Context,
                    depth: int) -> None:
        """awk '{system($0)}', sed 's/…/…/e': the text they read is run as commands."""
        files = [a for a in argv[2:] if not a.startswith("-")]
        if stdin is not None and not files:
            self.payload(stdin, ctx, depth, program, shell=True)
        else:
            self._unknown(ctx, f"{program} runs the text it reads as commands")

    def _stdin_lands(self, program: str, argv: list[str], stdin: Source, ctx: Context,
                     depth: int) -> None:
        """`… | tee /etc/cron.d/x`, `… | crontab -`: what is written there runs later."""
        from reos.safety.later import crontab_lines

        files = [a for a in argv[1:] if not a.startswith("-")]
        if program == "crontab":
            if files and files != ["-"]:
                return
            if stdin.text is None:
                if stdin.network:
                    self.payload(stdin, ctx, depth, "crontab", shell=True)
                return
            for script, as_root in crontab_lines(stdin.text, ctx.root):
                self.script(script, replace(ctx, root=as_root), depth + 1)
            return
        if program == "dd":
            files = [a[3:] for a in argv if a.startswith("of=")]
        for target in files:
            self._written_code(target, stdin, ctx, depth)

    def _remember_written(self, target: str, content: Source, append: bool) -> None:
        """A file this script writes, with what it writes (to judge it if it is run)."""
        key = _same_file(target)
        if content.network:
            self.downloaded.add(key)
        elif content.text is not None and len(self.written) < 64:
            before = self.written.get(key, "") if append else ""
            self.written[key] = (before + "\n" + content.text)[-65536:]
        else:
            self.written[key] = "$__UNKNOWN__"

    def _remember_copies(self, argv: list[str]) -> None:
        from reos.safety.rules import SHELL_LIKE, operands

        ops = operands(argv)
        if len(ops) >= 2 and any(o.rsplit("/", 1)[-1] in SHELL_LIKE for o in ops[:-1]):
            self.shell_copies.add(_same_file(ops[-1]))

    def _setuid_copy(self, argv: list[str]) -> None:
        from reos.safety.rules import _setuid, operands

        ops = operands(argv)
        mode = next((a for a in argv[1:] if a.startswith("+") or a.startswith("u+")
                     or a.isdigit()), ops[0] if ops else "")
        if _setuid(mode) and any(_same_file(p) in self.shell_copies for p in ops):
            self.verdict.raise_to(RiskLevel.CRITICAL, "makes a copy of a shell run as root for "
                                  "anyone (setuid)", block=True, root=True)

    def _cd(self, argv: list[str]) -> None:
        from reos.safety.paths import normalise

        args = [a for a in argv[1:] if a not in ("-L", "-P", "-e", "-@", "--")]
        target = args[0] if args else "~"
        if argv[0] == "popd" or target == "-" or dynamic(target):
            self.cwd = "$UNKNOWN_DIRECTORY"
        elif target.startswith(("/", "~")):
            self.cwd = normalise(target)
        else:
            self.cwd = normalise((self.cwd or ".").rstrip("/") + "/" + target)

    def _unknown(self, ctx: Context, what: str) -> None:
        self.mutates()
        if ctx.root or ctx.network:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{what}, which cannot be known before "
                                  "it runs" + (" (as root)" if ctx.root else
                                               " (from the network)"), block=True)
        else:
            self.verdict.raise_to(RiskLevel.HIGH, f"{what}, which cannot be known before it "
                                  "runs")

    def _environment(self, env: dict[str, str], ctx: Context, depth: int) -> None:
        for name, value in env.items():
            if name.startswith(_CODE_ENV):
                self.mutates()
                self.verdict.raise_to(RiskLevel.HIGH, f"{name} makes the program load or run "
                                      "other code")
                if name in ("BASH_ENV", "ENV", "PROMPT_COMMAND") and value:
                    self.script(value, ctx, depth + 1)

    def _download(self, argv: list[str], ctx: Context) -> None:
        if is_read_only(argv):
            return
        self.verdict.raise_to(RiskLevel.LOW, "downloads from the network")
        named = False
        for i, arg in enumerate(argv[1:], start=1):
            name, eq, value = arg.partition("=")
            if name in ("-o", "--output", "-O", "--output-document", "-P",
                        "--directory-prefix"):
                target = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
                if target and target != "-" and not (argv[0] == "curl" and name == "-O"):
                    named = True
                    judge_write(target, self.verdict, ctx, "downloads over")
                    self.downloaded.add(_same_file(target))
        if not named:  # wget URL, curl -O URL: saved under the URL's last name
            for arg in argv[1:]:
                if "://" in arg:
                    self.downloaded.add(_same_file(arg.rstrip("/").rsplit("/", 1)[-1]))

    # -- launchers ---------------------------------------------------------------------

    def launch(self, launch: Launch, argv: list[str], ctx: Context, depth: int,
               command: SimpleCommand | None, stdin: Source | None, env: dict[str, str],
               procsubs: dict[str, list[SimpleCommand]]) -> None:
        if depth + 1 > MAX_DEPTH:
            self._too_deep(shlex.join(argv), ctx)
            return
        inner = replace(ctx, root=ctx.root or launch.escalated,
                        remote=ctx.remote or launch.remote)
        if not launch.transparent:
            self.mutates()
        merged_env = {**env, **launch.env}
        saved_cwd = self.cwd
        if launch.cwd:
            self.cwd = launch.cwd if not _relative(launch.cwd) else _join(self.cwd or ".",
                                                                           launch.cwd)
        try:
            self._run_launch(launch, inner, depth, command, stdin, merged_env, procsubs)
        finally:
            if launch.cwd:
                self.cwd = saved_cwd

    def _run_launch(self, launch: Launch, inner: Context, depth: int,
                    command: SimpleCommand | None, stdin: Source | None, merged_env: dict[str, str],
                    procsubs: dict[str, list[SimpleCommand]]) -> None:
        if launch.argv is not None:
            self._launched_argv(launch, inner, depth, command, stdin, merged_env, procsubs)
        if launch.script is not None:
            self.script(launch.script, inner, depth + 1, merged_env)
        for script in launch.scripts:
            self.script(script, inner, depth + 1, merged_env)
        if launch.file_runs is not None:
            self._file_runs(launch, inner, depth, procsubs)
        if launch.stdin_runs:
            if stdin is None and not (command is not None and command.fed_by_download):
                if launch.interactive:
                    self.mutates()
                    self.verdict.raise_to(RiskLevel.HIGH if inner.root else RiskLevel.MEDIUM,
                                          f"opens an interactive {launch.label} session"
                                          + (" as root" if inner.root else ""))
            else:
                source = stdin or Source(None, network=True, what="a download")
                if command is not None and command.fed_by_download:
                    source = replace(source, network=True)
                self.payload(source, inner, depth, launch.label, shell=True)

    def _launched_argv(self, launch: Launch, ctx: Context, depth: int,
                       command: SimpleCommand | None, stdin: Source | None,
                       env: dict[str, str], procsubs: dict[str, list[SimpleCommand]]) -> None:
        argv = list(launch.argv or [])
        if launch.mounts:
            argv = [_host_paths(a, launch.mounts) for a in argv]
        if launch.args_from_stdin and argv:
            if stdin is not None and stdin.text is not None:
                items = stdin.text.split()[:256]
                if launch.replace:
                    argv = [a.replace(launch.replace, items[0] if items else "") for a in argv]
                else:
                    argv = argv + items
            elif stdin is not None and stdin.network:
                argv = argv + ["$ARGUMENTS_FROM_THE_NETWORK"]
                ctx = replace(ctx, network=True)
            elif launch.replace:  # each item: the worst name the pipe can give
                item = _piped_item(command)
                argv = [a.replace(launch.replace, item) for a in argv]
            else:
                argv = argv + _piped_paths(command, argv)
            self.argv(argv, ctx, depth + 1, None, env, procsubs)
            return
        inner_command = command
        self.argv(argv, ctx, depth + 1, inner_command, env, procsubs)

    def _file_runs(self, launch: Launch, ctx: Context, depth: int,
                   procsubs: dict[str, list[SimpleCommand]]) -> None:
        path = launch.file_runs or ""
        if path in procsubs:
            self.payload(produced_by(procsubs[path]), ctx, depth, launch.label, shell=True)
            return
        self.mutates()
        if self.downloaded and _same_file(path) in self.downloaded:
            self.payload(Source(None, network=True), ctx, depth, launch.label, shell=True)
        elif _same_file(path) in self.written:
            self.script(self.written[_same_file(path)], ctx, depth + 1)
        elif dynamic(path):
            self._unknown(ctx, f"{launch.label} runs a script chosen at run time")
        else:
            self.verdict.raise_to(RiskLevel.HIGH if ctx.root else RiskLevel.MEDIUM,
                                  f"runs the script {path}" + (" as root" if ctx.root else ""))

    def payload(self, source: Source, ctx: Context, depth: int, label: str,
                shell: bool) -> None:
        """Code that arrives as text (stdin, a process substitution, a decoded string)."""
        self.mutates()
        if source.network:
            if ctx.requested is not None and _requested(ctx.requested, self.verdict.command):
                self.verdict.raise_to(RiskLevel.HIGH, "runs a downloaded script (you asked "
                                      "for it)")
            else:
                self.verdict.raise_to(RiskLevel.CRITICAL, f"pipes a download straight into "
                                      f"{'a shell' if shell else label}", block=True)
            return
        if source.text is not None:
            if shell:
                self.script(source.text, ctx, depth + 1)
            else:
                found = Carried()
                judge_code(source.text, label, found)
                self.carried(found, [label], ctx, depth)
            return
        self._unknown(ctx, f"{label} runs {source.what or 'text'}")

    # -- interpreters and carried code ---------------------------------------------------

    def interpreter(self, argv: list[str], ctx: Context, depth: int, stdin: Source | None,
                    procsubs: dict[str, list[SimpleCommand]]) -> None:
        program = argv[0]
        found = carried(argv) or Carried()
        operands = [a for a in argv[1:] if not a.startswith("-")]
        takes_code = any(a == INTERPRETERS.get(program, "-c") for a in argv[1:]) or any(
            "e" in a[1:] and program.startswith("perl") for a in argv[1:] if a.startswith("-"))
        if not takes_code and operands and self.downloaded and \
                _same_file(operands[0]) in self.downloaded:
            self.payload(Source(None, network=True), ctx, depth, program, shell=False)
            return
        if not takes_code and operands and _same_file(operands[0]) in self.written:
            self.payload(Source(self.written[_same_file(operands[0])]), ctx, depth, program,
                         shell=False)
            return
        if not takes_code and operands and operands[0] in procsubs:
            self.payload(produced_by(procsubs[operands[0]]), ctx, depth, program, shell=False)
            return
        code = next((argv[i + 1] for i, a in enumerate(argv[:-1])
                     if a == INTERPRETERS.get(program, "-c")), None)
        if code is not None and _just_a_variable(code):
            self._unknown(ctx, f"{program} runs code held in a variable")
            return
        if not takes_code and (not operands or operands[0] == "-") and not found.mutates:
            if stdin is None:
                self.mutates()
                self.verdict.raise_to(RiskLevel.MEDIUM, f"opens an interactive {program}")
            else:
                self.payload(stdin, ctx, depth, program, shell=False)
            return
        self.carried(found, argv, ctx, depth)

    def carried(self, found: Carried, argv: list[str], ctx: Context, depth: int) -> None:
        program = argv[0]
        guess = program in INTERPRETERS or program in AWKS or program.startswith("python")
        if not found.read_only:
            self.mutates()
        for _how, text in found.scripts:
            self.script(text, ctx, depth + 1, only_if_high=guess)
        for _how, inner in found.argvs:
            self.argv(inner, ctx, depth + 1, None, {}, {})
        for target in found.writes:
            judge_write(target, self.verdict, ctx, f"{program} writes to")
        for root in found.deletes:
            self._deletes_under(program, root, ctx)
        if found.extracts_into is not None:
            self._extracts(program, found.extracts_into, ctx)
        for what in found.unknown:
            self._unknown(ctx, what)
        if found.code_paths:
            self._code_paths(program, found.code_paths)
        if found.fork_bomb:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} forks without end (a fork "
                                  "bomb)", block=True)
        if found.mutates and self.verdict.risk < RiskLevel.LOW:
            self.verdict.raise_to(RiskLevel.LOW, found.mutates[0])
        if program == "git" and any(m.startswith(("git clean", "git reset", "git checkout",
                                                  "git restore", "git stash", "git push"))
                                    for m in found.mutates):
            forced = "--hard" in argv or "--force" in argv or any(
                a.startswith("--force") or (a.startswith("-") and not a.startswith("--")
                                            and "f" in a) for a in argv[2:])
            if forced and "git push" in found.mutates:
                self.verdict.raise_to(RiskLevel.HIGH, "overwrites history on the remote",
                                      reversible=False)
            elif forced:
                self.verdict.raise_to(RiskLevel.MEDIUM, "discards uncommitted work or "
                                      "history", reversible=False)

    def _extracts(self, program: str, directory: str, ctx: Context) -> None:
        from reos.safety.paths import under_system

        if dynamic(directory):
            self._unknown(ctx, f"{program} extracts files into a directory")
        elif is_system_path(directory) and directory not in (".", "..", "./"):
            self.verdict.raise_to(RiskLevel.HIGH, f"{program} extracts files over the system "
                                  f"directory {directory}", reversible=False, root=True)
        elif under_system(directory):
            self.verdict.raise_to(RiskLevel.MEDIUM, f"{program} extracts files into "
                                  f"{directory}", root=True)
        else:
            self.verdict.raise_to(RiskLevel.LOW, f"{program} extracts files")

    def _deletes_under(self, program: str, root: str, ctx: Context) -> None:
        absolute = root.startswith(("/", "~", "$HOME", "${HOME}"))
        if dynamic(root):
            self._unknown(ctx, f"{program} deletes under a path")
        elif is_tmp(root.rstrip("/") + "/"):
            self.verdict.raise_to(RiskLevel.LOW, "deletes files under /tmp", reversible=False)
        elif absolute and expendable(root):
            self.verdict.raise_to(RiskLevel.HIGH, f"{program} deletes files under {root}",
                                  reversible=False, root=True)
        elif absolute and is_system_path(root):
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} deletes files under {root}",
                                  block=True, reversible=False, root=True)
        elif is_tmp(root.rstrip("/") + "/"):
            self.verdict.raise_to(RiskLevel.LOW, "deletes files under /tmp", reversible=False)
        elif absolute:
            self.verdict.raise_to(RiskLevel.HIGH, f"{program} deletes files under {root}",
                                  reversible=False)
        else:
            self.verdict.raise_to(RiskLevel.MEDIUM, f"{program} deletes files it finds under "
                                  f"{root}", reversible=False)

    def _code_paths(self, program: str, paths: list[str]) -> None:
        from reos.safety.paths import is_device, is_vital, under_system

        if any(p in ("/", "~", "$HOME") or is_system_path(p) or is_vital(p) or is_device(p)
               or any(c.rstrip("/") in ("/etc", "/boot", "/usr") for c in candidates(p))
               or p.startswith(("/etc/*", "/usr/*", "/boot/*")) for p in paths):
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} one-liner deletes or "
                                  "overwrites system paths", block=True, reversible=False)
        elif any(under_system(p) for p in paths):
            self.verdict.raise_to(RiskLevel.HIGH, f"{program} one-liner changes system files",
                                  reversible=False, root=True)
        else:
            self.verdict.raise_to(RiskLevel.HIGH, f"{program} one-liner deletes or writes "
                                  "files", reversible=False)


def _second_reading(text: str, env: dict[str, str] | None) -> tuple[Script, bool] | None:
    """tree-sitter-bash's reading (commands, grammar errors), or None without it."""
    try:
        from reos.safety.tsparse import parse_tree

        return parse_tree(text, env)
    except (ImportError, Unparseable):
        return None


def _host_paths(arg: str, mounts: dict[str, str]) -> str:
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


def _relative(word: str) -> bool:
    return bool(word) and not word.startswith(("/", "~", "$", "-", "<")) and "://" not in word \
        and not dynamic(word)


def _join(cwd: str, path: str) -> str:
    from reos.safety.paths import normalise

    return normalise(cwd.rstrip("/") + "/" + path) if not dynamic(cwd) else cwd + "/" + path


def _rebase(argv: list[str], cwd: str) -> list[str]:
    """Relative path operands of file programs, as seen from the directory `cd` chose."""
    program = argv[0]
    if program == "dd":
        return [a[:3] + _join(cwd, a[3:]) if a.startswith(("of=", "if=")) and _relative(a[3:])
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
        out.append(_join(cwd, arg) if _relative(arg) else arg)
        if program == "find" and arg.startswith(("(", "!")):
            out.extend(argv[len(out):])
            break
    return out


def _piped_item(command: SimpleCommand | None) -> str:
    """One item of `… | xargs -I{}` when the pipe's text is unknown: a path under the
    root `find` searches, or any name at all (a glob that matches everything)."""
    upstream = command.upstream if command is not None else None
    if upstream is not None and upstream.program == "find":
        roots = [w for w in upstream.argv[1:] if not w.startswith(("-", "(", "!"))][:1]
        if roots:
            return roots[0].rstrip("/") + "/<matches>"
    if upstream is not None and upstream.program in ("ls", "echo", "printf", "cat", "grep",
                                                      "awk", "cut", "sed", "sort", "head",
                                                      "tail", "xargs", "tr"):
        return "*"
    return "$ARGUMENTS_FROM_A_PIPE"


def _piped_paths(command: SimpleCommand | None, argv: list[str]) -> list[str]:
    """What `… | xargs CMD` would get as arguments, as well as it can be told."""
    if command is None or command.upstream is None:
        return ["$ARGUMENTS_FROM_A_PIPE"]
    upstream = command.upstream
    words = upstream.argv[1:]
    paths = [w for w in words if w.startswith(("/", "~", "$HOME", ".")) or w == "*"]
    if upstream.program == "find" and any(w.startswith("-") for w in words):
        return [p.rstrip("/") + "/<matches>" for p in paths] or ["<paths from a pipe>"]
    return paths or ["<paths from a pipe>"]


_SHELL_OR_CODE = SHELLS | set(INTERPRETERS) | {"sh", "busybox"}
_NETCATS = {"nc", "ncat", "netcat", "socat", "nc.openbsd", "nc.traditional", "telnet"}


def _netcat_exec(argv: list[str]) -> bool:
    """`nc -e /bin/sh`, `ncat --sh-exec`, `socat … EXEC:bash`: a program on a socket."""
    for arg in argv[1:]:
        if arg in ("-e", "-c", "--exec", "--sh-exec", "--lua-exec") or arg.startswith(
                ("--exec=", "--sh-exec=", "--lua-exec=")):
            return True
        if argv[0] == "socat" and arg.lower().startswith(("exec:", "system:")):
            return True
        if arg.startswith("-") and not arg.startswith("--") and ("e" in arg[1:] or "c" in
                                                                 arg[1:]) and argv[0] in (
                "nc", "ncat", "netcat", "nc.traditional"):
            return True
    return False


def _just_a_variable(word: str) -> bool:
    body = word.strip()
    if body.startswith("${") and body.endswith("}"):
        body = "$" + body[2:-1]
    return body.startswith("$") and (body[1:].replace("_", "a").isalnum() or body[1:] in
                                     ("@", "*") or body == "$__UNKNOWN__")


def _same_file(path: str) -> str:
    from reos.safety.paths import normalise

    path = normalise(path)
    return path[2:] if path.startswith("./") else path


def _requested(requested: str, command: str) -> bool:
    return " ".join(command.split()) in " ".join(requested.split())


def _fork_bomb_text(text: str) -> bool:
    """`name(){ … name|name& … }` in text bashlex could not parse (linear, bounded)."""
    compact = "".join(text.split())
    start = 0
    seen = 0
    while seen < 2000:
        at = compact.find("(){", start)
        if at < 0:
            return False
        seen += 1
        j = at
        while j > 0 and (compact[j - 1].isalnum() or compact[j - 1] in "_:.-"):
            j -= 1
            if at - j > 64:
                break
        name = compact[j:at]
        end = compact.find("}", at)
        body = compact[at + 3:(end if end >= 0 else at + 4096)][:4096]
        if name and (body.count(name) >= 2 or (name in body and "&" in body)):
            return True
        start = at + 3
    return False


def _remote(remote: bool | None) -> bool:
    return bool(os.environ.get("SSH_CONNECTION")) if remote is None else remote


def _finish(engine: _Engine) -> Verdict:
    verdict = engine.verdict
    if not engine.read_only and verdict.risk < RiskLevel.LOW:
        verdict.raise_to(RiskLevel.LOW, "changes the machine (not on the read-only list)")
    verdict.read_only = engine.read_only and verdict.risk == RiskLevel.SAFE and \
        not verdict.blocked
    return verdict


# -- entry points --------------------------------------------------------------------------

def assess_argv(argv: list[str], *, requested: str | None = None,
                remote: bool | None = None) -> Verdict:
    """Judge one argv that would be run without a shell (a plan step)."""
    verdict = Verdict(command=shlex.join(argv))
    engine = _Engine(verdict)
    ctx = Context(root=False, remote=_remote(remote), requested=requested)
    engine.argv(list(argv), ctx, 0, None, {}, {})
    return _finish(engine)


def assess(command: str, requested: str | None = None, *,
           remote: bool | None = None) -> Verdict:
    """Judge a command line as a shell would run it.

    `requested` is the person's own request text: a download piped into a shell, or a
    lock-out over SSH, is allowed (as HIGH) only when the request names exactly that.
    """
    verdict = Verdict(command=command)
    engine = _Engine(verdict)
    if command.strip():
        ctx = Context(root=False, remote=_remote(remote), requested=requested)
        engine.script(command, ctx, 0)
    return _finish(engine)
