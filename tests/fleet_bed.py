"""The fleet bed: Debian/systemd hosts reachable over SSH with key auth, for the fleet tests.

scripts/testbed-fleet.sh (run by `make test`) builds the image and the key; `start` makes
a user-defined docker network and one container per host on it, waits for systemd and
sshd, and writes what a person would have: an INI inventory naming each host by its
address, with the key, the login (bob: sudo without a password) and a known_hosts file
holding the hosts' keys (`known=False` leaves it empty: a host key not yet known). A host
in `engine` shares this machine's Docker engine, for containers on a host.

Not a test of its own; the tests use `Fleet.run` (docker exec, as root) to look at a host
from outside, never reos's code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

IMAGE = "reos-test/debian-ssh:2"
STATE_DIR = Path("/var/tmp/reos-testbed")
KEY = STATE_DIR / "fleet" / "id_ed25519"
GROUPS = {"web": ("web1", "web2"), "db": ("db1",)}
DOCKER_SOCKET = "/var/run/docker.sock"
_ENGINE = ("-v", f"{DOCKER_SOCKET}:{DOCKER_SOCKET}",
           "-v", f"{shutil.which('docker') or '/usr/bin/docker'}:/usr/local/bin/docker:ro")


@dataclass
class Fleet:
    network: str
    folder: Path
    containers: dict[str, str] = field(default_factory=dict)  # host name -> container
    addresses: dict[str, str] = field(default_factory=dict)

    @property
    def inventory(self) -> Path:
        return self.folder / "hosts.ini"

    @property
    def known_hosts(self) -> Path:
        return self.folder / "known_hosts"

    def run(self, host: str, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["docker", "exec", self.containers[host], *argv],
                              capture_output=True, text=True, timeout=timeout)

    def state(self, host: str, unit: str) -> str:
        return self.run(host, "systemctl", "is-active", unit).stdout.strip()

    def pid(self, host: str, unit: str) -> str:
        return self.run(host, "systemctl", "show", "-p", "MainPID", "--value", unit).stdout.strip()

    def pause(self, host: str) -> None:
        """The host stops answering (its processes frozen): SSH to it times out."""
        subprocess.run(["docker", "pause", self.containers[host]], check=True,
                       capture_output=True)

    def unpause(self, host: str) -> None:
        subprocess.run(["docker", "unpause", self.containers[host]], capture_output=True)

    def write_inventory(self, *, user: str = "bob", extra: str = "") -> Path:
        grouped = {n for names in GROUPS.values() for n in names}
        lines = [f"{name} ansible_host={address}" for name, address in self.addresses.items()
                 if name not in grouped]  # a host of no group: ungrouped
        for group, names in GROUPS.items():
            lines.append(f"[{group}]")
            lines += [f"{name} ansible_host={self.addresses[name]}" for name in names
                      if name in self.addresses]
            lines.append("")
        lines += ["[all:vars]", f"ansible_user={user}",
                  f"ansible_ssh_private_key_file={KEY}",
                  f"ansible_ssh_common_args='-o UserKnownHostsFile={self.known_hosts}'",
                  "ansible_python_interpreter=/usr/bin/python3", extra, ""]
        self.inventory.write_text("\n".join(lines))
        return self.inventory


def available() -> str | None:
    """Why the fleet bed cannot be used here, or None when it can."""
    if subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True).returncode:
        return f"image {IMAGE} missing (run scripts/testbed-fleet.sh)"
    if not KEY.is_file():
        return f"the test key {KEY} is missing (run scripts/testbed-fleet.sh)"
    return None


def start(folder: Path, names: tuple[str, ...] = ("web1", "web2", "db1"), *,
          known: bool = True, engine: tuple[str, ...] = (),
          net_admin: tuple[str, ...] = ()) -> Fleet:
    """The hosts `names`, up and reachable; those in `engine` share this machine's Docker
    engine (its socket, and its docker program, read-only), as a host running docker
    would, with the login account bob in the group that owns the socket; those in
    `net_admin` may change their own firewall (CAP_NET_ADMIN, in their own network
    namespace: ufw runs there)."""
    tag = uuid.uuid4().hex[:8]
    fleet = Fleet(network=f"reos-fleet-{tag}", folder=folder)
    subprocess.run(["docker", "network", "create", "--label", "reos.test.bed=1",
                    fleet.network], check=True, capture_output=True)
    try:
        for name in names:
            container = f"reos-bed-fleet-{tag}-{name}"
            subprocess.run(
                ["docker", "run", "-d", "--name", container, "--label", "reos.test.bed=1",
                 "--hostname", name, "--network", fleet.network,
                 "--security-opt", "seccomp=unconfined",
                 "--cap-add", "SYS_ADMIN",  # mounts, as a host's root has (test_fleet_mounts)
                 "--cgroupns=host", "-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw",
                 "--tmpfs", "/run", "--tmpfs", "/run/lock",
                 "-v", f"{STATE_DIR / 'repo'}:/srv/repo:ro",
                 "-v", f"{STATE_DIR / 'fleet' / 'keys'}:/etc/ssh/authorized_keys:ro",
                 *(_ENGINE if name in engine else ()),
                 *(("--cap-add", "NET_ADMIN") if name in net_admin else ()),
                 IMAGE, "/sbin/init"], check=True, capture_output=True)
            fleet.containers[name] = container
            if name in engine:
                gid = str(os.stat(DOCKER_SOCKET).st_gid)
                fleet.run(name, "groupadd", "-g", gid, "hostdocker")
                fleet.run(name, "usermod", "-aG", "hostdocker", "bob")
        for name, container in fleet.containers.items():
            fleet.addresses[name] = subprocess.run(
                ["docker", "inspect", "-f",
                 "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", container],
                capture_output=True, text=True, check=True).stdout.strip()
        deadline = time.monotonic() + 90
        waiting = set(names)
        while waiting and time.monotonic() < deadline:
            for name in sorted(waiting):
                if fleet.state(name, "ssh") == "active":
                    waiting.discard(name)
            time.sleep(0.3)
        if waiting:
            raise RuntimeError(f"sshd did not start on {sorted(waiting)}")
        for name in names:  # the image keeps no package lists: read the local repository's
            fleet.run(name, "apt-get", "update", "-qq", timeout=120)
        keys = ""
        if known:
            for name in names:
                for _ in range(20):
                    found = subprocess.run(
                        ["ssh-keyscan", "-T", "5", "-t", "ed25519", fleet.addresses[name]],
                        capture_output=True, text=True).stdout
                    if found.strip():
                        keys += found
                        break
                    time.sleep(0.3)
        fleet.known_hosts.write_text(keys)
        fleet.write_inventory()
        return fleet
    except BaseException:
        stop(fleet)
        raise


def stop(fleet: Fleet) -> None:
    for container in fleet.containers.values():
        subprocess.run(["docker", "rm", "-f", container], capture_output=True)
    subprocess.run(["docker", "network", "rm", fleet.network], capture_output=True)
