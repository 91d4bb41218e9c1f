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
ufw itself, named the same way: "enable" (ufw turned on: its state is "active" or
"inactive", and undo turns it off again only when it was off), "default deny incoming"
(the default policy of incoming traffic set to deny, allow or reject: its state is the
policy before, and undo sets that one again), "limit 22/tcp" (a rate-limiting rule, like
an allow). `lets_in` says whether ufw's rules let a port in from anywhere whatever the
default policy, which the lock-out rules ask before ufw is turned on or set to deny.
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
_PORT_RULE = regex(rf"^(allow|deny|limit) ({_PORTS})$")
# ufw as a whole: turned on; its default policy for incoming traffic
_ENABLE = "enable"
_DEFAULT = regex(r"^default (allow|deny|reject) incoming$")
POLICIES = ("allow", "deny", "reject")
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
                    or _NFT_RULE.match(name) or _FIREWALLD_RULE.match(name)
                    or name == _ENABLE or _DEFAULT.match(name))
    return False


def rule_name(argv: list[str]) -> str:
    """The firewall rule a command adds, inserts or deletes, named as this module names
    rules (see the module's docstring); "firewall" when it names none."""
    words = strip_sudo(argv)
    tool, rest = (words[0], words[1:]) if words else ("", [])
    if tool == "ufw":
        if rest == ["--force", "enable"]:
            return _ENABLE  # the form reos runs: plain `enable` asks first under SSH
        if rest[:1] == ["default"] and len(rest) in (2, 3) and rest[1] in POLICIES and (
                rest[2:] in ([], ["incoming"])):
            return f"default {rest[1]} incoming"  # no direction: incoming, as ufw reads it
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


def ufw_setting(name: str) -> bool:
    """Whether `name` is ufw as a whole ("enable", "default deny incoming"), not a rule."""
    return name == _ENABLE or bool(_DEFAULT.match(name))


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
        # a limit is an allow with a rate: only a limit rule reads the two as one match
        if row["action"] not in ("ALLOW", "DENY", *(("LIMIT",) if action == "LIMIT" else ())):
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
        actions = ("allow", "deny", *(("limit",) if rule.startswith("limit ") else ()))
        if bare == f"ufw {rule}":
            found = "present"
        elif not any(bare == f"ufw {a} {rule.split(' ', 1)[1]}" for a in actions):
            return "unknown", (f"ufw has another rule for the same match there "
                               f"(\u201c{line.strip()[:120]}\u201d)")
    return found, ""


def _ufw_status(verbose: bool = False) -> tuple[str | None, str]:
    """`ufw status`'s text (`verbose`: with its "Default: …" line), or None and why not;
    as root, or through `sudo -n` (the step that changes the firewall runs so too) when
    reos is not root."""
    return _as_ufw_reads(["ufw", "status", *(["verbose"] if verbose else [])])


def added_now() -> tuple[list[str] | None, str]:
    """The lines of `ufw show added` on this machine now (its rules in ufw's order,
    whether ufw is on or not), or None and why not; read as `_ufw_status` reads."""
    text, why = _as_ufw_reads(["ufw", "show", "added"])
    return (text.splitlines(), "") if text is not None else (None, why)


def _as_ufw_reads(command: list[str]) -> tuple[str | None, str]:
    tries = [command]
    if os.geteuid() != 0:
        tries.append(as_root(command, is_root=False))
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
    text, why = _ufw_status(verbose=bool(_DEFAULT.match(name)))
    if text is None:
        return {"state": "unknown", "reason": why}
    defaults = None
    if _DEFAULT.match(name) and "Status: active" not in text:
        try:  # ufw lists no policy while it is off: its own file, what it loads when on
            with open(UFW_DEFAULTS, encoding="utf-8", errors="replace") as file:
                defaults = file.read(64 * 1024)
        except OSError:
            defaults = None
    return ufw_state(name, text, defaults=defaults)


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


def ufw_state(name: str, text: str, added: list[str] | None = None,
              defaults: str | None = None) -> dict[str, Any]:
    """The rule `name`'s state from `ufw status`'s `text` (this machine's, or a host's,
    read there as root: fleet/deciding.py). `ufw status` lists no rule while ufw is
    inactive: `added`, the rules of `ufw show added` (as "ufw allow 8080/tcp"), says
    which are there then; not given, an inactive ufw's rules read as absent. "unknown",
    with why, when another rule is about the same match (outgoing, routed, on an
    interface, limit, reject, other words), or the rule is there for one address family
    only: reos then does not guess what to put back. "enable": whether ufw is on. A
    default policy ("default deny incoming"): the incoming policy as `ufw status
    verbose` says it ("Default: deny (incoming), …"), or, as ufw lists none while it is
    off, as its file `defaults` (/etc/default/ufw) sets it."""
    active = "Status: active" in text
    if name == _ENABLE:
        known = active or any(line.strip() == "Status: inactive" for line in text.splitlines())
        return ({"state": "active" if active else "inactive"} if known else
                {"state": "unknown", "reason": "ufw's status did not say whether it is on"})
    asked = _DEFAULT.match(name)
    if asked:
        policy = incoming_policy(text, defaults)
        return ({"state": policy, "active": active, "asked": asked[1]} if policy else
                {"state": "unknown", "active": active,
                 "reason": "reos could not read ufw's default policy for incoming traffic"})
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
    # the rules with the same match and another action, which ufw updates in place
    others = [f"{a} {port[2]}" for a in ("allow", "deny") if a != port[1]] if port else []
    found = [(other, *there(other)) for other in others] if present == "absent" else []
    unknown = [said for _, there_, said in found if there_ == "unknown"]
    if present == "unknown" or unknown:
        return {"state": "unknown", "rule": name, "active": active,
                "reason": why or unknown[0]}
    state: dict[str, Any] = {"state": present, "rule": name, "active": active}
    replaced = [other for other, there_, _ in found if there_ == "present"]
    if present == "absent" and replaced:
        state["replaces"] = replaced[0]  # ufw updates a rule with the same match in its place
    return state


UFW_DEFAULTS = "/etc/default/ufw"
_DEFAULT_LINE = regex(r"^Default: (allow|deny|reject) \(incoming\)")
_INPUT_POLICY = regex(r'^DEFAULT_INPUT_POLICY="?(ACCEPT|DROP|REJECT)"?\s*$')
_AS_UFW_SAYS = {"ACCEPT": "allow", "DROP": "deny", "REJECT": "reject"}


def incoming_policy(status: str, defaults: str | None = None) -> str | None:
    """ufw's default policy for incoming traffic ("allow", "deny" or "reject"): from `ufw
    status verbose` (`status`) while ufw is on, else from its file (`defaults`, the text
    of /etc/default/ufw: DEFAULT_INPUT_POLICY); None when neither says."""
    for line in status.splitlines():
        found = _DEFAULT_LINE.match(line.strip())
        if found:
            return found[1]
    if "Status: active" in status or defaults is None:
        return None  # on, yet no policy said: never taken from the file instead
    said = [found[1] for line in defaults.splitlines()
            if (found := _INPUT_POLICY.match(line.strip()))]
    return _AS_UFW_SAYS[said[-1]] if said else None


def ufw_rule_words(words: list[str]) -> tuple[list[str], bool]:
    """The words of the rule a ufw command adds or deletes (after `ufw`: "insert N",
    "prepend" and "delete" taken off) and whether it deletes it."""
    if words[:1] == ["insert"] and len(words) > 2 and words[1].isdigit():
        return words[2:], False
    if words[:1] == ["prepend"]:
        return words[1:], False
    if words[:1] == ["delete"]:
        return words[1:], True
    return list(words), False


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


# a line of `ufw show added` reos reads for `lets_in`: an action and ports ("ufw allow
# 22/tcp", "ufw limit 80,443"), or an address with or without one port ("ufw deny from
# 203.0.113.7", "ufw allow from 10.0.0.0/8 to any port 22 proto tcp"); a comment may end it
_ADDED = regex(rf"^ufw (allow|deny|reject|limit) (?:({_PORT_SPAN}(?:,{_PORT_SPAN})*)"
               r"(?:/(tcp|udp))?|from (\S+)(?: to any port ([0-9]{1,5})"
               r"(?: proto (tcp|udp))?)?)$")


def lets_in(added: list[str], ports: set[int], client: str | None = None) -> str | None:
    """Why ufw's rules (`added`: the lines of `ufw show added`, in ufw's order) do not show
    that every port of `ports` is let in over TCP from anywhere, whatever the default
    policy; None when each is. A port is let in by a rule that allows it (TCP or every
    protocol) from Anywhere on every interface, with no rule before it that could decide
    its traffic otherwise: one that denies, rejects or limits that port, or every port,
    from anywhere or from an address `client` (where the session comes from; not known:
    any address) may be in. A line reos does not read before it (an application's name,
    an interface, a direction, a route) could be anything, so it is in the way too."""
    rules = []
    for line in added:
        bare = line.strip()
        commented = _COMMENTED.match(bare)
        bare = " ".join((commented["rule"] if commented else bare).split())
        if not bare or bare == "(None)" or bare.startswith("Added user rules"):
            continue
        rules.append((bare, _ADDED.match(bare)))
    for port in sorted(ports):
        why = _first_for(port, rules, client)
        if why:
            return why
    return None


def _first_for(port: int, rules: list[tuple[str, Any]], client: str | None) -> str | None:
    """Why the first of `rules` that decides TCP traffic to `port` is no allow from
    anywhere (see `lets_in`), or None."""
    for line, found in rules:
        text = line.removeprefix("ufw ")
        if found is None:
            return (f"ufw has a rule reos does not read ahead of any that allows port {port} "
                    f"(\u201c{text[:120]}\u201d)")
        action, spans, proto, source, one = found[1], found[2], found[3], found[4], found[5]
        if (found[6] or proto) == "udp":
            continue
        if source is None or one is not None:
            covered = [(int(one), int(one))] if one is not None else [
                (int(low), int(high or low)) for low, _, high in
                (part.partition(":") for part in (spans or "").split(","))]
            if not any(low <= port <= high for low, high in covered):
                continue
        if source is not None:
            if action == "allow" or (client is not None and _outside(client, source)):
                continue  # lets some in, or is about other addresses than the session's
            return (f"ufw's rule \u201c{text[:120]}\u201d comes first and may "
                    f"{'rate-limit' if action == 'limit' else action} port {port} for "
                    "the address reos's session comes from")
        if action == "allow":
            return None
        does = {"limit": "rate-limits", "deny": "denies", "reject": "rejects"}[action]
        return f"ufw's rule \u201c{text[:120]}\u201d comes first and {does} port {port}"
    return f"no rule of ufw's allows port {port} from anywhere"


def _outside(client: str, source: str) -> bool:
    """Whether the address `client` is surely not in `source` (an address or a network);
    False when either is not one."""
    import ipaddress

    try:
        return ipaddress.ip_address(client) not in ipaddress.ip_network(source, strict=False)
    except ValueError:
        return False


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
    if name == _ENABLE:
        # turned on from off: off again; on already, nothing changed, nothing to undo
        return ["ufw", "disable"] if action == "enable" and state == "inactive" else None
    policy = _DEFAULT.match(name)
    if policy:
        # the policy before, set again; the same as asked, nothing changed
        return ["ufw", "default", state, "incoming"] if (
            action == "default_policy" and state in POLICIES and state != policy[1]) else None
    added = action in ("allow", "deny", "limit") and state in ("absent", "", None)
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
    if action in ("allow", "deny", "limit"):
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
    if action == "enable" and value != "active":
        return "is still off"
    if action == "default_policy" and value not in POLICIES:
        return None
    if action == "default_policy":
        asked = state.get("asked")
        return (f"still has the default policy {value} for incoming traffic"
                if asked and value != asked else None)
    if "rule" not in state:
        return None
    if action in ("allow", "deny", "limit") and value != "present":
        return f"has no rule \u201c{state['rule']}\u201d"
    if action == "delete_rule" and value == "present":
        return f"still has the rule \u201c{state['rule']}\u201d"
    return None
