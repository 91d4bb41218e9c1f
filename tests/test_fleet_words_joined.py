"""Hosts joined by more than "and", and hosts said first before a dash
(reos/understanding/hosts.py: `_joined`, `_lead_dash`, the slash between two names),
through `on_hosts.hosts_named` with Ansible reading a real INI file; sentences and names
of our own.

What is checked: "as well as", "along with", "together with", "in addition to" and "but
also" join names as "and" does, and leave the rest with them; "vat-1/vat-2" is both;
hosts said first, then a dash ("-", "--", "–", "—"), are where the rest runs, as before a
colon. Where the words before the dash are not all words of hosts, or the joining words
join things of this machine, nothing changes: the rest keeps them.
"""

from __future__ import annotations

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from reos.understanding.hosts import Asked, Chosen
from tests.host_words import inventory_of

INI = """[cellar]
vat-1 ansible_host=10.9.0.1
vat-2 ansible_host=10.9.0.2

[bottling]
line_a ansible_host=10.9.1.1
labeler3 ansible_host=10.9.1.2
"""


@pytest.fixture(scope="module")
def inventory(tmp_path_factory: pytest.TempPathFactory) -> Source:
    return inventory_of(tmp_path_factory, INI)


def _read(request: str, inventory: Source):  # type: ignore[no-untyped-def]
    return hosts_named(request, inventory, lambda: frozenset())


@pytest.mark.parametrize(("request_", "hosts", "rest"), [
    ("restart chrony on vat-1 as well as vat-2", ("vat-1", "vat-2"), "restart chrony"),
    ("show uptime on labeler3 along with line_a", ("labeler3", "line_a"), "show uptime"),
    ("install jq on vat-2 together with labeler3", ("labeler3", "vat-2"), "install jq"),
    ("disk usage on vat-1 in addition to vat-2", ("vat-1", "vat-2"), "disk usage"),
    ("restart chrony on vat-1 but also on labeler3", ("labeler3", "vat-1"),
     "restart chrony"),
    ("restart chrony on vat-1/vat-2", ("vat-1", "vat-2"), "restart chrony"),
    ("vat-1 - is postgres up?", ("vat-1",), "is postgres up?"),
    ("vat-1 -- restart chrony", ("vat-1",), "restart chrony"),
    ("vat-1, labeler3 \u2014 show memory usage", ("labeler3", "vat-1"), "show memory usage"),
    ("the cellar machines \u2013 list failed units", ("vat-1", "vat-2"), "list failed units"),
])
def test_names_joined_by_several_words_or_said_first_before_a_dash_are_those_hosts(
        inventory: Source, request_: str, hosts: tuple[str, ...], rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert (tuple(sorted(found.hosts)), found.request) == (hosts, rest)


@pytest.mark.parametrize(("request_", "rest"), [
    # joining words between things of this machine stay in the rest
    ("restart nginx as well as redis on vat-1", "restart nginx as well as redis"),
    ("install htop in addition to vim on vat-2", "install htop in addition to vim"),
    # a dash after words that are not all hosts' is not a name said first
    ("restart chrony on vat-1 - the old one", "restart chrony - the old one"),
    # a path that ends in a host's name is a path
    ("cat /etc/vat-2 on vat-1", "cat /etc/vat-2"),
])
def test_joining_words_and_dashes_elsewhere_stay_as_said(
        inventory: Source, request_: str, rest: str) -> None:
    found = _read(request_, inventory)
    assert isinstance(found, Chosen), found
    assert found.request == rest


def test_a_dash_after_a_word_that_names_no_host_reads_nothing_first(
        inventory: Source) -> None:
    """"nginx - restart it": nginx is no host, so the dash says nothing of hosts, and
    a host said later is read as before ("or" between names still asks)."""
    assert _read("nginx - restart it", inventory) is None
    found = _read("chrony - restart it on vat-1 or vat-2", inventory)
    assert isinstance(found, Asked), found
