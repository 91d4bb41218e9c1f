"""A request planned on several hosts, run there through Ansible and undone there
(reos/commands/fleet_plan.py, reos/fleet/snapshots.py, changing.py, `reos undo --host`),
on the fleet bed: web1, web2 and db1 over real SSH (tests/fleet_bed.py). Each change is
looked at from outside (docker exec), never through reos. The unit tests at the end need
no bed: what reos reads of a host from its snapshot, and that this machine's undo never
takes a change made on other machines.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos import paths
from reos.errors import EXIT_DECLINED, EXIT_NOTHING, EXIT_OK
from reos.execution.package_sim import Simulation
from reos.fleet import changing, deciding, snapshots
from reos.fleet.inventory import Source
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.target import Target
from reos.store.db import Database
from reos.store.journal import FLEET, Journal
from reos.system.snapshot import Package, Process, Service, SystemSnapshot, User
from tests.conftest import reos

MACHINE = "0123456789abcdef0123456789abcdef"
# what the host module reads of a session that comes straight from another machine
DIRECT = {"ssh_passers": "", "ssh_passer_pids": ""}


def _plan(fleet, pattern: str, request: str, *more: str):  # type: ignore[no-untyped-def]
    return reos("plan", "--hosts", pattern, "-i", str(fleet.inventory), *more, request,
                timeout=180)


def _journal() -> Journal:
    return Journal(Database(paths.database_file()))


def test_a_restart_on_every_host_and_its_undo(fleet) -> None:  # type: ignore[no-untyped-def]
    before = {h: fleet.pid(h, "nginx") for h in ("web1", "web2", "db1")}
    done = _plan(fleet, "all", "restart nginx", "--yes", "--json")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert document["schema"] == "reos.fleet-plan/1"
    assert [h["status"] for h in document["execution"]["hosts"]] == ["done"] * 3
    for host, pid in before.items():  # each nginx is a new process
        assert fleet.state(host, "nginx") == "active"
        assert fleet.pid(host, "nginx") not in ("", "0", pid)
    [tx] = _journal().transactions(kind=FLEET)
    assert tx.hosts == ["web1", "web2", "db1"]
    assert {s.host for s in tx.steps} == {"web1", "web2", "db1"}

    undone = reos("undo", timeout=120)  # a restart leaves nothing to restore
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert undone.stdout.count("nothing to restore") == 3
    assert all(fleet.state(h, "nginx") == "active" for h in before)


def test_a_pattern_with_an_exclusion_then_undo_on_one_host_then_the_rest(
        fleet) -> None:  # type: ignore[no-untyped-def]
    done = _plan(fleet, "all:!db1", "stop reos-demo", "--yes")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "On web1, web2:" in done.stdout
    assert [fleet.state(h, "reos-demo") for h in ("web1", "web2", "db1")] == [
        "inactive", "inactive", "active"]

    one = reos("undo", "--host", "web2", timeout=120)
    assert one.returncode == EXIT_OK, one.stdout + one.stderr
    assert "partly undone" in one.stdout
    assert [fleet.state(h, "reos-demo") for h in ("web1", "web2")] == ["inactive", "active"]

    rest = reos("undo", timeout=120)
    assert rest.returncode == EXIT_OK, rest.stdout + rest.stderr
    assert "✓ web1" in rest.stdout and "web2" not in rest.stdout
    assert fleet.state("web1", "reos-demo") == "active"
    assert reos("undo").returncode == EXIT_NOTHING


def test_a_dry_run_shows_each_hosts_plan_and_changes_nothing(fleet) -> None:  # type: ignore[no-untyped-def]
    before = {h: (fleet.state(h, "nginx"), fleet.pid(h, "nginx")) for h in ("web1", "db1")}
    done = _plan(fleet, "web1,db1", "stop nginx", "--dry-run")
    assert done.returncode == EXIT_OK, done.stderr
    assert "On web1, db1:" in done.stdout
    assert "undo: $ systemctl start nginx.service" in done.stdout
    assert "(dry run: nothing was run)" in done.stdout
    assert {h: (fleet.state(h, "nginx"), fleet.pid(h, "nginx")) for h in before} == before
    assert _journal().transactions(kind=FLEET) == []


def test_without_a_terminal_or_yes_a_change_is_not_run(fleet) -> None:  # type: ignore[no-untyped-def]
    done = _plan(fleet, "web1", "stop nginx")
    assert done.returncode == EXIT_DECLINED
    assert fleet.state("web1", "nginx") == "active"


def test_what_a_host_lacks_is_said_and_the_lock_out_rules_hold_on_every_host(
        fleet) -> None:  # type: ignore[no-untyped-def]
    missing = _plan(fleet, "web", "restart the reos-nowhere service", "--dry-run")
    assert missing.returncode == EXIT_NOTHING
    assert "Left out:" in missing.stdout and "web1:" in missing.stdout

    ssh = _plan(fleet, "web1", "stop the ssh service", "--dry-run")  # even when asked
    assert ssh.returncode == EXIT_NOTHING
    assert "web1: Stop ssh.service: it would cut reos off from the host" in ssh.stdout

    wall = _plan(fleet, "web1", "allow port 8080 in the firewall", "--dry-run")
    assert wall.returncode == EXIT_NOTHING
    # the bed's hosts lack CAP_NET_ADMIN: ufw's rules cannot be read there, so no undo
    assert "reos could not read ufw's rules there as root" in wall.stdout


def test_a_package_install_through_ansible_and_its_undo(fleet) -> None:  # type: ignore[no-untyped-def]
    def installed(host: str) -> bool:
        done = fleet.run(host, "dpkg-query", "-W", "-f", "${db:Status-Abbrev}",
                         "reos-demo-solo")
        return done.returncode == 0 and done.stdout.startswith("ii")

    assert not installed("db1")
    done = _plan(fleet, "db1", "install reos-demo-solo", "--yes")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert installed("db1")
    assert not installed("web1")
    undone = reos("undo", "--host", "db1", timeout=180)
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert not installed("db1")


def test_a_host_that_stops_answering_mid_run_is_said_and_the_others_finish(
        fleet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from reos import settings as settings_module
    from reos.engine import ReasoningEngine

    source = Source((fleet.inventory,), "--inventory")
    known = snapshots.read(source, ["web1", "web2", "db1"])
    settings = settings_module.load()
    plans = {h: ReasoningEngine(settings, snapshot=k.snapshot).plan("stop reos-slow")
             for h, k in known.items() if k.snapshot is not None}
    parts = deciding.prepare(plans, {h: k.snapshot for h, k in known.items()},  # type: ignore[misc]
                             "stop reos-slow")
    fleet.pause("web2")  # read and planned, then gone before the change runs
    try:
        applied = changing.apply(_journal(), source, "stop reos-slow", parts,
                                 connect_timeout=3)
    finally:
        fleet.unpause("web2")
    outcome = {o.host: o.status for o in applied.outcomes}
    assert outcome["web1"] == outcome["db1"] == "done"
    assert outcome["web2"] in ("failed", "unknown")
    assert not applied.ok
    assert fleet.state("web1", "reos-slow") == fleet.state("db1", "reos-slow") == "inactive"
    assert fleet.state("web2", "reos-slow") == "active"
    tx = _journal().transaction(applied.tx_id)
    assert tx is not None and tx.status == "failed"
    # web2 went away during its step: it may have run, and undo treats it so
    assert {s.host: s.status for s in tx.steps}["web2"] == "running"
    undone = changing.undo(_journal(), tx)
    assert undone is not None and undone.ok
    assert [u.host for u in undone.hosts] == ["web1", "web2", "db1"]
    assert {fleet.state(h, "reos-slow") for h in ("web1", "web2", "db1")} == {"active"}


def test_undo_never_acts_on_another_machine_that_now_has_the_hosts_name(
        fleet) -> None:  # type: ignore[no-untyped-def]
    done = _plan(fleet, "web1", "stop cron", "--yes")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert fleet.state("web1", "cron") == "inactive"
    text = fleet.inventory.read_text()
    moved = text.replace(f"web1 ansible_host={fleet.addresses['web1']}",
                         f"web1 ansible_host={fleet.addresses['db1']}")
    fleet.inventory.write_text(moved)  # the same name, another machine
    try:
        undone = reos("undo", timeout=120)
        assert undone.returncode != EXIT_OK
        assert "another machine (its machine-id differs)" in undone.stdout
        assert fleet.state("db1", "cron") == "active"  # nothing done there
    finally:
        fleet.inventory.write_text(text)
    again = reos("undo", timeout=120)  # back where it was: now it is undone
    assert again.returncode == EXIT_OK, again.stdout + again.stderr
    assert fleet.state("web1", "cron") == "active"


def test_a_step_cut_short_by_cancelling_is_kept_as_maybe_run_and_undo_puts_it_back(
        fleet) -> None:  # type: ignore[no-untyped-def]
    import time

    from reos import settings as settings_module
    from reos.engine import ReasoningEngine
    from reos.on_hosts import plan_each

    source = Source((fleet.inventory,), "--inventory")
    read = {h: k.snapshot for h, k in snapshots.read(source, ["web2"]).items()}
    engine = ReasoningEngine(settings_module.load())
    parts = deciding.prepare(plan_each(engine, "stop reos-slow", read),  # type: ignore[arg-type]
                             read, "stop reos-slow")  # type: ignore[arg-type]
    started: list[float] = []

    def cancelled() -> bool:  # once the step has begun (reos-slow takes 4 s to stop)
        if not started:
            started.append(time.monotonic())
        return time.monotonic() - started[0] > 3.5

    applied = changing.apply(_journal(), source, "stop reos-slow", parts, cancelled=cancelled)
    [outcome] = applied.outcomes
    assert outcome.status == "unknown" and applied.changed
    tx = _journal().transaction(applied.tx_id)
    assert tx is not None and [s.status for s in tx.steps] == ["running"]
    for _ in range(20):  # the stop goes on on the host without reos
        if fleet.state("web2", "reos-slow") != "deactivating":
            break
        time.sleep(0.5)
    undone = reos("undo", timeout=120)
    assert undone.returncode == EXIT_OK, undone.stdout + undone.stderr
    assert fleet.state("web2", "reos-slow") == "active"


# -- no bed needed ------------------------------------------------------------------------
def test_prior_state_comes_from_the_hosts_snapshot() -> None:
    snap = SystemSnapshot(collected_at="", services=[
        Service("nginx.service", active="active", enabled="enabled", load="loaded")],
        packages=[Package("curl", "7.88")])
    assert deciding.prior_state(snap, "service", "nginx.service") == {
        "active": "active", "enabled": "enabled", "load": "loaded"}
    assert deciding.prior_state(snap, "service", "gone.service")["load"] == "not-found"
    assert deciding.prior_state(snap, "package", "curl") == {"state": "installed",
                                                            "version": "7.88"}
    assert deciding.prior_state(snap, "package", "vim") == {"state": "absent"}
    assert deciding.prior_state(SystemSnapshot(collected_at=""), "package", "vim") is None
    assert deciding.prior_state(snap, "user", "bob") is None


def test_a_step_on_a_host_has_its_undo_before_it_runs() -> None:
    snap = SystemSnapshot(collected_at="", host={"package_manager": "apt",
                                                 "machine_id": MACHINE, **DIRECT}, services=[
        Service("nginx.service", active="active", enabled="enabled", load="loaded")],
        packages=[])
    stop = Step("s1", "Stop nginx.service", ["sudo", "-n", "systemctl", "stop",
                                             "nginx.service"],
                target=Target("service", "nginx.service"), action="stop")
    install = Step("s1", "Install vim", ["sudo", "-n", "apt-get", "install", "-y", "vim"],
                   target=Target("package", "vim"), action="install")
    [a, b] = deciding.prepare({"web1": Plan("x", Kind.ACTION, steps=[stop]),
                               "web2": Plan("x", Kind.ACTION, steps=[install])},
                              {"web1": snap, "web2": snap}, "x",
                              dry_runs={"web2": {"s1": Simulation(installed={"vim": "9"})}})
    assert a.undos == [["sudo", "-n", "systemctl", "start", "nginx.service"]]
    assert b.undos == [["sudo", "-n", "apt-get", "remove", "-y", "vim"]]
    assert not a.read_only


def _one(step: Step, snap: SystemSnapshot, request: str = "x",
         dry_run: Simulation | str | None = None) -> deciding.Prepared:
    """`step` decided on web1; a package step with apt's dry run there (`dry_run`; by
    default one that takes only the package named)."""
    if dry_run is None and step.target is not None and step.target.kind == "package":
        name = step.target.name
        dry_run = Simulation(installed={name: "1"}) if step.action == "install" else (
            Simulation(removed={name: "1"}))
    [part] = deciding.prepare({"web1": Plan(request, Kind.ACTION, steps=[step])},
                              {"web1": snap}, request,
                              dry_runs={"web1": {step.id: dry_run}} if dry_run else None)
    return part


@pytest.mark.parametrize(("step", "said"), [
    (Step("s1", "Stop ssh.service", ["sudo", "-n", "systemctl", "stop", "ssh.service"],
          target=Target("service", "ssh.service"), action="stop"), "cut reos off"),
    (Step("s1", "Mask sshd", ["sudo", "-n", "systemctl", "mask", "sshd.service"],
          target=Target("service", "sshd.service"), action="mask"), "cut reos off"),
    (Step("s1", "Remove python3.11-minimal",
          ["sudo", "-n", "apt-get", "remove", "-y", "python3.11-minimal"],
          target=Target("package", "python3.11-minimal"), action="remove"), "removes what"),
    (Step("s1", "Remove sudo", ["sudo", "-n", "apt-get", "remove", "-y", "sudo"],
          target=Target("package", "sudo"), action="remove"), "removes what"),
])
def test_what_reos_needs_to_reach_a_host_is_never_cut_even_when_asked(step: Step,
                                                                     said: str) -> None:
    snap = SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **DIRECT}, services=[
        Service("ssh.service", active="active", enabled="enabled", load="loaded"),
        Service("sshd.service", active="active", enabled="enabled", load="loaded")],
        packages=[Package("python3.11-minimal", "3.11.2"), Package("sudo", "1.9")])
    assert _one(step, snap, "free up some memory").plan is None
    asked = _one(step, snap, f"{step.title.lower()} please")  # the gate would let it by
    assert asked.plan is None
    assert said in (asked.left_out or "")


def test_a_step_that_would_lock_you_out_of_a_host_is_left_out_even_when_asked() -> None:
    snap = SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **DIRECT}, services=[
        Service("ufw.service", active="active", enabled="enabled", load="loaded")])
    stop = Step("s1", "Stop ufw.service", ["sudo", "-n", "systemctl", "stop", "ufw.service"],
                target=Target("service", "ufw.service"), action="stop")
    assert "lock you out" in (_one(stop, snap, "free up some memory").left_out or "")
    # asked for, it still loads or drops every rule at once (its undo too): a rule instead
    asked = _one(stop, snap, "stop the ufw service")
    assert asked.plan is None and "change a rule instead" in (asked.left_out or "")


@pytest.mark.parametrize("name", ["ufw", "iptables", "nftables", "firewalld"])
def test_a_hosts_firewall_is_never_removed_even_when_asked(name: str) -> None:
    # a stranger's lock-out corpus (fleet-lockout-7): "drop everything from 10.40.0.0/24"
    # and "flip the chain to drop" removed iptables and nftables there; removing ufw drops
    # every rule at once, and iptables takes ufw with it
    snap = SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **DIRECT},
                          packages=[Package(name, "1.0")])
    for action in ("remove", "purge"):
        step = Step("s1", f"{action} {name}", ["sudo", "-n", "apt-get", action, "-y", name],
                    target=Target("package", name), action=action)
        part = _one(step, snap, f"{action} {name} please")
        assert part.plan is None and "change a rule instead" in (part.left_out or "")
    other = Step("s1", "Remove telnet", ["sudo", "-n", "apt-get", "remove", "-y", "telnet"],
                 target=Target("package", "telnet"), action="remove")
    assert "firewall" not in (_one(other, SystemSnapshot(
        collected_at="", host={"machine_id": MACHINE, **DIRECT},
        packages=[Package("telnet", "0.17")]), "remove telnet").left_out or "")


def _shells_snapshot(user: str | None) -> SystemSnapshot:
    return SystemSnapshot(
        collected_at="", host={"package_manager": "apt", "machine_id": MACHINE,
                               **({"user": user} if user else {}), **DIRECT},
        users=[User("root", shell="/bin/bash"), User("deploy", uid=1001, shell="/usr/bin/zsh"),
               User("anna", uid=1002, shell="/usr/bin/fish")],
        packages=[Package("zsh", "5.9"), Package("zsh-common", "5.9"), Package("fish", "3.6")])


def _removal(name: str) -> Step:
    return Step("s1", f"Remove {name}", ["sudo", "-n", "apt-get", "remove", "-y", name],
                target=Target("package", name), action="remove")


def test_the_login_shell_of_the_account_reos_logs_in_as_is_never_removed() -> None:
    # a stranger's lock-out corpus (fleet-lockout-5): "apt remove zsh" ran where zsh is
    # the login's shell, and sshd runs every command through it
    snap = _shells_snapshot("deploy")
    part = _one(_removal("zsh"), snap, "apt remove zsh")
    assert part.plan is None and "login shell of deploy" in (part.left_out or "")
    # a dry run that takes it along ("zsh-common" takes zsh) is refused too
    part = _one(_removal("zsh-common"), snap, "remove zsh-common",
                Simulation(removed={"zsh-common": "5.9", "zsh": "5.9"}))
    assert part.plan is None and "would also remove zsh" in (part.left_out or "")
    # another account's shell is an ordinary package
    assert _one(_removal("fish"), snap, "remove fish").plan is not None
    # with the login not known, root's shell is still kept
    part = _one(_removal("bash"), _shells_snapshot(None), "remove bash")
    assert part.plan is None


SSH_NEEDS = {"openssh-server": "1:9.2p1-2", "libwrap0": "7.6.q-32"}


@pytest.mark.parametrize(("step", "dry_run", "said"), [
    # libwrap0 takes the SSH server with it (Debian 12's openssh-server depends on it)
    (Step("s1", "Remove libwrap0", ["sudo", "-n", "apt-get", "remove", "-y", "libwrap0"],
          target=Target("package", "libwrap0"), action="remove"),
     Simulation(removed=SSH_NEEDS), "would also remove openssh-server"),
    (Step("s1", "Remove dash", ["sudo", "-n", "apt-get", "remove", "-y", "dash"],
          target=Target("package", "dash"), action="remove"),
     "apt refuses: Essential packages were removed", "would fail"),
    (Step("s1", "Install sysvinit-core",
          ["sudo", "-n", "apt-get", "install", "-y", "sysvinit-core"],
          target=Target("package", "sysvinit-core"), action="install"),
     Simulation(installed={"sysvinit-core": "3"}, removed={"systemd-sysv": "252"}),
     "remove systemd-sysv"),
    (Step("s1", "Remove curl", ["sudo", "-n", "apt-get", "remove", "-y", "curl"],
          target=Target("package", "curl"), action="remove"),
     "", "could not dry-run it there"),
    (Step("s1", "Install exim4", ["sudo", "-n", "apt-get", "install", "-y", "exim4"],
          target=Target("package", "exim4"), action="install"),
     Simulation(installed={"exim4": "4.96"}, removed={"postfix": "3.7"}),
     "installing it would remove postfix, which its undo could not bring back"),
])
def test_a_package_step_runs_on_a_host_only_as_apt_s_dry_run_there_allows(
        step: Step, dry_run: Simulation | str, said: str) -> None:
    snap = SystemSnapshot(collected_at="", host={"package_manager": "apt",
                                                 "machine_id": MACHINE, **DIRECT},
                          packages=[Package("libwrap0", "7.6.q-32"), Package("dash", "0.5"),
                                    Package("curl", "7.88")])
    if dry_run:
        part = _one(step, snap, step.title.lower(), dry_run)
    else:  # no dry run came from the host
        [part] = deciding.prepare({"web1": Plan(step.title, Kind.ACTION, steps=[step])},
                                  {"web1": snap}, step.title)
    assert part.plan is None and said in (part.left_out or "")


@pytest.mark.parametrize(("action", "name"), [
    ("remove", "sudo-ldap"), ("remove", "dropbear"), ("remove", "sssd"),
    ("remove", "libnss-sss"), ("remove", "libpam-ldapd"), ("remove", "network-manager"),
    ("remove", "ifupdown"), ("install", "firewalld"), ("install", "iptables-persistent"),
    ("remove", "tailscale"), ("remove", "wireguard-tools"), ("remove", "nslcd"),
    ("remove", "iproute2"), ("purge", "dbus"), ("remove", "dbus-broker"),
])
def test_what_the_accounts_network_and_firewall_rest_on_is_never_changed_on_a_host(
        action: str, name: str) -> None:
    """apt's dry run shows no lifeline taken with these (nothing depends on them), yet
    each can cut the login or the network, or start a firewall."""
    step = Step("s1", f"{action} {name}", ["sudo", "-n", "apt-get", action, "-y", name],
                target=Target("package", name), action=action)
    snap = SystemSnapshot(collected_at="", host={"package_manager": "apt",
                                                 "machine_id": MACHINE, **DIRECT},
                          packages=[Package(name, "1")] if action == "remove" else [])
    part = _one(step, snap, f"{action} {name} please")
    assert part.plan is None and part.left_out, part


def test_a_removal_on_a_host_without_apt_is_left_out_an_install_runs() -> None:
    snap = SystemSnapshot(collected_at="", host={"package_manager": "dnf", **DIRECT,
                                                 "machine_id": MACHINE},
                          packages=[Package("curl", "7.88")])
    remove = Step("s1", "Remove curl", ["sudo", "-n", "dnf", "remove", "-y", "curl"],
                  target=Target("package", "curl"), action="remove")
    install = Step("s1", "Install vim", ["sudo", "-n", "dnf", "install", "-y", "vim"],
                   target=Target("package", "vim"), action="install")
    assert "only through apt's dry run" in (_one(remove, snap).left_out or "")
    assert _one(install, snap).plan is not None


@pytest.mark.parametrize(("unit", "action"), [
    ("networking.service", "stop"), ("networking.service", "restart"),
    ("NetworkManager.service", "disable"), ("systemd-networkd.service", "stop"),
    ("network-manager.service", "stop"), ("ifup@eth0.service", "restart"),
    ("wpa_supplicant.service", "stop"), ("openvswitch-switch.service", "restart"),
    ("tailscaled.service", "restart"), ("wg-quick@wg0.service", "stop"),
    ("sssd.service", "stop"), ("nslcd.service", "mask"),
    ("nftables.service", "start"), ("firewalld.service", "restart"),
    ("ufw.service", "enable_now"),
    ("dbus.service", "restart"), ("dbus-broker.service", "stop"),
    # another manager started takes over the interfaces the running one set up
    ("NetworkManager.service", "start"), ("NetworkManager.service", "enable_now"),
    ("systemd-networkd.service", "enable"), ("dhcpcd.service", "start"),
])
def test_what_brings_a_host_s_network_and_firewall_up_is_left_alone(unit: str,
                                                                    action: str) -> None:
    verb = {"enable_now": ["enable", "--now"]}.get(action, [action])
    step = Step("s1", f"{action} {unit}", ["sudo", "-n", "systemctl", *verb, unit],
                target=Target("service", unit), action=action)
    snap = SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **DIRECT}, services=[
        Service(unit, active="active", enabled="enabled", load="loaded")])
    part = _one(step, snap, f"{action} {unit} please")
    assert part.plan is None
    assert any(word in (part.left_out or "") for word in ("network", "firewall", "accounts",
                                                           "system bus"))


SSLH = {"ssh_passers": "sshd sslh sslh.service ssh.service", "ssh_passer_pids": "900 1242"}


@pytest.mark.parametrize(("facts", "port", "left_out"), [
    ({"ssh_port": 22, "ssh_loopback": True, **SSLH}, 443, True),  # sslh passed it on
    ({"ssh_port": 22, "ssh_loopback": True, **SSLH}, None, True),  # to a port not known
    ({"ssh_port": 22, "ssh_loopback": False, **SSLH}, 443, True),  # sslh --transparent
    ({"ssh_port": 22, "ssh_loopback": False, **DIRECT}, 22, False),  # straight to sshd
])
def test_what_reos_s_session_passes_through_is_never_stopped_or_removed_on_a_host(
        facts: dict[str, object], port: int | None, left_out: bool) -> None:
    from reos.system.snapshot import Listening

    snap = SystemSnapshot(
        collected_at="", host={"machine_id": MACHINE, **DIRECT, "package_manager": "apt", **facts},
        services=[Service("sslh.service", active="active", enabled="enabled",
                          load="loaded")],
        packages=[Package("sslh", "2.0")],
        listening=[Listening(443, "tcp", "203.0.113.11", 1242, "sslh"),
                   Listening(22, "tcp", "127.0.0.1", 900, "sshd")])
    steps = [Step("s1", "Stop sslh", ["sudo", "-n", "systemctl", "stop", "sslh.service"],
                  target=Target("service", "sslh.service"), action="stop"),
             Step("s1", "Restart sslh", ["sudo", "-n", "systemctl", "restart", "sslh"],
                  target=Target("service", "sslh.service"), action="restart"),
             Step("s1", "Remove sslh", ["sudo", "-n", "apt-get", "remove", "-y", "sslh"],
                  target=Target("package", "sslh"), action="remove")]
    for step in steps:
        [part] = deciding.prepare({"web1": Plan(step.title, Kind.ACTION, steps=[step])},
                                  {"web1": snap}, step.title, {"web1": port},
                                  {"web1": {"s1": Simulation(removed={"sslh": "2.0"})}})
        said = part.left_out or ""
        assert (CARRIED in said) is left_out, (step, said)


def test_the_account_the_ssh_server_runs_as_is_never_deleted_on_a_host() -> None:
    from reos.system.snapshot import User

    step = Step("s1", "Delete sshd", ["sudo", "-n", "userdel", "sshd"],
                target=Target("user", "sshd"), action="delete")
    snap = SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **DIRECT, "user": "deploy"},
                          users=[User("sshd", 101, 65534, "/run/sshd", "/usr/sbin/nologin",
                                      [], False, True)])
    part = _one(step, snap, "delete the user sshd")
    assert part.plan is None and "SSH server runs as that account" in (part.left_out or "")


def test_a_change_needs_the_hosts_machine_id_and_a_version_is_pinned_only_if_it_is_one(
        ) -> None:
    remove = Step("s1", "Remove curl", ["sudo", "-n", "apt-get", "remove", "-y", "curl"],
                  target=Target("package", "curl"), action="remove")
    plain = SystemSnapshot(collected_at="", host={"package_manager": "apt"},
                           packages=[Package("curl", "7.88")])
    assert "machine-id" in (_one(remove, plain).left_out or "")
    odd = SystemSnapshot(collected_at="", host={"package_manager": "apt",
                                                "machine_id": MACHINE, **DIRECT},
                         packages=[Package("curl", "../../tmp/x.deb")])
    part = _one(remove, odd)
    assert part.undos == [["sudo", "-n", "apt-get", "install", "-y", "--no-remove", "curl"]]
    assert part.priors[0]["machine_id"] == MACHINE


def test_hosts_are_grouped_only_when_their_undos_are_the_same_too() -> None:
    from reos.model.plan import Plan
    from reos.model.request import Kind
    from reos.on_hosts import lines

    step = Step("s1", "Restart nginx.service",
                ["sudo", "-n", "systemctl", "restart", "nginx.service"],
                target=Target("service", "nginx.service"), action="restart")
    snaps = {name: SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **DIRECT},
                                  services=[
        Service("nginx.service", active=active, enabled="enabled", load="loaded")])
        for name, active in (("web1", "active"), ("web2", "active"), ("db1", "inactive"))}
    parts = deciding.prepare({h: Plan("x", Kind.ACTION, steps=[step]) for h in snaps},
                             snaps, "restart nginx")
    shown = "\n".join(lines("restart nginx", parts, {}))
    assert "On web1, web2:" in shown and "On db1:" in shown
    assert "undo: $ systemctl stop nginx.service" in shown  # db1's: it was stopped


def test_the_module_sent_to_hosts_runs_on_python_3_8_with_the_standard_library_alone(
        ) -> None:
    import ast
    import sys

    from reos.system import portable

    tree = ast.parse(Path(portable.__file__).read_text(), feature_version=(3, 8))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)
    names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             and node.module == "datetime" for alias in node.names}
    assert "UTC" not in names  # datetime.UTC is 3.11's
    assert Path(portable.__file__).read_text().startswith("#!/usr/bin/python\n")


def test_this_machines_undo_never_takes_a_change_made_on_other_machines() -> None:
    from reos.execution.undo import undo_latest, undo_transaction

    journal = _journal()
    tx = journal.begin("stop nginx", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    row = journal.begin_step(tx, 0, "s1", "Stop nginx.service",
                             ["sudo", "-n", "systemctl", "stop", "nginx.service"],
                             action="stop", target_kind="service",
                             target_name="nginx.service",
                             prior_state={"active": "active", "enabled": "enabled"},
                             rollback=["sudo", "-n", "systemctl", "start", "nginx.service"],
                             host="web1")
    journal.finish_step(row, "done", 0, "")
    journal.finish(tx, "completed")
    ran: list[list[str]] = []

    def run(argv: list[str], **_: object):  # type: ignore[no-untyped-def]
        ran.append(argv)
        raise AssertionError("a fleet step's undo was run on this machine")

    assert undo_latest(journal, run=run).transaction is None
    undo_transaction(journal, tx, run=run)
    assert ran == []
    assert journal.transaction(tx).status == "completed"  # never claimed here


@pytest.mark.parametrize("name", ["web1", "a b", "../x", "ü", "."])
def test_a_kept_snapshot_file_is_named_safely(name: str, reos_home: Path) -> None:
    path = snapshots._path(name)
    assert path.parent == snapshots.folder()
    assert "/" not in path.name and " " not in path.name and not path.name.startswith(".")


def test_each_host_is_planned_from_its_own_snapshot_and_the_plans_are_grouped() -> None:
    from reos import settings as settings_module
    from reos.engine import ReasoningEngine
    from reos.on_hosts import lines, plan_each
    from tests.conftest import FIXTURES

    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["host"].update(machine_id=MACHINE, **DIRECT)
    without = json.loads(json.dumps(data))
    without["services"] = [s for s in without["services"] if "nginx" not in s["name"]]
    without["containers"] = [c for c in without["containers"] if "nginx" not in c["name"]]
    read = {name: SystemSnapshot.from_dict(d) for name, d in (
        ("web1", data), ("web2", data), ("web3", without))}
    plans = plan_each(ReasoningEngine(settings_module.load()), "restart nginx", read)
    assert plans["web1"].steps and plans["web2"].steps
    assert not plans["web3"].steps  # no nginx there: said, not guessed
    parts = deciding.prepare(plans, read, "restart nginx")
    shown = "\n".join(lines("restart nginx", parts, {"db9": "there is no route to it"}))
    assert "On web1, web2:" in shown
    assert "Left out:\n  web3: " in shown
    assert "Not reached:\n  db9: there is no route to it" in shown


def test_the_chats_undo_never_reverts_an_older_change_here_behind_a_newer_fleet_change(
        ) -> None:
    from reos import settings as settings_module
    from reos.engine import ReasoningEngine
    from reos.understanding.perception import Meta

    journal = _journal()
    here = journal.begin("stop nginx")
    row = journal.begin_step(here, 0, "s1", "Stop nginx.service",
                             ["systemctl", "stop", "nginx.service"], action="stop",
                             target_kind="service", target_name="nginx.service",
                             prior_state={"active": "active", "enabled": "enabled"},
                             rollback=["systemctl", "start", "nginx.service"])
    journal.finish_step(row, "done", 0, "")
    journal.finish(here, "completed")
    there = journal.begin("stop cron", kind=FLEET, inventory=["/nowhere/hosts.ini"])
    row = journal.begin_step(there, 0, "s1", "Stop cron.service",
                             ["sudo", "-n", "systemctl", "stop", "cron.service"],
                             action="stop", target_kind="service", target_name="cron.service",
                             prior_state={"active": "active", "machine_id": MACHINE},
                             rollback=["sudo", "-n", "systemctl", "start", "cron.service"],
                             host="web1")
    journal.finish_step(row, "done", 0, "")
    journal.finish(there, "completed")
    engine = ReasoningEngine(settings_module.load(), journal=journal)
    reply = engine.meta(Meta("undo"))
    assert "made on other machines (web1)" in reply.text
    assert journal.transaction(here).status == "completed"  # the older change stays


def test_reos_hosts_says_how_old_each_kept_snapshot_is(reos_home: Path) -> None:
    import os
    import time

    from reos.commands.hosts import _age
    from tests.conftest import FIXTURES

    snapshots.folder().mkdir(parents=True)
    kept = snapshots.folder() / "web1.json"
    kept.write_text((FIXTURES / "homelab.json").read_text())
    hours_ago = time.time() - 3 * 3600 - 60
    os.utime(kept, (hours_ago, hours_ago))
    (snapshots.folder() / "web2.json").write_text("{not json")
    assert _age("web1") == "3 hours ago"
    assert _age("web2") == "unreadable (read again by the next plan)"
    assert _age("db1") == "none yet"
    assert snapshots.cached("web1").age() > 3 * 3600  # type: ignore[union-attr]


def test_a_port_forwarded_to_a_host_where_what_carries_it_is_not_read_restarts_nothing(
        ) -> None:
    """The inventory's 443 reaches SSH on 22 without a loopback address: sslh
    --transparent on the host, or a router outside; told apart only by what carries the
    session there, which was not read."""
    snap = SystemSnapshot(
        collected_at="", host={"machine_id": MACHINE, "package_manager": "apt",
                               "ssh_port": 22, "ssh_loopback": False},
        services=[Service("sslh.service", active="active", enabled="enabled",
                          load="loaded")])
    step = Step("s1", "Stop sslh", ["sudo", "-n", "systemctl", "stop", "sslh.service"],
                target=Target("service", "sslh.service"), action="stop")
    [part] = deciding.prepare({"web1": Plan(step.title, Kind.ACTION, steps=[step])},
                              {"web1": snap}, step.title, {"web1": 443})
    assert part.plan is None and "does not know what" in (part.left_out or "")


CARRIED = "carried through it on the host"
UNKNOWN = "does not know what"


def _carried(passers: str | None, pids: str = "", **facts: str) -> dict[str, str]:
    """What the host module read of what carries the session (portable.session_passers)."""
    return facts if passers is None else {"ssh_passers": passers, "ssh_passer_pids": pids}


@pytest.mark.parametrize(("facts", "target", "action", "said"), [
    # not read, or its owner not seen: any program
    ({}, Target("service", "nginx.service"), "restart", UNKNOWN),
    (_carried(None, ssh_passers_unknown="this account may not see what"),
     Target("package", "haproxy"), "remove", UNKNOWN),
    # a carrier in a container's or a session's scope: no unit names it
    (_carried("jumpgate docker-3f2a.scope", "88"), Target("service", "cron.service"),
     "stop", UNKNOWN),
    # the program's parts and its units: docker-proxy is docker's, nginx-core is nginx's,
    # a relay whose process is python3 is its unit, a template unit's glob is it
    (_carried("docker-proxy docker.service", "77"), Target("service", "docker.service"),
     "restart", CARRIED),
    (_carried("nginx nginx.service", "12"), Target("package", "nginx-core"), "remove",
     CARRIED),
    (_carried("python3 edge-relay.service", "31"), Target("service", "edge-relay.service"),
     "stop", CARRIED),
    (_carried("stunnel4 stunnel@ssh-tls.service", "40"),
     Target("service", "stunnel@*.service"), "stop", CARRIED),
    # an upgrade restarts the program it replaces; a reload may drop what it passes on
    (_carried("sslh sslh.service", "401"), Target("package", "sslh"), "upgrade", CARRIED),
    (_carried("nginx nginx.service", "12"), Target("service", "nginx.service"), "reload",
     CARRIED),
    # a package by its program's name: docker.io is docker's
    (_carried("docker-proxy docker.service", "77"), Target("package", "docker.io"),
     "upgrade", CARRIED),
    # the account a carrier runs as: gone, the carrier cannot start again
    (_carried("python3 edge-relay.service user:relay", "31"), Target("user", "relay"),
     "delete", "runs as this account"),
    # hostile words are no names, and a carrier without one is not nothing
    (_carried("sslh\x1b[2J", "401"), Target("service", "cron.service"), "stop", UNKNOWN),
    (_carried("", "200"), Target("service", "cron.service"), "stop", UNKNOWN),
])
def test_a_program_that_carries_reos_s_session_or_any_when_not_known_is_never_cut(
        facts: dict[str, str], target: Target, action: str, said: str) -> None:
    part = _cut(facts, target, action)
    assert part.plan is None and said in (part.left_out or ""), part


@pytest.mark.parametrize(("facts", "target", "action"), [
    (_carried("sslh sslh.service", "401"), Target("service", "cron.service"), "restart"),
    (_carried("", ""), Target("service", "sslh.service"), "stop"),  # from another machine
    (_carried("python3 edge-relay.service user:relay", "31"), Target("user", "olduser"),
     "delete"),
])
def test_programs_that_do_not_carry_it_are_stopped_as_on_any_host(
        facts: dict[str, str], target: Target, action: str) -> None:
    part = _cut(facts, target, action)
    assert part.plan is not None, part.left_out


def test_every_package_upgraded_or_one_taking_a_carrier_with_it_never_runs_there() -> None:
    facts = _carried("sslh sslh.service", "401")
    part = _cut(facts, Target("package", "libev4"), "remove",
                Simulation(removed={"libev4": "1", "sslh": "1"}))
    assert part.plan is None and "remove or replace sslh, which carries" in (
        part.left_out or ""), part.left_out
    # an install that upgrades a carrier (sslh is there) restarts it; one that only adds
    # runs; not known what carries it, one that replaces what is there does not
    def install(facts: dict[str, str], *added: str) -> deciding.Prepared:
        step = Step("s1", "Install sslh-tools", ["sudo", "-n", "apt-get", "install", "-y",
                                                  "sslh-tools"],
                    target=Target("package", "sslh-tools"), action="install")
        [part] = deciding.prepare(
            {"web1": Plan("x", Kind.ACTION, steps=[step])},
            {"web1": _host(facts, Target("package", "sslh"))}, "x", {"web1": 443},
            {"web1": {"s1": Simulation(installed=dict.fromkeys(added, "2"))}})
        return part

    part = install(facts, "sslh-tools", "sslh")
    assert part.plan is None and "remove or replace sslh, which carries" in (
        part.left_out or ""), part.left_out
    assert install(facts, "sslh-tools", "libsslh-extra").plan is not None
    assert install({}, "sslh-tools", "libsslh-extra").plan is not None
    part = install({}, "sslh-tools", "sslh")
    assert part.plan is None and "does not know what carries" in (part.left_out or "")


def test_an_upgrade_of_every_package_or_a_kill_of_a_carrier_is_never_a_passers() -> None:
    """Beyond what a host's plan may hold today (a kill and an upgrade of everything
    are left out there before this is asked): the rule itself."""
    known = deciding.carriers(_host(_carried("ssh autossh.service", "901"),
                                    Target("package", "curl")).host, 443)
    upgrade = Step("s1", "Upgrade every package", ["sudo", "-n", "apt-get", "upgrade", "-y"],
                   action="upgrade_all")
    assert "upgrading every package" in (deciding._passes_reos_on(upgrade, known) or "")

    def kill(pid: str) -> Step:
        return Step("s1", f"Kill {pid}", ["sudo", "-n", "kill", pid],
                    target=Target("process", pid), action="kill")

    assert CARRIED in (deciding._passes_reos_on(kill("901"), known) or "")
    # any other: a carrier's parent (nginx's master) ends it with it
    assert CARRIED in (deciding._passes_reos_on(kill("900"), known) or "")


def _host(facts: dict[str, str], target: Target, installed: bool = True) -> SystemSnapshot:
    return SystemSnapshot(
        collected_at="", host={"machine_id": MACHINE, "package_manager": "apt",
                               "ssh_port": 22, "ssh_loopback": True, "user": "deploy",
                               **facts},
        users=[User(target.name, 990, 990)] if target.kind == "user" else None,
        services=[Service(target.name, active="active", enabled="enabled", load="loaded")],
        packages=[Package(target.name, "1")] if installed else [],
        processes=[Process(int(target.name), 1, "ssh")] if target.name.isdigit() else None)


def _cut(facts: dict[str, str], target: Target, action: str,
         dry_run: Simulation | None = None) -> deciding.Prepared:
    verb = {"service": ["systemctl", action, target.name],
            "user": ["userdel", target.name],
            "process": ["kill", target.name]}.get(target.kind, ["apt-get", action, "-y",
                                                                 target.name])
    step = Step("s1", f"{action} {target.name}", ["sudo", "-n", *verb], target=target,
                action=action)
    [part] = deciding.prepare(
        {"web1": Plan(step.title, Kind.ACTION, steps=[step])},
        {"web1": _host(facts, target, installed=action != "install")},
        step.title, {"web1": 443},
        {"web1": {"s1": dry_run or Simulation(removed={target.name: "1"})}})
    return part


def test_ssh_is_never_restarted_on_a_host_and_its_service_may_be_reloaded() -> None:
    """A socket unit restarted is stopped first, and may not bind again while sshd holds
    the port: no new login, and reos's next run with it. sshd's service restarted stops
    its listener first, and a configuration that no longer loads leaves it down (found
    by a stranger's lock-out corpus, fleet-lockout-4); a reload checks the configuration
    first (Debian's unit runs `sshd -t`) and keeps the listener."""
    def changed(unit: str, action: str = "restart") -> deciding.Prepared:
        snap = SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **DIRECT},
                              services=[Service(unit, active="active", enabled="enabled",
                                                load="loaded")])
        step = Step("s1", f"{action.title()} {unit}",
                    ["sudo", "-n", "systemctl", action, unit],
                    target=Target("service", unit), action=action)
        return _one(step, snap)

    assert "cut reos off" in (changed("ssh.socket").left_out or "")
    for unit in ("ssh.service", "sshd.service"):
        assert "reload it instead" in (changed(unit).left_out or "")
        assert changed(unit, "reload").plan is not None


# -- mounts: unmounted or made read-only only with the undo the snapshot gives ------------
def _mounts_snapshot(login: str = "deploy", home: str = "/home/deploy") -> SystemSnapshot:
    from reos.system.snapshot import Mount

    return SystemSnapshot(
        collected_at="", host={"machine_id": MACHINE, "user": login, **DIRECT},
        users=[User(login, uid=1000, gid=1000, home=home, shell="/bin/bash"),
               User("root", uid=0, gid=0, home="/root", shell="/bin/bash")],
        mounts=[Mount("/", "/dev/vda1", "ext4", "rw,relatime"),
                Mount("/home", "/dev/mapper/vg0-home", "ext4", "rw,relatime"),
                Mount("/mnt/backup", "/dev/sdb1", "ext4", "rw,nosuid,relatime"),
                Mount("/srv", "/dev/md0", "xfs", "rw,noatime")])


def _mount_step(action: str, mountpoint: str) -> Step:
    argv = (["sudo", "-n", "umount", mountpoint] if action == "unmount" else
            ["sudo", "-n", "mount", "-o", "remount,ro", mountpoint])
    return Step("s1", f"{action} {mountpoint}", argv, target=Target("mount", mountpoint),
                action=action)


def test_a_mount_is_unmounted_on_a_host_with_its_undo_from_the_snapshot() -> None:
    part = _one(_mount_step("unmount", "/mnt/backup"), _mounts_snapshot())
    assert part.plan is not None, part.left_out
    assert part.priors[0]["device"] == "/dev/sdb1" and part.priors[0]["mounted"] is True
    assert part.undos[0] == ["sudo", "-n", "mount", "-t", "ext4", "-o", "rw,nosuid,relatime",
                             "/dev/sdb1", "/mnt/backup"]
    part = _one(_mount_step("remount_ro", "/srv"), _mounts_snapshot())
    assert part.plan is not None and part.undos[0][-3:] == ["-o", "remount,rw,noatime", "/srv"]


@pytest.mark.parametrize(("mountpoint", "login", "home"), [
    ("/", "deploy", "/home/deploy"), ("/usr", "deploy", "/home/deploy"),
    ("/var", "deploy", "/home/deploy"), ("/tmp", "deploy", "/home/deploy"),
    ("/home", "deploy", "/home/deploy"),  # the login's home is on it
    ("/srv", "svc", "/srv/svc"),
])
def test_what_the_session_needs_mounted_is_never_unmounted_on_a_host(
        mountpoint: str, login: str, home: str) -> None:
    for action in ("unmount", "remount_ro"):
        part = _one(_mount_step(action, mountpoint), _mounts_snapshot(login, home))
        assert part.plan is None and "could not undo it" in (part.left_out or "")


def test_home_with_the_login_elsewhere_may_be_unmounted() -> None:
    part = _one(_mount_step("unmount", "/home"), _mounts_snapshot("svc", "/var/lib/svc"))
    assert part.plan is not None, part.left_out


def test_a_mount_with_no_mounts_in_the_snapshot_is_left_out() -> None:
    snap = SystemSnapshot(collected_at="", host={"machine_id": MACHINE, **DIRECT})
    part = _one(_mount_step("unmount", "/mnt/backup"), snap)
    assert part.plan is None
