"""Words said beside the names of a request, read for what they say of them (found by the
F17 stranger set, on a family desktop; the machine and sentences here are our own):

- "the pihole containers" are every one so called;
- a clause that leaves out ("…, but leave the old test one alone") belongs to the ask,
  never to its reasons (`stories.read_asking`), and a state said of the excluded name
  ("the old test one") stays with it (`tagging.exclusions`);
- a sentence run on after the ask ("restart the pihole container dns is down") describes:
  its subject is no target and its state no filter (`tagging.told_of`), but only where
  what it acts on is named with its kind: "stop the containers mealie is running" is
  mealie;
- "pi-hole" is the container pihole (`matcher.spellings`);
- "it" after "a tool called ncdu" is ncdu, though nothing here has it
  (`stories._to_thing`);
- "remove mealie", a container and an installed package, asks which
  (`targeting.match`).
"""

from __future__ import annotations

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot


def _container(name: str, project: str, state: str) -> dict:
    return {"name": name, "id": (name * 3)[:12], "image": f"{name}:1", "state": state,
            "status": "Up 2 days" if state == "running" else "Exited (0) 9 days ago",
            "ports": [], "labels": {"com.docker.compose.project": project,
                                    "com.docker.compose.project.working_dir":
                                        f"/srv/{project}"}}


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    snapshot = SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2",
        "host": {"hostname": "wren", "distro_id": "debian", "distro_version": "12",
                 "init": "systemd", "package_manager": "apt", "is_root": True},
        "containers": [_container("pihole", "dns", "running"),
                       _container("unbound", "dns", "running"),
                       _container("pihole-test", "dnstest", "exited"),
                       _container("mealie", "kitchen", "running")],
        "services": [], "packages": [{"name": "mealie", "version": "1.0"}], "users": [],
        "groups": [], "processes": []})
    return ReasoningEngine(Settings(), snapshot=snapshot)


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REOS_LLM", "off")


def acted_on(engine: ReasoningEngine, said: str) -> list[str]:
    return [s.argv[-1] for s in engine.plan(said).steps if not s.read_only]


@pytest.mark.parametrize(("said", "names"), [
    ("restart the pihole containers", ["pihole", "pihole-test"]),  # every one so called
    ("Please restart both the pihole and unbound containers, but leave the old test one "
     "alone.", ["pihole", "unbound"]),
    ("restart the pihole container dns is down", ["pihole"]),
    ("restart the containers that are down", ["pihole-test"]),  # a filter, said of them
    # what it acts on is not named: the state says which (a review found every one)
    ("stop the containers mealie is running", ["mealie"]),
    ("delete the unbound containers they are stopped", []),  # unbound runs: none
    ("restart pi-hole", ["pihole"]),
])
def test_words_beside_the_names_say_which(engine: ReasoningEngine, said: str,
                                         names: list[str]) -> None:
    assert sorted(acted_on(engine, said)) == names, engine.plan(said).text()


def test_it_after_a_thing_said_by_its_name_is_that_thing(engine: ReasoningEngine) -> None:
    said = ("My home folder is almost full. A friend recommended a tool called ncdu. "
            "Please install it.")
    assert acted_on(engine, said) == ["ncdu"], engine.plan(said).text()


def test_a_removal_of_a_name_that_is_a_container_and_a_package_asks_which(
        engine: ReasoningEngine) -> None:
    plan = engine.plan("remove mealie")  # the container was removed, never asked
    assert not plan.steps and [label for label, _ in plan.options] == [
        "the container mealie", "the package mealie"], plan.text()
    assert acted_on(engine, "remove the mealie container") == ["mealie", "mealie"]
    assert acted_on(engine, "uninstall the mealie package") == ["mealie"]


def test_a_state_after_a_bare_but_is_no_exclusion() -> None:
    # "…, but the old socat forward on 6022 should go. Stop and disable legacy-fwd."
    # (fleet-lockout-3): "but" begins another sentence here; the state word before a
    # name is part of an exclusion only after one that sets apart ("but leave")
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parent / "safety" / "fleet_lockout" /
                       "fleet-lockout-3.json").read_text())
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data["snapshot"]))
    plan = engine.plan("The relay on 2222 is what we use, but the old socat forward on 6022 "
                       "should go. Stop and disable legacy-fwd.")
    assert [s.argv[-1] for s in plan.steps] == ["legacy-fwd.service"], plan.text()
