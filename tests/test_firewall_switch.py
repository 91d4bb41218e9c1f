"""ufw as a whole on this machine: turning it on, its default for incoming connections, a
port rate-limited, its rules loaded again (templates/firewall.toml: firewall.enable,
firewall.default_policy, firewall.limit, firewall.reload), what each undoes
(reos/system/state_net.py) and the lock-out rules over SSH (reos/safety/rules_network.py:
turning ufw on, or denying by default, only when its rules let the session's port in;
never a rate limit of that port).

Plans are made against the homelab fixture with its firewall section replaced; ufw's
rules the lock-out rules read (`ufw show added`, through `state_net.added_now`) are
given here as ufw prints them, since no firewall is changed or read on this machine:
tests/test_bed_firewall.py runs the same commands in the Debian bed, over SSH too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.model.plan import restarts
from reos.model.risk import RiskLevel
from reos.safety.gate import admit_argv
from reos.safety.risk import assess_argv
from reos.settings import Settings
from reos.system import state_net
from reos.system.snapshot import SCHEMA, SystemSnapshot

FIXTURES = Path(__file__).parent / "fixtures"
UFW_OFF = {"backend": "ufw", "active": False, "rules": []}
UFW_ON = {"backend": "ufw", "active": True, "rules": [
    "22/tcp ALLOW IN Anywhere", "80,443/tcp ALLOW IN Anywhere",
    "22/tcp (v6) ALLOW IN Anywhere (v6)", "80,443/tcp (v6) ALLOW IN Anywhere (v6)"]}


def _plan(request: str, firewall: dict[str, object] | None = None):  # noqa: ANN202
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    if firewall is not None:
        data["firewall"] = firewall
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    return engine.plan(request)


# -- what ordinary phrasings plan to ----------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "turn on the firewall", "enable ufw", "activate the firewall", "switch the firewall on",
    "start the firewall", "turn the firewall back on", "turn ufw on", "switch ufw on",
    "start ufw", "turn ufw back on"])
def test_turning_the_firewall_on_is_ufw_force_enable_undone_by_turning_it_off(
        request_: str) -> None:
    plan = _plan(request_, UFW_OFF)
    assert plan.intent is not None and plan.intent.operation == "firewall.enable"
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "ufw", "--force", "enable"]
    assert step.rollback == ["sudo", "-n", "ufw", "disable"]  # it was off: off again
    assert step.target is not None and (step.target.kind, step.target.name) == (
        "firewall", "enable")


def test_turning_on_a_firewall_that_is_on_says_so_and_plans_nothing() -> None:
    plan = _plan("turn on the firewall", UFW_ON)
    assert plan.intent is not None and plan.intent.operation == "firewall.enable"
    assert not plan.steps and "is on already, so there is nothing to do" in plan.text()


@pytest.mark.parametrize(("request_", "policy"), [
    ("deny all incoming connections by default", "deny"),
    ("block all incoming by default", "deny"),
    ("set the default incoming policy to deny", "deny"),
    ("default deny incoming", "deny"),
    ("ufw default deny incoming", "deny"),
    ("reject incoming connections by default", "reject"),
    ("allow incoming by default", "allow"),
])
def test_a_default_for_incoming_connections_is_ufw_default(request_: str, policy: str) -> None:
    plan = _plan(request_, UFW_ON)
    assert plan.intent is not None and plan.intent.operation == "firewall.default_policy"
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "ufw", "default", policy, "incoming"]
    # the default before is not in the snapshot: read just before the step, and said so
    assert step.rollback is None and step.reversible
    from reos.words.conversation import undo_words

    assert "back to the one read just before the step" in undo_words(step)


def test_a_default_not_said_is_asked_for_never_guessed() -> None:
    plan = _plan("set the default incoming policy", UFW_ON)
    assert not plan.steps and plan.question and "policy" in plan.question


@pytest.mark.parametrize(("request_", "port"), [
    ("rate limit ssh", "22"), ("rate limit ssh connections", "22"),
    ("limit connections to port 22", "22"), ("limit ssh", "22"),
    ("throttle connection attempts to port 2222", "2222")])
def test_a_rate_limit_is_ufw_limit_undone_by_deleting_it(request_: str, port: str) -> None:
    plan = _plan(request_, UFW_OFF)
    assert plan.intent is not None and plan.intent.operation == "firewall.limit"
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "ufw", "limit", f"{port}/tcp"]
    assert step.rollback == ["sudo", "-n", "ufw", "delete", "limit", f"{port}/tcp"]


def test_a_limit_takes_the_place_of_the_allow_for_its_port_and_undo_puts_it_back() -> None:
    plan = _plan("rate limit ssh", UFW_ON)
    [step] = plan.steps
    assert step.rollback == ["sudo", "-n", "ufw", "allow", "22/tcp"]
    assert "in place of its rule \u201callow 22/tcp\u201d" in plan.text()
    there = _plan("rate limit ssh", {**UFW_ON, "rules": [
        "22/tcp LIMIT IN Anywhere", "22/tcp (v6) LIMIT IN Anywhere (v6)"]})
    assert not there.steps and "rate-limits 22/tcp already" in there.text()


@pytest.mark.parametrize("request_", ["reload ufw", "reload the firewall rules",
                                      "reload the firewall"])
def test_reloading_the_firewall_is_ufw_reload_with_nothing_to_undo(request_: str) -> None:
    plan = _plan(request_, UFW_ON)
    assert plan.intent is not None and plan.intent.operation == "firewall.reload"
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "ufw", "reload"]
    assert step.nothing_to_restore and not step.reversible
    assert "cannot be undone: there is nothing to restore" in plan.text()
    firewalld = _plan(request_, {"backend": "firewalld", "active": True, "rules": []})
    assert [s.argv for s in firewalld.steps] == [["sudo", "-n", "firewall-cmd", "--reload"]]


@pytest.mark.parametrize(("request_", "backend", "said"), [
    ("turn on the firewall", "firewalld", "firewalld, which is on while its service runs"),
    ("deny all incoming connections by default", "firewalld", "each zone's target decides"),
    ("rate limit ssh", "firewalld", "firewalld, which has no rate limit like ufw's"),
    ("turn on the firewall", "nftables", "nftables, which has no on switch"),
    ("block all incoming by default", "nftables", "each input chain's policy"),
    ("rate limit ssh", "nftables", "no recipe for a rate limit"),
    ("reload the firewall", "nftables", "nftables, which has no reload of its own"),
])
def test_a_backend_with_no_clear_equivalent_says_so_plainly_and_plans_nothing(
        request_: str, backend: str, said: str) -> None:
    plan = _plan(request_, {"backend": backend, "active": True, "rules": []})
    assert not plan.steps and not plan.question
    assert said in plan.text() and "I have not changed anything" in plan.text()


@pytest.mark.parametrize(("request_", "operation", "command"), [
    ("is the firewall on", "firewall.status", "ufw status verbose"),
    ("show the default policy", "firewall.status", "ufw status verbose"),
    ("start nginx", "service.start", None),  # running already: said, nothing planned
    ("turn off the firewall", "service.stop", "systemctl stop ufw.service"),
    ("reload nginx", "service.reload", "systemctl reload nginx.service"),
    ("turn on wlp2s0", "net.interface_up", "ip link set wlp2s0 up"),
    ("limit the journal to 500M", "logs.vacuum", "journalctl --vacuum-size=500M"),
])
def test_near_phrasings_plan_as_before(request_: str, operation: str,
                                       command: str | None) -> None:
    plan = _plan(request_)
    assert plan.intent is not None and plan.intent.operation == operation, plan.text()
    if command:
        assert any(command in s.command for s in plan.steps), plan.text()


# -- state and undo ------------------------------------------------------------------------
def test_the_names_of_ufw_as_a_whole_come_from_their_commands() -> None:
    assert state_net.rule_name(["sudo", "-n", "ufw", "--force", "enable"]) == "enable"
    assert state_net.rule_name(["ufw", "default", "reject"]) == "default reject incoming"
    assert state_net.rule_name(["ufw", "limit", "22/tcp"]) == "limit 22/tcp"
    assert not state_net.valid("firewall", "default deny outgoing")  # not one reos tracks
    assert not state_net.valid("firewall", "--force enable")


VERBOSE = ("Status: active\nLogging: on (low)\n"
           "Default: reject (incoming), allow (outgoing), deny (routed)\n")


@pytest.mark.parametrize(("name", "action", "prior", "undo"), [
    ("enable", "enable", {"state": "inactive"}, ["ufw", "disable"]),
    ("enable", "enable", {"state": "active"}, None),  # on already: nothing to undo
    ("enable", "enable", {"state": "unknown"}, None),
    ("default deny incoming", "default_policy", {"state": "allow"},
     ["ufw", "default", "allow", "incoming"]),
    ("default deny incoming", "default_policy", {"state": "reject"},
     ["ufw", "default", "reject", "incoming"]),
    ("default deny incoming", "default_policy", {"state": "deny"}, None),  # unchanged
    ("default deny incoming", "default_policy", {"state": "; rm -rf /"}, None),
    ("limit 8080/tcp", "limit", {"state": "absent"}, ["ufw", "delete", "limit", "8080/tcp"]),
    ("limit 8080/tcp", "limit", {"state": "absent", "replaces": "allow 8080/tcp"},
     ["ufw", "allow", "8080/tcp"]),
    ("limit 8080/tcp", "limit", {"state": "present"}, None),
])
def test_each_is_undone_from_the_state_recorded_before_it(
        name: str, action: str, prior: dict[str, str], undo: list[str] | None) -> None:
    assert state_net.restore("firewall", name, prior, action) == undo


def test_the_state_before_is_read_from_what_ufw_says() -> None:
    assert state_net.ufw_state("enable", "Status: inactive") == {"state": "inactive"}
    assert state_net.ufw_state("enable", "ERROR: You need to be root")["state"] == "unknown"
    assert state_net.ufw_state("default deny incoming", VERBOSE)["state"] == "reject"
    # off, ufw lists no policy: its file says it; on, the file is never taken instead
    off = state_net.ufw_state("default deny incoming", "Status: inactive",
                              defaults='IPV6=yes\nDEFAULT_INPUT_POLICY="ACCEPT"\n')
    assert off["state"] == "allow"
    assert state_net.ufw_state("default deny incoming", "Status: active",
                               defaults='DEFAULT_INPUT_POLICY="ACCEPT"')["state"] == "unknown"
    limited = "Status: active\n\n22/tcp LIMIT IN Anywhere\n22/tcp (v6) LIMIT IN Anywhere (v6)"
    assert state_net.ufw_state("limit 22/tcp", limited)["state"] == "present"
    # a limit is still no allow: an allow rule's state stays unknown next to it
    assert state_net.ufw_state("allow 22/tcp", limited)["state"] == "unknown"


def test_the_state_after_says_what_did_not_happen() -> None:
    assert state_net.problem("firewall", "enable", {"state": "inactive"}) == "is still off"
    assert state_net.problem("firewall", "enable", {"state": "active"}) is None
    after = state_net.ufw_state("default deny incoming", VERBOSE)
    assert "still has the default policy reject" in (
        state_net.problem("firewall", "default_policy", after) or "")
    assert state_net.problem("firewall", "limit", {"state": "absent", "rule": "limit 22/tcp"})


@pytest.mark.parametrize(("added", "client", "why"), [
    (["ufw allow 22/tcp"], None, None),
    (["ufw allow 22"], None, None),  # every protocol
    (["ufw allow 20:30/tcp comment 'admin'"], None, None),
    (["ufw deny from 203.0.113.5", "ufw allow 22/tcp"], "198.51.100.7", None),
    (["ufw deny from 203.0.113.0/24", "ufw allow 22/tcp"], "203.0.113.9", "may deny port 22"),
    (["ufw deny from 203.0.113.5", "ufw allow 22/tcp"], None, "may deny port 22"),
    (["ufw allow 22/udp"], None, "no rule of ufw's allows port 22"),
    (["ufw allow from 10.0.0.0/8 to any port 22 proto tcp"], "10.1.2.3",
     "no rule of ufw's allows port 22"),  # some addresses only: no proof for everyone
    (["ufw reject 22/tcp", "ufw allow 22/tcp"], None, "rejects port 22"),
    (["ufw allow OpenSSH"], None, "a rule reos does not read"),
    (["(None)"], None, "no rule of ufw's allows port 22"),
])
def test_whether_ufws_rules_let_a_port_in_from_anywhere(
        added: list[str], client: str | None, why: str | None) -> None:
    said = state_net.lets_in(["Added user rules (see 'ufw status' for running firewall):",
                              *added], {22}, client)
    assert (said is None) if why is None else (why in (said or "")), said


# -- the lock-out rules over SSH --------------------------------------------------------------
SESSION = "198.51.100.7 50022 192.0.2.10 22"


def _over_ssh(monkeypatch: pytest.MonkeyPatch, added: list[str] | None,
              session: str = SESSION) -> None:
    monkeypatch.setenv("SSH_CONNECTION", session)
    monkeypatch.setattr(state_net, "added_now", lambda: (
        (added, "") if added is not None else (None, "sudo: a password is required")))


TURNS_ON = [["ufw", "--force", "enable"], ["ufw", "enable"],
            ["ufw", "default", "deny", "incoming"], ["ufw", "default", "reject"]]


@pytest.mark.parametrize("argv", TURNS_ON)
def test_locally_turning_ufw_on_or_denying_by_default_is_an_ordinary_change(
        argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    verdict = assess_argv(argv)
    assert not verdict.blocked and verdict.risk == RiskLevel.MEDIUM, verdict.reasons


@pytest.mark.parametrize("argv", TURNS_ON)
def test_over_ssh_it_runs_only_when_ufws_rules_let_the_sessions_port_in(
        argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _over_ssh(monkeypatch, ["ufw allow 22/tcp"])
    assert not assess_argv(argv).blocked
    _over_ssh(monkeypatch, ["ufw allow 80/tcp"])
    refused = assess_argv(argv)
    assert refused.blocked and "no rule of ufw's allows port 22" in refused.reasons[0]
    # the port the session came in on is the one: 2222 here
    _over_ssh(monkeypatch, ["ufw allow 22/tcp"], "198.51.100.7 50022 192.0.2.10 2222")
    assert "allows port 2222" in assess_argv(argv).reasons[0]
    # and a ban ahead of the allow counts only for the address the session comes from
    _over_ssh(monkeypatch, ["ufw deny from 198.51.100.0/24", "ufw allow 22/tcp"])
    assert assess_argv(argv).blocked
    _over_ssh(monkeypatch, ["ufw deny from 203.0.113.0/24", "ufw allow 22/tcp"])
    assert not assess_argv(argv).blocked
    # the gate, right before it runs, judges the same
    assert admit_argv(["sudo", "-n", *argv], approved=True).allowed


@pytest.mark.parametrize(("session", "added", "said"), [
    (SESSION, None, "could not read ufw's rules (sudo: a password is required)"),
    ("127.0.0.1 40000 127.0.0.1 22", ["ufw allow 22/tcp"], "a loopback address"),
    ("198.51.100.7 50022 192.0.2.10 x", ["ufw allow 22/tcp"], "does not know which port"),
])
def test_over_ssh_what_cannot_be_known_is_refused(
        session: str, added: list[str] | None, said: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _over_ssh(monkeypatch, added, session)
    for argv in TURNS_ON:
        verdict = assess_argv(argv)
        assert verdict.blocked and said in verdict.reasons[0], verdict.reasons
        assert "which could lock you out" in verdict.reasons[0]


def test_over_ssh_asking_for_it_in_so_many_words_does_not_lift_the_block(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _over_ssh(monkeypatch, [])
    assert assess_argv(["ufw", "--force", "enable"], requested="enable ufw").blocked


SERVICE_LOADS = [["systemctl", "start", "ufw"], ["systemctl", "restart", "ufw.service"],
                 ["systemctl", "enable", "--now", "ufw"], ["service", "ufw", "start"],
                 ["ufw", "reload"]]


@pytest.mark.parametrize("argv", SERVICE_LOADS)
def test_over_ssh_ufws_service_started_loads_its_rules_so_is_judged_as_turning_it_on(
        argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # with ENABLED=yes in ufw.conf, starting the unit loads every rule, as `ufw enable` does
    _over_ssh(monkeypatch, ["ufw allow 80/tcp"])
    refused = assess_argv(argv)
    assert refused.blocked and "no rule of ufw's allows port 22" in refused.reasons[0]
    assert "loads" in refused.reasons[0] and "rules" in refused.reasons[0]
    _over_ssh(monkeypatch, ["ufw allow 22/tcp"])
    assert not assess_argv(argv).blocked
    monkeypatch.delenv("SSH_CONNECTION")
    assert not assess_argv(argv).blocked  # locally: an ordinary change


@pytest.mark.parametrize("argv", [
    ["systemctl", "start", "firewalld"], ["systemctl", "restart", "nftables.service"],
    ["systemctl", "reload", "nftables"], ["systemctl", "enable", "netfilter-persistent"],
    ["service", "iptables", "restart"], ["systemctl", "start", "shorewall"],
    ["systemctl", "preset", "firewalld"], ["systemctl", "restart", "ferm"],
    ["firewall-cmd", "--reload"], ["firewall-cmd", "--complete-reload"],
    ["nft", "-f", "/etc/nftables.conf"]])
def test_over_ssh_another_firewalls_service_loading_rules_reos_does_not_read_is_blocked(
        argv: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _over_ssh(monkeypatch, ["ufw allow 22/tcp"])  # ufw's rules say nothing of these
    refused = assess_argv(argv, requested=" ".join(argv[1:]))
    assert refused.blocked and "does not read what those rules let in" in refused.reasons[0]
    # as the undo of reos stopping it, it runs: it was running before
    assert admit_argv(["sudo", "-n", *argv], approved=True, undoing=True).allowed
    monkeypatch.delenv("SSH_CONNECTION")
    assert not assess_argv(argv).blocked


def test_over_ssh_a_rate_limit_of_the_sessions_port_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _over_ssh(monkeypatch, ["ufw allow 22/tcp"])
    for ports in ("22/tcp", "20:30/tcp", "80,22/tcp"):
        verdict = assess_argv(["ufw", "limit", ports])
        assert verdict.blocked and "a burst of new connections" in verdict.reasons[0]
    assert not assess_argv(["ufw", "limit", "8080/tcp"]).blocked
    _over_ssh(monkeypatch, [], "127.0.0.1 40000 127.0.0.1 22")
    assert assess_argv(["ufw", "limit", "8080/tcp"]).blocked  # the port is not known
    monkeypatch.delenv("SSH_CONNECTION")
    assert not assess_argv(["ufw", "limit", "22/tcp"]).blocked  # locally: fine


def test_turning_ufw_off_over_ssh_runs_only_as_the_undo_of_turning_it_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _over_ssh(monkeypatch, [])
    off = ["sudo", "-n", "ufw", "disable"]
    assert not admit_argv(off, approved=True).allowed
    undone = admit_argv(off, approved=True, undoing=True)
    assert undone.allowed and undone.verdict.risk == RiskLevel.HIGH
    # being an undo lifts nothing else: a reset stays a lock-out
    assert not admit_argv(["ufw", "--force", "reset"], approved=True, undoing=True).allowed
    # opening by default is no lock-out: the undo of a default of deny runs
    assert admit_argv(["ufw", "default", "allow", "incoming"], approved=True).allowed


def test_defaults_for_other_traffic_are_never_run_over_ssh(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _over_ssh(monkeypatch, ["ufw allow 22/tcp"])
    assert assess_argv(["ufw", "default", "deny", "outgoing"]).blocked
    assert assess_argv(["ufw", "default", "deny", "routed"]).blocked


def test_the_read_only_grammar_still_refuses_force() -> None:
    # the recipe's `--force` changes how a command that acts behaves: never read-only
    for argv in (["ufw", "--force", "enable"], ["ufw", "--force", "status"]):
        assert not assess_argv(argv).read_only


# -- saying it: a reload restores nothing, plain `ufw enable` asks under SSH --------------------
def test_a_firewall_reload_only_reloads() -> None:
    assert restarts(["sudo", "-n", "ufw", "reload"])
    assert restarts(["firewall-cmd", "--reload"])
    assert not restarts(["firewall-cmd", "--reload", "--add-port=1/tcp"])
    assert not restarts(["firewall-cmd", "--complete-reload"])
    assert not restarts(["ufw", "enable"])


def test_plain_ufw_enable_is_named_as_asking_at_a_prompt() -> None:
    from reos.model.plan import Step
    from reos.planning.quality_commands import step_findings

    found, _, _ = step_findings(Step("s1", "x", ["ufw", "enable"]), "model", "")
    assert "interactive" in {a.name for a in found}
    forced, _, _ = step_findings(Step("s1", "x", ["ufw", "--force", "enable"]), "model", "")
    assert "interactive" not in {a.name for a in forced}
