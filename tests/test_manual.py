"""man/reos.1 documents every command and option the CLI has, and nothing it lacks."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

from reos import cli

MAN = (Path(__file__).resolve().parent.parent / "man" / "reos.1").read_text()


def cli_surface() -> dict[str, set[str]]:
    group = typer.main.get_command(cli.build_app())
    assert hasattr(group, "commands")  # typer vendors click; a group has subcommands
    surface = {"": {o for p in group.params for o in p.opts if o.startswith("--")}}
    for name, command in group.commands.items():
        surface[name] = {o for p in command.params for o in getattr(p, "opts", [])
                         if o.startswith("-") and o != "--help"}
    return surface


def test_every_command_and_option_is_in_the_manual() -> None:
    text = MAN.replace("\\-", "-")
    for command, options in cli_surface().items():
        if command:
            assert re.search(rf"^\.B(?: reos)? {command}\b", text, re.M), command
        for option in options:
            assert option in text, f"{command} {option}"


def test_the_manual_names_no_command_the_cli_lacks() -> None:
    commands = set(re.findall(r"^\.B reos (\w+)", MAN, re.M))
    assert commands <= set(cli_surface())


def test_exit_codes_in_the_manual_match_the_code() -> None:
    from reos import errors

    for code in (errors.EXIT_OK, errors.EXIT_FAILED, errors.EXIT_USAGE, errors.EXIT_BLOCKED,
                 errors.EXIT_NOTHING, errors.EXIT_DECLINED):
        assert re.search(rf"^\.B {code}$", MAN, re.M)
