"""Answers about the mail queue, in words: `postqueue -p` (templates/mail.toml).

Postfix prints one entry a message: a line with the queue id (followed by `*` while it
is being delivered, `!` while it is on hold), its size, when it arrived and its sender;
the reason it was deferred in parentheses; then its recipients, each on a line of its
own; and a last line "-- 3 Kbytes in 2 Requests." ("Mail queue is empty" when nothing
waits). The answer says how many messages wait, how many are held, and each message's
id, sender, recipients and reason, everything cleaned of control characters.

Not responsible for running `postqueue` or choosing it (the recipe does).
"""

from __future__ import annotations

from collections.abc import Callable

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice

Summariser = Callable[[list[StepResult], dict[str, str], Voice], str]

# postqueue exits non-zero when the mail system is down or the queue cannot be read:
# what it says then is the answer
TOLERANT = {"mail_queue"}

# an entry's first line: queue id (and its mark), size, arrival time, sender
_ENTRY = regex(r"^([0-9A-Za-z]{6,20})([*!]?)\s+(\d+)\s+(\w{3}\s+\w{3}\s+\d+\s+[\d:]+)\s+(\S*)$")
_SHOWN, _BRIEF = 30, 5


class _Message:
    def __init__(self, queue_id: str, mark: str, sender: str):
        self.queue_id, self.mark, self.sender = queue_id, mark, sender
        self.reason = ""
        self.recipients: list[str] = []

    def said(self) -> str:
        state = {"*": " (being delivered)", "!": " (on hold)"}.get(self.mark, "")
        to = ", ".join(self.recipients[:5]) + (
            f" and {len(self.recipients) - 5} more" if len(self.recipients) > 5 else "")
        line = f"{self.queue_id}{state}: from {self.sender or '<>'} to {to or '?'}"
        return line + (f" \u2014 {self.reason}" if self.reason else "")


def messages(text: str) -> list[_Message]:
    """The entries of `postqueue -p` output, in its order."""
    found: list[_Message] = []
    for raw in text.splitlines()[:100_000]:
        line = clean(raw).rstrip()
        entry = _ENTRY.match(line)
        if entry:
            found.append(_Message(entry[1], entry[2], entry[5][:80]))
        elif found and line.strip().startswith("(") and line.strip().endswith(")"):
            found[-1].reason = line.strip()[1:-1][:160]
        elif found and line.startswith((" ", "\t")) and line.strip():
            found[-1].recipients.append(line.strip()[:80])
    return found


def mail_queue(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    result = results[0] if results else None
    if result is None:
        return "I couldn't read the mail queue."
    text = clean(result.stdout + "\n" + result.stderr)
    if "Mail queue is empty" in text:
        return "The mail queue is empty: no message is waiting to be delivered."
    if result.exit_code == 127 or "not found" in text and not result.stdout.strip():
        return "postqueue is not installed here, so there is no Postfix mail queue to read."
    found = messages(result.stdout)
    if not found:
        said = " ".join(line.strip() for line in text.splitlines() if line.strip())[:300]
        return f"I couldn't read the mail queue ({said or 'postqueue said nothing'})."
    held = sum(m.mark == "!" for m in found)
    deferred = sum(bool(m.reason) for m in found)
    head = f"{len(found)} message{'s' if len(found) != 1 else ''} in the mail queue"
    details = [f"{n} {what}" for n, what in ((deferred, "deferred"), (held, "on hold")) if n]
    lines = [head + (f" ({', '.join(details)})" if details else "") + ":"]
    shown = found[:_BRIEF if voice.brief else _SHOWN]
    lines += [f"  {m.said()}" for m in shown]
    if len(found) > len(shown):
        lines.append(f"  and {len(found) - len(shown)} more")
    return "\n".join(lines)


ANSWERS: dict[str, Summariser] = {"mail_queue": mail_queue}
