"""ufw as a whole on other machines: turned on, its default for incoming connections set,
a port rate-limited, each with its undo (reos/fleet/deciding.py: `firewall_cuts_ssh`, the
one lock-out test for a step and for its undo in reos/fleet/changing.py, reading the
host's ufw rules with `state_net.lets_in`). No bed: the fleet bed's hosts lack
CAP_NET_ADMIN (tests/test_fleet_firewall.py says why), so the rules a host sends are
written here as ufw prints them; tests/test_bed_firewall.py runs the same commands in
the Debian bed."""

from __future__ import annotations

from typing import Any

import pytest

from reos.execution.rederive import expected_rollbacks
from reos.fleet import changing, deciding, snapshots
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.safety.gate import admit_argv
from reos.store.journal import StepRecord
from reos.system.snapshot import SystemSnapshot

MACHINE = "0123456789abcdef0123456789abcdef"
HEADER = "Added user rules (see 'ufw status' for running firewall):"
INACTIVE = ["Status: inactive"]
ACTIVE = ["Status: active", "Logging: on (low)",
          "Default: allow (incoming), allow (outgoing), deny (routed)", "New profiles: skip",
          "", "To                         Action      From",
          "--                         ------      ----",
          "22/tcp                     ALLOW IN    Anywhere",
          "22/tcp (v6)                ALLOW IN    Anywhere (v6)"]


def _snapshot(status: list[str], added: list[str], defaults: list[str] | None = None,
              **facts: object) -> SystemSnapshot:
    """web1 as reos read it, with ufw's rules read there as root."""
    snap = SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "",
        "host": {"machine_id": MACHINE, "package_manager": "apt", "user": "bob",
                 "hostname": "web1", "ssh_port": 22, "ssh_loopback": False, **facts}})
    answer: dict[str, Any] = {"shadow": {}, "ufw_status": status,
                              "ufw_added": [HEADER, *added]}
    if defaults is not None:
        answer["ufw_defaults"] = defaults
    return snapshots.with_root(snap, answer, "web1")


def _step(*words: str, name: str, action: str) -> Step:
    return Step("s1", f"Firewall: {' '.join(words)}", ["sudo", "-n", "ufw", *words],
                target=Target("firewall", name), action=action, needs_root=True)


ENABLE = ("--force", "enable")


def _enable() -> Step:
    return _step(*ENABLE, name="enable", action="enable")


def _default(policy: str) -> Step:
    return _step("default", policy, "incoming", name=f"default {policy} incoming",
                 action="default_policy")


def _limit(port: str) -> Step:
    return _step("limit", port, name=f"limit {port}", action="limit")


def _one(step: Step, snap: SystemSnapshot, port: int | None = 22) -> deciding.Prepared:
    [part] = deciding.prepare({"web1": Plan("x", Kind.ACTION, steps=[step])},
                              {"web1": snap}, "x", {"web1": port})
    return part


def _row(step: Step, part: deciding.Prepared) -> StepRecord:
    assert step.target is not None
    return StepRecord(1, 0, "s1", step.title, step.argv, step.action, step.target.kind,
                      step.target.name, part.priors[0], part.undos[0], True, "done", 0, "",
                      host="web1")


def _undone_there(step: Step, part: deciding.Prepared, *, port_now: bool = False) -> None:
    """`reos undo` derives the recorded undo again, its lock-out test passes (`port_now`:
    once the port the host is reached on then is read), and the gate admits it as an
    undo on a host reached over SSH."""
    row = _row(step, part)
    undo = part.undos[0]
    assert undo is not None and undo in expected_rollbacks(row, "apt")
    assert changing._undo_cuts_ssh(row, undo) is None
    assert changing._needs_port_now(row, undo) is port_now
    assert admit_argv(undo, approved=True, remote=True, undoing=True,
                      ssh_checked=True).allowed


# -- turned on ----------------------------------------------------------------------------
def test_ufw_is_turned_on_where_its_rules_let_ssh_in_and_undo_turns_it_off_again() -> None:
    step = _enable()
    part = _one(step, _snapshot(INACTIVE, ["ufw allow 22/tcp"]))
    assert part.plan is not None, part.left_out
    assert part.priors[0] is not None and part.priors[0]["state"] == "inactive"
    assert part.priors[0]["ssh_ports"] == [22]
    assert part.undos == [["sudo", "-n", "ufw", "disable"]]
    _undone_there(step, part)


def test_ufw_on_already_is_left_alone_with_nothing_to_undo() -> None:
    part = _one(_enable(), _snapshot(ACTIVE, ["ufw allow 22/tcp"]))
    assert part.plan is None and "ufw is on there already" in (part.left_out or "")


@pytest.mark.parametrize(("added", "said"), [
    ([], "no rule of ufw's allows port 22 from anywhere"),
    (["ufw allow 2222/tcp"], "no rule of ufw's allows port 22"),
    (["ufw allow 22/udp"], "no rule of ufw's allows port 22"),
    (["ufw allow from 10.0.0.0/8 to any port 22 proto tcp"], "allows port 22 from anywhere"),
    (["ufw allow OpenSSH"], "a rule reos does not read"),  # an application's ports
    (["ufw allow in on eth0 to any port 22"], "a rule reos does not read"),
    (["ufw limit 22/tcp"], "rate-limits port 22"),
    (["ufw deny 20:30/tcp", "ufw allow 22/tcp"], "comes first and denies port 22"),
    # a ban of one address may be reos's own: where reos comes from is not known there
    (["ufw deny from 203.0.113.5", "ufw allow 22/tcp"], "may deny port 22"),
])
def test_ufw_is_never_turned_on_where_its_rules_may_not_let_ssh_in(
        added: list[str], said: str) -> None:
    part = _one(_enable(), _snapshot(INACTIVE, added))
    assert part.plan is None, part.undos
    assert "it would turn ufw on" in (part.left_out or "") and said in (part.left_out or "")


def test_an_allow_after_rules_about_other_ports_or_udp_proves_it() -> None:
    added = ["ufw deny 23/tcp", "ufw deny 22/udp", "ufw allow 80,443/tcp",
             "ufw allow 20:30/tcp comment 'admin'"]
    assert _one(_enable(), _snapshot(INACTIVE, added)).plan is not None


def test_every_port_reos_reaches_ssh_on_must_be_let_in() -> None:
    # the inventory and SSH_CONNECTION say 2222; 22 is kept too
    only = _snapshot(INACTIVE, ["ufw allow 2222/tcp"], ssh_port=2222)
    part = _one(_enable(), only, port=2222)
    assert part.plan is None and "port 22 from anywhere" in (part.left_out or "")
    both = _snapshot(INACTIVE, ["ufw allow 2222/tcp", "ufw allow 22/tcp"], ssh_port=2222)
    assert _one(_enable(), both, port=2222).priors[0]["ssh_ports"] == [22, 2222]


@pytest.mark.parametrize(("snap", "port", "said"), [
    (_snapshot(INACTIVE, ["ufw allow 22/tcp"], ssh_port=None), 22,
     "does not know which port it reaches the host's SSH on"),
    (_snapshot(INACTIVE, ["ufw allow 22/tcp"], ssh_loopback=True), 22, "a loopback address"),
    (_snapshot(INACTIVE, ["ufw allow 22/tcp"]), None, "ansible_port"),
])
def test_ufw_is_never_turned_on_where_the_ssh_port_is_not_known(
        snap: SystemSnapshot, port: int | None, said: str) -> None:
    part = _one(_enable(), snap, port)
    assert part.plan is None and said in (part.left_out or ""), part.left_out


def test_ufw_is_never_turned_on_where_its_rules_were_not_read() -> None:
    snap = SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "",
        "host": {"machine_id": MACHINE, "package_manager": "apt", "user": "bob",
                 "ssh_port": 22, "ssh_loopback": False}})
    part = _one(_enable(), snapshots.with_root(snap, "sudo wants a password there", "web1"))
    assert part.plan is None
    assert "could not read ufw's rules there as root" in (part.left_out or "")


def test_plain_ufw_enable_and_ufw_turned_off_never_run_on_a_host() -> None:
    snap = _snapshot(INACTIVE, ["ufw allow 22/tcp"])
    plain = _one(_step("enable", name="enable", action="enable"), snap)
    assert "only as `ufw --force enable`" in (plain.left_out or "")
    # "turn off the firewall" there: as ufw's own command, or its service stopped
    off = _one(_step("disable", name="firewall", action="disable"), snap)
    assert off.plan is None and "turning it off" in (off.left_out or "")
    stop = Step("s1", "Stop ufw.service", ["sudo", "-n", "systemctl", "stop", "ufw.service"],
                target=Target("service", "ufw.service"), action="stop", needs_root=True)
    stopped = _one(stop, snap)
    assert stopped.plan is None and "turns off the firewall" in (stopped.left_out or "")


def test_turning_ufw_off_runs_only_as_an_undo() -> None:
    off = ["sudo", "-n", "ufw", "disable"]
    assert "turning it off" in (deciding.firewall_cuts_ssh(off, {22}) or "")
    assert deciding.firewall_cuts_ssh(off, {22}, undoing=True) is None
    assert not admit_argv(off, approved=True, remote=True).allowed  # asked: still refused
    assert admit_argv(off, approved=True, remote=True, undoing=True).allowed


# -- the default for incoming connections --------------------------------------------------
def test_a_default_of_deny_runs_where_ssh_is_let_in_and_undo_sets_the_one_before() -> None:
    step = _default("deny")
    part = _one(step, _snapshot(ACTIVE, ["ufw allow 22/tcp"]))
    assert part.plan is not None, part.left_out
    assert part.priors[0] is not None and part.priors[0]["state"] == "allow"
    assert part.undos == [["sudo", "-n", "ufw", "default", "allow", "incoming"]]
    _undone_there(step, part)


def test_an_inactive_ufws_default_is_read_from_its_file() -> None:
    snap = _snapshot(INACTIVE, ["ufw allow 22/tcp"],
                     ['DEFAULT_INPUT_POLICY="ACCEPT"', 'DEFAULT_OUTPUT_POLICY="ACCEPT"'])
    part = _one(_default("reject"), snap)
    assert part.undos == [["sudo", "-n", "ufw", "default", "allow", "incoming"]]
    unread = _one(_default("reject"), _snapshot(INACTIVE, ["ufw allow 22/tcp"]))
    assert unread.plan is None
    assert "could not read ufw's default policy" in (unread.left_out or "")


def test_a_default_that_is_there_already_is_left_alone() -> None:
    snap = _snapshot(INACTIVE, ["ufw allow 22/tcp"], ['DEFAULT_INPUT_POLICY="DROP"'])
    part = _one(_default("deny"), snap)
    assert part.plan is None and "is deny already" in (part.left_out or "")


def test_a_default_of_deny_never_runs_where_ssh_may_not_be_let_in() -> None:
    part = _one(_default("deny"), _snapshot(ACTIVE, ["ufw allow 80/tcp"]))
    assert part.plan is None
    assert "set ufw's default for incoming traffic to deny" in (part.left_out or "")
    assert "no rule of ufw's allows port 22" in (part.left_out or "")


def test_a_default_whose_undo_would_close_again_is_left_out() -> None:
    # from reject to deny: undo would set reject again, and ufw's rules are not read again
    # before an undo; from deny to allow: undo would deny again
    rejecting = ACTIVE[:2] + ["Default: reject (incoming), allow (outgoing)"] + ACTIVE[3:]
    for step in (_default("deny"), _default("allow")):
        part = _one(step, _snapshot(rejecting, ["ufw allow 22/tcp"]))
        assert part.plan is None, part.undos
        assert "its undo could not be run there" in (part.left_out or "")
        assert "back to reject" in (part.left_out or "")


def test_what_the_host_sends_as_ufws_defaults_is_checked_like_its_rules() -> None:
    snap = _snapshot(INACTIVE, ["ufw allow 22/tcp"], ["DEFAULT_INPUT_POLICY=\x1b[2J"])
    assert "not what ufw lists" in (snap.host.get("firewall_read") or "")


# -- rate limits ---------------------------------------------------------------------------
def test_a_port_reos_does_not_reach_ssh_on_is_rate_limited_with_its_undo() -> None:
    step = _limit("8080/tcp")
    part = _one(step, _snapshot(ACTIVE, ["ufw allow 22/tcp"]))
    assert part.undos == [["sudo", "-n", "ufw", "delete", "limit", "8080/tcp"]]
    _undone_there(step, part, port_now=True)  # deleting a limit: as deleting an allow


def test_a_limit_in_place_of_an_allow_puts_the_allow_back_on_undo() -> None:
    rows = ["80/tcp                     ALLOW IN    Anywhere",
            "80/tcp (v6)                ALLOW IN    Anywhere (v6)"]
    step = _limit("80/tcp")
    part = _one(step, _snapshot(ACTIVE + rows, ["ufw allow 22/tcp", "ufw allow 80/tcp"]))
    assert part.priors[0] is not None and part.priors[0]["replaces"] == "allow 80/tcp"
    assert part.undos == [["sudo", "-n", "ufw", "allow", "80/tcp"]]


@pytest.mark.parametrize(("port", "inventory", "said"), [
    ("22/tcp", 22, "rate-limit port 22, which reos reaches the host's SSH on"),
    ("2200:2300/tcp", 2222, "rate-limit port 2222"),
    ("8080/tcp", None, "ansible_port"),
])
def test_a_port_reos_reaches_ssh_on_or_any_when_not_known_is_never_rate_limited(
        port: str, inventory: int | None, said: str) -> None:
    snap = _snapshot(ACTIVE, ["ufw allow 22/tcp"], ssh_port=inventory or 22)
    part = _one(_limit(port), snap, inventory)
    assert part.plan is None and said in (part.left_out or ""), part.left_out


def test_an_undo_deleting_a_limit_of_the_port_ssh_is_on_now_is_refused() -> None:
    step = _limit("2222/tcp")
    row = StepRecord(1, 0, "s1", step.title, step.argv, "limit", "firewall", "limit 2222/tcp",
                     {"state": "absent", "rule": "limit 2222/tcp", "ssh_ports": [22, 2222]},
                     ["sudo", "-n", "ufw", "delete", "limit", "2222/tcp"], True, "done", 0, "")
    assert row.rollback in expected_rollbacks(row, "apt")
    assert "stop rate-limiting port 2222" in (changing._undo_cuts_ssh(row, row.rollback or [])
                                              or "")
