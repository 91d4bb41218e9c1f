"""Read-only grammars of desktop getters and small readers outside the everyday families:
desktop settings (gsettings, dconf), display, sound and brightness getters (xrandr,
pactl, amixer, brightnessctl, powerprofilesctl), file type queries (xdg-mime), calendars,
the locate family, kernel slab and I/O monitors in their one-shot forms (slabtop, iotop),
host key and port probes (ssh-keyscan, nc), package checksums (debsums), the trust
store's listing, run-parts' listing forms, iptables-restore's test form, usb-devices, and
the desktop services' reporters (lpstat, wpctl status, systemd-inhibit --list, fwupdmgr's
listings).

Plain data in the format described in `reos.safety.grammars`. Not responsible for
parsing (`reos.safety.grammar`) or for the named checks (`reos.safety.grammar_checks`).

Taken from the tools' `--help`, manual pages and sources as shipped in Debian 12 (glib
2.74, dconf 0.40, x11-xserver-utils 7.7, pulseaudio-utils 16.1, alsa-utils 1.2.8,
xdg-utils 1.1.3, brightnessctl 0.5.1, power-profiles-daemon 0.12, ncal 12.1.8, plocate
1.1.18, procps 4.0.2, iotop 0.6, OpenSSH 9.2, netcat-openbsd 1.219, netcat-traditional
1.10, ncat 7.93, usbutils 014, debsums 3.0.2.1, p11-kit 0.24.1, debianutils 5.7, iptables
1.8.9). Options a tool knows that are not needed to read are refused even when harmless:
failing closed only asks.
"""

from __future__ import annotations

NOT_LISTED = "is not among the forms known to only read"
ONLY_WHEN_CHANGING = "only matters to a command that changes something"


def _exact(operands: str, **more: object) -> dict:
    """A subcommand matched by its exact name, with no option of its own."""
    return {"abbrev": False, "operands": operands, **more}


# cal and ncal are one program (BSD ncal, as Debian ships it): every option only changes
# what is shown; util-linux's cal reads some letters otherwise, and shows as well
_CAL = {
    "abbrev": False, "short": "31CehjJopwySMb", "short_values": "ABdHmsW",
    "checks": {"-A": "number", "-B": "number", "-W": "number", "-d": "word", "-H": "word",
               "-m": "word", "-s": "word"},
    "operands": "max2",  # [[month] year]
}

# plocate, mlocate and GNU locate: search options only (slocate's -u, -U and -o build a
# database). -d names database files, which are opened
_LOCATE = {
    "short": "AbceiN0rwhVLPHSq", "short_values": "dln",
    "flags": "--all --basename --count --existing --ignore-case --literal --null --regexp "
             "--regex --wholename --help --version --follow --nofollow --statistics "
             "--quiet",
    "values": "--database --limit",
    "checks": {"-d": "any", "--database": "any", "-l": "number", "-n": "number",
               "--limit": "number"},
    "deny": {"-u -U -o": "builds a locate database (slocate)",
             "-D --debug --flush-cache --ignore-visibility -m --mmap -s --stdio":
             NOT_LISTED},
    "operands": "names",
}

# netcats (OpenBSD, traditional, ncat): only the port probe, which sends no data; the
# traditional nc and ncat run programs with -e and -c
_NETCAT = {
    "sends": "words", "abbrev": False, "short": "zvn46u", "short_values": "w",
    "checks": {"-w": "number"},
    "deny": {"-e -c": "runs a program on the connection",
             "-l -k": "listens for connections", "-o": "writes the traffic to a file"},
    "operands": "need:-z",
}

# with --test the rules read (stdin or one file) are checked and never committed
_RESTORE_TEST = {
    "short": "tvnhV", "short_values": "T",
    "flags": "--test --verbose --noflush --help --version", "values": "--table",
    "maybe": "-w --wait -W --wait-interval",
    "checks": {"-T": "word", "--table": "word", "-w": "number", "--wait": "number",
               "-W": "number", "--wait-interval": "number"},
    "deny": {"-M --modprobe": "runs the program named to load kernel modules",
             "-c --counters": "sets the rules' counters when they are committed",
             "-4 -6 --ipv4 --ipv6": NOT_LISTED},
    "operands": "need:-t|--test",
}

TABLE: dict[str, dict] = {
    # gsettings matches its command word exactly and counts the words after it; a word
    # that fits no form only prints its usage
    "gsettings": {"abbrev": False, "sub": {
        "get range describe writable": _exact("max2"),  # SCHEMA[:PATH] KEY
        "list-keys list-children list-recursively": _exact("max1"),
        "list-schemas": _exact("none", flags="--print-paths"),
        "list-relocatable-schemas": _exact("none"),
        "help": _exact("max1"),
    }},
    # dconf: `read [-d] KEY` (-d reads the default value, only as the first word)
    "dconf": {"abbrev": False, "sub": {
        "read": _exact("max1", short="d", style="posix"),
        "list dump list-locks help": _exact("max1"),
    }},
    # xrandr compares each word with its options exactly; without one that configures it
    # only queries
    "xrandr": {
        "abbrev": False,
        "flags": "-q --query --verbose --current --listmonitors --listactivemonitors "
                 "--listproviders --prop --props --properties -v --version --help",
        "deny": {"-s --size -r --rate --refresh -o --orientation -x -y --output --mode "
                 "--preferred --pos --rotate --rotation --reflect --reflection --left-of "
                 "--right-of --above --below --same-as --panning --gamma --brightness "
                 "--primary --noprimary --set --scale --scale-from --transform --filter "
                 "--off --crtc --fb --fbmm --dpi --auto --newmode --rmmode --addmode "
                 "--delmode --setprovideroutputsource --setprovideroffloadsink "
                 "--setmonitor --delmonitor": "changes the screen configuration",
                 "--dryrun --nograb --q1 --q12 --madprops --screen": NOT_LISTED,
                 "-d --display": "talks to another X display, which may be on another "
                 "machine"},
        "operands": "none",
    },
    # pactl reads its options up to the command (getopt "+"); commands match exactly
    "pactl": {
        "style": "posix", "short": "h", "short_values": "fn",
        "flags": "--help --version", "values": "--format --client-name",
        "checks": {"-f": "one-of:text|json", "--format": "one-of:text|json",
                   "-n": "word", "--client-name": "word"},
        "deny": {"-s --server": "talks to another sound server, which may be on another "
                 "machine"},
        "sub": {
            "info stat get-default-sink get-default-source": _exact("none"),
            "list": _exact("max2"),  # [short] [TYPE]
            "get-sink-volume get-sink-mute get-source-volume get-source-mute":
                _exact("max1"),
        },
    },
    # amixer takes options anywhere (getopt_long); get, sget and cget only show a control
    # (the value words that set and cset take are not read by them)
    "amixer": {
        "short": "ivh", "short_values": "cD",
        "flags": "--inactive --version --help", "values": "--card --device",
        "checks": {"-c": "word", "--card": "word", "-D": "word", "--device": "word"},
        "deny": {"-s --stdin": "runs the sset and cset commands it reads on its input",
                 "-q --quiet -n --nocheck -R --raw-volume -M --mapped-volume":
                 ONLY_WHEN_CHANGING,
                 "-d --debug -a --abstract": NOT_LISTED},
        "verbs": {"get sget cget": "max1",
                  "scontrols simple scontents controls contents info help": "none"},
        "default": "scontents",
        "actions": "set sset cset",
    },
    # xdg-mime's queries; `default`, `install` and `uninstall` change the associations
    "xdg-mime": {"abbrev": False, "sub": {"query": {"abbrev": False, "sub": {
        "filetype": _exact("max1"),  # FILE, read to find its type
        "default": _exact("max1"),  # TYPE
    }}}},
    # brightnessctl reads only the first letter of its operation (`s…` is set), so only
    # the exact reading words are taken
    "brightnessctl": {
        "short": "lmhV", "short_values": "dc",
        "flags": "--list --machine-readable --help --version", "values": "--device --class",
        "checks": {"-d": "word", "--device": "word", "-c": "word", "--class": "word"},
        "deny": {"-s --save": "writes the brightness to a state file",
                 "-r --restore": "sets the brightness saved before",
                 "-n --min-value -e --exponent -p --pretend -q --quiet": ONLY_WHEN_CHANGING},
        "verbs": {"get g info i max m": "none"},
        "default": "info",
        "actions": "set s",
    },
    "powerprofilesctl": {"abbrev": False, "default": "list", "sub": {
        "get list list-holds version": _exact("none")}},
    "cal": _CAL,
    "ncal": _CAL,
    "locate": _LOCATE,
    "plocate": _LOCATE,
    "mlocate": _LOCATE,
    # interactive slabtop never ends: only the one-shot listing
    "slabtop": {"short": "ohV", "short_values": "ds",
                "flags": "--once --help --version", "values": "--delay --sort",
                "checks": {"-d": "number", "--delay": "number",
                           "-s": "one-of:a|b|c|l|v|n|o|p|s|u",
                           "--sort": "one-of:a|b|c|l|v|n|o|p|s|u"},
                "operands": "only:-o|--once"},
    # iotop (Python) and iotop-c: batch mode only (the interactive one changes I/O
    # priorities with a key); iotop-c's long options are not all known here
    "iotop": {"abbrev": False, "short": "boPaktq", "short_values": "ndpu",
              "flags": "--batch --only --processes --accumulated --kilobytes --time "
                       "--quiet",
              "values": "--iter --delay --pid --user",
              "checks": {"-n": "number", "--iter": "number", "-d": "number",
                         "--delay": "number", "-p": "word", "--pid": "word", "-u": "word",
                         "--user": "word"},
              "operands": "only:-b|--batch"},
    # OpenSSH's own getopt: options end at the first host
    "ssh-keyscan": {"sends": "words", "style": "posix", "abbrev": False,
                    "short": "46cDHv", "short_values": "ptT",
                    "checks": {"-p": "number", "-T": "number", "-t": "word"},
                    "deny": {"-f": "reads the hosts to ask from a file or its input"},
                    "operands": "names"},
    "nc": _NETCAT,
    "netcat": _NETCAT,
    "ncat": _NETCAT,
    "usb-devices": {"abbrev": False, "operands": "none"},
    # CUPS's lpstat only reports; its reporting letters take an optional list of printers,
    # classes or users (accepted here as names); -h names another server
    # -v and -t print each queue's device URI, which can carry a password (smb://user:pw@)
    "lpstat": {"abbrev": False, "short": "adelorpRsuWc", "short_values": "",
               "deny": {"-h -E -U": "talks to another print server or as another user"},
               "operands": "names"},
    # wpctl (WirePlumber): status and the getters; set-*, clear-default and settings change
    "wpctl": {"abbrev": False, "sub": {
        "status": _exact("none", short="kn", flags="--nick --name"),
        "get-volume inspect": _exact("max1", short="ar", flags="--referenced --associated"),
    }},
    # systemd-inhibit runs the program it is given while holding the lock; only --list reads
    "systemd-inhibit": {"abbrev": False,
                        "flags": "--list --no-pager --no-legend --help --version",
                        "operands": "only:--list"},
    # fwupdmgr's listings; refresh downloads metadata, update/install flash firmware
    "fwupdmgr": {"abbrev": False, "sub": {
        "get-updates get-upgrades get-devices get-history get-remotes security": _exact(
            "max1", flags="--json --no-unreported-check --no-metadata-check "
                          "--no-remote-check --no-history --no-security-fix")}},
    # debsums (Getopt::Long, bundling): verifying installed packages by name only. A
    # `.deb` operand is unpacked into a temporary folder, and no check here tells a
    # package name from a file, so operands are refused
    "debsums": {
        "short": "aeclsx",
        "flags": "--all --config --changed --list-missing --silent --report-mismatches "
                 "--no-locale-purge --nolocale-purge --no-prelink --noprelink "
                 "--ignore-permissions --ignore-obsolete --no-ignore-obsolete "
                 "--noignore-obsolete --help --version",
        "deny": {"-g --generate": "unpacks package archives to make checksums (older "
                 "versions wrote them to dpkg's database)",
                 "-m --md5sums -p --deb-path": "only matters to package archives, which "
                 "it unpacks",
                 "-r --root -d --admindir": "checks another root or dpkg database",
                 "--locale-purge --prelink": NOT_LISTED},
        "operands": "none",
    },
    # p11-kit's trust: only the listing (anchor, extract and extract-compat write)
    "trust": {"abbrev": False, "sub": {"list": {
        "short": "vqh", "flags": "--details --verbose --quiet --help",
        "values": "--filter --purpose",
        "checks": {"--filter": "one-of:ca-anchors|trust-policy|blocklist|blacklist|"
                               "certificates",
                   "--purpose": "word"},
        "operands": "none"}}},
    # run-parts runs every script in the folder unless told only to name them
    "run-parts": {
        "short": "vdhV",
        "flags": "--test --list --verbose --debug --lsbsysinit --reverse --help --version",
        "values": "--regex",
        "deny": {"--report --exit-on-error --stdin --new-session -u --umask -a --arg":
                 "only matters when it runs the scripts"},
        "operands": "need:--test|--list",
    },
    "iptables-restore": _RESTORE_TEST,
    "ip6tables-restore": _RESTORE_TEST,
}
