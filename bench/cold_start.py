"""Cold start of `reos plan --json --context FILE "restart portainer"` and `reos undo --json`.

Reports the median wall time of each over N fresh processes, as a ratio to
`python -c pass` with the same interpreter. Target (issue 2): at most 8x.

    .venv/bin/python bench/cold_start.py [--runs 21]

The package's bytecode is compiled first (as a wheel install does; an editable install
under PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every module on every start).
Each run gets a scratch REOS_HOME; undo runs against an empty journal, so it measures
start-up plus opening (and, the first time, migrating) the database.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = ROOT / "tests" / "fixtures" / "homelab.json"
TARGET = 8.0


CPU: dict[str, float] = {}  # argv[0..1] -> median CPU seconds (user + system) of the child


def median_seconds(argv: list[str], runs: int, env: dict[str, str]) -> float:
    """Median wall time; the child's median CPU time goes to CPU (a busy machine stretches
    wall time, not CPU time: far apart, the machine was busy, not the code slow)."""
    times, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                       check=False)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    CPU[" ".join(argv[:2])] = statistics.median(cpu)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    python = sys.executable
    import compileall

    compileall.compile_dir(str(ROOT / "reos"), quiet=1)
    reos = str(Path(python).parent / "reos")
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, REOS_HOME=home, REOS_LLM="off")
        baseline = median_seconds([python, "-c", "pass"], args.runs, env)
        results = {
            "plan": median_seconds([reos, "plan", "--json", "--context", str(CONTEXT),
                                    "restart portainer"], args.runs, env),
            "undo": median_seconds([reos, "undo", "--json"], args.runs, env),
        }
    report = {
        "baseline_ms": round(baseline * 1000, 1),
        **{f"{k}_ms": round(v * 1000, 1) for k, v in results.items()},
        **{f"{k}_ratio": round(v / baseline, 2) for k, v in results.items()},
        "target_ratio": TARGET,
        "runs": args.runs,
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(f"python -c pass        {report['baseline_ms']:7.1f} ms")
        for name in results:
            ratio = report[f"{name}_ratio"]
            verdict = "ok" if ratio <= TARGET else "OVER TARGET"
            print(f"reos {name:<16} {report[f'{name}_ms']:7.1f} ms  {ratio:5.2f}x  ({verdict})")
        base_cpu = CPU.get(f"{python} -c") or 1e-9
        print("CPU time (user + system, median): " + ", ".join(
            f"{key.rsplit('/', 1)[-1]} {value * 1000:.1f} ms ({value / base_cpu:.2f}x)"
            for key, value in CPU.items()))
    return 0 if all(report[f"{k}_ratio"] <= TARGET for k in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
