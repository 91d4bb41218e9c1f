"""Firewall rule order: which earlier rule already decides the traffic a new rule is about,
and where the new rule must go to take effect.

Pure logic over the rules the snapshot lists (`snapshot.firewall.rules`), read per backend:
ufw's `ufw status` rows ("22/tcp DENY Anywhere"), nftables rules as the collector writes
them ("inet filter input handle 7: tcp dport 22 drop") and firewalld's `--list-all` lines
(ports, services and rich rules, in firewalld's own evaluation order: rich rules with a
negative priority, then deny rich rules, then allowed ports and services and accept rich
rules, then positive priorities). A rule whose matches this module cannot read (connection
state, interfaces, marks) is never taken to cover a new rule: it is only said to overlap.

`place` answers, for a new rule: the first earlier rule that covers all of its traffic
with the other verdict (the new rule would never take effect after it: insert it there),
the first earlier rule that already decides it the same way (the new rule changes
nothing), and earlier rules that decide part of its traffic (said, never moved past: a ban
on one address stays ahead of a new allow). `adjust` applies that to a plan's firewall
steps: it rewrites the step to insert the rule where it takes effect (ufw `insert N`, nft
`insert rule … position H`, a firewalld rich rule with a lower priority) and says why.
ufw turned on while the snapshot says it is on, or a port rate-limited that ufw limits
already, is said and left out (`_as_ufw_is`); a limit that takes the place of an allow
for its port says so.

Not responsible for reading the firewall (system/facts.py, system/state_net.py), for
running anything, or for undo (state_net computes it from the recorded prior state).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from reos.patterns import regex

if TYPE_CHECKING:
    from reos.model.plan import Step

ALLOW, DENY = "allow", "deny"
_VERDICT = {"allow": ALLOW, "accept": ALLOW, "limit": ALLOW,
            "deny": DENY, "drop": DENY, "reject": DENY}


class Rule(Struct, frozen=True):
    """One rule as far as order matters: what traffic it matches and what it decides."""

    verdict: str  # allow | deny
    ports: tuple[int, int] | None = None  # inclusive range; None: every port
    proto: str | None = None  # tcp | udp; None: any
    source: str | None = None  # an address or network; None: anywhere
    v6: bool = False  # ufw lists its IPv6 twin of a rule separately
    opaque: bool = False  # matches this module cannot read: never covers anything
    text: str = ""  # as the snapshot listed it
    number: int = 0  # 1-based position among the rules as the backend numbers them
    handle: int | None = None  # nftables
    where: str = ""  # nftables: "family table chain"
    priority: int = 0  # firewalld rich rules
    rich: bool = False  # firewalld: a rich rule (else a port or service)


class Placement(Struct):
    before: Rule | None = None  # insert ahead of this one to take effect
    same: Rule | None = None  # already decides the new rule's traffic the same way
    partial: list[Rule] = field(default_factory=list)  # decide part of it, the other way
    replaces: Rule | None = None  # ufw: the same match with the other verdict, updated in place


def _ports(text: str) -> tuple[int, int] | None:
    """"22" → (22, 22); "8000:8010" or "8000-8010" → a range; "" or anything else (a list,
    a name: see `_unreadable`) → None."""
    found = re.fullmatch(r"(\d{1,5})(?:[:-](\d{1,5}))?", text)
    if not found:
        return None
    low = int(found[1])
    high = int(found[2]) if found[2] else low
    return (low, high) if 0 < low <= high <= 65535 else None


def _unreadable(text: str) -> bool:
    """Ports given that `_ports` cannot read (so the rule matches something unknown)."""
    return bool(text) and _ports(text) is None


def _covers_source(outer: str | None, inner: str | None) -> bool:
    if outer is None:
        return True
    if inner is None:
        return False
    import ipaddress

    try:
        return ipaddress.ip_network(inner, strict=False).subnet_of(
            ipaddress.ip_network(outer, strict=False))  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return outer == inner


def _overlaps_source(a: str | None, b: str | None) -> bool:
    return _covers_source(a, b) or _covers_source(b, a)


def covers(earlier: Rule, new: Rule) -> bool:
    """Whether every packet `new` matches is matched by `earlier` too."""
    if earlier.opaque or earlier.v6 != new.v6:
        return False
    if earlier.proto is not None and earlier.proto != new.proto:
        return False
    if earlier.ports is not None and (new.ports is None or not (
            earlier.ports[0] <= new.ports[0] and new.ports[1] <= earlier.ports[1])):
        return False
    return _covers_source(earlier.source, new.source)


def overlaps(earlier: Rule, new: Rule) -> bool:
    """Whether some packet matches both (an opaque rule may match anything)."""
    if earlier.v6 != new.v6:
        return False
    if earlier.proto and new.proto and earlier.proto != new.proto:
        return False
    if earlier.ports and new.ports and (earlier.ports[1] < new.ports[0]
                                        or new.ports[1] < earlier.ports[0]):
        return False
    return earlier.opaque or _overlaps_source(earlier.source, new.source)


def place(existing: list[Rule], new: Rule) -> Placement:
    """Where `new` must go among `existing` (in evaluation order) to take effect."""
    out = Placement()
    for rule in existing:
        if rule.v6 != new.v6:
            continue
        if (rule.verdict != new.verdict and not rule.opaque and rule.ports == new.ports
                and rule.proto == new.proto and rule.source == new.source
                and "," not in rule.text.split(" ", 1)[0]):  # one port of a list is not it
            out.replaces = rule
        if covers(rule, new):
            if rule.verdict == new.verdict:
                out.same = rule
            else:
                out.before = rule
            return out
        if rule.verdict != new.verdict and overlaps(rule, new):
            out.partial.append(rule)
    return out


# -- reading the snapshot's rules ------------------------------------------------------------

_UFW_ROW = regex(r"^(?P<to>\S+)(?P<v6to> \(v6\))?(?: on \S+)?\s+"
                      r"(?P<action>ALLOW|DENY|REJECT|LIMIT)(?: (?P<dir>IN|OUT|FWD))?\s+"
                      r"(?P<src>\S+)(?: \(v6\))?(?P<rest>.*)$")


def from_ufw(rows: list[str]) -> list[Rule]:
    """`ufw status` rows, numbered as `ufw status numbered` numbers them. Outgoing and
    routed rules are left out (they decide other traffic) but keep their numbers."""
    out = []
    for number, row in enumerate(rows, start=1):
        found = _UFW_ROW.match(row.strip())
        if not found or found["dir"] in ("OUT", "FWD"):
            continue
        to = found["to"]
        v6 = bool(found["v6to"]) or "(v6)" in row
        opaque = bool(found["rest"].strip()) or " on " in row
        pieces: list[tuple[int, int] | None] = [None]
        proto = None
        if to != "Anywhere":
            port_text, _, proto_text = to.partition("/")
            proto = proto_text or None
            # "80,443/tcp" is one rule for each listed port (or range), same number
            pieces = [_ports(piece) for piece in port_text.split(",")]
            if any(_unreadable(piece) for piece in port_text.split(",")) or (
                    proto_text not in ("", "tcp", "udp")):
                opaque, pieces = True, [None]
        src = found["src"]
        for ports in pieces:
            out.append(Rule(_VERDICT[found["action"].lower()], ports, proto,
                            None if src == "Anywhere" else src, v6, opaque, row.strip(),
                            number))
    return out


_NFT_ROW = regex(r"^(?P<where>\S+ \S+ \S+)(?: handle (?P<handle>\d+))?: (?P<expr>.*)$")
_NFT_MATCH = regex(r"^(?:ip6? saddr (?P<src>\S+)|(?P<proto>tcp|udp) dport (?P<port>\S+)"
                        r"|meta l4proto (?P<l4>tcp|udp)|counter)$")


def nft_expr_rule(expr: str, **extra: object) -> Rule:
    """A rule from nftables expression words ("tcp dport 22 drop")."""
    words = expr.replace(" comment ", " \x00").split("\x00")[0].split()
    verdict_word = words[-1] if words else ""
    verdict = _VERDICT.get(verdict_word)
    opaque = verdict is None
    ports: tuple[int, int] | None = None
    proto = source = None
    v6 = False
    parts: list[str] = []
    body = words[:-1]
    i = 0
    while i < len(body):  # matches are "a b c" triples, or "counter"
        if body[i] == "counter":
            parts.append("counter")
            i += 1
            continue
        parts.append(" ".join(body[i:i + 3]))
        i += 3
    for part in parts:
        found = _NFT_MATCH.match(part)
        if not found:
            opaque = True
            continue
        if found["src"]:
            source, v6 = found["src"], part.startswith("ip6")
        elif found["proto"]:
            proto = found["proto"]
            ports = _ports(found["port"])
            opaque = opaque or _unreadable(found["port"])
        elif found["l4"]:
            proto = found["l4"]
    return Rule(verdict or DENY, ports, proto, source, v6, opaque, **extra)  # type: ignore[arg-type]


def from_nft(rows: list[str], chain: str | None = None) -> list[Rule]:
    """The collector's nftables rules ("inet filter input handle 7: tcp dport 22 drop"),
    numbered in order within their chain; only `chain` ("inet filter input") when given."""
    out = []
    counts: dict[str, int] = {}
    for row in rows:
        found = _NFT_ROW.match(row.strip())
        if not found:
            continue
        where = found["where"]
        counts[where] = counts.get(where, 0) + 1
        if chain is not None and where != chain:
            continue
        handle = int(found["handle"]) if found["handle"] else None
        out.append(nft_expr_rule(found["expr"], text=row.strip(), number=counts[where],
                                 handle=handle, where=where))
    return out


def input_chain(rows: list[str]) -> str | None:
    """The chain ("family table chain") the snapshot's rules filter incoming traffic in: the
    first chain called input (any case) that holds rules, else None."""
    for row in rows:
        found = _NFT_ROW.match(row.strip())
        if found and found["where"].split()[-1].lower() == "input":
            return found["where"]
    return None


_RICH_PRIORITY = regex(r'priority="?(-?\d+)"?')
_RICH_SOURCE = regex(r'source address="?([0-9a-fA-F.:/]+)"?')
_RICH_PORT = regex(r'port port="?([0-9:-]+)"? protocol="?(tcp|udp)"?')


def from_firewalld(lines: list[str]) -> list[Rule]:
    """`firewall-cmd --list-all` lines, in the order firewalld evaluates them."""
    rules: list[Rule] = []
    in_rich = False
    for line in lines:
        text = line.strip()
        if text.startswith("rich rules:"):
            in_rich = True
            text = text[len("rich rules:"):].strip()
            if not text:
                continue
        elif re.match(r"^[a-z0-9-]+:", text):
            in_rich = False
        if in_rich and text.startswith("rule"):
            rules.append(_rich(text))
        elif text.startswith("ports:"):
            for item in text[len("ports:"):].split():
                port_text, _, proto = item.partition("/")
                rules.append(Rule(ALLOW, _ports(port_text), proto or None, None, False,
                                  _unreadable(port_text), f"port {item}"))
        elif text.startswith("services:"):
            rules.extend(Rule(ALLOW, None, None, None, False, True, f"service {name}")
                         for name in text[len("services:"):].split())
    rank = {True: 0, False: 1}

    def order(rule: Rule) -> tuple[int, int, int]:
        if rule.rich and rule.priority != 0:
            return (-1 if rule.priority < 0 else 3, rule.priority, 0)
        return (1 if rule.verdict == DENY and rule.rich else 2, 0, rank[rule.rich])

    ordered = sorted(rules, key=order)
    return [replace(r, number=i) for i, r in enumerate(ordered, start=1)]


def _rich(text: str) -> Rule:
    words = text.replace('"', " ").split()
    verdict = next((_VERDICT[w] for w in reversed(words) if w in ("accept", "drop", "reject")),
                   None)
    priority = _RICH_PRIORITY.search(text)
    source = _RICH_SOURCE.search(text)
    port = _RICH_PORT.search(text)
    read = _ports(port[1]) if port else None
    bad = port is not None and _unreadable(port[1])
    known = re.sub(r'(rule|family="?ipv[46]"?|priority="?-?\d+"?|source address="?[^" ]+"?'
                   r'|port port="?[0-9:-]+"? protocol="?(tcp|udp)"?|accept|drop|reject)',
                   "", text).strip()
    return Rule(verdict or DENY, read, port[2] if port else None,
                source[1] if source else None, "ipv6" in text, bool(known) or bad
                or verdict is None, text, priority=int(priority[1]) if priority else 0,
                rich=True)


def existing(backend: str | None, rows: list[str]) -> list[Rule]:
    if backend == "nftables":
        return from_nft(rows, input_chain(rows))
    if backend == "firewalld":
        return from_firewalld(rows)
    return from_ufw(rows)


# -- words -----------------------------------------------------------------------------------

def _shown(rule: Rule) -> str:
    return f"\u201c{rule.text}\u201d"


def explain(p: Placement, new_words: str, backend: str | None) -> list[str]:
    """What the plan says about the new rule's place, one sentence each."""
    notes = []
    if p.replaces is not None and backend in (None, "ufw") and p.before is p.replaces:
        notes.append(f"Rule {p.replaces.number} ({_shown(p.replaces)}) matches the same "
                     f"traffic and decides it the other way; ufw replaces it in its place "
                     f"with {new_words}, so the new rule takes effect, and undo puts the old "
                     "one back")
    elif p.before is not None:
        where = (f"at position {p.before.number}" if backend in (None, "ufw") else
                 f"ahead of it (rule handle {p.before.handle})" if backend == "nftables"
                 else f"as a rich rule with priority {priority_before(p.before)}")
        notes.append(f"Rule {p.before.number} ({_shown(p.before)}) comes earlier and already "
                     f"decides this traffic the other way, so {new_words} added at the end "
                     f"would never take effect; I'll insert it {where}")
    if p.same is not None:
        notes.append(f"Rule {p.same.number} ({_shown(p.same)}) already decides this traffic "
                     f"the same way, so {new_words} changes nothing while that one stays")
    # a row of several ports is read as one rule each, under the row's one number
    for rule in list({r.number: r for r in p.partial}.values())[:3]:
        notes.append(f"Rule {rule.number} ({_shown(rule)}) comes earlier and still decides "
                     "part of this traffic the other way; I'm leaving it ahead")
    return notes


def priority_before(rule: Rule) -> int:
    """A firewalld rich-rule priority evaluated ahead of `rule`."""
    return max(-32768, min(rule.priority, 0) - 1)


# -- applying it to a plan -------------------------------------------------------------------

def new_rule(backend: str | None, name: str) -> Rule | None:
    """The rule a step adds, from its state name (state_net.rule_name)."""
    if backend == "nftables":
        _, _, expr = name.partition(": ")
        return nft_expr_rule(expr) if expr else None
    if backend == "firewalld":
        body = name.split("--add-", 1)[-1] if "--add-" in name else ""
        if body.startswith("port="):
            port_text, _, proto = body[5:].partition("/")
            read = _ports(port_text)
            return Rule(ALLOW, read, proto or None) if read else None
        if body.startswith("rich-rule="):
            return _rich(body[len("rich-rule="):])
        return None
    found = re.fullmatch(r"(allow|deny) (?:(\d{1,5}(?::\d{1,5})?)/(tcp|udp)|from (\S+)"
                         r"(?: to any port (\d{1,5}) proto (tcp|udp))?)", name)
    if not found:
        return None
    return Rule(found[1], _ports(found[2] or found[5] or ""), found[3] or found[6], found[4])


def adjust(plan: object, firewall: dict[str, object] | None) -> None:
    """Put each firewall step of `plan` where it takes effect, and say why; an nftables
    delete names the rule's handle (a rule that is not there is said, never guessed)."""
    from reos.model.target import Target
    from reos.system import state_net
    from reos.system.privilege import as_root, strip_sudo, through_sudo

    backend = str((firewall or {}).get("backend") or "ufw")
    raw = (firewall or {}).get("rules")
    rows = [r for r in raw if isinstance(r, str)] if isinstance(raw, list) else []
    rules = existing(backend, rows)
    chain = input_chain(rows) if backend == "nftables" else None
    steps = getattr(plan, "steps", [])
    notes: list[str] = getattr(plan, "notes", [])
    for step in list(steps):
        target = step.target
        if target is not None and target.kind == "firewall" and backend == "ufw" and (
                step.action in ("enable", "limit")):
            _as_ufw_is(step, steps, notes, firewall or {}, rows)
            continue
        if target is None or target.kind != "firewall" or step.action not in (
                "allow", "deny", "delete_rule"):
            continue
        sudo = through_sudo(step.argv)
        argv = strip_sudo(step.argv)
        if argv[:1] == ["nft"] and chain and len(argv) > 6 and argv[2] == "rule":
            argv[3:6] = chain.split()  # the chain this machine filters input in
        name = state_net.rule_name(argv)
        new = new_rule(backend, name)
        if new is None:
            continue
        if step.action == "delete_rule":
            if argv[:1] == ["nft"]:
                match = next((r for r in rules if r.handle is not None and not r.opaque
                              and (r.verdict, r.ports, r.proto, r.source) ==
                              (new.verdict, new.ports, new.proto, new.source)), None)
                if match is None:
                    steps.remove(step)
                    notes.append(f"There is no rule \u201c{name.partition(': ')[2]}\u201d in "
                                 f"{chain or 'the input chain'}, so there is nothing to delete")
                    continue
                argv = ["nft", "delete", "rule", *match.where.split(), "handle",
                        str(match.handle)]
        elif argv[:1] == ["ufw"] and "prepend" in argv[1:3]:
            pass  # ahead of every rule already (a ban): nothing earlier decides it
        else:
            placement = place(rules, new)
            said = name.split(": ", 1)[-1] if backend == "nftables" else name.removeprefix(
                "firewalld: ")
            notes.extend(explain(placement, f"\u201c{said}\u201d", backend))
            if placement.before is not None:
                argv = _inserted(backend, argv, placement)
                name = state_net.rule_name(argv)
        step.argv = as_root(argv, is_root=not sudo)  # as the step ran before
        step.target = Target("firewall", name, "")
        rollback = state_net.restore("firewall", name, {"state": ""}, step.action)
        step.rollback = as_root(rollback, is_root=not sudo) if rollback else rollback


def _as_ufw_is(step: Step, steps: list[Step], notes: list[str],
               firewall: dict[str, object], rows: list[str]) -> None:
    """ufw turned on, or a port rate-limited, against what the snapshot says of ufw: on
    already, or the limit there already, the step is left out and said (nothing to do
    or undo); else its undo is the one that state gives (off again; the limit deleted, or
    the rule it replaces in place put back), and a rule it replaces is said."""
    from reos.system import state_net
    from reos.system.privilege import as_root, through_sudo

    active = firewall.get("active")
    if not isinstance(active, bool) or step.target is None:
        return  # not read: undo works from the state recorded just before the step
    name = step.target.name
    if name == "enable":
        prior: dict[str, object] = {"state": "active" if active else "inactive"}
    elif active:  # ufw lists its rules only while it is on
        prior = state_net.ufw_state(name, "Status: active\n" + "\n".join(rows))
    else:
        return
    if prior.get("state") in ("active", "present"):
        steps.remove(step)
        notes.append("The firewall (ufw) is on already, so there is nothing to do"
                     if name == "enable" else
                     f"ufw rate-limits {name.split()[-1]} already, so there is nothing to do")
        return
    if prior.get("state") == "unknown":
        return
    if isinstance(prior.get("replaces"), str):
        notes.append(f"ufw puts the limit in place of its rule \u201c{prior['replaces']}\u201d"
                     "; undo puts that one back")
    rollback = state_net.restore("firewall", name, prior, step.action)
    step.rollback = as_root(rollback, is_root=not through_sudo(step.argv)) if rollback else None


def _inserted(backend: str, argv: list[str], placement: Placement) -> list[str]:
    before = placement.before
    assert before is not None
    if backend == "ufw" and argv[:1] == ["ufw"] and argv[1:2] in (["allow"], ["deny"]):
        if placement.replaces is before:
            return argv  # ufw updates the rule with the same match in its place
        return ["ufw", "insert", str(before.number), *argv[1:]]
    if backend == "nftables" and argv[:1] == ["nft"] and before.handle is not None:
        return ["nft", "insert", "rule", *argv[3:6], "position", str(before.handle), *argv[6:]]
    if backend == "firewalld" and argv[:1] == ["firewall-cmd"]:
        priority = priority_before(before)
        out = []
        for word in argv:
            if word.startswith("--add-port="):
                port, _, proto = word[len("--add-port="):].partition("/")
                word = (f'--add-rich-rule=rule priority="{priority}" family="ipv4" port '
                        f'port="{port}" protocol="{proto}" accept')
            elif word.startswith("--add-rich-rule=rule "):
                word = re.sub(r' priority="-?\d+"', "", word)
                word = word.replace("rule ", f'rule priority="{priority}" ', 1)
            out.append(word)
        return out
    return argv
