"""Read-only grammars of the programs that run another command unchanged (sudo, timeout,
nice, ionice, stdbuf, env, command, time), of the shell's own words that only change the
shell (export, read, cd, …) and of the daemons whose configuration test only reads
(`sshd -t`, `apachectl configtest`; nginx is in `admin`).

A wrapper is read-only when its own options are (no `sudo -E`, `-i`, `-s`, `-D`, `-R`;
no `env` variable that changes what the program loads or runs: only LC_*, LANG, TZ and
the like) and the command it runs is, judged by its own grammar (`grammar._wrapped`).
`safety.wrappers.unwrap` reads wrappers with this same table. Format:
`reos/safety/grammars/__init__.py`.
"""

from __future__ import annotations

SHELL_ONLY = {"anything": True, "builtin": True}  # changes only the shell that runs it

TABLE: dict[str, dict] = {
    "sudo": {
        "wrapper": True,
        "style": "posix",
        "short": "nHkKlvVSb",
        "short_values": "ugpUh",
        "abbrev": False,
        "flags": "--non-interactive --set-home --reset-timestamp --remove-timestamp "
                 "--list --validate --version --stdin",
        "values": "--user --group --prompt --other-user --host",
        "checks": {"-h": "word", "--host": "word"},
        "deny": {"-E --preserve-env": "passes the caller's environment to the program",
                 "-i --login -s --shell": "runs a shell", "-e --edit": "edits files",
                 "-C --close-from -D --chdir -R --chroot -T --command-timeout -r --role "
                 "-t --type": "changes where or how the program runs",
                 "-A --askpass": "runs the askpass program"},
    },
    # the command runs with words xargs reads (stdin, -a FILE): judged whatever they are
    "xargs": {"wrapper": True, "style": "posix", "short": "0rtx", "short_values": "adEnLPs",
              "optional": "-e -l --eof", "abbrev": True,
              "flags": "--null --no-run-if-empty --verbose --exit --show-limits --help "
                       "--version",
              "values": "--arg-file --delimiter --max-args --max-lines --max-procs "
                        "--max-chars",
              "deny": {"-I -i --replace": "puts each word inside the command's own words",
                       "-p --interactive -o --open-tty": "uses the terminal",
                       "--process-slot-var": "sets a variable for the command"}},
    "timeout": {"wrapper": True, "style": "posix", "short": "v", "short_values": "ks",
                "flags": "--preserve-status --foreground --verbose --help --version",
                "values": "--kill-after --signal"},
    "nice": {"wrapper": True, "style": "posix", "short_values": "n", "numeric": True,
             "flags": "--help --version", "values": "--adjustment"},
    "ionice": {"wrapper": True, "style": "posix", "short": "t", "short_values": "cn",
               "flags": "--ignore --help --version", "values": "--class --classdata",
               "deny": {"-p --pid -P --pgid -u --uid": "changes another process"}},
    "stdbuf": {"wrapper": True, "style": "posix", "short_values": "ioe",
               "flags": "--help --version", "values": "--input --output --error"},
    "env": {"wrapper": True, "style": "posix", "short": "0i", "short_values": "u",
            "flags": "--null --ignore-environment --help --version "
                     "--list-signal-handling", "values": "--unset",
            "deny": {"-S --split-string": "splits a string into a command line",
                     "-C --chdir": "runs the program in another folder",
                     "--block-signal --default-signal --ignore-signal -v --debug":
                     "changes how the program runs"}},
    "command": {"wrapper": True, "style": "posix", "short": "vVp", "abbrev": False},
    "time": {"wrapper": True, "style": "posix", "short": "pvq", "abbrev": False,
             "flags": "--portability --verbose --quiet",
             "deny": {"-o --output -a --append": "writes a file"}},
    # the shell's own words: they change the shell itself, nothing on the machine (the
    # judge reads what they evaluate: `declare 'a[$(…)]'`, aliases, traps)
    "cd": SHELL_ONLY, "pushd": SHELL_ONLY, "popd": SHELL_ONLY, "dirs": SHELL_ONLY,
    "export": SHELL_ONLY, "unset": SHELL_ONLY, "declare": SHELL_ONLY,
    "typeset": SHELL_ONLY, "local": SHELL_ONLY, "readonly": SHELL_ONLY,
    "read": SHELL_ONLY, "mapfile": {**SHELL_ONLY, "deny_letters": "C"},
    "readarray": {**SHELL_ONLY, "deny_letters": "C"}, "shift": SHELL_ONLY,
    "return": SHELL_ONLY, "exit": SHELL_ONLY, "break": SHELL_ONLY, "continue": SHELL_ONLY,
    ":": SHELL_ONLY, "getopts": SHELL_ONLY, "wait": SHELL_ONLY,
    # umask shows the mask; with one it sets what every later file is created with
    "umask": {"short": "Sp", "builtin": True, "operands": "none"},
    "set": SHELL_ONLY, "let": SHELL_ONLY, "type": SHELL_ONLY,
    "hash": {"short": "rltd", "deny": {"-p": "makes a name run another file"},
             "operands": "names", "builtin": True},
    "jobs": SHELL_ONLY, "history": {**SHELL_ONLY, "deny_letters": "cdawrns"},
    "ulimit": SHELL_ONLY,
    "exec": {"builtin": True, "operands": "none"},  # alone: only its redirections act
    "[[": SHELL_ONLY, "shopt": SHELL_ONLY,
    "which": {"short": "as", "operands": "names"},
    "whereis": {"short": "bmsulfBMS", "abbrev": False, "operands": "names"},
    "apropos": {"short": "delrwav", "short_values": "LsSmM", "abbrev": False,
                "deny": {"-C --config-file": "reads another configuration"},
                "operands": "names"},
    "whatis": {"short": "dlrwv", "short_values": "LsSmM", "abbrev": False,
               "deny": {"-C --config-file": "reads another configuration"},
               "operands": "names"},
    # daemons whose configuration test only reads; anything else starts or signals them
    "sshd": {"short": "tT", "short_values": "C", "abbrev": False, "operands": "config-test",
             "daemon": True},  # -C: the connection the extended test (-T) is for
    "apache2ctl": {"short": "tS", "abbrev": False, "operands": "apache-test",
                   "daemon": True},
    "apachectl": {"short": "tS", "abbrev": False, "operands": "apache-test", "daemon": True},
    "named-checkconf": {"abbrev": False, "operands": "none", "daemon": True},
    "haproxy": {"short": "c", "short_values": "f", "abbrev": False,
                "checks": {"-f": "etc"}, "operands": "need:-c", "daemon": True},
}
