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


# -- ufw as a whole: on, its default for incoming connections, rate limits, reload ----------------

def _ufw_off(bed, *rules: str, policy: str = "deny") -> None:  # noqa: ANN001
    """ufw off, with these rules added (listed by `ufw show added`, filtering nothing yet)
    and this default for incoming connections."""
    bed.run("ufw", "--force", "reset", check=True)
    bed.run("nft", "flush", "ruleset", check=True)
    bed.run("ufw", "default", policy, "incoming", check=True)
    for rule in rules:
        bed.run("ufw", *rule.split(), check=True)
    assert _status(bed).startswith("Status: inactive")


def _status(bed) -> str:  # noqa: ANN001
    return bed.run("ufw", "status", "verbose", check=True).stdout


def _input_policy(bed) -> str:  # noqa: ANN001
    """DEFAULT_INPUT_POLICY of /etc/default/ufw (what ufw loads when it is turned on)."""
    return next(line.split("=", 1)[1].strip('"') for line in bed.read(
        "/etc/default/ufw").decode().splitlines() if line.startswith("DEFAULT_INPUT_POLICY="))


# reos's session as sshd describes it: from 198.51.100.7, to this machine's port 22
OVER_SSH = {"REOS_HOME": "/tmp/reos-home", "REOS_LLM": "off",
            "SSH_CONNECTION": "198.51.100.7 50022 192.0.2.10 22"}


def _over_ssh(bed, *args: str):  # noqa: ANN001, ANN202
    return bed.run("/opt/reos/bin/reos", *args, env=OVER_SSH)


def test_turn_the_firewall_on_then_undo_turns_it_off_again(bed) -> None:  # noqa: ANN001
    _ufw_off(bed, "allow 2222/tcp")
    out = bed.approved("turn on the firewall")
    assert "$ ufw --force enable" in out, out
    assert _status(bed).startswith("Status: active")
    assert "[ 1] 2222/tcp ALLOW IN Anywhere" in _numbered(bed)
    said = bed.reos("plan", "turn on the firewall")  # on already: nothing to do
    assert "The firewall (ufw) is on already" in said.stdout, said.stdout
    undo = bed.undone()
    assert "(ran: ufw disable)" in undo, undo
    assert _status(bed).startswith("Status: inactive")
    assert "ufw allow 2222/tcp" in bed.run("ufw", "show", "added", check=True).stdout


def test_over_ssh_the_firewall_goes_on_only_when_its_rules_let_ssh_in(bed) -> None:  # noqa: ANN001
    _ufw_off(bed, "allow 80/tcp")
    refused = _over_ssh(bed, "plan", "--yes", "turn on the firewall")
    assert refused.returncode != 0, refused.stdout
    assert "no rule of ufw's allows port 22 from anywhere" in refused.stdout, refused.stdout
    assert _status(bed).startswith("Status: inactive")  # nothing ran
    limit = _over_ssh(bed, "plan", "--yes", "rate limit ssh")
    assert "which your SSH session came in on" in limit.stdout, limit.stdout
    assert "LIMIT" not in bed.run("ufw", "show", "added", check=True).stdout
    bed.run("ufw", "allow", "22/tcp", check=True)
    done = _over_ssh(bed, "plan", "--yes", "turn on the firewall")
    assert done.returncode == 0 and "$ ufw --force enable" in done.stdout, done.stdout
    assert _status(bed).startswith("Status: active")
    undone = _over_ssh(bed, "undo")  # turning it off again is the undo of turning it on
    assert undone.returncode == 0 and "(ran: ufw disable)" in undone.stdout, undone.stdout
    assert _status(bed).startswith("Status: inactive")
    off = _over_ssh(bed, "plan", "--yes", "ufw disable")  # asked: still refused over SSH
    assert off.returncode != 0 and _status(bed).startswith("Status: inactive"), off.stdout


def test_deny_incoming_by_default_then_undo_sets_the_default_before(bed) -> None:  # noqa: ANN001
    _ufw_off(bed, "allow 22/tcp", policy="allow")
    bed.run("ufw", "--force", "enable", check=True)
    assert "Default: allow (incoming)" in _status(bed)
    out = bed.approved("deny all incoming connections by default")
    assert "$ ufw default deny incoming" in out, out
    assert "Default: deny (incoming)" in _status(bed)
    undo = bed.undone()
    assert "(ran: ufw default allow incoming)" in undo, undo
    assert "Default: allow (incoming)" in _status(bed)
    # while ufw is off it lists no default: the one before is read from its own file
    bed.run("ufw", "disable", check=True)
    bed.run("nft", "flush", "ruleset", check=True)  # else ufw's empty chains read as nftables
    out = bed.approved("reject incoming connections by default")
    assert "$ ufw default reject incoming" in out and _input_policy(bed) == "REJECT", out
    assert "(ran: ufw default allow incoming)" in bed.undone()
    assert _input_policy(bed) == "ACCEPT"


def test_rate_limit_a_port_then_undo(bed) -> None:  # noqa: ANN001
    _ufw(bed, "allow 80/tcp")
    out = bed.approved("limit connections to port 2222")
    assert "$ ufw limit 2222/tcp" in out, out
    assert _numbered(bed) == ["[ 1] 80/tcp ALLOW IN Anywhere",
                              "[ 2] 2222/tcp LIMIT IN Anywhere"]
    assert "(ran: ufw delete limit 2222/tcp)" in bed.undone()
    assert _numbered(bed) == ["[ 1] 80/tcp ALLOW IN Anywhere"]
    # a limit takes the place of the allow for its port; undo puts the allow back there
    out = bed.approved("rate limit port 80")
    assert "in place of its rule \u201callow 80/tcp\u201d" in out, out
    assert _numbered(bed) == ["[ 1] 80/tcp LIMIT IN Anywhere"]
    assert "(ran: ufw allow 80/tcp)" in bed.undone()
    assert _numbered(bed) == ["[ 1] 80/tcp ALLOW IN Anywhere"]


def test_reload_the_firewall_has_nothing_to_undo(bed) -> None:  # noqa: ANN001
    _ufw(bed, "allow 80/tcp")
    out = bed.approved("reload the firewall")
    assert "$ ufw reload" in out and "Firewall reloaded" in out, out
    assert "cannot be undone: there is nothing to restore" in out, out
    assert _numbered(bed) == ["[ 1] 80/tcp ALLOW IN Anywhere"]


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
