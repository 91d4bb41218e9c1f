"""Score the reading of hosts named in words on a frozen stranger set (fleet-strangers-N.json
beside this file, with the inventory it was written against): requests written by a
helper who read none of reos, each labelled with what a competent admin would mean.

Each case goes through what the chat and `reos plan` do (reos.on_hosts.hosts_named: the
cheap first look, Ansible's reading of the INI file, the reader, with the names of things
on this machine, the fixture snapshot the rest is planned on) and is counted:
- right: the same decision ("hosts", "local", or "ask"; a name the inventory lacks counts
  as "ask", since nothing runs), and for "hosts" the same host set and a rest of the
  request that plans on the saved snapshot as the case's request does;
- wrong hosts: reos chose hosts and a host not meant is among them (or the case meant
  this machine, or a question): the error that must not happen;
- fewer hosts: only some of the hosts meant;
- the rest: misses on the careful side (asked, or stayed here, where hosts were meant), or
  the right hosts with a rest that plans differently.

    .venv/bin/python -m tests.understanding.fleet_strangers.score fleet-strangers-1.json

The file's sha256 is checked against its .sha256 first (a set is measured once, then
becomes a development set).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
FIXTURE = HERE.parent.parent / "fixtures" / "homelab.json"


def load(name: str, here: Path = HERE) -> dict[str, Any]:
    """The frozen set `name` in `here`, once its sha256 is checked against its .sha256."""
    path = here / name
    frozen = path.with_suffix(".sha256").read_text().split()[0]
    if hashlib.sha256(path.read_bytes()).hexdigest() != frozen:
        raise SystemExit(f"{name} changed since it was frozen")
    return json.loads(path.read_text())


def main(argv: list[str]) -> int:
    os.environ.setdefault("REOS_LLM", "off")
    from reos.engine import ReasoningEngine
    from reos.fleet.inventory import Source
    from reos.on_hosts import hosts_named, names_here
    from reos.settings import Settings
    from reos.system.snapshot import SystemSnapshot
    from reos.understanding.hosts import Asked, Chosen

    name = next((a for a in argv if not a.startswith("-")), "fleet-strangers-1.json")
    data = load(name)
    source = Source((HERE / data["inventory"],), "--inventory")
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.load(FIXTURE))
    plans: dict[str, Any] = {}
    here_names = names_here(engine.snapshot())  # this machine: the fixture, as plans see it

    def here() -> frozenset[str]:
        return here_names

    def planned(request: str) -> Any:
        if request not in plans:
            plan = engine.plan(request)
            plans[request] = (plan.kind.value, plan.intent.operation if plan.intent else None,
                              tuple(sorted(tuple(s.argv) for s in plan.steps)))
        return plans[request]

    counts = {"right": 0, "wrong hosts": 0, "fewer hosts": 0, "careful": 0,
              "rest differs": 0}
    for case in data["cases"]:
        got = hosts_named(case["text"], source, here)
        decision = ("local" if got is None else "hosts" if isinstance(got, Chosen)
                    else "ask")
        chosen = sorted(got.hosts) if isinstance(got, Chosen) else []
        if decision == "hosts" and (case["decision"] != "hosts"
                                    or not set(chosen) <= set(case["hosts"])):
            verdict = "wrong hosts"
        elif decision == "hosts" and set(chosen) != set(case["hosts"]):
            verdict = "fewer hosts"
        elif decision != case["decision"]:
            verdict = "careful"
        elif decision == "hosts" and planned(got.request) != planned(case["request"]):
            verdict = "rest differs"
        else:
            verdict = "right"
        counts[verdict] += 1
        if verdict != "right" and "--details" in argv:
            why = (got.question if isinstance(got, Asked) else
                   f"{','.join(chosen)} / {got.request!r}" if isinstance(got, Chosen) else
                   "" if got is None else got.message)
            print(f"{verdict:>12} {case['id']} {case['text']!r} -> {decision} {why} "
                  f"(meant {case['decision']} {','.join(case['hosts'])} / {case['request']!r})")
    total = len(data["cases"])
    print(f"{name}: {counts['right']}/{total} right; wrong hosts {counts['wrong hosts']}, "
          f"fewer hosts {counts['fewer hosts']}, careful {counts['careful']}, "
          f"rest differs {counts['rest differs']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
