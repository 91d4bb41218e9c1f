"""What a newcomer found in a first session: "why did you do that?" had no record, undoing
a restart ran `docker start`, and reos's own words (step ids, component names, raw
exceptions) reached the person.

Docker tests use real containers of the test bed (tests/conftest.py); the rest plan
against the homelab snapshot and a real journal in this test's REOS_HOME.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.conftest import Containers, reos

FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


def homelab() -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.load(FIXTURE))


# -- 6. "why did you do that?" is about the last thing reos did -----------------------------

PRONOUN_FORMS = ["why did you do that?", "why did you do it", "why did you do this?",
                 "how come you did that?", "why did you make the last change?",
                 "why did you do what you just did?"]


@pytest.mark.docker
@pytest.mark.parametrize("asked", PRONOUN_FORMS)
def test_that_is_the_last_change_of_this_session(containers: Containers, asked: str) -> None:
    first, second = containers.run("first"), containers.run("second")
    engine = ReasoningEngine(Settings())
    for request in (f"stop {first}", f"restart {second}"):
        assert engine.respond(request).awaiting_approval
        assert engine.respond("yes").report is not None
    answer = engine.respond(asked).text
    assert answer.startswith(f"Because you asked me to \u201crestart {second}\u201d"), answer
    assert f"docker restart {second}" in answer and first not in answer
    # the same reasoning `why did you restart <it>?` gives
    assert answer == engine.respond(f"why did you restart {second}?").text


@pytest.mark.docker
def test_that_is_the_journals_last_change_in_a_fresh_reos_plan(containers: Containers) -> None:
    name = containers.run("fresh")
    done = reos("plan", "--yes", f"restart {name}")
    assert done.returncode == 0, done.stderr
    asked = reos("plan", "why did you do that?")
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith(f"Because you asked me to \u201crestart {name}\u201d"), \
        asked.stdout
    assert f"docker restart {name}" in asked.stdout


def test_that_before_anything_was_done_says_so_plainly() -> None:
    answer = homelab().respond("why did you do that?").text
    assert "wasn't me" not in answer
    assert answer == "I haven't changed anything here yet, so there is nothing to explain."
