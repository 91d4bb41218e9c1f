"""Qualifiers and exclusions against the real docker engine (issue 9).

"Remove the stopped containers" removes only exited ones; "all but X" never touches X;
"the running ones" leaves the exited ones alone; a qualifier reos cannot honour is a
question, never a bigger plan; undo puts stopped containers back.

Safety: other containers may live on this engine (the systemd test bed, other tests).
Every request is scoped by a compose project unique to the test (the fixture's prefix),
and every request is first planned with `--json`; only when each step names one of the
test's own project containers does the test run it with `--yes`.
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import Containers, reos, reos_json

pytestmark = pytest.mark.docker


# -- helpers ----------------------------------------------------------------------------

def _plan(request: str) -> dict:
    done = reos("plan", "--json", request)
    assert done.stdout.strip(), f"no JSON for {request!r}; stderr: {done.stderr}"
    return json.loads(done.stdout)


def _show(data: dict) -> str:
    return "\n" + json.dumps(data, indent=2, ensure_ascii=False)


def _touched(data: dict) -> list[str]:
    """The container each step acts on (docker <verb> <name>)."""
    return [step["argv"][-1] for step in data["steps"]]


def _checked(request: str, prefix: str, allowed: set[str]) -> dict:
    """Plan with --json and prove it can only reach this test's own containers."""
    data = _plan(request)
    for step in data["steps"]:
        argv = step["argv"]
        assert argv[0] == "docker" and argv[-1].startswith(prefix), \
            f"step outside the test's prefix {prefix!r}: {argv}" + _show(data)
        assert argv[-1] in allowed, f"step touches {argv[-1]!r}, not one of {sorted(allowed)}" \
            + _show(data)
    for target in data["targets"]:
        assert target["name"].startswith(prefix) and target["name"] in allowed, \
            f"target outside the test's containers: {target}" + _show(data)
    return data


def _execute(request: str) -> str:
    done = reos("plan", "--yes", request)
    assert done.returncode == 0, f"{request!r} failed: {done.stdout}\n{done.stderr}"
    return done.stdout


def _gone(containers: Containers, name: str) -> bool:
    import docker.errors

    try:
        containers.state(name)
    except docker.errors.NotFound:
        return True
    return False


def _started_at(containers: Containers, name: str) -> str:
    return containers.client.containers.get(name).attrs["State"]["StartedAt"]  # type: ignore[attr-defined]


# -- 1. only exited containers are removed ----------------------------------------------

@pytest.mark.parametrize("wording", [
    "remove the stopped {p} containers",
    "delete the exited {p} containers",
    "delte the exitd {p} containers",          # typos
    "get rid of the dead {p} containers",      # idiom and a synonym for exited
])
def test_remove_the_stopped_ones_removes_only_exited(containers: Containers,
                                                     wording: str) -> None:
    p = containers.prefix
    up = {containers.run("up1", project=p), containers.run("up2", project=p)}
    down = {containers.run("down1", project=p, running=False),
            containers.run("down2", project=p, running=False)}
    request = wording.format(p=p)

    data = _checked(request, p, up | down)
    assert data["kind"] == "action", _show(data)
    assert data["intent"]["operation"] == "container.remove", _show(data)
    assert "stopped" in data["intent"]["qualifiers"], _show(data)
    assert set(_touched(data)) == down, _show(data)
    assert all(step["argv"][:2] == ["docker", "rm"] for step in data["steps"]), _show(data)

    _execute(request)
    assert all(_gone(containers, name) for name in down)
    assert all(containers.state(name) == "running" for name in up)


# -- 2. "all but X" never touches X -----------------------------------------------------

_ALL_BUT = [
    "stop all {p} containers except {keep}",
    "stop every {p} container but {keep}",
    "stop all {p} containers other than {keep}",
    "stop all {p} containers but not {keep}",
    "stop the {p} containers, leave {keep} alone",
]


def _all_but_setup(containers: Containers) -> tuple[str, str, set[str], str]:
    p = containers.prefix
    keep = containers.run("keep", project=p)
    others = {containers.run("web", project=p), containers.run("db", project=p)}
    idle = containers.run("idle", project=p, running=False)
    return p, keep, others, idle


@pytest.mark.parametrize("wording", _ALL_BUT)
def test_all_but_x_stops_the_others_and_never_touches_x(containers: Containers,
                                                        wording: str) -> None:
    p, keep, others, idle = _all_but_setup(containers)
    request = wording.format(p=p, keep=keep)

    data = _checked(request, p, {keep, idle} | others)
    assert data["kind"] == "action", _show(data)
    assert data["intent"]["operation"] == "container.stop", _show(data)
    assert keep in data["intent"]["exclude"], _show(data)
    assert keep not in _touched(data), _show(data)
    assert not any(keep in step["argv"] for step in data["steps"]), _show(data)
    assert set(_touched(data)) == others, _show(data)

    _execute(request)
    assert containers.state(keep) == "running"
    assert all(containers.state(name) == "exited" for name in others)
    assert containers.state(idle) == "exited"


# -- 3. a qualifier narrows a restart ----------------------------------------------------

def test_restart_the_running_ones_leaves_exited_ones_exited(containers: Containers) -> None:
    p = containers.prefix
    up = {containers.run("up1", project=p), containers.run("up2", project=p)}
    down = containers.run("down", project=p, running=False)
    request = f"restart the running {p} containers"

    data = _checked(request, p, up | {down})
    assert data["kind"] == "action", _show(data)
    assert data["intent"]["operation"] == "container.restart", _show(data)
    assert "running" in data["intent"]["qualifiers"], _show(data)
    assert set(_touched(data)) == up, _show(data)
    assert all(step["argv"][:2] == ["docker", "restart"] for step in data["steps"]), \
        _show(data)

    before = {name: _started_at(containers, name) for name in up | {down}}
    _execute(request)
    for name in up:
        assert containers.state(name) == "running"
        assert _started_at(containers, name) != before[name], f"{name} was not restarted"
    assert containers.state(down) == "exited"
    assert _started_at(containers, down) == before[down]


# -- 4. an exclusion that names nothing in the project -----------------------------------

def test_exclusion_naming_nothing_asks_and_changes_nothing(containers: Containers) -> None:
    """What was to be spared is unknown, so nothing is planned: a question, not a plan
    that might touch what the person meant to keep."""
    p = containers.prefix
    mine = {containers.run("web", project=p), containers.run("db", project=p)}
    outside = containers.run("outside", joined=True)  # not in the project, shares no token
    ghost = f"{p}-nosuch"
    request = f"stop all {p} containers except {ghost}"

    data = _checked(request, p, mine)
    assert data["kind"] == "clarify" and data["steps"] == [], _show(data)
    assert ghost in data["intent"]["exclude"] and ghost in data["message"], _show(data)

    done = reos("plan", "--yes", request)
    assert done.returncode == 4, done.stdout + done.stderr
    assert all(containers.state(name) == "running" for name in mine | {outside})


def test_excluding_a_container_outside_the_project_never_widens_the_plan(
        containers: Containers) -> None:
    p = containers.prefix
    mine = {containers.run("web", project=p), containers.run("db", project=p)}
    outside = containers.run("outside", joined=True)
    request = f"stop all {p} containers except {outside}"

    data = _checked(request, p, mine)
    assert data["kind"] == "action", _show(data)
    assert set(_touched(data)) == mine, _show(data)

    _execute(request)
    assert all(containers.state(name) == "exited" for name in mine)
    assert containers.state(outside) == "running"


# -- 5. a qualifier that cannot apply is a question --------------------------------------

@pytest.mark.parametrize("qualifier", ["enabled", "disabled"])
def test_a_qualifier_that_cannot_apply_asks_and_changes_nothing(containers: Containers,
                                                                qualifier: str) -> None:
    p = containers.prefix
    up = containers.run("up", project=p)
    down = containers.run("down", project=p, running=False)
    request = f"remove the {qualifier} {p} containers"

    data = _checked(request, p, {up, down})
    assert data["kind"] == "clarify", _show(data)
    assert data["steps"] == [], _show(data)

    done = reos("plan", "--yes", request)
    assert "Traceback" not in done.stderr
    assert containers.state(up) == "running" and containers.state(down) == "exited"
    assert reos_json("history", "--json")["transactions"] == []


# -- 6. undo after "all but X" ------------------------------------------------------------

def test_undo_after_all_but_x_starts_the_stopped_ones_again(containers: Containers) -> None:
    p, keep, others, idle = _all_but_setup(containers)
    request = f"stop all {p} containers except {keep}"

    data = _checked(request, p, {keep, idle} | others)
    assert set(_touched(data)) == others and keep in data["intent"]["exclude"], _show(data)
    _execute(request)
    assert all(containers.state(name) == "exited" for name in others)

    undo = reos("undo")
    assert undo.returncode == 0, undo.stdout + undo.stderr
    for name in others:
        assert f"docker start {name}" in undo.stdout
        assert containers.state(name) == "running"
    assert containers.state(keep) == "running"
    assert containers.state(idle) == "exited"  # it was stopped before; undo leaves it so
    ran = [line for line in undo.stdout.splitlines() if "(ran:" in line]
    assert len(ran) == len(others) and not any(keep in line or idle in line for line in ran), \
        undo.stdout
