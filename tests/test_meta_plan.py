"""Chat words work through `reos plan` too: undo, "what can you undo?", "be brief", yes/no.

They come back as `kind: "meta"`; `--json` and `--dry-run` only say what would happen
(an undo is never performed by `--json` without `--yes`). Real docker, real journal.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import Containers, reos


def _json(*args: str) -> dict:
    done = reos("plan", "--json", *args)
    assert done.stdout.strip(), done.stderr
    return json.loads(done.stdout)


@pytest.mark.docker
def test_undo_through_plan_previews_with_json_and_undoes_without(
        containers: Containers) -> None:
    name = containers.run("meta")
    assert reos("plan", "--yes", f"stop {name}").returncode == 0
    assert containers.state(name) == "exited"

    listed = _json("what can you undo?")
    assert listed["kind"] == "meta" and f"Stop {name}" in listed["message"]

    preview = _json("undo")
    assert preview["kind"] == "meta" and preview["intent"]["action"] == "undo"
    assert f"docker start {name}" in preview["message"] and preview["steps"] == []
    assert reos("plan", "--dry-run", "undo").returncode == 0
    assert containers.state(name) == "exited"  # looking never undoes

    done = reos("plan", "undo")
    assert done.returncode == 0 and f"(ran: docker start {name})" in done.stdout
    assert containers.state(name) == "running"
    nothing = reos("plan", "undo")
    assert nothing.returncode == 4 and "Nothing to undo" in nothing.stdout


def test_verbosity_and_approval_words(reos_home) -> None:
    settings = reos_home / "config" / "settings.toml"
    looked = _json("be brief")
    assert looked["kind"] == "meta" and "nothing changed" in looked["message"]
    assert not settings.exists()
    done = reos("plan", "be brief")  # for this run only: the file is left alone
    assert done.returncode == 0 and "keeping it short for this session" in done.stdout
    assert "always be brief" in done.stdout and not settings.exists()
    done = reos("plan", "always be brief")
    assert done.returncode == 0 and "keeping it short from now on" in done.stdout
    assert 'verbosity = "minimal"' in settings.read_text()
    assert _json("yes")["message"] == "There's nothing waiting for approval."
