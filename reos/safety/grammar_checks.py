"""The named checks the read-only table refers to: option values, operand lists, the code
some readers take (a sed script, an awk program) and the own words of the wrappers that
run another command (sudo, timeout, nice, env, …), and which command that is.

Each check answers None when the words only read, or why not, in words that name the
word. Every check is strict: what it does not recognise is refused (fail closed). A word
that may name a file whose opening acts is refused (`acting_files.device`).

Not responsible for parsing options or judging the command a wrapper runs (`grammar`), or
for the table (`grammars`).
"""

from __future__ import annotations

from collections.abc import Callable

from reos.patterns import regex
from reos.safety.acting_files import device, special_tree

# -- option values -----------------------------------------------------------------------------

def _any(value: str) -> str | None:
    return device(value)


def _local(value: str) -> str | None:
    """An archive or file name that is not `host:path` (tar would reach it over rsh)."""
    head = value.split("/", 1)[0]
    if ":" in head:
        return f"names `{value}`, which it would reach over the network"
    return device(value)


def _devnull(value: str) -> str | None:
    return None if value == "/dev/null" else f"is `{value}`, which it writes"


def _number(value: str) -> str | None:
    text = value.lstrip("+-")
    return None if text.replace(".", "", 1).isdigit() else f"`{value}` is not a number"


def _word(value: str) -> str | None:
    """A name or field list: no path, nothing that can be a file."""
    return None if "/" not in value else f"`{value}` is a path here"


def _no_at(value: str) -> str | None:
    """curl's `@file` reads a file and sends it; `%output{FILE}` (curl 8.3) writes one."""
    if value.startswith("@"):
        return f"`{value}` reads a file and sends it"
    if "%output" in value:
        return f"`{value}` writes to a file"
    return device(value)


def _rev(value: str) -> str | None:
    """A revision or name (`git branch --contains abc1234`): anything but an option."""
    return f"`{value}` is an option" if value.startswith("-") else None


# `git -c KEY=VALUE` that only changes how git prints (colours, quoting, dates)
_GIT_SHOWING = regex(r"(?i)color\.[a-z.-]+|core\.quotepath|log\.date|log\.decorate|"
                          r"column\.ui")


def _git_showing(value: str) -> str | None:
    key, eq, setting = value.partition("=")
    if _GIT_SHOWING.fullmatch(key) and "!" not in setting and "`" not in setting:
        return None
    return f"`{key}` is a setting that can change what git runs or reads"


_BOOT = regex(r"[+-]?\d{1,6}|[0-9a-f]{32}(?:[+-]\d{1,6})?|all")
_COUNT = regex(r"\+?\d{1,12}|all")


def _boot(value: str) -> str | None:
    return None if _BOOT.fullmatch(value) else f"`{value}` is not a boot"


def _count(value: str) -> str | None:
    return None if _COUNT.fullmatch(value) else f"`{value}` is not a count"


# -- operand lists ---------------------------------------------------------------------------

def words(args: list[str]) -> str | None:
    """Every word is harmless to read (for programs with no option that acts)."""
    for word in args:
        why = device(word)
        if why is None and word[:1] in "-+" and len(word) > 2 and word[1] != "-":
            why = device(word[2:])  # `-o/dev/x`: a letter with its value attached
        if why:
            return why
    return None


def _paths(operands: list[str], seen: list[str]) -> str | None:
    return words(operands)


_RECURSIVE = {"-r", "-R", "--recursive", "--dereference-recursive", "-d", "--directories"}
def _tree_reader(operands: list[str], seen: list[str], pattern: bool = False) -> str | None:
    """grep -r, diff -r: every file below a folder is opened. Below /proc and /sys some
    files act when read or never end (/proc/kmsg, trace_pipe), and /dev holds devices; the
    root holds all three. With no folder named, grep -r reads the working folder (the
    judge checks a folder `cd` moved to)."""
    why = words(operands)
    if why is not None or not (_RECURSIVE & set(seen)):
        return why
    if pattern and not ({"-e", "--regexp", "-f", "--file"} & set(seen)):
        operands = operands[1:]  # the first operand is the pattern
    for folder in [o for o in operands if o != "-"] or ["."]:
        if special_tree(folder):
            return (f"reading every file below `{folder}` opens /proc, /sys or /dev files, "
                    "and reading some of them acts or never ends")
    return None


def _names(operands: list[str], seen: list[str]) -> str | None:
    """Operands that are only looked at, never opened (ls, stat): any word will do."""
    return None


def _none(operands: list[str], seen: list[str]) -> str | None:
    return f"`{operands[0]}` would be taken as a value to set" if operands else None


def _at_most(n: int) -> Callable[[list[str], list[str]], str | None]:
    def check(operands: list[str], seen: list[str]) -> str | None:
        if len(operands) > n:
            return f"`{operands[n]}` would be written to"
        return words(operands)
    return check


def _all_devnull(operands: list[str], seen: list[str]) -> str | None:
    for word in operands:
        if word != "/dev/null":
            return f"it writes to `{word}`"
    return None


def _date(operands: list[str], seen: list[str]) -> str | None:
    for word in operands:
        if not word.startswith("+"):
            return f"`{word}` would set the clock"
    return None


_DD_KEYS = {"if", "of", "bs", "ibs", "obs", "cbs", "count", "skip", "iseek", "status",
            "iflag", "conv"}


def _dd(operands: list[str], seen: list[str]) -> str | None:
    """dd copying to its output (no `of=`, or /dev/null) from a file or disk only reads."""
    for word in operands:
        key, eq, val = word.partition("=")
        if not eq or key not in _DD_KEYS:
            return f"`{word}` is not a dd operand known to only read"
        if key == "of" and val != "/dev/null":
            return f"`{word}` writes to {val}"
        if key == "if":
            why = device(val)
            if why:
                return why
    return None


def _config_test(operands: list[str], seen: list[str]) -> str | None:
    if operands:
        return f"`{operands[0]}` is not part of a configuration test"
    if not {"-t", "-T"} & set(seen):
        return "without `-t` it starts the daemon"
    return None


def _exactly_one_of(*options: str) -> Callable[[list[str], list[str]], str | None]:
    def check(operands: list[str], seen: list[str]) -> str | None:
        if not set(options) & set(seen):
            return f"it reads only with {' or '.join(f'`{o}`' for o in options)}"
        return words(operands)
    return check


def _sed(operands: list[str], seen: list[str]) -> str | None:
    if "-e" not in seen and "--expression" not in seen:
        if not operands:
            return "no script"
        why = sed_script(operands[0])
        if why:
            return why
        operands = operands[1:]
    return words(operands)


def _awk(operands: list[str], seen: list[str]) -> str | None:
    if "-e" not in seen and "--source" not in seen:
        if not operands:
            return "no program"
        why = awk_program(operands[0])
        if why:
            return why
        operands = operands[1:]
    return words([w for w in operands if "=" not in w.split("/", 1)[0]])


_MAN_PAGE = regex(r"[A-Za-z0-9_.:+@-]{1,100}")


def _man(operands: list[str], seen: list[str]) -> str | None:
    for word in operands:
        if "/" in word or not _MAN_PAGE.fullmatch(word):
            return f"`{word}` is not a manual page name"
    return None


def _web_url(value: str) -> str | None:
    """An http(s) address (or one with no scheme, which curl and wget read as http)."""
    scheme, sep, _ = value.partition("://")
    if sep and scheme.lower() not in ("http", "https"):
        return f"`{value}` is not an http(s) address ({scheme}:// can send raw data)"
    if not sep and (":" in value.split("/", 1)[0] and not value.split("/", 1)[0]
                    .rsplit(":", 1)[-1].isdigit() and not value.startswith("[")):
        return f"`{value}` is not an http(s) address"
    return None


def _web_urls(operands: list[str], seen: list[str]) -> str | None:
    for word in operands:
        why = _web_url(word)
        if why:
            return why
    return None


def _wget(operands: list[str], seen: list[str]) -> str | None:
    if not {"--spider", "-O", "--output-document"} & set(seen):
        return "wget without `--spider` or `-O -` saves what it downloads"
    return _web_urls(operands, seen)


def _plain_words(operands: list[str], seen: list[str]) -> str | None:
    for word in operands:
        if any(c in word for c in " \t\n;{}#") or word == "":
            return f"`{word}` holds more than one word"
    return None


def _ufw_status(operands: list[str], seen: list[str]) -> str | None:
    if len(operands) > 1 or (operands and operands[0] not in ("verbose", "numbered")):
        return f"`{' '.join(operands)}` is not a way ufw shows its status"
    return None


def _simulated(operands: list[str], seen: list[str]) -> str | None:
    if not {"-s", "--simulate", "--just-print", "--dry-run", "--recon", "--no-act"} & \
            set(seen):
        return "without `-s` (a simulation) it changes what is installed"
    return None


def _first_of(*allowed: str) -> Callable[[list[str], list[str]], str | None]:
    def check(operands: list[str], seen: list[str]) -> str | None:
        if operands and operands[0] not in allowed:
            return f"`{operands[0]}` is not one of {', '.join(allowed)}"
        return None
    return check


_PACMAN_MODES = {"-Q": "--query", "-T": "--deptest", "-S": "--sync", "-F": "--files"}


def _pacman(operands: list[str], seen: list[str]) -> str | None:
    given = set(seen)
    modes = [short for short, long in _PACMAN_MODES.items() if short in given or long in given]
    if len(modes) != 1:
        return "it reads only with exactly one of -Q, -T, -S, -F"
    if modes[0] == "-S":
        if not given & {"-s", "-i", "-l", "-g", "-p", "--search", "--info", "--list",
                        "--groups", "--print"}:
            return "`-S` without -s, -i, -l or -g installs packages"
        if given & {"-u", "-c", "--sysupgrade", "--clean"}:
            return "`-S` with -u or -c changes the system"
    return None


_PRINT_WHAT = {"free", "all", "list", "devices"}


def _parted(operands: list[str], seen: list[str]) -> str | None:
    """`parted [DEVICE [COMMAND …]]`: only printing commands (`print [free|all|list|
    devices]`, `unit U`, `help`, `version`); `parted -l` lists every disk."""
    if "-l" in seen or "--list" in seen or "--version" in seen or "--help" in seen \
            or "-v" in seen or "-h" in seen:
        return None if not operands else f"`{operands[0]}` comes after a listing"
    commands = operands[1:]
    if not commands:
        return "`parted DEVICE` alone is an editing session that can write the disk"
    i = 0
    while i < len(commands):
        word = commands[i]
        if word in ("print", "p"):
            i += 2 if i + 1 < len(commands) and commands[i + 1] in _PRINT_WHAT else 1
        elif word == "unit" and i + 1 < len(commands):
            i += 2
        elif word == "help":  # help takes one word, and parted goes on after it
            i += 2
        elif word == "version":
            i += 1
        else:
            return f"`{word}` is a parted command that is not known to only read"
    return None


def _apache_test(operands: list[str], seen: list[str]) -> str | None:
    if operands == ["configtest"] or (not operands and {"-t", "-S"} & set(seen)):
        return None
    return "only its configuration test (`configtest`, `-t`, `-S`) only reads"


_SFDISK_LISTS = {"-l", "--list", "-F", "--list-free", "-s", "--show-size", "-d", "--dump",
                 "-J", "--json", "-V", "--verify", "--help", "--version", "-g",
                 "--show-geometry"}


def _sfdisk(operands: list[str], seen: list[str]) -> str | None:
    """sfdisk reads when it lists; `-A DEV` and `--part-type DEV N` only show, one more
    word (a partition to mark, a new type) changes the disk."""
    given = set(seen)
    if given & {"-A", "--activate"}:
        return None if len(operands) == 1 else "with partition numbers it marks them bootable"
    if given & {"--part-type", "--part-uuid", "--part-label", "--part-attrs"}:
        return None if len(operands) == 2 else "with a new value it changes the partition"
    if given & _SFDISK_LISTS:
        return words(operands)
    return "without a listing option it reads a script on stdin and writes the disk"


def _tar(operands: list[str], seen: list[str]) -> str | None:
    given = set(seen)
    if given & {"-t", "--list", "--test-label"}:
        return words(operands)
    if given & {"-x", "--extract", "--get"} and given & {"-O", "--to-stdout"}:
        return words(operands)
    return "it reads only when it lists (-t) or extracts to its output (-xO)"


def _git_config(operands: list[str], seen: list[str]) -> str | None:
    """`git config --get K`, `git config -l`, or `git config K` (one name: its value). A
    name has a dot (`user.email`): a word without one is a subcommand of newer gits
    (`git config edit` opens an editor)."""
    if {"-l", "--list", "--get", "--get-all", "--get-regexp", "--get-urlmatch"} & set(seen):
        return words(operands)
    if len(operands) == 1:
        return None if "." in operands[0] else \
            f"`{operands[0]}` is no setting's name (newer gits run it as a subcommand)"
    return "`git config` with a name and a value sets it" if operands else \
        "`git config` alone does nothing it is known to only read"


def _nft(operands: list[str], seen: list[str]) -> str | None:
    """`nft -f FILE` runs the commands in FILE; with `-c` it only checks them."""
    if not {"-f", "--file"} & set(seen):
        return None
    if not {"-c", "--check"} & set(seen):
        return "`-f` runs the commands in the file (only `-c` checks them without running)"
    return f"`{operands[0]}` is a command beside `-f`" if operands else None


_DPKG_FILES = {"-c", "--contents", "-I", "--info"}


def _dpkg(operands: list[str], seen: list[str]) -> str | None:
    """dpkg's reading actions: `-c`/`-I` open the .deb files named; the others take
    package names or patterns, which it never opens."""
    from reos.safety.grammars.packages import DPKG_READS

    if not set(DPKG_READS) & set(seen):
        return "it reads only with one of its query actions (-l, -L, -s, -S, -c, -I, …)"
    return words(operands) if _DPKG_FILES & set(seen) else None


def _wipefs(operands: list[str], seen: list[str]) -> str | None:
    """wipefs lists signatures unless told to erase (-a, -o); -n erases nothing."""
    given = set(seen)
    if given & {"-a", "--all", "-o", "--offset"} and not given & {"-n", "--no-act"}:
        return "it erases signatures unless `-n` is given"
    return words(operands)


def _taskset(operands: list[str], seen: list[str]) -> str | None:
    """`taskset -p PID` shows; `taskset -p MASK PID` sets; `taskset MASK CMD` runs CMD."""
    if {"-p", "--pid"} & set(seen) and len(operands) == 1:
        return None
    return "only `taskset -p PID` shows without changing anything"


def _ssh_print(operands: list[str], seen: list[str]) -> str | None:
    if "-V" in seen and not operands:
        return None
    if "-Q" in seen and not operands:
        return None
    if "-G" in seen and len(operands) == 1:
        return None
    return "without -G it connects to another machine"


def _wg_show(operands: list[str], seen: list[str]) -> str | None:
    if {"private-key", "preshared-keys", "dump"} & set(operands):
        return "it would print secret keys"
    return None if len(operands) <= 2 else f"`{operands[2]}` is more than wg show takes"


def _local_image(operands: list[str], seen: list[str]) -> str | None:
    """One image file on this machine: `nbd://…`, `json:{…}`, `file:…` reach elsewhere."""
    if len(operands) != 1:
        return "it takes one image file"
    word = operands[0]
    if ":" in word.split("/", 1)[0] or "://" in word:
        return f"`{word[:40]}` is not a plain file name (a protocol or a JSON description)"
    return words(operands)


def _snapshot_list(operands: list[str], seen: list[str]) -> str | None:
    if "-l" not in seen:
        return "it reads only with `-l`"
    return _local_image(operands, seen)


def _no_assign(operands: list[str], seen: list[str]) -> str | None:
    for word in operands:
        if "=" in word:
            return f"`{word}` sets a value"
    return words(operands)


def _sysv_status(operands: list[str], seen: list[str]) -> str | None:
    if not operands and "--status-all" in seen:
        return None
    if len(operands) == 2 and operands[1] == "status":
        return None
    return "only `service NAME status` and `service --status-all` only read"


_OPERANDS: dict[str, Callable[[list[str], list[str]], str | None]] = {
    "any": _paths, "tree": _tree_reader,
    "grep-tree": lambda o, s: _tree_reader(o, s, pattern=True), "names": _names,
    "none": _none, "max1": _at_most(1),
    "max2": _at_most(2), "devnull": _all_devnull, "date": _date, "dd": _dd,
    "config-test": _config_test, "sed": _sed, "awk": _awk, "man": _man,
    "needs-list": _exactly_one_of("-l", "--list"),
    "list-if-named": lambda o, s: None if not o or ({"-l", "--list"} & set(s)) else
    f"`{o[0]}` would be created",
    "sysv-status": _sysv_status, "no-assign": _no_assign, "ssh-print": _ssh_print,
    "taskset": _taskset, "wipefs": _wipefs, "git-config": _git_config,
    "dpkg": _dpkg, "nft": _nft, "tar": _tar, "sfdisk": _sfdisk,
    "apache-test": _apache_test,
    "parted": _parted, "simulated": _simulated, "pacman": _pacman,
    "dnf-history": _first_of("list", "info"),
    "dnf-module": _first_of("list", "info", "provides"),
    "web-urls": _web_urls, "wget": _wget, "plain-words": _plain_words,
    "ufw-status": _ufw_status, "wg-show": _wg_show, "local-image": _local_image,
    "snapshot-list": _snapshot_list,
}


def _kill(args: list[str]) -> str | None:
    """`kill -0 PID…` (is it alive?), `kill -s 0 PID…`, `kill -l [N]`, `kill -L`: read
    only; every other form sends a signal."""
    if args[:1] in (["-l"], ["-L"], ["--list"], ["--table"]):
        return None if all(a.isdigit() for a in args[1:]) else "it sends a signal"
    rest = args[2:] if args[:2] == ["-s", "0"] else args[1:] if args[:1] in (
        ["-0"], ["-s0"], ["-SIG0"]) else None
    if rest is not None:  # signal 0 only asks whether the processes exist; a later -s
        words = [a for a in rest if a != "--"]  # would set another signal again
        if words and all(a.lstrip("-").isdigit() and not a.startswith("--")
                         for a in words) and not any(a in ("-0",) for a in words[:0]):
            return None
    return "kill without `-0` or `-l` sends a signal"


_LSPCI_FLAGS = set("mtvnkDPbMJx")  # not -q/-Q (the ID database over DNS, and a cache)
_LSPCI_VALUES = set("isdpO")  # not -A (another way to the bus, like -H)


def _lspci(args: list[str]) -> str | None:
    """lspci only reads, except with -H/-F/-G (another way to the bus) and -xxx (the whole
    configuration space, which crashes some devices)."""
    taken = iter(args)
    xs = 0
    for word in taken:
        if not word.startswith("-") or word == "-":
            return f"`{word}` is not something lspci takes"
        for k, letter in enumerate(word[1:], start=1):
            if letter == "x":
                xs += 1
            elif letter in _LSPCI_VALUES:
                if k == len(word) - 1:
                    next(taken, None)
                break
            elif letter not in _LSPCI_FLAGS:
                return f"lspci's `-{letter}` is not an option known to only read"
    return "`-xxx` reads the whole configuration space, which crashes some devices" \
        if xs > 2 else None


_WHOLE = {"kill": _kill, "lspci": _lspci}


def whole(check: str, args: list[str]) -> str | None:
    return _WHOLE[check](args)


def known_operands(check: str) -> bool:
    return check.startswith(("need:", "max:", "only:")) or check in _OPERANDS


def operands(check: str, given: list[str], seen: list[str]) -> str | None:
    if check.startswith("need:"):  # need:-l|--list — one of these options must be given
        return _exactly_one_of(*check[5:].split("|"))(given, seen)
    if check.startswith("only:"):  # only:-D — one of these options, and no operand
        return _exactly_one_of(*check[5:].split("|"))(given, seen) or _none(given, seen)
    if check.startswith("max:"):
        return _at_most(int(check[4:]))(given, seen)
    return _OPERANDS[check](given, seen)


_VALUES: dict[str, Callable[[str], str | None]] = {
    "boot": _boot, "count": _count,
    "any": _any, "local": _local, "devnull": _devnull, "number": _number, "word": _word,
    "no-at": _no_at, "web-url": _web_url, "rev": _rev, "git-showing": _git_showing,
    "text": lambda value: None,  # a name or pattern the program never opens
    "ping-interval": lambda v: None if _number(v) is None and float(v) >= 0.2 else
    f"`{v}` sends faster than ordinary ping does",
    "digit-start": lambda v: None if v[:1].isdigit() else f"`{v}` is not a number",
    # a list of ids or fields ("0,1", "index,name"): never an option or a path taken as one
    "fields": lambda v: None if v and not v.startswith("-") and "/" not in v else
    f"`{v}` is not a list of ids or fields",
    "smart-log": lambda v: f"`{v}` sets the drive's timers" if v.startswith(
        ("scterc,", "scttempint")) else None,
    "ssh-option": lambda v: f"`{v}` runs a command" if v.split("=", 1)[0].split()[0].lower()
    in ("proxycommand", "localcommand", "knownhostscommand", "permitlocalcommand",
        "match") else None,
    "etc": lambda v: None if v.startswith("/etc/") and ".." not in v else
    f"`{v}` is not a system configuration file",
    "dash": lambda v: None if v == "-" else f"is `{v}`, a file it writes",
    "sed": lambda v: sed_script(v), "awk": lambda v: awk_program(v),
}


def known_value(check: str) -> bool:
    return check.startswith("one-of:") or check in _VALUES


def value(check: str, text: str) -> str | None:
    if check.startswith("one-of:"):
        allowed = check[7:].split("|")
        return None if text in allowed else f"`{text}` is not one of {', '.join(allowed)}"
    return _VALUES[check](text)


# -- code that readers take ------------------------------------------------------------------

_SED_SIMPLE = set("pPdDqQ=lnNgGhHxzF{}")
_SED_TEXT = set("aic")  # text to the end of the line
_SED_LABEL = set(":btTv")
_SED_READ = set("rR")  # read a file into the output


def sed_script(script: str) -> str | None:
    """None when a sed script only prints (no `w`, `W`, `e`, `s///w`, `s///e`). Read the
    way GNU sed reads it: a label ends at a blank, `;`, `}` or `#`, and a `[…]` in a
    regular expression is one unit (a delimiter inside it ends nothing)."""
    i, n = 0, len(script)

    def to_end(k: int) -> int:
        end = script.find("\n", k)
        return n if end < 0 else end

    while i < n:
        ch = script[i]
        if ch in " \t\n;!}":
            i += 1
            continue
        if ch == "#":
            i = to_end(i)
            continue
        if ch.isdigit() or ch in "$,~+":
            i += 1
            continue
        if ch == "/" or ch == "\\":
            delim = "/" if ch == "/" else (script[i + 1] if i + 1 < n else "")
            if not delim or delim == "\n":
                return "its sed script cannot be read"
            i = _regex_end(script, i + (1 if ch == "/" else 2), delim)
            if i < 0:
                return "its sed script cannot be read"
            while i < n and script[i] in "IM":
                i += 1
            continue
        if ch in _SED_SIMPLE:
            i += 1
            continue
        if ch in _SED_LABEL:
            i += 1
            while i < n and script[i] in " \t":
                i += 1
            while i < n and script[i] not in " \t\n;}#":
                i += 1
            continue
        if ch in _SED_TEXT or ch in _SED_READ:
            if ch in _SED_READ:
                why = device(script[i + 1:to_end(i + 1)].strip())
                if why:
                    return why
            i = to_end(i + 1)
            continue
        if ch in "sy":
            if i + 1 >= n or script[i + 1] in "\n\\":
                return "its sed script cannot be read"
            delim = script[i + 1]
            j = _regex_end(script, i + 2, delim)
            j = _delimited(script, j, delim) if j >= 0 else -1
            if j < 0:
                return "its sed script cannot be read"
            if ch == "s":
                while j < n and script[j] not in ";\n}":
                    flag = script[j]
                    if flag in "we":
                        return (f"its sed `s` command has the `{flag}` flag, which "
                                + ("writes a file" if flag == "w" else "runs a command"))
                    if not (flag.isdigit() or flag in "gpiImM \t"):
                        return f"`{flag}` is not a sed `s` flag known to only read"
                    j += 1
            i = j
            continue
        if ch in "wW":
            return "its sed script writes a file (`w`)"
        if ch == "e":
            return "its sed script runs a command (`e`)"
        return f"`{ch}` is not a sed command known to only read"
    return None


def _regex_end(text: str, i: int, delim: str) -> int:
    """The index after a regular expression's closing `delim`, a `[…]` read as one unit
    (as sed's match_slash does), or -1."""
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < n and text[j] == "^":
                j += 1
            if j < n and text[j] == "]":
                j += 1
            while j < n and text[j] != "]":
                j += 1
            if j >= n:
                return -1
            i = j + 1
            continue
        if ch == delim:
            return i + 1
        if ch == "\n":
            return -1
        i += 1
    return -1


def _delimited(text: str, i: int, delim: str) -> int:
    """The index after the closing `delim` (backslash escapes it), or -1."""
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == delim:
            return i + 1
        if text[i] == "\n" and delim != "\n":
            return -1
        i += 1
    return -1


_AWK_OPERAND_END = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_)]$")


def awk_program(code: str) -> str | None:
    """None when an awk program only reads and prints to its output: no `system`, no
    pipes (`|`, `|&`), no `print > FILE`, no `@load`/`@include`, and `getline < FILE`
    only from one plain string naming no device and no network (`/inet/…`)."""
    i, n = 0, len(code)
    last = ""  # the last two significant characters outside strings and regexes
    depth = 0  # parentheses and brackets
    in_print = False  # inside a print/printf statement (where a bare `>` redirects)
    word = ""
    while i < n:
        ch = code[i]
        if ch == '"':
            end = _delimited(code, i + 1, '"')
            if end < 0:
                return "its awk program cannot be read"
            i, last = end, last[-1:] + "a"
            continue
        if ch == "/" and not _awk_operand_before(last):
            end = _regex_end(code, i + 1, "/")
            if end < 0:
                return "its awk program cannot be read"
            i, last = end, last[-1:] + "a"
            continue
        if ch == "#":
            i = code.find("\n", i)
            i = n if i < 0 else i
            continue
        if ch.isalnum() or ch == "_":
            word += ch
            i += 1
            last = last[-1:] + ch
            continue
        if word:
            if word == "system":
                return "its awk program runs commands (`system`)"
            if word in ("print", "printf"):
                in_print, depth = True, 0
            if word == "getline":
                why = _getline_source(code, i)
                if why:
                    return why
            word = ""
        if ch == "@":
            return "its awk program loads code (`@load`, `@include`)"
        if ch == "|":
            if i + 1 < n and code[i + 1] == "|":
                i += 2
                last = "||"
                continue
            return "its awk program pipes to or from a command"
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch in ";\n{}":
            in_print, depth = False, 0
        elif ch == ">" and in_print and depth <= 0:
            return "its awk program writes to a file (`print >`)"
        if not ch.isspace():
            last = last[-1:] + ch
        i += 1
    if word == "system":
        return "its awk program runs commands (`system`)"
    if word == "getline":
        return _getline_source(code, n)
    return None


def _awk_operand_before(last: str) -> bool:
    """Whether a `/` here divides (an operand ends just before it: a name, a number, `)`,
    `]`, `$`, or a postfix `++`/`--`) rather than starting a regular expression."""
    return bool(last) and (last[-1] in _AWK_OPERAND_END or last in ("++", "--"))


def _getline_source(code: str, i: int) -> str | None:
    """After `getline [var]`: a `< FILE` must be one plain string, no device, no network."""
    n = len(code)
    j = i
    while j < n and code[j] in " \t":
        j += 1
    while j < n and (code[j].isalnum() or code[j] in "_$[]"):  # an optional variable
        j += 1
    while j < n and code[j] in " \t":
        j += 1
    if j >= n or code[j] != "<":
        return None
    j += 1
    while j < n and code[j] in " \t":
        j += 1
    if j >= n or code[j] != '"':
        return "its awk program reads a file whose name it works out when it runs"
    end = _delimited(code, j + 1, '"')
    if end < 0:
        return "its awk program cannot be read"
    name = code[j + 1:end - 1]
    k = end
    while k < n and code[k] in " \t":
        k += 1
    if k < n and code[k] not in ";}\n)":
        return "its awk program reads a file whose name it works out when it runs"
    if "/inet" in name:
        return "its awk program opens a network connection"
    return device(name)


# -- wrappers ----------------------------------------------------------------------------------

_SAFE_ENV = {"LANG", "LANGUAGE", "TZ", "COLUMNS", "LINES", "TERM", "NO_COLOR",
             "SYSTEMD_COLORS", "SYSTEMD_URLIFY", "SYSTEMD_LOG_LEVEL"}


_PLAIN_PAGERS = {"", "cat", "less", "more"}


def safe_assignment(word: str) -> bool:
    """`LC_ALL=C`, `TZ=UTC`, `SYSTEMD_PAGER=cat`: a variable that changes how a program
    prints, nothing else."""
    name, eq, value = word.partition("=")
    if name.endswith("PAGER"):  # a pager is a program it starts: only the plain ones
        return bool(eq) and value in _PLAIN_PAGERS
    return bool(eq) and (name in _SAFE_ENV or (name.startswith("LC_") and name[3:].isalpha()))


def wrapped_command(name: str, operands: list[str]) -> list[str] | None:
    """The command a wrapper runs, or None when it runs none (or not plainly)."""
    if name == "timeout":
        return operands[1:] if len(operands) > 1 else None
    if name == "env":
        rest = list(operands)
        while rest and "=" in rest[0] and not rest[0].startswith("="):
            rest = rest[1:]
        return rest or None
    return operands or None


def wrapper_words(name: str, operands: list[str]) -> str | None:
    """A wrapper's own words before the command it runs: None when they only say how it
    runs (a duration, a safe variable), or why not. The command itself is judged by the
    grammar (`grammar`), like any other."""
    if name == "timeout":
        if not operands or _number(operands[0].rstrip("smhd")) is not None:
            return "timeout's duration is missing"
    if name == "env":
        for word in operands:
            if "=" not in word:
                break
            if not safe_assignment(word):
                return (f"env sets `{word.partition('=')[0]}`, which can change "
                        "what the program runs or loads")
    if name == "sudo":
        if operands and "=" in operands[0]:
            return f"sudo sets `{operands[0].partition('=')[0]}` for the program"
    return None
