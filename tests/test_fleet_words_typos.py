"""Host words said with a typo, and words next to the hosts that belong to the rest or to
the hosts (reos/understanding/hosts.py through reos.on_hosts.hosts_named, Ansible reading
a real INI file), each as a general rule on sentences and names of our own.

What is checked: a word for hosts misspelt ("everywher", "evry machine", "all hsts") is
read as that word where such a word reads as hosts, as the catalogue's corrector reads
it; a misspelt name of a group ("relais", "relys" for relays) is asked, never chosen;
a word the corrector would read as a word for hosts is left alone where it is not one.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from reos.understanding.hosts import Chosen
from tests.host_words import asked, chosen, inventory_of

INI = """[relays]
relay-a ansible_host=10.7.0.11
relay-b ansible_host=10.7.0.12

[vault]
keeper ansible_host=10.7.1.5

[archives]
tape1 ansible_host=10.7.2.21
"""
EVERY = {"relay-a", "relay-b", "keeper", "tape1"}


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


# -- a word for hosts misspelt ---------------------------------------------------------
@pytest.mark.parametrize(("request_", "rest"), [
    ("reload sshd everywher", "reload sshd"),
    ("reload sshd evrywhere please", "reload sshd please"),
    ("purge vim on evry machine", "purge vim"),
    ("show the kernel version on all hsts", "show the kernel version"),
    ("sync the clock on every hots", "sync the clock"),
    ("count open files across all severs", "count open files"),
])
def test_a_misspelt_word_for_hosts_is_read_as_it(inventory: Source, request_: str,
                                                 rest: str) -> None:
    found = chosen(request_, inventory)
    assert set(found.hosts) == EVERY
    assert found.request == rest


@pytest.mark.parametrize("request_", [
    "show the machnes of the lab",  # no word of place or quantifier before it
    "sever the tcp link to 10.0.0.1",  # a verb, not "server"
])
def test_a_misspelt_word_for_hosts_is_read_only_where_hosts_are(inventory: Source,
                                                                request_: str) -> None:
    assert hosts_named(request_, inventory) is None


# -- a misspelt name of a group ----------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "enable ufw on relais",  # one letter changed
    "enable ufw on the relys",  # one letter dropped
    "enable ufw on archivs",
    "enable ufw on the relayz",
])
def test_a_misspelt_group_is_asked(inventory: Source, request_: str) -> None:
    question = asked(request_, inventory)
    assert "Did you mean" in question
    assert "relays" in question or "archives" in question



# -- words next to the hosts: the rest's, or the hosts' ----------------------------------
@pytest.mark.parametrize(("request_", "hosts", "rest"), [
    ("who logged in keeper", {"keeper"}, "who logged in"),  # "logged in" is the rest's
    ("list users signed in tape1", {"tape1"}, "list users signed in"),
    ("show the memory in keeper", {"keeper"}, "show the memory"),  # a place: taken
])
def test_a_word_of_place_that_ends_a_phrase_stays_in_the_rest(
        inventory: Source, request_: str, hosts: set[str], rest: str) -> None:
    found = chosen(request_, inventory)
    assert set(found.hosts) == hosts
    assert found.request == rest


@pytest.mark.parametrize(("request_", "hosts"), [
    ("what kernel do we run on the relays and the vault lot",
     {"relay-a", "relay-b", "keeper"}),
    ("restart chrony on the archives crowd", {"tape1"}),
    ("df -h on the relays bunch", {"relay-a", "relay-b"}),
])
def test_a_word_for_a_group_as_a_whole_is_the_hosts(inventory: Source, request_: str,
                                                    hosts: set[str]) -> None:
    found = chosen(request_, inventory)
    assert set(found.hosts) == hosts
    assert found.request.split()[-1] not in ("lot", "crowd", "bunch")


def test_a_word_for_a_group_as_a_whole_is_not_one_alone(inventory: Source) -> None:
    found = chosen("list a lot of files on keeper", inventory)
    assert found.request == "list a lot of files"


@pytest.mark.parametrize("request_text", ["list all noses", "stop all notes",
                                          "show every nose"])
def test_a_word_of_its_own_one_letter_from_a_word_for_hosts_is_not_read_as_hosts(
        request_text: str, inventory: Source) -> None:
    """A letter changed often makes another word ("noses" is no typo of "nodes"): only a
    letter left out or two swapped is read as a word for hosts."""
    assert not isinstance(hosts_named(request_text, inventory), Chosen)


# -- a word that is one letter off a host's name, but a word of the sentence ---------------
@pytest.mark.parametrize("request_", ["whos logged in on vpn", "who is logged in on the vpn box",
                                      "Who is logged now in on vpn?"])
def test_a_place_word_is_never_read_as_a_misspelt_host(
        tmp_path_factory: pytest.TempPathFactory, request_: str) -> None:
    """"logged in on the vpn box" with a host `mon`: "on", a letter short of mon, is the
    place word it is, never "did you mean mon?"."""
    inventory = inventory_of(tmp_path_factory, "mon\nvpn\n")
    assert set(chosen(request_, inventory).hosts) == {"vpn"}


def test_a_host_named_like_a_short_form_the_catalogue_spells_out_is_that_host(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """The catalogue reads "gw" as "gateway"; with a host called gw, "on gw" is the host
    (it used to be no host at all, and the request planned here)."""
    from reos.catalogue.templates import load

    assert load().vocabulary.contractions.get("gw") == "gateway"  # what the test relies on
    inventory = inventory_of(tmp_path_factory, "gw\nmon\n")
    assert chosen("who is logged in on gw", inventory).hosts == ("gw",)
    assert set(chosen("uptime on gw and mon", inventory).hosts) == {"gw", "mon"}


# -- hosts named alike, said in the plural ------------------------------------------------
FAMILY_INI = """mail
main
[edge]
lb-1
lb-2
[ci]
build-runner-1
build-runner-2
build-runner-3
"""


@pytest.mark.parametrize(("request_", "hosts"), [
    ("kill haproxy on both lbs", {"lb-1", "lb-2"}),
    ("install htop on all the runners", {"build-runner-1", "build-runner-2",
                                         "build-runner-3"}),
    ("uptime across the lbs", {"lb-1", "lb-2"}),
])
def test_a_plural_of_the_name_hosts_share_is_all_of_them(
        tmp_path_factory: pytest.TempPathFactory, request_: str, hosts: set[str]) -> None:
    inventory = inventory_of(tmp_path_factory, FAMILY_INI)
    assert set(chosen(request_, inventory).hosts) == hosts


def test_a_plural_of_a_shared_name_is_counted_and_needs_a_place(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    inventory = inventory_of(tmp_path_factory, FAMILY_INI)
    assert "says 2, but names 3" in asked("restart nginx on both runners", inventory)
    assert hosts_named("restart the runners", inventory) is None  # a thing here, or none
    # mail and main share no name with a mark of its own: "mais" is asked, never both
    assert "Did you mean mail or main?" in asked("restart nginx on the mais", inventory)
