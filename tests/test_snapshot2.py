"""The `reos.snapshot/2` contract: the live snapshot from the installed CLI, checked field by
field against the list in issue 10 and value by value against psutil, pwd/grp, `ip -j`
and `lsblk -J`; older /1 files still load; hostile /2 files are clear errors naming the
field; and, in the Debian/systemd bed, the same contract from inside a real systemd host.
"""

from __future__ import annotations

import grp
import json
import pwd
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import psutil
import pytest

from reos.errors import UsageError
from reos.system.snapshot import SystemSnapshot
from tests.conftest import FIXTURES, reos, reos_json

# The contract, written out here on purpose (not imported from the code it checks).
FIELDS = {
    "users": {"name", "uid", "gid", "home", "shell", "groups", "locked", "system", "gecos",
              "password_locked", "last_change", "max_days", "expiry"},
    "groups": {"name", "gid", "members"},
    "processes": {"pid", "ppid", "name", "user", "cmdline", "cpu_percent", "memory_rss"},
    "mounts": {"device", "mountpoint", "fstype", "options", "total", "used", "free", "label"},
    "block_devices": {"name", "path", "type", "size", "model", "removable", "fstype",
                      "mountpoints", "label", "vendor"},
    "interfaces": {"name", "state", "mac", "addresses", "mtu", "kind"},
    "listening": {"proto", "address", "port", "pid", "process", "unit"},
    "timers": {"name", "unit", "next", "last"},
}
TYPES: dict[str, Any] = {
    "name": str, "uid": int, "gid": int, "home": str, "shell": str, "groups": list,
    "locked": bool, "system": bool, "members": list, "pid": int, "ppid": int, "user": str,
    "cmdline": str, "cpu_percent": (int, float), "memory_rss": int, "device": str,
    "mountpoint": str, "fstype": str, "options": str, "total": int, "used": int, "free": int,
    "path": str, "type": str, "size": int, "model": str, "removable": bool,
    "mountpoints": list, "state": str, "mac": str, "addresses": list, "mtu": int,
    "proto": str, "address": str, "port": int, "process": str, "unit": str, "next": str,
    "last": str, "gecos": str, "label": str, "vendor": str, "kind": str,
    # /etc/shadow's, read as root only (null: not read)
    "password_locked": (bool, type(None)), "last_change": (str, type(None)),
    "max_days": (str, type(None)), "expiry": (str, type(None)),
}


def assert_follows_contract(data: dict[str, Any]) -> None:
    assert data["schema"] == "reos.snapshot/2"
    for section, names in FIELDS.items():
        assert section in data, section
        items = data[section]
        if items is None:
            assert section in data["unavailable"], f"{section} is null without a reason"
            continue
        assert isinstance(items, list)
        for item in items:
            assert set(item) == names, (section, item)
            for key, value in item.items():
                if section == "listening" and key == "pid" and value is None:
                    continue  # a socket whose owner this user cannot see
                wanted = TYPES[key]
                assert isinstance(value, wanted) and not (
                    wanted is int and isinstance(value, bool)), (section, key, value)
                if isinstance(value, list):
                    assert all(isinstance(v, str) for v in value), (section, key, value)
    wall = data["firewall"]
    if wall is None:
        assert "firewall" in data["unavailable"]
    else:
        assert set(wall) == {"backend", "active", "rules"}
        assert wall["backend"] in ("ufw", "firewalld", "nftables", None)
        assert isinstance(wall["active"], bool)
        assert all(isinstance(r, str) for r in wall["rules"])


@pytest.fixture(scope="module")
def live() -> dict[str, Any]:
    return reos_json("context", "--json")


def test_the_live_snapshot_follows_the_contract(live: dict[str, Any]) -> None:
    assert_follows_contract(live)
    for section in ("users", "groups", "processes", "mounts", "interfaces"):
        assert live[section] is not None, live["unavailable"].get(section)


def test_users_and_groups_are_the_account_database(live: dict[str, Any]) -> None:
    assert [u["name"] for u in live["users"]] == [a.pw_name for a in pwd.getpwall()]
    assert [g["name"] for g in live["groups"]] == [g.gr_name for g in grp.getgrall()]
    root = next(u for u in live["users"] if u["name"] == "root")
    assert root["uid"] == 0 and root["system"] is True
    assert root["groups"][0] == grp.getgrgid(pwd.getpwnam("root").pw_gid).gr_name
    for user in live["users"]:
        account = pwd.getpwnam(user["name"])
        assert (user["uid"], user["gid"], user["home"], user["shell"]) == (
            account.pw_uid, account.pw_gid, account.pw_dir, account.pw_shell)
        supplementary = {g.gr_name for g in grp.getgrall() if user["name"] in g.gr_mem}
        assert set(user["groups"][1:]) == supplementary - {user["groups"][0]}
        if user["shell"].endswith("nologin"):
            assert user["system"] is True


def test_interfaces_mounts_and_block_devices_are_what_the_tools_say(live: dict) -> None:
    links = json.loads(subprocess.run(["ip", "-j", "addr"], capture_output=True, text=True,
                                      check=True).stdout)
    def lasting(names: list[str]) -> list[str]:  # a container's veth or network's bridge
        return sorted(n for n in names if not n.startswith(("veth", "br-")))  # comes and goes

    assert lasting([i["name"] for i in live["interfaces"]]) == lasting(
        [x["ifname"] for x in links])
    lo = next(i for i in live["interfaces"] if i["name"] == "lo")
    assert "127.0.0.1/8" in lo["addresses"]
    assert [m["mountpoint"] for m in live["mounts"]] == [  # files bind-mounted are not
        p.mountpoint for p in psutil.disk_partitions(all=False)  # filesystems people mean
        if Path(p.mountpoint).is_dir()]
    root = next(m for m in live["mounts"] if m["mountpoint"] == "/")
    assert root["total"] == psutil.disk_usage("/").total
    if shutil.which("lsblk") is None:
        assert live["block_devices"] is None
        return
    tree = json.loads(subprocess.run(["lsblk", "-J", "-b", "-o", "NAME,SIZE"], capture_output=True,
                                     text=True, check=True).stdout)["blockdevices"]
    names: list[str] = []

    def walk(devices: list[dict]) -> None:
        for d in devices:
            names.append(d["name"])
            walk(d.get("children") or [])

    walk(tree)
    assert [d["name"] for d in live["block_devices"]] == names


def test_a_process_listening_on_a_port_is_seen_with_its_pid() -> None:
    with socket.socket() as probe:  # a free port, chosen by the kernel
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = (f"import socket,time; s=socket.socket(); s.bind(('127.0.0.1',{port})); "
            "s.listen(); print('ready', flush=True); time.sleep(60)")
    server = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None and server.stdout.readline().strip() == "ready"
        data = reos_json("context", "--json")
        assert_follows_contract(data)
        found = [s for s in data["listening"] if s["port"] == port]
        # the systemd service it runs in, as its control group's path says ("" here
        # outside systemd)
        groups = Path(f"/proc/{server.pid}/cgroup").read_text()
        unit = ([w for w in re.split(r"[/:\n]", groups) if w.endswith(".service")] or [""])[-1]
        assert found == [{"proto": "tcp", "address": "127.0.0.1", "port": port,
                          "pid": server.pid, "process": psutil.Process(server.pid).name(),
                          "unit": unit}]
        ours = [p for p in data["processes"] if p["pid"] == server.pid]
        assert len(ours) == 1 and f"s.bind(('127.0.0.1',{port}))" in ours[0]["cmdline"]
        assert ours[0]["ppid"] == psutil.Process().pid or ours[0]["ppid"] > 0
        assert ours[0]["memory_rss"] > 0
    finally:
        server.kill()
        server.wait()


def test_processes_are_the_top_of_both_rankings_and_real(live: dict[str, Any]) -> None:
    assert 0 < len(live["processes"]) <= 40 + 40 + len(live["listening"] or [])
    pids = [p["pid"] for p in live["processes"]]
    assert len(pids) == len(set(pids))
    for p in live["processes"]:
        try:
            real = psutil.Process(p["pid"])
            name = real.name()  # the kernel keeps 15 characters; psutil may read more
            if real.ppid() == 2:  # a kernel worker renames itself after its current queue
                name, seen = name.split("-")[0], p["name"].split("-")[0]
            else:
                seen = p["name"]
            assert name.startswith(seen) or seen.startswith(name), (name, p)
            assert real.ppid() == p["ppid"]
        except psutil.NoSuchProcess:
            continue  # ended since
    biggest = max(psutil.process_iter(["memory_info"]),
                  key=lambda q: q.info["memory_info"].rss if q.info["memory_info"] else 0)
    assert biggest.pid in pids


def test_timers_and_firewall_say_why_when_unknown(live: dict[str, Any]) -> None:
    if not Path("/run/systemd/system").is_dir():
        assert live["timers"] is None and "systemd" in live["unavailable"]["timers"]
    if live["firewall"] is not None and live["firewall"]["backend"] is None:
        assert live["firewall"] == {"backend": None, "active": False, "rules": []}


def test_the_summary_counts_the_new_sections() -> None:
    done = reos("context")
    assert done.returncode == 0
    for word in ("users:", "processes:", "interfaces:", "listening:", "firewall:"):
        assert word in done.stdout


# -- files -----------------------------------------------------------------------------------

V1 = {"schema": "reos.snapshot/1", "collected_at": "2026-11-01T00:00:00Z",
      "host": {"hostname": "old"}, "containers": [], "services": None,
      "packages": [{"name": "curl", "version": "8"}],
      "users": "anything: /1 had no users", "unavailable": {"services": "no systemd"}}


def sample_v2() -> dict[str, Any]:
    return {
        "schema": "reos.snapshot/2", "collected_at": "2026-11-22T00:00:00Z", "host": {},
        "containers": None, "services": None, "packages": None,
        "users": [{"name": "alice", "uid": 1000, "gid": 1000, "home": "/home/alice",
                   "shell": "/bin/bash", "groups": ["alice", "sudo"], "locked": False,
                   "system": False}],
        "groups": [{"name": "sudo", "gid": 27, "members": ["alice"]}],
        "processes": [{"pid": 1, "ppid": 0, "name": "systemd", "user": "root",
                       "cmdline": "/sbin/init", "cpu_percent": 0.5, "memory_rss": 12000000}],
        "mounts": [{"device": "/dev/sda1", "mountpoint": "/", "fstype": "ext4",
                    "options": "rw", "total": 100, "used": 60, "free": 40}],
        "block_devices": [{"name": "sda", "path": "/dev/sda", "type": "disk", "size": 100,
                           "model": None, "removable": False, "fstype": None,
                           "mountpoints": []}],
        "interfaces": [{"name": "eth0", "state": "up", "mac": "02:00:00:00:00:01",
                        "addresses": ["10.0.0.2/24"], "mtu": 1500}],
        "listening": [{"proto": "tcp", "address": "0.0.0.0", "port": 22, "pid": None,
                       "process": ""}],
        "timers": [{"name": "fstrim.timer", "unit": "fstrim.service",
                    "next": "2026-11-23T00:00:00Z", "last": ""}],
        "firewall": {"backend": "ufw", "active": True, "rules": ["22/tcp ALLOW IN Anywhere"]},
        "unavailable": {},
    }


def test_a_v1_file_still_loads_with_the_new_sections_unknown(tmp_path: Path) -> None:
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(V1))
    snap = SystemSnapshot.load(path)
    assert snap.packages is not None and snap.packages[0].name == "curl"
    assert snap.containers == [] and snap.services is None
    for section in (*FIELDS, "firewall"):
        assert getattr(snap, section) is None, section
    out = snap.to_dict()
    assert out["schema"] == "reos.snapshot/2" and out["users"] is None
    assert out["firewall"] is None  # unknown is null, never [] or {}


def test_every_fixture_still_loads() -> None:
    for path in sorted(FIXTURES.glob("*.json")):
        snap = SystemSnapshot.load(path)
        assert SystemSnapshot.from_dict(snap.to_dict()).to_dict() == snap.to_dict()


def test_a_v2_file_round_trips(tmp_path: Path) -> None:
    data = sample_v2()
    snap = SystemSnapshot.from_dict(data)
    assert snap.users is not None and snap.users[0].groups == ["alice", "sudo"]
    assert snap.block_devices is not None and snap.block_devices[0].model == ""
    assert snap.listening is not None and snap.listening[0].pid is None
    out = snap.to_dict()
    assert_follows_contract(out)
    assert SystemSnapshot.from_dict(out).to_dict() == out
    data["users"][0]["shoe_size"] = 44  # keys a later version adds are ignored
    data["newer_section"] = [{"x": 1}]
    assert SystemSnapshot.from_dict(data).to_dict() == out


def hostile(path: str, value: Any) -> dict[str, Any]:
    data = sample_v2()
    section, index, key = path.split(".") if path.count(".") == 2 else (path, None, None)
    if index is None:
        data[section] = value
    else:
        data[section][int(index)][key] = value
    return data


@pytest.mark.parametrize("where,value,said", [
    ("users.0.uid", "1000", "users[0].uid must be a whole number"),
    ("users.0.uid", True, "users[0].uid must be a whole number"),
    ("users.0.uid", -1, "users[0].uid must be a whole number"),
    ("users.0.locked", "no", "users[0].locked must be true or false"),
    ("users.0.groups", "sudo", "users[0].groups must be a list of strings"),
    ("users.0.groups", ["sudo", 7], "users[0].groups[1] must be a string"),
    ("users.0.groups", ["g"] * 50_000, "users[0].groups has 50,000 items"),
    ("groups.0.members", [None], "groups[0].members[0] must be a string"),
    ("processes.0.cpu_percent", "high", "processes[0].cpu_percent must be a number"),
    ("processes.0.memory_rss", 1.5, "processes[0].memory_rss must be a whole number"),
    ("processes.0.cpu_percent", float("inf"), "processes[0].cpu_percent must be a number"),
    ("processes.0.cpu_percent", float("nan"), "processes[0].cpu_percent must be a number"),
    ("processes.0.cpu_percent", -1, "processes[0].cpu_percent must be a number of 0 or more"),
    ("host", {"hostname": "h", "os": {"id": "debian"}}, "host.os must be a string, number"),
    ("unavailable", {"users": 3}, "unavailable.users must be a string"),
    ("processes.0.cmdline", ["/sbin/init"], "processes[0].cmdline must be a string"),
    ("mounts.0.total", None, "mounts[0].total must be a whole number"),
    ("block_devices.0.removable", 0, "block_devices[0].removable must be true or false"),
    ("block_devices.0.mountpoints", [{}], "block_devices[0].mountpoints[0] must be a string"),
    ("interfaces.0.mtu", "1500", "interfaces[0].mtu must be a whole number"),
    ("interfaces.0.addresses", {"v4": "x"}, "interfaces[0].addresses must be a list"),
    ("listening.0.pid", "ssh", "listening[0].pid must be a whole number"),
    ("listening.0.port", 2**64, "listening[0].port must be a whole number"),
    ("timers.0.next", 1700000000, "timers[0].next must be a string"),
    ("users", {"alice": {}}, "users must be a list or null"),
    ("processes", [{"name": "no pid"}], 'processes[0] has no "pid"'),
    ("processes", [{"pid": 1}] * 200_001, "processes has 200,001 items"),
    ("timers", ["fstrim.timer"], "timers[0] must be an object"),
    ("firewall", ["22/tcp"], "firewall must be an object or null"),
    ("firewall", {"backend": "iptables", "active": True, "rules": []}, "firewall.backend"),
    ("firewall", {"backend": "ufw", "active": "yes", "rules": []}, "firewall.active"),
    ("firewall", {"backend": "ufw", "active": True, "rules": [1]}, "firewall.rules[0]"),
])
def test_hostile_v2_files_name_the_field(tmp_path: Path, where: str, value: Any,
                                         said: str) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile(where, value)))
    with pytest.raises(UsageError) as caught:
        SystemSnapshot.load(path)
    assert said in caught.value.message and str(path) in caught.value.message


def test_a_hostile_v2_file_is_exit_2_on_the_cli(tmp_path: Path) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(hostile("interfaces.0.mtu", [1500])))
    done = reos("plan", "--context", str(path), "list users")
    assert done.returncode == 2
    assert "interfaces[0].mtu" in done.stderr + done.stdout


# -- the Debian/systemd bed ------------------------------------------------------------------


@pytest.mark.docker
@pytest.mark.slow
def test_the_snapshot_inside_the_systemd_bed(bed) -> None:  # type: ignore[no-untyped-def]
    data = bed.reos_json("context")
    assert_follows_contract(data)
    users = {u["name"]: u for u in data["users"]}
    assert {"alice", "bob", "carol"} <= set(users)
    assert users["alice"]["shell"] == "/bin/bash" and users["alice"]["system"] is False
    assert users["alice"]["groups"][0] == "alice"
    assert users["root"]["system"] is True
    passwd = bed.run("getent", "passwd", check=True).stdout
    assert [u["name"] for u in data["users"]] == [line.split(":")[0]
                                                  for line in passwd.splitlines()]
    # carol has a password (chpasswd); the others were created without one ("!")
    assert users["carol"]["locked"] is False and users["alice"]["locked"] is True
    # as root, /etc/shadow's own fields: the "!" lock mark and the dates, as written
    for name in ("alice", "carol"):
        row = bed.run("getent", "shadow", name, check=True).stdout.strip().split(":")
        assert (users[name]["password_locked"], users[name]["last_change"],
                users[name]["max_days"], users[name]["expiry"]) == (
            row[1].startswith("!"), row[2], row[4], row[7])
    sudo = {g["name"]: g for g in data["groups"]}
    assert "sudo" in sudo
    assert data["timers"] is not None, data["unavailable"].get("timers")
    listed = json.loads(bed.run("systemctl", "list-timers", "--all", "--output=json",
                                check=True).stdout)
    assert sorted(t["name"] for t in data["timers"]) == sorted(t["unit"] for t in listed)
    assert all(t["unit"].endswith(".service") for t in data["timers"] if t["unit"])
    names = {p["name"] for p in data["processes"]}
    assert "systemd" in names and "nginx" in names
    nginx = [s for s in data["listening"] if s["port"] == 80]
    assert nginx and all(s["process"] == "nginx" and s["pid"] for s in nginx)
    assert "/etc/hosts" not in {m["mountpoint"] for m in data["mounts"]}  # a file, bind-mounted
    links = json.loads(bed.run("ip", "-j", "addr", check=True).stdout)
    assert [i["name"] for i in data["interfaces"]] == [x["ifname"] for x in links]
    # as alice: no /etc/shadow (no locks known), and the firewall needs root
    as_alice = bed.reos_json("context", user="alice", home="/home/alice/r")
    assert_follows_contract(as_alice)
    assert not any(u["locked"] for u in as_alice["users"])
    assert all(u["password_locked"] is None and u["expiry"] is None  # not read: null
               for u in as_alice["users"])
