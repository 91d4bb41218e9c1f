"""Properties of the read-only grammars, over the whole table.

- Every abbreviation of an option that writes or runs something (each unique prefix GNU
  getopt would accept) is refused, in every grammar and subcommand, unless the prefix is
  itself the full name of an option that only reads (then the program means that one).
- A bundle of harmless short flags with one acting option among them is refused,
  wherever the acting letter stands (hypothesis).
- Every read-only recipe step of the built-in catalogue stays read-only for any value the
  planner can put in its slots (hypothesis).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reos.catalogue import schema, templates
from reos.safety.grammar import Spec, reads_only, spec_for
from reos.safety.grammars import TABLE
from reos.safety.risk import assess_argv
from reos.understanding import slots


def _walk(path: list[str], spec: Spec):
    yield path, spec
    for name, sub in sorted((spec.sub or {}).items()):
        yield from _walk([*path, name], sub)


SPECS = [(path, spec) for program in sorted(TABLE) if (top := spec_for(program)) is not None
         for path, spec in _walk([program], top)
         if top.whole is None and not spec.wrapper]


def _known_reading(spec: Spec) -> set[str]:
    return set(spec.flags) | set(spec.values) | set(spec.optional) | set(spec.maybe)


def _abbreviations(spec: Spec) -> list[str]:
    return [option[:cut] for option in sorted(spec.denied) if option.startswith("--")
            for cut in range(3, len(option) + 1)
            if option[:cut] not in _known_reading(spec)]


ABBREVIATING = [pytest.param(path, _abbreviations(spec), id=" ".join(path))
                for path, spec in SPECS if not spec.anything and _abbreviations(spec)]


def test_there_are_abbreviations_to_try() -> None:
    assert sum(len(p.values[1]) for p in ABBREVIATING) > 1000


@pytest.mark.parametrize(("path", "prefixes"), ABBREVIATING)
def test_no_abbreviation_of_an_acting_option_is_read_only(path: list[str],
                                                          prefixes: list[str]) -> None:
    for prefix in prefixes:
        for form in ([prefix, "x"], [f"{prefix}=x"]):
            argv = [*path, *form, "y"]
            assert not reads_only(argv).ok, argv


BUNDLES = [(path, spec, sorted(o[1] for o in spec.denied if len(o) == 2 and o[1] != "-"),
            sorted(f[1] for f in spec.flags if len(f) == 2 and f[1] != "-"))
           for path, spec in SPECS if spec.style != "single" and not spec.anything]
BUNDLES = [b for b in BUNDLES if b[2] and b[3]]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_bundle_with_an_acting_letter_is_never_read_only(data: st.DataObject) -> None:
    path, _spec, denied, harmless = data.draw(st.sampled_from(BUNDLES))
    bad = data.draw(st.sampled_from(denied))
    others = data.draw(st.lists(st.sampled_from(harmless), max_size=5))
    letters = data.draw(st.permutations([*others, bad]))
    argv = [*path, "-" + "".join(letters), "x", "y"]
    assert not reads_only(argv).ok, argv


RECIPE_STEPS = [step.argv for recipe in templates.load().recipes.values()
                for step in recipe.steps if step.read_only]
DEVICES = ["sda", "sdb1", "nvme0n1", "nvme0n1p2", "vda", "vdb1", "mmcblk0", "mmcblk0p1",
           "md0", "dm-0", "loop3", "sr0", "zram0", "xvda"]
OPENING_ACTS = {"sr0"}  # devices whose opening acts (acting_files.py)
SINCE = ["2h", "15m", "3d", "1w", "today", "yesterday", "boot", "boot-1", "mon", "=tue",
         "yesterday@15:00", "today@09:00~today@10:00", "2026-11-20@08:00"]
NAMES = st.from_regex(r"\A[a-z_][a-z0-9_-]{0,15}\Z")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=st.sampled_from(RECIPE_STEPS), lines=st.integers(1, 100_000),
       since=st.sampled_from(SINCE), device=st.sampled_from(DEVICES), user=NAMES,
       port=st.integers(1, 65535), name=st.from_regex(r"\A[a-z0-9][a-z0-9.@_-]{0,30}\Z"),
       path=st.from_regex(r"\A(/[a-z0-9._-]{1,12}){0,4}\Z"),
       state=st.sampled_from(["running", "stopped", "failed", "enabled", "disabled"]))
def test_every_read_only_recipe_stays_read_only(argv: list[str], lines: int, since: str,
                                                device: str, user: str, port: int, name: str,
                                                path: str, state: str) -> None:
    params = {"lines": str(lines), "since": since, "device": device, "user": user,
              "group": user, "port": str(port), "path": path or "/", "filter": state,
              "program": user[:15], "interface": "eth0", "host": "example.org"}
    given_values = slots.values(params, {"lines": 50})
    filled = [slots.fill(a.replace(schema.SLOT, name), given_values) for a in argv]
    if any("{" in a and "}" in a and a.split("{", 1)[1].split("}", 1)[0] in slots.SLOTS
           for a in filled):
        return  # a slot this request did not give: the planner leaves the step out
    for run_as in (filled, ["sudo", "-n", *filled]):
        if f"/dev/{device}" in filled and device in OPENING_ACTS:
            # an optical drive acts when opened (smartctl -H /dev/sr0 may move its tray):
            # such a step may ask; the grammar and the risk engine must agree that it does
            assert reads_only(run_as).ok == assess_argv(run_as).read_only, run_as
            continue
        assert reads_only(run_as).ok, (run_as, reads_only(run_as).why)
        assert assess_argv(run_as).read_only, assess_argv(run_as).to_dict()
