"""A host's name said alone, with no word of place ("reboot kiln-2", "disk usage
vault.lab.example"), through `on_hosts.hosts_named` with what this machine has
(`names_here`, from a snapshot) and Ansible reading a real INI file; sentences and
names of our own.

What is checked: such a name is the host when it is written as in the inventory, is
shaped as only a machine's name is (a letter with a digit, dot, dash or underscore), and
nothing on this machine is called so; otherwise it is asked about, as it is when what
this machine has is not known. A request whose verb takes another machine as its object
("ping kiln-2", "ssh to kiln-2", "block kiln-2"), a name after "to", "from"…, a word not
read right before it ("exept"), "or" between names: each stays asked.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named, names_here
from reos.system.snapshot import SystemSnapshot
from reos.understanding.hosts import Asked, Chosen
from tests.host_words import inventory_of

INI = """vault.lab.example ansible_host=10.8.0.2

[kilns]
kiln-1 ansible_host=10.8.1.1
kiln-2 ansible_host=10.8.1.2

[glaze]
glaze_mixer ansible_host=10.8.2.1
potter ansible_host=10.8.2.2
"""
HERE = SystemSnapshot.from_dict({
    "schema": "reos.snapshot/2", "collected_at": "2026-11-28T10:00:00Z", "host": {},
    "containers": [{"name": "glaze_mixer", "image": "mixer:1", "state": "running"}],
    "services": [{"name": "potter.service", "active": "active", "sub": "running"}],
})


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


def _read(request: str, inventory: Source, here: SystemSnapshot | None = HERE):
    return hosts_named(request, inventory,
                       None if here is None else (lambda: names_here(here)))


@pytest.mark.parametrize(("request_", "hosts", "rest"), [
    ("reboot kiln-2", ("kiln-2",), "reboot"),
    ("disk usage vault.lab.example", ("vault.lab.example",), "disk usage"),
    ("how busy is the kiln-1", ("kiln-1",), "how busy is"),
    ("uptime of kiln-1 and kiln-2", ("kiln-1", "kiln-2"), "uptime"),
])
def test_a_machines_name_said_alone_is_that_host_when_nothing_here_is_called_so(
        inventory: Source, request_: str, hosts: tuple[str, ...], rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert found.hosts == hosts
    assert found.request == rest


def test_the_same_name_is_asked_when_what_this_machine_has_is_not_known(
        inventory: Source) -> None:
    found = _read("reboot kiln-2", inventory, here=None)
    assert isinstance(found, Asked)
    assert "kiln-2 is a host in hosts.ini" in found.question


@pytest.mark.parametrize("request_", [
    "restart glaze_mixer",  # a container here is called so
    "stop potter",  # a service here; and a word, not a machine's name
    "ping kiln-2",  # the machine pinged, from here
    "ssh to kiln-2 and show its uptime",
    "block kiln-2 in the firewall",
    "install the client to reach kiln-2",
    "trace the route to vault.lab.example",
    "reboot kiln-1 or kiln-2",  # which?
    "restart everything exept kiln-1",  # a word not read, right before it
    "reboot kiln 2",  # not written as in the inventory
    "stop kiln-2 in haproxy",  # what it acts on, not where
    "create user kiln-1",  # the name of what is made
    "docker run --name kiln-1 nginx",
    "wake up kiln-2",  # another machine reached from here
    "sync the files with kiln-2",
])
def test_a_name_said_alone_stays_asked_where_it_may_be_something_else(
        inventory: Source, request_: str) -> None:
    found = _read(request_, inventory)
    assert not isinstance(found, Chosen), found


# -- words around hosts ------------------------------------------------------------------
TURNED = """[relays]
relay.north ansible_host=10.9.0.1
relay.south ansible_host=10.9.0.2

[forge]
git ansible_host=10.9.1.1
"""


@pytest.fixture(scope="module")
def relays(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, TURNED)


def test_a_host_of_two_words_is_said_the_other_way_round_too(relays: Source) -> None:
    found = _read("show the load on the north relay, please", relays)
    assert isinstance(found, Chosen) and found.hosts == ("relay.north",)
    assert found.request == "show the load, please"


def test_a_host_said_the_other_way_round_is_read_so_only_after_a_word_of_place(
        relays: Source) -> None:
    # "the north relay config" is a thing here, not the host relay.north
    assert _read("show the north relay config", relays) is None


def test_hosts_said_last_after_a_comma_are_where_it_runs(relays: Source) -> None:
    found = _read("kernel version, all hosts please", relays)
    assert isinstance(found, Chosen) and set(found.hosts) == {
        "relay.north", "relay.south", "git"}
    assert found.request == "kernel version, please"
    # not when more follows them: "…, all hosts in it" are the file's
    assert not isinstance(_read("drop the stale lines, all hosts in known_hosts", relays),
                          Chosen)


@pytest.mark.parametrize("request_", [
    "restart smbd in relay.north, it keeps failing",  # "it" is not "git" misspelt
    "restart smbd on relay.south, as it keeps failing",
])
def test_a_word_of_the_sentences_frame_is_never_a_hosts_name_misspelt(
        relays: Source, request_: str) -> None:
    found = _read(request_, relays)
    assert found is None or "Did you mean" not in getattr(found, "question", ""), found


# -- names left out that are surely the inventory's ------------------------------------------
LEFT_OUT = """[shelf]
shelf-01 ansible_host=10.10.0.1
shelf-02 ansible_host=10.10.0.2
mail ansible_host=10.10.0.3

[print_servers]
prn.lab ansible_host=10.10.1.1

[office:children]
shelf
print_servers
"""


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, LEFT_OUT)


@pytest.mark.parametrize(("request_", "hosts"), [
    ("upgrade all packages on the office except shelf-02",
     {"shelf-01", "mail", "prn.lab"}),
    ("which units failed across the office, minus the print servers",
     {"shelf-01", "shelf-02", "mail"}),
])
def test_a_machines_name_or_a_group_left_out_of_a_set_of_things_is_the_inventorys(
        office: Source, request_: str, hosts: set[str]) -> None:
    found = _read(request_, office)
    assert isinstance(found, Chosen) and set(found.hosts) == hosts, found


@pytest.mark.parametrize("request_", [
    "upgrade all packages on the office except mail",  # a word: the mail packages?
    "stop all containers on the office except shelf-02",  # a container may be called so
])
def test_a_name_a_thing_could_have_left_out_of_a_set_of_things_stays_asked(
        office: Source, request_: str) -> None:
    found = _read(request_, office)
    assert isinstance(found, Asked) and "one of the things" in found.question, found


# -- a word between the word of place and the hosts ------------------------------------------
SITES = """[site_harbor]
harbor-1 ansible_host=10.11.0.1
harbor-2 ansible_host=10.11.0.2

[site_hill]
hill-1 ansible_host=10.11.1.1

[sites:children]
site_harbor
site_hill

[plotters]
plot.harbor ansible_host=10.11.2.1
plot.hill ansible_host=10.11.2.2
"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, SITES)


def test_a_group_of_two_words_is_said_the_other_way_round_after_a_word_of_place(
        sites: Source) -> None:
    found = _read("show memory usage on the harbor site machines", sites)
    assert isinstance(found, Chosen) and found.hosts == ("harbor-1", "harbor-2"), found


@pytest.mark.parametrize(("request_", "unread"), [
    # "new" says which sites: never all of them with "on the new" left in the rest
    ("show memory usage on the new site machines", "new"),
    ("show memory usage on my two old site machines", "two old"),  # however many
])
def test_words_between_the_word_of_place_and_the_hosts_are_never_dropped(
        sites: Source, request_: str, unread: str) -> None:
    found = _read(request_, sites)
    assert isinstance(found, Asked) and f"but not “{unread}”" in found.question, found


def test_a_longer_word_the_catalogue_reads_is_no_other_name_of_a_group(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    named = inventory_of(tmp_path_factory, "[print]\np1 ansible_host=10.12.0.1\n"
                                           "p2 ansible_host=10.12.0.2\n\n[prod]\n"
                                           "p3 ansible_host=10.12.0.3\n")
    # "the printer" is a device, not a longer spelling of the group print
    assert not isinstance(_read("show the cups logs on the printer", named), Chosen)
    # a longer spelling the catalogue does not read is one: "production" for prod
    found = _read("show the cups logs on production", named)
    assert isinstance(found, Chosen) and found.hosts == ("p3",), found


def test_a_hosts_own_stem_is_never_read_as_a_longer_name_of_another_group(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    named = inventory_of(tmp_path_factory, "[mon]\ngraf1 ansible_host=10.13.0.1\n\n"
                                           "[db]\nmongo1 ansible_host=10.13.1.1\n"
                                           "mongo2 ansible_host=10.13.1.2\n")
    # never graf1 of the group mon; the word mongo1 and mongo2 share names both of them
    found = _read("restart nginx on the mongo boxes", named)
    assert not isinstance(found, Chosen) or found.hosts == ("mongo1", "mongo2"), found


def test_a_host_said_the_other_way_round_is_not_read_after_in(relays: Source) -> None:
    # "in the north relay" may be a thing's place; only "on", "at"… say a machine
    assert not isinstance(_read("restart tor in the north relay", relays), Chosen)
