"""Score the reading of hosts named in words on fleet_words.json: 60 requests against the
bed's inventory ([web] web1 web2, [db] db1), written in several voices before the reader
was read again, each with what a competent admin would mean.

Each case goes through what `reos plan` does (reos.commands.plan.hosts_named: the cheap
first look, Ansible's reading of a real INI file, the reader), and is right when it:
- expects hosts: names the same hosts as the case's pattern (both chosen by Ansible from
  the same file), and the rest of the request plans on the saved snapshot as the case's
  request does (same kind, operation and commands);
- expects "ask", "unknown" or "local" (no host named): gets that.

`python -m tests.understanding.fleet_words` prints each miss and the score.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
CASES = HERE / "fleet_words.json"
FIXTURE = HERE.parent / "fixtures" / "homelab.json"
INVENTORY = """[web]
web1 ansible_host=172.30.0.11
web2 ansible_host=172.30.0.12

[db]
db1 ansible_host=172.30.0.21

[all:vars]
ansible_user=bob
ansible_python_interpreter=/usr/bin/python3
"""


def cases() -> list[dict[str, Any]]:
    return json.loads(CASES.read_text())["cases"]


class Scorer:
    def __init__(self, folder: Path) -> None:
        from reos.engine import ReasoningEngine
        from reos.fleet.inventory import Source
        from reos.settings import Settings
        from reos.system.snapshot import SystemSnapshot

        path = folder / "hosts.ini"
        path.write_text(INVENTORY)
        self.source = Source((path,), "--inventory")
        self.engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.load(FIXTURE))
        self.plans: dict[str, tuple[Any, ...]] = {}

    def hosts(self, pattern: str) -> set[str]:
        from reos.fleet.inventory import select

        return {host.name for host in select(self.source, pattern).hosts}

    def planned(self, request: str) -> tuple[Any, ...]:
        if request not in self.plans:
            plan = self.engine.plan(request)
            operation = plan.intent.operation if plan.intent else None
            self.plans[request] = (plan.kind.value, operation,
                                   tuple(sorted(tuple(s.argv) for s in plan.steps)))
        return self.plans[request]

    def judge(self, case: dict[str, Any]) -> list[str]:
        from reos.on_hosts import hosts_named
        from reos.understanding.hosts import Asked, Chosen, Unknown

        got = hosts_named(case["request"], self.source)
        kind = {type(None): "local", Asked: "ask", Unknown: "unknown",
                Chosen: "hosts"}[type(got)]
        if kind != case["expect"]:
            said = got.pattern if isinstance(got, Chosen) else ""
            return [f"{kind} {said}".strip() + f", not {case['expect']}"]
        if not isinstance(got, Chosen):
            return []
        problems = []
        if set(got.hosts) != self.hosts(case["pattern"]):
            problems.append(f"hosts {','.join(got.hosts)} ({got.pattern}), not "
                            f"{case['pattern']}")
        if self.planned(got.request) != self.planned(case["means"]):
            problems.append(f"rest {got.request!r} plans as {self.planned(got.request)[:2]}, "
                            f"not as {case['means']!r} {self.planned(case['means'])[:2]}")
        return problems


def score(quiet: bool = False) -> tuple[int, int]:
    os.environ.setdefault("REOS_LLM", "off")
    with tempfile.TemporaryDirectory() as folder:
        scorer = Scorer(Path(folder))
        right = 0
        every = cases()
        for case in every:
            problems = scorer.judge(case)
            right += not problems
            if problems and not quiet:
                print(f"✗ {case['request']!r}: {'; '.join(problems)}")
    return right, len(every)


def main(argv: list[str]) -> int:
    right, total = score(quiet="--quiet" in argv)
    print(f"fleet_words.json {right}/{total} ({100 * right / total:.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
