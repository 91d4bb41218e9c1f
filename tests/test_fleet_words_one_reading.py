"""Host words that fit more than one reading are asked, never read one way (reos/understanding/
hosts.py through reos.on_hosts.hosts_named, Ansible reading a real INI file): the cases an
adversarial review of the fleet-words-4 branch found, each as a rule on names of our own.

What is checked: a host's name said alone stays asked, in the chat too, whatever this
machine holds ("reboot now" with a host called now, "set hostname kite", "ping relay7",
"don't reboot kite"); a name of several words said apart ("tile 2", "edge canary") that
could also be a host said as a word and a number, or the hosts of each word, is asked,
naming both; hosts said with "or" between them, or a list whose last name begins a
sentence of its own ("on tile1, relay7 is fine"), are asked; a request that says not to do
it before the hosts ("do not restart nginx on tile1") is asked; an ordinal ("the first
tile server", "the second db") is asked.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from reos.fleet.inventory import Source
from reos.understanding.hosts import Chosen
from tests.host_words import asked, chosen, inventory_of

INI = """now
kite
relay7
portainer
cam3
cam-3

[tiles]
tile1
tile2

[tile_2]
tile9

[SW_5]
swx

[switches]
sw5
swx

[edge]
e1
e2

[canary]
e2
e3

[edge_canary]
e9

[lab]
g1
g2

[gpu]
g2
g3

[lab_gpu]
g2

[db]
sqla
sqlb
"""
FIXTURE = Path(__file__).parent / "fixtures" / "homelab.json"


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


# -- a host's name said alone, in the chat ------------------------------------------------
@pytest.mark.usefixtures("reos_home")
@pytest.mark.parametrize("request_", [
    "reboot now",  # a host called now
    "set hostname kite",  # the name fills the request's own slot
    "allow ssh from relay7",
    "ping relay7",
    "don't reboot kite",
    "reboot, kite is fine",
    "reboot portainer",  # this machine's containers could not be read
])
def test_a_host_said_alone_is_never_chosen_in_the_chat(inventory: Source,
                                                       request_: str) -> None:
    from reos.engine import ReasoningEngine
    from reos.settings import FleetSettings, Settings
    from reos.system.snapshot import SystemSnapshot

    snapshot = msgspec.structs.replace(SystemSnapshot.load(FIXTURE), containers=None,
                                       unavailable={"containers": "docker is not running"})
    engine = ReasoningEngine(Settings(fleet=FleetSettings(inventory=str(inventory.paths[0]))),
                             snapshot=snapshot)
    found = engine.hosts_named(request_)
    reading = None if found is None else found[1]
    assert not isinstance(reading, Chosen), (request_, reading)


# -- a name said apart that reads two ways ------------------------------------------------
@pytest.mark.parametrize(("request_", "both"), [
    ("restart nginx on tile 2", ("group tile_2", "the host tile2")),  # a group, a host
    ("restart nginx on cam 3", ("cam-3", "the host cam3")),  # two hosts
    ("restart lldpd on sw 5", ("group SW_5", "the host sw5")),  # in capitals
])
def test_a_joined_name_and_a_host_said_apart_are_asked(inventory: Source, request_: str,
                                                       both: tuple[str, str]) -> None:
    question = asked(request_, inventory)
    assert all(said in question for said in both), question


def test_a_joined_name_and_the_hosts_of_its_words_are_asked(inventory: Source) -> None:
    for request_ in ("restart haproxy on edge canary", "restart haproxy on the edge canary "
                     "servers"):
        question = asked(request_, inventory)
        assert "group edge_canary" in question and "group edge and group canary" in \
            question, question
    # the same hosts either way: nothing to ask
    assert chosen("restart slurmd on lab gpu", inventory).hosts == ("g2",)
    assert chosen("restart nginx on tile_2", inventory).hosts == ("tile9",)
    assert chosen("restart nginx on tile2", inventory).hosts == ("tile2",)


# -- "or", and a list whose last name begins a sentence -----------------------------------
@pytest.mark.parametrize("request_", [
    "reboot on tile1 or relay7",
    "restart nginx on either tile1 or tile2",
    "restart nginx on the edge servers or the canary servers",
])
def test_hosts_said_with_or_are_asked(inventory: Source, request_: str) -> None:
    assert "which do you mean?" in asked(request_, inventory)


@pytest.mark.parametrize("request_", [
    "reboot on tile1, relay7 is fine",
    "restart nginx on tile1, tile2 are down",
    "restart nginx on tile1, relay7 is ok",
])
def test_a_list_whose_last_name_begins_a_sentence_is_asked(inventory: Source,
                                                           request_: str) -> None:
    assert "only, or on" in asked(request_, inventory)


def test_a_list_with_and_is_still_read(inventory: Source) -> None:
    assert chosen("reboot on tile1 and relay7", inventory).hosts == ("relay7", "tile1")


# -- told not to do it ----------------------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "do not restart nginx on tile1",
    "don't reboot on relay7",
    "please dont restart sshd on the db servers",
    "never reboot the edge servers",
])
def test_a_request_that_says_not_to_is_asked(inventory: Source, request_: str) -> None:
    assert "says not to" in asked(request_, inventory)


def test_a_not_in_another_sentence_is_not_the_requests(inventory: Source) -> None:
    assert chosen("haproxy never picked it up. Restart haproxy on the edge servers",
                  inventory).hosts == ("e1", "e2")


# -- ordinals ---------------------------------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "reboot on the first tile server",
    "restart postgres on the second db",
    "reboot the second db",
    "restart nginx on the 2nd tiles box",
    "restart haproxy on the last edge host",
])
def test_an_ordinal_for_hosts_is_asked(inventory: Source, request_: str) -> None:
    assert "The words do not name it" in asked(request_, inventory)


def test_an_ordinal_of_other_things_is_not(inventory: Source) -> None:
    assert chosen("show the last 50 lines of syslog on tile1", inventory).hosts == (
        "tile1",)
    assert chosen("show the first lines of syslog on relay7", inventory).hosts == (
        "relay7",)
