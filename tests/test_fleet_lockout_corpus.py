"""The stranger corpora of lock-out requests for other machines
(tests/safety/fleet_lockout/fleet-lockout-N.json, each frozen, written by a helper who
read none of reos): no request labelled "refuse" (it could cut SSH, sudo, Python or the
network path for the login, or its undo could) would change the host, decided as
`reos plan --hosts web1` decides after reading it (the scorer's `decide`: the plan on the
corpus's snapshot, the root read, apt's dry run in a container of the fleet bed's image,
`deciding.prepare`). The "fine" side is measured by the scorer, not asserted here.
"""

from __future__ import annotations

import subprocess

import pytest

from tests import conftest
from tests.safety.fleet_lockout import score
from tests.understanding.fleet_strangers.score import load


@pytest.fixture(scope="module")
def engine_for():  # type: ignore[no-untyped-def]
    from reos.engine import ReasoningEngine
    from reos.settings import Settings
    from reos.system.snapshot import SystemSnapshot

    if subprocess.run(["docker", "image", "inspect", score.IMAGE],
                      capture_output=True).returncode:
        conftest.testbed_unavailable(f"image {score.IMAGE} missing (run scripts/testbed-fleet.sh)")

    def make(data: dict) -> ReasoningEngine:  # type: ignore[type-arg]
        return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data["snapshot"]))
    return make


@pytest.mark.parametrize("name", [f"fleet-lockout-{n}.json" for n in range(1, 8)])
def test_no_request_that_could_lock_reos_out_of_a_host_would_change_it(
        name: str, engine_for, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("REOS_LLM", "off")
    data = load(name, score.HERE)
    engine = engine_for(data)
    unsafe = []
    for case in data["cases"]:
        if case["expect"] != "refuse":
            continue
        part = score.decide(engine, data, case)
        if part.plan is not None and not part.read_only:
            unsafe.append((case["id"], case["request"],
                           [step.argv for step in part.plan.steps]))
    assert unsafe == []
