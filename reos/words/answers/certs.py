"""Certificate answers in words (cert.list): each certificate certbot manages, its domains,
when it expires and whether it is due for renewal, from `certbot certificates`.

certbot prints each certificate as an indented block ("Certificate Name: …", "Domains:
…", "Expiry Date: 2026-12-01 10:00:00+00:00 (VALID: 29 days)"); a block this cannot read
is left out and the output is shown as certbot printed it. Not responsible for running
certbot or for renewing anything (cert.renew).
"""

from __future__ import annotations

import re

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice

# certbot renews a certificate within 30 days of its expiry (its default renew_before_expiry)
DUE_DAYS = 30
_FIELD = regex(r"^\s*(Certificate Name|Domains|Expiry Date):\s*(.*?)\s*$")
_VALID = regex(r"\(VALID:\s*(\d+)\s*days?", re.IGNORECASE)


def _blocks(text: str) -> list[dict[str, str]]:
    """One dict per certificate: its name, domains and expiry line, as certbot says them."""
    found: list[dict[str, str]] = []
    for line in text.splitlines():
        match = _FIELD.match(line)
        if match is None:
            continue
        key, value = match.groups()
        if key == "Certificate Name":
            found.append({})
        if found:
            found[-1][key] = clean(value)[:300]
    return [b for b in found if "Certificate Name" in b and "Expiry Date" in b]


def _said(block: dict[str, str]) -> str:
    name, expiry = block["Certificate Name"][:80], block["Expiry Date"]
    date = expiry.split(" ", 1)[0][:10]
    domains = block.get("Domains", "").split()
    also = [d[:80] for d in domains if d != name]
    what = name + (f" ({', '.join(also[:6])}{', …' if len(also) > 6 else ''})" if also else "")
    valid = _VALID.search(expiry)
    if valid is None:  # INVALID: EXPIRED, REVOKED or a test certificate
        reason = expiry.partition("(")[2].rstrip(")").strip().lower() or "not valid"
        return f"{what}: {reason}, expiry date {date}"
    days = int(valid.group(1))
    due = " (due for renewal)" if days < DUE_DAYS else ""
    return f"{what}: valid until {date}, {days} more day{'s' if days != 1 else ''}{due}"


def cert_list(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`certbot certificates`: each certificate said in a line, those due first."""
    result = results[0] if results else None
    if result is None:
        return "I couldn't read certbot's certificates."
    text = clean(result.stdout)
    if "No certificates found" in text or "No certs found" in text:
        return "certbot manages no certificates here."
    blocks = _blocks(text)
    if not blocks:
        return text.strip() or "certbot said nothing about its certificates."
    lines = [_said(b) for b in blocks]
    # what needs attention first: expired or due, then by name as certbot lists them
    lines.sort(key=lambda line: ("valid until" in line and "due for" not in line))
    head = f"certbot manages {len(blocks)} certificate{'s' if len(blocks) != 1 else ''}:"
    shown = lines[: 10 if voice.brief else 50]
    more = len(lines) - len(shown)
    return "\n".join([head, *(f"  {line}" for line in shown),
                      *([f"  … and {more} more"] if more else [])])


ANSWERS = {"cert_list": cert_list}
