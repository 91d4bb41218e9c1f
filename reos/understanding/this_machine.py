"""This machine called by its own name where a request ends: "restart postgres on web1",
"which services failed on mosswood, please?" on the machine web1 or mosswood (on
another machine, the host's snapshot it is planned on names it). The words "on web1"
(or "at", with "the server", "the host"… between or not) say where, which is here, and
are taken out before the request is understood, as a request for this machine says
nothing of where.

Only that form, where the name ends what is said (then only punctuation or "please",
"now"… follow): the name elsewhere is left as said, since a machine is often named
after what it runs ("restart the proxy" on a machine called proxy is haproxy, never a
reboot; "kill all workers" on a machine called worker is not "kill all"). Left as said
too: the whole request when it leaves something out ("stop nginx, but not on web1"),
when something on this machine is called by that name, or by it and more (a container,
service, package, account…: `taken`; redis-server on a machine called redis), or when
the name is a word the catalogue reads ("server", "web", "laptop"). The name is the
hostname, with or without its domain, never "localhost".

Not responsible for machines that are not this one (planning/places.py: `elsewhere`,
understanding/hosts.py for an inventory's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from reos.patterns import regex

_NOUN = r"(?:(?:the\s+)?(?:server|host|machine|box|node|vm|computer)\s+)?"
# what may follow the name where it ends what is said
_AFTER = (r"\s*(?:[.!?,;]\s*)*(?:(?:please|pls|plz|now|thanks|thank\s+you|asap|too)"
          r"\s*[.!?,;]*\s*)*$")
# words that leave something out: the name may be what is left out ("but not on web1")
# or where a new clause begins after it: "lock the ansible account on web1, awx is
# gone", "install mosh on web1 so we can use it" (never a list of more names after a
# comma: "restart nginx on kiln, web2 and web3")
_CLAUSE = (r"(?=\s*[;:]\s|\s*[.!?]\s+\S|\s*,\s+(?![\w.-]+\s*(?:,|\band\b|\bor\b|&|$))"
           r"|\s+(?:so|because|since|for|then|once|while|before|after|during|until|till|"
           r"when|whenever|if)\s)")
# "from" says where only after a word that takes something away ("remove sssd from
# web1"); elsewhere it says a source ("allow 5432 from web1", "copy the backups from web1",
# "drop packets from web1"), which is never this machine
_TAKEN_FROM = regex(r"^(?:(?:please|pls|kindly|could\s+you|can\s+you|would\s+you)\s+)*"
                    r"(?:remove|uninstall|purge|delete|erase)\b(?!.*\b(?:allow|deny|reject|"
                    r"block|rule|port|traffic|access|connections?)\b)", re.IGNORECASE)
_LEAVING = regex(r"\b(?:not|except|excluding|without|besides|never|skip|minus|but|"
                 r"other\s+than|apart\s+from)\b|n't\b", re.IGNORECASE)
_PART = regex(r"[-_.@:]")


def as_this_machine(request: str, hostname: object,
                    taken: Callable[[], frozenset[str] | None],
                    words: Callable[[], Collection[str]] = frozenset) -> str:
    """`request` without "on <this machine's name>" where it ends what is said (see the
    module's docstring); unchanged otherwise, when the name is one of `words()` (the
    catalogue's), or when `taken` (the names of things here, lower case; None when not
    known) may mean it."""
    if not isinstance(hostname, str) or not hostname.strip():
        return request
    names = {hostname.strip().lower(), hostname.strip().split(".", 1)[0].lower()}
    names -= {"", "localhost"}
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    if not alternatives:
        return request
    places = "on|at|from" if _TAKEN_FROM.search(request) else "on|at"
    placed = re.search(rf"\s*\b(?:{places})\s+{_NOUN}(?<![\w./@:-])({alternatives})"
                       rf"(?![\w/@:'-]|\.\w)(?:{_AFTER}|{_CLAUSE})", request,
                       re.IGNORECASE)
    if placed is None or _LEAVING.search(request):
        return request  # "stop nginx, but not on web1": never turned into "stop nginx"
    name = placed[1].lower()
    if name in words():
        return request
    here = taken()
    if here is None or any(_called(thing, name) for thing in here):
        return request
    kept = request[placed.end(1):].strip()
    return re.sub(r"\s+([.!?,;])", r"\1", " ".join(f"{request[:placed.start()]} {kept}".split()))


def _called(thing: str, name: str) -> bool:
    """Whether something here called `thing` could be what `name` says: the same name,
    the name with an "s", or the name as a part of it (redis-server, nextcloud-app-1 for a
    machine called redis or nextcloud), as the reading would match it."""
    return thing in (name, f"{name}s") or thing.startswith(name) or name in _PART.split(thing)
