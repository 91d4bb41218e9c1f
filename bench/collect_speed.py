"""How long collecting the live snapshot (`reos.snapshot/2`) takes on this machine.

Runs `collectors.collect()` N times in this process (after one warm-up, so imports such
as psutil and the docker SDK are not counted) and prints the median, fastest and slowest;
then times each section's collector alone, N times, and prints its median, so a slow
section is easy to find. Sections are collected concurrently, so the whole is close to
the slowest section, not the sum. Target (issue 10): median ≤ 300 ms.

    .venv/bin/python bench/collect_speed.py [--runs 9]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_MS = 300.0


def timed(fn) -> tuple[float, str]:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    try:
        result = fn()
        note = f"{len(result)} items" if isinstance(result, list) else "ok"
    except Exception as exc:
        note = f"unavailable: {exc}"[:70]
    return (time.perf_counter() - start) * 1000, note


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    from reos.system import collectors

    collectors.collect()  # warm-up: imports, first psutil scan
    wholes = [timed(collectors.collect)[0] for _ in range(args.runs)]
    median = statistics.median(wholes)
    print(f"collect(): median {median:.0f} ms, fastest {min(wholes):.0f} ms, slowest "
          f"{max(wholes):.0f} ms over {args.runs} runs (target ≤ {TARGET_MS:.0f} ms)")
    print("each section alone (median):")
    for name, fn in [*collectors.SECTIONS.items(), ("host", collectors.host)]:
        runs = [timed(fn) for _ in range(args.runs)]
        print(f"  {name:<14} {statistics.median(t for t, _ in runs):7.1f} ms  {runs[-1][1]}")
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    raise SystemExit(main())
