"""How the risk engine judges code carried by arguments: interpreter one-liners (and
what they read on stdin), and what awk, sed, find, git, man, tar and rsync were found
to run, write, delete or extract (`payloads`).

A mixin of the judge (`judge.Judge`); not responsible for finding the carried code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.model.risk import RiskLevel
from reos.safety.locate import same_file
from reos.safety.paths import candidates, dynamic, expendable, is_system_path, is_tmp
from reos.safety.programs import AWKS, INTERPRETERS, code_option
from reos.safety.rules import Context, judge_write
from reos.safety.signs import just_a_variable
from reos.safety.verdict import Verdict

if TYPE_CHECKING:
    from reos.safety.code_scan import Carried
    from reos.safety.syntax import SimpleCommand, Source


class CodeJudge:
    verdict: Verdict
    written: dict[str, str]
    downloaded: set[str]

    if TYPE_CHECKING:
        def script(self, text: str, ctx: Context, depth: int,
                   env: dict[str, str] | None = None, only_if_high: bool = False) -> None: ...

        def payload(self, source: Source, ctx: Context, depth: int, label: str,
                    as_script: bool) -> None: ...

        def argv(self, argv: list[str], ctx: Context, depth: int,
                 command: SimpleCommand | None, env: dict[str, str],
                 procsubs: dict[str, list[SimpleCommand]], shallow: bool = False) -> None: ...

        def mutates(self) -> None: ...

        def _unknown(self, ctx: Context, what: str) -> None: ...

    def interpreter(self, argv: list[str], ctx: Context, depth: int, stdin: Source | None,
                    procsubs: dict[str, list[SimpleCommand]]) -> None:
        from reos.safety.code_scan import Carried
        from reos.safety.payloads import carried
        from reos.safety.streams import produced_by
        from reos.safety.syntax import Source

        program = argv[0]
        found = carried(argv) or Carried()
        operands = [a for a in argv[1:] if not a.startswith("-")]
        takes_code = any(code_option(program, a)[0] for a in argv[1:]) or any(
            "e" in a[1:] and program.startswith("perl") for a in argv[1:] if a.startswith("-"))
        if not takes_code and operands and self.downloaded and \
                same_file(operands[0]) in self.downloaded:
            self.payload(Source(None, network=True), ctx, depth, program, as_script=False)
            return
        if not takes_code and operands and same_file(operands[0]) in self.written:
            self.payload(Source(self.written[same_file(operands[0])]), ctx, depth, program,
                         as_script=False)
            return
        if not takes_code and operands and operands[0] in procsubs:
            self.payload(produced_by(procsubs[operands[0]]), ctx, depth, program, as_script=False)
            return
        code = next((argv[i + 1] for i, a in enumerate(argv[:-1])
                     if code_option(program, a) == (True, None)), None)
        if code is not None and just_a_variable(code):
            self._unknown(ctx, f"{program} runs code held in a variable")
            return
        if not takes_code and (not operands or operands[0] == "-") and not found.mutates:
            if stdin is None:
                self.mutates()
                self.verdict.raise_to(RiskLevel.MEDIUM, f"opens an interactive {program}")
            else:
                self.payload(stdin, ctx, depth, program, as_script=False)
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
        if found.connects_back:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} connects to another "
                                  "machine and hands it a shell (a reverse shell)",
                                  block=True)
        if found.fork_bomb:
            self.verdict.raise_to(RiskLevel.CRITICAL, f"{program} forks without end (a fork "
                                  "bomb)", block=True)
        if found.mutates and self.verdict.risk < RiskLevel.LOW:
            self.verdict.raise_to(RiskLevel.LOW, found.mutates[0])
        if program == "git" and any(m.startswith(("git clean", "git reset", "git checkout",
                                                  "git restore", "git stash", "git push"))
                                    for m in found.mutates):
            dry = any(a in ("-n", "--dry-run") or (a.startswith("-") and not a.startswith("--")
                                                    and "n" in a) for a in argv[2:])
            forced = not dry and ("--hard" in argv or "--force" in argv or any(
                a.startswith("--force") or (a.startswith("-") and not a.startswith("--")
                                            and "f" in a) for a in argv[2:]))
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
