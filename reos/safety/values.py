"""What the shell reader knows of a script's variables as it walks it: a value for each, and
the other values each may have when a command uses it.

A reading in order does not show every value a variable has when a command runs:
- an assignment in an `if`, a `case`, a loop, after `&&` or `||`, in a subshell, a
  pipeline's stage, a command run in the background or a function may happen or not, or
  not reach the rest of the script (`region`; a function's call: `merge_call`);
- `read` and `mapfile` of unknown input, `printf -v`, `getopts`, `unset`, `local`, `${x:=…}`
  set values the reader does not work out (`unsure`), and `eval`, `source` and a declared
  name known only at run time may set any variable (`anything`).
`env` keeps the value the walk read (what it substitutes, as before); `maybe` keeps, for
each variable, the other values it may have (None: not known at all). A command that uses
such a variable is read again with each of them (`variants`), so every reading is judged;
a program word that may be anything is a program chosen at run time.

What a word's expansion only guessed is read again as unknown too (`expand.guesses`): an
unknown variable's default or alternative (`${EDITOR:-vi}`, `${x:+rm}`: the environment
may set it), an array item not known one by one, `$USER` as a program.

Array items are kept as `name[i]` beside the whole array (`name`: its items joined).
Bounded: MAX_OTHERS values per variable (past it, one of them is "not known"), MAX_VARIANTS
readings per command. Not responsible for expanding words (`expand`) or for walking the
grammar's tree (`shell`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from reos.patterns import regex
from reos.safety.expand import guesses, parameters, printf_output
from reos.safety.streams import mapfile_assignment, read_assignments

__all__ = ["MAX_OTHERS", "MAX_VARIANTS", "UNKNOWN", "Values"]

UNKNOWN = "$__UNKNOWN__"  # a value known only when the script runs
MAX_OTHERS = 4
MAX_VARIANTS = 8
POSITIONAL = (*(str(i) for i in range(1, 10)), "@", "*")

Value = str | None  # None: the variable's value is not known (or it is unset)
DECLARES = ("export", "declare", "typeset", "local", "readonly")
_NAME = regex(r"[A-Za-z_][A-Za-z0-9_]*")
# a variable arithmetic assigns: `x=`, `x+=`, `x<<=` (not `x==`), `x++`, `--x`
_ARITHMETIC_SET = regex(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\[[^\]]*\])?[ \t]*"
                        r"(?:[-+*/%&|^]|<<|>>)?=(?!=)|"
                        r"(?:\+\+|--)[ \t]*([A-Za-z_][A-Za-z0-9_]*)|"
                        r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\+\+|--)")


class Values:
    def __init__(self, env: dict[str, str], maybe: dict[str, list[Value]] | None = None,
                 anything: bool = False, again: bool = False,
                 guessed: set[str] | None = None) -> None:
        self.env = env
        self.maybe: dict[str, list[Value]] = maybe if maybe is not None else {}
        self.anything = anything  # eval, source: any variable may have changed
        self.again = again  # a reading again: it is not read again itself
        # variables whose value came from a guessed expansion (`x=${EDITOR:-vi}`)
        self.guessed: set[str] = guessed if guessed is not None else set()
        self.touched: list[str] = []  # every variable set, in order
        # open regions: each variable set inside, with every value it had there
        self._open: list[dict[str, list[Value]]] = []

    def copy(self, env: dict[str, str] | None = None) -> Values:
        """For a nested reading (`$(…)`, a function's body): the same knowledge, apart."""
        return Values(dict(self.env if env is None else env), dict(self.maybe), self.anything,
                      self.again, set(self.guessed))

    # -- setting ---------------------------------------------------------------------------

    def _before(self, key: str) -> None:
        """Before a variable is set: the values it had, for each open region (a branch of
        an `if` may set what the other sets again)."""
        if not self._open:
            return
        had = [self.env.get(key), *self.maybe.get(key, [])]
        for region in self._open:
            seen = region.setdefault(key, [])
            if len(seen) <= 4 * MAX_OTHERS:
                seen += had
            elif seen[-1] is not None:  # bounded: what is not kept is "not known"
                seen.append(None)

    def assign(self, key: str, value: Value) -> None:
        """A value the script surely gives the variable here (None: unset)."""
        self._before(key)
        if value is None:
            self.env.pop(key, None)
        else:
            self.env[key] = value
        self.maybe.pop(key, None)
        self.guessed.discard(key)
        self.touched.append(key)

    def update(self, values: dict[str, str]) -> None:
        for key, value in values.items():
            self.assign(key, value)

    def unsure(self, key: str, value: Value) -> None:
        """The variable is set here to `value` (None: a value not known), by a command the
        reader does not follow: what it held before stays one of its values."""
        old, others = self.env.get(key), self.maybe.get(key, [])
        self.assign(key, value)
        self._others(key, [old, *others])

    def also(self, key: str, value: Value) -> None:
        """One more value the variable may have here."""
        self._others(key, [value, *self.maybe.get(key, [])])

    def _others(self, key: str, values: list[Value]) -> None:
        current = self.env.get(key)
        others = [v for v in dict.fromkeys(values) if v != current]
        if len(others) > MAX_OTHERS:  # bounded, and what was dropped is "not known"
            others = [*others[:MAX_OTHERS - 1], None]
        if others:
            self.maybe[key] = others
        else:
            self.maybe.pop(key, None)

    @contextmanager
    def region(self) -> Iterator[None]:
        """Code that may run or not, or whose assignments may not last: each variable it
        sets keeps the value it had before as one of its values."""
        seen: dict[str, list[Value]] = {}
        self._open.append(seen)
        try:
            yield
        finally:
            self._open.pop()  # regions nest: the last opened is this one
            for key, had in seen.items():
                self._others(key, [*had, *self.maybe.get(key, [])])

    def merge_call(self, inner: Values, skip: set[str]) -> None:
        """After a function's call (`inner`: its body's values): what it set are more values
        of those variables here (its body may set them or not)."""
        for key in dict.fromkeys(inner.touched):
            if key not in skip:
                self._others(key, [inner.env.get(key), *inner.maybe.get(key, []),
                                   *self.maybe.get(key, [])])
        self.anything = self.anything or inner.anything
        self.guessed |= inner.guessed - skip

    def positional(self, words: list[str] | None) -> None:
        """`set -- WORDS`: the positional parameters (None: not known)."""
        for i, key in enumerate(POSITIONAL[:9]):
            if words is None:
                self.unsure(key, None)
            else:
                self.assign(key, words[i] if i < len(words) else None)
        for key in ("@", "*"):
            if words is None:
                self.unsure(key, None)
            else:
                self.assign(key, " ".join(words))

    def shift(self, count: int | None) -> None:
        """`shift [N]`: the positional parameters move down (None: by a count not known)."""
        if count is None:
            self.positional(None)
            return
        words = self.env.get("@")
        if words is None or any(self.maybe.get(k) for k in POSITIONAL):
            self.positional(None)
            return
        self.positional(words.split()[count:])

    def command_sets(self, words: list[str], stdin: str | None,
                     items: dict[str, Value]) -> None:
        """What a simple command (its words, expanded) sets in this shell: declared values
        (`items`: the array items an assignment among its words made), what `read` and
        `mapfile` read (unknown unless their input is known), `printf -v`, `getopts`,
        `unset`, `local`, `shift`, `set --`; after `eval`, `source` or a name known only at
        run time, any variable."""
        while len(words) > 1 and words[0] in ("builtin", "command") and \
                not words[1].startswith("-"):
            words = words[1:]
        program, args = (words[0], words[1:]) if words else ("", [])
        if program in DECLARES:
            self._declared(program, args, items)
        elif program == "read":
            names = [*read_assignments(words, ""), *_value_of(args, "-a")]
            read = read_assignments(words, stdin) if stdin is not None else {}
            for name in names:
                if name in read:
                    self.assign(name, read[name])
                else:
                    self.unsure(name, None)
        elif program in ("mapfile", "readarray"):
            name = next(iter(mapfile_assignment(words, "")))
            self._array(name, None if stdin is None else
                        [line for line in stdin.replace("\0", "\n").split("\n") if line])
        elif program == "printf":
            for name in _value_of(args, "-v"):
                rest = args[args.index("-v") + 2:] if "-v" in args else args[1:]
                if rest and not any("$" in w for w in rest):
                    self.assign(name, printf_output(rest[0], rest[1:]))
                else:
                    self.unsure(name, None)
        elif program == "getopts" and len(args) >= 2:
            for name in (args[1], "OPTARG", "OPTIND"):
                self.unsure(name, None)
        elif program == "unset" and "-f" not in args:
            for name in args:
                if not name.startswith("-"):
                    self.unsure(name, None)
        elif program == "let":
            for word in args:
                self.arithmetic(word)
        elif program in ("eval", "source", "."):
            self.anything = True
        elif program == "shift":
            count = args[0] if args else "1"
            self.shift(int(count) if count.isdigit() else None)
        elif program == "set" and args and ("--" in args or args[0][:1] not in ("-", "+")):
            self.positional(args[args.index("--") + 1:] if "--" in args else args)

    def arithmetic(self, text: str) -> None:
        """`(( x++ ))`, `let x=y*2`, `$((x=1))`: what they assign is a number not worked
        out."""
        for found in _ARITHMETIC_SET.finditer(text):
            self.unsure(found.group(1) or found.group(2) or found.group(3), None)

    def _declared(self, program: str, args: list[str], items: dict[str, Value]) -> None:
        # -n makes a reference to another variable, -l -u change the case, -i computes:
        # the value is then not the text written
        changed = any(w[:1] in "-+" and set(w[1:]) & set("nlui") for w in args)
        for word in args:
            name, eq, value = word.partition("=")
            if not _NAME.fullmatch(name):
                if "$" in name:  # `declare "$n=…"`: which variable is known only at run time
                    self.anything = True
                continue
            if eq:
                self.unsure(name, None) if changed else self.assign(name, value)
            elif program == "local":  # a new variable of the function, unset
                self.unsure(name, None)
        for key, item in items.items():
            self.unsure(key, None) if changed else self.assign(key, item)

    def _array(self, name: str, values: list[str] | None) -> None:
        """An array set whole (None: to items not known)."""
        i = 0
        while f"{name}[{i}]" in self.env:
            self.unsure(f"{name}[{i}]", None) if values is None else self.assign(f"{name}[{i}]",
                                                                               None)
            i += 1
        if values is None:
            self.unsure(name, None)
            return
        self.assign(name, " ".join(values))
        for i, value in enumerate(values):
            self.assign(f"{name}[{i}]", value)

    # -- reading ---------------------------------------------------------------------------

    def guessed_in(self, raw: str, program: bool = False) -> list[str]:
        """The variables whose value a raw word only guesses (`expand.guesses`), or that hold
        a value guessed when they were assigned."""
        if "$" not in raw or ("${" not in raw and not program and not self.guessed):
            return []  # a guess needs braces (`${x:-…}`, `${a[1]}`), or a guessed value
        found = parameters(raw)
        return list(dict.fromkeys([*guesses(raw, self.env, program=program, found=found),
                                   *(key for name, key, _ in found
                                     if name in self.guessed or key in self.guessed)]))

    def variants(self, raw: str, program: str = "") -> list[dict[str, Value]]:
        """The other readings of a command whose text is `raw`: for each variable it uses
        that may have other values, one reading with each (a value not known is read as
        unknown text, and also as unset where the word gives a default); one with the
        guessed expansions of its program word (`program`) unknown (a default the
        environment may override: a program chosen at run time; an argument keeps the
        default); after `eval` or `source`, one with all of them unknown. Each reading: the
        values to use instead (None: unset)."""
        if self.again or "$" not in raw or not (self.maybe or self.anything or "$" in program):
            return []
        keys: list[str] = []
        defaulted: set[str] = set()
        for name, key, operation in parameters(raw):
            keys += [name] if key == name else [name, key]
            if operation[:1] in (":", "-", "=", "+", "?"):
                defaulted.add(key)
        keys = list(dict.fromkeys(keys))
        found: list[dict[str, Value]] = []
        for key in keys:
            for other in self.maybe.get(key, ()):
                found.append({key: UNKNOWN if other is None else other})
                if other is None and key in defaulted:
                    found.append({key: None})
        guessed = self.guessed_in(program, program=True) if "$" in program else []
        if guessed:
            found.append(dict.fromkeys(guessed, UNKNOWN))
        if self.anything and keys:
            found.append(dict.fromkeys(keys, UNKNOWN))
        if len(found) > MAX_VARIANTS:  # bounded: the last reading leaves all unknown
            found = [*found[:MAX_VARIANTS - 1], dict.fromkeys(keys, UNKNOWN)]
        return found

    def with_values(self, values: dict[str, Value]) -> dict[str, str]:
        """`env` with these values instead (None: unset)."""
        env = dict(self.env)
        for key, value in values.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env


def _value_of(args: list[str], option: str) -> list[str]:
    """The value given to a one-letter option (`-v NAME`, `-vNAME`), as a list."""
    for i, word in enumerate(args):
        if word == "--" or not word.startswith("-"):
            return []
        if word == option:
            return args[i + 1:i + 2]
        if word.startswith(option):
            return [word[len(option):]]
    return []
