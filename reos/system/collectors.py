"""Collectors: read containers, services, packages and host facts from the live machine
(the sections added in `reos.snapshot/2` live in `facts`, registered in SECTIONS here).

Each collector returns its section or raises `sources.Unavailable` with a reason a
person can read; `collect()` runs them concurrently with a timeout, so one slow or broken
source gives `None` for its section, never a crash. Read-only by construction: every
command here only lists.
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reos.errors import log_raw
from reos.system import facts
from reos.system.identity import machine_id
from reos.system.snapshot import Container, Package, Service, SystemSnapshot
from reos.system.sources import COLLECT_TIMEOUT, Unavailable, run_tool, systemd_running


def docker_base_url() -> str | None:
    """The engine socket: DOCKER_HOST, docker's socket, or podman's compatible one."""
    if os.environ.get("DOCKER_HOST"):
        return os.environ["DOCKER_HOST"]
    candidates = [Path("/var/run/docker.sock")]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        candidates.append(Path(runtime) / "podman" / "podman.sock")
    candidates.append(Path("/run/podman/podman.sock"))
    for sock in candidates:
        if sock.exists():
            return f"unix://{sock}"
    return None


def docker_client(timeout: float = 5.0) -> Any:
    """A docker SDK client, or Unavailable with the reason."""
    url = docker_base_url()
    if url is None:
        raise Unavailable("no Docker or Podman socket found (is the docker daemon running?)")
    import docker  # deferred: the SDK costs ~150 ms to import
    import docker.errors

    try:
        client = docker.DockerClient(base_url=url, timeout=timeout)
        client.ping()
    except docker.errors.DockerException as exc:
        # the SDK's own words (a urllib3 repr) are for developers: logged, never said
        log_raw(f"docker at {url}", exc)
        if "Permission denied" in str(exc):
            raise Unavailable(
                f"permission denied on {url} (add your user to the docker group)"
            ) from None
        raise Unavailable(f"Docker does not answer at {url} (is the docker daemon "
                          "running?)") from None
    return client


def containers() -> list[Container]:
    import docker.errors

    client = docker_client()
    try:
        found = client.containers.list(all=True, sparse=True)
    except docker.errors.DockerException as exc:
        log_raw("listing containers", exc)
        raise Unavailable("Docker answered but did not list its containers; try again, or "
                          "run `reos doctor`") from None
    finally:
        client.close()
    out = []
    for c in found:
        attrs = c.attrs
        names = attrs.get("Names") or [""]
        out.append(
            Container(
                name=names[0].lstrip("/"),
                id=attrs.get("Id", "")[:12],
                image=attrs.get("Image", ""),
                state=attrs.get("State", "unknown"),
                status=attrs.get("Status", ""),
                labels=dict(attrs.get("Labels") or {}),
                ports=_ports(attrs.get("Ports") or []),
            )
        )
    return sorted(out, key=lambda c: c.name)


def _ports(ports: list[Any]) -> list[str]:
    """Published ports as `docker ps` prints them ("0.0.0.0:8080->80/tcp"); exposed-only
    ones as "80/tcp"."""
    out = []
    for p in ports:
        if not isinstance(p, dict) or not p.get("PrivatePort"):
            continue
        inside = f"{p['PrivatePort']}/{p.get('Type') or 'tcp'}"
        public = p.get("PublicPort")
        item = f"{p.get('IP') or '0.0.0.0'}:{public}->{inside}" if public else inside
        if item not in out:
            out.append(item)
    return out


def services() -> list[Service]:
    if not systemd_running():
        raise Unavailable("systemd is not running on this machine")
    base = ["systemctl", "--no-pager", "--output=json", "--type=service"]
    units = json.loads(run_tool([*base, "--all", "list-units"]) or "[]")
    files = json.loads(run_tool([*base, "list-unit-files"]) or "[]")
    enabled = {f.get("unit_file"): f.get("state", "") for f in files}
    seen: dict[str, Service] = {}
    for u in units:
        name = u.get("unit", "")
        seen[name] = Service(
            name=name,
            description=u.get("description", ""),
            load=u.get("load", ""),
            active=u.get("active", ""),
            sub=u.get("sub", ""),
            enabled=enabled.get(name, ""),
        )
    for name, state in enabled.items():
        if name and name not in seen and not name.endswith("@.service"):
            seen[name] = Service(name=name, load="loaded", active="inactive", sub="dead",
                                 enabled=state)
    return sorted(seen.values(), key=lambda s: s.name)


def package_manager() -> str | None:
    for manager, tool in (("apt", "dpkg-query"), ("dnf", "rpm"), ("pacman", "pacman"),
                          ("apk", "apk"), ("zypper", "rpm")):
        if shutil.which(tool) and (manager != "dnf" or shutil.which("dnf") or
                                   not shutil.which("zypper")):
            return manager
    return None


def packages() -> list[Package]:
    manager = package_manager()
    if manager == "apt":
        text = run_tool(["dpkg-query", "-W", "-f",
                     "${db:Status-Abbrev}\t${Package}\t${Version}\t${binary:Summary}\n"])
        rows = [line.split("\t") for line in text.splitlines()]
        found = [Package(r[1], r[2], r[3]) for r in rows
                 if len(r) == 4 and r[0].startswith("ii")]
    elif manager in ("dnf", "zypper"):
        text = run_tool(["rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\t%{SUMMARY}\n"])
        found = [Package(*line.split("\t", 2)) for line in text.splitlines()
                 if line.count("\t") == 2]
    elif manager == "pacman":
        text = run_tool(["pacman", "-Q"])
        found = [Package(*line.split(" ", 1)) for line in text.splitlines() if " " in line]
    elif manager == "apk":
        text = run_tool(["apk", "info", "-v"])
        found = [Package(*_split_apk(line)) for line in text.splitlines() if line]
    else:
        raise Unavailable("no supported package manager (apt, dnf, pacman, zypper, apk)")
    return sorted(found, key=lambda p: p.name)


def _split_apk(line: str) -> tuple[str, str]:
    # apk prints name-version-release, e.g. "musl-1.2.4-r2"
    parts = line.rsplit("-", 2)
    return (parts[0], "-".join(parts[1:])) if len(parts) == 3 else (line, "")


def host() -> dict[str, Any]:
    import psutil  # deferred: only needed for live snapshots

    try:
        release = platform.freedesktop_os_release()
    except OSError:
        release = {}
    runtime = None
    url = docker_base_url()
    if url:
        runtime = "podman" if "podman" in url else "docker"
    return {
        "hostname": socket.gethostname(),
        "machine_id": machine_id(),
        "distro_id": release.get("ID", platform.system().lower()),
        "distro_version": release.get("VERSION_ID", ""),
        "kernel": platform.release(),
        "is_root": os.geteuid() == 0,
        "user": _person(),
        "init": "systemd" if systemd_running() else Path("/proc/1/comm").read_text().strip(),
        "package_manager": package_manager(),
        "container_runtime": runtime,
        "cpu_count": psutil.cpu_count(),
        "memory_total_bytes": psutil.virtual_memory().total,
        "boot_time": datetime.fromtimestamp(psutil.boot_time(), UTC).isoformat(),
    }


def _person() -> str:
    """The account of the person reos works for: the one that ran sudo when reos runs
    under it, else the one it runs as ("add me to the docker group")."""
    import pwd

    by_sudo = os.environ.get("SUDO_USER", "")
    try:
        if by_sudo and by_sudo != "root":
            return pwd.getpwnam(by_sudo).pw_name
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return ""


SECTIONS: dict[str, Callable[[], Any]] = {
    "containers": containers, "services": services, "packages": packages,
    "users": facts.users, "groups": facts.groups, "processes": facts.processes,
    "mounts": facts.mounts, "block_devices": facts.block_devices,
    "interfaces": facts.interfaces, "listening": facts.listening, "timers": facts.timers,
    "firewall": facts.firewall}


def _label_mounts(snap: SystemSnapshot) -> None:
    """Each mount takes the label of the device it is on (lsblk knows it, psutil not)."""
    if not snap.mounts or not snap.block_devices:
        return
    from msgspec.structs import replace

    labels = {d.path: d.label for d in snap.block_devices if d.label and d.path}
    snap.mounts = [replace(m, label=labels[m.device]) if m.device in labels
                   else m for m in snap.mounts]


def collect(timeout: float = COLLECT_TIMEOUT) -> SystemSnapshot:
    """Collect every section concurrently; a failing one becomes None plus a reason."""
    snap = SystemSnapshot(collected_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    pool = ThreadPoolExecutor(max_workers=len(SECTIONS) + 1, thread_name_prefix="collect")
    futures = {name: pool.submit(fn) for name, fn in SECTIONS.items()}
    host_future = pool.submit(host)
    for name, future in futures.items():
        try:
            setattr(snap, name, future.result(timeout=timeout))
        except FutureTimeout:
            snap.unavailable[name] = f"collecting {name} took longer than {timeout:.0f}s"
        except Unavailable as exc:
            snap.unavailable[name] = str(exc)
        except Exception as exc:  # a collector bug must not take planning down with it
            log_raw(f"collecting {name}", exc)
            snap.unavailable[name] = "a problem in reos itself kept it from being read"
    _label_mounts(snap)
    try:
        snap.host = host_future.result(timeout=timeout)
    except Exception as exc:
        snap.host = {"hostname": socket.gethostname(), "is_root": os.geteuid() == 0}
        snap.unavailable["host"] = f"host facts incomplete: {exc}"
    pool.shutdown(wait=False, cancel_futures=True)
    return snap
