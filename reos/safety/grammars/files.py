"""Read-only grammars of the programs that read files and text: coreutils, grep, sed, awk,
find, tar, diff, jq and their kin.

Each entry lists every option the program knows (GNU tools accept any unique prefix of a
long option, so the ones that write or run something are listed under "deny" with what
they do); the format is described in `reos/safety/grammars/__init__.py`. Taken from the
tools' `--help` and manual pages (coreutils 9, grep 3, sed 4.9, gawk 5, findutils 4.9,
tar 1.34, diffutils 3.8).
"""

from __future__ import annotations

WRITES = "writes a file"
RUNS = "runs another program"
LIST = "opens the files a list names, which this command line does not show"
# binutils' readers: nothing they do writes, except loading a plugin; `@FILE` reads more
# options from a file this command line does not show
BINUTILS = {"anything": True, "response_files": True,
            "deny": {"--plugin": "loads a shared library"}}

TABLE: dict[str, dict] = {
    # programs that act, in the forms that only print their help or version
    "rm": {"flags": "--help --version", "operands": "only:--help|--version",
           "deny": {"-f -i -I -r -R -d -v --force --interactive --one-file-system "
                    "--no-preserve-root --preserve-root --recursive --dir --verbose":
                    "deletes files"}},
    "shred": {"flags": "--help --version", "operands": "only:--help|--version",
              "deny": {"-f -n -s -u -v -x -z --exact --force --iterations --random-source "
                       "--remove --size --verbose --zero": "destroys file contents"}},
    "ls": {
        "short": "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
        "short_values": "ITw",
        "flags": "--all --almost-all --author --escape --directory --dired --file-type "
                 "--full-time --group-directories-first --no-group --human-readable --si "
                 "--dereference-command-line --dereference-command-line-symlink-to-dir "
                 "--hide-control-chars --inode --kibibytes --dereference --literal "
                 "--numeric-uid-gid --quote-name --recursive --reverse --show-control-chars "
                 "--size --context --zero --ignore-backups --help --version",
        "values": "--block-size --format --hide --indicator-style --ignore --quoting-style "
                  "--sort --tabsize --time --time-style --width",
        "optional": "--color --hyperlink --classify",
        "operands": "names",
    },
    "cat": {"short": "AbeEnstTuv", "flags": "--show-all --number-nonblank --number "
            "--squeeze-blank --show-ends --show-tabs --show-nonprinting --help --version"},
    "head": {"short": "qvz", "short_values": "cn", "numeric": True,
             "flags": "--quiet --silent --verbose --zero-terminated --help --version",
             "values": "--bytes --lines"},
    "tail": {"short": "fFqvz", "short_values": "cns", "numeric": True,
             "flags": "--quiet --silent --verbose --zero-terminated --retry --help --version",
             "values": "--bytes --lines --max-unchanged-stats --pid --sleep-interval",
             "optional": "--follow"},
    "wc": {"short": "clmwL", "flags": "--bytes --chars --lines --words --max-line-length "
           "--help --version", "values": "--total", "deny": {"--files0-from": LIST}},
    "grep": {
        "short": "EFGPyivwxcLloqsbHhnTZzaIrRU",
        "short_values": "efmABCdD",
        "numeric": True,  # grep -3: three lines of context
        "flags": "--extended-regexp --fixed-strings --basic-regexp --perl-regexp "
                 "--ignore-case --no-ignore-case --word-regexp --line-regexp --null-data "
                 "--no-messages --invert-match --version --help --byte-offset "
                 "--line-number --line-buffered --with-filename --no-filename --only-matching "
                 "--quiet --silent --text --recursive --dereference-recursive "
                 "--files-without-match --files-with-matches --count --initial-tab --null "
                 "--binary --no-group-separator",
        "checks": {"-D": "one-of:skip", "--devices": "one-of:skip"},  # read opens devices
        "values": "--regexp --file --max-count --label --binary-files --directories "
                  "--devices --exclude --exclude-from --exclude-dir --include "
                  "--after-context --before-context --context --group-separator",
        "optional": "--color --colour",
        "operands": "grep-tree",  # -r: every file below a folder
    },
    "sort": {
        "short": "bdfghiMnRrVcCmsuz",
        "short_values": "ktS",
        "flags": "--ignore-leading-blanks --dictionary-order --ignore-case "
                 "--general-numeric-sort --ignore-nonprinting --month-sort "
                 "--human-numeric-sort --numeric-sort --random-sort --reverse --version-sort "
                 "--merge --stable --unique --zero-terminated --debug --help --version",
        "values": "--sort --batch-size --key --field-separator --buffer-size --parallel "
                  "--random-source",
        "optional": "--check",
        "deny": {"-o --output": WRITES, "--compress-program": RUNS, "--files0-from": LIST,
                 "-T --temporary-directory": "writes temporary files in a folder it is given"},
    },
    "uniq": {"short": "cdDiuz", "short_values": "fsw", "numeric": True,
             "flags": "--count --repeated --ignore-case --unique --zero-terminated --help "
                      "--version",
             "values": "--skip-fields --skip-chars --check-chars",
             "optional": "--all-repeated --group",
             "operands": "max1"},  # uniq IN OUT writes OUT
    "cut": {"short": "nsz", "short_values": "bcdf", "flags": "--complement --only-delimited "
            "--zero-terminated --help --version", "values": "--bytes --characters --delimiter "
            "--fields --output-delimiter"},
    "tr": {"short": "cCdst", "flags": "--complement --delete --squeeze-repeats "
           "--truncate-set1 --help --version"},
    "nl": {"short": "p", "short_values": "bdfhilnsvw", "flags": "--no-renumber --help "
           "--version", "values": "--body-numbering --section-delimiter --footer-numbering "
           "--header-numbering --line-increment --join-blank-lines --number-format "
           "--number-separator --starting-line-number --number-width"},
    "tac": {"short": "br", "short_values": "s", "flags": "--before --regex --help --version",
            "values": "--separator"},
    "rev": {"short": "0", "flags": "--zero --help --version"},
    "paste": {"short": "sz", "short_values": "d", "flags": "--serial --zero-terminated --help "
              "--version", "values": "--delimiters"},
    "join": {"short": "iz", "short_values": "aejot12v", "flags": "--ignore-case "
             "--check-order --nocheck-order --header --zero-terminated --help --version"},
    "fold": {"short": "bs", "short_values": "w", "numeric": True, "flags": "--bytes "
             "--characters --spaces --help --version", "values": "--width"},
    "fmt": {"short": "cstu", "short_values": "pwg", "numeric": True,
            "flags": "--crown-margin --tagged-paragraph --split-only --uniform-spacing "
                     "--help --version", "values": "--prefix --width --goal"},
    "column": {"short": "JxLtedh", "short_values": "cCEHilnNOoRrsTWS",
               "flags": "--table --json --fillrows --keep-empty-lines --table-noheadings "
                        "--table-header-repeat --table-noextreme --help --version",
               "values": "--columns --separator --output-separator --table-columns "
                         "--table-columns-limit --table-hide --table-name --table-order "
                         "--table-right --table-truncate --table-wrap --tree --tree-id "
                         "--tree-parent --output-width --use-spaces"},
    "comm": {"short": "123z", "flags": "--check-order --nocheck-order --total "
             "--zero-terminated --help --version", "values": "--output-delimiter"},
    "diff": {
        "short": "iEZbwBatTlrNsqcuenyp0123456789",
        "short_values": "ICFUWSxXD",
        "flags": "--normal --brief --report-identical-files --ed --rcs "
                 "--side-by-side --left-column --suppress-common-lines --show-c-function "
                 "--expand-tabs --initial-tab --suppress-blank-empty --paginate "
                 "--recursive --no-dereference --new-file --unidirectional-new-file "
                 "--ignore-file-name-case --no-ignore-file-name-case --ignore-case "
                 "--ignore-tab-expansion --ignore-trailing-space --ignore-space-change "
                 "--ignore-all-space --ignore-blank-lines --text --strip-trailing-cr "
                 "--minimal --speed-large-files --help --version",
        "values": "--show-function-line --label --width --tabsize --exclude "
                  "--exclude-from --starting-file --from-file --to-file "
                  "--ignore-matching-lines --ifdef --old-group-format --new-group-format "
                  "--changed-group-format --unchanged-group-format --line-format "
                  "--old-line-format --new-line-format --unchanged-line-format "
                  "--horizon-lines --palette",
        "optional": "--context --unified --color",
        "operands": "tree",
    },
    "cmp": {"short": "blsv", "short_values": "inI", "flags": "--print-bytes --verbose "
            "--quiet --silent --help --version", "values": "--ignore-initial --bytes"},
    "basename": {"short": "az", "short_values": "s", "flags": "--multiple --zero --help "
                 "--version", "values": "--suffix", "operands": "names"},
    "dirname": {"short": "z", "flags": "--zero --help --version", "operands": "names"},
    "realpath": {"short": "emLPqsz", "flags": "--canonicalize-existing "
                 "--canonicalize-missing --logical --physical --quiet --strip --no-symlinks "
                 "--zero --help --version", "values": "--relative-to --relative-base",
                 "operands": "names"},
    "readlink": {"short": "femnqsvz", "flags": "--canonicalize --canonicalize-existing "
                 "--canonicalize-missing --no-newline --quiet --silent --verbose --zero "
                 "--help --version", "operands": "names"},
    "stat": {"short": "LfZt", "short_values": "c", "flags": "--dereference --file-system "
             "--terse --help --version", "values": "--format --printf --cached",
             "operands": "names"},
    "file": {
        "short": "bcdEhiklLNnprsSvz0",
        "short_values": "eFmP",
        "flags": "--brief --checking-printout --debug --keep-going --list --dereference "
                 "--no-dereference --no-pad --no-buffer --preserve-date --raw "
                 "--special-files --uncompress --uncompress-noreport --mime-type "
                 "--mime-encoding --extension --apple --print0 --no-sandbox --help "
                 "--version",
        "values": "--exclude --exclude-quiet --separator --magic-file --parameter",
        "optional": "--mime",
        "deny": {"-C --compile": "writes a compiled magic file", "-f --files-from": LIST},
    },
    "du": {
        "short": "0abcDhHklLmPsSx",
        "short_values": "BdtX",
        "flags": "--null --all --apparent-size --bytes --total --dereference-args "
                 "--human-readable --inodes --count-links --dereference --no-dereference "
                 "--separate-dirs --si --summarize --one-file-system --help --version",
        "values": "--block-size --max-depth --threshold --time-style "
                  "--exclude-from --exclude",
        "deny": {"--files0-from": LIST},
        "optional": "--time",
        "operands": "names",
    },
    "df": {
        "short": "ahHiklPTv",
        "short_values": "Btx",
        "flags": "--all --human-readable --si --inodes --local --no-sync --portability "
                 "--sync --total --print-type --help --version",
        "values": "--block-size --type --exclude-type",
        "optional": "--output",  # the columns to show, not a file
        "operands": "any",  # df opens each file it is given
    },
    "dd": {"flags": "--help --version", "abbrev": False, "operands": "dd"},
    "echo": {"short": "neE", "style": "posix", "flags": "--help --version",
             "operands": "names"},
    "printf": {"style": "posix", "flags": "--help --version",
               "deny": {"-v": "sets a shell variable"}, "operands": "names"},
    "true": {"anything": True}, "false": {"anything": True},
    "pwd": {"short": "LP", "flags": "--logical --physical --help --version",
            "operands": "none"},
    "basenc": {"short": "diw", "flags": "--decode --ignore-garbage --base64 --base64url "
               "--base32 --base32hex --base16 --base2msbf --base2lsbf --z85 --help "
               "--version", "values": "--wrap", "operands": "max1"},
    "base64": {"short": "di", "short_values": "w", "flags": "--decode --ignore-garbage "
               "--help --version", "values": "--wrap", "operands": "max1"},
    "base32": {"short": "di", "short_values": "w", "flags": "--decode --ignore-garbage "
               "--help --version", "values": "--wrap", "operands": "max1"},
    "od": {"short": "abcdfilosxv", "short_values": "AjNSt",
           "flags": "--output-duplicates --traditional --help --version",
           "values": "--address-radix --endian --skip-bytes --read-bytes --format",
           "optional": "--strings --width -w"},
    "hexdump": {"short": "bcCdoxv", "short_values": "efns",
                "flags": "--one-byte-octal --one-byte-char --canonical --two-bytes-decimal "
                         "--two-bytes-octal --two-bytes-hex --no-squeezing --help --version",
                "values": "--format --format-file --length --skip", "optional": "--color -L"},
    "xxd": {"short": "abCeEiuprdv", "short_values": "cgnlosR", "style": "single",
            "flags": "-a -autoskip -b -bits -C -capitalize -e -E -EBCDIC -i -include -u -p "
                     "-ps -postscript -plain -r -revert -d -v -version -h -help",
            "values": "-c -cols -g -groupsize -n -name -l -len -o -offset -s -seek -R",
            "operands": "max1"},  # xxd IN OUT writes OUT
    "strings": {"short": "adfwhv", "short_values": "nteTs", "numeric": True,
                "response_files": True,
                "flags": "--all --data --print-file-name --include-all-whitespace --help "
                         "--version",
                "values": "--bytes --radix --encoding --target --output-separator "
                          "--unicode"},
    "md5sum": {"short": "btwz", "flags": "--binary --tag --text --zero "
               "--ignore-missing --quiet --status --strict --warn --help --version",
               "deny": {"-c --check": LIST}},
    "b2sum": {"short": "btwz", "short_values": "l", "flags": "--binary --tag "
              "--text --zero --ignore-missing --quiet --status --strict --warn --help "
              "--version", "values": "--length", "deny": {"-c --check": LIST}},
    "sum": {"short": "rs", "flags": "--sysv --help --version"},
    "cksum": {"short": "rswz", "short_values": "al", "deny": {"-c --check": LIST},
              "flags": "--raw --tag "
              "--untagged --zero --ignore-missing --quiet --status --strict --warn --debug "
              "--base64 --help --version", "values": "--algorithm --length"},
    "seq": {"short": "w", "short_values": "fs", "numeric": True, "flags": "--equal-width "
            "--help --version", "values": "--format --separator", "operands": "names"},
    "sleep": {"flags": "--help --version", "operands": "names"},
    "yes": {"flags": "--help --version", "operands": "names"},
    "expr": {"style": "posix", "flags": "--help --version", "operands": "names"},
    "factor": {"short": "h", "flags": "--exponents --help --version", "operands": "names"},
    "numfmt": {"short": "z", "short_values": "d", "flags": "--debug --grouping "
               "--zero-terminated --help --version", "values": "--delimiter --field "
               "--format --from --from-unit --to --to-unit --invalid --padding --round "
               "--suffix --unit-separator", "optional": "--header"},
    "expand": {"short": "i", "short_values": "t", "numeric": True, "flags": "--initial "
               "--help --version", "values": "--tabs"},
    "unexpand": {"short": "a", "short_values": "t", "numeric": True, "flags": "--all "
                 "--first-only --help --version", "values": "--tabs"},
    "look": {"short": "adf", "short_values": "t", "flags": "--alternative --alphanum "
             "--ignore-case --help --version", "values": "--terminate"},
    "test": {"anything": True}, "[": {"anything": True},
    "tee": {"short": "aip", "flags": "--append --ignore-interrupts --help --version",
            "optional": "--output-error", "operands": "devnull"},
    "zcat": {"short": "fqvlt", "short_values": "S", "flags": "--force --quiet --verbose "
             "--list --test --synchronous --help --version", "values": "--suffix",
             "deny": {"-r --recursive": "works on whole folders"}},
    "gzip": {"short": "cdfklqtvnN123456789", "flags": "--stdout --to-stdout --decompress "
             "--uncompress --force --keep --list --quiet --test --verbose --no-name --name "
             "--best --fast --license --rsyncable --synchronous --help --version",
             "values": "--suffix", "deny": {"-r --recursive": "works on whole folders"},
             "operands": "need:-c|--stdout|--to-stdout|-l|--list|-t|--test"},
    "bzcat": {"short": "fqsvkcdzt123456789", "flags": "--force --quiet --small --verbose "
              "--keep --help --version --best --fast --compress --decompress --license "
              "--stdout --test"},
    "xzcat": {"short": "fqvlQktdzce0123456789", "short_values": "TF",
              "flags": "--force --quiet --verbose --list --keep --test --no-warn --robot "
                       "--help --long-help --version --compress --decompress --extreme "
                       "--stdout",
              "values": "--threads --format --memlimit --memlimit-decompress",
              "deny": {"--files --files0": LIST}},
    # binutils' readers, the initramfs lister, the login-record dumper: no option of theirs
    # writes or runs anything (utmpdump -o does: refused)
    "readelf": BINUTILS, "objdump": BINUTILS, "nm": BINUTILS, "size": BINUTILS,
    "lsinitramfs": {"anything": True},
    "utmpdump": {"anything": True, "deny_letters": "or",
                 "deny": {"--output --reverse": "writes a login-records file"}},
    "iconv": {"short": "cs", "short_values": "ft", "flags": "--list --silent --verbose "
              "--help --usage --version", "values": "--from-code --to-code",
              "deny": {"-o --output": WRITES}},
    "xz": {"short": "dzkfctlqvQ0123456789e", "short_values": "TF",
           "flags": "--decompress --uncompress --compress --keep --force --stdout "
                    "--to-stdout --test --list --quiet --verbose --no-warn --robot "
                    "--extreme --help --long-help --version",
           "values": "--threads --format --memlimit --memlimit-decompress",
           "deny": {"--files --files0": LIST, "-S --suffix": "names the files it writes"},
           "operands": "need:-c|--stdout|--to-stdout|-t|--test|-l|--list"},
    "zstd": {"short": "dckltqvf0123456789", "abbrev": False,
             "flags": "--decompress --stdout --keep --list --test --quiet --verbose --force "
                      "--help --version",
             "deny": {"-o --rm --output-dir-flat --output-dir-mirror --filelist": WRITES},
             "operands": "need:-c|--stdout|-t|--test|-l|--list"},
    "dpkg-deb": {"short": "cIfW", "abbrev": False, "flags": "--contents --info --field "
                 "--show --help --version", "values": "--showformat",
                 "deny": {"-x --extract -X --vextract -R --raw-extract -e --control "
                          "--ctrl-tarfile --fsys-tarfile -b --build": "extracts or builds "
                          "files"}, "operands": "need:-c|--contents|-I|--info|-f|--field|"
                                                "-W|--show"},
    "cpio": {"short": "itvn", "abbrev": False, "flags": "--extract --list --verbose "
             "--numeric-uid-gid", "operands": "need:-t|--list",
             "deny": {"-o --create -p --pass-through -d --make-directories -u "
                      "--unconditional -F --file -E --pattern-file -R --owner": "writes "
                      "files"}},
    # -p and -c extract to the output only; -Z1, -Zl…: zipinfo's listings
    "unzip": {"short": "lvtZqzpc", "abbrev": False,
              "flags": "-Z1 -Z2 -Zs -Zm -Zl -Zv -Zh -Zt -Zz -ZT",
              "operands": "need:-l|-v|-t|-Z|-z|-p|-c|-Z1|-Z2|-Zs|-Zm|-Zl|-Zv|-Zh|-Zt|-Zz|-ZT",
              "deny": {"-d -o -n -f -u -j -x -a -b -C -L -K -X -U -V -M":
                       "extracts files or changes how"}},
    "zipinfo": {"short": "12shmlvtTzMZ", "abbrev": False},
    "zstdcat": {"short": "fqv", "abbrev": False,
                "flags": "--force --quiet --verbose --help --version",
                "deny": {"-o": WRITES}},
    "jq": {
        "short": "acCMnrjsSReh",
        "short_values": "fL",
        "flags": "--seq --stream --stream-errors --slurp --raw-input --null-input "
                 "--compact-output --tab --color-output --monochrome-output --ascii-output "
                 "--unbuffered --sort-keys --raw-output --raw-output0 --join-output "
                 "--exit-status --args --jsonargs --help --version --build-configuration",
        "values": "--indent --arg --argjson --slurpfile --rawfile --from-file",
    },
    "find": {
        "style": "single",
        "flags": "-H -L -P -O0 -O1 -O2 -O3 -depth -d -follow -mount -xdev -noleaf "
                 "-ignore_readdir_race -noignore_readdir_race -daystart -warn -nowarn "
                 "-empty -executable -readable -writable -nouser -nogroup -print -print0 "
                 "-ls -prune -quit -true -false -not -a -and -o -or -help --help -version "
                 "--version",
        "values": "-D -maxdepth -mindepth -name -iname -path -ipath -wholename -iwholename "
                  "-regex -iregex -regextype -lname -ilname -type -xtype -size -perm -user "
                  "-group -uid -gid -links -inum -samefile -newer -anewer -cnewer -mtime "
                  "-mmin -atime -amin -ctime -cmin -used -fstype -context -printf "
                  "-files0-from -newermt -newerct -newerat -newermm -newercc -neweraa",
        # -exec and -execdir are read-only when the command they run is (judged as such)
        "runs": "-exec -execdir",
        "deny": {"-ok -okdir": "asks questions on the terminal", "-delete": "deletes files",
                 "-fprint -fprint0 -fprintf -fls": WRITES},
    },
    "sed": {
        "short": "nErsuzb",
        "short_values": "el",
        "flags": "--quiet --silent --debug --posix --regexp-extended --separate --sandbox "
                 "--unbuffered --null-data --binary --follow-symlinks --help --version",
        "values": "--expression --line-length",
        "checks": {"-e": "sed", "--expression": "sed"},
        "deny": {"-i --in-place": "edits the files in place",
                 "-f --file": "runs a script read from a file"},
        "operands": "sed",
    },
    "awk": {
        "short": "bcCgnNOPrStMsVh",
        "short_values": "Fve",
        "flags": "--characters-as-bytes --traditional --copyright --gen-pot "
                 "--non-decimal-data --use-lc-numeric --optimize --posix --re-interval "
                 "--no-optimize --sandbox --bignum --version --help --lint-old",
        "values": "--field-separator --assign --source",
        "optional": "--lint",
        "checks": {"-e": "awk", "--source": "awk"},
        "deny": {"-f --file -E --exec": "runs a program read from a file",
                 "-i --include -l --load": "loads code", "-W": "takes mawk's extra options",
                 "-d --dump-variables -p --profile -o --pretty-print": WRITES,
                 "-D --debug": "starts a debugger"},
        "operands": "awk",
    },
    "tar": {
        # listing only: `tar -tvf FILE` (`tar tvf FILE` is read by `grammars.old_tar`)
        "short": "txvzjJaZkmpsSOBiRh",
        "short_values": "fbCHKNX",
        "flags": "--list --extract --get --to-stdout --exclude-vcs --verbose --gzip --gunzip "
                 "--ungzip "
                 "--bzip2 --xz --lzip --lzma "
                 "--lzop --zstd --auto-compress --no-auto-compress --compress --uncompress "
                 "--block-number --ignore-zeros --numeric-owner --wildcards --no-wildcards "
                 "--anchored --no-anchored --ignore-case --no-ignore-case --wildcards-match-"
                 "slash --no-wildcards-match-slash --full-time --utc --show-stored-names "
                 "--show-transformed-names --force-local --null --no-null --unquote "
                 "--no-unquote --verbatim-files-from "
                 "--no-verbatim-files-from --dereference --check-links --totals --help "
                 "--usage --version --read-full-records --seek --no-seek --test-label",
        "optional": "--occurrence",
        "values": "--file --blocking-factor --directory --exclude --exclude-from "
                  "--format --label --starting-file "
                  "--strip-components --transform --xform --newer --newer-mtime --after-date "
                  "--exclude-tag --exclude-tag-all --exclude-tag-under "
                  "--sort --quoting-style --quote-chars --no-quote-chars --record-size",
        "checks": {"-f": "local", "--file": "local"},
        "deny": {"-c --create -r --append -u --update -A --catenate "
                 "--concatenate --delete -d --diff --compare": "changes or "
                 "creates files",
                 "-I --use-compress-program --to-command --info-script --new-volume-script "
                 "-F --rsh-command --rmt-command --checkpoint-action": RUNS,
                 "-g --listed-incremental --index-file --volno-file": WRITES,
                 "-T --files-from": LIST,
                 "-w --interactive --confirmation -M --multi-volume -L --tape-length":
                     "asks questions on the terminal",
                 "--absolute-names --acls --add-file --atime-preserve --backup "
                 "--check-device --checkpoint --clamp-mtime --delay-directory-restore "
                 "--exclude-backups --exclude-caches --exclude-caches-all "
                 "--exclude-caches-under --exclude-ignore --exclude-ignore-recursive "
                 "--exclude-vcs-ignores --group --group-map --hard-dereference "
                 "--hole-detection --ignore-command-error --ignore-failed-read --incremental "
                 "--keep-directory-symlink --keep-newer-files --keep-old-files --level "
                 "--mode --mtime --no-acls --no-check-device --no-delay-directory-restore "
                 "--no-ignore-command-error --no-overwrite-dir --no-recursion "
                 "--no-same-owner --no-same-permissions --no-selinux --no-xattrs "
                 "--old-archive --one-file-system --one-top-level --overwrite "
                 "--overwrite-dir --owner --owner-map --pax-option --portability --posix "
                 "--preserve-order --preserve-permissions --recursion --recursive-unlink "
                 "--remove-files --restrict --same-order --same-owner --same-permissions "
                 "--selinux --show-defaults --show-omitted-dirs "
                 "--show-snapshot-field-ranges --skip-old-files --sparse --sparse-version "
                 "--suffix --touch --unlink-first --verify --warning --xattrs "
                 "--xattrs-exclude --xattrs-include": "only matters when tar writes files"},
        "bundle_first": True,  # `tar tvf FILE`: the first word is a bundle without a dash
        "operands": "tar",  # listing, or extracting to stdout (-xO) only
    },
    "man": {
        "short": "afkKwWl7DZ",
        "short_values": "sLmMeE",
        "flags": "--all --whatis --apropos --global-apropos --where --path --location "
                 "--where-cat --location-cat --local-file --no-hyphenation --ignore-case "
                 "--match-case "
                 "--no-justification --ascii --ditroff --regex --wildcard --names-only "
                 "--no-subpages --nh --nj --debug --default --help --usage --version",
        "values": "--sections --locale --manpath --systems --extension --encoding "
                  "--prompt",
        "optional": "--warnings",
        "deny": {"-P --pager -H --html -T --troff-device -X --gxditview -t --troff "
                 "-p --preprocessor -R --recode": RUNS,
                 "-C --config-file": "reads another configuration",
                 "-u --update -c --catman": "rewrites the manual database"},
        "operands": "man",
    },
}
