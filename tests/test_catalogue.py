"""The operation catalogue loads, is coherent, and a user's files extend it or are reported.

Built-in: no problems, enough operations, recipes that agree with the operations'
targets, read-only queries, summaries and examples. User files in
`~/.config/reos/templates/` override an operation by id and add new ones; a broken file
is reported with its path, line and reason and never stops reos (nor `reos plan`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reos import paths
from reos.catalogue import templates
from reos.catalogue.schema import SLOT
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.conftest import FIXTURES, reos

MIN_OPERATIONS = 55


@pytest.fixture
def builtin() -> templates.TemplateSet:
    return templates.load()


def _recipes_of(catalogue: templates.TemplateSet, resource: str, action: str) -> list:
    return [r for (res, act, _variant), r in catalogue.recipes.items()
            if (res, act) == (resource, action)]


def _fills_name(recipe: templates.Recipe) -> bool:
    return any(SLOT in arg for step in recipe.steps for arg in step.argv)


# -- the built-in catalogue ------------------------------------------------------------

def test_builtin_catalogue_loads_without_problems(builtin: templates.TemplateSet) -> None:
    assert builtin.problems == []
    assert len(builtin.operations) >= MIN_OPERATIONS, sorted(builtin.operations)


def test_every_operation_has_a_summary_and_examples(builtin: templates.TemplateSet) -> None:
    short = {op.id: len(op.examples) for op in builtin.operations.values()
             if len(op.examples) < 3}
    unsummarised = [op.id for op in builtin.operations.values() if not op.summary.strip()]
    assert short == {}, "operations with fewer than 3 examples"
    assert unsummarised == []


def test_recipes_fill_a_name_exactly_when_the_operation_takes_a_target(
        builtin: templates.TemplateSet) -> None:
    wrong: list[str] = []
    for op in builtin.operations.values():
        recipes = _recipes_of(builtin, op.resource, op.action)
        if op.kind == "meta":
            if recipes:
                wrong.append(f"{op.id}: a meta operation with a recipe")
            continue
        if not recipes:
            wrong.append(f"{op.id}: no recipe {op.resource}.{op.action}")
            continue
        for recipe in recipes:
            variant = f" ({recipe.variant})" if recipe.variant else ""
            if op.target != "none" and not _fills_name(recipe):
                wrong.append(f"{op.id}{variant}: takes a {op.target} but no argv holds {SLOT}")
            if op.target == "none" and _fills_name(recipe):
                wrong.append(f"{op.id}{variant}: takes no target but an argv holds {SLOT}")
    assert wrong == []


def test_every_query_recipe_only_reads(builtin: templates.TemplateSet) -> None:
    writing = [f"{op.id}: {step.title}"
               for op in builtin.operations.values() if op.kind == "query"
               for recipe in _recipes_of(builtin, op.resource, op.action)
               for step in recipe.steps if not step.read_only]
    assert writing == []


def test_operation_ids_are_resource_dot_action(builtin: templates.TemplateSet) -> None:
    for op_id, op in builtin.operations.items():
        assert op.id == op_id
        assert re.fullmatch(r"[a-z_]+\.[a-z_]+", op_id), op_id
        assert op.kind in ("query", "action", "meta")


# -- user catalogue files --------------------------------------------------------------

def _user_file(name: str, text: str) -> Path:
    folder = paths.user_templates_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _engine():  # noqa: ANN202 - a ReasoningEngine on the homelab fixture
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


ZAP = """
[[operation]]
id = "container.stop"
kind = "action"
summary = "stop containers"
verbs = ["stop", "halt", "zap"]
examples = ["zap portainer", "stop the media stack", "halt n8n"]
target = "container"
qualifiers = ["running", "stopped", "all"]
risk = "medium"
undo = "start the containers that were running"

[[operation]]
id = "container.wiggle"
kind = "query"
summary = "wiggle a container"
verbs = ["wiggle", "jiggle"]
examples = ["wiggle portainer", "jiggle n8n", "wiggle the redis container"]
target = "container"

[recipe.container.wiggle]
answer = "raw"
steps = [
  { title = "Inspect {name}", argv = ["docker", "inspect", "{name}"], read_only = true },
]
"""


def test_a_user_file_overrides_an_operation_by_id_and_adds_one() -> None:
    path = _user_file("mine.toml", ZAP)
    loaded = templates.load()
    assert loaded.problems == []
    stop = loaded.operations["container.stop"]
    assert "zap" in stop.verbs and stop.origin == str(path)
    assert "container.wiggle" in loaded.operations
    plan = _engine().plan("zap portainer")
    assert plan.intent is not None and plan.intent.operation == "container.stop"
    assert [s.argv for s in plan.steps] == [["docker", "stop", "portainer"]]
    wiggle = _engine().plan("wiggle portainer")
    assert wiggle.intent is not None and wiggle.intent.operation == "container.wiggle"
    assert [s.argv for s in wiggle.steps] == [["docker", "inspect", "portainer"]]


def test_without_the_user_file_zap_is_not_a_stop() -> None:
    plan = _engine().plan("zap portainer")
    assert not plan.steps or plan.steps[0].argv != ["docker", "stop", "portainer"]


GOOD_OP = """
[[operation]]
id = "container.fine"
kind = "query"
summary = "a fine operation"
verbs = ["finetest"]
examples = ["finetest it", "finetest them", "finetest now"]
"""

# (name, the broken text, the line it is on, a word the problem names)
BROKEN = [
    ("unknown_key", """[[operation]]
id = "container.odd"
kind = "action"
summary = "odd"
verbs = ["odd"]
colour = "blue"
""", 6, "colour"),
    ("wrong_type", """[[operation]]
id = "container.odd"
kind = "action"
summary = "odd"
verbs = "odd"
""", 5, "verbs"),
    ("unknown_qualifier", """[[operation]]
id = "container.odd"
kind = "action"
summary = "odd"
verbs = ["odd"]
target = "container"
qualifiers = ["running", "sparkly"]
""", 7, "sparkly"),
    ("idiom_without_target", """[[operation]]
id = "system.odd"
kind = "query"
summary = "odd"
nouns = ["oddness"]
idioms = ["how odd is {target}"]
""", 6, "{target}"),
    ("refusal_without_objects", """[[refusal]]
id = "refuse.odd"
verbs = ["smash"]
objects = []
reason = "no"
""", 4, "objects"),
    ("vocabulary_types", """[vocabulary]
fillers = ["hmm"]

[vocabulary.numbers]
dozen = "twelve"
""", 5, "dozen"),
    ("defaults_out_of_range", """[recipe.container.odd]
defaults = { lines = 0 }
steps = [
  { title = "Odd {name}", argv = ["docker", "logs", "{name}"], read_only = true },
]
""", 2, "defaults"),
    ("other_placeholder", """[recipe.container.odd]
steps = [
  { title = "Odd {name}", argv = ["docker", "logs", "{other}"], read_only = true },
]
""", 3, "{other}"),
]


@pytest.mark.parametrize(("name", "text", "line", "word"), BROKEN,
                         ids=[case[0] for case in BROKEN])
def test_a_broken_user_file_is_reported_with_file_line_and_reason(
        name: str, text: str, line: int, word: str) -> None:
    bad = _user_file(f"{name}.toml", text)
    _user_file("zz_good.toml", GOOD_OP)
    loaded = templates.load()
    mine = [p for p in loaded.problems if str(bad) in p]
    assert len(mine) == 1, loaded.problems
    assert f"{bad}:{line}" in mine[0], mine[0]
    assert word in mine[0], mine[0]
    assert [p for p in loaded.problems if str(bad) not in p] == []
    # the rest of the catalogue, and the other user file, are still there
    assert "container.fine" in loaded.operations
    assert len(loaded.operations) >= MIN_OPERATIONS


def test_a_broken_user_file_never_stops_planning() -> None:
    _user_file("broken.toml", BROKEN[0][1])
    plan = _engine().plan("how much memory is free")
    assert plan.intent is not None and plan.intent.operation == "system.memory"
    assert plan.steps


def test_the_cli_names_a_broken_user_file_and_still_plans(reos_home: Path) -> None:
    bad = _user_file("broken.toml", BROKEN[0][1])
    done = reos("plan", "--json", "how much memory is free")
    assert str(bad) in done.stderr, done.stderr
    assert f"{bad}:6" in done.stderr or re.search(r"line 6\b", done.stderr), done.stderr
    plan = json.loads(done.stdout)
    assert plan["kind"] == "query"


def test_recipes_name_the_ansible_module_that_does_the_same() -> None:
    """Issue 10 item 4: recipes ready for many hosts (read and checked, never run)."""
    loaded = templates.load()
    named = {r.ansible["module"] for r in loaded.recipes.values() if r.ansible}
    assert {"ansible.builtin.systemd_service", "ansible.builtin.package",
            "community.docker.docker_container", "ansible.builtin.user",
            "ansible.builtin.group"} <= named


def test_a_bad_ansible_table_is_reported_with_its_line(reos_home) -> None:
    folder = paths.user_templates_dir()
    folder.mkdir(parents=True)
    (folder / "fleet.toml").write_text(
        '[recipe.service.start]\nsteps = [{ title = "x", argv = ["true"] }]\n'
        'ansible = { module = "user", args = { name = "{request}" } }\n')
    problems = templates.load().problems
    assert any("fleet.toml:3" in p and "ansible" in p for p in problems), problems
