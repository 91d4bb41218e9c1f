"""Rules for services, the firewall and network interfaces, and the remote lock-out.

When reos runs over SSH, stopping the SSH server, bringing down the interface that
carries the default route (read with `ip -j route show default`, only when such a
command is judged), or turning off or flushing the firewall is blocked unless the
person's request asks for exactly that (`requested`: the thing named by its kind or any
of its names, close to a stop verb; questions and other actions do not count); locally
these are HIGH (approval). Turning ufw on, or setting its default for incoming traffic
to deny or reject, is blocked over SSH whatever the request says, unless ufw's rules
(`ufw show added`, read when such a command is judged) let in the port the session came
in on (SSH_CONNECTION) from anywhere (`_keeps_ssh`; not known, not read, or a session
passed on through loopback: blocked); a rate limit (`ufw limit`) of that port is
blocked. Turning ufw off again as an undo of reos turning it on is no lock-out
(`Context.undoing`); on other machines the fleet checks a host's own rules first
(`Context.ssh_checked`). A firewall's service started, restarted, reloaded or enabled over
SSH loads all its rules at once: ufw's are read as for `ufw enable`, any other firewall's
blocked (`_loads_rules`).
Not responsible for disks, processes or packages (`rules_system`).
"""

from __future__ import annotations

import re

from msgspec.structs import replace

from reos.model.risk import RiskLevel
from reos.patterns import regex
from reos.safety.paths import dynamic
from reos.safety.rules import Context, flags, operands
from reos.safety.verdict import Verdict

FIREWALLS = ("ufw", "firewalld", "nftables", "iptables", "netfilter-persistent", "ip6tables",
             "ebtables", "shorewall", "shorewall6", "ferm", "csf")
# the programs that configure the network's interfaces and addresses
NETWORK_MANAGERS = ("systemd-networkd", "NetworkManager", "network-manager", "networking",
                    "network", "wicd", "wicked", "connman", "netplan", "ifup", "dhcpcd")
SSH_UNITS = ("ssh", "sshd", "openssh", "openssh-server", "ssh.socket", "sshd.socket",
             "dropbear")


# what a request may call each thing that can lock a remote user out
_KINDS = (
    ("firewall", "firewalls", "packet filter", *FIREWALLS, "nft", "netfilter"),
    ("ssh", "sshd", "openssh", "openssh-server", "ssh server", "ssh daemon", "ssh service",
     "dropbear", "remote login", "remote logins"),
    ("network", "networking", "networkmanager", "systemd-networkd", "network-manager",
     "internet", "the network", "interfaces", "all interfaces", "every interface"),
    ("route", "default route", "gateway", "routes"),
)
# "stop it working", in the words people use (verb stems; `turn … off` with a gap)
_STOP_WORD = regex(r"(?:stop|disabl|kill|mask|flush|reset|deactivat|remov|purg|delet|"
                        r"uninstall|halt|shutdown|down|off|drop|clear|panic|wip)[a-z]*")
_PHRASE_VERB = regex(r"(?:turn|switch|shut|bring|take|taking|took|put|pull)[a-z]*")
_STOP_VERBS = {"stop", "disable", "mask", "kill", "down", "off", "flush", "reset", "remove",
               "purge", "delete", "drop", "panic", "deactivate", "del", "shutdown", "halt",
               "-f", "-x", "-z", "--flush"}
_NEAR = 3  # a stop word at most this many words from the thing's name
# what a firewall has that a request may remove without removing the firewall
_PARTS_OF = {"rule", "rules", "config", "configuration", "profile", "profiles", "chain",
             "chains", "table", "tables", "jail", "jails", "zone", "zones", "log", "logs",
             "entry", "entries", "exception", "exceptions", "setting", "settings"}


def _names(thing: str) -> tuple[str, ...]:
    """The thing, by any of its names: its kind word or the names of its kind."""
    base = thing.lower().rsplit("@", 1)[0].removesuffix(".service").removesuffix(".socket")
    for kind in _KINDS:
        if base in kind:
            return kind
    return (base,) if base else ()


def _stops(words: list[str], names: tuple[str, ...]) -> list[int]:
    """Where the request asks to stop something: stop words ("disable", "stopped"), and
    both ends of "turn … off" / "bring … down"; not "stop rejecting my key" (the verb
    stops another action there)."""
    out: list[int] = []
    for i, word in enumerate(words):
        if _STOP_WORD.fullmatch(word):
            following = words[i + 1] if i + 1 < len(words) else ""
            if not (following.endswith("ing") and following not in names):
                out.append(i)
        elif _PHRASE_VERB.fullmatch(word):
            end = next((j for j in range(i + 1, min(i + 5, len(words)))
                        if words[j] in ("off", "down")), None)
            if end is not None:
                out += [i, end]
    return out


def _named_at(words: list[str], names: tuple[str, ...]) -> list[int]:
    out: list[int] = []
    for name in names:
        parts = name.split()
        out += [i for i in range(len(words) - len(parts) + 1)
                if words[i:i + len(parts)] == parts]
    return out


def requested(ctx: Context, verb: str, thing: str, *, exact: bool = False) -> bool:
    """The request asks for exactly this: it names the thing (by its kind, e.g. "the
    firewall", or any of its names, e.g. "ufw") and, close to that name, asks to stop it
    ("turn off", "shut down", "disable", "bring … down", …). A request about something
    else, or one that names the thing without asking to stop it, does not count."""
    if not ctx.requested:
        return False
    text = re.sub(r"[^a-z0-9_.@:-]+", " ", ctx.requested.lower()) + " "
    text = re.sub(r"[.:]+ ", " ", text)  # "the firewall." and "ssh:" name them too
    words = text.replace(".service ", " ").replace(".socket ", " ").split()[:400]
    names = (thing.lower(),) if exact else _names(thing)
    verb = verb.lower()
    if not names:  # nothing to name: the request must use this very verb
        return any(w.startswith(verb) for w in words)
    # `exact`: "remove ufw", never "remove the ufw rule for 8080" (a part of it)
    named = [j for j in _named_at(words, names)
             if not (exact and j + 1 < len(words) and words[j + 1] in _PARTS_OF)]
    if not named or words[0] in ("why", "what", "how", "where", "when", "who"):
        return False  # a question about it is not a request to stop it
    if verb in _STOP_VERBS or verb.removesuffix("ed") in _STOP_VERBS:
        stops = _stops(words, names)
        # "the firewall drops packets": the thing does it (third person), nobody asks
        return any(abs(i - j) <= _NEAR and not (i > j and words[i].endswith("s"))
                   for i in stops for j in named)
    return verb in words


def lockout(verdict: Verdict, ctx: Context, reason: str, verb: str, thing: str, *,
            exact: bool = False) -> None:
    """Blocked over SSH (CRITICAL) unless the request asks for exactly this (`requested`;
    `exact`: by this very name, as the object of the verb), else HIGH."""
    if ctx.remote and not requested(ctx, verb, thing, exact=exact):
        verdict.raise_to(RiskLevel.CRITICAL, f"{reason}; reos runs over SSH, so this would "
                         "lock you out", block=True, root=True)
    else:
        verdict.raise_to(RiskLevel.HIGH, reason, root=True)


# -- services ------------------------------------------------------------------------------

def _unit_name(unit: str) -> str:
    return unit.rsplit("@", 1)[0].removesuffix(".service").removesuffix(".socket")


def judge_systemctl(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    args = argv[1:]
    host = None
    words: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-H", "--host", "-M", "--machine"):
            host = args[i + 1] if i + 1 < len(args) else "?"
            i += 2
            continue
        if a.startswith(("--host=", "-H")) and a not in ("-H",) and not a.startswith("--help"):
            host = a.split("=", 1)[-1] if "=" in a else a[2:]
        elif a in ("-p", "--property", "-t", "--type", "--state", "-n", "--lines", "-o",
                   "--output", "--signal", "-s", "--kill-whom", "--root"):
            i += 2
            continue
        elif not a.startswith("-"):
            words.append(a)
        i += 1
    if host is not None:
        ctx = replace(ctx, remote=True)
    if is_read_only(argv):
        return
    verb = words[0] if words else ""
    units = [_unit_name(u) for u in words[1:]]
    if verb in ("poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "rescue",
                "emergency", "soft-reboot", "isolate", "default"):
        verdict.raise_to(RiskLevel.HIGH, "shuts down or restarts the machine",
                         reversible=False, root=True)
        if ctx.remote and verb in ("halt", "poweroff", "rescue", "emergency", "isolate"):
            lockout(verdict, ctx, f"systemctl {verb} takes the machine off the network",
                     verb, "")
        return
    stopping = verb in ("stop", "disable", "mask", "kill", "freeze")
    if stopping and any(u in SSH_UNITS for u in units):
        unit = next(u for u in units if u in SSH_UNITS)
        lockout(verdict, ctx, "stops remote (SSH) logins", verb, unit)
    elif stopping and any(u in FIREWALLS for u in units):
        unit = next(u for u in units if u in FIREWALLS)
        lockout(verdict, ctx, "turns off the firewall", verb, unit)
    elif stopping and any(u in NETWORK_MANAGERS for u in units):
        unit = next(u for u in units if u in NETWORK_MANAGERS)
        lockout(verdict, ctx, "stops the network", verb, unit)
    elif verb in ("start", "enable", "reenable", "unmask", "restart", "reload-or-restart",
                  "try-restart") and ctx.remote and any(u in NETWORK_MANAGERS for u in units):
        # a second manager started takes over the interfaces the first one set up, and a
        # restart drops and re-adds the addresses: either can cut the session it runs in
        unit = next(u for u in units if u in NETWORK_MANAGERS)
        lockout(verdict, ctx, "changes what manages the network's interfaces", verb, unit)
    elif verb in _LOADS and ctx.remote and any(u in FIREWALLS for u in units):
        _loads_rules(next(u for u in units if u in FIREWALLS), verb, verdict, ctx)
    elif stopping and any(u in ("systemd-journald", "dbus", "systemd-logind", "systemd-udevd",
                                "dbus-broker", "systemd-resolved") for u in units):
        verdict.raise_to(RiskLevel.HIGH, "stops a core system service", root=True)
    elif verb in ("restart", "reload-or-restart", "try-restart") and any(
            u in SSH_UNITS for u in units):
        verdict.raise_to(RiskLevel.MEDIUM, "restarts the SSH server", root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"changes a service ({verb or 'systemctl'})",
                         root=True)


# what makes a firewall's service load its rules, now or at boot
_LOADS = {"start": "starts", "enable": "enables", "reenable": "enables", "preset": "enables",
          "restart": "restarts", "try-restart": "restarts", "reload-or-restart": "restarts",
          "try-reload-or-restart": "restarts", "reload": "reloads"}


def _loads_rules(unit: str, verb: str, verdict: Verdict, ctx: Context) -> None:
    """A firewall's service started, restarted, reloaded or enabled over SSH: it loads all
    of that firewall's rules at once (now, or at the next boot). ufw's are read, as for
    `ufw enable` (`_closes_in`); the others' (firewalld's zones, nftables.conf, saved
    iptables rules) reos does not read, so blocked, except as an undo of reos stopping it."""
    what = f"{_LOADS[verb]} the firewall ({unit}), which loads its rules"
    if unit == "ufw":
        _closes_in(verdict, ctx, what)
    elif ctx.undoing:
        verdict.raise_to(RiskLevel.HIGH, f"{what} again, as before the change being undone",
                         root=True)
    else:
        verdict.raise_to(RiskLevel.CRITICAL, f"{what} while reos runs over SSH, which could "
                         "lock you out: reos does not read what those rules let in",
                         block=True, root=True)


def judge_service(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    ops = operands(argv)
    if len(ops) >= 2:
        judge_systemctl(["systemctl", ops[1], ops[0]], verdict, ctx)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "changes a service", root=True)


# -- firewall and network ------------------------------------------------------------------

def judge_firewall(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    program, ops, fl = argv[0].rsplit("/", 1)[-1], operands(argv), flags(argv)
    if is_read_only(argv):
        return
    if program == "ufw" and ops == ["disable"] and ctx.undoing:
        verdict.raise_to(RiskLevel.HIGH, "turns the firewall off again, as it was before "
                         "the change being undone", root=True)
    elif program == "ufw" and ops[:1] in (["disable"], ["reset"]):
        lockout(verdict, ctx, "turns off the firewall", ops[0], "ufw")
    elif program == "ufw" and ops[:1] == ["enable"]:
        _closes_in(verdict, ctx, "turns the firewall on")
    elif program == "ufw" and ops[:1] == ["default"]:
        _default_policy(ops, verdict, ctx)
    elif program == "ufw" and ops[:1] == ["limit"]:
        _limits(ops, verdict, ctx)
    elif program == "ufw" and ops == ["reload"]:
        _closes_in(verdict, ctx, "loads ufw's rules again")  # as saved, maybe not as running
    elif ctx.remote and not ctx.undoing and (
            program == "firewall-cmd" and any(a in ("--reload", "--complete-reload")
                                              for a in argv)
            or program == "nft" and ("-f" in fl or "--file" in fl) and "-c" not in fl
            and "--check" not in fl):
        verdict.raise_to(RiskLevel.CRITICAL, "loads the firewall's saved rules in place of "
                         "the running ones while reos runs over SSH, which could lock you "
                         "out: reos does not read what those rules let in",
                         block=True, root=True)
    elif program == "ufw" and ctx.remote and not ctx.ssh_checked and not ctx.undoing and (
            _cuts_session_port(ops)):
        lockout(verdict, ctx, _cuts_session_port(ops) or "", "deny", "ufw")
    elif program in ("iptables", "ip6tables", "iptables-legacy", "iptables-nft") and (
            fl & {"-F", "--flush", "-X", "--delete-chain"}):
        lockout(verdict, ctx, "removes firewall rules", "flush", "firewall")
    elif program in ("iptables", "ip6tables") and ("-P" in argv or "--policy" in argv):
        policy = next((argv[i + 2] for i, a in enumerate(argv[:-2]) if a in ("-P", "--policy")),
                      "")
        if policy in ("DROP", "REJECT"):
            lockout(verdict, ctx, "drops all traffic by default", "drop", "firewall")
        else:
            lockout(verdict, ctx, "opens the firewall to all traffic", "accept", "firewall")
    elif program == "nft" and ops[:1] in (["flush"], ["delete"]):
        lockout(verdict, ctx, "removes firewall rules", ops[0], "nftables")
    elif program == "firewall-cmd" and any("panic-on" in a for a in argv):
        lockout(verdict, ctx, "drops all network traffic (panic mode)", "panic", "firewall")
    elif program == "firewall-cmd" and any("remove" in a or "reset" in a for a in argv):
        verdict.raise_to(RiskLevel.HIGH, "changes the firewall", root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "changes the firewall", root=True)


def _default_policy(ops: list[str], verdict: Verdict, ctx: Context) -> None:
    """`ufw default POLICY [DIRECTION]`: deny or reject of incoming traffic (no direction
    is incoming) closes what no rule lets in; allow opens everything; other directions
    (outgoing, routed) are judged as closing, since reos does not read what they keep."""
    policy = ops[1] if len(ops) > 1 else ""
    direction = ops[2] if len(ops) > 2 else "incoming"
    if policy == "allow" and direction == "incoming" and len(ops) <= 3:
        verdict.raise_to(RiskLevel.HIGH, "lets every incoming connection in that no rule "
                         "denies", root=True)
    elif policy in ("deny", "reject") and direction == "incoming" and len(ops) <= 3:
        _closes_in(verdict, ctx, f"{'denies' if policy == 'deny' else 'rejects'} incoming "
                   "connections by default")
    else:
        _closes_in(verdict, ctx, "changes a default policy of the firewall", rules=False)


def _closes_in(verdict: Verdict, ctx: Context, what: str, *, rules: bool = True) -> None:
    """A ufw change after which only what its rules let in gets in (turned on, a default
    of deny or reject): over SSH, blocked unless ufw's rules let the session's port in
    from anywhere (`_keeps_ssh`; `rules=False`: a change whose effect reos does not read,
    always blocked over SSH); locally MEDIUM."""
    if not ctx.remote or ctx.ssh_checked:
        verdict.raise_to(RiskLevel.MEDIUM, what, root=True)
        return
    why = _keeps_ssh() if rules else "reos does not read what that default keeps out"
    if why:  # the lock-out first: a reason is cut at 200 characters
        verdict.raise_to(RiskLevel.CRITICAL, f"{what} while reos runs over SSH, which could "
                         f"lock you out: {why}", block=True, root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"{what}; ufw's rules let in the port your SSH "
                         "session came in on", root=True)


def _keeps_ssh() -> str | None:
    """Why ufw's rules here may not let in the SSH session reos runs in (its port from
    SSH_CONNECTION, from anywhere: `state_net.lets_in`), or None when they do. Read only
    when such a command is judged over SSH."""
    from reos.system import portable, state_net

    port, client = portable.ssh_port(), portable.ssh_client()
    if port is None:
        return "reos does not know which port your SSH session came in on"
    if portable.ssh_loopback() is not False:
        return ("your SSH session was passed on through a loopback address, so reos does "
                "not know which port it came in on")
    added, why = state_net.added_now()
    if added is None:
        return f"reos could not read ufw's rules ({why})"
    return state_net.lets_in(added, {port}, client)


def _cuts_session_port(ops: list[str]) -> str | None:
    """Why a ufw rule added or deleted here (`ufw [insert N|prepend] deny|reject …`,
    `ufw delete allow …`) could cut the SSH session reos runs in: it denies, or stops
    allowing, the port that session came in on (SSH_CONNECTION), or every port from an
    address; not known (the port, or what the rule is about) counts as cutting. None for
    a rule that allows, or one deleted that denies."""
    from reos.system import portable
    from reos.system.state_net import ufw_rule, ufw_rule_words

    rest, deleting = ufw_rule_words(ops)
    if not rest or rest[0] not in ("allow", "deny", "reject"):
        return None  # status, reload, show…, and a rule deleted by its number: judged so
    if (rest[0] == "allow") != deleting:
        return None  # a rule that allows, added, or one that denies, deleted
    doing = "stops allowing" if deleting else "denies"
    rule = ufw_rule(" ".join(["deny" if rest[0] == "reject" else rest[0], *rest[1:]]))
    port = portable.ssh_port()
    if rule is None:
        return f"{doing} something reos does not read while your SSH session runs"
    if rule[1] is None:
        source = rest[rest.index("from") + 1] if "from" in rest[:-1] else ""
        if not _holds(source, portable.ssh_client()):
            return None  # "ban 203.0.113.5": not where your SSH comes from
        return f"{doing} every port from {source}, where your SSH session comes from"
    if port is None or portable.ssh_loopback() is not False:
        return f"{doing} a port, and reos does not know which port your SSH session came in on"
    if any(low <= port <= high for low, high in rule[1]):
        return f"{doing} port {port}, which your SSH session came in on"
    return None


def _holds(source: str, client: str | None) -> bool:
    """Whether the address or network `source` holds `client` (the address the SSH session
    comes from); True when either is not known or not read."""
    import ipaddress

    if not client or not source or source == "any":
        return True
    try:
        return ipaddress.ip_address(client) in ipaddress.ip_network(source, strict=False)
    except ValueError:
        return True


def _limits(ops: list[str], verdict: Verdict, ctx: Context) -> None:
    """`ufw limit PORT[/PROTO]`: a burst of new connections to the port is cut; over SSH,
    blocked for the port the session came in on, and when that port is not known."""
    if not ctx.remote or ctx.ssh_checked:
        verdict.raise_to(RiskLevel.MEDIUM, "rate-limits new connections to a port", root=True)
        return
    from reos.system import portable
    from reos.system.state_net import ufw_rule

    port = portable.ssh_port()
    rule = ufw_rule(" ".join(ops[:2])) if len(ops) == 2 else None
    if port is None or portable.ssh_loopback() is not False:
        why = "reos does not know which port your SSH session came in on"
    elif rule is None:
        why = "reos does not read which ports it limits"
    elif rule[1] is None or any(low <= port <= high for low, high in rule[1]):
        why = (f"it limits port {port}, which your SSH session came in on (a burst of new "
               "connections is cut)")
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "rate-limits new connections to a port", root=True)
        return
    verdict.raise_to(RiskLevel.CRITICAL, "rate-limits new connections while reos runs over "
                     f"SSH, which could lock you out: {why}", block=True, root=True)


def default_route_interfaces() -> set[str]:
    """The interfaces that carry the default route (read only when needed)."""
    import json
    import subprocess

    found: set[str] = set()
    for family in ("-4", "-6"):
        try:
            done = subprocess.run(["ip", "-j", family, "route", "show", "default"],
                                  capture_output=True, text=True, timeout=3, check=False)
            routes = json.loads(done.stdout or "[]")
        except (OSError, ValueError, subprocess.SubprocessError):
            continue
        for route in routes if isinstance(routes, list) else []:
            if isinstance(route, dict) and route.get("dev"):
                found.add(str(route["dev"]))
            for hop in route.get("nexthops", []) if isinstance(route, dict) else []:
                if isinstance(hop, dict) and hop.get("dev"):
                    found.add(str(hop["dev"]))
    return found


def _interface_down(name: str, verdict: Verdict, ctx: Context, how: str) -> None:
    if ctx.remote and (dynamic(name) or name in default_route_interfaces()):
        lockout(verdict, ctx, f"{how} {name}, the interface of the default route", "down",
                 name)
    else:
        verdict.raise_to(RiskLevel.HIGH, f"{how} the network interface {name}", root=True)


def judge_ip(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    ops = [a for a in argv[1:] if not a.startswith("-")]
    if ops[:1] in (["link"], ["l"]) and "down" in ops:
        rest = [o for o in ops[2:] if o not in ("dev", "down")]
        _interface_down(rest[0] if rest else "?", verdict, ctx, "brings down")
    elif ops[:1] in (["route"], ["r"], ["ro"]) and len(ops) > 1 and ops[1] in (
            "del", "delete", "flush", "replace", "change") and (
            "default" in ops or "all" in ops or ops[1] == "flush"):
        if ctx.remote:
            lockout(verdict, ctx, "removes the default route", ops[1], "route")
        else:
            verdict.raise_to(RiskLevel.HIGH, "removes routes", root=True)
    elif ops[:1] in (["addr"], ["address"], ["a"]) and len(ops) > 1 and ops[1] in (
            "flush", "del", "delete"):
        dev = ops[ops.index("dev") + 1] if "dev" in ops and ops.index("dev") + 1 < len(ops) \
            else (ops[2] if len(ops) > 2 else "?")
        _interface_down(dev, verdict, ctx, "removes the addresses of")
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "changes the network configuration", root=True)


def judge_ifdown(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    ops = operands(argv)
    if "-a" in argv or "--all" in argv:
        lockout(verdict, ctx, "brings down every network interface", "down", "network")
        return
    for name in ops or ["?"]:
        _interface_down(name, verdict, ctx, "brings down")


def judge_nmcli(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    ops = operands(argv)
    if ops[:2] in (["networking", "off"], ["n", "off"], ["radio", "all"]):
        lockout(verdict, ctx, "turns off all networking", "off", "networking")
    elif len(ops) >= 3 and ops[0] in ("device", "dev", "d") and ops[1] in (
            "disconnect", "down", "delete"):
        for name in ops[2:]:
            _interface_down(name, verdict, ctx, "disconnects")
    elif len(ops) >= 3 and ops[0] in ("connection", "con", "c") and ops[1] in ("down",
                                                                               "delete"):
        verdict.raise_to(RiskLevel.HIGH, f"takes down the connection {ops[2]}", root=True)
        if ctx.remote and not requested(ctx, "down", ops[2]):
            lockout(verdict, ctx, f"takes down the connection {ops[2]}", "down", ops[2])
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "changes the network configuration", root=True)


def judge_ifconfig(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    ops = operands(argv)
    if "down" in ops and ops:
        _interface_down(ops[0], verdict, ctx, "brings down")
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "changes the network configuration", root=True)
