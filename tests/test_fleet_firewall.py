"""Firewall rules changed on other machines, with undo (reos/fleet/deciding.py: a ufw
rule's prior state from ufw's rules read there as root, reos/system/portable.py:
`ufw_rules`, checked by reos/fleet/snapshots.py: `with_root`; `firewall_cuts_ssh`, the
one lock-out test for a step and for its undo in reos/fleet/changing.py). No bed: the
fleet bed's hosts lack CAP_NET_ADMIN, so `ufw status` cannot run there (iptables is
refused); the runner is replaced and its answers faked, as in test_fleet_root_read.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reos.execution.rederive import expected_rollbacks
from reos.fleet import changing, deciding, snapshots
from reos.fleet.inventory import Source
from reos.fleet.running import Result, Run, Task
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.store.journal import StepRecord
from reos.system import portable
from reos.system.snapshot import SystemSnapshot
from reos.system.state_net import ufw_rule, ufw_state
from tests.fleet_fakes import OneStepEngine

MACHINE = "0123456789abcdef0123456789abcdef"
ACTIVE = ["Status: active", "", "To                         Action      From",
          "--                         ------      ----",
          "22/tcp                     ALLOW       Anywhere",
          "3306/tcp                   ALLOW       Anywhere",
          "22/tcp (v6)                ALLOW       Anywhere (v6)",
          "3306/tcp (v6)              ALLOW       Anywhere (v6)"]
ADDED = ["Added user rules (see 'ufw status' for running firewall):",
         "ufw allow 22/tcp", "ufw allow 3306/tcp"]
ROOT = {"shadow": {}, "ufw_status": ACTIVE, "ufw_added": ADDED}


def _snapshot(answer: dict[str, Any] | str | None = None, **facts: object) -> SystemSnapshot:
    snap = SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "",
        "host": {"machine_id": MACHINE, "package_manager": "apt", "user": "bob",
                 "hostname": "web1", "ssh_port": 22, "ssh_loopback": False, **facts}})
    return snapshots.with_root(snap, ROOT if answer is None else answer, "web1")


def _step(*words: str, name: str | None = None, action: str | None = None) -> Step:
    rule = name if name is not None else " ".join(
        words[1:] if words[0] == "delete" else words)
    return Step("s1", f"Firewall: {' '.join(words)}", ["sudo", "-n", "ufw", *words],
                target=Target("firewall", rule), action=action or (
                    "delete_rule" if words[0] == "delete" else words[0]), needs_root=True)


def _one(step: Step, snap: SystemSnapshot | None = None,
         port: int | None = 22) -> deciding.Prepared:
    """`step` decided on web1, whose inventory gives Ansible `port` (None: not known)."""
    [part] = deciding.prepare({"web1": Plan("x", Kind.ACTION, steps=[step])},
                              {"web1": snap or _snapshot()}, "x", {"web1": port})
    return part


def _record(step: Step, part: deciding.Prepared) -> StepRecord:
    assert step.target is not None
    return StepRecord(1, 0, "s1", step.title, step.argv, step.action, step.target.kind,
                      step.target.name, part.priors[0], part.undos[0], True, "done", 0, "",
                      host="web1")


@pytest.mark.parametrize(("words", "prior", "undo"), [
    (("allow", "8080/tcp"), "absent", ["delete", "allow", "8080/tcp"]),
    (("deny", "3306/tcp"), "absent", ["allow", "3306/tcp"]),  # ufw updates it in place
    (("delete", "allow", "3306/tcp"), "present", ["allow", "3306/tcp"]),
    (("deny", "from", "203.0.113.7", "to", "any", "port", "8080", "proto", "tcp"), "absent",
     ["delete", "deny", "from", "203.0.113.7", "to", "any", "port", "8080", "proto", "tcp"]),
])
def test_a_ufw_rule_runs_on_a_host_with_the_undo_this_machine_works_out(
        words: tuple[str, ...], prior: str, undo: list[str]) -> None:
    step = _step(*words)
    part = _one(step)
    assert part.plan is not None, part.left_out
    assert part.undos == [["sudo", "-n", "ufw", *undo]]
    recorded = part.priors[0]
    assert recorded is not None and recorded["state"] == prior and recorded["active"]
    assert recorded["ssh_ports"] == [22] and recorded["machine_id"] == MACHINE
    # `reos undo` derives it again from the journal row, and would run it
    row = _record(step, part)
    assert part.undos[0] in expected_rollbacks(row, "apt")
    assert changing._undo_cuts_ssh(row, part.undos[0]) is None


def test_an_inactive_ufws_rules_are_read_from_what_it_has_added() -> None:
    # `ufw status` lists no rule while ufw is off: a rule added before is there all the
    # same, so adding it again changes nothing, and undo must not delete it
    snap = _snapshot({**ROOT, "ufw_status": ["Status: inactive"],
                      "ufw_added": [*ADDED, "ufw allow 8080/tcp"]})
    part = _one(_step("allow", "8080/tcp"), snap)
    assert part.plan is None
    assert "the rule is there already" in (part.left_out or "")
    done = _one(_step("allow", "9090/tcp"), snap)
    assert done.undos == [["sudo", "-n", "ufw", "delete", "allow", "9090/tcp"]]


@pytest.mark.parametrize(("words", "said"), [
    (("deny", "22/tcp"), "deny port 22, which reos reaches the host's SSH on"),
    (("deny", "20:30/tcp"), "deny port 22"),
    (("deny", "80,22/tcp"), "deny port 22"),
    (("insert", "1", "deny", "22/tcp"), "deny port 22"),
    (("deny", "from", "203.0.113.7"), "every port from an address"),
    (("deny", "from", "10.0.0.0/8", "to", "any", "port", "22", "proto", "tcp"),
     "deny port 22"),
    (("delete", "allow", "22/tcp"), "stop allowing port 22"),
    (("allow", "20:30/tcp"), "its undo could not be run there: it would stop allowing "
                               "port 22"),
    (("enable",), "only as `ufw --force enable`"),  # plain, it gives up under SSH
    (("default", "deny", "outgoing"), "other defaults"),
    (("reset",), "a reset"),
    (("--force", "reset"), "a reset"),
    (("disable",), "turning it off"),
    (("limit", "22/tcp"), "rate-limit port 22, which reos reaches the host's SSH on"),
    (("limit", "20:30/tcp"), "rate-limit port 22"),
    (("reject", "3306/tcp"), "reject rules"),
    (("delete", "1"), "a rule by number"),
])
def test_a_firewall_change_that_could_cut_ssh_is_left_out_with_why(
        words: tuple[str, ...], said: str) -> None:
    step = _step(*words, name=" ".join(words), action="allow")
    part = _one(step)
    assert part.plan is None, part.undos
    assert said in (part.left_out or ""), part.left_out


def test_the_port_reos_reached_the_host_on_counts_and_an_unknown_one_stops_any_deny() -> None:
    part = _one(_step("deny", "2222/tcp"), _snapshot(ssh_port=2222), port=2222)
    assert "deny port 2222, which reos reaches the host's SSH on" in (part.left_out or "")
    unknown = _one(_step("deny", "3306/tcp"), _snapshot(ssh_port=None))
    assert "does not know which port it reaches the host's SSH on" in (unknown.left_out or "")
    # its undo deletes a rule that allows a port, which could be the one SSH is on
    opened = _one(_step("allow", "8080/tcp"), _snapshot(ssh_port=None))
    assert "its undo could not be run there" in (opened.left_out or "")


def test_a_reset_or_ufw_turned_off_is_left_out_even_when_the_request_asks_for_it() -> None:
    # the gate lets a request that names it turn the firewall off or reset it; on a host
    # reos reaches over SSH, it never runs
    for words in (("reset",), ("disable",), ("--force", "reset")):
        step = _step(*words, name="firewall", action="reset")
        [part] = deciding.prepare({"web1": Plan("x", Kind.ACTION, steps=[step])},
                                  {"web1": _snapshot()}, f"{words[-1]} the firewall")
        assert "turning it off, a reset" in (part.left_out or ""), part.left_out


@pytest.mark.parametrize("argv", [
    ["sudo", "-n", "nft", "add", "rule", "inet", "filter", "input", "tcp", "dport", "8080",
     "accept"],
    ["sudo", "-n", "firewall-cmd", "--add-port=8080/tcp"],
])
def test_nftables_and_firewalld_are_left_out_on_hosts(argv: list[str]) -> None:
    step = Step("s1", "Open 8080", argv, target=Target("firewall", "allow 8080/tcp"),
                action="allow", needs_root=True)
    assert "through ufw only" in (_one(step).left_out or "")


@pytest.mark.parametrize("name", [
    "allow 8080/tcp\nallow 22/tcp",  # the target's name is not the command's rule
    "allow 8080/tcp; ufw reset",
    "allow 9090/tcp",
])
def test_a_rule_named_otherwise_than_its_command_is_left_out(name: str) -> None:
    part = _one(_step("allow", "8080/tcp", name=name))
    assert part.plan is None and "not the one its command changes" in (part.left_out or "")


@pytest.mark.parametrize(("answer", "said"), [
    ({**ROOT, "ufw_status": ["Status: active", "8080/tcp ALLOW Anywhere\nufw reset"]},
     "not what ufw lists"),
    ({**ROOT, "ufw_status": ["Status: active", "22/tcp ALLOW Anywhere\x1b[2J"]},
     "not what ufw lists"),
    ({**ROOT, "ufw_status": ["22/tcp ALLOW Anywhere"] * (portable.UFW_LINES + 1)},
     "not what ufw lists"),
    ({**ROOT, "ufw_status": ["x" * 5000]}, "not what ufw lists"),
    ({**ROOT, "ufw_status": "Status: active"}, "not what ufw lists"),
    ({**ROOT, "ufw_added": [1, 2]}, "not what ufw lists"),
    ({"shadow": {}, "ufw_error": "ufw is not installed"},
     "ufw's rules could not be read there (ufw is not installed)"),
    ({"shadow": {}}, "reos could not read ufw's rules there"),
    ("sudo wants a password there", "(sudo wants a password there)"),
])
def test_a_hosts_answer_that_is_not_ufws_rules_leaves_the_change_out(
        answer: dict[str, Any] | str, said: str) -> None:
    part = _one(_step("allow", "8080/tcp"), _snapshot(answer))
    assert part.plan is None, part.undos
    assert said in (part.left_out or ""), part.left_out


def test_a_forged_or_stale_undo_that_could_cut_ssh_is_refused_by_reos_undo() -> None:
    step = _step("delete", "deny", "22/tcp")  # its undo puts a deny of SSH back
    row = StepRecord(1, 0, "s1", step.title, step.argv, "delete_rule", "firewall",
                     "deny 22/tcp", {"state": "present", "rule": "deny 22/tcp",
                                     "ssh_ports": [22]},
                     ["sudo", "-n", "ufw", "deny", "22/tcp"], True, "done", 0, "")
    assert row.rollback in expected_rollbacks(row, "apt")  # derived, yet never run
    assert "deny port 22" in (changing._undo_cuts_ssh(row, row.rollback or []) or "")
    row.prior_state = {"state": "present", "rule": "deny 3306/tcp"}  # no ports recorded
    assert "does not say which port" in (
        changing._undo_cuts_ssh(row, ["ufw", "deny", "3306/tcp"]) or "")
    assert changing._undo_cuts_ssh(row, ["ufw", "delete", "deny", "3306/tcp"]) is None


def test_portables_root_part_reads_ufw_only_when_asked(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    import json
    import sys

    asked: list[list[str]] = []

    def tool(argv: list[str], timeout: float = 0) -> str:
        asked.append(argv)
        return "\n".join(ACTIVE if argv[1] == "status" else ADDED) + "\n"

    monkeypatch.setattr(portable, "run_tool", tool)
    assert portable.ufw_rules() == {"ufw_status": ACTIVE, "ufw_added": ADDED}
    monkeypatch.setattr(portable, "run_tool", lambda argv, timeout=0: "x\n" * 5000)
    assert "more than" in portable.ufw_rules()["ufw_error"]
    monkeypatch.setattr(portable, "run_tool", tool)
    monkeypatch.setattr(portable.os, "geteuid", lambda: 0)
    monkeypatch.setattr(portable, "shadow", lambda: {})
    for args, wanted in (({"read": "root"}, False), ({"read": "root", "firewall": True}, True)):
        path = tmp_path / "args.json"
        path.write_text(json.dumps(args))
        monkeypatch.setattr(sys, "argv", ["reos_snapshot", str(path)])
        with pytest.raises(SystemExit):
            portable.main()
        assert ("ufw_status" in json.loads(capsys.readouterr().out)) is wanted
    monkeypatch.setenv("SSH_CONNECTION", "203.0.113.9 51234 198.51.100.2 2222")
    assert portable.ssh_port() == 2222
    monkeypatch.setenv("SSH_CONNECTION", "203.0.113.9 51234 198.51.100.2 22x")
    assert portable.ssh_port() is None


def test_a_firewall_plan_reads_ufws_rules_as_root_on_its_hosts_then_decides(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from reos.on_hosts import decide

    given: list[list[Task]] = []

    def run(source: Source, hosts: Any, tasks: list[Task], *, on_result: Any = None,
            **_: Any) -> Run:
        given.append(tasks)
        for name in hosts:
            on_result(Result(name, tasks[0].name, "ok", returned=ROOT))
        return Run(tuple(hosts), status="successful")

    monkeypatch.setattr(snapshots, "run", run)
    hosts = tmp_path / "hosts.ini"
    hosts.write_text("[web]\nweb1 ansible_host=192.0.2.10\nweb2 ansible_port=22\n")
    source = Source((hosts,), "test")
    bare = SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "",
        "host": {"machine_id": MACHINE, "package_manager": "apt", "user": "bob",
                 "ssh_port": 22, "ssh_loopback": False}})
    parts = decide(OneStepEngine(_step("allow", "8080/tcp")), source,  # type: ignore[arg-type]
                   "allow port 8080/tcp", {"web1": bare, "web2": bare})
    [tasks] = given
    assert [t.args for t in tasks] == [{"read": "root", "firewall": True, "ssh_ports": [22]}]
    assert tasks[0].become
    assert [p.undos for p in parts] == [[["sudo", "-n", "ufw", "delete", "allow",
                                          "8080/tcp"]]] * 2


# -- what ufw's text says about a rule: direction, comments, address families, ports --------
HEAD = ["Status: active", "", "To                         Action      From",
        "--                         ------      ----",
        "22/tcp                     ALLOW       Anywhere"]
TAIL = ["22/tcp (v6)                ALLOW       Anywhere (v6)"]


@pytest.mark.parametrize(("rows", "words"), [
    # an outgoing rule is not an incoming one: denying 8080 in would not replace it, and
    # undo must not open 8080 in
    (["8080/tcp                   ALLOW OUT   Anywhere",
      "8080/tcp (v6)              ALLOW OUT   Anywhere (v6)"], ("deny", "8080/tcp")),
    (["5432/tcp                   DENY OUT    Anywhere",
      "5432/tcp (v6)              DENY OUT    Anywhere (v6)"], ("allow", "5432/tcp")),
    # a routed rule is no incoming one either: deleting "allow 8080/tcp" deletes nothing
    (["8080/tcp                   ALLOW FWD   Anywhere",
      "8080/tcp (v6)              ALLOW FWD   Anywhere (v6)"], ("delete", "allow", "8080/tcp")),
])
def test_an_outgoing_or_routed_rule_for_the_same_port_leaves_the_change_out(
        rows: list[str], words: tuple[str, ...]) -> None:
    part = _one(_step(*words), _snapshot({**ROOT, "ufw_status": HEAD + rows[:1] + TAIL
                                          + rows[1:]}))
    assert part.plan is None, part.undos
    assert "ufw has another rule for the same match there" in (part.left_out or "")
    rule = " ".join(words[1:] if words[0] == "delete" else words)
    assert ufw_state(rule, "\n".join(HEAD + rows[:1] + TAIL + rows[1:]))["state"] == "unknown"


def test_an_incoming_rule_in_verbose_status_reads_as_present() -> None:
    text = "\n".join(["Status: active", "Logging: on (low)",
                      "Default: deny (incoming), allow (outgoing), disabled (routed)", "",
                      "To                         Action      From",
                      "--                         ------      ----",
                      "22/tcp                     ALLOW IN    Anywhere",
                      "8080/tcp                   ALLOW IN    Anywhere                   # web",
                      "22/tcp (v6)                ALLOW IN    Anywhere (v6)",
                      "8080/tcp (v6)              ALLOW IN    Anywhere (v6)              # web"])
    assert ufw_state("allow 8080/tcp", text)["state"] == "present"
    assert ufw_state("deny 8080/tcp", text)["replaces"] == "allow 8080/tcp"


INACTIVE = ["Status: inactive"]


@pytest.mark.parametrize(("line", "state"), [
    ("ufw allow 8080/tcp comment 'web'", "present"),
    ("ufw allow 8080/tcp", "present"),
    ("ufw allow out 8080/tcp", "unknown"),
    ("ufw allow in on eth0 to any port 8080 proto tcp comment 'web'", "absent"),  # another
    ("ufw limit 8080/tcp", "unknown"),
    ("ufw allow 8080/tcp comment 'web' log", "unknown"),
])
def test_an_inactive_ufws_rule_with_a_comment_is_there_and_other_words_are_not_known(
        line: str, state: str) -> None:
    added = ["Added user rules (see 'ufw status' for running firewall):",
             "ufw allow 22/tcp", line]
    assert ufw_state("allow 8080/tcp", "\n".join(INACTIVE), added)["state"] == state


def test_a_commented_rule_on_an_inactive_ufw_is_never_deleted_by_undo() -> None:
    snap = _snapshot({**ROOT, "ufw_status": INACTIVE,
                      "ufw_added": [*ADDED, "ufw allow 8080/tcp comment 'web'"]})
    part = _one(_step("allow", "8080/tcp"), snap)
    assert part.plan is None and "the rule is there already" in (part.left_out or "")
    denied = _one(_step("deny", "8080/tcp"), snap)
    assert denied.undos == [["sudo", "-n", "ufw", "allow", "8080/tcp"]]  # not deleted
    other = _one(_step("deny", "8080/tcp"), _snapshot(
        {**ROOT, "ufw_status": INACTIVE, "ufw_added": [*ADDED, "ufw allow out 8080/tcp"]}))
    assert other.plan is None and "another rule for the same match" in (other.left_out or "")


@pytest.mark.parametrize("words", [("allow", "8080/tcp"), ("deny", "8080/tcp"),
                                   ("delete", "allow", "8080/tcp")])
def test_a_rule_there_for_one_address_family_only_leaves_the_change_out(
        words: tuple[str, ...]) -> None:
    for row in ("8080/tcp (v6)              ALLOW       Anywhere (v6)",):
        part = _one(_step(*words), _snapshot({**ROOT, "ufw_status": HEAD + TAIL + [row]}))
        assert part.plan is None, part.undos
        assert "IPv4 only or IPv6 only" in (part.left_out or "")
    v4 = ["8080/tcp                   ALLOW       Anywhere"]
    part = _one(_step(*words), _snapshot({**ROOT, "ufw_status": HEAD + v4 + TAIL}))
    assert part.plan is None and "IPv4 only or IPv6 only" in (part.left_out or "")
    # where ufw has no IPv6 rule at all (IPV6=no), IPv4's rows say it
    assert ufw_state("allow 8080/tcp", "\n".join(HEAD + v4))["state"] == "present"


@pytest.mark.parametrize("ports", ["20:30:40/tcp", "30:20/tcp", "20:20/tcp", "0/tcp",
                                   "70000/tcp", "80,0/tcp", "\u0662\u0662/tcp", "8080:/tcp"])
def test_ports_ufw_would_not_take_are_left_out_not_raised(ports: str) -> None:
    assert ufw_rule(f"deny {ports}") is None and ufw_rule(f"allow {ports}") is None
    for words in (("deny", ports), ("allow", ports), ("delete", "allow", ports)):
        part = _one(_step(*words))
        assert part.plan is None and part.left_out, part.undos


def test_a_hosts_words_reos_fails_on_leave_that_host_out_not_the_decision(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(*_: Any) -> None:
        raise ValueError("not a number")

    monkeypatch.setattr(deciding, "prior_state", fails)
    parts = deciding.prepare({"web1": Plan("x", Kind.ACTION, steps=[_step("allow", "8080/tcp")]),
                              "web2": Plan("x", Kind.ACTION, steps=[])},
                             {"web1": _snapshot(), "web2": _snapshot()}, "x")
    assert [p.host for p in parts] == ["web1", "web2"]
    said = parts[0].left_out or ""
    # said in words, with what to do; the exception's own text is logged, never shown
    assert said.startswith("Working out its change failed because of a problem in reos")
    assert "reos doctor" in said and "not a number" not in said and "ValueError" not in said


# -- the port reos reaches SSH on: the inventory's, SSH_CONNECTION's, now and at undo -------
def test_the_inventorys_port_is_kept_and_a_proxied_or_differing_one_stops_any_deny() -> None:
    # sslh or haproxy on 443 passes SSH on to sshd on 22: SSH_CONNECTION says 22
    proxied = _one(_step("deny", "443/tcp"), _snapshot(ssh_port=22), port=443)
    assert proxied.plan is None
    assert "reos connects to port 443 (the inventory's)" in (proxied.left_out or "")
    # the same port both ways is kept, 22 too
    both = _one(_step("deny", "443/tcp"), _snapshot(ssh_port=443), port=443)
    assert "deny port 443, which reos reaches the host's SSH on" in (both.left_out or "")
    assert _one(_step("deny", "22/tcp"), _snapshot(ssh_port=443), port=443).plan is None
    # a session a proxy on the host passed on comes from loopback: the port is not known
    looped = _one(_step("deny", "8080/tcp"), _snapshot(ssh_loopback=True))
    assert "a loopback address" in (looped.left_out or "")
    unread = _one(_step("deny", "8080/tcp"), _snapshot(ssh_loopback=None))
    assert "whether a proxy passed the session on" in (unread.left_out or "")
    untold = _one(_step("delete", "allow", "3306/tcp"), port=None)
    assert "ansible_port" in (untold.left_out or "")
    # adding an allow (its undo deletes only it, and only once the port is known) runs
    opened = _one(_step("allow", "8080/tcp"), _snapshot(ssh_port=443), port=443)
    assert opened.plan is not None and opened.priors[0]["ssh_ports"] == [22, 443]


def test_ssh_connection_says_whether_a_proxy_on_the_host_passed_the_session_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for said, loopback in (("203.0.113.9 51234 198.51.100.2 22", False),
                           ("127.0.0.1 40000 127.0.0.1 22", True),
                           ("::1 40000 ::1 22", True),
                           ("::ffff:127.0.0.1 40000 ::ffff:127.0.0.1 22", True),
                           ("", None)):
        monkeypatch.setenv("SSH_CONNECTION", said)
        assert portable.ssh_loopback() is loopback
        assert deciding.ssh_connection(said)[1] is loopback
    assert deciding.ssh_connection("203.0.113.9 51234 198.51.100.2 2222\n") == (2222, False)
    assert deciding.ssh_connection("203.0.113.9 51234 198.51.100.2 \u0662\u0662") == (
        None, None)


def test_the_inventory_gives_each_hosts_ssh_port(tmp_path: Path) -> None:
    from reos.fleet.inventory import ssh_ports

    hosts = tmp_path / "hosts.ini"
    hosts.write_text("[web]\nweb1\nweb2 ansible_port=2222\nweb3 ansible_port='{{ p }}'\n"
                     "[db]\ndb1 ansible_ssh_port=2200\n")
    assert ssh_ports(Source((hosts,), "test"), ["web1", "web2", "web3", "db1", "gone"]) == {
        "web1": 22, "web2": 2222, "web3": None, "db1": 2200, "gone": None}
    assert ssh_ports(Source((tmp_path / "none.ini",), "test"), ["web1"]) == {"web1": None}


def _undo_allow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, port: str | None,
                reached: str | None) -> tuple[list[tuple[str, str]], list[list[str]]]:
    """"allow 2222/tcp" made on web1 while SSH was on 22, undone with the inventory
    giving `port` and the host's SSH_CONNECTION saying `reached` (None: not read)."""
    from reos import paths
    from reos.store.db import Database
    from reos.store.journal import COMPLETED, FLEET, Journal

    hosts = tmp_path / "hosts.ini"
    hosts.write_text("web1" + (f" ansible_port={port}" if port else "") + "\n")
    step = _step("allow", "2222/tcp")
    part = _one(step)
    assert part.priors[0]["ssh_ports"] == [22] and part.undos[0]
    journal = Journal(Database(paths.database_file()))
    tx = journal.begin("allow 2222", kind=FLEET, inventory=[str(hosts)])
    journal.begin_step(tx, 0, "s1", step.title, step.argv, action="allow",
                       target_kind="firewall", target_name="allow 2222/tcp",
                       prior_state=part.priors[0], rollback=part.undos[0], host="web1",
                       status="done")
    journal.finish(tx, COMPLETED)
    ran: list[list[str]] = []

    def run(source: Source, names: Any, tasks: list[Task], *, on_result: Any = None,
            **_: Any) -> Run:
        for task in tasks:
            ran.append(task.args["argv"])
            if task.args["argv"][:1] == ["printenv"] and reached is None:
                result = Result("web1", task.name, "failed", "printenv: exit 1", {"rc": 1})
            else:
                result = Result("web1", task.name, "ok", "",
                                {"rc": 0, "stdout": reached or ""})
            on_result(result)
        return Run(tuple(names), status="successful", ended=True)

    monkeypatch.setattr(changing, "run", run)
    record = journal.transaction(tx)
    assert record is not None
    undone = changing.undo(journal, record)
    assert undone is not None
    return undone.hosts[0].steps, ran


def test_undo_keeps_the_port_ssh_is_on_now_not_only_the_one_recorded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # sshd moved to 2222 after the change: deleting "allow 2222/tcp" would cut SSH
    steps, ran = _undo_allow(tmp_path, monkeypatch, "2222",
                             "203.0.113.9 51234 198.51.100.2 2222")
    assert "refused: it would stop allowing port 2222" in steps[0][1], steps
    assert ["ufw", "delete", "allow", "2222/tcp"] not in ran
    assert ["printenv", "SSH_CONNECTION"] in ran


@pytest.mark.parametrize(("port", "reached", "said"), [
    (None, None, "does not know which port it reaches"),  # not read
    ("2222", "203.0.113.9 51234 198.51.100.2 22", "reos connects to port 2222"),
    (None, "127.0.0.1 40000 127.0.0.1 22", "a loopback address"),
    ("'{{ p }}'", "203.0.113.9 51234 198.51.100.2 22", "ansible_port"),
])
def test_undo_refuses_a_deletion_of_an_allow_when_the_port_now_is_not_known(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, port: str | None,
        reached: str | None, said: str) -> None:
    steps, ran = _undo_allow(tmp_path, monkeypatch, port, reached)
    assert steps[0][1].startswith("refused:") and said in steps[0][1], steps
    assert ["ufw", "delete", "allow", "2222/tcp"] not in ran


def test_undo_runs_when_the_port_now_is_known_and_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    steps, ran = _undo_allow(tmp_path, monkeypatch, None, "203.0.113.9 51234 198.51.100.2 22")
    assert steps == [("Firewall: allow 2222/tcp", "undone")]
    assert ran[-1] == ["ufw", "delete", "allow", "2222/tcp"]


@pytest.mark.parametrize(("written", "kept"), [
    ("10.0.0.5/32", "10.0.0.5"), ("10.0.0.7/24", "10.0.0.0/24"),
    ("2001:DB8::1", "2001:db8::1")])
def test_an_address_ufw_would_keep_in_another_form_is_never_read_as_absent(
        written: str, kept: str) -> None:
    """ufw keeps addresses in one form: a rule named otherwise is never matched against
    its list, so reading it as absent would give an undo that deletes the rule the person
    already had. Its state is unknown, saying the form ufw keeps."""
    from reos.system.state_net import ufw_state

    status = ("Status: active\n\nTo                         Action      From\n"
              "--                         ------      ----\n"
              f"8080/tcp                   ALLOW       {kept}\n")
    name = f"allow from {written} to any port 8080 proto tcp"
    state = ufw_state(name, status)
    assert state["state"] == "unknown", state
    assert kept in state["reason"]
    same = ufw_state(f"allow from {kept} to any port 8080 proto tcp", status)
    assert same["state"] == "present", same
