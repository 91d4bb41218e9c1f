"""Read-only grammars of the package managers: dpkg, dpkg-query, apt, apt-get (simulation
only), apt-cache, apt-mark, apt-config, rpm, dnf/yum, pacman, zypper, apk, snap, flatpak,
pip and npm.

Their queries are subcommands (`apt list`, `apt-cache policy`, `snap info`) or a
command option (`dpkg -l`, `rpm -q`, `pacman -Qi`); an option that reads another
configuration (`apt -o`, `-c`, `rpm --eval`, `npm --cache`) is never read-only, because
it decides what the tool runs. None of these tools is taken to accept abbreviated long
options. Format: `reos/safety/grammars/__init__.py`.
"""

from __future__ import annotations

CONFIG = "reads another configuration, which decides what it runs"
CHANGES = "changes what is installed"

_APT_GLOBAL_DENY = {"-o --option -c --config-file": CONFIG,
                    "-y --yes --assume-yes --force-yes --allow-downgrades "
                    "--allow-remove-essential --allow-change-held-packages": CHANGES}

_DPKG_READS = ("-c --contents -I --info "
               "-l --list -L --listfiles -s --status -S --search -p --print-avail -V "
               "--verify -C --audit --get-selections --print-architecture "
               "--print-foreign-architectures --compare-versions --yet-to-unpack "
               "--version --help")
DPKG_READS = _DPKG_READS.split()  # dpkg's query actions (grammar_checks' "dpkg" check)

TABLE: dict[str, dict] = {
    "dpkg": {
        "short": "lLsSpVCcI",
        "abbrev": False,
        "flags": " ".join(w for w in _DPKG_READS.split() if w.startswith("--")) +
                 " --no-pager",
        "values": "--admindir",
        "deny": {"-i --install --unpack -A --record-avail --configure --triggers-only -r "
                 "--remove -P --purge --set-selections --clear-selections --update-avail "
                 "--merge-avail --clear-avail --forget-old-unavail --add-architecture "
                 "--remove-architecture -R --recursive -a --pending": CHANGES,
                 "--root --instdir": "acts on another root"},
        "operands": "dpkg",
    },
    "dpkg-query": {
        "short": "spLlWSc",
        "short_values": "f",
        "abbrev": False,
        "flags": "--status --print-avail --listfiles --list --show --search --control-path "
                 "--control-list --control-show --load-avail --no-pager --help --version",
        "values": "--showformat --admindir",
        "deny": {"--root --instdir": "acts on another root"},
        "operands": "names",  # package names and patterns
    },
    "apt-cache": {
        "short": "qnfiah",
        "abbrev": False,
        "flags": "--quiet --names-only --full --important --no-all-versions --all-versions "
                 "--no-pre-depends --no-depends --no-recommends --no-suggests "
                 "--no-conflicts --no-breaks --no-replaces --no-enhances --recurse "
                 "--installed --no-generate --all-names --help --version",
        "values": "--target-release --default-release",
        "short_values": "t",
        "deny": {**_APT_GLOBAL_DENY, "-p --pkg-cache -s --src-cache": "writes its cache"},
        "verbs": {"show showsrc search depends rdepends pkgnames policy madison stats "
                  "showpkg unmet dump dumpavail": "names"},
        "actions": "gencaches",
    },
    "apt": {
        "short": "qa",
        "abbrev": False,
        "flags": "--installed --upgradable --manual-installed --all-versions --quiet "
                 "--full --names-only --help --version --no-all-versions",
        "values": "--target-release",
        "short_values": "t",
        "deny": _APT_GLOBAL_DENY,
        "verbs": {"list search show showsrc policy depends rdepends madison changelog":
                  "names"},
        "actions": "install reinstall remove purge autoremove autopurge update upgrade "
                   "full-upgrade dist-upgrade edit-sources satisfy build-dep source "
                   "download clean autoclean",
    },
    "apt-get": {
        # only what changes nothing: a simulation, a check, a changelog
        "short": "qsV",
        "abbrev": False,
        "flags": "--simulate --just-print --dry-run --recon --no-act --quiet "
                 "--show-upgraded --verbose-versions --no-install-recommends "
                 "--install-recommends --purge --auto-remove --autoremove --help --version",
        "deny": _APT_GLOBAL_DENY,
        "verbs": {"changelog": "names",
                  "install remove purge upgrade dist-upgrade full-upgrade autoremove "
                  "autopurge reinstall": "simulated"},
        # `check` rebuilds the package cache before it checks
        "actions": "update clean autoclean download source build-dep satisfy check",
    },
    "apt-mark": {
        "abbrev": False,
        "flags": "--help --version",
        "deny": _APT_GLOBAL_DENY,
        "verbs": {"showhold showmanual showauto showinstall showremove showpurge "
                  "showheld": "names"},
        "actions": "hold unhold auto manual minimize-manual install remove purge",
    },
    "apt-config": {"abbrev": False, "flags": "--empty --help --version",
                   "values": "--format", "deny": _APT_GLOBAL_DENY,
                   "verbs": {"dump shell": "names"}},
    "rpm": {
        "short": "qVailcdsRvpfK",
        "abbrev": False,
        "flags": "--query --verify --all --list --configfiles --docfiles --licensefiles "
                 "--state --requires --provides --whatprovides --whatrequires "
                 "--whatrecommends --whatsuggests --changelog --changes --scripts "
                 "--triggers --conflicts --obsoletes --recommends --suggests --info "
                 "--last --dump --file --package --group --verbose --quiet --nofiles "
                 "--nodigest --nosignature --xml --help --version --querytags --checksig",
        "values": "--queryformat --qf",
        "deny": {"--install -U --upgrade -F --freshen -e --erase --reinstall --import "
                 "--setperms --setugids --setcaps --restore --rebuilddb --initdb "
                 "--delsign --addsign --resign": CHANGES,
                 "-E --eval -D --define --macros --rcfile --load --pipe --dbpath --root "
                 "--undefine": CONFIG},
        "operands": "need:-q|--query|-V|--verify|--version|--help|--querytags|-K|"
                    "--checksig",
    },
    "dnf": {
        "short": "qvC",
        "abbrev": False,
        "flags": "--quiet --verbose --cacheonly --installed --available --upgrades "
                 "--all --extras --obsoletes --recent --showduplicates --help --version",
        "values": "--disablerepo --enablerepo --repo --repoid --releasever --queryformat "
                  "--qf --arch",
        "deny": {"-c --config --setopt --installroot": CONFIG,
                 "-y --assumeyes --allowerasing --best --nobest": CHANGES},
        "verbs": {"list info search repolist repoinfo provides whatprovides repoquery "
                  "check-update updateinfo deplist": "names", "history": "dnf-history",
                  "module": "dnf-module"},
        "actions": "install remove erase upgrade update downgrade reinstall autoremove "
                   "distro-sync makecache clean swap mark group groupinstall "
                   "groupremove shell builddep",
    },
    "pacman": {
        "short": "QTSFsilgopqednmutkcv",
        "abbrev": False,
        "flags": "--query --deptest --sync --files --search --info --list --groups --owns "
                 "--quiet --explicit --deps --unrequired --native --foreign --file "
                 "--print --check --changelog --upgrades --verbose --help --version",
        "values": "--print-format --color --dbpath",
        "deny": {"-R --remove -U --upgrade -D --database -y --refresh -w --downloadonly "
                 "--noconfirm --needed --asdeps --asexplicit --overwrite": CHANGES,
                 "-r --root --config --hookdir --gpgdir --cachedir": CONFIG},
        "operands": "pacman",
    },
    "zypper": {
        "short": "qntx",
        "abbrev": False,
        "flags": "--quiet --non-interactive --no-refresh --xmlout --terse --no-color "
                 "--help --version",
        "values": "--table-style",
        "deny": {"-R --root -c --config --plus-repo -p --plus-content --reposd-dir "
                 "--cache-dir": CONFIG},
        "sub": {
            "search se": {"short": "isrdx", "abbrev": False,
                          "flags": "--installed-only --not-installed-only --details "
                                   "--match-exact --match-substrings --match-words "
                                   "--provides --requires --recommends --name "
                                   "--search-descriptions --case-sensitive --sort-by-name "
                                   "--sort-by-repo --verbose",
                          "values": "--type --repo"},
            "info if": {"short": "s", "abbrev": False, "flags": "--requires --recommends "
                        "--provides --conflicts --obsoletes --supplements --suggests",
                        "values": "--type --repo"},
            "repos lr": {"short": "dupaE", "abbrev": False,
                         "deny": {"-e --export": "writes the repositories to a file"},
                         "flags": "--details --uri --priority --alias --name --refresh "
                                  "--sort-by-uri --sort-by-priority --sort-by-alias "
                                  "--sort-by-name --show-enabled-only"},
            "list-updates lu": {"short": "a", "abbrev": False, "flags": "--all "
                                "--best-effort", "values": "--type --repo"},
            "packages pa": {"short": "iu", "abbrev": False, "flags": "--installed-only "
                            "--not-installed-only --orphaned --suggested --recommended "
                            "--unneeded --sort-by-name --sort-by-repo", "values": "--repo"},
            "patches lp list-patches": {"abbrev": False, "flags": "--all --with-optional",
                                        "values": "--category --severity --repo"},
            "what-provides wp": {"abbrev": False},
            "products pd patterns pt locks ll services ls": {"abbrev": False,
                                                             "flags": "--installed-only"},
        },
    },
    "apk": {
        "short": "qv",
        "abbrev": False,
        "flags": "--quiet --verbose --no-cache --no-progress --help --version",
        "deny": {"-i --interactive": "asks questions", "-p --root -X --repository "
                 "--repositories-file --keys-dir --cache-dir --arch": CONFIG},
        "sub": {
            # apk takes its global -q and -v after the subcommand too
            "info": {"short": "eaLRWsdwrPtqv", "abbrev": False,
                     "flags": "--installed --all --contents --depends --who-owns --size "
                              "--description --webpage --rdepends --provides --triggers "
                              "--install-if --rinstall-if --license --replaces"},
            "search": {"short": "xedavq", "abbrev": False, "flags": "--exact "
                       "--description --all --has-origin --origin"},
            "list": {"short": "IuaoOdPqv", "abbrev": False, "flags": "--installed "
                     "--upgradable --upgradeable --available --origin --orphaned --depends "
                     "--providers"},
            "policy stats dot audit": {"abbrev": False, "flags": "--installed --errors"},
            "version": {"short": "Ialtuc", "abbrev": False},
        },
    },
    "snap": {
        "abbrev": False,
        "flags": "--help",
        "sub": {"list": {"abbrev": False, "flags": "--all", "values": "--unicode --color"},
                "info": {"abbrev": False, "flags": "--verbose"},
                "find search": {"abbrev": False, "flags": "--private --narrow", "values":
                                "--section"},
                "services changes tasks connections interface version aliases warnings "
                "whoami model": {"abbrev": False, "flags": "--all --verbose --abs-time "
                                 "--serial --assertion"}},
    },
    "flatpak": {
        "abbrev": False,
        "flags": "--help --version --verbose --installations --default-arch "
                 "--supported-arches --gl-drivers",
        "sub": {"list ps remotes history search": {"abbrev": False, "short": "d",
                                                   "flags": "--app --runtime --system "
                                                            "--user --all --show-details "
                                                            "--show-disabled",
                                                   "values": "--columns --arch "
                                                             "--installation --since "
                                                             "--until"},
                "info remote-ls remote-info": {"abbrev": False, "short": "rmMosleamxc",
                                               "flags": "--system --user --show-ref "
                                               "--show-commit --show-origin --show-size "
                                               "--show-metadata --show-runtime --show-sdk "
                                               "--show-permissions --show-extensions "
                                               "--show-location --updates --app --runtime "
                                               "--cached --log",
                                               "values": "--arch --installation --columns "
                                                         "--commit --file-access"}},
    },
    "pip": {
        "short": "qv",
        "abbrev": False,
        "flags": "--quiet --verbose --isolated --no-color --disable-pip-version-check "
                 "--no-input --help --version --python-version",
        "deny": {"--log --log-file --cache-dir --src --target --root --prefix --python":
                 "writes elsewhere or runs another Python", "--proxy --index-url "
                 "--extra-index-url --trusted-host --cert --client-cert": CONFIG},
        "sub": {"list": {"short": "oulve", "abbrev": False,
                         "flags": "--outdated --uptodate --editable --local --user "
                                  "--not-required --pre --exclude-editable "
                                  "--include-editable --verbose",
                         "values": "--format --path --exclude"},
                "show": {"short": "fv", "abbrev": False, "flags": "--files --verbose"},
                "freeze": {"short": "l", "abbrev": False, "flags": "--all --local --user "
                           "--exclude-editable", "values": "--path --exclude"},
                "check": {"abbrev": False},
                "config": {"verbs": {"list get debug": "names"}, "abbrev": False,
                           "flags": "--global --user --site"}},
    },
    "npm": {
        "abbrev": False,
        "short": "gv",
        "flags": "--global --json --long --parseable --all --version --help --prod "
                 "--production --dev --no-color --unicode --silent --quiet",
        "values": "--depth --omit --include --loglevel",
        "deny": {"--cache --prefix --userconfig --globalconfig --registry --script-shell "
                 "--node-options --shell --call -c --package --workspace -w --workspaces "
                 "--ignore-scripts --foreground-scripts --init-module --editor --viewer "
                 "--browser": CONFIG},
        "sub": {"ls list la ll": {"abbrev": False, "short": "ga",
                                  "flags": "--all --global --json --long --parseable "
                                           "--prod --production --dev --link --unicode",
                                  "values": "--depth --omit --include"},
                "view info show v": {"abbrev": False, "flags": "--json"},
                "outdated": {"abbrev": False, "short": "ga", "flags": "--all --global "
                             "--json --long --parseable"},
                "search s find": {"abbrev": False, "flags": "--json --long --parseable"},
                "prefix root bin": {"abbrev": False, "short": "g", "flags": "--global"},
                "version": {"abbrev": False, "flags": "--json", "operands": "none"},
                "config c": {"abbrev": False, "verbs": {"list ls get": "names"},
                             "flags": "--json --long --global"}},
    },
}

TABLE["yum"] = TABLE["dnf"]
TABLE["pip3"] = TABLE["pip"]
