"""Network interfaces and firewall rules as state: read before a step, put back on undo.

`current` reads the live state right before a step changes it (the journal keeps it as
the step's prior state): an interface is `{"state": "up" | "down" | "absent"}` from the
administrative UP flag of `ip -j link show dev NAME` (the operational state, which also
depends on a cable or a carrier, is kept beside it); a firewall rule is `{"state":
"present" | "absent", "rule": ...}` read from the backend the rule's name says. `restore`
turns that record into the one command that brings it back, `settle` corrects it once a
step ran (an nftables rule is deleted by the handle the kernel gave it, known only then),
and `problem` says what is wrong with the state a step left.

A firewall rule is named by `rule_name` from the command that changes it:
- ufw, as ufw's own command line names it without the `ufw`: "allow 8080/tcp",
  "deny 23/tcp", "deny from 203.0.113.7", "allow from 10.8.0.0/24 to any port 8123
  proto tcp";
- nftables, "nft FAMILY TABLE CHAIN: EXPRESSION": "nft inet filter input: tcp dport 8080
  accept", "nft inet filter input: ip saddr 203.0.113.7 drop";
- firewalld, "firewalld: [--permanent] --add-…" in the form that adds it:
  "firewalld: --permanent --add-port=8080/tcp", "firewalld: --add-rich-rule=rule
  priority=\"-1\" family=\"ipv4\" port port=\"22\" protocol=\"tcp\" accept".
A name that does not look like one of these (such as the bare "firewall" a recipe tracks)
has no restore command: reos never guesses which rule to delete.

Not responsible for choosing or running commands (recipes and execution do), for where a
rule goes among the others (planning/firewall_rules.py), nor for any other kind of
resource (reos/system/state.py dispatches by kind).
"""

from __future__ import annotations

import json
import os
from typing import Any

from reos.patterns import regex
from reos.system.privilege import as_root, strip_sudo
from reos.system.state import read_file

KINDS = ("interface", "firewall")
_INTERFACE = regex(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$")
# ports as ufw takes them: "8080", "20:30", a list of either ("80,443,8000:8010")
_PORT_SPAN = r"[0-9]{1,5}(?::[0-9]{1,5})?"
_PORTS = rf"{_PORT_SPAN}(?:,{_PORT_SPAN})*/(?:tcp|udp)"
_HOST = r"(?:\d{1,3}(?:\.\d{1,3}){3}(?:/\d{1,2})?|[0-9a-fA-F:]{2,39}(?:/\d{1,3})?)"
_PORT_RULE = regex(rf"^(allow|deny) ({_PORTS})$")
_FROM_RULE = regex(rf"^(deny|allow) from ({_HOST})"
                        r"(?: to any port ([0-9]{1,5}) proto (tcp|udp))?$")
_NFT_WHERE = r"(?:inet|ip|ip6) [A-Za-z0-9_-]{1,32} [A-Za-z0-9_-]{1,32}"
_NFT_EXPR = (rf"(?:ip6? saddr {_HOST} )?(?:(?:tcp|udp) dport \d{{1,5}}(?:-\d{{1,5}})? )?"
             r"(?:accept|drop|reject)")
_NFT_RULE = regex(rf"^nft ({_NFT_WHERE}): ({_NFT_EXPR})$")
_RICH = (r'rule(?: priority="-?\d{1,5}")?(?: family="ipv[46]")?'
         rf'(?: source address="{_HOST}")?(?: port port="\d{{1,5}}(?:-\d{{1,5}})?" '
         r'protocol="(?:tcp|udp)")? (?:accept|drop|reject)')
_FIREWALLD_RULE = regex(rf"^firewalld:( --permanent)? --add-(port=\d{{1,5}}(?:-\d{{1,5}})?"
                             rf"/(?:tcp|udp)|rich-rule={_RICH})$")
# a rule's row; `ufw status numbered` puts "[ 1] " before it; IN, OUT or FWD after the
# action says its direction (none: IN); a comment ("# web") may follow
_STATUS_ROW = regex(r"^(?:\[\s*\d+\]\s*)?(?P<to>\S+(?: \(v6\))?)\s+"
                         r"(?P<action>ALLOW|DENY|REJECT|LIMIT)"
                         r"(?: (?P<dir>IN|OUT|FWD))?\s+(?P<src>\S+(?: \(v6\))?)"
                         r"(?P<rest>.*)$")
# what may follow a row's source when the row is the rule alone: nothing, or its comment
_ROW_END = regex(r"^(?:\s+#.*)?$")
# a rule of `ufw show added` with its comment: "ufw allow 8080/tcp comment 'web'"
_COMMENTED = regex(r"^(?P<rule>.*?) comment '[^']*'$")


def valid(kind: str, name: object) -> bool:
    """Whether `name` may be passed to the tool that changes `kind`."""
    if not isinstance(name, str):
        return False
    if kind == "interface":
        return bool(_INTERFACE.match(name))
    if kind == "firewall":
        return bool(_PORT_RULE.match(name) or _FROM_RULE.match(name)
                    or _NFT_RULE.match(name) or _FIREWALLD_RULE.match(name))
    return False


def rule_name(argv: list[str]) -> str:
    """The firewall rule a command adds, inserts or deletes, named as this module names
    rules (see the module's docstring); "firewall" when it names none."""
    words = strip_sudo(argv)
    tool, rest = (words[0], words[1:]) if words else ("", [])
    if tool == "ufw":
        if rest[:1] == ["insert"]:
            rest = rest[2:]  # "insert 1 deny …": the rule is "deny …"
        elif rest[:1] in (["delete"], ["prepend"]):
            rest = rest[1:]
        return " ".join(rest)
    if tool == "nft" and len(rest) >= 5 and rest[1] == "rule":
        where, expr = rest[2:5], rest[5:]
        if expr[:1] in (["position"], ["index"], ["handle"]):
            expr = expr[2:]
        return f"nft {' '.join(where)}: {' '.join(expr)}" if expr else "firewall"
    if tool == "firewall-cmd":
        flags = [w for w in rest if w == "--permanent"]
        changes = [w.replace("--remove-", "--add-", 1) for w in rest
                   if w.startswith(("--add-", "--remove-"))]
        if len(changes) == 1:
            return " ".join(["firewalld:", *flags, changes[0]])
    return "firewall"


def rule_chain(name: str) -> list[str] | None:
    """The family, table and chain words of an nftables rule's name, or None."""
    found = _NFT_RULE.match(name)
    return found[1].split() if found else None


def backend_of(name: str) -> str:
    if name.startswith("nft "):
        return "nftables"
    if name.startswith("firewalld:"):
        return "firewalld"
    return "ufw"


# -- reading -------------------------------------------------------------------------------

def _interface(name: str) -> dict[str, Any]:
    if not valid("interface", name):
        return {"state": "unknown", "reason": "not an interface name"}
    done = read_file(["ip", "-j", "link", "show", "dev", name])
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
    """The rules of `ufw status` (or `ufw status verbose`): to, action, direction ("IN",
    "OUT", "FWD"; "" when ufw prints none, which is IN), from, and what follows (`rest`:
    a comment, or words such as "on eth0" that make it another rule) per line."""
    rows = []
    for line in text.splitlines():
        found = _STATUS_ROW.match(line.strip())
        if found and found["to"] not in ("To", "--"):
            rows.append({"to": found["to"], "action": found["action"],
                         "dir": found["dir"] or "", "from": found["src"],
                         "rest": found["rest"], "line": line.strip()})
    return rows


def has_rule(rows: list[dict[str, str]], rule: str) -> bool:
    """Whether the rule named like "allow 8080/tcp" or "deny from 1.2.3.4" is among `rows`
    (for IPv4 or IPv6: `rule_in` says which, and what else there is about its match)."""
    return rule_in(rows, rule)[0] != "absent"


def rule_in(rows: list[dict[str, str]], rule: str) -> tuple[str, str]:
    """The rule `rule` (as this module names it) among `rows`: ("present", "") when every
    address family that has rules holds it as an incoming rule, ("absent", "") when none
    does, else ("unknown", why): only IPv4 or only IPv6 holds it, or a row about the same
    match is another rule (outgoing or routed, on an interface, limit or reject), so what
    ufw would do with it, and what undo should put back, is not known."""
    port, source = _PORT_RULE.match(rule), _FROM_RULE.match(rule)
    if port:
        action, to, sources = port[1].upper(), (port[2],), ("Anywhere",)
    elif source:
        action, sources = source[1].upper(), (source[2],)
        to = (f"{source[3]}/{source[4]}",) if source[3] else ("Anywhere",)
    else:
        return "absent", ""
    v6_on = any(r["to"].endswith(" (v6)") or r["from"].endswith(" (v6)") for r in rows)
    families = set()
    for row in rows:
        row_to = row["to"].removesuffix(" (v6)")
        row_from = row["from"].removesuffix(" (v6)")
        if row_to not in to or row_from not in sources:
            continue
        if row["dir"] not in ("", "IN") or not _ROW_END.match(row["rest"]):
            return "unknown", (f"ufw has another rule for the same match there "
                               f"(\u201c{row['line'][:120]}\u201d)")
        if row["action"] not in ("ALLOW", "DENY"):
            return "unknown", (f"ufw has a {row['action'].lower()} rule for the same match "
                               "there")
        if row["action"] == action:
            families.add("v6" if row["to"].endswith(" (v6)") or row["from"].endswith(
                " (v6)") else "v4")
    if not families:
        return "absent", ""
    # a rule to any address is IPv4's and IPv6's (where ufw has IPv6 rules at all); one
    # from an address is its family's alone
    wanted = {"v4", "v6"} if port and v6_on else families
    if families != wanted:
        return "unknown", ("ufw holds the rule there for IPv4 only or IPv6 only, so "
                           "reos could not put it back as it was")
    return "present", ""


def _added_state(added: list[str], rule: str) -> tuple[str, str]:
    """The rule `rule` among the lines of `ufw show added` ("ufw allow 8080/tcp", perhaps
    with "comment '…'"): present, absent, or unknown with why: a line is about the same
    match with other words (outgoing, routed, on an interface, limit, reject…)."""
    port, source = _PORT_RULE.match(rule), _FROM_RULE.match(rule)
    key = port[2] if port else source[2] if source else None
    found = "absent"
    for line in added:
        words = line.split()
        if key is None or key not in words and not any(
                w.startswith(key + "/") for w in words):
            continue
        commented = _COMMENTED.match(line.strip())
        bare = " ".join((commented["rule"] if commented else line).split())
        if bare == f"ufw {rule}":
            found = "present"
        elif not any(bare == f"ufw {a} {rule.split(' ', 1)[1]}" for a in ("allow", "deny")):
            return "unknown", (f"ufw has another rule for the same match there "
                               f"(\u201c{line.strip()[:120]}\u201d)")
    return found, ""


def _ufw_status() -> tuple[str | None, str]:
    """`ufw status`'s text, or None and why not; as root, or through `sudo -n` (the step
    that changes the firewall runs so too) when reos is not root."""
    tries = [["ufw", "status"]]
    if os.geteuid() != 0:
        tries.append(as_root(["ufw", "status"], is_root=False))
    why = "ufw could not be run"
    for argv in tries:
        done = read_file(argv)
        if done is not None and done.returncode == 0:
            return done.stdout, ""
        if done is not None:
            why = (done.stderr or done.stdout or "").strip()[:200] or why
    return None, why


def _firewall(name: str) -> dict[str, Any]:
    backend = backend_of(name)
    if backend == "nftables":
        return _nft_state(name)
    if backend == "firewalld":
        return _firewalld_state(name)
    text, why = _ufw_status()
    if text is None:
        return {"state": "unknown", "reason": why}
    return ufw_state(name, text)


def _as_ufw_keeps(address: str) -> str | None:
    """An address as ufw keeps and lists it (a host without /32 or /128, a network by its
    first address, IPv6 lower-case and shortened), or None when it is none."""
    import ipaddress

    try:
        network = ipaddress.ip_network(address, strict=False)
    except ValueError:
        return None
    if network.prefixlen == network.max_prefixlen:
        return str(network.network_address)
    return str(network)


def ufw_state(name: str, text: str, added: list[str] | None = None) -> dict[str, Any]:
    """The rule `name`'s state from `ufw status`'s `text` (this machine's, or a host's,
    read there as root: fleet/deciding.py). `ufw status` lists no rule while ufw is
    inactive: `added`, the rules of `ufw show added` (as "ufw allow 8080/tcp"), says
    which are there then; not given, an inactive ufw's rules read as absent. "unknown",
    with why, when another rule is about the same match (outgoing, routed, on an
    interface, limit, reject, other words), or the rule is there for one address family
    only: reos then does not guess what to put back."""
    active = "Status: active" in text
    if not valid("firewall", name):  # the firewall as a whole
        return {"state": "active" if active else "inactive",
                "rules": [r["line"] for r in ufw_rows(text)][:200]}
    rows = ufw_rows(text)

    def there(rule: str) -> tuple[str, str]:
        if added is not None and not active:
            return _added_state(added, rule)
        return rule_in(rows, rule)

    source = _FROM_RULE.match(name)
    kept = _as_ufw_keeps(source[2]) if source else None
    if source and kept != source[2]:  # ufw would list it otherwise: never matched
        return {"state": "unknown", "rule": name, "active": active,
                "reason": ("ufw keeps that address as " + (f"\u201c{kept}\u201d" if kept
                                                           else "another form")
                           + ", so reos could not tell whether the rule is there")}
    present, why = there(name)
    port = _PORT_RULE.match(name)
    other = f"{'deny' if port[1] == 'allow' else 'allow'} {port[2]}" if port else None
    opposite, why_other = there(other) if other else ("absent", "")
    if "unknown" in (present, opposite):
        return {"state": "unknown", "rule": name, "active": active,
                "reason": why or why_other}
    state: dict[str, Any] = {"state": present, "rule": name, "active": active}
    if present == "absent" and opposite == "present":
        state["replaces"] = other  # ufw updates a rule with the same match in its place
    return state


def ufw_rule(name: str) -> tuple[str, list[tuple[int, int]] | None] | None:
    """A ufw rule's action ("allow" or "deny") and the ports it is about, as (low, high)
    ranges (None: every port, a rule "from" an address alone); None when `name` is not
    a ufw rule this module names (see the module's docstring), or a port is not one
    (0, above 65535, a range whose low end is not below its high end, as ufw has it)."""
    if "\n" in name or name != " ".join(name.split()):
        return None
    port = _PORT_RULE.fullmatch(name)
    if port:
        spans = []
        for part in port[2].split("/", 1)[0].split(","):
            low, colon, high = part.partition(":")
            span = (int(low), int(high or low))
            if not 1 <= span[0] <= span[1] <= 65535 or (colon and span[0] >= span[1]):
                return None
            spans.append(span)
        return port[1], spans
    source = _FROM_RULE.fullmatch(name)
    if source:
        if not 1 <= int(source[3] or 1) <= 65535:
            return None
        return source[1], [(int(source[3]), int(source[3]))] if source[3] else None
    return None


def _as_root(argv: list[str]) -> list[list[str]]:
    return [argv] if os.geteuid() == 0 else [argv, as_root(argv, is_root=False)]


def _nft_chain(where: str) -> tuple[list[tuple[int, str]] | None, str]:
    """The rules of one chain as (handle, expression words), or None and why not."""
    why = "nft could not be run"
    for argv in _as_root(["nft", "-j", "list", "chain", *where.split()]):
        done = read_file(argv)
        if done is None:
            continue
        if done.returncode != 0:
            said = (done.stderr or "").strip()
            if "No such file" in said:
                return [], ""
            why = said[:200] or f"exit code {done.returncode}"
            continue
        try:
            items = json.loads(done.stdout or "{}").get("nftables", [])
        except (ValueError, AttributeError):
            return None, "nft printed something that is not its JSON"
        from reos.system.facts import nft_words

        rules = [item["rule"] for item in items
                 if isinstance(item, dict) and isinstance(item.get("rule"), dict)]
        return [(int(r.get("handle", 0)), nft_words(r)) for r in rules], ""
    return None, why


def _nft_state(name: str) -> dict[str, Any]:
    found = _NFT_RULE.match(name)
    if not found:
        return {"state": "unknown", "reason": "not an nftables rule reos names"}
    rules, why = _nft_chain(found[1])
    if rules is None:
        return {"state": "unknown", "reason": why}
    handles = [h for h, words in rules if words == found[2]]
    return {"state": "present" if handles else "absent", "rule": name, "handles": handles,
            "order": [h for h, _ in rules]}


def _firewalld_state(name: str) -> dict[str, Any]:
    found = _FIREWALLD_RULE.match(name)
    if not found:
        return {"state": "unknown", "reason": "not a firewalld rule reos names"}
    query = ["firewall-cmd", *(["--permanent"] if found[1] else []),
             "--query-" + found[2]]
    why = "firewall-cmd could not be run"
    for argv in _as_root(query):
        done = read_file(argv)
        if done is not None and done.returncode in (0, 1):
            return {"state": "present" if done.returncode == 0 else "absent", "rule": name}
        if done is not None:
            why = (done.stderr or done.stdout or "").strip()[:200] or why
    return {"state": "unknown", "reason": why}


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
        return _restore_rule(name, prior or {}, action)
    return None


def _restore_rule(name: str, prior: dict[str, Any], action: str | None) -> list[str] | None:
    state = prior.get("state")
    backend = backend_of(name)
    added = action in ("allow", "deny") and state in ("absent", "", None)
    put_back = action == "delete_rule" and state in ("present", "", None)
    if backend == "firewalld":
        found = _FIREWALLD_RULE.match(name)
        flags = ["--permanent"] if found and found[1] else []
        if found and added:
            return ["firewall-cmd", *flags, "--remove-" + found[2]]
        return ["firewall-cmd", *flags, "--add-" + found[2]] if found and put_back else None
    if backend == "nftables":
        found = _NFT_RULE.match(name)
        if not found or not put_back:
            return None  # an added rule is deleted by its handle, known once it ran (settle)
        where, expr = found[1].split(), found[2].split()
        order = [h for h in prior.get("order") or [] if isinstance(h, int)]
        gone = next((h for h in prior.get("handles") or [] if isinstance(h, int)), None)
        if gone in order and order.index(gone) > 0:  # back after the rule it followed
            return ["nft", "add", "rule", *where, "position",
                    str(order[order.index(gone) - 1]), *expr]
        return ["nft", "insert", "rule", *where, *expr]  # it was first (or not read)
    if action in ("allow", "deny"):
        replaced = prior.get("replaces")
        if isinstance(replaced, str) and valid("firewall", replaced) and added:
            return ["ufw", *replaced.split()]  # ufw updates it back in its place
        # a rule that was there already stays: ufw skips adding it again
        return ["ufw", "delete", *name.split()] if added else None
    if put_back:
        return ["ufw", *name.split()]  # back at the end of the list, not its old place
    return None


def settle(kind: str, name: str, prior: dict[str, Any] | None,
           action: str | None = None) -> list[str] | None:
    """Once a step ran: the undo that needs what it created (the handle nftables gave a
    new rule), or None to keep the one recorded before it ran."""
    if kind != "firewall" or action not in ("allow", "deny") or backend_of(name) != "nftables":
        return None
    found = _NFT_RULE.match(name)
    if not found or (prior or {}).get("state") != "absent":
        return None
    rules, _why = _nft_chain(found[1])
    before = set((prior or {}).get("handles") or []) | set((prior or {}).get("order") or [])
    new = [h for h, words in rules or [] if words == found[2] and h not in before]
    return ["nft", "delete", "rule", *found[1].split(), "handle", str(new[0])] if new else None


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
