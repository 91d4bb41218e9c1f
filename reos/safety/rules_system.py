"""Rules for programs that change the system: disks, processes, power, packages,
containers, users, scheduled jobs, kernel modules, mounts, boot loaders and the mail
queue.

Services, the firewall, network interfaces and the remote lock-out live in
`rules_network`; its handlers are registered here too.
Not responsible for file-level rules (`rules`) or for walking a command line (`risk`).
"""

from __future__ import annotations

import fnmatch
import re

from reos.model.risk import RiskLevel
from reos.patterns import regex
from reos.safety.paths import dynamic, is_device, is_system_path
from reos.safety.rules import Context, flags, operands
from reos.safety.rules_network import (
    judge_firewall,
    judge_ifconfig,
    judge_ifdown,
    judge_ip,
    judge_nmcli,
    judge_service,
    judge_systemctl,
    lockout,
)
from reos.safety.verdict import Verdict

CORE_PACKAGES = ("openssh-server", "systemd", "libc6", "glibc", "sudo", "grub", "grub2",
                 "grub-pc", "grub-efi", "dpkg", "apt", "rpm", "pacman", "bash", "coreutils",
                 "linux", "linux-lts", "kernel", "kernel-core", "kernel-default",
                 "init", "systemd-sysv", "login", "passwd", "util-linux", "libpam",
                 "base-files", "python3", "dnf", "yum", "zypper", "e2fsprogs", "mount")
# a bad change to these leaves a machine that does not boot (kernel, bootloader, init,
# the C library): even an upgrade is a high-risk step
BOOT_PACKAGES = regex(r"^(?:linux-image|linux-signed|linux(?:-lts|-zen|-hardened)?$|"
                           r"kernel(?:-core|-default|-modules)?$|grub|shim|systemd(?:-sysv)?$|"
                           r"init$|sysvinit|libc6|glibc|musl$|dracut|initramfs-tools)")
# what loads a machine's firewall rules (iptables: ufw and firewalld are built on it)
FIREWALL_PACKAGES = {"ufw", "firewalld", "nftables", "iptables", "iptables-nft",
                     "iptables-legacy", "iptables-persistent", "iptables-services",
                     "netfilter-persistent", "shorewall", "shorewall6", "ferm"}
PACKAGE_TOOLS = {"apt", "apt-get", "aptitude", "dnf", "yum", "pacman", "zypper", "apk",
                 "dpkg", "rpm", "snap", "flatpak", "pip", "pip3", "npm", "gem", "cargo"}
FORMATTERS = {"mke2fs", "mkdosfs", "mkexfatfs", "mkntfs", "mkswap", "mkisofs", "mkudffs",
              "mkreiserfs", "mkfs"}
DISK_TOOLS = {"fdisk", "sfdisk", "cfdisk", "parted", "gdisk", "sgdisk", "cgdisk", "wipefs",
              "blkdiscard", "cryptsetup", "pvcreate", "pvremove", "vgcreate", "vgremove",
              "lvremove", "lvreduce", "lvresize", "zpool", "zfs", "mdadm", "nvme", "hdparm",
              "badblocks", "sdparm", "sg_format", "partx", "kpartx", "tune2fs", "resize2fs",
              "e2fsck", "fsck", "xfs_repair", "btrfs", "dmsetup", "losetup", "vgreduce",
              "pvmove", "sg_sanitize", "flashrom", "mtd_debug", "flash_erase", "growpart",
              "vgchange", "lvchange", "vgexport", "lvconvert"}


# -- disks ---------------------------------------------------------------------------------

def _disk(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    program = argv[0].rsplit("/", 1)[-1]
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    fl, ops = flags(argv), operands(argv)
    devices = [o for o in ops if is_device(o)]
    if program == "nvme" and ops[:1] and ops[0] in ("format", "sanitize", "delete-ns",
                                                    "detach-ns", "write-zeroes", "write",
                                                    "fw-download", "fw-commit"):
        _destroys(verdict, f"nvme {ops[0]} erases the disk")
    elif program == "hdparm" and any(a.startswith(("--security-erase", "--security-set-pass",
                                                   "--trim-sector-ranges", "--make-bad-sector",
                                                   "--write-sector", "--fwdownload",
                                                   "--dco-restore", "--dco-setmax"))
                                     or a.startswith("-N") for a in argv[1:]):
        _destroys(verdict, "hdparm erases or rewrites the disk")
    elif program == "badblocks" and (fl & {"-w", "-n"}):
        _destroys(verdict, "badblocks writes over the whole disk")
    elif program == "zpool" and ops[:1] and ops[0] in ("destroy", "labelclear", "create",
                                                       "add", "detach", "split", "remove"):
        _destroys(verdict, f"zpool {ops[0]} destroys or rewrites a pool")
    elif program == "zfs" and ops[:1] and ops[0] in ("destroy", "rollback", "receive", "recv"):
        verdict.raise_to(RiskLevel.HIGH, f"zfs {ops[0]} discards data", reversible=False,
                         root=True)
    elif program in ("lvremove", "vgremove", "pvremove", "lvreduce") and (devices or ops):
        _destroys(verdict, f"{program} deletes volumes and their data")
    elif program == "cryptsetup" and ops[:1] and ops[0] in ("luksFormat", "erase",
                                                            "luksErase", "reencrypt",
                                                            "luksKillSlot", "luksRemoveKey"):
        _destroys(verdict, f"cryptsetup {ops[0]} makes the data unreadable")
    elif program == "mdadm" and (fl & {"-C", "--create", "--zero-superblock"}):
        _destroys(verdict, "mdadm rewrites disks")
    elif program == "dmsetup" and ops[:1] == ["remove_all"] and fl & {"-f", "--force"}:
        _destroys(verdict, "dmsetup remove_all --force tears down every mapped device (LVM "
                  "volumes, encrypted disks), those the running system uses among them")
    elif program == "btrfs" and ops[:2] in (["device", "delete"], ["subvolume", "delete"],
                                            ["filesystem", "resize"]):
        verdict.raise_to(RiskLevel.HIGH, f"btrfs {' '.join(ops[:2])}", reversible=False,
                         root=True)
    elif program in ("tune2fs", "e2fsck", "fsck", "xfs_repair", "resize2fs", "losetup",
                     "partx", "kpartx", "growpart", "dmsetup", "btrfs", "pvmove", "vgreduce",
                     "lvresize", "vgcreate", "zfs"):
        verdict.raise_to(RiskLevel.HIGH, f"{program} changes disks or filesystems", root=True)
    elif devices or any(dynamic(o) for o in ops) or not ops:
        _destroys(verdict, f"{program} changes disks or partitions")
    elif program in _BY_NAME:  # volume groups, volumes, mappings: named, not paths
        verdict.raise_to(RiskLevel.HIGH, f"{program} changes {_BY_NAME[program]} (the "
                         "running system may live on them)", root=True)
    else:  # a disk image or other regular file
        verdict.raise_to(RiskLevel.MEDIUM, f"{program} changes a disk image", root=False)


# disk tools whose operands are names of volumes or mappings rather than files
_BY_NAME = {"vgchange": "volume groups", "lvchange": "logical volumes",
            "vgexport": "volume groups", "lvconvert": "logical volumes",
            "vgreduce": "volume groups", "lvresize": "logical volumes",
            "cryptsetup": "encrypted devices",
            "zpool": "storage pools", "zfs": "datasets"}


_QEMU_VALUES = {"-f", "-F", "-O", "-o", "-b", "-B", "-l", "-s", "-t", "-T", "-S", "-m",
                "-r", "-a", "-d", "--object", "--image-opts", "--target-image-opts"}


def _qemu_img(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """qemu-img writes the image it converts to, creates, resizes or rebases: onto a disk
    that is the disk's data gone."""
    from reos.safety.grammar import is_read_only
    from reos.safety.rules import judge_write

    if is_read_only(argv):
        return
    ops: list[str] = []
    words = iter(argv[1:])
    for word in words:
        if word in _QEMU_VALUES:
            next(words, None)
        elif not word.startswith("-"):
            ops.append(word)
    verb, files = (ops[0], ops[1:]) if ops else ("", [])
    if verb == "dd":
        targets = [o[3:] for o in files if o.startswith("of=")]
    elif verb == "convert":
        targets = files[-1:]
    else:  # create, resize, commit, rebase, amend, snapshot, bitmap: the image named
        targets = [f for f in files if not f[:1].isdigit() and not f.startswith("+")][:1]
    for target in targets:
        judge_write(target, verdict, ctx, f"qemu-img {verb} writes")
    verdict.raise_to(RiskLevel.MEDIUM, f"qemu-img {verb} changes a disk image".replace(
        "  ", " "))


def _destroys(verdict: Verdict, reason: str) -> None:
    verdict.raise_to(RiskLevel.CRITICAL, reason, block=True, reversible=False, root=True)


def _format(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """mkfs.*, mke2fs, mkswap, …: on a device the data is gone; on a regular file it is not."""
    program = argv[0].rsplit("/", 1)[-1]
    ops = operands(argv)
    values = {"-t", "-L", "-b", "-i", "-I", "-N", "-m", "-o", "-O", "-U", "-E", "-n", "-F",
              "-s", "-c", "-p", "-C", "-T", "-f", "--label", "--uuid", "--pagesize", "-d",
              "-S", "-R", "-M", "-G", "-e", "-J", "-r", "-l", "-g", "-a"}
    args = argv[1:]
    targets = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in values and i + 1 < len(args) and not (program == "mkswap" and a == "-f"):
            i += 2
            continue
        if not a.startswith("-"):
            targets.append(a)
        i += 1
    targets = targets or ops
    planned = [t[5:] for t in targets if t.startswith("/dev/") and t[5:] in ctx.formats]
    if targets and len(planned) == len(targets) == 1:  # reos's own format step
        _planned_format(program, planned[0], verdict, ctx)
    elif not targets or any(is_device(t) or dynamic(t) for t in targets):
        _destroys(verdict, f"{program} formats a disk or partition (erases it)")
    elif program == "mkswap" or program.startswith("mkfs") or program in FORMATTERS:
        verdict.raise_to(RiskLevel.MEDIUM, f"{program} formats a file", reversible=False)


def _planned_format(program: str, device: str, verdict: Verdict, ctx: Context) -> None:
    """A format step reos planned for a device of the snapshot: HIGH and irreversible, or
    blocked when the running kernel says the device is not there or shares a disk with /."""
    objection = None
    if ctx.live:
        from reos.safety.blockdev import format_objection

        objection = format_objection(device)
    if objection:
        _destroys(verdict, f"{program} would erase /dev/{device}, but {objection}")
    else:
        verdict.raise_to(RiskLevel.HIGH, f"{program} erases everything on /dev/{device}",
                         reversible=False, root=True)


# -- processes and power -------------------------------------------------------------------

def _kill(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    program = argv[0].rsplit("/", 1)[-1]
    from reos.safety.grammar import is_read_only

    if program == "killall5":
        _destroys(verdict, "killall5 kills every process")
        return
    if program == "kill" and is_read_only(argv):
        return
    args = argv[1:]
    targets: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-s", "-n", "--signal"):
            i += 2
            continue
        if a == "--":
            targets += args[i + 1:]
            break
        if a.startswith("-") and not re.fullmatch(r"-\d+", a):
            i += 1
            continue
        if re.fullmatch(r"-\d+", a) and not targets and i == 0 and len(args) > 1:
            i += 1  # `kill -9 PID`: a signal number
            continue
        targets.append(a)
        i += 1
    if program == "kill":
        if any(t in ("1", "-1") for t in targets):
            _destroys(verdict, "kills init or every process (kill -1)")
        elif any(t.startswith("-") for t in targets):
            verdict.raise_to(RiskLevel.HIGH, "kills a whole process group", reversible=False)
        elif any(dynamic(t) for t in targets):
            verdict.raise_to(RiskLevel.HIGH, "kills processes chosen at run time",
                             reversible=False)
        else:
            verdict.raise_to(RiskLevel.HIGH, "kills processes", reversible=False)
        return
    names = [t for t in targets if not t.startswith("-")]
    if program in ("killall", "pkill") and (flags(argv) & {"-r", "--regexp"} or
                                            program == "pkill") and any(
            n in (".", ".*", "^", "$", "", ".+") for n in names):
        _destroys(verdict, f"{program} with the pattern {names[0]!r} kills every process")
    elif any(n in ("init", "systemd", "systemd-journald", "dbus-daemon", "login")
           for n in names) or any(a in ("-u",) for a in args) and any(
            n == "root" for n in names):
        _destroys(verdict, f"{program} kills a process the system depends on")
    elif any(n in ("sshd", "ssh", "dropbear") for n in names):
        lockout(verdict, ctx, "kills the SSH server", "kill", "sshd")
    else:
        verdict.raise_to(RiskLevel.HIGH, "kills processes", reversible=False)


def _power(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    program = argv[0].rsplit("/", 1)[-1]
    if program in ("init", "telinit") and not set(operands(argv)) & {"0", "6"}:
        verdict.raise_to(RiskLevel.MEDIUM, "changes the runlevel", root=True)
        return
    if program == "shutdown" and "-c" in argv:
        verdict.raise_to(RiskLevel.LOW, "cancels a shutdown", root=True)
        return
    when = operands(argv)[:1]
    if program == "shutdown" and when and when[0] != "now" and not re.fullmatch(
            r"\+?0+", when[0]):
        # a shutdown at a later time: `shutdown -c` takes it back until then
        verdict.raise_to(RiskLevel.HIGH, "schedules a shutdown or restart of the machine",
                         root=True)
        return
    verdict.raise_to(RiskLevel.HIGH, "shuts down or restarts the machine", reversible=False,
                     root=True)


# -- packages, containers, users, jobs -----------------------------------------------------

def _packages(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    program = argv[0].rsplit("/", 1)[-1]
    ops, fl = operands(argv), flags(argv)
    if is_read_only(argv) or (ops[:1] and ops[0] in ("list", "search", "show", "info",
                                                     "policy")):
        return
    verbs = {"install", "remove", "purge", "upgrade", "update", "add", "del", "autoremove",
             "erase", "dist-upgrade", "full-upgrade", "reinstall", "makecache", "refresh",
             "uninstall"}
    verdict.raise_to(RiskLevel.MEDIUM, "changes installed packages", root=True)
    purging = "purge" in ops or "--purge" in fl or (
        program == "pacman" and any(a.startswith("-R") and "n" in a for a in argv[1:]))
    if purging:
        verdict.raise_to(RiskLevel.HIGH, "purges packages and their configuration",
                         reversible=False)
    removing = purging or bool(set(ops) & {"remove", "del", "erase", "autoremove",
                                           "uninstall"}) or (
        program == "pacman" and any(a.startswith("-R") for a in argv[1:])) or (
        program in ("dpkg", "rpm") and bool(fl & {"-r", "-P", "-e"}))
    # a pinned operand (`libc6=2.36-9`) and an architecture (`libc6:i386`) name the
    # package too; an apt setting's value (`APT::Get::Foo=1`) does not
    names = [o.split("=", 1)[0].split(":", 1)[0] for o in ops
             if o not in verbs and "::" not in o.split("=", 1)[0]]
    core = [n for n in names if n.startswith(CORE_PACKAGES) or n.startswith("linux-image")]
    if core and removing and program not in ("pip", "pip3", "npm", "gem", "cargo"):
        verdict.raise_to(RiskLevel.HIGH, f"removes a core package, {core[0]}",
                         reversible=False)
        if any(c.startswith(("openssh-server", "ssh")) for c in core) and ctx.remote:
            lockout(verdict, ctx, "removes the SSH server", "remove", "openssh-server")
    elif core and program not in ("pip", "pip3", "npm", "gem", "cargo"):
        boot = next((n for n in core if BOOT_PACKAGES.match(n)), None)
        if boot is not None:
            verdict.raise_to(RiskLevel.HIGH, f"changes a core package, {boot} (the machine "
                             "boots with it)")
        else:
            verdict.raise_to(RiskLevel.HIGH if removing else RiskLevel.MEDIUM,
                             f"changes a core package, {core[0]}")
    # the firewall goes with its rules at once (iptables takes ufw with it); over SSH a
    # lock-out unless the request asks for exactly that, by that name. Spelled any way a
    # package tool takes ("dnf rm", "dpkg --remove", "rpm --erase", "ufw*")
    walls = [n for n in names if any(fnmatch.fnmatchcase(w, n) for w in FIREWALL_PACKAGES)]
    if walls and program not in ("pip", "pip3", "npm", "gem", "cargo") and (
            removing or "rm" in ops or fl & {"--remove", "--purge", "--erase"}):
        wall = next((w for w in sorted(FIREWALL_PACKAGES) if fnmatch.fnmatchcase(w, walls[0])),
                    walls[0])
        lockout(verdict, ctx, f"removes the firewall ({wall}) with all its rules",
                "remove", wall, exact=True)
    if fl & {"--force-all", "--force-remove-essential", "--nodeps", "-dd"}:
        verdict.raise_to(RiskLevel.HIGH, "forces past the package manager's safety checks",
                         reversible=False)
        if core and removing:  # the check that stops it is the one forced past
            verdict.raise_to(RiskLevel.CRITICAL, f"forces the removal of {core[0]}, without "
                             "which the system does not run", block=True, root=True)


def _docker(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    ops = operands(argv)
    verb = ops[0] if ops else ""
    if verb in ("rm", "rmi", "prune") or ops[:2] in (
            ["volume", "rm"], ["system", "prune"], ["volume", "prune"], ["image", "prune"],
            ["container", "rm"], ["container", "prune"], ["network", "rm"], ["image", "rm"],
            ["network", "prune"], ["builder", "prune"], ["compose", "down"]):
        verdict.raise_to(RiskLevel.HIGH, "deletes containers, images or volumes",
                         reversible=False)
    elif verb in ("run", "create") and ("--privileged" in argv or any(
            a.startswith("/:") or a.startswith("source=/,") or a in ("--pid=host", "--net=host")
            for a in argv)):
        verdict.raise_to(RiskLevel.HIGH, "runs a container with power over the host", root=True)
    elif verb == "start":
        verdict.raise_to(RiskLevel.LOW, "starts containers")
    elif verb in ("stop", "restart", "kill", "pause", "unpause"):
        verdict.raise_to(RiskLevel.MEDIUM, f"{verb}s containers")
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"docker {verb} changes the docker engine")


def _users(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):  # passwd -S, chage -l, visudo -c
        return
    program = argv[0].rsplit("/", 1)[-1]
    if program == "passwd" and ("-d" in argv or "--delete" in argv):
        _destroys(verdict, "removes a password")
    elif program in ("passwd",) and ("-l" in argv or "--lock" in argv) and (
            "root" in argv or len(operands(argv)) == 0):
        verdict.raise_to(RiskLevel.HIGH, "locks an account", root=True)
    elif program in ("userdel", "deluser", "groupdel", "delgroup"):
        takes_files = any(a in ("-r", "--remove", "--remove-home", "--remove-all-files")
                          or (a.startswith("-") and not a.startswith("--") and "r" in a)
                          for a in argv[1:])
        if "root" in operands(argv):
            _destroys(verdict, "deletes the root account")
        elif takes_files:
            verdict.raise_to(RiskLevel.HIGH, "deletes a user and their files",
                             reversible=False, root=True)
        else:  # the account can be made again from what was recorded; its files stay
            verdict.raise_to(RiskLevel.HIGH, "deletes a user or group", root=True)
    elif program == "usermod" and any(a in ("-p", "--password") for a in argv):
        _destroys(verdict, "sets a password hash directly")
    elif program == "usermod" and ("-o" in argv and ("-u" in argv or "--uid" in argv)) and \
            any(a in ("0",) for a in argv):
        _destroys(verdict, "gives an account root's user id")
    elif program in ("useradd", "adduser", "usermod") and flags(argv) & {"-u", "--uid"} \
            and ("0" in argv or "--uid=0" in argv) and flags(argv) & {"-o", "--non-unique"}:
        _destroys(verdict, "creates a second root account")
    elif program in ("chpasswd", "passwd", "usermod", "useradd", "adduser", "visudo",
                     "groupadd", "addgroup", "gpasswd", "chsh", "chage", "vipw", "vigr"):
        verdict.raise_to(RiskLevel.HIGH, f"{program} changes accounts or credentials",
                         root=True)


def _crontab(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    if "-r" in argv:
        verdict.raise_to(RiskLevel.HIGH, "deletes the whole crontab", reversible=False)
    elif "-l" not in argv:
        verdict.raise_to(RiskLevel.MEDIUM, "changes scheduled jobs")


def _sysctl(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    verdict.raise_to(RiskLevel.MEDIUM, "changes kernel settings", root=True)


def _modules(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):  # modprobe -n, -c, --show-depends
        return
    program = argv[0].rsplit("/", 1)[-1]
    files = [o for o in operands(argv) if "/" in o or o.endswith((".ko", ".ko.xz", ".ko.zst"))]
    if program == "insmod" or files:
        if not all(f.startswith(("/lib/modules/", "/usr/lib/modules/")) and ".." not in f
                   for f in files) or not files:
            _destroys(verdict, f"{program} loads kernel code from outside the system's "
                      "module folders")
            return
    verdict.raise_to(RiskLevel.HIGH, f"{argv[0]} loads or unloads kernel code", root=True)


def _privileges(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """setcap and dpkg-statoverride: giving a program powers it runs with for everyone."""
    program = argv[0].rsplit("/", 1)[-1]
    text = " ".join(argv[1:]).lower()
    strong = ("cap_setuid", "cap_setgid", "cap_sys_admin", "cap_dac_override",
              "cap_dac_read_search", "cap_sys_module", "cap_sys_ptrace", "cap_chown",
              "cap_fowner", "all=")
    modes = [o for o in operands(argv) if o.isdigit() and len(o) == 4]
    if program == "setcap" and "-r" not in flags(argv) and any(c in text for c in strong):
        _destroys(verdict, "gives a program the powers of root (a backdoor)")
    elif program == "dpkg-statoverride" and any(m[0] in "4567" for m in modes):
        _destroys(verdict, "makes a program run as its owner for everyone (set-user-id)")
    else:
        verdict.raise_to(RiskLevel.HIGH, f"{program} changes what a program may do",
                         root=True)


def _ethtool(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    words = set(argv[1:])
    if words & {"-f", "--flash", "-E", "--change-eeprom"}:
        _destroys(verdict, "writes the network card's firmware or EEPROM")
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "changes the network card's settings", root=True)


def _ipmitool(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    ops = operands(argv)
    if ops[:2] == ["chassis", "power"] and ops[2:3] and ops[2] != "status":
        verdict.raise_to(RiskLevel.HIGH, f"switches the machine's power ({ops[2]})",
                         reversible=False, root=True)
    elif ops[:1] in (["raw"], ["mc"], ["lan"], ["user"], ["sol"]) or "set" in ops:
        verdict.raise_to(RiskLevel.HIGH, "changes the board management controller",
                         root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "talks to the board management controller",
                         root=True)


def _raw_writers(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """flashrom writing or erasing firmware; xfs_db in expert (writing) mode."""
    program = argv[0].rsplit("/", 1)[-1]
    fl = flags(argv)
    if program == "flashrom" and fl & {"-w", "--write", "-E", "--erase"}:
        _destroys(verdict, "writes or erases the machine's firmware")
    elif program == "xfs_db" and fl & {"-x"}:
        _destroys(verdict, "xfs_db -x edits a filesystem's raw structures")
    else:
        _disk(argv, verdict, ctx)


def _debugfs(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    if flags(argv) & {"-w"} and any(o.startswith("/dev/") for o in operands(argv)):
        _destroys(verdict, "debugfs -w edits a filesystem's raw structures on a disk")
    else:
        verdict.raise_to(RiskLevel.HIGH, "debugfs can change a filesystem's raw structures",
                         root=True)


def _certbot(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """certbot: `certificates` only reads. `renew` asks Let's Encrypt for new certificates
    and runs their deploy hooks (often a web server's reload); a renewed certificate is
    not put back. `delete`, `revoke` and `unregister` throw away a certificate or the
    account for good. Anything else (`run`, no subcommand, `certonly`, `install`…)
    obtains a certificate or changes the web server's configuration."""
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    ops = operands(argv)  # an option's value may come first: any word that destroys counts
    sub = ops[0] if ops else "run"
    gone = next((o for o in ops if o in ("delete", "revoke", "unregister")), None)
    if gone:
        verdict.raise_to(RiskLevel.HIGH, f"certbot {gone} throws away a certificate or the "
                         "account for good", reversible=False, root=True)
    elif sub == "certificates":  # an option not known to only read (another config)
        verdict.raise_to(RiskLevel.MEDIUM, "certbot certificates with options not known to "
                         "only read", root=True)
    elif sub == "renew":
        verdict.raise_to(RiskLevel.MEDIUM, "renews certificates and runs their deploy hooks "
                         "(often a reload of the web server)", reversible=False, root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"certbot {sub} obtains a certificate or changes "
                         "the web server's configuration", reversible=False, root=True)


def _boot(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    program = argv[0].rsplit("/", 1)[-1]
    if program == "efibootmgr" and not set(flags(argv)) & {"-B", "--delete-bootnum", "-o",
                                                           "--bootorder", "-c", "--create",
                                                           "-a", "-A", "-n", "-N", "-b"}:
        return  # listing
    verdict.raise_to(RiskLevel.HIGH, f"{program} changes how the machine boots", root=True)


def _mount(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    from reos.safety.grammar import is_read_only
    from reos.safety.paths import is_vital

    ops = operands(argv)
    if argv[0].rsplit("/", 1)[-1] == "mount" and ops and is_vital(ops[-1]):
        _destroys(verdict, f"mounts something over {ops[-1]} (logins or boot depend on it)")
        return

    if is_read_only(argv):
        return
    program = argv[0].rsplit("/", 1)[-1]
    ops = operands(argv)
    if program in ("swapoff",) and ("-a" in argv or "--all" in argv):
        verdict.raise_to(RiskLevel.HIGH, "turns off all swap", root=True)
    elif program in ("umount",) and any(o in ("/", "/usr", "/boot", "/var", "/home")
                                        for o in ops):
        verdict.raise_to(RiskLevel.HIGH, f"unmounts {ops[0]}", root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, f"{program} changes what is mounted", root=True)


def _exports(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """exportfs: shares folders over NFS. `no_root_squash` lets the other machine's root
    act as root here; on / or a system folder that is the whole machine."""
    from reos.safety.grammar import is_read_only

    if is_read_only(argv):
        return
    options = ",".join(argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-o")
    shares = [o.partition(":")[2] for o in operands(argv) if ":" in o]
    if "no_root_squash" in options and any(
            s.rstrip("/") in ("", "/etc", "/root", "/boot", "/usr", "/var") or
            is_system_path(s) for s in shares):
        verdict.raise_to(RiskLevel.CRITICAL, "shares a system folder over NFS with root "
                         "access for the other machine (no_root_squash)", block=True,
                         root=True)
    elif "no_root_squash" in options:
        verdict.raise_to(RiskLevel.HIGH, "shares a folder over NFS with root access for the "
                         "other machine (no_root_squash)", root=True)
    else:
        verdict.raise_to(RiskLevel.MEDIUM, "changes which folders are shared over NFS",
                         root=True)


# postsuper's options that take a value (getopt: "-d ID" or "-dID"): -d deletes, -h holds,
# -H releases, -r requeues the messages named (a queue id, ALL, or "-": ids read from its
# input); -c names another configuration folder
_POSTSUPER_VALUES = frozenset("dhHrc")
_POSTSUPER_DOES = {"d": "deletes", "h": "puts on hold", "H": "releases from hold",
                   "r": "requeues"}


def _postsuper(argv: list[str], verdict: Verdict, ctx: Context) -> None:
    """postsuper (Postfix's queue, as root): deleting queued mail cannot be undone, and
    deleting every message at once (`-d ALL`), or whichever ids its input holds (`-d -`),
    is high risk; holding, releasing or requeueing changes where mail waits (medium);
    anything else it does (-s checks the queue's structure, -p purges temporary files) is
    a change too."""
    given: list[tuple[str, str]] = []
    words = argv[1:]
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--" or not word.startswith("-") or word == "-":
            break
        for k, letter in enumerate(word[1:], start=1):
            if letter in _POSTSUPER_VALUES:
                value = word[k + 1:] or (words[i + 1] if i + 1 < len(words) else "")
                i += 0 if word[k + 1:] else 1
                given.append((letter, value))
                break
        i += 1
    for letter, value in given:
        if letter == "d" and value in ("ALL", "-"):
            said = ("all the queued mail (ALL: every message of the queues named, or of "
                    "every queue)" if value == "ALL" else "the messages its input names")
            verdict.raise_to(RiskLevel.HIGH, f"postsuper deletes {said}",
                             reversible=False, root=True)
        elif letter == "d":
            verdict.raise_to(RiskLevel.MEDIUM, "postsuper deletes mail from the queue",
                             reversible=False, root=True)
        elif letter == "c":
            verdict.raise_to(RiskLevel.MEDIUM, "postsuper reads another configuration",
                             root=True)
        else:
            what = "all the queued mail (ALL)" if value == "ALL" else "queued mail"
            verdict.raise_to(RiskLevel.MEDIUM, f"postsuper {_POSTSUPER_DOES[letter]} {what}",
                             root=True)
    if not given:
        verdict.raise_to(RiskLevel.MEDIUM, "postsuper changes the mail queue", root=True)


SYSTEM_HANDLERS = {
    **{tool: _disk for tool in DISK_TOOLS}, **{tool: _format for tool in FORMATTERS},
    "kill": _kill, "pkill": _kill, "killall": _kill, "killall5": _kill, "skill": _kill,
    "shutdown": _power, "reboot": _power, "poweroff": _power, "halt": _power, "init": _power,
    "telinit": _power, "systemctl": judge_systemctl, "service": judge_service, "docker": _docker,
    "podman": _docker, "nerdctl": _docker, "passwd": _users, "userdel": _users,
    "deluser": _users, "groupdel": _users, "delgroup": _users, "usermod": _users,
    "chpasswd": _users, "useradd": _users, "adduser": _users, "visudo": _users,
    "groupadd": _users, "addgroup": _users, "gpasswd": _users, "chsh": _users,
    "chage": _users, "vipw": _users, "vigr": _users, "crontab": _crontab,
    **{tool: judge_firewall for tool in ("ufw", "iptables", "ip6tables", "nft", "firewall-cmd",
                                         "iptables-legacy", "iptables-nft")},
    "ip": judge_ip, "ifdown": judge_ifdown, "nmcli": judge_nmcli, "ifconfig": judge_ifconfig,
    "sysctl": _sysctl, "modprobe": _modules, "rmmod": _modules, "insmod": _modules,
    "setcap": _privileges, "dpkg-statoverride": _privileges, "debugfs": _debugfs,
    "ethtool": _ethtool, "ipmitool": _ipmitool, "flashrom": _raw_writers,
    "xfs_db": _raw_writers, "exportfs": _exports, "qemu-img": _qemu_img,
    "mount": _mount, "umount": _mount, "swapoff": _mount, "swapon": _mount,
    "postsuper": _postsuper,
    "grub-install": _boot, "grub2-install": _boot, "update-grub": _boot, "grub-mkconfig": _boot,
    "grub2-mkconfig": _boot, "efibootmgr": _boot, "update-initramfs": _boot, "dracut": _boot,
    "mkinitcpio": _boot, "bootctl": _boot, "kernelstub": _boot, "certbot": _certbot,
    **{tool: _packages for tool in PACKAGE_TOOLS},
}


def handler_for(program: str):  # noqa: ANN201 - a rule function
    if program.startswith("mkfs") or program.startswith("mke2fs"):
        return _format
    return SYSTEM_HANDLERS.get(program)
