"""Firewall rule order (reos/planning/firewall_rules.py) and the firewall plans on each
backend: which earlier rule decides a new rule's traffic, where the new rule goes so it
takes effect, and the undo each backend's step records (reos/system/state_net.py).

Plans are made against the homelab fixture with its firewall section replaced by what
ufw, nftables and firewalld list; the real rules are changed in the Debian/systemd test
bed (tests/test_bed_firewall.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reos.planning import firewall_rules as fr
from reos.settings import Settings
from reos.system import state_net
from reos.system.snapshot import SCHEMA, SystemSnapshot

FIXTURES = Path(__file__).parent / "fixtures"


def _engine(firewall: dict[str, object] | None):  # noqa: ANN202
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    data["firewall"] = firewall
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


UFW_DENY_22 = {"backend": "ufw", "active": True, "rules": [
    "80/tcp ALLOW Anywhere", "22/tcp DENY Anywhere", "80/tcp (v6) ALLOW Anywhere (v6)",
    "22/tcp (v6) DENY Anywhere (v6)"]}


# -- the logic ---------------------------------------------------------------------------------

def test_ufw_rows_are_read_with_their_numbers() -> None:
    rules = fr.from_ufw(UFW_DENY_22["rules"] + ["Anywhere DENY 203.0.113.7",
                                                "OpenSSH ALLOW Anywhere"])
    assert [(r.verdict, r.ports, r.proto, r.source, r.v6, r.number) for r in rules[:2]] == [
        ("allow", (80, 80), "tcp", None, False, 1), ("deny", (22, 22), "tcp", None, False, 2)]
    assert rules[2].v6 and rules[4].source == "203.0.113.7" and rules[4].ports is None
    assert rules[5].opaque  # an application profile: its ports are not known here


def test_an_earlier_deny_decides_a_new_allow() -> None:
    rules = fr.from_ufw(["5000 DENY Anywhere", "8080/tcp ALLOW Anywhere"])
    placed = fr.place(rules, fr.Rule("allow", (5000, 5000), "tcp"))
    assert placed.before is rules[0] and placed.replaces is None
    # the same match the other way: ufw updates it in its place
    placed = fr.place(fr.from_ufw(UFW_DENY_22["rules"]), fr.Rule("allow", (22, 22), "tcp"))
    assert placed.before is placed.replaces and placed.before.number == 2


def test_a_rule_already_deciding_the_same_way_is_said() -> None:
    rules = fr.from_ufw(["8000:8100/tcp ALLOW Anywhere"])
    placed = fr.place(rules, fr.Rule("allow", (8080, 8080), "tcp"))
    assert placed.same is rules[0] and placed.before is None
    notes = fr.explain(placed, "\u201callow 8080/tcp\u201d", "ufw")
    assert "already decides this traffic the same way" in notes[0]


def test_a_ban_on_one_address_is_said_and_stays_ahead() -> None:
    rules = fr.from_ufw(["Anywhere DENY 203.0.113.7"])
    placed = fr.place(rules, fr.Rule("allow", (22, 22), "tcp"))
    assert placed.before is None and placed.partial == rules
    assert "still decides part of this traffic" in fr.explain(placed, "it", "ufw")[0]


def test_a_row_of_several_ports_is_said_once() -> None:
    rules = fr.from_ufw(["80,443/tcp ALLOW Anywhere"])
    placed = fr.place(rules, fr.Rule("deny", None, None, "203.0.113.9"))
    assert len(placed.partial) == 2  # one rule read for each of its ports
    assert len(fr.explain(placed, "it", "ufw")) == 1


def test_a_ban_put_ahead_of_every_rule_says_nothing_of_earlier_rules() -> None:
    plan = _engine({"backend": "ufw", "active": True, "rules": [
        "22/tcp LIMIT IN Anywhere", "80,443/tcp ALLOW IN Anywhere"]}).plan("ban 203.0.113.9")
    [step] = plan.steps
    assert step.argv[-4:] == ["prepend", "deny", "from", "203.0.113.9"]
    assert "comes earlier" not in plan.text()


def test_rules_with_matches_not_understood_never_cover() -> None:
    rules = fr.from_nft(["inet filter input handle 4: ct state established,related accept",
                         "inet filter input handle 5: iifname lo accept",
                         "inet filter input handle 6: tcp dport 22 drop"])
    assert rules[0].opaque and rules[1].opaque and not rules[2].opaque
    placed = fr.place(rules, fr.Rule("allow", (22, 22), "tcp"))
    assert placed.before is rules[2] and placed.before.handle == 6
    assert [r.number for r in placed.partial] == []  # opaque allows agree with an allow


def test_firewalld_order_puts_deny_rich_rules_before_ports() -> None:
    lines = ["public (active)", "target: default", "services: ssh dhcpv6-client",
             "ports: 8080/tcp", "rich rules:",
             'rule family="ipv4" port port="8080" protocol="tcp" reject',
             'rule priority="-5" family="ipv4" source address="198.51.100.9" drop']
    rules = fr.from_firewalld(lines)
    assert rules[0].priority == -5 and rules[0].source == "198.51.100.9"
    assert rules[1].rich and rules[1].verdict == "deny" and rules[1].ports == (8080, 8080)
    placed = fr.place(rules, fr.Rule("allow", (8080, 8080), "tcp"))
    assert placed.before is rules[1]
    assert fr.priority_before(rules[1]) == -1 and fr.priority_before(rules[0]) == -6


ports = st.tuples(st.integers(1, 65535), st.integers(0, 200)).map(
    lambda t: (t[0], min(65535, t[0] + t[1])))
rules_st = st.builds(fr.Rule, st.sampled_from(["allow", "deny"]), st.none() | ports,
                     st.sampled_from([None, "tcp", "udp"]),
                     st.sampled_from([None, "10.0.0.0/8", "10.1.2.3", "192.0.2.1"]))


@given(st.lists(rules_st, max_size=8), rules_st)
def test_placing_a_rule_where_it_says_makes_it_decide_its_traffic(existing, new) -> None:  # noqa: ANN001
    placed = fr.place(existing, new)
    if placed.before is not None:
        at = existing.index(placed.before)
        reordered = [*existing[:at], new, *existing[at:]]
        # nothing ahead of the inserted rule covers its traffic the other way
        assert not any(fr.covers(r, new) and r.verdict != new.verdict
                       for r in reordered[:at])
    elif placed.same is None:
        assert not any(fr.covers(r, new) for r in existing)
    for rule in existing:  # covering implies overlapping
        if fr.covers(rule, new):
            assert fr.overlaps(rule, new)


# -- names, prior state and undo per backend -----------------------------------------------

def test_rule_names_per_backend() -> None:
    assert state_net.rule_name(["sudo", "-n", "ufw", "insert", "2", "allow", "22/tcp"]) == (
        "allow 22/tcp")
    nft = state_net.rule_name(["nft", "insert", "rule", "inet", "filter", "input", "position",
                               "6", "tcp", "dport", "22", "accept"])
    assert nft == "nft inet filter input: tcp dport 22 accept"
    assert state_net.valid("firewall", nft)
    wall = state_net.rule_name(["firewall-cmd", "--permanent", "--remove-port=8080/tcp"])
    assert wall == "firewalld: --permanent --add-port=8080/tcp"
    assert state_net.valid("firewall", wall)
    assert not state_net.valid("firewall", "nft inet filter input: tcp dport 22 jump x")
    assert not state_net.valid("firewall", "firewalld: --add-port=22/tcp; reboot")


def test_undo_per_backend() -> None:
    restore = state_net.restore
    assert restore("firewall", "allow 22/tcp", {"state": "absent", "replaces": "deny 22/tcp"},
                   "allow") == ["ufw", "deny", "22/tcp"]  # updated back in its place
    wall = "firewalld: --permanent --add-port=8080/tcp"
    assert restore("firewall", wall, {"state": "absent"}, "allow") == [
        "firewall-cmd", "--permanent", "--remove-port=8080/tcp"]
    assert restore("firewall", wall, {"state": "present"}, "delete_rule") == [
        "firewall-cmd", "--permanent", "--add-port=8080/tcp"]
    assert restore("firewall", wall, {"state": "present"}, "allow") is None  # was there
    nft = "nft inet filter input: tcp dport 8080 accept"
    assert restore("firewall", nft, {"state": "absent"}, "allow") is None  # by handle, later
    assert restore("firewall", nft, {"state": "present", "handles": [9], "order": [4, 9, 12]},
                   "delete_rule") == ["nft", "add", "rule", "inet", "filter", "input",
                                      "position", "4", "tcp", "dport", "8080", "accept"]
    assert restore("firewall", nft, {"state": "present", "handles": [4], "order": [4, 9]},
                   "delete_rule") == ["nft", "insert", "rule", "inet", "filter", "input",
                                      "tcp", "dport", "8080", "accept"]


# -- plans ---------------------------------------------------------------------------------------

def test_ufw_plan_replaces_an_earlier_deny_in_place_and_says_so() -> None:
    plan = _engine(UFW_DENY_22).plan("allow port 22")
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "ufw", "allow", "22/tcp"]]
    assert any("ufw replaces it in its place" in n for n in plan.notes), plan.notes


def test_ufw_plan_inserts_ahead_of_a_wider_deny() -> None:
    wall = {"backend": "ufw", "active": True,
            "rules": ["80/tcp ALLOW Anywhere", "5000 DENY Anywhere"]}
    plan = _engine(wall).plan("open port 5000")
    assert [s.argv for s in plan.steps] == [
        ["sudo", "-n", "ufw", "insert", "2", "allow", "5000/tcp"]]
    assert plan.steps[0].rollback == ["sudo", "-n", "ufw", "delete", "allow", "5000/tcp"]
    assert any("never take effect" in n and "position 2" in n for n in plan.notes), plan.notes


NFT = {"backend": "nftables", "active": True, "rules": [
    "inet fw in handle 3: ct state established,related accept",
    "inet fw in handle 4: tcp dport 22 drop"]}


def test_nftables_plans() -> None:
    engine = _engine({**NFT, "rules": [r.replace(" in handle", " input handle")
                                       for r in NFT["rules"]]})
    plan = engine.plan("open port 8080")
    assert [s.argv for s in plan.steps] == [[
        "sudo", "-n", "nft", "add", "rule", "inet", "fw", "input", "tcp", "dport", "8080",
        "accept"]]
    assert plan.steps[0].target.name == "nft inet fw input: tcp dport 8080 accept"
    plan = engine.plan("allow port 22")
    assert plan.steps[0].argv[2:] == ["nft", "insert", "rule", "inet", "fw", "input",
                                      "position", "4", "tcp", "dport", "22", "accept"]
    assert any("handle 4" in n for n in plan.notes), plan.notes
    plan = engine.plan("delete the firewall rule for port 8080")
    assert not plan.steps and "There is no rule \u201ctcp dport 8080 accept\u201d" in (
        plan.text()), plan.text()


def test_firewalld_plans() -> None:
    wall = {"backend": "firewalld", "active": True, "rules": [
        "public (active)", "ports: 8080/tcp", "rich rules:",
        'rule family="ipv4" port port="22" protocol="tcp" reject']}
    engine = _engine(wall)
    plan = engine.plan("open port 9090")
    assert [s.argv[2:] for s in plan.steps] == [
        ["firewall-cmd", "--add-port=9090/tcp"],
        ["firewall-cmd", "--permanent", "--add-port=9090/tcp"]]
    assert plan.steps[1].rollback[2:] == ["firewall-cmd", "--permanent",
                                          "--remove-port=9090/tcp"]
    plan = engine.plan("allow port 22")
    rich = 'rule priority="-1" family="ipv4" port port="22" protocol="tcp" accept'
    assert [s.argv[2:] for s in plan.steps] == [
        ["firewall-cmd", f"--add-rich-rule={rich}"],
        ["firewall-cmd", "--permanent", f"--add-rich-rule={rich}"]]
    assert plan.steps[0].rollback[2:] == ["firewall-cmd", f"--remove-rich-rule={rich}"]
    assert any("priority -1" in n for n in plan.notes), plan.notes


@pytest.mark.parametrize("backend", [None, "ufw"])
def test_no_known_backend_plans_ufw(backend) -> None:  # noqa: ANN001
    plan = _engine({"backend": backend, "active": False, "rules": []}).plan("block port 23")
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "ufw", "deny", "23/tcp"]]


# -- which backend the snapshot names, and the status answers ---------------------------------

NFT_JSON = json.dumps({"nftables": [
    {"metainfo": {"version": "1.0.6"}},
    {"table": {"family": "inet", "name": "filter", "handle": 1}},
    {"chain": {"family": "inet", "table": "filter", "name": "input", "handle": 1,
               "type": "filter", "hook": "input", "prio": 0, "policy": "drop"}},
    {"rule": {"family": "inet", "table": "filter", "chain": "input", "handle": 4, "expr": [
        {"match": {"op": "==", "left": {"payload": {"protocol": "tcp", "field": "dport"}},
                   "right": 22}}, {"counter": {"packets": 0, "bytes": 0}}, {"accept": None}]}},
]})


def _tools(monkeypatch, present: set[str], outputs: dict[str, str]) -> None:  # noqa: ANN001
    from reos.system import facts

    monkeypatch.setattr(facts.shutil, "which", lambda name: f"/usr/sbin/{name}"
                        if name in present else None)
    monkeypatch.setattr(facts.os, "geteuid", lambda: 0)

    def run(argv: list[str], timeout: float = 3) -> str:  # noqa: ARG001
        return outputs[" ".join(argv[:2])]

    monkeypatch.setattr(facts, "run_tool", run)


def test_the_backend_that_is_on_wins(monkeypatch) -> None:  # noqa: ANN001
    from reos.system import facts

    _tools(monkeypatch, {"ufw", "nft"}, {"ufw status": "Status: inactive\n",
                                         "nft -j": NFT_JSON})
    wall = facts.firewall()  # ufw installed but off; nftables filters
    assert wall == {"backend": "nftables", "active": True,
                    "rules": ["inet filter input handle 4: tcp dport 22 accept"]}
    _tools(monkeypatch, {"ufw", "nft"}, {"ufw status": "Status: inactive\n",
                                         "nft -j": '{"nftables": []}'})
    assert facts.firewall() == {"backend": "ufw", "active": False, "rules": []}
    _tools(monkeypatch, {"nft"}, {"nft -j": '{"nftables": []}'})
    assert facts.firewall() == {"backend": "nftables", "active": False, "rules": []}


def test_status_answers_for_nftables_and_firewalld() -> None:
    from reos.model.report import StepResult
    from reos.words.answers.net import firewall_status
    from reos.words.conversation import Voice

    said = firewall_status([StepResult("s1", True, 0, NFT_JSON)], {}, Voice())
    assert said.startswith("The firewall (nftables) is on: 1 rule in 1 chain; filtering "
                           "chains: inet filter input (input, policy drop)."), said
    assert "[handle 4]: tcp dport 22 accept" in said
    listed = ("public (active)\n  target: default\n  services: ssh\n  ports: 8080/tcp\n"
              "  rich rules: \n\trule family=\"ipv4\" source address=\"192.0.2.9\" drop\n")
    said = firewall_status([StepResult("s1", True, 0, "running\n"),
                            StepResult("s2", True, 0, listed)], {}, Voice())
    assert said.startswith("The firewall (firewalld) is on; zone public (active): services "
                           "ssh, ports 8080/tcp, 1 rich rule."), said
    off = firewall_status([StepResult("s1", False, 252, "not running\n"),
                           StepResult("s2", False, 252, "")], {}, Voice())
    assert off == "firewalld is not running: nothing is filtered by it."


def test_a_port_list_rule_covers_each_listed_port_and_is_never_replaced_in_place() -> None:
    rules = fr.from_ufw(["22/tcp ALLOW IN Anywhere", "80,443/tcp ALLOW IN Anywhere"])
    placed = fr.place(rules, fr.new_rule("ufw", "deny 80/tcp"))
    assert placed.before is not None and placed.before.number == 2
    assert placed.replaces is None  # "deny 80/tcp" does not update "80,443/tcp" in ufw
    placed = fr.place(rules, fr.new_rule("ufw", "deny 8080/tcp"))
    assert placed.before is None and placed.partial == []


# -- a port opened to one address or network only ("allow 8123 from 10.8.0.0/24") ------------

def test_a_port_opened_to_a_network_only_on_each_backend() -> None:
    say = "allow 8123 from 10.8.0.0/24"
    plan = _engine({"backend": "ufw", "active": True, "rules": []}).plan(say)
    argv = ["ufw", "allow", "from", "10.8.0.0/24", "to", "any", "port", "8123", "proto", "tcp"]
    assert [s.argv[2:] for s in plan.steps] == [argv]
    assert plan.steps[0].rollback[2:] == ["ufw", "delete", *argv[1:]]
    plan = _engine(NFT).plan(say)
    assert plan.steps[0].argv[-7:] == ["ip", "saddr", "10.8.0.0/24", "tcp", "dport", "8123",
                                       "accept"]
    assert plan.steps[0].target.name.endswith(": ip saddr 10.8.0.0/24 tcp dport 8123 accept")
    plan = _engine({"backend": "firewalld", "active": True, "rules": []}).plan(say)
    rich = 'rule family="ipv4" source address="10.8.0.0/24" port port="8123" protocol="tcp" accept'
    assert [s.argv[2:] for s in plan.steps] == [
        ["firewall-cmd", f"--add-rich-rule={rich}"],
        ["firewall-cmd", "--permanent", f"--add-rich-rule={rich}"]]
    assert plan.steps[1].rollback[2:] == ["firewall-cmd", "--permanent",
                                          f"--remove-rich-rule={rich}"]


def test_an_address_alone_is_allowed_whole_and_a_bare_allow_asks_for_the_port() -> None:
    engine = _engine({"backend": "ufw", "active": True, "rules": []})
    plan = engine.plan("allow 10.0.0.5")
    assert [s.argv[2:] for s in plan.steps] == [["ufw", "allow", "from", "10.0.0.5"]]
    asked = engine.plan("open a port")
    assert asked.question == "Tell me the port (1 to 65535), please: say it again with that in it."


def test_a_source_rule_is_read_back_from_ufw_status_and_placed_behind_a_ban() -> None:
    rows = state_net.ufw_rows("8123/tcp                   ALLOW       10.8.0.0/24\n"
                              "Anywhere                   DENY        203.0.113.9\n")
    rule = "allow from 10.8.0.0/24 to any port 8123 proto tcp"
    assert state_net.valid("firewall", rule)
    assert state_net.has_rule(rows, rule)
    assert not state_net.has_rule(rows, "allow from 10.8.0.0/24 to any port 8124 proto tcp")
    assert not state_net.has_rule(rows, "allow from 10.8.0.0/24")  # to every port: not so
    assert not state_net.valid("firewall", rule + "; reboot")
    new = fr.new_rule("ufw", rule)
    assert new == fr.Rule("allow", (8123, 8123), "tcp", "10.8.0.0/24")


@pytest.mark.parametrize("say", ["allow from 0.0.0.0/0", "allow 22 from 999.1.1.1",
                                 "allow 22 from example.com", "allow 22 from 10.8.0.5/24"])
def test_a_source_that_is_no_address_or_network_is_asked_about_never_widened(say) -> None:  # noqa: ANN001
    plan = _engine({"backend": "ufw", "active": True, "rules": []}).plan(say)
    assert not plan.steps and plan.question and "which address or network" in plan.question


def test_a_port_closed_to_one_address_only() -> None:
    plan = _engine({"backend": "ufw", "active": True, "rules": []}).plan(
        "deny 8123 from 10.8.0.5")
    assert [s.argv[2:] for s in plan.steps] == [
        ["ufw", "deny", "from", "10.8.0.5", "to", "any", "port", "8123", "proto", "tcp"]]
