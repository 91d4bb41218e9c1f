"""Cold start of `reos plan --json --context FILE "restart portainer"` and `reos undo --json`.

Runs `python -c pass`, the plan and the undo in turn, N rounds, each a fresh process with
the same interpreter, and reports the median CPU time (user + system) of each as a ratio
to `python -c pass`, and the wall times beside them. Side by side in one run, so a busy
machine stretches all of them alike. Targets (issue 22): plan at most 5x, undo at most 4x.

Beside them, the floor of each: a process that imports only the libraries that command
loads (the standard library's modules and msgspec, as `reos/__init__` loads it) and runs
no reos code. What a command costs above its floor is reos's own; a floor near the
target says the target cannot be met by reos's code alone.

    .venv/bin/python bench/cold_start.py [--runs 21] [--json]

The package's bytecode is compiled first (as a wheel install does; an editable install
under PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every module on every start).
The runs share one scratch REOS_HOME (as a person's starts share theirs: the catalogue's
cache is written by the first, as is the table of import-time patterns beside the
bytecode); undo runs against an empty journal.
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
TARGETS = {"plan": 5.0, "undo": 4.0}


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                   check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def libraries(argv: list[str], env: dict[str, str]) -> list[str]:
    """The modules other than reos's that running `reos ARGV` in-process loads."""
    code = ("import contextlib, io, json, sys\n"
            "from reos.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            f"        main({argv!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(json.dumps([m for m in sys.modules if m.split('.')[0] != 'reos']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def floor(modules: list[str]) -> list[str]:
    """A process that imports `modules` (msgspec through `reos/__init__`, as reos does)."""
    code = ("import importlib, reos\n"
            f"for name in {sorted(modules)!r}:\n"
            "    try:\n"
            "        importlib.import_module(name)\n"
            "    except ImportError:\n"
            "        pass\n")
    return [sys.executable, "-c", code]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    python = sys.executable
    import compileall

    compileall.compile_dir(str(ROOT / "reos"), quiet=1)
    reos = str(Path(python).parent / "reos")
    commands = {
        "python": [python, "-c", "pass"],
        "plan": [reos, "plan", "--json", "--context", str(CONTEXT), "restart portainer"],
        "undo": [reos, "undo", "--json"],
    }
    with tempfile.TemporaryDirectory() as home:
        env = dict(os.environ, REOS_HOME=home, REOS_LLM="off")
        timed(commands["plan"], env)  # the first start writes the catalogue's cache
        for name in TARGETS:
            commands[f"{name} floor"] = floor(libraries(commands[name][1:], env))
        walls: dict[str, list[float]] = {name: [] for name in commands}
        cpus: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                wall, cpu = timed(argv, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
    wall = {name: statistics.median(v) for name, v in walls.items()}
    cpu = {name: statistics.median(v) for name, v in cpus.items()}
    base = cpu["python"] or 1e-9
    report = {
        "runs": args.runs,
        "baseline_cpu_ms": round(cpu["python"] * 1000, 1),
        "baseline_wall_ms": round(wall["python"] * 1000, 1),
        **{f"{name}_cpu_ms": round(cpu[name] * 1000, 1) for name in TARGETS},
        **{f"{name}_wall_ms": round(wall[name] * 1000, 1) for name in TARGETS},
        **{f"{name}_ratio": round(cpu[name] / base, 2) for name in TARGETS},
        **{f"{name}_target": target for name, target in TARGETS.items()},
        **{f"{name}_floor_ratio": round(cpu[f"{name} floor"] / base, 2) for name in TARGETS},
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(f"python -c pass   CPU {report['baseline_cpu_ms']:6.1f} ms"
              f"   wall {report['baseline_wall_ms']:6.1f} ms")
        for name, target in TARGETS.items():
            ratio = report[f"{name}_ratio"]
            verdict = "ok" if ratio <= target else f"OVER the {target:g}x target"
            print(f"reos {name:<11} CPU {report[f'{name}_cpu_ms']:6.1f} ms"
                  f"   wall {report[f'{name}_wall_ms']:6.1f} ms   {ratio:5.2f}x  ({verdict})")
            print(f"  its libraries alone                           "
                  f"{report[f'{name}_floor_ratio']:5.2f}x")
    return 0 if all(report[f"{n}_ratio"] <= t for n, t in TARGETS.items()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
