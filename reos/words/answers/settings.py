"""Answers about the machine's settings, its schedule and its kernel's journal, in words.

Renderers for the read-only recipes of templates/settings.toml: the hostname (`hostname`
or `hostnamectl --json=short`), the time zone (`timedatectl show`), the processor
(`lscpu -J`), systemd timers (`systemctl list-timers --output=json`), cron jobs
(/etc/crontab, the cron directories, `crontab -l`), the kernel's messages and warnings
(`journalctl`), the journal's size (`journalctl --disk-usage`) and a bounded follow of the
journal (`timeout 30 journalctl -f`). And, for templates/services_more.toml,
system_more.toml and logs.toml: a unit's file (`systemctl cat`) and what it depends on
(`systemctl list-dependencies`), whether a reboot is waiting (/run/reboot-required), the
locale (`localectl status`), how long the boot took (`systemd-analyze time` and `blame`),
the hardware (`hostnamectl status` and `lscpu -J`), the loaded kernel modules (`lsmod`)
and the boots the journal holds (`journalctl --list-boots`). Each says what matters first
and cites the output lines it rests on; everything shown is cleaned of control characters.

Not responsible for running commands or choosing them (recipes do).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice, join_names, target_named
from reos.words.conversation import each_target as _each

Summariser = Callable[[list[StepResult], dict[str, str], Voice], str]

# answers whose steps may end non-zero as part of the answer: `crontab -l` without a
# crontab exits 1, `timeout` ends a follow with 124, /run/reboot-required is missing when no
# reboot is waiting, `systemd-analyze time` fails while the boot is not finished, and
# `systemctl cat` of a unit without a file says so
TOLERANT = {"cron", "follow", "reboot_required", "boot_time", "unit_file", "unit_dependencies"}
TIMED_OUT = 124  # `timeout`'s exit code when the time ran out



def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _out(results: list[StepResult], n: int = 0) -> str:
    return clean(results[n].stdout) if len(results) > n else ""


def _reason(result: StepResult) -> str:
    lines = [line for line in clean(result.stderr).splitlines() if line.strip()]
    return lines[-1].strip() if lines else f"exit code {result.exit_code}"


# -- hostname, time zone, processor ---------------------------------------------------------

def hostname(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    text = _out(results).strip()
    info: dict[str, Any] = {}
    if text.startswith("{"):
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError:
            loaded = {}
        info = loaded if isinstance(loaded, dict) else {}
    name = str(info.get("Hostname") or (text.split()[0] if text and not info else ""))
    if not name:
        return "I couldn't read the hostname."
    said = f"This machine is called {name}."
    static = str(info.get("StaticHostname") or "")
    if static and static != name:
        said += f" Its saved (static) hostname is {static}, used after a reboot."
    pretty = str(info.get("PrettyHostname") or "")
    if pretty and not voice.brief:
        said += f" Its pretty name is \u201c{pretty}\u201d."
    return said


def _props(text: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def timezone(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    p = _props(_out(results))
    zone = p.get("Timezone", "")
    if not zone:
        return "I couldn't read the time zone."
    said = f"The time zone is {zone}"
    if p.get("TimeUSec"):
        said += f"; the clock reads {p['TimeUSec']}"
    said += "."
    if voice.brief:
        return said
    ntp, synced = p.get("NTP"), p.get("NTPSynchronized")
    if synced == "yes":
        said += " The clock is synchronised over the network (NTP)."
    elif ntp == "yes":
        said += " Network time (NTP) is on but the clock is not synchronised yet."
    elif ntp == "no":
        said += " Network time (NTP) is off, so nothing keeps the clock right."
    if p.get("LocalRTC") == "yes":
        said += " The hardware clock keeps local time, not UTC."
    return said


def _lscpu_fields(items: list[Any], out: dict[str, str]) -> None:
    """lscpu -J's fields, flattened (newer util-linux nests them under "children")."""
    for item in items:
        if not isinstance(item, dict):
            continue
        field = str(item.get("field", "")).strip().rstrip(":")
        data = item.get("data")
        if field and data is not None and field not in out:
            out[field] = str(data).strip()
        _lscpu_fields(item.get("children") or [], out)


def cpu_facts(text: str) -> dict[str, str]:
    """lscpu -J as field name (without its colon) -> value."""
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    out: dict[str, str] = {}
    if isinstance(data, dict):
        _lscpu_fields(data.get("lscpu") or [], out)
    return out


def _number(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() else None


def cpu(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    facts = cpu_facts(_out(results))
    if not facts:
        return "I couldn't read the processor's details."
    model = facts.get("Model name") or facts.get("Vendor ID") or "an unnamed processor"
    arch = facts.get("Architecture")
    cpus = _number(facts.get("CPU(s)"))
    sockets = _number(facts.get("Socket(s)"))
    cores = _number(facts.get("Core(s) per socket")) or _number(facts.get("Core(s) per cluster"))
    threads = _number(facts.get("Thread(s) per core"))
    said = f"The processor is {model}" + (f" ({arch})" if arch else "")
    if cpus is not None:
        said += f", with {_plural(cpus, 'logical CPU')}"
    said += "."
    if sockets and cores and threads:
        physical = sockets * cores
        said += (f" That is {_plural(sockets, 'socket')} \u00d7 {_plural(cores, 'core')}"
                 f" \u00d7 {_plural(threads, 'thread')} per core"
                 f" ({_plural(physical, 'physical core')}).")
    if voice.brief:
        return said
    extra = []
    if facts.get("CPU max MHz"):
        extra.append(f"up to {float(facts['CPU max MHz']):.0f} MHz"
                     if re.fullmatch(r"[\d.]+", facts["CPU max MHz"]) else
                     f"max {facts['CPU max MHz']} MHz")
    if facts.get("Hypervisor vendor"):
        extra.append(f"virtualised by {facts['Hypervisor vendor']}")
    if facts.get("L3 cache"):
        extra.append(f"L3 cache {facts['L3 cache']}")
    if extra:
        said += " " + "; ".join(extra)[0].upper() + "; ".join(extra)[1:] + "."
    return said


# -- what runs on a schedule ------------------------------------------------------------------

def _when(usec: Any) -> datetime | None:
    if not isinstance(usec, int) or usec <= 0:
        return None
    try:
        return datetime.fromtimestamp(usec / 1_000_000)
    except (OverflowError, OSError, ValueError):
        return None


def _relative(moment: datetime, now: float) -> str:
    seconds = moment.timestamp() - now
    ahead = seconds >= 0
    seconds = abs(seconds)
    if seconds < 60:
        amount = "less than a minute"
    elif seconds < 3600:
        amount = _plural(round(seconds / 60), "minute")
    elif seconds < 172800:
        amount = _plural(round(seconds / 3600), "hour")
    else:
        amount = _plural(round(seconds / 86400), "day")
    return f"in {amount}" if ahead else f"{amount} ago"


def timer_rows(text: str) -> list[dict[str, Any]]:
    """`systemctl list-timers --output=json` rows with a unit name, soonest first
    (timers that will not run again last)."""
    try:
        rows = json.loads(text or "[]")
    except json.JSONDecodeError:
        return []
    rows = [r for r in rows if isinstance(r, dict) and isinstance(r.get("unit"), str)]
    return sorted(rows, key=lambda r: (not _when(r.get("next")),
                                       r.get("next") if isinstance(r.get("next"), int) else 0))


def timers(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    text = _out(results)
    rows = timer_rows(text)
    if not rows:
        try:
            known_empty = json.loads(text or "x") == []
        except json.JSONDecodeError:
            known_empty = False
        if known_empty:
            return "There are no systemd timers on this machine."
        lines = [line for line in text.splitlines() if line.strip()]
        if lines:  # a systemd too old for JSON: its own table, as it printed it
            return "The systemd timers:\n" + "\n".join(f"  {line}" for line in lines[:30])
        return "I couldn't read the systemd timers."
    now = time.time()
    shown = rows[: 5 if voice.brief else 25]
    lines = []
    for row in shown:
        unit = clean(row["unit"])
        activates = clean(str(row.get("activates") or ""))
        nxt, last = _when(row.get("next")), _when(row.get("last"))
        line = f"  {unit}"
        if activates and not voice.brief:
            line += f" (runs {activates})"
        line += (f": next {nxt:%a %Y-%m-%d %H:%M} ({_relative(nxt, now)})" if nxt
                 else ": not scheduled to run again")
        if not voice.brief:
            line += (f", last {last:%a %Y-%m-%d %H:%M}" if last else ", never run yet")
        lines.append(line)
    more = len(rows) - len(shown)
    head = f"{_plural(len(rows), 'systemd timer')}"
    first = shown[0]
    nxt = _when(first.get("next"))
    if nxt:
        runs = clean(str(first.get("activates") or ""))
        head += (f"; the next to run is {clean(first['unit'])}"
                 + (f" (it starts {runs})" if runs else "")
                 + f", {_relative(nxt, now)} ({nxt:%a %H:%M})")
    said = (head + ":\n" + "\n".join(lines)
            + (f"\n  \u2026 and {more} more" if more > 0 else ""))
    if len(results) > 1:
        said += "\n" + _failed_timers(results[1], rows)
    return said


def _failed_timers(result: StepResult, rows: list[dict[str, Any]]) -> str:
    """Which timers, or the jobs they start, failed (from `systemctl list-units
    --state=failed --output=json`)."""
    try:
        units = json.loads(clean(result.stdout) or "x")
    except json.JSONDecodeError:
        return f"I couldn't read which units failed ({_reason(result)})."
    started_by = {str(r.get("activates")): str(r["unit"]) for r in rows if r.get("activates")}
    failed = [str(u.get("unit")) for u in units if isinstance(u, dict)
              and (str(u.get("unit", "")).endswith(".timer") or u.get("unit") in started_by)]
    if not failed:
        return "None of the timers, or the jobs they start, has failed."
    return "Failed: " + join_names([
        clean(u) + (f" (started by {clean(started_by[u])})" if u in started_by else "")
        for u in failed]) + "."


_ASSIGNMENT = regex(r"^[A-Za-z_][A-Za-z0-9_]*\s*=")


def _jobs(text: str) -> list[str]:
    """The job lines of a crontab: no comments, blank lines or variable settings."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("#")
            and not _ASSIGNMENT.match(line.strip())]


def _dropped_in(text: str) -> dict[str, list[str]]:
    """`grep -r -H` over /etc/cron.d as file name -> its job lines."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        path, sep, job = line.partition(":")
        if sep and path.startswith("/etc/cron.d/") and _jobs(job):
            found.setdefault(path.rsplit("/", 1)[-1], []).append(job.strip())
    return found


def _cron_dirs(text: str) -> dict[str, list[str]]:
    """`ls -1 DIR…` output as directory -> files (the placeholder files left out)."""
    found: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith(":") and line.startswith("/"):
            current = line[:-1]
            found.setdefault(current, [])
        elif current and not line.startswith(".placeholder"):
            found[current].append(line)
    return found


_NEEDS_ROOT = ("password is required", "must be privileged", "not allowed", "permission denied",
               "terminal is required", "sudo:")


def cron(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    system = _jobs(_out(results, 0)) if results and results[0].ok else []
    dirs = _cron_dirs(_out(results, 1))
    user = clean(params.get("user", ""))
    whose, whose_cap = (f"{user}'s", f"{user}'s") if user else ("your own", "Your")
    own: list[str] = []
    own_said = ""
    if len(results) > 2:
        mine = results[2]
        if mine.ok:
            own = _jobs(clean(mine.stdout))
        elif "no crontab" in mine.stderr.lower():
            own_said = f"{user} has no crontab." if user else "You have no crontab of your own."
        elif user and any(w in mine.stderr.lower() for w in _NEEDS_ROOT):
            own_said = (f"Reading {user}'s crontab needs root, and I couldn't get it "
                        f"({_reason(mine)}); run reos as root (or with sudo) to see it.")
        else:
            own_said = f"I couldn't read {whose} crontab ({_reason(mine)})."
    limit = 5 if voice.brief else 15
    parts = []
    if own:
        parts.append(f"{whose_cap} crontab has {_plural(len(own), 'job')}:\n"
                     + "\n".join(f"  {j}" for j in own[:limit]))
    elif own_said:
        parts.append(own_said)
    dropped = _dropped_in(_out(results, 3)) if len(results) > 3 else {}
    if dropped:
        jobs = [f"  {name}: {job}" for name, found in dropped.items() for job in found]
        parts.append(f"/etc/cron.d has {_plural(len(jobs), 'job')}:\n"
                     + "\n".join(jobs[:limit])
                     + (f"\n  \u2026 and {len(jobs) - limit} more" if len(jobs) > limit else ""))
        dirs.pop("/etc/cron.d", None)
    if system:
        parts.append(f"/etc/crontab has {_plural(len(system), 'job')}:\n"
                     + "\n".join(f"  {j}" for j in system[:limit]))
    filled = {d: files for d, files in dirs.items() if files}
    if filled:
        listed = [f"  {d}: {join_names([clean(f) for f in files[:limit]])}"
                  + (f" and {len(files) - limit} more" if len(files) > limit else "")
                  for d, files in filled.items()]
        parts.append("Jobs in the cron directories:\n" + "\n".join(listed))
    if not own and not system and not filled:
        return (own_said + " " if own_said else "") + "I found no cron jobs on this machine."
    return "\n".join(parts)


# -- the journal ------------------------------------------------------------------------------

_ALARMING = regex(r"error|fail|fatal|panic|oops|bug:|segfault|out of memory|"
                       r"oom-kill|killed process|call trace|i/o error|hung task|denied",
                       re.I)


def _entries(results: list[StepResult]) -> list[str]:
    return [line for r in results for line in clean(r.stdout).splitlines()
            if line.strip() and not line.startswith("-- ")]


def _when_said(params: dict[str, str]) -> str:
    from reos.understanding.slots import describe

    return " " + describe(params.get("since", ""))


def kernel_log(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    lines = _entries(results)
    when = _when_said(params)
    if not lines:
        return f"The kernel logged nothing{when}."
    alarming = [line for line in lines if _ALARMING.search(line)]
    shown = lines[-(10 if voice.brief else 30):]
    said = f"The kernel logged {_plural(len(lines), 'line')}{when}"
    if alarming:
        said += (f"; {_plural(len(alarming), 'line')} look like trouble (errors, failures, "
                 "oopses, the OOM killer):\n" + "\n".join(
                     f"  {a}" for a in alarming[-(3 if voice.brief else 8):])
                 + "\nThe latest lines:")
    else:
        said += ", none of them errors. The latest:"
    return said + "\n" + "\n".join(f"  {s}" for s in shown)


def warnings(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    lines = _entries(results)
    when = _when_said(params)
    if not lines:
        return f"No warnings or worse in the journal{when}."
    errors = [line for line in lines if _ALARMING.search(line)]
    shown = lines[-(10 if voice.brief else 30):]
    said = f"{_plural(len(lines), 'journal line')} at warning level or worse{when}"
    if errors:
        said += f" ({_plural(len(errors), 'line')} mentioning errors or failures)"
    return said + ". The latest:\n" + "\n".join(f"  {s}" for s in shown)


_USAGE = regex(r"take up ([\d.]+\s*[KMGTPE]?i?B?)", re.I)


def journal_size(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    text = (_out(results) + "\n" + (clean(results[0].stderr) if results else "")).strip()
    found = _USAGE.search(text)
    if found:
        return (f"The journal takes up {found.group(1)} on disk (archived and active files, "
                f"as journalctl reports: \u201c{text.splitlines()[0].strip()}\u201d). "
                "Say \u201ctrim the journal\u201d to delete entries older than two weeks.")
    if "no journal files" in text.lower():
        return "There are no journal files on this machine."
    return "I couldn't read how big the journal is" + (f" ({text})." if text else ".")


def follow(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    if not results:
        return "I couldn't follow the journal."
    result = results[0]
    if not result.ok and result.exit_code != TIMED_OUT and not result.stdout.strip():
        return f"I couldn't follow the journal ({_reason(result)})."
    lines = _entries(results)
    if not lines:
        return "Nothing was written to the journal while I watched (30 seconds)."
    shown = lines[-(15 if voice.brief else 60):]
    return (f"I watched the journal for 30 seconds ({_plural(len(lines), 'line')}, "
            "the 20 before I started included):\n" + "\n".join(f"  {s}" for s in shown))


# -- systemd units ---------------------------------------------------------------------------

def _unit(params: dict[str, str]) -> str:
    return target_named(params, "that unit")


def unit_file(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`systemctl cat UNIT`: each file under a "# /path" line, the unit's own file first."""
    name = _unit(params)
    text = _out(results)
    if not text.strip():
        return f"I couldn't read the unit file of {name}" + (
            f" ({_reason(results[0])})." if results else ".")
    paths = [line[2:].strip() for line in text.splitlines()
             if line.startswith("# /") and line[2:].strip().startswith("/")]
    said = f"{name} is defined in {paths[0]}" if paths else f"The unit file of {name}"
    if len(paths) > 1:
        said += (f", with {_plural(len(paths) - 1, 'drop-in')} that change"
                 f"{'s' if len(paths) == 2 else ''} it: {', '.join(paths[1:])}")
    execs = [line.strip() for line in text.splitlines() if line.strip().startswith("ExecStart=")]
    if execs and execs[-1] != "ExecStart=":
        said += f". It runs {execs[-1].removeprefix('ExecStart=')}"
    lines = text.splitlines()
    cap = 40 if voice.brief else 400
    shown = "\n".join(f"  {line}" for line in lines[:cap])
    more = f"\n  \u2026 and {len(lines) - cap} more lines" if len(lines) > cap else ""
    return said + ".\n" + shown + more


def unit_dependencies(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`systemctl list-dependencies --plain UNIT`: the unit, then what it needs, indented
    one level per step away from it."""
    name = _unit(params)
    rows = []
    for line in _out(results).splitlines()[1:]:
        stripped = line.lstrip(" \u25cf\u25cb*\u2502\u251c\u2514\u2500")
        if stripped.strip():
            rows.append((len(line) - len(line.lstrip()), stripped.strip().split()[0]))
    if not rows:
        if results and not results[0].ok:
            return f"I couldn't list what {name} depends on ({_reason(results[0])})."
        return f"{name} depends on no other unit."
    top = min(depth for depth, _ in rows)
    direct = [unit for depth, unit in rows if depth == top]
    cap = 10 if voice.brief else 60
    said = (f"{name} needs {_plural(len(direct), 'unit')} directly"
            + (f" ({len(rows)} counting what those need in turn)" if len(rows) > len(direct)
               else "") + ": " + ", ".join(direct[:cap]))
    if len(direct) > cap:
        said += f" and {len(direct) - cap} more"
    return said + "."


# -- the machine ------------------------------------------------------------------------------

def reboot_required(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """/run/reboot-required exists once a package asked for a reboot; .pkgs lists which."""
    if not results:
        return "I couldn't check whether a reboot is needed."
    mark = results[0]
    if not mark.ok:
        if "No such file" in mark.stderr:
            return ("No: nothing is waiting for a reboot (there is no /run/reboot-required, "
                    "which Debian and Ubuntu leave when an upgrade needs one).")
        return f"I couldn't check whether a reboot is needed ({_reason(mark)})."
    packages = []
    if len(results) > 1 and results[1].ok:
        packages = list(dict.fromkeys(line.strip() for line in _out(results, 1).splitlines()
                                      if line.strip()))
    said = "Yes: a reboot is waiting (/run/reboot-required is there)"
    if packages:
        shown = packages[: 5 if voice.brief else 30]
        said += (f"; {'it was' if len(packages) == 1 else 'they were'} asked for by "
                 f"{join_names(shown)}" + (f" and {len(packages) - len(shown)} more"
                                           if len(packages) > len(shown) else ""))
    return said + ". Say \u201creboot\u201d when it suits you."


def _colon_fields(text: str) -> dict[str, str]:
    """ "Key: value" lines (hostnamectl, localectl); a line with no key continues the last."""
    out: dict[str, str] = {}
    last = ""
    for line in text.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() and "=" not in key:
            last = key.strip()
            out[last] = value.strip()
        elif last and line.strip():
            out[last] += " " + line.strip()
    return out


def locale(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    fields = _colon_fields(_out(results))
    system = fields.get("System Locale", "")
    if not fields:
        return "I couldn't read the locale" + (f" ({_reason(results[0])})." if results else ".")
    settings = dict(part.split("=", 1) for part in system.split() if "=" in part)
    lang = settings.get("LANG")
    said = [f"The system language is {lang} (LANG)" if lang else
            f"The system locale is {system or 'not set'}"]
    others = [f"{k}={v}" for k, v in settings.items() if k != "LANG"]
    if others:
        said[0] += f", with {', '.join(others)}"
    keys = [f"the console keymap is {fields['VC Keymap']}" if fields.get("VC Keymap") else "",
            f"the X11 keyboard layout is {fields['X11 Layout']}" if fields.get("X11 Layout")
            else ""]
    keys = [k for k in keys if k and not k.endswith("(unset)") and "n/a" not in k]
    return said[0] + (f"; {' and '.join(keys)}" if keys else "") + "."


_FINISHED = regex(r"Startup finished in (.+?)=\s*([^\n]+)")


def boot_time(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`systemd-analyze time` ("Startup finished in 1s (kernel) + 5s (userspace) = 6s"),
    then `systemd-analyze blame` for what took longest."""
    text = _out(results)
    found = _FINISHED.search(text)
    if not found:
        reason = _reason(results[0]) if results else ""
        if "not yet finished" in (text + (results[0].stderr if results else "")):
            return "The boot is not finished yet (systemd is still starting units)."
        return "I couldn't read how long the boot took" + (f" ({reason})." if reason else ".")
    said = (f"The last boot took {found[2].strip()}: "
            + ", ".join(part.strip() for part in found[1].split("+")) + ".")
    slowest = []
    if len(results) > 1:
        for line in _out(results, 1).splitlines():
            parts = line.split()
            if len(parts) >= 2 and re.fullmatch(r"[\d.]+(?:ms|s|min)", parts[-2]):
                slowest.append(f"{parts[-1]} ({' '.join(parts[:-1])})")
    if slowest and not voice.brief:
        said += "\nWhat took longest to start: " + ", ".join(slowest[:5]) + "."
        said += " Say \u201cmake boot faster\u201d for what could be left out."
    return said


def hardware(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    fields = _colon_fields(_out(results))
    cpu_ = cpu_facts(_out(results, 1)) if len(results) > 1 else {}
    if not fields and not cpu_:
        return "I couldn't read the hardware" + (f" ({_reason(results[0])})." if results
                                                  else ".")
    vendor, model = fields.get("Hardware Vendor", ""), fields.get("Hardware Model", "")
    chassis = fields.get("Chassis", "").split()[0] if fields.get("Chassis") else ""
    said = []
    if vendor or model:
        said.append(f"This is a {' '.join(p for p in (vendor, model) if p)}"
                    + (f" ({chassis})" if chassis else "") + ".")
    elif chassis:
        said.append(f"This is a {chassis} (the firmware names no vendor or model).")
    virt = fields.get("Virtualization", "")
    said.append(f"It is a virtual machine or container ({virt})." if virt else
                "It runs on real hardware (hostnamectl names no virtualization).")
    if cpu_.get("Model name"):
        cores = cpu_.get("CPU(s)")
        said.append(f"Processor: {cpu_['Model name']}" + (f", {cores} CPUs" if cores else "")
                    + ".")
    if not voice.brief:
        for key in ("Firmware Version", "Firmware Date", "Architecture", "Operating System",
                    "Kernel"):
            if fields.get(key):
                said.append(f"{key}: {fields[key]}.")
    return " ".join(said)


def modules(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`lsmod`: Module Size "Used by" (count, then the modules that use it)."""
    rows = [line.split() for line in _out(results).splitlines()[1:] if line.strip()]
    rows = [r for r in rows if len(r) >= 3 and r[1].isdigit()]
    if not rows:
        return "I couldn't list the kernel modules" + (
            f" ({_reason(results[0])})." if results else ".")
    names = sorted(r[0] for r in rows)
    cap = 20 if voice.brief else 400
    return (f"{_plural(len(names), 'kernel module')} loaded: " + ", ".join(names[:cap])
            + (f" and {len(names) - cap} more" if len(names) > cap else "") + ".")


_BOOT = regex(r"^\s*(-?\d+)\s+([0-9a-f]{32})\s+(.+)$")


def boots(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`journalctl --list-boots`: "IDX BOOT-ID FIRST-ENTRY LAST-ENTRY" (dates with a
    weekday, time and zone: "Mon 2026-11-16 01:02:03 UTC")."""
    found = []
    for line in _out(results).splitlines():
        match = _BOOT.match(line)
        if match:
            dates = re.findall(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?", match[3])
            found.append((int(match[1]), dates))
    if not found:
        return "I couldn't list the boots" + (f" ({_reason(results[0])})." if results else ".")
    found.sort()
    first = found[0][1][0] if found[0][1] else "?"
    said = (f"The journal holds {_plural(len(found), 'boot')}, the first on {first}"
            if len(found) > 1 else
            "The journal holds only this boot (it is not kept across reboots here, or was "
            "cleared)")
    lines = []
    for index, dates in found[-(3 if voice.brief else 15):]:
        start = dates[0] if dates else "?"
        end = dates[1] if len(dates) > 1 else "?"
        lines.append(f"  {index:>4}: {start} \u2192 " + ("now" if index == 0 else end))
    return said + ":\n" + "\n".join(lines)


ANSWERS: dict[str, Summariser] = {
    "hostname": hostname, "timezone": timezone, "cpu": cpu, "timers": timers,
    "cron": cron, "kernel_log": kernel_log, "warnings": warnings,
    "journal_size": journal_size, "follow": follow, "unit_file": _each(unit_file),
    "unit_dependencies": _each(unit_dependencies), "reboot_required": reboot_required,
    "locale": locale, "boot_time": boot_time, "hardware": hardware, "modules": modules,
    "boots": boots,
}
