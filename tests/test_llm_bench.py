"""The model-path benchmarks run: bench/llm_overhead.py and bench/understanding_llm.py.

Smoke runs only (a few requests, the fake Ollama server): they must finish, exit 0 and
print their sections. Timing is never asserted here (the benches print PASS/FAIL on
their goals for a person to read; `--smoke` keeps a slow machine from failing them).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "REOS_LLM"}
    return subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, env=env, timeout=240, check=False)


def test_overhead_bench_runs_both_snapshots_through_the_model() -> None:
    done = run("llm_overhead.py", "--smoke")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "== homelab snapshot" in out and "== big snapshot (10000 packages" in out
    assert out.count("overhead: median") == 2
    # the model was asked for every plan and its answers were used (not fallen back)
    assert out.count("fell back 0") == 2 and "sources: llm" in out
    assert "PASS big: largest prompt" in out  # the 10,000-package prompt fits its budget
    assert "goals:" in out and "Traceback" not in done.stderr


def test_understanding_bench_with_the_fake_model_scores_domains_and_sources() -> None:
    done = run("understanding_llm.py", "--fake", "--limit", "24")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for heading in ("accuracy per domain:", "accuracy per source:", "model use:", "overall:"):
        assert heading in out
    assert "cases: 24" in out
    assert "\n  llm " in out  # the echoed readings came back through the model path
    assert "  containers " in out and "  users " in out  # spread over the domains


def test_understanding_bench_without_a_server_says_so_and_exits_2() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = run("understanding_llm.py", "--host", f"http://127.0.0.1:{port}")
    assert done.returncode == 2
    assert done.stdout.strip().startswith("No Ollama server answers at")
    assert len(done.stdout.strip().splitlines()) == 1 and not done.stderr


def test_understanding_bench_reports_requests_and_the_parser_alone() -> None:
    done = run("understanding_llm.py", "--fake", "--limit", "12", "--cases")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "request: first (warm-up)" in out and ", p90 " in out
    assert "of the requests asked: sent back for repair" in out
    assert "accuracy: evaluation" in out and "expected op" in out and "expected kind" in out
    assert "parser alone (REOS_LLM=off), same cases: evaluation" in out
    assert sum(line.startswith(("ok ", "FAIL ")) for line in out.splitlines()) == 12


def test_understanding_bench_asks_the_model_for_every_case_even_after_a_timeout(
        monkeypatch) -> None:
    """One slow answer must not make the rest of a run the parser's: the engine rests the
    model after a timeout (reos/llm/session.py), and the bench lifts that rest per case."""
    import importlib.util

    from tests.fake_ollama import FakeOllama
    from tests.understanding import evaluate

    monkeypatch.delenv("REOS_LLM", raising=False)
    found = importlib.util.spec_from_file_location("understanding_llm",
                                                   BENCH / "understanding_llm.py")
    assert found is not None and found.loader is not None
    bench = importlib.util.module_from_spec(found)
    found.loader.exec_module(bench)
    cases = [c for c in bench.selected_cases("catalogue")
             if c["kind"] in ("query", "action")][:3]
    with FakeOllama() as fake:
        fake.reply("{}", delay=6.0)  # the first answer comes after the timeout
        fake.default = bench.EchoModel(next(iter(evaluate.engines().values())))
        # 2 s: the echo (a parse in the fake server) answers well within it on a loaded
        # machine; 0.5 s was once too short under CI, and the case fell back
        results = bench.evaluate_all(cases, fake.url, "llama3.2", "first", 2.0,
                                     progress=False)
    assert bench.fallback_reason(results[0][1]) == "timeout"
    asked = [any(s.stage == "asking the model" for s in plan.trace)
             for _, plan in results]
    assert asked == [True, True, True]
    assert [plan.source for _, plan in results[1:]] == ["llm", "llm"]
