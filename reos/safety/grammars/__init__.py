"""The one read-only table: every program reos may run without approval, and exactly the
arguments with which it only reads (read by `reos.safety.grammar`; `safety.wrappers`
reads the wrappers' entries; the quality checker reads wrappers through it too).

One entry per program, plain data, grouped by family in the modules of this package.
An entry is a dict with these keys (all optional):

- `short`: letters of short options without a value (`"lah"`: -l, -a, -h);
  `short_values`: letters of short options that take one (`-k 2`, `-k2`);
- `flags`, `values`, `optional`, `maybe`: space-separated option spellings without a
  value, with a required one (`--key K`, `--key=K`), with an optional one (only
  `--color=always`, `-u` + attached), and with one taken only when the next word passes
  the option's check (`journalctl -b -1`);
- `checks`: option -> the named check its value must pass (`grammar_checks.value`);
- `deny`: "spellings" -> what they do; options the program knows that are not read-only
  (needed to resolve abbreviations, and named when refused);
- `abbrev`: False when only full long names are taken (default: unique GNU prefixes);
- `style`: "gnu" (options anywhere), "posix" (options end at the first operand) or
  "single" (single-dash long options, as `find -name` and `ip -json`);
- `numeric`: `-NUM` is a count; `anything`: no option acts (ps), `deny_letters` except
  these (every word is then judged by the operand check); `bundle_first`: `tar tvf FILE`;
- `operands`: the named check of the operands (`grammar_checks.operands`; "names" for
  words that are never opened, "need:-l|--list" for a mode the options must give,
  "only:-D" for such a mode with no operand);
- `sub`: subcommand -> entry (first operand; "a b" names aliases); `verbs`: verb ->
  operand check, for tools that take options anywhere (systemctl); `default`: what no
  subcommand means; `actions`: words that change things, refused as operands;
- `wrapper`: the operands are another command, judged with its own entry;
- `runs`: options whose value is a command up to `;` or `+` (`find -exec`), judged with
  its own entry; `getset`: options that show alone and set with a value (`hdparm -B`);
  `whole`: a named check of the whole argument list (`kill`, `lspci`);
- `sends`: "words" or "stdin" when what it is given, or reads, goes to another machine
  (a word known only at run time, or a file on stdin, is then not read-only);
- `daemon`: only its configuration-test form is known; anything else starts it;
- `response_files`: the program reads more arguments from `@FILE` (binutils), which the
  command line does not show, so a word beginning with `@` is refused;
- `builtin`: a shell's own word (cd, export): read-only only inside shell text.

Not responsible for parsing (`grammar`) or for the named checks (`grammar_checks`).
"""

from __future__ import annotations

from reos.safety.grammars import (
    admin,
    containers,
    desktop,
    disks,
    files,
    network,
    packages,
    services,
    system,
    vcs,
    wrappers,
)

TABLE: dict[str, dict] = {}
for _module in (files, system, services, network, packages, containers, disks, vcs,
                wrappers, admin, desktop):
    _clash = TABLE.keys() & _module.TABLE.keys()
    assert not _clash, f"{_module.__name__} repeats {sorted(_clash)}"
    TABLE.update(_module.TABLE)

# the same program under other names
for _name, _same in {"egrep": "grep", "fgrep": "grep", "zgrep": "grep", "zegrep": "grep",
                     "gawk": "awk", "mawk": "awk",
                     "nawk": "awk", "original-awk": "awk", "sha1sum": "md5sum",
                     "sha224sum": "md5sum", "sha256sum": "md5sum", "sha384sum": "md5sum",
                     "sha512sum": "md5sum",
                     "gtar": "tar", "domainname": "hostname",
                     "dnsdomainname": "hostname", "vdir": "ls", "dir": "ls",
                     "lzcat": "xzcat", "fsck.ext4": "e2fsck", "fsck.ext3": "e2fsck",
                     "fsck.ext2": "e2fsck"}.items():
    TABLE[_name] = TABLE[_same]
