"""This machine called by its own name: "restart postgres on web1", "web1's time zone",
"reboot web1", "web1 uptime" on the machine web1 (on another machine, the host's
snapshot it is planned on names it) mean this machine. The name's placed forms (after
"on", "at" or "in", with "the server", "the host"… between or not; with "'s", or an "s"
said for it: "web1s ip") say where, which is here: their words are taken out ("restart
postgres", "time zone"), as a request for this machine says nothing of where. The name
said otherwise is said as "this machine" ("reboot this machine", "this machine uptime",
"the disk of this machine"), which the catalogue reads.

Left as said: the name as what is set or reached ("set the hostname to web1", "ping
web1", "ssh web1"); a name that is part of another ("web1-nas", "/srv/web1"); and the
whole request when it leaves something out ("stop nginx, but not on web1": the name may
be what is left out), when the name is one of several machines ("on web1 and web2"), or
when something on this machine is called by that name too, or by it and more (a
container, service, package, account…: `taken`; redis-server on a machine called redis),
since "restart nextcloud on nextcloud" could mean either, or when the name is a word
the catalogue reads ("server", "web", "laptop"). The name alone is read so only when it
has four letters or more ("pi" could be anything).
The name is the hostname, with or without its domain, never "localhost".

Not responsible for machines that are not this one (planning/planner.py: `_elsewhere`,
understanding/hosts.py for an inventory's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from reos.patterns import regex

_NOUN = r"(?:(?:the\s+)?(?:server|host|machine|box|node|vm|computer)\s+)?"
_DETERMINER = r"(?:the|my|our|this|that)"
# words that leave something out: the name may be what is left out ("but not on web1")
_LEAVING = regex(r"\b(?:not|except|excluding|without|besides|never|skip|minus|but|"
                 r"other\s+than|apart\s+from)\b|n't\b", re.IGNORECASE)
_PART = regex(r"[-_.@:]")
# words before the name that make it what is set ("to web1", "called web1")
_SET_TO = {"to", "as", "called", "named", "name", "hostname", "into", "from", "than"}
# words of naming: the name may be what is set ("name the box web1")
_NAMING = {"hostname", "rename", "name", "named", "call", "called", "hostnamectl"}
# verbs whose object is a machine reached from here: the name stays the object
_REACHED = {"ping", "ssh", "scp", "sftp", "rsync", "trace", "traceroute", "tracepath",
            "mtr", "resolve", "lookup", "nslookup", "dig", "host", "curl", "wget",
            "telnet", "nc", "reach", "connect", "mount", "mosh", "whois"}


def as_this_machine(request: str, hostname: object,
                    taken: Callable[[], frozenset[str] | None],
                    words: Callable[[], Collection[str]] = frozenset) -> str:
    """`request` with this machine's own name read as this machine (see the module's
    docstring); unchanged when it holds none, when the name is one of `words()` (the
    catalogue's: a machine called "server" or "web" is left to the reading), or when
    `taken` (the names of things here, lower case; None when not known) holds it."""
    if not isinstance(hostname, str) or not hostname.strip():
        return request
    names = {hostname.strip().lower(), hostname.strip().split(".", 1)[0].lower()}
    names -= {"", "localhost"}
    said = [n for n in sorted(names, key=len, reverse=True)
            if re.search(rf"(?<![\w./@:-]){re.escape(n)}s?(?![\w/@:-]|\.\w)", request,
                         re.IGNORECASE)]
    if said:  # read only now: most requests do not name this machine
        known = words()
        said = [n for n in said if n not in known]
    if not said or _LEAVING.search(request):
        return request  # "stop nginx, but not on web1": never turned into "stop nginx"
    alternatives = "|".join(re.escape(n) for n in said)
    name = rf"(?<![\w./@:-])(?:{alternatives})"
    end = r"(?![\w/@:-]|\.\w)"
    if re.search(rf"{name}{end}\s*(?:,|&|\+|\band\b|\bor\b|\bplus\b)\s*\w", request,
                 re.IGNORECASE):
        return request  # "on web1 and web2": more machines than this one
    here = taken()
    if here is None or any(_called(thing, n) for thing in here for n in said):
        return request
    request = re.sub(rf"\s*\b(?:on|at|in)\s+{_NOUN}{name}{end}(?!')", "", request,
                     flags=re.IGNORECASE)
    request = re.sub(rf"{name}(?:'s|s){end}\s*", "", request, flags=re.IGNORECASE)
    said_words = {w.lower() for w in re.findall(r"[\w-]+", request)}
    alone = [n for n in said if len(n) >= 4]  # "pi", "nas": too short to be sure of
    if alone and not said_words & (_REACHED | _NAMING):
        once = rf"(?<![\w./@:-])(?:{'|'.join(re.escape(n) for n in alone)})"
        request = re.sub(rf"(?:\b(?!{_DETERMINER}\b)(\w+)\s+)?(?:{_DETERMINER}\s+)?"
                         rf"{_NOUN}{once}{end}", _alone, request, flags=re.IGNORECASE)
    return " ".join(request.split())


def _alone(found: re.Match[str]) -> str:
    """The name said alone as "this machine", unless the word before it sets it."""
    before = found[1]
    if before is None:
        return "this machine"
    if before.lower() in _SET_TO:
        return found[0]
    return f"{before} this machine"


def _called(thing: str, name: str) -> bool:
    """Whether something here called `thing` could be what `name` says: the same name,
    the name with an "s", or the name as a part of it (redis-server, nextcloud-app-1 for a
    machine called redis or nextcloud), as the reading would match it."""
    return thing in (name, f"{name}s") or thing.startswith(name) or name in _PART.split(thing)
