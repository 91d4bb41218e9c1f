"""The audit trail's text: one reasoning chain as the `=== REASONING CHAIN ===` block.

`render(record)` prints a chain built by reos.memory.audit (and perhaps read back from
the database) in the design notes' shape: goal, context, each stage with its rationale,
the alternatives and why this one, the decided steps, the conclusion, confidence, quality
and, once it ran, the outcome with the gates' verdicts. Every field is read defensively
and every string made safe again (reos.memory.redact.safe_text), since a stored chain
may have been edited.

Not responsible for building or bounding chains (reos.memory.audit,
reos.memory.redact), storing them (reos.store.traces) or choosing which to show
(reos.commands.why, reos.memory.recall). Pure: no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.memory.redact import MAX_TEXT, safe_text
from reos.model.plan import step_words

if TYPE_CHECKING:
    from typing import Any


def render(record: dict[str, Any]) -> str:
    """The design notes' block for one chain. `record` may come from a database that was
    edited, so every field is read defensively and every string cleaned again."""
    def text(value: Any) -> str:
        return safe_text(value, MAX_TEXT) if value not in (None, "") else ""

    def percent(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        return f"{max(0.0, min(1.0, float(value))):.0%}"

    if not isinstance(record, dict):
        return "=== REASONING CHAIN: unreadable ===\n(this trace cannot be read)"
    lines = [f"=== REASONING CHAIN: {text(record.get('name')) or 'plan_creation'} ==="]
    if record.get("trace_id") is not None or record.get("tx") is not None:
        kept = [f"trace #{record['trace_id']}" if record.get("trace_id") is not None else "",
                 f"transaction #{record['tx']}" if record.get("tx") is not None else "",
                 text(record.get("created_at"))[:19].replace("T", " ")]
        lines.append("(" + ", ".join(w for w in kept if w) + ")")
    lines.append(f"Goal: {text(record.get('goal')) or text(record.get('request'))}")
    lines.append(f"Context: {text(record.get('context')) or 'not recorded'}")
    stages = _list(record, "stages")
    alternatives = [text(a) for a in _list(record, "alternatives")]
    for n, stage in enumerate(stages, start=1):
        if not isinstance(stage, dict):
            continue
        lines += ["", f"Step {n}: {text(stage.get('stage')).capitalize() or 'Stage'}",
                  f"  Rationale: {text(stage.get('rationale'))}"]
        if n == 1:
            if record.get("reading"):
                lines.append(f"  Reading: {text(record.get('reading'))}")
            if record.get("source"):
                lines.append(f"  Source: {text(record.get('source'))}")
            if alternatives:
                lines.append(f"  Alternatives: {', '.join(a for a in alternatives if a)}")
            if record.get("why_chosen"):
                lines.append(f"  Why chosen: {text(record.get('why_chosen'))}")
        shown = percent(stage.get("confidence"))
        if shown:
            lines.append(f"  Confidence: {shown}")
    if not stages and record.get("why_chosen"):
        lines += ["", f"Why: {text(record.get('why_chosen'))}"]
    steps = _list(record, "steps")
    if steps:
        lines += ["", "Decided steps:"]
        for step in steps:
            if isinstance(step, dict):
                number = step_words(text(step.get("id"))).removeprefix("step ")
                lines.append(f"  {number}. {text(step.get('title'))}"
                             f"   $ {text(step.get('command'))}")
            else:
                lines.append(f"  {text(step)}")
    notes = _list(record, "notes")
    for note in notes:
        lines.append(f"  Note: {text(note)}")
    lines += ["", f"Conclusion: {_sentence(text(record.get('conclusion')) or 'not recorded')}"]
    overall = percent(record.get("confidence"))
    if overall:
        lines.append(f"Confidence: {overall}")
    quality = record.get("quality")
    if isinstance(quality, dict) and percent(quality.get("score")):
        label = text(quality.get("label"))
        lines.append(f"Quality Score: {percent(quality.get('score'))}"
                     + (f" ({label})" if label else ""))
        lines += [f"  {text(r)}" for r in _list(quality, "reasons")]
    result = record.get("outcome")
    if isinstance(result, dict):
        lines += ["", _outcome_line(result, text)]
        for verdict in _list(result, "gates"):
            if isinstance(verdict, dict):
                passed = verdict.get("passed")
                mark = "\u2713" if passed is True else "\u2717" if passed is False else "\u00b7"
                where = (f" ({step_words(text(verdict.get('step_id')))})"
                         if verdict.get("step_id") else "")
                check = f" {text(verdict.get('check'))}" if verdict.get("check") else ""
                lines.append(f"  {mark} {text(verdict.get('gate')) or 'gate'}{check}{where}: "
                             f"{text(verdict.get('said'))}")
    if record.get("truncated"):
        lines.append("(shortened to stay within the trace size limit)")
    return "\n".join(lines)


def _outcome_line(result: dict[str, Any], text: Any) -> str:
    where = f"transaction #{result['tx']}" if type(result.get("tx")) is int else "no transaction"
    ok = result.get("ok")
    state = "went through" if ok is True else "did not go through" if ok is False else "ran"
    parts = [f"Outcome: {where}, {state}"]
    for key, said in (("completed", "completed"), ("failed", "failed"),
                      ("pending", "not run")):
        ids = _list(result, key)
        if ids:
            parts.append(f"{said}: {', '.join(step_words(text(i)) for i in ids)}")
    if result.get("stop_reason"):
        parts.append(f"stopped: {text(result.get('stopped') or result.get('stop_reason'))}")
    if result.get("rolled_back"):
        parts.append("its completed steps were rolled back")
    return "; ".join(parts)


def _list(record: dict[str, Any], key: str) -> list[Any]:
    value = record.get(key)
    return value if isinstance(value, list) else []


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
