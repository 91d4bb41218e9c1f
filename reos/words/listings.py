"""Answers that list things: services (by state) and user accounts, in words.

Each renderer takes the read-only steps' output (`systemctl list-units/list-unit-files
--plain --no-legend`, `getent passwd`) and says what matters first: how many, which ones,
the filter that was asked for. Names are cleaned before they are shown.

Not responsible for running anything or for choosing the command (recipes do).
"""

from __future__ import annotations

from reos.model.report import StepResult
from reos.text import clean
from reos.words.conversation import Voice, count, join_names

SHOWN = 25  # names listed before "and N more"
_STATE_WORDS = {"running": "running", "stopped": "stopped", "failed": "failed",
                "enabled": "enabled at boot", "disabled": "disabled at boot"}


def _names(names: list[str], brief: bool) -> str:
    shown = names[: 8 if brief else SHOWN]
    more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
    return join_names([clean(n) for n in shown]) + more


def services(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`systemctl list-units` (UNIT LOAD ACTIVE SUB …) or `list-unit-files` (UNIT STATE)."""
    rows = [line.split() for r in results for line in r.stdout.splitlines() if line.strip()]
    rows = [r for r in rows if r and r[0].endswith(".service")]
    which = _STATE_WORDS.get(params.get("filter", ""), "")
    if not rows:
        return f"There are no {which + ' ' if which else ''}services."
    names = [r[0].removesuffix(".service") for r in rows]
    if which:
        return f"{count(len(names), 'service')} {which}: {_names(names, voice.brief)}."
    active = [r[0].removesuffix(".service") for r in rows if len(r) > 2 and r[2] == "active"]
    return (f"{count(len(names), 'service')} known, {len(active)} running: "
            f"{_names(active, voice.brief)}.")


def accounts(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`getent passwd`: people (uid 1000 and up, and root) first, then system accounts,
    then which accounts have a login shell (what "who can log in" asks; nologin and false
    let nobody in, an empty shell field is /bin/sh)."""
    people: list[str] = []
    system: list[str] = []
    logins: list[str] = []
    for line in results[0].stdout.splitlines():
        fields = line.split(":")
        if len(fields) < 7 or not fields[2].isdigit():
            continue
        uid, shell = int(fields[2]), fields[6].strip() or "/bin/sh"  # empty: sh (passwd(5))
        login = not shell.endswith(("nologin", "false"))
        (people if (uid >= 1000 and uid != 65534) or uid == 0 or (login and uid >= 1000)
         else system).append(fields[0])
        if login and shell != "/bin/sync":
            logins.append(f"{fields[0]} ({shell.rsplit('/', 1)[-1]})")
    if not people and not system:
        return "I couldn't read any user accounts."
    said = f"{count(len(people), 'user account')} for people: {_names(people, voice.brief)}"
    said += f", and {count(len(system), 'system account')}."
    if voice.brief:
        return said
    return said + (f" With a login shell: {_names(logins, False)}." if logins else
                   " None has a login shell.")
