"""Nothing runs unasked unless the read-only grammar proves it only reads, and undo runs
only what reos would have written: in the Debian bed, through the installed `reos plan`
and `reos undo`, with the fake Ollama (tests/fake_ollama.py, started inside the bed,
which has no network) proposing each command as the model's answer to a question.

A question never gets a command that changes anything (the model's answer is refused and
reos answers with its own understanding), so each attack is asked as an action, where the
command becomes a plan that needs approval, and `reos plan` is run as a person without a
terminal to approve on. Each attack ends with nothing changed, compared before and after:
/etc/shadow's hash, the files an executed payload would create, a loop device's partition
table, a stopped service. The payloads run only inside the bed container.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("bed")

HOME = "/tmp/reos-policy-home"
ANSWER = "/tmp/model-answer.json"
PORT = 11434


@pytest.fixture(scope="module")
def model(bed):  # noqa: ANN001, ANN201
    """The fake Ollama inside the bed, and reos's settings pointing at it."""
    source = (Path(__file__).parent / "fake_ollama.py").read_text()
    bed.run("python3", "-c", "import sys; open('/opt/fake_ollama.py', 'w').write(sys.argv[1])",
            source, check=True)
    bed.run("python3", "-c", "import json, sys; open(sys.argv[1], 'w').write(sys.argv[2])",
            ANSWER, "{}", check=True)
    bed.run("mkdir", "-p", f"{HOME}/config", check=True)
    settings = f'[llm]\nhost = "http://127.0.0.1:{PORT}"\nmode = "first"\n' \
               'timeout_seconds = 20\n'
    bed.run("python3", "-c", "import sys; open(sys.argv[1], 'w').write(sys.argv[2])",
            f"{HOME}/config/settings.toml", settings, check=True)
    started = bed.run("sh", "-c", f"nohup python3 /opt/fake_ollama.py --port {PORT} "
                      f"--answer {ANSWER} >/tmp/fake-ollama.log 2>&1 &")
    assert started.returncode == 0, started.stderr
    for _ in range(50):
        if bed.run("python3", "-c", "import urllib.request, sys; urllib.request.urlopen("
                   f"'http://127.0.0.1:{PORT}/api/version', timeout=1)").returncode == 0:
            break
        time.sleep(0.2)
    else:
        pytest.fail("the fake Ollama did not start in the bed: "
                    + bed.run("cat", "/tmp/fake-ollama.log").stdout)
    yield bed
    bed.run("pkill", "-f", "/opt/fake_ollama.py")


def propose(bed, argv: list[str]) -> None:  # noqa: ANN001
    """What the model answers next: a command no operation covers, said to only read."""
    answer = {"thought": "no operation covers it", "kind": "query", "op": "command",
              "command": {"argv": argv, "purpose": "answer the question", "read_only": True},
              "confidence": 0.95}
    bed.run("python3", "-c", "import sys; open(sys.argv[1], 'w').write(sys.argv[2])",
            ANSWER, json.dumps(answer), check=True)


def ask(bed, request: str, *extra: str) -> tuple[int, dict]:  # noqa: ANN001
    """`reos plan` as root, with no terminal to approve on: (exit code, its JSON)."""
    done = bed.run("/opt/reos/bin/reos", "plan", *extra, "--json", request,
                   env={"REOS_HOME": HOME})
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}


def ran(bed, request: str) -> str:  # noqa: ANN001
    """`reos plan REQUEST` as a person would type it (no --yes, no terminal)."""
    done = bed.run("/opt/reos/bin/reos", "plan", request, env={"REOS_HOME": HOME})
    return done.stdout + done.stderr


def digest(bed, path: str) -> str:  # noqa: ANN001
    return bed.run("sha256sum", path, check=True).stdout.split()[0]


def test_an_abbreviated_option_that_writes_does_not_run(model) -> None:  # noqa: ANN001
    before = digest(model, "/etc/shadow")
    propose(model, ["sort", "--ou=/etc/shadow", "/dev/null"])
    _code, plan = ask(model, "sort the empty list for me")
    assert plan["blocked"] and "/etc/shadow" in plan["blocked_reason"], plan
    out = ran(model, "sort the empty list for me")
    assert digest(model, "/etc/shadow") == before, out
    model.run("rm", "-f", "/tmp/sorted")
    propose(model, ["sort", "--ou=/tmp/sorted", "/etc/hostname"])
    _code, plan = ask(model, "sort the host name into a file")
    assert plan["needs_approval"] and not plan["blocked"], plan
    assert "`--ou` is `--output`" in plan["message"], plan["message"]
    ran(model, "sort the host name into a file")
    assert model.run("test", "-e", "/tmp/sorted").returncode == 1
    history = model.run("/opt/reos/bin/reos", "history", "--json",
                        env={"REOS_HOME": HOME}).stdout
    assert "sort" not in history  # nothing was run, so nothing was journaled


def test_a_hidden_exec_option_does_not_run(model) -> None:  # noqa: ANN001
    model.run("sh", "-c", "rm -f /tmp/pwned && tar -cf /tmp/a.tar -C /etc hostname",
              check=True)
    propose(model, ["tar", "--to-command=touch /tmp/pwned", "-tf", "/tmp/a.tar"])
    _code, plan = ask(model, "go through the archive a.tar")
    assert plan["needs_approval"] and not plan["blocked"], plan
    ran(model, "go through the archive a.tar")
    assert model.run("test", "-e", "/tmp/pwned").returncode == 1


@pytest.mark.parametrize("program", ["/tmp/x/bin/ls", "./ls"])
def test_a_program_outside_the_system_folders_does_not_run(model, program: str) -> None:  # noqa: ANN001
    model.run("sh", "-c", "rm -f /tmp/pwned2 && mkdir -p /tmp/x/bin && "
              "printf '#!/bin/sh\\ntouch /tmp/pwned2\\n' > /tmp/x/bin/ls && "
              "chmod +x /tmp/x/bin/ls && cp /tmp/x/bin/ls /ls", check=True)
    propose(model, [program, "/etc"])
    _code, plan = ask(model, "run the listing of /etc")
    assert plan.get("needs_approval") or plan.get("blocked"), plan
    ran(model, "run the listing of /etc")
    assert model.run("test", "-e", "/tmp/pwned2").returncode == 1


def test_a_partition_table_is_left_alone(model) -> None:  # noqa: ANN001
    image = "/tmp/reos-parts.img"
    model.run("sh", "-c", f"truncate -s 16M {image} && echo ',8M' | sfdisk -q {image}",
              check=True)
    free = model.run("losetup", "-f")
    device = free.stdout.strip()
    if free.returncode != 0 or not device.startswith("/dev/loop"):
        pytest.skip(f"no free loop device in the bed: {free.stderr.strip()}")
    if model.run("test", "-e", device).returncode != 0:
        model.run("mknod", device, "b", "7", device.removeprefix("/dev/loop"))
    if model.run("losetup", device, image).returncode != 0:
        pytest.skip("the bed cannot attach a loop device")
    try:
        before = model.run("sfdisk", "-d", device, check=True).stdout
        propose(model, ["sfdisk", "--list", "--delete", device])
        _code, plan = ask(model, f"go over the partitions of {device}")
        assert plan.get("needs_approval") or plan.get("blocked"), plan
        ran(model, f"go over the partitions of {device}")
        assert model.run("sfdisk", "-d", device, check=True).stdout == before
    finally:
        model.run("losetup", "-d", device)
        model.run("rm", "-f", image)


def test_a_read_only_command_the_grammar_proves_runs_and_answers(model) -> None:  # noqa: ANN001
    propose(model, ["sort", "-r", "/etc/hostname"])
    out = ran(model, "what is the host name, sorted backwards?")
    assert "reos-bed" in out, out


def test_a_tampered_rollback_row_is_refused_and_nothing_runs(model) -> None:  # noqa: ANN001
    bed = model
    bed.run("systemctl", "start", "nginx", check=True)
    done = bed.run("/opt/reos/bin/reos", "plan", "--yes", "stop nginx",
                   env={"REOS_HOME": HOME, "REOS_LLM": "off"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert bed.state("nginx.service")[0] == "inactive"
    bed.run("rm", "-f", "/tmp/pwned3")
    tamper = ("import json, sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
              "c.execute('update steps set rollback = ? where rollback is not null', "
              "(json.dumps(['sh', '-c', 'touch /tmp/pwned3']),)); c.commit()")
    bed.run("python3", "-c", tamper, f"{HOME}/data/reos.db", check=True)
    done = bed.run("/opt/reos/bin/reos", "undo", "--yes",
                   env={"REOS_HOME": HOME, "REOS_LLM": "off"})
    out = done.stdout + done.stderr
    assert bed.run("test", "-e", "/tmp/pwned3").returncode == 1, out
    assert bed.state("nginx.service")[0] == "inactive", out  # nothing else ran either
    assert "not the undo reos works out" in out, out
    assert "Done! Undid" not in out


def test_the_data_folder_is_private(model) -> None:  # noqa: ANN001
    mode = model.run("stat", "-c", "%a", f"{HOME}/data").stdout.strip()
    db = model.run("stat", "-c", "%a", f"{HOME}/data/reos.db").stdout.strip()
    assert (mode, db) == ("700", "600")
