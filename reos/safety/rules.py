"""Rules for judging one program's argv: rm, find, dd, chmod, systemctl, apt, docker, …

Each rule raises a `Verdict` to the level its arguments deserve, with a reason a person
can read. The paths and package names that make a command dangerous live here too.
Not responsible for parsing shell syntax (`shell`) or for walking a command line
(`risk`).
"""

from __future__ import annotations

import re

from reos.model import RiskLevel
from reos.safety.verdict import Verdict

SYSTEM_DIRS = {
    "/", "/*", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/opt",
    "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var", "~", "~/", "$HOME", "${HOME}",
    "/home/*", "/usr/*", "/etc/*", "/var/*", "/boot/*", "~/*", "$HOME/*", ".", "..", "*",
    "/usr/bin", "/usr/lib", "/usr/local", "/usr/sbin", "/var/lib", "/var/log",
}
CREDENTIAL_FILES = re.compile(r"^/etc/(?:sudoers(?:\.d(?:/.*)?)?|passwd-?|shadow-?|gshadow-?|"
                              r"group-?)$")
BLOCK_DEVICE = re.compile(r"^/dev/(?:sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|"
                          r"nvme\d+n\d+(?:p\d+)?|mmcblk\d+(?:p\d+)?|dm-\d+|mapper/.+|md\d+|"
                          r"loop\d+|disk/.+)$")
READ_ONLY = {
    "ls", "cat", "grep", "egrep", "fgrep", "rg", "head", "tail", "less", "more", "echo",
    "printf", "true", "false", "pwd", "whoami", "id", "uname", "uptime", "free", "df", "du",
    "ps", "top", "who", "w", "hostname", "date", "journalctl", "wc", "sort", "uniq", "stat",
    "file", "which", "type", "ss", "netstat", "lsblk", "findmnt", "printenv", "dpkg-query",
    "test", "[", "[[", "diff", "cmp", "md5sum", "sha256sum", "basename", "dirname",
    "realpath", "readlink", "env", "lscpu", "lsusb", "lspci", "dmesg", "last", "history",
    "awk", "sed", "cut", "tr", "column", "jq", "yq", "tee", "xxd", "od", "strings", "nproc",
    "systemd-analyze", "sleep", "seq", "yes", "git", "man", "apropos", "whatis", "locate",
    "pgrep", "pidof", "lsof", "vmstat", "iostat", "mpstat", "sar", "nslookup", "dig", "host",
    "ping", "traceroute", "tracepath", "getent", "groups", "locale", "timedatectl",
    "hostnamectl", "loginctl", "ip", "cd", "export", "set", "unset", "alias", "source", ".",
    "apt-cache", "dpkg-deb", "rpm-query", "pacman-query", "tar-list", "zcat", "gzip-l",
}
DISK_TOOLS = {"fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "wipefs", "mkswap",
              "blkdiscard", "cryptsetup", "pvcreate", "vgremove", "lvremove", "zpool", "mdadm"}
INTERPRETERS = {"python": "-c", "python3": "-c", "python2": "-c", "perl": "-e", "ruby": "-e",
                "node": "-e", "nodejs": "-e", "php": "-r", "lua": "-e"}
FIREWALLS = ("ufw", "firewalld", "nftables", "iptables", "netfilter-persistent")
CORE_PACKAGES = ("openssh-server", "systemd", "libc6", "glibc", "sudo", "grub", "grub2",
                 "grub-pc", "grub-efi", "dpkg", "apt", "rpm", "pacman", "bash", "coreutils",
                 "linux", "linux-lts", "kernel", "kernel-core", "kernel-default")
PACKAGE_TOOLS = {"apt", "apt-get", "aptitude", "dnf", "yum", "pacman", "zypper", "apk", "dpkg",
                 "rpm", "snap", "flatpak"}

def _flags(argv: list[str]) -> set[str]:
    out: set[str] = set()
    for arg in argv[1:]:
        if arg.startswith("--"):
            out.add(arg.split("=", 1)[0])
        elif arg.startswith("-") and len(arg) > 1:
            out.update(f"-{c}" for c in arg[1:])
    return out


def _operands(argv: list[str]) -> list[str]:
    return [a for a in argv[1:] if not a.startswith("-")]


def _clean(path: str) -> str:
    path = path.strip().strip("'\"")
    if path in ("/", "//"):
        return "/"
    return path.rstrip("/") if len(path) > 1 else path


def is_system_path(path: str) -> bool:
    clean = _clean(path)
    if clean in SYSTEM_DIRS:
        return True
    return bool(re.fullmatch(r"/home/[^/]+/?\*?|/\*|/+|/\.+/?", clean))


def _is_tmp(path: str) -> bool:
    clean = _clean(path)
    return clean.startswith(("/tmp/", "/var/tmp/")) and ".." not in clean


def _piped_paths(source: str, words: list[str]) -> list[str]:
    """What `source … | xargs rm` would delete, as well as it can be told."""
    paths = [w for w in words if w.startswith(("/", "~", "$HOME", ".")) or w == "*"]
    if source == "find" and any(w.startswith("-") for w in words):
        return [p.rstrip("/") + "/<matches>" for p in paths] or ["<paths from a pipe>"]
    return paths or ["<paths from a pipe>"]  # echo / ls / find without filters: the paths


def _rm(argv: list[str], verdict: Verdict, upstream: list[str] | None = None,
        source: str = "") -> None:
    flags, operands = _flags(argv), _operands(argv)
    if upstream is not None:  # `… | xargs rm`: the paths come from the pipe
        operands = operands + _piped_paths(source, upstream)
    recursive = flags & {"-r", "-R", "--recursive"}
    system = [o for o in operands if is_system_path(o) or o.rstrip("/") in ("/etc", "/boot")]
    if system and (recursive or _clean(system[0]) in ("/", "/*")):
        verdict.raise_to(RiskLevel.CRITICAL, f"recursive deletion of {system[0]}", block=True,
                         reversible=False, root=True)
    elif operands and all(_is_tmp(o) for o in operands):
        verdict.raise_to(RiskLevel.LOW, "deletes files under /tmp", reversible=False)
    elif any(o.startswith(("/etc/", "/boot/", "/usr/", "/var/lib/")) for o in operands):
        verdict.raise_to(RiskLevel.HIGH, "deletes system files", reversible=False, root=True)
    else:
        verdict.raise_to(RiskLevel.HIGH, "deletes files outside /tmp", reversible=False)


def _find(argv: list[str], verdict: Verdict) -> None:
    roots = []
    for arg in argv[1:]:
        if arg.startswith(("-", "(", "!")):
            break
        roots.append(arg)
    deletes = "-delete" in argv or any(
        argv[i] in ("-exec", "-execdir", "-ok") and i + 1 < len(argv)
        and argv[i + 1].rsplit("/", 1)[-1] in ("rm", "shred", "unlink") for i in range(len(argv)))
    if not deletes:
        return
    if not roots or any(is_system_path(r) for r in roots):
        where = roots[0] if roots else "."
        verdict.raise_to(RiskLevel.CRITICAL, f"find deletes files under {where}", block=True,
                         reversible=False, root=True)
    elif all(_is_tmp(r + "/") for r in roots):
        verdict.raise_to(RiskLevel.LOW, "deletes files under /tmp", reversible=False)
    else:
        verdict.raise_to(RiskLevel.HIGH, "find deletes files", reversible=False)


def _dd(argv: list[str], verdict: Verdict) -> None:
    target = next((a[3:] for a in argv if a.startswith("of=")), "")
    if BLOCK_DEVICE.match(target) or target.startswith("/dev/"):
        verdict.raise_to(RiskLevel.CRITICAL, f"writes raw data onto {target}", block=True,
                         reversible=False, root=True)
    elif target.startswith(("/etc/", "/boot/")):
        verdict.raise_to(RiskLevel.HIGH, f"overwrites {target}", reversible=False, root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "copies raw data")


def _shred(argv: list[str], verdict: Verdict) -> None:
    operands = _operands(argv)
    if any(BLOCK_DEVICE.match(o) or is_system_path(o) for o in operands):
        verdict.raise_to(RiskLevel.CRITICAL, "shreds a disk or system directory", block=True,
                         reversible=False, root=True)
    else:
        verdict.raise_to(RiskLevel.HIGH, "destroys file contents beyond recovery",
                         reversible=False)


def _chmod_chown(argv: list[str], verdict: Verdict) -> None:
    program, flags, operands = argv[0], _flags(argv), _operands(argv)
    recursive = flags & {"-R", "--recursive"}
    paths = operands[1:] if operands else []
    mode = operands[0] if operands else ""
    system = [p for p in paths if is_system_path(p)]
    if recursive and system:
        verdict.raise_to(RiskLevel.CRITICAL, f"recursive {program} of {system[0]}", block=True,
                         root=True)
    elif recursive and program == "chmod" and mode in ("777", "a+rwx", "ugo+rwx", "0777"):
        verdict.raise_to(RiskLevel.CRITICAL, "makes a whole tree world-writable (777)",
                         block=True)
    elif any(CREDENTIAL_FILES.match(_clean(p)) for p in paths):
        verdict.raise_to(RiskLevel.CRITICAL, "changes permissions of credential files",
                         block=True, root=True)
    elif system or any(p.startswith(("/etc", "/usr", "/boot")) for p in paths):
        verdict.raise_to(RiskLevel.HIGH, f"{program} on system files", root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM if recursive else RiskLevel.LOW,
                         f"{'recursive ' if recursive else ''}{program}")


def _mv_cp(argv: list[str], verdict: Verdict) -> None:
    program, operands = argv[0], _operands(argv)
    sources, dest = operands[:-1], (operands[-1] if operands else "")
    if program == "mv" and any(is_system_path(s) or _clean(s) in ("/etc", "/boot", "/usr")
                               for s in sources):
        verdict.raise_to(RiskLevel.CRITICAL, f"moves the system directory {sources[0]}",
                         block=True, reversible=False, root=True)
    elif CREDENTIAL_FILES.match(_clean(dest)):
        verdict.raise_to(RiskLevel.CRITICAL, f"overwrites {dest} (credentials)", block=True,
                         root=True)
    elif BLOCK_DEVICE.match(_clean(dest)):
        verdict.raise_to(RiskLevel.CRITICAL, f"writes onto the disk {dest}", block=True,
                         reversible=False, root=True)
    elif dest.startswith(("/etc/", "/boot/", "/usr/")) or _clean(dest) in ("/etc", "/usr"):
        verdict.raise_to(RiskLevel.HIGH, f"{program} into system files ({dest})", root=True)
    else:
        verdict.raise_to(RiskLevel.LOW, f"{'moves' if program == 'mv' else 'copies'} files")


def _create(argv: list[str], verdict: Verdict) -> None:
    operands = _operands(argv)
    if argv[0] == "ln" and any(CREDENTIAL_FILES.match(_clean(o)) for o in operands[-1:]):
        verdict.raise_to(RiskLevel.CRITICAL, "replaces credential files", block=True, root=True)
    elif any(o.startswith(("/etc/", "/usr/", "/boot/")) for o in operands):
        verdict.raise_to(RiskLevel.MEDIUM, f"{argv[0]} in system directories", root=True)
    else:
        verdict.raise_to(RiskLevel.LOW, f"{argv[0]} creates files")


def _truncate(argv: list[str], verdict: Verdict) -> None:
    operands = _operands(argv)
    if any(CREDENTIAL_FILES.match(_clean(o)) for o in operands):
        verdict.raise_to(RiskLevel.CRITICAL, "empties credential files", block=True, root=True)
    else:
        verdict.raise_to(RiskLevel.HIGH, "empties files", reversible=False)


def _kill(argv: list[str], verdict: Verdict) -> None:
    operands = [o for o in _operands(argv) if not o.isalpha() or argv[0] != "kill"]
    if argv[0] == "kill" and ("1" in operands or "-1" in argv[1:] and len(argv) == 2):
        verdict.raise_to(RiskLevel.CRITICAL, "kills PID 1 (init)", block=True, root=True)
    elif argv[0] in ("pkill", "killall") and any(o in ("init", "systemd") for o in operands):
        verdict.raise_to(RiskLevel.CRITICAL, "kills init", block=True, root=True)
    else:
        verdict.raise_to(RiskLevel.HIGH, "kills processes", reversible=False)


def _power(argv: list[str], verdict: Verdict) -> None:
    if argv[0] in ("init", "telinit") and not set(_operands(argv)) & {"0", "6"}:
        verdict.raise_to(RiskLevel.MEDIUM, "changes the runlevel", root=True)
        return
    if argv[0] == "shutdown" and "-c" in argv:
        verdict.raise_to(RiskLevel.LOW, "cancels a shutdown", root=True)
        return
    verdict.raise_to(RiskLevel.HIGH, "shuts down or restarts the machine", reversible=False,
                     root=True)


def _systemctl(argv: list[str], verdict: Verdict) -> None:
    operands = [o for o in _operands(argv)]
    verb = operands[0] if operands else ""
    units = operands[1:]
    if verb in ("status", "show", "is-active", "is-enabled", "is-failed", "list-units",
                "list-unit-files", "cat", "list-timers", "list-dependencies", "--failed", ""):
        return
    if verb in ("poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "rescue",
                "emergency"):
        verdict.raise_to(RiskLevel.HIGH, "shuts down or restarts the machine",
                         reversible=False, root=True)
        return
    stopping = verb in ("stop", "disable", "mask", "kill")
    names = [u.split(".")[0] for u in units]
    if stopping and any(n in ("ssh", "sshd") for n in names):
        verdict.raise_to(RiskLevel.HIGH, "stops remote (SSH) logins; you may lose access",
                         root=True)
    elif stopping and any(n in FIREWALLS for n in names):
        verdict.raise_to(RiskLevel.HIGH, "turns off the firewall", root=True)
    elif stopping and any(n in ("systemd-journald", "dbus", "systemd-logind") for n in names):
        verdict.raise_to(RiskLevel.HIGH, "stops a core system service", root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"changes a service ({verb})", root=True)


def _packages(argv: list[str], verdict: Verdict) -> None:
    operands = _operands(argv)
    flags = _flags(argv)
    verbs = {"install", "remove", "purge", "upgrade", "update", "add", "del", "autoremove",
             "erase", "dist-upgrade", "full-upgrade", "reinstall", "makecache", "refresh"}
    if argv[0] in ("dpkg-query",) or (operands[:1] and operands[0] in ("list", "search",
                                                                        "show", "info",
                                                                        "policy")):
        return
    verdict.raise_to(RiskLevel.MEDIUM, "changes installed packages", root=True)
    purging = "purge" in operands or "--purge" in flags or (
        argv[0] == "pacman" and any(a.startswith("-R") and "n" in a for a in argv[1:]))
    if purging:
        verdict.raise_to(RiskLevel.HIGH, "purges packages and their configuration",
                         reversible=False)
    removing = purging or bool(set(operands) & {"remove", "del", "erase", "autoremove"}) or (
        argv[0] == "pacman" and any(a.startswith("-R") for a in argv[1:])) or (
        argv[0] in ("dpkg", "rpm") and flags & {"-r", "-P", "-e"})
    names = [o.split("=")[0] for o in operands if o not in verbs and "=" not in o.split("/")[0]]
    core = [n for n in names if n.startswith(CORE_PACKAGES) or n.startswith("linux-image")]
    if core:
        verdict.raise_to(RiskLevel.HIGH, ("removes" if removing else "changes")
                         + f" a core package, {core[0]}",
                         reversible=False if removing else None)


def _docker(argv: list[str], verdict: Verdict) -> None:
    operands = _operands(argv)
    verb = operands[0] if operands else ""
    if verb in ("ps", "inspect", "logs", "images", "version", "info", "stats", "top", "events",
                "history", "port", "diff", "search"):
        return
    if verb in ("rm", "rmi", "prune") or operands[:2] in (
            ["volume", "rm"], ["system", "prune"], ["volume", "prune"], ["image", "prune"],
            ["container", "rm"], ["container", "prune"], ["network", "rm"], ["image", "rm"]):
        verdict.raise_to(RiskLevel.HIGH, "deletes containers, images or volumes",
                         reversible=False)
    elif verb == "run" and any(a in ("--privileged", "-v", "--volume") for a in argv) and any(
            a.startswith("/:") for a in argv):
        verdict.raise_to(RiskLevel.HIGH, "runs a container with the host's root filesystem")
    elif verb == "start":
        verdict.raise_to(RiskLevel.LOW, "starts containers")
    elif verb in ("stop", "restart", "kill", "pause", "unpause"):
        verdict.raise_to(RiskLevel.MEDIUM, f"{verb}s containers")
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"docker {verb} changes the docker engine")


def _users(argv: list[str], verdict: Verdict) -> None:
    program = argv[0]
    if program == "passwd" and ("-d" in argv or "--delete" in argv):
        verdict.raise_to(RiskLevel.CRITICAL, "removes a password", block=True, root=True)
    elif program in ("userdel", "deluser", "groupdel", "delgroup"):
        verdict.raise_to(RiskLevel.HIGH, "deletes a user or group", reversible=False, root=True)
    elif program == "usermod" and any(a in ("-p", "--password") for a in argv):
        verdict.raise_to(RiskLevel.CRITICAL, "sets a password hash directly", block=True,
                         root=True)
    elif program in ("chpasswd", "passwd", "usermod", "useradd", "adduser", "visudo"):
        verdict.raise_to(RiskLevel.HIGH, f"{program} changes accounts or credentials",
                         root=True)


def _crontab(argv: list[str], verdict: Verdict) -> None:
    if "-r" in argv:
        verdict.raise_to(RiskLevel.HIGH, "deletes the whole crontab", reversible=False)
    elif "-l" not in argv:
        verdict.raise_to(RiskLevel.MEDIUM, "changes scheduled jobs")


def _firewall(argv: list[str], verdict: Verdict) -> None:
    program, operands, flags = argv[0], _operands(argv), _flags(argv)
    if program == "ufw" and operands[:1] in (["disable"], ["reset"]):
        verdict.raise_to(RiskLevel.HIGH, "turns off the firewall", root=True)
    elif program in ("iptables", "ip6tables") and (flags & {"-F", "--flush", "-X"} or (
            "-P" in argv and "ACCEPT" in argv)):
        verdict.raise_to(RiskLevel.HIGH, "removes firewall rules", root=True)
    elif program == "nft" and operands[:1] in (["flush"], ["delete"]):
        verdict.raise_to(RiskLevel.HIGH, "removes firewall rules", root=True)
    elif program == "firewall-cmd" and any("panic" in a or "remove" in a for a in argv):
        verdict.raise_to(RiskLevel.HIGH, "changes the firewall", root=True)
    elif operands[:1] in (["status"], ["list"], ["-L"]) or flags & {"-L", "--list"}:
        return
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "changes the firewall", root=True)


def _judge_editor(argv: list[str], verdict: Verdict) -> None:
    program = argv[0]
    if program == "git":
        if _operands(argv)[:1] in (["clean"], ["reset"]) and ("--hard" in argv or "-f" in
                                                              " ".join(argv)):
            verdict.raise_to(RiskLevel.MEDIUM, "discards uncommitted work", reversible=False)
        return
    files = [a for a in _operands(argv)[1 if program in ("sed", "awk") else 0:]]
    in_place = program == "tee" or (program == "sed" and any(a.startswith(("-i", "--in-place"))
                                                             for a in argv))
    if not in_place:
        return
    if any(CREDENTIAL_FILES.match(_clean(f)) for f in files):
        verdict.raise_to(RiskLevel.CRITICAL, "edits credential files", block=True, root=True)
    elif any(f.startswith("/etc/ssh/sshd_config") for f in files):
        verdict.raise_to(RiskLevel.HIGH, "edits the SSH server configuration", root=True)
    elif any(f.startswith(("/etc/", "/boot/", "/usr/")) for f in files):
        verdict.raise_to(RiskLevel.HIGH, "edits system files", root=True)
    elif files:
        verdict.raise_to(RiskLevel.LOW, "edits files")


HANDLERS = {
    "rm": _rm, "rmdir": _rm, "unlink": _rm, "find": _find, "dd": _dd, "shred": _shred,
    "chmod": _chmod_chown, "chown": _chmod_chown, "chgrp": _chmod_chown, "mv": _mv_cp,
    "cp": _mv_cp, "install": _mv_cp, "truncate": _truncate, "kill": _kill, "pkill": _kill,
    "killall": _kill, "shutdown": _power, "reboot": _power, "poweroff": _power, "halt": _power,
    "init": _power, "telinit": _power, "systemctl": _systemctl, "docker": _docker,
    "podman": _docker, "passwd": _users, "userdel": _users, "deluser": _users,
    "groupdel": _users, "delgroup": _users, "usermod": _users, "chpasswd": _users,
    "useradd": _users, "adduser": _users, "visudo": _users, "crontab": _crontab,
    "ufw": _firewall, "iptables": _firewall, "ip6tables": _firewall, "nft": _firewall,
    "firewall-cmd": _firewall, "mkdir": _create, "touch": _create, "ln": _create,
    **{tool: _packages for tool in PACKAGE_TOOLS},
}


