"""Collectors for the sections added in `reos.snapshot/2`: users and groups, processes,
mounts, block devices, interfaces, listening sockets, timers and the firewall.

Each function returns its section or raises `portable.Unavailable` with a reason a
person can read (users and groups are read by `portable`, which ships to other machines;
here they become records); `collectors.SECTIONS` registers them so `collect()` runs them
concurrently with its timeout. Read-only: libraries (pwd, grp, psutil) and commands that
only list, run through `portable.run_tool` (argv, timeout, no shell); JSON output is read
as JSON, never parsed by hand.
Not responsible for the snapshot's shape (`snapshot`) or for what the facts mean to a
request (`understanding`, `planning`).
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reos.system import portable
from reos.system.portable import Unavailable, run_tool, systemd_running
from reos.system.snapshot import (
    BlockDevice,
    Group,
    Interface,
    Listening,
    Mount,
    Process,
    Timer,
    User,
)

TOP = 40  # processes kept from each of the CPU and memory rankings
CPU_INTERVAL = 0.1  # seconds between the two CPU readings


# -- users and groups ------------------------------------------------------------------------


def users() -> list[User]:
    return [User(**row) for row in portable.users()]


def groups() -> list[Group]:
    return [Group(**row) for row in portable.groups()]


# -- sockets and processes -------------------------------------------------------------------

_sockets_lock = threading.Lock()
_sockets_cache: tuple[float, list[Any]] | None = None


def _listening_sockets() -> list[Any]:
    """psutil's listening TCP and bound UDP sockets, shared by `processes` and `listening`
    (both run in the same collection: one scan of /proc serves the two)."""
    global _sockets_cache
    import psutil

    with _sockets_lock:
        if _sockets_cache and time.monotonic() - _sockets_cache[0] < 1.0:
            return _sockets_cache[1]
        try:
            found = psutil.net_connections(kind="inet")
        except psutil.AccessDenied:
            raise Unavailable("the system does not let this user list sockets") from None
        keep = [c for c in found if c.laddr and (
            c.status == psutil.CONN_LISTEN
            or (c.type == _udp() and not c.raddr))]
        _sockets_cache = (time.monotonic(), keep)
        return keep


def _udp() -> int:
    import socket

    return socket.SOCK_DGRAM


def listening() -> list[Listening]:
    import psutil

    out = []
    names: dict[int, tuple[str, str]] = {}
    for c in _listening_sockets():
        name, unit = "", ""
        if c.pid is not None:
            if c.pid not in names:
                try:
                    names[c.pid] = (psutil.Process(c.pid).name(), portable.unit_of(c.pid))
                except psutil.Error:
                    names[c.pid] = ("", "")
            name, unit = names[c.pid]
        out.append(Listening(proto="udp" if c.type == _udp() else "tcp", address=c.laddr.ip,
                             port=c.laddr.port, pid=c.pid, process=name, unit=unit))
    return sorted(set(out), key=lambda s: (s.port, s.proto, s.address, s.pid or 0))


def processes() -> list[Process]:
    """About 100 processes: the top by CPU, the top by resident memory, and every one that
    owns a listening socket. CPU is measured over CPU_INTERVAL seconds."""
    import psutil

    procs = []
    for p in psutil.process_iter():
        try:
            p.cpu_percent(None)  # primes the counter
            procs.append(p)
        except psutil.Error:
            continue
    time.sleep(CPU_INTERVAL)
    measured = []
    for p in procs:
        try:
            with p.oneshot():
                measured.append((p, p.cpu_percent(None), p.memory_info().rss))
        except psutil.Error:
            continue
    try:
        listeners = {c.pid for c in _listening_sockets() if c.pid is not None}
    except Unavailable:
        listeners = set()
    by_cpu = sorted(measured, key=lambda m: m[1], reverse=True)[:TOP]
    by_memory = sorted(measured, key=lambda m: m[2], reverse=True)[:TOP]
    chosen = {m[0].pid: m for m in (*by_cpu, *by_memory)}
    chosen.update({m[0].pid: m for m in measured if m[0].pid in listeners})
    out = []
    for p, cpu, rss in chosen.values():
        try:
            with p.oneshot():
                info = p.as_dict(["ppid", "name", "username", "cmdline"])
        except psutil.Error:
            continue
        out.append(Process(
            pid=p.pid, ppid=info["ppid"] or 0, name=info["name"] or "",
            user=info["username"] or "", cmdline=" ".join(info["cmdline"] or []),
            cpu_percent=round(cpu, 1), memory_rss=rss,
        ))
    return sorted(out, key=lambda p: p.pid)


# -- disks -----------------------------------------------------------------------------------


def mounts() -> list[Mount]:
    import psutil

    out = []
    for part in psutil.disk_partitions(all=False):
        if not os.path.isdir(part.mountpoint):
            continue  # a file bind-mounted over another (a container's /etc/hosts)
        try:
            usage = psutil.disk_usage(part.mountpoint)
            total, used, free = usage.total, usage.used, usage.free
        except OSError:  # not ours to read, or gone: known mounted, size unknown
            total = used = free = 0
        out.append(Mount(device=part.device, mountpoint=part.mountpoint, fstype=part.fstype,
                         options=part.opts, total=total, used=used, free=free))
    return out


LSBLK = ["lsblk", "-J", "-b", "-o",
         "NAME,PATH,TYPE,SIZE,MODEL,VENDOR,LABEL,RM,FSTYPE,MOUNTPOINTS"]


def block_devices() -> list[BlockDevice]:
    try:
        text = run_tool(LSBLK, timeout=3)
    except Unavailable:
        if not shutil.which("lsblk"):
            raise
        # util-linux before 2.37 has no MOUNTPOINTS column, only MOUNTPOINT
        text = run_tool([*LSBLK[:-1], LSBLK[-1].replace("MOUNTPOINTS", "MOUNTPOINT")], timeout=3)
    try:
        tree = json.loads(text or "{}").get("blockdevices") or []
    except (ValueError, AttributeError):
        raise Unavailable("lsblk printed something that is not its JSON") from None
    out: list[BlockDevice] = []

    def walk(devices: list[dict[str, Any]]) -> None:
        for d in devices:
            points = d.get("mountpoints")
            if points is None:
                points = [d.get("mountpoint")]
            out.append(BlockDevice(
                name=str(d.get("name") or ""), path=str(d.get("path") or ""),
                type=str(d.get("type") or ""), size=_int(d.get("size")),
                model=str(d.get("model") or "").strip(),
                removable=d.get("rm") in (True, 1, "1", "true"),
                fstype=str(d.get("fstype") or ""),
                mountpoints=[str(p) for p in points if p],
                label=str(d.get("label") or "").strip(),
                vendor=str(d.get("vendor") or "").strip(),
            ))
            walk(d.get("children") or [])

    walk(tree)
    return out


def _int(value: Any) -> int:
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0


# -- network ---------------------------------------------------------------------------------


def interfaces() -> list[Interface]:
    try:
        links = json.loads(run_tool(["ip", "-j", "-d", "addr", "show"], timeout=3) or "[]")
    except ValueError:
        raise Unavailable("ip printed something that is not its JSON") from None
    return [Interface(
        name=str(link.get("ifname", "")), state=str(link.get("operstate", "")).lower(),
        mac=str(link.get("address") or ""),
        addresses=[f"{a['local']}/{a.get('prefixlen', '')}".rstrip("/")
                   for a in link.get("addr_info") or [] if a.get("local")],
        mtu=_int(link.get("mtu")),
        kind=_link_kind(link),
    ) for link in links if isinstance(link, dict) and link.get("ifname")]


_LINK_KINDS = {"wireguard": "wireguard", "bridge": "bridge", "vlan": "vlan", "bond": "bond",
               "veth": "veth", "tun": "tun", "macvlan": "vlan", "vxlan": "vlan"}


def _link_kind(link: dict[str, Any]) -> str:
    """What kind of link `ip -d` says it is; a plain ether link is wifi when the kernel
    gives it a wireless directory, else ethernet; "" when nothing says."""
    info = link.get("linkinfo")
    kind = info.get("info_kind") if isinstance(info, dict) else None
    if isinstance(kind, str) and kind:
        return _LINK_KINDS.get(kind, kind if kind.isalnum() else "")
    if link.get("link_type") == "loopback":
        return "loopback"
    if link.get("link_type") == "none":  # a tunnel with no kind: wireguard in a container
        return "tun"
    if link.get("link_type") == "ether":
        wireless = Path("/sys/class/net") / str(link.get("ifname")) / "wireless"
        return "wifi" if wireless.is_dir() else "ethernet"
    return ""


def timers() -> list[Timer]:
    if not systemd_running():
        raise Unavailable("systemd is not running on this machine")
    try:
        rows = json.loads(run_tool(["systemctl", "--no-pager", "list-timers", "--all",
                                "--output=json"], timeout=3) or "[]")
    except ValueError:
        raise Unavailable("systemctl printed something that is not its JSON") from None
    return [Timer(name=str(r.get("unit", "")), unit=str(r.get("activates") or ""),
                  next=_when(r.get("next")), last=_when(r.get("last")))
            for r in rows if r.get("unit")]


def _when(usec: Any) -> str:
    """systemd's microseconds since the epoch as ISO 8601 UTC; "" for never (0 or null)."""
    if not isinstance(usec, int) or isinstance(usec, bool) or usec <= 0:
        return ""
    try:
        moment = datetime.fromtimestamp(usec / 1_000_000, UTC)
    except (OverflowError, OSError, ValueError):
        return ""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# -- firewall --------------------------------------------------------------------------------


def firewall() -> dict[str, Any]:
    """Which of ufw, firewalld or nftables guards this machine, whether it is on, and
    its rules as that tool prints them (one string each; nftables rules as
    "family table chain handle N: expression").

    The one that is on wins (ufw, then firewalld, then nftables with any chain); when none
    is, ufw or firewalld when installed (what the machine's owner chose to manage it with),
    else nftables when `nft` exists."""
    root = os.geteuid() == 0
    ufw: dict[str, Any] | None = None
    if shutil.which("ufw"):
        if not root:
            raise Unavailable("ufw is installed but only root can read its status")
        lines = run_tool(["ufw", "status"], timeout=3).splitlines()
        active = any(line.strip().lower() == "status: active" for line in lines)
        ufw = {"backend": "ufw", "active": active, "rules": _ufw_rules(lines)}
        if active:
            return ufw
    firewalld: dict[str, Any] | None = None
    if shutil.which("firewall-cmd"):
        try:
            state = run_tool(["firewall-cmd", "--state"], timeout=3).strip()
        except Unavailable:
            state = "not running"  # exit 252 when the daemon is stopped
        if state == "running":
            listed = run_tool(["firewall-cmd", "--list-all"], timeout=3)
            return {"backend": "firewalld", "active": True,
                    "rules": [line.strip() for line in listed.splitlines() if line.strip()]}
        firewalld = {"backend": "firewalld", "active": False, "rules": []}
    if shutil.which("nft") and root:
        try:
            ruleset = json.loads(run_tool(["nft", "-j", "list", "ruleset"], timeout=3) or "{}")
        except ValueError:
            raise Unavailable("nft printed something that is not its JSON") from None
        items = [i for i in ruleset.get("nftables", []) if isinstance(i, dict)]
        chains = [i["chain"] for i in items if isinstance(i.get("chain"), dict)
                  and i["chain"].get("hook")]
        if chains:  # a base chain filters (even with no rule, by its policy)
            rules = [_nft_rule(i["rule"]) for i in items if isinstance(i.get("rule"), dict)]
            return {"backend": "nftables", "active": True, "rules": rules}
    if ufw or firewalld:
        return ufw or firewalld  # type: ignore[return-value]
    if shutil.which("nft"):
        if not root:
            raise Unavailable("nftables is installed but only root can list its rules")
        return {"backend": "nftables", "active": False, "rules": []}
    return {"backend": None, "active": False, "rules": []}


def _ufw_rules(lines: list[str]) -> list[str]:
    """The rule rows of `ufw status` (after its "--" ruler), whitespace collapsed."""
    if not any(line.startswith("--") for line in lines):
        return []
    start = next(i for i, line in enumerate(lines) if line.startswith("--")) + 1
    return [" ".join(line.split()) for line in lines[start:] if line.strip()]


def _nft_rule(rule: dict[str, Any]) -> str:
    """One nftables rule as `family table chain handle N: expression…`, close to `nft -a
    list` text."""
    where = f"{rule.get('family', '')} {rule.get('table', '')} {rule.get('chain', '')}"
    handle = rule.get("handle")
    if isinstance(handle, int) and not isinstance(handle, bool):
        where += f" handle {handle}"
    text = f"{where}: {nft_words(rule)}"
    return text if not rule.get("comment") else f"{text} comment \"{rule['comment']}\""


def nft_words(rule: dict[str, Any]) -> str:
    """A rule's expression as words ("tcp dport 22 drop"), without its counter."""
    words = [_nft_expr(e) for e in rule.get("expr") or [] if isinstance(e, dict)]
    return " ".join(w for w in words if w and w != "counter")


def _nft_value(value: Any) -> str:
    if isinstance(value, dict):
        if "payload" in value:
            p = value["payload"]
            return f"{p.get('protocol', '')} {p.get('field', '')}".strip()
        if "meta" in value:
            return str(value["meta"].get("key", ""))
        if "prefix" in value:
            return f"{_nft_value(value['prefix'].get('addr'))}/{value['prefix'].get('len')}"
        if "set" in value:
            return "{ " + ", ".join(_nft_value(v) for v in value["set"]) + " }"
        if "range" in value:
            return "-".join(_nft_value(v) for v in value["range"])
        if "ct" in value:
            return f"ct {value['ct'].get('key', '')}"
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, list):
        return ",".join(_nft_value(v) for v in value)
    return str(value)


def _nft_expr(expr: dict[str, Any]) -> str:
    if len(expr) != 1:
        return json.dumps(expr, separators=(",", ":"))
    kind, body = next(iter(expr.items()))
    if kind == "match" and isinstance(body, dict):
        op = body.get("op", "==")
        left, right = _nft_value(body.get("left")), _nft_value(body.get("right"))
        return f"{left} {right}" if op in ("==", "in") else f"{left} {op} {right}"
    if kind in ("accept", "drop", "return", "continue"):
        return kind
    if kind in ("jump", "goto") and isinstance(body, dict):
        return f"{kind} {body.get('target', '')}"
    if kind == "counter":
        return "counter"
    if kind == "reject":
        return "reject"
    if kind == "xt" and isinstance(body, dict):
        return f"xt {body.get('type', '')} {body.get('name', '')}".strip()
    if kind in ("masquerade", "log", "limit", "snat", "dnat", "redirect"):
        return kind if not body else f"{kind} {_nft_value(body)}"
    return json.dumps(expr, separators=(",", ":"))
