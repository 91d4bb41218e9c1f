"""Shared fixtures: an isolated REOS_HOME for every test, and the real docker engine.

Docker tests use the engine and image prepared by scripts/testbed-docker.sh (run by
`make test`). Their containers carry a per-run name prefix and the label
reos.test.run=<run id>; they are removed at the end of the session even when tests
fail. Without an engine those tests skip, unless REOS_REQUIRE_TESTBED=1 (CI), where
that is a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_ollama import FakeOllama

IMAGE = "reos-test/busybox:latest"
RUN_ID = "rt" + uuid.uuid4().hex[:6]
REOS_BIN = Path(sys.executable).parent / "reos"
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A started FakeOllama (tests/fake_ollama.py) serving llama3.2, stopped after the
    test."""
    with FakeOllama() as fake:
        yield fake


@pytest.fixture(autouse=True)
def reos_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "reos-home"
    monkeypatch.setenv("REOS_HOME", str(home))
    monkeypatch.setenv("REOS_LLM", "off")
    return home


def testbed_unavailable(reason: str) -> None:
    if os.environ.get("REOS_REQUIRE_TESTBED") == "1":
        pytest.fail(f"test bed required but unavailable: {reason}")
    pytest.skip(f"test bed unavailable: {reason}")


@pytest.fixture(scope="session")
def docker_client() -> Iterator[object]:
    try:
        import docker

        client = docker.from_env(timeout=20)
        client.ping()
        client.images.get(IMAGE)
    except Exception as exc:  # any reason at all means: no usable engine here
        testbed_unavailable(f"docker engine or {IMAGE} not usable ({exc}); "
                            "run scripts/testbed-docker.sh")
    yield client
    for c in client.containers.list(all=True, filters={"label": f"reos.test.run={RUN_ID}"}):
        try:
            c.remove(force=True)
        except Exception:
            pass
    client.close()


class Containers:
    """Creates uniquely named test containers and removes them afterwards."""

    def __init__(self, client: object, word: str):
        self.client = client
        self.prefix = f"{RUN_ID}{word}"
        self.created: list[object] = []

    def run(self, suffix: str, project: str | None = None, running: bool = True,
            joined: bool = False, network: str | None = None) -> str:
        """Start `<prefix>-<suffix>` (or `<prefix><suffix>` when joined, sharing no token),
        on no network unless one is named."""
        name = f"{self.prefix}{'' if joined else '-'}{suffix}" if suffix else self.prefix
        labels = {"reos.test.run": RUN_ID}
        if project:
            labels["com.docker.compose.project"] = project
        container = self.client.containers.run(  # type: ignore[attr-defined]
            IMAGE, name=name, detach=True, network_mode=network or "none", labels=labels
        )
        if not running:
            container.stop(timeout=5)
        self.created.append(container)
        return name

    def state(self, name: str) -> str:
        return self.client.containers.get(name).status  # type: ignore[attr-defined]

    def cleanup(self) -> None:
        for c in self.created:
            try:
                c.remove(force=True)
            except Exception:
                pass


@pytest.fixture
def containers(docker_client: object, request: pytest.FixtureRequest) -> Iterator[Containers]:
    word = uuid.uuid4().hex[:4]
    made = Containers(docker_client, word)
    yield made
    made.cleanup()


def reos(*args: str, input: str | None = None, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the installed `reos` command as a user would."""
    return subprocess.run(
        [str(REOS_BIN), *args], capture_output=True, text=True, input=input, timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def reos_json(*args: str) -> dict:
    done = reos(*args)
    assert done.stdout.strip(), f"no JSON on stdout; stderr: {done.stderr}"
    return json.loads(done.stdout)


@pytest.fixture(scope="session")
def bed(docker_client: object) -> Iterator[object]:
    """A Debian container running systemd, with reos installed inside (tests/debian_bed.py)."""
    from tests import debian_bed

    reason = debian_bed.available()
    if reason:
        testbed_unavailable(reason)
    started = debian_bed.start()
    yield started
    debian_bed.stop(started)


@pytest.fixture(scope="session")
def fleet(docker_client: object, tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """Three Debian/systemd hosts reached over SSH (web1, web2, db1; tests/fleet_bed.py),
    with an inventory and known_hosts in a folder of their own."""
    from tests import fleet_bed

    reason = fleet_bed.available()
    if reason:
        testbed_unavailable(reason)
    started = fleet_bed.start(tmp_path_factory.mktemp("fleet"))
    yield started
    fleet_bed.stop(started)


@pytest.fixture
def one_undoable(tmp_path: Path) -> Path:
    """A journal with one undoable transaction: a real file (returned) edited with a real
    `sed -i` through the executor, backed up as reos does."""
    from reos import paths
    from reos.execution.executor import Checks, Executor
    from reos.model.plan import Plan, Step
    from reos.model.request import Kind
    from reos.safety.backups import BackupStore
    from reos.settings import LimitsSettings
    from reos.store.db import Database
    from reos.store.journal import Journal

    target = tmp_path / "app.conf"
    target.write_text("port 8080\n")
    journal = Journal(Database(paths.database_file()))
    executor = Executor(journal, LimitsSettings(),
                        checks=Checks(backups=BackupStore(paths.backups_dir())))
    step = Step(id="s1", title="Edit the config", argv=["sed", "-i", "s/8080/9090/", str(target)])
    assert executor.execute(Plan("edit the config", Kind.ACTION, steps=[step])).ok
    assert target.read_text() == "port 9090\n"
    return target
