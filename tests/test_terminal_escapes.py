"""Escape sequences from the machine never reach the terminal, in the CLI or the chat.

A real container's labels and logs carry a title change (OSC 0), a clipboard write
(OSC 52), a hyperlink (OSC 8), an erased line (CSI 2K), cursor moves, a reset (ESC c),
the 8-bit CSI U+009B, BEL and BS, plus Rich markup. Docker refuses such characters in
container names, so a saved snapshot carries them for the name case. The real `reos`
runs with its output captured as bytes, on a pseudo-terminal (for the Rich error panel),
and in tmux, where a title change or clipboard write that got through would show.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.tui.app import ReosApp
from reos.tui.widgets import Bubble
from tests.conftest import FIXTURES, IMAGE, REOS_BIN, RUN_ID, Containers
from tests.test_tui_approval import Terminal, need_tmux, settle, type_line

ESC, BEL = "\x1b", "\x07"
# What the container prints: every line mixes shown text with sequences a terminal obeys.
LOG_SCRIPT = r"""
printf 'line-one \033]0;pwned-title\007 after-title\n'
printf 'clip \033]52;c;cHduZWQ=\007 board\n'
printf 'erase\033[2Kmoved\033[3A\033[10;10H here\n'
printf '\033]8;;http://evil.example/\033\\link-text\033]8;;\033\\ ok\n'
printf 'c1 \302\23331m csi, bell\007 and back\010space\n'
printf 'reset\033c done [bold red]big[/] [link=http://evil.example]click[/link]\n'
trap "exit 0" TERM
while :; do sleep 1; done
"""
SHOWN = ["after-title", "clip", "board", "erasemoved", "link-text", "back", "space",
         "[bold red]big[/] [link=http://evil.example]click[/link]"]
HOSTILE_LABEL = f"{ESC}]0;pwned-title{BEL}[bold]label{ESC}[2K\u009b2J\u202eevil"
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def raw_controls(data: bytes) -> list[str]:
    """Control characters in a captured stream (\\n and \\t are fine), as reprs."""
    return [repr(c) for c in RAW.findall(data.decode("utf-8", "surrogateescape"))]


def run_reos(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The installed `reos`, output captured as bytes so nothing is decoded away."""
    return subprocess.run([str(REOS_BIN), *args], capture_output=True, timeout=120,
                          env={**os.environ, **(env or {})})


def assert_clean(done: subprocess.CompletedProcess) -> None:
    assert raw_controls(done.stdout) == [], done.stdout
    assert raw_controls(done.stderr) == [], done.stderr
    assert b"Traceback" not in done.stderr


@pytest.fixture
def hostile(containers: Containers) -> Iterator[str]:
    """A running container whose logs and labels are full of escape sequences."""
    name = f"{containers.prefix}-hostile"
    container = containers.client.containers.run(  # type: ignore[attr-defined]
        IMAGE, ["sh", "-c", LOG_SCRIPT], name=name, detach=True, network_mode="none",
        labels={"reos.test.run": RUN_ID, "note": HOSTILE_LABEL})
    containers.created.append(container)
    deadline = time.monotonic() + 20
    while b"done" not in container.logs() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert ESC.encode() in container.logs()  # the sequences really are in the logs
    yield name


@pytest.fixture
def hostile_snapshot(tmp_path: Path) -> Path:
    """homelab.json plus a container whose name, image and status carry sequences."""
    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["containers"].append({
        "name": f"evil{ESC}]0;pwned-title{BEL}-web{ESC}[2K", "id": "3f2a0000beef",
        "image": f"nginx{ESC}[31m:1", "state": "running",
        "status": f"Up{ESC}]52;c;cHduZWQ={BEL} 2 hours", "labels": {"note": HOSTILE_LABEL}})
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.docker
def test_docker_refuses_escape_sequences_in_container_names(containers: Containers) -> None:
    import docker.errors

    name = f"{containers.prefix}-x{ESC}]0;pwned{BEL}"
    with pytest.raises(docker.errors.APIError, match="[Ii]nvalid container name"):
        containers.client.containers.create(  # type: ignore[attr-defined]
            IMAGE, name=name, labels={"reos.test.run": RUN_ID})
    assert not containers.client.containers.list(  # type: ignore[attr-defined]
        all=True, filters={"name": f"{containers.prefix}-x"})


@pytest.mark.docker
def test_container_logs_reach_the_cli_as_text_only(hostile: str) -> None:
    done = run_reos("plan", f"show the logs of {hostile}")
    assert done.returncode == 0, done.stderr
    assert_clean(done)
    shown = done.stdout.decode()
    assert all(piece in shown for piece in SHOWN), shown
    assert "pwned-title" not in shown and "cHduZWQ=" not in shown  # payloads dropped


@pytest.mark.docker
def test_context_shows_hostile_labels_only_as_escaped_json(hostile: str) -> None:
    text = run_reos("context")
    assert text.returncode == 0 and hostile in text.stdout.decode()
    assert_clean(text)
    as_json = run_reos("context", "--json")
    assert_clean(as_json)  # json.dumps escapes C0; reos.text.json_safe DEL, C1 and bidi
    mine = [c for c in json.loads(as_json.stdout)["containers"] if c["name"] == hostile]
    assert mine and mine[0]["labels"]["note"] == HOSTILE_LABEL  # the data itself is intact


def test_snapshot_names_with_escapes_never_reach_the_terminal(hostile_snapshot: Path) -> None:
    for request in ("stop the evil container", "restart evil-web", "what is running"):
        done = run_reos("plan", "--dry-run", "--context", str(hostile_snapshot), request)
        assert_clean(done)
        assert done.returncode in (0, 2, 4), done.stderr
    as_json = run_reos("plan", "--json", "--context", str(hostile_snapshot),
                       "stop the evil container")
    assert_clean(as_json)
    json.loads(as_json.stdout)


def test_requests_with_escapes_get_a_clean_answer(hostile_snapshot: Path) -> None:
    request = f"stop the {ESC}]0;pwned-title{BEL}zz\u009b2Jqq containers"
    done = run_reos("plan", "--context", str(hostile_snapshot), request)
    assert_clean(done)
    assert done.stdout.strip()  # an answer was given, only without the sequences
    as_json = run_reos("plan", "--json", "--context", str(hostile_snapshot), request)
    assert_clean(as_json)
    assert json.loads(as_json.stdout)["request"] == request  # escaped, not lost


def test_journal_rows_are_cleaned_when_shown() -> None:
    # a row as an older reos, or an LLM-worded step, could have left it (real SQLite)
    journal = ReasoningEngine(Settings()).journal
    request = f"stop web{ESC}[2K{ESC}]0;pwned-title{BEL} now"
    tx = journal.begin(request)
    row = journal.begin_step(tx, 1, "s1", f"Stop web{ESC}]52;c;cHduZWQ={BEL}",
                             ["docker", "stop", "web"], action="stop",
                             target_kind="container", target_name="web",
                             prior_state={"state": "running"}, rollback=["docker", "start", "web"])
    journal.finish_step(row, "completed", 0, f"web{ESC}c\n")
    journal.finish(tx, "completed")
    history = run_reos("history")
    assert history.returncode == 0
    assert_clean(history)
    shown = history.stdout.decode()
    assert "stop web now" in shown and "Stop web" in shown and "pwned-title" not in shown
    as_json = run_reos("history", "--json")
    assert_clean(as_json)
    assert json.loads(as_json.stdout)["transactions"][0]["request"] == request


def test_rich_error_panel_shows_markup_and_escapes_as_text(tmp_path: Path) -> None:
    """On a terminal, errors are drawn by Rich: its markup must not be read from input."""
    missing = tmp_path / f"[bold red]nope[/]{ESC}]0;pwned-title{BEL}.json"
    leader, follower = pty.openpty()
    try:
        done = subprocess.run([str(REOS_BIN), "plan", "--context", str(missing), "stop x"],
                              stdout=subprocess.PIPE, stderr=follower, timeout=60,
                              env={**os.environ, "COLUMNS": "400", "TERM": "xterm"})
        os.close(follower)
        follower = -1
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: everything written has been read
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)
    assert done.returncode == 2
    seen = out.decode("utf-8", "replace")
    assert "\u256d" in seen or "\u250c" in seen  # the panel was drawn: Rich was in charge
    assert "[bold red]nope[/]" in seen  # shown literally, not as bold red
    assert "\x1b]" not in seen and BEL not in seen and "pwned-title" not in seen


@pytest.mark.docker
async def test_chat_screen_holds_no_raw_escape_from_logs(hostile: str) -> None:
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(140, 60)) as pilot:
        await settle(app, pilot)
        await type_line(pilot, f"show the logs of {hostile}")
        await settle(app, pilot)
        text = "\n".join(b.text for b in app.query(Bubble))
        assert all(piece in text for piece in SHOWN), text
        assert RAW.search(text) is None
        screen = app.export_screenshot()
        assert "after-title" in screen and RAW.search(screen) is None
        assert "pwned-title" not in screen


@pytest.mark.docker
def test_real_terminal_keeps_its_title_and_clipboard(hostile: str, reos_home: Path) -> None:
    need_tmux()
    cli = Terminal(reos_home, [str(REOS_BIN), "plan", f"show the logs of {hostile}"])
    try:
        deadline = time.monotonic() + 60
        while cli.alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "after-title" in cli.screen()
        assert cli.title() != "pwned-title" and cli.buffers() == ""
    finally:
        cli.close()
    chat = Terminal(reos_home)
    try:
        chat.wait_for("I can see ")
        chat.type(f"show the logs of {hostile}")
        chat.key("Enter")
        chat.wait_for("after-title")
        assert chat.title() != "pwned-title" and chat.buffers() == ""
        chat.key("C-q")
    finally:
        chat.close()
