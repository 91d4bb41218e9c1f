"""Remote lock-out: over SSH, cutting the branch reos sits on is blocked unless asked for."""

from __future__ import annotations

import subprocess

import pytest

from reos.model.risk import RiskLevel
from reos.safety.risk import assess, assess_argv

LOCKOUTS = [
    "systemctl stop ssh", "systemctl disable --now sshd", "systemctl mask ssh.service",
    "service ssh stop", "ufw disable", "iptables -F", "nft flush ruleset",
    "systemctl stop nftables", "iptables -P INPUT DROP",
]


@pytest.mark.parametrize("command", LOCKOUTS)
def test_locking_yourself_out_over_ssh_is_blocked(command: str) -> None:
    remote = assess(command, remote=True)
    assert remote.blocked and remote.risk == RiskLevel.CRITICAL, remote.to_dict()
    local = assess(command, remote=False)
    assert not local.blocked and local.risk >= RiskLevel.HIGH, local.to_dict()


@pytest.mark.parametrize("command", [
    "systemctl start NetworkManager", "systemctl enable --now NetworkManager.service",
    "systemctl restart systemd-networkd", "systemctl restart networking",
])
def test_changing_what_manages_the_network_over_ssh_is_blocked(command: str) -> None:
    # a second manager takes over the interfaces the first set up; a restart drops the
    # addresses: the session that runs it can go with them
    remote = assess(command, remote=True)
    assert remote.blocked and remote.risk == RiskLevel.CRITICAL, remote.to_dict()
    assert not assess(command, remote=False).blocked
    assert not assess("systemctl start nginx", remote=True).blocked


def test_asking_for_exactly_that_lifts_the_block() -> None:
    verdict = assess("systemctl stop ssh", requested="stop the ssh service", remote=True)
    assert not verdict.blocked and verdict.risk >= RiskLevel.HIGH
    assert assess_argv(["systemctl", "stop", "ssh"], requested="stop ssh please",
                       remote=True).blocked is False
    assert assess_argv(["systemctl", "stop", "ssh"], requested="restart nginx",
                       remote=True).blocked


def test_remote_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.2 50000 10.0.0.1 22")
    assert assess("systemctl stop sshd").blocked
    monkeypatch.delenv("SSH_CONNECTION")
    assert not assess("systemctl stop sshd").blocked


def _default_interface() -> str | None:
    import json

    try:
        out = subprocess.run(["ip", "-j", "route", "show", "default"], capture_output=True,
                             text=True, timeout=5, check=False).stdout
        routes = json.loads(out or "[]")
    except (OSError, ValueError):
        return None
    return routes[0].get("dev") if routes else None


def test_downing_the_default_route_interface_remotely_is_blocked() -> None:
    dev = _default_interface()
    if dev is None:
        pytest.skip("this machine has no default route")
    for command in [f"ip link set {dev} down", f"ifdown {dev}", f"ip link set dev {dev} down",
                    f"nmcli device disconnect {dev}"]:
        assert assess(command, remote=True).blocked, command
        assert not assess(command, remote=False).blocked, command
    assert not assess("ip link set reos-none0 down", remote=True).blocked


def test_remote_commands_are_judged() -> None:
    assert assess("systemctl -H web1 stop ssh").blocked
    assert assess("ssh web1 'systemctl stop ssh'").blocked
    assert not assess("ssh web1 uptime").blocked


@pytest.mark.parametrize(("argv", "blocked"), [
    (["ufw", "delete", "allow", "22/tcp"], True),  # stops allowing the session's port
    (["ufw", "deny", "22/tcp"], True),
    (["ufw", "insert", "1", "reject", "22"], True),
    (["ufw", "prepend", "deny", "from", "10.0.0.2"], True),  # where the session comes from
    (["ufw", "prepend", "deny", "from", "10.0.0.0/24"], True),
    (["ufw", "prepend", "deny", "from", "203.0.113.5"], False),  # someone else
    (["ufw", "deny", "3306/tcp"], False),
    (["ufw", "delete", "allow", "80/tcp"], False),
    (["ufw", "allow", "22/tcp"], False),
])
def test_a_ufw_rule_that_cuts_the_session_s_port_or_address_is_blocked_over_ssh(
        monkeypatch: pytest.MonkeyPatch, argv: list[str], blocked: bool) -> None:
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.2 50000 10.0.0.1 22")
    assert assess_argv(argv, requested="close the hole", remote=True).blocked is blocked
    monkeypatch.delenv("SSH_CONNECTION")
    assert not assess_argv(argv, remote=False).blocked


@pytest.mark.parametrize("argv", [
    ["apt-get", "remove", "-y", "ufw"], ["apt-get", "purge", "-y", "nftables"],
    ["apt", "remove", "iptables"], ["dnf", "remove", "-y", "firewalld"],
    ["dnf", "rm", "firewalld"], ["zypper", "rm", "firewalld"], ["dpkg", "--remove", "ufw"],
    ["rpm", "--erase", "firewalld"], ["apt-get", "remove", "-y", "iptables-nft"]])
def test_removing_the_firewall_over_ssh_is_a_lockout_unless_asked_for(argv: list[str]) -> None:
    # the firewall goes with all its rules at once (iptables takes ufw with it)
    name = argv[-1]
    said = f"the 443 rules in {name} are not needed any more. Please delete them."
    refused = assess_argv(argv, requested=said, remote=True)
    assert refused.blocked and f"removes the firewall ({name})" in " ".join(refused.reasons)
    asked = assess_argv(argv, requested=f"remove {name}", remote=True)
    assert not asked.blocked and asked.risk >= RiskLevel.HIGH
    assert not assess_argv(argv, requested=said, remote=False).blocked
    assert not assess_argv(["apt-get", "remove", "-y", "telnet"], requested=said,
                           remote=True).blocked


def test_removing_a_firewall_is_asked_for_only_by_its_own_name_as_the_object() -> None:
    # "remove ufw" does not ask to remove iptables (which takes ufw with it), and "remove
    # the ufw rule for 8080" asks to remove a rule, not ufw
    assert assess_argv(["apt-get", "remove", "-y", "iptables"], requested="remove ufw",
                       remote=True).blocked
    assert assess_argv(["apt-get", "remove", "-y", "ufw"],
                       requested="remove the ufw rule for port 8080", remote=True).blocked
    assert assess_argv(["apt-get", "remove", "-y", "ufw*"], requested="x", remote=True).blocked
