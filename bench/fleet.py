"""The fleet's speed, as ratios measured side by side (issue 23).

1. Planning one request for 20 hosts from their kept snapshots (`on_hosts.plan_each`,
   what `reos plan --hosts` does once the hosts are read): target <= 1 s. Needs no bed:
   the snapshots are copies of tests/fixtures/homelab.json, each with its own hostname.
2. With `--bed` (the fleet bed: scripts/testbed-fleet.sh, three hosts started here):
   reos running a restart of nginx on every host (`changing.apply`: journal rows, the
   prepared steps, ansible-runner) against the bare ansible-runner call of the same task
   on the same hosts in the same canary batches (`running.run`), alternating, `--rounds`
   each: target reos's own overhead <= 15 %. The whole `reos plan --hosts all "restart
   nginx" --yes` (which also reads every host first: a second Ansible run) is reported
   beside them.
3. Ansible stays off the single-machine path: `python -X importtime` of `reos plan`
   must not list ansible (tests/test_import_hygiene.py holds it too).

    .venv/bin/python bench/fleet.py [--bed] [--rounds 5]

Exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PLAN_TARGET_S = 1.0
OVERHEAD_TARGET = 1.15


def planning(hosts: int = 20) -> float:
    from reos import settings as settings_module
    from reos.engine import ReasoningEngine
    from reos.on_hosts import plan_each
    from reos.system.snapshot import SystemSnapshot

    data = json.loads((ROOT / "tests" / "fixtures" / "homelab.json").read_text())
    read = {}
    for i in range(hosts):
        copy = json.loads(json.dumps(data))
        copy["host"]["hostname"] = f"web{i + 1}"
        read[f"web{i + 1}"] = SystemSnapshot.from_dict(copy)
    settings = settings_module.load()
    started = time.perf_counter()
    plans = plan_each(ReasoningEngine(settings), "restart nginx", read)
    seconds = time.perf_counter() - started
    assert all(p.steps for p in plans.values()), "every host should have a restart step"
    return seconds


def bed(rounds: int) -> tuple[list[float], list[float], list[float]]:
    from reos import settings as settings_module
    from reos.engine import ReasoningEngine
    from reos.fleet import changing, deciding, snapshots
    from reos.fleet.inventory import Source
    from reos.fleet.running import Canary, Task, run
    from reos.on_hosts import plan_each
    from reos.store.db import Database
    from reos.store.journal import Journal
    from tests import fleet_bed

    reason = fleet_bed.available()
    if reason:
        raise SystemExit(f"fleet bed unavailable: {reason}")
    folder = Path(tempfile.mkdtemp(prefix="reos-bench-fleet-"))
    fleet = fleet_bed.start(folder)
    try:
        source = Source((fleet.inventory,), "--inventory")
        hosts = list(fleet.containers)
        known = snapshots.read(source, hosts)
        read = {h: k.snapshot for h, k in known.items() if k.snapshot is not None}
        request = "restart nginx"
        engine = ReasoningEngine(settings_module.load())
        parts = deciding.prepare(plan_each(engine, request, read), read, request)
        plan = parts[0].plan
        assert plan is not None
        step = plan.steps[0]
        bare_task = Task(f"{step.id} {step.title}", "ansible.builtin.command",
                         {"argv": step.argv[2:]}, become=True, timeout=300,
                         environment=changing.ENVIRONMENT)
        journal = Journal(Database(folder / "reos.db"))
        bare, ours, whole = [], [], []
        env = {**os.environ, "REOS_HOME": str(folder / "home"), "REOS_LLM": "off"}
        for _ in range(rounds):
            started = time.perf_counter()
            # the same play as reos's: a change runs in canary batches (serial), which
            # costs the batches' waits on Ansible's side, not reos's
            run(source, hosts, [bare_task], canary=Canary())
            bare.append(time.perf_counter() - started)
            started = time.perf_counter()
            applied = changing.apply(journal, source, request, parts)
            ours.append(time.perf_counter() - started)
            assert applied.ok, applied
            started = time.perf_counter()
            subprocess.run([str(ROOT / ".venv" / "bin" / "reos"), "plan", "--hosts", "all",
                            "-i", str(fleet.inventory), "--yes", request], env=env,
                           capture_output=True, check=True, timeout=300)
            whole.append(time.perf_counter() - started)
        return bare, ours, whole
    finally:
        fleet_bed.stop(fleet)


def ansible_on_plan_path() -> bool:
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-X", "importtime", "-m", "reos", "plan",
         "--json", "--context", str(ROOT / "tests" / "fixtures" / "homelab.json"),
         "restart nginx"], capture_output=True, text=True,
        env={**os.environ, "REOS_HOME": tempfile.mkdtemp(), "REOS_LLM": "off"})
    return any(line.split("|")[-1].strip().startswith(("ansible", "ansible_runner"))
               for line in done.stderr.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bed", action="store_true", help="also run on the fleet bed")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("REOS_HOME", tempfile.mkdtemp(prefix="reos-bench-home-"))
    os.environ.setdefault("REOS_LLM", "off")
    ok = True
    seconds = planning()
    print(f"planning 'restart nginx' for 20 hosts from kept snapshots: {seconds:.2f} s "
          f"(target <= {PLAN_TARGET_S:.0f} s)")
    ok &= seconds <= PLAN_TARGET_S
    loaded = ansible_on_plan_path()
    print(f"ansible imported by a single-machine `reos plan`: {'YES' if loaded else 'no'}")
    ok &= not loaded
    if args.bed:
        bare, ours, whole = bed(args.rounds)
        ratio = statistics.median(ours) / statistics.median(bare)
        print(f"restart nginx on 3 hosts, {args.rounds} rounds alternating (median s): "
              f"bare ansible-runner {statistics.median(bare):.2f}, reos's run "
              f"{statistics.median(ours):.2f} ({ratio:.2f}x, target <= {OVERHEAD_TARGET}x), "
              f"whole `reos plan --hosts --yes` {statistics.median(whole):.2f} "
              f"({statistics.median(whole) / statistics.median(bare):.2f}x: it reads "
              "every host first)")
        ok &= ratio <= OVERHEAD_TARGET
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
