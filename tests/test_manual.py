"""man/reos.1 documents every command and option the CLI has, and nothing it lacks."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_cli import cli_surface

MAN = (Path(__file__).resolve().parent.parent / "man" / "reos.1").read_text()


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
