"""What a name of each kind of resource must look like before it reaches a command.

A saved snapshot is untrusted input too, so names from it are checked again here, and
names from a request (packages to install, users to create) must pass the same patterns.
"""

from __future__ import annotations

import re

SAFE_NAMES = {
    "container": re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$"),
    "service": re.compile(r"^[A-Za-z0-9][A-Za-z0-9:_.@\\-]{0,254}$"),
    "package": re.compile(r"^[a-z0-9][a-z0-9+._-]{0,127}$"),
    "user": re.compile(r"^[a-z_][a-z0-9_.-]{0,31}$"),
    "group": re.compile(r"^[a-z_][a-z0-9_.-]{0,31}$"),
    "process": re.compile(r"^[1-9][0-9]{0,9}$"),  # a pid
    "mount": re.compile(r"^/[A-Za-z0-9._/+-]{0,4095}$"),
    "device": re.compile(r"^[a-z][a-z0-9_-]{0,31}$"),
    "interface": re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$"),
    "timer": re.compile(r"^[A-Za-z0-9][A-Za-z0-9:_.@\\-]{0,254}$"),
}
