"""Answers about the network and the firewall, in words.

Renderers for the read-only recipes of templates/network.toml and firewall.toml:
addresses (`ip -j addr`),
routes and the default gateway (`ip -j route`, `ip -j -6 route`), name servers
(/etc/resolv.conf and `resolvectl dns`), a bounded ping, whether the internet answers
(a ping and a name lookup), listening sockets (`ss -H -tulnp`), interface counters
(`ip -j -s link`) and the firewall (`ufw status verbose`, `firewall-cmd --state`
and `--list-all`, or `nft -j list ruleset`, whichever backend the machine has). And, for
templates/network_more.toml and security.toml: WireGuard (`wg show`), a name looked up
(`getent ahosts`), the neighbour table (`ip -j neigh`), the established connections
(`ss -H -tnp state established`), the path to a host (`tracepath -n`), fail2ban's jails
and bans (`fail2ban-client status`, `banned`) and the SSH server's configuration check
(`sshd -t`). Each says what matters first and cites the output lines it rests on;
everything shown is cleaned of control characters.

Not responsible for running commands or choosing them (recipes do).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice, join_names, size

Summariser = Callable[[list[StepResult], dict[str, str], Voice], str]

# answers whose steps may end non-zero as part of the answer: ping exits 1 when nothing
# answered and 2 when the name is unknown; resolvectl is missing without
# systemd-resolved; ufw needs root and may not be installed; getent exits 2 for a name
# that does not resolve; wg and fail2ban-client need root (and may not be installed);
# sshd -t exits 255 when the configuration is wrong; tracepath exits 1 when the host is
# not reached
TOLERANT = {"net_dns", "net_ping", "net_online", "firewall_status", "wireguard", "resolve",
            "trace", "fail2ban", "sshd_check"}


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _json_list(result: StepResult) -> list[dict[str, Any]] | None:
    try:
        loaded = json.loads(result.stdout or "[]")
    except json.JSONDecodeError:
        return None
    if not isinstance(loaded, list):
        return None
    return [item for item in loaded if isinstance(item, dict)]


def _reason(result: StepResult) -> str:
    lines = [line for line in clean(result.stderr or result.stdout).splitlines()
             if line.strip()]
    return lines[-1].strip()[:200] if lines else f"exit code {result.exit_code}"


def _name(link: dict[str, Any]) -> str:
    return clean(str(link.get("ifname", "?")))[:32]


def _link_state(link: dict[str, Any]) -> str:
    flags = link.get("flags") or []
    oper = str(link.get("operstate", "")).lower()
    if "UP" not in flags:
        return "down"
    if oper in ("up", "unknown", ""):
        return "up"
    return f"up, but its link is {clean(oper)}"  # no cable, no carrier


# -- addresses, routes, name servers ------------------------------------------------------

def addresses(links: list[dict[str, Any]]) -> dict[str, list[str]]:
    """interface name -> its addresses as "192.168.1.5/24" (IPv4 first)."""
    out: dict[str, list[str]] = {}
    for link in links:
        info = [a for a in link.get("addr_info") or [] if isinstance(a, dict)]
        info.sort(key=lambda a: a.get("family") != "inet")
        out[_name(link)] = [clean(f"{a.get('local')}/{a.get('prefixlen')}") for a in info
                            if a.get("local")]
    return out


def net_addresses(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    links = _json_list(results[0]) if results else None
    if links is None:
        return "I couldn't read the network addresses."
    if not links:
        return "There is no such interface."
    found = addresses(links)
    lines = []
    for link in links:
        name = _name(link)
        if name == "lo" and len(links) > 1 and not voice.detailed:
            continue
        addrs = found.get(name, [])
        mac = clean(str(link.get("address", "")))
        said = f"  {name} ({_link_state(link)}): " + (", ".join(addrs) if addrs
                                                     else "no address")
        if mac and voice.detailed and name != "lo":
            said += f"; MAC {mac}"
        lines.append(said)
    if not lines:
        return "This machine has no network addresses besides loopback."
    lan = [a for n, addrs in found.items() if n != "lo" for a in addrs
           if a.split("/")[0].count(".") == 3 and not a.startswith("127.")]
    head = (f"This machine's main IPv4 address is {lan[0].split('/')[0]}." if lan
            else "This machine has no IPv4 address besides loopback.")
    if voice.brief:
        return head
    return head + "\nAddresses per interface:\n" + "\n".join(lines)


def defaults(routes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(gateway, device) of each default route, in the kernel's order."""
    return [(clean(str(r.get("gateway", ""))), clean(str(r.get("dev", ""))))
            for r in routes if r.get("dst") == "default"]


def _route_line(route: dict[str, Any]) -> str:
    said = clean(str(route.get("dst", "?")))
    if route.get("gateway"):
        said += f" via {clean(str(route['gateway']))}"
    if route.get("dev"):
        said += f" dev {clean(str(route['dev']))}"
    if route.get("metric") is not None:
        said += f" metric {route['metric']}"
    if "linkdown" in (route.get("flags") or []):
        said += " (link down)"
    return said


def net_routes(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    v4 = _json_list(results[0]) if results else None
    if v4 is None:
        return "I couldn't read the routing table."
    v6 = (_json_list(results[1]) or []) if len(results) > 1 and results[1].ok else []
    gateways = defaults(v4)
    if gateways:
        gw, dev = gateways[0]
        head = f"Traffic to the internet leaves through {gw} on {dev} (the default route)."
        if len(gateways) > 1:
            head += " Other default routes: " + ", ".join(
                f"{g} on {d}" for g, d in gateways[1:]) + "."
    else:
        head = "There is no IPv4 default route: only the networks listed below are reachable."
    six = defaults(v6)
    if six:
        head += f" IPv6 leaves through {six[0][0]} on {six[0][1]}."
    if voice.brief:
        return head
    rows = [_route_line(r) for r in v4][:40]
    if voice.detailed:
        rows += [_route_line(r) for r in v6][:40]
    return head + "\nRoutes:\n" + "\n".join(f"  {r}" for r in rows)


def resolv_conf(text: str) -> tuple[list[str], list[str]]:
    """(name servers, search domains) of /etc/resolv.conf."""
    servers, search = [], []
    for line in clean(text).splitlines():
        parts = line.split("#", 1)[0].split()
        if len(parts) >= 2 and parts[0] == "nameserver":
            servers.append(parts[1])
        elif parts and parts[0] in ("search", "domain"):
            search += parts[1:]
    return servers, search


_STUBS = ("127.0.0.53", "127.0.0.54")


def net_dns(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    if not results or not results[0].ok:
        why = _reason(results[0]) if results else "nothing was read"
        return f"I couldn't read /etc/resolv.conf ({why})."
    servers, search = resolv_conf(results[0].stdout)
    per_link = []
    if len(results) > 1 and results[1].ok:
        for line in clean(results[1].stdout).splitlines():
            head, _, rest = line.partition(":")
            if rest.strip():
                per_link.append(f"{head.strip()}: {rest.strip()}")
    if not servers:
        text = "/etc/resolv.conf names no DNS server, so names are looked up nowhere."
    elif all(s in _STUBS for s in servers):
        text = (f"This machine asks systemd-resolved's local stub ({servers[0]}), which "
                "forwards to the servers below.")
        if not per_link:
            text += " (resolvectl gave no per-link servers.)"
    else:
        text = f"This machine asks {join_names(servers)} to look up names " \
               f"(nameserver lines of /etc/resolv.conf)."
    if search and not voice.brief:
        text += f" Search domains: {', '.join(search)}."
    if per_link and not voice.brief:
        text += "\nPer link (resolvectl dns):\n" + "\n".join(f"  {r}" for r in per_link[:20])
    return text


# -- reachability -----------------------------------------------------------------------------

_SENT = regex(r"(\d+) packets transmitted, (\d+) (?:packets )?received")
_RTT = regex(r"= ([\d.]+)/([\d.]+)/([\d.]+)")


def ping_summary(result: StepResult) -> tuple[int, int, float | None] | None:
    """(sent, received, average round trip in ms) of a ping's output, or None."""
    text = clean(result.stdout)
    sent = _SENT.search(text)
    if sent is None:
        return None
    rtt = _RTT.search(text)
    return int(sent[1]), int(sent[2]), float(rtt[2]) if rtt else None


def _host_of(result: StepResult, params: dict[str, str]) -> str:
    host = params.get("host")
    if host:
        return host
    first = clean(result.stdout).split("\n", 1)[0].split()
    return first[1] if len(first) > 1 and first[0] == "PING" else "the host"


def net_ping(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    if not results:
        return "Nothing was pinged."
    result = results[0]
    host = _host_of(result, params)
    summary = ping_summary(result)
    if summary is None:
        return f"I couldn't ping {host}: {_reason(result)}."
    sent, received, avg = summary
    line = next((x for x in clean(result.stdout).splitlines() if "transmitted" in x), "")
    if received == 0:
        return (f"{host} did not answer: {sent} pings sent, none came back ({line.strip()}). "
                "It may be down, unreachable from here, or set to ignore pings.")
    said = f"{host} is reachable: {received} of {sent} pings answered"
    said += f", {avg:.1f} ms on average." if avg is not None else "."
    if received < sent:
        said += f" {sent - received} got lost on the way ({line.strip()})."
    return said


def net_online(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    ping = ping_summary(results[0]) if results else None
    looked_up = len(results) > 1 and results[1].ok and bool(results[1].stdout.strip())
    reached = ping is not None and ping[1] > 0
    if reached and looked_up:
        avg = f" ({ping[2]:.0f} ms)" if ping and ping[2] is not None else ""
        return (f"Yes, you're online: 1.1.1.1 answered{avg} and example.org was looked up "
                "by name.")
    if reached:
        return ("The internet is reachable (1.1.1.1 answered) but names don't resolve: "
                "the DNS servers are the problem. Ask me which DNS servers this machine uses.")
    if looked_up:
        return ("Names resolve, but 1.1.1.1 did not answer pings: the internet may be up "
                "with pings blocked on the way.")
    return ("No: 1.1.1.1 did not answer and example.org could not be looked up. Check the "
            "default gateway (ask me for the routes) and the cable or Wi-Fi.")


# -- sockets and counters ----------------------------------------------------------------------

_SS_PROCESS = regex(r'users:\(\("([^"]+)",pid=(\d+)')
_SS_USERS = regex(r'\("([^"]+)",pid=(\d+)')
_LOOPBACK = ("127.", "[::1]", "::1")


def listening_rows(text: str) -> list[dict[str, str]]:
    """The sockets of `ss -H -tulnp`: proto, address, port, program, pid."""
    rows = []
    for line in clean(text).splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        local = parts[4]
        address, _, port = local.rpartition(":")
        who = _SS_PROCESS.search(line)
        rows.append({"proto": parts[0], "address": address.split("%", 1)[0], "port": port,
                     "program": who[1] if who else "", "pid": who[2] if who else ""})
    return rows


def _loopback(address: str) -> bool:
    return address.startswith(_LOOPBACK)


def net_listening(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    rows = listening_rows(results[0].stdout) if results else []
    if not rows:
        return "Nothing is listening on any port."
    seen: dict[tuple[str, str, str], set[str]] = {}
    for r in rows:
        who = f"{r['program']} (pid {r['pid']})" if r["program"] else "a process I can't see"
        seen.setdefault((r["proto"], r["port"], who), set()).add(r["address"])
    exposed, local = [], []
    for (proto, port, who), where in sorted(seen.items(),
                                           key=lambda i: (int(i[0][1]) if i[0][1].isdigit()
                                                          else 0, i[0][0])):
        if all(_loopback(a) for a in where):
            local.append(f"  {proto} {port:<6} {who}, this machine only")
        else:
            shown = ", ".join(sorted(where))
            exposed.append(f"  {proto} {port:<6} {who} on {shown}")
    head = (f"{_plural(len(exposed), 'socket')} reachable from the network"
            f" and {len(local)} only from this machine.")
    if voice.brief:
        return head + ("\n" + "\n".join(exposed[:10]) if exposed else "")
    text = head
    if exposed:
        text += "\nReachable from the network:\n" + "\n".join(exposed[:40])
    if local:
        text += "\nThis machine only:\n" + "\n".join(local[:40])
    if any(not r["program"] for r in rows):
        text += "\n(Sockets of other users' programs are named only when reos runs as root.)"
    return text


def _num(value: Any) -> int:
    return value if isinstance(value, int) else 0




def counters(link: dict[str, Any]) -> dict[str, int]:
    """rx/tx bytes, packets, errors and drops of one `ip -j -s link` entry."""
    stats = link.get("stats64") or link.get("stats") or {}
    out = {}
    for way in ("rx", "tx"):
        side = stats.get(way) or {}
        for key in ("bytes", "packets", "errors", "dropped"):
            out[f"{way}_{key}"] = _num(side.get(key))
    return out


def net_stats(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    links = _json_list(results[0]) if results else None
    if links is None:
        return "I couldn't read the interface counters."
    if not links:
        return "There is no such interface."
    lines, trouble = [], []
    for link in links:
        name = _name(link)
        if name == "lo" and len(links) > 1 and not voice.detailed:
            continue
        c = counters(link)
        lines.append(f"  {name} ({_link_state(link)}): received {size(c['rx_bytes'])}"
                     f" in {c['rx_packets']:,} packets, sent {size(c['tx_bytes'])}"
                     f" in {c['tx_packets']:,}; errors {c['rx_errors']} in /"
                     f" {c['tx_errors']} out, dropped {c['rx_dropped']} in /"
                     f" {c['tx_dropped']} out")
        bad = c["rx_errors"] + c["tx_errors"] + c["rx_dropped"] + c["tx_dropped"]
        if bad:
            trouble.append(name)
    head = ("Errors or drops on " + join_names(trouble) + "." if trouble
            else "No errors or drops on any interface.")
    if voice.brief:
        return head
    return head + " Counters since the interface came up:\n" + "\n".join(lines[:40])


# -- the firewall -------------------------------------------------------------------------------

def firewall_status(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    if not results:
        return "The firewall was not read."
    result = results[0]
    text = clean(result.stdout)
    if text.lstrip().startswith('{"nftables"'):
        return _nft_status(text, voice)
    if len(results) == 2 or text.strip() in ("running", "not running"):
        return _firewalld_status(results, voice)
    if not result.ok or "Status:" not in text:
        why = _reason(result)
        if result.exit_code == 127 or "not found" in why:
            return "ufw is not installed, so I can't read the firewall with it."
        return f"I couldn't read the firewall ({why})."
    if "Status: inactive" in text:
        return ("The firewall (ufw) is off: nothing is filtered by it. Its rules, if any, "
                "apply only once it's enabled.")
    from reos.system.state_net import ufw_rows

    rows = ufw_rows(text)
    policy = next((line.split(":", 1)[1].strip() for line in text.splitlines()
                   if line.startswith("Default:")), "")
    head = f"The firewall (ufw) is on with {_plural(len(rows), 'rule')}."
    if policy:
        head += f" Default: {policy}."
    if voice.brief or not rows:
        return head
    shown = [r for r in rows if voice.detailed or "(v6)" not in r["to"]]
    return head + "\nRules (first match wins):\n" + "\n".join(
        f"  {r['line']}" for r in shown[:60])


def _nft_status(text: str, voice: Voice) -> str:
    """`nft -j list ruleset`: the base chains (hook, policy) and their rules in order."""
    from reos.system.facts import nft_words

    try:
        items = [i for i in json.loads(text).get("nftables", []) if isinstance(i, dict)]
    except (ValueError, AttributeError):
        return "I couldn't read nft's answer (it was not its JSON)."
    chains = [i["chain"] for i in items if isinstance(i.get("chain"), dict)]
    rules = [i["rule"] for i in items if isinstance(i.get("rule"), dict)]
    hooked = [c for c in chains if c.get("hook")]
    if not hooked:
        return ("nftables has no chain hooked into the traffic, so nothing is filtered "
                f"({_plural(len(rules), 'rule')} in regular chains).")
    parts = [f"{c.get('family')} {c.get('table')} {c.get('name')} ({c.get('hook')}, "
             f"policy {c.get('policy', 'accept')})" for c in hooked]
    head = (f"The firewall (nftables) is on: {_plural(len(rules), 'rule')} in "
            f"{_plural(len(chains), 'chain')}; filtering chains: {', '.join(parts)}.")
    if voice.brief or not rules:
        return clean(head)
    shown = [f"  {r.get('family')} {r.get('table')} {r.get('chain')} [handle "
             f"{r.get('handle')}]: {nft_words(r)}" for r in rules[:60]]
    return clean(head + "\nRules (in order within each chain; first verdict wins):\n"
                 + "\n".join(shown))


def _firewalld_status(results: list[StepResult], voice: Voice) -> str:
    state = clean(results[0].stdout).strip()
    if results[0].exit_code == 127:
        return "firewall-cmd is not installed, so I can't read firewalld."
    if state != "running":
        return "firewalld is not running: nothing is filtered by it."
    lines = [line.strip() for line in clean(results[1].stdout if len(results) > 1 else "")
             .splitlines() if line.strip()]
    fields = {k.strip(): v.strip() for k, sep, v in (line.partition(":") for line in lines
                                                       if not line.startswith("rule"))
              if sep}
    rich = [line for line in lines if line.startswith("rule")]
    zone = lines[0] if lines else "its zone"
    head = (f"The firewall (firewalld) is on; zone {zone}: services "
            f"{fields.get('services') or 'none'}, ports {fields.get('ports') or 'none'}, "
            f"{_plural(len(rich), 'rich rule')}.")
    if voice.brief or not rich:
        return head
    return head + "\nRich rules:\n" + "\n".join(f"  {r}" for r in rich[:60])


def _root_refused(result: StepResult) -> bool:
    text = result.stderr + result.stdout
    return "password is required" in text or "a terminal is required" in text


_ROOT = "it needs root, and sudo asked for a password (run `sudo -v` first, or reos as root)"


# -- WireGuard ---------------------------------------------------------------------------------

def _wg_blocks(text: str) -> list[dict[str, Any]]:
    """`wg show`: "interface: wg0" blocks, each with "peer: KEY" blocks of "key: value"."""
    tunnels: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        key, colon, value = line.partition(":")
        if not colon:
            continue
        key, value = key.strip(), value.strip()
        if key == "interface":
            tunnels.append({"name": value, "peers": []})
        elif key == "peer" and tunnels:
            current = {"key": value}
            tunnels[-1]["peers"].append(current)
        elif tunnels and current is not None and tunnels[-1]["peers"]:
            current[key] = value
        elif tunnels:
            tunnels[-1][key] = value
    return tunnels


def _seconds_ago(text: str) -> int | None:
    units = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}
    total, seen = 0, False
    for amount, unit in re.findall(r"(\d+) (second|minute|hour|day|week)s?", text):
        total += int(amount) * units[unit]
        seen = True
    return total if seen else None


def wireguard(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    if not results:
        return "I couldn't read WireGuard's state."
    result = results[0]
    if _root_refused(result):
        return f"I couldn't read WireGuard's state: {_ROOT}."
    tunnels = _wg_blocks(clean(result.stdout))
    if not tunnels:
        if not result.ok:
            return f"I couldn't read WireGuard's state ({_reason(result)})."
        return "There is no WireGuard tunnel up on this machine."
    said = []
    for tunnel in tunnels:
        peers = tunnel["peers"]
        head = f"{tunnel['name']}: {_plural(len(peers), 'peer')}"
        if tunnel.get("listening port"):
            head += f", listening on UDP port {tunnel['listening port']}"
        said.append(head)
        for peer in peers[: 5 if voice.brief else 50]:
            handshake = peer.get("latest handshake", "")
            ago = _seconds_ago(handshake) if handshake else None
            state = ("never connected" if not handshake else
                     "connected" if ago is not None and ago <= 180 else
                     f"quiet: last handshake {handshake}")
            if state == "connected":
                state += f" (last handshake {handshake})"
            where = peer.get("endpoint", "no endpoint known")
            line = f"  {peer['key'][:10]}\u2026 ({where}, {peer.get('allowed ips', '?')}): {state}"
            if peer.get("transfer") and not voice.brief:
                line += f"; {peer['transfer']}"
            said.append(line)
    if not voice.brief:
        said.append("A peer that handshook in the last 3 minutes is connected; WireGuard "
                    "talks only when there is traffic, so a quiet peer may just be idle.")
    return "\n".join(said)


# -- names, neighbours, connections, paths ----------------------------------------------------

def resolve(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    """`getent ahosts NAME`: "ADDRESS STREAM NAME" lines, each address three times."""
    host = clean(params.get("host", "that name"))
    if not results:
        return f"I couldn't look up {host}."
    result = results[0]
    addresses = list(dict.fromkeys(line.split()[0] for line in clean(result.stdout).splitlines()
                                   if line.split()))
    if not addresses:
        if result.exit_code == 2 or result.ok:
            return (f"{host} does not resolve from this machine: no address in /etc/hosts, "
                    "DNS or whatever else nsswitch.conf asks.")
        return f"I couldn't look up {host} ({_reason(result)})."
    v4 = [a for a in addresses if ":" not in a]
    v6 = [a for a in addresses if ":" in a]
    said = [f"{host} resolves to"]
    if v4:
        said.append(f"{', '.join(v4)} (IPv4)")
    if v6:
        said.append(("and " if v4 else "") + f"{', '.join(v6)} (IPv6)")
    return " ".join(said) + "."


def neighbours(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    entries = _json_list(results[0]) if results else None
    if entries is None:
        return "I couldn't read the neighbour table" + (
            f" ({_reason(results[0])})." if results else ".")
    rows = []
    for entry in entries:
        state = [str(s).lower() for s in entry.get("state") or []]
        rows.append((str(entry.get("dev", "?")), str(entry.get("dst", "?")),
                     str(entry.get("lladdr") or "no MAC address"),
                     "not answering" if {"failed", "incomplete"} & set(state) else
                     ", ".join(state) or "?", "router" in entry))
    if not rows:
        return ("The neighbour table is empty: this machine has not talked to anything on its "
                "links lately.")
    rows.sort()
    answering = [r for r in rows if r[3] != "not answering"]
    shown = rows[: 10 if voice.brief else 100]
    lines = [f"  {clean(dst)} \u2192 {clean(mac)} on {clean(dev)} ({clean(state)})"
             + (", a router" if router else "") for dev, dst, mac, state, router in shown]
    return (f"{_plural(len(rows), 'neighbour')} on the local links ({len(answering)} answering; "
            "machines this one talked to lately):\n" + "\n".join(lines))


def connections(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`ss -H -tnp state established`: Recv-Q Send-Q LOCAL PEER [users:(("name",pid=N,…))]
    (the filter leaves the state column out)."""
    rows = []
    for line in clean(results[0].stdout if results else "").splitlines():
        parts = line.split()
        if len(parts) < 4 or not parts[0].isdigit():
            continue
        who = [f"{n} (pid {p})" for n, p in _SS_USERS.findall(line)] or ["?"]
        rows.append((who[0], parts[2], parts[3]))
    if not rows:
        if results and not results[0].ok:
            return f"I couldn't list the connections ({_reason(results[0])})."
        port = params.get("port")
        return (f"No TCP connection is open on port {port}." if port else
                "No TCP connection is open right now.")
    by_program: dict[str, int] = {}
    for program, _, _ in rows:
        by_program[program] = by_program.get(program, 0) + 1
    busiest = sorted(by_program.items(), key=lambda kv: -kv[1])[:6]
    said = (f"{_plural(len(rows), 'TCP connection')} open right now; by program: "
            + ", ".join(f"{w} {n}" for w, n in busiest) + ".")
    if "?" in by_program:
        said += " (\u201c?\u201d: another user's program, which only root may see.)"
    shown = rows[: 8 if voice.brief else 40]
    return said + "\n" + "\n".join(f"  {w}: {local} \u2194 {peer}" for w, local, peer in shown)


_HOP = regex(r"^\s*(\d+)\??:\s+(\S+)\s*(.*)$")


def trace(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`tracepath -n HOST`: " 1:  192.168.1.1  0.512ms" per probe, "no reply", then
    "Resume: pmtu 1500 hops 8 back 8"."""
    host = clean(params.get("host", "that host"))
    if not results:
        return f"I couldn't trace the path to {host}."
    result = results[0]
    hops: dict[int, tuple[str, str]] = {}
    for line in clean(result.stdout).splitlines():
        found = _HOP.match(line)
        if not found or found[2] == "[LOCALHOST]":
            continue
        number = int(found[1])
        if found[2] == "no":  # "no reply"
            hops.setdefault(number, ("no reply", ""))
            continue
        timing = re.search(r"([\d.]+ms)", found[3])
        if number not in hops or hops[number][0] == "no reply":
            hops[number] = (found[2], timing[1] if timing else "")
    if not hops:
        return f"I couldn't trace the path to {host} ({_reason(result)})."
    reached = re.search(r"Resume:.*hops (\d+)", result.stdout)
    lines = [f"  {n:>2}. {where}" + (f" ({ms})" if ms else "")
             for n, (where, ms) in sorted(hops.items())][: 30]
    head = (f"{host} is reached in {reached[1]} hops" if reached else
            f"{host} was not reached within {max(hops)} hops")
    silent = [n for n, (where, _) in hops.items() if where == "no reply"]
    if silent and not voice.brief:
        head += ("; routers that do not answer probes (\u201cno reply\u201d) are common and "
                 "not a fault on their own")
    return head + ":\n" + "\n".join(lines)


# -- fail2ban and the SSH server ---------------------------------------------------------------

def _banned(text: str) -> dict[str, list[str]]:
    """`fail2ban-client banned`: [{'sshd': ['1.2.3.4']}, {'recidive': []}] (read as data)."""
    import ast

    if len(text) > 1_000_000:
        return {}
    try:
        loaded = ast.literal_eval(text.strip() or "[]")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return {}
    out: dict[str, list[str]] = {}
    for item in loaded if isinstance(loaded, list) else []:
        if isinstance(item, dict):
            for jail, addresses in item.items():
                if isinstance(addresses, list):
                    out[clean(str(jail))] = [clean(str(a)) for a in addresses]
    return out


def fail2ban(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    if not results:
        return "I couldn't read fail2ban's state."
    status = results[0]
    if _root_refused(status):
        return f"I couldn't read fail2ban's state: {_ROOT}."
    if not status.ok:
        text = status.stderr + status.stdout
        if "fail2ban.sock" in text or "Is fail2ban running" in text:
            return ("fail2ban is not running (its socket does not answer): nothing is banned by "
                    "it now.")
        return f"I couldn't read fail2ban's state ({_reason(status)})."
    jails_line = next((line for line in status.stdout.splitlines() if "Jail list" in line), "")
    jails = [j.strip() for j in jails_line.partition(":")[2].split(",") if j.strip()]
    banned = _banned(results[1].stdout) if len(results) > 1 and results[1].ok else {}
    host = params.get("host")
    if host:
        holding = [jail for jail, addresses in banned.items() if host in addresses]
        if holding:
            return (f"Yes: {clean(host)} is banned in {join_names(holding)} (say "
                    f"\u201cunban {clean(host)}\u201d to let it in again).")
        if banned or (len(results) > 1 and results[1].ok):
            return f"No: {clean(host)} is not banned in any of fail2ban's jails."
    said = (f"fail2ban runs {_plural(len(jails), 'jail')}"
            + (f": {', '.join(clean(j) for j in jails)}" if jails else "") + ".")
    total = sum(len(a) for a in banned.values())
    if banned:
        said += f" {_plural(total, 'address')} banned now" + ("." if not total else ":")
        for jail, addresses in sorted(banned.items()):
            if addresses:
                shown = addresses[: 10 if voice.brief else 100]
                more = (f" and {len(addresses) - len(shown)} more"
                        if len(addresses) > len(shown) else "")
                said += f"\n  {jail}: {', '.join(shown)}{more}"
    elif len(results) > 1 and not results[1].ok:
        said += (" (This fail2ban cannot list its bans in one go; ask `fail2ban-client status "
                 "JAIL`.)")
    return said


def sshd_check(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    """`sshd -t`: silent and 0 when the configuration is valid, else the problems (255)."""
    if not results:
        return "I couldn't check the SSH server's configuration."
    result = results[0]
    if _root_refused(result):
        return f"I couldn't check the SSH server's configuration: {_ROOT}."
    problems = [line.strip() for line in clean(result.stderr + "\n" + result.stdout).splitlines()
                if line.strip()]
    if result.ok:
        said = ("The SSH server's configuration is valid: sshd -t found no errors, so a reload "
                "or restart of ssh will not fail on it.")
        return said + ("\nIt warned:\n" + "\n".join(f"  {p}" for p in problems[:10])
                       if problems else "")
    if result.exit_code == 127 or "not found" in " ".join(problems):
        return "sshd is not installed here, so there is no SSH server configuration to check."
    return ("The SSH server's configuration has errors: reloading or restarting ssh now would "
            "fail (the running server keeps its old settings until then):\n"
            + "\n".join(f"  {p}" for p in problems[:15]))


def tailscale(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`tailscale status --json`: whether this machine is on its tailnet, its addresses,
    and the peers (names are chosen by their owners: cleaned and cut)."""
    result = results[0] if results else None
    if result is None or not result.stdout.strip():
        said = clean(result.stderr if result else "").strip().splitlines()
        return ("I couldn't read Tailscale's status" +
                (f" ({said[0][:120]})." if said else " (is tailscale installed?)."))
    try:
        data = json.loads(result.stdout)
    except json.JSONDecodeError:
        return "Tailscale's status could not be read."
    if not isinstance(data, dict):
        return "Tailscale's status could not be read."
    state = clean(str(data.get("BackendState") or "unknown"))[:30]
    me: dict[str, Any] = data["Self"] if isinstance(data.get("Self"), dict) else {}
    listed = me.get("TailscaleIPs")
    ips = [clean(ip)[:45] for ip in listed if isinstance(ip, str)] if isinstance(
        listed, list) else []
    if state != "Running":
        hint = {"Stopped": "it is switched off (`tailscale up` connects it)",
                "NeedsLogin": "it needs a login (`tailscale up`)"}.get(state, f"it is {state}")
        return f"This machine is not on its tailnet: {hint}."
    lines = [f"This machine is on its tailnet as {clean(str(me.get('HostName') or '?'))[:40]}"
             f" ({', '.join(ips) or 'no address yet'})."]
    table = data.get("Peer")
    peers = [p for p in table.values() if isinstance(p, dict)] if isinstance(table, dict) else []
    online = [p for p in peers if p.get("Online")]
    if peers:
        lines.append(f"{len(online)} of {len(peers)} peer{'s' if len(peers) != 1 else ''} "
                     "online" + (":" if online else "."))
        for peer in online[: 5 if voice.brief else 20]:
            held = peer.get("TailscaleIPs")
            address = next((str(ip) for ip in held), "") if isinstance(held, list) else ""
            lines.append(f"  {clean(str(peer.get('HostName') or '?'))[:40]} "
                         f"{clean(address)[:45]}".rstrip())
    return "\n".join(lines)


ANSWERS: dict[str, Summariser] = {
    "tailscale": tailscale,
    "net_addresses": net_addresses,
    "net_routes": net_routes,
    "net_dns": net_dns,
    "net_ping": net_ping,
    "net_online": net_online,
    "net_listening": net_listening,
    "net_stats": net_stats,
    "firewall_status": firewall_status,
    "wireguard": wireguard,
    "resolve": resolve,
    "neighbours": neighbours,
    "connections": connections,
    "trace": trace,
    "fail2ban": fail2ban,
    "sshd_check": sshd_check,
}
