"""Shell text tree-sitter-bash cannot read, spelled again as text it reads as bash does.

The grammar does not know three things bash reads every day:
- a descriptor closed before more words (`cat 3>&- a b c`): it takes `>&-` for an operator
  that wants a target and invents a `;` after the first word. `>&-` is spelled `>& -`,
  which it reads as a redirection to `-` followed by the command's words (the walker reads
  both as a closed descriptor);
- a here-document whose opening line goes on with `;` or `&` (`bash <<EOF; echo done`,
  `cat <<EOF | sh &`), or whose delimiter is written against an operator (`<<EOF;`): the
  delimiter is cut where bash cuts it (a blank before the operator), and what follows the
  `;` is moved below the body: `a <<EOF; b` + body is `a <<EOF` + body + `b`; after `&`, the
  and-or list that holds the here-document becomes a group run in the background:
  `{ a <<EOF` + body + `} & b`. Bash runs the same commands with the same input both ways;
- `coproc` before a compound command (`coproc NAME { …; }`, `coproc ( … )`, `coproc while
  …`): the grammar reads `coproc` as a program and the braces as its words. The keyword is
  ended (`coproc;`, NAME blanked) and where the body begins is kept (`Respelling.coprocs`):
  the reader walks the body as a process of its own (its assignments, functions and `cd`
  stay there), and `coproc` alone is a command the judge never finds read-only.

Each spelling is made only in the exact shape described. Every place of one kind is spelled
in one pass and the text is parsed once more per kind (three at most): the work grows with
the text, never with the number of places. A place whose shape is not exactly that is left
as written; the reader then finds the grammar's error there, and, as for any reading of
spelled text it cannot trust, reads the text as written instead (`shell.parse_script`):
spelling never makes a reading less strict than the text's own. Not responsible for parsing
(the reader passes its parser in) or for judging.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reos.patterns import regex

__all__ = ["Respelling", "respelled"]

_METACHARACTERS = b";&|<>()"
# after `coproc`: the start of a compound command, or a NAME and then that start
_OPENER = rb"(\{(?=[ \t\n])|\(|\[\[(?=[ \t])|(?:if|while|until|for|case|select)(?=[ \t\n]))"
_COPROC_BODY = regex(rb"[ \t]+" + _OPENER)
_COPROC_NAMED = regex(rb"[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+" + _OPENER)
_RESERVED = {b"if", b"then", b"else", b"elif", b"fi", b"case", b"esac", b"for", b"select",
             b"while", b"until", b"do", b"done", b"in", b"function", b"time", b"coproc"}
_AND_OR = ("pipeline", "list", "negated_command")
_PLAIN_DELIMITER = regex(rb"[A-Za-z0-9_.:@%+=,/-]+")

Edit = tuple[int, int, bytes]  # replace data[start:end] with the bytes


class Respelling:
    """The text spelled again, its tree, what was spelled again (in words) and where
    coprocess bodies begin in it."""

    def __init__(self, root: Any, data: bytes, what: str, coprocs: set[int]) -> None:
        self.root, self.data, self.what, self.coprocs = root, data, what, coprocs


def respelled(root: Any, data: bytes, parse: Callable[[bytes], Any]) -> Respelling | None:
    """`data` with every shape the grammar cannot read spelled again, or None when there
    is none. `root`: the grammar's tree of `data`; `parse`: bytes -> tree. Descriptors and
    here-documents are spelled again only where the grammar reports an error."""
    said: list[str] = []
    steps = (("a descriptor closed before more words", _closed_descriptors),
             ("a here-document's delimiter written against an operator", _cut_delimiters),
             ("a here-document's line going on after `;` or `&`", _heredoc_lines))
    for what, step in steps:
        if not root.has_error:
            break
        edits = step(root, data, parse)
        if edits:
            data = _applied(data, edits)
            root = parse(data).root_node
            said.append(what)
    edits = _coprocs(root, data)
    coprocs: set[int] = set()
    if edits:
        shift = 0
        for start, end, text in edits:  # in order, none overlapping
            shift += len(text) - (end - start)
            coprocs.add(end + shift)  # the body begins where the blanked NAME ends
        data = _applied(data, edits)
        root = parse(data).root_node
        said.append("coproc before a compound command")
    return Respelling(root, data, ", ".join(said), coprocs) if said else None


def _applied(data: bytes, edits: list[Edit]) -> bytes:
    out = bytearray()
    last = 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1])):
        out += data[last:start] + text
        last = end
    return bytes(out + data[last:])


def _tokens(root: Any, data: bytes, needle: bytes) -> list[Any]:
    """The grammar's tokens that begin where `needle` is written (one lookup each)."""
    found: list[Any] = []
    at = data.find(needle)
    while at >= 0:
        token = root.descendant_for_byte_range(at, at + len(needle))
        if token is not None and token.start_byte == at:
            found.append(token)
        at = data.find(needle, at + len(needle))
    return found


# -- closed descriptors ---------------------------------------------------------------------

def _closed_descriptors(root: Any, data: bytes, parse: Callable[[bytes], Any]) -> list[Edit]:
    """`N>&-` and `N<&-` tokens of a redirection: spelled `>& -`, `<& -`."""
    edits: list[Edit] = []
    for needle in (b">&-", b"<&-"):
        for token in _tokens(root, data, needle):
            if token.type == needle.decode() and token.parent is not None and \
                    token.parent.type == "file_redirect":
                edits.append((token.start_byte + 2, token.start_byte + 2, b" "))
    return edits


# -- here-documents -------------------------------------------------------------------------

def _starts(root: Any, data: bytes) -> list[Any]:
    """The delimiters (`heredoc_start`) of the here-documents the grammar found."""
    starts: list[Any] = []
    for token in _tokens(root, data, b"<<"):
        start = token.next_sibling if token.type in ("<<", "<<-") else None
        if start is not None and start.type == "heredoc_start":
            starts.append(start)
    return starts


def _cut_delimiters(root: Any, data: bytes, parse: Callable[[bytes], Any]) -> list[Edit]:
    """`<<EOF;`: bash's delimiter ends before the operator; a blank is put there."""
    edits: list[Edit] = []
    for start in _starts(root, data):
        cut = _delimiter_end(start.text)
        if cut is not None:
            edits.append((start.start_byte + cut, start.start_byte + cut, b" "))
    return edits


def _delimiter_end(token: bytes) -> int | None:
    """Where bash ends a here-document's delimiter inside what the grammar took for it: at
    the first metacharacter outside quotes. None when the token is all delimiter, or when
    its quoting is more than plain quotes (`$'…'`, a backslash), which is not guessed."""
    if b"\\" in token or b"$" in token:
        return None
    quote = 0
    for i, byte in enumerate(token):
        if quote:
            if byte == quote:
                quote = 0
        elif byte in b"'\"":
            quote = byte
        elif byte in _METACHARACTERS:
            return i if i > 0 else None
    return None


def _heredoc_lines(root: Any, data: bytes, parse: Callable[[bytes], Any]) -> list[Edit]:
    """Every here-document line that goes on after `;` or `&` (`_heredoc_line`), spelled
    in one pass. Two places whose lines and bodies overlap are both left as written; the
    search for closing lines reads each byte a bounded number of times."""
    budget = [4 * len(data) + 4096]
    spans: list[tuple[int, int, list[Edit]]] = []
    for start in _starts(root, data):
        found = _heredoc_line(start, data, parse, budget)
        if found is not None:
            spans.append(found)
        if budget[0] < 0:
            return []
    spans.sort(key=lambda s: s[0])
    edits: list[Edit] = []
    for i, (begin, end, mine) in enumerate(spans):
        before = spans[i - 1][1] if i else -1
        after = spans[i + 1][0] if i + 1 < len(spans) else len(data) + 1
        if before <= begin and end <= after:
            edits += mine
    return edits


def _separator(start: Any, data: bytes) -> tuple[Any, Any] | None:
    """The `;` or `&` that ends a here-document's command on its line, in the two shapes the
    grammar leaves: an ERROR of that token alone inside the here-document, before its body
    (a `;` in quotes or in a word is no such ERROR), or the token right after an ERROR
    that holds the operator, the delimiter and the rest of its line (`| sh`), no body.
    Returns (the separator, a node of the command it ends)."""
    holder = start.parent
    if holder is None:
        return None
    if holder.type == "heredoc_redirect":
        body = next((c for c in holder.children if c.type in ("heredoc_body", "heredoc_end")),
                    None)
        limit = body.start_byte if body is not None else holder.end_byte
        for at in range(start.end_byte, limit):
            if data[at] in b";&":
                token = holder.descendant_for_byte_range(at, at + 1)
                error = token.parent if token is not None else None
                if error is not None and error.type == "ERROR" and error.text == token.text \
                        and token.type in (";", "&"):
                    return error, holder.parent or holder
        return None
    after = holder.next_sibling
    kinds = [c.type for c in holder.children]
    if holder.type == "ERROR" and kinds[:2] in (["<<", "heredoc_start"],
                                                ["<<-", "heredoc_start"]) and \
            "ERROR" not in kinds and "heredoc_body" not in kinds and after is not None and \
            after.type in (";", "&") and holder.prev_sibling is not None and \
            b"\n" not in holder.text:
        return after, holder.prev_sibling
    return None


def _delimiter(token: bytes) -> bytes | None:
    """The line that ends a here-document: its delimiter without plain quotes."""
    bare = token.strip(b"'\"") if token[:1] in (b"'", b'"') and token[-1:] == token[:1] \
        else token
    return bare if _PLAIN_DELIMITER.fullmatch(bare) else None


def _heredoc_line(start: Any, data: bytes, parse: Callable[[bytes], Any],
                  budget: list[int]) -> tuple[int, int, list[Edit]] | None:
    """`a <<EOF H; T` + body: the edits that move T below the body (after `&` instead of
    `;`, the and-or list holding the here-document grouped and run in the background),
    with the stretch of text they touch. None unless the shape is exactly that: one
    here-document on its line, a `;` or `&` the grammar could not read ending its command
    (`_separator`), a plain delimiter, a line that closes the body, and T complete on its
    own (no open quote, no here-document)."""
    found = _separator(start, data)
    delimiter = _delimiter(start.text)
    if found is None or delimiter is None:
        return None
    separator, command = found
    line_end = data.find(b"\n", separator.end_byte)
    if line_end < 0:
        return None
    line_start = data.rfind(b"\n", 0, start.start_byte) + 1
    line = data[line_start:line_end]
    if line.count(b"<<") - line.count(b"<<<") > 1:
        return None  # two here-documents on one line: whose body is whose is not guessed
    tail = data[separator.end_byte:line_end]
    if b"<<" in tail or (tail.strip() and parse(tail).root_node.has_error):
        return None
    operator = start.prev_sibling
    tabs = operator is not None and operator.type == "<<-"
    closing = _closing_line(data, line_end + 1, delimiter, tabs, budget)
    if closing is None:
        return None
    below = (b"" if data[closing - 1:closing] == b"\n" else b"\n")
    if separator.type == ";" or separator.text == b";":
        edits = [(separator.start_byte, line_end, b""), (closing, closing, below + tail + b"\n")]
        return line_start, closing, edits
    first = _and_or_start(command)
    edits = [(first, first, b"{ "), (separator.start_byte, line_end, b""),
             (closing, closing, below + b"} &" + tail + b"\n")]
    return min(first, line_start), closing, edits


def _closing_line(data: bytes, at: int, delimiter: bytes, tabs: bool,
                  budget: list[int]) -> int | None:
    """Where the text after a here-document's closing line begins (bash ends the body at
    the first line that is its delimiter; after `<<-`, once its leading tabs are dropped).
    Each byte read is taken from `budget`."""
    while at < len(data):
        end = data.find(b"\n", at)
        line = data[at:] if end < 0 else data[at:end]
        budget[0] -= len(line) + 1
        if budget[0] < 0:
            return None
        if (line.lstrip(b"\t") if tabs else line) == delimiter:
            return len(data) if end < 0 else end + 1
        if end < 0:
            return None
        at = end + 1
    return None


def _and_or_start(node: Any) -> int:
    """Where the and-or list that holds a command begins (`&` runs all of it in the
    background)."""
    while node.parent is not None and node.parent.type in _AND_OR:
        node = node.parent
    return int(node.start_byte)


# -- coprocesses ----------------------------------------------------------------------------

def _coprocs(root: Any, data: bytes) -> list[Edit]:
    """`coproc [NAME] { …; }` read by the grammar as a command named coproc: the keyword
    ended (`coproc;`) and NAME blanked, so that the body is read as commands. Each edit
    ends where the body begins."""
    edits: list[Edit] = []
    for word in _tokens(root, data, b"coproc"):
        name = word.parent
        command = name.parent if name is not None and name.type == "command_name" else None
        if command is None or word.end_byte != word.start_byte + 6:
            continue
        children = command.children
        if not children or children[0].id != name.id:
            continue
        after = word.end_byte
        found = _COPROC_BODY.match(data, after)
        if found is None:
            found = _COPROC_NAMED.match(data, after)
            if found is None or found.group(1) in _RESERVED:
                continue
        body = found.start(found.lastindex or 1)
        edits.append((after, body, b";" + b" " * (body - after)))
    return edits
