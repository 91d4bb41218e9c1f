"""Answering "why did you …?" from what reos kept: the audit trail, what it learned, the
journal.

`why(what, traces, transactions, learned, now=…, last=…)` matches the words of the
question against the records it is handed, newest first, and says:
- when the words only point back ("why did you do that?", "… make the last change?",
  "… do what you just did?"), the reasoning behind `last`, the transaction the caller
  says was reos's last (the session's, else the journal's newest), as for a question
  that names it; nothing done yet is said so;
- when the words are about a fix reos learned to apply up front (a refresh of the package
  lists), what it learned and how often, because that is why such a step was there;
- else, from the reasoning trace of a request that ran whose request or steps the words
  name: the goal, how the request was read and by whom, why it was done this way, and
  what ran;
- else, from the journal (changes made before traces were kept): the request and the
  commands that ran;
- else, from a trace of a request that did not change anything: what was only planned, or
  only read to answer a question;
- else, that there is no record of it.

Not responsible for fetching anything (the engine passes plain records: TraceRecord,
TransactionRecord, Learned — anything with the same attributes), nor for recording.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from reos.words.conversation import relative_time

if TYPE_CHECKING:
    from typing import Any

_IGNORED = {"the", "that", "this", "and", "you", "did", "first"}
# words that ask about the package lists' refresh, the one fix reos applies up front
_ABOUT_REFRESH = ("update", "refresh", "apt", "cache", "package list")
NO_RECORD = ("I don't have a record of doing that, so it wasn't me "
             "(or it was before I kept a journal).")
NOTHING_DONE = "I haven't changed anything here yet, so there is nothing to explain."
# "that", "it", "the last change", "what you just did": words that name nothing but point
# back at what reos did last; a question made only of them (and the words around them)
# is about the last transaction, since no record names "that"
_POINTING = {"that", "it", "this", "them", "those", "these", "last", "latest", "just"}
_AROUND = {"do", "did", "done", "doing", "make", "made", "the", "change", "changes", "thing",
           "things", "what", "you", "step", "action", "again", "then", "now", "all", "a"}


def points_back(what: str) -> bool:
    """Whether "why did you <what>?" names nothing but what reos did last ("do that")."""
    words = what.lower().replace("?", " ").replace("'", " ").split()
    return bool(words) and all(w in _POINTING or w in _AROUND for w in words) and any(
        w in _POINTING for w in words)


def why(what: str, traces: Sequence[Any], transactions: Sequence[Any],
        learned: Sequence[Any], *, now: str, last: Any | None = None) -> str:
    """The answer to "why did you <what>?" (see the module docstring for the order);
    `last` is the journal record of the transaction "that" points back to, if any."""
    if points_back(what):
        return _about(last, traces, now) if last is not None else NOTHING_DONE
    words = _words(what)
    ran = _matching_trace(words, [t for t in traces if _has_run(t)])
    fix = _learned_fix(what, learned)
    if fix:
        return fix + (f" That was for \u201c{_said(ran.request)}\u201d."
                      if ran is not None else "")
    if ran is not None:
        return _from_trace(ran, transactions, now)
    for tx in transactions:
        if words and _names_all(words, _transaction_text(tx)):
            return (f"Because you asked me to \u201c{_said(tx.request)}\u201d "
                    f"({relative_time(tx.started_at, now)}). I ran: {_ran(tx) or 'nothing yet'}.")
    # only then what was planned but never ran, or answered by reading
    planned = _matching_trace(words, [t for t in traces if not _has_run(t)])
    return _from_trace(planned, transactions, now) if planned is not None else NO_RECORD


def _about(tx: Any, traces: Sequence[Any], now: str) -> str:
    """The reasoning behind one transaction: its trace (what `reos why TX` shows), or the
    journal's record when none was kept."""
    trace = next((t for t in traces if getattr(t, "tx", None) == tx.id
                  and isinstance(getattr(t, "chain", None), dict) and t.chain), None)
    if trace is not None:
        return _from_trace(trace, [tx], now)
    return (f"Because you asked me to \u201c{_said(tx.request)}\u201d "
            f"({relative_time(tx.started_at, now)}). I ran: {_ran(tx) or 'nothing yet'}.")


def _has_run(trace: Any) -> bool:
    chain = getattr(trace, "chain", None)
    return getattr(trace, "tx", None) is not None or (
        isinstance(chain, dict) and isinstance(chain.get("outcome"), dict))


def _words(what: str) -> set[str]:
    return {w for w in what.lower().replace("?", "").split() if len(w) > 2} - _IGNORED


def _names_all(words: set[str], text: str) -> bool:
    return all(w in text or w.rstrip("s") in text for w in words)


def _learned_fix(what: str, learned: Sequence[Any]) -> str | None:
    said = what.lower()
    if not any(w in said for w in _ABOUT_REFRESH):
        return None
    for known in learned:
        times = known.fixes.get("refresh", 0)
        if times:
            failures = sum(known.failures.values())
            return (f"I learned that on this system, {known.signature.rstrip(' *')} often "
                    f"fails without a recent cache update. I've seen this {times} times "
                    f"before ({failures} failures, {known.successes} successes in all), "
                    "so now I do it proactively.")
    return None


def _matching_trace(words: set[str], traces: Sequence[Any]) -> Any | None:
    if not words:
        return None
    for trace in traces:
        chain = getattr(trace, "chain", None)
        # a "why …?" question is itself a (meta) request: it must not answer itself
        if not isinstance(chain, dict) or not chain or trace.kind == "meta":
            continue
        if _names_all(words, _trace_text(trace.request, chain)):
            return trace
    return None


def _trace_text(request: str, chain: dict[str, Any]) -> str:
    parts = [request, str(chain.get("goal", ""))]
    for step in _list(chain, "steps"):
        if isinstance(step, dict):
            parts += [str(step.get("title", "")), str(step.get("command", ""))]
    parts += [str(t) for t in _list(chain, "targets")]
    return " ".join(parts).lower()


def _transaction_text(tx: Any) -> str:
    return " ".join([tx.request, *(s.title for s in tx.steps),
                     *(" ".join(s.argv) for s in tx.steps)]).lower()


def _ran(tx: Any) -> str:
    return "; ".join(" ".join(s.argv) for s in tx.steps if s.status != "running")


def _from_trace(trace: Any, transactions: Sequence[Any], now: str) -> str:
    chain = trace.chain
    said = [f"Because you asked me to \u201c{_said(trace.request)}\u201d "
            f"({relative_time(trace.created_at, now)})."]
    reading, source = _text(chain.get("reading")), _text(chain.get("source"))
    if reading:
        said.append(_stop(f"I read it as {reading}" + (f" ({source})" if source else "")))
    why_chosen = _text(chain.get("why_chosen"))
    if why_chosen:
        said.append(_stop(f"Why this way: {why_chosen}"))
    said.append(_what_ran(trace, chain, transactions))
    return " ".join(s for s in said if s)


def _what_ran(trace: Any, chain: dict[str, Any], transactions: Sequence[Any]) -> str:
    tx = next((t for t in transactions if trace.tx is not None and t.id == trace.tx), None)
    if tx is not None:
        return f"I ran: {_ran(tx) or 'nothing yet'} (transaction #{tx.id}, {tx.status})."
    commands = {str(s.get("id")): _text(s.get("command")) for s in _list(chain, "steps")
                if isinstance(s, dict)}
    outcome = chain.get("outcome")
    if isinstance(outcome, dict):
        done = [commands.get(str(i), str(i)) for i in _list(outcome, "completed")]
        where = f" (transaction #{outcome['tx']})" if type(outcome.get("tx")) is int else ""
        return f"I ran: {'; '.join(done) or 'nothing'}{where}."
    if chain.get("kind") in ("query", "meta") and commands:
        return f"To answer, I only read: {'; '.join(commands.values())}."
    if commands:
        return f"I planned: {'; '.join(commands.values())}; it has not run."
    conclusion = _text(chain.get("conclusion"))
    return _stop(conclusion[:1].upper() + conclusion[1:] if conclusion else "Nothing ran")


def _list(record: dict[str, Any], key: str) -> list[Any]:
    value = record.get(key)
    return value if isinstance(value, list) else []


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _stop(text: str) -> str:
    return text.rstrip(". ") + "."


def _said(text: str) -> str:
    return text if len(text) <= 200 else text[:199] + "\u2026"
