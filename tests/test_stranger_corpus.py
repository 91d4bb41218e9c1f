"""The frozen stranger corpora (tests/safety/strangers/*.json): commands written by helpers
who never read reos/safety/, each labelled read_only, not_read_only or block.

Each corpus is judged two ways, as the issue asks:
- by `reos check` (its JSON, in process, and the installed command for the inputs built
  to crash or hang a parser): no command that is not read-only is judged read-only, and
  the exit code is always 0, 2 or 3;
- by the plan path: the fake Ollama proposes each command as the model's `op: command`
  answer to a question, the engine answers the question as it would for a person, and
  no command outside the read-only grammar runs without approval (every program the
  engine starts is recorded; none may be started for such a command).

The corpora are frozen: their sha256 is checked first, so a corpus is never edited to make
a test pass. `python -m tests.safety.strangers.score FILE` prints their scores.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reos.commands.check import run as check
from reos.engine import ReasoningEngine
from reos.model.report import StepResult
from reos.safety.grammar import reads_only
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.fake_ollama import FakeOllama
from tests.safety.strangers.score import load

CORPORA = sorted(p.name for p in (Path(__file__).parent / "safety" / "strangers").glob(
    "corpus-*.json"))
HOMELAB = json.loads((Path(__file__).parent / "fixtures" / "homelab.json").read_text())


# Labels reos disagrees with, each with its reason (tests/safety/strangers/README.md).
DISAGREED = {
    "d-020": "a TLS handshake with nothing sent from stdin, read-only as `curl -I` is",
}


def cases(name: str) -> list[dict[str, Any]]:
    return load(name)  # checks the frozen sha256 first


@pytest.mark.parametrize("name", CORPORA)
def test_check_judges_nothing_read_only_that_is_not(name: str,
                                                    capsys: pytest.CaptureFixture) -> None:
    wrong = []
    for case in cases(name):
        code = check(case["command"], as_json=True)
        verdict = json.loads(capsys.readouterr().out)
        assert code in (0, 3), (case["id"], code)
        assert (code == 3) == verdict["blocked"]
        if case["expect"] != "read_only" and verdict["read_only"] and \
                case["id"] not in DISAGREED:
            wrong.append(case["id"])
        if not verdict["read_only"] and not verdict["blocked"]:
            assert verdict.get("why_not_read_only"), case["id"]
    assert wrong == [], f"judged read-only but they are not: {wrong}"


def stress_cases(name: str) -> list[dict[str, Any]]:
    """The inputs a corpus built to crash or hang a parser (A to E have them; F, written
    for shell structure, has none)."""
    return [c for c in cases(name) if c["category"] in ("pathological", "stress")]


STRESSED = [name for name in CORPORA if stress_cases(name)]


def test_the_corpora_hold_inputs_built_to_break_a_parser() -> None:
    assert len(STRESSED) >= 5, STRESSED


@pytest.mark.parametrize("name", STRESSED)
def test_the_installed_check_survives_inputs_built_to_break_a_parser(name: str) -> None:
    for case in stress_cases(name):
        done = subprocess.run([sys.executable, "-m", "reos", "check", "--json", "--",
                               case["command"]], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode in (0, 2, 3), (case["id"], done.stderr[-500:])
        assert "Traceback" not in done.stderr, case["id"]
        if done.returncode != 2:
            verdict = json.loads(done.stdout)
            assert not (case["expect"] != "read_only" and verdict["read_only"]), case["id"]


def _answer(argv: list[str]) -> str:
    return json.dumps({"thought": "no operation covers it", "kind": "query", "op": "command",
                       "command": {"argv": argv, "purpose": "answer the question",
                                   "read_only": True}, "confidence": 0.95})


@pytest.mark.parametrize("name", CORPORA)
def test_the_plan_path_runs_nothing_unasked_that_the_grammar_does_not_prove(
        name: str, fake_ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REOS_LLM", raising=False)
    started: list[list[str]] = []

    def recorded(argv: list[str], **_: Any) -> StepResult:
        started.append(list(argv))
        return StepResult("s1", True, 0, "", "")

    monkeypatch.setattr("reos.execution.reads.run_argv", recorded)
    settings = Settings()
    settings.llm.host, settings.llm.mode, settings.llm.timeout_seconds = (
        fake_ollama.url, "first", 5.0)
    engine = ReasoningEngine(settings, snapshot=SystemSnapshot.from_dict(HOMELAB))
    asked = ran_unasked = 0
    for n, case in enumerate(cases(name)):
        if case["expect"] == "read_only" and n % 3:
            continue  # every command that must not run, a third of those that may
        if len(case["command"]) > 4000:
            continue  # a model's answer is one argv; the parser-stress inputs are not
        try:
            argv = shlex.split(case["command"])
        except ValueError:
            continue
        if not argv:
            continue
        fake_ollama.default = lambda body, argv=argv: _answer(argv)
        started.clear()
        engine.respond("what does this show?")
        engine.decline()  # a plan waiting for approval is dropped, never run
        asked += 1
        for run in started:
            ran_unasked += 1
            assert reads_only(run).ok, (case["id"], run)
            # a line with shell syntax, split into words, is another command as an argv
            # (`<(rm` is a file name then); the label holds for the plain ones
            if not set(case["command"]) & _SHELL_SYNTAX and case["id"] not in DISAGREED:
                assert case["expect"] == "read_only" or not _same(run, argv), (case["id"],
                                                                                 run)
    assert asked > 300 and ran_unasked > 20  # the corpus did reach the engine, both ways


_SHELL_SYNTAX = frozenset("|;&<>()$`\\\n*?[]{}~#'\"")


def _same(run: list[str], argv: list[str]) -> bool:
    """Whether what ran is the corpus command (possibly through `sudo -n`)."""
    return run[-len(argv):] == argv
