"""The `reos` command line: one argparse parser reads argv, `reos.commands.*` do the work.

Every command and option is declared once, with its help, in COMMANDS (each command's
function adds its arguments and returns what runs it); `command_parser(name)` is one
command's parser and `build_parser()` the parser of `reos`, made of them all. `main()`
parses, runs the command, and turns what goes wrong into an exit status: a usage mistake
is reported by the parser (the command's usage line, what is wrong, where help is; exit
2), a `ReosError` is printed by `reos.commands.output` with its own code, ctrl+c is 130
and a reader that left the pipe is 141. `reos` alone starts the TUI.

`reos plan` and `reos undo` must start fast, which is why the parser is argparse (a few
ms to import) and why building it imports nothing else: a command's module (and with it
the engine, sqlite3, rich or textual) is imported only when that command runs, and when
argv starts with a command only that command's parser is built. Not responsible for what
an option does (the command modules are), nor for shell completion (reos offers none).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NoReturn

from reos.errors import EXIT_USAGE, ReosError, UsageError

DESCRIPTION = ("Operate this Linux machine in plain language, with plans you approve and "
               "changes you can undo. Without a command, start the full-screen chat.")


@functools.cache
def _columns() -> int:
    """The terminal's width as argparse finds it (COLUMNS, else stdout's terminal, else 80),
    without importing shutil, which would cost more than the whole parser."""
    try:
        return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    stdout = sys.__stdout__
    try:
        return os.get_terminal_size(stdout.fileno()).columns if stdout else 80
    except (ValueError, OSError):
        return 80


class _Help(argparse.HelpFormatter):
    """argparse's help layout, at most 100 columns wide, keeping a description's paragraphs."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=28, width=min(_columns(), 100) - 2)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        fill = super()._fill_text
        return "\n\n".join(fill(paragraph, width, indent) for paragraph in text.split("\n\n"))


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that takes options only as spelled (no `--dry` for `--dry-run`)
    and says where help is when it reports a usage mistake (exit 2)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_abbrev=False, formatter_class=_Help, add_help=False, **kwargs)
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS,
                          help="Show this help and exit.")

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n"
                              f"Try '{self.prog} --help' for help.\n")


class _Command(_Parser):
    """A command's parser. What it does not know is its own usage mistake, said with its
    own usage line (argparse would hand it up to `reos`, whose usage shows no options)."""

    def parse_known_args(self, args: Iterable[str] | None = None, namespace: Any = None,
                         ) -> tuple[Any, list[str]]:
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


class _Version(argparse.Action):
    """`--version`: print the version and stop as soon as it is read."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None,
                 ) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        from reos import __version__

        print(f"reos {__version__}")
        parser.exit(0)


def _first_sentence(text: str) -> str:
    return text.split("\n\n")[0].split(". ")[0].rstrip(".")


def _request(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError('say what you want, e.g. reos plan "restart nginx"')
    return text


def _at_least_one(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{number} is less than 1")
    return number


# -- the commands: each declares its arguments and returns what runs it ----------------
Runner = Callable[[argparse.Namespace], int]


def _flag(parser: argparse.ArgumentParser, *names: str, help: str, dest: str | None = None,
          ) -> None:
    parser.add_argument(*names, action="store_true", dest=dest, help=help)


def _plan(p: argparse.ArgumentParser) -> Runner:
    p.add_argument("request", metavar="REQUEST", type=_request,
                   help="What you want, in plain words (after --, when it starts with a "
                        "dash).")
    _flag(p, "--yes", "-y", help="Run without asking.")
    _flag(p, "--dry-run", help="Show the plan; never run.")
    _flag(p, "--json", dest="as_json", help="Print the plan as JSON.")
    p.add_argument("--context", metavar="FILE", type=Path,
                   help="Plan against a saved snapshot (reos context --json).")
    _flag(p, "--allow-other-host",
          help="Run a plan made from another machine's snapshot here anyway.")
    _flag(p, "--verbose", help="Say on stderr how the request is understood, stage by stage "
          "(and what the model thought, when one is asked); stdout is unchanged.")
    p.add_argument("--hosts", metavar="PATTERN",
                   help="Plan on the hosts of your Ansible inventory this pattern matches "
                        "(web*, all:!db1), each read now, and run there through Ansible. "
                        "Without it, hosts and groups named in the request (\"on the web "
                        "servers\", \"everywhere except db1\") choose them.")
    _host_choice(p, "With --hosts, or hosts named in the request: ")

    def run(a: argparse.Namespace) -> int:
        if a.hosts is not None:
            from reos.commands import fleet_plan

            if a.context is not None or a.allow_other_host or a.verbose:
                raise UsageError("--hosts reads each host itself: --context, "
                                 "--allow-other-host and --verbose do not go with it.")
            return fleet_plan.run(a.request, pattern=a.hosts, inventory=a.inventory,
                                  limit=a.limit, yes=a.yes, dry_run=a.dry_run,
                                  as_json=a.as_json)
        if a.context is None:  # hosts named in words ("on the web servers") go there too
            from reos.commands import named_hosts

            code = named_hosts.run(a.request, inventory=a.inventory, limit=a.limit,
                                   yes=a.yes, dry_run=a.dry_run, as_json=a.as_json,
                                   verbose=a.verbose)
            if code is not None:
                return code
        if a.inventory is not None or a.limit is not None:
            raise UsageError("-i/--inventory and --limit choose hosts: name them in the "
                             "request (\"restart nginx on web1\"), or give --hosts PATTERN.")
        from reos.commands import plan

        return plan.run(a.request, yes=a.yes, dry_run=a.dry_run, as_json=a.as_json,
                        context=a.context, allow_other_host=a.allow_other_host,
                        verbose=a.verbose)
    return run


def _undo(p: argparse.ArgumentParser) -> Runner:
    _flag(p, "--json", dest="as_json", help="Print JSON.")
    _flag(p, "--yes", "-y", help="Approve without asking (with always_confirm).")
    p.add_argument("--host", metavar="NAME",
                   help="Undo the newest change made on other machines on this host only "
                        "(an inventory host name).")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import undo

        return undo.run(as_json=a.as_json, yes=a.yes, host=a.host)
    return run


def _history(p: argparse.ArgumentParser) -> Runner:
    _flag(p, "--json", dest="as_json", help="Print JSON.")
    p.add_argument("--limit", metavar="N", type=_at_least_one, default=20,
                   help="How many transactions (default: 20).")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import history

        return history.run(as_json=a.as_json, limit=a.limit)
    return run


def _why(p: argparse.ArgumentParser) -> Runner:
    p.add_argument("tx", metavar="TX", nargs="?", type=_at_least_one, default=None,
                   help="A transaction number (reos history); default: the latest request.")
    _flag(p, "--json", dest="as_json", help="Print a reos.trace/1 document.")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import why

        return why.run(a.tx, as_json=a.as_json)
    return run


def _learned(p: argparse.ArgumentParser) -> Runner:
    _flag(p, "--json", dest="as_json", help="Print JSON.")
    _flag(p, "--forget", help="Clear everything learned.")
    _flag(p, "--summary", help="Also ask the model for a short summary of the findings "
          "(waits at most [llm] timeout_seconds).")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import learned

        return learned.run(as_json=a.as_json, forget=a.forget, summary=a.summary)
    return run


def _context(p: argparse.ArgumentParser) -> Runner:
    _flag(p, "--json", dest="as_json", help="Print JSON.")
    _flag(p, "--llm", help='Also ask the Ollama server what it is and has (an "llm" key in '
          "the JSON); slower, as it waits on the server.")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import context

        return context.run(as_json=a.as_json, llm=a.llm)
    return run


def _doctor(p: argparse.ArgumentParser) -> Runner:
    _flag(p, "--json", dest="as_json", help="Print JSON.")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import doctor

        return doctor.run(as_json=a.as_json)
    return run


def _check(p: argparse.ArgumentParser) -> Runner:
    p.add_argument("command_line", metavar="COMMAND", help="A shell command line to judge.")
    _flag(p, "--json", dest="as_json", help="Print JSON.")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import check

        return check.run(a.command_line, as_json=a.as_json)
    return run


def _layers(p: argparse.ArgumentParser) -> Runner:
    p.add_argument("path", metavar="PATH", nargs="?", type=Path, default=None,
                   help="A Python package's folder (default: reos itself).")
    p.add_argument("--contract", metavar="FILE", type=Path,
                   help="The layer contract (TOML) to check against.")
    _flag(p, "--json", dest="as_json", help="Print JSON.")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import layers

        return layers.run(a.path, a.contract, as_json=a.as_json)
    return run


def _host_choice(p: argparse.ArgumentParser, within: str = "") -> None:
    """-i/--inventory and --limit, as `reos hosts` and `reos plan --hosts` take them."""
    def said(text: str) -> str:
        text = f"{within}{text}"
        return text[0].upper() + text[1:]

    p.add_argument("-i", "--inventory", metavar="PATH", type=Path,
                   help=said("the Ansible inventory (default: [fleet] inventory in the "
                             "settings, else ANSIBLE_INVENTORY)."))
    p.add_argument("--limit", metavar="PATTERN",
                   help=said("only hosts this pattern also matches, as ansible's --limit."))


def _hosts(p: argparse.ArgumentParser) -> Runner:
    p.add_argument("pattern", metavar="PATTERN", nargs="?", default="all",
                   help="An Ansible host pattern: a host or group, web*, all:!db1, "
                        "webservers:&prod (default: all).")
    _host_choice(p)
    _flag(p, "--check", help="Reach each host through Ansible: does it answer, and may "
                             "reos act as root there?")
    _flag(p, "--json", dest="as_json", help="Print a reos.hosts/1 document.")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import hosts

        return hosts.run(a.pattern, inventory=a.inventory, limit=a.limit, check=a.check,
                         as_json=a.as_json)
    return run


def _shell_init(p: argparse.ArgumentParser) -> Runner:
    p.add_argument("shell", metavar="SHELL", help="bash, zsh or fish.")

    def run(a: argparse.Namespace) -> int:
        from reos.commands import shell_init

        return shell_init.run(a.shell)
    return run


def _chat(_: argparse.Namespace) -> int:
    from reos.tui.app import run_tui

    return run_tui()


# name: (its description, the one line `reos --help` shows (None: the description's first
# sentence), what declares its arguments)
COMMANDS: dict[str, tuple[str, str | None, Callable[[argparse.ArgumentParser], Runner]]] = {
    "plan": ("Plan a request, show it, and run it after approval (queries are answered).",
             None, _plan),
    "undo": ("Revert the most recent change that can still be undone.", None, _undo),
    "history": ("List what reos has done, newest first.", None, _history),
    "why": ("Show why reos did what it did: the reasoning chain of a request (goal, context, "
            "each stage, alternatives and why this one, conclusion, quality, outcome).",
            "Show why reos did what it did", _why),
    "trace": ("The reasoning chain of a request, for scripts with --json (as `reos why`).",
              None, _why),
    "learned": ("Show what reos learned on this machine (fixes that worked, flagged commands) "
                "and what it noticed, with the evidence and what to do.",
                "Show what reos learned on this machine", _learned),
    "context": ("Show what reos knows about this machine (containers, services, packages).",
                None, _context),
    "doctor": (
        "Say whether what reos uses works: settings, the model, docker, sudo.\n\n"
        "Checks the settings file in use; the LLM (enabled, mode, depth; when it is on: the "
        "Ollama server, its version and models, whether the configured model is pulled, its "
        "context length, a round-trip time); whether the container engine answers; and "
        "whether sudo works without a password. Each check is bounded in time; a model "
        "that is off is not contacted. Exit status 0 when everything in use works, 1 when "
        "something does not (a model that is on but unreachable or not pulled, a container "
        "engine that is there but does not answer, sudo missing or refusing when reos is "
        "not root). What is off or absent is said, and is not a failure.", None, _doctor),
    "check": ("Judge a command with the safety engine (exit 0 allowed, 3 blocked).", None,
              _check),
    "layers": (
        "Check which layer each module is in and whether its imports and code fit it.\n\n"
        "Layers come from the contract, else the module's docstring, else its path. Exit "
        "0 when nothing is misplaced, 1 with violations, 2 for a bad path or contract.",
        None, _layers),
    "hosts": (
        "List the hosts of your Ansible inventory that a pattern matches, group by group, "
        "with the address, port and user of each; with --check, whether each answers "
        "and lets reos act as root.\n\n"
        "The inventory is --inventory, else [fleet] inventory in the settings, else "
        "ANSIBLE_INVENTORY; it is read by Ansible's own code (INI, YAML or TOML; never a "
        "script or plugin). Without --check nothing reaches the hosts; --check runs "
        "Ansible's ping on each, then again as root (become), over ssh with host keys "
        "checked. Exit 0 with hosts (all ready, when checked), 1 when a checked host is "
        "not ready, 2 when no inventory is given or it cannot be read, 4 when the pattern "
        "matches no host.",
        "List the hosts of your Ansible inventory", _hosts),
    "shell-init": (
        "Print the shell integration: Alt+R sends the typed line to reos plan, and the "
        "commands reos ran join the shell's history. Use eval \"$(reos shell-init bash)\" "
        "in ~/.bashrc, the same with zsh in ~/.zshrc, or reos shell-init fish | source.",
        "Print the shell integration (bash, zsh or fish)", _shell_init),
}


def command_parser(name: str, make: Callable[..., argparse.ArgumentParser] = _Command,
                   ) -> argparse.ArgumentParser:
    """The parser of what follows the command `name`, made by `make` (a parser class, or
    the `add_parser` of build_parser's commands); parsing sets `run` to what runs it."""
    description, _, declare = COMMANDS[name]
    parser = make(prog=f"reos {name}", description=description)
    parser.set_defaults(run=declare(parser))
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The parser of `reos`: its own options and every command in COMMANDS, each with
    its command_parser. Parsing sets `run` to what runs the command (`_chat` without one).
    """
    parser = _Parser(prog="reos", description=DESCRIPTION)
    parser.add_argument("--version", action=_Version, help="Print the version and exit.")
    parser.set_defaults(run=_chat)
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", prog="reos",
                                     parser_class=_Command,
                                     help="`reos COMMAND --help` says more.")
    for name, (description, short, _) in COMMANDS.items():
        command_parser(name, functools.partial(commands.add_parser, name,
                                               help=short or _first_sentence(description)))
    return parser


def _guard(run: Callable[[], int]) -> int:
    from reos.commands.output import error

    try:
        return run()
    except ReosError as exc:
        error(exc)
        return exc.exit_code
    except KeyboardInterrupt:
        print("\nInterrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `reos plan … | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a program ended by SIGPIPE


# Starting a command makes a few hundred thousand objects that live as long as it does and
# no garbage worth collecting; at the collector's default thresholds (a collection every
# 700 new objects) `reos plan` spent about 10 ms, a tenth of its start, in 58 collections
# walking them. Collections still happen (every 50,000 new objects), so the chat, which
# runs for hours, keeps collecting its cycles.
GC_THRESHOLDS = (50_000, 20, 10)


def main(argv: list[str] | None = None) -> int:
    import gc

    gc.set_threshold(*GC_THRESHOLDS)
    args = sys.argv[1:] if argv is None else list(argv)
    # `reos plan …` needs only plan's parser, which is the one build_parser() would hand
    # the rest of the line to: `reos plan` and `reos undo` do not build ten other commands
    if args and args[0] in COMMANDS:
        parser, rest = command_parser(args[0]), args[1:]
    else:
        parser, rest = build_parser(), args
    try:
        parsed = parser.parse_args(rest)
    except SystemExit as stop:  # --help, --version, or a usage mistake already reported
        if stop.code is None:
            return 0
        return int(stop.code) if isinstance(stop.code, int) else int(EXIT_USAGE)
    run: Runner = parsed.run
    return int(_guard(lambda: run(parsed)))


if __name__ == "__main__":
    raise SystemExit(main())
