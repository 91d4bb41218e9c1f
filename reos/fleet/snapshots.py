"""What reos knows of each host: a snapshot read on the host by reos's own collectors
(`system/portable.py`, shipped as the Ansible module `reos_snapshot`), checked like any
snapshot from outside, kept with its age, refreshed when older than asked.

`read(source, hosts)` reaches the hosts through `running.run` (one Ansible run for all of
them) and returns each host's `Known`: its snapshot, or why there is none (not reached,
or what it sent is not a snapshot: the check's words, naming the field). The snapshot is
read as the account reos logs in as (`READ`, no become, no sudo: its `is_root` and
`user` say how plans there run, through sudo). Only for the hosts whose plan needs it
(`deciding.needs_root_read`), after planning, `read_as_root` runs the module once more
with become (`root_task`): each account's lock and /etc/shadow dates, the listening sockets
with every owner, and what carries reos's SSH session there (the login account sees only
its own processes); `with_root` puts them on the snapshot, checked again.
Where a plan changes a ufw rule, that read gives ufw's rules too.
Where that read fails (sudo wants a password) the snapshot says why (`root_read`), and
the changes that need it are left out there (fleet/deciding.py). Each snapshot is
kept as JSON under reos's data folder (`fleet/snapshots/<host>.json`), so `cached` can
give it back without reaching the host, with its age. The sections the module does not
read (processes, interfaces, timers…) are marked unavailable, "not read on other
machines yet", so a plan never takes their absence for emptiness.

A host's snapshot is untrusted input: `SystemSnapshot.from_dict` checks every field's
type, and the size of what is kept is bounded. Not responsible for reaching hosts
(running.py), for planning with the snapshots (commands/fleet_plan.py), nor for printing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from msgspec import Struct

from reos import paths
from reos.errors import UsageError
from reos.fleet.inventory import Source
from reos.fleet.reach import why
from reos.fleet.running import CONNECT_TIMEOUT, Result, Task, run
from reos.system import portable
from reos.system.snapshot import MAX_BYTES, SECTION_KINDS, SystemSnapshot
from reos.text import clean

MODULE = "reos_snapshot"
READ = Task("reos: read the host", MODULE, timeout=60)
# as root, only where a plan needs it: each account's lock and /etc/shadow dates (never a
# hash: portable.shadow), the listening sockets with their owners (portable.listening)
# and what carries reos's session (portable.session_passers); with ufw's rules too,
# where a plan changes a ufw rule (portable.ufw_rules)
ROOT_READ = "reos: read as root the accounts' locks and dates, and what carries the session"


def root_task(firewall: bool = False, ssh_ports: Iterable[object] = ()) -> Task:
    """The root read's task; `ssh_ports`, the ports SSH saw the hosts' sessions come in
    on (sudo takes SSH_CONNECTION away: the module reads every connection into them)."""
    ports = sorted({p for p in ssh_ports if isinstance(p, int) and not isinstance(p, bool)
                    and 0 < p < 65536})
    args: dict[str, Any] = {"read": "root", "ssh_ports": ports}
    if firewall:
        args["firewall"] = True
    return Task(ROOT_READ + (", and ufw's rules" if firewall else ""), MODULE, args,
                become=True, ignore_errors=True, timeout=30)


SHADOW_FIELDS = ("password_locked", "last_change", "max_days", "expiry")
UFW_LINE = 300  # characters of one line of ufw's rules kept, at most
NOT_READ = "not read on other machines yet"


class Known(Struct):
    """One host's snapshot and when it was read, or why there is none (`problem`)."""

    host: str
    snapshot: SystemSnapshot | None = None
    read_at: float | None = None  # seconds since the epoch
    problem: str | None = None

    def age(self, now: float | None = None) -> float | None:
        if self.read_at is None:
            return None
        return max(0.0, (time.time() if now is None else now) - self.read_at)

    def read_stamp(self) -> str | None:
        """When it was read, as an ISO 8601 UTC stamp (None: never read)."""
        return None if self.read_at is None else stamp(self.read_at)


def stamp(seconds: float) -> str:
    """Seconds since the epoch as an ISO 8601 UTC stamp, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def folder() -> Path:
    return paths.data_dir() / "fleet" / "snapshots"


def read(source: Source, hosts: Iterable[str], *, connect_timeout: int = CONNECT_TIMEOUT,
         on_known: Callable[[Known], None] | None = None) -> dict[str, Known]:
    """Each host's snapshot, read now (one Ansible run), kept for `cached`."""
    names = list(hosts)
    found: dict[str, Known] = {}

    def heard(result: Result) -> None:
        known = _known(result, connect_timeout)
        found[result.host] = known
        if known.snapshot is not None:
            _keep(known)
        if on_known is not None:
            on_known(known)

    done = run(source, names, [READ], on_result=heard, connect_timeout=connect_timeout,
               modules={MODULE: Path(portable.__file__)})
    for name in names:
        if name not in found:
            found[name] = Known(name, problem=f"no answer came (the run ended: {done.status})")
            if on_known is not None:
                on_known(found[name])
    return {name: found[name] for name in names}


def cached(host: str) -> Known | None:
    """The snapshot kept of `host`, with when it was read; None when there is none. A
    kept file that is no longer a snapshot is said as the problem, never used."""
    path = _path(host)
    try:
        raw = path.read_bytes()
        read_at = path.stat().st_mtime
    except OSError:
        return None
    try:
        if len(raw) > MAX_BYTES:
            raise UsageError(f"the kept snapshot of {host} is larger than reos reads")
        data = json.loads(raw)
        return Known(host, SystemSnapshot.from_dict(data, f"the kept snapshot of {host}"),
                     read_at)
    except (ValueError, UsageError) as exc:
        return Known(host, problem=clean(str(exc)))


def read_as_root(source: Source, hosts: Iterable[str], *,
                 connect_timeout: int = CONNECT_TIMEOUT, firewall: bool = False,
                 ssh_ports: Iterable[object] = ()) -> dict[str, dict[str, Any] | str]:
    """What the host module read as root on each host (one Ansible run, with become): its
    answer, or why there is none (sudo refused, not reached…). `firewall`: ufw's rules
    too; `ssh_ports`: `root_task`'s."""
    names = list(hosts)
    found: dict[str, dict[str, Any] | str] = {}

    def heard(result: Result) -> None:
        if result.status not in ("ok", "changed"):
            found[result.host] = why(result.said, connect_timeout)[0]
        else:
            found[result.host] = result.returned

    done = run(source, names, [root_task(firewall, ssh_ports)], on_result=heard,
               connect_timeout=connect_timeout,
               modules={MODULE: Path(portable.__file__)})
    return {name: found.get(name, f"no answer came (the run ended: {done.status})")
            for name in names}


def with_root(snapshot: SystemSnapshot, answer: dict[str, Any] | str,
              host: str = "") -> SystemSnapshot:
    """`snapshot` with what was read as root (`answer`, from `read_as_root`) on it, checked
    again: the accounts' /etc/shadow fields, and ufw's rules when asked for; when the
    read failed or sent nothing of the kind, the host fact `root_read` says why."""
    data = snapshot.to_dict()
    facts = data.setdefault("host", {})
    problem = answer if isinstance(answer, str) else None
    if isinstance(answer, dict):
        rows = answer.get("shadow")
        if isinstance(rows, dict):
            _with_shadow(data, rows)
            facts.update(_ufw(answer))
            _with_listening(data, answer.get("listening"))
            if "ssh" in answer:
                _with_passers(facts, answer["ssh"])
        else:
            problem = "the host module did not run as root there"
    if problem is None:
        try:
            return SystemSnapshot.from_dict(data, f"what {host or 'the host'} read as root")
        except UsageError as exc:
            problem = clean(exc.message)
    kept = snapshot.to_dict()
    kept.setdefault("host", {})["root_read"] = clean(problem)[:300]
    return SystemSnapshot.from_dict(kept)


def _ufw(answer: dict[str, Any]) -> dict[str, str]:
    """ufw's rules read as root (portable.ufw_rules) as host facts: `ufw_status`,
    `ufw_added` and `ufw_defaults` (when sent), their lines joined, only when each is a
    list of at most UFW_LINES printable lines; else `firewall_read`, why not (nothing when
    none was asked for).
    A host's words: deciding reads them with state_net's parser, and only the rule a
    plan names (never a line of theirs) reaches an argv."""
    if not any(key in answer for key in ("ufw_status", "ufw_added", "ufw_error")):
        return {}
    error = answer.get("ufw_error")
    if isinstance(error, str) and error:
        return {"firewall_read": f"ufw's rules could not be read there ({clean(error)[:200]})"}
    found = {}
    for key in ("ufw_status", "ufw_added", "ufw_defaults"):
        lines = answer.get(key)
        if key == "ufw_defaults" and lines is None:
            continue  # no file of defaults there: the policy only from `ufw status verbose`
        if not isinstance(lines, list) or len(lines) > portable.UFW_LINES or not all(
                isinstance(line, str) and line.isprintable() and len(line) <= UFW_LINE
                for line in lines):
            return {"firewall_read": "what it sent as ufw's rules is not what ufw lists"}
        found[key] = "\n".join(lines)
    return found


def _known(result: Result, seconds: int) -> Known:
    if result.status in ("failed", "unreachable"):
        return Known(result.host, problem=why(result.said, seconds)[0])
    data = result.returned.get("snapshot")
    if not isinstance(data, dict):
        return Known(result.host, problem="it sent no snapshot")
    try:
        if len(json.dumps(data)) > MAX_BYTES:
            raise UsageError("its snapshot is larger than reos reads")
        unavailable = data.get("unavailable")
        if isinstance(unavailable, dict):
            for name in (*SECTION_KINDS, "firewall"):
                if name not in data:
                    unavailable.setdefault(name, NOT_READ)
        snapshot = SystemSnapshot.from_dict(data, f"the snapshot {result.host} sent")
    except UsageError as exc:
        return Known(result.host, problem=clean(exc.message))
    return Known(result.host, snapshot, time.time())


def _with_shadow(data: dict[str, object], rows: object) -> None:
    """Each account's lock and dates read as root (`rows`: the root read's answer)
    put on the snapshot's users, only its known fields (their types are checked with the
    rest of the snapshot); nothing when the answer is not rows."""
    users = data.get("users")
    if not isinstance(rows, dict) or not isinstance(users, list):
        return
    for user in users:
        name = user.get("name") if isinstance(user, dict) else None
        row = rows.get(name) if isinstance(name, str) else None
        if isinstance(user, dict) and isinstance(row, dict):
            user.update({key: row[key] for key in SHADOW_FIELDS if key in row})


def _with_listening(data: dict[str, Any], rows: object) -> None:
    """The listening sockets read as root (`rows`, with every owner: portable.listening)
    in place of those the login account read, when they are a list of at most
    portable.LISTEN_ROWS (each row's fields are checked with the rest of the snapshot)."""
    if isinstance(rows, list) and len(rows) <= portable.LISTEN_ROWS:
        data["listening"] = rows
        unavailable = data.get("unavailable")
        if isinstance(unavailable, dict):
            unavailable.pop("listening", None)


PASSER_FACTS = ("ssh_passers", "ssh_passer_pids", "ssh_passers_unknown")


def _with_passers(facts: dict[str, Any], answer: object) -> None:
    """What carries reos's session there as root read it (`answer`:
    portable.session_passers's facts) in place of what the login account read, when it
    is strings of at most 2000 characters; otherwise why not (`deciding.carriers` reads
    the words, and refuses what is not a name)."""
    for key in PASSER_FACTS:
        facts.pop(key, None)
    if isinstance(answer, dict) and answer and all(
            key in PASSER_FACTS and isinstance(value, str) and len(value) <= 2000
            for key, value in answer.items()) and (
            "ssh_passers_unknown" in answer or {"ssh_passers", "ssh_passer_pids"} <= set(answer)):
        facts.update(answer)
    else:
        facts["ssh_passers_unknown"] = "what it sent of what carries the session is not that"


def _path(host: str) -> Path:
    # the inventory's name, made a safe file name: anything but [A-Za-z0-9._-] is %XX
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "._-") else
                   "".join(f"%{b:02X}" for b in ch.encode()) for ch in host)
    return folder() / f"{safe.lstrip('.') or '%2E'}.json"


def _keep(known: Known) -> None:
    assert known.snapshot is not None
    path = _path(known.host)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(known.snapshot.to_dict()))
    os.replace(partial, path)
