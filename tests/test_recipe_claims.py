"""Every built-in recipe step that says it only reads (its slots filled as the planner fills
them) is verified as read-only by the risk engine: otherwise a question like "is git
installed?" would turn into a plan to approve (the planner trusts no claim), which would
be a defect in the recipe or in the engine."""

from __future__ import annotations

import pytest

from reos.catalogue import schema, templates
from reos.safety.risk import assess_argv
from reos.understanding import slots

TEMPLATES = templates.load()
# one ordinary value per slot, as the parser hands them to `slots.values`
PARAMS = {"lines": "50", "since": "2h", "device": "sda", "path": "/var/log", "port": "80",
          "user": "bob", "group": "adm", "interface": "eth0", "host": "example.org",
          "program": "nginx", "filter": "running", "timezone": "Europe/Berlin",
          "hostname": "box", "date": "2026-01-01", "priority": "5", "shell": "/bin/bash",
          "size": "500M"}
GIVEN = slots.values(PARAMS, {})
READ_ONLY_STEPS = [
    pytest.param([slots.fill(a.replace(schema.SLOT, "nginx.service"), GIVEN)
                  for a in step.argv],
                 id=f"{'.'.join(filter(None, key))}:{step.title}")
    for key, recipe in sorted(TEMPLATES.recipes.items(), key=lambda kv: str(kv[0]))
    for step in recipe.steps if step.read_only
]


def test_there_are_read_only_recipes_to_check() -> None:
    assert len(READ_ONLY_STEPS) >= 30


@pytest.mark.parametrize("argv", READ_ONLY_STEPS)
def test_a_read_only_recipe_step_is_verified_read_only(argv: list[str]) -> None:
    for run_as in (argv, ["sudo", "-n", *argv]):
        verdict = assess_argv(run_as)
        assert verdict.read_only and not verdict.blocked, verdict.to_dict()
