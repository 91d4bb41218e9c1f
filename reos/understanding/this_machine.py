"""This machine called by its own name: "restart postgres on web1", "web1's time zone",
"the disk of web1" on the machine web1 (on another machine, the host's snapshot it is
planned on names it) say where, which is here: the name's words are taken out before the
request is understood ("restart postgres", "time zone", "the disk"), as a request for
this machine says nothing of where.

Only the name's placed forms are read so: after "on", "at", "in" or "of" (with "the
server", "the host"… between, or not), and with "'s". The name alone ("reboot web1",
"set the hostname to web1") is left as said. Nothing is read so when something on this
machine is called by that name too (a container, service, package, account…: `taken`),
since "restart nextcloud on nextcloud" could mean either. The name is the hostname, with
or without its domain, never "localhost".

Not responsible for machines that are not this one (planning/planner.py: `_elsewhere`,
understanding/hosts.py for an inventory's).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_NOUN = r"(?:(?:the\s+)?(?:server|host|machine|box|node|vm|computer)\s+)?"


def as_this_machine(request: str, hostname: object,
                    taken: Callable[[], frozenset[str] | None]) -> str:
    """`request` without this machine's own name in a placed form (see the module's
    docstring); unchanged when it holds none, or when `taken` (the
    names of things here, lower case; None when not known) holds the name."""
    if not isinstance(hostname, str) or not hostname.strip():
        return request
    names = {hostname.strip().lower(), hostname.strip().split(".", 1)[0].lower()}
    names -= {"", "localhost"}
    said = [n for n in sorted(names, key=len, reverse=True)
            if re.search(rf"(?<![\w./@:-]){re.escape(n)}(?![\w/@:-]|\.\w)", request,
                         re.IGNORECASE)]
    if not said:
        return request
    here = taken()
    if here is None or any(n in here for n in said):
        return request
    alternatives = "|".join(re.escape(n) for n in said)
    name = rf"(?<![\w./@:-])(?:{alternatives})(?![\w/@:-]|\.\w)"
    request = re.sub(rf"\s*\b(?:on|at|in|of)\s+{_NOUN}{name}(?!')", "", request,
                     flags=re.IGNORECASE)
    request = re.sub(rf"{name}'s\s*", "", request, flags=re.IGNORECASE)
    return " ".join(request.split())
