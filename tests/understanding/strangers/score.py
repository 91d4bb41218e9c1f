"""Score a stranger's understanding set: each request planned on the set's own snapshot.

A set (`set-*.json`, schema `reos.understanding-set/1`) was written by a helper who never
read reos's code, catalogue or tests: a machine snapshot of their own design and requests
in six voices, each naming what a competent admin would run. Its `.sha256` is checked
before anything is planned, so a set cannot be edited after it was frozen.

What counts as right, by the kind the writer expected (written before any set was run,
and the same for every set; never tuned to a case):
- `chat`: no step changes anything, and the plan is not an action;
- `refuse`: the plan is refused or blocked;
- `clarify`: reos asks which one (a question with choices);
- `query`: the plan only reads, and each named target shows up in a step or in the
  answer's words;
- `action`: the plan acts, every named target is in an acting step, each essential word
  (the verb) is in an acting step — up to the same word in another tool's spelling
  (SAME) — and no forbidden name is touched.

This does not judge whether a command would succeed, nor how a plan is worded.

    .venv/bin/python -m tests.understanding.strangers.score set-f1.json
    .venv/bin/python -m tests.understanding.strangers.score --details set-f1.json
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent

# one word an admin writes, and the words other tools (or reos's recipes) use for it
SAME: dict[str, set[str]] = {
    "status": {"show", "is-active", "status", "is-enabled", "is-failed"},
    "restart": {"restart", "try-restart", "reload-or-restart", "try-reload-or-restart"},
    "reload": {"reload", "reload-or-restart", "try-reload-or-restart"},
    "start": {"start", "up"},
    "stop": {"stop", "down"},
    "remove": {"remove", "rm", "rmi", "del", "delete", "userdel", "groupdel", "deluser",
               "delgroup", "uninstall", "erase", "-r", "-R"},
    "purge": {"purge", "remove", "--purge"},
    "install": {"install", "add", "-S", "--reinstall", "reinstall"},
    "reinstall": {"reinstall", "--reinstall"},
    "upgrade": {"upgrade", "--only-upgrade", "full-upgrade", "dist-upgrade", "update",
                "-Syu", "install"},
    "lock": {"lock", "-L", "--lock", "-l"},
    "unlock": {"unlock", "-U", "--unlock", "-u"},
    "kill": {"kill", "pkill", "killall", "-TERM", "-KILL", "-9", "-15"},
    "logs": {"logs", "journalctl", "-u"},
    "prune": {"prune", "rmi", "autoremove", "clean"},
    "add": {"add", "-aG", "-a", "-G", "adduser", "gpasswd", "usermod", "useradd"},
    "usermod": {"usermod", "gpasswd", "adduser", "deluser", "chsh", "chage", "passwd"},
    "useradd": {"useradd", "adduser"},
    "userdel": {"userdel", "deluser"},
    "groupadd": {"groupadd", "addgroup"},
    "groupdel": {"groupdel", "delgroup"},
    "gpasswd": {"gpasswd", "usermod", "adduser", "deluser"},
    "allow": {"allow", "--add-port", "--add-service", "accept", "ACCEPT"},
    "deny": {"deny", "reject", "drop", "DROP", "REJECT", "--remove-port"},
    "enable": {"enable", "--now"},
    "disable": {"disable"},
    "chsh": {"chsh", "usermod", "-s", "--shell"},
    "chage": {"chage", "passwd", "-e", "--expire", "-M", "-E"},
    "hold": {"hold", "versionlock"},
    "unhold": {"unhold"},
    "renice": {"renice", "nice"},
}


@dataclass
class Result:
    case: dict[str, Any]
    problems: list[str] = field(default_factory=list)
    seen: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def load(path: Path) -> dict[str, Any]:
    """The set, after its frozen hash is checked (a mismatch stops the run)."""
    raw = path.read_bytes()
    frozen = Path(f"{path}.sha256").read_text().split()[0]
    actual = hashlib.sha256(raw).hexdigest()
    if frozen != actual:
        raise SystemExit(f"{path.name} changed after it was frozen: {actual} != {frozen}")
    data = json.loads(raw)
    if data.get("schema") != "reos.understanding-set/1":
        raise SystemExit(f"{path.name} is not an understanding set")
    return data


def _parts(word: str) -> set[str]:
    return {p for p in re.split(r"[\s,:=@/]+", word) if p} | {word}


def _names(target: str) -> set[str]:
    """A snapshot name and the spellings a command uses for it (a unit without .service)."""
    out = {target}
    for suffix in (".service", ".timer", ".socket", ".mount"):
        if target.endswith(suffix):
            out.add(target[: -len(suffix)])
    return out


def mentions(argv: list[str], target: str) -> bool:
    """Whether a command names the target: a whole word, a part of one, or a path under it."""
    names = _names(target)
    for word in argv:
        if names & _parts(word):
            return True
        if target.startswith("/") and (word == target or word.startswith(target.rstrip("/") + "/")):
            return True
    return False


def _said(plan: Any) -> str:
    return "\n".join([plan.text() or "", *(plan.lead or []), *(plan.notes or []),
                      plan.question or ""])


def judge(case: dict[str, Any], plan: Any) -> list[str]:
    kind = case["kind"]
    steps = list(plan.steps)
    acting = [s for s in steps if not s.read_only]
    got = plan.kind.value
    problems: list[str] = []
    if kind == "chat":
        if acting or got in ("action", "combined"):
            problems.append(f"a change planned for chat ({got})")
        return problems
    if kind == "refuse":
        if got != "refuse" and not plan.blocked:
            problems.append(f"not refused ({got})")
        return problems
    if kind == "clarify":
        if got != "clarify":
            problems.append(f"no question ({got})")
        return problems
    if kind == "query":
        if acting:
            problems.append("a change planned for a query")
        if got not in ("query", "meta"):
            problems.append(f"kind {got}, expected query")
            return problems
        said = _said(plan)
        for target in case.get("targets", []):
            if not any(mentions(s.argv, target) for s in steps) and not any(
                    n in said for n in _names(target)):
                problems.append(f"target {target} not looked at")
        return problems
    # action
    if got not in ("action", "combined", "meta"):
        problems.append(f"kind {got}, expected action")
        return problems
    for target in case.get("targets", []):
        if not any(mentions(s.argv, target) for s in acting):
            problems.append(f"target {target} not acted on")
    words = {w for s in acting for w in s.argv} | {s.action or "" for s in acting}
    words |= {plan.verb or ""}
    for essential in case.get("essential", []):
        if not ({essential} | SAME.get(essential, set())) & words:
            problems.append(f"no {essential!r}")
    for name in case.get("forbid", []):
        if any(mentions(s.argv, name) for s in acting):
            problems.append(f"touched forbidden {name}")
    return problems


def category(result: Result) -> str:
    """What kind of miss it is, for the summary."""
    text = " ".join(result.problems)
    if not result.problems:
        return "right"
    if "change planned" in text:
        return "change for a query or chat"
    if "kind unknown" in text or "not refused (unknown)" in text or "no question (unknown)" in text:
        return "didn't understand"
    if "kind clarify" in text:
        return "needless question"
    if "kind " in text or "not refused" in text or "no question" in text:
        return "wrong kind"
    if "forbidden" in text:
        return "touched something else"
    return "wrong target or verb"


def run(data: dict[str, Any]) -> list[Result]:
    from reos.engine import ReasoningEngine
    from reos.settings import Settings
    from reos.system.snapshot import SystemSnapshot

    snapshot = SystemSnapshot.from_dict(data["snapshot"])
    results = []
    for case in data["cases"]:
        engine = ReasoningEngine(Settings(), snapshot=snapshot)  # no conversation carried
        try:
            meta = engine.meta_plan(case["say"], perform=False)
            plan = meta[0] if meta is not None else engine.plan(case["say"])
        except Exception as exc:  # noqa: BLE001 - a crash is a miss, reported, not fatal
            results.append(Result(case, [f"crashed: {type(exc).__name__}: {exc}"]))
            continue
        seen = f"{plan.kind.value}: {[s.command for s in plan.steps]} {_said(plan)[:200]!r}"
        results.append(Result(case, judge(case, plan), seen))
    return results


def rate(results: list[Result]) -> str:
    right = sum(r.ok for r in results)
    return f"{right}/{len(results)} ({100 * right / max(1, len(results)):.1f}%)"


def main(argv: list[str]) -> int:
    details = "--details" in argv
    names = [a for a in argv if not a.startswith("--")]
    if not names:
        print(__doc__)
        return 2
    os.environ["REOS_LLM"] = "off"  # the built-in understanding is what this measures
    for name in names:
        path = Path(name) if Path(name).exists() else HERE / name
        results = run(load(path))
        print(f"{path.name}: {rate(results)} right")
        for label, key in (("voice", "voice"), ("kind", "kind")):
            groups: dict[str, list[Result]] = defaultdict(list)
            for r in results:
                groups[str(r.case.get(key, "?"))].append(r)
            shown = ", ".join(f"{k} {rate(v)}" for k, v in sorted(groups.items()))
            print(f"  by {label}: {shown}")
        misses = Counter(category(r) for r in results if not r.ok)
        print("  misses: " + ", ".join(f"{k} {n}" for k, n in misses.most_common()))
        precision = sum(1 for r in results if category(r) == "change for a query or chat")
        print(f"  changes nobody asked for: {precision}")
        if details:
            for r in results:
                if not r.ok:
                    print(f"MISS {r.case['id']} [{r.case['voice']}/{r.case['kind']}] "
                          f"{r.case['say']!r}: {'; '.join(r.problems)}\n    got {r.seen}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
