"""What the tests of host words share (tests/test_fleet_words_*.py): an inventory file
of a test's own, and a request's reading through `on_hosts.hosts_named` that must be a
question or a choice of hosts."""

from __future__ import annotations

from pathlib import Path

import pytest

from reos.fleet.inventory import Source
from reos.on_hosts import hosts_named
from reos.understanding.hosts import Asked, Chosen


def inventory_of(tmp_path_factory: pytest.TempPathFactory, ini: str) -> Source:
    path: Path = tmp_path_factory.mktemp("inventory") / "hosts.ini"
    path.write_text(ini)
    return Source((path,), "--inventory")


def asked(request: str, inventory: Source) -> str:
    found = hosts_named(request, inventory)
    assert isinstance(found, Asked), (request, found)
    return found.question


def chosen(request: str, inventory: Source) -> Chosen:
    found = hosts_named(request, inventory)
    assert isinstance(found, Chosen), (request, found)
    return found
