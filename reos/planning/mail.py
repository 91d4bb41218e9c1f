"""The mail queue's recipes (templates/mail.toml): which mail system a machine runs, and a
queue id as the request spelled it.

`system` picks the recipe variant, as the firewall's backend does for the firewall's:
`postfix` when the snapshot lists Postfix's package or one of its services, `none` when
it lists packages or services and Postfix is not among them (the recipe's `unsupported`
sentence is said instead of a plan), and `postfix` when it lists neither (not read: the
command itself then says whether Postfix is there).

`spelled` gives a queue id back its case: the parse reads words lowercased, and Postfix's
long queue ids (4XkQ2R1vZzN0) are told apart by case, so the id is taken as the request
wrote it, never re-cased by guess.

Not responsible for reading the words that say an id (understanding/slot_words.py) or
checking one (understanding/slots.py).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from reos.patterns import regex

if TYPE_CHECKING:
    from reos.system.snapshot import SystemSnapshot

POSTFIX, NONE = "postfix", "none"
_PACKAGES = {"postfix"}  # Debian, Fedora, Arch, openSUSE and Alpine all call it postfix
# systemd's units of it: postfix.service, and Debian's instance postfix@-.service
_SERVICE = regex(r"^postfix(?:@[^.]*)?\.service$")


def system(snapshot: SystemSnapshot) -> str:
    """The recipe variant for this machine's mail queue: `postfix` or `none`."""
    packages, services = snapshot.packages, snapshot.services
    if packages is None and services is None:
        return POSTFIX
    if any(p.name in _PACKAGES for p in packages or []):
        return POSTFIX
    if any(_SERVICE.match(s.name) for s in services or []):
        return POSTFIX
    return NONE


def spelled(value: str, request: str) -> str | None:
    """The queue id `value` as the request wrote it (same letters, its own case), or None
    when the request does not hold it as a word of its own."""
    found = re.search(rf"(?<![0-9A-Za-z]){re.escape(value)}(?![0-9A-Za-z])", request,
                      re.IGNORECASE)
    return found[0] if found else None
