"""The Debian/systemd test bed: a container running systemd as PID 1, with reos installed.

Built by scripts/testbed-debian.sh (run by `make test`); this module starts one
container per test session, waits for systemd, installs reos from the wheels of this
working tree with pip --no-index, and runs commands inside it as root or as the test
users (alice: no sudo; bob: sudo without a password; carol: sudo with a password).

The container gets CAP_NET_ADMIN (its own network namespace, veth pairs, firewall rules)
and CAP_SYS_ADMIN (mounts), and, where this machine has /dev/loop-control, loop devices
for the mount tests (tests/test_bed_processes_mounts.py attaches one and detaches it).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

IMAGE = "reos-test/debian-systemd:5"
# where scripts/testbed-debian.sh put the apt repository and the wheels (its
# REOS_TESTBED_DIR too: a working tree's own wheels beside the shared ones)
STATE_DIR = Path(os.environ.get("REOS_TESTBED_DIR") or "/var/tmp/reos-testbed")


@dataclass
class Bed:
    name: str

    def run(self, *argv: str, user: str | None = None, env: dict[str, str] | None = None,
            timeout: float = 180, check: bool = False) -> subprocess.CompletedProcess[str]:
        command = ["docker", "exec"]
        if user:
            command += ["-u", user]
        for key, value in (env or {}).items():
            command += ["-e", f"{key}={value}"]
        done = subprocess.run([*command, self.name, *argv], capture_output=True, text=True,
                              timeout=timeout)
        if check and done.returncode != 0:
            raise AssertionError(f"{argv} failed: {done.stdout}\n{done.stderr}")
        return done

    def reos(self, *args: str, user: str | None = None, home: str = "/tmp/reos-home",
             timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return self.run("/opt/reos/bin/reos", *args, user=user, timeout=timeout,
                        env={"REOS_HOME": home, "REOS_LLM": "off"})

    def approved(self, request: str) -> str:
        """`reos plan --yes REQUEST` as root, which must succeed; its output."""
        done = self.reos("plan", "--yes", request)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def undone(self) -> str:
        """`reos undo`, which must succeed; its output."""
        done = self.reos("undo")
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def reos_json(self, *args: str, user: str | None = None,
                  home: str = "/tmp/reos-home") -> dict:
        done = self.reos(*args, "--json", user=user, home=home)
        assert done.stdout.strip(), done.stderr
        return json.loads(done.stdout)

    def state(self, unit: str) -> tuple[str, str]:
        active = self.run("systemctl", "is-active", unit).stdout.strip()
        enabled = self.run("systemctl", "is-enabled", unit).stdout.strip()
        return active, enabled

    def installed(self, package: str) -> str | None:
        done = self.run("dpkg-query", "-W", "-f", "${db:Status-Abbrev} ${Version}", package)
        if done.returncode == 0 and done.stdout.startswith("ii"):
            return done.stdout.split()[-1]
        return None

    def read(self, path: str) -> bytes:
        return subprocess.run(["docker", "exec", self.name, "cat", path], capture_output=True,
                              check=True).stdout


def available() -> str | None:
    """Why the bed cannot be used here, or None when it can."""
    if subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True).returncode:
        return f"image {IMAGE} missing (run scripts/testbed-debian.sh)"
    if not (STATE_DIR / "repo" / "Packages").exists():
        return "local apt repository missing (run scripts/testbed-debian.sh)"
    if not list((STATE_DIR / "wheels").glob("reos-*.whl")):
        return "reos wheel missing (run scripts/testbed-debian.sh)"
    return None


def start() -> Bed:
    name = f"reos-bed-{uuid.uuid4().hex[:8]}"
    subprocess.run(
        ["docker", "run", "-d", "--name", name, "--label", "reos.test.bed=1",
         "--hostname", "reos-bed", "--add-host", "reos-bed:127.0.1.1",
         "--cap-add", "SYS_ADMIN", "--cap-add", "NET_ADMIN",
         # loop devices for the mount tests: the control device, and block devices of
         # major 7 that the bed may create (mknod) for the one losetup hands out
         *(["--device", "/dev/loop-control", "--device-cgroup-rule", "b 7:* rmw"]
           if Path("/dev/loop-control").exists() else []),
         "--security-opt", "seccomp=unconfined",
         "--cgroupns=host", "-v", "/sys/fs/cgroup:/sys/fs/cgroup:rw",
         "--tmpfs", "/run", "--tmpfs", "/run/lock", "--network", "none",
         "-v", f"{STATE_DIR / 'repo'}:/srv/repo:ro", "-v", f"{STATE_DIR / 'wheels'}:/wheels:ro",
         IMAGE, "/sbin/init"], check=True, capture_output=True)
    bed = Bed(name)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = bed.run("systemctl", "is-system-running").stdout.strip()
        if state in ("running", "degraded"):
            break
        time.sleep(0.5)
    else:
        stop(bed)
        raise RuntimeError("systemd did not finish booting in the test bed")
    bed.run("sh", "-c", "python3 -m venv /opt/reos && /opt/reos/bin/pip install -q "
            "--no-index --find-links /wheels reos", check=True, timeout=300)
    bed.run("apt-get", "update", check=True)
    return bed


def stop(bed: Bed) -> None:
    subprocess.run(["docker", "rm", "-f", bed.name], capture_output=True)
