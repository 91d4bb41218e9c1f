"""Network interfaces and the firewall, changed by reos in the Debian/systemd test bed and
put back by `reos undo`, checked with `ip -j link` and `ufw status`.

The bed runs with `--network none` and CAP_NET_ADMIN: a veth pair made for each test
(reosv0 and its peer reosv1) is what reos brings up and takes down, never the bed's
loopback. The bed's image has no firewall tool (no ufw, nftables or iptables): the
firewall tests check that reos says so and plans ufw's commands, and the ones that change
rules skip, saying why, until the image installs ufw.
"""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

LINK, PEER = "reosv0", "reosv1"


def _plan(bed, request: str) -> str:  # noqa: ANN001 - tests.debian_bed.Bed
    done = bed.reos("plan", "--yes", request)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _undo(bed) -> str:  # noqa: ANN001
    undo = bed.reos("undo")
    assert undo.returncode == 0, undo.stdout + undo.stderr
    return undo.stdout


def _up(bed, name: str) -> bool:  # noqa: ANN001
    done = bed.run("ip", "-j", "link", "show", "dev", name, check=True)
    return "UP" in json.loads(done.stdout)[0]["flags"]


@pytest.fixture
def veth(bed):  # noqa: ANN001, ANN201
    bed.run("ip", "link", "del", LINK)
    made = bed.run("ip", "link", "add", LINK, "type", "veth", "peer", "name", PEER)
    if made.returncode != 0:
        pytest.skip(f"no veth pair in the bed: {made.stderr.strip()} (needs NET_ADMIN)")
    yield bed
    bed.run("ip", "link", "del", LINK)


def test_take_an_interface_down_then_undo(veth) -> None:  # noqa: ANN001
    bed = veth
    bed.run("ip", "link", "set", LINK, "up", check=True)
    assert _up(bed, LINK)
    out = _plan(bed, f"take {LINK} down")
    assert f"$ ip link set {LINK} down" in out, out  # as root: no sudo
    assert not _up(bed, LINK)
    undo = _undo(bed)
    assert f"(ran: ip link set {LINK} up)" in undo, undo
    assert _up(bed, LINK)


def test_bring_an_interface_up_then_undo(veth) -> None:  # noqa: ANN001
    bed = veth
    assert not _up(bed, LINK)
    out = _plan(bed, f"bring {LINK} up")
    assert f"$ ip link set {LINK} up" in out, out
    assert _up(bed, LINK)
    undo = _undo(bed)
    assert f"(ran: ip link set {LINK} down)" in undo, undo
    assert not _up(bed, LINK)


def test_network_questions_in_the_bed(veth) -> None:  # noqa: ANN001
    bed = veth
    addresses = bed.reos("plan", "which ip addresses does this machine have")
    assert addresses.returncode == 0, addresses.stdout + addresses.stderr
    assert "127.0.0.1/8" in addresses.stdout or "no IPv4 address besides loopback" in (
        addresses.stdout), addresses.stdout
    routes = bed.reos("plan", "show the routing table")
    assert "There is no IPv4 default route" in routes.stdout, routes.stdout  # --network none
    stats = bed.reos("plan", f"interface statistics for {LINK}")
    assert f"{LINK} (down): received 0 B in 0 packets" in stats.stdout, stats.stdout


def _has_ufw(bed) -> bool:  # noqa: ANN001
    return bed.run("sh", "-c", "command -v ufw").returncode == 0


def test_the_firewall_answer_without_ufw_says_so(bed) -> None:  # noqa: ANN001
    if _has_ufw(bed):
        pytest.skip("ufw is installed in this bed: the rule tests below cover it")
    shown = bed.reos("plan", "is the firewall on")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "ufw is not installed" in shown.stdout, shown.stdout
    plan = bed.reos_json("plan", "open port 8080 in the firewall")
    assert [s["argv"] for s in plan["steps"]] == [["ufw", "allow", "8080/tcp"]]


def test_allow_a_port_then_undo(bed) -> None:  # noqa: ANN001
    if not _has_ufw(bed):
        pytest.skip("the bed's image has no ufw (scripts/testbed-debian.sh installs none)")
    bed.run("ufw", "--force", "enable")
    bed.run("ufw", "delete", "allow", "8080/tcp")
    try:
        out = _plan(bed, "open port 8080 in the firewall")
        assert "$ ufw allow 8080/tcp" in out, out
        assert "8080/tcp" in bed.run("ufw", "status").stdout
        undo = _undo(bed)
        assert "(ran: ufw delete allow 8080/tcp)" in undo, undo
        assert "8080/tcp" not in bed.run("ufw", "status").stdout
    finally:
        bed.run("ufw", "delete", "allow", "8080/tcp")
