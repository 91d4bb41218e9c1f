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
