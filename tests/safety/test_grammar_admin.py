"""The read-only grammars of the administration tools (reos/safety/grammars/admin.py):
each tool's reading forms are read-only, and its acting forms (setting, adding,
deleting, signalling, probing, reaching another machine) are not, abbreviated or
bundled as the tool itself would read them.

Only argv lists are judged here: nothing is run.
"""

from __future__ import annotations

import pytest

from reos.safety import grammar
from reos.safety.grammar import reads_only
from reos.safety.grammars import TABLE, admin


def test_every_admin_entry_is_in_the_table() -> None:
    assert set(admin.TABLE) <= set(TABLE)
    assert all(TABLE[name] is entry for name, entry in admin.TABLE.items())


READS = [
    # getconf
    ["getconf", "PAGESIZE"], ["getconf", "PATH_MAX", "/"], ["getconf", "-a"],
    # hwclock: reading the clock only
    ["hwclock"], ["hwclock", "-r"], ["hwclock", "--show"], ["hwclock", "--get"],
    ["hwclock", "--show", "--utc"], ["hwclock", "-r", "--localtime", "--verbose"],
    ["hwclock", "-ru"], ["hwclock", "--sh", "--debug"],
    # stty
    ["stty", "-a"], ["stty", "--all"], ["stty", "-g"], ["stty", "--save"],
    ["stty", "size"], ["stty", "speed"],
    # tput: numbers and names
    ["tput", "cols"], ["tput", "lines"], ["tput", "colors"], ["tput", "longname"],
    ["tput", "-T", "xterm-256color", "colors"], ["tput", "-Tvt100", "cols"],
    # bc
    ["bc", "-l"], ["bc", "-lq", "calc.bc"], ["bc", "--mathlib", "--quiet"],
    ["bc", "-s", "-w", "a.bc"], ["bc", "--standard", "--warn"],
    # ar: list and print
    ["ar", "t", "lib.a"], ["ar", "tv", "lib.a"], ["ar", "tvO", "lib.a"],
    ["ar", "-t", "lib.a"], ["ar", "p", "lib.a", "x.o"], ["ar", "pv", "lib.a"],
    ["ar", "t", "/usr/lib/x86_64-linux-gnu/libc_nonshared.a"],
    # ssh-add: the agent's keys
    ["ssh-add", "-l"], ["ssh-add", "-L"], ["ssh-add", "-l", "-E", "md5"],
    ["ssh-add", "-lE", "sha256"],
    # tmux: listings
    ["tmux", "ls"], ["tmux", "list-sessions"], ["tmux", "list-windows", "-a"],
    ["tmux", "lsw"], ["tmux", "list-panes", "-as"], ["tmux", "lsp"],
    ["tmux", "list-clients"], ["tmux", "lsc"], ["tmux", "-L", "work", "ls"],
    # screen
    ["screen", "-ls"], ["screen", "-list"], ["screen", "-ls", "main"],
    # fuser
    ["fuser", "-v", "-m", "/home"], ["fuser", "-vm", "/srv"], ["fuser", "-v", "-n", "tcp",
                                                              "80"],
    ["fuser", "80/tcp"], ["fuser", "-auv", "/var/log"], ["fuser", "-sM", "/mnt"],
    ["fuser", "-c", "-4", "/home"], ["fuser", "-l"], ["fuser", "-V"],
    ["fuser", "--verbose", "--namespace", "udp", "53"],
    # iw
    ["iw", "dev"], ["iw", "list"], ["iw", "phy"], ["iw", "reg", "get"],
    # bridge
    ["bridge", "link"], ["bridge", "link", "show"], ["bridge", "fdb", "show"],
    ["bridge", "-d", "vlan", "show"], ["bridge", "-j", "-p", "mdb", "show"],
    ["bridge", "-s", "fdb", "show", "dev", "br0"], ["bridge", "vlan"],
    ["bridge", "-c", "link", "ls"],
    # SELinux, AppArmor, audit
    ["getenforce"], ["sestatus"], ["sestatus", "-v"], ["sestatus", "-b"],
    ["getsebool", "-a"], ["getsebool", "httpd_can_network_connect"],
    ["aa-status"], ["aa-status", "--json"], ["aa-status", "--enabled"],
    ["aa-status", "--pretty-json"], ["aa-status", "--kill"],
    ["aureport", "--summary"], ["aureport", "--failed", "--summary"],
    ["aureport", "-au", "-ts", "today"], ["aureport", "-x", "-if", "audit.log.1"],
    ["aureport", "-ts", "10/01/2023", "09:00:00", "-l"],
    ["ausearch", "-m", "USER_LOGIN", "-ts", "today", "-i"], ["ausearch", "-k", "mykey"],
    ["ausearch", "-p", "1", "--format", "text"], ["ausearch", "-if", "audit.log", "-sv",
                                                  "no"],
    # firmware and boot
    ["mokutil", "--sb-state"], ["mokutil", "--list-enrolled"], ["mokutil", "-l"],
    ["mokutil", "--list-new"], ["mokutil", "--list-delete"], ["mokutil", "--pk"],
    ["mokutil", "--kek"], ["mokutil", "--db"], ["mokutil", "--dbx"], ["mokutil", "--help"],
    ["mokutil", "--sb-s"],
    ["bootctl"], ["bootctl", "status"], ["bootctl", "list"], ["bootctl", "is-installed"],
    ["bootctl", "--no-pager", "status"], ["bootctl", "list", "--json=short"],
    ["cpupower", "frequency-info"], ["cpupower", "idle-info"],
    ["cpupower", "-c", "all", "frequency-info", "-g"], ["cpupower", "frequency-info", "-pm"],
    ["cpupower", "frequency-info", "--governors"],
    ["tuned-adm", "active"], ["tuned-adm", "list"], ["tuned-adm", "recommend"],
    ["tuned-adm", "profile"],
    ["i2cdetect", "-l"], ["i2cdetect", "-V"],
    # mail queue
    ["exim", "-bp"], ["exim4", "-bpc"], ["exim", "-bpr"], ["exim", "-bpu"], ["exim", "-bpa"],
    ["exim", "-bV"],
    # ipmitool, local interface
    ["ipmitool", "sel", "list"], ["ipmitool", "sel", "elist"], ["ipmitool", "sel", "info"],
    ["ipmitool", "sel", "list", "last", "10"], ["ipmitool", "sdr", "list"],
    ["ipmitool", "sdr", "elist"], ["ipmitool", "sdr", "info"],
    ["ipmitool", "sdr", "type", "Temperature"], ["ipmitool", "sensor", "list"],
    ["ipmitool", "chassis", "status"], ["ipmitool", "fru", "print"],
    ["ipmitool", "mc", "info"], ["ipmitool", "lan", "print"], ["ipmitool", "lan", "print", "1"],
    ["ipmitool", "-I", "open", "sensor", "list"], ["ipmitool", "-c", "sdr", "list"],
]


@pytest.mark.parametrize("argv", READS)
def test_the_reading_forms_are_read_only(argv: list[str]) -> None:
    assert reads_only(argv).ok, (argv, reads_only(argv).why)


ACTS = [
    # getconf: -v runs the getconf of another specification
    ["getconf", "-v", "POSIX_V7_LP64_OFF64", "LONG_BIT"], ["getconf", "-av", "X"],
    ["getconf", "PATH_MAX", "/dev/watchdog"],
    # hwclock: setting or adjusting, abbreviated, bundled, another device
    ["hwclock", "-w"], ["hwclock", "-s"], ["hwclock", "--systohc"], ["hwclock", "--systo"],
    ["hwclock", "--hc"], ["hwclock", "--set", "--date", "2020-01-01"], ["hwclock", "--adj"],
    ["hwclock", "--systz"], ["hwclock", "-rw"], ["hwclock", "-uw"], ["hwclock", "-a"],
    ["hwclock", "-r", "-f", "/dev/rtc1"], ["hwclock", "--rtc=/dev/rtc1"],
    ["hwclock", "--param-set", "bsm=1"], ["hwclock", "--s"],
    # stty: any other operand sets the terminal; -F opens another one
    ["stty", "-F", "/dev/ttyS0", "115200"], ["stty", "--file=/dev/ttyUSB0", "raw"],
    ["stty", "--fi", "/dev/ttyS0"], ["stty", "-aF", "/dev/ttyS0"], ["stty", "raw"],
    ["stty", "-echo"], ["stty", "115200"], ["stty", "rows", "40"], ["stty", "sane"],
    ["stty", "size", "cols", "10"],
    # tput: initialising, clearing, string capabilities, commands from stdin
    ["tput", "init"], ["tput", "reset"], ["tput", "clear"], ["tput", "cup", "0", "0"],
    ["tput", "smcup"], ["tput", "sgr0"], ["tput", "civis"], ["tput", "-S"],
    ["tput", "cols", "clear"], ["tput", "-T", "../../tmp/evil", "cols"],
    # bc: an unknown option, a device as a program
    ["bc", "-c"], ["bc", "/dev/watchdog"],
    # ar: keys that write or extract, `s` as a modifier, response files, plugins
    ["ar", "x", "lib.a"], ["ar", "d", "lib.a", "x.o"], ["ar", "r", "lib.a", "x.o"],
    ["ar", "q", "lib.a", "x.o"], ["ar", "s", "libfoo.a"], ["ar", "ts", "lib.a"],
    ["ar", "tvs", "lib.a"], ["ar", "-ts", "lib.a"], ["ar", "xo", "lib.a"],
    ["ar", "t", "@args"], ["ar", "@args"], ["ar", "--plugin", "x.so", "t", "lib.a"],
    ["ar", "t", "--plug", "x.so", "lib.a"], ["ar", "--output=/tmp", "x", "lib.a"],
    ["ar", "tl", "x", "lib.a"], ["ar", "-M"], ["ar", "t", "--thin", "lib.a"],
    # ssh-add: adding, deleting, locking, providers; options after a key file
    ["ssh-add"], ["ssh-add", "key"], ["ssh-add", "-d", "key"], ["ssh-add", "-D"],
    ["ssh-add", "-x"], ["ssh-add", "-X"], ["ssh-add", "-s", "/tmp/pkcs11.so"],
    ["ssh-add", "-lD"], ["ssh-add", "-Ld"], ["ssh-add", "key", "-l"],
    ["ssh-add", "-t", "60", "key"], ["ssh-add", "-l", "-E", "sha1"], ["ssh-add", "-l", "key"],
    # tmux: anything that starts or drives a server, configurations, formats, sockets
    ["tmux"], ["tmux", "new-session", "-d", "rm -rf /"], ["tmux", "kill-server"],
    ["tmux", "send-keys", "-t", "0", "reboot", "Enter"], ["tmux", "ls", ";", "kill-server"],
    ["tmux", "ls", "-F", "#(id)"], ["tmux", "lsw", "-f", "#(id)"],
    ["tmux", "-f", "/tmp/x.conf", "ls"], ["tmux", "-Nf", "/tmp/x.conf", "ls"],
    ["tmux", "-S", "/run/docker.sock", "ls"], ["tmux", "-c", "id"],
    ["tmux", "-L", "../../run/x", "ls"], ["tmux", "list-s"], ["tmux", "-v", "ls"],
    ["tmux", "lsw", "-t", "x;", "kill-server"],
    # screen
    ["screen"], ["screen", "-dmS", "x", "reboot"], ["screen", "-S", "main", "-X", "stuff",
                                                     "reboot"],
    ["screen", "-r"], ["screen", "-wipe"], ["screen", "-ls", "-X", "quit"],
    # fuser: killing, in every spelling; signals are not known options
    ["fuser", "-k", "80/tcp"], ["fuser", "-vmk", "/srv/data"], ["fuser", "-km", "/srv"],
    ["fuser", "--ki", "--mo", "/home"], ["fuser", "--kill", "/home"],
    ["fuser", "-i", "-k", "/x"], ["fuser", "-w", "/x"], ["fuser", "-9", "/home"],
    ["fuser", "-HUP", "/home"], ["fuser", "-SIGTERM", "-m", "/home"], ["fuser", "-TERM", "/x"],
    ["fuser", "-nk", "tcp", "80"], ["fuser", "-n", "raw", "80"],
    # iw: scanning, setting, connecting (and, until a check exists, NAME forms)
    ["iw"], ["iw", "dev", "wlan0", "scan"], ["iw", "dev", "wlan0", "set", "type", "monitor"],
    ["iw", "reg", "set", "BZ"], ["iw", "dev", "wlan0", "connect", "x"], ["iw", "event"],
    ["iw", "phy", "phy0", "set", "txpower", "fixed", "3000"], ["iw", "dev", "wlan0", "del"],
    # bridge
    ["bridge", "fdb", "add", "00:11:22:33:44:55", "dev", "eth0"],
    ["bridge", "link", "set", "dev", "eth0", "state", "0"],
    ["bridge", "vlan", "del", "vid", "10", "dev", "eth0"], ["bridge", "mdb", "flush"],
    ["bridge", "monitor"], ["bridge", "-b", "/tmp/cmds"], ["bridge", "-batch", "x"],
    ["bridge", "-force", "fdb", "show"], ["bridge", "fdb", "s"], ["bridge", "l"],
    ["bridge", "fdb", "show", "flush"], ["bridge", "vlan", "set", "vid", "1"],
    # SELinux, AppArmor
    ["getenforce", "x"], ["sestatus", "-z"], ["getsebool", "-b"], ["aa-status", "--kil"],
    ["aa-status", "x"],
    # audit: the checkpoint file, devices as input
    ["ausearch", "--checkpoint", "/tmp/cp"], ["ausearch", "-m", "x", "--checkpoint", "cp"],
    ["ausearch", "-if", "/dev/watchdog"], ["aureport", "-if", "/dev/watchdog"],
    ["aureport", "--foo"],
    # mokutil: enrolling, deleting, validation, passwords, exports
    ["mokutil", "--import", "/tmp/key.der"], ["mokutil", "-i", "k.der"],
    ["mokutil", "--imp", "k.der"], ["mokutil", "--delete", "k.der"], ["mokutil", "--reset"],
    ["mokutil", "--disable-validation"], ["mokutil", "--dis"], ["mokutil", "--password"],
    ["mokutil", "-x"], ["mokutil", "-lx"], ["mokutil", "--export"],
    ["mokutil", "--set-sbat-policy", "delete"], ["mokutil", "--timeout", "10"],
    ["mokutil", "--list-enrolled", "--import", "k.der"],
    # bootctl
    ["bootctl", "install"], ["bootctl", "update"], ["bootctl", "remove"],
    ["bootctl", "set-default", "evil.conf"], ["bootctl", "set-oneshot", "x"],
    ["bootctl", "random-seed"], ["bootctl", "set-timeout", "5"], ["bootctl", "cleanup"],
    ["bootctl", "status", "--root=/mnt"], ["bootctl", "--image=/tmp/x.img", "status"],
    ["bootctl", "--ro", "/mnt", "status"], ["bootctl", "status", "reboot-to-firmware"],
    ["bootctl", "status", "x"],
    # cpupower
    ["cpupower"], ["cpupower", "frequency-set", "-g", "powersave"],
    ["cpupower", "idle-set", "-d", "2"], ["cpupower", "set", "-b", "0"],
    ["cpupower", "monitor", "sleep", "1"], ["cpupower", "-c", "0", "frequency-set", "-f",
                                            "1GHz"],
    ["cpupower", "frequency-info", "--help"], ["cpupower", "frequency-info", "x"],
    # tuned-adm
    ["tuned-adm", "profile", "powersave"], ["tuned-adm", "off"],
    ["tuned-adm", "auto_profile"], ["tuned-adm", "-a", "profile", "x"],
    ["tuned-adm", "list", "x"],
    # i2cdetect: anything with a bus number probes it
    ["i2cdetect", "1"], ["i2cdetect", "-y", "1"], ["i2cdetect", "-l", "1"],
    ["i2cdetect", "-ly"], ["i2cdetect", "-a", "-y", "0"], ["i2cdetect", "-F", "0"],
    ["i2cdetect"],
    # exim: expansion, address tests, queue actions, another configuration, sending
    ["exim", "-be", "${run{/bin/sh}}"], ["exim", "-bem", "msg"], ["exim", "-bt", "root"],
    ["exim", "-Mrm", "1rABCD-000123-XY"], ["exim", "-qff"], ["exim", "-bd"],
    ["exim", "-C", "/tmp/x", "-bp"], ["exim", "root@localhost"], ["exim4", "-bp", "-be", "x"],
    ["exim", "-bV", "user@example.org"], ["exim", "-bpx"], ["exim"],
    # ipmitool: acting commands, other controllers, credentials, raw requests
    ["ipmitool"], ["ipmitool", "sel", "clear"], ["ipmitool", "sel", "delete", "1"],
    ["ipmitool", "sel", "list", "clear"], ["ipmitool", "chassis", "power", "off"],
    ["ipmitool", "chassis", "power", "status"], ["ipmitool", "chassis", "bootdev", "pxe"],
    ["ipmitool", "user", "set", "password", "2", "x"], ["ipmitool", "raw", "0x06", "0x01"],
    ["ipmitool", "mc", "reset", "cold"], ["ipmitool", "lan", "set", "1", "ipaddr", "x"],
    ["ipmitool", "sdr", "dump", "/tmp/x"], ["ipmitool", "sensor", "thresh", "x"],
    ["ipmitool", "fru", "edit"], ["ipmitool", "-H", "10.0.0.5", "-U", "admin", "-P", "x",
                                  "sel", "list"],
    ["ipmitool", "-I", "lanplus", "sel", "list"], ["ipmitool", "-E", "sel", "list"],
    ["ipmitool", "-f", "/tmp/pw", "sdr", "list"], ["ipmitool", "-vH", "x", "sel", "list"],
    ["ipmitool", "sel", "list", "-H", "x"], ["ipmitool", "-t", "0x82", "sel", "list"],
    ["ipmitool", "-o", "supermicro", "sel", "list"], ["ipmitool", "lan", "print", "1", "2"],
]


@pytest.mark.parametrize("argv", ACTS)
def test_the_acting_forms_are_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok, argv


@pytest.mark.parametrize(("argv", "named"), [
    (["hwclock", "--systo"], "`--systo` is `--systohc`"),
    (["fuser", "-vmk", "/srv"], "`-k`"),
    (["stty", "--fi", "/dev/ttyS0"], "`--fi` is `--file`"),
    (["mokutil", "--dis"], "`--dis` is `--disable-validation`"),
    (["ar", "t", "--plug", "x.so", "lib.a"], "`--plug` is `--plugin`"),
    (["ar", "t", "@args"], "`@args`"),
    (["ausearch", "--checkpoint", "cp"], "`--checkpoint`"),
    (["tmux", "ls", "-F", "#(id)"], "`-F`"),
    (["bootctl", "--ro", "/mnt", "status"], "`--ro` is `--root`"),
])
def test_the_refusal_names_the_word_that_acts(argv: list[str], named: str) -> None:
    proof = reads_only(argv)
    assert not proof.ok
    assert named in (proof.why or ""), proof.why


@pytest.mark.parametrize(("argv", "ok"), [
    (["nginx", "-t"], True), (["nginx", "-T"], True), (["nginx", "-qt"], True),
    (["nginx", "-v"], True), (["nginx", "-V"], True), (["nginx", "-h"], True),
    (["nginx"], False), (["nginx", "-q"], False), (["nginx", "-t", "-c", "/tmp/x.conf"], False),
    (["nginx", "-tc", "/tmp/x.conf"], False), (["nginx", "-t", "-g", "load_module x.so;"],
                                               False),
    (["nginx", "-s", "reload"], False), (["nginx", "-sstop"], False),
    (["nginx", "-q", "-t", "-e", "/etc/nologin"], False), (["nginx", "-p", "/tmp", "-t"],
                                                           False),
    (["nginx", "-t", "x"], False),
])
def test_nginx_only_shows_its_version_or_tests_its_configuration(argv: list[str],
                                                                 ok: bool) -> None:
    assert reads_only(argv).ok is ok, (argv, reads_only(argv).why)
    assert grammar.spec_for("nginx") is not None and grammar.spec_for("nginx").daemon
