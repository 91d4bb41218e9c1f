"""Read-only grammar of git: the subcommands that only look at a repository.

Global options that choose another configuration or repository layout (`--config-env`,
`--git-dir`, `--work-tree`, `--exec-path=`, and `-c` but for the settings that only change
how it prints: colours, quoting, dates) are never read-only: a configuration decides
which pager, diff driver, hook and fsmonitor git runs. Options that
write (`--output`) or run a program (`--ext-diff`, `--textconv`, `grep -O`, `tag -v`,
which runs gpg) are refused, as are the forms that create or delete (`git branch NAME`,
`git config KEY VALUE`). Only full option names are taken. Format:
`reos/safety/grammars/__init__.py`; git 2.39.
"""

from __future__ import annotations

RUNS = "runs another program"
WRITES = "writes a file"
CHANGES = "changes the repository"

_DIFF_FLAGS = (
    "-p -u --patch --no-patch -s --raw --patch-with-raw --numstat --shortstat "
    "--summary --patch-with-stat --name-only --name-status --compact-summary "
    "--full-index --binary --no-color --no-renames --check --no-ext-diff --no-textconv "
    "-w -b --ignore-all-space --ignore-space-change --ignore-space-at-eol "
    "--ignore-blank-lines --ignore-cr-at-eol --minimal --patience --histogram "
    "--text -a -R --exit-code --quiet --no-prefix --function-context -W --cached --staged "
    "--merge-base --no-index -M -C -D --irreversible-delete "
    "--ita-invisible-in-index --ignore-submodules")
_DIFF_VALUES = ("-U --unified --inter-hunk-context --diff-filter --diff-algorithm "
                "--stat-width --stat-name-width --stat-count --src-prefix --dst-prefix "
                "--line-prefix -S -G --find-object --anchored --word-diff-regex "
                "-O --ignore-matching-lines -I --submodule --ws-error-highlight "
                "--color-moved --color-moved-ws")
_DIFF_OPTIONAL = "--color --word-diff --color-words --relative --break-rewrites " \
                 "--find-renames --find-copies --dirstat --stat --abbrev"
_DIFF_DENY = {"--output": WRITES, "--ext-diff --textconv": RUNS}

_LOG_FLAGS = (
    _DIFF_FLAGS + " --oneline --graph --all --branches --tags --remotes --reverse "
    "--first-parent --merges --no-merges --follow --source --topo-order --date-order "
    "--author-date-order --abbrev-commit --no-abbrev-commit --relative-date "
    "--left-right --cherry-pick --cherry-mark --boundary --no-walk --full-history "
    "--simplify-merges --ancestry-path --regexp-ignore-case "
    "--extended-regexp --fixed-strings --perl-regexp --invert-grep --all-match "
    "--no-decorate --parents --children --walk-reflogs -g --log-size --notes "
    "--no-notes --show-pulls --full-diff --dense --sparse --use-mailmap --mailmap "
    "--no-mailmap --count -i -E -F -P --remove-empty --in-commit-order --quiet")
_LOG_VALUES = (
    _DIFF_VALUES + " -n --max-count --skip --since --after --until --before --author "
    "--committer --grep --format --date --since-as-filter --min-parents --max-parents "
    "-L --exclude --decorate-refs --decorate-refs-exclude --encoding")
_LOG_OPTIONAL = _DIFF_OPTIONAL + " --decorate --pretty"

_LOG = {"abbrev": False, "numeric": True, "flags": _LOG_FLAGS, "values": _LOG_VALUES,
        "optional": _LOG_OPTIONAL, "deny": _DIFF_DENY}
_DIFF = {"abbrev": False, "numeric": True, "flags": _DIFF_FLAGS, "values": _DIFF_VALUES,
         "optional": _DIFF_OPTIONAL, "deny": _DIFF_DENY}

TABLE: dict[str, dict] = {
    "git": {
        "style": "posix",
        "abbrev": False,
        "short_values": "Cc",
        "checks": {"-c": "git-showing"},  # only settings that change how it prints
        "flags": "--no-pager -P --no-optional-locks --literal-pathspecs --glob-pathspecs "
                 "--noglob-pathspecs --icase-pathspecs --no-replace-objects --version",
        "deny": {"--config-env --git-dir --work-tree --namespace --exec-path --bare "
                 "--super-prefix": "reads another configuration, which decides what git "
                 "runs", "-p --paginate": "runs a pager", "--help -h": "opens the manual"},
        "sub": {
            "status": {"abbrev": False, "short": "sbvz", "flags": "--short --branch "
                       "--long --verbose --null --show-stash --ahead-behind "
                       "--no-ahead-behind --renames --no-renames --no-column",
                       "optional": "--porcelain --untracked-files --ignored "
                                   "--ignore-submodules --column --find-renames -u",
                       "checks": {"-u": "one-of:no|normal|all"}},
            "log whatchanged": _LOG,
            "show": {**_LOG, "flags": _LOG_FLAGS + " --quiet"},
            "diff": _DIFF,
            "branch": {"abbrev": False, "short": "arvl", "flags": "--all --remotes "
                       "--verbose --list --show-current --no-color --no-column "
                       "--ignore-case --omit-empty",
                       "values": "--sort --format --points-at",
                       "maybe": "--merged --no-merged --contains --no-contains",
                       "checks": {"--merged": "rev", "--no-merged": "rev",
                                  "--contains": "rev", "--no-contains": "rev"},
                       "optional": "--color --column --abbrev",
                       "deny": {"-d -D --delete -m -M --move -c -C --copy "
                                "--set-upstream-to -u --unset-upstream "
                                "--edit-description -f --force -t --track --no-track "
                                "--create-reflog --recurse-submodules": CHANGES},
                       "operands": "list-if-named"},
            "tag": {"abbrev": False, "short": "li", "flags": "--list --ignore-case "
                    "--no-column --omit-empty",
                    "values": "--sort --format --points-at",
                    "optional": "--contains --no-contains --merged --no-merged -n "
                                "--column --color",
                    "deny": {"-a --annotate -s --sign -u --local-user -f --force -d "
                             "--delete -m --message -F --file -e --edit --create-reflog "
                             "--cleanup": CHANGES, "-v --verify": "runs gpg"},
                    "operands": "list-if-named"},
            "remote": {"abbrev": False, "short": "v", "flags": "--verbose",
                       "sub": {"get-url": {"abbrev": False, "flags": "--push --all",
                                           "operands": "max1"}},
                       "default": "list"},
            "rev-parse": {"abbrev": False, "short": "q", "flags": "--show-toplevel "
                          "--git-dir --git-common-dir --absolute-git-dir "
                          "--is-inside-work-tree --is-inside-git-dir --is-bare-repository "
                          "--is-shallow-repository --show-cdup --show-prefix --verify "
                          "--quiet --symbolic --symbolic-full-name --all --branches "
                          "--tags --remotes --local-env-vars --show-superproject-working-"
                          "tree --show-ref-format --show-object-format",
                          "optional": "--short --abbrev-ref --git-path",
                          "values": "--since --until --default --prefix",
                          "deny": {"--parseopt --sq-quote": "reads its input as options"},
                          "operands": "names"},
            "ls-files": {"abbrev": False, "short": "cdmoiskuvftz", "short_values": "xX",
                         "flags": "--cached --deleted --modified --others --ignored "
                                  "--stage --killed --unmerged --directory "
                                  "--no-empty-directory --exclude-standard --full-name "
                                  "--error-unmatch --eol --deduplicate --sparse "
                                  "--recurse-submodules",
                         "values": "--exclude --exclude-from --exclude-per-directory "
                                   "--with-tree --format",
                         "optional": "--abbrev"},
            "ls-tree": {"abbrev": False, "short": "rdtlz", "flags": "--name-only "
                        "--name-status --object-only --full-name --full-tree --long",
                        "values": "--format", "optional": "--abbrev"},
            "describe": {"abbrev": False, "flags": "--tags --all --long --always "
                         "--contains --exact-match --first-parent --debug",
                         "values": "--match --exclude --candidates",
                         "optional": "--abbrev --dirty --broken"},
            "blame annotate": {"abbrev": False, "short": "bclstenfwp",
                               "short_values": "LS", "flags": "--root --show-stats "
                               "--porcelain --line-porcelain --incremental "
                               "--score-debug --show-name --show-number --show-email "
                               "--reverse --first-parent --minimal",
                               "values": "--date --contents --ignore-rev "
                                         "--ignore-revs-file --abbrev",
                               "maybe": "-M -C",
                               "checks": {"-M": "number", "-C": "number"},
                               "optional": "--color-lines --color-by-age",
                               "deny": {"--textconv": RUNS}},
            "shortlog": {"abbrev": False, "short": "nsec", "flags": "--numbered "
                         "--summary --email --committer --all --branches --tags",
                         "values": "--group --format --since --until --author"},
            "config": {"abbrev": False, "short": "lz", "flags": "--list --global --system "
                       "--local --worktree --name-only --show-origin --show-scope --null "
                       "--includes --no-includes --bool --int --path",
                       "values": "--get --get-all --get-regexp --get-urlmatch --file "
                                 "--blob --type --default",
                       "deny": {"--add --unset --unset-all --replace-all --rename-section "
                                "--remove-section -e --edit --get-color --get-colorbool":
                                CHANGES},
                       "operands": "git-config"},
            "reflog": {"abbrev": False, "verbs": {"show": "names"}, "default": "show",
                       "numeric": True, "values": "-n --max-count --format --date",
                       "flags": "--oneline --all", "actions": "expire delete exists"},
            "stash": {"abbrev": False, "sub": {"list": _LOG, "show": _DIFF}},
            "submodule": {"abbrev": False, "short": "q", "flags": "--quiet",
                          "sub": {"status": {"abbrev": False, "flags": "--cached "
                                             "--recursive"},
                                  "summary": {"abbrev": False, "short_values": "n",
                                              "flags": "--cached --files",
                                              "values": "--summary-limit"}},
                          "default": "status"},
            "cat-file": {"abbrev": False, "short": "tspe", "flags": "--allow-unknown-type "
                         "--mailmap --use-mailmap --buffer",
                         "deny": {"--textconv --filters": RUNS,
                                  "--batch --batch-check --batch-command --batch-all-objects":
                                  "reads its input as requests"}},
            "rev-list": {"abbrev": False, "numeric": True, "flags": "--count --all "
                         "--reverse --objects --first-parent --left-right --no-merges "
                         "--merges --branches --tags --remotes --topo-order --date-order "
                         "--boundary --cherry-pick --ancestry-path --parents --oneline",
                         "values": "-n --max-count --skip --since --until --after "
                                   "--before --author --committer --grep --format "
                                   "--max-parents --min-parents"},
            "show-ref": {"abbrev": False, "short": "sdq", "flags": "--head --heads "
                         "--branches --tags --dereference --verify --quiet --exists",
                         "optional": "--hash --abbrev"},
            "for-each-ref": {"abbrev": False, "values": "--format --sort --count "
                             "--points-at --exclude", "optional": "--contains --no-contains "
                             "--merged --no-merged --color",
                             "flags": "--shell --perl --python --tcl --ignore-case "
                                      "--omit-empty"},
            "name-rev": {"abbrev": False, "flags": "--tags --all --name-only --no-undefined "
                         "--always", "values": "--refs --exclude"},
            "merge-base": {"abbrev": False, "short": "a", "flags": "--all --octopus "
                           "--independent --is-ancestor --fork-point"},
            "count-objects": {"abbrev": False, "short": "vH", "flags": "--verbose "
                              "--human-readable", "operands": "none"},
            "var": {"abbrev": False, "short": "l", "operands": "names"},
            "version": {"abbrev": False, "flags": "--build-options", "operands": "none"},
            "grep": {"abbrev": False, "numeric": True,
                     "short": "ainvwlLcEFGPhHIzoqr",
                     "short_values": "efABCm",
                     "flags": "--cached --untracked --no-index --no-exclude-standard "
                              "--exclude-standard --text --ignore-case --invert-match "
                              "--word-regexp --files-with-matches --name-only "
                              "--files-without-match --count --null --extended-regexp "
                              "--basic-regexp --fixed-strings --perl-regexp --line-number "
                              "--column --full-name --heading --break --show-function "
                              "--function-context --only-matching --quiet --all-match "
                              "--no-color --recursive --no-recursive",
                     "values": "--max-depth --after-context --before-context --context "
                               "--max-count --threads",
                     "optional": "--color",
                     "deny": {"-O --open-files-in-pager": RUNS, "--textconv": RUNS,
                              "--recurse-submodules": "reads other repositories"}},
            "worktree": {"abbrev": False, "sub": {"list": {"abbrev": False,
                                                           "flags": "--porcelain -v "
                                                                    "--verbose -z",
                                                           "values": "--expire"}}},
            "clean": {"abbrev": False, "short": "ndfxXq", "short_values": "e",
                      "flags": "--dry-run --quiet --force", "values": "--exclude",
                      # -f only matters without -n; -n (a dry run) is required
                      "deny": {"-i --interactive --no-dry-run": "removes files"},
                      "operands": "need:-n|--dry-run"},
            "check-ignore": {"abbrev": False, "short": "vnqz", "flags": "--verbose "
                             "--non-matching --quiet --no-index"},
            # patches on stdout; without --stdout each is written to a file
            "format-patch": {"abbrev": False, "numeric": True,
                             "flags": _DIFF_FLAGS + " --stdout -n --numbered -N "
                                      "--no-numbered -k --keep-subject --cover-letter "
                                      "--no-cover-letter --no-attach --no-thread --signoff "
                                      "--no-signature --zero-commit --progress --no-binary "
                                      "--ignore-if-in-upstream --always --no-notes",
                             "values": _DIFF_VALUES + " --start-number --subject-prefix "
                                       "--in-reply-to --to --cc --signature "
                                       "--signature-file --interdiff --range-diff "
                                       "--creation-factor -v --reroll-count --suffix "
                                       "--cover-from-description --add-header",
                             "optional": _DIFF_OPTIONAL + " --from --thread --attach "
                                         "--inline --rfc --notes --base",
                             "deny": {**_DIFF_DENY, "-o --output-directory": WRITES},
                             "operands": "need:--stdout"},
            "notes": {"abbrev": False, "values": "--ref",
                      "sub": {"list show": {"abbrev": False, "operands": "max1"}},
                      "default": "list"},
            "fsck": {"abbrev": False, "flags": "--unreachable --dangling --no-dangling "
                     "--root --tags --cache --no-reflogs --full --no-full "
                     "--connectivity-only --strict --verbose -v --name-objects "
                     "--no-progress --progress",
                     "deny": {"--lost-found": WRITES}},
            # one name shows where it points; a second sets it
            "symbolic-ref": {"abbrev": False, "short": "q", "flags": "--quiet --short "
                             "--no-recurse --recurse",
                             "deny": {"-d --delete -m": CHANGES}, "operands": "max1"},
            # only checks or summarises the patch; without these it applies it
            "apply": {"abbrev": False, "short": "Rvqz", "short_values": "pC",
                      "flags": "--check --stat --numstat --summary --reverse --verbose "
                               "--quiet --unidiff-zero --recount --allow-empty "
                               "--inaccurate-eof --no-add --allow-overlap",
                      "values": "--include --exclude --directory --whitespace",
                      "deny": {"--apply --index --cached --intent-to-add -N --3way -3 "
                               "--build-fake-ancestor --reject --unsafe-paths":
                               CHANGES},
                      "operands": "need:--check|--stat|--numstat|--summary"},
        },
    },
}
