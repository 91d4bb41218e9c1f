"""Names said with other separators, and a name with a word for one machine said without
a word of place (reos/understanding/hosts.py: `_spelling`, `respelled`, `_one_machine`,
and the first look, `could_name_hosts`), through `on_hosts.hosts_named` with Ansible
reading a real INI file; sentences and names of our own.

What is checked: "press-cam" is the host press_cam, "front-gate" the group front_gate,
"kiln2" the host kiln-2, each found by the first look too; two names spelled alike are
asked about; such a name left after "everything" is a qualifier, asked, never dropped;
"reboot the sauna box" is the host sauna, where "restart the web server" stays this
machine's nginx and "the sauna server" is not read as the machine; a host said by words
of its name after a word of place ("on the north pump controller", `_described`) is that
host when every word is read, one is a whole part of the name and one host fits, and is
asked about otherwise.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from reos.understanding.host_words import could_name_hosts, inventory_words
from reos.understanding.hosts import Asked, Chosen
from tests.host_words import inventory_of

INI = """[kilns]
kiln-1 ansible_host=10.7.0.1
kiln-2 ansible_host=10.7.0.2

[cams]
press_cam ansible_host=10.7.1.1
yard_cam ansible_host=10.7.1.2

[front_gate]
gatehouse ansible_host=10.7.2.1

[spa]
sauna ansible_host=10.7.3.1

[web]
web1 ansible_host=10.7.4.1
web2 ansible_host=10.7.4.2

[pumps]
pumpctl-north.water.lan ansible_host=10.7.5.1
pumpctl-south.water.lan ansible_host=10.7.5.2

[desks]
desk_night_shift ansible_host=10.7.6.1
desk-helpdesk ansible_host=10.7.6.2

[node_exporter]
web2

[boiler_control]
boiler1 ansible_host=10.7.7.1
boiler2 ansible_host=10.7.7.2

[infra]
logs ansible_host=10.7.8.1
gateway ansible_host=10.7.8.2

[cellar]
vat-1 ansible_host=10.7.9.1
vat-2 ansible_host=10.7.9.2

[shop_us]
till9 ansible_host=10.7.10.1
"""

TWINS = """[shop]
till-1 ansible_host=10.8.0.1
till_1 ansible_host=10.8.0.2
"""


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


def _read(request: str, inventory: Source):  # type: ignore[no-untyped-def]
    return hosts_named(request, inventory, lambda: frozenset())


@pytest.mark.parametrize(("request_", "hosts", "rest"), [
    ("install htop on press-cam", ("press_cam",), "install htop"),
    ("restart chrony on the front-gate hosts", ("gatehouse",), "restart chrony"),
    ("show uptime on front-gate", ("gatehouse",), "show uptime"),
    ("restart cups on kiln2", ("kiln-2",), "restart cups"),
    ("reboot the sauna box", ("sauna",), "reboot"),
    ("show memory usage on the sauna machine", ("sauna",), "show memory usage"),
    ("restart chrony on the boiler controllers", ("boiler1", "boiler2"), "restart chrony"),
])
def test_a_name_said_with_other_separators_or_with_a_word_for_a_machine_is_that_host(
        inventory: Source, request_: str, hosts: tuple[str, ...], rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert (tuple(sorted(found.hosts)), found.request) == (hosts, rest)


@pytest.mark.parametrize("request_", [
    "install htop on press-cam", "whats the uptime on yard-cam", "restart cups on kiln2",
])
def test_the_first_look_sees_a_name_said_with_other_separators(
        inventory: Source, request_: str) -> None:
    assert could_name_hosts(request_, inventory_words(inventory.paths))


def test_a_name_after_everything_is_asked_never_dropped(inventory: Source) -> None:
    found = _read("deny port 23/tcp on everything front-gate", inventory)
    assert isinstance(found, Asked), found
    assert "front-gate" in found.question


def test_two_names_spelled_alike_are_asked_about(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    found = _read("restart cups on till1", inventory_of(tmp_path_factory, TWINS))
    assert isinstance(found, Asked), found
    assert "till-1" in found.question and "till_1" in found.question


@pytest.mark.parametrize("request_", [
    "restart the web server",  # "server": the software here, nginx
    "restart the sauna server",
])
def test_a_server_said_without_a_place_stays_this_machines(
        inventory: Source, request_: str) -> None:
    assert _read(request_, inventory) is None


@pytest.mark.parametrize(("request_", "host", "rest"), [
    ("restart chrony on the north pump controller", "pumpctl-north.water.lan",
     "restart chrony"),
    ("create user dana on the night shift desk", "desk_night_shift", "create user dana"),
    ("restart cups on the help desk box", "desk-helpdesk", "restart cups"),
])
def test_a_host_said_by_words_of_its_name_after_a_place_is_that_host(
        inventory: Source, request_: str, host: str, rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert (found.hosts, found.request) == ((host,), rest)


@pytest.mark.parametrize(("request_", "choices"), [
    ("restart chrony on the pump controller",  # two hosts fit
     ("pumpctl-north.water.lan", "pumpctl-south.water.lan")),
    ("restart chrony on the north pump thingy", ("pumpctl-north.water.lan",)),  # unread
    ("restart chrony on the gate house box", ("gatehouse",)),  # only its start and end
])
def test_a_description_that_does_not_settle_one_host_is_asked(
        inventory: Source, request_: str, choices: tuple[str, ...]) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Asked), found
    assert set(choices) <= set(found.choices), found


@pytest.mark.parametrize("request_", [
    "change the port in kiln1.conf",  # a file named after a host
    "grep error in press_cam.log",
    "restart chrony on kiln-1.stage",  # another domain than the host's
])
def test_a_word_with_a_dot_is_never_a_name_said_another_way(
        inventory: Source, request_: str) -> None:
    assert not isinstance(_read(request_, inventory), Chosen)


@pytest.mark.parametrize("request_", [
    "restart nginx on the north",  # one word of a name is no description
    "search for TODO in the shift",
    "restart nginx on the north's pump",  # the words go on past a possessive
    "ping the sauna box",  # a verb whose object is the machine
    "block the sauna box in the firewall",
    "show disk usage in the night folder",
])
def test_words_that_may_be_about_a_machine_rather_than_where_to_run_stay_here(
        inventory: Source, request_: str) -> None:
    assert _read(request_, inventory) is None


def test_a_package_spelled_like_a_group_before_the_hosts_stays_the_package(
        inventory: Source) -> None:
    found = _read("install node-exporter on web1", inventory)
    assert isinstance(found, Chosen), found
    assert (found.hosts, found.request) == (("web1",), "install node-exporter")


@pytest.mark.parametrize("request_", ["add alice in group spa on the spa hosts",
                                      "remove bob from group spa on sauna"])
def test_in_group_said_with_a_weak_place_is_asked_as_in_the_group_is(
        inventory: Source, request_: str) -> None:
    """"in group spa" may be the group of users spa, as "in the spa group" may."""
    found = _read(request_, inventory)
    assert isinstance(found, Asked), found
    assert "group of users" in found.question


@pytest.mark.parametrize("request_", ["show the logs of sshd", "what's my gateway",
                                      "default gateway?"])
def test_a_hosts_name_said_as_the_catalogues_word_for_a_thing_here_stays_here(
        inventory: Source, request_: str) -> None:
    assert _read(request_, inventory) is None


@pytest.mark.parametrize("request_", ["reboot gateway", "restart logs"])
def test_a_hosts_name_that_is_a_word_is_still_asked_where_a_machine_is_acted_on(
        inventory: Source, request_: str) -> None:
    assert isinstance(_read(request_, inventory), Asked)


@pytest.mark.parametrize(("request_", "hosts"), [
    ("restart cups on the vat boxes", ("vat-1", "vat-2")),
    ("show disk usage on the VAT machines", ("vat-1", "vat-2")),
])
def test_hosts_said_by_the_word_their_names_share_and_a_plural_noun_are_all_of_them(
        inventory: Source, request_: str, hosts: tuple[str, ...]) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert tuple(sorted(found.hosts)) == hosts


@pytest.mark.parametrize("request_", ["gateway: stop nginx", "gateway's disk usage",
                                      "stop dnsmasq gateway"])
def test_a_hosts_name_that_is_a_word_said_to_or_of_the_host_is_never_this_machines(
        inventory: Source, request_: str) -> None:
    assert _read(request_, inventory) is not None


def test_a_word_of_the_catalogue_is_no_group_said_by_what_does_its_thing(
        inventory: Source) -> None:
    """"the shop users" are no machines of the group shop_us."""
    assert not isinstance(_read("remove bob from the shop users", inventory), Chosen)


def test_one_of_a_group_said_by_what_does_its_thing_is_asked(inventory: Source) -> None:
    found = _read("restart chrony on the boiler controller", inventory)
    assert isinstance(found, Asked), found
    assert {"boiler1", "boiler2"} <= set(found.choices)
