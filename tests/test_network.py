"""Network and firewall on the host: the answers compared with what `ip -j addr`,
`ip -j route` and psutil say, the state module on its own, and plans against the homelab
fixture.

The fixture has interfaces, listening sockets and a ufw firewall but no routes: the
snapshot has no routes section. Taking enp3s0 down is expected to be high risk because the
risk engine rates taking down any interface but loopback as high (it cannot tell which
one carries the default route from the snapshot); the fixture's enp3s0 holds the LAN
address 192.168.1.50/24, the one that would carry it.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from reos.model.report import StepResult
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.settings import Settings
from reos.system import state, state_net
from reos.system.snapshot import SCHEMA, SystemSnapshot
from reos.words.answers import net as answers
from reos.words.conversation import Voice
from tests.conftest import FIXTURES


def _ran(*argv: str) -> StepResult:
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=60)
    return StepResult("s1", done.returncode == 0, done.returncode, done.stdout, done.stderr,
                      0.0)


def _ip_works() -> bool:
    return shutil.which("ip") is not None and _ran("ip", "-j", "addr").ok


needs_ip = pytest.mark.skipif(not _ip_works(), reason="no iproute2 with JSON output here")


# -- answers compared with the tools ---------------------------------------------------------

@needs_ip
def test_the_addresses_answer_names_every_address_ip_lists() -> None:
    result = _ran("ip", "-j", "addr")
    said = answers.net_addresses([result], {}, Voice())
    for link in json.loads(result.stdout):
        if link["ifname"] == "lo":
            continue
        for info in link.get("addr_info", []):
            assert f"{info['local']}/{info['prefixlen']}" in said, (info, said)
    lan = [i["local"] for link in json.loads(result.stdout) if link["ifname"] != "lo"
           for i in link.get("addr_info", []) if i["family"] == "inet"]
    if lan:
        assert f"main IPv4 address is {lan[0]}" in said


@needs_ip
def test_the_routes_answer_says_the_default_gateway_ip_route_has() -> None:
    v4, v6 = _ran("ip", "-j", "route"), _ran("ip", "-j", "-6", "route")
    said = answers.net_routes([v4, v6], {}, Voice())
    routes = json.loads(v4.stdout)
    default = [r for r in routes if r["dst"] == "default"]
    if default:
        assert said.startswith(f"Traffic to the internet leaves through {default[0]['gateway']}"
                               f" on {default[0]['dev']}")
    else:
        assert said.startswith("There is no IPv4 default route")
    for route in routes:
        assert route["dst"] in said


def test_the_listening_answer_names_the_ports_psutil_sees() -> None:
    psutil = pytest.importorskip("psutil")
    if shutil.which("ss") is None:
        pytest.skip("no ss here")
    result = _ran("ss", "-H", "-tulnp")
    said = answers.net_listening([result], {}, Voice())
    try:
        listening = {c.laddr.port for c in psutil.net_connections("inet")
                     if c.status == psutil.CONN_LISTEN}
    except psutil.AccessDenied:
        pytest.skip("psutil may not list sockets here")
    rows = {int(r["port"]) for r in answers.listening_rows(result.stdout)
            if r["port"].isdigit()}
    assert listening <= rows, (listening, rows)
    for port in listening:
        assert f" {port} " in said or f" {port:<6} " in said


def test_answers_from_fixed_output() -> None:
    ping = StepResult("s1", True, 0, "PING 192.168.1.1 (192.168.1.1) 56(84) bytes of data.\n"
                      "\n--- 192.168.1.1 ping statistics ---\n4 packets transmitted, 4 "
                      "received, 0% packet loss, time 3004ms\nrtt min/avg/max/mdev = "
                      "0.412/0.530/0.702/0.110 ms\n", "", 3.0)
    assert answers.net_ping([ping], {"host": "192.168.1.1"}, Voice()) == (
        "192.168.1.1 is reachable: 4 of 4 pings answered, 0.5 ms on average.")
    lost = StepResult("s1", False, 1, "PING 10.9.9.9 (10.9.9.9) 56(84) bytes of data.\n\n--- "
                      "10.9.9.9 ping statistics ---\n4 packets transmitted, 0 received, 100% "
                      "packet loss, time 3060ms\n", "", 5.0)
    assert answers.net_ping([lost], {"host": "10.9.9.9"}, Voice()).startswith(
        "10.9.9.9 did not answer: 4 pings sent, none came back")
    unknown = StepResult("s1", False, 2, "", "ping: nowhere.invalid: Name or service not "
                         "known\n", 0.1)
    assert "Name or service not known" in answers.net_ping([unknown], {"host": "nowhere.invalid"},
                                                           Voice())
    assert {"net_ping", "net_online", "net_dns", "firewall_status"} <= answers.TOLERANT
    resolv = StepResult("s1", True, 0, "# generated\nnameserver 192.168.1.1\nnameserver "
                        "9.9.9.9\nsearch lan\n", "", 0)
    said = answers.net_dns([resolv, StepResult("s2", False, 127, "", "not found", 0)], {},
                           Voice())
    assert said.startswith("This machine asks 192.168.1.1 and 9.9.9.9 to look up names")
    assert "Search domains: lan." in said
    ufw = StepResult("s1", True, 0, "Status: active\nLogging: on (low)\nDefault: deny "
                     "(incoming), allow (outgoing), disabled (routed)\nNew profiles: skip\n\n"
                     "To                         Action      From\n--                      "
                     "   ------      ----\n22/tcp                     ALLOW IN    Anywhere\n"
                     "80,443/tcp                 ALLOW IN    Anywhere\n22/tcp (v6)          "
                     "      ALLOW IN    Anywhere (v6)\n", "", 0)
    said = answers.firewall_status([ufw], {}, Voice())
    assert said.startswith("The firewall (ufw) is on with 3 rules. Default: deny (incoming)")
    assert "80,443/tcp                 ALLOW IN    Anywhere" in said
    off = StepResult("s1", True, 0, "Status: inactive\n", "", 0)
    assert answers.firewall_status([off], {}, Voice()).startswith("The firewall (ufw) is off")
    stats = StepResult("s1", True, 0, json.dumps([{
        "ifname": "enp3s0", "flags": ["UP"], "operstate": "UP",
        "stats64": {"rx": {"bytes": 2048, "packets": 10, "errors": 0, "dropped": 3},
                    "tx": {"bytes": 1024, "packets": 5, "errors": 1, "dropped": 0}}}]), "", 0)
    said = answers.net_stats([stats], {}, Voice())
    assert said.startswith("Errors or drops on enp3s0.")
    assert "dropped 3 in / 0 out" in said
    hostile = StepResult("s1", True, 0, "nameserver 1.1.1.1\x1b]0;pwned\x07\n", "", 0)
    assert "\x1b" not in answers.net_dns([hostile], {}, Voice())


# -- the state module ------------------------------------------------------------------------

@needs_ip
def test_current_reads_an_interface() -> None:
    assert state.current_state("interface", "lo")["state"] == "up"
    assert state.current_state("interface", "nosuch0")["state"] == "absent"
    assert state.current_state("interface", "x;reboot")["state"] == "unknown"


def test_restore_puts_the_recorded_state_back() -> None:
    assert state.restore_argv("interface", "enp3s0", {"state": "up"}, "down") == [
        "ip", "link", "set", "enp3s0", "up"]
    assert state.restore_argv("interface", "wlp2s0", {"state": "down"}, "up") == [
        "ip", "link", "set", "wlp2s0", "down"]
    assert state.restore_argv("interface", "lo", {"state": "unknown"}, "down") is None
    assert state.restore_argv("firewall", "allow 8080/tcp", {"state": "absent"}, "allow") == [
        "ufw", "delete", "allow", "8080/tcp"]
    # a rule that was there already is never deleted by undo
    assert state.restore_argv("firewall", "allow 22/tcp", {"state": "present"}, "allow") is None
    assert state.restore_argv("firewall", "deny from 203.0.113.7", {"state": "absent"},
                              "deny") == ["ufw", "delete", "deny", "from", "203.0.113.7"]
    assert state.restore_argv("firewall", "allow 80,443/tcp", {"state": "present"},
                              "delete_rule") == ["ufw", "allow", "80,443/tcp"]
    # the firewall as a whole names no rule: nothing is guessed
    assert state.restore_argv("firewall", "firewall", {"state": ""}, "allow") is None


@pytest.mark.parametrize("name", ["", "-rf", "a b", "x;reboot", "$(id)", "eth0 down",
                                  "allow 22/tcp; reboot", "allow 22/tcp extra"])
def test_restore_refuses_a_name_no_tool_should_get(name: str) -> None:
    assert state_net.restore("interface", name, {"state": "up"}, "down") is None
    assert state_net.restore("firewall", name, {"state": "absent"}, "allow") is None


def test_ufw_rules_are_read_and_found() -> None:
    rows = state_net.ufw_rows("Status: active\n\nTo                         Action      From\n"
                              "--                         ------      ----\n22/tcp        "
                              "             ALLOW       Anywhere\nAnywhere                   "
                              "DENY        203.0.113.7\n22/tcp (v6)                ALLOW       "
                              "Anywhere (v6)\n")
    assert [r["to"] for r in rows] == ["22/tcp", "Anywhere", "22/tcp (v6)"]
    numbered = state_net.ufw_rows("Status: active\n\n     To          Action      From\n"
                                  "[ 1] 22/tcp      ALLOW IN    Anywhere\n"
                                  "[12] 8080        DENY IN     203.0.113.7\n")
    assert [(r["to"], r["action"], r["from"]) for r in numbered] == [
        ("22/tcp", "ALLOW", "Anywhere"), ("8080", "DENY", "203.0.113.7")]
    assert state_net.has_rule(rows, "allow 22/tcp")
    assert state_net.has_rule(rows, "deny from 203.0.113.7")
    assert not state_net.has_rule(rows, "deny 22/tcp")
    assert not state_net.has_rule(rows, "allow 8080/tcp")


def test_problem_says_what_is_wrong() -> None:
    assert state.intended_state_problem("interface", "up", {"state": "up"}) is None
    assert state.intended_state_problem("interface", "up", {"state": "down"}) == "is still down"
    assert state.intended_state_problem("interface", "down", {"state": "up"}) == "is still up"
    assert state.intended_state_problem("firewall", "allow",
                                        {"state": "absent", "rule": "allow 8080/tcp"}) == (
        "has no rule \u201callow 8080/tcp\u201d")
    assert state.intended_state_problem("firewall", "delete_rule",
                                        {"state": "present", "rule": "allow 22/tcp"}) == (
        "still has the rule \u201callow 22/tcp\u201d")
    assert "could not be read back" in state.intended_state_problem(
        "firewall", "allow", {"state": "unknown", "reason": "ufw could not be run"})


# -- plans against the homelab fixture ---------------------------------------------------------

@pytest.fixture
def engine():  # noqa: ANN201
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA  # its interfaces, sockets and firewall are /2 sections
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def test_taking_the_lan_interface_down_is_high_risk_and_undone(engine) -> None:  # noqa: ANN001
    plan = engine.plan("take enp3s0 down")
    assert plan.kind == Kind.ACTION
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "ip", "link", "set", "enp3s0", "down"]
    assert step.risk >= RiskLevel.HIGH and step.needs_root
    assert (step.target.kind, step.target.name) == ("interface", "enp3s0")
    assert step.rollback == ["sudo", "-n", "ip", "link", "set", "enp3s0", "up"]


def test_bringing_an_interface_up(engine) -> None:  # noqa: ANN001
    plan = engine.plan("bring wlp2s0 up")
    [step] = plan.steps
    assert step.argv[-5:] == ["ip", "link", "set", "wlp2s0", "up"]
    assert step.rollback[-5:] == ["ip", "link", "set", "wlp2s0", "down"]
    plan = engine.plan("turn the wifi on")
    assert [s.argv[-5:] for s in plan.steps] == [["ip", "link", "set", "wlp2s0", "up"]]


def test_an_unknown_interface_is_never_acted_on(engine) -> None:  # noqa: ANN001
    plan = engine.plan("bring eth7 down")
    assert not any("eth7" in s.argv for s in plan.steps)


def test_the_address_of_this_machine_or_a_link_by_its_kind(engine) -> None:  # noqa: ANN001
    # the machine itself is no host name to look up
    for said in ("whats the ip of this box", "what is the ip address of this machine"):
        assert [s.argv for s in engine.plan(said).steps] == [["ip", "-j", "addr"]], said
    assert [s.argv for s in engine.plan("ip of the wifi").steps] == [
        ["ip", "-j", "addr", "show", "dev", "wlp2s0"]]

def test_a_link_the_machine_lacks_is_said_never_run() -> None:
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    data["interfaces"] = [i for i in data["interfaces"] if i["name"] != "wlp2s0"]
    plan = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data)).plan(
        "ip of the wifi")
    assert not plan.steps and "wifi" in plan.text()  # never `ip addr show dev wifi`


def test_two_links_of_a_kind_are_asked_about() -> None:
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    data["interfaces"] += [{"name": n, "kind": "wireguard", "state": "up", "addresses": []}
                           for n in ("wg0", "wg1")]
    plan = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data)).plan(
        "what is the address of the wireguard interface")
    assert plan.kind == Kind.CLARIFY and not plan.steps
    assert {label for label, _ in plan.options} == {"the interface wg0", "the interface wg1"}
    chosen = plan.options[1][1]
    assert chosen.params["interface"] == "wg1"


def test_queries_only_read(engine) -> None:  # noqa: ANN001
    for said, argv in [("show the routing table", ["ip", "-j", "route"]),
                       ("which dns servers does this box use", ["cat", "/etc/resolv.conf"]),
                       ("ping 192.168.1.1", ["ping", "-c", "4", "-W", "2", "192.168.1.1"]),
                       ("what is listening on this box", ["ss", "-H", "-tulnp"]),
                       ("interface statistics for enp3s0",
                        ["ip", "-j", "-s", "link", "show", "dev", "enp3s0"]),
                       ("addresses of docker0", ["ip", "-j", "addr", "show", "dev", "docker0"]),
                       # an alias of the interface ("the wireless card") names it too
                       ("Which is the MAC address of the wireless card?",
                        ["ip", "-j", "addr", "show", "dev", "wlp2s0"]),
                       ("show the firewall rules with their numbers",
                        ["sudo", "-n", "ufw", "status", "numbered"]),
                       ("show the firewall rules", ["sudo", "-n", "ufw", "status", "verbose"])]:
        plan = engine.plan(said)
        assert plan.kind == Kind.QUERY, (said, plan.text())
        assert plan.read_only, said
        assert argv in [s.argv for s in plan.steps], (said, [s.argv for s in plan.steps])


def test_firewall_changes(engine) -> None:  # noqa: ANN001
    plan = engine.plan("open port 8080 in the firewall")
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "ufw", "allow", "8080/tcp"]]
    assert plan.steps[0].target.kind == "firewall"
    plan = engine.plan("block port 23")
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "ufw", "deny", "23/tcp"]]
    plan = engine.plan("ban 203.0.113.7 from this machine")
    assert [s.argv for s in plan.steps] == [
        ["sudo", "-n", "ufw", "prepend", "deny", "from", "203.0.113.7"]]
    plan = engine.plan("delete the firewall rule for port 8080")
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "ufw", "delete", "allow", "8080/tcp"]]


def test_a_host_that_is_no_host_never_reaches_ping(engine) -> None:  # noqa: ANN001
    for said in ["ping $(id)", "ping a;reboot"]:
        plan = engine.plan(said)
        for step in plan.steps:
            assert "-f" not in step.argv and "$(id)" not in step.argv, (said, step.argv)
            assert not any(";" in a for a in step.argv), (said, step.argv)
    # typed as a command line, the flood is the person's own command, not a host put into
    # the ping recipe: judged by the risk engine, shown with why, and asked, never run
    plan = engine.plan("ping -f 1.1.1.1")
    assert plan.source == "typed" and plan.needs_approval and not plan.read_only
    assert any("floods" in r for s in plan.steps for r in s.risk_reasons), plan.steps


def test_the_dns_cache_is_flushed_and_only_with_dns_said(engine) -> None:  # noqa: ANN001
    plan = engine.plan("flush the dns cache")
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "resolvectl", "flush-caches"]]
    assert plan.needs_approval
    assert not any("resolvectl" in s.command for s in engine.plan("clear the apt cache").steps)


def test_the_tailscale_status_says_the_address_and_the_peers(engine) -> None:  # noqa: ANN001
    plan = engine.plan("what's my tailscale ip")
    assert [s.argv for s in plan.steps] == [["tailscale", "status", "--json"]]
    assert plan.read_only and not plan.needs_approval
    status = {"BackendState": "Running",
              "Self": {"HostName": "heron", "TailscaleIPs": ["100.101.7.12", "fd7a::c"]},
              "Peer": {"a": {"HostName": "phone\x1b[31m", "TailscaleIPs": ["100.70.1.2"],
                             "Online": True},
                       "b": {"HostName": "nas", "TailscaleIPs": ["100.70.1.3"],
                             "Online": False}}}
    text = answers.tailscale([StepResult("s1", True, 0, json.dumps(status))], {}, Voice())
    assert "on its tailnet as heron (100.101.7.12, fd7a::c)" in text
    assert "1 of 2 peers online:" in text and "phone" in text and "\x1b" not in text
    stopped = answers.tailscale([StepResult("s1", True, 0, '{"BackendState": "Stopped"}')],
                                {}, Voice())
    assert "not on its tailnet" in stopped and "tailscale up" in stopped
    from reos.safety.grammar import reads_only

    assert not reads_only(["tailscale", "up"]).ok and not reads_only(["tailscale", "logout"]).ok
