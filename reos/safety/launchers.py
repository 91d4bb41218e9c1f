"""Programs that run other programs, and what exactly they run.

`open_launcher(argv)` reads the options of sudo, pkexec, run0, doas, su, runuser, env,
nice, timeout, nohup, setsid, flock, xargs, parallel, watch, strace, nsenter, chroot,
unshare, systemd-run, at, busybox, script, trap, sg, setpriv, capsh, bwrap, proot,
screen, coproc and the shells (and, through
`remote_launchers`, ssh, docker/podman, kubectl, ansible, salt, pdsh, tmux, ip netns), and
says what they carry: another argv, a shell script (text), or "whatever arrives on
stdin"; whether that runs as root, on another machine, or in a container. The risk
engine judges the carried payload recursively.

Not responsible for judging anything, or for interpreter code (`python3 -c` is code, not
shell; see `payloads`).
"""

from __future__ import annotations

from collections.abc import Callable

from reos.safety.launch import Launch, options
from reos.safety.programs import SHELLS


def _shell(program: str, args: list[str]) -> Launch:
    opts, rest = options(args, "oO", {"--rcfile", "--init-file"})
    label = f"{program}"
    if "-c" in opts:
        # `bash -c SCRIPT [name args]`: the first operand is the script
        if rest:  # `sh -c SCRIPT NAME ARGS…`: NAME is $0, ARGS are $1…
            params = {str(i): a for i, a in enumerate(rest[1:10])}
            if len(rest) > 2:
                params["@"] = params["*"] = " ".join(rest[2:])
            return Launch(f"{program} -c", script=rest[0], env=params)
        return Launch(f"{program} -c", interactive=True)
    if "-s" in opts or not rest or rest[0] == "-":
        return Launch(label, stdin_runs=True, interactive=True)
    return Launch(label, file_runs=rest[0])


_GENERIC: dict[str, tuple[str, set[str], int, bool]] = {
    # program: (short options with a value, long ones, positionals before the command,
    #           runs as root)
    "nice": ("n", {"--adjustment"}, 0, False),
    "ionice": ("cnpt", {"--class", "--classdata", "--pid", "--pgid", "--uid"}, 0, False),
    "timeout": ("sk", {"--signal", "--kill-after"}, 1, False),
    "stdbuf": ("ioe", {"--input", "--output", "--error"}, 0, False),
    "nohup": ("", set(), 0, False),
    "setsid": ("", set(), 0, False),
    "command": ("", set(), 0, False),
    "builtin": ("", set(), 0, False),
    "exec": ("a", set(), 0, False),
    "time": ("fo", {"--format", "--output"}, 0, False),
    "unbuffer": ("", set(), 0, False),
    "chrt": ("T", {"--sched-runtime", "--sched-period", "--sched-deadline"}, 1, False),
    "taskset": ("", set(), 1, False),  # -c/--cpu-list: the positional is a list
    "numactl": ("CNmPpiw", {"--cpunodebind", "--membind", "--physcpubind", "--preferred",
                            "--interleave"}, 0, False),
    "cgexec": ("g", set(), 0, False),
    "strace": ("abeEIoOpPsSuUX", {"--output", "--trace", "--signal", "--attach", "--user",
                                  "--env", "--string-limit", "--trace-path"}, 0, False),
    "ltrace": ("aeEnoOpsSu", {"--output", "--library"}, 0, False),
    "valgrind": ("", set(), 0, False),
    "catchsegv": ("", set(), 0, False),
    "xvfb-run": ("nsfe", {"--server-num", "--server-args", "--auth-file", "--error-file"},
                 0, False),
    "faketime": ("", set(), 1, False),
    "torsocks": ("uapP", set(), 0, False),
    "proxychains": ("f", set(), 0, False),
    "proxychains4": ("f", set(), 0, False),
    "sshpass": ("pfde", set(), 0, False),
    "dbus-launch": ("", set(), 0, False),
    "dbus-run-session": ("", {"--config-file", "--dbus-daemon"}, 0, False),
    "fakeroot": ("is", {"--lib", "--faked"}, 0, False),
    "firejail": ("", set(), 0, False),
    "caffeinate": ("", set(), 0, False),
    "nocache": ("", set(), 0, False),
    "eatmydata": ("", set(), 0, False),
    "pkexec": ("", {"--user"}, 0, True),
    "run0": ("uDgM", {"--user", "--group", "--property", "--description", "--unit",
                      "--setenv", "--chdir", "--slice", "--nice", "--machine",
                      "--background"}, 0, True),
    "doas": ("uC", set(), 0, True),
    "chroot": ("", {"--userspec", "--groups"}, 1, True),
    "unshare": ("", {"--mount-proc", "--map-user", "--map-group", "--setgroups",
                     "--propagation", "--root", "--wd", "-S", "-G"}, 0, False),
    "nsenter": ("tSGrw", {"--target", "--setuid", "--setgid", "--root", "--wd"}, 0, True),
    "systemd-run": ("pEuMH", {"--property", "--setenv", "--unit", "--description",
                              "--slice", "--uid", "--gid", "--nice", "--working-directory",
                              "--machine", "--host", "--on-active", "--on-boot",
                              "--on-startup", "--on-unit-active", "--on-unit-inactive",
                              "--on-calendar", "--on-clock-change", "--timer-property",
                              "--path-property", "--socket-property", "--service-type",
                              "--expand-environment"}, 0, True),
    "busybox": ("", set(), 0, False),
    "toybox": ("", set(), 0, False),
    "setpriv": ("", {"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps",
                     "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label",
                     "--apparmor-profile", "--landlock-access", "--landlock-rule",
                     "--rlimit", "--ruid", "--euid", "--rgid", "--egid"}, 0, False),
    "systemd-nspawn": ("DiuMEpSb", {"--directory", "--image", "--user", "--machine",
                                     "--setenv", "--bind", "--bind-ro", "--chdir",
                                     "--network-interface", "--network-veth-extra",
                                     "--property", "--private-users", "--template",
                                     "--overlay", "--tmpfs"}, 0, True),
    "flatpak-spawn": ("", {"--directory", "--env", "--forward-fd"}, 0, False),
    "distrobox-host-exec": ("", set(), 0, False),
    "chpst": ("uUbenlLmdopfc", set(), 0, False),
    "gosu": ("", set(), 1, False),
    "su-exec": ("", set(), 1, False),
    "s6-setuidgid": ("", set(), 1, False),
    "ssh-agent": ("aEtPO", set(), 0, False),
    "proot": ("rbmqwkvRSi", {"--rootfs", "--bind", "--mount", "--qemu", "--cwd",
                             "--kernel-release", "--verbose"}, 0, False),
}
_SHELL_WHEN_EMPTY = {"chroot", "nsenter", "unshare", "pkexec", "run0", "doas", "firejail"}
_OPAQUE = {"systemd-run", "at", "batch", "parallel", "ssh", "docker", "podman", "nerdctl",
           "kubectl", "screen", "tmux", "busybox", "strace", "ltrace", "nsenter", "chroot",
           "unshare", "script", "flock", "setsid", "nohup", "sg"}
LAUNCHERS = frozenset({*_GENERIC, "screen", "capsh", "bwrap", "coproc", "runcon", "keyctl",
                       "lxc", "incus", "toolbox", "distrobox", "machinectl", "sudo", "su",
                       "runuser", "env", "flock", "xargs",
                       "parallel", "watch", "at", "batch", "script", "ssh", "docker", "podman",
                       "nerdctl", "kubectl", "sg", "tmux", "ip", *SHELLS, "eval", "source",
                       ".", "trap", "ansible", "salt", "pdsh", "clush", "pssh",
                       "parallel-ssh"})


def open_launcher(argv: list[str]) -> Launch | None:
    """What `argv` runs, when its program is one that runs other programs."""
    program = argv[0].rsplit("/", 1)[-1]
    args = argv[1:]
    if program in SHELLS:
        return _shell(program, args)
    if program in ("eval", "trap", "source", ".") and args[:1] == ["--"]:
        args = args[1:]  # bash's builtins take `--` as the end of their options
    if program == "eval":
        return Launch("eval", script=" ".join(args)) if args else None
    if program == "trap":  # `trap 'CMD' EXIT`: CMD runs later, in this shell
        if args and not args[0].startswith("-") and len(args) >= 2:
            return Launch("trap", script=args[0])
        return Launch("trap")
    if program in ("source", "."):
        return Launch(program, file_runs=args[0]) if args else None
    special = _SPECIAL.get(program)
    if special is not None:
        return special(program, args)
    spec = _GENERIC.get(program)
    if spec is None:
        return None
    short, long, skip, root = spec
    opts, rest = options(args, short, long)
    if program == "unshare" and ("-r" in opts or "--map-root-user" in opts):
        root = False
    if program == "systemd-run" and "--user" in opts:
        root = False
    if program == "strace" and not rest:
        return Launch(program, transparent=True)
    if program == "command" and ("-v" in opts or "-V" in opts):
        return Launch(program, transparent=True)  # `command -v rm`: only looks it up
    rest = rest[skip:]
    if program in ("busybox", "toybox") and rest and rest[0] in ("sh", "ash", "hush"):
        launch = _shell(rest[0], rest[1:])
        launch.label = "busybox " + launch.label
        return launch
    launch = Launch(program, escalated=root, transparent=program not in _OPAQUE,
                    cwd=opts.get("--working-directory") or opts.get("--wd") or opts.get("-D")
                    or (opts.get("-w") if program == "nsenter" else None) or None)
    if rest:
        launch.argv = rest
    elif program in _SHELL_WHEN_EMPTY:
        launch.stdin_runs = launch.interactive = True
    else:
        return Launch(program, transparent=program not in _OPAQUE)
    if program == "systemd-run" and ("-S" in opts or "--shell" in opts):
        launch.stdin_runs = launch.interactive = True
    return launch


def _sudo(program: str, args: list[str]) -> Launch:
    opts, rest = options(args, "ugCDhprtTUR", {"--user", "--group", "--close-from",
                                                "--chdir", "--host", "--prompt", "--role",
                                                "--type", "--command-timeout",
                                                "--other-user", "--chroot"})
    if "-e" in opts or "--edit" in opts:
        return Launch("sudoedit", argv=["sudoedit", *rest], escalated=True)
    if set(opts) & {"-l", "--list", "-v", "--validate", "-k", "-K", "--reset-timestamp",
                    "--remove-timestamp", "-V", "--version", "-h", "--help"} and not rest:
        return Launch("sudo", transparent=True)
    shell = set(opts) & {"-s", "--shell", "-i", "--login"}
    if shell:
        if rest:
            return Launch(f"sudo {sorted(shell)[0]}", script=" ".join(rest), escalated=True)
        return Launch(f"sudo {sorted(shell)[0]}", stdin_runs=True, interactive=True,
                      escalated=True)
    if not rest:
        return Launch("sudo", transparent=True)
    return Launch("sudo", argv=rest, escalated=True,
                  cwd=opts.get("-D") or opts.get("--chdir") or None)


def _su(program: str, args: list[str]) -> Launch:
    opts, rest = options(args, "cgGsw", {"--command", "--session-command", "--group",
                                          "--supp-group", "--shell",
                                          "--whitelist-environment"},
                          stop_at_operand=False)
    user = next((a for a in rest if a != "-"), "root")  # `su -` is `su - root`
    root = user in ("root", "0")
    command = opts.get("-c") or opts.get("--command") or opts.get("--session-command")
    if command:
        return Launch("su -c", script=command, escalated=root)
    return Launch("su", stdin_runs=True, interactive=True, escalated=root)


def _runuser(program: str, args: list[str]) -> Launch:
    opts, rest = options(args, "ugGcsw", {"--user", "--group", "--supp-group", "--command",
                                           "--session-command", "--shell"},
                          stop_at_operand="-u" in args or "--user" in args)
    command = opts.get("-c") or opts.get("--command") or opts.get("--session-command")
    if command:
        return Launch("runuser -c", script=command, escalated=True)
    user = opts.get("-u") or opts.get("--user")
    if user and rest:
        return Launch("runuser", argv=rest, escalated=True)
    return Launch("runuser", stdin_runs=True, interactive=True, escalated=True)


def _env(program: str, args: list[str]) -> Launch:
    launch = Launch("env")
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if arg in ("-S", "--split-string") and i + 1 < len(args):
            launch.label, launch.script = "env -S", " ".join(args[i + 1:])
            return launch
        if arg.startswith("--split-string="):
            launch.label, launch.script = "env -S", " ".join([arg.partition("=")[2],
                                                              *args[i + 1:]])
            return launch
        if arg.startswith("-S") and len(arg) > 2:
            launch.label, launch.script = "env -S", " ".join([arg[2:], *args[i + 1:]])
            return launch
        if arg in ("-C", "--chdir") and i + 1 < len(args):
            launch.cwd = args[i + 1]
            i += 2
            continue
        if arg.startswith("--chdir="):
            launch.cwd = arg.partition("=")[2]
            i += 1
            continue
        if arg in ("-u", "--unset"):
            i += 2
            continue
        if arg.startswith("-") and arg != "-":
            i += 1
            continue
        name, eq, value = arg.partition("=")
        if eq and name and not name.startswith("/"):
            launch.env[name] = value
            i += 1
            continue
        break
    rest = args[i:]
    while rest and "=" in rest[0] and not rest[0].startswith(("/", "=")):  # after `--`
        name, _, value = rest[0].partition("=")
        launch.env[name] = value
        rest = rest[1:]
    if rest:
        launch.argv = rest
    return launch


def _flock(program: str, args: list[str]) -> Launch:
    long = {"--timeout", "--conflict-exit-code", "--command"}
    opts, rest = options(args, "wEc", long)
    command = opts.get("-c") or opts.get("--command")
    if command is None and rest:  # flock [options] FILE [options] COMMAND [args]
        opts, rest = options(rest[1:], "wEc", long)
        command = opts.get("-c") or opts.get("--command")
    if command is not None:
        return Launch("flock -c", script=command)
    return Launch("flock", argv=rest) if rest else Launch("flock")


def _xargs(program: str, args: list[str]) -> Launch:
    opts, rest = options(args, "adEeIiLlnPs", {"--arg-file", "--delimiter", "--eof",
                                                 "--replace", "--max-lines", "--max-args",
                                                 "--max-procs", "--max-chars",
                                                 "--process-slot-var"})
    replace = opts.get("-I") or opts.get("--replace") or (
        "{}" if "-i" in opts else None)
    command = rest or ["echo"]
    launch = Launch("xargs", argv=command, args_from_stdin=True, replace=replace)
    arg_file = opts.get("-a") or opts.get("--arg-file") or ""
    if arg_file.startswith("/dev/fd/procsub"):  # xargs -a <(…): its output, like a pipe
        launch.args_file = arg_file
    elif "-a" in opts or "--arg-file" in opts:
        launch.args_from_stdin = False
        unknown = "$ARGUMENTS_FROM_A_FILE"
        launch.argv = ([a.replace(replace, unknown) for a in command] if replace
                       else [*command, unknown])
    return launch


def _parallel(program: str, args: list[str]) -> Launch:
    head: list[str] = []
    groups: list[list[str]] = []
    i = 0
    while i < len(args) and args[i] not in (":::", "::::", ":::+", "::::+"):
        head.append(args[i])
        i += 1
    while i < len(args):
        if args[i] in (":::", ":::+"):
            groups.append([])
        elif args[i] in ("::::", "::::+"):
            groups.append(["<arguments from a file>"])
        elif groups:
            groups[-1].append(args[i])
        i += 1
    opts, command = options(head, "jSNnIdC", {"--jobs", "--sshlogin", "--delay", "--timeout",
                                               "--colsep", "--joblog", "--results",
                                               "--tmpdir", "--env", "--workdir"})
    remote = "-S" in opts or "--sshlogin" in opts
    items = [item for group in groups for item in group][:64]
    launch = Launch("parallel", remote=remote, transparent=False)
    template = " ".join(command)
    if not groups:
        if template:
            launch.script, launch.args_from_stdin = template, True
        else:
            launch.stdin_runs = True
        return launch
    for item in items or [""]:
        if not template:
            launch.scripts.append(item)
        elif "{}" in template:
            launch.scripts.append(template.replace("{}", item))
        else:
            launch.scripts.append(f"{template} {item}")
    return launch


def _watch(program: str, args: list[str]) -> Launch:
    opts, rest = options(args, "nq", {"--interval", "--differences", "--equexit"})
    if "-x" in opts or "--exec" in opts:
        return Launch("watch", argv=rest) if rest else Launch("watch")
    return Launch("watch", script=" ".join(rest)) if rest else Launch("watch")


def _at(program: str, args: list[str]) -> Launch:
    opts, _rest = options(args, "fqtM", {"--file"}, stop_at_operand=False)
    if set(opts) & {"-l", "-d", "-r", "-c"}:
        return Launch(program, transparent=program == "at" and bool({"-l", "-c"} & set(opts)))
    if "-f" in opts:
        return Launch(program, file_runs=opts["-f"], transparent=False)
    return Launch(program, stdin_runs=True, transparent=False)


def _script(program: str, args: list[str]) -> Launch:
    opts, _rest = options(args, "cEItTBmO", {"--command", "--echo", "--log-io", "--timing",
                                              "--log-out", "--log-in", "--logging-format"},
                           stop_at_operand=False)
    command = opts.get("-c") or opts.get("--command")
    if command:
        return Launch("script -c", script=command, transparent=False)
    return Launch("script", stdin_runs=True, interactive=True, transparent=False)


def _sg(program: str, args: list[str]) -> Launch:
    opts, rest = options(args, "c", set(), stop_at_operand=False)  # sg GROUP -c CMD
    if "-c" in opts:
        return Launch("sg", script=opts["-c"], transparent=False)
    if len(rest) >= 2:
        return Launch("sg", script=" ".join(rest[1:]), transparent=False)
    return Launch("sg", stdin_runs=True, interactive=True, transparent=False)


def _coproc(program: str, args: list[str]) -> Launch | None:
    """`coproc [NAME] COMMAND` (a reader that does not know the keyword passes it on)."""
    if len(args) >= 2 and args[1][:1] in ("{", "("):
        args = args[1:]  # coproc NAME { …; }: NAME only names the coprocess
    text = " ".join(args).strip().lstrip("({").rstrip(")}; ")
    return Launch("coproc", script=text, transparent=False) if text else None


def _screen(program: str, args: list[str]) -> Launch | None:
    """screen [options] [CMD …]; `-X stuff TEXT` types TEXT into a session, `-X exec` and
    `-X screen` start programs there."""
    opts, rest = options(args, "cehpsStTX", set())
    if "-X" in opts:
        verb = opts["-X"]
        if verb == "stuff" and rest:
            text = " ".join(rest).replace("\\n", "\n").replace("\\r", "\n")
            return Launch("screen -X stuff", script=text, transparent=False)
        if verb in ("exec", "screen") and rest:
            return Launch(f"screen -X {verb}", argv=rest, transparent=False)
        return Launch("screen -X", transparent=False)
    if rest:
        return Launch("screen", argv=rest, transparent=False)
    return Launch("screen", transparent=False)  # list, attach, or a new session


def _runcon(program: str, args: list[str]) -> Launch | None:
    """`runcon CONTEXT CMD` or `runcon -t TYPE … CMD` (SELinux context, same user)."""
    opts, rest = options(args, "urtl", {"--user", "--role", "--type", "--range"})
    rest = rest if opts else rest[1:]
    return Launch("runcon", argv=rest) if rest else None


def _keyctl(program: str, args: list[str]) -> Launch | None:
    """`keyctl session NAME CMD …`: CMD runs in a new keyring session."""
    if len(args) >= 3 and args[0] == "session":
        return Launch("keyctl session", argv=args[2:])
    return None


def _capsh(program: str, args: list[str]) -> Launch:
    """`capsh [--caps=…] -- ARGS`: ARGS go to /bin/bash (`-- -c CMD` runs CMD)."""
    if "--" not in args:
        return Launch("capsh", transparent=False)
    launch = _shell("bash", args[args.index("--") + 1:])
    launch.label, launch.transparent = "capsh -- " + launch.label, False
    return launch


_BWRAP_TWO = {"--bind", "--bind-try", "--dev-bind", "--dev-bind-try", "--ro-bind",
              "--ro-bind-try", "--symlink", "--setenv", "--bind-data", "--ro-bind-data",
              "--file", "--chmod", "--overlay"}
_BWRAP_ONE = {"--dir", "--tmpfs", "--proc", "--dev", "--mqueue", "--chdir", "--unsetenv",
              "--uid", "--gid", "--hostname", "--lock-file", "--sync-fd", "--info-fd",
              "--seccomp", "--add-seccomp-fd", "--exec-label", "--file-label", "--args",
              "--userns", "--userns2", "--pidns", "--cap-add", "--cap-drop", "--perms",
              "--size", "--remount-ro", "--overlay-src", "--tmp-overlay", "--ro-overlay",
              "--argv0", "--json-status-fd", "--block-fd", "--userns-block-fd"}


def _bwrap(program: str, args: list[str]) -> Launch:
    """bubblewrap: its options take one or two values; the command follows them. What
    the command reaches on the host depends on the binds, so it is judged as on the host."""
    i = 0
    while i < len(args) and args[i].startswith("--"):
        if args[i] == "--":
            i += 1
            break
        i += 3 if args[i] in _BWRAP_TWO else 2 if args[i] in _BWRAP_ONE else 1
    rest = args[i:]
    return Launch("bwrap", argv=rest, transparent=False) if rest else Launch("bwrap")


def _remote(name: str) -> Callable[[str, list[str]], Launch | None]:
    """A reader from `remote_launchers`, imported the first time it is needed."""
    def read(program: str, args: list[str]) -> Launch | None:
        from reos.safety import remote_launchers

        reader: Callable[[str, list[str]], Launch | None] = getattr(remote_launchers, name)
        return reader(program, args)
    return read


_SPECIAL: dict[str, Callable[[str, list[str]], Launch | None]] = {
    "sudo": _sudo, "su": _su, "runuser": _runuser, "env": _env, "flock": _flock,
    "xargs": _xargs, "parallel": _parallel, "watch": _watch, "at": _at, "batch": _at,
    "script": _script, "sg": _sg, "capsh": _capsh, "bwrap": _bwrap, "screen": _screen,
    "coproc": _coproc, "runcon": _runcon, "keyctl": _keyctl,
    **{program: _remote(f"open_{reader}") for program, reader in (
        ("ssh", "ssh"), ("docker", "docker"), ("podman", "docker"), ("nerdctl", "docker"),
        ("kubectl", "kubectl"), ("tmux", "tmux"), ("ip", "ip"), ("ansible", "ansible"),
        ("salt", "salt"), ("pdsh", "pdsh"), ("clush", "pdsh"), ("pssh", "pdsh"),
        ("parallel-ssh", "pdsh"), ("lxc", "lxc"), ("incus", "lxc"), ("toolbox", "toolbox"),
        ("distrobox", "toolbox"), ("machinectl", "machinectl"))},
}
