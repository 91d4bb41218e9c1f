"""The core never imports the UI or the LLM client, and the fast CLI paths stay light.

Each check imports in a fresh interpreter and inspects sys.modules, so nothing earlier
in the test run can hide an import.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CORE = ["reos.system.collectors", "reos.system.snapshot", "reos.system.state",
        "reos.reasoning.planner", "reos.reasoning.understanding", "reos.reasoning.matcher",
        "reos.execution.executor", "reos.execution.undo", "reos.store.journal",
        "reos.safety.risk", "reos.engine"]
FORBIDDEN = ("textual", "ollama")


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
    heavy = {"textual", "ollama", "typer", "rich", "docker", "psutil", "requests", "bashlex"}
    assert not {m.split(".")[0] for m in modules} & heavy


def test_undo_path_stays_light(tmp_path) -> None:
    code = (
        "import os, io, contextlib\n"
        f"os.environ['REOS_HOME'] = {str(tmp_path)!r}\n"
        "from reos.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['undo', '--json'])\n"
    )
    modules = loaded_after(code)
    assert not {m.split(".")[0] for m in modules} & {"textual", "ollama", "typer", "rich",
                                                      "docker", "psutil"}
