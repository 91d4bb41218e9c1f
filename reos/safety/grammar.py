"""Read-only grammars: whether an argv provably only reads, parsed as its program parses it.

`reads_only(argv)` answers with a `Proof`: `ok` only when the program is a system program
(`programs.resolve`) with a grammar in the one read-only table (`reos.safety.grammars`),
and every word fits that grammar exactly. Options are read the way the program reads
them: GNU long options by unique prefix against the program's full option list (the
allowed ones and the known ones that are not read-only; ambiguous is refused), `--x=v`
and `--x v`, bundled short options (`-nro FILE` is -n, -r and -o FILE), attached values
(`-oFILE`), `--` ending the options, and, for programs that want it, options that stop
at the first operand, single-dash long options (`find -name`, `ip -json`), obsolete
`-NUM` counts and subcommands with grammars of their own (`docker ps`, `systemctl
status`, `ip route show`). An unknown option, a known option that writes or runs
something, a value outside its check, an operand outside its check or a second action
word means "not read-only", and `why` names the word that decided it.

The grammar is the policy's half that does not trust the rest of the risk engine: a
command runs without approval only when this says so (`reos.safety.gate`).

Not responsible for shell syntax (`shell`, `judge`), for how dangerous a command that
is not read-only is (`rules`), or for the table's contents (`grammars`).
"""

from __future__ import annotations

from msgspec import Struct

from reos.safety import grammar_checks as checks
from reos.safety.programs import resolve

__all__ = ["Proof", "Spec", "reads_only", "spec_for", "unwrap"]


class Proof(Struct, eq=False):
    """The grammar's answer for one argv: read-only or not, and why not."""

    ok: bool
    why: str | None = None  # which word made it not read-only, in words
    program: str = ""  # the program judged (after wrappers)
    # refused only because a word is not in the grammar (an unknown option or
    # subcommand): the program itself would refuse it too, doing nothing
    unknown: bool = False
    # it talks to other machines: "words" (what it is given goes out: a name to look
    # up, a payload) or "stdin" (what it reads on stdin goes out too)
    sends: str = ""


def _no(why: str, program: str = "", unknown: bool = False) -> Proof:
    return Proof(False, why, program, unknown)


class Spec(Struct, eq=False, kw_only=True):
    """One program's (or subcommand's) read-only grammar, compiled from its table entry
    (`compile_entry`; the fields are the table's keys, described in `grammars`)."""

    name: str
    flags: frozenset[str] = frozenset()  # options without a value
    values: dict[str, str] = {}  # option -> check of its value
    optional: dict[str, str] = {}  # option -> check; the value only attached
    # option -> check: it takes the next word as its value only when that word passes
    # the check (journalctl's `-b -1`, `-n 20`), as the program itself decides
    maybe: dict[str, str] = {}
    # option -> check: it reads alone and sets with a value (`hdparm -B` shows the
    # power setting, `hdparm -B 254` changes it): such a value is refused
    getset: dict[str, str] = {}
    denied: dict[str, str] = {}  # known options that are not read-only -> what they do
    longs: tuple[str, ...] = ()  # every known long option, for abbreviations
    abbrev: bool = True  # unique prefixes of long options are taken (getopt_long)
    style: str = "gnu"  # gnu | posix (options end at the first operand) | single
    numeric: bool = False  # -NUM is a count (head -5, tail -20)
    anything: bool = False  # no option of the program writes or runs anything
    deny_letters: str = ""  # … except these, alone or in a bundle (lsof -D)
    operands: str = "any"  # the check of the operand list
    sub: dict[str, Spec] | None = None  # subcommand -> its grammar
    verbs: dict[str, str] | None = None  # verb -> operand check (verb anywhere)
    default: str | None = None  # the subcommand or verb meant when none is given
    actions: frozenset[str] = frozenset()  # words that change things: never an operand
    wrapper: bool = False  # the operands are another command (sudo, timeout, env)
    bundle_first: bool = False  # `tar tvf FILE`: a first bundle without a dash
    runs: frozenset[str] = frozenset()  # options taking a command up to `;` or `+` (find -exec)
    whole: str | None = None  # a named check of the whole argument list (kill, lspci)
    sends: str = ""  # "words" / "stdin": what it is given, or reads, goes out
    daemon: bool = False  # only its test form is known: anything else starts it
    builtin: bool = False  # a shell's own word (cd, export): no program of the name
    # the program reads more arguments from `@FILE` (binutils), which the command
    # line does not show: such a word is refused
    response_files: bool = False

    def option(self, word: str) -> tuple[str | None, str | None]:
        """A long option as the program resolves it: (its full name, or None; why not)."""
        if word in self.flags or word in self.values or word in self.optional or \
                word in self.maybe or word in self.getset or word in self.denied:
            return word, None
        if not self.abbrev or not word.startswith("--"):
            return None, None
        matches = [name for name in self.longs if name.startswith(word)]
        if len(matches) == 1:
            return matches[0], None
        if len(matches) > 1:
            shown = ", ".join(f"`{m}`" for m in matches[:4])
            return None, f"`{word}` could be any of {shown}"
        return None, None


# -- reading a table entry -----------------------------------------------------------------

def _words(text: object) -> list[str]:
    return str(text or "").split()


def _checked(entry: dict, key: str) -> dict[str, str]:
    """"-k -t --key" with per-option checks from "checks" ("any" when not named)."""
    named = entry.get("checks", {})
    return {w: named.get(w, "any") for w in _words(entry.get(key))}


def compile_entry(name: str, entry: dict) -> Spec:
    short = entry.get("short", "")
    flags = set(_words(entry.get("flags"))) | {f"-{c}" for c in short}
    values = _checked(entry, "values")
    values.update({f"-{c}": entry.get("checks", {}).get(f"-{c}", "any")
                   for c in entry.get("short_values", "")})
    optional = _checked(entry, "optional")
    maybe = _checked(entry, "maybe")
    getset = _checked(entry, "getset")
    denied: dict[str, str] = {}
    for spelled, effect in entry.get("deny", {}).items():
        for word in spelled.split():
            denied[word] = effect
    longs = tuple(sorted({w for w in (*flags, *values, *optional, *maybe, *getset, *denied)
                          if w.startswith("--")}))
    spec = Spec(
        name=name, flags=frozenset(flags), values=values, optional=optional, maybe=maybe,
        getset=getset,
        denied=denied,
        longs=longs, abbrev=entry.get("abbrev", True), style=entry.get("style", "gnu"),
        numeric=entry.get("numeric", False), anything=entry.get("anything", False),
        deny_letters=entry.get("deny_letters", ""),
        operands=entry.get("operands", "any"), default=entry.get("default"),
        actions=frozenset(_words(entry.get("actions"))), wrapper=entry.get("wrapper", False),
        bundle_first=entry.get("bundle_first", False),
        runs=frozenset(_words(entry.get("runs"))), whole=entry.get("whole"),
        sends=entry.get("sends", ""), daemon=entry.get("daemon", False),
        builtin=entry.get("builtin", False),
        response_files=entry.get("response_files", False))
    if "sub" in entry:
        spec.sub = {}
        for sub_name, sub_entry in entry["sub"].items():
            compiled = compile_entry(f"{name} {sub_name.split()[0]}", sub_entry)
            for alias in sub_name.split():
                spec.sub[alias] = compiled
    if "verbs" in entry:
        spec.verbs = {}
        for verb_names, check in entry["verbs"].items():
            for verb in verb_names.split():
                spec.verbs[verb] = check
    return spec


_CACHE: dict[str, Spec | None] = {}


def spec_for(program: str) -> Spec | None:
    """The compiled grammar of a program on the read-only list, or None."""
    if program not in _CACHE:
        from reos.safety.grammars import TABLE

        entry = TABLE.get(program)
        _CACHE[program] = compile_entry(program, entry) if entry is not None else None
    return _CACHE[program]


# -- parsing --------------------------------------------------------------------------------

class _Parsed:
    __slots__ = ("operands", "seen")

    def __init__(self, operands: list[str], seen: list[str]) -> None:
        self.operands = operands
        self.seen = seen  # the options found, by full name


def _fits(spec: Spec, option: str, word: str) -> bool:
    """Whether the program takes `word` as the value of an option whose value is optional."""
    return checks.value(spec.maybe[option], word) is None


def _bad_value(spec: Spec, option: str, value: str, program: str) -> Proof | None:
    """The refusal when an option's value fails its check, else None."""
    check = (spec.values.get(option) or spec.optional.get(option) or spec.maybe.get(option)
             or "any")
    why = checks.value(check, value)
    return None if why is None else _no(f"{program}'s `{option}` {why}", program)


def _parse(spec: Spec, args: list[str], program: str) -> _Parsed | Proof:
    """Options and operands as the program reads them, or the refusal."""
    operands: list[str] = []
    seen: list[str] = []
    i = 0
    n = len(args)
    while i < n:
        arg = args[i]
        if arg == "--" and spec.style != "single":
            operands.extend(args[i + 1:])
            break
        if spec.numeric and arg[:1] == "-" and arg[1:].isdigit():  # `-20`: a count
            seen.append("-NUM")
        elif arg.startswith("-") and len(arg) > 1:
            if spec.style == "single" or arg.startswith("--"):
                name, eq, val = arg.partition("=") if arg.startswith("--") else (arg, "", "")
                if spec.style == "single" and "=" in arg and name not in spec.flags:
                    name, eq, val = arg.partition("=")  # openssl's `-out=FILE`
                if name in spec.runs:  # find -exec CMD {} ;: judged as a command
                    after = _runs(args, i, program, name, _only_regular(args[:i]))
                    if isinstance(after, str):
                        return _no(after, program)
                    i = after + 1
                    continue
                if spec.style == "single" and name not in spec.flags and name not in \
                        spec.values and name not in spec.denied:
                    return _no(f"`{arg}` is not an option {program} is known to only read "
                               "with", program, unknown=True)
                full, ambiguous = spec.option(name)
                if ambiguous:
                    return _no(f"{program}: {ambiguous}, so it cannot be known to only read",
                               program)
                if full is None:
                    return _no(f"`{name}` is not an option {program} is known to only read "
                               "with", program, unknown=True)
                spelled = f"`{name}` is `{full}`, which" if full != name else f"`{full}`"
                if full in spec.denied:
                    return _no(f"{program}'s {spelled} {spec.denied[full]}", program)
                seen.append(full)
                if full in spec.flags:
                    if eq:
                        return _no(f"{program}'s `{full}` takes no value", program)
                elif full in spec.values:
                    if not eq:
                        i += 1
                        if i >= n:
                            return _no(f"{program}'s `{full}` has no value", program)
                        val = args[i]
                    if (bad := _bad_value(spec, full, val, program)) is not None:
                        return bad
                elif full in spec.optional and eq:
                    if (bad := _bad_value(spec, full, val, program)) is not None:
                        return bad
                elif full in spec.maybe:
                    if eq:
                        if (bad := _bad_value(spec, full, val, program)) is not None:
                            return bad
                    elif i + 1 < n and _fits(spec, full, args[i + 1]):
                        i += 1
            elif arg in spec.flags:  # `-xx`: a repeated letter with a meaning of its own
                seen.append(arg)
            else:
                j = 1
                while j < len(arg):
                    option = f"-{arg[j]}"
                    if option in spec.denied:
                        return _no(f"{program}'s `{option}`" + (
                            f" (in `{arg}`)" if len(arg) > 2 else "")
                            + f" {spec.denied[option]}", program)
                    seen.append(option)
                    if option in spec.flags:
                        j += 1
                        continue
                    if option in spec.getset:
                        val = arg[j + 1:]
                        if val or (i + 1 < n and checks.value(spec.getset[option],
                                                              args[i + 1]) is None):
                            shown = val or args[i + 1]
                            return _no(f"{program}'s `{option} {shown}` sets what `{option}` "
                                       "alone shows", program)
                        break
                    if option in spec.maybe:
                        val = arg[j + 1:]
                        if val:
                            if (bad := _bad_value(spec, option, val, program)) is not None:
                                return bad
                        elif i + 1 < n and _fits(spec, option, args[i + 1]):
                            i += 1
                        break
                    if option in spec.values or option in spec.optional:
                        val = arg[j + 1:]
                        if not val and option in spec.values:
                            i += 1
                            if i >= n:
                                return _no(f"{program}'s `{option}` has no value", program)
                            val = args[i]
                        if val or option in spec.values:
                            if (bad := _bad_value(spec, option, val, program)) is not None:
                                return bad
                        break
                    return _no(f"`{option}`" + (f" (in `{arg}`)" if len(arg) > 2 else "")
                               + f" is not an option {program} is known to only read with",
                               program, unknown=True)
        else:
            if spec.style == "posix" or spec.sub is not None or spec.wrapper:
                operands.extend(args[i:])
                break
            operands.append(arg)
        i += 1
    return _Parsed(operands, seen)


def _only_regular(before: list[str]) -> bool:
    """Whether find's expression before `-exec` keeps only regular files (`-type f`,
    with nothing that could let another file through: `-o`, `!`, `,`, parentheses), and
    none from /proc or /sys."""
    from reos.safety.acting_files import special_tree

    # -L and -follow test where a link leads (a link to /proc/kmsg is then a regular file)
    plain = not {"-o", "-or", "!", "-not", ",", "(", ")", "-L", "-follow"} & set(before)
    starts = []
    for word in before:
        if word in ("-H", "-P"):
            continue
        if word.startswith("-") or word in ("!", "("):
            break
        starts.append(word)
    # below /proc and /sys even regular files act when read (/proc/kmsg)
    inside = not any(special_tree(p) for p in starts or ["."])
    return plain and inside and any(w == "-type" and before[k + 1:k + 2] == ["f"]
                                    for k, w in enumerate(before))


def _runs(args: list[str], i: int, program: str, option: str,
          regular: bool = False) -> int | str:
    """`find … -exec CMD ARGS ;` or `-exec CMD ARGS {} +`: the index of its end, or why it
    is not read-only. It ends at `;`, or at `+` right after `{}` (as find reads it); each
    `{}` is a file find found, which can be a device (unless `-type f` kept only regular
    files) or, with `+`, many files; a `{}` inside a word (`{}1`) is substituted too, so
    it is refused."""
    end = None
    for k in range(i + 1, len(args)):
        if args[k] == ";" or (args[k] == "+" and args[k - 1] == "{}"):
            end = k
            break
    if end is None:
        return f"{program}'s `{option}` has no end"
    inner = args[i + 1:end]
    if not inner:
        return f"{program}'s `{option}` runs nothing"
    if any("{}" in w and w != "{}" for w in inner):
        return f"{program}'s `{option}` puts a found file's name inside a word"
    found = {j for j, w in enumerate(inner) if w == "{}"}
    proof = reads_only_whatever([("./x" if w == "{}" else w) for w in inner], found,
                                devices=not regular, shell=False)
    if not proof.ok:
        return f"{program}'s `{option}` runs `{' '.join(inner)[:60]}`: {proof.why}"
    return end


def _judge(spec: Spec, args: list[str], program: str, depth: int) -> Proof:
    if spec.response_files:
        hidden = next((w for w in args if w.startswith("@")), None)
        if hidden is not None:
            return _no(f"{program} reads more arguments from `{hidden}`, which this command "
                       "line does not show", program)
    if spec.whole is not None:
        why = checks.whole(spec.whole, args)
        return _no(f"{program}: {why}", program) if why else Proof(True, None, program,
                                                                     sends=spec.sends)
    if spec.anything:
        for word in args:
            if word[:1] == "-" and word[1:2] != "-" and set(word[1:]) & set(spec.deny_letters):
                return _no(f"{program}'s `{word}` is an option that writes or acts", program)
            if word.startswith("--") and any(d.startswith(word.partition("=")[0])
                                             for d in spec.denied if d.startswith("--")):
                return _no(f"{program}'s `{word}` writes or acts", program)
        why = checks.operands(spec.operands, args, [])  # "names": none of them is opened
        return _no(f"{program}: {why}", program) if why else Proof(True, None, program,
                                                                     sends=spec.sends)
    if spec.bundle_first and args and not args[0].startswith("-"):
        args = _unbundle(spec, args)
        if not args:
            return _no(f"{program}'s first word cannot be read as its options", program)
    parsed = _parse(spec, args, program)
    if isinstance(parsed, Proof):
        return parsed
    operands = parsed.operands
    if spec.wrapper:
        return _wrapped(spec.name, parsed.seen, operands, depth)
    if spec.sub is not None:
        if spec.operands != "any":  # a check of the options and words together (nft -c -f)
            why = checks.operands(spec.operands, operands, parsed.seen)
            if why is not None:
                return _no(f"{program}: {why}", program)
        if not operands:
            if spec.default is None:
                return _no(f"{program} with no subcommand is not known to only read", program)
            return Proof(True, None, program, sends=spec.sends)
        word, rest = operands[0], operands[1:]
        inner = spec.sub.get(word)
        if inner is None:
            return _no(f"`{program} {word}` is not a subcommand known to only read", program,
                       unknown=True)
        return _judge(inner, rest, f"{program} {word}", depth)
    if spec.verbs is not None:
        verb = operands[0] if operands else spec.default
        if verb is None:
            return _no(f"{program} with no command is not known to only read", program)
        check = spec.verbs.get(verb)
        if check is None:
            return _no(f"`{program} {verb}` is not known to only read", program,
                       unknown=verb not in spec.actions)
        operands = operands[1:]
        spec_operands = check
    else:
        spec_operands = spec.operands
    second = next((w for w in operands if w in spec.actions), None)
    if second is not None:
        return _no(f"`{second}` in {program}'s arguments is an action word, so what it "
                   "does cannot be known to only read", program)
    why = checks.operands(spec_operands, operands, parsed.seen)
    if why is not None:
        return _no(f"{program}: {why}", program)
    return Proof(True, None, program, sends=spec.sends)


def _wrapped(name: str, seen: list[str], operands: list[str], depth: int) -> Proof:
    """A wrapper's own words (`grammar_checks.wrapper_words`), then the command it runs,
    judged like any other."""
    why = checks.wrapper_words(name, operands)
    if why is not None:
        return _no(why, name)
    if name == "command" and ({"-v", "-V"} & set(seen)):
        return Proof(True, None, name)
    if name == "xargs":  # the command gets words read at run time: any word at all
        if depth:
            return _no("xargs inside another wrapper is not judged", name)
        given = list(operands) or ["echo"]
        proof = reads_only_whatever([*given, "x"], {len(given)}, devices=True, shell=False)
        if not proof.ok:
            return _no(f"xargs gives `{given[0]}` words read at run time: {proof.why}", name)
        return proof
    command = checks.wrapped_command(name, operands)
    if command is None:
        if name in ("env", "nice", "sudo") and not operands:
            if name == "sudo" and "-l" not in seen and "-v" not in seen \
                    and "-V" not in seen:
                return _no("sudo with no command", name)
            return Proof(True, None, name)
        return _no(f"{name} runs no command it can be judged by", name)
    return _reads(command, depth + 1)


def _unbundle(spec: Spec, args: list[str]) -> list[str]:
    """`tar tvf FILE X` -> `-t -v -f FILE X`: each letter that takes a value takes the next
    word after the bundle, in order (the old tar form); [] when they run out."""
    rest = list(args[1:])
    out: list[str] = []
    for letter in args[0]:
        option = f"-{letter}"
        out.append(option)
        if option in spec.values:
            if not rest:
                return []
            out.append(rest.pop(0))
    return out + rest


MAX_WRAPPERS = 4  # sudo timeout nice … one inside another


def _reads(argv: list[str], depth: int, shell: bool = False) -> Proof:
    if not argv:
        return Proof(True)
    if depth > MAX_WRAPPERS:
        return _no("too many programs run one inside another to judge")
    program, why = resolve(argv[0])
    if program is None:
        return _no(f"it runs {why}, which is not a known system program")
    spec = spec_for(program)
    if spec is None:
        return _no(f"{program} is not on the read-only list", program)
    if spec.builtin and (not shell or depth):
        return _no(f"`{program}` is a word of the shell, not a program reos can run alone",
                   program)
    return _judge(spec, list(argv[1:]), program, depth)


def reads_only(argv: list[str], shell: bool = False) -> Proof:
    """Whether `argv` provably only reads, and why not. `shell`: the words come from a
    shell line (the shell's own words, `cd`, `export`, `read`, are then commands too);
    otherwise they run as a program's argv, where those words are no program at all."""
    try:
        return _reads(list(argv), 0, shell)
    except (IndexError, ValueError, TypeError, RecursionError) as exc:  # fail closed
        return _no(f"its arguments could not be read ({type(exc).__name__})")


def unwrap(argv: list[str]) -> list[str]:
    """The command inside read-only wrappers (`sudo -n timeout 30 journalctl …` ->
    `journalctl …`), read with the same table; argv unchanged when it is no wrapper."""
    for _ in range(MAX_WRAPPERS + 1):
        if not argv:
            return argv
        program, _why = resolve(argv[0])
        spec = spec_for(program) if program else None
        if spec is None or not spec.wrapper:
            return argv
        parsed = _parse(spec, list(argv[1:]), program or "")
        if isinstance(parsed, Proof):
            return argv
        inner = checks.wrapped_command(spec.name, parsed.operands)
        if inner is None:
            return argv
        argv = inner
    return argv


def table_problems() -> list[str]:
    """What is wrong with the table (for its test): unknown checks, an option both
    allowed and denied or listed twice, a verb that is also an action word."""
    from reos.safety.grammars import TABLE

    found: list[str] = []

    def visit(name: str, spec: Spec) -> None:
        kinds = [set(spec.flags), set(spec.values), set(spec.optional), set(spec.maybe),
                 set(spec.getset), set(spec.denied)]
        for i, a in enumerate(kinds):
            for b in kinds[i + 1:]:
                if a & b:
                    found.append(f"{name}: {sorted(a & b)} listed twice")
        for check in (*spec.values.values(), *spec.optional.values(), *spec.maybe.values(),
                      *spec.getset.values()):
            if not checks.known_value(check):
                found.append(f"{name}: unknown value check {check!r}")
        operand_checks = [spec.operands, *(spec.verbs or {}).values()]
        for check in operand_checks:
            if not checks.known_operands(check):
                found.append(f"{name}: unknown operand check {check!r}")
        if spec.verbs and set(spec.verbs) & spec.actions:
            found.append(f"{name}: {sorted(set(spec.verbs) & spec.actions)} are verbs "
                         "and actions")
        for word in (*spec.flags, *spec.values, *spec.optional, *spec.maybe, *spec.getset,
                     *spec.denied):
            if not word.startswith("-") or word in ("-", "--"):
                found.append(f"{name}: {word!r} is not an option")
        for sub_name, sub in (spec.sub or {}).items():
            visit(f"{name} {sub_name}", sub)

    for program, entry in TABLE.items():
        try:
            visit(program, compile_entry(program, entry))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            found.append(f"{program}: {exc!r}")
    return found


def is_read_only(argv: list[str]) -> bool:
    """`reads_only(argv).ok`, for the rules that only need the yes or no."""
    return reads_only(argv).ok


MAX_UNKNOWN_WORDS = 6  # words known only at run time, each tried against every stand-in
_TWO_WORDS = ["x", "/etc/passwd"]  # an unquoted `$X` can become two words (uniq IN OUT)


def reads_only_whatever(argv: list[str], unknown: set[int], devices: bool = True,
                        shell: bool = True, quoted: dict[int, bool] | None = None) -> Proof:
    """Whether `argv` only reads whatever the words at the indexes in `unknown` turn out to
    be (`$X`; a glob's file names, with `devices=False`): the grammar is asked again with
    each such word replaced by every option the programs involved know to act, by a
    second operand (a word can split in two, a glob can match two files) and by a device
    file. A stand-in the program would reject as unknown is harmless (it does nothing).
    A word in `quoted` stays one word, and one that begins with a literal other than `-`
    is no option: those stand-ins are not tried for it."""
    quoted = quoted or {}
    positions = sorted(i for i in unknown if 0 < i < len(argv))
    if not positions:
        return reads_only(argv, shell)
    if len(positions) > MAX_UNKNOWN_WORDS:
        return _no(f"{len(positions)} words are known only when it runs")
    plain = list(argv)
    for i in positions:
        plain[i] = "x"
    proof = reads_only(plain, shell)
    if not proof.ok:
        return proof
    if proof.sends:
        return _no(f"`{argv[positions[0]][:40]}` is known only when it runs, and "
                   f"{proof.program} sends what it is given to another machine",
                   proof.program)
    for i in positions:
        for stand_in in _stand_ins(argv, devices):
            if i in quoted and (len(stand_in) > 1 or (
                    quoted[i] and stand_in[0].startswith("-"))):
                continue
            trial = [*argv[:i], *stand_in, *argv[i + 1:]]
            for j in positions:
                if j != i:
                    trial[j + len(stand_in) - 1 if j > i else j] = "x"
            result = reads_only(trial, shell)
            if not result.ok and not result.unknown:
                return _no(f"`{argv[i][:40]}` is known only when it runs, and as "
                           f"`{' '.join(stand_in)}` {result.why}", result.program)
    return Proof(True, None, proof.program)


def _stand_ins(argv: list[str], devices: bool) -> list[list[str]]:
    """What an unknown word could turn into that would matter to these programs."""
    found: list[list[str]] = [_TWO_WORDS, *([["/dev/watchdog"]] if devices else [])]
    words: set[str] = set()
    for command in (argv, unwrap(argv)):
        program, _ = resolve(command[0]) if command else (None, None)
        spec = spec_for(program) if program else None
        if spec is not None:
            _collect(spec, words, 0)
    found += [[w] for w in sorted(words)]
    return found


def _collect(spec: Spec, words: set[str], depth: int) -> None:
    words.update(spec.denied)
    if depth < 3:
        for sub in (spec.sub or {}).values():
            _collect(sub, words, depth + 1)
