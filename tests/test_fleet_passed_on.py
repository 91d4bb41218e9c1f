"""A host whose SSH reos reaches through something on the host that passes the session on
(reos/system/portable.py: `session_passers`, `listening`; reos/fleet/deciding.py:
`_passers`, `needs_root_read`; reos/fleet/snapshots.py: `with_root`).

On the fleet bed (tests/fleet_bed.py), web1 runs a relay, a transient systemd unit whose
process is python3, listening on 2222 and passing each connection to sshd on 127.0.0.1:22;
an inventory of its own sends Ansible there. The login account cannot see who holds the
other end of sshd's connection, so reos reads it again as root: then it knows the relay,
by its unit, and refuses to stop it, while it stops other programs as on any host
(before, it refused every stop there). Looked at from outside with docker exec.

The unit tests need no bed: the module's readers against this machine's own sockets (a
chain of real processes: a client, a relay, a server standing for sshd), and against a
/proc that hides an owner.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reos.errors import EXIT_NOTHING, EXIT_OK
from reos.system import portable
from tests.conftest import reos

RELAY_PORT = 2222
# the relay: plain Python, as the bed's hosts have it (no socat there)
RELAY = """
import socket, threading
def pipe(a, b):
    try:
        while True:
            data = a.recv(65536)
            if not data:
                break
            b.sendall(data)
    except OSError:
        pass
    finally:
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("0.0.0.0", PORT))
server.listen(16)
while True:
    client, _ = server.accept()
    inner = socket.create_connection(("127.0.0.1", 22))
    threading.Thread(target=pipe, args=(client, inner), daemon=True).start()
    threading.Thread(target=pipe, args=(inner, client), daemon=True).start()
""".replace("PORT", str(RELAY_PORT))


@pytest.fixture
def relayed(fleet, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """web1 behind its relay: the inventory that reaches it there."""
    started = fleet.run("web1", "systemd-run", "--unit=reos-relay", "python3", "-c", RELAY)
    assert started.returncode == 0, started.stderr
    try:
        for _ in range(50):
            if fleet.run("web1", "python3", "-c",
                         f"import socket; socket.create_connection(('127.0.0.1', "
                         f"{RELAY_PORT}), 1)").returncode == 0:
                break
            time.sleep(0.2)
        address = fleet.addresses["web1"]
        known = tmp_path / "known_hosts"
        keys = [line.split(None, 1)[1] for line in fleet.known_hosts.read_text().splitlines()
                if line.startswith(address + " ")]
        assert keys, "the bed's known_hosts has no key for web1"
        known.write_text("".join(f"[{address}]:{RELAY_PORT} {key}\n" for key in keys))
        inventory = tmp_path / "hosts.ini"
        inventory.write_text("\n".join([
            f"web1 ansible_host={address} ansible_port={RELAY_PORT}", "", "[all:vars]",
            "ansible_user=bob", f"ansible_ssh_private_key_file={_key()}",
            f"ansible_ssh_common_args='-o UserKnownHostsFile={known}'",
            "ansible_python_interpreter=/usr/bin/python3", ""]))
        yield inventory
    finally:
        fleet.run("web1", "systemctl", "stop", "reos-relay")


def _key() -> Path:
    from tests import fleet_bed

    return fleet_bed.KEY


def test_through_a_relay_on_the_host_reos_stops_others_but_never_the_relay(
        fleet, relayed: Path) -> None:  # type: ignore[no-untyped-def]
    def plan(request: str) -> subprocess.CompletedProcess[str]:
        return reos("plan", "--hosts", "web1", "-i", str(relayed), "--dry-run", request,
                    timeout=180)

    other = plan("restart cron")
    assert other.returncode == EXIT_OK, other.stdout + other.stderr
    assert "On web1:" in other.stdout and "Left out" not in other.stdout

    relay = plan("stop the reos-relay service")
    assert relay.returncode == EXIT_NOTHING, relay.stdout + relay.stderr
    assert "carried through it on the host" in relay.stdout
    assert fleet.state("web1", "reos-relay") == "active"
    assert fleet.state("web1", "cron") == "active"


# -- the module's reader, on this machine ---------------------------------------------------
def test_the_module_reads_each_listening_socket_and_its_owner_as_the_kernel_has_them(
        ) -> None:
    """A TCP socket listening on loopback, one on IPv6's, a bound UDP one and a connected
    UDP one (not listed, as psutil does not), held by a child process: each read with its
    address, port, process id and name."""
    child = subprocess.Popen([sys.executable, "-c", (
        "import socket, sys, time\n"
        "t = socket.socket(); t.bind(('127.0.0.1', 0)); t.listen()\n"
        "u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', 0))\n"
        "c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); c.bind(('127.0.0.1', 0))\n"
        "c.connect(('127.0.0.1', 9))\n"
        "six = socket.socket(socket.AF_INET6); six.bind(('::1', 0)); six.listen()\n"
        "print(t.getsockname()[1], u.getsockname()[1], c.getsockname()[1],"
        " six.getsockname()[1], flush=True)\n"
        "time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        tcp, udp, connected, six = (int(word) for word in child.stdout.readline().split())
        rows = {(row["proto"], row["address"], row["port"]): row
                for row in portable.listening()}
        name = Path(f"/proc/{child.pid}/comm").read_text().strip()
        for key in (("tcp", "127.0.0.1", tcp), ("udp", "127.0.0.1", udp),
                    ("tcp", "::1", six)):
            assert key in rows, (key, sorted(rows))
            assert (rows[key]["pid"], rows[key]["process"]) == (child.pid, name)
        assert ("udp", "127.0.0.1", connected) not in rows
    finally:
        child.kill()
        child.wait()


def test_an_address_as_the_kernel_writes_it() -> None:
    one = socket.inet_pton(socket.AF_INET, "10.1.2.3")
    little = one[::-1].hex().upper() if sys.byteorder == "little" else one.hex().upper()
    assert portable._address(f"{little}:01BB") == ("10.1.2.3", 443)
    six = socket.inet_pton(socket.AF_INET6, "::ffff:192.0.2.7")
    words = b"".join(six[i:i + 4][::-1] if sys.byteorder == "little" else six[i:i + 4]
                     for i in range(0, 16, 4))
    assert portable._address(f"{words.hex().upper()}:0016") == ("192.0.2.7", 22)
    assert portable._address("nothex:0016") == (None, 0)
    assert portable._address("0100007F0:0016") == (None, 0)


CHAIN = """
import socket, sys, time
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen()
role = sys.argv[1]
if role == "sshd":
    print(server.getsockname()[1], flush=True)
    conn, _ = server.accept()
elif role == "relay":
    print(server.getsockname()[1], flush=True)
    conn, _ = server.accept()
    out = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
    print(out.getsockname()[1], flush=True)
else:
    out = socket.create_connection(("127.0.0.1", int(sys.argv[2])))
time.sleep(60)
"""


def test_what_carries_a_session_is_read_along_a_chain_of_real_processes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A client connects to a relay, which connects to a server standing for sshd: as
    SSH_CONNECTION names the relay's connection to the server, the relay and the client
    carry it; without SSH_CONNECTION (sudo took it), every connection into the server's
    port counts; a connection from another machine (no other end here) has none."""
    children = []

    def start(*argv: str) -> subprocess.Popen[str]:
        child = subprocess.Popen([sys.executable, "-c", CHAIN, *argv], stdout=subprocess.PIPE,
                                 text=True)
        children.append(child)
        return child

    try:
        sshd = start("sshd")
        assert sshd.stdout is not None
        sshd_port = int(sshd.stdout.readline())
        relay = start("relay", str(sshd_port))
        assert relay.stdout is not None
        relay_port = int(relay.stdout.readline())
        client = start("client", str(relay_port))
        out_port = int(relay.stdout.readline())  # once the client is in, it goes on
        time.sleep(0.2)
        monkeypatch.setenv("SSH_CONNECTION", f"127.0.0.1 {out_port} 127.0.0.1 {sshd_port}")
        found = portable.session_passers()
        assert found["ssh_passer_pids"].split() == sorted(
            str(p) for p in (relay.pid, client.pid)), found
        name = Path(f"/proc/{relay.pid}/comm").read_text().strip()
        assert name in found["ssh_passers"].split()
        monkeypatch.delenv("SSH_CONNECTION")
        assert portable.session_passers(ports=[sshd_port]) == found
        monkeypatch.setenv("SSH_CONNECTION", f"192.0.2.9 40000 127.0.0.1 {sshd_port}")
        assert portable.session_passers() == {"ssh_passers": "", "ssh_passer_pids": ""}
    finally:
        for child in children:
            child.kill()
            child.wait()


def test_an_owner_that_cannot_be_seen_or_no_table_is_not_known(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A /proc whose TCP table holds the other end of sshd's connection here, and no
    process that shows it (another account's): not known, never "nothing carries it";
    so too a /proc without the kernel's tables."""
    (tmp_path / "net").mkdir()
    header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt" \
             "   uid  timeout inode\n"
    rows = ["   0: 0100007F:0016 0100007F:D431 01 00000000:00000000 00:00000000 00000000"
            "     0        0 111 1 0 100 0 0 10 0",
            "   1: 0100007F:D431 0100007F:0016 01 00000000:00000000 00:00000000 00000000"
            "     0        0 222 1 0 100 0 0 10 0"]
    (tmp_path / "net" / "tcp").write_text(header + "\n".join(rows) + "\n")
    monkeypatch.setenv("SSH_CONNECTION", "127.0.0.1 54321 127.0.0.1 22")
    assert "ssh_passers_unknown" in portable.session_passers(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "ssh_passers_unknown" in portable.session_passers(empty)
    with pytest.raises(portable.Unavailable):
        portable.listening(empty)


def test_a_session_that_comes_from_a_container_here_is_carried_by_what_no_unit_names(
        docker_client: object, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ARG001
    """A container on this machine's docker0 connects to a server here standing for
    sshd (docker's own proxy, or a container that passes SSH on, does so): its end is in
    the container's network namespace, read through its process, and the process is a
    container's, which no unit names; the address is on a bridge, so a login that
    cannot see other namespaces does not take it for another machine."""
    from tests import fleet_bed

    if fleet_bed.available():
        pytest.skip(fleet_bed.available())
    server = socket.socket()
    server.bind(("0.0.0.0", 0))
    server.listen()
    port = server.getsockname()[1]
    name = f"reos-bed-carrier-{port}"
    started = subprocess.run(
        ["docker", "run", "-d", "--rm", "--name", name, "--label", "reos.test.bed=1",
         "--entrypoint", "python3", fleet_bed.IMAGE, "-c",
         f"import socket, time; s = socket.create_connection(('172.17.0.1', {port}));"
         " time.sleep(60)"], capture_output=True, text=True)
    assert started.returncode == 0, started.stderr
    try:
        server.settimeout(30)
        conn, (address, client_port) = server.accept()
        monkeypatch.setenv("SSH_CONNECTION", f"{address} {client_port} 172.17.0.1 {port}")
        found = portable.session_passers()
        assert "container.scope" in found.get("ssh_passers", "").split(), found
        assert portable._guest(Path("/proc"), address)
        assert not portable._guest(Path("/proc"), "203.0.113.9")
        conn.close()
    finally:
        server.close()
        subprocess.run(["docker", "rm", "-f", name], capture_output=True)


def test_a_container_s_process_and_a_zoned_address_are_read_as_such(tmp_path: Path) -> None:
    """LXC's payload groups and docker's without systemd (cgroup v1) are containers', as
    systemd's scopes are; a machine that is itself a container (init under /docker/ID)
    keeps its own services; an IPv6 address with its zone is the table's address."""
    def group(pid: int, *lines: str) -> None:
        (tmp_path / str(pid)).mkdir(exist_ok=True)
        (tmp_path / str(pid) / "cgroup").write_text("".join(f"{line}\n" for line in lines))

    group(1, "0::/init.scope")
    group(70, "0::/lxc.payload.web/system.slice/sslh.service")
    group(71, "4:memory:/docker/3f2a", "3:cpu:/docker/3f2a")
    group(72, "0::/system.slice/sslh.service")
    assert "container.scope" in portable.units_of(70, tmp_path)
    assert portable.units_of(71, tmp_path) == ["container.scope"]
    assert portable.units_of(72, tmp_path) == ["sslh.service"]
    group(1, "0::/docker/dc1c/init.scope")
    group(73, "0::/docker/dc1c/system.slice/reos-relay.service")
    assert portable.units_of(73, tmp_path) == ["reos-relay.service"]
    assert portable._plain("FE80::1%eth0") == "fe80::1"
    assert portable._plain("::ffff:10.0.0.5") == "10.0.0.5"


def test_an_undo_that_cuts_a_program_runs_only_when_it_carries_nothing_now() -> None:
    """Undo reads what carries reos's session there just before (the module's root read
    in `_read_first`'s run): an undo that stops, restarts, removes or kills what carries
    it, or anything when that is not known, is refused; one that starts is not asked."""
    from reos.fleet import changing
    from reos.fleet.running import Result

    def read(**ssh: str) -> Result:
        return Result("web1", "root read", "ok", returned={"ssh": ssh})

    relay = read(ssh_passers="python3 edge-relay.service", ssh_passer_pids="31")
    stop = ["sudo", "-n", "systemctl", "stop", "edge-relay.service"]
    assert changing._programs_cut(["sudo", "-n", "systemctl", "start", "cron"]) is None
    assert changing._programs_cut(["sudo", "-n", "apt-get", "install", "-y",
                                   "haproxy=2.6"]) == ["haproxy"]
    assert "carried through it" in (changing._carried_now(relay, stop) or "")
    assert changing._carried_now(relay, ["sudo", "-n", "systemctl", "stop", "cron"]) is None
    assert "carried through it" in (changing._carried_now(
        read(ssh_passers="haproxy haproxy.service", ssh_passer_pids="8"),
        ["sudo", "-n", "apt-get", "remove", "-y", "haproxy"]) or "")
    assert changing._carried_now(read(ssh_passers="", ssh_passer_pids=""), stop) is None
    assert "could not read" in (changing._carried_now(None, stop) or "")
    assert "could not read" in (changing._carried_now(
        read(ssh_passers_unknown="this account may not see what"), stop) or "")


def test_a_peer_through_a_vpn_or_the_uplink_is_another_machine_and_a_guest_link_is_not(
        tmp_path: Path) -> None:
    """A session from a WireGuard or OpenVPN peer, a VLAN, or the default route's link
    comes from another machine; one from a bridge, tap or veth here may be a guest's."""
    (tmp_path / "net").mkdir()
    header = "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n"
    rows = [("eth0", "00000000", "0102A8C0", "00000000"),  # default, via 192.168.2.1
            ("eth0", "0002A8C0", "00000000", "00FFFFFF"),  # 192.168.2.0/24
            ("wg0", "0000080A", "00000000", "00FFFFFF"),   # 10.8.0.0/24
            ("eth0.10", "000A0A0A", "00000000", "00FFFFFF"),  # 10.10.10.0/24
            ("veth9", "000011AC", "00000000", "0000FFFF")]  # 172.17.0.0/16
    (tmp_path / "net" / "route").write_text(header + "".join(
        f"{link}\t{dest}\t{gw}\t0001\t0\t0\t0\t{mask}\t0\t0\t0\n"
        for link, dest, gw, mask in rows))
    for address in ("192.168.2.40", "10.8.0.2", "10.10.10.9", "203.0.113.5"):
        assert not portable._guest(tmp_path, address), address
    assert portable._guest(tmp_path, "172.17.0.3")


def test_an_undo_reinstalling_a_package_stops_nothing_one_pinning_a_version_does() -> None:
    from reos.fleet import changing

    assert changing._programs_cut(["sudo", "-n", "apt-get", "install", "-y", "sslh"]) is None
    assert changing._programs_cut(["sudo", "-n", "apt-get", "install", "-y",
                                   "sslh=1.22"]) == ["sslh"]
