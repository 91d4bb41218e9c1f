"""Host words read the way people who never read reos say them (reos/understanding/hosts.py
through reos.on_hosts.hosts_named, Ansible reading a real INI file): the causes a stranger
set (tests/understanding/fleet_strangers) showed, each as a general rule on sentences of
our own.

What is checked: a "not" right before hosts is never dropped; a request that says this
machine ("here", "this computer", "my known_hosts") is never run on the hosts it names;
"the servers" with no word for every host is asked; one host said for a group of several,
or two names that share no host, is asked; "all hosts" said without "on" before hosts
left out, and "from"/"off" after a removal, are where to run, so what is left out after
them is read; hosts listed with no "and" between them are a list.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from reos.understanding.hosts import Chosen
from tests.host_words import asked, chosen, inventory_of

INI = """[front]
fe1 ansible_host=10.7.0.11
fe2 ansible_host=10.7.0.12

[sql]
sql-a ansible_host=10.7.0.21
sql-b ansible_host=10.7.0.22

[queue]
mq1 ansible_host=10.7.0.31

[jump]
gate1 ansible_host=10.7.0.41

[qa_nodes]
qa1 ansible_host=10.8.0.11
qa2 ansible_host=10.8.0.12

[corp:children]
front
sql
queue

[qa:children]
qa_nodes

[all:vars]
ansible_user=ops
"""
EVERY = {"fe1", "fe2", "sql-a", "sql-b", "mq1", "gate1", "qa1", "qa2"}


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


# -- a "not" right before hosts ---------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "Reload the cron of this one, not of the front servers.",
    "stop mysql, never of the sql hosts",
])
def test_a_not_right_before_hosts_is_asked(inventory: Source, request_: str) -> None:
    assert "could leave hosts out" in asked(request_, inventory)


# -- this machine said with hosts -------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "install mysql-client here so I can query sql-a",
    "I need psql locally to talk to sql-b, install postgresql-client",
    "drop fe2's stale line from my known_hosts",
    "fe1 got a new IP, fix its entry in ~/.ssh/config",
    "put 10.7.0.41 gate1 into /etc/hosts",
    "I can't ssh to the qa nodes, show my ~/.ssh/config",
    "How much memory has this computer, not mq1?",
])
def test_this_machine_said_with_host_names_stays_here(inventory: Source,
                                                      request_: str) -> None:
    assert hosts_named(request_, inventory) is None


def test_this_machine_and_a_place_to_run_is_asked(inventory: Source) -> None:
    question = asked("restart cron here and on fe1", inventory)
    assert "“here” speaks of this machine" in question
    assert asked("Restart the cron of this computer, not of the sql servers.", inventory)


# -- "the servers" with no word for every host ------------------------------------------
@pytest.mark.parametrize("request_", [
    "could you install tmux on the machines?",
    "do the boxes run nginx?",
    "show disk usage of the servers",
])
def test_a_bare_plural_of_hosts_is_asked(inventory: Source, request_: str) -> None:
    question = asked(request_, inventory)
    assert "every host in hosts.ini, or some of them?" in question


def test_a_word_for_every_host_is_still_every_host(inventory: Source) -> None:
    assert set(chosen("install tmux on all the machines", inventory).hosts) == EVERY
    assert set(chosen("which boxes have a failed unit?", inventory).hosts) == EVERY


# -- one host said for several ----------------------------------------------------------
def test_a_singular_for_a_group_of_several_is_asked(inventory: Source) -> None:
    assert "the group front has 2 hosts" in asked("reload nginx in the server of front",
                                                  inventory)
    assert "the group front has 2 hosts" in asked("reload nginx on the corp front server",
                                                  inventory)
    assert chosen("reload cron on the server of queue", inventory).hosts == ("mq1",)


def test_two_names_that_share_no_host_are_asked(inventory: Source) -> None:
    question = asked("reload nginx on the qa front servers", inventory)
    assert "no host of hosts.ini is in both group qa and group front" in question
    assert chosen("reload nginx on the corp front servers", inventory).hosts == ("fe1",
                                                                                 "fe2")


# -- every host said without "on", and "from"/"off" after a removal ----------------------
def test_every_host_said_without_on_then_hosts_left_out(inventory: Source) -> None:
    found = chosen("update tmux every machine except gate1", inventory)
    assert set(found.hosts) == EVERY - {"gate1"} and found.request == "update tmux"
    assert set(chosen("install jq all servers but the qa nodes", inventory).hosts) == \
        EVERY - {"qa1", "qa2"}
    # hosts are what it acts on when nothing of the inventory is left out
    assert hosts_named("block all hosts except 10.0.0.5", inventory) is None


def test_from_or_off_after_a_removal_is_where_it_runs(inventory: Source) -> None:
    found = chosen("uninstall ftp from corp", inventory)
    assert set(found.hosts) == {"fe1", "fe2", "sql-a", "sql-b", "mq1"}
    assert found.request == "uninstall ftp"
    assert set(chosen("strip rsh off every box except the jump", inventory).hosts) == \
        EVERY - {"gate1"}
    assert set(chosen("purge ftp from corp, except the sql servers", inventory).hosts) == {
        "fe1", "fe2", "mq1"}
    assert set(chosen("delete ftp from corp but skip the queue", inventory).hosts) == {
        "fe1", "fe2", "sql-a", "sql-b"}


def test_from_after_a_removal_still_asks_what_it_could_be(inventory: Source) -> None:
    # a group of users, as without "from"; a file of this machine's
    assert hosts_named("remove carol from the front group", inventory) is None
    assert not isinstance(hosts_named("remove every host but fe1 from known_hosts",
                                      inventory), Chosen)
    # "from" after no removal is still what the request is about
    assert "should this run on" in asked("allow mysql from the front servers", inventory)


# -- hosts listed with spaces only -------------------------------------------------------
def test_hosts_listed_without_and_are_a_list(inventory: Source) -> None:
    assert set(chosen("add user dave on fe1 qa2", inventory).hosts) == {"fe1", "qa2"}
    assert set(chosen("restart cron on sql-a sql-b and mq1", inventory).hosts) == {
        "sql-a", "sql-b", "mq1"}
