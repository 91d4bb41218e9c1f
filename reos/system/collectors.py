"""Collectors: read containers, services, packages and host facts from the live machine
(the sections added in `reos.snapshot/2` live in `facts`, registered in SECTIONS here).

Each collector returns its section or raises `portable.Unavailable` with a reason a
person can read; `collect()` runs them concurrently with a timeout, so one slow or broken
source gives `None` for its section, never a crash. Read-only by construction: every
command here only lists.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from reos.errors import log_raw
from reos.system import facts, portable
from reos.system.portable import COLLECT_TIMEOUT, Unavailable
from reos.system.snapshot import Container, Package, Service, SystemSnapshot


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
                ports=portable.published_ports(attrs.get("Ports") or []),
            )
        )
    return sorted(out, key=lambda c: c.name)


def services() -> list[Service]:
    return [Service(**row) for row in portable.services()]


def packages() -> list[Package]:
    return [Package(**row) for row in portable.packages()]


def host() -> dict[str, Any]:
    """The host's facts (`portable.host`), with the container runtime whose socket is
    here."""
    url = docker_base_url()
    runtime = ("podman" if "podman" in url else "docker") if url else None
    return {**portable.host(), "container_runtime": runtime}


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
