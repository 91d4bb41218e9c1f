"""This machine called by its own name (reos/understanding/this_machine.py, through the
engine): "install htop on kiln" on the machine kiln is "install htop" there; the name
anywhere else, the same words on a machine where something else is called kiln (or by
it and more), a request that leaves something out, or a name that is a word, are left
as said. Names and sentences of our own."""

from __future__ import annotations

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.understanding.this_machine import as_this_machine

NOTHING = frozenset({"nginx", "bob"})


@pytest.mark.parametrize(("said", "meant"), [
    ("install htop on kiln", "install htop"),
    ("install htop on kiln.lab.example please", "install htop please"),
    ("which services failed on the server kiln, please?", "which services failed, please?"),
    ("restart nginx at KILN.", "restart nginx."),
    # or where a new clause begins after it, and "from" where nothing lets a source in
    ("lock the ansible account on kiln, awx is gone", "lock the ansible account, awx is gone"),
    ("remove sssd from kiln; the directory logins are going away",
     "remove sssd; the directory logins are going away"),
    ("install mosh on kiln so we can use it", "install mosh so we can use it"),
    ("restart nginx on kiln. It hangs.", "restart nginx. It hangs."),
    ("remount /srv read-only on kiln during the content freeze",
     "remount /srv read-only during the content freeze"),
    ("stop cron on kiln until the migration is done", "stop cron until the migration is done"),
])
def test_this_machines_own_name_ending_the_request_after_on_is_taken_out(
        said: str, meant: str) -> None:
    assert as_this_machine(said, "kiln.lab.example", lambda: NOTHING) == meant


@pytest.mark.parametrize("said", [
    "reboot kiln",  # the name elsewhere: a machine is often named after what it runs
    "restart the kiln",
    "kill all kilns",
    "show kiln's uptime",
    "set the time zone on kiln to UTC",  # not where the request ends
    "set the hostname to kiln",
    "install htop on kiln-2",  # another name
    "copy /srv/kiln to /tmp",  # a path
    "restart nginx on kiln as well as web2",
    "ping kiln.lab.example.org",
    "restart nginx on kiln, web2 and web3",  # more names after it
    "restart nginx on kiln, web2",
    "allow 5432 from kiln",  # a source, not where
    "copy the backups from kiln, they are needed",
    "drop packets from kiln, they flood us",
])
def test_the_name_anywhere_else_is_left_as_said(said: str) -> None:
    assert as_this_machine(said, "kiln.lab.example", lambda: NOTHING) == said


@pytest.mark.parametrize(("said", "hostname"), [
    ("stop nginx, but not on kiln", "kiln"),  # the name is what is left out
    ("stop nginx everywhere except on kiln", "kiln"),
    ("stop the services on redis", "redis"),  # redis-server is here: redis may be it
    ("remove the containers on nextcloud", "nextcloud"),  # nextcloud-app-1 is here
])
def test_a_request_that_leaves_out_or_may_mean_a_thing_is_left_as_said(
        said: str, hostname: str) -> None:
    here = frozenset({"nginx", "redis-server", "nextcloud-app-1"})
    assert as_this_machine(said, hostname, lambda: here) == said


def test_nothing_is_taken_out_when_something_here_has_that_name_or_it_is_not_known(
        ) -> None:
    # a name the catalogue reads as a word, and one too short to be sure of
    assert as_this_machine("restart nginx on web", "web", lambda: NOTHING,
                           lambda: {"web"}) == "restart nginx on web"
    said = "restart nextcloud on nextcloud"
    assert as_this_machine(said, "nextcloud", lambda: frozenset({"nextcloud"})) == said
    assert as_this_machine("install htop on kiln", "kiln", lambda: None) == \
        "install htop on kiln"
    assert as_this_machine("install htop on localhost", "localhost", lambda: NOTHING) == \
        "install htop on localhost"


def test_a_plan_for_the_machine_named_so_is_made_for_it() -> None:
    snapshot = SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "2026-11-28T10:00:00Z",
        "host": {"hostname": "kiln", "package_manager": "apt", "is_root": True},
        "packages": [], "services": [], "containers": [], "users": [], "groups": []})
    engine = ReasoningEngine(Settings(), snapshot=snapshot)
    plan = engine.plan("install htop on kiln")
    assert [step.argv[-1] for step in plan.steps] == ["htop"], plan.text()
    # a container called kiln here: "on kiln" may mean it, so the words are not changed
    taken = SystemSnapshot.from_dict({
        **snapshot.to_dict(),
        "containers": [{"name": "kiln", "image": "kiln:1", "state": "running"}]})
    plan = ReasoningEngine(Settings(), snapshot=taken).plan("install htop on kiln")
    assert [step.argv[-1] for step in plan.steps] != ["htop"]
