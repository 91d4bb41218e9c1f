"""Answers about processes: the busiest ones, the biggest ones, one program, one user's
processes (`pgrep -a -u`), what holds a port, the process tree (`ps -e --forest`) and the
zombies with the parents that should reap them, in words; and, as containers are processes
too, what containers use and run: `docker stats`,
`docker top`, `docker port`, the images (`docker image ls`), docker's disk use (`docker
system df`) and the compose projects (`docker compose ls`).

The renderers read the output of read-only `ps` and `ss` steps: `ps` with the columns
pid, user, %cpu or %mem, rss (KiB) and the whole command line last (`args`, so its spaces
stay in one field; a few steps put the elapsed time before it), and `ss -Htulnp` with its
`users:(("name",pid=N,fd=M))` column. Memory is said in MiB from the resident set size,
not only as a percentage. Every name and command line is cleaned before it is shown; reos
itself and the `ps` that listed the processes are left out.

Not responsible for running anything or choosing the command (recipes do).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from msgspec import Struct

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice, target_named
from reos.words.conversation import each_target as _each

Summariser = Callable[[list[StepResult], dict[str, str], Voice], str]
_ETIME = regex(r"^(?:\d+-)?(?:\d{1,2}:)?\d{1,2}:\d{2}$")
_SS_USERS = regex(r'\("([^"]+)",pid=(\d+)')



def _count(n: int) -> str:
    return f"{n} process" + ("" if n == 1 else "es")


class Row(Struct):
    pid: str
    user: str
    share: float  # %cpu or %mem, as the step listed it
    rss_kib: int
    args: str
    elapsed: str = ""

    @property
    def program(self) -> str:
        """The program's name: the first word of its command line without the path
        ("[kworker/0:1]" for a kernel thread stays as it is)."""
        first = self.args.split()[0] if self.args.split() else "?"
        if first.startswith("["):
            return first
        return first.rstrip(":").rsplit("/", 1)[-1] or first

    @property
    def mib(self) -> float:
        return self.rss_kib / 1024


def rows(text: str, skip_pid: str = "") -> list[Row]:
    """`ps` lines (pid user share rss [etime] args) as rows; reos and ps itself left out."""
    out = []
    for line in text.splitlines():
        parts = line.split(None, 4)
        if len(parts) < 5 or not parts[0].isdigit() or parts[0] == skip_pid:
            continue
        elapsed = ""
        rest = parts[4]
        if _ETIME.match(rest.split(None, 1)[0]) and len(rest.split(None, 1)) == 2:
            elapsed, rest = rest.split(None, 1)
        try:
            row = Row(parts[0], parts[1], float(parts[2]), int(parts[3]), rest.strip(),
                      elapsed)
        except ValueError:
            continue
        if row.program == "ps" and " -o" in f" {rest}" and "pid,user" in rest:
            continue  # the step that made this list
        out.append(row)
    return out


def _wanted(params: dict[str, str], voice: Voice) -> int:
    asked = params.get("count", "")
    if asked.isdigit() and 1 <= int(asked) <= 50:
        return int(asked)
    return 3 if voice.brief else 5


def _command(row: Row, voice: Voice) -> str:
    limit = 400 if voice.detailed else 70
    args = clean(row.args)
    return args if len(args) <= limit else args[: limit - 1] + "\u2026"


def _line(row: Row, voice: Voice, share: str) -> str:
    text = (f"  {clean(row.program)} (pid {row.pid}, {clean(row.user)}): {share}, "
            f"{row.mib:.1f} MiB")
    if not voice.brief:
        text += f"\n      {_command(row, voice)}"
    return text


def top_cpu(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    found = rows(results[0].stdout, params.get("self_pid", "")) if results else []
    if not found:
        return "I couldn't read the process list."
    found.sort(key=lambda r: r.share, reverse=True)
    shown = found[: _wanted(params, voice)]
    text = "The processes using the most CPU right now (100% is one full core):\n"
    text += "\n".join(_line(r, voice, f"{r.share:.1f}% CPU") for r in shown)
    if shown[0].share < 5 and not voice.brief:
        text += "\nNothing is working hard: the machine is mostly idle."
    return text


def top_memory(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    found = rows(results[0].stdout, params.get("self_pid", "")) if results else []
    if not found:
        return "I couldn't read the process list."
    found.sort(key=lambda r: r.rss_kib, reverse=True)
    shown = found[: _wanted(params, voice)]
    text = "The processes using the most memory (resident, in MiB):\n"
    text += "\n".join(_line(r, voice, f"{r.share:.1f}% of memory") for r in shown)
    if not voice.brief:
        total = sum(r.rss_kib for r in found) / 1024
        text += (f"\nTogether {_count(len(found))} hold {total:.0f} MiB "
                 "(shared pages counted once per process).")
    return text


def find(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    found: list[Row] = []
    missing: list[str] = []
    for result in results:
        got = rows(result.stdout)
        if got:
            found += got
        else:
            missing.append(params.get(f"target:{result.step_id}", "that process"))
    if not found:
        if params.get("program"):  # looked up by name in the live process table
            return f"No: nothing called {clean(params['program'])} is running."
        return (f"No: process {', '.join(clean(m) for m in missing)} is not running any more."
                if missing else "That process is not running.")
    programs = sorted({clean(r.program) for r in found})
    head = (f"Yes, {programs[0]} is running" if len(programs) == 1
            else f"Yes, these are running ({', '.join(programs)})")
    head += f": {_count(len(found))}."
    lines = []
    for r in found[: 5 if voice.brief else 20]:
        since = f", up {r.elapsed}" if r.elapsed and not voice.brief else ""
        lines.append(f"  pid {r.pid} ({clean(r.user)}{since}): {r.share:.1f}% CPU, "
                     f"{r.mib:.1f} MiB \u2014 {_command(r, voice)}")
    if len(found) > len(lines):
        lines.append(f"  and {len(found) - len(lines)} more")
    text = head + "\n" + "\n".join(lines)
    if missing and not voice.brief:
        text += f"\nGone since I last looked: {', '.join(clean(m) for m in missing)}."
    return text


def by_user(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`pgrep -a -u USER`: one "pid command line" per process (exit 1 when none)."""
    user = clean(params.get("user", "that user"))
    skip = params.get("self_pid", "")
    found = []
    for line in (results[0].stdout if results else "").splitlines():
        pid, _, args = line.strip().partition(" ")
        if pid.isdigit() and pid != skip and args.strip():
            found.append((pid, args.strip()))
    if not found:
        return f"{user} is running no processes right now."
    shown = found[: 8 if voice.brief else 25]
    limit = 400 if voice.detailed else 90
    lines = []
    for pid, args in shown:
        args = clean(args)
        args = args if len(args) <= limit else args[: limit - 1] + "\u2026"
        lines.append(f"  pid {pid}: {args}")
    if len(found) > len(shown):
        lines.append(f"  and {len(found) - len(shown)} more")
    return f"{user} runs {_count(len(found))}:\n" + "\n".join(lines)


def port(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    wanted = params.get("port", "")
    holders: dict[str, set[str]] = {}
    for line in results[0].stdout.splitlines() if results else []:
        parts = line.split()
        if len(parts) < 5:
            continue
        local = parts[4]
        if wanted and local.rsplit(":", 1)[-1] != wanted:
            continue
        who = _SS_USERS.findall(line)
        names = [f"{clean(n)} (pid {p})" for n, p in who] or [
            "a process ss didn't name (other users' sockets need root)"]
        for name in names:
            holders.setdefault(name, set()).add(f"{parts[0]} {clean(local)}")
    if not holders:
        return f"Nothing is listening on port {wanted}." if wanted else "Nothing is listening."
    if wanted:
        said = "; ".join(f"{name} on {', '.join(sorted(where))}"
                         for name, where in sorted(holders.items()))
        return f"Port {wanted} is held by {said}."
    lines = [f"  {name}: {', '.join(sorted(where))}" for name, where in sorted(holders.items())]
    return "Listening sockets by process:\n" + "\n".join(lines)


def tree(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`ps -e --forest -o pid,ppid,user,args`: the kernel's own threads left out."""
    lines = (results[0].stdout if results else "").splitlines()
    kept = []
    for line in lines[1:]:  # the header
        parts = line.split(None, 3)
        if len(parts) < 4 or not parts[0].isdigit():
            continue
        if parts[0] == "2" or parts[1] == "2" or parts[0] == params.get("self_pid"):
            continue  # kthreadd and its kernel threads; reos itself
        kept.append(clean(line.rstrip()))
    if not kept:
        return "I couldn't read the process list."
    cap = 25 if voice.brief else 400 if voice.detailed else 80
    limit = 400 if voice.detailed else 110
    shown = [ln if len(ln) <= limit else ln[: limit - 1] + "\u2026" for ln in kept[:cap]]
    more = f"\n  \u2026 and {len(kept) - cap} more (say \u201cbe detailed\u201d for all)" if (
        len(kept) > cap) else ""
    return (f"The process tree ({_count(len(kept))}, kernel threads left out; each one is "
            "under the process that started it):\n      PID    PPID USER     COMMAND\n"
            + "\n".join(f"  {ln}" for ln in shown) + more)


def zombies(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`ps -e -o pid,ppid,stat,user,args`: the processes in state Z, each with the
    parent that has not reaped it (a zombie cannot be killed; its parent can be told to
    reap it, restarted, or ended)."""
    lines = (results[0].stdout if results else "").splitlines()
    rows = [parts for line in lines[1:] if len(parts := line.split(None, 4)) >= 4
            and parts[0].isdigit() and parts[1].isdigit()]
    if not rows:
        return "I couldn't read the process list."
    named = {r[0]: clean(r[4]) if len(r) > 4 else "?" for r in rows}
    dead = [r for r in rows if r[2].startswith("Z")]
    if not dead:
        return f"No zombie processes among {_count(len(rows))}."
    parents: dict[str, list[list[str]]] = {}
    for r in dead:
        parents.setdefault(r[1], []).append(r)
    lines = [f"  {len(kids)} under {ppid} ({named.get(ppid, 'gone')[:80]}): pids "
             + ", ".join(k[0] for k in kids[:20]) + (" …" if len(kids) > 20 else "")
             for ppid, kids in sorted(parents.items(), key=lambda p: -len(p[1]))]
    head = (f"{_count(len(dead))} {'is a zombie' if len(dead) == 1 else 'are zombies'}: "
            "ended, but not yet reaped by the parent that started "
            f"{'it' if len(dead) == 1 else 'them'}. A zombie holds no memory and can't be "
            "killed; restarting or ending its parent clears it.")
    return head if voice.brief else head + "\n" + "\n".join(lines[:40])


def _json_lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def _failure(result: StepResult) -> str:
    lines = [ln for ln in clean(result.stderr or result.stdout).splitlines() if ln.strip()]
    return lines[-1].strip()[:200] if lines else f"exit code {result.exit_code}"


def _percent(text: Any) -> float:
    try:
        return float(str(text).strip().rstrip("%"))
    except ValueError:
        return 0.0


def container_stats(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`docker stats --no-stream --format '{{json .}}' [NAME]`: one JSON object a line."""
    if not results:
        return "I couldn't read what the containers use."
    result = next((r for r in results if not r.ok), results[0])
    rows_ = [row for r in results for row in _json_lines(r.stdout)]
    if not rows_:
        if not result.ok:
            return f"I couldn't read what the containers use ({_failure(result)})."
        return "No container is running, so none uses any CPU or memory."
    rows_.sort(key=lambda r: _percent(r.get("CPUPerc")), reverse=True)
    lines = []
    stopped = []
    for row in rows_[: 8 if voice.brief else 40]:
        name = clean(str(row.get("Name") or row.get("Container") or "?"))
        memory = clean(str(row.get("MemUsage") or "?"))
        if str(row.get("PIDs", "")) == "0" and memory.startswith("0B"):
            stopped.append(name)
            continue
        line = (f"  {name}: {clean(str(row.get('CPUPerc') or '?'))} CPU, memory {memory}"
                f" ({clean(str(row.get('MemPerc') or '?'))})")
        if not voice.brief:
            field = {k: clean(str(row.get(k) or "?")) for k in ("PIDs", "NetIO", "BlockIO")}
            line += (f", {field['PIDs']} processes, network {field['NetIO']}, "
                     f"disk {field['BlockIO']}")
        lines.append(line)
    said = []
    if lines:
        total = sum(_percent(r.get("CPUPerc")) for r in rows_)
        said.append(("What the containers use right now (100% CPU is one full core; "
                     f"{total:.1f}% in all):" if len(lines) > 1 else
                     "What it uses right now (100% CPU is one full core):") + "\n"
                    + "\n".join(lines))
    if stopped:
        said.append(f"{', '.join(stopped)} {'is' if len(stopped) == 1 else 'are'} not running, "
                    "so uses nothing.")
    return "\n".join(said)


def container_top(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`docker top NAME`: ps's columns (UID PID PPID C STIME TTY TIME CMD)."""
    name = target_named(params, "that container")
    if not results:
        return f"I couldn't list the processes in {name}."
    result = results[0]
    lines = [ln for ln in clean(result.stdout).splitlines() if ln.strip()]
    if not result.ok or len(lines) < 2:
        if "is not running" in result.stderr or "not running" in result.stderr:
            return f"{name} is not running, so nothing runs inside it."
        return f"I couldn't list the processes in {name} ({_failure(result)})."
    header = lines[0].split()
    cmd_at = header.index("CMD") if "CMD" in header else len(header) - 1
    found = []
    for line in lines[1:]:
        parts = line.split(None, cmd_at)
        if len(parts) > cmd_at:
            pid = parts[header.index("PID")] if "PID" in header else "?"
            user = parts[0]
            found.append(f"  pid {pid} ({user}): {parts[cmd_at][:200]}")
    cap = 8 if voice.brief else 40
    more = f"\n  and {len(found) - cap} more" if len(found) > cap else ""
    return (f"{name} runs {_count(len(found))} (pids as this machine numbers them):\n"
            + "\n".join(found[:cap]) + more)


def container_ports(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    """`docker port NAME`: "80/tcp -> 0.0.0.0:8080" lines."""
    name = target_named(params, "that container")
    if not results:
        return f"I couldn't read the ports of {name}."
    result = results[0]
    published: dict[str, list[str]] = {}
    for line in clean(result.stdout).splitlines():
        inside, arrow, outside = line.partition("->")
        if arrow:
            published.setdefault(inside.strip(), []).append(outside.strip())
    if not published:
        if not result.ok:
            return f"I couldn't read the ports of {name} ({_failure(result)})."
        return (f"{name} publishes no port on this machine (it may still be reached on a "
                "docker network by other containers).")
    said = []
    for inside, outsides in sorted(published.items()):
        where = []
        for out in outsides:
            address, _, host_port = out.rpartition(":")
            anywhere = address in ("0.0.0.0", "[::]", "::")
            where.append(f"host port {host_port}" + (" on every address" if anywhere else
                                                      f" on {address}"))
        said.append(f"  container port {inside} \u2192 " + " and ".join(dict.fromkeys(where)))
    return f"{name} publishes:\n" + "\n".join(said)


_SIZE = regex(r"^(\d+(?:\.\d+)?)\s*([kKMGT]?B)$", re.ASCII)  # "1.2.3kB" is no size
_SCALE = {"B": 1, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def _bytes(text: str) -> float:
    found = _SIZE.match(text.strip())
    return float(found[1]) * _SCALE[found[2]] if found else 0.0


def container_images(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`docker image ls --format '{{json .}}'`: Repository, Tag, ID, Size, CreatedSince."""
    if not results:
        return "I couldn't list the images."
    result = results[0]
    images = _json_lines(result.stdout)
    if not images:
        if not result.ok:
            return f"I couldn't list the images ({_failure(result)})."
        return "There are no container images on this machine."
    total = sum(_bytes(str(i.get("Size", ""))) for i in images)
    dangling = [i for i in images if str(i.get("Repository")) == "<none>"]
    lines = []
    for image in images[: 8 if voice.brief else 60]:
        repo, tag = clean(str(image.get("Repository", "?"))), clean(str(image.get("Tag", "?")))
        label = "(dangling, no tag)" if repo == "<none>" else f"{repo}:{tag}"
        lines.append(f"  {label}: {clean(str(image.get('Size', '?')))}, made "
                     f"{clean(str(image.get('CreatedSince', '?')))}")
    more = f"\n  \u2026 and {len(images) - len(lines)} more" if len(images) > len(lines) else ""
    said = (f"{count_of(len(images), 'image')}, {total / 1e9:.1f} GB as docker counts them "
            "(layers they share are counted in each):\n" + "\n".join(lines) + more)
    if dangling and not voice.brief:
        said += (f"\n{count_of(len(dangling), 'image')} {'is' if len(dangling) == 1 else 'are'}"
                 " dangling: say \u201cremove dangling images\u201d to delete them.")
    return said


# `docker system df` types, in the words of the answer
_DF_TYPES = {"Images": "images", "Containers": "containers", "Local Volumes": "volumes",
             "Build Cache": "build cache"}


def docker_disk(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`docker system df --format '{{json .}}'`: one line per Type (Images, Containers,
    Local Volumes, Build Cache) with TotalCount, Active, Size and Reclaimable."""
    if not results:
        return "I couldn't read how much disk docker uses."
    result = results[0]
    rows = [r for r in _json_lines(result.stdout) if r.get("Type")]
    if not rows:
        return f"I couldn't read how much disk docker uses ({_failure(result)})."
    total = sum(_bytes(str(r.get("Size", ""))) for r in rows)
    lines = []
    for row in rows:
        kind = _DF_TYPES.get(str(row.get("Type")), clean(str(row.get("Type")))[:40])
        line = (f"  {kind}: {clean(str(row.get('Size', '?')))} "
                f"({clean(str(row.get('TotalCount', '?')))}, "
                f"{clean(str(row.get('Active', '?')))} in use)")
        if not voice.brief and str(row.get("Reclaimable", "0B")).split(" ")[0] not in (
                "0B", "0"):
            line += f", {clean(str(row['Reclaimable']))} could be freed"
        lines.append(line)
    return (f"Docker uses {total / 1e9:.1f} GB of disk:\n" + "\n".join(lines))


def container_sizes(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`docker ps --all --size --format '{{json .}}'`: Names and Size ("12.3kB (virtual
    1.2GB)": what the container wrote, then with its image), biggest first."""
    if not results:
        return "I couldn't read the containers' sizes."
    result = results[0]
    rows = [r for r in _json_lines(result.stdout) if r.get("Names")]
    if not rows:
        return (f"I couldn't read the containers' sizes ({_failure(result)})." if not result.ok
                else "There are no containers on this machine.")
    sized = []
    for row in rows:
        own, _, rest = str(row.get("Size") or "").partition(" (virtual ")
        sized.append((_bytes(own), clean(str(row["Names"]))[:60], clean(own)[:20] or "?",
                      clean(rest.rstrip(")"))[:20]))
    sized.sort(key=lambda r: -r[0])
    shown = sized[: 8 if voice.brief else 25]
    lines = [f"  {name}: {own} written" + (f" ({virtual} with its image)" if virtual else "")
             for _, name, own, virtual in shown]
    more = f"\n  … and {len(sized) - len(shown)} more" if len(sized) > len(shown) else ""
    total = sum(r[0] for r in sized)
    have = "has" if len(sized) == 1 else "have"
    return (f"{count_of(len(sized), 'container')} {have} written {total / 1e9:.2f} GB on top "
            "of their images, biggest first:\n" + "\n".join(lines) + more)


def count_of(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def compose_projects(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`docker compose ls --all --format json`: [{"Name", "Status", "ConfigFiles"}]."""
    if not results:
        return "I couldn't list the compose projects."
    result = results[0]
    try:
        loaded = json.loads(result.stdout or "[]")
    except ValueError:
        loaded = None
    if not isinstance(loaded, list):
        if "is not a docker command" in result.stderr or "unknown command" in result.stderr:
            return ("docker compose is not installed here (the compose plugin), so there are "
                    "no compose projects to list.")
        return f"I couldn't list the compose projects ({_failure(result)})."
    projects = [p for p in loaded if isinstance(p, dict)]
    if not projects:
        return "There are no compose projects on this machine."
    lines = []
    for project in projects[: 10 if voice.brief else 60]:
        line = (f"  {clean(str(project.get('Name', '?')))}: "
                f"{clean(str(project.get('Status', '?')))}")
        if not voice.brief and project.get("ConfigFiles"):
            line += f" ({clean(str(project['ConfigFiles']))})"
        lines.append(line)
    return f"{count_of(len(projects), 'compose project')}:\n" + "\n".join(lines)


ANSWERS = {
    "process_top_cpu": top_cpu,
    "process_top_memory": top_memory,
    "process_find": find,
    "process_by_user": by_user,
    "process_port": port,
    "process_tree": tree,
    "process_zombies": zombies,
    "container_stats": container_stats,
    "container_top": _each(container_top),
    "container_ports": _each(container_ports),
    "container_images": container_images,
    "docker_disk": docker_disk,
    "container_sizes": container_sizes,
    "compose_projects": compose_projects,
}
# `ps -p`, `pgrep` and `ss` exit 1 when nothing matches: that is the answer, not a failure;
# docker top of a stopped container, docker port and compose without the plugin fail, and
# the answer says why
TOLERANT = {"process_find", "process_by_user", "process_port", "container_top",
            "container_ports", "compose_projects", "container_stats"}
