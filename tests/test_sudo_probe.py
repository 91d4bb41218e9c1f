"""`reos.system.sudo.probe`, the one sudo probe behind `reos plan`, `reos doctor` and the
chat's status line, against real programs: a `sudo` on PATH that answers as sudo does
(a shell script standing in for it, since the tests run as root and this machine's sudo
would always say yes), and the real sudo where it is installed."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from reos.system import sudo
from reos.tui import live

ANSWERS = {  # how the stand-in answers `sudo -n true`
    "free": "exit 0",
    "password": "echo 'sudo: a password is required' >&2; exit 1",
    "refused": "echo 'alice is not in the sudoers file.' >&2; exit 1",
    "escapes": "printf 'sudo: \\033]0;owned\\007a password is required\\n' >&2; exit 1",
    "slow": "sleep 30",
}


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    def make(answer: str) -> Path:
        program = tmp_path / "sudo"
        program.write_text(f"#!/bin/sh\nprintf '%s\\n' \"$@\" > {tmp_path}/argv\n"
                           f"{ANSWERS[answer]}\n")
        program.chmod(0o755)
        monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
        return tmp_path / "argv"
    return make


@pytest.mark.parametrize(("answer", "state", "said"), [
    ("free", sudo.FREE, ""),
    ("password", sudo.PASSWORD, "sudo: a password is required"),
    ("refused", sudo.REFUSED, "alice is not in the sudoers file."),
    ("escapes", sudo.PASSWORD, "sudo: a password is required"),
])
def test_each_answer_of_sudo_is_read(stand_in, answer: str, state: str,  # noqa: ANN001
                                     said: str) -> None:
    argv = stand_in(answer)
    found = sudo.probe(5, is_root=False)
    assert (found.state, found.said) == (state, said)
    assert argv.read_text().split() == ["-n", "true"]  # -n: never a prompt


def test_a_sudo_that_does_not_answer_is_refused_in_time(stand_in) -> None:  # noqa: ANN001
    stand_in("slow")
    started = time.monotonic()
    found = sudo.probe(0.5, is_root=False)
    assert found.state == sudo.REFUSED and "did not answer within 0.5 s" in found.said
    assert time.monotonic() - started < 10


def test_no_sudo_and_root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on it
    assert sudo.probe(5, is_root=False).state == sudo.MISSING
    assert sudo.probe(5, is_root=True).state == sudo.ROOT


def test_the_status_line_says_the_probe_in_words(stand_in,  # noqa: ANN001
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    stand_in("password")
    assert live.probe_sudo() == live.SUDO_PASSWORD
    stand_in("refused")
    assert live.probe_sudo() == live.NO_SUDO
    stand_in("free")
    assert live.probe_sudo() == live.SUDO_FREE


@pytest.mark.skipif(shutil.which("sudo") is None, reason="sudo is not installed here")
def test_the_real_sudo_answers() -> None:
    found = sudo.probe(10)
    assert found.state in (sudo.ROOT, sudo.FREE, sudo.PASSWORD, sudo.REFUSED)
