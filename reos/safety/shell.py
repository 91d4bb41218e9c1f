"""Reading a shell command line the way bash would: into simple commands.

The one shell reader of reos. tree-sitter-bash (bash's grammar, compiled: milliseconds on
64 KB) parses the text, and this module walks its tree through pipelines, lists, compound
commands (`if`, `case`, `while`, `for`, `select`, `[[ … ]]`, `(( … ))`, subshells and
groups), functions and their calls, command and process substitutions, here-documents and
here-strings. Redirections of a compound command (`{ …; } > F`, `while …; done < <(…)`) are
writes of their own, and the group's input feeds the commands inside it. Words are
expanded as far as they can be known statically (`expand`): literal assignments made
earlier are substituted (`X=/; rm -rf $X`), `${IFS}` is whitespace, `$'\\x72m'` is
decoded, braces are expanded and quotes removed; a `$(…)` whose output is plain text
(`$(echo /)`) is replaced by that text. What stays unknown keeps its `$` so the judge sees
it. Each simple command says what feeds its stdin (`stdin_text`, `upstream`,
`fed_by_download`): literal text, a download, a file or something unknowable.

What the grammar does not know at all is spelled again before the walk (`respell`): a
descriptor closed before more words, a here-document whose line goes on after `;` or `&`,
and `coproc` before a compound command, whose body the walk reads as a process of its own
(`_coprocess`). A spelled text whose reading cannot be trusted is read as written.

The grammar slips in a few places; the walk reads them as bash does, each only in the exact
shape the grammar leaves: the read-write redirection `<>` and a here-string after another
redirection (errors it reports, `_repaired`), words it hangs on a redirection after its
target (`rm 2>/dev/null -rf /x`) or on a here-document's line (`| sh`, `> F`), a number
written against a redirection that it takes for a word (`cat 0< F`), a lone `-` it drops.

When the reading cannot be trusted, `parse_script` raises `Unparseable` (callers fail
closed) carrying what could be read (`partial`): any other error the grammar reports (an
open quote, a missing `fi`), text it skipped without saying so, two backquoted
substitutions it reads as one, a line break inside one command, a word after a group's
redirection, or text that nests or repeats past the bounds.

Not responsible for judging anything, for guessing at text it cannot read (the judge
splits that plainly: `signs.plain_commands`), nor for running anything (nothing here
executes).
"""

from __future__ import annotations

import itertools
from typing import Any

from reos.patterns import regex
from reos.safety.expand import (
    TOO_BIG,
    expand_word,
    hidden_code,
    live_expansion,
    one_word,
    substitutions,
)
from reos.safety.paths import braces_overflow, dynamic
from reos.safety.programs import DOWNLOADERS
from reos.safety.respell import Respelling, respelled
from reos.safety.streams import mapfile_assignment, produced_by, read_assignments
from reos.safety.syntax import (
    MAX_COMMANDS,
    MAX_DEPTH,
    Redirect,
    Script,
    SimpleCommand,
    Unparseable,
)

__all__ = ["parse_script"]

_PARSER: Any = None
# nodes read as statements (the rest of a compound command's children are words, tests,
# patterns: only the `$(…)` inside them run)
_STATEMENTS = {"command", "pipeline", "list", "subshell", "compound_statement",
               "redirected_statement", "negated_command", "if_statement", "while_statement",
               "for_statement", "c_style_for_statement", "case_statement", "function_definition",
               "declaration_command", "variable_assignment", "test_command", "unset_command",
               "do_group", "case_item", "elif_clause", "else_clause", "program", "ERROR",
               "variable_assignments"}
_SEQUENCES = {"list", "pipeline", "program"}  # a coprocess body is their first part
_PROCESSES = itertools.count(1)  # a number for each coprocess read (`SimpleCommand.process`)
_REDIRECTS = {"file_redirect", "heredoc_redirect", "herestring_redirect"}
_HEREDOC_PARTS = {"heredoc_start", "heredoc_body", "heredoc_end"}
_HALVES = ("<", "<<")  # the ERROR halves of `<>` and `<<<` the grammar leaves (`_repaired`)
_NAME = regex(r"[A-Za-z_][A-Za-z0-9_]*")
_DECLARES = ("export", "declare", "typeset", "local", "readonly")
_BLANK = regex(rb"(?:[ \t\r\n]|\\\n)*")  # what may lie between two tokens


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:  # deferred: plan steps (argv) never read shell text
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _PARSER = Parser(Language(tree_sitter_bash.language()))
    return _PARSER


def parse_script(text: str, env: dict[str, str] | None = None) -> Script:
    """The simple commands of `text`, expanded; raises `Unparseable` (with the commands it
    could read in `partial`) when the reading cannot be trusted. Text spelled again for the
    grammar (`respell`) whose reading cannot be trusted is read as written instead."""
    data = text.encode("utf-8", "surrogatepass")
    trees: dict[bytes, Any] = {}  # the text as written is parsed once for both readings
    try:
        return _read(data, env, respell=True, trees=trees)
    except _Respelled:
        return _read(data, env, respell=False, trees=trees)


class _Respelled(Exception):
    """The reading of text spelled again cannot be trusted: read it as written."""


def _read(raw: bytes, env: dict[str, str] | None, respell: bool,
          trees: dict[bytes, Any] | None = None) -> Script:
    try:
        root, data, respelling = _tree(raw, respell, trees)
    except Unparseable:
        if respell and _respellable(raw):
            raise _Respelled from None
        raise
    reading = _Reading(data, respelling)
    if reading.respelled and _error(root, data):
        raise _Respelled  # known untrusted before the walk: not walked twice
    walker = _Walker(reading, 0, "", dict(env or {}))
    try:
        walker.statement(root, None, False)
    except RecursionError:
        if reading.respelled:
            raise _Respelled from None
        raise Unparseable("nested too deeply") from None
    except Unparseable:
        if reading.respelled:
            raise _Respelled from None
        raise
    script = Script(walker.out, walker.fork_bombs, reading.respelled)
    why = reading.doubts[0] if reading.doubts else _unreliable(root, data, reading.claimed)
    if why is not None:
        if reading.respelled:
            raise _Respelled
        raise Unparseable(why, partial=script)
    return script


def _respellable(data: bytes) -> bool:
    return any(needle in data for needle in (b"<<", b"&-", b"coproc"))


def _tree(data: bytes, respell: bool = True, trees: dict[bytes, Any] | None = None
          ) -> tuple[Any, bytes, Respelling | None]:
    """bash's grammar's tree of `data`, the text it reads (`data` as bash reads it:
    `_joined`, and with what the grammar cannot read spelled again: `respell`), and what
    was spelled again (None when nothing); here-document bodies it misreads are read again
    blanked (`_blanked`). `trees` keeps the trees of the text as written and as joined
    between the two readings of `parse_script` (a tree is never changed)."""
    respelling: Respelling | None = None
    trees = {} if trees is None else trees
    try:
        root = trees.get(data)
        if root is None:
            root = trees[data] = _parser().parse(data).root_node
        joined = _joined(root, data)
        if joined != data:  # the grammar splits words at a line continuation; bash joins
            data = joined
            root = trees.get(data)
            if root is None:
                root = trees[data] = _parser().parse(data).root_node
        if respell and _respellable(data):  # `coproc { …; }`, `a <<EOF; b`, `cat 3>&- a b`
            respelling = respelled(root, data, _parser().parse)
            if respelling is not None:
                root, data = respelling.root, respelling.data
        slipped = _slipped_bodies(root)
        if slipped:  # read again with those bodies blanked; their text is taken from data
            root = _parser().parse(_blanked(data, slipped)).root_node
            if _slipped_bodies(root):
                raise Unparseable("the grammar reads a here-document's body as its command")
    except Unparseable:
        raise
    except (ImportError, OSError, ValueError) as exc:
        raise Unparseable(f"no bash grammar: {exc}") from None
    return root, data, respelling


# -- whether the grammar's reading can be trusted --------------------------------------------

def _unreliable(root: Any, data: bytes, claimed: list[tuple[int, int]]) -> str | None:
    """Why the reading cannot be trusted, or None: an error of the grammar that is not
    read around (`_repaired`), a token it had to invent, or text it skipped silently."""
    return _error(root, data) or _skipped(root, data, claimed)


def _error(root: Any, data: bytes) -> str | None:
    """An error of the grammar that is not read around (`_repaired`), or a token it had to
    invent; known before the walk."""
    if root.has_error:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.is_missing:
                return f"a `{node.type}` is missing"
            if node.type == "ERROR" and not _repaired(node, data):
                return f"bash's grammar cannot read `{_text(node)[:40]}`"
            stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return None


def _skipped(root: Any, data: bytes, claimed: list[tuple[int, int]]) -> str | None:
    """Text between two tokens that is neither blank nor claimed by the walker: the grammar
    dropped it without reporting an error (it drops a `-` before `<<`, which the walker
    reads and claims). One pass over the tokens."""
    cursor = root.walk()
    end = 0
    while True:
        node = cursor.node
        if node.child_count and node.type != "heredoc_body":
            cursor.goto_first_child()
            continue
        if node.start_byte > end:
            why = _gap(data, end, node.start_byte, claimed)
            if why:
                return why
        end = max(end, node.end_byte)
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return _gap(data, end, len(data), claimed)


def _gap(data: bytes, start: int, end: int, claimed: list[tuple[int, int]]) -> str | None:
    if _BLANK.fullmatch(data, start, end) or any(a <= start and end <= b for a, b in claimed):
        return None
    return f"bash's grammar skipped `{data[start:end].strip().decode('utf-8', 'replace')[:40]}`"


def _repaired(error: Any, data: bytes) -> bool:
    """Whether an ERROR of tree-sitter-bash is one the walker reads around, in the shapes
    the grammar leaves for it (`_Walker._redirect` reads them):
    - `<>` (open for reading and writing), which it does not know: `<` then an ERROR `>`,
      or an ERROR `<` then `>`, inside one file_redirect; or an ERROR `<` after a blank
      right before a file_redirect of `>` (after a digit, the grammar took the digit for
      a word, and that reading is not trusted);
    - `<<<` after another redirection or on a compound command: an ERROR `<<` right
      before a file_redirect of `<`."""
    token = _text(error)
    if token not in ("<", ">", "<<") or error.named_child_count:
        return False
    parent, before, after = error.parent, error.prev_sibling, error.next_sibling
    if parent is not None and parent.type == "file_redirect":
        if token == ">":
            return _adjacent(before, error) and _text(before) == "<" and not before.is_named
        return token == "<" and _adjacent(error, after) and _text(after) == ">" and \
            not after.is_named
    if parent is None or parent.type != "redirected_statement" or after is None or \
            after.type != "file_redirect" or not _adjacent(error, after):
        return False
    operator = _text(after.children[0])
    if token == "<<":
        return operator == "<"
    blank_before = error.start_byte == 0 or data[error.start_byte - 1] in b" \t\n"
    return token == "<" and operator == ">" and blank_before


def _adjacent(first: Any, second: Any) -> bool:
    return first is not None and second is not None and first.end_byte == second.start_byte


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


# -- pieces of a reading --------------------------------------------------------------------

def group_redirects(read: list[tuple[Redirect, str | None, bool]]
                    ) -> tuple[list[Redirect], tuple[str | None, bool] | None]:
    """A group's redirections, each (redirect, text it feeds, from the network?), split
    into its writes and what its stdin is (text or unknown, and whether from the network)."""
    writes: list[Redirect] = []
    stdin: tuple[str | None, bool] | None = None
    for redirect, text, net in read:
        if redirect.op in ("<<<", "<<", "<<-"):
            stdin = (text, net)
        elif redirect.op == "<":
            stdin = (None, redirect.target.startswith(("/dev/tcp/", "/dev/udp/")))
        else:
            writes.append(redirect)
    return writes, stdin


_PIPE_MEMORY = 64  # programs (and their words) earlier in a pipeline a command remembers


def link(command: SimpleCommand, upstream: SimpleCommand | None,
         procsubs: dict[str, list[SimpleCommand]], network: bool, outputs: list[str]) -> None:
    """Tie a command to what feeds it (a pipe, process substitutions, the network) and
    to the `>(…)` commands it writes into."""
    if upstream is not None:
        # the nearest ones only: a pipeline of thousands of stages stays linear (whether
        # a download feeds it travels on in `fed_by_download`)
        command.piped_from = [*upstream.piped_from[-_PIPE_MEMORY:], upstream.tool]
        command.piped_args = [*upstream.piped_args[-_PIPE_MEMORY:], *upstream.argv[1:65]]
    inner_net = any(c.tool in DOWNLOADERS or c.fed_by_download
                    for cs in procsubs.values() for c in cs)
    command.fed_by_download = (network or inner_net
                               or bool(set(command.piped_from) & DOWNLOADERS)
                               or (upstream is not None and upstream.fed_by_download))
    for marker in outputs:
        if procsubs.get(marker):
            procsubs[marker][0].upstream = command


def _as_subshells(text: str) -> str | None:
    """`((…))` read as two nested subshells instead of arithmetic, when that reading runs
    a program of this system (bash falls back to it where the arithmetic does not parse;
    which it does is not worth guessing): that text, to be judged too, else None."""
    import shutil

    from reos.safety.programs import SYSTEM_PATH

    inner = text[2:-2] if text.endswith("))") else text[2:]
    alternative = f"( ({inner}) )"
    words = inner.replace("(", " ").replace(")", " ").split()
    if words and shutil.which(words[0], path=":".join(SYSTEM_PATH)) is not None:
        return alternative
    return None


# -- the walk -------------------------------------------------------------------------------

class _Reading:
    """What the walkers of one text share: its bytes, the stretches of text the grammar
    left out of its tree that a walker read itself (`_skipped` must not count them), and
    what a walker found it could not read."""

    def __init__(self, data: bytes, respelling: Respelling | None = None) -> None:
        self.data = data
        self.claimed: list[tuple[int, int]] = []
        self.doubts: list[str] = []
        # what was spelled again (`respell`), and where coprocess bodies begin (`_coprocess`)
        self.respelled = respelling.what if respelling is not None else ""
        self.coprocs = set(respelling.coprocs) if respelling is not None else set()


class _Simple:
    """One simple command as its words are read: the words, and what the judge must know
    of them."""

    def __init__(self) -> None:
        self.words: list[str] = []
        self.prefix: dict[str, str] = {}  # NAME=value before the program
        self.redirects: list[Redirect] = []
        self.procsubs: dict[str, list[SimpleCommand]] = {}
        self.outputs: list[str] = []  # >(…): what this command writes there is their stdin
        self.stdin_text: str | None = None
        self.network = False
        self.globbed: set[int] = set()
        self.dynamic: set[int] = set()
        self.quoted: dict[int, bool] = {}
        self.hidden: list[str] = []
        self.too_big = False
        self.after: list[tuple[str, Any]] = []  # what the grammar hung on a here-document
        self.pending = ""  # the half of a redirection operator the grammar left in an ERROR


class _Walker:
    def __init__(self, reading: _Reading, depth: int, via: str, env: dict[str, str],
                 functions: dict[str, tuple[Any, list[Any]]] | None = None,
                 calling: frozenset[str] = frozenset()) -> None:
        self.reading, self.depth, self.via, self.env = reading, depth, via, env
        self.out: list[SimpleCommand] = []
        self.fork_bombs: list[str] = []
        # name -> (body, redirections): a call is judged with its arguments
        self.functions: dict[str, tuple[Any, list[Any]]] = functions or {}
        self.calling = calling  # functions being called (a call inside is not followed)
        # what a redirected group (`while …; done < <(…)`) feeds the commands inside it
        self.group_stdin: tuple[str | None, bool] | None = None

    def emit(self, command: SimpleCommand) -> None:
        if len(self.out) >= MAX_COMMANDS:
            raise Unparseable(f"more than {MAX_COMMANDS} commands")
        self.out.append(command)

    def child(self, via: str, env: dict[str, str] | None = None,
              calling: frozenset[str] | None = None) -> _Walker:
        return _Walker(self.reading, self.depth + 1, via, dict(self.env if env is None else env),
                       dict(self.functions), self.calling if calling is None else calling)

    # -- statements ------------------------------------------------------------------------

    def statement(self, node: Any, upstream: SimpleCommand | None, background: bool,
                  redirects: list[Any] | None = None) -> None:
        """Walk one statement. `redirects`: redirections the grammar hung on an enclosing
        statement that bash gives to this one (`a | b > F`, `a && b > F`, `! b > F`: F is
        b's)."""
        kind = node.type
        redirects = redirects or []
        if node.start_byte in self.reading.coprocs and kind not in _SEQUENCES:
            self.reading.coprocs.discard(node.start_byte)
            self._coprocess(node, redirects)
        elif kind == "command":
            self.command(node, upstream, background, redirects)
        elif kind == "redirected_statement":
            self._redirected(node, upstream, background, redirects)
        elif kind == "pipeline":
            self._pipeline(node.named_children, upstream, background, redirects)
        elif kind == "list":
            self._list(node, upstream, background, redirects)
        elif kind == "negated_command":
            for child in node.named_children:
                self.statement(child, upstream, background, redirects)
        elif redirects:
            self._group(node, redirects, upstream, background)
        elif kind == "function_definition":
            self._function(node)
        elif kind == "for_statement":
            self._for(node, upstream, background)
        elif kind in ("variable_assignment", "variable_assignments"):
            self._assignments(node, upstream, background)
        elif kind in ("declaration_command", "unset_command"):
            self.command(node, upstream, background, [])
        elif kind in ("test_command", "compound_statement") and _glued(node):
            self.command(node, upstream, background, [], words_only=True)
        elif kind == "test_command":
            self._test(node, upstream, background)
        elif kind == "compound_statement" and _text(node).startswith("(("):
            self._arithmetic(node)
        elif kind in ("while_statement", "c_style_for_statement"):
            self._loop(node, upstream, background)
        else:
            self._compound(node, upstream, background)

    def _coprocess(self, node: Any, redirects: list[Any]) -> None:
        """The body of `coproc [NAME] …` (`respell`): a process of its own, run in the
        background; its assignments, functions and `cd` stay in it (its commands carry
        a `process` of their own, which the judge keeps its `cd` to)."""
        if self.depth + 1 > MAX_DEPTH:
            raise Unparseable(f"nested more than {MAX_DEPTH} levels deep")
        walker = self.child("coproc")
        walker.statement(node, None, True, redirects)
        self.fork_bombs += walker.fork_bombs
        process = next(_PROCESSES)
        for command in walker.out:
            command.process = command.process or process
            self.emit(command)

    def _loop(self, node: Any, upstream: SimpleCommand | None, background: bool) -> None:
        """`while`, `until`, `for ((…))`: walked as any compound. A loop that nothing ends
        (its condition is always true, and no `break`, `exit` or `return` inside) and that
        starts a command in the background on every pass is a fork bomb."""
        before = len(self.out)
        self._compound(node, upstream, background)
        started = [c for c in self.out[before:] if c.background and c.argv]
        if started and _endless(node):
            self.fork_bombs.append(f"a loop that never ends starts {started[0].program} in "
                                   "the background on every pass")

    def _compound(self, node: Any, upstream: SimpleCommand | None, background: bool) -> None:
        """`if`, `while`, `case`, `{ …; }`, `( … )`, the program itself: each statement inside
        (fed by the same pipe), and the `$(…)` in its words, tests and patterns."""
        children = node.children
        for i, child in enumerate(children):
            if not child.is_named:
                continue
            nxt = children[i + 1] if i + 1 < len(children) else None
            bg = nxt is not None and nxt.type == "&"
            if child.type in _STATEMENTS:
                self.statement(child, upstream, bg or background)
            else:
                self._substitutions(child)

    def _pipeline(self, parts: list[Any], upstream: SimpleCommand | None, background: bool,
                  redirects: list[Any]) -> SimpleCommand | None:
        """Each stage fed by the last command of the one before; returns that of the last."""
        previous = upstream
        parts = [p for p in parts if p.type != "comment"]
        for i, part in enumerate(parts):
            before = len(self.out)
            self.statement(part, previous, background,
                           redirects if i == len(parts) - 1 else None)
            made = [c for c in self.out[before:] if c.depth == self.depth]
            previous = made[-1] if made else previous
        return previous

    def _list(self, node: Any, upstream: SimpleCommand | None, background: bool,
              redirects: list[Any]) -> None:
        """`a && b || c`: nested to the left, read here without recursing."""
        parts: list[Any] = []
        current = node
        while current.type == "list" and current.named_children:
            parts.extend(reversed(current.named_children[1:]))
            current = current.named_children[0]
        parts.append(current)
        parts.reverse()
        for i, child in enumerate(parts):
            if child.type in _STATEMENTS:
                self.statement(child, upstream if i == 0 else None, background,
                               redirects if i == len(parts) - 1 else None)
            else:
                self._substitutions(child)

    def _redirected(self, node: Any, upstream: SimpleCommand | None, background: bool,
                    outer: list[Any]) -> None:
        body = node.child_by_field_name("body")
        extra = [c for c in node.named_children if body is None or c.id != body.id]
        extra += outer
        if body is not None:
            self.statement(body, upstream, background, extra)
        else:  # `> F` alone: a write (or a read) of its own
            self.command(node, upstream, background, extra, items=[])

    def _group(self, body: Any, extra: list[Any], upstream: SimpleCommand | None,
               background: bool) -> None:
        """`{ …; } > F`, `while …; done < <(…)`: the group's output redirections are writes
        of their own; its input feeds the commands inside it."""
        redirects, after = self._group_redirects(extra)
        writes, stdin = group_redirects(self._redirect_list(redirects))
        if writes:
            self.emit(SimpleCommand([], writes, via=self.via, depth=self.depth))
        saved = self.group_stdin
        if stdin is not None:
            self.group_stdin = stdin
        before = len(self.out)
        try:
            self.statement(body, upstream, background)
        finally:
            self.group_stdin = saved
        made = [c for c in self.out[before:] if c.depth == self.depth]
        self._after(after, made[-1] if made else None, background)

    def _group_redirects(self, nodes: list[Any]) -> tuple[list[Any], list[tuple[str, Any]]]:
        """A group's redirections (`_opened`) and what runs after it; a word among them is
        no word of a group's (bash refuses it): that reading is not trusted."""
        items, after = _opened(nodes)
        for item in items:
            if item.type not in _REDIRECTS and item.type not in ("ERROR", "comment"):
                self.reading.doubts.append(f"`{_text(item)[:40]}` after a group's "
                                           "redirection")
        return items, after

    def _function(self, node: Any) -> None:
        """A definition: its body is judged here, and again with the arguments of each call
        (`_call`). A body that calls itself twice or in the background is a fork bomb."""
        name_node = node.child_by_field_name("name") or node.named_children[0]
        name = _text(name_node)
        body = node.child_by_field_name("body") or node.named_children[-1]
        redirects = node.children_by_field_name("redirect")
        self.functions[name] = (body, redirects)
        before = len(self.out)
        self._body(body, redirects)
        calls = [c for c in self.out[before:] if c.argv and c.argv[0] == name]
        if len(calls) >= 2 or any(c.background for c in calls) or (
                calls and "&" in _text(body)):
            self.fork_bombs.append(f"the function {name} spawns copies of itself")

    def _body(self, body: Any, redirects: list[Any]) -> None:
        if redirects:
            self._group(body, redirects, None, False)
        else:
            self.statement(body, None, False)

    def _call(self, command: SimpleCommand) -> None:
        """A call of a function defined earlier: its body, with these arguments."""
        if self.depth + 1 > MAX_DEPTH:
            return  # its body was judged where it was defined
        name = command.argv[0]
        params = {str(i): a for i, a in enumerate(command.argv[1:10], start=1)}
        params["@"] = params["*"] = " ".join(command.argv[1:])
        walker = self.child(f"{name}()", {**self.env, **params}, self.calling | {name})
        try:
            walker._body(*self.functions[name])
        except Unparseable:
            return
        command.function_call = True
        self.fork_bombs += walker.fork_bombs
        for inner in walker.out:
            self.emit(inner)

    def _for(self, node: Any, upstream: SimpleCommand | None, background: bool) -> None:
        """`for x in a b c; do …; done` (and `select`): the body once per value (bounded)."""
        variable = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        values: list[str] = []
        for child in node.children_by_field_name("value"):
            values += self._words([child])
        if variable is None or body is None:
            self._compound(node, upstream, background)
            return
        name = _text(variable)
        saved = self.env.get(name)
        for value in values[:16] or [""]:
            self.env[name] = value
            self.statement(body, upstream, background)
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved

    def _assignments(self, node: Any, upstream: SimpleCommand | None,
                     background: bool) -> None:
        """`X=1 Y=2` alone: set for later words, and shown to the judge (PATH=/tmp changes
        `ls`). `--output=F` alone is no assignment (not a name): a command of that name."""
        items = [node] if node.type == "variable_assignment" else node.named_children
        if any(not self._assignable(item) for item in items):
            self.command(node, upstream, background, [], words_only=True)
            return
        assigned: dict[str, str] = {}
        for item in items:
            self._assign(item, assigned)
        self.env.update(assigned)
        self.emit(SimpleCommand([], [], via=self.via, depth=self.depth, env=assigned,
                                hidden=hidden_code(_text(node), self.env),
                                too_big=any(TOO_BIG in v for v in assigned.values())))

    def _test(self, node: Any, upstream: SimpleCommand | None, background: bool) -> None:
        """`[[ … ]]` and `[ … ]`: their words, as the judge reads `test`."""
        self._substitutions(node)
        opening = _text(node.children[0]) if node.children else "[["
        words = self._test_words(node)
        closing = "]]" if opening == "[[" else "]"
        command = SimpleCommand([opening, *words, closing], [], via=self.via,
                                depth=self.depth, upstream=upstream, background=background,
                                dynamic={i + 1 for i, w in enumerate(words) if dynamic(w)},
                                hidden=hidden_code(_text(node), self.env))
        link(command, upstream, {}, False, [])
        self.emit(command)

    def _arithmetic(self, node: Any) -> None:
        """`(( x ))`: arithmetic; code runs only through its values (`x='a[$(cmd)]'`)."""
        self._substitutions(node)
        found = hidden_code(_text(node), self.env)
        nested = _as_subshells(_text(node))
        if nested is not None:  # bash may read it as subshells: `((rm -f x) )`
            found.append(nested)
        if found:
            self.emit(SimpleCommand([], [], via=self.via, depth=self.depth, hidden=found))

    def _substitutions(self, node: Any) -> None:
        """Commands inside $(…), `…` and <(…) anywhere in a node that is not a command."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type in ("command_substitution", "process_substitution"):
                self._nested(current, "$(...)")
                continue
            stack.extend(current.named_children)

    def _nested(self, node: Any, via: str) -> list[SimpleCommand]:
        if self.depth + 1 > MAX_DEPTH:
            raise Unparseable(f"nested more than {MAX_DEPTH} levels deep")
        if _merged_backquotes(node):
            return self._backquotes(node, via)
        inner = _backquoted_text(node)
        if inner is not None:  # `echo \`rm x\``: bash reads the unescaped text
            return self._reread(inner, via)
        walker = self.child(via)
        for child in node.named_children:
            walker.statement(child, None, False)
        self.fork_bombs += walker.fork_bombs
        for c in walker.out:
            self.emit(c)
        return [c for c in walker.out if c.depth == self.depth + 1]

    def _reread(self, text: bytes, via: str) -> list[SimpleCommand]:
        """Text bash reads as a script of its own (a backquoted substitution, unescaped):
        its commands, one level down; a reading that cannot be trusted is a doubt."""
        try:
            root, data, _ = _tree(text, respell=False)
        except Unparseable as exc:
            self.reading.doubts.append(str(exc))
            return []
        reading = _Reading(data)
        walker = _Walker(reading, self.depth + 1, via, dict(self.env), dict(self.functions),
                         self.calling)
        walker.statement(root, None, False)
        why = reading.doubts[0] if reading.doubts else _unreliable(root, data, reading.claimed)
        if why is not None:
            self.reading.doubts.append(f"inside backquotes: {why}")
        self.fork_bombs += walker.fork_bombs
        for c in walker.out:
            self.emit(c)
        return [c for c in walker.out if c.depth == self.depth + 1]

    def _backquotes(self, node: Any, via: str) -> list[SimpleCommand]:
        """`` `a` `b` `` read by the grammar as one substitution (of "a` `b"): not trusted,
        but each is read on its own, so that what they run is judged too."""
        self.reading.doubts.append("backquotes the grammar reads as one")
        data = self.reading.data
        start = node.start_byte + len(node.text) - len(node.text.lstrip()) + 1
        cuts = sorted((n.start_byte, n.end_byte) for n in _all_nodes(node) if n.type == "``")
        found: list[SimpleCommand] = []
        for end, after in [*cuts, (node.end_byte - 1, node.end_byte)]:
            piece = data[start:end]
            start = after
            reading = _Reading(piece)
            walker = _Walker(reading, self.depth + 1, via, dict(self.env))
            walker.statement(_parser().parse(piece).root_node, None, False)
            self.fork_bombs += walker.fork_bombs
            for c in walker.out:
                self.emit(c)
            found += [c for c in walker.out if c.depth == self.depth + 1]
        return found

    # -- simple commands -------------------------------------------------------------------

    def command(self, node: Any, upstream: SimpleCommand | None, background: bool,
                extra: list[Any], words_only: bool = False,
                items: list[Any] | None = None) -> None:
        """One simple command (also `declare …`, `unset …`), with the redirections `extra`
        the grammar hung beside it. `words_only`: the node's text is only words (`{}`);
        `items`: the children to read instead of the node's."""
        simple = _Simple()
        if node.type in ("declaration_command", "unset_command") and node.children:
            simple.words.append(_text(node.children[0]))  # the keyword
        if items is None:
            items = [node] if words_only else node.named_children
        self._read_items(simple, [*items, *extra], named=words_only or node.type not in (
            "command", "redirected_statement"))
        if simple.stdin_text is None and upstream is None and self.group_stdin is not None \
                and not any(r.op == "<" for r in simple.redirects):
            simple.stdin_text, group_net = self.group_stdin
            simple.network = simple.network or group_net
        words = simple.words
        if words and words[0] in _DECLARES:
            # -n makes a reference to another variable, -l -u change the case, -i computes:
            # the value is then not the text written
            changed = any(w[:1] in "-+" and set(w[1:]) & set("nlui") for w in words[1:])
            for word in words[1:]:
                name, eq, value = word.partition("=")
                if eq and _NAME.fullmatch(name):
                    if changed:
                        self.env.pop(name, None)
                    else:
                        self.env[name] = value
        if words and words[0] == "read":
            self.env.update(read_assignments(words, simple.stdin_text))
        if words and words[0] in ("mapfile", "readarray"):
            self.env.update(mapfile_assignment(words, simple.stdin_text))
        if not words:
            if simple.prefix and not simple.redirects:  # X=/ : for later words
                self.env.update(simple.prefix)
                self.emit(SimpleCommand([], [], via=self.via, depth=self.depth,
                                        env=simple.prefix, hidden=simple.hidden,
                                        too_big=any(TOO_BIG in v for v in
                                                    simple.prefix.values())))
            if simple.redirects:
                self.emit(SimpleCommand([], simple.redirects, via=self.via, depth=self.depth,
                                        env=simple.prefix))
            self._after(simple.after, None, background)
            return
        command = SimpleCommand(words, simple.redirects, via=self.via,
                                stdin_text=simple.stdin_text, upstream=upstream,
                                procsubs=simple.procsubs, dynamic_network=simple.network,
                                env=simple.prefix, background=background, depth=self.depth,
                                globbed=simple.globbed, dynamic=simple.dynamic,
                                quoted=simple.quoted, hidden=simple.hidden,
                                too_big=simple.too_big)
        link(command, upstream, simple.procsubs, simple.network, simple.outputs)
        self.emit(command)
        if words[0] in self.functions and words[0] not in self.calling:
            self._call(command)
        self._after(simple.after, command, background)

    def _read_items(self, simple: _Simple, items: list[Any], named: bool) -> None:
        """The children of a command in order: assignments before the program, words
        (nodes written together, with nothing between, are one word: the grammar splits
        `rm$IFS-rf` and `a\\Z`), redirections, and what a here-document's line goes on
        with. Text the grammar left out between two of them is read as words (it drops a
        lone `-` before a redirection), and a number it read as a word right before a
        redirection is that redirection's descriptor (`cat 0< F`)."""
        seen_name = named
        group: list[Any] = []
        end = items[0].start_byte if items else 0
        for item in self._flatten(simple, items):
            kind = item.type
            if kind == "comment":
                continue
            redirection = kind in _REDIRECTS or (kind == "ERROR" and _text(item) in _HALVES)
            gap = self.reading.data[end:item.start_byte] if item.start_byte > end else b""
            dropped = bool(gap) and not _BLANK.fullmatch(gap)
            if b"\n" in gap.replace(b"\\\n", b""):  # bash ends a command there
                self.reading.doubts.append("one command over two lines")
            if group and (redirection or dropped or item.start_byte != group[-1].end_byte):
                if not (redirection and _descriptor(group, item)):
                    self._word(simple, group)
                group = []
            if dropped:
                self._dropped_words(simple, end, item.start_byte)
            if kind == "variable_assignment" and not seen_name and self._assignable(item):
                self._assign(item, simple.prefix)
            elif redirection:
                self._redirect_item(simple, item)
            elif kind == "variable_assignment" and named and self._assignable(item) and \
                    item.child_by_field_name("value") is not None and \
                    item.child_by_field_name("value").type == "array":
                assigned: dict[str, str] = {}  # declare -a a=(x y): one word, a=x y
                self._assign(item, assigned)
                simple.words += [f"{k}={v}" for k, v in assigned.items()]
            else:
                seen_name = True
                group.append(item.named_children[0] if kind == "command_name" and
                             item.named_children else item)
            end = max(end, item.end_byte)
        if group:
            self._word(simple, group)

    def _flatten(self, simple: _Simple, items: list[Any]) -> list[Any]:
        """The items opened (`_opened`); what runs after the command goes to
        `simple.after`."""
        out, after = _opened(items)
        simple.after += after
        return out

    def _after(self, after: list[tuple[str, Any]], command: SimpleCommand | None,
               background: bool) -> None:
        """What runs after a here-document's command: `| sh` (fed by it), `&& rm x`."""
        for how, node in after:
            if how == "|":
                self._pipeline(node.named_children, command, background, [])
            else:
                self.statement(node, None, background)

    def _dropped_words(self, simple: _Simple, start: int, end: int) -> None:
        """Words the grammar leaves out of its tree (`python3 - <<EOF`, `ls - 1> F`)."""
        raw = self.reading.data[start:end].decode("utf-8", "replace").strip()
        self.reading.claimed.append((start, end))
        simple.words += expand_word(raw, self.env, fallback=raw)

    def _word(self, simple: _Simple, group: list[Any]) -> None:
        """One word (a group of nodes written together) → its expanded words."""
        raw_word = self.reading.data[group[0].start_byte:group[-1].end_byte].decode(
            "utf-8", "replace")
        inside = _descendants(group)
        procsubs = [n for n in inside if n.type == "process_substitution"]
        if procsubs:  # <(…) >(…): a file name standing for the commands inside
            marker = f"/dev/fd/procsub{len(simple.procsubs) + 1}"
            inner: list[SimpleCommand] = []
            for node in procsubs:
                inner += self._nested(node, "<(...)")
            simple.procsubs[marker] = inner
            if raw_word.startswith(">("):
                simple.outputs.append(marker)
            simple.words.append(marker)
            return
        before = len(self.out)
        made = self._words(group, inside)
        words = simple.words
        if raw_word[:1] in ("*", "?", "["):
            simple.globbed.update(range(len(words), len(words) + len(made)))
        simple.too_big = simple.too_big or braces_overflow(raw_word) or any(
            TOO_BIG in w for w in made)
        if live_expansion(raw_word):
            simple.dynamic.update(i for i, w in enumerate(made, len(words)) if dynamic(w))
            simple.hidden += hidden_code(raw_word, self.env)
            if len(made) == 1 and (fixed := one_word(raw_word)) is not None:
                simple.quoted[len(words)] = fixed
        words += made
        simple.network = simple.network or any(c.tool in DOWNLOADERS or c.fed_by_download
                                                for c in self.out[before:])

    def _redirect_item(self, simple: _Simple, item: Any) -> None:
        if item.type == "ERROR":  # `<` of `<>`, `<<` of `<<<` (`_repaired`)
            simple.pending = _text(item)
            return
        redirect, text, net = self._redirect(item, simple.pending)
        simple.pending = ""
        simple.network = simple.network or net
        if item.type == "heredoc_redirect" and text and not _quoted_delimiter(item):
            simple.hidden += substitutions(text)  # an unquoted here-document expands
        if redirect.op in ("<<<", "<<", "<<-"):
            simple.stdin_text = text
        simple.redirects.append(redirect)

    def _assignable(self, node: Any) -> bool:
        """Whether `NAME=…` assigns: NAME is a variable's name or `name[subscript]`."""
        name = node.child_by_field_name("name") or (node.named_children or [None])[0]
        return name is not None and (name.type == "subscript" or
                                     bool(_NAME.fullmatch(_text(name))))

    def _assign(self, node: Any, env: dict[str, str]) -> None:
        name_node = node.child_by_field_name("name") or node.named_children[0]
        value_node = node.child_by_field_name("value")
        if name_node.type == "subscript":  # a[$(cmd)]=1: bash runs the subscript
            self._substitutions(name_node)
        name = _text(name_node)
        if value_node is None:
            env[name] = ""
            return
        if value_node.type == "array":  # a=(rm -rf /): its items, in order
            words = [w for item in value_node.named_children for w in self._words([item])]
        else:
            words = self._words([value_node])
        env[name] = " ".join(words)

    # -- words and redirections ------------------------------------------------------------

    def _test_words(self, node: Any) -> list[str]:
        """The words and operators of `[[ … ]]` or `[ … ]`, expanded like a command's."""
        out: list[str] = []
        stack = list(reversed(node.children[1:-1]))  # inside the brackets
        while stack and len(out) < 256:
            current = stack.pop()
            if current.type in ("word", "string", "raw_string", "simple_expansion",
                                "expansion", "number", "concatenation", "ansi_c_string",
                                "arithmetic_expansion", "variable_name", "command_substitution"):
                out.extend(self._words([current]))
            elif current.child_count == 0:
                out.append(_text(current))
            else:
                stack.extend(reversed(current.children))
        return out

    def _words(self, group: list[Any], inside: list[Any] | None = None) -> list[str]:
        """Nodes written together → their words, with each `$(…)` replaced by its output
        when that is known (else `$__UNKNOWN__`). `inside`: `_descendants(group)`."""
        base = group[0].start_byte
        raw = self.reading.data[base:group[-1].end_byte]
        inside = _descendants(group) if inside is None else inside
        subs = [n for n in inside if n.type == "command_substitution"]
        for sub in sorted(subs, key=lambda n: n.start_byte, reverse=True):
            source = produced_by(self._nested(sub, "$(...)"))
            # the grammar starts a substitution at the blank before it (`"$d $(…)"`)
            lead = len(sub.text) - len(sub.text.lstrip())
            start, end = sub.start_byte + lead - base, sub.end_byte - base
            value = (source.text.rstrip("\n") if source.text is not None
                     and "$" not in source.text else "$__UNKNOWN__")
            raw = raw[:start] + value.encode("utf-8", "surrogatepass") + raw[end:]
        text = raw.decode("utf-8", "replace")
        return expand_word(text, self.env, fallback=text)

    def _redirect_list(self, nodes: list[Any]) -> list[tuple[Redirect, str | None, bool]]:
        """Redirection nodes (and the repaired ERROR halves before them) → what each is."""
        read: list[tuple[Redirect, str | None, bool]] = []
        pending = ""
        for node in nodes:
            if node.type == "ERROR" and _text(node) in _HALVES:
                pending = _text(node)
            elif node.type in _REDIRECTS:
                read.append(self._redirect(node, pending))
                pending = ""
        return read

    def _redirect(self, node: Any, before: str = "") -> tuple[Redirect, str | None, bool]:
        """One redirection → (what it is, the text it feeds, whether from the network).
        `before`: the ERROR half of its operator the grammar left before it (`_repaired`)."""
        kind = node.type
        if kind == "heredoc_redirect":
            body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
            # from the text as written: the grammar may have read a blanked copy (`_blanked`)
            text = self.reading.data[body.start_byte:body.end_byte].decode(
                "utf-8", "replace") if body is not None else ""
            op = _text(node.children[0])
            if op == "<<-":  # bash drops the tabs that begin its lines
                text = "\n".join(line.lstrip("\t") for line in text.split("\n"))
            return Redirect(op, "<heredoc>"), text.rstrip("\n"), False
        # the operator: its tokens, with a repaired half (`<` ERROR`>` is `<>`)
        op = before + "".join(_text(c) for c in node.children if not c.is_named or (
            c.type == "ERROR" and _text(c) in ("<", ">"))) or ">"
        if op in (">&-", "<&-"):  # closes a descriptor: no target (`_after_target`)
            return Redirect(op[:-1], "-"), None, False
        destination = node.child_by_field_name("destination") or next(
            (c for c in node.named_children if c.type not in ("file_descriptor", "ERROR")),
            None)
        if destination is None:
            return Redirect(op, ""), None, False
        if destination.type == "process_substitution":
            source = produced_by(self._nested(destination, "<(...)"))
            if op == "<":  # `< <(…)`: its output is this command's stdin
                return Redirect("<<<", "<(...)"), source.text or (
                    "$__UNKNOWN__" if not source.network else None), source.network
            return Redirect(op, "<(...)"), source.text, source.network
        before_count = len(self.out)
        words = self._words([destination])
        network = any(c.tool in DOWNLOADERS for c in self.out[before_count:])
        value = " ".join(words) if words else _text(destination)
        if kind == "herestring_redirect" or op == "<<<":
            return Redirect("<<<", value), value, network
        return Redirect(op, value), None, network


def _opened(nodes: list[Any]) -> tuple[list[Any], list[tuple[str, Any]]]:
    """The nodes in order, with what the grammar hangs inside a redirection taken out:
    the words after a file redirection's target (`rm 2>/dev/null -rf /x`: `-rf` and `/x`
    are rm's; `> F rm x`: `rm` is the program; but in `> F 0>&1` the 0 is the next one's
    descriptor), and a here-document's line (`_heredoc_line`); also what runs after it
    (`| sh`, `&& …`), with how it is joined."""
    out: list[Any] = []
    after: list[tuple[str, Any]] = []
    for i, node in enumerate(nodes):
        out.append(node)
        if node.type == "file_redirect":
            words = _after_target(node)
            following = nodes[i + 1] if i + 1 < len(nodes) else None
            if words and following is not None and _adjacent(words[-1], following) and \
                    _text(words[-1]).isdigit():
                words.pop()  # `… 0>&1`: the digit is the next redirection's descriptor
            out += words
        elif node.type == "heredoc_redirect":
            items, then = _heredoc_line(node)
            more, later = _opened(items)
            out += more
            after += then + later
    return out, after


def _after_target(redirect: Any) -> list[Any]:
    """The nodes the grammar hangs on a file redirection after its target; all of them
    after `>&-` or `<&-`, which close a descriptor and have no target."""
    tokens = [c for c in redirect.children if not c.is_named]
    if tokens and _text(tokens[-1]).endswith("-"):
        return [c for c in redirect.named_children
                if c.type not in ("file_descriptor", "ERROR")]
    target = redirect.child_by_field_name("destination")
    return [c for c in redirect.named_children if target is not None and
            c.start_byte > target.start_byte and c.type != "ERROR"]


def _descriptor(group: list[Any], redirect: Any) -> bool:
    """`cat 0< F`: the grammar reads the 0 as a word; written right before a redirection,
    a number is its descriptor for bash."""
    return len(group) == 1 and group[0].type == "number" and \
        group[0].end_byte == redirect.start_byte and redirect.type == "file_redirect"


_LITERAL = {"comment", "raw_string", "ansi_c_string", "heredoc_start", "heredoc_end"}


def _joined(root: Any, data: bytes) -> bytes:
    """`data` with its line continuations (a backslash, not itself escaped, before a line
    break) removed, as bash removes them before it reads words: `r\\<newline>m` is `rm`,
    where the grammar reads two words. Kept where bash keeps them: in a comment (it ends at
    the line break), inside single quotes or `$'…'`, on a here-document's delimiter line and
    in the body of one whose delimiter is quoted."""
    at = data.find(b"\\\n")
    if at < 0:
        return data
    out = bytearray()
    last = 0
    while at >= 0:
        run = 1
        while at - run >= 0 and data[at - run] == 0x5C:
            run += 1
        if run % 2 == 1 and not _literal_at(root, at):
            out += data[last:at]
            last = at + 2
        at = data.find(b"\\\n", at + 2)
    return bytes(out + data[last:])


def _literal_at(root: Any, at: int) -> bool:
    node = root.descendant_for_byte_range(at, at + 1)  # the backslash: a comment ends there
    while node is not None:
        if node.type in _LITERAL or (node.type == "heredoc_body" and node.parent is not None
                                     and _quoted_delimiter(node.parent)):
            return True
        node = node.parent
    return False


def _slipped_bodies(root: Any) -> list[tuple[int, int]]:
    """Where the bodies are of here-documents whose first lines the grammar read as words of
    the line that opens them (a body starting `\\rm …`): from the line after the delimiter
    to the closing line, as bash reads them."""
    spans: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "heredoc_redirect":
            continue
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        end = next((c for c in node.children if c.type == "heredoc_end"), None)
        if start is None or end is None or not any(
                part.end_point[0] > start.end_point[0] for part in node.children
                if part.type not in _HEREDOC_PARTS and part.type not in ("<<", "<<-")):
            continue
        first = node.text.find(b"\n", start.end_byte - node.start_byte)
        if first >= 0:
            spans.append((node.start_byte + first + 1, end.start_byte))
    return spans


def _blanked(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """`data` with every byte of `spans` but line breaks made an `x`: the same length and
    lines, so the grammar reads those bodies as plain text and every offset still points
    into `data`, from which a body is read."""
    copy = bytearray(data)
    for begin, end in spans:
        for i in range(begin, end):
            if copy[i] != 0x0A:
                copy[i] = 0x78
    return bytes(copy)


def _heredoc_line(heredoc: Any) -> tuple[list[Any], list[tuple[str, Any]]]:
    """What the grammar hangs on a here-document after its delimiter, up to the end of that
    line: words and redirections of its command (`cat <<EOF > F`), and what runs after
    it, a pipe (`| sh`) or a list (`&& rm x`), each with how it is joined."""
    items: list[Any] = []
    after: list[tuple[str, Any]] = []
    operator = ""
    for part in heredoc.children:
        if part.type in _HEREDOC_PARTS or part.type in ("<<", "<<-", "comment"):
            continue
        if not part.is_named:
            operator = part.type  # `&&`, `||`, `|`, before what follows
        elif part.type == "pipeline":
            after.append(("|", part))
        elif part.type in _STATEMENTS and operator in ("&&", "||"):
            after.append(("&&", part))
        else:
            items.append(part)
    return items, after


def _backquoted_text(node: Any) -> bytes | None:
    """A backquoted substitution whose text holds `\\``, `\\$` or `\\\\`: bash removes
    those backslashes and reads what is left (`` `echo \\`rm x\\`` `` runs rm); the
    grammar takes them as escaped characters. That text, else None."""
    text = node.text.strip()
    if len(text) < 2 or text[:1] != b"`" or text[-1:] != b"`":
        return None
    inner = text[1:-1]
    out = bytearray()
    i, changed = 0, False
    while i < len(inner):
        if inner[i] == 0x5C and i + 1 < len(inner) and inner[i + 1] in b"`$\\":
            out.append(inner[i + 1])
            i += 2
            changed = True
            continue
        out.append(inner[i])
        i += 1
    return bytes(out) if changed else None


def _merged_backquotes(node: Any) -> bool:
    """A backquoted substitution in which the grammar found a `` ` ` `` (its token for an
    empty pair): in bash that closes one substitution and opens the next."""
    return node.type == "command_substitution" and node.text.lstrip()[:1] == b"`" and any(
        n.type == "``" for n in _all_nodes(node))


def _all_nodes(node: Any) -> list[Any]:
    found: list[Any] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.children)
    return found


# conditions that are always true (`while`) or always false (`until`)
_ALWAYS = {"while": {"true", ":", "/bin/true", "/usr/bin/true", "[ 1 ]", "[[ 1 ]]", "((1))",
                     "(( 1 ))", "test 1", "! false", "! /bin/false", "! /usr/bin/false"},
           "until": {"false", "/bin/false", "/usr/bin/false", "! true", "! :", "! /bin/true",
                     "! /usr/bin/true"}}
_LEAVES = frozenset({"break", "exit", "return"})


def _endless(node: Any) -> bool:
    """Whether a loop runs until something outside it stops it: its condition never
    changes (`while true`, `until false`, `for ((;;))`, `for ((;1;))`) and nothing inside
    leaves it (a `break` in a function defined there leaves nothing until it is called)."""
    body = node.child_by_field_name("body")
    if body is None:
        return False
    inside = [n for n in _descendants([body]) if n.type == "function_definition"]
    defined = {id(n) for f in inside for n in _descendants([f])}
    if any(_text(n) in _LEAVES for n in _descendants([body])
           if n.type == "command_name" and id(n) not in defined):
        return False
    if node.type == "c_style_for_statement":
        condition = node.child_by_field_name("condition")
        return condition is None or (condition.type == "number"
                                     and _text(condition).strip("0") != "")
    keyword = node.children[0].type if node.children else ""
    condition = node.child_by_field_name("condition")
    said = " ".join(_text(condition).rstrip(";& \n").replace("'", "").replace('"', "").split()
                    ) if condition else ""
    return said in _ALWAYS.get(keyword, set())


def _glued(node: Any) -> bool:
    """`{}`, `[]`, `[-d x ]`: an opening `{`, `[` or `[[` written together with what follows
    is no keyword for bash but part of a word (a command of that name); the grammar reads
    a group or a test."""
    children = node.children
    return len(children) >= 2 and children[0].type in ("{", "[", "[[") and \
        children[0].end_byte == children[1].start_byte


def _descendants(nodes: list[Any]) -> list[Any]:
    """The nodes and everything inside them, except inside `$(…)` and `<(…)` (their own
    walk reads those)."""
    found: list[Any] = []
    stack = list(nodes)
    while stack:
        current = stack.pop()
        found.append(current)
        if current.named_child_count and current.type not in ("command_substitution",
                                                              "process_substitution"):
            stack.extend(current.named_children)
    return found


def _quoted_delimiter(heredoc: Any) -> bool:
    """`<<'EOF'`, `<<"EOF"`, `<<\\EOF`: the here-document is taken literally."""
    start = next((c for c in heredoc.children if c.type == "heredoc_start"), None)
    return start is not None and any(q in _text(start) for q in "'\"\\")
