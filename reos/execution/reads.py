"""Read-only work the engine asks for: a query's steps, probes side by side, one probe.

Every command passes the gate as a read-only command (`safety.gate.admit_argv` with
`claimed_read_only`) right before it runs; one the gate refuses never runs, and the
refusal comes back instead. Each run is bounded in time and never uses a shell.
Not responsible for deciding what to read (planning) or for putting what was read into
words (words/answers/*.py).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from reos.execution.runner import run_argv
from reos.model.plan import Plan, Step
from reos.model.report import StepResult
from reos.safety.gate import admit_argv

if TYPE_CHECKING:
    from typing import Any  # a probe: .key, .what, .argv (planning/cleanup.py's Probe)

QUERY_TIMEOUT = 60.0  # one step of a question
PROBE_TIMEOUT = 30.0  # one probe of a diagnosis or a measurement


def read_steps(plan: Plan, *, tolerant: bool) -> tuple[list[StepResult], Step | None,
                                                        str | None]:
    """Run a query's steps in order: (their results, the step that stopped the reading or
    None, the gate's reason when it refused that step — None when the step itself failed).
    `tolerant`: a failing step is a result like any other (its words read the failure)."""
    results: list[StepResult] = []
    for step in plan.steps:
        admission = admit_argv(step.argv, claimed_read_only=True, requested=plan.request)
        if not admission.allowed:
            return results, step, admission.reason or "the gate refused it"
        result = run_argv(step.argv, timeout=QUERY_TIMEOUT, step_id=step.id)
        results.append(result)
        if not result.ok and not tolerant:
            return results, step, None
    return results, None, None


def probe(argv: list[str], request: str, timeout: float = PROBE_TIMEOUT) -> StepResult:
    """One read-only probe; a refusal is a blocked result that never ran."""
    admission = admit_argv(argv, claimed_read_only=True, requested=request)
    if not admission.allowed:
        return StepResult("probe", False, None, skipped_reason=admission.reason, blocked=True)
    return run_argv(argv, timeout=timeout, step_id="probe")


def probe_all(probes: list[Any], request: str, timeout: float
              ) -> tuple[dict[str, StepResult], dict[str, str]]:
    """Run probes side by side: results by key, and what the gate refused (with why)."""
    refused = {}
    admitted = []
    for p in probes:
        admission = admit_argv(p.argv, claimed_read_only=True, requested=request)
        if admission.allowed:
            admitted.append(p)
        else:
            refused[p.what] = admission.reason or "the gate refused it"
    with ThreadPoolExecutor(max_workers=max(1, len(admitted))) as pool:
        runs = {p.key: pool.submit(run_argv, p.argv, timeout=timeout, step_id=p.key)
                for p in admitted}
        return {key: run.result() for key, run in runs.items()}, refused
