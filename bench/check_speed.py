"""How long `reos check` takes on the largest commands it accepts (64 KB), benign and hostile.

Each input is judged by `reos.safety.risk.assess` in this process (best of N runs, after
one warm-up so the bash grammar is loaded once), and one 64 KB command also end to end through
`reos check` in a fresh process. Inputs over 64 KB are refused by `reos check` before
any work (exit 2), so the hostile 130 KB-class shapes are measured on `assess` directly
at 64 KB. Target (issues 8 and 20): every input under 1 s, and never a traceback (the
judge fails closed: a verdict it cannot reach is a blocked one).

    .venv/bin/python bench/check_speed.py [--runs 3]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LIMIT = 64 * 1024
TARGET = 1.0


def fill(unit: str, head: str = "", tail: str = "") -> str:
    room = LIMIT - len(head.encode()) - len(tail.encode())
    return head + unit * (room // len(unit.encode())) + tail


INPUTS = {
    "benign pipeline chain": fill("ls -la /var/log | grep -v gz | wc -l; "),
    "benign long echo": fill("word ", "echo "),
    "many assignments and uses": fill("X=/tmp/a; rm -rf $X; "),
    "fork-bomb shaped functions": fill("f(){ "),
    "fork-bomb shaped pipes": fill(":(){ :|"),
    "one huge word": fill("a"),
    "unbalanced quotes": fill("'"),
    "nested command substitutions": fill("$(", "echo "),
    "deep braces": fill("{", "", "a,b" + "}" * 10)[: LIMIT - 1],
    "python one-liner of open(": fill("open(", "python3 -c '", "'"),
    "awk program of prints": fill("print > x; ", "awk '{", "}'"),
    "sed script of s commands": fill("s/a/b/;", "sed '", "'"),
    "here-document": fill("rm -rf /tmp/x\n", "bash <<EOF\n", "EOF\n"),
    "sh -c nesting": ("sh -c " * 2000) + "'rm -rf /'",
    "globs": fill("/e*c/* ", "ls "),
    "variables and IFS": fill("${IFS}", "rm"),
    "find -exec chains": fill("-exec echo {} ; ", "find / "),
    "printf into sh": fill("%s", "printf '", "' | sh"),
    "many brace groups": fill("{a,b}", "rm -rf "),
    "unclosed ${": fill("${", "echo "),
    "distinct globs": "rm -rf " + " ".join(f"/e*c/{i}?" for i in range(7000)),
    "long parameter operation": "x=" + "a" * 60000 + "; echo ${x%%*a}",
    # issue 20: the shapes that crashed or hung the judge before
    "3,000-stage pipeline": "cat /etc/hostname" + " | cat" * 3000,
    "deepest pipeline in 64 KB": fill(" | cat", "cat /etc/hostname"),
    "variable doubling chain (30)": "a0=x; " + "; ".join(
        f"a{i}=$a{i - 1}$a{i - 1}" for i in range(1, 31)) + "; echo $a30",
    "variable doubling in place": fill("; a=$a$a", "a=xxxxxxxx", "; echo $a"),
    "brace range bomb": fill("{a..z}", "echo "),
    "nested subshells": fill("( ", "", "true") + ")" * 100,
    "nested $( in quotes": fill('"$(echo ', "echo "),
    "array subscripts evaluated": fill("a[$(id)]=1; ", "declare "),
}


def best_of(runs: int, command: str) -> float:
    from reos.safety.risk import assess

    times = []
    for _ in range(runs):
        start = time.perf_counter()
        assess(command)
        times.append(time.perf_counter() - start)
    return min(times)


def end_to_end(command: str) -> tuple[float, int]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "reos", "check", "--json", command],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    return time.perf_counter() - start, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from reos.safety.risk import assess

    assess("echo warm-up")
    worst = 0.0
    print(f"{'input (64 KB)':34} {'bytes':>7} {'assess s':>9}  verdict")
    for name, command in INPUTS.items():
        command = command.encode()[:LIMIT].decode("utf-8", "ignore")
        seconds = best_of(args.runs, command)
        verdict = assess(command)
        worst = max(worst, seconds)
        label = "BLOCKED" if verdict.blocked else verdict.risk.label
        print(f"{name:34} {len(command.encode()):>7} {seconds:>9.3f}  {label}")
    seconds, code = end_to_end(INPUTS["benign pipeline chain"])
    print(f"\nreos check (fresh process, 64 KB pipeline chain): {seconds:.3f} s, exit {code}")
    seconds_big, code_big = end_to_end("a" * 130_000)
    print(f"reos check on 130,000 bytes: {seconds_big:.3f} s, exit {code_big} "
          "(refused: over 64 KB)")
    print(f"\nworst assess: {worst:.3f} s (target < {TARGET:.1f} s): "
          + ("OK" if worst < TARGET else "TOO SLOW"))
    return 0 if worst < TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
