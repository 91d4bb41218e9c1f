"""Random realistic snapshots: machines whose names nobody on the project chose.

`machine(seed)` builds a `reos.snapshot/2` document the way real hosts look: compose
projects named after teams or apps, containers named by compose (`proj-svc-1`,
`proj_svc_1`) or by hand, images from real registries with tags, services with their
real descriptions, people with full names, a USB disk with a label, a WireGuard link.
The same seed always gives the same machine. Used by test_random_machines.py to check
that matching finds things by name and by what they are, and never acts on anything
the words do not name.
"""

from __future__ import annotations

import random
import string
from typing import Any

PROJECTS = ["billing", "intranet", "crm", "shop", "wiki", "media", "monitor", "erp",
            "helpdesk", "warehouse", "website", "chat", "photos", "accounting", "builds"]
SERVICES = [  # compose service -> image
    ("db", "postgres:{v}"), ("db", "mariadb:{v}"), ("cache", "redis:{v}-alpine"),
    ("web", "nginx:1.{v}"), ("app", "ghcr.io/example/{p}:{v}.2"), ("search",
    "docker.elastic.co/elasticsearch/elasticsearch:8.{v}.0"), ("queue", "rabbitmq:3.{v}"),
    ("proxy", "traefik:v2.{v}"), ("metrics", "prom/prometheus:v2.{v}.0"),
    ("grafana", "grafana/grafana:10.{v}.1"), ("wiki", "lscr.io/linuxserver/bookstack:23.{v}"),
    ("vault", "vaultwarden/server:1.{v}.0"), ("media", "jellyfin/jellyfin:10.{v}.3"),
]
UNITS = [
    ("nginx.service", "A high performance web server and a reverse proxy server"),
    ("postgresql.service", "PostgreSQL RDBMS"), ("cups.service", "CUPS Scheduler"),
    ("smbd.service", "Samba SMB Daemon"), ("nut-monitor.service", "Network UPS Tools - "
                                                                 "power device monitor"),
    ("fail2ban.service", "Fail2Ban Service"), ("cron.service", "Regular background program "
                                                              "processing daemon"),
    ("ssh.service", "OpenBSD Secure Shell server"), ("postfix.service", "Postfix Mail "
                                                                       "Transport Agent"),
    ("chrony.service", "chrony, an NTP client/server"),
]
FIRST = ["anna", "bruno", "chiara", "dmitri", "elif", "farid", "greta", "hiro", "ines",
         "jonas", "keiko", "lars", "mira", "nadia", "oskar", "priya", "quentin", "rosa"]
LAST = ["almeida", "berger", "costa", "dubois", "eriksen", "fischer", "garcia", "haddad",
        "ivanova", "jensen", "kowalski", "lindqvist", "moreau", "nakamura", "okafor"]


def _word(rng: random.Random, size: int) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(size))


def machine(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    containers: list[dict[str, Any]] = []
    for project in rng.sample(PROJECTS, rng.randint(2, 4)):
        sep = rng.choice(["-", "_"])
        for service, image in rng.sample(SERVICES, rng.randint(1, 4)):
            name = (f"{project}{sep}{service}{sep}1" if rng.random() < 0.5
                    else f"{project}{sep}{service}")
            containers.append({
                "name": name, "id": f"{rng.getrandbits(48):012x}",
                "image": image.format(v=rng.randint(1, 16), p=project),
                "state": rng.choice(["running", "running", "exited"]), "status": "",
                "labels": {"com.docker.compose.project": project,
                           "com.docker.compose.service": service}})
    for _ in range(rng.randint(0, 2)):  # hand-named ones, not in a project
        service, image = rng.choice(SERVICES)
        containers.append({"name": _word(rng, rng.randint(4, 8)), "id": "0" * 12,
                           "image": image.format(v=rng.randint(1, 16), p="x"),
                           "state": "running", "status": "", "labels": {}})
    names = set()
    containers = [c for c in containers if not (c["name"] in names or names.add(c["name"]))]
    people = []
    used: set[str] = set()
    for uid, (first, last) in enumerate(
            {(rng.choice(FIRST), rng.choice(LAST)) for _ in range(rng.randint(3, 8))}, 1001):
        login = (first[0] + last)[:12]
        if login in used:
            continue
        used.add(login)
        people.append({"name": login, "uid": uid, "gid": uid, "home": f"/home/{login}",
                       "shell": "/bin/bash", "groups": [login], "locked": False,
                       "system": False, "gecos": f"{first.title()} {last.title()},,,"})
    label = rng.choice(["BACKUP", "OFFSITE", "ARCHIVE", "USBDISK"])
    return {
        "schema": "reos.snapshot/2", "collected_at": "2026-11-26T10:00:00Z",
        "host": {"hostname": f"host-{seed}", "distro_id": "debian", "distro_version": "12",
                 "kernel": "6.1.0", "is_root": False, "init": "systemd",
                 "package_manager": "apt", "container_runtime": "docker"},
        "containers": containers,
        "services": [{"name": n, "description": d, "load": "loaded", "active": "active",
                      "sub": "running", "enabled": "enabled"}
                     for n, d in rng.sample(UNITS, rng.randint(4, len(UNITS)))],
        "packages": [{"name": "bash", "version": "5.2"}, {"name": "curl", "version": "7.88"}],
        "users": [{"name": "root", "uid": 0, "gid": 0, "home": "/root", "shell": "/bin/bash",
                   "groups": ["root"], "locked": False, "system": True, "gecos": "root"},
                  *people],
        "groups": [{"name": "root", "gid": 0, "members": []},
                   *({"name": p["name"], "gid": p["gid"], "members": []} for p in people)],
        "processes": [],
        "mounts": [{"device": "/dev/sda1", "mountpoint": "/", "fstype": "ext4",
                    "options": "rw", "total": 10**11, "used": 10**10, "free": 9 * 10**10},
                   {"device": "/dev/sdb1", "mountpoint": "/mnt/" + label.lower(),
                    "fstype": "ext4", "options": "rw", "total": 10**12, "used": 10**11,
                    "free": 9 * 10**11, "label": label}],
        "block_devices": [
            {"name": "sda", "path": "/dev/sda", "type": "disk", "size": 10**11,
             "model": "Samsung SSD 870", "removable": False, "fstype": None,
             "mountpoints": []},
            {"name": "sda1", "path": "/dev/sda1", "type": "part", "size": 10**11,
             "model": None, "removable": False, "fstype": "ext4", "mountpoints": ["/"]},
            {"name": "sdb", "path": "/dev/sdb", "type": "disk", "size": 10**12,
             "model": "Portable HDD", "removable": True, "fstype": None, "mountpoints": [],
             "vendor": rng.choice(["Seagate", "WD", "Toshiba"])},
            {"name": "sdb1", "path": "/dev/sdb1", "type": "part", "size": 10**12,
             "model": None, "removable": True, "fstype": "ext4",
             "mountpoints": ["/mnt/" + label.lower()], "label": label}],
        "interfaces": [
            {"name": "lo", "state": "unknown", "mac": "", "addresses": ["127.0.0.1/8"],
             "mtu": 65536, "kind": "loopback"},
            {"name": rng.choice(["eno1", "enp2s0", "ens18"]), "state": "up", "mac": "",
             "addresses": ["10.1.0.5/24"], "mtu": 1500, "kind": "ethernet"},
            {"name": rng.choice(["wg0", "vpn0", "office"]), "state": "unknown", "mac": "",
             "addresses": ["10.9.0.1/24"], "mtu": 1420, "kind": "wireguard"}],
        "listening": [], "timers": [],
        "firewall": {"backend": "ufw", "active": True, "rules": []},
    }
