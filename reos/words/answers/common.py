"""Answers: the output of read-only commands, put into plain words.

Each summariser takes the step results of a query (stdout, stderr, exit code) and the
request's slots, and returns a few sentences that say what matters and cite the facts
they rest on. Pure text work: nothing here runs a command.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from reos.model.report import StepResult
from reos.patterns import regex
from reos.words.conversation import Voice, count, join_names, size


def duration(seconds: float) -> str:
    seconds = int(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    parts = [(days, "day"), (hours, "hour"), (minutes, "minute")]
    words = [f"{n} {unit}{'s' if n != 1 else ''}" for n, unit in parts if n][:2]
    return join_names(words) if words else "less than a minute"


Summariser = Callable[[list[StepResult], dict[str, str], Voice], str]


def memory(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    rows = {line.split(":")[0]: line.split()[1:] for line in results[0].stdout.splitlines()
            if ":" in line}
    mem = [int(x) for x in rows.get("Mem", [])]
    if len(mem) < 6:
        return "I couldn't read the memory figures."
    total, available = mem[0], mem[5]
    pct = 100 * (total - available) / total if total else 0
    text = (f"You're using {size(total - available)} of {size(total)} memory ({pct:.0f}%); "
            f"{size(available)} is available.")
    swap = [int(x) for x in rows.get("Swap", [])]
    if not voice.brief:
        if swap and swap[0]:
            text += f" Swap: {size(swap[1])} of {size(swap[0])} in use."
        else:
            text += " There's no swap."
        if pct > 90:
            text += " That's tight: ask me what's using the most memory."
    return text


def disk(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    filesystems = []
    for line in results[0].stdout.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 6 and parts[1].isdigit():
            total, used, avail = int(parts[1]), int(parts[2]), int(parts[3])
            filesystems.append((parts[5], total, used, avail))
    if not filesystems:
        return "I couldn't read the disk usage."
    lines = []
    for mount, total, used, avail in filesystems[: 3 if voice.brief else 8]:
        pct = 100 * used / total if total else 0
        warn = "  \u2190 nearly full" if pct >= 90 else ""
        lines.append(f"  {mount}: {size(used)} used of {size(total)} ({pct:.0f}%), "
                     f"{size(avail)} free{warn}")
    return "Disk space:\n" + "\n".join(lines)


def disk_hogs(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    head = disk(results[:1], _params, voice)
    entries = []
    for line in results[1].stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 2 and parts[0].isdigit() and parts[1] != "/":
            entries.append((int(parts[0]), parts[1]))
    entries.sort(reverse=True)
    if not entries:
        return head + "\nI couldn't measure the directories" + (
            f" ({results[1].stderr.strip().splitlines()[-1]})." if results[1].stderr.strip()
            else ".")
    top = entries[: 5 if voice.brief else 10]
    listed = "\n".join(f"  {size(n):>10}  {path}" for n, path in top)
    return (f"{head}\nThe biggest directories on the root filesystem:\n{listed}\n"
            "Old logs (/var/log), package caches (/var/cache) and container images "
            "(/var/lib/docker) are the usual suspects.")


def _processes(text: str, skip: str = "") -> list[tuple[str, float, float, str]]:
    out = []
    for line in text.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[0] != skip:
            try:
                out.append((parts[0], float(parts[1]), float(parts[2]), parts[3]))
            except ValueError:
                continue
    return out


def load(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    fields = results[0].stdout.split()
    try:
        one, five, fifteen = (float(x) for x in fields[:3])
        cpus = int(results[1].stdout.strip() or "1")
    except (ValueError, IndexError):
        return "I couldn't read the load average."
    ratio = one / cpus
    mood = ("quiet" if ratio < 0.3 else "moderately busy" if ratio < 0.8
            else "busy" if ratio < 1.5 else "overloaded")
    text = (f"The machine is {mood}: load {one:.2f} over the last minute ({five:.2f} over 5, "
            f"{fifteen:.2f} over 15 minutes) on {count(cpus, 'CPU')}.")
    procs = _processes(results[2].stdout, params.get("self_pid", "")) if len(results) > 2 else []
    if procs and not voice.brief:
        pid, cpu, _mem, name = procs[0]
        text += f" The busiest process is {name} (pid {pid}) at {cpu:.1f}% CPU."
    return text


def uptime(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    try:
        seconds = float(results[0].stdout.split()[0])
    except (ValueError, IndexError):
        return "I couldn't read the uptime."
    return f"The machine has been up for {duration(seconds)}."


def ip(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    try:
        links = json.loads(results[0].stdout or "[]")
    except json.JSONDecodeError:
        return "I couldn't read the network addresses."
    lines = []
    for link in links:
        name = link.get("ifname", "?")
        if name == "lo" and not voice.detailed:
            continue
        addresses = [f"{a.get('local')}/{a.get('prefixlen')}" for a in link.get("addr_info", [])
                     if a.get("family") == "inet" or voice.detailed]
        if addresses:
            lines.append(f"  {name}: {', '.join(addresses)}")
    if not lines:
        return "This machine has no network addresses besides loopback."
    return "Your addresses:\n" + "\n".join(lines)


_SS_PROCESS = regex(r'users:\(\("([^"]+)",pid=(\d+)')


def ports(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    wanted = params.get("port")
    sockets = []
    for line in results[0].stdout.splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        local = parts[4]
        port = local.rsplit(":", 1)[-1]
        who = _SS_PROCESS.search(line)
        program = f"{who.group(1)} (pid {who.group(2)})" if who else "an unknown process"
        sockets.append((parts[0], local, port, program))
    if wanted:
        hits = [s for s in sockets if s[2] == wanted]
        if not hits:
            return f"Nothing is listening on port {wanted}."
        described = sorted({f"{program} on {proto}/{local}" for proto, local, _p, program in hits})
        return f"Port {wanted}: " + "; ".join(described) + "."
    if not sockets:
        return "Nothing is listening on any port."
    lines = sorted({f"  {proto} {port:<6} {program}" for proto, _l, port, program in sockets})
    return f"{count(len(lines), 'listening socket')}:\n" + "\n".join(
        lines[: 10 if voice.brief else 40])


def users(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    rows = [line.split() for line in results[0].stdout.splitlines() if line.strip()]
    if not rows:
        return "Nobody is logged in right now."
    names = sorted({r[0] for r in rows})
    return (f"{count(len(names), 'user')} logged in: {join_names(names)} "
            f"({count(len(rows), 'session')}).")


def os_release(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    info = {}
    for line in results[0].stdout.splitlines():
        if "=" in line:
            key, value = line.split("=", 1)
            info[key] = value.strip().strip('"')
    kernel = results[1].stdout.strip() if len(results) > 1 else ""
    name = info.get("PRETTY_NAME") or info.get("NAME", "an unknown Linux")
    return f"This is {name}" + (f", running kernel {kernel}." if kernel else ".")


def _props(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def service_status(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    sentences = []
    for result in results:
        p = _props(result.stdout)
        name = p.get("Id", "that service")
        if p.get("LoadState") == "not-found":
            sentences.append(f"There's no service called {name} on this machine.")
            continue
        active, sub = p.get("ActiveState", "unknown"), p.get("SubState", "")
        enabled = p.get("UnitFileState", "")
        if active == "active":
            text = f"{name} is running ({sub})"
            since = p.get("ActiveEnterTimestamp")
            if since and not voice.brief:
                text += f" since {since}"
        elif active == "failed":
            text = f"{name} has failed (result: {p.get('Result', 'unknown')})"
        else:
            text = f"{name} is not running ({active})"
        if enabled and not voice.brief:
            text += f"; it is {enabled} at boot"
        sentences.append(text + ".")
    return " ".join(sentences)


def service_why(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    head = service_status(results[:1], params, voice)
    lines = [line for line in results[1].stdout.splitlines() if line.strip()]
    if not lines:
        return head + " Its journal has no entries I can read."
    errors = [line for line in lines if re.search(
        r"error|fail|fatal|denied|cannot|can't|unable|refused|no such", line, re.I)]
    cited = (errors or lines)[-(3 if voice.brief else 6):]
    return (head + "\nFrom its journal" + (" (the lines that look like errors)" if errors
                                           else "") + ":\n" + "\n".join(f"  {c}" for c in cited))


def logs(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    text = "\n".join(r.stdout for r in results) + "\n".join(r.stderr for r in results
                                                             if r.ok and r.stderr)
    lines = [line for line in text.splitlines() if line.strip() and not
             line.startswith("-- ")]
    if not lines:
        return "There are no log entries for that."
    errors = [line for line in lines if re.search(r"error|fail|fatal|crit|panic|denied",
                                                  line, re.I)]
    shown = lines[-(10 if voice.brief else 30):]
    summary = f"{count(len(lines), 'line')}"
    if errors:
        summary += f", {count(len(errors), 'line')} mentioning errors or failures"
    return f"Here are the latest entries ({summary}):\n" + "\n".join(f"  {s}" for s in shown)


def failed_services(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    try:
        units = json.loads(results[0].stdout or "[]")
    except json.JSONDecodeError:
        units = [{"unit": line.split()[0]} for line in results[0].stdout.splitlines()
                 if line.strip()]
    names = [u.get("unit", "?") for u in units]
    if not names:
        return "No services have failed."
    return (f"{count(len(names), 'service')} failed: {join_names(names)}. "
            "Ask me \u201cwhy did X fail?\u201d to see its last log lines.")


def container_status(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    sentences = []
    for result in results:
        try:
            info: list[dict[str, Any]] = json.loads(result.stdout or "[]")
        except json.JSONDecodeError:
            continue
        for c in info:
            name = c.get("Name", "?").lstrip("/")
            state = c.get("State", {})
            status = state.get("Status", "unknown")
            if status == "running":
                sentences.append(f"{name} is running (since {state.get('StartedAt', '?')[:19]}).")
            else:
                sentences.append(f"{name} is {status} (exit code {state.get('ExitCode', '?')}).")
    return " ".join(sentences) or "I couldn't read the container's state."


def container_why(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    head = container_status(results[:1], params, voice)
    tail = [line for line in (results[1].stdout + results[1].stderr).splitlines() if line]
    if not tail:
        return head + " It wrote no logs."
    return head + "\nIts last log lines:\n" + "\n".join(
        f"  {line}" for line in tail[-(3 if voice.brief else 8):])


def package_installed(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    sentences = []
    for result in results:
        line = result.stdout.strip().splitlines()[0] if result.stdout.strip() else ""
        parts = line.split("\t") if "\t" in line else line.split()
        if result.ok and parts and parts[0].startswith("ii") and len(parts) >= 3:
            sentences.append(f"Yes, {parts[1]} is installed (version {parts[2]}).")
        elif result.ok and len(parts) == 2 and not parts[0].startswith(("ii", "un", "rc")):
            sentences.append(f"Yes, {parts[0]} is installed (version {parts[1]}).")
        else:
            name = params.get(f"target:{result.step_id}", "it")
            sentences.append(f"No, {name} is not installed.")
    return " ".join(sentences)


_BLAME = regex(r"^\s*((?:\d+min\s*)?[\d.]+(?:ms|s)|\d+min)\s+(\S+)$")


def parse_seconds(text: str) -> float:
    total = 0.0
    for amount, unit in re.findall(r"([\d.]+)\s*(min|ms|s)", text):
        total += float(amount) * {"min": 60, "s": 1, "ms": 0.001}[unit]
    return total


def boot_blame(results: list[StepResult]) -> list[tuple[float, str]]:
    """(seconds, unit) from `systemd-analyze blame`, slowest first."""
    out = []
    for line in results[0].stdout.splitlines():
        match = _BLAME.match(line)
        if match:
            out.append((parse_seconds(match.group(1)), match.group(2)))
    return sorted(out, reverse=True)


def boot_summary(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    units = boot_blame(results)
    if not units:
        reason = results[0].stderr.strip().splitlines()[-1:] if results else []
        return "I couldn't measure the boot" + (f" ({reason[0]})." if reason else ".")
    shown = units[: 3 if voice.brief else 6]
    return "The slowest parts of your last boot:\n" + "\n".join(
        f"  {seconds:6.1f}s  {unit}" for seconds, unit in shown)


ANSWERS: dict[str, Summariser] = {
    "boot_blame": boot_summary,
    "memory": memory, "disk": disk, "disk_hogs": disk_hogs, "load": load,
    "uptime": uptime, "ip": ip, "ports": ports,
    "users": users, "os": os_release, "service_status": service_status,
    "service_why": service_why, "logs": logs, "failed_services": failed_services,
    "container_status": container_status, "container_why": container_why,
    "package_installed": package_installed,
}


def _containers(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    from reos.words.conversation import answer_containers

    return answer_containers(results, params, voice)


ANSWERS["containers"] = _containers


TOLERANT = {"package_installed"}  # a non-zero exit is part of the answer ("not installed")


def _more() -> None:
    """Renderers of other domains, each module with an ANSWERS table of its own."""
    import importlib

    from reos.words import listings

    ANSWERS["services"] = listings.services
    ANSWERS["accounts"] = listings.accounts
    for name in ("users", "processes", "settings", "net", "disks", "packages", "gpu",
                 "desktop", "certs", "mail"):
        try:
            module = importlib.import_module(f"reos.words.answers.{name}")
        except ImportError:  # a domain not written yet
            continue
        ANSWERS.update(getattr(module, "ANSWERS", {}))
        TOLERANT.update(getattr(module, "TOLERANT", set()))


_more()

