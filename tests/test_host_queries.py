"""Questions asked of reos on this host, end to end, and the words of each answer compared
with psutil and the tools' own JSON read at the same moment.

Every test runs the installed CLI as a person would (`reos plan "<question>"`): the live
snapshot is collected, the question understood, its read-only steps run and the answer
printed. The test then reads the pids, MiB, sizes, ports, addresses and counters out of
the answer text and checks them against psutil, `ip -j` and `systemctl list-timers
--output=json`. Processes and sockets the comparison needs (a memory hog, a busy loop, a
listener on a free port) are started by the test and killed at the end; nothing else is
touched. Timers are compared on the host when systemd runs here (without systemd the
answer must say it could not check, never "no timers"), and inside the Debian/systemd
bed: which timer runs next, what each runs, never-run and unscheduled ones, and the pid
of nginx on port 80 as psutil sees it there (counts and unit names are in
tests/test_bed_settings.py).

Not here: the answer functions fed fixed output (test_processes.py, test_network.py,
test_disks.py) and the snapshot contract field by field (test_snapshot2.py).
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.conftest import reos

MIB = 2**20
UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}
DF_SKIPS = {"tmpfs", "devtmpfs", "squashfs", "overlay", "efivarfs"}  # what the df step omits


def ask(question: str) -> str:
    """The answer `reos plan` prints for a question on this host (its exit code checked)."""
    done = reos("plan", question)
    assert done.returncode == 0, (question, done.stdout, done.stderr)
    assert "\x1b" not in done.stdout
    return done.stdout


def nbytes(number: str, unit: str) -> float:
    return float(number.replace(",", "")) * UNITS[unit]


@pytest.fixture()
def started() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes a test starts (each prints `ready` once set up); all killed at the end."""
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def start(procs: list[subprocess.Popen[str]], code: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True)
    procs.append(proc)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


# -- processes --------------------------------------------------------------------------------

ROW = re.compile(r"^  (?P<name>\S.*?) \(pid (?P<pid>\d+), (?P<user>[^)]+)\): "
                 r"(?P<pct>[\d.]+)% (?P<what>of memory|CPU), (?P<mib>[\d.]+) MiB$", re.M)


def _rss() -> dict[int, int]:
    """pid -> resident bytes, for every process now."""
    return {p.pid: p.info["memory_info"].rss for p in psutil.process_iter(["memory_info"])
            if p.info["memory_info"] is not None}


def test_top_memory_names_the_pids_and_mib_psutil_sees(started) -> None:  # noqa: ANN001
    hog = start(started, "import time; b = b'x' * (320 << 20); print('ready', flush=True); "
                         "time.sleep(120)")
    before = _rss()
    said = ask("top processes by memory")
    after = _rss()
    rows = [m for m in ROW.finditer(said) if m["what"] == "of memory"]
    assert rows, said
    mibs = [float(r["mib"]) for r in rows]
    assert mibs == sorted(mibs, reverse=True), said  # biggest first
    checked = 0
    for row in rows:
        pid = int(row["pid"])
        try:
            real = psutil.Process(pid)
            names = {real.name()} | {Path(a).name for a in real.cmdline()[:1]}  # comm, argv[0]
            user = real.username()
        except psutil.NoSuchProcess:
            continue  # ps itself, or a process that ended since
        if pid not in before or pid not in after:
            continue
        # other people's processes grow and shrink: ps read it between the two readings
        low, high = sorted((before[pid] / MIB, after[pid] / MIB))
        slack = max(8.0, 0.1 * high)
        assert low - slack <= float(row["mib"]) <= high + slack, (row.group(0), low, high)
        assert any(n.startswith(row["name"][:15]) or row["name"].startswith(n[:15])
                   for n in names if n), (row.group(0), names)
        assert row["user"] == user
        checked += 1
    assert checked, said
    ours = [r for r in rows if int(r["pid"]) == hog.pid]
    bigger = [pid for pid, rss in before.items() if rss > before[hog.pid] and pid != hog.pid]
    if len(bigger) < len(rows):  # the hog is among the biggest: it must be named, in MiB
        assert len(ours) == 1, (hog.pid, said)
        assert abs(float(ours[0]["mib"]) - before[hog.pid] / MIB) <= 8.0
        assert float(ours[0]["mib"]) >= 320


def _cpu_seconds() -> dict[int, tuple[float, float]]:
    """pid -> (CPU seconds used so far, when it started), for every process now."""
    seen = {}
    for proc in psutil.process_iter(["cpu_times", "create_time"]):
        times = proc.info["cpu_times"]
        if times is not None and proc.info["create_time"] is not None:
            seen[proc.pid] = (times.user + times.system, proc.info["create_time"])
    return seen


def test_top_cpu_names_a_busy_process_with_what_psutil_measures(started) -> None:  # noqa: ANN001
    busy = start(started, "import time\nprint('ready', flush=True)\nend = time.time() + 120\n"
                          "while time.time() < end:\n    pass\n")
    time.sleep(3.0)
    t0, before = time.time(), _cpu_seconds()
    said = ask("which programs are burning the most cpu")
    t1, after = time.time(), _cpu_seconds()
    rows = [m for m in ROW.finditer(said) if m["what"] == "CPU"]
    assert rows, said
    checked = 0
    for row in rows:
        pid = int(row["pid"])
        if pid not in before or pid not in after or before[pid][1] != after[pid][1]:
            continue  # ps itself, or started, ended or replaced meanwhile
        # `ps` divides CPU time by whole seconds of life, some time between t0 and t1
        used0, used1, born = before[pid][0], after[pid][0], before[pid][1]
        low = 100 * used0 / (t1 - born + 1)
        high = 100 * used1 / max(t0 - born - 1, 0.5)
        assert low - 2 <= float(row["pct"]) <= high + 2, (row.group(0), low, high)
        checked += 1
    assert checked, said
    ours = [r for r in rows if int(r["pid"]) == busy.pid]
    if ours:
        assert float(ours[0]["pct"]) >= 20.0, said  # a busy loop, on any loaded machine
    else:  # only when as many processes have used more of the CPU over their lives
        share = 100 * before[busy.pid][0] / (t1 - before[busy.pid][1] + 1)
        assert all(float(r["pct"]) >= share - 2 for r in rows), said


# -- listening ports --------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as probe:  # chosen by the kernel
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _listener(started: list[subprocess.Popen[str]]) -> tuple[subprocess.Popen[str], int]:
    port = _free_port()
    server = start(started, f"import socket, time; s = socket.socket(); "
                            f"s.bind(('127.0.0.1', {port})); s.listen(); "
                            f"print('ready', flush=True); time.sleep(120)")
    return server, port


def test_the_process_on_a_port_is_the_one_psutil_sees(started) -> None:  # noqa: ANN001
    server, port = _listener(started)
    said = ask(f"which process owns port {port}")
    owners = {c.pid for c in psutil.net_connections("inet")
              if c.status == psutil.CONN_LISTEN and c.laddr.port == port}
    assert owners == {server.pid}
    name = psutil.Process(server.pid).name()
    assert said.strip() == f"Port {port} is held by {name} (pid {server.pid}) on tcp " \
                           f"127.0.0.1:{port}."
    free = _free_port()
    nothing = ask(f"which process owns port {free}")
    assert f"Nothing is listening on port {free}" in nothing, nothing


def _listening() -> set[tuple[str, int]]:
    """(tcp|udp, port) of every listening inet socket psutil sees."""
    return {("tcp" if c.type == socket.SOCK_STREAM else "udp", c.laddr.port)
            for c in psutil.net_connections("inet") if c.status == psutil.CONN_LISTEN}


def test_open_ports_are_every_listening_socket_psutil_lists(started) -> None:  # noqa: ANN001
    if shutil.which("ss") is None:
        pytest.skip("no ss here")
    server, port = _listener(started)
    before = _listening()
    said = ask("open ports?")
    steady = before & _listening()  # other tests open and close ports meanwhile
    assert re.search(r"^(\d+) listening sockets?:", said, re.M), said
    lines = said.splitlines()
    for kind, number in steady:
        assert any(re.match(rf"^  {kind}\s+{number}\s", line) for line in lines), (
            kind, number, said)
    ours = next(line for line in lines if re.match(rf"^  tcp\s+{port}\s", line))
    assert f"{psutil.Process(server.pid).name()} (pid {server.pid})" in ours


# -- mounts -----------------------------------------------------------------------------------

USAGE = re.compile(r"^  (?P<mount>/\S*): (?P<used>[\d.,]+) (?P<uu>[KMGTP]?i?B) used of "
                   r"(?P<total>[\d.,]+) (?P<tu>[KMGTP]?i?B) \((?P<pct>\d+)%\), "
                   r"(?P<free>[\d.,]+) (?P<fu>[KMGTP]?i?B) free", re.M)


def _close(said: float, real: int) -> bool:
    """A size printed with three significant figures, on a filesystem still in use."""
    return abs(said - real) <= 0.01 * real + 64 * MIB


def test_filesystem_usage_is_what_psutil_measures() -> None:
    said = ask("usage of each mounted filesystem")
    rows = list(USAGE.finditer(said))
    heading = re.search(r"^Space on (\d+) filesystems?", said, re.M)
    assert rows and heading and int(heading[1]) == len(rows), said
    parts = [p for p in psutil.disk_partitions(all=False)
             if p.fstype not in DF_SKIPS and Path(p.mountpoint).is_dir()]
    device = {p.mountpoint: p.device for p in parts}
    for row in rows:
        usage = psutil.disk_usage(row["mount"])
        assert _close(nbytes(row["total"], row["tu"]), usage.total), (row.group(0), usage)
        assert _close(nbytes(row["used"], row["uu"]), usage.used), (row.group(0), usage)
        assert _close(nbytes(row["free"], row["fu"]), usage.free), (row.group(0), usage)
        assert abs(int(row["pct"]) - usage.percent) <= 1.0, (row.group(0), usage)
    # df names one mount point per filesystem; together they cover every device psutil has
    assert {device.get(r["mount"], r["mount"]) for r in rows} >= set(device.values()), (
        said, device)


def test_a_path_is_answered_with_the_filesystem_holding_it() -> None:
    here = Path(__file__).resolve().parent
    said = ask(f"how much room is left on {here}")
    assert str(here) in said.splitlines()[0], said
    rows = list(USAGE.finditer(said))
    assert len(rows) == 1, said
    usage = psutil.disk_usage(str(here))
    assert _close(nbytes(rows[0]["free"], rows[0]["fu"]), usage.free), (said, usage)
    holding = max((p for p in psutil.disk_partitions(all=True)
                   if here.is_relative_to(p.mountpoint)), key=lambda p: len(p.mountpoint))
    assert rows[0]["mount"] == holding.mountpoint


def test_whether_root_is_mounted_names_its_device_and_type() -> None:
    root = next(p for p in psutil.disk_partitions(all=True) if p.mountpoint == "/")
    said = ask("is / mounted")
    assert said.startswith(f"/ is mounted from {root.device} ({root.fstype})"), (said, root)
    mode = "read-only" if "ro" in root.opts.split(",") else "read-write"
    assert mode in said


# -- interfaces -------------------------------------------------------------------------------

def _ip(*argv: str) -> list[dict]:
    if shutil.which("ip") is None:
        pytest.skip("no iproute2 here")
    done = subprocess.run(["ip", "-j", *argv], capture_output=True, text=True, timeout=30)
    if done.returncode != 0 or not done.stdout.strip():
        pytest.skip(f"ip -j {' '.join(argv)} does not answer here: {done.stderr.strip()}")
    return list(json.loads(done.stdout))


def test_addresses_and_link_states_are_what_ip_says() -> None:
    links = _ip("addr")
    said = ask("what ip does this box have")
    lines = {line.split(" (", 1)[0].strip(): line for line in said.splitlines()
             if line.startswith("  ")}
    for link in links:
        if link["ifname"] == "lo":
            continue
        line = lines.get(link["ifname"])
        assert line, (link["ifname"], said)
        up = "UP" in link.get("flags", [])
        assert line.split(" (", 1)[1].startswith("up" if up else "down"), (line, link["flags"])
        for info in link.get("addr_info", []):
            assert f"{info['local']}/{info['prefixlen']}" in line, (info, line)
        if not link.get("addr_info"):
            assert "no address" in line
    first = next((i["local"] for link in links if link["ifname"] != "lo"
                  for i in link.get("addr_info", []) if i["family"] == "inet"), None)
    if first:
        assert said.startswith(f"This machine's main IPv4 address is {first}."), said


STATS = re.compile(r"^  (?P<name>\S+) \(.*?\): received .*? in (?P<rx>[\d,]+) packets, sent "
                   r".*? in (?P<tx>[\d,]+); errors (?P<rxe>\d+) in / (?P<txe>\d+) out, "
                   r"dropped (?P<rxd>\d+) in / (?P<txd>\d+) out$", re.M)


def test_interface_counters_lie_between_two_readings_of_ip() -> None:
    before = {link["ifname"]: link["stats64"] for link in _ip("-s", "link")}
    said = ask("network interface statistics")
    after = {link["ifname"]: link["stats64"] for link in _ip("-s", "link")}
    rows = {m["name"]: m for m in STATS.finditer(said)}
    assert rows, said
    assert set(rows) <= set(before) | set(after)
    for name, row in rows.items():
        if name not in before or name not in after:
            continue  # an interface that came or went meanwhile
        for key, way, field in (("rx", "rx", "packets"), ("tx", "tx", "packets"),
                                ("rxe", "rx", "errors"), ("txe", "tx", "errors"),
                                ("rxd", "rx", "dropped"), ("txd", "tx", "dropped")):
            value = int(row[key].replace(",", ""))
            assert before[name][way][field] <= value <= after[name][way][field], (
                name, field, value, before[name][way], after[name][way])


# -- timers -----------------------------------------------------------------------------------

def test_timers_are_what_systemctl_lists_or_said_to_be_unknown() -> None:
    said = ask("which timers run next")
    if not Path("/run/systemd/system").is_dir():  # no systemd here (a container, a sandbox)
        assert said.startswith("This machine does not run systemd"), said
        assert "no systemd timers" not in said.lower()  # never "none" for "unknown"
        return
    done = subprocess.run(["systemctl", "list-timers", "--all", "--output=json", "--no-pager"],
                          capture_output=True, text=True, timeout=30, check=True)
    listed = json.loads(done.stdout)
    if not listed:
        assert "There are no systemd timers" in said, said
        return
    assert said.startswith(f"{len(listed)} systemd timer"), said
    for timer in listed:
        assert timer["unit"] in said, (timer, said)


# -- the snapshot the answers rest on -----------------------------------------------------

SECTIONS = ("users", "groups", "processes", "mounts", "block_devices", "interfaces",
            "listening", "timers", "firewall")


def test_a_section_is_null_exactly_when_the_host_could_not_collect_it() -> None:
    """test_snapshot2.py checks the fields and that null has a reason; this is the converse
    on this host: a section with a reason is null (unknown), never [] or half filled."""
    done = reos("context", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["schema"] == "reos.snapshot/2"
    for section in SECTIONS:
        assert section in data, section
        assert (data[section] is None) == (section in data["unavailable"]), (
            section, data[section], data["unavailable"].get(section))
    if not Path("/run/systemd/system").is_dir():
        assert data["timers"] is None


# -- inside the Debian/systemd bed: timers and a root daemon's port ------------------------

PSUTIL_LISTENERS = ("import json, psutil; print(json.dumps(sorted({c.pid for c in "
                    "psutil.net_connections('inet') if c.status == psutil.CONN_LISTEN and "
                    "c.laddr.port == 80 and c.pid})))")


@pytest.mark.docker
@pytest.mark.slow
def test_the_bed_answers_timers_and_port_80_as_systemd_and_psutil_say(bed) -> None:  # noqa: ANN001
    listed = json.loads(bed.run("systemctl", "list-timers", "--all", "--output=json",
                                check=True).stdout)
    said = bed.reos("plan", "what runs next")
    assert said.returncode == 0, said.stdout + said.stderr
    assert listed, "the bed has systemd timers (apt-daily, fstrim...)"
    scheduled = sorted((t for t in listed if t.get("next")), key=lambda t: t["next"])
    if scheduled:
        unit = re.escape(scheduled[0]["unit"])
        assert re.search(rf"the next to run is {unit}\b", said.stdout.splitlines()[0]), said
    lines = {line.split()[0].rstrip(":"): line for line in said.stdout.splitlines()
             if line.startswith("  ") and ".timer" in line}
    for timer in listed:
        line = lines[timer["unit"]]
        if timer.get("activates"):
            assert f"(runs {timer['activates']})" in line
        assert ("never run yet" in line) == (not timer.get("last")), (timer, line)
        assert ("not scheduled to run again" in line) == (not timer.get("next")), (timer, line)
    pids = json.loads(bed.run("/opt/reos/bin/python", "-c", PSUTIL_LISTENERS,
                              check=True).stdout)
    assert pids, "nginx listens on port 80 in the bed"
    port = bed.reos("plan", "which process owns port 80")
    assert port.returncode == 0, port.stdout + port.stderr
    held = re.findall(r"nginx \(pid (\d+)\)", port.stdout)
    assert held and {int(p) for p in held} <= set(pids), (port.stdout, pids)


def test_the_account_list_says_who_has_a_login_shell() -> None:
    from reos.model.report import StepResult
    from reos.words.answers.common import ANSWERS
    from reos.words.conversation import Voice

    passwd = ("root:x:0:0:root:/root:/bin/bash\n"
              "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
              "svc:x:1005:1005::/home/svc:\n"  # an empty shell is /bin/sh (passwd(5))
              "kiosk:x:1006:1006::/home/kiosk:/bin/false\n")
    said = ANSWERS["accounts"]([StepResult("s1", True, 0, passwd, "", 0.1)], {}, Voice())
    logins = said.split("With a login shell:", 1)[1]
    assert "root (bash)" in logins and "svc (sh)" in logins, said
    assert "kiosk" not in logins and "daemon" not in logins, said
