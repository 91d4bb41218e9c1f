"""The read-only list: programs, and the arguments with which they only read.

`is_read_only(argv)` is True only when the program is on the list and its arguments
pass that program's rule (`dd` only into /dev/null, `wipefs` without `-a`, `fdisk -l`,
`systemctl status/show/is-active…`, `docker ps/inspect/logs…`, `sort` without `-o`, …).
Anything not listed is not read-only. Tools that carry code (awk, sed, find, git, man,
tar) are also checked by `payloads`; redirections by the risk engine.

Not responsible for how dangerous a non-read-only command is (`rules`).
"""

from __future__ import annotations

from reos.safety.readonly_rules import CONFIG_TESTS, RULES

# the read-only list; a program with a rule in RULES reads only with the arguments it allows
PURE = frozenset({
    "ls", "cat", "grep", "egrep", "fgrep", "rg", "ag", "head", "tail", "less", "more", "echo",
    "printf", "true", "false", "pwd", "whoami", "id", "uname", "uptime", "free", "df", "du",
    "ps", "pstree", "who", "w", "wc", "stat", "file", "which", "type", "netstat",
    "lsblk", "findmnt", "printenv", "dpkg-query", "test", "[", "[[", "diff", "cmp", "comm",
    "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum",
    "cksum", "sum", "basename", "dirname", "realpath", "readlink", "lscpu", "lsusb", "lspci",
    "lsmod", "lsns", "lslocks", "lsipc", "lshw", "last", "lastb", "lastlog", "cut", "tr",
    "column", "jq", "od", "hexdump", "strings", "nproc", "systemd-analyze", "sleep", "seq",
    "yes", "apropos", "whatis", "locate", "pgrep", "pidof", "lsof", "vmstat", "iostat",
    "mpstat", "sar", "pidstat", "nslookup", "dig", "host", "ping", "ping6", "traceroute",
    "tracepath", "mtr", "getent", "groups", "locale", "cd", "zcat", "zless", "zgrep", "bzcat",
    "xzcat", "zstdcat", "nl", "fold", "fmt", "expand", "unexpand", "paste", "join", "rev",
    "tac", "base64", "base32", "expr", "factor", "numfmt", "tty", "users", "arch", "env",
    "blkid", "lsattr", "getfacl", "getcap", "namei", "tree", "look", "cal", "ncal", "bc",
    "xmllint", "yamllint", "whereis", "dpkg-deb", "apt-cache",
    "apt-config", "rpm", "systemd-cgls", "systemd-cgtop", "systemd-detect-virt",
    "systemd-escape", "systemd-path", "htop", "top", "iotop",
    "iftop", "nethogs", "sensors", "smartctl", "dmidecode", "hwinfo",
    "inxi", "neofetch", "fastfetch", "screenfetch", "lsb_release", "ulimit", "hash",
    "history", "alias", "jobs", "fc-list",
    "ldd", "nm", "objdump",
    "readelf", "size", "iconv", "sha", "col", "colrm", "pager",
    "vdir", "dir", "exa", "eza", "bat", "batcat", "fd", "fdfind", "ncdu", "duf", "dust",
    "ioping", "findfs", "mountpoint", "arp", "route", "ethtool", "nstat",
    "tcpdump", "ss", "resolvectl", "networkctl", "loginctl", "journalctl",
    "timedatectl", "hostnamectl", "localectl", "sort", "uniq", "xxd", "tee", "date",
    "hostname", "dmesg", "yq", "kill", "wipefs", "fdisk", "sfdisk", "parted", "dd",
    "ip", "systemctl", "docker", "podman", "apt", "dpkg", "snap", "flatpak", "tar", "man",
    "find", "sed", "awk", "gawk", "mawk", "git", "zfs", "zpool", "lvs", "vgs", "pvs",
    "lvdisplay", "vgdisplay", "pvdisplay", "mdadm", "cryptsetup", "ufw", "iptables",
    "ip6tables", "nft", "firewall-cmd", "crontab", "at", "atq", "service", "sudo", "nice",
    "timeout", "time", "command", "ionice", "stdbuf", "nohup", "ssh-keygen", "openssl",
    "curl", "wget", "pip", "pip3", "npm", "virsh", "kubectl", "mount", "swapon", "sysctl",
    "blockdev", "udevadm", "ifconfig", "nmcli", "xargs",
    "hdparm", "badblocks", "nvme", "sgdisk", "gdisk", "tune2fs", "losetup", "dmsetup",
    "btrfs", "dumpe2fs", "xfs_info", "lsscsi", "partx", "unzip", "zipinfo", "7z",
    # shell builtins that change only the shell itself
    "export", "set", "unset", "unalias", "shopt", "declare", "typeset", "local", "readonly",
    "umask", "wait", "read", "mapfile", "readarray", "shift", "return", "exit", "break",
    "continue", ":", "getopts",
    "pushd", "popd", "dirs", "let", "pacman", "apk", "dnf", "yum", "zypper",
})


def is_read_only(argv: list[str]) -> bool:
    """Whether this argv (launchers already opened) only reads."""
    if not argv:
        return True
    program = argv[0].rsplit("/", 1)[-1]
    if program not in PURE and program not in CONFIG_TESTS:
        return False
    rule = RULES.get(program)
    if rule is not None:
        try:
            return bool(rule(argv[1:]))
        except (IndexError, ValueError):
            return False
    return True
