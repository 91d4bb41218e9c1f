"""Matching on machines nobody chose the names of (random_snapshots.py, 25 seeds).

For each random machine: a container, a person, a disk and the VPN link are found by
name and by what they are; a tie asks; a word that names nothing acts on nothing; and
whatever is acted on is something the words name.
"""

from __future__ import annotations

import re

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.understanding.random_snapshots import machine

SEEDS = range(25)


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REOS_LLM", "off")


def engine_for(data: dict) -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def acted_on(engine: ReasoningEngine, say: str) -> set[str]:
    return {s.argv[-1] for s in engine.plan(say).steps if not s.read_only}


def _base(image: str) -> str:
    """What a person calls an image: its last part, or its owner's when that part is a
    generic word (vaultwarden/server is "vaultwarden")."""
    parts = re.split(r"[:@]", image)[0].split("/")
    return parts[-2] if parts[-1] in ("server", "app") and len(parts) > 1 else parts[-1]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_container_by_its_name(seed: int) -> None:
    data = machine(seed)
    engine = engine_for(data)
    for c in data["containers"][:4]:
        verb = "stop" if c["state"] == "running" else "start"
        assert acted_on(engine, f"{verb} {c['name']}") == {c["name"]}, c


@pytest.mark.parametrize("seed", SEEDS)
def test_a_container_by_its_image_or_a_question(seed: int) -> None:
    data = machine(seed)
    engine = engine_for(data)
    for c in data["containers"]:
        base = _base(c["image"])
        if not base.isalpha() or any(base in o["name"] for o in data["containers"]) or \
                any(base in s["name"] for s in data["services"]):
            continue  # the image's name is also a name here: names win, as they should
        same = [o["name"] for o in data["containers"] if _base(o["image"]) == base]
        plan = engine.plan(f"restart the {base} container")
        if same == [c["name"]]:
            assert {s.argv[-1] for s in plan.steps} <= {c["name"]} and (
                plan.steps or "isn't running" in plan.text()), (base, plan.text())
        else:  # several run it: which one is asked, never guessed
            assert plan.kind.value == "clarify" and not plan.steps, (base, plan.text())


@pytest.mark.parametrize("seed", SEEDS)
def test_a_person_by_full_name(seed: int) -> None:
    data = machine(seed)
    engine = engine_for(data)
    people = [u for u in data["users"] if not u["system"]]
    for person in people:
        full = person["gecos"].split(",")[0]
        same = [u for u in people if u["gecos"].split(",")[0] == full]
        if len(same) == 1:
            assert acted_on(engine, f"lock {full}") == {person["name"]}, full


@pytest.mark.parametrize("seed", SEEDS)
def test_the_usb_disk_and_the_vpn_by_what_they_are(seed: int) -> None:
    data = machine(seed)
    engine = engine_for(data)
    label = data["mounts"][1]["label"]
    vendor = data["block_devices"][2]["vendor"]
    point = data["mounts"][1]["mountpoint"]
    assert acted_on(engine, f"unmount {label}") == {point}
    assert acted_on(engine, f"unmount the {vendor} disk") == {point}
    vpn = data["interfaces"][2]["name"]
    assert acted_on(engine, "take the vpn down") == {"down"} or \
        [s.argv for s in engine.plan("take the vpn down").steps][-1][-2] == vpn


@pytest.mark.parametrize("seed", SEEDS)
def test_a_word_that_names_nothing_acts_on_nothing(seed: int) -> None:
    data = machine(seed)
    engine = engine_for(data)
    nothing = "zq" + "".join(reversed(data["host"]["hostname"].replace("-", "")))
    for verb in ("stop", "restart", "remove", "lock"):
        assert acted_on(engine, f"{verb} {nothing}") == set()


@pytest.mark.parametrize("seed", SEEDS)
def test_what_is_acted_on_is_named_by_the_words(seed: int) -> None:
    """Precision: for a project, a compose service word or an image, every container
    acted on carries that word in its name, project, compose service or image."""
    data = machine(seed)
    engine = engine_for(data)
    words = {c["labels"].get("com.docker.compose.project") for c in data["containers"]}
    words |= {_base(c["image"]) for c in data["containers"]}
    roles = engine.templates.aliases.get("container", {})
    for word in sorted(w for w in words if w and w.isalpha()):
        for name in acted_on(engine, f"stop the {word} containers"):
            c = next(c for c in data["containers"] if c["name"] == name)
            fields = " ".join([c["name"], c["image"], *c["labels"].values()])
            # a role word ("wiki") names what does that job (bookstack)
            assert word in fields or any(p in fields for p in roles.get(word, ())), (word, c)
