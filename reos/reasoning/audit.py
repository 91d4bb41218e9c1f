"""The reasoning audit trail's content: one request's chain of decisions, and its text.

`chain(plan, context=…, quality=…)` turns what the engine decided for one request into a
plain, JSON-ready record in the design notes' shape (`reos.trace/1`): the goal, a summary
of the machine it was decided against, each stage with its rationale (from `plan.trace`),
the alternatives considered and why this one, the confidence, the conclusion, the quality
score, and the steps decided on. `outcome_of(report)` adds how it ended once it ran
(transaction, ok, completed and failed steps, stop reason, gate verdicts). `render(chain)`
prints the `=== REASONING CHAIN: plan_creation ===` block.

Every chain is bounded and safe to keep and show: each string has its terminal escapes
removed (reos.text.clean), secrets redacted (password=, token=, api keys, Authorization
headers, private keys, credentials in URLs, well-known token shapes) and is cut to 500
characters; lists are capped; the whole chain stays under 16 KB. Command output is never
part of a chain: only what reos decided.

Not responsible for storing chains (reos.store.traces), deciding anything (the engine and
planner did), or answering "why did you …?" (reos.reasoning.recall). Pure: no I/O, and
only `re` and `json` are imported, so it is cheap on the `reos plan` path.
"""

from __future__ import annotations

import json
import re

from reos.text import clean

TYPE_CHECKING = False  # typing stays unimported at run time: `reos plan` starts faster
if TYPE_CHECKING:
    from typing import Any

    from reos.model import Intent, Plan

SCHEMA = "reos.trace/1"
MAX_TEXT = 500  # characters of any one string
MAX_ITEMS = 25  # entries of any one list
MAX_BYTES = 16 * 1024  # the whole chain, as JSON
_DEPTH = 6  # nesting kept from a dict handed in (gate verdicts, quality)
# tighter and tighter limits, tried in turn until the chain fits MAX_BYTES
_SQUEEZE = ((MAX_TEXT, MAX_ITEMS), (200, 12), (80, 6), (40, 3))

_REDACTED = "[redacted]"
# (pattern, flags, replacement); compiled on the first text that may hold a secret, so a
# plan of plain words ("stop nginx") costs no regex compilation on the `reos plan` path
_SECRET_SOURCES = (
    # -----BEGIN … PRIVATE KEY----- up to its end (or the end of the text)
    (r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
     re.S, "[redacted private key]"),
    # Authorization: Bearer xyz / Basic xyz; a bare "Bearer xyz"
    (r"\b((?i:proxy-)?(?i:authorization))(\s*[:=]\s*)(?:(?i:bearer|basic|token|digest)\s+)?"
     r"[^\s,;\"']+", 0, r"\1\2" + _REDACTED),
    (r"\b((?i:bearer))\s+[A-Za-z0-9._~+/=-]{8,}", 0, r"\1 " + _REDACTED),
    # user:password@ in a URL
    (r"(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+):[^\s@/]+@", 0,
     r"\1:" + _REDACTED + "@"),
    # token shapes that are secrets on their own
    (r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{20,}|"
     r"xox[abposr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,}|"
     r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})", 0, _REDACTED),
)
# a secret's name and its value: password=…, --token …, "the api key is …", SECRET_KEY: …
_NAMED_SOURCE = (
    r"(?<![\w.-])((?:--?)?[\w.-]*?(?i:password|passwd|passphrase|pwd|secret|token|"
    r"api[ _-]?key|apikey|access[ _-]?key|private[ _-]?key|credentials?)[\w.-]*)"
    r"(\s*[:=]\s*|\s+(?:is|to|as|was)\s+|\s+)('[^'\n]*'|\"[^\"\n]*\"|[^\s'\",;]+)")
# every pattern above needs one of these (lower-cased) in the text to match
_TRIGGERS = ("pass", "pwd", "secret", "token", "key", "credential", "auth", "bearer", "://",
             "gh", "github_pat", "sk-", "xox", "akia", "glpat", "eyj")
# words that can follow a secret's name without being its value ("password for bob")
_PLAIN = frozenset("the a an of for and or to in on at is was file files reset change "
                   "changed rotate policy manager store expire expires expired".split())
_compiled: list[tuple[re.Pattern[str], str]] = []


def _patterns() -> list[tuple[re.Pattern[str], str]]:
    if not _compiled:
        _compiled.extend((re.compile(p, f), r) for p, f, r in _SECRET_SOURCES)
        _compiled.append((re.compile(_NAMED_SOURCE), ""))
    return _compiled


def redact(text: str) -> str:
    """`text` with secrets replaced by [redacted] (see the module docstring)."""
    lowered = text.lower()
    if not any(t in lowered for t in _TRIGGERS):
        return text
    *secrets, (named, _) = _patterns()
    for pattern, replacement in secrets:
        text = pattern.sub(replacement, text)
    return named.sub(_named, text)


def _named(match: re.Match[str]) -> str:
    name, between, value = match.group(1), match.group(2), match.group(3)
    if value.lower() in _PLAIN or value == _REDACTED:
        return match.group(0)
    # after a bare space, a plain word names no secret ("token count"); "hunter2" does,
    # and so does any word after an option (--password hunter)
    if not between.strip() and value.isalpha() and not name.startswith("-"):
        return match.group(0)
    return f"{name}{between}{_REDACTED}"


def safe_text(value: object, limit: int = MAX_TEXT) -> str:
    """One string as a chain keeps it: cleaned, secrets redacted, cut to `limit`."""
    text = value if isinstance(value, str) else str(value)
    # cut first (generously) so that redaction's cost is bounded by the limit, not the input;
    # a secret cut in two is still redacted (a private key runs to the end of the text)
    text = redact(clean(text[: limit * 4 + 64]))
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "\u2026"


def bound(value: Any, text: int = MAX_TEXT, items: int = MAX_ITEMS, depth: int = 0) -> Any:
    """A JSON-ready copy of `value` with every string safe and every list capped."""
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return round(value, 4) if value == value and abs(value) != float("inf") else None
    if isinstance(value, str):
        return safe_text(value, text)
    if depth >= _DEPTH:
        return safe_text(value, min(text, 80))
    if isinstance(value, dict):
        out = {}
        for n, (key, item) in enumerate(value.items()):
            if n >= items * 2:
                out["\u2026"] = f"{len(value) - n} more"
                break
            out[safe_text(key, 64)] = bound(item, text, items, depth + 1)
        return out
    if isinstance(value, list | tuple):
        kept = [bound(item, text, items, depth + 1) for item in list(value)[:items]]
        if len(value) > items:
            kept.append(f"\u2026 and {len(value) - items} more")
        return kept
    if hasattr(value, "to_dict"):
        try:
            return bound(value.to_dict(), text, items, depth)
        except Exception:  # a record that cannot say itself is shown as its name only
            return safe_text(type(value).__name__, 64)
    return safe_text(value, min(text, 80))


def fit(record: dict[str, Any]) -> dict[str, Any]:
    """`record` bounded (strings, lists) and squeezed until it is under MAX_BYTES."""
    for text, items in _SQUEEZE:
        kept = bound(record, text, items)
        if text != MAX_TEXT:
            kept["truncated"] = True
        if _size(kept) <= MAX_BYTES:
            return kept
    # still too big (a hostile number of keys): the essentials only
    return {k: safe_text(record.get(k, ""), 200) if isinstance(record.get(k), str)
            else None for k in ("schema", "name", "request", "kind", "goal", "conclusion")
            } | {"truncated": True}


def _size(record: dict[str, Any]) -> int:
    return len(json.dumps(record, ensure_ascii=False).encode())


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
    if intent.unexplained:
        said += f"; could not place: {', '.join(intent.unexplained[:5])}"
    return said


def _source(plan: Plan, intent: Intent | None) -> str:
    source = (intent.source if intent is not None else None) or plan.source or "none"
    if source.startswith("llm"):
        repaired = " after one repair" if source == "llm-repaired" else ""
        return f"the model's reading{repaired}, checked by reos's validation and kept"
    if source in ("catalogue", "template", "regex"):
        said = "the catalogue parser's reading"
        model = next((t.get("said", "") for t in plan.trace if t.get("stage") == "model needed"),
                     "")
        if model.startswith("no"):  # why not is said by the "model needed" stage itself
            return f"{said}; the model was not needed"
        if any(t.get("stage") == "understood" for t in plan.trace):
            return f"{said}; the model could not place it"
        return said
    return "a chat command, recognised before any parsing" if plan.kind.value == "meta" \
        else "no reading"


def _stage(entry: dict[str, Any], intent: Intent | None) -> dict[str, Any]:
    stage = str(entry.get("stage", "")) or "stage"
    out: dict[str, Any] = {"stage": stage, "rationale": str(entry.get("said", ""))}
    if stage == "understanding" and intent is not None:
        out["confidence"] = _confidence(intent)
    return out


def _confidence(intent: Intent | None) -> float | None:
    if intent is None:
        return None
    try:
        return max(0.0, min(1.0, float(intent.confidence)))
    except (TypeError, ValueError):
        return None


def _alternatives(plan: Plan, intent: Intent | None) -> tuple[list[str], str]:
    """What else could have been done with the request, and why this was done."""
    kind = plan.kind.value
    if kind == "clarify":
        labels = [label for label, _ in plan.options] or [
            o.summary or o.operation or o.kind.value for o in (intent.options if intent else [])]
        why = (f"asked which one: {len(labels)} reading(s) fit and none was sure enough to act "
               "on" if labels else "asked: the request was not clear enough to act on")
        if intent is not None and intent.question:
            why += f" ({intent.question})"
        return [*labels, "act on the most likely reading"], why
    if kind == "refuse":
        return ["plan it anyway"], conclusion(plan)
    if kind == "unknown":
        closest = list(intent.closest) if intent else []
        return ([*closest, "guess"],
                "not understood: no operation fits well enough to act on"
                + (f"; the closest were {'; '.join(closest)}" if closest else ""))
    if kind == "meta":
        return [], "a chat command: no plan is needed"
    if plan.blocked:
        return ["run it as asked"], conclusion(plan)
    options = [o.summary or o.operation or o.kind.value for o in (intent.options if intent else [])]
    sure = f"one reading (confidence {_confidence(intent) or 0:.0%})"
    if not plan.steps:
        return ([*options, "act on something close"],
                f"{sure}, but nothing on this machine needs doing or matches")
    if plan.read_only and not plan.forced:
        return ([*options, "show a plan to approve"],
                f"{sure}; read-only, so it is answered at once with nothing to approve")
    return ([*options, "ask which one was meant", "run it without showing a plan"],
            f"{sure}; it changes the machine, so it is shown as a plan to approve first")


def conclusion(plan: Plan) -> str:
    """What came of the request, in a few words ("plan created with 2 stop operations")."""
    kind = plan.kind.value
    intent = plan.intent
    if kind == "refuse":
        why = plan.blocked_reason or (intent.reason if intent else None) or "never done"
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


# -- the text ----------------------------------------------------------------------------

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
                lines.append(f"  {text(step.get('id'))}. {text(step.get('title'))}"
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
                where = f" ({text(verdict.get('step_id'))})" if verdict.get("step_id") else ""
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
            parts.append(f"{said}: {', '.join(text(i) for i in ids)}")
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
