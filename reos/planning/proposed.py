"""A command a model proposed, or a person typed, that no operation covers, judged by
reos itself.

A typed command ("ss -tlnp", found by `typed.py`) is judged the same way. The model's
answer carries an argv, its purpose and whether it "only reads"; that claim
is ignored. The risk engine decides: a command its read-only grammar proves only reads
may run at once as the answer to a question; anything else is an action, shown with its
risk and the reason it asks (the word that made it not read-only), approved like any
plan; a blocked command is refused, and so is one that names a secret file (/etc/shadow,
a private key), which only reads but would print someone's secrets. Undo: only when the risk engine
names the files the command changes (`safety.backups.files_changed`), which the executor
backs up before it runs; otherwise the plan says plainly that it cannot be undone.
`sudo -n` is added (never taken from the model) when the command needs root and reos is
not root.

Pure: builds a Plan, runs nothing.
"""

from __future__ import annotations

from reos.model.plan import Plan, Step
from reos.model.request import Intent, Kind
from reos.safety.backups import files_changed
from reos.safety.risk import assess_argv
from reos.system.privilege import as_root
from reos.text import clean
from reos.words import conversation
from reos.words.conversation import Voice


def _secret(argv: list[str]) -> str | None:
    """The secret file an argv names (/etc/shadow, a private key), or None."""
    from reos.understanding.typed import SECRET_FILE

    for word in argv[1:]:
        for part in (word, word.split("=", 1)[-1]):
            if SECRET_FILE.search(part):
                return part
    return None


def plan_command(plan: Plan, intent: Intent, is_root: bool, voice: Voice) -> None:
    argv = list(intent.argv)
    secret = _secret(argv)
    if secret is not None:  # "cat /etc/shadow" only reads, and prints someone's secrets
        who = "You typed" if intent.reading.source == "typed" else "The model suggested"
        plan.kind = Kind.REFUSE
        plan.blocked = True
        plan.blocked_reason = (f"it names {clean(secret)[:80]}, which holds secrets (password "
                               "hashes or a private key) that I never print or copy")
        plan.said = [f"{who} `{clean(' '.join(argv))[:120]}`, and I won't run it: "
                     f"{plan.blocked_reason}."]
        return
    verdict = assess_argv(argv)
    purpose = clean(intent.purpose or "run a command")[:200]
    shown = clean(" ".join(argv))[:120]
    if verdict.blocked:
        plan.kind = Kind.REFUSE
        plan.blocked = True
        plan.blocked_reason = "; ".join(verdict.reasons) or "the risk engine blocks it"
        who = "You typed" if intent.reading.source == "typed" else "The model suggested"
        plan.said = [f"{who} `{shown}`, and I won't run it: {plan.blocked_reason}."]
        return
    if verdict.needs_root:
        argv = as_root(argv, is_root)
    changed = [] if verdict.read_only else files_changed(intent.argv)
    step = Step(id="s1", title=purpose[:1].upper() + purpose[1:], argv=argv,
                read_only=verdict.read_only, needs_root=argv[0] == "sudo",
                risk=verdict.risk, reversible=verdict.read_only or bool(changed),
                risk_reasons=list(verdict.reasons), action="command")
    plan.steps = [step]
    plan.verb = None
    origin = ("You typed a command, and no operation of mine reads it fully, so I take "
              "it as typed. I judged it myself" if intent.reading.source == "typed" else
              "No operation of mine covers that, so I asked the model, which suggested a "
              "command. I judged it myself")
    if verdict.read_only:
        plan.kind = Kind.QUERY
        plan.notes.append(f"{origin}: it only reads.")
        plan.said = [conversation.investigating(plan, voice)]
        plan.notes = []
        return
    plan.kind = Kind.ACTION
    plan.notes.append(f"{origin}: it is not shown to only read "
                      f"({clean(verdict.why_not_read_only or 'not on the read-only list')}),"
                      f" so I'll ask before running it (risk {verdict.risk.label}).")
    if changed:
        plan.notes.append("Undo restores " + ", ".join(changed[:5]) + " from the copy I keep "
                          "before it runs; anything else it changes stays changed.")
    else:
        plan.notes.append("I can't undo this command: it changes things I don't back up.")
