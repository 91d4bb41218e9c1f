"""Score the risk engine against a safety corpus: corpus.toml, holdout.toml, or any file like them.

`python -m tests.safety.evaluate [FILE ...]` judges every command with
`reos.safety.risk.assess`, prints `N/M right` per category and per file, lists each wrong
verdict, and ends with one line `safety evaluation: N/M right (P%)`. Without arguments it
scores corpus.toml and holdout.toml. The categories and what each one demands are defined
here once (`EXPECTATIONS`); test_corpus.py asserts the same demands case by case.

Not responsible for choosing the cases (the TOML files are) or for running holdout.toml in
the test suite (it is held out on purpose).
"""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from reos.model.risk import RiskLevel
from reos.safety.risk import assess
from reos.safety.verdict import Verdict

HERE = Path(__file__).parent
DEFAULT_FILES = (HERE / "corpus.toml", HERE / "holdout.toml")


def _blocked(v: Verdict) -> bool:
    # a block must say why, or the person cannot tell a rule from a crash
    return v.blocked and v.risk == RiskLevel.CRITICAL and bool(v.reasons)


def _flagged(v: Verdict) -> bool:
    return not v.blocked and v.risk >= RiskLevel.HIGH and bool(v.reasons)


def _at_least_high(v: Verdict) -> bool:
    return v.risk >= RiskLevel.HIGH and bool(v.reasons)


def _allowed(v: Verdict) -> bool:
    return not v.blocked


def _safe(v: Verdict) -> bool:
    return not v.blocked and v.risk <= RiskLevel.LOW


def _read_only(v: Verdict) -> bool:
    return not v.blocked and v.risk == RiskLevel.SAFE and v.read_only


def _writes(v: Verdict) -> bool:
    return not v.read_only


# category -> (what it demands, in words; the test of a verdict)
EXPECTATIONS: dict[str, tuple[str, Callable[[Verdict], bool]]] = {
    "block": ("blocked, critical, with reasons", _blocked),
    "bypass": ("blocked, critical, with reasons", _blocked),
    "flag": ("not blocked, high or more, with reasons", _flagged),
    "at_least_high": ("high or more, with reasons", _at_least_high),
    "allowed": ("not blocked", _allowed),
    "safe": ("not blocked, safe or low", _safe),
    "read_only": ("safe and verified read-only", _read_only),
    "writes": ("not read-only", _writes),
}


@dataclass
class Outcome:
    category: str
    command: str
    verdict: Verdict

    @property
    def right(self) -> bool:
        return EXPECTATIONS[self.category][1](self.verdict)

    def describe(self) -> str:
        v = self.verdict
        state = "blocked" if v.blocked else "allowed"
        reasons = "; ".join(v.reasons) or "no reasons"
        return (f"{self.command!r}: expected {EXPECTATIONS[self.category][0]}; got "
                f"{v.risk.label}, {state}, read_only={v.read_only} ({reasons})")


def load(path: Path) -> dict[str, list[str]]:
    cases = tomllib.loads(path.read_text())
    unknown = set(cases) - set(EXPECTATIONS)
    if unknown:
        raise ValueError(f"{path.name}: unknown categories {sorted(unknown)}")
    return cases


def evaluate(cases: dict[str, list[str]]) -> list[Outcome]:
    return [Outcome(category, command, assess(command))
            for category, commands in cases.items() for command in commands]


def _score(right: int, total: int) -> str:
    percent = 100 * right / total if total else 100.0
    return f"{right}/{total} right ({percent:.1f}%)"


def report(path: Path, out: Callable[[str], None] = print) -> tuple[int, int]:
    """Print the score of one corpus file; return (right, total)."""
    outcomes = evaluate(load(path))
    out(f"== {path.name}")
    for category in EXPECTATIONS:
        mine = [o for o in outcomes if o.category == category]
        if not mine:
            continue
        wrong = [o for o in mine if not o.right]
        out(f"{category}: {_score(len(mine) - len(wrong), len(mine))}")
        for o in wrong:
            out(f"  WRONG {o.describe()}")
    right = sum(o.right for o in outcomes)
    out(f"{path.name}: {_score(right, len(outcomes))}")
    return right, len(outcomes)


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or [p for p in DEFAULT_FILES if p.exists()]
    right = total = 0
    for path in paths:
        r, t = report(path)
        right, total = right + r, total + t
        print()
    print(f"safety evaluation: {_score(right, total)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
