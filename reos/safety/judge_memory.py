"""What the risk engine remembers while it reads one command line: files it downloads or
writes (and their content), copies of shells it makes, the directory `cd` moves to, and
code written now to run later (cron tables, start-up files, units).

A mixin of the judge (`judge.Judge`); not responsible for judging single commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from reos.model.risk import RiskLevel
from reos.safety.locate import same_file
from reos.safety.paths import dynamic
from reos.safety.rules import Context
from reos.safety.verdict import Verdict

if TYPE_CHECKING:
    from reos.safety.syntax import Source


class Memory:
    verdict: Verdict
    downloaded: set[str]
    shell_copies: set[str]
    written: dict[str, str]
    cwd: str | None

    if TYPE_CHECKING:
        def script(self, text: str, ctx: Context, depth: int,
                   env: dict[str, str] | None = None, only_if_high: bool = False) -> None: ...

        def payload(self, source: Source, ctx: Context, depth: int, label: str,
                    as_script: bool) -> None: ...

    def _written_code(self, target: str, content: Source, ctx: Context, depth: int) -> None:
        """Text written to a cron table, start-up file or unit runs later: judge it."""
        from reos.safety.later import code_in, kind_of

        kind = kind_of(target)
        if kind is None:
            return
        if content.text is None:
            if content.network:
                self.payload(content, ctx, depth, f"{target} (runs later)", as_script=True)
            return
        for script, as_root in code_in(kind, content.text):
            self.script(script, replace(ctx, root=ctx.root or as_root), depth + 1)

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
                    self.payload(stdin, ctx, depth, "crontab", as_script=True)
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
        key = same_file(target)
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
            self.shell_copies.add(same_file(ops[-1]))

    def _setuid_copy(self, argv: list[str]) -> None:
        from reos.safety.rules import _setuid, operands

        ops = operands(argv)
        mode = next((a for a in argv[1:] if a.startswith("+") or a.startswith("u+")
                     or a.isdigit()), ops[0] if ops else "")
        if _setuid(mode) and any(same_file(p) in self.shell_copies for p in ops):
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
