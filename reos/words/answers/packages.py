"""Package answers in words: which package provides a command (package.provides), which
package an installed file belongs to (package.owner), which
packages have an update waiting (package.upgradable), the files a package installed
(package.files), the packages held at their version (package.held) and the installed
kernels (system.kernels).

Each package manager's lookup is read for package names and the path that matched:
dpkg -S and apt-file ("pkg1, pkg2: /usr/bin/x"), pacman -Qo ("/usr/bin/x is owned by
pkg 1.0-1"), dnf provides ("pkg-1.0-1.fc40.x86_64 : summary"), zypper search ("| pkg |"
table rows) and apk search ("pkg-1.0-r0"). A lookup that finds nothing exits non-zero:
that is an answer too ("no installed package has it"), so the renderer is tolerant. The
lists of updates are read the same way, whichever manager wrote them (`apt list
--upgradable`, `dnf check-update`, which exits 100 when it lists some, `pacman -Qu`,
which exits 1 when it lists none, `zypper list-updates`, `apk version -l <`).
Not responsible for running the lookups or for installing anything.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice, count, target_named
from reos.words.conversation import each_target as _each

Summariser = Callable[[list[StepResult], dict[str, str], Voice], str]
_NAME = regex(r"^[a-z0-9][a-z0-9+._-]*(?::[a-z0-9]+)?$")  # a package (with :arch)
_OWNED = regex(r"^(\S+) is owned by (\S+) (\S+)$")  # pacman -Qo
_DNF = regex(r"^([A-Za-z0-9_.+-]+?)-(?:\d+:)?[0-9][^ ]*\s+:\s")  # dnf provides
_APK = regex(r"^([a-z0-9_.+-]+?)-[0-9][^ ]*$")  # apk search
_ZYPPER = regex(r"^\s*[a-z ]?\s*\|\s*([A-Za-z0-9_.+-]+)\s*\|")  # zypper se table



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


def _looked_up(results: list[StepResult], bare: bool = False) -> Iterator[tuple[list[str], str]]:
    """(package names, what matched) of each line the lookups that ran printed; with
    `bare`, a line that is only a package name too (rpm -qf --queryformat '%{NAME}\\n')."""
    for result in results:
        if not result.ok:
            continue
        for line in result.stdout.splitlines():
            found = _packages(clean(line))
            if found:
                yield found
            elif bare and _NAME.match(line.strip()):
                yield [line.strip()], ""


def provides(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    command = target_named(params, "that command")
    where: dict[str, str] = {}
    for names, matched in _looked_up(results):
        for name in names:
            where.setdefault(name, matched)
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


def owner(results: list[StepResult], params: dict[str, str], _voice: Voice) -> str:
    """The package an installed file belongs to (dpkg -S, rpm -qf, pacman -Qo PATH)."""
    path = clean(params.get("path", "") or "that file")
    names = list(dict.fromkeys(n for found, _ in _looked_up(results, bare=True) for n in found))
    if not names:
        return (f"No installed package owns {path}: it was put there by hand, by a "
                "program at run time, or it does not exist.")
    if len(names) == 1:
        return f"{path} belongs to the package {names[0]}."
    return f"{path} belongs to these packages: {', '.join(names[:8])}."


def _failure(result: StepResult) -> str:
    lines = [line for line in clean(result.stderr or result.stdout).splitlines() if line.strip()]
    return lines[-1].strip()[:200] if lines else f"exit code {result.exit_code}"


_APT_UPGRADABLE = regex(
    r"^([a-z0-9][a-z0-9+._-]*)/\S+\s+(\S+)\s+\S+\s+\[upgradable from: ([^\]]+)\]")
_PACMAN_UPGRADE = regex(r"^([a-z0-9@._+-]+)\s+(\S+)\s+->\s+(\S+)")
_APK_UPGRADE = regex(r"^([a-z0-9_.+-]+?)-(\d\S*)\s+<\s+(\S+)")
_DNF_UPGRADE = regex(r"^([A-Za-z0-9_.+-]+)\.([a-z0-9_]+)\s+(\S+)\s+(\S+)\s*$")


def upgradable_rows(text: str) -> list[tuple[str, str, str]]:
    """(package, installed version or "", new version) from any manager's list of updates."""
    rows: list[tuple[str, str, str]] = []
    obsoleting = False
    for raw in text.splitlines():
        line = clean(raw).strip()
        if not line:
            continue
        if line.lower().startswith("obsoleting packages"):
            obsoleting = True  # dnf: what the updates replace, listed again below
        if obsoleting:
            continue
        if found := _APT_UPGRADABLE.match(line):
            rows.append((found[1], found[3], found[2]))
        elif found := _PACMAN_UPGRADE.match(line):
            rows.append((found[1], found[2], found[3]))
        elif "|" in line:  # zypper: S | Repository | Name | Current | Available | Arch
            cells = [c.strip() for c in line.split("|")]
            if len(cells) >= 6 and cells[0] in ("v", "i", "") and _NAME.match(cells[2]) and (
                    cells[2] != "Name"):
                rows.append((cells[2], cells[3], cells[4]))
        elif found := _APK_UPGRADE.match(line):
            rows.append((found[1], found[2], found[3]))
        elif (found := _DNF_UPGRADE.match(line)) and not line.startswith(("Last metadata",
                                                                          "Listing")):
            rows.append((found[1], "", found[3]))
    return list(dict.fromkeys(rows))


def upgradable(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    if not results:
        return "I couldn't list the updates."
    result = results[0]
    rows = upgradable_rows(result.stdout)
    if not rows:
        # apt and zypper: 0; dnf: 0 (none) or 100 (some); pacman: 1 when it lists none
        quiet_none = result.exit_code == 1 and not result.stderr.strip()
        if not result.ok and not quiet_none:
            return f"I couldn't list the updates ({_failure(result)})."
        return ("Every installed package is at the newest version the package lists on this "
                "machine know of. Say \u201crefresh the package lists\u201d to fetch newer lists "
                "first.")
    rows.sort()
    shown = rows[: 8 if voice.brief else 40]
    lines = [f"  {name}: {old} \u2192 {new}" if old else f"  {name}: {new}"
             for name, old, new in shown]
    more = f"\n  \u2026 and {len(rows) - len(shown)} more" if len(rows) > len(shown) else ""
    said = (f"{len(rows)} installed package{'s have' if len(rows) != 1 else ' has'} an update "
            "waiting:\n" + "\n".join(lines) + more)
    if not voice.brief:
        said += ("\nThis is what the package lists on this machine know of (say "
                 "\u201crefresh the package lists\u201d for newer ones, \u201cupgrade "
                 "everything\u201d to install them).")
    return said




def _file_list(text: str) -> list[str]:
    """Paths from `dpkg -L`, `rpm -ql`, `pacman -Ql` ("pkg /path") or `apk info -L`
    ("pkg-1.0 contains:" then paths without the leading /)."""
    paths = []
    for raw in text.splitlines():
        line = clean(raw).strip()
        if not line or line.endswith(" contains:") or line == "/.":
            continue
        if " /" in line and not line.startswith("/"):
            line = line.split(" ", 1)[1]  # pacman: "name /path"
        if not line.startswith("/"):
            line = "/" + line  # apk lists paths from /
        paths.append(line.rstrip("/") or "/")
    return list(dict.fromkeys(paths))


def files(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    name = target_named(params, "that package")
    if not results:
        return f"I couldn't list the files of {name}."
    result = results[0]
    listed = _file_list(result.stdout)
    if not listed:
        text = (result.stderr + result.stdout).lower()
        if "not installed" in text or "was not found" in text or "not found" in text:
            return f"{name} is not installed, so it has no files here."
        return f"I couldn't list the files of {name} ({_failure(result)})."
    # a listed path with others below it is a directory the package created or shares
    folders = {p.rsplit("/", 1)[0] for p in listed}
    plain = [p for p in listed if p not in folders]
    commands = [p for p in plain if "/bin/" in p or "/sbin/" in p]
    config = [p for p in plain if p.startswith("/etc/")]
    units = [p for p in plain if "/systemd/system/" in p and p.endswith((".service", ".timer",
                                                                         ".socket"))]
    docs = [p for p in plain if p.startswith(("/usr/share/doc/", "/usr/share/man/",
                                              "/usr/share/info/"))]
    said = [f"{name} put {count(len(plain), 'file')} on the disk"
            + (f" ({len(docs)} of them documentation)" if docs else "") + "."]
    cap = 5 if voice.brief else 15
    for label, group in (("Commands", commands), ("Configuration", config),
                         ("systemd units", units)):
        if group:
            more = f" and {len(group) - cap} more" if len(group) > cap else ""
            said.append(f"{label}: {', '.join(group[:cap])}{more}.")
    if voice.detailed:
        said.append("Every file:\n" + "\n".join(f"  {p}" for p in plain[:400]))
    elif not (commands or config or units):
        said.append("Some of them: " + ", ".join(plain[:cap]) + ".")
    return "\n".join(said)


def held(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    if not results:
        return "I couldn't list the held packages."
    result = results[0]
    if not result.ok:
        return f"I couldn't list the held packages ({_failure(result)})."
    names = []
    for raw in result.stdout.splitlines():
        line = clean(raw).strip()
        if "|" in line:  # zypper locks: # | Name | Type | Repository
            cells = [c.strip() for c in line.split("|")]
            if len(cells) >= 2 and cells[0].isdigit() and cells[1]:
                names.append(cells[1])
        elif _NAME.match(line):
            names.append(line)
    if not names:
        return ("No package is held: every installed package is upgraded with the rest "
                "(say \u201chold NAME\u201d to keep one at its version).")
    shown = names[: 10 if voice.brief else 60]
    more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
    return (f"{count(len(names), 'package')} {'is' if len(names) == 1 else 'are'} held at "
            f"{'its' if len(names) == 1 else 'their'} version (upgrades leave "
            f"{'it' if len(names) == 1 else 'them'} alone): {', '.join(shown)}{more}.")


def _version_key(text: str) -> list[tuple[int, str]]:
    return [(int(part), "") if part.isdigit() else (-1, part)
            for part in re.split(r"(\d+)", text) if part]


def kernels(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """dpkg-query or rpm -q rows ("ii\tNAME\tVERSION"), then `uname -r`."""
    if not results:
        return "I couldn't list the installed kernels."
    running = clean(results[1].stdout).strip() if len(results) > 1 and results[1].ok else ""
    found = []
    for raw in results[0].stdout.splitlines():
        parts = clean(raw).split("\t")
        if len(parts) == 3 and parts[0].strip()[1:2] == "i" and parts[1].strip():
            found.append((parts[1].strip(), parts[2].strip()))
    # Debian's meta-package (linux-image-amd64) names no kernel of its own
    kernels_ = [(n, v) for n, v in found if not n.startswith("linux-image-")
                or re.search(r"\d+\.\d+", n)]
    if not kernels_:
        if not results[0].ok and results[0].stderr.strip() and "no packages found" not in (
                results[0].stderr.lower()) and "not installed" not in results[0].stderr:
            return f"I couldn't list the installed kernels ({_failure(results[0])})."
        return "I found no kernel package installed" + (
            f"; the running kernel is {running}." if running else ".")

    def release(entry: tuple[str, str]) -> str:
        name, version = entry
        if name.startswith("linux-image-"):
            return name.removeprefix("linux-image-")
        return version

    kernels_.sort(key=lambda e: _version_key(release(e)))
    newest = release(kernels_[-1])
    lines = []
    for entry in kernels_[-(4 if voice.brief else 20):]:
        rel = release(entry)
        mark = " (running)" if running and (rel == running or running.startswith(rel)) else ""
        lines.append(f"  {entry[0]} {entry[1]}{mark}")
    said = (f"{count(len(kernels_), 'kernel')} installed:\n" + "\n".join(lines))
    if running:
        if newest == running or running.startswith(newest):
            said += f"\nThe running kernel ({running}) is the newest installed."
        else:
            said += (f"\nThe running kernel is {running}; a newer one is installed ({newest}): "
                     "it is used after a reboot.")
    return said


ANSWERS = {"package_provides": provides, "package_owner": owner,
           "package_upgradable": upgradable,
           "package_files": _each(files), "package_held": held, "kernels": kernels}
# "no path found" is an answer, not a failure; dnf check-update exits 100 with updates and
# pacman -Qu 1 without; dpkg -L of a missing package and rpm -q of a kernel flavour this
# machine does not have exit 1
TOLERANT = {"package_provides", "package_owner", "package_upgradable", "package_files",
            "kernels"}
