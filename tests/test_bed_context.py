"""`reos context --json` inside the Debian/systemd test bed, checked against the
`reos.snapshot/2` field list of the issue and ../shared/ARCHITECTURE.md §5: every section
present, exactly the listed field names with their types, and `null` only for a section
that could not be collected, with the reason in `unavailable` (the bed has no container
engine, so `containers` is the one expected null; a section that timed out on a busy
machine, such as `systemctl list-timers` right after the bed booted, is collected again).

The values are compared with what the bed itself says (`getent`, `ps`, `findmnt`,
`ip -j`, `ss`, `systemctl list-timers`, `ufw status`), so an empty list can't pass.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "users": {"name": str, "uid": int, "gid": int, "home": str, "shell": str, "groups": list,
              "locked": bool, "system": bool, "gecos": str,
              # /etc/shadow's, read as root only (null: not read)
              "password_locked": (bool, type(None)), "last_change": (str, type(None)),
              "max_days": (str, type(None)), "expiry": (str, type(None))},
    "groups": {"name": str, "gid": int, "members": list},
    "processes": {"pid": int, "ppid": int, "name": str, "user": str, "cmdline": str,
                  "cpu_percent": (int, float), "memory_rss": int},
    "mounts": {"device": str, "mountpoint": str, "fstype": str, "options": str, "total": int,
               "used": int, "free": int, "label": str},
    "block_devices": {"name": str, "path": str, "type": str, "size": int, "model": str,
                      "removable": bool, "fstype": str, "mountpoints": list, "label": str,
                      "vendor": str},
    "interfaces": {"name": str, "state": str, "mac": str, "addresses": list, "mtu": int,
                   "kind": str},
    "listening": {"proto": str, "address": str, "port": int, "pid": (int, type(None)),
                  "process": str, "unit": str},
    "timers": {"name": str, "unit": str, "next": str, "last": str},
}
OLDER = ("containers", "services", "packages")
NULLABLE_IN_BED = {"containers"}  # no docker or podman socket in the bed


@pytest.fixture(scope="module")
def context(bed) -> dict[str, Any]:  # noqa: ANN001
    bed.run("ufw", "--force", "reset")
    bed.run("nft", "flush", "ruleset")
    bed.run("ufw", "--force", "enable", check=True)
    bed.run("ufw", "allow", "2222/tcp", check=True)
    try:
        for _ in range(5):  # a section that timed out on a busy machine is collected again
            data = bed.reos_json("context")
            late = [n for n, why in data["unavailable"].items()
                    if n not in NULLABLE_IN_BED and "within" in why]
            if not late:
                break
            time.sleep(2)
        return data
    finally:
        bed.run("ufw", "--force", "reset")
        bed.run("ufw", "disable")
        bed.run("nft", "flush", "ruleset")


def test_every_section_is_present_and_null_only_with_a_reason(context) -> None:  # noqa: ANN001
    assert context["schema"] == "reos.snapshot/2"
    for name in (*OLDER, *FIELDS, "firewall", "host", "collected_at", "unavailable"):
        assert name in context, name
    for name in (*OLDER, *FIELDS, "firewall"):
        if context[name] is None:
            assert context["unavailable"].get(name), f"{name} is null without a reason"
            assert name in NULLABLE_IN_BED, f"{name} could not be collected in the bed: " + (
                context["unavailable"][name])
        else:
            assert name not in context["unavailable"], name


@pytest.mark.parametrize("section", sorted(FIELDS))
def test_each_record_has_exactly_the_listed_fields(context, section) -> None:  # noqa: ANN001
    records = context[section]
    assert isinstance(records, list) and records, f"{section}: {records!r}"
    fields = FIELDS[section]
    for record in records:
        assert set(record) == set(fields), (section, sorted(record))
        for key, kind in fields.items():
            assert isinstance(record[key], kind) and not (
                kind is int and isinstance(record[key], bool)), (section, key, record[key])


def test_the_firewall_section(context) -> None:  # noqa: ANN001
    wall = context["firewall"]
    assert set(wall) == {"backend", "active", "rules"}
    assert wall["backend"] == "ufw" and wall["active"] is True
    assert "2222/tcp ALLOW Anywhere" in wall["rules"]


def test_the_values_are_the_beds_own(bed, context) -> None:  # noqa: ANN001
    users = {u["name"]: u for u in context["users"]}
    alice = bed.run("getent", "passwd", "alice", check=True).stdout.strip().split(":")
    assert (users["alice"]["uid"], users["alice"]["home"], users["alice"]["shell"]) == (
        int(alice[2]), alice[5], alice[6])
    assert users["root"]["system"] is False or users["root"]["uid"] == 0
    shadow = bed.run("getent", "shadow", "alice", check=True).stdout.strip().split(":")
    assert (users["alice"]["password_locked"], users["alice"]["last_change"]) == (
        shadow[1].startswith("!"), shadow[2])  # read as root in the bed: filled
    sudo = {g["name"]: g for g in context["groups"]}
    assert "sudo" in sudo
    pids = {p["pid"] for p in context["processes"]}
    assert 1 in pids  # systemd, PID 1
    mounted = {m["mountpoint"] for m in context["mounts"]}
    assert "/srv/repo" in mounted  # the bed's repository, mounted read-only
    links = json.loads(bed.run("ip", "-j", "link", check=True).stdout)
    assert {i["name"] for i in context["interfaces"]} == {link["ifname"] for link in links}
    units = {t["unit"] for t in context["timers"]}
    listed = bed.run("systemctl", "list-timers", "--all", "--no-legend", check=True).stdout
    assert units and all(unit in listed for unit in units)
    ports = {(s["proto"], s["port"]) for s in context["listening"]}
    assert ("tcp", 80) in ports  # nginx-light
    # each socket's systemd service, as systemd itself says which holds nginx's
    web = {s["unit"] for s in context["listening"] if s["port"] == 80}
    main = bed.run("systemctl", "show", "-p", "MainPID", "--value", "nginx.service",
                   check=True).stdout.strip()
    assert web == {"nginx.service"} and main not in ("", "0")


def test_links_say_their_kind_from_ip_details(context) -> None:  # noqa: ANN001
    """`ip -j -d` in the bed: the loopback is "loopback", and no link's kind is unread
    text (each is one of the words the matcher knows, or empty)."""
    kinds = {i["name"]: i["kind"] for i in context["interfaces"]}
    assert kinds["lo"] == "loopback"
    assert all(k == "" or k.isalnum() for k in kinds.values()), kinds
