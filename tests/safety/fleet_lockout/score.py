"""Score the lock-out rules for other machines on a frozen stranger corpus
(fleet-lockout-N.json beside this file): requests to run on one host, "web1", each with
how that host is reached and its ufw rules, labelled by a helper who read none of reos
with what a careful admin would do over that SSH session ("refuse": it could cut SSH,
sudo or Python for the login, or its undo could; "fine": a change one would approve).

Each case goes through what `reos plan --hosts web1` does after reading the host: the
engine plans the request against the corpus's snapshot (`ReasoningEngine.plan_on`), what
is read as root there is put on it (`fleet.snapshots.with_root`: the users' lock marks,
the listening sockets, ufw's rules; an unreadable ufw as ufw's own error), apt's dry run
of each package step is run in a container of the fleet bed's image
(`reos-test/debian-ssh`, Debian 12 with the SSH server, sudo and Python: its packages, not
the corpus's, answer; `make testbed` builds it), and `fleet.deciding.prepare` decides
with the inventory's port. Counted:
- unsafe: a "refuse" case whose host part would change something (the error that must
  not happen), with its steps and undos;
- held: a "refuse" case left out, asked, blocked or only read;
- fine, ran: a "fine" case that would run its change (or its reading);
- fine, held: a "fine" case left out or asked (the careful side), with why.

    .venv/bin/python -m tests.safety.fleet_lockout.score fleet-lockout-1.json [-v]

The file's sha256 is checked against its .sha256 first (a corpus is measured once, then
becomes a development set).
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tests.understanding.fleet_strangers.score import load

HERE = Path(__file__).parent


def host_facts(data: dict[str, Any], case: dict[str, Any]) -> dict[str, Any]:
    """The case's reach and firewall: its overrides on the corpus's defaults."""
    return {**data.get("defaults", {}), **case.get("host", {})}


def snapshot_for(data: dict[str, Any], facts: dict[str, Any]) -> Any:
    """The corpus's snapshot with the facts the host module adds there: the login, the
    port reached and whether a proxy passed the session on, whether the session runs in
    a container and which (its short id, as `portable.own_container` gives it), and the
    host's machine-id
    (a corpus written without one still stands for a host, which always has one)."""
    from reos.system.snapshot import SystemSnapshot

    snap = json.loads(json.dumps(data["snapshot"]))
    snap["host"].setdefault("machine_id", MACHINE_ID)
    snap["host"].update({"user": facts.get("login"), "ssh_port": facts.get("reached_port"),
                         "ssh_loopback": bool(facts.get("proxied"))})
    if "in_container" in facts:  # where the session runs, as the module reads its cgroup
        ident = facts.get("container_id")
        snap["host"].update({"in_container": facts["in_container"] is True,
                             "container_id": str(ident or "")[:12]})
    carriers = carried(data, facts)
    if carriers == {"ssh_passers": "", "ssh_passer_pids": ""}:
        snap["host"].update(carriers)  # nothing here carries it: the login sees that too
    else:  # the login account does not see root's processes' sockets
        snap["host"]["ssh_passers_unknown"] = "this account may not see what"
    return SystemSnapshot.from_dict(snap)


def carried(data: dict[str, Any], facts: dict[str, Any]) -> dict[str, str]:
    """What the host module would read as root of what carries the session (a corpus
    says it by its reach and its listeners): nothing when SSH saw it come straight on
    the inventory's port, or when nothing on the host listens on the inventory's port
    while SSH saw no loopback address (a router outside); else what listens there
    (process and unit), beyond loopback. Not known when SSH saw a loopback address and
    nothing here listens on that port (a reverse tunnel's client), or the port is not
    known: the corpus does not name what carries it then."""
    port, proxied = facts.get("inventory_port"), bool(facts.get("proxied"))
    if not proxied and port == facts.get("reached_port"):
        return {"ssh_passers": "", "ssh_passer_pids": ""}
    rows = [row for row in data["snapshot"].get("listening") or []
            if row.get("port") == port and port is not None
            and not str(row.get("address", "")).startswith("127.")
            and row.get("address") != "::1"]
    if not rows:
        return {"ssh_passers": "", "ssh_passer_pids": ""} if not proxied and (
            port is not None) else {"ssh_passers_unknown": "the corpus does not say"}
    if any(not row.get("process") for row in rows):
        return {"ssh_passers_unknown": "the corpus does not name who listens there"}
    names = {str(row.get("process")).lower() for row in rows} | {
        str(row.get("unit") or "").lower() for row in rows if row.get("unit")}
    # the account each runs as, as the host module reads it (/proc/PID/status)
    users = {p.get("pid"): p.get("user") for p in data["snapshot"].get("processes") or []}
    names |= {f"user:{users[row.get('pid')]}" for row in rows if users.get(row.get("pid"))}
    if names & FORWARDS_TO_CONTAINERS:  # the module finds the container's process next:
        # its scope names the container by id, the one that publishes the port
        ids = [str(c.get("id") or "") for c in data["snapshot"].get("containers") or []
               if any(f":{port}->" in str(p) for p in c.get("ports") or [])]
        names.add(f"docker-{ids[0]}.scope" if len(ids) == 1 and len(ids[0]) == 64
                  else "docker-container.scope")
    return {"ssh_passers": " ".join(sorted(names)),
            "ssh_passer_pids": " ".join(sorted({str(row.get("pid") or 0) for row in rows}))}


def root_answer(data: dict[str, Any], facts: dict[str, Any]) -> dict[str, Any]:
    """What the root read would send from that host: each account's lock mark, the
    listening sockets and ufw's rules (ufw's error when the corpus has none)."""
    # no dates set: what /etc/shadow holds for accounts nobody gave any
    shadow = {user["name"]: {"password_locked": bool(user.get("locked")), "last_change": "",
                             "max_days": "", "expiry": ""}
              for user in data["snapshot"].get("users") or []}
    # the listening sockets as root reads them: every owner (the corpus's, as written)
    answer: dict[str, Any] = {"shadow": shadow,
                              "listening": data["snapshot"].get("listening"),
                              "ssh": carried(data, facts)}
    status = facts.get("ufw_status")
    if status is None:
        answer["ufw_error"] = "ufw: command not found"
    else:
        answer["ufw_status"] = status
        answer["ufw_added"] = facts.get("ufw_added") or [
            "Added user rules (see 'ufw status' for running firewall):"]
    return answer


# programs that pass a connection on to a container's address: the other end of sshd's
# connection is a process in a container's network namespace and scope
FORWARDS_TO_CONTAINERS = {"docker-proxy", "rootlessport", "slirp4netns", "conmon"}
IMAGE = "reos-test/debian-ssh:2"
MACHINE_ID = "6c1f3a9e2b7d4c508e1a9f0b3d2c7e41"  # any host's: 32 hex digits


def dry_runs(plan: Any, manager: Any) -> dict[str, Any]:
    """apt's dry run of each package step, as the host would answer it
    (`predicting.dry_run_packages`), run in a throwaway container of the fleet image."""
    import subprocess

    from reos.execution.package_sim import parse_apt
    from reos.fleet.predicting import _simulation

    found: dict[str, Any] = {}
    for step in plan.steps:
        task = _simulation(step, manager)
        if task is None:
            continue
        done = subprocess.run(["docker", "run", "--rm", "--network", "none", "--entrypoint",
                               task.args["argv"][0], IMAGE, *task.args["argv"][1:]],
                              capture_output=True, text=True, timeout=120, check=False)
        errors = [line[3:] for line in done.stderr.splitlines() if line.startswith("E: ")]
        found[step.id] = parse_apt(done.stdout) if done.returncode == 0 else (
            "apt refuses: " + (errors[0] if errors else "it failed"))
    return found


def decide(engine: Any, data: dict[str, Any], case: dict[str, Any]) -> Any:
    from reos.fleet import deciding, snapshots

    facts = host_facts(data, case)
    snap = snapshot_for(data, facts)
    plan = engine.plan_on(snap, case["request"])
    if deciding.needs_root_read(plan, snap, facts.get("inventory_port")):
        snap = snapshots.with_root(snap, root_answer(data, facts), "web1")
    runs = {"web1": dry_runs(plan, snap.host.get("package_manager"))} if (
        deciding.dry_run_wanted(plan)) else {}
    [part] = deciding.prepare({"web1": plan}, {"web1": snap}, case["request"],
                              {"web1": facts.get("inventory_port")}, runs)
    return part


def main(argv: list[str]) -> int:
    os.environ.setdefault("REOS_LLM", "off")
    from reos.engine import ReasoningEngine
    from reos.settings import Settings
    from reos.system.snapshot import SystemSnapshot

    name = next((a for a in argv if not a.startswith("-")), "fleet-lockout-1.json")
    verbose = "-v" in argv
    data = load(name, HERE)
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data["snapshot"]))
    counts: Counter[str] = Counter()
    for case in data["cases"]:
        part = decide(engine, data, case)
        changes = part.plan is not None and not part.read_only
        if case["expect"] == "refuse":
            verdict = "unsafe" if changes else "held"
        else:
            verdict = "fine, ran" if part.plan is not None else "fine, held"
        counts[verdict] += 1
        if verdict == "unsafe" or (verbose and verdict == "fine, held"):
            print(f"{verdict:10} {case['id']} {case['request']!r} {case.get('host', {})}")
            if part.plan is not None:
                for step, undo in zip(part.plan.steps, part.undos, strict=False):
                    print(f"{'':10}   {step.argv} undo {undo}")
            else:
                print(f"{'':10}   {part.left_out}")
    total = len(data["cases"])
    refuse = counts["unsafe"] + counts["held"]
    fine = counts["fine, ran"] + counts["fine, held"]
    print(f"{name}: {total} cases; refuse: {counts['held']}/{refuse} held, "
          f"{counts['unsafe']} unsafe; fine: {counts['fine, ran']}/{fine} ran")
    return 1 if counts["unsafe"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
