"""What a name of each kind of resource must look like before it reaches a command.

A saved snapshot is untrusted input too, so names from it are checked again here, and
names from a request (packages to install, users to create) must pass the same patterns.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


class LazyPatterns(dict[str, "re.Pattern[str] | str"]):
    """kind -> pattern source, compiled on first use: `reos plan` compiles only the few
    it needs."""

    def __getitem__(self, kind: str) -> re.Pattern[str]:
        value = super().__getitem__(kind)
        if isinstance(value, str):
            value = re.compile(value)
            super().__setitem__(kind, value)
        return value


SAFE_NAMES = LazyPatterns({
    "container": r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$",
    "service": r"^[A-Za-z0-9][A-Za-z0-9:_.@\\-]{0,254}$",
    "package": r"^[a-z0-9][a-z0-9+._-]{0,127}$",
    "user": r"^[a-z_][a-z0-9_.-]{0,31}$",
    "group": r"^[a-z_][a-z0-9_.-]{0,31}$",
    "process": r"^[1-9][0-9]{0,9}$",  # a pid
    "mount": r"^/[A-Za-z0-9._/+-]{0,4095}$",
    "device": r"^[a-z][a-z0-9_-]{0,31}$",
    "interface": r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$",
    "timer": r"^[A-Za-z0-9][A-Za-z0-9:_.@\\-]{0,254}$",
})
