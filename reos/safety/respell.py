"""Shell text tree-sitter-bash cannot read, spelled again as text it reads as bash does.

The grammar does not know two things bash reads every day, and the shell reader (`shell`)
would otherwise leave them unread or misread:
- a here-document whose opening line goes on with `;` or `&` (`bash <<EOF; echo done`,
  `cat <<EOF | sh &`), or whose delimiter is written against an operator (`<<EOF;`,
  `<<EOF|sh`): the grammar reports an error or takes the operator into the delimiter. The
  delimiter is cut where bash cuts it (a blank before the operator), and what follows the
  `;` is moved below the body: `a <<EOF; b` + body is `a <<EOF` + body + `b`; after `&`, the
  and-or list that holds the here-document becomes a group run in the background:
  `{ a <<EOF` + body + `} & b`. Bash runs the same commands with the same input both ways
  (the body ends at the first line that is its delimiter, as bash ends it).
- `coproc` before a compound command (`coproc NAME { …; }`, `coproc ( … )`, `coproc while
  …`): the grammar reads `coproc` as a program and the braces as its words. The keyword is
  ended (`coproc; { …; }`, NAME blanked): the reader then reads the body as the commands it
  runs, and `coproc` alone as a command of its own, which the judge knows as a launcher
  (never read-only). That text is a reading, not bash. `coproc CMD ARGS` (a simple command)
  is left as it is: the judge reads it as that launcher with its command.

Each spelling is made only in the exact shape described, one at a time (`respelled`, at
most MAX_RESPELLINGS); the reader parses the new text again, and any error left makes
that reading untrusted as before (two here-documents on the line, a delimiter quoted in
any other way than plain quotes, a line that does not end where the command does). Not
responsible for parsing (the reader passes its parser in) or for judging.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reos.patterns import regex

__all__ = ["MAX_RESPELLINGS", "respelled"]

MAX_RESPELLINGS = 32  # spellings of one text; past them the grammar's reading stands
_METACHARACTERS = b";&|<>()"
# after `coproc`: the start of a compound command, or a NAME and then that start
_OPENER = rb"(\{(?=[ \t\n])|\(|\[\[(?=[ \t])|(?:if|while|until|for|case|select)(?=[ \t\n]))"
_COPROC_BODY = regex(rb"[ \t]+" + _OPENER)
_COPROC_NAMED = regex(rb"[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+" + _OPENER)
_RESERVED = {b"if", b"then", b"else", b"elif", b"fi", b"case", b"esac", b"for", b"select",
             b"while", b"until", b"do", b"done", b"in", b"function", b"time", b"coproc"}
_AND_OR = ("pipeline", "list", "negated_command")
_PLAIN_DELIMITER = regex(rb"[A-Za-z0-9_.:@%+=,/-]+")


def respelled(root: Any, data: bytes, parse: Callable[[bytes], Any]) -> bytes | None:
    """`data` with the first shape the grammar cannot read spelled again, or None when
    there is none. `root`: the grammar's tree of `data`; `parse`: bytes -> tree. Only the
    places where `<<` or `coproc` is written are looked at."""
    at = data.find(b"<<")
    while at >= 0:
        token = root.descendant_for_byte_range(at, at + 2)
        start = token.next_sibling if token is not None and token.type in ("<<", "<<-") \
            else None
        if start is not None and start.type == "heredoc_start":
            cut = _delimiter_end(start.text)
            if cut is not None:  # `<<EOF;`: bash's delimiter ends before the operator
                return data[:start.start_byte + cut] + b" " + data[start.start_byte + cut:]
            moved = _heredoc_line(start, data, parse)
            if moved is not None:
                return moved
        at = data.find(b"<<", at + 2)
    at = data.find(b"coproc")
    while at >= 0:
        word = root.descendant_for_byte_range(at, at + 6)
        name = word.parent if word is not None else None
        if name is not None and name.type == "command_name" and name.parent is not None:
            split = _coproc(name.parent, data)
            if split is not None:
                return split
        at = data.find(b"coproc", at + 6)
    return None


def _delimiter_end(token: bytes) -> int | None:
    """Where bash ends a here-document's delimiter inside what the grammar took for it: at
    the first metacharacter outside quotes. None when the token is all delimiter, or when
    its quoting is more than plain quotes (`$'…'`, a backslash), which is not worth
    guessing."""
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


def _separator(start: Any, data: bytes) -> tuple[Any, Any] | None:
    """The `;` or `&` that ends a here-document's command on its line, in the two shapes the
    grammar leaves: an ERROR of that token alone inside the here-document, before its body
    (a `;` in quotes or in a word is no such ERROR; any other error there stays in the text
    read again), or the token right after an ERROR that holds the operator, the delimiter
    and the rest of its line (`| sh`), no body. Returns (the separator, a node of the
    command it ends)."""
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


def _heredoc_line(start: Any, data: bytes, parse: Callable[[bytes], Any]) -> bytes | None:
    """`a <<EOF H; T` + body: the text with T moved below the body; after `&` instead of
    `;`, with the and-or list holding the here-document grouped and run in the background.
    None unless the shape is exactly that: one here-document on its line, a `;` or `&` the
    grammar could not read ending its command (`_separator`), a plain delimiter, a line
    that closes the body, and T complete on its own (no open quote, no here-document)."""
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
    closing = _closing_line(data, line_end + 1, delimiter, tabs)
    if closing is None:
        return None
    bodies = data[line_end + 1:closing].rstrip(b"\n")
    rest = data[closing:]
    if separator.type == ";" or separator.text == b";":
        return data[:separator.start_byte] + b"\n" + bodies + b"\n" + tail + b"\n" + rest
    first = _and_or_start(command)
    return (data[:first] + b"{ " + data[first:separator.start_byte] + b"\n" + bodies +
            b"\n} &" + tail + b"\n" + rest)


def _closing_line(data: bytes, at: int, delimiter: bytes, tabs: bool) -> int | None:
    """Where the text after a here-document's closing line begins (bash ends the body at
    the first line that is its delimiter; after `<<-`, once its leading tabs are dropped)."""
    while at < len(data):
        end = data.find(b"\n", at)
        line = data[at:] if end < 0 else data[at:end]
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


def _coproc(command: Any, data: bytes) -> bytes | None:
    """`coproc [NAME] { …; }` read by the grammar as a command named coproc: the text with
    the keyword ended (`coproc;`) and NAME blanked, so that the body is read as commands."""
    children = command.children
    if not children or children[0].type != "command_name" or children[0].text != b"coproc":
        return None
    after = children[0].end_byte
    found = _COPROC_BODY.match(data, after)
    if found is None:
        found = _COPROC_NAMED.match(data, after)
        if found is None or found.group(1) in _RESERVED:
            return None
    body = found.start(found.lastindex or 1)
    blank = b" " * (body - after)
    return data[:after] + b";" + blank + data[body:]
