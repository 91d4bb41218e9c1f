"""The long tail (issue 21): a request no operation fits is answered from this machine's
own manual (man-db's apropos), read-only, nothing planned; real man-db here and in the
Debian bed."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from reos.system import manual as manpages
from tests.understanding.evaluate import engines

TIMESTAMPS = "how do I change the timestamps of a file"  # no operation; touch(1) is it


def _indexed() -> bool:
    if shutil.which("apropos") is None:
        return False
    done = subprocess.run(["apropos", "-s", "1", "touch"], capture_output=True, text=True)
    return "touch (1)" in done.stdout


needs_man_db = pytest.mark.skipif(not _indexed(), reason="man-db or its index is missing")


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REOS_LLM", "off")


@needs_man_db
def test_a_request_with_no_recipe_names_the_manual_pages_that_relate() -> None:
    plan = engines()["apt"].plan(TIMESTAMPS)
    assert plan.kind.value == "unknown" and not plan.steps
    assert "I have no recipe for that" in plan.text()
    first_page = plan.text().splitlines()[1]  # the page sharing the most words comes first
    assert first_page.strip() == "touch (1) \u2014 change file timestamps"


@needs_man_db
def test_words_nothing_documents_still_say_not_understood() -> None:
    plan = engines()["apt"].plan("frobnicate the quux")
    assert "didn't understand" in plan.text() and "no recipe" not in plan.text()


def test_without_man_db_the_answer_is_the_plain_not_understood(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manpages.shutil, "which", lambda *a, **k: None)
    plan = engines()["apt"].plan(TIMESTAMPS)
    assert plan.kind.value == "unknown" and "didn't understand" in plan.text()


def test_an_understood_request_never_looks_at_the_manual(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_: object) -> None:
        raise AssertionError("apropos ran for an understood request")

    monkeypatch.setattr(manpages, "related", fail)
    assert engines()["apt"].plan("restart nginx").steps


def test_only_plain_words_reach_apropos() -> None:
    """apropos reads keywords as regular expressions: hosts, paths, versions, quotes and
    regex characters never reach it."""
    words = manpages.words_of("why can't I reach git.example.org at /srv/x.* with v1.2 "
                              "[a-z]+ ok?")
    assert words == ["reach"]


def test_apropos_output_is_untrusted_text() -> None:
    output = "\n".join([
        "touch (1)            - change file \x1b[31mtimestamps\x1b[0m",
        "evil$(rm) (1) - change file timestamps",  # not a page name
        "x" * 5000,
        "chmod (1) - change file mode bits",
        "tzselect (8)  - select a time zone",
    ])
    pages = manpages.rank(output, ["change", "timestamps", "file"])
    assert [p.name for p in pages] == ["touch", "chmod"]
    assert "\x1b" not in pages[0].summary and pages[0].hits == 3


@needs_man_db
def test_a_hung_or_failing_apropos_gives_no_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    def hangs(*_: object, **__: object) -> None:
        raise subprocess.TimeoutExpired("apropos", manpages.TIMEOUT)

    monkeypatch.setattr(manpages.subprocess, "run", hangs)
    assert manpages.related(TIMESTAMPS) == []


def test_the_fallback_in_the_bed_uses_its_man_db(bed) -> None:
    if bed.run("sh", "-c", "command -v apropos").returncode != 0:
        pytest.skip("the bed image has no man-db")
    bed.run("mandb", "-q", timeout=300)
    plan = bed.reos_json("plan", TIMESTAMPS)
    assert plan["kind"] == "unknown" and plan["steps"] == []
    assert "touch (1)" in plan["message"]
