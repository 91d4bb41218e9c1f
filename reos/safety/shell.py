"""Reading a shell command line the way a shell would: into simple commands.

Parses with bashlex (a real bash grammar) and walks pipelines, lists, compound commands,
functions, command and process substitutions, here-documents and here-strings.
Redirections of a compound command (`{ …; } > F`, `while …; done < <(…)`) are writes of
their own, and the group's input feeds the commands inside it. Words
are expanded as far as they can be known statically: literal assignments made earlier
in the same script are substituted (`X=/; rm -rf $X`), `${IFS}` is whitespace, `$'\\x72m'`
is decoded, braces are expanded and quotes removed; a `$(…)` whose output is plain text
(`$(echo /)`) is replaced by that text. What stays unknown keeps its `$` so the judge
sees it. Each simple command says what feeds its stdin (`stdin_source`): literal text,
a download, a file or something unknowable.

What cannot be parsed raises `Unparseable`; callers fail closed. Not responsible for
judging anything, nor for running anything (nothing here executes).
"""

from __future__ import annotations

import re
import shlex
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
from reos.safety.streams import (
    mapfile_assignment,
    produced_by,
    read_assignments,
)
from reos.safety.syntax import (
    MAX_COMMANDS,
    MAX_DEPTH,
    Redirect,
    Script,
    SimpleCommand,
    Unparseable,
)

__all__ = ["parse", "parse_script", "split_fallback", "split_simple"]

# <<'EOF', <<"EOF", <<\EOF (no back-references: one bounded try per `<<`)
_QUOTED_HEREDOC = regex(r"<<(-?)[ \t]{0,16}(?:'([A-Za-z_]\w{0,63})'|\"([A-Za-z_]\w{0,63})\"|"
                             r"\\([A-Za-z_]\w{0,63}))")
_BARE_HEREDOC = regex(r"<<-?[ \t]{0,16}([A-Za-z_]\w{0,63})")
# `(( … ))` as a command (not `$((`): bashlex reads it as a program named by its text
_ARITHMETIC_COMMAND = regex(r"(?:^|[;&|({\s])\(\(")



# -- parsing -------------------------------------------------------------------------------

def parse(text: str, depth: int = 0, via: str = "",
          env: dict[str, str] | None = None) -> list[SimpleCommand]:
    return parse_script(text, depth, via, env).commands


def parse_script(text: str, depth: int = 0, via: str = "",
                 env: dict[str, str] | None = None,
                 functions: dict[str, str] | None = None,
                 calling: frozenset[str] = frozenset()) -> Script:
    """The simple commands of `text`, expanded; raises `Unparseable`."""
    if depth > MAX_DEPTH:
        raise Unparseable(f"nested more than {MAX_DEPTH} levels deep")
    import bashlex  # deferred: ~100 ms to import, and plan steps (argv) never need it

    literal: set[str] = set()  # delimiters of here-documents taken literally
    if "<<" in text:  # bashlex does not know quoted here-document delimiters
        literal = {m.group(2) or m.group(3) or m.group(4)
                   for m in _QUOTED_HEREDOC.finditer(text)}
        literal -= {m.group(1) for m in _BARE_HEREDOC.finditer(text)}
        text = _QUOTED_HEREDOC.sub(lambda m: "<<" + m.group(1) + (m.group(2) or m.group(3)
                                                                 or m.group(4)), text)
    if _ARITHMETIC_COMMAND.search(text):
        raise Unparseable("arithmetic command")  # bashlex reads `(( … ))` as a program
    try:
        try:
            trees = bashlex.parse(text)
        except bashlex.errors.ParsingError:
            if "<<" not in text or text.endswith("\n"):
                raise
            trees = bashlex.parse(text + "\n")  # a here-document ending at end of text
    except (bashlex.errors.ParsingError, NotImplementedError, AttributeError, IndexError,
            TypeError, ValueError, AssertionError, KeyError, RecursionError) as exc:
        raise Unparseable(f"{type(exc).__name__}: {str(exc)[:80]}") from None
    walker = _Walker(text, depth, via, dict(env or {}))
    walker.literal_heredocs = literal
    walker.functions, walker.calling = dict(functions or {}), calling
    try:
        for tree in trees:
            walker.walk(tree, None)
    except RecursionError:
        raise Unparseable("nested too deeply") from None
    return Script(walker.out, walker.fork_bombs)


def group_redirects(read: list[tuple[Redirect, str | None, bool]]
                    ) -> tuple[list[Redirect], tuple[str | None, bool] | None]:
    """A group's redirections, each (redirect, text it feeds, from the network?), split
    into its writes and what its stdin is (text or unknown, and whether from the network).
    Shared by both shell readers."""
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
    to the `>(…)` commands it writes into. Shared by both shell readers."""
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


class _Walker:
    def __init__(self, text: str, depth: int, via: str, env: dict[str, str]) -> None:
        self.text, self.depth, self.via, self.env = text, depth, via, env
        self.out: list[SimpleCommand] = []
        self.fork_bombs: list[str] = []
        self.functions: dict[str, str] = {}  # name -> body text, to judge calls with args
        self.calling: frozenset[str] = frozenset()
        # what a redirected group (`while …; done < <(…)`) feeds the commands inside it
        self.group_stdin: tuple[str | None, bool] | None = None
        self.literal_heredocs: set[str] = set()

    def emit(self, command: SimpleCommand) -> None:
        if len(self.out) >= MAX_COMMANDS:
            raise Unparseable(f"more than {MAX_COMMANDS} commands")
        self.out.append(command)

    def walk(self, node: Any, upstream: SimpleCommand | None, background: bool = False) -> None:
        kind = node.kind
        if kind == "pipeline":
            previous: SimpleCommand | None = upstream
            for part in node.parts:
                if part.kind == "pipe":
                    continue
                before = len(self.out)
                self.walk(part, previous)
                made = self.out[before:]
                last = next((c for c in reversed(made) if c.depth == self.depth), None)
                previous = last or previous
            return
        if kind == "list":
            parts = node.parts
            for i, part in enumerate(parts):
                if part.kind == "operator":
                    continue
                after = parts[i + 1] if i + 1 < len(parts) else None
                bg = after is not None and after.kind == "operator" and after.op == "&"
                self.walk(part, upstream if i == 0 else None, bg)
            return
        if kind == "function":
            self._function(node)
            return
        if kind == "for" and self._for(node, upstream, background):
            return
        if kind == "command":
            self._command(node, upstream, background)
            return
        if getattr(node, "redirects", None):
            self._redirected(node, upstream, background)
            return
        for part in (getattr(node, "parts", None) or getattr(node, "list", None) or []):
            if hasattr(part, "kind") and part.kind not in ("reservedword", "operator", "pipe"):
                self.walk(part, upstream, background)
        body = getattr(node, "body", None)
        if body is not None:
            self.walk(body, upstream, background)

    def _redirected(self, node: Any, upstream: SimpleCommand | None, background: bool) -> None:
        """`{ …; } > F`, `( … ) >> F`, `if …; fi > F`, `while …; done < <(…)`: the group's
        output redirections are writes of their own; its input feeds the commands inside."""
        writes, stdin = group_redirects([self._redirect(part) for part in node.redirects])
        if writes:
            self.emit(SimpleCommand([], writes, via=self.via, depth=self.depth))
        saved = self.group_stdin
        if stdin is not None:
            self.group_stdin = stdin
        try:
            for part in getattr(node, "list", None) or getattr(node, "parts", None) or []:
                if hasattr(part, "kind") and part.kind not in ("reservedword", "operator",
                                                                "pipe", "redirect"):
                    self.walk(part, upstream, background)
        finally:
            self.group_stdin = saved

    def _for(self, node: Any, upstream: SimpleCommand | None, background: bool) -> bool:
        """`for x in a b c; do …; done`: the body once per value (bounded)."""
        parts = list(getattr(node, "parts", []) or [])
        words = [p for p in parts if p.kind == "word"]
        reserved = [p.word for p in parts if p.kind == "reservedword"]
        if not words or "in" not in reserved:
            return False
        name = words[0].word
        values: list[str] = []
        for part in words[1:]:
            expanded, _ = self._expand(part)
            values.extend(expanded)
        body = [p for p in parts if p.kind not in ("word", "reservedword", "operator")]
        saved = self.env.get(name)
        for value in values[:16] or [""]:
            self.env[name] = value
            for part in body:
                self.walk(part, upstream, background)
        if saved is None:
            self.env.pop(name, None)
        else:
            self.env[name] = saved
        return True

    def _function(self, node: Any) -> None:
        name = node.name.word
        self.functions[name] = self.text[node.body.pos[0]:node.body.pos[1]]
        before = len(self.out)
        self.walk(node.body, None)
        calls = [c for c in self.out[before:] if c.argv and c.argv[0] == name]
        if len(calls) >= 2 or any(c.background for c in calls):
            self.fork_bombs.append(name)
        elif calls and "&" in self.text[node.body.pos[0]:node.body.pos[1]]:
            self.fork_bombs.append(name)

    def _command(self, node: Any, upstream: SimpleCommand | None, background: bool) -> None:
        words: list[str] = []
        redirects: list[Redirect] = []
        prefix: dict[str, str] = {}
        procsubs: dict[str, list[SimpleCommand]] = {}
        outputs: list[str] = []  # >(…): what this command writes there is their stdin
        stdin_text: str | None = None
        network = False
        seen_word = False
        globbed: set[int] = set()
        dynamic_words: set[int] = set()
        quoted: dict[int, bool] = {}
        hidden: list[str] = []
        too_big = False
        for part in node.parts:
            if part.kind == "assignment" and not seen_word:
                name, _, raw = self.text[part.pos[0]:part.pos[1]].partition("=")
                value, net = self._expand_one(part, raw)
                network = network or net
                prefix[name] = value
            elif part.kind in ("word", "assignment"):
                seen_word = True
                if any(getattr(s, "kind", "") == "processsubstitution"
                       for s in getattr(part, "parts", []) or []):
                    marker = f"/dev/fd/procsub{len(procsubs) + 1}"
                    inner: list[SimpleCommand] = []
                    for sub in part.parts:
                        if sub.kind == "processsubstitution":
                            inner += self._nested(sub.command, "<(...)")
                    procsubs[marker] = inner
                    if self.text[part.pos[0]:part.pos[1]].startswith(">("):
                        outputs.append(marker)
                    words.append(marker)
                    continue
                expanded, net = self._expand(part)
                network = network or net
                if self.text[part.pos[0]:part.pos[0] + 1] in ("*", "?", "["):
                    globbed.update(range(len(words), len(words) + len(expanded)))
                raw_word = self.text[part.pos[0]:part.pos[1]]
                too_big = too_big or braces_overflow(raw_word) or any(
                    TOO_BIG in w for w in expanded)
                if live_expansion(raw_word):
                    dynamic_words.update(i for i, w in enumerate(expanded, len(words))
                                         if dynamic(w))
                    hidden += hidden_code(raw_word, self.env)
                    if len(expanded) == 1 and (fixed := one_word(raw_word)) is not None:
                        quoted[len(words)] = fixed
                words.extend(expanded)
            elif part.kind == "redirect":
                redirect, text, net = self._redirect(part)
                network = network or net
                if redirect.target == "<heredoc>" and text and _delimiter(
                        self.text[part.pos[0]:part.pos[1]]) not in self.literal_heredocs:
                    hidden += substitutions(text)  # an unquoted here-document expands
                if redirect.op in ("<<<", "<<", "<<-"):
                    stdin_text = text
                    if text is None and net:
                        stdin_text, network = None, True
                redirects.append(redirect)
        if stdin_text is None and upstream is None and self.group_stdin is not None and \
                not any(r.op == "<" for r in redirects):
            stdin_text, group_net = self.group_stdin
            network = network or group_net
        if words and words[0] in ("export", "declare", "typeset", "local", "readonly"):
            for word in words[1:]:
                name, eq, value = word.partition("=")
                if eq and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                    self.env[name] = value
        if words and words[0] == "read":
            self.env.update(read_assignments(words, stdin_text))
        if words and words[0] in ("mapfile", "readarray"):
            self.env.update(mapfile_assignment(words, stdin_text))
        if not words:
            if prefix and not redirects:  # X=/ : a literal assignment for later words
                self.env.update(prefix)
                self.emit(SimpleCommand([], [], via=self.via, depth=self.depth, env=prefix,
                                        hidden=hidden, too_big=any(
                                            TOO_BIG in v for v in prefix.values())))
            if redirects:
                self.emit(SimpleCommand([], redirects, via=self.via, depth=self.depth,
                                        env=prefix))
            return
        command = SimpleCommand(words, redirects, via=self.via, stdin_text=stdin_text,
                                upstream=upstream, procsubs=procsubs, dynamic_network=network,
                                env=prefix, background=background, depth=self.depth,
                                globbed=globbed, dynamic=dynamic_words, quoted=quoted,
                                hidden=hidden, too_big=too_big)
        link(command, upstream, procsubs, network, outputs)
        self.emit(command)
        if words[0] in self.functions and words[0] not in self.calling:
            self._call(command)

    def _call(self, command: SimpleCommand) -> None:
        """A call of a function defined earlier: its body, with these arguments."""
        name = command.argv[0]
        params = {str(i): a for i, a in enumerate(command.argv[1:10], start=1)}
        params["@"] = params["*"] = " ".join(command.argv[1:])
        try:
            script = parse_script(self.functions[name], self.depth + 1, f"{name}()",
                                  {**self.env, **params}, self.functions,
                                  self.calling | {name})
        except Unparseable:
            return  # its body was judged where it was defined
        command.function_call = True
        self.fork_bombs += script.fork_bombs
        for inner in script.commands:
            self.emit(inner)

    def _nested(self, node: Any, via: str) -> list[SimpleCommand]:
        if self.depth + 1 > MAX_DEPTH:
            raise Unparseable(f"nested more than {MAX_DEPTH} levels deep")
        walker = _Walker(self.text, self.depth + 1, via, dict(self.env))
        walker.walk(node, None)
        self.fork_bombs += walker.fork_bombs
        for c in walker.out:
            self.emit(c)
        return [c for c in walker.out if c.depth == self.depth + 1]

    def _substitute(self, node: Any, raw: str, base: int) -> tuple[str, bool]:
        """Replace each `$(…)` in raw by its output when that is plain text."""
        network = False
        subs = [s for s in getattr(node, "parts", []) or [] if s.kind == "commandsubstitution"]
        for sub in reversed(subs):
            inner = self._nested(sub.command, "$(...)")
            source = produced_by(inner)
            network = network or source.network
            start, end = sub.pos[0] - base, sub.pos[1] - base
            if source.text is not None and "$" not in source.text:
                raw = raw[:start] + source.text.rstrip("\n") + raw[end:]
            else:
                raw = raw[:start] + "$__UNKNOWN__" + raw[end:]
        return raw, network

    def _expand(self, part: Any) -> tuple[list[str], bool]:
        raw = self.text[part.pos[0]:part.pos[1]]
        raw, network = self._substitute(part, raw, part.pos[0])
        return expand_word(raw, self.env, fallback=part.word), network

    def _expand_one(self, part: Any, raw: str) -> tuple[str, bool]:
        base = part.pos[0] + len(self.text[part.pos[0]:part.pos[1]]) - len(raw)
        raw, network = self._substitute(part, raw, base)
        return " ".join(expand_word(raw, self.env, fallback=raw)), network

    def _redirect(self, part: Any) -> tuple[Redirect, str | None, bool]:
        op = str(part.type)
        target = part.output
        heredoc = getattr(part, "heredoc", None)
        if heredoc is not None:
            body = heredoc.value.rsplit("\n", 1)[0] if "\n" in heredoc.value else ""
            return Redirect(op, "<heredoc>"), body, False
        if not hasattr(target, "kind"):
            return Redirect(op, str(target)), None, False
        raw = self.text[target.pos[0]:target.pos[1]]
        for sub in getattr(target, "parts", []) or []:
            if sub.kind == "processsubstitution":
                inner = self._nested(sub.command, "<(...)")
                source = produced_by(inner)
                if op == "<":  # `< <(…)`: its output is this command's stdin
                    return Redirect("<<<", "<(...)"), source.text or (
                        "$__UNKNOWN__" if not source.network else None), source.network
                return Redirect(op, "<(...)"), source.text, source.network
        raw, network = self._substitute(target, raw, target.pos[0])
        words = expand_word(raw, self.env, fallback=getattr(target, "word", raw))
        value = " ".join(words) if words else raw
        return Redirect(op, value), (value if op == "<<<" else None), network


def _delimiter(text: str) -> str:
    """The delimiter of a here-document redirection (`<<EOF`, `<<- EOF`)."""
    m = _BARE_HEREDOC.search(text)
    return m.group(1) if m else ""


def split_simple(text: str) -> list[list[str]]:
    """A rough fallback split on shell operators, used only after `parse` failed."""
    return [argv for argv, _ in split_fallback(text)]


def split_fallback(text: str) -> list[tuple[list[str], list[Redirect]]]:
    """Simple commands and their output redirections by a plain split (after a parse
    failure): keywords are skipped, `>`/`>>` take the next word as their target."""
    text = text.replace("${IFS}", " ").replace("$IFS", " ")
    lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    keywords = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for",
                "case", "esac", "in", "{", "}", "!", "[[", "]]", "time", "coproc", "select",
                "function", "((", "))", ";;"}
    out: list[tuple[list[str], list[Redirect]]] = [([], [])]
    pending: str | None = None
    try:
        for token in lexer:
            if pending is not None and not set(token) <= set(";&|<>()"):
                out[-1][1].append(Redirect(pending, token))
                pending = None
                continue
            if token in (">", ">>", ">|", "&>", "&>>", "<", "<<", "<<<", "<<-"):
                pending = token
            elif set(token) <= set(";&|<>()"):
                pending = None
                out.append(([], []))
            elif not out[-1][0] and token in keywords:
                continue
            else:
                out[-1][0].append(token)
            if len(out) > MAX_COMMANDS:
                break
    except ValueError:
        return [(text.split(), [])]
    return [(argv, redirects) for argv, redirects in out if argv or redirects]
