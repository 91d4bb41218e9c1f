"""The command line: the one parser (every command, its options, its usage mistakes and
its help), what `main` does with a command's outcome, and the installed `reos`."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path

import pytest

from reos import cli, paths
from reos.errors import EXIT_BLOCKED, EXIT_USAGE, ReosError
from tests.conftest import FIXTURES, reos, reos_json

CONTEXT = str(FIXTURES / "homelab.json")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`reos ARGS` in this process: the exit status, stdout and stderr."""
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def cli_surface() -> dict[str, set[str]]:
    """Each command's options as the parser declares them ("": `reos` itself), without
    -h/--help, which every one has."""
    parser = cli.build_parser()

    def options(p: argparse.ArgumentParser) -> set[str]:
        return {o for a in p._actions for o in a.option_strings} - {"-h", "--help"}

    surface = {"": options(parser)}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            surface.update((name, options(sub)) for name, sub in action.choices.items())
    return surface


# -- the one parser: every command and option, and what each command's module receives --
def test_the_commands_and_options_are_the_ones_reos_has() -> None:
    assert cli_surface() == {
        "": {"--version"},
        "plan": {"--yes", "-y", "--dry-run", "--json", "--context", "--allow-other-host",
                 "--verbose", "--hosts", "--inventory", "-i", "--limit"},
        "undo": {"--json", "--yes", "-y", "--host"},
        "history": {"--json", "--limit"},
        "why": {"--json"}, "trace": {"--json"},
        "learned": {"--json", "--forget", "--summary"},
        "context": {"--json", "--llm"},
        "doctor": {"--json"},
        "check": {"--json"},
        "layers": {"--json", "--contract"},
        "hosts": {"--inventory", "-i", "--limit", "--check", "--json"},
        "shell-init": set(),
    }


PLAN_DEFAULTS = {"yes": False, "dry_run": False, "as_json": False, "context": None,
                 "allow_other_host": False, "verbose": False}
CALLS = [
    (["plan", "restart portainer"], "plan", (("restart portainer",), PLAN_DEFAULTS)),
    (["plan", "-y", "--dry-run", "--json", "--context", "box.json", "--allow-other-host",
      "--verbose", "stop it"], "plan",
     (("stop it",), {"yes": True, "dry_run": True, "as_json": True,
                     "context": Path("box.json"), "allow_other_host": True,
                     "verbose": True})),
    (["plan", "--context=box.json", "--yes", "x"], "plan",
     (("x",), {**PLAN_DEFAULTS, "context": Path("box.json"), "yes": True})),
    # after --, the request is taken literally, even when it looks like an option
    (["plan", "--json", "--", "-x is odd"], "plan",
     (("-x is odd",), {**PLAN_DEFAULTS, "as_json": True})),
    (["plan", "--", "--yes"], "plan", (("--yes",), PLAN_DEFAULTS)),
    (["plan", "--hosts", "web*", "-i", "inv.ini", "--limit", "web1", "--yes", "x"],
     "fleet_plan", (("x",), {"pattern": "web*", "inventory": Path("inv.ini"),
                             "limit": "web1", "yes": True, "dry_run": False,
                             "as_json": False})),
    (["undo"], "undo", ((), {"as_json": False, "yes": False, "host": None})),
    (["undo", "--json", "-y"], "undo", ((), {"as_json": True, "yes": True, "host": None})),
    (["undo", "--yes", "--host", "web2"], "undo",
     ((), {"as_json": False, "yes": True, "host": "web2"})),
    (["history"], "history", ((), {"as_json": False, "limit": 20})),
    (["history", "--limit", "5", "--json"], "history", ((), {"as_json": True, "limit": 5})),
    (["history", "--limit=1"], "history", ((), {"as_json": False, "limit": 1})),
    (["why"], "why", ((None,), {"as_json": False})),
    (["why", "3", "--json"], "why", ((3,), {"as_json": True})),
    (["trace", "--json", "12"], "why", ((12,), {"as_json": True})),
    (["learned"], "learned", ((), {"as_json": False, "forget": False, "summary": False})),
    (["learned", "--json", "--forget", "--summary"], "learned",
     ((), {"as_json": True, "forget": True, "summary": True})),
    (["context"], "context", ((), {"as_json": False, "llm": False})),
    (["context", "--json", "--llm"], "context", ((), {"as_json": True, "llm": True})),
    (["doctor"], "doctor", ((), {"as_json": False})),
    (["doctor", "--json"], "doctor", ((), {"as_json": True})),
    (["check", "rm -rf /"], "check", (("rm -rf /",), {"as_json": False})),
    (["check", "--json", "--", "-rf"], "check", (("-rf",), {"as_json": True})),
    (["layers"], "layers", ((None, None), {"as_json": False})),
    (["layers", "pkg", "--contract", "c.toml", "--json"], "layers",
     ((Path("pkg"), Path("c.toml")), {"as_json": True})),
    (["hosts"], "hosts", (("all",), {"inventory": None, "limit": None, "check": False,
                                      "as_json": False})),
    (["hosts", "-i", "inv.ini", "--limit", "db*", "--json", "all:!db1"], "hosts",
     (("all:!db1",), {"inventory": Path("inv.ini"), "limit": "db*", "check": False,
                      "as_json": True})),
    (["hosts", "--inventory=inv.yml", "--check", "web*"], "hosts",
     (("web*",), {"inventory": Path("inv.yml"), "limit": None, "check": True,
                  "as_json": False})),
    (["shell-init", "zsh"], "shell_init", (("zsh",), {})),
]


@pytest.mark.parametrize("args,module,call", CALLS, ids=[" ".join(c[0]) for c in CALLS])
def test_each_command_hands_its_options_to_its_module(
        args: list[str], module: str, call: tuple[tuple, dict],
        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    calls: list[tuple[tuple, dict]] = []
    target = importlib.import_module(f"reos.commands.{module}")
    monkeypatch.setattr(target, "run", lambda *a, **k: calls.append((a, k)) or 7)
    assert cli.main(args) == 7  # what the module returned is the exit status
    assert calls == [call]


def test_every_command_is_covered_above() -> None:
    assert {args[0] for args, _, _ in CALLS} == set(cli.COMMANDS) == set(cli_surface()) - {""}


def test_without_a_command_reos_starts_the_chat(monkeypatch: pytest.MonkeyPatch) -> None:
    import reos.tui.app

    monkeypatch.setattr(reos.tui.app, "run_tui", lambda: 9)
    assert cli.main([]) == 9


def test_version(capsys) -> None:
    from reos import __version__

    assert run(capsys, "--version") == (0, f"reos {__version__}\n", "")


def test_a_commands_own_parser_parses_its_lines_as_the_whole_parser_does(capsys) -> None:
    """`main` parses `reos plan …` with plan's parser alone; that must change nothing."""
    for args in [a for a, _, _ in CALLS] + [m[0] for m in MISTAKES]:
        if args[0] not in cli.COMMANDS:
            continue
        seen = []
        for parser, rest in ((cli.build_parser(), args),
                             (cli.command_parser(args[0]), args[1:])):
            try:
                parsed = vars(parser.parse_args(rest))
                parsed["run"] = parsed["run"].__qualname__
                seen.append(parsed)
            except SystemExit as stop:
                seen.append((stop.code, capsys.readouterr()))
        assert seen[0] == seen[1], args


# -- usage mistakes: the command's usage, what is wrong, where help is; exit 2 ------------
MISTAKES = [
    (["plan"], "reos plan", "the following arguments are required: REQUEST"),
    (["plan", "   "], "reos plan",
     "argument REQUEST: say what you want, e.g. reos plan \"restart nginx\""),
    (["plan", "--frobnicate", "restart portainer"], "reos plan",
     "unrecognized arguments: --frobnicate"),
    (["plan", "restart", "portainer"], "reos plan", "unrecognized arguments: portainer"),
    (["plan", "--dry", "x"], "reos plan", "unrecognized arguments: --dry"),  # no abbreviations
    (["plan", "x", "--context"], "reos plan", "argument --context: expected one argument"),
    (["plan", "--json=no", "x"], "reos plan", "argument --json: ignored explicit argument"),
    (["plan", "--version", "x"], "reos plan", "unrecognized arguments: --version"),
    (["undo", "--force"], "reos undo", "unrecognized arguments: --force"),
    (["history", "--limit", "0"], "reos history", "argument --limit: 0 is less than 1"),
    (["history", "--limit", "many"], "reos history",
     "argument --limit: 'many' is not a whole number"),
    (["why", "0"], "reos why", "argument TX: 0 is less than 1"),
    (["trace", "1", "2"], "reos trace", "unrecognized arguments: 2"),
    (["check"], "reos check", "the following arguments are required: COMMAND"),
    (["shell-init"], "reos shell-init", "the following arguments are required: SHELL"),
    (["layers", "a", "b"], "reos layers", "unrecognized arguments: b"),
    (["frob"], "reos", "argument COMMAND: invalid choice: 'frob'"),
    (["--frob"], "reos", "unrecognized arguments: --frob"),
    (["Plan", "x"], "reos", "argument COMMAND: invalid choice: 'Plan'"),
]


@pytest.mark.parametrize("args,prog,problem", MISTAKES,
                         ids=[" ".join(m[0]) for m in MISTAKES])
def test_a_usage_mistake_says_what_and_where_help_is(capsys, args: list[str], prog: str,
                                                     problem: str) -> None:
    code, out, err = run(capsys, *args)
    assert code == EXIT_USAGE == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith(f"usage: {prog} ")
    assert f"{prog}: error: {problem}" in err
    assert lines[-1] == f"Try '{prog} --help' for help."
    assert "Traceback" not in err


def test_an_unknown_command_is_told_the_commands_there_are(capsys) -> None:
    err = run(capsys, "frob")[2]
    assert "invalid choice: 'frob'" in err
    assert all(name in err for name in cli.COMMANDS)


def test_a_mistake_runs_nothing(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from reos.commands import plan

    monkeypatch.setattr(plan, "run", lambda *a, **k: pytest.fail("ran"))
    assert run(capsys, "plan", "--json", "--frobnicate", "restart portainer")[0] == 2


# -- help ---------------------------------------------------------------------------------
def test_reos_help_names_every_command(capsys) -> None:
    code, out, err = run(capsys, "--help")
    assert code == 0 and err == "" and out.startswith("usage: reos ")
    assert "--version" in out and "full-screen chat" in out
    for name in cli.COMMANDS:
        assert f"\n    {name} " in out or f"\n    {name}\n" in out, name


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_each_command_has_help_with_all_its_options(capsys, name: str) -> None:
    for flag in ("--help", "-h"):
        code, out, err = run(capsys, name, flag)
        assert code == 0 and err == ""
        assert out.startswith(f"usage: reos {name} ")
        description = cli.COMMANDS[name][0].split("\n\n")[0]
        assert " ".join(description.split()[:6]) in " ".join(out.split())
        for option in cli_surface()[name]:
            assert option in out, option


def test_help_keeps_a_descriptions_paragraphs(capsys) -> None:
    out = run(capsys, "doctor", "--help")[1]
    assert "sudo.\n\nChecks the settings file" in out


# -- what main does with what a command did ------------------------------------------------
def test_a_reos_error_is_printed_and_its_code_returned(monkeypatch, capsys) -> None:
    from reos.commands import doctor

    def fail(**_: object) -> int:
        raise ReosError("The engine is not there.", "Start it.", exit_code=EXIT_BLOCKED)

    monkeypatch.setattr(doctor, "run", fail)
    code, out, err = run(capsys, "doctor")
    assert code == 3 and out == ""
    assert err == "reos: The engine is not there.\n  Start it.\n"


def test_ctrl_c_is_130_without_a_traceback(monkeypatch, capsys) -> None:
    from reos.commands import history

    def interrupted(**_: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(history, "run", interrupted)
    code, out, err = run(capsys, "history")
    assert code == 130 and err == "\nInterrupted.\n"


# -- commands run through main ------------------------------------------------------------
def test_dry_run_never_runs(capsys) -> None:
    code, out, _ = run(capsys, "plan", "--dry-run", "--context", CONTEXT, "stop portainer")
    assert code == 0
    assert "1. Stop portainer" in out and "dry run" in out
    from reos.store.db import Database
    from reos.store.journal import Journal
    from reos.store.traces import Traces

    db = Database(paths.database_file())
    assert Journal(db).transactions() == []  # nothing was journaled, nothing ran
    assert Traces(db).latest().request == "stop portainer"  # type: ignore[union-attr]


def test_declining_at_the_prompt_changes_nothing(monkeypatch, capsys) -> None:
    monkeypatch.setattr("reos.commands.plan.interactive", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    code, out, _ = run(capsys, "plan", "--allow-other-host", "--context", CONTEXT,
                       "stop portainer")
    assert code == 5, out
    assert "Proceed? [y/N]: " in out and "Nothing was changed" in out
    assert _nothing_journaled()


def test_no_terminal_and_no_yes_means_not_run(capsys) -> None:
    code, _, err = run(capsys, "plan", "--allow-other-host", "--context", CONTEXT,
                       "stop portainer")
    assert code == 5 and "--yes" in err
    assert _nothing_journaled()


def _nothing_journaled() -> bool:
    """No transaction was written (the request's reasoning is kept all the same)."""
    from reos.store.db import Database
    from reos.store.journal import Journal

    return Journal(Database(paths.database_file())).transactions() == []


def test_check_exit_codes(capsys) -> None:
    assert run(capsys, "check", "ls -la")[0] == 0
    code, out, _ = run(capsys, "check", "--json", "rm -rf /")
    assert code == 3
    assert json.loads(out)["blocked"] is True


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


@pytest.mark.parametrize(("args", "said"), [
    (["plan", "--hosts", "web", "--context", "box.json", "x"], "--hosts reads each host"),
    (["plan", "-i", "inv.ini", "x"], "give --hosts PATTERN"),
    (["plan", "--limit", "web1", "x"], "give --hosts PATTERN"),
])
def test_host_options_without_hosts_or_with_a_snapshot_are_usage_errors(
        args: list[str], said: str, capsys) -> None:  # noqa: ANN001
    assert cli.main(args) == EXIT_USAGE
    assert said in capsys.readouterr().err
