"""Read-only grammars of administration tools outside the everyday families: security
modules (SELinux, AppArmor, audit), firmware and boot, hardware probes, terminals and
sessions, archives of other formats, service daemons' version and test forms.

Plain data in the format described in `reos.safety.grammars`. Not responsible for
parsing (`reos.safety.grammar`) or for the named checks (`reos.safety.grammar_checks`).

Taken from the tools' `--help`, manual pages and sources as shipped in Debian 12
(util-linux 2.38, coreutils 9.1, ncurses 6.4, binutils 2.40, OpenSSH 9.2, tmux 3.3,
psmisc 23.6, iproute2 6.1, AppArmor 3.0, audit 3.0, systemd 252). Options a tool knows
that are not needed to read are refused even when harmless: failing closed only asks.
"""

from __future__ import annotations

NOT_LISTED = "is not among the forms known to only read"
ELSEWHERE = "acts on another machine, root or image"
ONLY_WHEN_CHANGING = "only matters to a command that changes something"

# -- bridge (iproute2): objects and commands match by prefix in an order of their own,
# so only the plain spellings of `show` are taken, as for `ip`
_BRIDGE_CHANGES = "add del delete set change replace append flush"


def _bridge_object() -> dict:
    return {"style": "single", "abbrev": False, "verbs": {"show list lst ls sh": "names"},
            "default": "show", "actions": _BRIDGE_CHANGES}


# -- tmux: a format (`-F`, and a filter `-f`) can hold `#(command)`, which runs it
_TMUX_FORMATS = {"-F -f": "takes a format, which can run a shell command (`#(...)`)"}

# -- ipmitool: only the local interface; every option for another controller refused
_IPMI_ELSEWHERE = {
    "-H -p -4 -6": "talks to another machine's management controller",
    "-U -P -f -E -a -k -K -y -Y -L -A -C -z -N -R -e": "sets credentials or session "
    "settings for a controller over the network",
    "-t -T -b -B -m -l": "bridges its requests to other controllers",
    "-o -g -s": "switches to a vendor's own (OEM) behaviour",
    "-d -D -O -S -Z": NOT_LISTED,
}


def _ipmi(verbs: dict[str, str], actions: str) -> dict:
    return {"abbrev": False, "verbs": verbs, "actions": actions}


# -- audit: ausearch and aureport read their own single-dash words exactly (no
# abbreviations); an option's value is the next word unless it starts with `-`, and
# `-ts`/`-te` may take a second (a time after the date). A word neither takes is an error.
_AUDIT_TIMES = "-ts --start -te --end"

# nginx's version and configuration-test forms; anything else starts or signals it
NGINX: dict = {"short": "tTqvVh?", "abbrev": False, "daemon": True,
               "deny": {"-c": "reads another configuration (which can load modules: code)",
                        "-g": "adds configuration directives (which can load modules)",
                        "-p": "uses another prefix (its configuration and modules)",
                        "-e": "writes its error log to another file",
                        "-s": "sends a signal to the running server"},
               "operands": "only:-t|-T|-v|-V|-h|-?"}

TABLE: dict[str, dict] = {
    "nginx": NGINX,
    # glibc's getconf reads only its first word as an option; `-v SPEC` runs the
    # getconf of another specification from GETCONF_DIR
    "getconf": {"style": "posix", "abbrev": False, "short": "a",
                "flags": "--help --version",
                "deny": {"-v": "runs the getconf helper of another specification"},
                "operands": "max2"},
    "hwclock": {
        "short": "rulvDhV",
        "flags": "--show --get --utc --localtime --verbose --debug --help --version",
        "deny": {"-s --hctosys -w --systohc --set --systz -a --adjust --setepoch --epoch "
                 "--param-set --vl-clear --update-drift --date --delay": "sets the system "
                 "clock or the hardware clock",
                 "-f --rtc --directisa": "reads another clock device or the bus directly",
                 "--param-get --getepoch --vl-read --predict --predict-hc --test "
                 "--noadjfile --adjfile --ul-debug": NOT_LISTED},
        "operands": "none",
    },
    # stty reads the terminal on its input; any other word (`-echo`, `115200`, `rows 40`)
    # sets it. `size` and `speed` only print
    "stty": {"short": "ag", "flags": "--all --save --help --version",
             "deny": {"-F --file": "opens another terminal device (and sets it)"},
             "verbs": {"size speed": "none"}, "default": "size"},
    # only capabilities that print a number or a name: a string capability is an escape
    # sequence that changes the terminal when printed; init, reset and clear change it
    "tput": {"abbrev": False, "short": "V", "short_values": "T", "checks": {"-T": "word"},
             "deny": {"-S": "reads capabilities from its input, which can change the "
                            "terminal"},
             "verbs": {"cols lines colors pairs it lm xmc pb vt wsl nlab lh lw ma wnum ncv "
                       "longname": "none"},
             "actions": "init reset clear"},
    # GNU bc has no way to write a file or run a command; its operands are programs read
    "bc": {"short": "hilqswv", "flags": "--help --interactive --mathlib --quiet --standard "
           "--warn --version", "operands": "any"},
    # `ar tv lib.a`, `ar p lib.a member.o`: only the list and print keys; `s` as a
    # modifier writes an index into the archive, so only `v` and `O` go with them
    "ar": {
        "bundle_first": True, "response_files": True,
        "short": "tpvOhV", "flags": "--help --version",
        "values": "--target", "checks": {"--target": "word"},
        "deny": {"-d -m -q -r -s -x": "changes the archive or extracts its members",
                 "-M": "runs an MRI script from its input, which can change archives",
                 "-a -b -i -c -f -l -o -u -D -U -S -T": "only matters to a key that writes "
                 "or extracts", "--output": "extracts into another folder",
                 "--thin --record-libdeps": "changes how the archive is written",
                 "--plugin": "loads a plugin (code)"},
        "operands": "need:-t|-p|-h|--help|-V|--version",
    },
    # options end at the first operand (OpenSSH's getopt): `ssh-add key -l` adds `key`
    "ssh-add": {"style": "posix", "abbrev": False, "short": "lL", "short_values": "E",
                "checks": {"-E": "one-of:md5|sha256"},
                "deny": {"-d -D -e": "removes keys from the agent",
                         "-x -X": "locks or unlocks the agent",
                         "-s -S": "loads a PKCS#11 or security key provider (code)",
                         "-c -t -h -H -k -K -M -m -q -v": "adds keys (or only matters "
                         "when adding them)", "-T": "signs with the keys to test them"},
                "operands": "only:-l|-L"},
    # only listing commands, which never start a server; `-S` names any socket, which may
    # be another program's, and tmux would send it its messages and environment
    "tmux": {
        "abbrev": False, "short": "N", "short_values": "L", "checks": {"-L": "word"},
        "deny": {"-f": "reads another configuration, which can run commands",
                 "-c": "runs a shell command", "-C": "starts control mode",
                 "-D": "runs a server in the foreground", "-v": "writes log files",
                 "-l": "starts a login shell",
                 "-S": "connects to any socket named, which may be another program's"},
        "sub": {
            "list-sessions ls": {"abbrev": False, "style": "posix", "deny": _TMUX_FORMATS,
                                 "operands": "none"},
            "list-windows lsw": {"abbrev": False, "style": "posix", "short": "a",
                                 "deny": _TMUX_FORMATS, "operands": "none"},
            "list-panes lsp": {"abbrev": False, "style": "posix", "short": "as",
                               "deny": _TMUX_FORMATS, "operands": "none"},
            "list-clients lsc": {"abbrev": False, "style": "posix", "deny": _TMUX_FORMATS,
                                 "operands": "none"},
        },
    },
    # `-ls` lists and exits before anything else is looked at (its operand is a pattern)
    "screen": {"style": "single", "abbrev": False, "flags": "-ls -list",
               "operands": "need:-ls|-list"},
    # psmisc reads long options exactly and letters one by one; `-SIGNAL` and `-9` set the
    # signal to send (refused: unknown). Names are only looked at, never opened
    "fuser": {
        "abbrev": False, "short": "vmausMcfIl46V", "short_values": "n",
        "checks": {"-n": "one-of:file|udp|tcp", "--namespace": "one-of:file|udp|tcp"},
        "flags": "--verbose --mount --all --user --silent --ismountpoint --inode "
                 "--list-signals --ipv4 --ipv6 --version",
        "values": "--namespace",
        "deny": {"-k --kill": "kills the processes it finds",
                 "-i --interactive": "asks before killing (with -k)",
                 "-w --writeonly": "kills only the processes that write (with -k)"},
        "operands": "names",
    },
    # `iw dev NAME info|link` and `iw dev NAME station dump` need a check of their own
    # (an interface name, then those words): refused until there is one
    "iw": {"abbrev": False, "sub": {
        "dev": {"abbrev": False, "operands": "none"},
        "list phy": {"abbrev": False, "operands": "none"},
        "reg": {"abbrev": False, "sub": {"get": {"abbrev": False, "operands": "none"}}},
    }},
    "bridge": {
        "style": "single", "abbrev": False,
        "flags": "-h -help -V -Version -s -stats -statistics -d -details -o -oneline -t "
                 "-timestamp -4 -6 -c -color -color=always -color=never -color=auto "
                 "-compressvlans -j -json -p -pretty",
        "values": "-f -family -n -netns",
        "checks": {"-f": "word", "-family": "word", "-n": "word", "-netns": "word"},
        "deny": {"-b -batch": "runs commands from a file", "-force": "goes on after errors"},
        "sub": {"link": _bridge_object(), "fdb": _bridge_object(),
                "vlan": _bridge_object(), "mdb": _bridge_object()},
    },
    # SELinux and AppArmor status
    "getenforce": {"abbrev": False, "operands": "none"},
    "sestatus": {"abbrev": False, "short": "vb", "operands": "none"},
    "getsebool": {"abbrev": False, "short": "a", "operands": "names"},
    # AppArmor 3.0's aa-status takes one exact word; each only prints (`--kill` counts
    # the profiles in kill mode)
    "aa-status": {"abbrev": False, "flags": "--enabled --profiled --enforced --complaining "
                  "--kill --special-unconfined --process-mixed --json --pretty-json "
                  "--verbose --help", "operands": "none"},
    # aureport only reads the logs and prints reports; a stray word is an error to it
    "aureport": {
        "style": "single", "abbrev": False,
        "flags": "-au --auth -a --avc --add -c --config --comm -cr --crypto --delete -e "
                 "--event -f --file --failed -h --host --help -i --interpret --input-logs "
                 "--integrity -k --key -l --login -m --mods -ma --mac -nc --no-config -n "
                 "--anomaly -p --pid -r --response -s --syscall --success --summary -t "
                 "--log -tm --terminal --tty -u --user -v --version -x --executable "
                 "--virt",
        "values": f"-if --input --node {_AUDIT_TIMES}",
        "operands": "names",
    },
    # ausearch reads the logs; only `--checkpoint` writes (its checkpoint file)
    "ausearch": {
        "style": "single", "abbrev": False,
        "flags": "--debug -h --help -i --interpret --input-logs --just-one -l "
                 "--line-buffered -r --raw -v --version -w --word --extra-keys "
                 "--extra-labels --extra-obj2 --extra-time",
        "values": "-a --event --arch -c --comm -e --exit -f --file -ga --gid-all -ge "
                  "--gid-effective -gi --gid -hn --host -if --input -k --key -m --message "
                  "-n --node -o --object -p --pid -pp --ppid -sc --syscall -se --context "
                  f"--session -su --subject -sv --success {_AUDIT_TIMES} -tm --terminal "
                  "-ua --uid-all -ue --uid-effective -ui --uid -ul --loginuid -uu --uuid "
                  "-vm --vm-name -x --executable --escape --format",
        "deny": {"--checkpoint": "writes a checkpoint file"},
        "operands": "names",
    },
    # firmware and boot
    "mokutil": {
        "short": "lNDhvamX",
        "flags": "--sb-state --list-enrolled --list-new --list-delete --pk --kek --db --dbx "
                 "--help --version --is-sb-enabled --list-sbat-revocations --sbat --short "
                 "--all --mok --mokx",
        "deny": {"-i --import -d --delete --import-hash --delete-hash --revoke-import "
                 "--revoke-delete --reset -p --password -c --clear-password "
                 "--disable-validation --enable-validation --ignore-db --use-db "
                 "--trust-mok --untrust-mok --set-verbosity --set-fallback-verbosity "
                 "--set-fallback-noreboot --set-sbat-policy --set-ssp-policy --timeout":
                 "asks the firmware to change keys or settings at the next boot",
                 "-x --export": "writes the keys to files",
                 "-t --test-key -f --hash-file -g --generate-hash -P --root-pw "
                 "--simple-hash -s --ca-check --ignore-keyring": NOT_LISTED},
        "operands": "none",
    },
    "bootctl": {
        "short": "hpxRq",
        "flags": "--help --version --print-esp-path --print-path --print-boot-path "
                 "--print-loader-path --print-stub-path --print-root-device --no-variables "
                 "--no-pager --graceful --quiet",
        "values": "--json", "checks": {"--json": "one-of:off|short|pretty"},
        "deny": {"--root --image --image-policy": ELSEWHERE,
                 "--install-source --variables --random-seed --make-entry-directory "
                 "--make-machine-id-directory --entry-token --all-architectures "
                 "--efi-boot-option-description --efi-boot-option-description-with-device "
                 "--dry-run --secure-boot-auto-enroll --certificate --certificate-source "
                 "--private-key --private-key-source": ONLY_WHEN_CHANGING,
                 "--esp-path --path --boot-path": NOT_LISTED},
        "verbs": {"status list is-installed": "none"},
        "default": "status",
        "actions": "install update remove random-seed set-default set-oneshot set-timeout "
                   "set-timeout-oneshot systemd-efi-options reboot-to-firmware unlink "
                   "cleanup link",
    },
    # cpupower reads its own options exactly, before the command; the commands' options
    # are getopt_long's (`--help` there runs man, so it is left out)
    "cpupower": {
        "abbrev": False, "short": "hv", "short_values": "c",
        "flags": "--help --version", "values": "--cpu",
        "checks": {"-c": "word", "--cpu": "word"},
        "sub": {
            "frequency-info": {"short": "ebfwldpgrasyomnc",
                               "flags": "--debug --boost --freq --hwfreq --hwlimits "
                                        "--driver --policy --governors --related-cpus "
                                        "--affected-cpus --stats --latency --proc --human "
                                        "--no-rounding --performance",
                               "operands": "none"},
            "idle-info": {"short": "so", "flags": "--silent --proc", "operands": "none"},
        },
    },
    # `tuned-adm profile` alone lists the profiles; with a name it switches to it
    "tuned-adm": {"abbrev": False, "short": "hv", "flags": "--help --version", "sub": {
        "active list recommend profile": {"abbrev": False, "operands": "none"}}},
    # `-l` lists the buses; anything with a bus number probes the devices on it
    "i2cdetect": {"style": "posix", "abbrev": False, "short": "lV",
                  "deny": {"-y -a -q -r -F": "only matters when it probes a bus, which can "
                           "upset the devices on it"},
                  "operands": "only:-l|-V"},
    # only the queue listings and the version: string expansion (-be) and address tests
    # (-bt) can run commands
    "exim": {"style": "single", "abbrev": False, "daemon": True,
             "flags": "-bp -bpc -bpr -bpu -bpa -bV",
             "deny": {"-be -bem": "expands strings, which can run commands",
                      "-bt -bv -bh -bhc": "runs routers or ACLs, which can run commands",
                      "-bd -bdf -bm -bs -bS -bi -t -q -qf -qff -R -S -M -Mrm -Mf -Mt -Mg "
                      "-Mc -Mar -Mes -Mmad -Mmd": "delivers, changes or removes mail",
                      "-C -D": "reads another configuration or defines its macros"},
             "operands": "only:-bp|-bpc|-bpr|-bpu|-bpa|-bV"},
    # the local interface only (`-I open`, the default), with reading commands
    "ipmitool": {
        "abbrev": False, "short": "vVhc", "short_values": "I",
        "checks": {"-I": "one-of:open"}, "deny": _IPMI_ELSEWHERE,
        "sub": {
            "sel": _ipmi({"list elist": "max2", "info": "none"},
                         "clear delete add save writeraw readraw edit set time"),
            "sdr": _ipmi({"list elist type": "max1", "info": "none"}, "dump fill"),
            "sensor": _ipmi({"list": "none"}, "thresh"),
            "chassis": _ipmi({"status": "none"},
                             "power identify policy bootdev bootparam selftest"),
            "fru": _ipmi({"print": "max1"}, "edit write upgEkey internaluse"),
            "mc": _ipmi({"info": "none"}, "reset watchdog setenables selftest"),
            "lan": _ipmi({"print": "max1"}, "set alert stats"),
        },
    },
}

TABLE["exim4"] = TABLE["exim"]
