"""The policy of issue 20, in process: only a catalogue recipe's own read steps and commands
the exact read-only grammar proves may run unasked; everything else is shown with why it
asks. The gate holds even when the rest of the risk engine is wrong; the data folder is
private from the first run and an older one is tightened (and that is said).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from reos import paths
from reos.model.risk import RiskLevel
from reos.planning.proposed import plan_command
from reos.safety import gate
from reos.safety.verdict import Verdict
from reos.store.db import Database, make_private


def _claims_read_only(argv: list[str], **_: object) -> Verdict:
    """A risk engine that is wrong: it calls everything read-only."""
    verdict = Verdict(command=" ".join(argv))
    verdict.read_only = True
    return verdict


@pytest.mark.parametrize("argv", [["sort", "--ou=/tmp/x", "f"], ["/tmp/x/bin/ls"],
                                  ["npm", "exec", "x"], ["docker", "--config", "ps"]])
def test_the_gate_needs_the_grammar_even_when_the_judge_says_read_only(
        argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate, "assess_argv", _claims_read_only)
    admission = gate.admit_argv(argv, claimed_read_only=True)
    assert not admission.allowed and not admission.read_only
    assert "needs your approval" in (admission.reason or "")
    assert gate.admit_argv(argv, claimed_read_only=True, approved=True).allowed


def test_the_gate_lets_a_proven_read_run_unasked() -> None:
    admission = gate.admit_argv(["journalctl", "-u", "ssh", "-n", "20", "--no-pager"],
                                claimed_read_only=True)
    assert admission.allowed and admission.read_only


def test_a_model_command_that_is_not_proven_read_only_says_why_the_plan_asks() -> None:
    from reos.model.plan import Plan
    from reos.model.request import Intent, Kind
    from reos.words.conversation import Voice, render

    plan = Plan(request="sort the names into a file", kind=Kind.UNKNOWN)
    intent = Intent(kind=Kind.ACTION, argv=["sort", "--ou=/tmp/sorted.txt", "names.txt"],
                    purpose="sort the names")
    plan_command(plan, intent, is_root=True, voice=Voice())
    render(plan, Voice())  # its words, as the planner renders every plan's
    assert plan.kind == Kind.ACTION and plan.needs_approval
    assert "`--ou` is `--output`" in plan.text()
    assert "I'll ask before running it" in plan.text()
    assert plan.steps[0].risk >= RiskLevel.LOW and not plan.steps[0].read_only


def test_a_recipe_step_said_to_read_but_not_proven_asks_and_says_why(tmp_path: Path,
                                                                     monkeypatch) -> None:
    from reos.engine import ReasoningEngine
    from reos.settings import Settings
    from reos.system.snapshot import SystemSnapshot
    from tests.test_llm_understander import HOMELAB

    user_templates = paths.user_templates_dir()
    user_templates.mkdir(parents=True)
    (user_templates / "mine.toml").write_text(
        '[[operation]]\nid = "system.sortnames"\nkind = "query"\n'
        'summary = "show the sorted names"\nverbs = ["sortnames"]\n'
        'examples = ["sortnames"]\nrisk = "safe"\n'
        '[recipe.system.sortnames]\n'
        'steps = [{title = "Sort the names", argv = ["sort", "-o", "/tmp/names", '
        '"/etc/hostname"], read_only = true}]\n')
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(HOMELAB))
    plan = engine.plan("sortnames")
    assert plan.steps and plan.needs_approval, plan.text()
    assert "is said to only read" in plan.text() and "`-o`" in plan.text()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_data_folder_and_database_are_private() -> None:
    db = Database(paths.database_file())
    db.connect()
    assert _mode(paths.data_dir()) == 0o700
    assert _mode(paths.database_file()) == 0o600
    assert db.tightened == []


def test_an_older_readable_data_folder_is_tightened_and_said(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    (folder / "reos.db").write_bytes(b"")
    os.chmod(folder / "reos.db", 0o644)
    notes = make_private(folder)
    assert _mode(folder) == 0o700 and _mode(folder / "reos.db") == 0o600
    assert len(notes) == 2 and all("readable by other users" in n for n in notes)
    assert make_private(folder) == []  # once


def test_reos_says_it_tightened_an_older_home(tmp_path: Path) -> None:
    from reos.startup import open_engine

    paths.data_dir().mkdir(parents=True)
    os.chmod(paths.data_dir(), 0o755)
    said: list[str] = []
    open_engine(warn=said.append)
    assert any("made it private" in s for s in said), said
    assert _mode(paths.data_dir()) == 0o700
