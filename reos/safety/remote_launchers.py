"""Launchers that run their payload elsewhere: on another machine (ssh, kubectl exec,
ansible, salt, pdsh), in a container (docker/podman run and exec, with bind mounts), in
a terminal multiplexer (tmux) or another network namespace (ip netns exec).

Each returns a `Launch` (see `launch`); the risk engine judges the payload with the
remote lock-out rules in force. Not responsible for judging anything.
"""

from __future__ import annotations

from reos.safety.launch import Launch, options, ssh_option_commands


def open_ssh(program: str, args: list[str]) -> Launch:
    opts, rest = options(args, "BbcDEeFIiJLlmOoPpQRSWw", set())
    if {"-G", "-V", "-Q"} & set(opts):  # prints its configuration or version: connects nowhere
        return Launch("ssh", transparent=True)
    launch = Launch("ssh", remote=True, transparent=False)
    launch.local_scripts = ssh_option_commands(args)  # these run here, not on the host
    for i, arg in enumerate(args):  # RemoteCommand runs there
        value = args[i + 1] if arg == "-o" and i + 1 < len(args) else arg[2:] \
            if arg.startswith("-o") else ""
        if value.lower().startswith("remotecommand") and len(value) > 14:
            launch.scripts.append(value[14:].strip().lstrip("=").strip())
    if not rest:
        return launch
    host, command = rest[0], rest[1:]
    if command:
        launch.script = " ".join(command)
    else:
        launch.stdin_runs = launch.interactive = True
    if host.startswith("root@"):
        launch.escalated = True
    return launch


_DOCKER_VALUE = {"-a", "--attach", "-c", "--cpu-shares", "--cidfile", "--cpus", "--device",
                 "-e", "--env", "--env-file", "--entrypoint", "--expose", "--group-add",
                 "-h", "--hostname", "--ip", "--ipc", "-l", "--label", "--link",
                 "--log-driver", "--log-opt", "-m", "--memory", "--mount", "--name",
                 "--network", "--net", "-p", "--publish", "--pid", "--platform", "--pull",
                 "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal",
                 "--tmpfs", "-u", "--user", "--ulimit", "--userns", "--uts", "-v",
                 "--volume", "--volumes-from", "-w", "--workdir", "--add-host", "--dns",
                 "--cap-add", "--cap-drop", "--health-cmd", "--gpus", "--cgroupns",
                 "--sysctl", "--label-file", "--detach-keys", "--memory-swap", "--mac-address",
                 "--network-alias", "--stop-timeout", "--storage-opt",
                 "--cpuset-cpus", "--pids-limit", "--log-level", "--context", "-H",
                 "--host", "--config"}


def open_docker(program: str, args: list[str]) -> Launch | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):  # global options
        i += 2 if args[i] in ("-H", "--host", "--context", "-c", "--config",
                              "--log-level") else 1
    if i >= len(args):
        return None
    verb = args[i]
    rest = args[i + 1:]
    if verb == "container" and rest and rest[0] in ("run", "exec"):
        verb, rest = rest[0], rest[1:]
    if verb not in ("run", "exec", "create"):
        return None
    mounts: dict[str, str] = {}
    entrypoint: str | None = None
    j = 0
    while j < len(rest) and rest[j].startswith("-"):
        arg = rest[j]
        name, eq, inline = arg.partition("=")
        value = inline if eq else (rest[j + 1] if j + 1 < len(rest) else "")
        if name in ("-v", "--volume") and ":" in value:
            src, _, dst = value.partition(":")
            mounts[dst.split(":")[0].rstrip("/") or "/"] = src
        elif name == "--mount":
            parts = dict(p.partition("=")[::2] for p in value.split(","))
            source = parts.get("source") or parts.get("src")
            target = parts.get("target") or parts.get("destination") or parts.get("dst")
            if source and target:
                mounts[target.rstrip("/") or "/"] = source
        elif name == "--entrypoint":
            entrypoint = value
        takes = name in _DOCKER_VALUE and not eq and not (
            len(name) == 2 and len(arg) > 2)  # -it style clusters take none
        j += 2 if takes else 1
    operands = rest[j:]
    if not operands:
        return None
    command = operands[1:]
    if entrypoint:
        command = [*entrypoint.split(), *command]
    launch = Launch(f"{program} {verb}", mounts=mounts, transparent=False, escalated=True)
    if command:
        launch.argv = command
    return launch


def open_kubectl(program: str, args: list[str]) -> Launch | None:
    if "exec" not in args or "--" not in args:
        return None
    command = args[args.index("--") + 1:]
    return Launch("kubectl exec", argv=command, remote=True, transparent=False) if command \
        else None


def open_tmux(program: str, args: list[str]) -> Launch | None:
    opts, args = options(args, "cfLST", set())  # tmux's own options come first
    if "-c" in opts:  # `tmux -c CMD`: runs CMD with the default shell
        return Launch("tmux -c", script=opts["-c"], transparent=False)
    if not args or args[0] not in ("new-session", "new", "new-window", "neww", "split-window",
                                   "splitw", "send-keys", "send", "run-shell", "run",
                                   "respawn-pane"):
        return None
    _opts, rest = options(args[1:], "cefFlnNstxyTw", set())
    if args[0] in ("send-keys", "send"):
        return Launch("tmux send-keys", script=" ".join(a for a in rest if a != "Enter"),
                      transparent=False)
    return Launch("tmux", script=" ".join(rest), transparent=False) if rest else None


def open_ip(program: str, args: list[str]) -> Launch | None:
    words = [a for a in args if not a.startswith("-")]
    if len(words) >= 4 and words[0] in ("netns", "net") and words[1] in ("exec", "e"):
        start = args.index(words[2]) + 1
        return Launch("ip netns exec", argv=args[start:], escalated=True)
    return None


def open_ansible(program: str, args: list[str]) -> Launch:
    opts, _rest = options(args, "maiuMeflTtBPk", {"--module-name", "--args", "--inventory",
                                                    "--user", "--become-user",
                                                    "--become-method", "--extra-vars",
                                                    "--forks", "--limit", "--timeout"},
                           stop_at_operand=False)
    module = opts.get("-m") or opts.get("--module-name") or "command"
    command = opts.get("-a") or opts.get("--args") or ""
    root = bool(set(opts) & {"-b", "--become"})
    launch = Launch("ansible", remote=True, escalated=root, transparent=False)
    if module.split(".")[-1] in ("shell", "command", "raw") and command:
        launch.script = command
    elif module.split(".")[-1] == "script" and command:
        launch.file_runs = command.split()[0]
    return launch


def open_salt(program: str, args: list[str]) -> Launch:
    words = [a for a in args if not a.startswith("-")]
    launch = Launch("salt", remote=True, escalated=True, transparent=False)
    if len(words) >= 3 and words[1] in ("cmd.run", "cmd.run_all", "cmd.shell",
                                        "cmd.run_stdout", "cmd.exec_code"):
        launch.script = " ".join(words[2:])
    return launch


def open_pdsh(program: str, args: list[str]) -> Launch:
    _opts, rest = options(args, "wxlgRhHtuOpf", set())
    launch = Launch(program, remote=True, transparent=False)
    if rest:
        launch.script = " ".join(rest)
    return launch


def open_lxc(program: str, args: list[str]) -> Launch | None:
    """`lxc exec NAME [--] CMD`, `incus exec …`: CMD runs as root in the container."""
    if not args or args[0] != "exec":
        return None
    if "--" in args:
        rest = args[args.index("--") + 1:]
    else:
        _opts, rest = options(args[1:], "", {"--env", "--cwd", "--user", "--group",
                                             "--project"}, stop_at_operand=False)
        rest = rest[1:]
    if not rest:
        return Launch(f"{program} exec", stdin_runs=True, interactive=True, escalated=True,
                      transparent=False)
    return Launch(f"{program} exec", argv=rest, escalated=True, transparent=False)


def open_toolbox(program: str, args: list[str]) -> Launch | None:
    """`toolbox run [-c NAME] CMD`, `distrobox enter NAME -- CMD`: the container shares
    the home directory, so CMD is judged as here."""
    if not args or args[0] not in ("run", "enter"):
        return None
    if "--" in args:
        rest = args[args.index("--") + 1:]
    else:
        _opts, rest = options(args[1:], "cdr", {"--container", "--distro", "--release",
                                                 "--name"})
    if args[0] == "enter" and "--" not in args:
        return Launch(program, stdin_runs=True, interactive=True, transparent=False)
    return Launch(f"{program} {args[0]}", argv=rest, transparent=False) if rest else None


def open_machinectl(program: str, args: list[str]) -> Launch | None:
    """`machinectl shell [USER@]MACHINE [CMD …]`; an empty MACHINE is this host, and the
    user is root unless named."""
    places = [i for i, a in enumerate(args) if not a.startswith("-")][:2]
    if not places or args[places[0]] not in ("shell", "login"):
        return None
    verb = args[places[0]]
    target = args[places[1]] if len(places) > 1 else ""
    user, at, _machine = target.rpartition("@")
    root = not at or user in ("", "root")
    rest = args[places[1] + 1:] if verb == "shell" and len(places) > 1 else []
    if rest:
        return Launch("machinectl shell", argv=rest, escalated=root, transparent=False)
    return Launch(f"machinectl {verb}", stdin_runs=True, interactive=True,
                  escalated=root, transparent=False)
