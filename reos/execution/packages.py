"""What a package step really changes: the blast radius before, the new packages after.

`blast_radius` asks the package manager to simulate an install or removal (read-only,
no root needed) so the plan can say "this also installs …" before approval.
`installed_names` is read before and after an install step so the journal records
exactly which packages were newly installed, dependencies included; undo removes those
and nothing else. apt is simulated precisely; other managers report no preview yet.
"""

from __future__ import annotations

import re
import subprocess

_APT_LINE = re.compile(r"^(Inst|Remv|Purg) (\S+)")


def installed_names() -> set[str] | None:
    from reos.system.collectors import Unavailable, packages

    try:
        return {p.name for p in packages()}
    except Unavailable:
        return None


def blast_radius(manager: str | None, action: str, name: str) -> list[str] | None:
    """Other packages an install/remove/purge of `name` would touch, or None if unknown."""
    if manager != "apt" or action not in ("install", "remove", "purge"):
        return None
    verb = {"install": "install", "remove": "remove", "purge": "purge"}[action]
    try:
        done = subprocess.run(["apt-get", "-s", "-q", verb, name], capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL,
                              env={"LC_ALL": "C.UTF-8", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    touched = [m.group(2) for m in map(_APT_LINE.match, done.stdout.splitlines()) if m]
    return [p for p in touched if p != name]
