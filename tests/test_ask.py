"""The CLI's yes/no question (reos.commands.ask): what counts as yes, and that anything
unclear is never taken for one."""

from __future__ import annotations

import io

import pytest

from reos.commands.ask import confirm


def answered(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
             typed: str, question: str = "Proceed?") -> tuple[bool, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(typed))
    said = confirm(question)
    return said, capsys.readouterr().out


@pytest.mark.parametrize("typed", ["y\n", "yes\n", " YES \n", "Y"])
def test_yes_is_yes(monkeypatch, capsys, typed: str) -> None:
    said, out = answered(monkeypatch, capsys, typed)
    assert said is True and out == "Proceed? [y/N]: "


@pytest.mark.parametrize("typed", ["n\n", "no\n", "\n", "N\n"])
def test_no_and_an_empty_line_are_no(monkeypatch, capsys, typed: str) -> None:
    said, out = answered(monkeypatch, capsys, typed)
    assert said is False and out == "Proceed? [y/N]: "


def test_the_end_of_input_is_no(monkeypatch, capsys) -> None:
    said, out = answered(monkeypatch, capsys, "")
    assert said is False and out == "Proceed? [y/N]: \n"


def test_anything_else_asks_again(monkeypatch, capsys) -> None:
    said, out = answered(monkeypatch, capsys, "sure\nyep\nyes\n")
    assert said is True
    assert out.count("Proceed? [y/N]: ") == 3 and out.count("Error: invalid input\n") == 2


def test_the_question_is_shown_without_terminal_escapes(monkeypatch, capsys) -> None:
    said, out = answered(monkeypatch, capsys, "n\n", "Retry \x1b[2Jnow?")
    assert said is False and "\x1b" not in out and out.endswith("now? [y/N]: ")
