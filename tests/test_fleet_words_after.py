"""Words right after the hosts read that could still say which of them
(reos/understanding/hosts.py: `_after_hosts`, `_hosts_by_label_part`, a group said in the
singular in `_name_left`, a typo of a host noun after a word of place in
`_correct_host_words`), through `on_hosts.hosts_named` with Ansible reading a real INI
file; sentences and names of our own.

What is checked: each request below used to run on every host of the group it read
first, with the words that narrowed it dropped from the hosts and left in the request:
"on the north shed" (the group north and the group sheds, one host of both), "on
the accounts web boxes" (which accounts hosts), "on lock gw2" and "on lock gws 1 to 3"
(some of the gateways), "on every host at the depot" (a place the inventory does not
name), "on the spare boxs but not the gatways" (a typo of a noun and of a part of a
name), "on the outer ones" (hosts said twice, different requests). Each is now asked.
What says the same hosts again still runs: "the dock cluster nodes", "except the spare
ones", "on lock-gw02" alone, "on web1 at noon".

A host said with its number's zeros left out ("acc-web1" for acc-web01: `_spelling`), or
by a whole part of its name with a word for one machine ("on the jump host": the one
word `_described` now reads), is that host; such a part of several names, or a word the
catalogue knows ("the mail server"), is asked; a word that says which machine ("the
local machine") is no part of a name. Numbers, "to", "on friday", "one at a time" after
the hosts that are no host's stay the request's.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.understanding.hosts import Asked, Chosen
from tests.host_words import inventory_of
from tests.test_fleet_words_spelled import _read

INI = """[harbour]
crane-harbour ansible_host=10.9.0.1
office-harbour ansible_host=10.9.0.2

[inland]
crane-inland ansible_host=10.9.1.1

[cranes]
crane-harbour
crane-inland

[accounts]
acc-web01 ansible_host=10.9.2.1
acc-web02 ansible_host=10.9.2.2
acc_db01 ansible_host=10.9.2.3

[lock_gateways]
lock-gw01 ansible_host=10.9.3.1
lock-gw02 ansible_host=10.9.3.2
lock-gw03 ansible_host=10.9.3.3
lock-gw04 ansible_host=10.9.3.4

[spare]
spare1 ansible_host=10.9.4.1
spare2 ansible_host=10.9.4.2

[dock_cluster]
dock1 ansible_host=10.9.5.1
dock2 ansible_host=10.9.5.2

[north]
nx1 ansible_host=10.9.6.1
nx2 ansible_host=10.9.6.2

[sheds]
nx2
sx3 ansible_host=10.9.6.3

[outer:children]
harbour
inland
"""


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


@pytest.mark.parametrize(("request_", "unread"), [
    ("restart chrony on the north shed", "shed"),  # a group in the singular
    ("restart nginx on the accounts web boxes", "web boxes"),
    ("restrat nginx on teh accounts web servres", "web servres"),
    ("bounce chronyd on lock gw2", "gw2"),
    ("kick rsyslog on lock gws 1 to 3", "“gws 1 to”"),
    ("remove telnet on lock-gw01 through 03", "through 03"),
    ("list the members of the sudo group on every host at the depot", "at the depot"),
    ("stop nginx on the spare servers, and on the outer ones just restart it", "ones"),
    ("restart nginx on the accounts hosts in the dmz", "dmz"),  # a second review
    ("restart nginx on the dock one", "one"),
])
def test_words_after_the_hosts_that_could_narrow_them_are_asked_never_dropped(
        inventory: Source, request_: str, unread: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Asked), found
    assert unread in found.question, found.question


def test_a_typo_of_a_noun_before_a_denied_typo_of_a_name_is_asked(
        inventory: Source) -> None:
    found = _read("set timezone Europe/London on the spare boxs but not the gatways",
                  inventory)
    assert isinstance(found, Asked), found


@pytest.mark.parametrize(("request_", "hosts", "rest"), [
    ("enable chronyd in the dock cluster nodes", ("dock1", "dock2"), "enable chronyd"),
    ("restart cron on all hosts except the spare ones",
     ("acc-web01", "acc-web02", "acc_db01", "crane-harbour", "crane-inland", "dock1",
      "dock2", "lock-gw01", "lock-gw02", "lock-gw03", "lock-gw04", "nx1", "nx2",
      "office-harbour", "sx3"),
     "restart cron"),
    ("restart chrony on lock-gw02", ("lock-gw02",), "restart chrony"),
    ("restart nginx on the accounts hosts", ("acc-web01", "acc-web02", "acc_db01"),
     "restart nginx"),
    ("restart chrony on the harbour crane", ("crane-harbour",), "restart chrony"),
    ("restart nginx on dock1 at noon", ("dock1",), "restart nginx at noon"),
])
def test_words_after_the_hosts_that_say_them_again_still_run(
        inventory: Source, request_: str, hosts: tuple[str, ...], rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert (tuple(sorted(found.hosts)), found.request) == (hosts, rest)


@pytest.mark.parametrize(("request_", "hosts", "rest"), [
    # a number said without the zeros before it, or with other separators
    ("open port 443 on acc-web1 and acc-web2", ("acc-web01", "acc-web02"), "open port 443"),
    ("restart postgresql on acc_db1", ("acc_db01",), "restart postgresql"),
    ("restart chronyd on lock-gw3", ("lock-gw03",), "restart chronyd"),
])
def test_a_host_said_without_its_zeros_or_by_a_part_of_its_name_is_that_host(
        inventory: Source, request_: str, hosts: tuple[str, ...], rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert (tuple(sorted(found.hosts)), found.request) == (hosts, rest)


@pytest.mark.parametrize(("request_", "among"), [
    ("restart nginx on the dock box", ("dock1", "dock2")),  # two hosts fit: asked
    ("bounce nginx on the acc server", ("acc-web01", "acc-web02", "acc_db01")),
])
def test_a_part_of_several_names_with_a_word_for_one_machine_is_asked(
        inventory: Source, request_: str, among: tuple[str, ...]) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Asked), found
    assert all(host in found.question for host in among), found.question


@pytest.mark.parametrize(("request_", "rest"), [
    # a number that is no host's, a value of the request (a review found them asked)
    ("set swappiness on lock-gw02 to 10", "set swappiness to 10"),
    ("open port 443 on lock-gw02 to 10.0.0.0/8", "open port 443 to 10.0.0.0/8"),
    ("restart nginx on lock-gw02 one at a time", "restart nginx one at a time"),
    ("restart nginx on lock-gw02 on friday", "restart nginx on friday"),
])
def test_words_after_the_hosts_that_are_the_requests_own_still_run(
        inventory: Source, request_: str, rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert (found.hosts, found.request) == (("lock-gw02",), rest)


SAYING = """[dns]
local-dns ansible_host=10.9.9.1

[misc]
same-origin ansible_host=10.9.9.2
main-db ansible_host=10.9.9.3
mail01 ansible_host=10.9.9.4
jump01 ansible_host=10.9.9.5
"""


def test_a_whole_part_of_one_hosts_name_with_a_word_for_one_machine_is_that_host(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    found = _read("enable fail2ban on the jump host", inventory_of(tmp_path_factory, SAYING))
    assert isinstance(found, Chosen), found
    assert (found.hosts, found.request) == (("jump01",), "enable fail2ban")


@pytest.mark.parametrize(("request_", "asked"), [
    ("restart nginx on the local machine", False),  # words that say which machine
    ("restart nginx on the same machine", False),
    ("restart postgres on the main server", False),
    ("restart postfix on the mail server", True),  # a word the catalogue knows: asked
])
def test_one_word_that_says_which_machine_is_no_part_of_a_hosts_name(
        tmp_path_factory: pytest.TempPathFactory, request_: str, asked: bool) -> None:
    found = _read(request_, inventory_of(tmp_path_factory, SAYING))
    assert (isinstance(found, Asked) if asked else found is None), found


@pytest.mark.parametrize(("request_", "unread"), [
    # a noun of a place within a site ending the sentence after the hosts
    ("restart cron on all hosts in the harbour control room.", "control room"),
    # a place said right before the hosts' own word of place
    ("restart nginx on the loading screens in the harbour", "loading screens"),
])
def test_a_place_said_beside_the_hosts_is_asked_never_dropped(
        inventory: Source, request_: str, unread: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Asked), found
    assert unread in found.question, found.question


@pytest.mark.parametrize(("request_", "hosts", "rest"), [
    # hosts of a kind in each of several groups: those in either, never all of the second
    ("install htop on the sheds of north and the harbour", ("nx2",), "install htop"),
    # a group said with its own host noun is hosts of its own, not one the first is in
    ("restart chrony on the cranes of harbour and the spare hosts",
     ("crane-harbour", "spare1", "spare2"), "restart chrony"),
    # words after the hosts that are the request's own, not a place
    ("restart nginx on dock1 pronto", ("dock1",), "restart nginx pronto"),
    ("allow 80 in the firewall on dock1", ("dock1",), "allow 80 in the firewall"),
])
def test_hosts_within_several_groups_and_the_requests_own_words(
        inventory: Source, request_: str, hosts: tuple[str, ...], rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert (tuple(sorted(found.hosts)), found.request) == (hosts, rest)


@pytest.mark.parametrize(("request_", "hosts"), [
    # a name in a sentence of the story told before the ask, the hosts placed in it
    ("The dock cluster was slow last night. Please restart nginx on dock1.", ("dock1",)),
    ("The north site lost power. Restart chrony on nx2 please.", ("nx2",)),
])
def test_a_name_in_the_story_before_the_ask_is_no_host_choice(
        inventory: Source, request_: str, hosts: tuple[str, ...]) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert found.hosts == hosts


@pytest.mark.parametrize("request_", [
    "Leave nx2 alone. Restart chrony on the north hosts.",
    "Our nx2 must stay up. Restart chrony on the north hosts.",
    "nx2 was rebooted. Restart chrony on the north hosts.",  # said first: it may matter
    # the story speaks of some of the hosts, or of others (a review found them run)
    "We are upgrading dock2 right now. Restart nginx on the dock cluster.",
    "Include dock2. Restart nginx on dock1.",
    "The accounts team saw the booking page time out. Please restart nginx on dock1.",
])
def test_a_name_in_the_story_that_may_keep_a_host_is_still_asked(
        inventory: Source, request_: str) -> None:
    assert isinstance(_read(request_, inventory), Asked)
