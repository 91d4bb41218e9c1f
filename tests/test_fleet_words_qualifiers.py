"""Words that say which hosts, never dropped into the rest nor read as a wider set
(reos/understanding/hosts.py: `_slip_for_a_name`, `_LEAVING_SLIPS`, `_is_said`,
`_said_after_hosts`, `_hosts_by_a_word_of_theirs`, `_machines_unnamed`), through
`on_hosts.hosts_named` with Ansible reading a real INI file; sentences and names of our
own (fleet-strangers-6's first run found each kind).

What is checked: a slip for a host's name is asked about, never read as a group whose
name begins it; a slip for "except" still leaves out; "web2's fine" after a list is a
sentence about web2; a "leave it alone" after a host said of it; a word of a host's name
left in the sentence ("the camera in Dublin" where the camera is cam_dublin) asked;
machines said in the plural by words naming none of the inventory's asked, never this
machine.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from reos.understanding.hosts import Asked, Chosen
from tests.host_words import inventory_of

INI = """[yard]
yardgate ansible_host=10.7.0.1
crane-1 ansible_host=10.7.0.2

[dublin]
cam_dublin ansible_host=10.7.1.1
kiosk-4 ansible_host=10.7.1.2
fridge3 ansible_host=10.7.1.3

[db]
pg1 ansible_host=10.7.2.1
pg2 ansible_host=10.7.2.2
"""


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


def _read(request: str, inventory: Source):  # type: ignore[no-untyped-def]
    return hosts_named(request, inventory, lambda: frozenset())


@pytest.mark.parametrize(("request_", "said"), [
    # a slip for the host yardgate, not the group yard with more letters
    ("show uptime on yardgte", "Did you mean yardgate?"),
    ("restart chrony in the yardagte", "Did you mean yardgate?"),
    # a list whose last name begins a sentence of its own
    ("restart chrony on pg1, pg2's fine", "run it on pg1 only"),
    # a word that leaves out, said after the host
    ("stop postgresql on pg1, the pg2 leave it alone", "leave hosts out"),
    # a word of a host's name in the sentence says which of the group
    ("reboot the camera box of the cam in Dublin", "cam_dublin"),
    ("install htop on the Dublin fridge", "fridge3"),
    # machines in the plural, named by none of the inventory's words
    ("reboot the old servers", "which hosts of"),
    ("update our flaky boxes", "which hosts of"),
])
def test_words_that_say_which_hosts_are_asked_about_never_dropped(
        inventory: Source, request_: str, said: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Asked), found
    assert said in found.question, found.question


def test_a_slip_for_except_leaves_out_as_except_does(inventory: Source) -> None:
    found = _read("restart chrony on every box in dublin exept kiosk-4", inventory)
    assert isinstance(found, Chosen), found
    assert sorted(found.hosts) == ["cam_dublin", "fridge3"]
    assert found.request == "restart chrony"


@pytest.mark.parametrize(("request_", "hosts"), [
    # a word of a host's name in another sentence of a story speaks of something else
    ("The cam was replaced last week. Show uptime on the dublin machines.",
     ["cam_dublin", "fridge3", "kiosk-4"]),
    # a possessive is the host's
    ("show pg1's disk usage", ["pg1"]),
])
def test_the_same_words_elsewhere_are_read_as_before(
        inventory: Source, request_: str, hosts: list[str]) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert sorted(found.hosts) == hosts


def test_a_request_with_no_machines_in_it_is_this_machines(inventory: Source) -> None:
    assert _read("restart nginx", inventory) is None
    assert _read("list the servers in my ssh config", inventory) is None


@pytest.mark.parametrize(("request_", "hosts", "rest"), [
    # a word one letter off "except" that is a word of its own
    ("show the syslog excerpt on pg1", ["pg1"], "show the syslog excerpt"),
    # leaving something else alone, after the hosts
    ("install nginx on pg1 and leave apache alone", ["pg1"],
     "install nginx and leave apache alone"),
])
def test_words_near_the_ways_of_leaving_out_are_left_to_the_request(
        inventory: Source, request_: str, hosts: list[str], rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert (sorted(found.hosts), found.request) == (hosts, rest)


@pytest.mark.parametrize("request_", [
    "show the dns servers", "list the running vms", "restart the worker nodes",
    "ping the name servers"])
def test_machines_of_software_or_only_looked_at_are_this_machines_words(
        inventory: Source, request_: str) -> None:
    assert _read(request_, inventory) is None


def test_every_host_left_out_and_none_to_run_on_is_asked(inventory: Source) -> None:
    found = _read("except on all hosts", inventory)
    assert isinstance(found, Asked) and "leaves every host" in found.question
