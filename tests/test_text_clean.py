"""reos.text: clean() removes every control and escape sequence and keeps the text."""

from __future__ import annotations

import json
import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reos.text import clean, json_safe, markup

ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"

CASES = [
    # (what it is, input, what must be shown)
    ("OSC 0 title, BEL-terminated", f"a{ESC}]0;pwned{BEL}b", "ab"),
    ("OSC 2 title, ST-terminated", f"a{ESC}]2;pwned{ST}b", "ab"),
    ("OSC 52 clipboard write", f"x{ESC}]52;c;cm0gLXJmIH4={BEL}y", "xy"),
    ("OSC 8 hyperlink keeps its text", f"{ESC}]8;;http://evil.example/{ST}click{ESC}]8;;{ST}",
     "click"),
    ("OSC in 8-bit form, ST in 8-bit form", "a\x9d0;t\x9cb", "ab"),
    ("unterminated OSC stops at the line end", f"a{ESC}]0;title\nnext line", "a\nnext line"),
    ("CSI 2K erase line", f"shown{ESC}[2Khidden?", "shownhidden?"),
    ("CSI cursor up and position", f"a{ESC}[3A{ESC}[10;20Hb", "ab"),
    ("CSI colour", f"{ESC}[1;31mred{ESC}[0m", "red"),
    ("CSI private mode (alternate screen)", f"{ESC}[?1049hx", "x"),
    ("8-bit CSI U+009B", "a\x9b2Jb", "ab"),
    ("ESC c full reset", f"a{ESC}cb", "ab"),
    ("ESC ( B charset", f"a{ESC}(Bb", "ab"),
    ("ESC 7 save cursor", f"a{ESC}7b", "ab"),
    ("lone ESC at the end", f"a{ESC}", "a"),
    ("DCS string", f"a{ESC}Pq#0;2;0;0;0{ST}b", "ab"),
    ("APC string", f"a{ESC}_Gf=100;AAAA{ST}b", "ab"),
    ("PM and SOS strings", f"a{ESC}^pm{ST}b{ESC}Xsos{ST}c", "abc"),
    ("BEL", f"ding{BEL}dong", "dingdong"),
    ("BS cannot rub out what was shown", "safe\x08\x08\x08\x08evil", "safeevil"),
    ("CR cannot overwrite a line", "rm -rf /\rls", "rm -rf /ls"),
    ("CRLF line ends become LF", "one\r\ntwo\r\n", "one\ntwo\n"),
    ("DEL", "a\x7fb", "ab"),
    ("NUL, VT, FF", "a\x00b\x0bc\x0cd", "abcd"),
    ("other C1 controls (NEL, SS2)", "a\x85b\x8ec", "abc"),
    ("bidi overrides", "file\u202egpj.exe \u2066x\u2069", "filegpj.exe x"),
    ("tabs and newlines stay", "a\tb\nc", "a\tb\nc"),
    ("plain and non-ASCII text is untouched", "caf\u00e9 \u2014 \u201cok\u201d \u2713 \u65e5\u672c",
     "caf\u00e9 \u2014 \u201cok\u201d \u2713 \u65e5\u672c"),
    ("Rich markup is not clean()'s business", "[bold red]x[/]", "[bold red]x[/]"),
]


@pytest.mark.parametrize(("label", "raw", "shown"), CASES, ids=[c[0] for c in CASES])
def test_clean_removes_sequences_and_keeps_text(label: str, raw: str, shown: str) -> None:
    assert clean(raw) == shown


UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@given(st.text())
def test_clean_never_leaves_a_control_character(text: str) -> None:
    assert UNSAFE.search(clean(text)) is None


@given(st.lists(st.sampled_from(["\x1b", "[", "]", "0", ";", "\x07", "\\", "\x9b", "\x9c",
                                 "P", "_", "2K", "a", "\n", "\t", "\r", "\x90", "m"])))
def test_clean_never_leaves_a_control_character_in_escape_soup(parts: list[str]) -> None:
    cleaned = clean("".join(parts))
    assert UNSAFE.search(cleaned) is None
    assert cleaned.count("\n") <= "".join(parts).count("\n")


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs"),
                                      blacklist_characters="\u202a\u202b\u202c\u202d\u202e"
                                                           "\u2066\u2067\u2068\u2069")))
def test_clean_leaves_safe_text_alone(text: str) -> None:
    assert clean(text) == text


@given(st.text())
def test_clean_is_idempotent(text: str) -> None:
    once = clean(text)
    assert clean(once) == once


def test_markup_escapes_rich_tags_after_cleaning() -> None:
    from rich.text import Text

    shown = markup(f"[bold red]alert[/] [link=http://evil.example]x[/link]{ESC}]0;t{BEL}")
    assert Text.from_markup(shown).plain == "[bold red]alert[/] [link=http://evil.example]x[/link]"


@given(st.text())
def test_json_safe_keeps_the_data_and_leaves_no_raw_control(text: str) -> None:
    document = json_safe(json.dumps({"v": text}, ensure_ascii=False))
    assert json.loads(document) == {"v": text}
    assert UNSAFE.search(document) is None


def test_clean_is_fast_on_a_long_log() -> None:
    plain = "2026-11-22T10:00:00Z container started, listening on :8080 \u2713\n" * 20_000
    hostile = f"{ESC}[2K{ESC}]0;t{BEL}line \x9b1A\n" * 20_000
    start = time.perf_counter()
    assert clean(plain) is plain  # the common case returns the same string, no copy
    plain_seconds = time.perf_counter() - start
    start = time.perf_counter()
    assert clean(hostile) == "line \n" * 20_000
    hostile_seconds = time.perf_counter() - start
    # ~1.3 MB each; generous bounds that still catch a backtracking pattern
    assert plain_seconds < 0.5 and hostile_seconds < 2.0
