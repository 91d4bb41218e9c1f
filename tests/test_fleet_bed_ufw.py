"""ufw turned on, its default for incoming connections set and a port rate-limited on
another machine, through Ansible over real SSH, and undone there (reos/fleet/deciding.py:
`firewall_cuts_ssh` with the host's own ufw rules read as root). One host of the fleet
bed, fw1, may change its own firewall (CAP_NET_ADMIN in its own network namespace), so
ufw really filters there: a change that cut reos's SSH would fail the next step, the
undo above all. ufw's state is looked at from outside (docker exec), never through reos.

Over SSH, plain `ufw enable` asks "Proceed with operation (y|n)?", hears no answer, says
"Aborted" and exits 0; reos runs `ufw --force enable` (templates/firewall.toml), and
this is where that form is run the way the fleet runs it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from reos.errors import EXIT_OK
from tests import conftest
from tests.conftest import reos

pytestmark = [pytest.mark.docker, pytest.mark.slow]
HOST = "fw1"


@pytest.fixture(scope="module")
def walled(docker_client: object, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[object]:
    from tests import fleet_bed

    reason = fleet_bed.available()
    if reason:
        conftest.testbed_unavailable(reason)
    started = fleet_bed.start(tmp_path_factory.mktemp("walled"), (HOST,), net_admin=(HOST,))
    yield started
    fleet_bed.stop(started)


def _ufw(fleet, *argv: str) -> str:  # type: ignore[no-untyped-def]
    done = fleet.run(HOST, "ufw", *argv)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _baseline(fleet, *rules: str, policy: str = "deny") -> None:  # type: ignore[no-untyped-def]
    """ufw off on the host, with these rules added and this default for incoming."""
    _ufw(fleet, "--force", "reset")
    _ufw(fleet, "default", policy, "incoming")
    for rule in rules:
        _ufw(fleet, *rule.split())
    assert _ufw(fleet, "status").startswith("Status: inactive")


def _plan(fleet, request: str):  # type: ignore[no-untyped-def]
    done = reos("plan", "--hosts", HOST, "-i", str(fleet.inventory), "--yes", "--json",
                request, timeout=240)
    assert done.stdout.strip(), done.stderr
    return done, json.loads(done.stdout)["hosts"][0]


def _undo() -> str:
    done = reos("undo", timeout=240)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    return done.stdout


def test_ufw_goes_on_there_only_when_its_rules_let_ssh_in_and_undo_turns_it_off(
        walled) -> None:  # type: ignore[no-untyped-def]
    _baseline(walled, "allow 80/tcp")
    _, host = _plan(walled, "turn on the firewall")
    assert "no rule of ufw's allows port 22 from anywhere" in (host["left_out"] or ""), host
    assert _ufw(walled, "status").startswith("Status: inactive")

    _ufw(walled, "allow", "22/tcp")
    done, host = _plan(walled, "turn on the firewall")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert [s["argv"] for s in host["plan"]["steps"]] == [
        ["sudo", "-n", "ufw", "--force", "enable"]]
    assert _ufw(walled, "status").startswith("Status: active")
    # ufw filters now, and reos still reaches the host over SSH to undo it
    undone = _undo()
    assert "fw1" in undone, undone
    assert _ufw(walled, "status").startswith("Status: inactive")


def test_a_default_of_deny_there_then_undo_sets_allow_again(
        walled) -> None:  # type: ignore[no-untyped-def]
    _baseline(walled, "allow 22/tcp", policy="allow")
    _ufw(walled, "--force", "enable")
    done, host = _plan(walled, "deny all incoming connections by default")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "Default: deny (incoming)" in _ufw(walled, "status", "verbose")
    assert host["plan"]["steps"][0]["rollback"]["argv"] == [
        "sudo", "-n", "ufw", "default", "allow", "incoming"]
    _undo()
    assert "Default: allow (incoming)" in _ufw(walled, "status", "verbose")
    _ufw(walled, "disable")


def test_a_port_is_rate_limited_there_but_never_the_ssh_port(
        walled) -> None:  # type: ignore[no-untyped-def]
    _baseline(walled, "allow 22/tcp")
    _ufw(walled, "--force", "enable")
    _, refused = _plan(walled, "rate limit ssh")
    assert "rate-limit port 22, which reos reaches the host's SSH on" in (
        refused["left_out"] or ""), refused
    done, _ = _plan(walled, "limit connections to port 8080")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "ufw limit 8080/tcp" in _ufw(walled, "show", "added")
    _undo()
    assert "limit 8080" not in _ufw(walled, "show", "added")
    _ufw(walled, "disable")
