"""`[reasoning] depth = "deep"` on the real docker engine: "why did X fail?" gathers evidence
in rounds and cites it; the default depth answers from one round, without citations."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import IMAGE, RUN_ID, reos

pytestmark = pytest.mark.docker

FAILURE = "bind() to 0.0.0.0:80 failed (98: Address already in use)"


@pytest.fixture
def crashed(docker_client: object) -> object:
    name = f"{RUN_ID}-crash-{int(time.time() * 1000) % 100000}"
    container = docker_client.containers.run(  # type: ignore[attr-defined]
        # the words are split in the command so that only the log holds the whole sentence
        IMAGE, ["sh", "-c", "echo 'bind() to 0.0.0.0:80 failed (98: Address already in' "
                "'use)' >&2; exit 1"], name=name, detach=True,
        network_mode="none", labels={"reos.test.run": RUN_ID})
    container.wait(timeout=30)
    yield name
    container.remove(force=True)


def _depth(home: Path, depth: str) -> None:
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text(f'[reasoning]\ndepth = "{depth}"\n')


def test_deep_cites_the_evidence_line_and_looks_further(crashed: str, reos_home: Path) -> None:
    _depth(reos_home, "deep")
    done = reos("plan", f"why did {crashed} fail")
    assert done.returncode == 0, done.stderr
    assert "Address already in use" in done.stdout
    cited = [line for line in done.stdout.splitlines() if "] `docker logs" in line]
    assert cited and FAILURE in cited[0], done.stdout  # the claim quotes the log line
    assert "Traceback" not in done.stdout + done.stderr


def test_focused_depth_answers_from_one_round_without_citations(crashed: str,
                                                                reos_home: Path) -> None:
    _depth(reos_home, "focused")
    done = reos("plan", f"why did {crashed} fail")
    assert done.returncode == 0, done.stderr
    assert "Address already in use" in done.stdout
    assert "] `docker logs" not in done.stdout
