"""Host words read the way people who never read reos say them (reos/understanding/hosts.py
through reos.on_hosts.hosts_named, Ansible reading a real INI file): the causes the second
stranger set (tests/understanding/fleet_strangers/fleet-strangers-2.json) showed, each as a
general rule on sentences and names of our own.

What is checked: a group named with several words ("ci_runners") said as words ("the ci
runners") is that group, never the shorter group its first word names, and a word of such
a name left right after the hosts read is asked; a number said with the hosts ("both",
"the two", "all 3") that is not the number of the hosts named is asked; one host said for
a group of several, in the singular of its name ("the cache" for caches) or with a host
noun in one word ("the mailserver"), is asked.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from tests.host_words import asked, chosen, inventory_of

INI = """lonely ansible_host=10.9.0.5

[caches]
memc1 ansible_host=10.9.1.11
memc2 ansible_host=10.9.1.12

[mail]
mx-north-01 ansible_host=10.9.2.11
mx-south-02 ansible_host=10.9.2.12
imap_old ansible_host=10.9.2.13

[ci_runners]
run-a ansible_host=10.9.3.21
run-b ansible_host=10.9.3.22
run-c ansible_host=10.9.3.23

[ci_master]
ci-boss ansible_host=10.9.3.11

[ci:children]
ci_runners
ci_master

[all:vars]
ansible_user=ops
"""
RUNNERS = {"run-a", "run-b", "run-c"}


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


# -- a name of several words said as words ------------------------------------------------
@pytest.mark.parametrize("request_", [
    "restart gitlab-runner on ci runners",
    "restart gitlab-runner on the ci runners",
    "show disk usage on all the ci runner boxes",
])
def test_a_group_of_several_words_is_the_longest_name(inventory: Source,
                                                      request_: str) -> None:
    found = chosen(request_, inventory)
    assert set(found.hosts) == RUNNERS
    assert found.request in ("restart gitlab-runner", "show disk usage")
    assert chosen("reload cron on ci master", inventory).hosts == ("ci-boss",)


def test_the_shorter_group_is_still_read_alone(inventory: Source) -> None:
    assert set(chosen("reload cron on ci", inventory).hosts) == RUNNERS | {"ci-boss"}


def test_one_of_a_group_of_several_words_is_asked(inventory: Source) -> None:
    assert "the group ci_runners has 3 hosts" in asked("reload cron on the ci runner",
                                                       inventory)


@pytest.mark.parametrize("request_", [
    "restart gitlab-runner on ci runnrs",  # one letter off
    "restart gitlab-runner on ci runers please",
])
def test_a_word_of_a_longer_name_left_after_the_hosts_is_asked(inventory: Source,
                                                                request_: str) -> None:
    assert "could be part of the name ci_runners" in asked(request_, inventory)


# -- a number that is not the number of the hosts -----------------------------------------
@pytest.mark.parametrize("request_", [
    "reload postfix on both mail servers",  # three
    "check memory on the two ci runners",
    "Could you restart memcached on all three caches?",  # two
    "restart postfix on one of the mail boxes",
])
def test_a_number_that_is_not_the_hosts_number_is_asked(inventory: Source,
                                                        request_: str) -> None:
    question = asked(request_, inventory)
    assert "but names" in question and "Which do you mean?" in question


def test_a_number_that_is_the_hosts_number_is_read(inventory: Source) -> None:
    assert set(chosen("reload postfix on all three mail servers", inventory).hosts) == {
        "mx-north-01", "mx-south-02", "imap_old"}
    assert set(chosen("restart memcached on both caches", inventory).hosts) == {"memc1",
                                                                               "memc2"}
    assert set(chosen("check memory on the 3 ci runners", inventory).hosts) == RUNNERS
    assert set(chosen("reboot both memc1 and lonely", inventory).hosts) == {"memc1",
                                                                           "lonely"}


# -- one host said for a group of several -------------------------------------------------
@pytest.mark.parametrize(("request_", "group"), [
    ("restart postfix on the mailserver", "mail"),  # a host noun in one word
    ("restart postfix on the mail-host", "mail"),
    ("flush memcached on the cache", "caches"),  # the group's name said in the singular
    ("flush memcached on cache", "caches"),
])
def test_a_singular_for_a_group_of_several_is_asked(inventory: Source, request_: str,
                                                    group: str) -> None:
    assert f"the group {group} has" in asked(request_, inventory)


def test_the_plural_of_those_words_is_the_group(inventory: Source) -> None:
    assert chosen("flush memcached on the cache servers", inventory).hosts == ("memc1",
                                                                               "memc2")
    assert chosen("flush memcached on every cache box", inventory).hosts == ("memc1",
                                                                             "memc2")
    assert len(chosen("restart postfix on the mailservers", inventory).hosts) == 3
    # said with no word of place, "the mailserver" is this machine's, as "the web server"
    assert hosts_named("restart the mailserver", inventory) is None
