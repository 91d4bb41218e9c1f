"""Host words read the way people who never read reos say them (reos/understanding/hosts.py
through reos.on_hosts.hosts_named, Ansible reading a real inventory): the causes the
eleventh stranger set (tests/understanding/fleet_strangers/fleet-strangers-11.json) showed,
each as a general rule on sentences and names of our own.

What is checked: a host numbered with zeros or by a long name ("pos 3" for pos03, "cam 2"
for cam02.site.example) and a range of them ("pos 1 through 3", "kiosks 2-4") are those
hosts; where a group is called by a word for hosts ("servers", "nodes"), "all
servers", "every node" and "the servers" are that group, not every host; "a few of",
"some of", "the rest of" the hosts of a group says only part of them, so it is asked;
a word written with a hyphen right after the hosts read ("everything dmz-side") that
holds the name of a group says which hosts, so it is asked, never dropped.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from reos.understanding.hosts import Asked, Chosen
from tests.host_words import asked, chosen, inventory_of

INI = """[nodes:children]
edge
core

[edge]
gw1
gw2

[core]
db1
db2

[kiosks]
kiosk[1:5]

[dmz:children]
edge

[lab]
scratch

[tills]
pos[01:04]

[cameras]
cam[01:03].site.example
"""
EVERY_HOST = {"gw1", "gw2", "db1", "db2", "kiosk1", "kiosk2", "kiosk3", "kiosk4", "kiosk5",
              "scratch", "pos01", "pos02", "pos03", "pos04", "cam01.site.example",
              "cam02.site.example", "cam03.site.example"}
NODES = {"gw1", "gw2", "db1", "db2"}


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


# -- a group called by a word for hosts ----------------------------------------------------
@pytest.mark.parametrize("request_", [
    "restart chrony on all nodes", "restart chrony on every node", "uptime on the nodes",
    "which nodes have failed units"])
def test_a_group_called_nodes_is_what_all_nodes_means(inventory: Source,
                                                      request_: str) -> None:
    assert set(chosen(request_, inventory).hosts) == NODES


def test_an_exclusion_from_such_a_group_leaves_out_only_what_it_names(
        inventory: Source) -> None:
    found = chosen("upgrade openssl on all nodes except the core ones", inventory)
    assert set(found.hosts) == {"gw1", "gw2"} and found.request == "upgrade openssl"


def test_a_word_for_hosts_that_no_group_is_called_is_still_every_host(
        inventory: Source) -> None:
    assert set(chosen("uptime on all hosts", inventory).hosts) == EVERY_HOST
    assert set(chosen("uptime on every server", inventory).hosts) == EVERY_HOST


# -- part of a group -----------------------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "reboot a few of the kiosks", "restart chrony on some of the kiosks",
    "reboot several of the kiosks", "upgrade openssl on the rest of the kiosks",
    "could you reboot a couple of the kiosks"])
def test_part_of_a_group_said_without_which_is_asked(inventory: Source,
                                                     request_: str) -> None:
    question = asked(request_, inventory)
    assert "kiosk1" in question and "which of" in question


def test_some_of_a_group_s_name_going_on_as_other_words_is_no_part_of_its_hosts(
        inventory: Source) -> None:
    found = hosts_named("Some of the core team complained. Please restart chrony on gw1.",
                        inventory)
    assert not (isinstance(found, Asked) and "which of" in found.question), found


def test_all_of_a_group_is_the_group(inventory: Source) -> None:
    assert len(chosen("reboot all of the kiosks", inventory).hosts) == 5


# -- numbered hosts said with their number apart, and ranges of them -------------------------
@pytest.mark.parametrize(("request_", "hosts"), [
    ("restart chrony on pos 3", ("pos03",)), ("reboot on pos 4", ("pos04",)),
    ("show disk usage on cam 2", ("cam02.site.example",)),
    ("restart chrony on kiosks 2-4", ("kiosk2", "kiosk3", "kiosk4")),
    ("install htop on pos 1 through 3", ("pos01", "pos02", "pos03")),
    ("install htop on pos1 thru pos3", ("pos01", "pos02", "pos03")),
    ("uptime on cam 1 through cam 2", ("cam01.site.example", "cam02.site.example")),
])
def test_a_number_said_apart_or_a_range_of_numbers_names_those_hosts(
        inventory: Source, request_: str, hosts: tuple[str, ...]) -> None:
    found = chosen(request_, inventory)
    assert found.hosts == hosts


@pytest.mark.parametrize("request_", [
    "set swappiness on pos1 to 3",  # a value
    "fail over pos1 to pos2",  # a direction
    "stop nginx on pos01 until 3",  # a time
    "stop nginx on pos01 till 4",
    "deny ssh on pos 1 through 3 pm",
    "restart chrony on pos 1 and 2",  # more numbers, which hosts they add not read
    "restart chrony on pos 1, 2",
    "restart chrony on pos#1",  # no number said apart
    "check disk on pos[1:2]",
])
def test_no_more_hosts_than_named_from_numbers_that_are_no_range(
        inventory: Source, request_: str) -> None:
    found = hosts_named(request_, inventory)
    assert not (isinstance(found, Chosen) and len(found.hosts) > 1), found
    assert not (isinstance(found, Chosen) and found.request.rstrip(" .").endswith(
        ("and 2", ", 2", "pm", "[1:2]"))), found


def test_to_and_a_number_after_a_host_stays_the_requests(inventory: Source) -> None:
    assert chosen("set swappiness on pos2 to 60", inventory).hosts == ("pos02",)


def test_a_range_reaching_past_the_hosts_there_are_is_not_read_as_some_of_them(
        inventory: Source) -> None:
    question = asked("restart chrony on pos 3 through 6", inventory)
    assert "has only pos03, pos04 of those" in question


# -- a group's name inside a hyphenated word after the hosts -------------------------------
def test_a_hyphenated_word_holding_a_groups_name_after_the_hosts_is_asked(
        inventory: Source) -> None:
    question = asked("show failed units on everything dmz-facing", inventory)
    assert "dmz-facing" in question
    # a hyphenated word naming nothing of the inventory is the request's own
    found = chosen("restart node-exporter on gw1", inventory)
    assert found.hosts == ("gw1",) and found.request == "restart node-exporter"
