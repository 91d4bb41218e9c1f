"""Host words read the way people who never read reos say them (reos/understanding/hosts.py
and host_words.py through reos.on_hosts.hosts_named, Ansible reading a real inventory):
the causes the tenth stranger set (tests/understanding/fleet_strangers/fleet-strangers-10
.json) showed, each as a general rule on sentences and names of our own.

What is checked: a host written as a range (`frz[01:04]`) is a name the first look knows,
with or without its zeros; a host's address (`ansible_host`) said after a word of place
is that host, an address two hosts share is asked, and an address said with no word of
place stays what the request is about; a group's own name said alone ("uptime
coldrooms") is its hosts, never right after a verb ("restart mosquitto": the program) nor
when the catalogue reads the word; a group named by two words written together is said
apart ("the cold rooms"); a word of a group's name left in the sentence of other hosts
("reboot the freezers in north") is asked; "everything else" is asked, never everything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from reos.understanding.host_words import could_name_hosts, inventory_words
from reos.understanding.hosts import Chosen
from reos.understanding.inventory_names import RANGE_NAMES, expanded, names_in
from tests.host_words import asked, chosen, inventory_of

INI = """[coldrooms]
cr-a ansible_host=10.44.0.7
cr-b ansible_host=10.44.0.8

[lab_freezers]
frz[01:04]

[north]
frz01
frz02
cr-a

[south]
frz03
frz04
cr-b
spare-b ansible_host=10.44.0.8

[mosquitto]
broker1 ansible_host=10.44.1.2

[core_services]
broker1
"""
YAML = """all:
  children:
    pumps:
      hosts:
        pump[01:12]:
        pump-x:
          ansible_host: 10.44.2.9
"""
FREEZERS = {"frz01", "frz02", "frz03", "frz04"}


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


@pytest.fixture(scope="module")
def pumps(tmp_path_factory: pytest.TempPathFactory) -> Source:
    path: Path = tmp_path_factory.mktemp("inventory") / "pumps.yml"
    path.write_text(YAML)
    return Source((path,), "--inventory")


# -- ranges --------------------------------------------------------------------------------
def test_a_range_stands_for_each_of_its_names() -> None:
    assert expanded("frz[01:04]") == ["frz01", "frz02", "frz03", "frz04"]
    assert expanded("node[a:c]") == ["nodea", "nodeb", "nodec"]
    assert expanded("web[1:9:4]") == ["web1", "web5", "web9"]
    assert expanded("x[1:2]-[a:b]") == ["x1-a", "x1-b", "x2-a", "x2-b"]
    assert expanded("plain") == ["plain"]
    assert len(expanded("h[1:100000]")) == RANGE_NAMES


def test_a_yaml_key_with_a_range_is_a_name() -> None:
    assert {"pump01", "pump12", "pump-x", "pumps"} <= names_in(YAML, ".yml")


@pytest.mark.parametrize("request_", ["reboot pump07", "reboot pump7", "disk usage pump11"])
def test_a_host_of_a_range_passes_the_first_look(pumps: Source, request_: str) -> None:
    assert could_name_hosts(request_, inventory_words(pumps.paths))


def test_a_host_of_a_range_is_chosen(pumps: Source, inventory: Source) -> None:
    assert chosen("restart chrony on pump07", pumps).hosts == ("pump07",)
    assert chosen("restart chrony on frz03", inventory).hosts == ("frz03",)


# -- addresses -----------------------------------------------------------------------------
def test_an_address_after_a_word_of_place_is_its_host(inventory: Source, pumps: Source) -> None:
    found = chosen("restart chrony on 10.44.0.7", inventory)
    assert found.hosts == ("cr-a",) and found.request == "restart chrony"
    assert chosen("uptime on 10.44.2.9 please", pumps).hosts == ("pump-x",)


def test_an_address_two_hosts_share_is_asked(inventory: Source) -> None:
    question = asked("restart chrony on 10.44.0.8", inventory)
    assert "cr-b" in question and "spare-b" in question


@pytest.mark.parametrize("request_", ["block 10.44.0.7", "ping 10.44.0.7",
                                      "allow ssh from 10.44.0.7"])
def test_an_address_said_as_what_the_request_is_about_is_no_host(
        inventory: Source, request_: str) -> None:
    assert not isinstance(hosts_named(request_, inventory), Chosen)


# -- a group's name said alone -------------------------------------------------------------
@pytest.mark.parametrize("request_", ["uptime coldrooms", "chrony status, coldrooms",
                                      "show failed units, coldrooms"])
def test_a_group_said_alone_is_its_hosts(inventory: Source, request_: str) -> None:
    found = hosts_named(request_, inventory, lambda: frozenset({"nginx", "sshd"}))
    assert isinstance(found, Chosen) and set(found.hosts) == {"cr-a", "cr-b"}
    # something on this machine called so: this machine's, as before
    assert hosts_named(request_, inventory, lambda: frozenset({"coldrooms"})) is None


@pytest.mark.parametrize("request_", [
    "make a user called coldrooms", "create one user with name coldrooms",
    "show me the log of the service coldrooms", "add user coldrooms",
    "tar up /etc into a coldrooms archive in /root",
])
def test_a_group_said_as_a_name_of_a_thing_is_no_host(inventory: Source, request_: str) -> None:
    assert hosts_named(request_, inventory, lambda: frozenset({"nginx"})) is None


def test_a_group_right_after_a_verb_is_what_it_acts_on(inventory: Source) -> None:
    assert hosts_named("restart mosquitto", inventory) is None


# -- a group of two words written together, said apart -------------------------------------
def test_a_group_written_as_one_word_said_as_two(inventory: Source) -> None:
    assert set(chosen("restart chrony on the cold rooms", inventory).hosts) == {"cr-a", "cr-b"}
    assert "cr-a" in asked("restart chrony on the cold room", inventory)  # one of two


# -- a word of a group's name left beside other hosts --------------------------------------
@pytest.mark.parametrize("request_", ["reboot the freezers in north",
                                      "memory of the freezers at south, numbers 3 and 4"])
def test_a_word_of_a_group_left_beside_other_hosts_is_asked(
        inventory: Source, request_: str) -> None:
    assert "lab_freezers" in asked(request_, inventory)


def test_the_group_itself_is_still_read(inventory: Source) -> None:
    assert set(chosen("restart chrony on the lab freezers", inventory).hosts) == FREEZERS


def test_a_noun_of_things_is_no_word_of_a_group(inventory: Source) -> None:
    # core_services holds "services", a kind of thing: "the chrony service" is the thing
    found = chosen("is the chrony service running on north", inventory)
    assert set(found.hosts) == {"frz01", "frz02", "cr-a"}


# -- everything else -----------------------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "The north room is being rebuilt, skip it. Upgrade openssl on everything else.",
    "restart chrony everywhere else",
])
def test_everything_else_is_asked(inventory: Source, request_: str) -> None:
    assert "else" in asked(request_, inventory)


# -- a slip in a name of several words -----------------------------------------------------
@pytest.mark.parametrize(("request_", "meant"), [
    ("restart chrony on the coer services", "core_services"),
    ("restart chrony on the core servces", "core_services"),
    ("restart chrony on the labb freezers", None),  # "lab" is too short to be a slip
])
def test_a_slip_in_a_name_of_two_words_is_asked(inventory: Source, request_: str,
                                               meant: str | None) -> None:
    found = hosts_named(request_, inventory, lambda: frozenset())
    if meant is None:
        assert not isinstance(found, Chosen)
    else:
        assert meant in asked(request_, inventory)


@pytest.mark.parametrize("request_", ["upgrade the coldrooms", "update my coldrooms",
                                      "upgrade coldrooms and mosquitto"])
def test_a_group_after_a_verb_over_the_or_a_list_is_what_it_acts_on(
        inventory: Source, request_: str) -> None:
    assert hosts_named(request_, inventory, lambda: frozenset()) is None


@pytest.mark.parametrize("request_", ["allow 5432 on 10.44.0.7",
                                      "make postgres listen on 10.44.0.7 only"])
def test_an_address_a_verb_takes_is_no_host(inventory: Source, request_: str) -> None:
    assert not isinstance(hosts_named(request_, inventory, lambda: frozenset()), Chosen)
