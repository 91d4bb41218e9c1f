"""The coverage list: the everyday tasks of a Linux admin, each marked against what reos
does today (`coverage.toml`), and the page made from it (`docs/coverage.md`).

Checked here: at least 300 tasks in every domain the list promises, no task or request
twice, a valid status for each, a reason wherever one is due, every operation named is
an operation of the built-in catalogue, and docs/coverage.md is exactly the page this
module renders from coverage.toml. Whether each request parses is not checked here: the
understanding evaluation measures phrasing.

Run as a script (from the repository root):
  python -m tests.understanding.test_coverage --run     plan every request again, without
                                                        a model, and say what changed
  python -m tests.understanding.test_coverage --write   rewrite docs/coverage.md
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import tomllib
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reos.catalogue import operations as catalogue
from reos.catalogue import templates

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
LIST = HERE / "coverage.toml"
DOCS = ROOT / "docs" / "coverage.md"
FIXTURE = ROOT / "tests" / "fixtures" / "homelab.json"
REOS_BIN = Path(sys.executable).parent / "reos"

STATUSES = ("covered", "fallback", "missing", "out")
DOMAINS = ("services", "containers", "packages", "users", "processes", "disks", "network",
           "firewall", "system", "security", "scheduling", "logs", "files")
KEYS = {"domain", "task", "say", "status", "op", "reason", "note"}


def load_tasks() -> list[dict[str, str]]:
    return tomllib.loads(LIST.read_text(encoding="utf-8"))["task"]


def catalogue_ids() -> set[str]:
    """The ids of the built-in operations, each table read by the catalogue module."""
    ids = set()
    for path in sorted(templates.builtin_dir().glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for index, raw in enumerate(data.get("operation", [])):
            ids.add(catalogue.operation(raw, index, str(path)).id)
    return ids


# --- the page ---------------------------------------------------------------------------

PREFACE = """\
# Coverage: the everyday tasks of a Linux admin

<!-- Made from tests/understanding/coverage.toml by
     `python -m tests.understanding.test_coverage --write`. Do not edit by hand. -->

This page lists the everyday tasks of a Linux admin, domain by domain.
Each task says what reos does with it today.

## How it was made

- The tasks come from daily admin work and the tools' manual pages.
  There is one line per task, with no near-duplicates.
- Each task has one ordinary request, as a user would type it.
- Each request was planned against the saved snapshot, with no model:
  `REOS_LLM=off .venv/bin/reos plan --json --context tests/fixtures/homelab.json "REQUEST"`.
  The plan's operation and steps were read by hand.
- A task is covered only when an operation really does it.
- When the operation exists but the request is not understood, the task is still covered.
  A note then gives a wording that works. That is a parser problem, not a coverage gap.
- Answers from a model are not counted. With a model, reos may propose a command for a
  missing task, but this list does not measure that.

The statuses:

- **covered**: an operation of the catalogue does it.
- **fallback**: no operation does it, but a nearby operation gives a useful part of the
  answer.
- **missing**: reos should do it and does not yet. This is the to-do list.
  The reason says what it would run.
- **out**: out of scope. The reason says why.

## How to check it again

- `.venv/bin/python -m pytest -q tests/understanding/test_coverage.py -p no:randomly`
  checks the list: at least 300 tasks, valid statuses, reasons, operations that exist,
  and this page matching the list.
- `.venv/bin/python -m tests.understanding.test_coverage --run` plans every request
  again, with no model, and says what changed.
- `.venv/bin/python -m tests.understanding.test_coverage --write` rewrites this page
  after coverage.toml changes.
"""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _what(task: dict[str, str]) -> str:
    if task["status"] == "covered":
        return f"`{task['op']}`"
    if task["status"] == "fallback":
        return f"`{task['op']}`: {task['reason']}"
    return task["reason"]


def render(tasks: list[dict[str, str]]) -> str:
    """docs/coverage.md for these tasks: the preface, the totals, a table per domain."""
    domains = list(dict.fromkeys(t["domain"] for t in tasks))
    counts = Counter((t["domain"], t["status"]) for t in tasks)
    out = [PREFACE, "\n## Totals\n\n",
           "| Domain | " + " | ".join(STATUSES) + " | all |\n",
           "|---|" + "---:|" * (len(STATUSES) + 1) + "\n"]
    for domain in domains:
        row = [counts[domain, s] for s in STATUSES]
        out.append(f"| {domain} | " + " | ".join(map(str, row)) + f" | {sum(row)} |\n")
    whole = [sum(counts[d, s] for d in domains) for s in STATUSES]
    out.append("| **all** | " + " | ".join(f"**{n}**" for n in whole)
               + f" | **{sum(whole)}** |\n")
    for domain in domains:
        mine = [t for t in tasks if t["domain"] == domain]
        out += [f"\n## {domain}\n\n",
                "| Task | Request | Status | Operation or reason |\n",
                "|---|---|---|---|\n"]
        for t in mine:
            out.append(f"| {_cell(t['task'])} | {_cell(t['say'])} | {t['status']} |"
                       f" {_cell(_what(t))} |\n")
        noted = [t for t in mine if t.get("note")]
        if noted:
            out.append("\nNotes:\n\n")
            out += [f"- {_cell(t['task'])}: {' '.join(t['note'].split())}\n" for t in noted]
    return "".join(out)


# --- the checks -------------------------------------------------------------------------


def test_at_least_300_tasks_in_every_domain() -> None:
    tasks = load_tasks()
    assert len(tasks) >= 300, len(tasks)
    per_domain = Counter(t.get("domain") for t in tasks)
    assert set(per_domain) == set(DOMAINS), set(per_domain) ^ set(DOMAINS)
    assert all(n >= 10 for n in per_domain.values()), per_domain


def test_every_task_is_well_formed() -> None:
    for t in load_tasks():
        where = repr(t.get("say"))
        assert set(t) <= KEYS, (where, set(t) - KEYS)
        for key in t:
            assert isinstance(t[key], str) and t[key].strip(), (where, key)
        for key in ("domain", "task", "say", "status"):
            assert key in t, (where, key)
        assert t["status"] in STATUSES, (where, t["status"])
        if t["status"] in ("covered", "fallback"):
            assert "op" in t, (where, "names no operation")
        else:
            assert "op" not in t, (where, f"a {t['status']} task names an operation")
        if t["status"] != "covered":
            assert "reason" in t, (where, f"a {t['status']} task needs a reason")


def test_no_task_or_request_is_listed_twice() -> None:
    tasks = load_tasks()
    for key in ("task", "say"):
        seen = Counter(" ".join(t[key].lower().split()) for t in tasks)
        assert not [s for s, n in seen.items() if n > 1], key


def test_every_operation_named_is_in_the_catalogue() -> None:
    known = catalogue_ids()
    unknown = sorted({t["op"] for t in load_tasks() if "op" in t} - known)
    assert not unknown, unknown


def test_the_page_matches_the_list() -> None:
    written = DOCS.read_text(encoding="utf-8")
    assert written == render(load_tasks()), (
        "docs/coverage.md differs from coverage.toml:"
        " python -m tests.understanding.test_coverage --write")


# --- as a script ------------------------------------------------------------------------


def plan(say: str, home: str) -> dict:
    """`reos plan --json` of one request against the snapshot, with no model; never runs."""
    env = dict(os.environ, REOS_LLM="off", REOS_HOME=home)
    done = subprocess.run([str(REOS_BIN), "plan", "--json", "--context", str(FIXTURE), say],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"kind": "error", "message": (done.stdout + done.stderr)[-200:]}


def verdict(task: dict[str, str], found: dict) -> tuple[str, str]:
    """(mark, what the request became): "ok", "phrasing" (known), or "CHANGED"."""
    op = (found.get("intent") or {}).get("operation")
    steps = found.get("steps") or []
    became = f"{found.get('kind')} {op or '-'} ({len(steps)} step(s))"
    phrasing = task.get("note", "").startswith("Phrasing")
    if task["status"] in ("covered", "fallback"):
        if op != task["op"]:
            return ("phrasing" if phrasing else "CHANGED"), became
        if phrasing and steps:
            return "CHANGED", became + ": it parses now, drop the note"
        return ("phrasing" if phrasing else "ok"), became
    if op and steps and not task.get("note"):
        return "CHANGED", became + ": check whether it is covered now"
    return "ok", became


def rerun() -> int:
    tasks = load_tasks()
    with tempfile.TemporaryDirectory() as home, ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda t: plan(t["say"], home), tasks))
    marks: Counter[str] = Counter()
    for task, result in zip(tasks, found, strict=True):
        mark, became = verdict(task, result)
        marks[mark] += 1
        print(f"{mark:<9} {task['status']:<9} {task['domain']:<11} {task['say']!r} -> {became}")
    print(", ".join(f"{n} {m}" for m, n in sorted(marks.items())))
    return 0


def main(argv: list[str]) -> int:
    if "--write" in argv:
        DOCS.write_text(render(load_tasks()), encoding="utf-8")
        print(f"wrote {DOCS.relative_to(ROOT)}")
        return 0
    if "--run" in argv:
        return rerun()
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
