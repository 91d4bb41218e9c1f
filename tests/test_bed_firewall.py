"""Network interfaces and the firewall, changed by reos in the Debian/systemd test bed and
put back by `reos undo`, checked with `ip -j link`, `ufw status numbered` and
`nft -j list chain`.

The bed runs with `--network none` and CAP_NET_ADMIN: a veth pair made for each test
(reosv0 and its peer reosv1) is what reos brings up and takes down, never the bed's
loopback. Its image has ufw, nftables and iptables: each firewall test starts from a
known ruleset (ufw reset and enabled, or ufw off and one nftables input chain), so the
snapshot's `firewall.backend` picks the recipes under test. firewalld is not in the image
(its daemon would take the ruleset over); its plans are checked in tests/test_firewall_rules.py.
"""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

LINK, PEER = "reosv0", "reosv1"


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
    out = bed.approved(f"take {LINK} down")
    assert f"$ ip link set {LINK} down" in out, out  # as root: no sudo
    assert not _up(bed, LINK)
    undo = bed.undone()
    assert f"(ran: ip link set {LINK} up)" in undo, undo
    assert _up(bed, LINK)


def test_bring_an_interface_up_then_undo(veth) -> None:  # noqa: ANN001
    bed = veth
    assert not _up(bed, LINK)
    out = bed.approved(f"bring {LINK} up")
    assert f"$ ip link set {LINK} up" in out, out
    assert _up(bed, LINK)
    undo = bed.undone()
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


def _ufw(bed, *rules: str) -> None:  # noqa: ANN001
    """ufw on, with exactly these rules ("deny 5000"), nothing else in the ruleset."""
    bed.run("ufw", "--force", "reset", check=True)
    bed.run("nft", "flush", "ruleset", check=True)
    bed.run("ufw", "--force", "enable", check=True)
    for rule in rules:
        bed.run("ufw", *rule.split(), check=True)


def _numbered(bed) -> list[str]:  # noqa: ANN001
    """`ufw status numbered` rows of IPv4 rules, whitespace collapsed ("[ 1] 22/tcp DENY IN
    Anywhere")."""
    out = bed.run("ufw", "status", "numbered", check=True).stdout
    return [" ".join(line.split()) for line in out.splitlines()
            if line.startswith("[") and "(v6)" not in line]


def test_firewall_status_on_ufw(bed) -> None:  # noqa: ANN001
    _ufw(bed, "allow 2222/tcp")
    said = bed.reos("plan", "is the firewall on")
    assert said.returncode == 0, said.stdout + said.stderr
    assert "The firewall (ufw) is on with 2 rules" in said.stdout, said.stdout  # v4 and v6
    assert "2222/tcp" in said.stdout, said.stdout
    context = bed.reos_json("context")
    assert context["firewall"]["backend"] == "ufw" and context["firewall"]["active"] is True
    assert "2222/tcp ALLOW Anywhere" in context["firewall"]["rules"]
    numbered = bed.reos("plan", "show the firewall rules with their numbers")
    assert numbered.returncode == 0, numbered.stdout + numbered.stderr
    assert "The firewall (ufw) is on with 2 rules" in numbered.stdout, numbered.stdout
    assert "[ 1] 2222/tcp" in numbered.stdout, numbered.stdout  # the number ufw deletes by


def test_allow_a_port_then_undo(bed) -> None:  # noqa: ANN001
    _ufw(bed)
    out = bed.approved("open port 8080 in the firewall")
    assert "$ ufw allow 8080/tcp" in out, out
    assert _numbered(bed) == ["[ 1] 8080/tcp ALLOW IN Anywhere"]
    undo = bed.undone()
    assert "(ran: ufw delete allow 8080/tcp)" in undo, undo
    assert _numbered(bed) == []


def test_allow_a_port_from_one_network_only_then_undo(bed) -> None:  # noqa: ANN001
    _ufw(bed, "allow 80/tcp")
    out = bed.approved("allow 8123 from 10.8.0.0/24")
    assert "$ ufw allow from 10.8.0.0/24 to any port 8123 proto tcp" in out, out
    assert _numbered(bed) == ["[ 1] 80/tcp ALLOW IN Anywhere",
                              "[ 2] 8123/tcp ALLOW IN 10.8.0.0/24"]
    undo = bed.undone()
    assert "(ran: ufw delete allow from 10.8.0.0/24 to any port 8123 proto tcp)" in undo, undo
    assert _numbered(bed) == ["[ 1] 80/tcp ALLOW IN Anywhere"]


def test_deny_a_port_and_delete_a_rule_then_undo(bed) -> None:  # noqa: ANN001
    _ufw(bed, "allow 8081/tcp")
    out = bed.approved("block port 2323")
    assert "$ ufw deny 2323/tcp" in out, out
    assert "[ 2] 2323/tcp DENY IN Anywhere" in _numbered(bed)
    assert "(ran: ufw delete deny 2323/tcp)" in bed.undone()
    assert _numbered(bed) == ["[ 1] 8081/tcp ALLOW IN Anywhere"]
    out = bed.approved("delete the firewall rule for port 8081")
    assert "$ ufw delete allow 8081/tcp" in out, out
    assert _numbered(bed) == []
    assert "(ran: ufw allow 8081/tcp)" in bed.undone()
    assert _numbered(bed) == ["[ 1] 8081/tcp ALLOW IN Anywhere"]


def test_an_allow_behind_a_wider_deny_is_inserted_ahead_of_it(bed) -> None:  # noqa: ANN001
    _ufw(bed, "allow 80/tcp", "deny 5000")  # 5000, every protocol: it covers 5000/tcp
    out = bed.approved("open port 5000")
    assert "Rule 2 (\u201c5000 DENY Anywhere\u201d) comes earlier" in out, out
    assert "$ ufw insert 2 allow 5000/tcp" in out, out
    assert _numbered(bed) == ["[ 1] 80/tcp ALLOW IN Anywhere", "[ 2] 5000/tcp ALLOW IN Anywhere",
                              "[ 3] 5000 DENY IN Anywhere"]
    assert "(ran: ufw delete allow 5000/tcp)" in bed.undone()
    assert _numbered(bed) == ["[ 1] 80/tcp ALLOW IN Anywhere", "[ 2] 5000 DENY IN Anywhere"]


def test_an_allow_for_a_denied_port_replaces_it_in_place_and_undo_puts_it_back(bed) -> None:  # noqa: ANN001
    _ufw(bed, "deny 22/tcp", "allow 80/tcp")
    out = bed.approved("allow port 22")
    assert "ufw replaces it in its place" in out, out
    assert _numbered(bed) == ["[ 1] 22/tcp ALLOW IN Anywhere", "[ 2] 80/tcp ALLOW IN Anywhere"]
    assert "(ran: ufw deny 22/tcp)" in bed.undone()
    assert _numbered(bed) == ["[ 1] 22/tcp DENY IN Anywhere", "[ 2] 80/tcp ALLOW IN Anywhere"]


# -- nftables ----------------------------------------------------------------------------------

def _nft(bed, *rules: str) -> None:  # noqa: ANN001
    """ufw off; one input chain (inet filter input, policy accept) with these rules."""
    bed.run("ufw", "--force", "reset", check=True)
    bed.run("ufw", "disable", check=True)
    bed.run("nft", "flush", "ruleset", check=True)
    bed.run("nft", "add", "table", "inet", "filter", check=True)
    bed.run("nft", "add", "chain", "inet", "filter", "input",
            "{ type filter hook input priority 0; policy accept; }", check=True)
    for rule in rules:
        bed.run("nft", "add", "rule", "inet", "filter", "input", *rule.split(), check=True)


def _chain(bed) -> list[tuple[int, str]]:  # noqa: ANN001
    """The input chain's rules as (handle, "tcp dport 22 drop"), from `nft -j`."""
    out = bed.run("nft", "-j", "list", "chain", "inet", "filter", "input", check=True).stdout
    rules = []
    for item in json.loads(out)["nftables"]:
        rule = item.get("rule")
        if not rule:
            continue
        words = []
        for expr in rule["expr"]:
            if "match" in expr:
                m = expr["match"]
                words += [m["left"]["payload"]["protocol"], m["left"]["payload"]["field"],
                          str(m["right"])]
            else:
                words += list(expr)
        rules.append((rule["handle"], " ".join(words)))
    return rules


def test_nftables_allow_in_order_then_undo(bed) -> None:  # noqa: ANN001
    _nft(bed, "tcp dport 22 drop")
    context = bed.reos_json("context")
    assert context["firewall"]["backend"] == "nftables", context["firewall"]
    said = bed.reos("plan", "show the firewall rules")
    assert "The firewall (nftables) is on" in said.stdout, said.stdout
    assert "tcp dport 22 drop" in said.stdout, said.stdout
    out = bed.approved("open port 8080")
    assert "$ nft add rule inet filter input tcp dport 8080 accept" in out, out
    [(drop, _), (added, words)] = _chain(bed)
    assert words == "tcp dport 8080 accept"
    out = bed.approved("allow port 22")  # the drop decides port 22: inserted ahead of it
    assert f"$ nft insert rule inet filter input position {drop} tcp dport 22 accept" in out, out
    assert "would never take effect" in out, out
    assert [w for _, w in _chain(bed)] == ["tcp dport 22 accept", "tcp dport 22 drop",
                                           "tcp dport 8080 accept"]
    first = bed.undone()
    assert "(ran: nft delete rule inet filter input handle" in first, first
    assert f"(ran: nft delete rule inet filter input handle {added})" in bed.undone()
    assert [w for _, w in _chain(bed)] == ["tcp dport 22 drop"]


def test_nftables_deny_and_delete_then_undo(bed) -> None:  # noqa: ANN001
    _nft(bed, "tcp dport 80 accept", "tcp dport 8081 accept", "tcp dport 443 accept")
    out = bed.approved("block port 2323")
    assert "$ nft add rule inet filter input tcp dport 2323 drop" in out, out
    assert [w for _, w in _chain(bed)][-1] == "tcp dport 2323 drop"
    bed.undone()
    assert "tcp dport 2323 drop" not in [w for _, w in _chain(bed)]
    [_, (handle, _), _] = _chain(bed)
    out = bed.approved("delete the firewall rule for port 8081")
    assert f"$ nft delete rule inet filter input handle {handle}" in out, out
    assert [w for _, w in _chain(bed)] == ["tcp dport 80 accept", "tcp dport 443 accept"]
    undo = bed.undone()
    assert "position" in undo, undo  # back after the rule it followed
    assert [w for _, w in _chain(bed)] == ["tcp dport 80 accept", "tcp dport 8081 accept",
                                           "tcp dport 443 accept"]
    said = bed.reos("plan", "--dry-run", "delete the firewall rule for port 9999")
    assert "There is no rule \u201ctcp dport 9999 accept\u201d" in said.stdout, said.stdout


@pytest.fixture(autouse=True, scope="module")
def _firewall_off_afterwards(bed):  # noqa: ANN001, ANN202
    yield
    bed.run("ufw", "--force", "reset")
    bed.run("ufw", "disable")
    bed.run("nft", "flush", "ruleset")
