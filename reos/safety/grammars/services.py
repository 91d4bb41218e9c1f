"""Read-only grammars of systemd's tools and the other service managers: systemctl,
journalctl, systemd-analyze, hostnamectl, timedatectl, localectl, loginctl, networkctl,
resolvectl, coredumpctl, the systemd-* helpers and SysV `service`.

systemd's tools read options anywhere on the line (getopt_long, unique prefixes), so their
verbs are read after all options (`verbs`); every verb that changes something is an
action word, refused wherever it appears (`systemctl status reboot` is refused: a second
action word). Connecting elsewhere (`-H`, `-M`, `--root`, `--image`) is not read-only.
Format: `reos/safety/grammars/__init__.py`; systemd 252 as in Debian 12.
"""

from __future__ import annotations

ELSEWHERE = "acts on another machine, container or image"
SETS = "changes a setting"

SYSTEMCTL_ACTIONS = (
    "start stop reload restart try-restart reload-or-restart try-reload-or-restart "
    "condrestart force-reload isolate kill clean freeze thaw set-property bind mount-image "
    "service-log-level service-log-target reset-failed enable disable reenable preset "
    "preset-all mask unmask link revert add-wants add-requires edit set-default cancel "
    "set-environment unset-environment import-environment daemon-reload daemon-reexec "
    "default rescue emergency halt poweroff reboot "
    "kexec exit switch-root suspend hibernate hybrid-sleep suspend-then-hibernate "
    "soft-reboot sleep")

TABLE: dict[str, dict] = {
    "systemctl": {
        "short": "arlq",
        "short_values": "tpPnos",
        "flags": "--all --recursive --reverse --after --before --full --show-types --value "
                 "--failed --quiet --no-block --wait --system --user --no-pager --no-legend "
                 "--plain --no-ask-password --dry-run --with-dependencies --no-warn "
                 "--show-transaction --help --version --no-reload --read-only",
        "values": "--type --state --property --lines --output --kill-whom --signal "
                  "--timestamp --what --check-inhibitors --legend --job-mode",
        "deny": {"-H --host -M --machine --root --image": ELSEWHERE,
                 "--now": "also starts or stops what it enables or disables",
                 "--runtime --global --force --firmware-setup --boot-loader-menu "
                 "--boot-loader-entry --reboot-argument --message --preset-mode --mkdir "
                 "--no-wall "
                 "--marked --kill-value --drop-in --when --image-policy --stdin":
                     "only matters to a command that changes something",
                 "-i --ignore-inhibitors": "overrides what blocks a shutdown"},
        "verbs": {"list-units list-sockets list-timers list-automounts list-paths "
                  "list-unit-files list-dependencies list-machines list-jobs "
                  "is-active is-failed is-enabled is-system-running status show cat "
                  "get-default show-environment whoami": "names",
                  # alone they show the setting; with a value they set it
                  "log-level log-target service-watchdogs": "none"},
        "default": "list-units",
        "actions": SYSTEMCTL_ACTIONS,
    },
    "journalctl": {
        "short": "ahefkmqrNxl",
        "short_values": "cDFgIoptTuUS",
        "maybe": "-b --boot -n --lines",
        "checks": {"-b": "boot", "--boot": "boot", "-n": "count", "--lines": "count"},
        "numeric": True,  # `-b -1`: the previous boot (taken by -b, as journalctl does)
        "flags": "--all --full --no-full --pager-end --follow --no-tail --reverse "
                 "--show-cursor --dmesg --quiet --merge --utc --no-hostname --catalog "
                 "--system --user --disk-usage --list-boots --fields --header --help "
                 "--version --no-pager --list-catalog --dump-catalog --verify --new-id128 "
                 "--list-namespaces --truncate-newline --synchronize-on-exit",
        "values": "--since --until --cursor --after-cursor --unit --user-unit --priority "
                  "--facility --identifier --exclude-identifier --grep --output "
                  "--output-fields --field --directory --file --root --namespace "
                  "--interval --verify-key --invocation",
        "optional": "--case-sensitive",
        "deny": {"--cursor-file": "writes the cursor to a file",
                 "--vacuum-size --vacuum-time --vacuum-files": "deletes old journal files",
                 "--rotate --flush --sync --relinquish-var --smart-relinquish-var":
                     "makes journald change its files",
                 "--setup-keys --update-catalog --force": "writes files",
                 "-M --machine --image": ELSEWHERE},
        "operands": "names",  # matches, or an executable's path it only looks up
    },
    "systemd-analyze": {
        "short": "q",
        "flags": "--system --user --global --order --require --no-pager --quiet --help "
                 "--version",
        "checks": {"--json": "one-of:off|short|pretty"},
        "values": "--json --from-pattern --to-pattern --fuzz --threshold --iterations "
                  "--base-time --unit --table --security-policy --offline "
                  "--recursive-errors --profile --scale-svg --detailed",
        "optional": "--man",
        "deny": {"-H --host -M --machine --root --image": ELSEWHERE,
                 "--generators": "runs the generators"},
        "verbs": {"time blame critical-chain plot dot dump cat-config unit-files "
                  "unit-paths exit-status capability syscall-filter filesystems "
                  "condition compare-versions verify calendar timestamp timespan security "
                  "inspect-elf architectures smbios11 image-policy pcrs srk "
                  "has-tpm2 fdstore malloc": "names",
                  "log-level log-target service-watchdogs": "none"},
        "default": "time",
        "actions": "set-log-level set-log-target",
    },
    "hostnamectl": {
        "flags": "--static --transient --pretty --no-ask-password --help --version",
        "values": "--json", "checks": {"--json": "one-of:off|short|pretty"},
        "deny": {"-H --host -M --machine": ELSEWHERE},
        "verbs": {"status": "names", "hostname icon-name chassis deployment location":
                  "none"},
        "default": "status",
        "actions": "set-hostname set-icon-name set-chassis set-deployment set-location",
    },
    "timedatectl": {
        "short": "a",
        "short_values": "p",
        "flags": "--all --value --no-pager --no-ask-password --monitor --help --version",
        "values": "--property",
        "deny": {"-H --host -M --machine": ELSEWHERE,
                 "--adjust-system-clock": "only matters when setting the clock"},
        "verbs": {"status show list-timezones timesync-status show-timesync": "names"},
        "default": "status",
        "actions": "set-time set-timezone set-local-rtc set-ntp ntp-servers revert",
    },
    "localectl": {
        "flags": "--no-pager --no-ask-password --help --version",
        "deny": {"-H --host -M --machine": ELSEWHERE, "--no-convert": SETS},
        "verbs": {"status list-locales list-keymaps list-x11-keymap-models "
                  "list-x11-keymap-layouts list-x11-keymap-variants "
                  "list-x11-keymap-options": "names"},
        "default": "status",
        "actions": "set-locale set-keymap set-x11-keymap",
    },
    "loginctl": {
        "short": "al",
        "short_values": "Pnosp",
        "flags": "--all --full --value --no-pager --no-legend --no-ask-password --help "
                 "--version",
        "values": "--property --lines --output --kill-whom --signal",
        "deny": {"-H --host -M --machine": ELSEWHERE},
        "verbs": {"list-sessions session-status show-session list-users user-status "
                  "show-user list-seats seat-status show-seat": "names"},
        "default": "list-sessions",
        "actions": "activate lock-session unlock-session lock-sessions unlock-sessions "
                   "terminate-session kill-session enable-linger disable-linger "
                   "terminate-user kill-user attach flush-devices terminate-seat",
    },
    "networkctl": {
        "short": "asl",
        "short_values": "n",
        "flags": "--all --stats --full --no-pager --no-legend --help --version",
        "values": "--lines --json", "checks": {"--json": "one-of:off|short|pretty"},
        "verbs": {"list status lldp label cat": "names"},
        "default": "list",
        "actions": "delete up down renew forcerenew reconfigure reload edit",
    },
    "resolvectl": {
        "sends": "words",
        "short": "46",
        "short_values": "itcp",
        "flags": "--no-pager --help --version",
        "checks": {"--json": "one-of:off|short|pretty", "--legend": "one-of:yes|no"},
        "values": "--json --legend --interface --type --class --protocol --service "
                  "--service-address "
                  "--service-txt --cname --validate --synthesize --cache --zone "
                  "--trust-anchor --network --search",
        "optional": "--raw",
        "verbs": {"status query service openpgp tlsa statistics show-cache "
                  "show-server-state monitor": "names",
                  "dns domain default-route llmnr mdns dnssec dnsovertls nta": "max1",
                  "log-level": "none"},
        "default": "status",
        "actions": "reset-statistics flush-caches reset-server-features revert",
    },
    "coredumpctl": {
        "short": "rq",
        "short_values": "nSUDF",
        "flags": "--reverse --quiet --no-pager --no-legend --all --help --version",
        "checks": {"--json": "one-of:off|short|pretty"},
        "values": "--json --since --until --field --directory --file --root",
        "deny": {"-o --output": "writes a file", "--debugger --debugger-arguments -A":
                 "runs a debugger", "--image": ELSEWHERE},
        "verbs": {"list info": "names"},
        "default": "list",
        "actions": "dump debug gdb",
    },
    "systemd-cgls": {"short": "alku", "flags": "--all --full --no-pager "
                     "--kernel --unit --user-unit --help --version", "values": "--xattr "
                     "--cgroup-id", "checks": {"--xattr": "one-of:yes|no",
                                               "--cgroup-id": "one-of:yes|no"},
                     "deny": {"-M --machine": ELSEWHERE}, "operands": "names"},
    "systemd-cgtop": {"short": "ptcmikrPb", "short_values": "nd", "flags": "--raw --batch "
                      "--help --version", "values": "--iterations --delay --depth --order "
                      "--recursive", "optional": "--cpu",
                      "checks": {"--order": "one-of:path|tasks|cpu|memory|io",
                                 "--recursive": "one-of:yes|no",
                                 "--cpu": "one-of:percentage|time"},
                      "deny": {"-M --machine": ELSEWHERE}, "operands": "names"},
    "systemd-detect-virt": {"short": "cvrq", "flags": "--container --vm --chroot "
                            "--private-users --quiet --list --list-cvm --cvm --help "
                            "--version", "operands": "none"},
    "systemd-path": {"flags": "--help --version", "values": "--suffix", "operands": "names"},
    "systemd-escape": {"short": "pu", "flags": "--path --unescape --mangle --instance "
                       "--help --version", "values": "--suffix --template",
                       "operands": "names"},
    "service": {"flags": "--status-all --help --version", "abbrev": False,
                "operands": "sysv-status"},
}
