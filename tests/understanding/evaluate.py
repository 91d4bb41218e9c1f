"""Run the understanding evaluation: requests planned against a saved snapshot.

Three sets of cases, one format:
- `cases.toml`: written alongside the first rules; the suite keeps a floor on it
  (test_evaluation.py);
- `catalogue/*.toml`: written before the operation catalogue and its parser existed, in
  several voices, each case naming its domain and the operation it should be;
- `held_back/*.toml`: a quarter of those, kept back and run only at the end of the work
  (`--held-back`).

A case is planned against tests/fixtures/homelab.json, with its `manager` as the package
manager and its `installed` packages added to the snapshot's list when it names them.

`python -m tests.understanding.evaluate` prints each failure of cases.toml, the pass
rate per domain of the catalogue cases, and a last line with every rate;
`--held-back` adds the held-back cases; `--quiet` prints only the rates.
"""

from __future__ import annotations

import copy
import json
import os
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


def cases_in(folder: str) -> list[dict]:
    """Every case of every file in `catalogue/` or `held_back/`, each with its file name."""
    found = []
    for path in sorted((HERE / folder).glob("*.toml")):
        for case in tomllib.loads(path.read_text()).get("case", []):
            found.append({**case, "file": f"{folder}/{path.name}"})
    return found


def engines() -> dict[str, ReasoningEngine]:
    base = json.loads(FIXTURE.read_text())
    out = {}
    for manager in ("apt", "dnf", "pacman", "zypper", "apk"):
        data = copy.deepcopy(base)
        data["host"]["package_manager"] = manager
        out[manager] = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    return out


def engine_with(installed: list[str], manager: str = "apt") -> ReasoningEngine:
    """An engine whose snapshot lists these packages too (a case's `installed`: "the mail
    queue" needs Postfix, which the homelab fixture lacks)."""
    data = json.loads(FIXTURE.read_text())
    data["host"]["package_manager"] = manager
    data["packages"] += [{"name": name, "version": "1.0"} for name in installed]
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def check(case: dict, engine: ReasoningEngine) -> Outcome:
    meta = engine.meta_plan(case["say"], perform=False)  # as `reos plan --json` reads it
    plan = meta[0] if meta is not None else engine.plan(case["say"])
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
    if "says" in case and case["says"] not in plan.text():
        problems.append(f"message lacks {case['says']!r}")
    if problems:
        problems.append(f"commands: {commands}; message: {plan.text()[:160]!r}")
    return Outcome(case, problems)


def engine_for(case: dict, made: dict[str, ReasoningEngine]) -> ReasoningEngine:
    """The engine a case is planned with: its manager's (`made`, from `engines`), or one
    with its `installed` packages added, made once and kept in `made` ("apt+postfix")."""
    manager = case.get("manager", "apt")
    installed = case.get("installed") or []
    if not installed:
        return made[manager]
    key = "+".join([manager, *installed])
    if key not in made:
        made[key] = engine_with(installed, manager)
    return made[key]


def run(selected: list[dict] | None = None) -> list[Outcome]:
    made = engines()
    return [check(c, engine_for(c, made))
            for c in (cases() if selected is None else selected)]


def rate(outcomes: list[Outcome]) -> str:
    passed = sum(o.ok for o in outcomes)
    return f"{passed}/{len(outcomes)} ({100 * passed / max(1, len(outcomes)):.1f}%)"


def by_domain(outcomes: list[Outcome]) -> dict[str, list[Outcome]]:
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(str(o.case.get("domain", "?")), []).append(o)
    return dict(sorted(groups.items()))


def main(argv: list[str]) -> int:
    quiet = "--quiet" in argv
    outcomes = run()
    if not quiet:
        for o in outcomes:
            if not o.ok:
                print(f"FAIL {o.case['say']!r}: " + "; ".join(o.problems))
    print(f"{rate(outcomes)} passed")
    summary = [f"cases.toml {rate(outcomes)}"]
    for folder in ("catalogue", "held_back") if "--held-back" in argv else ("catalogue",):
        found = run(cases_in(folder))
        if not found:
            continue
        print(f"{folder}:")
        for domain, group in by_domain(found).items():
            print(f"  {domain:<12} {rate(group)}")
        summary.append(f"{folder} {rate(found)}")
    print("understanding: " + "; ".join(summary))
    return 0


if __name__ == "__main__":
    import sys

    # the built-in understanding is what this measures (bench/understanding_llm.py measures
    # a model): no request may reach an Ollama server that happens to run here
    os.environ.setdefault("REOS_LLM", "off")
    raise SystemExit(main(sys.argv[1:]))
