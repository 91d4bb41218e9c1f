"""In-process planning speed against a large saved snapshot (issue 3 target: <= 20 ms).

Builds a deterministic snapshot with 10,000 packages, 1,000 services, 500 containers,
2,000 users (and their groups) and 500 processes,
writes it to a temporary file, loads it as `reos plan --context` would, and times
`ReasoningEngine.plan` for a mix of requests: warm (indexes built), and cold (a fresh
engine per request, so the indexes that request needs are built inside the timing).
The very first call also loads the templates and is reported on its own.

    .venv/bin/python bench/plan_speed.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

REQUESTS = [
    "restart nginx", "stop the nextcloud containers", "restart ngnix", "uninstall pkg-04321",
    "install htop and jq", "restart the web server", "is portainer running?",
    "restart svc-0777", "stop app-0444-redis", "restart frobnicator", "upgrade everything",
    "is nextcloud running? if so stop it", "how much memory is free",
    "add user0777 to the docker group", "lock user1234", "kill java", "which groups is bob in",
]


def big_snapshot() -> dict:
    rng = random.Random(42)
    words = ["core", "lib", "tools", "data", "utils", "common", "dev", "doc", "bin", "extra"]
    packages = [{"name": f"pkg-{i:05d}-{rng.choice(words)}", "version": "1.0-1"}
                for i in range(9990)]
    packages += [{"name": n, "version": "1.0"} for n in
                 ("nginx", "vim", "git", "curl", "apache2", "pkg-04321", "openssh-server",
                  "linux-image-amd64", "bash", "coreutils")]
    services = [{"name": f"svc-{i:04d}.service", "description": f"Service number {i}",
                 "load": "loaded", "active": "active", "sub": "running", "enabled": "enabled"}
                for i in range(997)]
    services += [{"name": n, "description": d, "load": "loaded", "active": "active",
                  "sub": "running", "enabled": "enabled"} for n, d in
                 (("nginx.service", "A high performance web server"),
                  ("apache2.service", "The Apache HTTP Server"),
                  ("docker.service", "Docker Application Container Engine"))]
    containers = []
    for i in range(496):
        project = f"app-{i:04d}"
        containers.append({"name": f"{project}-redis", "id": f"{i:012x}", "image": "redis:7",
                           "state": "running", "status": "Up 2 hours",
                           "labels": {"com.docker.compose.project": project}})
    containers += [{"name": n, "id": "0", "image": "x", "state": "running", "status": "Up",
                    "labels": {"com.docker.compose.project": "nextcloud"}}
                   for n in ("nextcloud-app", "nextcloud-redis", "nextcloud-db")]
    containers.append({"name": "portainer", "id": "1", "image": "x", "state": "running",
                       "status": "Up", "labels": {}})
    users = [{"name": f"user{i:04d}", "uid": 1000 + i, "gid": 1000 + i,
              "home": f"/home/user{i:04d}", "shell": "/bin/bash",
              "groups": [f"user{i:04d}"] + (["docker"] if i % 7 == 0 else []),
              "locked": False, "system": False} for i in range(2000)]
    users.append({"name": "bob", "uid": 4000, "gid": 4000, "home": "/home/bob",
                  "shell": "/bin/bash", "groups": ["bob", "docker"], "locked": False,
                  "system": False})
    groups = [{"name": u["name"], "gid": u["gid"], "members": []} for u in users]
    groups.append({"name": "docker", "gid": 999, "members": [u["name"] for u in users
                                                              if "docker" in u["groups"]]})
    programs = ["nginx", "postgres", "java", "python3", "node", "redis-server", "sshd"]
    processes = [{"pid": 100 + i, "ppid": 1, "name": programs[i % len(programs)],
                  "user": "root", "cmdline": f"{programs[i % len(programs)]} --worker {i}",
                  "cpu_percent": float(i % 13), "memory_rss": (i % 50) * 2**20}
                 for i in range(500)]
    return {"schema": "reos.snapshot/2", "collected_at": "2026-11-21T00:00:00Z",
            "host": {"hostname": "big", "is_root": False, "package_manager": "apt"},
            "containers": containers, "services": services, "packages": packages,
            "users": users, "groups": groups, "processes": processes}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["REOS_HOME"] = home
        from reos.engine import ReasoningEngine
        from reos.settings import Settings
        from reos.system.snapshot import SystemSnapshot

        path = Path(home) / "big.json"
        path.write_text(json.dumps(big_snapshot()))
        start = time.perf_counter()
        snapshot = SystemSnapshot.load(path)
        load_ms = (time.perf_counter() - start) * 1000
        engine = ReasoningEngine(Settings(), snapshot=snapshot)
        start = time.perf_counter()
        engine.plan(REQUESTS[0])
        first_ms = (time.perf_counter() - start) * 1000
        cold = {}
        for request in REQUESTS:  # a fresh engine each time: indexes built for this request
            fresh = ReasoningEngine(Settings(), snapshot=snapshot)
            fresh._templates = engine.templates
            start = time.perf_counter()
            fresh.plan(request)
            cold[request] = (time.perf_counter() - start) * 1000
        per_request = {}
        for request in REQUESTS:
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                engine.plan(request)
                times.append((time.perf_counter() - start) * 1000)
            per_request[request] = statistics.median(times)
    print(f"snapshot: 10000 packages, 1000 services, 500 containers, 2001 users, 500"
          f" processes; load {load_ms:.1f} ms")
    print(f"first plan (templates + indexes): {first_ms:.1f} ms")
    worst_cold = max(cold, key=cold.get)
    print(f"cold plan with templates loaded, worst: {cold[worst_cold]:.1f} ms ({worst_cold})")
    for request, ms in per_request.items():
        print(f"  {ms:6.2f} ms  {request}")
    worst = max(per_request.values())
    print(f"median {statistics.median(per_request.values()):.2f} ms, worst {worst:.2f} ms "
          f"(target 20 ms: {'ok' if worst <= 20 else 'OVER'})")
    return 0 if worst <= 20 else 1


if __name__ == "__main__":
    raise SystemExit(main())
