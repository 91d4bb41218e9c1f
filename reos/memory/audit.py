"""The reasoning audit trail's content: one request's chain of decisions, and how it ended.

`chain(plan, context=…, quality=…)` turns what the engine decided for one request into a
plain, JSON-ready record in the design notes' shape (`reos.trace/1`): the goal, a summary
of the machine it was decided against, each stage with its rationale (from `plan.trace`),
the alternatives considered and why this one, the confidence, the conclusion, the quality
score, and the steps decided on. `outcome_of(report)` adds how it ended once it ran
(transaction, ok, completed and failed steps, stop reason, gate verdicts).

Every chain is bounded and safe to keep and show (reos.memory.redact: terminal escapes
removed, secrets redacted, strings cut to 500 characters, lists capped, the whole chain
under 16 KB). Command output is never part of a chain: only what reos decided.

Not responsible for redacting or bounding text (reos.memory.redact), printing a chain
(reos.memory.audit_text), storing chains
(reos.store.traces), deciding anything (the engine and planner did), or answering "why
did you …?" (reos.memory.recall). Pure: no I/O, and only `re` and `json` are imported
(by redact), so it is cheap on the `reos plan` path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.memory.redact import bound, fit
from reos.model.plan import Traced

if TYPE_CHECKING:
    from typing import Any

    from reos.model.plan import Plan
    from reos.model.request import Intent

SCHEMA = "reos.trace/1"


# -- building a chain --------------------------------------------------------------------

def chain(plan: Plan, *, context: dict[str, Any] | None = None,
          quality: dict[str, Any] | None = None,
          alternatives: list[str] | None = None, name: str = "plan_creation"
          ) -> dict[str, Any]:
    """The audit record of how `plan` was decided (JSON-ready, bounded, no secrets).

    `context`: a few facts about the machine it was planned against (see `context_of`);
    `quality`: the plan's quality assessment as a dict (score 0–1, label, reasons),
    by default `plan.quality` when the plan carries one;
    `alternatives`: extra alternatives the caller weighed, beside those the intent shows.
    """
    intent = plan.intent
    if quality is None:  # the plan's own assessment, when the planner attached one
        attached: Any = getattr(plan, "quality", None)
        quality = attached if isinstance(attached, dict) else (
            attached.to_dict() if hasattr(attached, "to_dict") else None)
    weighed, why = _alternatives(plan, intent)
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "name": name,
        "request": plan.request,
        "kind": plan.kind.value,
        "goal": _goal(plan),
        "context": context_summary(context or {}),
        "reading": _reading(intent),
        "source": _source(plan, intent),
        "stages": [_stage(entry, intent) for entry in plan.trace],
        "alternatives": [*(alternatives or []), *weighed],
        "why_chosen": why,
        "confidence": _confidence(intent),
        "conclusion": conclusion(plan),
        "quality": _quality(quality) if quality else None,
        "targets": [f"{t.kind} {t.name}" for t in plan.targets],
        "steps": [{"id": s.id, "title": s.title, "command": s.command, "risk": s.risk.label,
                   "reversible": s.reversible, **({"action": s.action} if s.action else {})}
                  for s in plan.steps],
        "notes": list(plan.notes),
        "outcome": None,
    }
    return fit(record)


def context_of(snapshot: Any) -> dict[str, Any]:
    """The few facts about the machine a chain keeps, from a SystemSnapshot (its data only).

    Counts of what was known (None when a section could not be read) and the host facts
    the plan depends on; the engine passes this dict to `chain`.
    """
    host = getattr(snapshot, "host", None) or {}

    def count(section: str, *, running: bool = False) -> int | None:
        items = getattr(snapshot, section, None)
        if items is None:
            return None
        if running:
            return sum(1 for i in items if getattr(i, "state", None) == "running"
                       or getattr(i, "active", None) == "active")
        return len(items)

    return {
        "host": host.get("hostname"),
        "containers": count("containers"),
        "running_containers": count("containers", running=True),
        "services": count("services"),
        "active_services": count("services", running=True),
        "packages": count("packages"),
        "package_manager": host.get("package_manager"),
        "is_root": host.get("is_root"),
        "collected_at": getattr(snapshot, "collected_at", None),
    }


def context_summary(context: dict[str, Any]) -> str:
    """"4 running containers (6 in all), 31 services; package manager apt" from a dict."""
    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    parts = []
    running, containers = context.get("running_containers"), context.get("containers")
    if isinstance(running, int):
        parts.append(plural(running, "running container") + (
            f" ({containers} in all)" if isinstance(containers, int) and containers != running
            else ""))
    elif isinstance(containers, int):
        parts.append(plural(containers, "container"))
    services, active = context.get("services"), context.get("active_services")
    if isinstance(services, int):
        parts.append(plural(services, "service") + (
            f" ({active} active)" if isinstance(active, int) else ""))
    if isinstance(context.get("packages"), int):
        parts.append(plural(context["packages"], "package"))
    said = ", ".join(parts)
    host = []
    if context.get("package_manager"):
        host.append(f"package manager {context['package_manager']}")
    if context.get("host"):
        host.append(f"host {context['host']}")
    if context.get("is_root") is not None:
        host.append("running as root" if context["is_root"] else "not root (sudo for changes)")
    known = {"running_containers", "containers", "services", "active_services", "packages",
             "package_manager", "host", "is_root", "collected_at"}
    host += [f"{k}: {v}" for k, v in context.items() if k not in known and v is not None]
    said = "; ".join(p for p in (said, ", ".join(host)) if p)
    return said or "no facts about the machine were given"


def _goal(plan: Plan) -> str:
    intent = plan.intent
    acted_on = list(dict.fromkeys(s.target.name for s in plan.steps if s.target))
    if plan.verb and acted_on:
        more = f" and {len(acted_on) - 6} more" if len(acted_on) > 6 else ""
        return f"{plan.request} \u2014 {plan.verb} {', '.join(acted_on[:6])}{more}"
    if intent is not None and intent.summary:
        return f"{plan.request} \u2014 {intent.summary}"
    return plan.request


def _reading(intent: Intent | None) -> str:
    if intent is None:
        return "nothing could be read from it"
    what = intent.operation or intent.action or intent.kind.value
    said = f"{intent.kind.value} {what}"
    if intent.targets:
        said += " " + ", ".join(intent.targets)
    if intent.qualifiers:
        said += f" ({', '.join(intent.qualifiers)})"
    if intent.exclude:
        said += f", except {', '.join(intent.exclude)}"
    if intent.condition:
        said += f", {intent.condition.replace('_', ' ')}"
    if intent.reading.unexplained:
        said += f"; could not place: {', '.join(intent.reading.unexplained[:5])}"
    return said


def _source(plan: Plan, intent: Intent | None) -> str:
    source = (intent.reading.source if intent is not None else None) or plan.source or "none"
    if source.startswith("llm"):
        repaired = " after one repair" if source == "llm-repaired" else ""
        return f"the model's reading{repaired}, checked by reos's validation and kept"
    if source == "typed":
        return "the command line as typed, judged by the risk engine"
    if source in ("catalogue", "template", "regex"):
        said = "my own reading, without a model"
        model = next((t.said for t in plan.trace if t.stage == "model needed"),
                     "")
        if model.startswith("no"):  # why not is said by the "model needed" stage itself
            return "my own reading; the model was not needed"
        if any(t.stage == "understood" for t in plan.trace):
            return f"{said}; the model could not place it"
        return said
    return "a chat command, recognised before any parsing" if plan.kind.value == "meta" \
        else "no reading"


def _stage(entry: Traced, intent: Intent | None) -> dict[str, Any]:
    stage = entry.stage or "stage"
    out: dict[str, Any] = {"stage": stage, "rationale": entry.said}
    if stage == "understanding" and intent is not None:
        out["confidence"] = _confidence(intent)
    return out


def _confidence(intent: Intent | None) -> float | None:
    if intent is None:
        return None
    try:
        return max(0.0, min(1.0, float(intent.reading.confidence)))
    except (TypeError, ValueError):
        return None


def _alternatives(plan: Plan, intent: Intent | None) -> tuple[list[str], str]:
    """What else could have been done with the request, and why this was done."""
    kind = plan.kind.value
    if kind == "clarify":
        labels = [label for label, _ in plan.options] or _offered(intent)
        why = (f"asked which one: {len(labels)} reading(s) fit and none was sure enough to act "
               "on" if labels else "asked: the request was not clear enough to act on")
        question = intent.asking.question if intent is not None and intent.asking else None
        if question:
            why += f" ({question})"
        return [*labels, "act on the most likely reading"], why
    if kind == "refuse":
        return ["plan it anyway"], conclusion(plan)
    if kind == "unknown":
        closest = list(intent.reading.closest) if intent else []
        return ([*closest, "guess"],
                "not understood: no operation fits well enough to act on"
                + (f"; the closest were {'; '.join(closest)}" if closest else ""))
    if kind == "meta":
        return [], "a chat command: no plan is needed"
    if plan.blocked:
        return ["run it as asked"], conclusion(plan)
    options = _offered(intent)
    sure = f"one reading (confidence {_confidence(intent) or 0:.0%})"
    if not plan.steps:
        return ([*options, "act on something close"],
                f"{sure}, but nothing on this machine needs doing or matches")
    if plan.read_only and not plan.forced:
        return ([*options, "show a plan to approve"],
                f"{sure}; read-only, so it is answered at once with nothing to approve")
    return ([*options, "ask which one was meant", "run it without showing a plan"],
            f"{sure}; it changes the machine, so it is shown as a plan to approve first")


def _offered(intent: Intent | None) -> list[str]:
    """The readings an intent's question offers, each in a few words."""
    asking = intent.asking if intent is not None else None
    return [o.intent.summary or o.intent.operation or o.intent.kind.value
            for o in (asking.options if asking is not None else [])]


def conclusion(plan: Plan) -> str:
    """What came of the request, in a few words ("plan created with 2 stop operations")."""
    kind = plan.kind.value
    intent = plan.intent
    if kind == "refuse":
        why = plan.blocked_reason or (intent.refusal if intent else None) or "never done"
        return f"refused: {why}"
    if kind == "clarify":
        n = len(plan.options)
        return f"asked which one ({n} choice{'s' if n != 1 else ''})"
    if kind == "unknown":
        return "not understood; asked to say it another way"
    if kind == "meta":
        what = intent.action if intent is not None and intent.action else "chat"
        return f"a chat command ({what}), no plan"
    if plan.blocked:
        return f"blocked: {plan.blocked_reason or 'the safety gate refused it'}"
    if not plan.steps:
        return "nothing to do: no step was needed or nothing matched"
    if plan.read_only and not plan.forced:
        n = len(plan.steps)
        return f"answered a query with {n} read-only step{'s' if n != 1 else ''}"
    actions: dict[str, int] = {}
    for step in plan.steps:
        verb = step.action or "other"
        actions[verb] = actions.get(verb, 0) + 1
    n = len(plan.steps)
    if len(actions) == 1:
        verb = next(iter(actions))
        return f"plan created with {n} {verb} operation{'s' if n != 1 else ''}"
    return (f"plan created with {n} operations ("
            + ", ".join(f"{count} {verb}" for verb, count in actions.items()) + ")")


def _quality(quality: dict[str, Any]) -> dict[str, Any]:
    reasons = []
    for reason in quality.get("reasons") or []:
        if isinstance(reason, dict):
            mark = "\u2713" if reason.get("good") else "\u2717"
            reasons.append(f"{mark} {reason.get('text', '')}")
        else:
            reasons.append(str(reason))
    anti = []
    for found in quality.get("anti_patterns") or []:
        if isinstance(found, dict):
            anti.append(f"{found.get('name', '?')}"
                        + (f" in {found['step_id']}" if found.get("step_id") else ""))
        else:
            anti.append(str(found))
    score = quality.get("score")
    return {"score": score if isinstance(score, int | float) else None,
            "label": quality.get("label"), "reasons": reasons, "anti_patterns": anti}


# -- after it ran ------------------------------------------------------------------------

_GATE_KEYS = ("gate", "check", "passed", "said", "step_id", "review")


def outcome_of(report: Any) -> dict[str, Any]:
    """How an execution ended, from an ExecutionReport (read by attribute, so a report
    that gained or lost fields still gives what it has): its transaction, whether it
    went through, the steps completed and failed, why it stopped, the gates' verdicts."""
    def ids(steps: Any) -> list[str]:
        return [str(getattr(s, "id", s)) for s in steps or []]

    failed = getattr(report, "failed", None)
    stopped = getattr(report, "stopped_reason", None)
    stop = getattr(report, "stop", None)  # a typed stop reason, when the report has one
    gates = []
    for verdict in getattr(report, "gates", None) or []:
        said = verdict if isinstance(verdict, dict) else (
            verdict.to_dict() if hasattr(verdict, "to_dict") else {})
        # a verdict's own words only: its `warnings` are lines of command output
        gates.append({k: said[k] for k in _GATE_KEYS if k in said})
    ok = getattr(report, "ok", None)
    return outcome(
        tx_id=getattr(report, "tx_id", None), ok=bool(ok) if ok is not None else None,
        completed=ids(getattr(report, "completed", None)),
        failed=ids([failed]) if failed is not None else [],
        pending=ids(getattr(report, "pending", None)),
        stop_reason=(getattr(stop, "value", None) or (str(stop) if stop else None)
                     or (str(stopped) if stopped else None)),
        stopped_said=str(stopped) if stopped else None,
        gates=gates, recoveries=list(getattr(report, "recoveries", None) or []),
        rolled_back=getattr(report, "rolled_back", None) is not None)


def outcome(*, tx_id: int | None, ok: bool | None, completed: list[str] | None = None,
            failed: list[str] | None = None, pending: list[str] | None = None,
            stop_reason: str | None = None, stopped_said: str | None = None,
            gates: list[dict[str, Any]] | None = None, recoveries: list[str] | None = None,
            rolled_back: bool = False) -> dict[str, Any]:
    """An outcome record from plain values (bounded like a chain)."""
    return fit({
        "tx": tx_id if type(tx_id) is int else None, "ok": ok,
        "completed": list(completed or []), "failed": list(failed or []),
        "pending": list(pending or []), "stop_reason": stop_reason,
        "stopped": stopped_said if stopped_said != stop_reason else None,
        "gates": list(gates or []), "recoveries": list(recoveries or []),
        "rolled_back": rolled_back,
    })


def with_outcome(record: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """`record` with its `outcome` set (still under MAX_BYTES)."""
    merged = dict(record)
    merged["outcome"] = bound(result)
    return fit(merged)
