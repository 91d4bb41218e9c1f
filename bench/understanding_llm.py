"""The understanding evaluation read by a model: accuracy per domain and per source.

Runs the cases of tests/understanding (the catalogue cases by default) through
`ReasoningEngine.plan` with `[llm]` pointed at an Ollama server, and prints how many
passed per domain and per source of the reading (`llm`, `llm-repaired`, `catalogue`...),
how often the model was not used (fell back: timeout, invalid answer...) and how long
the model took. So a user can choose a model, and the project can compare models where
one is available:

    .venv/bin/python bench/understanding_llm.py --model qwen2.5:3b [--mode first] [--limit 50]
    .venv/bin/python bench/understanding_llm.py --fake    # no weights: an echoing "model"

`--fake` starts tests/fake_ollama.FakeOllama with a scripted "model" that answers with
the catalogue parser's own reading in the answer schema, so the script, the prompt,
the validation and the plan building are exercised without a model (its accuracy is
the parser's, give or take what validation rejects). With no server answering at
--host the script says so in one line and exits 2.

Each case is planned once against the saved homelab snapshot, with no earlier turns
(a case must not read as a follow-up to the one before) and the model asked for every
case even after a failure (the engine would otherwise rest it a while). Scoring is the
evaluation's own (tests/understanding/evaluate.check). Nothing runs: plans only.
Not a timing benchmark of reos itself (bench/llm_overhead.py is).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SETS = ("catalogue", "held_back", "cases", "all")


# -- the echoing "model" (--fake, and the instant answers of llm_overhead.py) -----------
def request_of(body: dict) -> str:
    """The request an /api/chat body asks about (the prompt's last "Request:" line)."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") != "user":
            continue
        for line in reversed(str(message.get("content", "")).splitlines()):
            if line.startswith("Request: "):
                try:
                    return str(json.loads(line[len("Request: "):]))
                except ValueError:
                    return line[len("Request: "):]
    return ""


def _reading(intent: Any) -> dict[str, Any]:
    answer: dict[str, Any] = {"op": intent.operation, "targets": list(intent.targets)}
    if intent.qualifiers:
        answer["qualifiers"] = list(intent.qualifiers)
    if intent.exclude:
        answer["exclude"] = list(intent.exclude)
    if intent.params:
        answer["slots"] = dict(intent.params)
    if intent.condition and intent.condition_subject:
        subjects = intent.condition_subject[0]
        if subjects:
            answer["condition"] = {"if": intent.condition.removeprefix("if_"),
                                   "subject": subjects[0]}
    return answer


def answer_for(intent: Any) -> dict[str, Any]:
    """The catalogue parser's reading `intent`, written as a model's answer would be."""
    from reos.model import Kind

    if intent is None or intent.kind in (Kind.UNKNOWN, Kind.REFUSE, Kind.META) or (
            intent.kind != Kind.CLARIFY and not intent.operation):
        return {"thought": "not something I can place", "kind": "unknown", "op": "command",
                "reply": "I do not know what that means on this machine.", "confidence": 0.2}
    if intent.kind == Kind.CLARIFY:
        choices = [{**_reading(o), "consequence": o.summary or o.operation or "this"}
                   for o in intent.options if o.operation][:4]
        if not choices:
            return answer_for(None)
        return {"thought": "two readings", "kind": "clarify", "op": choices[0]["op"],
                "question": "Which did you mean?", "choices": choices, "confidence": 0.5}
    kind = "query" if intent.kind == Kind.QUERY else "action"
    return {"thought": f"the person wants {intent.operation}", "kind": kind,
            **_reading(intent), "confidence": max(0.8, float(intent.confidence))}


class EchoModel:
    """A scripted "model" for FakeOllama: answers with the catalogue parser's reading."""

    def __init__(self, engine: Any):
        self.engine = engine  # a parser-only engine on the same snapshot as the one asked

    def __call__(self, body: dict) -> str:
        from reos.reasoning import understanding

        request = request_of(body)
        intent = understanding.understand(request, self.engine.templates,
                                          self.engine.builder().matcher)
        return json.dumps(answer_for(intent))


# -- the evaluation ---------------------------------------------------------------------
def reachable(host: str, timeout: float = 3.0) -> str | None:
    """The server's version, or None when nothing answers at `host`."""
    try:
        with urllib.request.urlopen(host.rstrip("/") + "/api/version", timeout=timeout) as r:
            return str(json.loads(r.read() or b"{}").get("version", "?"))[:40]
    except (OSError, ValueError, urllib.error.URLError):
        return None


def selected_cases(which: str) -> list[dict]:
    from tests.understanding import evaluate

    if which == "cases":
        return [{**c, "domain": c.get("domain", "cases.toml")} for c in evaluate.cases()]
    if which == "all":
        return selected_cases("cases") + evaluate.cases_in("catalogue") + evaluate.cases_in(
            "held_back")
    return evaluate.cases_in(which)


def spread(cases: list[dict], limit: int | None) -> list[dict]:
    """At most `limit` cases, taken evenly across the list (so every domain shows)."""
    if not limit or limit >= len(cases):
        return cases
    step = len(cases) / limit
    return [cases[int(i * step)] for i in range(limit)]


def prepare(engine: Any, host: str, model: str, mode: str, timeout: float) -> None:
    llm = engine.settings.llm
    llm.enabled, llm.host, llm.model, llm.mode = True, host, model, mode
    llm.timeout_seconds = timeout
    planned: dict[str, Any] = {}
    real_plan = engine.plan

    def plan_once(text: str, on_event: Any = None) -> Any:
        # evaluate.check plans each case twice (meta_plan, then plan): ask the model once
        if text not in planned:
            planned.clear()
            engine.turns.clear()  # each case stands alone, never a follow-up
            engine._llm_resting_until = 0.0  # ask for every case, even after a failure
            events: list[Any] = []
            plan = real_plan(text, events.append)
            planned[text] = plan
            plan.bench_events = events  # type: ignore[attr-defined]
        return planned[text]

    engine.plan = plan_once


def evaluate_all(cases: list[dict], host: str, model: str, mode: str,
                 timeout: float, progress: bool) -> list[tuple[Any, Any]]:
    from tests.understanding import evaluate

    engines = evaluate.engines()
    for engine in engines.values():
        prepare(engine, host, model, mode, timeout)
    results = []
    for n, case in enumerate(cases, 1):
        engine = engines[case.get("manager", "apt")]
        outcome = evaluate.check(case, engine)
        results.append((outcome, engine.plan(case["say"])))
        if progress and n % 25 == 0:
            print(f"  ... {n}/{len(cases)}", file=sys.stderr, flush=True)
    return results


def rate(group: list[Any]) -> str:
    passed = sum(o.ok for o in group)
    return f"{passed:4d}/{len(group):<4d} ({100 * passed / max(1, len(group)):5.1f}%)"


def fallback_reason(plan: Any) -> str | None:
    for step in plan.trace or []:
        if step.get("stage") == "fell back":
            said = step.get("said", "")
            for kind, words in (("timeout", "did not answer within"),
                                ("unreachable", "No Ollama server"),
                                ("missing model", "ollama pull"),
                                ("invalid after repair", "still invalid")):
                if words in said:
                    return kind
            return "other"
    return None


def report(results: list[tuple[Any, Any]], header: str, seconds: float) -> None:
    print(header)
    print(f"cases: {len(results)} in {seconds:.1f} s")
    print("accuracy per domain:")
    domains: dict[str, list[Any]] = {}
    for outcome, _ in results:
        domains.setdefault(str(outcome.case.get("domain", "?")), []).append(outcome)
    for domain, group in sorted(domains.items()):
        print(f"  {domain:<14} {rate(group)}")
    print("accuracy per source:")
    sources: dict[str, list[Any]] = {}
    for outcome, plan in results:
        sources.setdefault(plan.source, []).append(outcome)
    for source, group in sorted(sources.items(), key=lambda kv: -len(kv[1])):
        print(f"  {source:<14} {rate(group)}")
    asked = [p for _, p in results if any(s.get("stage") == "asking the model"
                                          for s in p.trace or [])]
    repaired = [p for _, p in results if any(s.get("stage") == "repairing"
                                             for s in p.trace or [])]
    reasons = Counter(r for _, p in results if (r := fallback_reason(p)))
    print("model use:")
    print(f"  asked {len(asked)}, repair calls {len(repaired)}, fell back {sum(reasons.values())}"
          + (" (" + ", ".join(f"{k} {v}" for k, v in reasons.most_common()) + ")"
             if reasons else ""))
    answered = [e.ms for _, p in results for e in getattr(p, "bench_events", [])
                if getattr(e, "stage", None) == "model answered" and e.ms is not None]
    if answered:
        print(f"  model call: median {statistics.median(answered):.0f} ms, worst "
              f"{max(answered):.0f} ms over {len(answered)} calls")
    print(f"overall: {rate([o for o, _ in results]).strip()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434"))
    parser.add_argument("--model", default="llama3.2")
    parser.add_argument("--mode", choices=("first", "auto"), default="first")
    parser.add_argument("--limit", type=int, default=None,
                        help="at most this many cases, spread over every domain")
    parser.add_argument("--set", choices=SETS, default="catalogue", dest="which",
                        help="which cases: catalogue (default), held_back, cases, all")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per model call (a cold model loads first)")
    parser.add_argument("--fake", action="store_true",
                        help="serve an echo of the catalogue parser from a fake Ollama")
    args = parser.parse_args(argv)
    if not args.host.startswith(("http://", "https://")):
        args.host = "http://" + args.host
    os.environ.pop("REOS_LLM", None)  # this run is about the model
    with tempfile.TemporaryDirectory() as home:
        os.environ["REOS_HOME"] = home  # no settings, journal or knowledge of the user's
        cases = spread(selected_cases(args.which), args.limit)
        if args.fake:
            return run_fake(args, cases)
        version = reachable(args.host)
        if version is None:
            print(f"No Ollama server answers at {args.host}; start one (`ollama serve`) or "
                  "pass --host, or --fake to exercise this script without a model.")
            return 2
        started = time.monotonic()
        results = evaluate_all(cases, args.host, args.model, args.mode, args.timeout,
                               progress=True)
        report(results, f"model {args.model} at {args.host} (Ollama {version}), mode "
               f"{args.mode}, set {args.which}", time.monotonic() - started)
    return 0


def run_fake(args: argparse.Namespace, cases: list[dict]) -> int:
    from tests.fake_ollama import FakeOllama
    from tests.understanding import evaluate

    with FakeOllama(models=(args.model,)) as fake:
        fake.default = EchoModel(next(iter(evaluate.engines().values())))
        started = time.monotonic()
        results = evaluate_all(cases, fake.url, args.model, args.mode, args.timeout,
                               progress=False)
        report(results, f"fake model (echoes the catalogue parser) at {fake.url}, mode "
               f"{args.mode}, set {args.which}", time.monotonic() - started)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
