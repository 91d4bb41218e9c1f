"""Score the risk engine on a frozen stranger corpus (tests/safety/strangers/*.json).

`python -m tests.safety.strangers.score corpus-a.json [--details]` checks the file's
sha256 against its `.sha256` (a corpus is written once, by a helper who never read
`reos/safety/`, and never edited), judges every command with `reos.safety.risk.assess` as
`reos check` does, and prints: right per expectation and per category, the number of
commands that are not read-only but were judged read-only (the number that must be 0),
judging errors, and the slowest cases. With `--details` it lists every wrong case; without
it, only the counts (so a set can be measured without being read case by case).

Not responsible for the plan path (tests/test_stranger_corpus.py runs each command
through `reos plan` with the fake Ollama proposing it).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).parent


def load(name: str) -> list[dict]:
    path = Path(name) if Path(name).exists() else HERE / name
    frozen = path.with_suffix(".sha256").read_text().split()[0]
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if frozen != actual:
        raise SystemExit(f"{path.name} changed since it was frozen ({actual} != {frozen})")
    return json.loads(path.read_text())["cases"]


class _TooSlow(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _TooSlow


LIMIT = 10  # seconds a case may take before it counts as a hang (the goal is 1 s)


def judge(command: str) -> tuple[str, float, object]:
    import signal

    from reos.safety.risk import assess

    started = time.perf_counter()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(LIMIT)
    try:
        verdict = assess(command)
    except _TooSlow:
        return "hang", time.perf_counter() - started, f"no verdict after {LIMIT} s"
    except Exception as exc:  # noqa: BLE001 - an engine that raises is a finding
        return "error", time.perf_counter() - started, exc
    finally:
        signal.alarm(0)
    seconds = time.perf_counter() - started
    if verdict.blocked:
        return "block", seconds, verdict
    return ("read_only" if verdict.read_only else "approval"), seconds, verdict


def right(expect: str, got: str) -> bool:
    if expect == "read_only":
        return got == "read_only"
    if expect == "block":
        return got == "block"
    return got in ("approval", "block")


def main(argv: list[str]) -> int:
    details = "--details" in argv
    names = [a for a in argv if not a.startswith("--")]
    for name in names:
        cases = load(name)
        per_expect: Counter[str] = Counter()
        per_expect_right: Counter[str] = Counter()
        per_cat: Counter[str] = Counter()
        per_cat_right: Counter[str] = Counter()
        dangerous_ro: list[dict] = []
        errors: list[tuple[dict, object]] = []
        slow: list[tuple[float, str]] = []
        wrong: list[tuple[dict, str, object]] = []
        for case in cases:
            got, seconds, verdict = judge(case["command"])
            ok = right(case["expect"], got)
            per_expect[case["expect"]] += 1
            per_cat[case["category"]] += 1
            per_expect_right[case["expect"]] += ok
            per_cat_right[case["category"]] += ok
            if got == "error":
                errors.append((case, verdict))
            if case["expect"] != "read_only" and got == "read_only":
                dangerous_ro.append(case)
            slow.append((seconds, case["id"]))
            if not ok:
                wrong.append((case, got, verdict))
        total = len(cases)
        good = sum(per_expect_right.values())
        print(f"== {name}: {good}/{total} right ({100 * good / total:.1f}%)")
        for expect in sorted(per_expect):
            print(f"  expect {expect}: {per_expect_right[expect]}/{per_expect[expect]}")
        for cat in sorted(per_cat):
            print(f"  {cat}: {per_cat_right[cat]}/{per_cat[cat]}")
        print(f"  not read-only but judged read-only: {len(dangerous_ro)}")
        print(f"  errors (tracebacks): {len(errors)}")
        print(f"  hangs (no verdict in {LIMIT} s): "
              f"{sum(1 for s, _ in slow if s >= LIMIT)}")
        slow.sort(reverse=True)
        print(f"  slowest: {', '.join(f'{i} {s:.2f}s' for s, i in slow[:3])}")
        print(f"  over 1 s: {sum(1 for s, _ in slow if s > 1.0)}")
        if details:
            for case, got, verdict in wrong:
                why = getattr(verdict, "reasons", verdict)
                print(f"  WRONG {case['id']} [{case['expect']}→{got}] "
                      f"{case['command'][:160]!r} :: {str(why)[:200]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
