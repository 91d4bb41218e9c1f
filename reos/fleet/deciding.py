"""What may run on each host, decided before anything runs there: each host's plan checked
step by step, each change's prior state read from the host's snapshot and its undo worked
out from it.

`prepare(plans, snapshots, request)` decides, host by host: a host whose plan asks a
question, is blocked, or has nothing to run is left out with why; a step the one gate
(`safety.gate.admit_argv`, with the remote lock-out rules, since every host is reached
over SSH) does not admit stops that host's plan; so does a change whose prior state reos
cannot read from the host's snapshot (`TRACKED`: services, timers, packages, accounts,
groups, the time zone, ufw's rules and mounts), since it could not be undone. Each
step's prior state comes from the host's snapshot, read just before (`snapshots.read`),
in the shape `system.state` records on this machine, and its undo is worked out from it
as here (`system.state.restore_argv`). An account's or a group's change, the time
zone's, a ufw rule's and a mount's run only with an undo (`UNDONE_OR_LEFT_OUT`; a filesystem
unmounted or made read-only is mounted again with the device, type and options its
snapshot lists, never one the session needs: the system's own folders or one holding
the login's home, `needed_mount`): creating an account or
group (its home removed by undo only when the host's home folder had none of that name),
deleting an account (made again with its ids, groups, shell and home; not when one of
them could not be put back as it was), joining or leaving a group, its shell and full
name; its lock, expiry and password dates only when the snapshot holds /etc/shadow's
(read as root there: the password field's "!" and the date fields, `User.password_locked`
and the rest), else left out saying so; the time zone when the snapshot holds one
`timedatectl` takes (`state_settings.valid`). What reos needs to
reach a host and undo there is never cut, even when asked for: SSH stopped, sudo or
Python removed, root or the account reos logs in as (the snapshot's `user`) deleted,
locked, expired, given another shell or taken out of a group, root unlocked; and a change
of either account runs only when its undo is one `reos undo` runs on them
(`login_safe_undo`, the one test both use: unlocking the login, say, is left out, as its
undo would lock it). A hostname is never changed on a host: sudo's rules (a host list,
a Host_Alias, rules from LDAP or sssd) and logins allowed by sssd's host-based access
can depend on the host's own name, so a new one could cut the login and sudo reos needs
to undo it. A firewall
change runs only through ufw: a rule that allows, denies or rate-limits ports added or
deleted (as `state_net` names it), ufw turned on, its default for incoming connections;
with its state from ufw's rules read there as root (`state_net.ufw_state`, the parser
this machine uses) and its undo; never one that could cut reos's SSH to the host, nor
one whose undo could (`firewall_cuts_ssh`, the one test `changing.undo` makes too, with
the port the host is reached on then): a deny of, an allow deleted for, or a rate limit
of port 22, the port reos reached the host on (`ssh_port`) or the inventory's port for
it (`ssh_ports`; any such rule when that port is not known: a proxied session, the two
differing), every port from an address, ufw turned on or set to deny or reject by
default unless its rules let each of those ports in from anywhere (`state_net.lets_in`),
ufw turned off (but as the undo of turning it on), reset, a default for other traffic,
reject rules, nftables and firewalld. A rule whose state ufw's rules leave unknown
(state_net.ufw_state) is left out.

What is read as root there (/etc/shadow's fields, ufw's rules) is read only for the
hosts whose plan needs it (`needs_root_read`), after planning; a host where that read
failed has those steps left out, saying why (its snapshot's `root_read`).

A host's snapshot is untrusted: its words reach an undo's argv only as arguments, never
when they hold what the command would refuse or split; a date from /etc/shadow only as
ASCII digits (or empty), a zone only when `state_settings.valid` takes it.
Not responsible for running anything (changing.py), reading hosts (snapshots.py), nor
planning (the engine).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from typing import Any

from msgspec import Struct, field

from reos.errors import plainly
from reos.execution.package_sim import Simulation
from reos.execution.packages import some_names
from reos.model.plan import RESTARTS, Plan, Step
from reos.model.request import Kind
from reos.patterns import regex
from reos.safety.gate import admit_argv
from reos.safety.rules_network import SSH_UNITS
from reos.safety.rules_system import BOOT_PACKAGES
from reos.system.privilege import as_root, strip_sudo, through_sudo
from reos.system.snapshot import SystemSnapshot, User
from reos.system.state import restore_argv
from reos.system.state_net import (
    POLICIES,
    lets_in,
    rule_name,
    ufw_rule,
    ufw_rule_words,
    ufw_setting,
    ufw_state,
)
from reos.system.state_settings import valid
from reos.system.state_users import changed_group

# what reos can read a prior state of from a host's snapshot (so it can undo a change)
TRACKED = {"service", "timer", "package", "user", "group", "timezone",
           "firewall", "container", "mount"}
# kinds whose change runs on a host only with an undo worked out from its snapshot (an
# account's lock or password dates only when read as root; deleting a home directory has
# none)
UNDONE_OR_LEFT_OUT = {"user", "group", "timezone", "firewall", "container", "mount"}
MACHINE_ID = regex(r"[0-9a-f]{32}")
_VERSION = regex(r"[A-Za-z0-9.+:~_-]{1,128}")
# an /etc/shadow date field as it may reach an argv: ASCII digits, or empty (none)
_DAYS = regex(r"[0-9]{0,10}")
_SETTING_WORDS = {"timezone": "its time zone"}
# an account's changes whose prior state is in /etc/shadow, read as root (`ROOT_READ`)
SHADOWED = ("lock", "unlock", "set_expiry", "expire_password", "password_max_age")
# package steps that run on a host only as apt's dry run there says (`dry_run_wanted`)
DRY_RUN = ("install", "remove", "purge")
DryRuns = dict[str, dict[str, Simulation | str]]  # host -> step id -> apt's dry run


def needs_root_read(plan: Plan, snapshot: SystemSnapshot | None = None,
                    inventory_port: int | None = None) -> bool:
    """Whether deciding `plan` needs what the host module reads there as root
    (`snapshots.read_as_root`): an account's lock or /etc/shadow dates changed, or a
    firewall rule (ufw's rules), or a program stopped or removed where the login account
    could not see what carries reos's session (`carriers`, of `snapshot` with the
    inventory's port, `inventory_port`).
    Other plans never run sudo to be decided."""
    if plan.blocked or plan.question or plan.kind in (Kind.CLARIFY, Kind.META):
        return False
    return changes_firewall(plan) or any(
        not step.read_only and step.target is not None and step.target.kind == "user"
        and step.action in SHADOWED for step in plan.steps) or (
        snapshot is not None and snapshot.host.get("is_root") is not True
        and any(cuts_program(step) for step in plan.steps)
        and carriers(snapshot.host, inventory_port)[0] is None)


def changes_firewall(plan: Plan) -> bool:
    """Whether `plan` changes a firewall rule: its prior state is ufw's rules, read there
    as root (`snapshots.root_task` with the firewall)."""
    return not plan.blocked and not plan.question and any(
        not step.read_only and step.target is not None and step.target.kind == "firewall"
        for step in plan.steps)


def dry_run_wanted(plan: Plan) -> bool:
    """Whether deciding `plan` needs apt's dry run of its package steps on the host
    (`predicting.dry_run_packages`): it installs or removes a package."""
    return not plan.blocked and not plan.question and any(
        not step.read_only and step.target is not None and step.target.kind == "package"
        and step.action in DRY_RUN for step in plan.steps)


class Prepared(Struct):
    """One host's part: its plan, or why it is left out; each step's prior state and undo
    (None where there is nothing to restore), in the plan's order."""

    host: str
    plan: Plan | None = None
    left_out: str | None = None
    priors: list[dict[str, Any] | None] = field(default_factory=list)
    undos: list[list[str] | None] = field(default_factory=list)
    read_only: bool = True  # the gate itself found every step only reads


def prior_state(snapshot: SystemSnapshot, kind: str, name: str,
                argv: list[str] | None = None) -> dict[str, Any] | None:
    """What `kind` `name` is on the host, in the shape `system.state` reads this machine
    in, from its snapshot; None when the snapshot cannot say. `argv`: the step's command,
    for the one group a membership step changes (undo changes back exactly that one)."""
    if kind in ("service", "timer"):
        if snapshot.services is None:
            return None
        unit = next((s for s in snapshot.services if s.name == name), None)
        if unit is None:
            return {"active": "inactive", "enabled": "not-found", "load": "not-found"}
        return {"active": unit.active or "unknown", "enabled": unit.enabled or "unknown",
                "load": unit.load}
    if kind == "package":
        if snapshot.packages is None:
            return None
        found = next((p for p in snapshot.packages if p.name == name), None)
        return ({"state": "installed", "version": found.version} if found is not None
                else {"state": "absent"})
    if kind == "user":
        return _account(snapshot, name, argv)
    if kind == "group":
        if snapshot.groups is None:
            return None
        group = next((g for g in snapshot.groups if g.name == name), None)
        return ({"state": "present", "gid": group.gid, "members": sorted(group.members)}
                if group is not None else {"state": "absent"})
    if kind == "container":
        if snapshot.containers is None:
            return None
        box = next((c for c in snapshot.containers if c.name == name), None)
        if box is None:
            return {"state": "absent"}
        return {"state": box.state, "id": box.id, "auto_remove": box.auto_remove,
                **({"restart": box.restart} if box.restart else {})}
    if kind == "timezone":
        return _zone(snapshot)
    if kind == "firewall":
        return _rule(snapshot, name)
    if kind == "mount":
        return _mounted(snapshot, name)
    return None


def _mounted(snapshot: SystemSnapshot, mountpoint: str) -> dict[str, Any] | None:
    """A mountpoint's state as `state_disks` records it here (the mount on top, its
    device, type and options), from the host's snapshot; None when it lists no mounts."""
    if snapshot.mounts is None:
        return None
    at = mountpoint.rstrip("/") or "/"
    found = [m for m in snapshot.mounts if (m.mountpoint.rstrip("/") or "/") == at]
    if not found:
        return {"state": "unmounted", "mounted": False}
    top = found[-1]
    return {"state": "mounted", "mounted": True, "device": top.device, "fstype": top.fstype,
            "options": top.options, "read_only": "ro" in top.options.split(",")}


def _rule(snapshot: SystemSnapshot, name: str) -> dict[str, Any] | None:
    """A ufw rule's state as `state_net` records it here (`state_net.ufw_state`, the same
    parser), from ufw's rules read there as root (`ufw_status`, `ufw_added`), or ufw's
    own (on or off, its default policy for incoming traffic; `ufw_defaults`, the policy
    lines of its file, while it is off); None when the snapshot does not hold them, or
    `name` is no ufw rule or setting reos names."""
    host = snapshot.host
    status, added = host.get("ufw_status"), host.get("ufw_added")
    defaults = host.get("ufw_defaults")
    if (ufw_rule(name) is None and not ufw_setting(name)) or not isinstance(
            status, str) or not isinstance(added, str):
        return None
    return ufw_state(name, status, added.splitlines(),
                     defaults=defaults if isinstance(defaults, str) else None)


def _zone(snapshot: SystemSnapshot) -> dict[str, Any] | None:
    """The time zone as `state_settings.current` records it here, from the host's facts
    (portable.settings); None when the snapshot does not hold it (an older module). A
    zone `timedatectl` would not take is not kept: the state is then empty, with why, and
    there is no undo."""
    zone = snapshot.host.get("timezone")
    if not isinstance(zone, str) or not zone:
        return None
    if not valid("timezone", zone):
        return {"state": "", "reason": "the time zone the host's snapshot gives is not one "
                                       "reos could set again"}
    return {"state": zone, "source": "the host's snapshot"}


def _account(snapshot: SystemSnapshot, name: str,
             argv: list[str] | None) -> dict[str, Any] | None:
    """An account as `system.state_users` records one here, from the host's snapshot: its
    ids, groups, shell, home and full name; its lock and /etc/shadow dates when the host's
    /etc/shadow was read (as root), else its state is "unknown", said why, and the
    changes of them have no undo there (so are left out)."""
    if snapshot.users is None:
        return None
    account = next((u for u in snapshot.users if u.name == name), None)
    if account is None:
        # undo removes a new account's home only when the host's snapshot says it was
        # free (an earlier account's home holds its files); not said: kept
        base, taken = snapshot.host.get("home_base"), snapshot.host.get("homes")
        free = (isinstance(base, str) and base.startswith("/") and isinstance(taken, str)
                and name not in taken.split("/"))  # portable.homes: names joined by "/"
        return {"state": "absent", "home_free": free}
    primary = account.groups[0] if account.groups else ""
    others = [g for g in snapshot.groups or [] if g.gid == account.gid]
    # userdel takes a private group with the account: undo must make it again (useradd -U)
    private = primary == name and not [u for u in snapshot.users if u.gid == account.gid
                                       and u.name != name] and not [
        m for g in others for m in g.members if m != name]
    state: dict[str, Any] = {
        "uid": account.uid, "gid": account.gid, "group": primary, "private_group": private,
        "groups": list(account.groups[1:]),
        "uid_shared": any(u.uid == account.uid and u.name != name for u in snapshot.users)}
    # the host's own words, put back there by undo: never one useradd would refuse (a
    # field holding ":"), nor a group name that would split in `usermod -G a,b`, nor more
    # than one argument may hold; without them the account is `incomplete` and deleting
    # it has no undo (it would come back as a lesser copy)
    fields = (("shell", account.shell), ("home", account.home), ("gecos", account.gecos))
    state.update({key: text for key, text in fields if _fits(text)})
    groups_ok = all(_fits(g) and "," not in g for g in account.groups) and (
        len(",".join(account.groups)) <= _MAX_FIELD)
    if not groups_ok:
        del state["groups"]
    if not groups_ok or not all(_fits(text) for _, text in fields):
        state["incomplete"] = True
    state.update(_shadow(account, snapshot.host.get("root_read")))
    if argv:
        state["changed_group"] = changed_group(argv)
    return state


def _shadow(account: User, failed: object = None) -> dict[str, Any]:
    """The lock ("locked": the password field starts with "!", as `usermod -L` marks it)
    and the last change, maximum age and expiry, as `state_users._shadow` gives them
    here; a date that is not ASCII digits (or empty) is left out, so its change has no
    undo. Not read (the snapshot was not read as root): "unknown", with why (`failed`:
    why reading it as root failed there)."""
    if account.password_locked is None:
        reason = NOT_AS_ROOT + (f": reading it failed ({failed})"
                                if isinstance(failed, str) and failed else "")
        return {"state": "unknown", "account": "present", "reason": reason}
    state: dict[str, Any] = {"state": "locked" if account.password_locked else "active"}
    for key in ("expiry", "last_change", "max_days"):
        value = getattr(account, key)
        if isinstance(value, str) and _DAYS.fullmatch(value):
            state[key] = value
    return state


NOT_AS_ROOT = ("the host's snapshot does not hold its /etc/shadow fields (reos reads them "
               "there as root, through sudo without a password)")
_MAX_FIELD = 32 * 1024  # characters of one field put back in one argument, at most


def _fits(text: str) -> bool:
    return text.isprintable() and ":" not in text and len(text) <= _MAX_FIELD


def prepare(plans: dict[str, Plan], snapshots: dict[str, SystemSnapshot],
            request: str, ports: dict[str, int | None] | None = None,
            dry_runs: DryRuns | None = None) -> list[Prepared]:
    """Each host's part, in the order given (see the module's docstring). A host's words
    that reos's own readers fail on leave its change out there, saying so, never the
    whole decision. `ports`: the port the inventory gives Ansible for each host
    (inventory.ssh_ports); a host not in it has none known, so no firewall change there
    that denies a port, or stops allowing one, runs. `dry_runs`: apt's dry run of each
    host's package steps, run there (`dry_run_wanted`); a package step without one is
    left out."""
    parts = []
    for host, plan in plans.items():
        try:
            parts.append(_prepare(host, plan, snapshots[host], request,
                                  (ports or {}).get(host), (dry_runs or {}).get(host, {})))
        except Exception as exc:  # noqa: BLE001 - one host's words, said, not raised
            parts.append(Prepared(host, left_out=plainly(exc, "Working out its change")))
    return parts


def _prepare(host: str, plan: Plan, snapshot: SystemSnapshot, request: str,
             inventory_port: int | None = None,
             dry_runs: dict[str, Simulation | str] | None = None) -> Prepared:
    if plan.blocked:
        return Prepared(host, left_out=f"blocked: {plan.blocked_reason or 'not safe'}")
    if plan.kind in (Kind.CLARIFY, Kind.META) or plan.question:
        return Prepared(host, left_out="the request needs an answer first: "
                                       f"{plan.question or plan.text()}")
    if not plan.steps:
        said = plan.text().strip()
        return Prepared(host, left_out=said.splitlines()[0] if said else "nothing to do there")
    manager = snapshot.host.get("package_manager")
    machine = snapshot.host.get("machine_id")
    if not isinstance(machine, str) or not MACHINE_ID.fullmatch(machine):
        if not all(step.read_only for step in plan.steps):
            return Prepared(host, left_out="its snapshot gives no machine-id, so undo could "
                                           "not make sure it is the same machine")
        machine = None
    prepared = Prepared(host, plan=plan)
    logins = _logins(snapshot)
    shells = login_shells(snapshot, logins)
    ssh, unknown = ssh_ports(snapshot.host.get("ssh_port"),
                             snapshot.host.get("ssh_loopback"), inventory_port)
    passers = carriers(snapshot.host, inventory_port)
    homes = frozenset(u.home for u in snapshot.users or [] if u.home and (
        u.name in logins if logins is not None else (u.name == "root" or u.uid >= 1000)))
    added = snapshot.host.get("ufw_added")
    for step in plan.steps:
        walled = not step.read_only and step.target is not None and (
            step.target.kind == "firewall")
        cut = firewall_cuts_ssh(step.argv, ssh, unknown, added=added if isinstance(
            added, str) else None) if walled else None
        # the host's own rules were read and keep reos's SSH in: the gate does not judge
        # turning ufw on there by this machine's rules
        admission = admit_argv(step.argv, approved=True, requested=request, remote=True,
                               ssh_checked=walled and cut is None)
        # a firewall step's own lock-out test, read from the host's rules, says why first
        why = cut or _unfit(step, admission.reason if not admission.allowed else None,
                            logins, homes) or (
            _takes_shell(step, shells)) or _passes_reos_on(step, passers) or (
            _in_reos_container(step, snapshot))
        if not why and walled:
            assert step.target is not None
            why = None if rule_name(step.argv) == step.target.name else (
                "the rule it names is not the one its command changes")
        if not why and not step.read_only and step.target is not None and (
                step.target.kind == "package" and step.action in DRY_RUN):
            dry_run = (dry_runs or {}).get(step.id)
            why = _dry_run_says(step, manager, dry_run) or _dry_run_takes_shell(
                dry_run, shells) or _takes_passers(
                dry_run, passers, {p.name for p in snapshot.packages or []}) or (
                _takes_engine(dry_run, snapshot))
        if why:
            return Prepared(host, left_out=f"{step.title}: {why}")
        prepared.read_only = prepared.read_only and admission.read_only and step.read_only
        prior, undo = None, None
        if not step.read_only and step.target is not None:
            prior = prior_state(snapshot, step.target.kind, step.target.name, step.argv)
            if prior is None and step.target.kind == "firewall":
                return Prepared(host, left_out=f"{step.title}: {_rule_unread(snapshot)}")
            if prior is None:
                what = _SETTING_WORDS.get(step.target.kind) or (
                    f"{step.target.kind} {step.target.name}")
                return Prepared(host, left_out=(
                    f"{step.title}: reos cannot read what {what} was before from the "
                    "host's snapshot, so it would not know how to undo it"))
            version = prior.get("version")
            if isinstance(version, str) and not _VERSION.fullmatch(version):
                prior = {**prior, "version": ""}  # a host's word, not a version: not pinned
            undo = restore_argv(step.target.kind, step.target.name, prior, step.action,
                                str(manager) if manager else None)
            if undo is None and step.target.kind in UNDONE_OR_LEFT_OUT and not (
                    step.target.kind == "container" and step.action in RESTARTS
                    and prior.get("state") in ("running", "restarting")):  # nothing to put back
                return Prepared(host, left_out=f"{step.title}: {_no_undo(step, prior)}")
            if undo and through_sudo(step.argv):
                undo = as_root(undo, is_root=False)
            if step.target.kind == "user" and step.target.name in (logins or {"root"}) and (
                    undo is not None and not login_safe_undo(undo)):
                return Prepared(host, left_out=f"{step.title}: {_undo_cuts(step)}")
            cut = firewall_cuts_ssh(undo, ssh, unknown, undoing=True) if undo and (
                step.target.kind == "firewall") else None
            if cut:
                return Prepared(host, left_out=f"{step.title}: its undo could not be run "
                                               f"there: {cut}")
            prior = {**prior, "manager": manager, "machine_id": machine,
                     "logins": sorted(logins or ())}
            if step.target.kind == "firewall":
                prior["ssh_ports"] = sorted(ssh or ())
        prepared.priors.append(prior)
        prepared.undos.append(undo)
    return prepared


# what reos needs on a host to reach it again, and to undo there: never stopped or removed
# through the fleet, whatever the request's words (on this machine, a request that names
# it exactly may stop SSH; a host reached over SSH would be lost for good)
_LIFELINE_UNITS = {unit.removesuffix(".service").removesuffix(".socket")
                   for unit in SSH_UNITS}
_CUTS = {"stop", "disable", "disable_now", "mask", "kill"}
# what brings a host's network up: stopped or restarted, it can stay down (a config
# changed since boot), and reos with it
_NETWORK_UNITS = regex(r"(networking|systemd-networkd|network-?manager|network|wicked|"
                       r"connman|netplan-.*|ifup@.*|wpa_supplicant.*|iwd|dhcpcd.*|"
                       r"dhclient.*|openvswitch.*|ovs-.*|tailscaled|wg-quick@.*|"
                       r"zerotier-one|openvpn.*|netbird)", re.IGNORECASE)
# what sets up a host's interfaces and addresses: another one started or enabled takes
# over the interfaces the running one set up (NetworkManager beside networkd), and the
# session that runs it can go with them
_MANAGERS = regex(r"(networking|systemd-networkd|network-?manager|network|wicked|connman|"
                  r"dhcpcd.*|dhclient.*|ifup@.*)", re.IGNORECASE)
_STARTS = {"start", "enable", "enable_now", "unmask"}
# the system bus: restarted or stopped, logind, networkd and every service on it lose
# their connection (systemd does not support restarting it), new logins with them
_BUS_UNITS = regex(r"(dbus|dbus-broker|messagebus)")
# where the accounts come from (LDAP, sssd, AD): stopped, no one logs in, reos neither
_LOGIN_UNITS = regex(r"(sssd.*|nslcd|winbind|nscd)")
# what loads a host's firewall rules: started, restarted or stopped, it changes them all
# at once, which the ufw rules' own lock-out test never sees
_FIREWALL_UNITS = regex(r"(ufw|firewalld|nftables|ip6?tables|netfilter-persistent|"
                        r"shorewall6?|ferm)")
# the accounts the SSH server itself runs as (its privilege separation): without one,
# no new login
_SSH_ACCOUNTS = {"sshd", "_sshd"}
_LIFELINE_PACKAGES = regex(
    r"(openssh-server|openssh|ssh|dropbear.*|sudo|sudo-ldap|sudo-rs|python3(\.[0-9]+)?"
    r"(-minimal)?|libpython3.*|systemd|libc6|bash"
    # the accounts' own sources (a login from LDAP, sssd or AD is gone with them)
    r"|sssd.*|libnss-.*|libpam-.*|libpam0g|nslcd|winbind|samba-winbind.*|realmd"
    # what brings the network up, and the VPN a host may be reached through
    r"|network-manager|ifupdown.*|netplan\.io|isc-dhcp-client|dhcpcd.*|systemd-resolved"
    r"|iproute2|iputils-.*|ifupdown2|systemd-networkd"
    # the system bus: logind, networkd and sudo's session setup talk through it
    r"|dbus|dbus-broker|dbus-daemon|dbus-bin|dbus-system-bus-common|libdbus-.*"
    r"|wpasupplicant|iwd|tailscale|wireguard.*|zerotier-one|openvpn|netbird)")
# a firewall that may start loading its rules as it is installed (firewalld does, with
# its default zone): never installed through the fleet
_FIREWALL_PACKAGES = regex(r"(ufw|firewalld|nftables|iptables-persistent|"
                           r"iptables-services|netfilter-persistent|shorewall6?|ferm)")


_PASSER_WORD = regex(r"[a-z0-9][a-z0-9@._:+\\-]{0,199}")


Carriers = tuple[set[str] | None, set[int], str]  # names (None: not known), pids, why


def carriers(facts: Mapping[str, object], inventory_port: int | None) -> Carriers:
    """The programs that carry reos's SSH session on the host, as the host module read
    them (`portable.session_passers`: the processes at the other end of sshd's
    connection when it is on the host, and at the other end of theirs): their names and
    the systemd units they run in, lower case (`.service` taken off), and their process
    ids; empty when the connection comes from another machine. Where that was not read,
    empty when SSH saw the session come straight from outside on the inventory's port.
    None, and why, when it is not known: the owner of the other end could not be seen
    (the login account's read: `needs_root_read` has it read as root), the read failed,
    or a carrier runs in a scope (a container's, a login session's), which no unit
    names. `facts`: the host's facts (a snapshot's, or undo's read just before)."""
    said, pids = facts.get("ssh_passers"), facts.get("ssh_passer_pids")
    if isinstance(said, str) and isinstance(pids, str):
        words = said.lower().split()
        if len(words) > 200 or not all(_PASSER_WORD.fullmatch(w) for w in words) or not all(
                p.isdigit() for p in pids.split()) or (pids.split() and not words):
            return None, set(), "what the host sent of what carries the session is no names"
        scoped = [w for w in words if w.endswith(".scope")]
        if scoped:
            return None, set(), (f"what carries it runs in {scoped[0]} (a container or a "
                                 "login session), which no unit reos could stop names")
        return ({w.removesuffix(".service") for w in words},
                {int(p) for p in pids.split()}, "")
    if facts.get("ssh_loopback") is False and inventory_port is not None and (
            inventory_port == facts.get("ssh_port")):
        return set(), set(), ""  # SSH saw the session come straight from outside
    why = facts.get("ssh_passers_unknown") or facts.get("root_read")
    return None, set(), (str(why) if why else "what carries it was not read")


def cuts_program(step: Step) -> bool:
    """Whether `step` stops, restarts, kills or removes a program (an upgrade or a
    reinstall restarts the one it replaces, and an upgrade of every package may replace
    any): what must never be one that carries reos's session (`_passes_reos_on`)."""
    target = step.target
    if step.read_only:
        return False
    if step.action in _UPGRADES_ALL:
        return True
    if target is None:
        return False
    return (target.kind in ("service", "timer") and step.action in (
        *_CUTS, "restart", "reload")) or (
        target.kind == "package" and step.action in ("remove", "purge", "upgrade",
                                                     "reinstall")) or (
        target.kind == "process" and step.action in ("kill", "terminate")) or (
        target.kind == "container" and step.action in _CONTAINER_CUTS) or (
        target.kind == "user" and step.action in _ACCOUNT_CUTS)


# what stops a container's programs, or restarts them: a carrier may run in one
_CONTAINER_CUTS = {"stop", "restart", "kill", "remove", "pause", "down", "recreate"}


# what upgrades every package (but those held): any program may be replaced, restarted
_UPGRADES_ALL = {"upgrade_all", "upgrade_except", "full_upgrade", "dist_upgrade",
                 "security_upgrade"}


_ENGINE_UNITS = regex(r"(snap\.docker\.dockerd|docker|containerd|podman)"
                      r"(\.service|\.socket)?")
_ENGINE_PACKAGES = regex(r"(docker(\.io|-ce|-ee|-engine)?|moby-engine|containerd(\.io)?|"
                         r"podman|runc)(:[a-z0-9]+)?")
# what takes a container away for good when it was started with --rm
_ENDS = {"stop", "kill"}


def _in_reos_container(step: Step, snapshot: SystemSnapshot) -> str | None:
    """Why a container step may not run on the host: it stops or removes the container
    reos's SSH session runs in (the host module's `in_container` and `container_id`),
    or, when the session runs in a container whose id is not known, any container or
    the engine; it ends a container Docker then removes for good (--rm), or one whose
    auto-removal was not read. None otherwise."""
    target = step.target
    if step.read_only:
        return None
    inside, own = snapshot.host.get("in_container") is True, snapshot.host.get("container_id")
    boxes = snapshot.containers or []
    ours = _session_in_container(snapshot)
    if ours and step.action in _UPGRADES_ALL:
        return ("reos's SSH session there runs in a container, and upgrading every package "
                "may restart its engine: reos would be cut off")
    if target is None:
        return None
    engine = (target.kind == "service" and _ENGINE_UNITS.fullmatch(target.name) and (
        step.action != "reload")) or (target.kind == "package" and (
            _ENGINE_PACKAGES.fullmatch(target.name.split("=", 1)[0])))
    if engine and cuts_program(step):
        return _engine_stops(snapshot, ours, "it stops")
    if target.kind != "container" or not cuts_program(step):
        return None
    box = next((c for c in boxes if c.name == target.name), None)
    if inside and (not own or (box is not None and box.id[:12] == own)):
        return ("reos's SSH session there runs in a container" + (
            ", this one" if own else " reos cannot name") + ": stopped, reos is cut off")
    if step.action in _ENDS and (box is None or box.auto_remove is not False):
        return ("Docker removes it for good once it stops (it was started with --rm)"
                if box is not None and box.auto_remove else
                "reos could not read whether Docker removes it once it stops (--rm), so "
                "it could not be started again")
    return None


def _session_in_container(snapshot: SystemSnapshot) -> bool:
    """Whether reos's SSH session on the host may run in one of its engine's containers:
    the module runs in a container, and the engine's list could not be read, or names
    the module's own container, or the module could not name its own (any may be it)."""
    inside, own = snapshot.host.get("in_container") is True, snapshot.host.get("container_id")
    boxes = snapshot.containers or []
    return inside and (snapshot.containers is None or (bool(boxes) and (
        not own or any(c.id[:12] == own for c in boxes))))


def _engine_stops(snapshot: SystemSnapshot, ours: bool, what: str) -> str | None:
    """Why stopping or replacing the container engine on the host (`what` does it: "it
    stops", "apt's dry run says it would replace docker.io, which stops") may not run:
    reos's session runs in one of its containers (`ours`), or a running container would
    not come back with it (a restart policy other than always or unless-stopped, or
    paused), or the containers could not be read. None otherwise."""
    if ours:
        return (f"{what} the engine's containers, and reos's SSH session there runs in one "
                "of them: reos is cut off and could not undo it")
    stays = [c.name for c in snapshot.containers or [] if c.running and (
        c.state == "paused" or c.restart not in ("always", "unless-stopped"))]
    if snapshot.containers is not None and not stays:
        return None
    return (f"{what} the engine's containers, and " + (
        f"{some_names(sorted(stays))} would not start again with it (their restart "
        "policy), so undo could not put them back" if stays else
        "reos could not read them there, so undo could not put them back"))


def _takes_engine(dry_run: Simulation | str | None, snapshot: SystemSnapshot) -> str | None:
    """Why a package step whose dry run removes or replaces the container engine's package
    installed there (an install that upgrades docker-ce with it) may not run, as a step
    on the engine itself would not (`_engine_stops`), or None."""
    if dry_run is None or isinstance(dry_run, str):
        return None
    installed = {p.name for p in snapshot.packages or []}
    taken = sorted({name.split(":", 1)[0] for name in [*dry_run.removed, *dry_run.installed]
                    if name.split(":", 1)[0] in installed
                    and _ENGINE_PACKAGES.fullmatch(name.split(":", 1)[0])})
    if not taken:
        return None
    return _engine_stops(snapshot, _session_in_container(snapshot),
                         f"apt's dry run there says it would also remove or replace "
                         f"{some_names(taken)}, which stops")


def _passes_reos_on(step: Step, passers: Carriers) -> str | None:
    """Why a step that stops, restarts, kills or removes a program that carries reos's
    session (`carriers`: an SSH multiplexer such as sslh, a proxy, a relay, a tunnel's
    client; any program when they are not known) may not run, or None. A carrier in a
    container's scope is not known: another container may share its network or its
    processes' namespace (`--network container:…`), which the snapshot does not say."""
    known, pids, unknown = passers
    if known == set() or not cuts_program(step):
        return None
    target = step.target
    if known is None:
        return ("something on the host may carry reos's SSH session, and reos does not "
                f"know what ({unknown}): stopping or removing a program there could cut "
                "reos off, and it could not undo it")
    if step.action in _UPGRADES_ALL or target is None:
        return (f"reos's SSH session is carried there by {some_names(sorted(known))}, which "
                "upgrading every package could restart: reos would be cut off")
    if target.kind == "process":
        pass  # any process: a carrier's parent (nginx's master) ends it too
    elif target.kind == "user":
        if f"user:{target.name.lower()}" not in known:
            return None
        return ("a program that carries reos's SSH session on the host runs as this "
                "account: without it, reos is cut off once that program restarts")
    elif not carried([target.name], known, package=target.kind == "package"):
        return None
    return ("reos's SSH session is carried through it on the host (something there passes "
            "it on): stopped, reos is cut off and could not undo it")


def _takes_passers(dry_run: Simulation | str | None, passers: Carriers,
                   installed: set[str]) -> str | None:
    """Why a package step whose dry run removes or replaces (upgrades) a program that
    carries reos's session (`carriers`) may not run, or None; where that is not known,
    one whose dry run removes or replaces any package already `installed` there."""
    known = passers[0]
    if known == set() or dry_run is None or isinstance(dry_run, str):
        return None
    # what it takes away or replaces (an upgrade restarts the program it replaces)
    changed = [*dry_run.removed, *(name for name in dry_run.installed
                                   if name.split(":", 1)[0] in installed)]
    if not changed:
        return None
    if known is None:
        return ("apt's dry run there says it would also remove or replace "
                f"{some_names(sorted(changed))}, and reos does not know what carries its SSH "
                "session there")
    taken = sorted(name for name in changed if carried([name], known))
    if not taken:
        return None
    return (f"apt's dry run there says it would also remove or replace "
            f"{some_names(taken)}, which carries reos's SSH session there: reos would be "
            "cut off")


def carried(names: Iterable[str], known: set[str], *, package: bool = True) -> bool:
    """Whether any of `names` (units, packages: "sslh.service", "nginx-core=1.22",
    "docker.io", "stunnel@*") is one of the programs `known` to carry reos's session
    (`carriers`), or a part of one (`_same_program`); a package by its program's name
    too (docker.io is docker's)."""
    for name in names:
        name = name.removesuffix(".service").removesuffix(".socket").lower()
        said = {name}
        if package:
            said = {name.split("=", 1)[0].split(":", 1)[0]}
            said.add(next(iter(said)).split(".", 1)[0])
        if any(_same_program(n, p) for n in said for p in known):
            return True
    return False


def _same_program(name: str, process: str) -> bool:
    """Whether a unit's or package's `name` (a glob too: "stunnel@*") is the program
    `process` (a name the kernel cuts at 15 characters, or a unit's), or one of its
    parts: nginx-core for nginx, docker for docker-proxy, stunnel for stunnel@ssh."""
    if any(mark in name for mark in "*?["):
        return fnmatch.fnmatchcase(process, name) or fnmatch.fnmatchcase(
            process.split("@", 1)[0] + "@", name.split("@", 1)[0] + "@")
    return (name == process or name.startswith((process + "-", process + "@"))
            or process.startswith((name + "-", name + "@"))
            or (len(process) >= 15 and name.startswith(process)))


def lifeline_package(name: str) -> bool:
    """Whether the package `name` (a `name:arch` or a `name=version` too) is one reos
    needs to reach a host and act there, or one it boots with (the kernel, the boot
    loader, init, the C library: `rules_system.BOOT_PACKAGES`, which the gate also
    judges): never removed through the fleet, and never credited to a step nor undone
    (package_changes, changing.undo), whatever a journal row says."""
    base = name.split("=", 1)[0].split(":", 1)[0]
    return bool(_LIFELINE_PACKAGES.fullmatch(base) or BOOT_PACKAGES.match(base))

# what would stop an account logging in over SSH and running Ansible's Python there (a key
# login too: an expired password or account ends it, and so does a shell that is not one)
_ACCOUNT_CUTS = {"delete", "delete_with_home", "lock", "set_shell", "no_shell",
                 "set_expiry", "expire_password", "password_max_age"}
# the groups sudo's own rules give root through on Debian, Ubuntu, Fedora, Arch, SUSE
_ADMIN_GROUPS = {"sudo", "wheel", "admin"}
_LEAVES = {"remove_from_group", "revoke_admin"}  # the recipes that take an account out


def _logins(snapshot: SystemSnapshot) -> set[str] | None:
    """The accounts reos needs on a host: root, and the one it logs in as (its snapshot
    is read as that account, without become); None when the snapshot does not say."""
    login = snapshot.host.get("user")
    return {"root", login} if isinstance(login, str) and login else None


def _unfit(step: Step, refused: str | None, logins: set[str] | None = None,
           homes: frozenset[str] = frozenset()) -> str | None:
    """Why this step may not run on another machine (`refused`: the gate's reason;
    `logins`: root and the account reos logs in as there, None when not known; `homes`:
    their home folders there, every person's when the login is not known), or None."""
    if step.shell:
        return "it is a shell command line, which reos runs only on this machine"
    if refused is not None:
        return f"blocked by the safety check: {refused}"
    target = step.target
    if target is not None and not step.read_only:
        unit = target.name.removesuffix(".service").removesuffix(".socket")
        if target.kind in ("service", "timer") and unit in _LIFELINE_UNITS and (
                step.action in _CUTS or (step.action == "restart"
                                         and target.name.endswith(".socket"))):
            return ("it would cut reos off from the host: reos reaches it over SSH, so it "
                    "never stops SSH there, and could not undo it")
        if target.kind == "service" and unit in _LIFELINE_UNITS and step.action == "restart":
            # a restart stops the listener first: a configuration that no longer loads
            # leaves no SSH server for reos's next connection, nor for anyone's
            return ("a restart stops the SSH server before it starts again, and with a "
                    "configuration that no longer loads it stays down, reos with it; "
                    "reload it instead (“reload ssh”): the configuration is checked "
                    "first and the server keeps listening")
        if target.kind == "service" and _NETWORK_UNITS.fullmatch(unit) and (
                step.action in (*_CUTS, "restart")):
            return ("it could take the host's network down, and reos with it: reos reaches "
                    "the host over that network, so it could not undo it")
        if target.kind == "service" and _MANAGERS.fullmatch(unit) and step.action in _STARTS:
            return ("it would start another program that sets up the host's network, which "
                    "takes over the interfaces the running one set up, and could cut reos "
                    "off from the host with no way to undo it")
        if target.kind == "service" and _BUS_UNITS.fullmatch(unit) and (
                step.action in (*_CUTS, "restart")):
            return ("it is the system bus: restarted or stopped, logind and the services "
                    "on it lose it, and new logins with them, reos's too")
        if target.kind == "service" and _LOGIN_UNITS.fullmatch(unit) and (
                step.action in _CUTS):
            return ("the accounts come from it there (LDAP, sssd, AD): stopped, no one logs "
                    "in, reos neither, so it could not undo it")
        if target.kind == "service" and _FIREWALL_UNITS.fullmatch(unit):
            return ("it loads or drops all of the host's firewall rules at once, which "
                    "could cut reos's SSH to it; change a rule instead (\u201callow "
                    "8080/tcp\u201d)")
        if target.kind == "user" and target.name in _SSH_ACCOUNTS and (
                step.action in _ACCOUNT_CUTS):
            return ("the SSH server runs as that account: without it, no one logs in over "
                    "SSH, reos neither")
        if target.kind == "package" and step.action in ("remove", "purge") and (
                lifeline_package(target.name)):
            return ("it removes what reos needs to reach the host and undo there (SSH, sudo, "
                    "Python, the accounts, the network or the system itself)")
        base = target.name.split("=", 1)[0].split(":", 1)[0]
        if target.kind == "package" and step.action == "install" and (
                _FIREWALL_PACKAGES.fullmatch(base)):
            return ("it brings in a firewall that may start loading its rules there as it "
                    "is installed, which could cut reos's SSH to the host")
        if target.kind == "package" and step.action in ("remove", "purge") and (
                _FIREWALL_PACKAGES.fullmatch(base) or base == "iptables"):
            return ("it takes the host's firewall away with all its rules at once (iptables "
                    "takes ufw with it), which could cut reos's SSH to the host; change a "
                    "rule instead (\u201cdeny 23/tcp\u201d)")
        if target.kind == "user":
            cut = _cuts_login(step, target.name, logins)
            if cut:
                return cut
        if target.kind == "group" and step.action != "create" and (
                target.name in _ADMIN_GROUPS):
            return ("it changes a group sudo gives root through, which reos needs on the "
                    "host to change anything and undo there")
    if not step.read_only and target is not None and target.kind == "mount":
        needed = needed_mount(target.name, homes)
        if needed:
            return (f"{needed}: unmounted or made read-only there, reos's session, sudo or "
                    "Python could stop working, and reos could not undo it")
    if not step.read_only and target is not None and target.kind == "hostname":
        return ("a new name could cut reos off from the host: sudo's rules, and logins "
                "allowed through sssd or LDAP, can depend on the host's own name; rename it "
                "on the machine itself")
    if not step.read_only and (step.target is None or step.target.kind not in TRACKED):
        what = f"a {step.target.kind}" if step.target is not None else "this"
        return (f"reos cannot yet record what {what} was before on another machine, so it "
                "does not change it there")
    return None


# what a session over SSH, sudo and Python need mounted and writable: the system's own
# folders (sshd, sudo and python3 live under /usr; sudo's and systemd's state under /var
# and /run; Ansible's temporary files under the home or /tmp)
_NEEDED_MOUNTS = ("/", "/usr", "/var", "/etc", "/boot", "/tmp", "/var/tmp", "/run", "/proc",
                  "/sys", "/dev", "/dev/shm", "/run/user", "/root", "/bin", "/sbin", "/lib",
                  "/lib64",
                  "/var/lib", "/var/log", "/usr/local", "/opt", "/snap")


def needed_mount(mountpoint: str, homes: frozenset[str]) -> str | None:
    """What reos's session needs at `mountpoint`, said for a person, or None: one of the
    system's own folders, or a folder holding the home of the account reos logs in as
    (or root's) there."""
    at = mountpoint.rstrip("/") or "/"
    if at in _NEEDED_MOUNTS:
        return f"{at} is one of the system's own folders"
    for home in sorted(homes):
        home = home.rstrip("/") or "/"
        if home == at or home.startswith(at.rstrip("/") + "/"):
            return f"{at} holds the home folder {home} of an account reos logs in as"
    return None


def login_shells(snapshot: SystemSnapshot, logins: set[str] | None) -> dict[str, str]:
    """The packages that hold the login shells of root and the account reos logs in as
    there (its snapshot's passwd; root's alone when the login is not known): package ->
    "account (shell)". sshd runs a command
    through the account's shell, so without it no login runs anything, reos's neither.
    A shell's package is named after it (zsh, fish, tcsh), or in `_SHELL_PACKAGES`."""
    found: dict[str, str] = {}
    for user in snapshot.users or []:
        if user.name not in (logins or {"root"}) or not user.shell.startswith("/"):
            continue
        base = user.shell.rstrip("/").rsplit("/", 1)[-1]
        for package in (base, *_SHELL_PACKAGES.get(base, ())):
            found.setdefault(package, f"{user.name} ({user.shell})")
    return found


def _takes_shell(step: Step, shells: dict[str, str]) -> str | None:
    """Why removing this package would cut reos off: it holds a login's shell."""
    target = step.target
    if target is None or step.read_only or target.kind != "package" or step.action not in (
            "remove", "purge"):
        return None
    base = target.name.split("=", 1)[0].split(":", 1)[0]
    return _shell_gone(shells[base]) if base in shells else None


def _dry_run_takes_shell(dry_run: Simulation | str | None, shells: dict[str, str]
                         ) -> str | None:
    """Why a package step whose apt dry run removes a login's shell may not run."""
    if dry_run is None or isinstance(dry_run, str):
        return None
    taken = sorted(name.split(":", 1)[0] for name in dry_run.removed
                   if name.split(":", 1)[0] in shells)
    return (f"apt's dry run there says it would also remove {taken[0]}: "
            f"{_shell_gone(shells[taken[0]])}") if taken else None


def _shell_gone(whose: str) -> str:
    return (f"it holds the login shell of {whose}, the account reos logs in as or root; "
            "without it that login runs nothing, reos neither, so it could not undo it")


# shells whose package is not named after them (Debian, Ubuntu, Fedora)
_SHELL_PACKAGES = {"rbash": ("bash",), "sh": ("dash", "bash"), "csh": ("tcsh", "csh"),
                   "ksh": ("ksh", "ksh93u+m", "mksh"), "ksh93": ("ksh93u+m", "ksh"),
                   "nu": ("nushell",), "pwsh": ("powershell",), "zsh5": ("zsh",),
                   "bsd-csh": ("csh",), "fish": ("fish",), "zsh-static": ("zsh-static",),
                   "lksh": ("mksh",), "ash": ("busybox",), "yash": ("yash",)}


# what an undo may do to root or the account reos logs in as: give back a group, unlock,
# put back the full name; anything else (delete, lock, a shell, a whole group list,
# leaving a group, an expiry) could cut reos off, whatever the recorded state says
_LOGIN_SAFE_UNDOS = (("usermod", "-aG"), ("usermod", "-U"), ("usermod", "-c"))


def login_safe_undo(argv: list[str]) -> bool:
    """Whether `argv` (with or without `sudo -n`) is an undo reos may run on root or the
    account it logs in as on a host: the one test for the plan (`prepare`) and for `reos
    undo` (changing.py), so a change runs there only when its undo would be run."""
    words = strip_sudo(argv)
    return len(words) >= 3 and tuple(words[:2]) in _LOGIN_SAFE_UNDOS


SSH_PORT = 22


def ssh_ports(reached_on: object, loopback: object, inventory_port: int | None,
              recorded: Iterable[object] = ()) -> tuple[set[int] | None, str]:
    """The ports a firewall change on a host must never cut: 22, the one reos reached it
    on over SSH (`reached_on`: SSH_CONNECTION's, the host fact `ssh_port` or what undo
    read just before), the one the inventory gives Ansible (`inventory_port`:
    inventory.ssh_ports) and, for an undo, those recorded when the change was made;
    or None, and why, when the port reos reaches SSH on is not known: not read, the
    session came through a proxy on the host (`loopback`: SSH_CONNECTION's own address
    is loopback, as behind sslh or haproxy), the inventory's port is not known, or the
    two differ (a proxy or port forwarding between). Then no rule that denies, or stops
    allowing, a port runs there (firewall_cuts_ssh)."""
    if not (isinstance(reached_on, int) and not isinstance(reached_on, bool)
            and 0 < reached_on < 65536):
        return None, "reos does not know which port it reaches the host's SSH on"
    if loopback is not False:
        return None, ("reos reached the host's SSH through something on the host that "
                      "passed it on (a loopback address), so it does not know which port "
                      "it reaches it on" if loopback is True else
                      "reos does not know which port it reaches the host's SSH on (the "
                      "host did not say whether a proxy passed the session on)")
    if inventory_port is None:
        return None, ("the inventory's port for the host (ansible_port) is not one reos "
                      "can read, so reos does not know which port it reaches its SSH on")
    if inventory_port != reached_on:
        return None, (f"reos connects to port {inventory_port} (the inventory's) but the "
                      f"host's SSH saw port {reached_on}, so something between passes it "
                      "on and reos does not know which port that is")
    kept = {p for p in recorded if isinstance(p, int) and not isinstance(p, bool)
            and 0 < p < 65536}
    return {SSH_PORT, reached_on, inventory_port, *kept}, ""


def ssh_connection(text: str) -> tuple[int | None, bool | None]:
    """The port and whether the address is loopback, from SSH_CONNECTION's value as a
    host printed it ("client port server port"): (None, None) when it is not that."""
    words = text.split()
    if len(words) != 4 or not (words[3].isascii() and words[3].isdigit()):
        return None, None
    port = int(words[3])
    address = words[2].lower()
    address = address[7:] if address.startswith("::ffff:") else address
    return (port if 0 < port < 65536 else None), (
        address.startswith("127.") or address in ("::1", "localhost"))


def firewall_cuts_ssh(argv: list[str], ports: set[int] | None, unknown: str = "", *,
                      undoing: bool = False, added: str | None = None) -> str | None:
    """Why running the firewall command `argv` on a host (a step, or an undo:
    changing.undo asks the same with `undoing`) could cut reos's SSH to it, or None.
    Through ufw only: adding or deleting one rule that allows, denies or rate-limits
    ports (as state_net names it), turning ufw on (`ufw --force enable`, the form that
    asks nothing under SSH), and its default for incoming traffic. A reset, ufw turned
    off (but as the undo of turning it on), a default for other traffic, `reject` rules,
    a rule deleted by number, nftables and firewalld are never run there. A rule that
    denies (or the deletion of one that allows) a port reos reaches SSH on (`ports`), or
    every port from an address (which could be reos's), never runs; nor a rate limit of
    such a port; nor any of these when the port is not known (`unknown`: why not, from
    ssh_ports). ufw is turned on, or set to deny or reject incoming traffic by default,
    only when its rules there (`added`: the lines of `ufw show added`, read as root)
    allow every port of `ports` from anywhere with nothing before that could stop it
    (`state_net.lets_in`); an undo that sets such a default again is never run, as ufw's
    rules are not read again before an undo. Setting the default back to allow, as an
    undo or asked, opens and cuts nothing."""
    words = strip_sudo(argv)
    if words[:1] != ["ufw"]:
        return ("reos changes firewall rules on other machines through ufw only, so it "
                "can make sure reos's SSH to the host is never cut")
    rest = words[1:]
    if rest == ["--force", "enable"]:
        return _closes(ports, unknown, added, "turn ufw on")
    if "enable" in rest:
        return ("reos turns ufw on on other machines only as `ufw --force enable`: run over "
                "SSH, plain `ufw enable` asks whether to go on, hears no answer and gives up")
    if rest == ["disable"] and undoing:
        return None  # turned off again, as it was before reos turned it on: opens, cuts none
    if len(rest) == 3 and rest[0] == "default" and rest[1] in POLICIES and (
            rest[2] == "incoming"):
        if rest[1] == "allow":
            return None  # lets everything in that no rule denies
        if undoing:
            return (f"it would set ufw's default for incoming traffic back to {rest[1]}, and "
                    "reos does not read ufw's rules there again before an undo to make sure "
                    "they still let its SSH in")
        return _closes(ports, unknown, added,
                       f"set ufw's default for incoming traffic to {rest[1]}")
    rest, deleting = ufw_rule_words(rest)
    rule = ufw_rule(" ".join(rest)) if all(w and w.split() == [w] for w in rest) else None
    if rule is None:
        return ("reos changes ufw on other machines only by adding or deleting one rule "
                "that allows, denies or rate-limits ports, turning it on or setting its "
                "default for incoming traffic; turning it off, a reset, reject rules, a rule "
                "by number or other defaults could cut reos's SSH to the host")
    action, spans = rule
    if action == "limit":
        doing = "stop rate-limiting" if deleting else "rate-limit"
    elif (action == "allow") != deleting:
        return None  # a rule that allows, added, or one that denies, deleted
    else:
        doing = "stop allowing" if deleting else "deny"
    if spans is None:
        return (f"it would {doing} every port from an address, which could be where reos "
                "reaches the host's SSH from")
    if ports is None:
        return (f"it would {doing} a port, and " + (unknown or "the host's snapshot does "
                "not say which port reos reaches its SSH on"))
    hit = sorted(p for p in ports if any(low <= p <= high for low, high in spans))
    if hit and action == "limit":
        return (f"it would {doing} port {hit[0]}, which reos reaches the host's SSH on: a "
                "burst of new connections, Ansible's among them, would be cut")
    if hit:
        return (f"it would {doing} port {hit[0]}, which reos reaches the host's SSH on, "
                "and cut reos off from it")
    return None


def _closes(ports: set[int] | None, unknown: str, added: str | None,
            doing: str) -> str | None:
    """Why a change after which ufw lets in only what its rules allow (`doing`: turned
    on, a default of deny or reject) could cut reos's SSH to the host: the ports reos
    reaches it on are not known, ufw's rules there were not read as root, or they may not
    let each of those ports in from anywhere (`state_net.lets_in`)."""
    if ports is None:
        return (f"it would {doing}, and " + (unknown or "the host's snapshot does not say "
                "which port reos reaches its SSH on"))
    if added is None:
        return (f"it would {doing}, and reos could not read ufw's rules there as root to "
                "make sure they let its SSH in")
    why = lets_in(added.splitlines(), ports)
    if why:
        return (f"it would {doing}, and {why}: once on, ufw could cut reos's SSH to the "
                "host (allow the ports reos reaches it on first, \u201callow "
                f"{min(ports)}/tcp\u201d)")
    return None


def _dry_run_says(step: Step, manager: object, dry_run: Simulation | str | None,
                  ) -> str | None:
    """Why apt's dry run on the host (`dry_run`) keeps a package step from running there,
    or None: it takes something reos needs to reach the host or boot it
    (`lifeline_package`: libssl3 or libwrap0 take the SSH server with them, dash is
    essential); an install would remove something, which its undo could not bring back;
    there is no dry run. A removal on a host whose manager is not apt is left out: reos
    has no dry run of it there."""
    if manager != "apt":
        return None if step.action == "install" else (
            f"reos checks what a removal takes with it only through apt's dry run, and this "
            f"host uses {manager or 'no package manager reos knows'}")
    if dry_run is None:
        return ("reos could not dry-run it there, so it could not check what it takes with "
                "it")
    if isinstance(dry_run, str):
        return f"its dry run there says it would fail ({dry_run})"
    taken = sorted(dry_run.removed)
    needed = [name for name in taken if lifeline_package(name)]
    if needed:
        return (f"apt's dry run there says it would also remove {some_names(needed)}, which reos "
                "needs to reach the host and undo there (SSH, sudo, Python or the system "
                "itself)")
    if step.action == "install" and taken:
        return (f"apt's dry run there says installing it would remove {some_names(taken)}, "
                "which its undo could not bring back")
    if step.action != "install" and dry_run.installed:
        return (f"apt's dry run there says removing it would install "
                f"{some_names(sorted(dry_run.installed))}, which its undo would not take back")
    return None


def _rule_unread(snapshot: SystemSnapshot) -> str:
    failed = snapshot.host.get("firewall_read") or snapshot.host.get("root_read")
    said = f" ({failed})" if isinstance(failed, str) and failed else ""
    return ("reos could not read ufw's rules there as root" + said + ", so it would not "
            "know how to undo it")


def _undo_cuts(step: Step) -> str:
    assert step.target is not None
    name = step.target.name
    whose = "root" if name == "root" else f"{name} (the account reos logs in as there)"
    return (f"its undo would change {whose} in a way that could cut reos off from the "
            "host, which reos never does, so it could not be undone there")


def _cuts_login(step: Step, name: str, logins: set[str] | None) -> str | None:
    """Why a change of the account `name` would cut reos off from the host, or None: it
    never deletes, locks, expires or changes the shell of root or of the account it logs
    in as, nor takes that account out of a group (sudo's rules, which say which group
    gives it root, are root's to read: the snapshot does not hold them); nor unlocks root
    (root's password would then let anyone who knows it in, with no question asked, and
    its undo, locking root, is one reos never runs)."""
    if name == "root" and step.action == "unlock":
        return ("it would unlock root, which could let root log in with a password there; "
                "reos never does that on a host, and its undo (locking root) is one reos "
                "never runs")
    leaves = step.action in _LEAVES
    if step.action not in _ACCOUNT_CUTS and not leaves:
        return None
    if logins is None:
        return ("the host's snapshot does not say which account reos logs in as there, so "
                "reos cannot make sure this one is not it")
    if name not in logins:
        return None
    whose = "root" if name == "root" else f"{name} (the account reos logs in as there)"
    if leaves:
        return (f"it takes {whose} out of a group, which could take away the sudo reos "
                "needs to change anything and undo there")
    return (f"it would cut reos off from the host: it needs {whose}, so it never deletes, "
            "locks, expires or changes the shell of that account there")


def _no_undo(step: Step, prior: dict[str, Any]) -> str:
    """Why an account's or a group's change has no undo on the host (reos changes them on
    other machines only where it can undo)."""
    assert step.target is not None
    if prior.get("state") == "absent" and step.action != "create":
        return f"there is no {step.target.kind} {step.target.name} there"
    if not step.reversible:
        return ("it cannot be undone, and reos changes accounts on other machines only where "
                "it can undo the change")
    shadowed = SHADOWED
    if step.action in shadowed and prior.get("state") == "unknown":
        return (f"what it was before is in /etc/shadow, and {prior.get('reason')}, so "
                "reos could not undo it")
    if step.action == "expire_password" and prior.get("last_change") == "":
        return ("password ageing is off for it there (no date of its last password "
                "change), so reos could not put that date back")
    if step.action in shadowed[2:]:
        return ("its /etc/shadow field there is not a number of days reos could put "
                "back, so reos could not undo it")
    if step.target.kind == "firewall":
        if prior.get("state") == "unknown":
            return f"{prior.get('reason') or 'ufw rule not understood'}, so reos leaves it alone"
        if prior.get("state") == "present" and step.action in ("allow", "deny", "limit"):
            return "the rule is there already, so there is nothing to change or undo"
        if prior.get("state") == "active" and step.action == "enable":
            return "ufw is on there already, so there is nothing to change or undo"
        if step.action == "default_policy" and prior.get("state") == prior.get("asked"):
            return (f"ufw's default for incoming traffic there is {prior.get('state')} "
                    "already, so there is nothing to change or undo")
        if prior.get("state") == "absent" and step.action == "delete_rule":
            return "there is no such rule there"
        return "reos could not work out how to put the rule back as it was"
    if step.target.kind in _SETTING_WORDS:
        return f"{prior.get('reason') or 'reos could not set it back'}, so it does not " \
               "change it there"
    return ("reos cannot work out from the host's snapshot how to undo it, so it does not "
            "change it there")
