"""Read-only grammars of the container and virtualisation tools: docker, podman, kubectl
and virsh.

Their global options come before the subcommand, and options that choose another
configuration, daemon, context or kubeconfig (`docker --config`, `-H`, `kubectl
--kubeconfig`, `virsh -c`) are never read-only: they decide what the tool talks to and
which helpers and plugins it runs. Subcommand options follow the subcommand (cobra: exact
long names, bundled short flags). A subcommand word that changes something (`rm`,
`stop`, `exec`) among the operands is refused. Format: `reos/safety/grammars/__init__.py`.
"""

from __future__ import annotations

ELSEWHERE = "talks to another daemon or reads another configuration"
_DOCKER_ACTIONS = ("rm rmi stop kill exec run start restart prune pause unpause update "
                   "rename cp commit create attach build push pull load import tag "
                   "save export wait")


def _sub(**entry: object) -> dict:
    return {"abbrev": False, "actions": _DOCKER_ACTIONS, **entry}


_PS = _sub(short="alqs", short_values="fn", flags="--all --latest --no-trunc --quiet "
           "--size --external --pod --sync --namespace --ns",
           values="--filter --format --last --sort", operands="none")
_LOGS = _sub(short="ft", short_values="n", flags="--details --follow --timestamps "
             "--names --latest", values="--since --tail --until", operands="names")
_INSPECT = _sub(short="s", short_values="f", flags="--size", values="--format --type",
                operands="names")
_IMAGES = _sub(short="aq", short_values="f", flags="--all --digests --no-trunc --quiet "
               "--tree --noheading --sort", values="--filter --format", operands="max1")
_FORMAT_ONLY = _sub(short_values="f", values="--format", operands="none")
_STATS = _sub(short="a", flags="--all --no-stream --no-trunc --no-reset", values="--format",
              operands="names")
_NAMES = _sub(operands="names")
_HISTORY = _sub(short="Hq", flags="--human --no-trunc --quiet", values="--format",
                operands="names")
_EVENTS = _sub(short_values="f", values="--since --until --filter --format",
               operands="none")
_LS = _sub(short="q", short_values="f", flags="--quiet --no-trunc --verbose",
           values="--filter --format", operands="none")
_DOCKER_SUBS = {
    "ps": _PS, "logs": _LOGS, "inspect": _INSPECT, "images": _IMAGES,
    "version": _FORMAT_ONLY, "info": _FORMAT_ONLY, "stats": _STATS, "top": _NAMES,
    "port": _NAMES, "diff": _NAMES, "history": _HISTORY, "events": _EVENTS,
    "container": {"abbrev": False, "sub": {"ls ps list": _PS, "logs": _LOGS,
                                           "inspect": _INSPECT, "stats": _STATS,
                                           "top port diff": _NAMES}},
    "image": {"abbrev": False, "sub": {"ls list": _IMAGES, "inspect": _INSPECT,
                                       "history": _HISTORY}},
    "volume network context": {"abbrev": False, "sub": {"ls list": _LS,
                                                        "inspect": _INSPECT,
                                                        "show": _NAMES}},
    "system": {"abbrev": False, "sub": {"df": _sub(short="v", flags="--verbose",
                                                   values="--format", operands="none"),
                                        "info": _FORMAT_ONLY, "events": _EVENTS}},
    "compose": {
        "abbrev": False,
        "short_values": "fp",
        "values": "--file --project-name --project-directory --env-file --profile --ansi "
                  "--progress",
        "flags": "--compatibility --dry-run",
        "sub": {"ps": _sub(short="aq", flags="--all --quiet --services --orphans "
                           "--no-trunc", values="--format --filter --status",
                           operands="names"),
                "ls": _sub(short="aq", flags="--all --quiet", values="--format --filter",
                           operands="none"),
                "logs": _sub(short="ft", short_values="n", flags="--follow --timestamps "
                             "--no-color --no-log-prefix", values="--since --tail --until "
                             "--index", operands="names"),
                "images top": _sub(short="q", flags="--quiet", values="--format",
                                   operands="names"),
                "version": _sub(values="--format", flags="--short", operands="none"),
                "config": _sub(short="q", flags="--quiet --services --volumes --profiles "
                               "--images --hash --no-interpolate --no-normalize "
                               "--resolve-image-digests", values="--format",
                               operands="none")},
    },
}

_DOCKER = {
    "style": "posix",
    "abbrev": False,
    "short": "Dv",
    "short_values": "l",
    "flags": "--debug --version --help",
    "values": "--log-level",
    "deny": {"--config -c --context -H --host --tls --tlscacert --tlscert --tlskey "
             "--tlsverify --url --connection --remote -r --root --runroot "
             "--storage-driver --storage-opt --cgroup-manager --events-backend "
             "--hooks-dir --module --network-cmd-path --ssh --identity": ELSEWHERE},
    "sub": _DOCKER_SUBS,
}

_KUBE_GLOBAL = {
    "short_values": "nv",
    "values": "--namespace --context --cluster --user --request-timeout --as --as-group "
              "--v",
    "flags": "--insecure-skip-tls-verify --help",
}
_KUBE_DENY = {"--kubeconfig -s --server --token --certificate-authority --client-key "
              "--client-certificate --cache-dir --username --password "
              "--tls-server-name": ELSEWHERE}


def _kube(**entry: object) -> dict:
    flags = f"{_KUBE_GLOBAL['flags']} {entry.pop('flags', '')}"
    values = f"{_KUBE_GLOBAL['values']} {entry.pop('values', '')}"
    short = str(entry.pop("short", ""))
    short_values = str(_KUBE_GLOBAL["short_values"]) + str(entry.pop("short_values", ""))
    # names, selectors, formats: kubectl opens none of them (a template file excepted)
    checks = {w: "text" for w in (*values.split(), *(f"-{c}" for c in short_values))
              if w != "--template"}
    return {"abbrev": False, "flags": flags, "values": values, "short": short,
            "short_values": short_values, "deny": _KUBE_DENY, "checks": checks,
            "operands": "names",
            "actions": "delete apply create edit patch replace scale rollout exec cp "
                       "drain cordon uncordon taint label annotate expose run set "
                       "port-forward proxy attach debug dump", **entry}


_HELM_READ = {"abbrev": False, "short": "aAq", "short_values": "no",
              "flags": "--all --all-namespaces --short --date --reverse --deployed "
                       "--failed --pending --uninstalled --superseded --help",
              "values": "--namespace --output --max --filter --kube-context --revision "
                        "--selector --time-format",
              "deny": {"--kubeconfig --kube-apiserver --kube-token --registry-config "
                       "--repository-config --repository-cache --plugins --post-renderer":
                       ELSEWHERE}}

# podman's `top` with ps options runs ps inside the container: podman reads without it
# podman's `pod` listings, and the unit files `generate systemd` prints (with --files it
# writes them)
_PODMAN = {**_DOCKER, "sub": {
    **{k: v for k, v in _DOCKER_SUBS.items() if k != "top"},
    "pod": {"abbrev": False, "sub": {
        "ps ls list": _sub(short="q", short_values="f", flags="--quiet --no-trunc --ctr-ids "
                           "--ctr-names --ctr-status --latest --namespace --ns",
                           values="--filter --format --sort", operands="none"),
        "inspect": _INSPECT, "stats": _STATS}},
    "generate": {"abbrev": False, "sub": {
        "systemd": _sub(short="n", flags="--name --new --no-header",
                        values="--container-prefix --pod-prefix --separator --restart-policy "
                               "--restart-sec --start-timeout --stop-timeout --wants "
                               "--after --requires --env --format",
                        deny={"-f --files": "writes the unit files"}, operands="names")}},
}}

TABLE: dict[str, dict] = {
    "helm": {"style": "posix", "abbrev": False, "short_values": "n",
             "values": "--namespace --kube-context", "flags": "--debug --help",
             "deny": _HELM_READ["deny"],
             "sub": {"list ls history hist status": _HELM_READ,
                     "get": {"abbrev": False, "sub": {"values all manifest notes hooks "
                                                      "metadata": _HELM_READ}},
                     "version": {"abbrev": False, "flags": "--short --client", "values":
                                 "--template", "operands": "none"}}},
    "docker": _DOCKER,
    "podman": _PODMAN,
    "kubectl": {
        "style": "posix",
        **_kube(sub={
            "get": _kube(short="Aw", short_values="olL", flags="--all-namespaces --watch "
                         "--show-labels --no-headers --ignore-not-found --show-kind "
                         "--output-watch-events --watch-only",
                         values="--output --selector --label-columns --field-selector "
                                "--sort-by --chunk-size --template --raw"),
            "describe": _kube(short="A", short_values="l", flags="--all-namespaces "
                              "--show-events", values="--selector --chunk-size"),
            "logs": _kube(short="fp", short_values="cl", flags="--follow --previous "
                          "--timestamps --all-containers --prefix --ignore-errors",
                          values="--container --selector --since --since-time --tail "
                                 "--limit-bytes --max-log-requests --pod-running-timeout"),
            "top": _kube(short="A", short_values="l", flags="--all-namespaces "
                         "--containers --no-headers --use-protocol-buffers",
                         values="--selector --sort-by"),
            "version": _kube(flags="--client", short_values="o", values="--output"),
            "explain": _kube(flags="--recursive", values="--api-version --output"),
            "api-resources": _kube(flags="--namespaced --no-headers --cached",
                                   short_values="o", values="--output --verbs "
                                   "--api-group --sort-by"),
            "api-versions": _kube(),
            "cluster-info": _kube(),
            "config": _kube(verbs={"view get-contexts current-context get-clusters "
                                   "get-users": "names"},
                            flags="--minify --flatten --no-headers",
                            short_values="o", values="--output"),
            # can-i's operands are verbs and resources it asks about, never acts on
            "auth": {**_kube(verbs={"can-i whoami": "names"}, short="A",
                             flags="--all-namespaces --list --no-headers --quiet"),
                     "actions": ""},
            "rollout": _kube(verbs={"history status": "names"}, short="w",
                             values="--revision --timeout", flags="--watch"),
        }),
    },
    "virsh": {
        "style": "posix",
        "abbrev": False,
        "short": "rqh",
        "flags": "--readonly --quiet --help --version",
        "deny": {"-c --connect -l --log -k -K --keepalive-interval --keepalive-count -e "
                 "--escape": ELSEWHERE},
        "sub": {"list dominfo domstate domstats dumpxml net-list net-info net-dumpxml "
                "pool-list pool-info vol-list vol-info nodeinfo version capabilities "
                "hostname uri domblklist domiflist domifaddr vcpuinfo dommemstat "
                "domblkinfo snapshot-list snapshot-info iface-list nodedev-list "
                "sysinfo": {"abbrev": False,
                            "flags": "--all --inactive --name --uuid --title --details "
                                     "--state-running --state-shutoff --state-paused "
                                     "--persistent --transient --autostart --no-autostart "
                                     "--table --tree --migratable --full "
                                     "--human --source --interface",
                            "values": "--domain --pool --network --type --cap",
                            "operands": "names",
                            "actions": "start shutdown destroy reboot reset undefine "
                                       "define create suspend resume migrate attach "
                                       "detach edit setmem setvcpus"}},
    },
}
