"""Package answers in words: which package provides a command (package.provides).

Each package manager's lookup is read for package names and the path that matched:
dpkg -S and apt-file ("pkg1, pkg2: /usr/bin/x"), pacman -Qo ("/usr/bin/x is owned by
pkg 1.0-1"), dnf provides ("pkg-1.0-1.fc40.x86_64 : summary"), zypper search ("| pkg |"
table rows) and apk search ("pkg-1.0-r0"). A lookup that finds nothing exits non-zero:
that is an answer too ("no installed package has it"), so the renderer is tolerant.
Not responsible for running the lookups or for installing anything.
"""

from __future__ import annotations

import re

from reos.model import StepResult
from reos.reasoning.conversation import Voice
from reos.text import clean

_NAME = re.compile(r"^[a-z0-9][a-z0-9+._-]*(?::[a-z0-9]+)?$")  # a package (with :arch)
_OWNED = re.compile(r"^(\S+) is owned by (\S+) (\S+)$")  # pacman -Qo
_DNF = re.compile(r"^([A-Za-z0-9_.+-]+?)-(?:\d+:)?[0-9][^ ]*\s+:\s")  # dnf provides
_APK = re.compile(r"^([a-z0-9_.+-]+?)-[0-9][^ ]*$")  # apk search
_ZYPPER = re.compile(r"^\s*[a-z ]?\s*\|\s*([A-Za-z0-9_.+-]+)\s*\|")  # zypper se table


def _packages(line: str) -> tuple[list[str], str] | None:
    """(package names, the path or version shown) from one line of any lookup."""
    line = line.strip()
    if found := _OWNED.match(line):
        return [found[2]], found[1]
    if ": /" in line:  # dpkg -S, apt-file (not dnf's "Filename    : /usr/bin/x")
        names, path = line.split(": ", 1)
        packages = [n.strip() for n in names.split(",") if n.strip()]
        if packages and all(_NAME.match(n) for n in packages):
            return packages, path.strip()
        return None
    if found := _DNF.match(line):
        return [found[1]], ""
    if found := _ZYPPER.match(line):
        return ([found[1]], "") if found[1] not in ("Name",) else None
    if found := _APK.match(line):
        return [found[1]], ""
    return None


def provides(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    command = next((v for k, v in params.items() if k.startswith("target:")), "that command")
    command = clean(command)
    where: dict[str, str] = {}
    for result in results:
        if not result.ok:
            continue
        for line in result.stdout.splitlines():
            found = _packages(clean(line))
            if found:
                for name in found[0]:
                    where.setdefault(name, found[1])
    if not where:
        return (f"I couldn't find a package with a {command} command among what the package "
                "manager knows here (for apt: only installed packages, unless apt-file is "
                "installed and updated).")
    names = sorted(where)
    shown = ", ".join(f"{n} ({where[n]})" if where[n] else n for n in names[:8])
    more = f" and {len(names) - 8} more" if len(names) > 8 else ""
    if len(names) == 1:
        return f"The {command} command comes from the package {shown}."
    return f"The {command} command is in these packages: {shown}{more}."


ANSWERS = {"package_provides": provides}
TOLERANT = {"package_provides"}  # "no path found" is an answer, not a failure
