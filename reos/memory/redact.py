"""Making untrusted text safe to keep and show: secrets redacted, strings and lists bounded.

`redact(text)` replaces secrets with [redacted]: password=, token=, api keys, Authorization
headers, private keys, credentials in URLs and well-known token shapes. `safe_text(value)`
is one string as the audit trail keeps it: terminal escapes removed (reos.text.clean),
secrets redacted, cut to MAX_TEXT characters. `bound(value)` is a JSON-ready copy of any
value with every string safe and every list capped; `fit(record)` squeezes a record with
tighter and tighter limits until its JSON is under MAX_BYTES.

Not responsible for what a record says (reos.memory.audit builds chains and outcomes,
reos.memory.audit_text prints them) or for storing it (reos.store.traces). Pure: no
I/O, and only `re` and `json` are imported; the patterns are compiled on the first text
that may hold a secret, so it is cheap on the `reos plan` path.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from reos.text import clean

if TYPE_CHECKING:
    from typing import Any

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
