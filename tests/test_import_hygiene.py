"""The core never imports the UI or the LLM client, and the fast CLI paths stay light.

Each check imports in a fresh interpreter and inspects sys.modules, so nothing earlier
in the test run can hide an import.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

CORE = ["reos.system.collectors", "reos.system.snapshot", "reos.system.state",
        "reos.planning.planner", "reos.understanding.reading", "reos.understanding.matcher",
        "reos.execution.executor", "reos.execution.undo", "reos.store.journal",
        "reos.safety.risk", "reos.engine"]
FORBIDDEN = ("textual", "ollama")
# what `reos plan --json` and `reos undo` must not load: the UI, the model client, the
# docker SDK and what it pulls in (socket, ssl), psutil, the bash grammar, the settings
# editor, asyncio (more than a tenth of the start-up budget), typer and click (reos has
# neither), shutil (argparse's help formatter would import it for the terminal's width;
# reos.cli finds the width itself), dataclasses: reos's records are msgspec Structs,
# made in C (a dataclass generates its methods from source when it is defined, about
# 0.6 ms each: 60 of them were a third of the start-up), and typing_extensions with the
# inspect module behind it (msgspec prefers it when installed; `reos/__init__` loads
# msgspec without it, a tenth of the start-up). argparse is allowed: it is the one
# command line parser, a few ms (bench/cold_start.py). Nor Ansible (ansible-core, and
# ansible-runner later): only reos/fleet/ imports it, inside its functions, for `reos hosts`
HEAVY = {"textual", "ollama", "typer", "click", "rich", "docker", "psutil", "requests",
         "tree_sitter", "tree_sitter_bash", "socket", "ssl", "asyncio", "tomlkit",
         "shutil", "logging", "dataclasses", "typing_extensions", "inspect", "ansible",
         "ansible_runner"}


def loaded_after(code: str) -> set[str]:
    script = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_neither_textual_nor_ollama(module: str) -> None:
    modules = loaded_after(f"import {module}")
    assert not [m for m in modules if m.split(".")[0] in FORBIDDEN]


def test_plan_json_with_context_path_stays_light(tmp_path) -> None:
    from tests.conftest import FIXTURES

    code = (
        "import os, io, contextlib\n"
        f"os.environ['REOS_HOME'] = {str(tmp_path)!r}\n"
        "from reos.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['plan', '--json', '--context', {str(FIXTURES / 'homelab.json')!r},"
        " 'restart portainer'])\n"
    )
    modules = loaded_after(code)
    assert not {m.split(".")[0] for m in modules} & HEAVY


def test_undo_path_stays_light(tmp_path) -> None:
    code = (
        "import os, io, contextlib\n"
        f"os.environ['REOS_HOME'] = {str(tmp_path)!r}\n"
        "from reos.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['undo', '--json'])\n"
    )
    modules = loaded_after(code)
    assert not {m.split(".")[0] for m in modules} & HEAVY


def test_the_parser_and_every_help_import_no_command_and_nothing_heavy() -> None:
    """Building the whole parser, parsing each command's line and printing every help
    text loads no command module, nothing of the engine, no UI and no database."""
    code = (
        "import contextlib, io\n"
        "from reos.cli import COMMANDS, build_parser\n"
        "build_parser().parse_args(['plan', '--json', 'restart portainer'])\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    for argv in [['--help']] + [[name, '--help'] for name in COMMANDS]:\n"
        "        try:\n"
        "            build_parser().parse_args(argv)\n"
        "        except SystemExit:\n"
        "            pass\n"
    )
    modules = loaded_after(code)
    assert "argparse" in modules and "textwrap" in modules  # the help really was formatted
    assert not [m for m in modules if m.startswith(("reos.commands", "reos.engine",
                                                    "reos.tui", "reos.store"))]
    assert not {m.split(".")[0] for m in modules} & (HEAVY | {"sqlite3"})


def test_nothing_in_reos_imports_typer_or_click() -> None:
    importing = re.compile(r"^\s*(import|from) (typer|click)\b", re.MULTILINE)
    assert not [str(p.relative_to(ROOT)) for p in (ROOT / "reos").rglob("*.py")
                if importing.search(p.read_text(encoding="utf-8"))]


def test_the_bash_grammar_is_loaded_only_where_shell_text_is_read() -> None:
    grammar = {"tree_sitter", "tree_sitter_bash"}
    argv = loaded_after("from reos.safety.risk import assess_argv\n"
                        "assess_argv(['ls', '-l', '/etc'])")
    assert not {m.split(".")[0] for m in argv} & grammar
    text = {m.split(".")[0] for m in loaded_after("from reos.safety.risk import assess\n"
                                                  "assess('ls -l /etc | wc -l')")}
    assert grammar <= text and "bashlex" not in text  # one reader, and only that one

# -- the model path (issue 11): ollama and httpx only when a model is actually asked ----------
ROOT = Path(__file__).resolve().parent.parent
MODEL_LIBS = {"ollama", "httpx"}


def unused_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def plan_with_model(home: Path, mode: str, request: str) -> tuple[set[str], dict]:
    """`reos plan --json` in a fresh interpreter with the model enabled ([llm] mode, host on
    an unused port, REOS_LLM unset); the modules loaded and the plan printed."""
    from tests.conftest import FIXTURES

    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text(
        f'[llm]\nenabled = true\nmode = "{mode}"\nhost = "http://127.0.0.1:{unused_port()}"\n'
        "timeout_seconds = 2\n")
    code = (
        "import os, io, json, sys, contextlib\n"
        "os.environ.pop('REOS_LLM', None)\n"
        f"os.environ['REOS_HOME'] = {str(home)!r}\n"
        "from reos.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):\n"
        "    try:\n"
        f"        main(['plan', '--json', '--context', {str(FIXTURES / 'homelab.json')!r},"
        f" {request!r}])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(json.dumps({'plan': out.getvalue(), 'modules': sorted(sys.modules)}))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "REOS_LLM"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env, timeout=60)
    found = json.loads(done.stdout.splitlines()[-1])
    return {m.split(".")[0] for m in found["modules"]}, json.loads(found["plan"])


def test_confident_request_in_auto_mode_never_imports_the_model_client(tmp_path) -> None:
    modules, plan = plan_with_model(tmp_path / "home", "auto", "restart portainer")
    assert plan["kind"] == "action"  # the plan was made, by the catalogue parser
    said = " ".join(step["said"] for step in plan.get("trace", [])
                    if step["stage"] == "model needed")
    assert said.startswith("no:") and "confident" in said
    assert not modules & MODEL_LIBS


def test_the_same_setup_does_import_the_client_when_the_model_is_asked(tmp_path) -> None:
    # the control for the test above: with mode "first" the model is asked (and, with no
    # server on that port, fallen back from), so ollama is loaded; the setup is not inert
    modules, plan = plan_with_model(tmp_path / "home", "first", "restart portainer")
    assert "ollama" in modules
    assert any(step["stage"] == "fell back" for step in plan.get("trace", []))
    assert plan["kind"] == "action"


def test_only_the_client_module_imports_ollama() -> None:
    importing = re.compile(r"^\s*(import ollama\b|from ollama\b)", re.MULTILINE)
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "reos").rglob("*.py")
                   if importing.search(p.read_text(encoding="utf-8")))
    assert found == ["reos/llm/client.py"]


def test_undo_never_imports_the_llm_package(tmp_path) -> None:
    code = (
        "import os, io, contextlib\n"
        "os.environ.pop('REOS_LLM', None)\n"
        f"os.environ['REOS_HOME'] = {str(tmp_path)!r}\n"
        "from reos.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['undo', '--json'])\n"
    )
    modules = loaded_after(code)
    assert "reos" in {m.split(".")[0] for m in modules}  # the CLI did load
    assert not [m for m in modules if m == "reos.llm" or m.startswith("reos.llm.")]
    assert not {m.split(".")[0] for m in modules} & MODEL_LIBS


def test_a_command_start_is_not_spent_collecting_garbage(tmp_path) -> None:
    """`reos plan` makes a few hundred thousand objects that live as long as it does: at
    the collector's default thresholds it ran 45 collections walking them (about 10 ms)."""
    from tests.conftest import FIXTURES

    code = (
        "import gc, io, os, contextlib\n"
        f"os.environ['REOS_HOME'] = {str(tmp_path)!r}\n"
        "from reos.cli import main\n"
        "runs = []\n"
        "gc.callbacks.append(lambda phase, info: runs.append(info) if phase == 'stop' "
        "else None)\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['plan', '--json', '--context', {str(FIXTURES / 'homelab.json')!r},"
        " 'restart portainer'])\n"
        "print(len(runs))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert int(done.stdout.splitlines()[-1]) <= 2
