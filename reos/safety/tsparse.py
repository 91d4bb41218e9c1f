"""A second reading of shell text with tree-sitter-bash, where bashlex cannot read it.

bashlex (a pure-Python bash grammar) fails on `[[ … ]]`, `case`, arrays, `$((…))`,
`select`, `coproc`, and takes seconds on 64 KB. tree-sitter-bash (a compiled grammar)
reads all of these in milliseconds. `parse_tree(text)` turns its tree into the same
`SimpleCommand`s as `shell.parse_script` (words expanded the same way, stdin sources,
process substitutions, here-documents, fork bombs) and says whether the grammar found
errors, so the caller can still fail closed. Imported lazily, only by `assess` (never on
the `reos plan` path).

Not responsible for judging anything, nor for running anything.
"""

from __future__ import annotations

from typing import Any

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
from reos.safety.shell import group_redirects, link
from reos.safety.streams import mapfile_assignment, produced_by, read_assignments
from reos.safety.syntax import MAX_COMMANDS, MAX_DEPTH, Redirect, Script, SimpleCommand, Unparseable

_PARSER: Any = None
_STATEMENTS = {"command", "pipeline", "list", "subshell", "compound_statement",
               "redirected_statement", "negated_command", "if_statement", "while_statement",
               "for_statement", "c_style_for_statement", "case_statement", "function_definition",
               "declaration_command", "variable_assignment", "test_command", "unset_command",
               "do_group", "case_item", "elif_clause", "else_clause", "program", "ERROR",
               "variable_assignments"}


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _PARSER = Parser(Language(tree_sitter_bash.language()))
    return _PARSER


def available() -> bool:
    try:
        _parser()
    except (ImportError, OSError, ValueError):
        return False
    return True


def parse_tree(text: str, env: dict[str, str] | None = None) -> tuple[Script, bool]:
    """(the simple commands, whether the grammar found errors); raises `Unparseable` when
    tree-sitter is not installed or the text nests too deeply."""
    try:
        tree = _parser().parse(text.encode("utf-8", "surrogatepass"))
    except (ImportError, OSError, ValueError) as exc:
        raise Unparseable(f"no second parser: {exc}") from None
    walker = _TreeWalker(0, "", dict(env or {}))
    try:
        walker.statement(tree.root_node, None, False)
    except RecursionError:
        raise Unparseable("nested too deeply") from None
    return Script(walker.out, walker.fork_bombs), tree.root_node.has_error


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


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


class _TreeWalker:
    def __init__(self, depth: int, via: str, env: dict[str, str]) -> None:
        self.depth, self.via, self.env = depth, via, env
        self.out: list[SimpleCommand] = []
        self.fork_bombs: list[str] = []
        # what a redirected group (`while …; done < <(…)`) feeds the commands inside it
        self.group_stdin: tuple[str | None, bool] | None = None

    def emit(self, command: SimpleCommand) -> None:
        if len(self.out) >= MAX_COMMANDS:
            raise Unparseable(f"more than {MAX_COMMANDS} commands")
        self.out.append(command)

    # -- statements ------------------------------------------------------------------------

    def statement(self, node: Any, upstream: SimpleCommand | None, background: bool,
                  redirects: list[Any] | None = None) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, upstream, background, redirects or [])
            return
        if kind == "pipeline":
            previous = upstream
            for child in node.named_children:
                before = len(self.out)
                self.statement(child, previous, background)
                made = [c for c in self.out[before:] if c.depth == self.depth]
                previous = made[-1] if made else previous
            return
        if kind == "list":  # `a && b || c`: nested to the left, read here without recursing
            parts: list[Any] = []
            current = node
            while current.type == "list" and current.named_children:
                parts.extend(reversed(current.named_children[1:]))
                current = current.named_children[0]
            parts.append(current)
            for i, child in enumerate(reversed(parts)):
                if child.type in _STATEMENTS:
                    self.statement(child, upstream if i == 0 else None, background)
                else:
                    self._substitutions(child)
            return
        if kind == "redirected_statement":
            body = node.child_by_field_name("body") or (node.named_children or [None])[0]
            extra = [c for c in node.named_children
                     if body is None or c.start_byte != body.start_byte or c.type != body.type]
            if body is not None and body.type == "command":
                self.command(body, upstream, background, extra)
                return
            if body is not None:
                self._group(body, extra, upstream, background)
            return
        if kind == "function_definition":
            self._function(node)
            return
        if kind == "for_statement":
            self._for(node, upstream, background)
            return
        if kind in ("variable_assignment", "variable_assignments"):
            assigned: dict[str, str] = {}
            for item in ([node] if kind == "variable_assignment" else node.named_children):
                self._assign(item, assigned)
            self.env.update(assigned)  # and shown to the judge (PATH=/tmp changes `ls`)
            self.emit(SimpleCommand([], [], via=self.via, depth=self.depth, env=assigned,
                                    hidden=hidden_code(_text(node), self.env),
                                    too_big=any(TOO_BIG in v for v in assigned.values())))
            return
        if kind == "declaration_command":
            words = [_text(node.children[0])] if node.children else ["declare"]
            for child in node.named_children:
                if child.type == "variable_assignment":
                    assigned = {}
                    self._assign(child, assigned)
                    self.env.update(assigned)
                    words += [f"{k}={v}" for k, v in assigned.items()]
                else:
                    self._substitutions(child)
                    words.append(_text(child))
            self.emit(SimpleCommand(words, [], via=self.via, depth=self.depth))
            return
        if kind == "test_command":  # [[ … ]]: its words, as the judge reads `test`
            self._substitutions(node)
            self.emit(SimpleCommand(["[[", *self._test_words(node), "]]"], [], via=self.via,
                                    depth=self.depth,
                                    dynamic={i + 1 for i, w in enumerate(
                                        self._test_words(node)) if dynamic(w)},
                                    hidden=hidden_code(_text(node), self.env)))
            return
        if kind == "compound_statement" and _text(node).startswith("(("):
            self._substitutions(node)  # (( x )): arithmetic; code only through its values
            found = hidden_code(_text(node), self.env)
            nested = _as_subshells(_text(node))
            if nested is not None:  # bash may read it as subshells: `((rm -f x) )`
                found.append(nested)
            if found:
                self.emit(SimpleCommand([], [], via=self.via, depth=self.depth, hidden=found))
            return
        children = node.children
        for i, child in enumerate(children):
            if not child.is_named:
                continue
            nxt = children[i + 1] if i + 1 < len(children) else None
            bg = nxt is not None and nxt.type == "&"
            if child.type in _STATEMENTS:
                self.statement(child, upstream if i == 0 else None, bg or background)
            else:
                self._substitutions(child)

    def _group(self, body: Any, extra: list[Any], upstream: SimpleCommand | None,
               background: bool) -> None:
        """`{ …; } > F`, `while …; done < <(…)`: the group's output redirections are writes
        of their own; its input feeds the commands inside it."""
        writes, stdin = group_redirects([self._redirect(node) for node in extra])
        if writes:
            self.emit(SimpleCommand([], writes, via=self.via, depth=self.depth))
        saved = self.group_stdin
        if stdin is not None:
            self.group_stdin = stdin
        try:
            self.statement(body, upstream, background)
        finally:
            self.group_stdin = saved

    def _bare_redirects(self, nodes: list[Any]) -> None:
        redirects = [self._redirect(n)[0] for n in nodes]
        if redirects:
            self.emit(SimpleCommand([], redirects, via=self.via, depth=self.depth))

    def _substitutions(self, node: Any) -> None:
        """Commands inside $(…), `…` and <(…) anywhere in a non-command node."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type in ("command_substitution", "process_substitution"):
                self._nested(current, "$(...)")
                continue
            stack.extend(current.named_children)

    def _function(self, node: Any) -> None:
        name_node = node.child_by_field_name("name") or node.named_children[0]
        name = _text(name_node)
        body = node.child_by_field_name("body") or node.named_children[-1]
        before = len(self.out)
        self.statement(body, None, False)
        calls = [c for c in self.out[before:] if c.argv and c.argv[0] == name]
        if len(calls) >= 2 or any(c.background for c in calls) or (
                calls and "&" in _text(body)):
            self.fork_bombs.append(name)

    def _for(self, node: Any, upstream: SimpleCommand | None, background: bool) -> None:
        variable = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        values: list[str] = []
        for child in node.children_by_field_name("value"):
            values += self._words(child)
        if variable is None or body is None:
            for child in node.named_children:
                if child.type in _STATEMENTS:
                    self.statement(child, upstream, background)
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

    def _assign(self, node: Any, env: dict[str, str]) -> bool:
        name_node = node.child_by_field_name("name") or node.named_children[0]
        value_node = node.child_by_field_name("value")
        name = _text(name_node)
        if value_node is None:
            env[name] = ""
            return False
        if value_node.type == "array":  # a=(rm -rf /): its items, in order
            words = [w for item in value_node.named_children for w in self._words(item)]
        else:
            words = self._words(value_node)
        env[name] = " ".join(words)
        return any(c.tool in DOWNLOADERS for c in self.out[-8:])

    # -- simple commands ---------------------------------------------------------------

    def command(self, node: Any, upstream: SimpleCommand | None, background: bool,
                extra: list[Any]) -> None:
        words: list[str] = []
        prefix: dict[str, str] = {}
        redirects: list[Redirect] = []
        procsubs: dict[str, list[SimpleCommand]] = {}
        outputs: list[str] = []  # >(…): what this command writes there is their stdin
        stdin_text: str | None = None
        network = False
        seen_name = False
        globbed: set[int] = set()
        dynamic_words: set[int] = set()
        quoted: dict[int, bool] = {}
        hidden: list[str] = []
        too_big = False
        for child in [*node.named_children, *extra]:
            kind = child.type
            if kind == "variable_assignment" and not seen_name:
                self._assign(child, prefix)
                continue
            if kind in ("file_redirect", "heredoc_redirect", "herestring_redirect"):
                redirect, text, net = self._redirect(child)
                network = network or net
                start = next((c for c in child.children if c.type == "heredoc_start"), None)
                if kind == "heredoc_redirect" and text and start is not None and not any(
                        q in _text(start) for q in "'\"\\"):
                    hidden += substitutions(text)  # an unquoted here-document expands
                if redirect.op in ("<<<", "<<", "<<-"):
                    stdin_text = text
                redirects.append(redirect)
                continue
            if kind == "command_name":
                seen_name = True
                child = child.named_children[0] if child.named_children else child
            if kind == "process_substitution":
                marker = f"/dev/fd/procsub{len(procsubs) + 1}"
                procsubs[marker] = self._nested(child, "<(...)")
                if _text(child).startswith(">("):
                    outputs.append(marker)
                words.append(marker)
                continue
            before = len(self.out)
            made = self._words(child)
            if child.text[:1] in (b"*", b"?", b"[", "*", "?", "["):
                globbed.update(range(len(words), len(words) + len(made)))
            too_big = too_big or braces_overflow(_text(child)) or any(
                TOO_BIG in w for w in made)
            if live_expansion(_text(child)):
                dynamic_words.update(i for i, w in enumerate(made, len(words))
                                     if dynamic(w))
                hidden += hidden_code(_text(child), self.env)
                if len(made) == 1 and (fixed := one_word(_text(child))) is not None:
                    quoted[len(words)] = fixed
            words += made
            network = network or any(c.tool in DOWNLOADERS or c.fed_by_download
                                     for c in self.out[before:])
        if stdin_text is None and upstream is None and self.group_stdin is not None and \
                not any(r.op == "<" for r in redirects):
            stdin_text, group_net = self.group_stdin
            network = network or group_net
        if words and words[0] == "read":
            self.env.update(read_assignments(words, stdin_text))
        if words and words[0] in ("mapfile", "readarray"):
            self.env.update(mapfile_assignment(words, stdin_text))
        if words and words[0] in ("export", "declare", "typeset", "local", "readonly"):
            for word in words[1:]:
                name, eq, value = word.partition("=")
                if eq:
                    self.env[name] = value
        if not words:
            if prefix and not redirects:
                self.env.update(prefix)
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

    def _nested(self, node: Any, via: str) -> list[SimpleCommand]:
        if self.depth + 1 > MAX_DEPTH:
            raise Unparseable(f"nested more than {MAX_DEPTH} levels deep")
        walker = _TreeWalker(self.depth + 1, via, dict(self.env))
        for child in node.named_children:
            walker.statement(child, None, False)
        self.fork_bombs += walker.fork_bombs
        for c in walker.out:
            self.emit(c)
        return [c for c in walker.out if c.depth == self.depth + 1]

    def _test_words(self, node: Any) -> list[str]:
        """The words and operators of `[[ … ]]`, expanded like a command's words."""
        out: list[str] = []
        stack = [node]
        while stack and len(out) < 256:
            current = stack.pop()
            if current.type in ("[[", "]]", "(", ")"):
                continue
            if current.type in ("word", "string", "raw_string", "simple_expansion",
                                "expansion", "number", "concatenation",
                                "arithmetic_expansion", "variable_name"):
                out.extend(self._words(current))
            elif current.child_count == 0:
                out.append(_text(current))
            else:
                stack.extend(reversed(current.children))
        return out

    def _words(self, node: Any) -> list[str]:
        """One argument node → its words, with `$(…)` replaced by known output."""
        raw = node.text
        base = node.start_byte
        subs: list[Any] = []
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "command_substitution":
                subs.append(current)
                continue
            stack.extend(current.named_children)
        for sub in sorted(subs, key=lambda n: n.start_byte, reverse=True):
            source = produced_by(self._nested(sub, "$(...)"))
            start, end = sub.start_byte - base, sub.end_byte - base
            value = (source.text.rstrip("\n") if source.text is not None
                     and "$" not in source.text else "$__UNKNOWN__")
            raw = raw[:start] + value.encode("utf-8", "surrogatepass") + raw[end:]
        text = raw.decode("utf-8", "replace")
        return expand_word(text, self.env, fallback=text)

    def _redirect(self, node: Any) -> tuple[Redirect, str | None, bool]:
        kind = node.type
        if kind == "heredoc_redirect":
            body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
            text = _text(body) if body is not None else ""
            return Redirect("<<", "<heredoc>"), text.rstrip("\n"), False
        operator = next((c for c in node.children if not c.is_named), None)
        op = _text(operator) if operator is not None else ">"
        destination = node.child_by_field_name("destination") or (
            node.named_children[-1] if node.named_children else None)
        if destination is None:
            return Redirect(op, ""), None, False
        if destination.type == "process_substitution":
            source = produced_by(self._nested(destination, "<(...)"))
            if op == "<":
                return Redirect("<<<", "<(...)"), source.text or (
                    "$__UNKNOWN__" if not source.network else None), source.network
            return Redirect(op, "<(...)"), source.text, source.network
        before = len(self.out)
        words = self._words(destination)
        network = any(c.tool in DOWNLOADERS for c in self.out[before:])
        value = " ".join(words) if words else _text(destination)
        if kind == "herestring_redirect":
            return Redirect("<<<", value), value, network
        return Redirect(op, value), None, network
