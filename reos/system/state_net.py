"""Network interfaces and firewall rules as state: read before a step, put back on undo.

`current` reads the live state right before a step changes it (the journal keeps it as
the step's prior state): an interface is `{"state": "up" | "down" | "absent"}` from the
administrative UP flag of `ip -j link show dev NAME` (the operational state, which also
depends on a cable or a carrier, is kept beside it); a firewall rule is `{"state":
"present" | "absent", "rule": ...}` from `ufw status`. `restore` turns that record into
the one command that brings it back, and `problem` says what is wrong with the state a
step left.

A firewall rule is named the way ufw's own command line names it, without the `ufw`:
"allow 8080/tcp", "deny 23/tcp", "deny from 203.0.113.7". A name that does not look like
one of these (such as the bare "firewall" a recipe tracks) has no restore command: reos
never guesses which rule to delete.

Not responsible for choosing or running commands (recipes and execution do), nor for any
other kind of resource (reos/system/state.py dispatches by kind).
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from reos.system.state import _read

KINDS = ("interface", "firewall")
_INTERFACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$")
_PORTS = r"\d{1,5}(?:[,:]\d{1,5})*/(?:tcp|udp)"
_HOST = r"(?:\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?|[0-9a-fA-F:]{2,39}(?:/\d{1,3})?)"
_PORT_RULE = re.compile(rf"^(allow|deny) ({_PORTS})$")
_FROM_RULE = re.compile(rf"^(deny|allow) from ({_HOST})$")
_STATUS_ROW = re.compile(r"^(?P<to>\S+(?: \(v6\))?)\s+(?P<action>ALLOW|DENY|REJECT|LIMIT)"
                         r"(?: (?:IN|OUT|FWD))?\s+(?P<src>\S+(?: \(v6\))?)")


def valid(kind: str, name: object) -> bool:
    """Whether `name` may be passed to the tool that changes `kind`."""
    if not isinstance(name, str):
        return False
    if kind == "interface":
        return bool(_INTERFACE.match(name))
    if kind == "firewall":
        return bool(_PORT_RULE.match(name) or _FROM_RULE.match(name))
    return False


# -- reading -------------------------------------------------------------------------------

def _interface(name: str) -> dict[str, Any]:
    if not valid("interface", name):
        return {"state": "unknown", "reason": "not an interface name"}
    done = _read(["ip", "-j", "link", "show", "dev", name])
    if done is None:
        return {"state": "unknown", "reason": "ip could not be run"}
    if done.returncode != 0:
        said = (done.stderr or "").strip()
        if "does not exist" in said or "Cannot find device" in said:
            return {"state": "absent"}
        return {"state": "unknown", "reason": said[:200] or f"exit code {done.returncode}"}
    try:
        links = json.loads(done.stdout or "[]")
    except json.JSONDecodeError:
        return {"state": "unknown", "reason": "ip's output could not be read"}
    link = links[0] if isinstance(links, list) and links and isinstance(links[0], dict) else {}
    if not link:
        return {"state": "absent"}
    flags = link.get("flags") or []
    return {"state": "up" if "UP" in flags else "down",
            "operstate": str(link.get("operstate", "")).lower()}


def ufw_rows(text: str) -> list[dict[str, str]]:
    """The rules of `ufw status` (or `ufw status verbose`): to, action, from per line."""
    rows = []
    for line in text.splitlines():
        found = _STATUS_ROW.match(line.strip())
        if found and found["to"] not in ("To", "--"):
            rows.append({"to": found["to"], "action": found["action"],
                         "from": found["src"], "line": line.strip()})
    return rows


def has_rule(rows: list[dict[str, str]], rule: str) -> bool:
    """Whether the rule named like "allow 8080/tcp" or "deny from 1.2.3.4" is among `rows`."""
    port = _PORT_RULE.match(rule)
    if port:
        action, to = port[1].upper(), port[2]
        return any(r["to"] == to and r["action"] == action and r["from"] == "Anywhere"
                   for r in rows)
    source = _FROM_RULE.match(rule)
    if source:
        action, host = source[1].upper(), source[2]
        return any(r["to"] in ("Anywhere", "Anywhere (v6)") and r["action"] == action
                   and r["from"] == host for r in rows)
    return False


def _ufw_status() -> tuple[str | None, str]:
    """`ufw status`'s text, or None and why not; as root, or through `sudo -n` (the step
    that changes the firewall runs so too) when reos is not root."""
    tries = [["ufw", "status"]]
    if os.geteuid() != 0:
        tries.append(["sudo", "-n", "ufw", "status"])
    why = "ufw could not be run"
    for argv in tries:
        done = _read(argv)
        if done is not None and done.returncode == 0:
            return done.stdout, ""
        if done is not None:
            why = (done.stderr or done.stdout or "").strip()[:200] or why
    return None, why


def _firewall(name: str) -> dict[str, Any]:
    text, why = _ufw_status()
    if text is None:
        return {"state": "unknown", "reason": why}
    active = "Status: active" in text
    if not valid("firewall", name):  # the firewall as a whole
        return {"state": "active" if active else "inactive",
                "rules": [r["line"] for r in ufw_rows(text)][:200]}
    present = has_rule(ufw_rows(text), name)
    return {"state": "present" if present else "absent", "rule": name, "active": active}


def current(kind: str, name: str) -> dict[str, Any] | None:
    """The interface's or the rule's state now, or None for a kind this module does not
    track."""
    if kind == "interface":
        return _interface(name)
    if kind == "firewall":
        return _firewall(name)
    return None


# -- restoring and checking ------------------------------------------------------------------

def restore(kind: str, name: str, prior: dict[str, Any] | None,
            action: str | None = None) -> list[str] | None:
    """The command that puts back what the step changed, or None when none can (the state
    was not read, the name is not one the tool takes, or nothing was changed)."""
    state = (prior or {}).get("state")
    if not valid(kind, name):
        return None
    if kind == "interface":
        if state in ("up", "down") and action in (None, "up", "down"):
            return ["ip", "link", "set", name, state]
        return None
    if kind == "firewall":
        if action in ("allow", "deny"):
            # a rule that was there already stays: ufw skips adding it again
            return ["ufw", "delete", *name.split()] if state in ("absent", "", None) else None
        if action == "delete_rule" and state in ("present", "", None):
            return ["ufw", *name.split()]  # back at the end of the list, not its old place
    return None


def problem(kind: str, action: str | None, state: dict[str, Any] | None) -> str | None:
    """What is wrong with the state a step left, or None when nothing visibly is."""
    if kind not in KINDS or not isinstance(state, dict):
        return None
    value = state.get("state")
    if value in (None, "", "unknown"):
        return f"could not be read back ({state.get('reason') or 'unknown'})"
    if kind == "interface":
        if value == "absent":
            return "no longer exists"
        if action == "up" and value != "up":
            return "is still down"
        if action == "down" and value != "down":
            return "is still up"
        return None
    if "rule" not in state:
        return None
    if action in ("allow", "deny") and value != "present":
        return f"has no rule \u201c{state['rule']}\u201d"
    if action == "delete_rule" and value == "present":
        return f"still has the rule \u201c{state['rule']}\u201d"
    return None
