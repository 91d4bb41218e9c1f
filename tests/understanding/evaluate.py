"""Run the understanding evaluation: every case in cases.toml, planned against a snapshot.

`python -m tests.understanding.evaluate` prints the pass rate and each failure; the test
suite runs the same cases (test_evaluation.py).
"""

from __future__ import annotations

import copy
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

HERE = Path(__file__).parent
FIXTURE = HERE.parent / "fixtures" / "homelab.json"


@dataclass
class Outcome:
    case: dict
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def cases() -> list[dict]:
    return tomllib.loads((HERE / "cases.toml").read_text())["case"]


def engines() -> dict[str, ReasoningEngine]:
    base = json.loads(FIXTURE.read_text())
    out = {}
    for manager in ("apt", "dnf", "pacman", "zypper", "apk"):
        data = copy.deepcopy(base)
        data["host"]["package_manager"] = manager
        out[manager] = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    return out


def check(case: dict, engine: ReasoningEngine) -> Outcome:
    plan = engine.plan(case["say"])
    commands = [s.command for s in plan.steps]
    problems = []
    if plan.kind.value != case["kind"]:
        problems.append(f"kind {plan.kind.value!r}, expected {case['kind']!r}")
    for fragment in case.get("argv", []):
        if not any(fragment in c for c in commands):
            problems.append(f"no step runs {fragment!r}")
    for fragment in case.get("forbid", []):
        if any(fragment in c for c in commands):
            problems.append(f"a step runs forbidden {fragment!r}")
    if "says" in case and case["says"] not in plan.message:
        problems.append(f"message lacks {case['says']!r}")
    if problems:
        problems.append(f"commands: {commands}; message: {plan.message[:160]!r}")
    return Outcome(case, problems)


def run() -> list[Outcome]:
    by_manager = engines()
    return [check(c, by_manager[c.get("manager", "apt")]) for c in cases()]


if __name__ == "__main__":
    outcomes = run()
    passed = sum(o.ok for o in outcomes)
    for o in outcomes:
        if not o.ok:
            print(f"FAIL {o.case['say']!r}: " + "; ".join(o.problems))
    print(f"{passed}/{len(outcomes)} passed ({100 * passed / len(outcomes):.1f}%)")
