"""The `reos` command line: typer parses, `reos.commands.*` do the work, errors are printed.

`reos` alone starts the TUI. `reos plan` and `reos undo` must start fast, and typer costs
more to import (~75 ms here) than the whole start-up budget allows, so `main()` first
tries a fast path that recognises only the plain, well-formed forms of those two commands
(`plan [--json] [--yes] [--dry-run] [--allow-other-host] [--verbose] [--context FILE]
REQUEST`, `undo [--json]`). Anything
else, including --help and every mistake, goes to typer, which stays the reference for
what the options mean; tests check that both paths agree.
"""


import sys
from collections.abc import Callable
from pathlib import Path

from reos.errors import EXIT_USAGE, ReosError

_PLAN_FLAGS = {"--json": "as_json", "--yes": "yes", "-y": "yes", "--dry-run": "dry_run",
               "--allow-other-host": "allow_other_host", "--verbose": "verbose"}


def fast_route(args: list[str]) -> Callable[[], int] | None:
    """A runner for the plain forms of `plan` and `undo`, or None to let typer parse."""
    if not args:
        return None
    if args[0] == "undo" and set(args[1:]) <= {"--json", "--yes", "-y"}:
        from reos.commands import undo

        return lambda: undo.run(as_json="--json" in args[1:],
                                yes=bool({"--yes", "-y"} & set(args[1:])))
    if args[0] != "plan":
        return None
    options: dict[str, object] = {}
    request: str | None = None
    rest = args[1:]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg in _PLAN_FLAGS:
            options[_PLAN_FLAGS[arg]] = True
        elif arg == "--context" and i + 1 < len(rest):
            options["context"] = Path(rest[i + 1])
            i += 1
        elif arg.startswith("--context=") and len(arg) > len("--context="):
            options["context"] = Path(arg.split("=", 1)[1])
        elif arg == "--" and request is None and i + 2 == len(rest):
            request = rest[i + 1]  # `reos plan -- "-x is odd"`: the request, whatever it says
            i += 1
        elif arg.startswith("-") or request is not None:
            return None  # unusual: let typer explain
        else:
            request = arg
        i += 1
    if not request or not request.strip():
        return None
    from reos.commands import plan

    return lambda: plan.run(request, **options)  # type: ignore[arg-type]


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
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # as a shell reports a program ended by SIGPIPE


def build_app():  # noqa: ANN201 - typer is imported lazily
    import typer

    app = typer.Typer(
        name="reos",
        help="Operate this Linux machine in plain language, with plans you approve and "
             "changes you can undo.",
        no_args_is_help=False,
        invoke_without_command=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        add_completion=False,
    )

    @app.callback()
    def root(
        ctx: typer.Context,
        version: bool = typer.Option(False, "--version", help="Print the version and exit."),
    ) -> None:
        """Without a command, start the full-screen chat."""
        if version:
            from reos import __version__

            print(f"reos {__version__}")
            raise typer.Exit(0)
        if ctx.invoked_subcommand is None:
            from reos.tui.app import run_tui

            raise typer.Exit(_guard(run_tui))

    @app.command("plan")
    def plan_cmd(
        request: str = typer.Argument(..., help="What you want, in plain words."),
        yes: bool = typer.Option(False, "--yes", "-y", help="Run without asking."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Show the plan; never run."),
        as_json: bool = typer.Option(False, "--json", help="Print the plan as JSON."),
        context: Path | None = typer.Option(
            None, "--context", help="Plan against a saved snapshot (reos context --json)."),
        allow_other_host: bool = typer.Option(
            False, "--allow-other-host",
            help="Run a plan made from another machine's snapshot here anyway."),
        verbose: bool = typer.Option(
            False, "--verbose",
            help="Say on stderr how the request is understood, stage by stage (and what "
                 "the model thought, when one is asked); stdout is unchanged."),
    ) -> None:
        """Plan a request, show it, and run it after approval (queries are answered)."""
        if not request.strip():
            raise typer.BadParameter("say what you want, e.g. reos plan \"restart nginx\"")
        from reos.commands import plan

        raise typer.Exit(_guard(lambda: plan.run(request, yes=yes, dry_run=dry_run,
                                                 as_json=as_json, context=context,
                                                 allow_other_host=allow_other_host,
                                                 verbose=verbose)))

    @app.command("undo")
    def undo_cmd(
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        yes: bool = typer.Option(False, "--yes", "-y",
                                 help="Approve without asking (with always_confirm)."),
    ) -> None:
        """Revert the most recent change that can still be undone."""
        from reos.commands import undo

        raise typer.Exit(_guard(lambda: undo.run(as_json=as_json, yes=yes)))

    @app.command("history")
    def history_cmd(
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        limit: int = typer.Option(20, "--limit", min=1, help="How many transactions."),
    ) -> None:
        """List what reos has done, newest first."""
        from reos.commands import history

        raise typer.Exit(_guard(lambda: history.run(as_json=as_json, limit=limit)))

    @app.command("why")
    def why_cmd(
        tx: int | None = typer.Argument(
            None, min=1, metavar="TX",
            help="A transaction number (reos history); default: the latest "
                 "request."),
        as_json: bool = typer.Option(False, "--json", help="Print a reos.trace/1 document."),
    ) -> None:
        """Show why reos did what it did: the reasoning chain of a request (goal, context,
        each stage, alternatives and why this one, conclusion, quality, outcome)."""
        from reos.commands import why

        raise typer.Exit(_guard(lambda: why.run(tx, as_json=as_json)))

    app.command("trace", help="The reasoning chain of a request, for scripts with --json "
                "(as `reos why`).")(why_cmd)

    @app.command("learned")
    def learned_cmd(
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        forget: bool = typer.Option(False, "--forget", help="Clear everything learned."),
        summary: bool = typer.Option(
            False, "--summary", help="Also ask the model for a short summary of the findings "
                                     "(waits at most [llm] timeout_seconds)."),
    ) -> None:
        """Show what reos learned on this machine (fixes that worked, flagged commands) and
        what it noticed, with the evidence and what to do."""
        from reos.commands import learned

        raise typer.Exit(_guard(lambda: learned.run(as_json=as_json, forget=forget,
                                                    summary=summary)))

    @app.command("context")
    def context_cmd(
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
        llm: bool = typer.Option(
            False, "--llm", help="Also ask the Ollama server what it is and has (an \"llm\" "
                                 "key in the JSON); slower, as it waits on the server."),
    ) -> None:
        """Show what reos knows about this machine (containers, services, packages)."""
        from reos.commands import context

        raise typer.Exit(_guard(lambda: context.run(as_json=as_json, llm=llm)))

    @app.command("doctor")
    def doctor_cmd(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
        """Say whether what reos uses works: settings, the model, docker, sudo.

        Checks the settings file in use; the LLM (enabled, mode, depth; when it is on: the
        Ollama server, its version and models, whether the configured model is pulled, its
        context length, a round-trip time); whether the container engine answers; and
        whether sudo works without a password. Each check is bounded in time; a model
        that is off is not contacted. Exit status 0 when everything in use works, 1 when
        something does not (a model that is on but unreachable or not pulled, a container
        engine that is there but does not answer, sudo missing or refusing when reos is not
        root). What is off or absent is said, and is not a failure.
        """
        from reos.commands import doctor

        raise typer.Exit(_guard(lambda: doctor.run(as_json=as_json)))

    @app.command("check")
    def check_cmd(
        command: str = typer.Argument(..., help="A shell command line to judge."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """Judge a command with the safety engine (exit 0 allowed, 3 blocked)."""
        from reos.commands import check

        raise typer.Exit(_guard(lambda: check.run(command, as_json=as_json)))

    @app.command("layers")
    def layers_cmd(
        path: Path | None = typer.Argument(
            None, help="A Python package's folder (default: reos itself)."),
        contract: Path | None = typer.Option(
            None, "--contract", help="The layer contract (TOML) to check against."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ) -> None:
        """Check which layer each module is in and whether its imports and code fit it.

        Layers come from the contract, else the module's docstring, else its path. Exit
        0 when nothing is misplaced, 1 with violations, 2 for a bad path or contract.
        """
        from reos.commands import layers

        raise typer.Exit(_guard(lambda: layers.run(path, contract, as_json=as_json)))

    @app.command("shell-init")
    def shell_init_cmd(
        shell: str = typer.Argument(..., metavar="SHELL", help="bash, zsh or fish."),
    ) -> None:
        """Print the shell integration: Alt+R sends the typed line to reos plan, and the
        commands reos ran join the shell's history. Use eval "$(reos shell-init bash)" in
        ~/.bashrc, the same with zsh in ~/.zshrc, or reos shell-init fish | source."""
        from reos.commands import shell_init

        raise typer.Exit(_guard(lambda: shell_init.run(shell)))

    return app


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    fast = fast_route(args)
    if fast is not None:
        return _guard(fast)
    app = build_app()
    try:
        app(args=args, prog_name="reos", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        return code if isinstance(code, int) else EXIT_USAGE
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
