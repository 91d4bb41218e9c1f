"""The read-only grammars of the desktop getters and small readers
(reos/safety/grammars/desktop.py): each tool's reading forms are read-only, and its
acting forms (setting, resetting, loading, running scripts, listening, writing state or
reaching elsewhere) are not, abbreviated or bundled as the tool itself would read them.

Only argv lists are judged here: nothing is run.
"""

from __future__ import annotations

import pytest

from reos.safety.grammar import reads_only, reads_only_whatever
from reos.safety.grammars import TABLE, desktop


def test_every_desktop_entry_is_in_the_table() -> None:
    assert set(desktop.TABLE) <= set(TABLE)
    assert all(TABLE[name] is entry for name, entry in desktop.TABLE.items())


READS = [
    # gsettings
    ["gsettings", "get", "org.gnome.desktop.interface", "gtk-theme"],
    ["gsettings", "get", "org.gnome.Terminal.Legacy.Profile:/org/gnome/terminal/x/", "font"],
    ["gsettings", "list-schemas"], ["gsettings", "list-schemas", "--print-paths"],
    ["gsettings", "list-relocatable-schemas"],
    ["gsettings", "list-keys", "org.gnome.desktop.interface"],
    ["gsettings", "list-children", "org.gnome.desktop"], ["gsettings", "list-recursively"],
    ["gsettings", "list-recursively", "org.gnome.desktop.interface"],
    ["gsettings", "range", "org.gnome.desktop.interface", "color-scheme"],
    ["gsettings", "describe", "org.gnome.desktop.interface", "color-scheme"],
    ["gsettings", "writable", "org.gnome.desktop.interface", "color-scheme"],
    ["gsettings", "help", "set"],
    # dconf
    ["dconf", "read", "/org/gnome/desktop/interface/color-scheme"],
    ["dconf", "read", "-d", "/org/gnome/desktop/interface/color-scheme"],
    ["dconf", "list", "/org/gnome/"], ["dconf", "dump", "/org/gnome/desktop/"],
    ["dconf", "list-locks", "/"], ["dconf", "help", "write"],
    # xrandr
    ["xrandr"], ["xrandr", "-q"], ["xrandr", "--query"], ["xrandr", "--listmonitors"],
    ["xrandr", "--listactivemonitors"], ["xrandr", "--verbose"],
    ["xrandr", "-q", "--verbose"], ["xrandr", "--current"], ["xrandr", "--prop"],
    ["xrandr", "--properties"], ["xrandr", "--listproviders"], ["xrandr", "--version"],
    # pactl
    ["pactl", "info"], ["pactl", "stat"], ["pactl", "list"], ["pactl", "list", "sinks"],
    ["pactl", "list", "short", "sinks"], ["pactl", "list", "sources", "short"],
    ["pactl", "get-default-sink"], ["pactl", "get-default-source"],
    ["pactl", "get-sink-volume", "@DEFAULT_SINK@"], ["pactl", "get-sink-mute", "0"],
    ["pactl", "get-source-volume", "@DEFAULT_SOURCE@"], ["pactl", "get-source-mute", "1"],
    ["pactl", "-f", "json", "list", "sinks"], ["pactl", "--format=json", "info"],
    # amixer
    ["amixer"], ["amixer", "get", "Master"], ["amixer", "sget", "Master"],
    ["amixer", "-c", "1", "sget", "Capture"], ["amixer", "-D", "pulse", "get", "Master"],
    ["amixer", "-Dhw:0", "scontrols"], ["amixer", "scontents"], ["amixer", "controls"],
    ["amixer", "contents"], ["amixer", "info"], ["amixer", "cget", "numid=3"],
    ["amixer", "get", "Master", "-c", "0"], ["amixer", "--card=1", "info"],
    ["amixer", "-i", "scontrols"],
    # xdg-mime
    ["xdg-mime", "query", "default", "text/html"],
    ["xdg-mime", "query", "default", "x-scheme-handler/https"],
    ["xdg-mime", "query", "filetype", "/tmp/photo.png"],
    # brightnessctl
    ["brightnessctl"], ["brightnessctl", "get"], ["brightnessctl", "g"],
    ["brightnessctl", "info"], ["brightnessctl", "max"], ["brightnessctl", "-l"],
    ["brightnessctl", "--list"], ["brightnessctl", "-d", "intel_backlight", "get"],
    ["brightnessctl", "--device=*kbd*", "max"], ["brightnessctl", "-m", "-l"],
    ["brightnessctl", "-c", "leds", "info"], ["brightnessctl", "get", "-d", "acpi_video0"],
    # powerprofilesctl
    ["powerprofilesctl"], ["powerprofilesctl", "get"], ["powerprofilesctl", "list"],
    ["powerprofilesctl", "list-holds"], ["powerprofilesctl", "version"],
    # cal, ncal
    ["cal"], ["cal", "-3"], ["cal", "-y"], ["cal", "2025"], ["cal", "9", "2025"],
    ["cal", "-m", "8"], ["cal", "-j", "-A", "2", "-B", "1"], ["cal", "-B-6", "-y"],
    ["ncal"], ["ncal", "-w"], ["ncal", "-bM3"], ["ncal", "-e", "2026"], ["ncal", "-p"],
    ["ncal", "-s", "FR", "9", "1752"], ["ncal", "-JH", "2025-01-02"],
    # locate, plocate, mlocate
    ["locate", "sshd_config"], ["locate", "-i", "nextcloud.log"], ["locate", "-c", "x"],
    ["locate", "-b", "\\passwd"], ["locate", "-l", "20", "log"], ["locate", "-n5", "log"],
    ["locate", "--regex", "\\.conf$"], ["locate", "-r", "^/etc/.*rc$"],
    ["locate", "-e0", "core"], ["locate", "-d", "/var/lib/plocate/plocate.db", "x"],
    ["locate", "--database=/tmp/my.db", "x"], ["locate", "-S"],
    ["plocate", "--ignore-case", "--limit", "3", "x"], ["mlocate", "-A", "a", "b"],
    ["locate", "--ignore-c", "x"],
    # slabtop
    ["slabtop", "-o"], ["slabtop", "--once"], ["slabtop", "-o", "-s", "c"],
    ["slabtop", "-os", "a"], ["slabtop", "--once", "--sort=u"], ["slabtop", "-o", "-d", "2"],
    ["slabtop", "--on"],
    # iotop
    ["iotop", "-b"], ["iotop", "--batch"], ["iotop", "-boqn", "3"],
    ["iotop", "-b", "-o", "-n", "3"], ["iotop", "-b", "-d", "0.5", "-n", "2", "-P", "-a"],
    ["iotop", "-bkt", "-n", "1"], ["iotop", "-b", "-p", "1234", "-u", "www-data", "-n", "1"],
    ["iotop", "--batch", "--only", "--iter=2", "--delay=1", "--processes",
     "--accumulated", "--kilobytes", "--time", "--quiet"],
    # ssh-keyscan
    ["ssh-keyscan", "nas.home.lan"], ["ssh-keyscan", "-t", "ed25519", "github.com"],
    ["ssh-keyscan", "-p", "2222", "-T", "3", "host"], ["ssh-keyscan", "-4Hv", "host"],
    ["ssh-keyscan", "-c", "-D", "-6", "host", "other"],
    # nc, netcat, ncat: the port probe
    ["nc", "-zv", "nas.home.lan", "22"], ["nc", "-z", "-w", "3", "10.0.0.5", "22"],
    ["nc", "-zvw3", "host", "20-30"], ["nc", "-nvz", "10.0.0.5", "22", "80"],
    ["nc", "-zu", "-4", "host", "53"], ["netcat", "-z", "-6", "host", "443"],
    ["ncat", "-z", "-v", "host", "22"],
    # usb-devices
    ["usb-devices"],
    # debsums
    ["debsums", "-s"], ["debsums", "-c"], ["debsums", "-ca"], ["debsums", "-ce"],
    ["debsums", "-l"], ["debsums", "--all", "--silent"], ["debsums", "--changed"],
    ["debsums", "--list-missing"], ["debsums", "-x", "--no-prelink"],
    ["debsums", "--config", "--ignore-permissions"], ["debsums", "--chan"],
    # trust
    ["trust", "list"], ["trust", "list", "--filter=ca-anchors"],
    ["trust", "list", "--filter", "blocklist"], ["trust", "list", "--purpose=server-auth"],
    ["trust", "list", "--filter=certificates", "--purpose", "email", "--details"],
    ["trust", "list", "--fil=ca-anchors"],
    # run-parts
    ["run-parts", "--test", "/etc/cron.daily"], ["run-parts", "--list", "/etc/cron.daily"],
    ["run-parts", "--test", "--lsbsysinit", "/etc/network/if-up.d"],
    ["run-parts", "--list", "--regex", "^p.*d$", "/etc"],
    ["run-parts", "--regex=^[a-z]+$", "--list", "-v", "/etc/cron.hourly"],
    ["run-parts", "--te", "/etc/cron.weekly"], ["run-parts", "--test", "--", "/etc/x"],
    # iptables-restore, ip6tables-restore: the test form
    ["iptables-restore", "--test"], ["iptables-restore", "-t"],
    ["iptables-restore", "--test", "/etc/iptables/rules.v4"],
    ["ip6tables-restore", "-t", "/etc/iptables/rules.v6"], ["iptables-restore", "-tv"],
    ["iptables-restore", "-t", "-n"], ["iptables-restore", "--test", "--noflush"],
    ["iptables-restore", "-t", "-w", "5", "rules"], ["iptables-restore", "-t", "-W1000"],
    ["iptables-restore", "-t", "-T", "filter", "rules"], ["iptables-restore", "--tes"],
]


@pytest.mark.parametrize("argv", READS)
def test_the_reading_forms_are_read_only(argv: list[str]) -> None:
    assert reads_only(argv).ok, (argv, reads_only(argv).why)


ACTS = [
    # gsettings: setting, resetting, watching, another schema folder
    ["gsettings", "set", "org.gnome.desktop.interface", "color-scheme", "prefer-dark"],
    ["gsettings", "reset", "org.gnome.desktop.interface", "color-scheme"],
    ["gsettings", "reset-recursively", "org.gnome.desktop.interface"],
    ["gsettings", "monitor", "org.gnome.desktop.interface"],
    ["gsettings", "--schemadir", "/tmp/s", "get", "a", "b"], ["gsettings"],
    ["gsettings", "get", "a", "b", "c"], ["gsettings", "se", "a", "b", "c"],
    ["gsettings", "list-schemas", "--print"],
    # dconf: writing, resetting, loading, watching, compiling, updating
    ["dconf", "write", "/org/gnome/desktop/interface/clock-show-seconds", "true"],
    ["dconf", "reset", "-f", "/org/gnome/"], ["dconf", "load", "/"],
    ["dconf", "watch", "/"], ["dconf", "compile", "out", "dir.d"], ["dconf", "update"],
    ["dconf", "read", "-f", "/x"], ["dconf", "dump", "/", "/org/"], ["dconf"],
    # xrandr: configuring outputs, modes, monitors, providers, another display
    ["xrandr", "--output", "HDMI-1", "--off"], ["xrandr", "--output", "eDP-1", "--auto"],
    ["xrandr", "-s", "0"], ["xrandr", "--size", "1024x768"], ["xrandr", "-o", "left"],
    ["xrandr", "-x"], ["xrandr", "--fb", "1600x768"], ["xrandr", "--dpi", "96"],
    ["xrandr", "--newmode", "x", "63.5", "1", "2", "3", "4", "5", "6", "7", "8"],
    ["xrandr", "--addmode", "VGA", "1024x768"], ["xrandr", "--setmonitor", "a", "auto",
                                                  "none"],
    ["xrandr", "--delmonitor", "a"], ["xrandr", "--noprimary"], ["xrandr", "--auto"],
    ["xrandr", "-q", "--output", "VGA", "--brightness", "0.5"],
    ["xrandr", "--display", "remote:0", "-q"], ["xrandr", "-d", ":1"],
    ["xrandr", "--listmon"], ["xrandr", "-qx"], ["xrandr", "x"],
    # pactl: setting, loading and unloading modules, moving, killing, suspending, exiting
    ["pactl", "set-sink-volume", "@DEFAULT_SINK@", "+10%"],
    ["pactl", "set-sink-mute", "0", "toggle"], ["pactl", "set-default-sink", "x"],
    ["pactl", "load-module", "module-null-sink"], ["pactl", "unload-module", "1"],
    ["pactl", "move-sink-input", "1", "2"], ["pactl", "kill-client", "3"],
    ["pactl", "suspend-sink", "0", "1"], ["pactl", "send-message", "/core", "x"],
    ["pactl", "exit"], ["pactl", "upload-sample", "a.wav"], ["pactl", "play-sample", "x"],
    ["pactl", "subscribe"], ["pactl", "-s", "tcp:10.0.0.2", "info"],
    ["pactl", "--server=tcp:x", "info"], ["pactl", "--ser", "x", "info"],
    ["pactl", "set-card-profile", "0", "off"], ["pactl", "get-sink-volume", "0", "50%"],
    ["pactl", "info", "-s", "x"], ["pactl"],
    # amixer: setting, commands from stdin, watching
    ["amixer", "sset", "Master", "0%"], ["amixer", "set", "Master", "50%"],
    ["amixer", "cset", "numid=3", "1"], ["amixer", "-c", "1", "set", "PCM", "2dB+"],
    ["amixer", "-s"], ["amixer", "--stdin"], ["amixer", "--std"], ["amixer", "-is"],
    ["amixer", "get", "set"], ["amixer", "get", "Master", "50%"], ["amixer", "events"],
    ["amixer", "-D", "/tmp/x", "get", "Master"], ["amixer", "-M", "get", "Master"],
    # xdg-mime: setting defaults, installing and removing types
    ["xdg-mime", "default", "firefox-esr.desktop", "x-scheme-handler/https"],
    ["xdg-mime", "install", "shinythings-shiny.xml"],
    ["xdg-mime", "uninstall", "--mode", "system", "x.xml"], ["xdg-mime", "--manual"],
    ["xdg-mime", "query", "filetype", "/dev/watchdog"],
    ["xdg-mime", "query", "defaults", "text/html"],
    # brightnessctl: setting, saving and restoring, first-letter operations
    ["brightnessctl", "set", "40%"], ["brightnessctl", "s", "+10%"],
    ["brightnessctl", "sget"], ["brightnessctl", "-s", "get"], ["brightnessctl", "--save"],
    ["brightnessctl", "-r"], ["brightnessctl", "--restore"], ["brightnessctl", "--rest"],
    ["brightnessctl", "-ls"], ["brightnessctl", "-lr"], ["brightnessctl", "gx"],
    ["brightnessctl", "get", "50"], ["brightnessctl", "-d", "../x", "get"],
    # powerprofilesctl: setting, holding a profile while running a command, configuring
    ["powerprofilesctl", "set", "power-saver"],
    ["powerprofilesctl", "launch", "-p", "performance", "make"],
    ["powerprofilesctl", "configure-action", "trickle_charge", "--enable"],
    ["powerprofilesctl", "get", "x"],
    # cal: an unknown option, a device
    ["cal", "--monday"], ["ncal", "-Z"], ["cal", "/dev/watchdog"], ["cal", "1", "2", "3"],
    # locate: slocate's database building, debug switches, devices as databases
    ["locate", "-u"], ["locate", "-U", "/"], ["locate", "-o", "/tmp/db"],
    ["locate", "-iu", "x"], ["locate", "-d", "/dev/watchdog", "x"],
    ["locate", "--database=/tmp/a.db:/dev/watchdog", "x"], ["plocate", "--flush-cache", "x"],
    ["mlocate", "--ignore-v", "x"], ["locate", "--debug", "x"],
    # slabtop: the interactive display
    ["slabtop"], ["slabtop", "-s", "c"], ["slabtop", "-d", "2"], ["slabtop", "-o", "x"],
    ["slabtop", "-o", "-s", "z"],
    # iotop: the interactive display (which changes I/O priorities on a key)
    ["iotop"], ["iotop", "-o"], ["iotop", "-o", "-n", "3"], ["iotop", "-b", "x"],
    ["iotop", "-b", "--only-x"], ["iotop", "--bat"], ["iotop", "-b", "-c"],
    # ssh-keyscan: hosts read from a file or stdin
    ["ssh-keyscan", "-f", "hosts"], ["ssh-keyscan", "-f", "-"], ["ssh-keyscan", "-vf", "-"],
    ["ssh-keyscan", "--help"], ["ssh-keyscan", "-O", "hashalg=sha256", "host"],
    # nc: connecting, listening, running programs, proxies, sockets, hex dumps
    ["nc", "203.0.113.4", "9001"], ["nc", "-q1", "127.0.0.1", "6379"],
    ["nc", "-lvnp", "4444"], ["nc", "-l", "-p", "4444"], ["nc", "-lk", "-p", "4444"],
    ["nc", "-zl", "4444"], ["nc", "-ze", "/bin/sh", "host", "1"],
    ["nc", "-zc", "id", "host", "1"], ["nc", "-z", "-e", "/bin/sh", "host", "1"],
    ["nc", "-zvU", "/run/docker.sock"], ["nc", "-z", "-x", "proxy:1080", "host", "22"],
    ["nc", "-z", "-o", "/tmp/dump", "host", "22"], ["nc", "-v", "host", "22"],
    ["ncat", "--exec", "/bin/sh", "-z", "host", "1"], ["ncat", "-z", "--sh-exec", "id", "h",
                                                        "1"],
    ["ncat", "-z", "--lua-exec=x.lua", "h", "1"], ["netcat", "-z", "--listen", "h", "1"],
    ["nc", "-z", "-w", "x", "host", "22"], ["nc", "-z", "host", "/dev/watchdog"],
    # debsums: generating, other roots and databases, archives
    ["debsums", "-g"], ["debsums", "--generate=all"], ["debsums", "--gen", "missing"],
    ["debsums", "-sg"], ["debsums", "-cagp", "/var/cache/apt/archives"],
    ["debsums", "--root=/mnt"], ["debsums", "-r", "/mnt"], ["debsums", "--ro", "/mnt"],
    ["debsums", "-d", "/tmp/dpkg"], ["debsums", "-m", "sums"], ["debsums", "foo.deb"],
    ["debsums", "openssh-server"], ["debsums", "--prelink"],
    # trust: anchoring, extracting, other commands
    ["trust", "anchor", "/tmp/ca.crt"], ["trust", "anchor", "--remove", "x.crt"],
    ["trust", "extract", "--format=pem-bundle", "/tmp/out.pem"],
    ["trust", "extract-compat"], ["trust", "dump"], ["trust"],
    ["trust", "list", "--filter=pkcs11:object=x"], ["trust", "list", "x"],
    ["trust", "-l"], ["trust", "list", "-l"],
    # run-parts: running the scripts
    ["run-parts", "/etc/cron.daily"], ["run-parts", "--report", "/etc/cron.hourly"],
    ["run-parts", "--test", "--report", "/etc/x"], ["run-parts", "--exit-on-error", "/x"],
    ["run-parts", "-v", "/etc/cron.daily"], ["run-parts", "--rep", "/etc/x"],
    ["run-parts", "--re", "--test", "/etc/x"], ["run-parts", "--list", "-a", "x", "/x"],
    ["run-parts", "--list", "--umask=000", "/x"], ["run-parts", "--test", "--stdin", "/x"],
    ["run-parts", "--test", "--new-session", "/x"], ["run-parts", "--test", "/dev/watchdog"],
    # iptables-restore: committing rules, running a modprobe program
    ["iptables-restore"], ["iptables-restore", "/tmp/rules.v4"],
    ["iptables-restore", "-n", "rules"], ["iptables-restore", "-t", "-M", "/tmp/evil"],
    ["iptables-restore", "-tM", "/tmp/evil"], ["iptables-restore", "--test", "--modprobe=x"],
    ["iptables-restore", "--test", "--mod", "x"], ["iptables-restore", "-tc"],
    ["ip6tables-restore", "-c", "rules"], ["iptables-restore", "-t", "/dev/watchdog"],
    ["ip6tables-restore", "--noflush", "rules"], ["iptables-restore", "-t", "-4"],
]


@pytest.mark.parametrize("argv", ACTS)
def test_the_acting_forms_are_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok, argv


@pytest.mark.parametrize(("argv", "named"), [
    (["pactl", "--ser", "x", "info"], "`--ser` is `--server`"),
    (["amixer", "--std"], "`--std` is `--stdin`"),
    (["brightnessctl", "--rest"], "`--rest` is `--restore`"),
    (["brightnessctl", "-ls"], "`-s`"),
    (["debsums", "--gen", "missing"], "`--gen` is `--generate`"),
    (["debsums", "--ro", "/mnt"], "`--ro` is `--root`"),
    (["run-parts", "--rep", "/etc/x"], "`--rep` is `--report`"),
    (["iptables-restore", "--test", "--mod", "x"], "`--mod` is `--modprobe`"),
    (["nc", "-ze", "/bin/sh", "host", "1"], "`-e`"),
    (["ssh-keyscan", "-vf", "-"], "`-f`"),
    (["xrandr", "--output", "HDMI-1", "--off"], "`--output`"),
    (["locate", "-iu", "x"], "`-u`"),
])
def test_the_refusal_names_the_word_that_acts(argv: list[str], named: str) -> None:
    proof = reads_only(argv)
    assert not proof.ok
    assert named in (proof.why or ""), proof.why


@pytest.mark.parametrize("argv", [
    ["nc", "-zv", "host", "22"], ["netcat", "-z", "host", "22"], ["ncat", "-z", "h", "1"],
    ["ssh-keyscan", "host"],
])
def test_the_probes_send_what_they_are_given(argv: list[str]) -> None:
    proof = reads_only(argv)
    assert proof.ok and proof.sends == "words", proof
    # a host known only at run time is then not read-only
    assert not reads_only_whatever([*argv[:-1], "$HOST"], {len(argv) - 1}).ok


@pytest.mark.parametrize("argv", [
    ["brightnessctl", "$OP"], ["amixer", "$OP", "Master"], ["gsettings", "$OP", "a", "b"],
    ["pactl", "$OP"], ["run-parts", "--test", "$DIR"],
])
def test_a_subcommand_known_only_at_run_time_is_not_read_only(argv: list[str]) -> None:
    position = next(i for i, word in enumerate(argv) if word.startswith("$"))
    assert not reads_only_whatever(argv, {position}).ok, argv
