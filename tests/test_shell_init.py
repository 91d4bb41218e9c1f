"""`reos shell-init`: the snippets in real shells (bash, zsh, fish) in a pseudo-terminal.

Alt+R must hand the typed line to `reos plan` as one argument that no shell parses, and
the commands reos ran must reach the shell's history. The key-binding tests put a fake
`reos` first on PATH that records its argv (the snippet calls `reos` by name); the docker
tests run the installed reos for real, through `plan --yes` and through Alt+R.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reos import cli
from reos.commands.shell_init import HISTORY_ENV, SNIPPETS, record_ran
from reos.model.plan import Step
from reos.model.report import ExecutionReport
from tests.conftest import REOS_BIN, Containers, reos

pexpect = pytest.importorskip("pexpect", reason="pexpect drives the shells (test extra)")

PROMPT = "READY> "
# every shell metacharacter that could run something if the line were parsed
LINE = ("is nginx running; touch PWNED1 $(touch PWNED2) `touch PWNED3` | tee PWNED4 "
        "&& \"dq\" 'sq' back\\slash \\n ${HOME} end")
# what the fake reos says it ran: quoting, a backslash, a $(...) that must stay text
RAN = ["docker restart 'web 1'", "printf '%s\\n' \"a\\\\b\" '$(touch PWNED5)'"]
SHELLS = ["bash", "zsh", "fish"]
RAN_TEXT = json.dumps("".join(line + "\n" for line in RAN))

FAKE_REOS = f"""#!{sys.executable}
import json, os, sys
json.dump({{"argv": sys.argv[1:], "history": os.environ.get("{HISTORY_ENV}")}},
          open(os.environ["FAKE_REOS_OUT"], "w"))
with open(os.environ["{HISTORY_ENV}"], "a") as out:
    out.write({RAN_TEXT})
"""


def needs(shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed here (apt-get install -y {shell})")


def snippet_file(tmp_path: Path, shell: str) -> Path:
    """The snippet as the installed `reos shell-init` prints it, `reos` on PATH (so the
    snippet calls it by name, and the shells below find the fake one first)."""
    done = reos("shell-init", shell, env={"PATH": f"{REOS_BIN.parent}{os.pathsep}"
                                                  f"{os.environ['PATH']}"})
    assert done.returncode == 0, done.stderr
    path = tmp_path / f"reos.{shell}"
    path.write_text(done.stdout)
    return path


class Shell:
    """An interactive shell in a pseudo-terminal with the snippet loaded and its own
    home, history file and TMPDIR under `root`."""

    DONE = {"bash": "echo DONE-$((40+2))", "zsh": "echo DONE-$((40+2))",
            "fish": "echo DONE-(math 40+2)"}
    HISTORY = {"bash": "HISTTIMEFORMAT= builtin history", "zsh": "fc -ln 1",
               "fish": "builtin history --reverse"}

    def __init__(self, shell: str, root: Path, path: str) -> None:
        self.shell, self.root = shell, root
        home, self.tmp = root / "home", root / "tmp"
        home.mkdir()
        self.tmp.mkdir()
        snippet = snippet_file(root, shell)
        env = {"PATH": path, "HOME": str(home), "TERM": "xterm", "TMPDIR": str(self.tmp),
               "FAKE_REOS_OUT": str(root / "argv.json"), "LANG": "C.UTF-8",
               "REOS_HOME": os.environ["REOS_HOME"], "REOS_LLM": "off"}
        if shell == "bash":
            rc = root / "bashrc"
            rc.write_text(f"PS1='{PROMPT}'\nHISTFILE={home}/.bash_history\n"
                          f"source {snippet}\n")
            argv = ["bash", "--noprofile", "--rcfile", str(rc), "-i"]
        elif shell == "zsh":
            (home / ".zshrc").write_text(
                f"PS1='{PROMPT}'\nHISTFILE={home}/.zsh_history\nHISTSIZE=100\n"
                f"SAVEHIST=100\nsource {snippet}\n")
            env["ZDOTDIR"] = str(home)
            argv = ["zsh", "-i"]
        else:
            config = home / ".config" / "fish"
            config.mkdir(parents=True)
            (config / "config.fish").write_text(
                f"function fish_prompt; echo -n '{PROMPT}'; end\n"
                "set -g fish_greeting\n"
                f"source {snippet}\n")
            env.update(XDG_CONFIG_HOME=str(home / ".config"),
                       XDG_DATA_HOME=str(home / ".local" / "share"))
            argv = ["fish", "-i"]
        self.child = pexpect.spawn(argv[0], argv[1:], env=env, cwd=str(root),
                                   encoding="utf-8", timeout=60, dimensions=(50, 250))
        self.child.expect_exact(PROMPT)

    def wait(self) -> None:
        """Until everything typed so far has run: a marker only a run command prints."""
        self.child.sendline(self.DONE[self.shell])
        self.child.expect_exact("DONE-42")
        self.child.expect_exact(PROMPT)

    def alt_r(self, line: str) -> None:
        self.child.send(line)
        self.child.send("\x1br")  # Alt+R as a terminal sends it: ESC r

    def history(self) -> list[str]:
        out = self.root / "history.txt"
        self.child.sendline(f"{self.HISTORY[self.shell]} > {out}")
        self.wait()
        lines = out.read_text().splitlines()
        if self.shell == "bash":  # "  12  command"
            lines = [line.strip().split(None, 1)[1] for line in lines if line.strip()]
        return lines

    def close(self) -> None:
        self.child.sendline("exit")
        self.child.expect(pexpect.EOF)
        self.child.close()


@pytest.fixture
def fake_reos_path(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "reos"
    fake.write_text(FAKE_REOS)
    fake.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.parametrize("shell", SHELLS)
def test_alt_r_sends_the_line_as_one_argument_and_history_gets_what_ran(
        shell: str, tmp_path: Path, fake_reos_path: str) -> None:
    needs(shell)
    session = Shell(shell, tmp_path, fake_reos_path)
    session.alt_r(LINE)
    session.wait()

    called = json.loads((tmp_path / "argv.json").read_text())
    assert called["argv"] == ["plan", "--", LINE]  # exactly what was typed, one argument
    assert not list(tmp_path.glob("PWNED*")) and not list(Path.cwd().glob("PWNED*"))
    assert called["history"] and Path(called["history"]).parent == session.tmp
    assert not Path(called["history"]).exists()  # the snippet removed it
    assert list(session.tmp.glob("reos-history*")) == []

    history = session.history()
    session.close()
    at = history.index(RAN[0])
    assert history[at:at + 2] == RAN  # each ran command, as written, in order
    asked = history[at - 1]  # Up recalls the request, quoted for this shell
    assert asked.startswith("reos plan -- ")
    assert not any("__reos_plan" in line for line in history)
    assert not list(tmp_path.glob("PWNED*"))


@pytest.mark.parametrize("shell", SHELLS)
def test_alt_r_on_an_empty_line_calls_nothing(shell: str, tmp_path: Path,
                                              fake_reos_path: str) -> None:
    needs(shell)
    session = Shell(shell, tmp_path, fake_reos_path)
    session.alt_r("   ")
    session.child.send("\x15")  # ctrl+u: clear whatever is left on the line
    session.wait()
    session.close()
    assert not (tmp_path / "argv.json").exists()


@pytest.mark.parametrize("shell", SHELLS)
def test_each_snippet_is_valid_in_its_shell(shell: str, tmp_path: Path) -> None:
    needs(shell)
    path = snippet_file(tmp_path, shell)
    check = {"bash": ["bash", "-n", str(path)], "zsh": ["zsh", "-n", str(path)],
             "fish": ["fish", "--no-execute", str(path)]}[shell]
    import subprocess

    done = subprocess.run(check, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "reos plan --" in path.read_text()


def test_an_unknown_shell_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["shell-init", "tcsh"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "tcsh" in err and "bash, zsh, fish" in err
    assert cli.main(["shell-init", "zsh"]) == 0
    assert capsys.readouterr().out == SNIPPETS["zsh"]


# -- what reos plan writes ---------------------------------------------------------------

def _report(*argvs: list[str]) -> ExecutionReport:
    steps = [Step(id=str(n), title="step", argv=argv) for n, argv in enumerate(argvs, 1)]
    return ExecutionReport(tx_id=1, completed=steps)


def test_record_ran_writes_each_completed_command_cleaned_one_a_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "ran"
    target.write_text("")
    monkeypatch.setenv(HISTORY_ENV, str(target))
    report = _report(["docker", "restart", "web 1"],
                     ["echo", "\x1b]0;owned\x07title\x1b[2K", "it's"],
                     ["printf", "a\nb"])  # spans two lines: cannot be one history line
    report.failed = Step(id="9", title="failed", argv=["systemctl", "restart", "db"])
    record_ran(report)
    assert target.read_text().splitlines() == [
        "docker restart 'web 1'", "echo title 'it'\"'\"'s'"]


def test_record_ran_without_the_variable_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(HISTORY_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    record_ran(_report(["docker", "restart", "web"]))
    assert list(tmp_path.iterdir()) == []


def test_record_ran_that_cannot_write_says_so_without_a_traceback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(HISTORY_ENV, str(tmp_path))  # a directory
    record_ran(_report(["docker", "restart", "web"]))
    assert "couldn't add the ran commands to the shell's history" in capsys.readouterr().err


# -- the real reos -----------------------------------------------------------------------

@pytest.mark.docker
def test_plan_writes_what_it_ran_and_a_dry_run_writes_nothing(
        containers: Containers, tmp_path: Path) -> None:
    name = containers.run("web")
    ran = tmp_path / "ran"
    ran.write_text("")
    env = {HISTORY_ENV: str(ran)}

    dry = reos("plan", "--dry-run", f"restart {name}", env=env)
    assert dry.returncode == 0, dry.stderr
    assert ran.read_text() == ""

    done = reos("plan", "--json", "--yes", f"restart {name}", env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    commands = {s["id"]: s["command"] for s in data["steps"]}
    expected = [commands[i] for i in data["execution"]["completed"]]
    assert expected and any(name in c for c in expected)
    assert ran.read_text().splitlines() == expected


@pytest.mark.docker
def test_alt_r_in_bash_runs_the_real_plan_after_yes_and_history_gets_its_command(
        containers: Containers, tmp_path: Path) -> None:
    name = containers.run("web")
    path = f"{REOS_BIN.parent}{os.pathsep}{os.environ['PATH']}"
    session = Shell("bash", tmp_path, path)
    session.alt_r(f"restart {name}")
    session.child.expect_exact("Proceed? [y/N]")
    session.child.sendline("y")
    session.wait()
    history = session.history()
    session.close()
    restart = f"docker restart {shlex.quote(name)}"
    assert restart in history
    assert history[history.index(restart) - 1] == f"reos plan -- 'restart {name}'"


def test_the_snippet_works_before_reos_is_on_path(tmp_path: Path) -> None:
    """A newcomer runs `.venv/bin/reos shell-init bash` before adding the venv to PATH:
    the snippet calls that program by its full path, and Alt+R's function reaches it."""
    bare = {**os.environ, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    snippet = subprocess.run([str(REOS_BIN), "shell-init", "bash"], capture_output=True,
                             text=True, env=bare, timeout=60).stdout
    assert f"command {REOS_BIN.resolve()} plan -- " in snippet
    script = 'eval "$1"; __reos_request="what can you do"; __reos_plan'
    done = subprocess.run(["bash", "-c", script, "bash", snippet], capture_output=True,
                          text=True, env=bare, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "command not found" not in done.stderr and "I can" in done.stdout
