"""Read-only grammars of the programs that look at the machine: processes, memory, users and
logins, hardware, the kernel, time and locale (procps, util-linux, shadow, psmisc, lsof,
pciutils, usbutils, sysstat, smartmontools' neighbours).

Format: `reos/safety/grammars/__init__.py`. Taken from the tools' `--help` and manual
pages as shipped in Debian 12.
"""

from __future__ import annotations

SETS = "changes a setting"
WRITES = "writes a file"

TABLE: dict[str, dict] = {
    # ps has Unix, BSD and GNU options, none of which writes or runs anything
    "ps": {"anything": True, "operands": "names"},  # it opens no file its words name
    "pgrep": {
        "short": "cfilnoqvwxaAh",
        "short_values": "dgGPsuUtFOr",
        "flags": "--count --full --inverse --lightweight --list-name --list-full --newest "
                 "--oldest --exact --ignore-case --ignore-ancestors --logpidfile --help "
                 "--version --quiet",
        "values": "--delimiter --pgroup --group --parent --session --euid --uid "
                  "--terminal --pidfile --older --runstates --cgroup --ns --nslist "
                  "--env",
        "deny": {"--signal": "sends a signal (that is pkill)"},
        "operands": "names",
    },
    "pidof": {"short": "sxzcnq", "short_values": "od", "operands": "names"},
    "pstree": {"short": "aAcghlnpsStTuUZG", "short_values": "HNC",
               "flags": "--arguments --ascii --compact-not --show-pgids --vt100 --long "
                        "--numeric-sort --show-pids --show-parents --ns-changes "
                        "--thread-names --hide-threads --uid-changes --unicode "
                        "--security-context --help --version",
               "values": "--color --highlight-pid --ns-sort", "optional": "--highlight-all",
               "operands": "names"},
    # lsof only reads, except `-D`, which writes its device cache; its options (with
    # values that are optional or attached, and `+` forms) are read as a whole
    "lsof": {"anything": True, "deny_letters": "D"},
    "free": {"short": "bkmghltvwV", "short_values": "sc",
             "flags": "--bytes --kilo --mega --giga --tera --peta --kibi --mebi --gibi "
                      "--tebi --pebi --human --si --lohi --total --committed --wide --help "
                      "--version", "values": "--seconds --count", "operands": "none"},
    "uptime": {"short": "psV", "flags": "--pretty --since --help --version",
               "operands": "none"},
    "uname": {"short": "asnrvmpio", "flags": "--all --kernel-name --nodename "
              "--kernel-release --kernel-version --machine --processor --hardware-platform "
              "--operating-system --help --version", "operands": "none"},
    "whoami": {"flags": "--help --version", "operands": "none"},
    "id": {"short": "agGnruzZ", "flags": "--context --group --groups --name --real --user "
           "--zero --help --version", "operands": "names"},
    "groups": {"flags": "--help --version", "operands": "names"},
    "users": {"flags": "--help --version"},
    "who": {"short": "abdHlmpqrstTuw", "flags": "--all --boot --dead --heading --ips "
            "--login --lookup --process --count --runlevel --short --time --mesg --message "
            "--writable --users --help --version"},
    "w": {"short": "hufoisV", "flags": "--no-header --no-current --short --from "
          "--old-style --ip-addr --pids --help --version", "operands": "names"},
    "last": {"short": "adFiRwxV", "short_values": "fnstp", "numeric": True,
             "flags": "--hostlast --dns --fulltimes --ip --nohostname --fullnames --system "
                      "--help --version",
             "values": "--file --limit --since --until --present --time-format",
             "operands": "names"},
    "lastb": {"short": "adFiRwxV", "short_values": "fnstp", "numeric": True,
              "flags": "--hostlast --dns --fulltimes --ip --nohostname --fullnames "
                       "--system --help --version",
              "values": "--file --limit --since --until --present --time-format",
              "operands": "names"},
    # alone it shows the defaults for new accounts; with other options it sets them
    "useradd": {"flags": "-D --defaults", "abbrev": False, "operands": "only:-D|--defaults"},
    # -r: read-only mode (without it pwck offers to fix the files; -s sorts them)
    "pwck": {"short": "rq", "flags": "--read-only --quiet", "abbrev": False,
             "operands": "need:-r|--read-only"},
    "grpck": {"short": "rq", "flags": "--read-only --quiet", "abbrev": False,
              "operands": "need:-r|--read-only"},
    "mesg": {"short": "v", "flags": "--verbose", "abbrev": False,
             "operands": "none"},  # `mesg n` sets
    # the interpreters only for their version: anything else runs code
    "python3": {"flags": "--version -V", "abbrev": False, "operands": "only:--version|-V"},
    "python": {"flags": "--version -V", "abbrev": False, "operands": "only:--version|-V"},
    "perl": {"flags": "--version -v", "abbrev": False, "operands": "only:--version|-v"},
    "node": {"flags": "--version -v", "abbrev": False, "operands": "only:--version|-v"},
    "lastlog": {"short": "h", "short_values": "btu", "flags": "--help",
                "values": "--before --time --user",
                "deny": {"-C --clear -S --set": "changes the login records",
                         "-R --root": "reads another root's accounts (and its modules)"},
                "operands": "none"},
    "getent": {"sends": "words", "short": "Ai", "short_values": "s",
               "flags": "--no-addrconfig --no-idn --help --usage --version",
               "values": "--service",
               "checks": {"-s": "word", "--service": "word"}, "operands": "names"},
    "chage": {"short": "ilh", "flags": "--iso8601 --list --help", "operands": "need:-l|--list",
              "deny": {"-d --lastday -E --expiredate -I --inactive -m --mindays -M "
                       "--maxdays -W --warndays": SETS, "-R --root -P --prefix":
                       "works in another root"}, "values": "", "short_values": ""},
    "passwd": {"short": "aSq", "flags": "--all --status --quiet --help",
               "operands": "need:-S|--status",
               "deny": {"-d --delete -e --expire -k --keep-tokens -i --inactive -l --lock "
                        "-n --mindays -u --unlock -w --warndays -x --maxdays -r "
                        "--repository -R --root -P --prefix": SETS}},
    "faillock": {"flags": "--help", "values": "--dir --user",
                 "deny": {"--reset": "clears the failure records"}},
    "hostname": {"short": "adfiIsAVyh", "flags": "--alias --domain --fqdn --long "
                 "--ip-address --all-ip-addresses --all-fqdns --short --yp --nis --help "
                 "--version", "deny": {"-F --file -b --boot": "sets the host name"},
                 "operands": "none"},
    "date": {"short": "uRIj", "short_values": "dfr", "flags": "--debug --rfc-email "
             "--universal --utc --help --version", "values": "--date --file --reference",
             "optional": "--iso-8601 --rfc-3339 --resolution",
             "deny": {"-s --set": "sets the clock"}, "operands": "date"},
    "printenv": {"short": "0", "flags": "--null --help --version", "operands": "names"},
    "tty": {"short": "s", "flags": "--silent --quiet --help --version", "operands": "none"},
    "arch": {"flags": "--help --version", "operands": "none"},
    "nproc": {"flags": "--all --help --version", "values": "--ignore", "operands": "none"},
    "locale": {"short": "acmkvV", "flags": "--all-locales --charmaps --category-name "
               "--keyword-name --verbose --help --usage --version", "operands": "names"},
    "lscpu": {"short": "abBcJxyhV", "short_values": "s", "flags": "--all --online --bytes "
              "--offline --json --hex --physical --output-all --help --version",
              "values": "--sysroot", "optional": "--caches --extended --parse",
              "operands": "none"},
    "lsmod": {"flags": "--help --version", "operands": "none"},
    "lsns": {"short": "JlnruWhV", "short_values": "optT", "flags": "--json --list "
             "--noheadings --output-all --raw --notruncate --nowrap --help --version",
             "values": "--output --task --type --tree", "operands": "names"},
    "lslocks": {"short": "bJinruhV", "short_values": "op", "flags": "--bytes --json "
                "--noinaccessible --noheadings --output-all --raw --notruncate --help "
                "--version", "values": "--output --pid", "operands": "none"},
    "lsipc": {"short": "qmsgeclnrJbPtyhV", "short_values": "io", "flags": "--queues "
              "--shmems --semaphores --global --export --newline --noheadings --raw "
              "--json --bytes --creator --numeric-perms --time --shell --list "
              "--notruncate --help --version", "values": "--id --time-format",
              "optional": "--output", "operands": "none"},
    # -x and -xx read the standard header; -xxx and -xxxx read the whole configuration
    # space, which crashes some devices (`grammar_checks.whole`)
    "lspci": {"whole": "lspci"},
    "lsusb": {"short": "vthV", "short_values": "sD", "flags": "--verbose --tree --help "
              "--version", "operands": "none"},
    "lshw": {"style": "single", "flags": "-short -businfo -json -xml -html -sanitize "
             "-numeric -quiet -notime -version -help",
             "values": "-class -C -disable -enable",
             "deny": {"-dump": "writes a database file"}, "operands": "none"},
    "vmstat": {"short": "afmnsdDtwyhV", "short_values": "pS", "flags": "--active --forks "
               "--slabs --one-header --stats --disk --disk-sum --timestamp --wide "
               "--no-first --help --version", "values": "--partition --unit",
               "operands": "names"},
    "iostat": {"short": "cdhkmNstxyzHV", "short_values": "gjop", "abbrev": False,
               "flags": "--human --compact --pretty", "values": "--dec",
               "checks": {"--dec": "one-of:0|1|2"},
               "operands": "names"},
    "mpstat": {"short": "AHITuV", "short_values": "NPo", "abbrev": False,
               "values": "--dec", "checks": {"--dec": "one-of:0|1|2"}, "operands": "names"},
    "pidstat": {"short": "dHhIlrRsStuUvVw", "short_values": "GpTC", "abbrev": False,
                "deny": {"-e": "runs a program to watch"},
                "flags": "--human", "values": "--dec", "checks": {"--dec": "one-of:0|1|2"},
                "operands": "names"},
    "top": {"short": "bcHiSsV1", "short_values": "dnopuUEe", "maybe": "-w",
            "checks": {"-w": "count"}, "abbrev": False,
            "operands": "need:-b"},  # interactive top can kill and renice
    # NVIDIA's GPU report: the query forms only; -f writes a file, -l repeats until
    # stopped, and every option that sets something is refused (those named below, and
    # any other, being no option here); a value is ids or fields, never an option
    "nvidia-smi": {"short": "Lqxhu", "short_values": "id", "abbrev": False,
                   "flags": "--list-gpus --query --xml-format --unit --help --version",
                   "values": "--id --display --query-gpu --query-compute-apps "
                   "--query-accounted-apps --query-retired-pages --format",
                   "checks": {"-i": "fields", "-d": "fields", "--id": "fields",
                              "--display": "fields", "--query-gpu": "fields",
                              "--query-compute-apps": "fields",
                              "--query-accounted-apps": "fields",
                              "--query-retired-pages": "fields", "--format": "fields"},
                   "deny": {"-f --filename": "writes its report to a file",
                            "-l --loop -lms --loop-ms": "repeats until it is stopped",
                            "-r --gpu-reset": "resets the GPU",
                            "--persistence-mode --power-limit --compute-mode "
                            "--ecc-config --applications-clocks --lock-gpu-clocks "
                            "--reset-gpu-clocks --accounting-mode --clear-accounted-apps "
                            "--reset-ecc-errors": "changes the GPU's settings"},
                   "operands": "none"},
    "sensors": {"short": "uAjfh", "flags": "--no-adapter --fahrenheit --help --version",
                "deny": {"-s --set": "writes sensor settings", "-c --config-file":
                         "reads another configuration"}, "operands": "names"},
    "dmidecode": {"short": "quV", "short_values": "sStH", "flags": "--quiet --dump "
                  "--help --version --no-quirks",
                  "values": "--string --type --handle --oem-string --from-dump",
                  "deny": {"--dump-bin": "writes a file", "-d --dev-mem --no-sysfs":
                           "reads another memory device"}, "operands": "none"},
    "dmesg": {
        "short": "HJkPprSuwWxdeTtL",
        "short_values": "Ffls",
        "flags": "--human --json --kernel --nopager --force-prefix --raw --syslog "
                 "--userspace --follow --follow-new --decode --show-delta --reltime "
                 "--ctime --notime --noescape --help --version",
        "values": "--file --facility --level --buffer-size --time-format --since --until",
        "optional": "--color",
        "deny": {"-C --clear -c --read-clear": "clears the kernel's messages",
                 "-n --console-level -D --console-off -E --console-on":
                     "changes what the console prints"},
        "operands": "none",
    },
    "sysctl": {"short": "naeNqbhVrdoxX", "short_values": "", "flags": "--all --values "
               "--names --binary --ignore --quiet --help --version --deprecated --dry-run",
               "values": "--pattern",
               "deny": {"-w --write -p --load -f --system": SETS},
               "operands": "no-assign"},  # `sysctl key=value` sets it
    "kill": {"whole": "kill"},
    "pmap": {"short": "xXdqpc", "short_values": "AC", "flags": "--extended --device "
             "--quiet --show-path --read-rc --help --version", "values": "--range "
             "--read-rc-from", "deny": {"-n --create-rc -N --create-rc-to": WRITES},
             "operands": "names"},
    "systemd-delta": {"anything": True},
    "sadf": {"anything": True, "deny_letters": "O"},  # -O pcparchive=FILE writes
    "pg_lsclusters": {"anything": True},
    "pg_isready": {"anything": True, "sends": "words"},
    "sar": {"anything": True, "deny_letters": "o"},  # -o writes its data file
    # modprobe only shows with these: a dry run, its configuration, what it would load
    "modprobe": {"short": "nvcDqR", "short_values": "SCd", "abbrev": False,
                 "flags": "--dry-run --show --verbose --showconfig --show-config "
                          "--show-depends --quiet --resolve-alias --first-time",
                 "values": "--set-version --config --dirname",
                 "checks": {"-C": "etc", "--config": "etc", "-d": "etc", "--dirname": "etc"},
                 "deny": {"-r --remove -a --all -i --ignore-install --ignore-remove -f "
                          "--force --force-modversion --force-vermagic -w --wait": "loads or "
                          "removes modules"},
                 "operands": "need:-n|--dry-run|--show|-c|--showconfig|--show-config|-D|"
                             "--show-depends|-R|--resolve-alias"},
    "auditctl": {"short": "ls", "abbrev": False, "operands": "need:-l|-s"},
    "rfkill": {"abbrev": False, "short": "nrJ", "short_values": "o",
               "flags": "--noheadings --raw --json --help --version", "values": "--output",
               "verbs": {"list event": "names"}, "default": "list",
               "actions": "block unblock toggle"},
    "chronyc": {"short": "nN46acv", "abbrev": False,  # -v: `sources -v`'s legend
                "deny": {"-h -p -f": "talks to another daemon or reads another "
                         "configuration", "-m": "runs several commands"},
                "verbs": {"tracking sources sourcestats activity ntpdata serverstats "
                          "rtcdata smoothing selectdata authdata clients": "names"},
                "actions": "makestep burst online offline settime reload dump writertc "
                           "cyclelogs delete add local manual maxdelay maxpoll minpoll "
                           "polltarget reselect refresh reset shutdown trimrtc"},
    "ntpq": {"short": "pn46w", "abbrev": False,
             "deny": {"-c -i -a -k": "runs its own commands or asks questions"},
             "operands": "need:-p"},  # without it, ntpq reads its commands
    "postconf": {"short": "ndhMPFAbflmtvx", "short_values": "c", "abbrev": False,
                 "checks": {"-c": "etc"},
                 "deny": {"-e -X -# -o": "edits or overrides the configuration"},
                 "operands": "no-assign"},
    "modinfo": {"short": "0adlnpV", "short_values": "Fkb", "abbrev": False,
                "flags": "--null --author --description --license --filename --parameters "
                         "--version --help",
                "values": "--field --set-version --basedir", "operands": "names"},
    "ldconfig": {"short": "p", "flags": "--print-cache", "abbrev": False,
                 "operands": "need:-p|--print-cache"},
    "update-alternatives": {"abbrev": False, "flags": "--display --list --query "
                            "--get-selections --help --version --verbose --quiet",
                            "deny": {"--config --set --install --remove --remove-all --auto "
                                     "--all --set-selections --altdir --admindir --root "
                                     "--log": "changes which program a name runs"},
                            "operands": "need:--display|--list|--query|--get-selections|"
                                        "--help|--version"},
    "logrotate": {"short": "dv", "abbrev": False, "flags": "--debug --verbose",
                  "deny": {"-f --force -s --state -m --mail -l --log": "rotates or writes "
                           "files"}, "operands": "need:-d|--debug"},
    "efibootmgr": {"short": "v", "abbrev": False, "flags": "--verbose", "operands": "none"},
    "visudo": {"short": "cqs", "short_values": "f", "abbrev": False, "flags": "--check "
               "--quiet --strict", "values": "--file", "operands": "need:-c|--check"},
    "taskset": {"short": "pac", "abbrev": False, "flags": "--pid --all-tasks --cpu-list",
                "operands": "taskset"},
    "prlimit": {"short_values": "po", "abbrev": False, "flags": "--noheadings --raw "
                "--verbose --help --version", "values": "--pid --output", "operands": "none"},
    "at": {"short": "l", "short_values": "qc", "abbrev": False, "operands": "need:-l|-c"},
    "postqueue": {"short": "p", "abbrev": False, "operands": "need:-p",
                  "deny": {"-c": "reads another configuration, which names what it runs"}},
    "mailq": {"abbrev": False, "operands": "none"},
    "fail2ban-client": {"abbrev": False, "flags": "--help --version -h -V",
                        "verbs": {"status ping version banned": "names",
                                  "get": "names"},
                        "actions": "start stop reload restart set unban add reload"},
    # certbot (Let's Encrypt): only `certificates` reads (the certificates it manages,
    # their domains and expiry dates); with no subcommand it is `run`, which obtains a
    # certificate and rewrites the web server's configuration, and every other
    # subcommand (renew, certonly, delete, revoke…) changes certificates
    "certbot": {"abbrev": False, "flags": "--help --version -h",
                "sub": {"certificates": {"abbrev": False, "short": "qv", "short_values": "d",
                                         "flags": "--quiet --verbose",
                                         "values": "--cert-name --domains --domain",
                                         "operands": "none"}}},
    "supervisorctl": {"abbrev": False, "verbs": {"status avail version pid": "names"},
                      "actions": "start stop restart reload reread update add remove "
                                 "clear shutdown signal fg"},
    "busctl": {"abbrev": False, "flags": "--no-pager --no-legend --system --user --full "
               "--acquired --activatable --unique --show-machine --augment-creds=yes "
               "--augment-creds=no --quiet --verbose --help --version",
               "values": "--json --match --timeout --size", "checks": {
                   "--json": "one-of:off|short|pretty"},
               "deny": {"-H --host -M --machine --address": "talks to another machine"},
               # tree, introspect and get-property ask the service itself, which can start
               # it (D-Bus activation): not read-only
               "verbs": {"list status": "names"},
               "actions": "call emit set-property wait capture tree introspect get-property"},
    "udevadm": {"abbrev": False, "flags": "--help --version", "sub": {
        "info": {"abbrev": False, "short": "raehx", "short_values": "qnpd",
                 "flags": "--root --attribute-walk --export-db --export --help "
                          "--wait-for-initialization --tree",
                 "values": "--query --path --name --device-id-of-file --property "
                           "--export-prefix --subsystem-match --json",
                 "deny": {"-c --cleanup-db": "deletes udev's database"}, "operands": "any"},
        "monitor": {"abbrev": False, "short": "pku", "short_values": "st",
                    "flags": "--property --kernel --udev", "values": "--subsystem-match "
                    "--tag-match", "operands": "none"}}},
    "crontab": {"short": "l", "short_values": "u", "abbrev": False, "checks": {"-u": "text"},
                "deny": {"-e -r -i": "changes the cron table", "-n": "changes the host"},
                "operands": "need:-l"},
    "atq": {"short": "Vv", "short_values": "q", "operands": "none"},
}
