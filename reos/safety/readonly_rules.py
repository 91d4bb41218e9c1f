"""Argument rules of the read-only list: with which arguments a listed program only reads.

`RULES[program](args)` is True when those arguments only read (`dd` only into /dev/null,
`wipefs` without `-a`, `fdisk -l`, `systemctl status/show/…`, `docker ps/inspect/logs…`,
`sort` without `-o`, `date` without `-s`, …). Not responsible for the list itself
(`readonly`) or for how dangerous a non-read-only command is (`rules`).
"""

from __future__ import annotations

from collections.abc import Callable

_STATE_VERBS = {"status", "show", "is-active", "is-enabled", "is-failed", "is-system-running",
                "list-units", "list-unit-files", "list-timers", "list-sockets",
                "list-dependencies", "list-jobs", "list-machines", "cat", "get-default",
                "show-environment", "help", "--version", "--failed", ""}
_DOCKER_READ = {"ps", "inspect", "logs", "images", "version", "info", "stats", "top",
                "events", "history", "port", "diff", "search", "ls", "df", "--version",
                "list", "view", "status"}


def _operands(args: list[str]) -> list[str]:
    return [a for a in args if not a.startswith("-")]


def _flags(args: list[str]) -> set[str]:
    out: set[str] = set()
    for arg in args:
        if arg.startswith("--"):
            out.add(arg.split("=", 1)[0])
        elif arg.startswith("-") and len(arg) > 1:
            out.update(f"-{c}" for c in arg[1:])
    return out


def _none_of(*bad: str) -> Callable[[list[str]], bool]:
    def rule(args: list[str]) -> bool:
        flags = _flags(args)
        return not any(b in flags or any(a.startswith(b + "=") for a in args) for b in bad)
    return rule


def _systemctl(args: list[str]) -> bool:
    ops = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-p", "--property", "-t", "--type", "--state", "-n", "--lines", "-o",
                 "--output", "-H", "--host", "-M", "--machine"):
            skip = True
            continue
        if not a.startswith("-"):
            ops.append(a)
    return (ops[0] if ops else "") in _STATE_VERBS


def _docker(args: list[str]) -> bool:
    ops = _operands(args)
    if not ops:
        return True
    if ops[0] in _DOCKER_READ:
        return True
    return len(ops) > 1 and ops[0] in ("container", "image", "volume", "network", "system",
                                       "compose", "node", "service", "context") and (
        ops[1] in _DOCKER_READ)


def _ip(args: list[str]) -> bool:
    ops = _operands(args)
    writes = {"add", "del", "delete", "set", "change", "replace", "flush", "append", "exec",
              "attach", "detach", "save", "restore", "prepend", "e", "a", "d"}
    # ops[0] is the object (link, addr, route, a, r, …); verbs come after it
    return not (set(ops[1:]) & writes) and not (ops[:2] == ["netns", "exec"])


def _dd(args: list[str]) -> bool:
    targets = [a[3:] for a in args if a.startswith("of=")]
    return bool(targets) and all(t == "/dev/null" for t in targets)


def _kill(args: list[str]) -> bool:
    return bool(args) and args[0] in ("-0", "-s0", "-l", "-L") or args[:2] == ["-s", "0"]


def _fdisk(args: list[str]) -> bool:
    return bool(_flags(args) & {"-l", "--list", "-s", "--getsz", "-V", "--verify",
                                "--help", "--version", "-d", "--dump", "-J", "--json",
                                "--show-size", "-g", "--show-geometry", "--list-free",
                                "-F", "--list-types", "-T"})


def _fdisk_only(args: list[str]) -> bool:
    """fdisk's `-x` lists details; sfdisk's `-x` only changes what a write shows."""
    return _fdisk(args) or bool(_flags(args) & {"-x", "--list-details"})


_PARTED_VALUE = {"-a", "--align"}
_PRINT_WHAT = {"free", "all", "list", "devices"}


def _parted(args: list[str]) -> bool:
    """`parted [options] [DEVICE [COMMAND …]…]`: read-only when every command only
    prints (`print [free|all|list|devices]`, `unit U`, `help`, `version`)."""
    words: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _PARTED_VALUE:
            skip = True
        elif arg in ("--list", "--version", "--help") or (
                arg[:1] == "-" and arg[1:2] != "-" and len(arg) > 1
                and set(arg[1:]) <= set("lsmjvh") and set(arg[1:]) & set("lvh")):
            return True  # -l, -lm, -v, -h: list, version, help
        elif arg.startswith("-") and arg not in ("-s", "--script", "-m", "--machine",
                                                 "-j", "--json") and \
                not arg.startswith("--align="):
            return False  # --fix and the like answer prompts with changes
        elif not arg.startswith("-"):
            words.append(arg)
    commands = words[1:]
    if not commands:
        return False  # `parted /dev/sda`: an interactive session that can change the disk
    i = 0
    while i < len(commands):
        word = commands[i]
        if word in ("print", "p"):
            i += 2 if i + 1 < len(commands) and commands[i + 1] in _PRINT_WHAT else 1
        elif word == "unit" and i + 1 < len(commands):
            i += 2
        elif word in ("help", "version"):
            i = len(commands)
        else:
            return False
    return True


def _sort(args: list[str]) -> bool:
    return not any(a in ("-o",) or a.startswith(("--output", "-o")) for a in args)


def _two_operand_writers(args: list[str]) -> bool:  # uniq IN OUT, xxd IN OUT
    return len(_operands(args)) <= 1 and "-r" not in args


def _date(args: list[str]) -> bool:
    return not any(a in ("-s", "--set") or a.startswith(("--set=", "-s")) for a in args) \
        and not any(a[:1].isdigit() for a in _operands(args))


def _hostname(args: list[str]) -> bool:
    return not _operands(args) and not (_flags(args) & {"-F", "--file", "-b", "--boot"})


def _ctl(read: set[str]) -> Callable[[list[str]], bool]:
    def rule(args: list[str]) -> bool:
        ops = _operands(args)
        return (ops[0] if ops else "") in read
    return rule


def _apt(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("list", "search", "show", "policy", "showsrc", "depends",
                                    "rdepends", "madison", "changelog")


def _dpkg(args: list[str]) -> bool:
    return bool(_flags(args) & {"-l", "-L", "-s", "-S", "-p", "--list", "--listfiles",
                                "--status", "--search", "--print-avail",
                                "--print-architecture", "--get-selections", "-C", "--audit",
                                "--verify", "-V", "--version", "--compare-versions"}) \
        and not _flags(args) & {"-i", "-r", "-P", "--install", "--remove", "--purge",
                                "--configure", "--unpack", "--set-selections"}


def _rpm(args: list[str]) -> bool:
    flags = _flags(args)
    return bool(flags & {"-q", "--query", "-V", "--verify"}) and not flags & {
        "-i", "-U", "-F", "-e", "--install", "--upgrade", "--erase", "--import", "--setperms",
        "--setugids", "--restore", "--rebuilddb", "--initdb"}


def _query_verbs(read: set[str]) -> Callable[[list[str]], bool]:
    def rule(args: list[str]) -> bool:
        ops = _operands(args)
        return bool(ops) and ops[0] in read
    return rule


def _firewall_read(args: list[str]) -> bool:
    flags = _flags(args)
    ops = _operands(args)
    if ops[:1] in (["status"], ["list"], ["show"]) or (ops[:2] == ["list", "ruleset"]):
        return True
    return bool(flags & {"-L", "--list", "-S", "--list-rules", "--state", "--list-all",
                         "--get-zones", "--get-default-zone", "--get-active-zones",
                         "--list-services", "--list-ports", "-V", "--version"}) and not (
        flags & {"-F", "-X", "-P", "-A", "-D", "-I", "-R", "-N", "-Z", "--flush", "--append",
                 "--delete", "--insert", "--policy", "--add-service", "--remove-service",
                 "--add-port", "--remove-port", "--reload", "--panic-on", "--permanent"})


def _crontab(args: list[str]) -> bool:
    return "-l" in args and "-r" not in args and "-e" not in args


def _sysctl(args: list[str]) -> bool:
    return not any("=" in a for a in args) and not (_flags(args) & {"-w", "--write", "-p",
                                                                     "--load", "--system"})


def _pip(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("list", "show", "freeze", "check", "search", "index",
                                    "--version", "config-list")


def _snap(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("list", "info", "find", "search", "services", "changes",
                                    "connections", "version")


def _ssh_keygen(args: list[str]) -> bool:
    return bool(_flags(args) & {"-l", "-F", "-y", "-L", "-B"}) and not _flags(args) & {
        "-R", "-f-write"} or args == ["-l"]


def _openssl(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("version", "x509", "s_client", "verify", "ciphers",
                                    "list", "asn1parse", "crl", "req-text") and "-out" not in args


def _curl(args: list[str]) -> bool:
    flags = _flags(args)
    return bool(flags & {"-I", "--head"}) and not flags & {"-o", "-O", "--output",
                                                          "--remote-name", "-T",
                                                          "--upload-file", "-d", "--data",
                                                          "-X", "--request", "-F", "--form",
                                                          "-K", "--config"}


def _wget(args: list[str]) -> bool:
    return "--spider" in args and not any(
        a.startswith(("-O", "-o", "-a", "--output", "--append-output", "-P",
                      "--directory-prefix", "-x", "--force-directories")) for a in args)


def _service(args: list[str]) -> bool:
    ops = _operands(args)
    return (len(ops) == 1 and ops[0] == "--status-all") or (len(ops) >= 2 and ops[1] == "status"
                                                             ) or "--status-all" in args


def _lvm_read(args: list[str]) -> bool:
    return True


def _zfs(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("list", "get", "status", "iostat", "history", "events")


def _mdadm(args: list[str]) -> bool:
    return bool(_flags(args) & {"-D", "--detail", "-E", "--examine", "-Q", "--query"}) and \
        not _flags(args) & {"-C", "--create", "--zero-superblock", "-f", "--fail", "-r",
                            "--remove", "-S", "--stop", "-G", "--grow", "-a", "--add"}


def _cryptsetup(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("status", "luksDump", "isLuks", "benchmark", "--version")


def _blockdev(args: list[str]) -> bool:
    return all(a.startswith("--get") or a == "--report" or not a.startswith("-") for a in args)


def _udevadm(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("info", "monitor")


def _nmcli(args: list[str]) -> bool:
    ops = _operands(args)
    return not ops or all(o in ("general", "g", "device", "d", "dev", "connection", "c",
                                "con", "show", "status", "list", "radio", "networking",
                                "wifi", "s", "monitor") or not o.isalpha() for o in ops[:3]) \
        and not set(ops) & {"up", "down", "delete", "modify", "add", "connect", "disconnect",
                            "off", "on", "reload", "set"}


def _ifconfig(args: list[str]) -> bool:
    return len(_operands(args)) <= 1 and not _flags(args) - {"-a", "-s", "-v"}


def _swapon(args: list[str]) -> bool:
    return bool(_flags(args) & {"-s", "--summary", "--show"}) and not _operands(args)


def _journalctl(args: list[str]) -> bool:
    return not any(a.startswith(("--vacuum", "--rotate", "--flush", "--sync", "--relinquish",
                                 "--setup-keys", "--update-catalog")) for a in args)


def _tee(args: list[str]) -> bool:
    return all(a == "/dev/null" for a in _operands(args))


def _yq(args: list[str]) -> bool:
    return not (_flags(args) & {"-i", "--inplace"})


def _dmesg(args: list[str]) -> bool:
    return not (_flags(args) & {"-c", "-C", "--clear", "--read-clear", "-n", "--console-level",
                                "-D", "-E", "--console-off", "--console-on"})


def _ss(args: list[str]) -> bool:
    return not (_flags(args) & {"-K", "--kill"})


def _wipefs(args: list[str]) -> bool:
    return not (_flags(args) & {"-a", "--all", "-o", "--offset", "-b", "--backup"}) or (
        "-n" in _flags(args) or "--no-act" in _flags(args))


def _hdparm(args: list[str]) -> bool:
    return bool(_operands(args)) and all(
        a in ("-I", "-i", "-t", "-T", "-tT", "-Tt", "-g", "-C", "-H", "-v", "--direct")
        or not a.startswith("-") for a in args) \
        and not any(a.startswith("--security") for a in args) and len(_operands(args)) == len(
            [a for a in args if not a.startswith("-")])


def _badblocks(args: list[str]) -> bool:
    return not (_flags(args) & {"-w", "-n", "-o", "-i"})


def _nvme(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("list", "list-subsys", "smart-log", "id-ctrl", "id-ns",
                                    "error-log", "fw-log", "show-regs", "version", "help",
                                    "list-ns", "get-feature", "effects-log", "device-self-test-log",
                                    "self-test-log", "ns-descs", "primary-ctrl-caps")


def _gdisk_list(args: list[str]) -> bool:
    """gdisk is interactive; only `gdisk -l DEVICE` (list and quit) reads."""
    return _flags(args) == {"-l"}


def _gdisk(args: list[str]) -> bool:
    flags = _flags(args)
    return bool(flags & {"-p", "--print", "-v", "--verify", "-i", "--info", "-L",
                         "--list-types", "-O", "--print-mbr", "-V", "--version"}) and not (
        flags & {"-Z", "--zap-all", "-z", "--zap", "-o", "--clear", "-n", "--new", "-d",
                 "--delete", "-g", "--mbrtogpt", "-t", "--typecode", "-c", "--change-name",
                 "-R", "--replicate", "-G", "--randomize-guids", "-U", "-e", "-m", "-s",
                 "-x", "-a", "--set-alignment", "-b", "--backup", "-l", "--load-backup"})


def _tune2fs(args: list[str]) -> bool:
    return set(a for a in args if a.startswith("-")) <= {"-l"} and "-l" in args


def _losetup(args: list[str]) -> bool:
    return not args or set(_flags(args)) <= {"-a", "--all", "-l", "--list", "-j",
                                             "--associated", "-J", "--json", "-O",
                                             "--output", "-n", "--noheadings"} and not (
        len(_operands(args)) > 1)


def _dmsetup(args: list[str]) -> bool:
    ops = _operands(args)
    return bool(ops) and ops[0] in ("ls", "info", "status", "table", "deps", "version",
                                    "targets")


def _btrfs(args: list[str]) -> bool:
    ops = _operands(args)
    return len(ops) >= 2 and (ops[0], ops[1]) in {
        ("filesystem", "show"), ("filesystem", "df"), ("filesystem", "usage"),
        ("fi", "show"), ("fi", "df"), ("fi", "usage"), ("subvolume", "list"),
        ("subvolume", "show"), ("device", "stats"), ("scrub", "status"),
        ("balance", "status"), ("qgroup", "show")}


def _smartctl(args: list[str]) -> bool:
    return not (_flags(args) & {"-t", "--test", "-s", "--smart", "-o", "--offlineauto",
                                "-S", "--saveauto", "-X", "--abort", "-g", "--get-set"}) or \
        any(a.startswith("--get") for a in args) and not _flags(args) & {"-t", "-s", "-X"}


def _unzip(args: list[str]) -> bool:
    return bool(_flags(args) & {"-l", "-v", "-t", "-Z"}) and "-d" not in args


def _7z(args: list[str]) -> bool:
    return bool(_operands(args)) and _operands(args)[0] in ("l", "t", "i", "h")


def _route(args: list[str]) -> bool:
    return not set(_operands(args)) & {"add", "del", "delete", "flush", "change"}


_ETHTOOL_READ = {"-i", "--driver", "-k", "--show-features", "--show-offload", "-S",
                 "--statistics", "-a", "--show-pause", "-g", "--show-ring", "-c",
                 "--show-coalesce", "-l", "--show-channels", "-m", "--dump-module-eeprom",
                 "--module-info", "-T", "--show-time-stamping", "-P", "--show-permaddr",
                 "--show-eee", "--show-fec", "-h", "--help", "--version", "-d", "--register-dump",
                 "-e", "--eeprom-dump"}


def _ethtool(args: list[str]) -> bool:
    flags = {a for a in args if a.startswith("-")}
    return flags <= _ETHTOOL_READ


def _resolvectl(args: list[str]) -> bool:
    ops = _operands(args)
    if not ops or ops[0] in ("status", "query", "statistics", "show-cache", "show-server-state",
                             "monitor", "service", "openpgp", "tlsa"):
        return True
    return ops[0] in ("dns", "domain", "llmnr", "mdns", "dnssec", "dnsovertls") and len(ops) <= 2


def _dpkg_deb(args: list[str]) -> bool:
    return bool(_flags(args) & {"-c", "--contents", "-I", "--info", "-f", "--field", "-W",
                                "--show"}) and not _flags(args) & {"-b", "--build", "-x",
                                                                    "--extract", "-X",
                                                                    "--vextract", "-R",
                                                                    "--raw-extract"}


def _pacman(args: list[str]) -> bool:
    """-Q (query the local database), -Ss/-Si/-Sl/-Sg (search the sync database), -T."""
    ops = [a for a in args if a.startswith("-") and not a.startswith("--")]
    longs = {a for a in args if a.startswith("--")}
    if longs & {"--sync", "--remove", "--upgrade", "--database", "--files"}:
        return bool(longs & {"--query"}) and not longs - {"--query", "--info", "--list",
                                                            "--search", "--owns", "--quiet"}
    if not ops:
        return bool(longs) and longs <= {"--query", "--info", "--list", "--search", "--owns",
                                         "--quiet", "--version", "--help"}
    letters = set(ops[0][1:])
    if "Q" in letters or "T" in letters:
        return True
    return "S" in letters and bool(letters & {"s", "i", "l", "g"}) and not letters & {
        "y", "u", "w", "c"}


_APK_READ = {"info", "search", "list", "policy", "version", "stats", "dot", "audit",
             "--version", "-V"}
_DNF_READ = {"list", "info", "search", "repolist", "repoinfo", "check-update", "provides",
             "whatprovides", "deplist", "repoquery", "--version", "updateinfo"}


def _dnf(args: list[str]) -> bool:
    ops = _operands(args)
    if ops[:1] in (["history"], ["module"]):  # `history undo`, `module enable` change things
        return len(ops) == 1 or ops[1] in ("list", "info", "provides")
    return bool(ops) and ops[0] in _DNF_READ
_ZYPPER_READ = {"search", "se", "info", "if", "repos", "lr", "list-updates", "lu",
                "packages", "pa", "patches", "lp", "what-provides", "wp", "products", "pd"}


def _exactly(*forms: tuple[str, ...]) -> Callable[[list[str]], bool]:
    """Read-only only in these exact argument lists (a daemon's own config test)."""
    return lambda args: tuple(args) in forms


# Daemons whose config test only reads: read-only with exactly these arguments, and
# judged like any unknown program otherwise ("nginx -s stop" is not made any safer).
CONFIG_TESTS: dict[str, Callable[[list[str]], bool]] = {
    "nginx": _exactly(("-t",), ("-T",)), "sshd": _exactly(("-t",), ("-T",)),
    "apache2ctl": _exactly(("-t",), ("configtest",), ("-S",)),
    "apachectl": _exactly(("-t",), ("configtest",), ("-S",)),
    "named-checkconf": _exactly((),),
}

RULES: dict[str, Callable[[list[str]], bool]] = {
    **CONFIG_TESTS,
    "apt-cache": lambda a: "gencaches" not in a,
    "pacman": _pacman, "apk": _query_verbs(_APK_READ), "dnf": _dnf, "yum": _dnf,
    "zypper": _query_verbs(_ZYPPER_READ),
    "file": _none_of("-C", "--compile"), "lastlog": _none_of("-C", "--clear", "-S", "--set"),
    "sar": _none_of("-o"), "tree": _none_of("-o"), "xmllint": _none_of("--output", "-o"),
    "dpkg-deb": _dpkg_deb, "dmidecode": _none_of("--dump-bin"),
    "arp": _none_of("-d", "--delete", "-s", "--set", "-f", "--file"), "route": _route,
    "ethtool": _ethtool, "ioping": _none_of("-W", "-WW", "-WWW"),
    "unzip": _unzip, "7z": _7z, "read": lambda a: True,
    "mapfile": lambda a: not any(x.startswith("-C") for x in a),  # -C runs a callback
    "readarray": lambda a: not any(x.startswith("-C") for x in a),
    "hdparm": _hdparm, "badblocks": _badblocks, "nvme": _nvme, "sgdisk": _gdisk,
    "gdisk": _gdisk_list, "tune2fs": _tune2fs, "losetup": _losetup, "dmsetup": _dmsetup,
    "btrfs": _btrfs, "smartctl": _smartctl, "dumpe2fs": lambda a: True,
    "xfs_info": lambda a: True, "lsscsi": lambda a: True, "partx": _none_of(
        "-a", "--add", "-d", "--delete", "-u", "--update"),
    "systemctl": _systemctl, "docker": _docker, "podman": _docker, "ip": _ip, "dd": _dd,
    "kill": _kill, "fdisk": _fdisk_only, "sfdisk": _fdisk, "parted": _parted, "sort": _sort,
    "uniq": _two_operand_writers, "xxd": _two_operand_writers, "date": _date,
    "hostname": _hostname, "timedatectl": _ctl({"status", "show", "list-timezones",
                                                 "timesync-status", "show-timesync", ""}),
    "hostnamectl": _ctl({"status", ""}), "localectl": _ctl({"status", "list-locales",
                                                           "list-keymaps", ""}),
    "loginctl": _ctl({"list-sessions", "list-users", "list-seats", "show-session",
                      "show-user", "session-status", "user-status", "seat-status", ""}),
    "resolvectl": _resolvectl,
    "networkctl": _ctl({"status", "list", "lldp", ""}),
    "apt": _apt, "apt-get": _query_verbs({"check", "changelog", "--version"}),
    "dpkg": _dpkg, "rpm": _rpm, "snap": _snap, "flatpak": _query_verbs({"list", "info",
                                                                       "search", "remotes",
                                                                       "history"}),
    "ufw": _firewall_read, "iptables": _firewall_read, "ip6tables": _firewall_read,
    "nft": _firewall_read, "firewall-cmd": _firewall_read, "crontab": _crontab,
    "atq": lambda a: True, "service": _service, "journalctl": _journalctl, "tee": _tee,
    "yq": _yq, "dmesg": _dmesg, "ss": _ss, "wipefs": _wipefs, "mount": lambda a: not a,
    "sysctl": _sysctl, "pip": _pip, "pip3": _pip, "npm": _query_verbs({"ls", "list", "view",
                                                                      "outdated", "search",
                                                                      "--version"}),
    "ssh-keygen": _ssh_keygen, "openssl": _openssl, "curl": _curl, "wget": _wget,
    "zfs": _zfs, "zpool": _zfs, "mdadm": _mdadm, "cryptsetup": _cryptsetup,
    "blockdev": _blockdev, "udevadm": _udevadm, "nmcli": _nmcli, "ifconfig": _ifconfig,
    "swapon": _swapon, "lvs": _lvm_read, "vgs": _lvm_read, "pvs": _lvm_read,
    "virsh": _query_verbs({"list", "dominfo", "domstate", "net-list", "pool-list",
                           "vol-list", "version", "nodeinfo", "dumpxml"}),
    "kubectl": _query_verbs({"get", "describe", "logs", "top", "version", "explain",
                             "api-resources", "cluster-info"}),
    "tcpdump": _none_of("-w", "-z", "-Z", "-C", "-G"),
    "less": _none_of("-o", "-O", "--log-file", "--LOG-FILE"),
    "tar": lambda a: True, "at": lambda a: "-l" in a,
}
# handled by their own carried-code check (payloads) once arguments are read-only
