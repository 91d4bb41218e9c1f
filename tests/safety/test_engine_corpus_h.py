"""Causes found by stranger corpus H (tests/safety/strangers/README.md), none of them the
corpus's own lines:
1. a secret sent to another machine is named the way people write their home in a
   command line too: `$HOME/.ssh/id_ed25519` and `${HOME}/.aws` as much as `~/.ssh/…`;
2. the files where everyday tools keep their tokens are secrets as well: git's stored
   credentials, the GitHub CLI's hosts file, pip's and npm's upload settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.safety.risk import assess

CASES = json.loads((Path(__file__).parent / "corpus_h_causes.json").read_text())


@pytest.mark.parametrize("command", CASES["sent"])
def test_a_secret_named_through_the_home_variable_never_leaves_the_machine(
        command: str) -> None:
    verdict = assess(command)
    assert verdict.blocked, command
    assert any("to another machine" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("command", CASES["kept"])
def test_the_same_files_read_here_or_public_files_sent_are_not_blocked(command: str) -> None:
    assert not assess(command).blocked, command
