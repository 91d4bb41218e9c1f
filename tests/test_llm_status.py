"""The model's status in words: `reos doctor`, `reos context --llm`, `reos plan --verbose`.

The installed `reos` runs as a subprocess against the fake Ollama server on loopback
(tests/fake_ollama.py), with a settings file in this test's REOS_HOME pointing [llm] at
it, and REOS_LLM unset for the child (the suite sets it to "off" for everything else).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, reos
from tests.fake_ollama import FakeOllama

CONTEXT = str(FIXTURES / "homelab.json")
MODEL_ON = {"REOS_LLM": ""}  # settings.llm_forced_off() reads "" as not off
THOUGHT = "the person wants portainer restarted"
ANSWER = json.dumps({"thought": THOUGHT, "kind": "action", "op": "container.restart",
                     "targets": ["portainer"], "confidence": 0.9})


def configure(home: Path, host: str, extra: str = "") -> None:
    config = home / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text(f'[llm]\nhost = "{host}"\n{extra}')


def unused_url() -> str:
    with FakeOllama() as gone:
        url = gone.url
    return url  # stopped: nothing listens on that port any more


# -- reos doctor -------------------------------------------------------------------------

def test_doctor_with_the_model_pulled_says_version_models_and_round_trip(
        reos_home: Path, fake_ollama: FakeOllama) -> None:
    configure(reos_home, fake_ollama.url)
    done = reos("doctor", "--json", env=MODEL_ON)
    data = json.loads(done.stdout)
    llm = data["llm"]
    assert llm["state"] == "ok" and llm["enabled"] is True
    assert llm["version"] == "0.12.6" and llm["models"] == ["llama3.2:latest"]
    assert llm["has_model"] is True and llm["context_length"] == 131072
    assert isinstance(llm["rtt_ms"], float)
    assert data["settings"]["file"] == str(reos_home / "config" / "settings.toml")
    assert {data[c]["state"] for c in ("docker", "sudo")} <= {"ok", "problem", "off"}
    # the exit status is the verdict over all checks, whatever docker and sudo do here
    assert data["ok"] == all(data[c]["state"] != "problem"
                             for c in ("settings", "llm", "docker", "sudo"))
    assert done.returncode == (0 if data["ok"] else 1)

    text = reos("doctor", env=MODEL_ON)
    assert "The Ollama server answers (version 0.12.6," in text.stdout
    assert "ms round trip" in text.stdout and "Models on it: llama3.2:latest." in text.stdout
    assert "llama3.2 is there, with a context length of 131,072 tokens" in text.stdout
    assert text.returncode == done.returncode and not text.stderr


def test_doctor_exit_status_is_0_only_when_every_check_works(
        reos_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        fake_ollama: FakeOllama) -> None:
    from reos.commands import doctor

    monkeypatch.delenv("REOS_LLM")
    configure(reos_home, fake_ollama.url)
    monkeypatch.setattr(doctor, "_docker_check",
                        lambda: doctor.Check("docker", doctor.OK, ["answers"]))
    monkeypatch.setattr(doctor, "_sudo_check",
                        lambda: doctor.Check("sudo", doctor.OK, ["works"]))
    assert doctor.run() == 0
    assert "Everything reos uses works." in capsys.readouterr().out
    configure(reos_home, fake_ollama.url, 'model = "qwen2.5"\n')
    assert doctor.run() == 1
    assert "Not everything works: llm" in capsys.readouterr().out


def test_doctor_says_to_pull_a_missing_model(reos_home: Path) -> None:
    with FakeOllama(models=("qwen2.5",)) as fake:
        configure(reos_home, fake.url)
        done = reos("doctor", env=MODEL_ON)
        data = json.loads(reos("doctor", "--json", env=MODEL_ON).stdout)
    assert done.returncode == 1
    assert "Models on it: qwen2.5:latest." in done.stdout
    assert "Run `ollama pull llama3.2`" in done.stdout
    assert data["llm"]["state"] == "problem" and data["llm"]["has_model"] is False
    assert data["ok"] is False


def test_doctor_with_no_server_says_so_plainly(reos_home: Path) -> None:
    url = unused_url()
    configure(reos_home, url)
    done = reos("doctor", env=MODEL_ON)
    assert done.returncode == 1
    assert f"No Ollama server answers at {url}." in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    data = json.loads(reos("doctor", "--json", env=MODEL_ON).stdout)
    assert data["llm"]["reachable"] is False and data["llm"]["state"] == "problem"


@pytest.mark.parametrize("extra, env, why", [
    ("enabled = false\n", MODEL_ON, "[llm] enabled = false"),
    ('mode = "off"\n', MODEL_ON, '[llm] mode = "off"'),
    ("", {"REOS_LLM": "off"}, "REOS_LLM=off"),
])
def test_doctor_with_the_model_off_contacts_no_server(
        reos_home: Path, fake_ollama: FakeOllama, extra: str, env: dict[str, str],
        why: str) -> None:
    configure(reos_home, fake_ollama.url, extra)
    done = reos("doctor", "--json", env=env)
    llm = json.loads(done.stdout)["llm"]
    assert llm["state"] == "off" and llm["enabled"] is False and why in llm["why"]
    assert "contacts no server" in llm["said"][0]
    assert fake_ollama.requests == []


# -- reos context --llm ------------------------------------------------------------------

def test_context_json_has_llm_only_when_asked(reos_home: Path,
                                              fake_ollama: FakeOllama) -> None:
    configure(reos_home, fake_ollama.url)
    plain = json.loads(reos("context", "--json", env=MODEL_ON).stdout)
    assert "llm" not in plain and fake_ollama.requests == []
    asked = json.loads(reos("context", "--json", "--llm", env=MODEL_ON).stdout)
    assert asked["schema"] == plain["schema"]
    llm = asked["llm"]
    assert llm["enabled"] is True and llm["reachable"] is True
    assert llm["version"] == "0.12.6" and llm["has_model"] is True
    assert {r["path"] for r in fake_ollama.requests} >= {"/api/version", "/api/tags"}
    off = json.loads(reos("context", "--json", "--llm").stdout)  # REOS_LLM=off from conftest
    assert off["llm"]["enabled"] is False


# -- reos plan --verbose -----------------------------------------------------------------

def test_plan_verbose_prints_stages_on_stderr_and_leaves_stdout_alone() -> None:
    args = ("plan", "--json", "--context", CONTEXT, "restart portainer")
    quiet = reos(*args)
    loud = reos("plan", "--verbose", *args[1:])
    assert loud.returncode == quiet.returncode == 0
    assert json.loads(loud.stdout) == json.loads(quiet.stdout)
    lines = loud.stderr.splitlines()
    assert lines[0].startswith("\u00b7 understanding: I read it myself: action "
                               "container.restart portainer") and lines[0].endswith(" ms)")
    assert "\u00b7 model needed: no: the model is switched off" in loud.stderr
    assert any(line.startswith("\u00b7 judging risk: 1 step(s), risk medium") for line in lines)
    assert "\u00b7" not in quiet.stderr


def test_plan_verbose_shows_the_model_asked_and_its_last_thought(
        reos_home: Path, fake_ollama: FakeOllama) -> None:
    configure(reos_home, fake_ollama.url, 'mode = "first"\n')
    fake_ollama.default = lambda body: ANSWER
    args = ("--json", "--context", CONTEXT, "restart portainer")
    loud = reos("plan", "--verbose", *args, env=MODEL_ON)
    quiet = reos("plan", *args, env=MODEL_ON)
    assert loud.returncode == quiet.returncode == 0
    assert f"\u00b7 asking the model: llama3.2 at {fake_ollama.url}" in loud.stderr
    # the thought streams in pieces; one line shows the whole of it, once
    assert loud.stderr.count("\u00b7 model: the person") == 1
    assert f"\u00b7 model: {THOUGHT}\n" in loud.stderr
    assert "\u00b7 model answered: " in loud.stderr
    shown, plain = json.loads(loud.stdout), json.loads(quiet.stdout)
    assert shown["source"] == plain["source"] == "llm"
    # only the model's timing differs between two runs
    untimed = [{k: v for k, v in d.items() if k != "trace"} for d in (shown, plain)]
    assert untimed[0] == untimed[1]
    assert [t["stage"] for t in shown["trace"]] == [t["stage"] for t in plain["trace"]]


# -- when the model cannot be used --------------------------------------------------------

def test_a_plan_without_its_model_says_why_and_json_carries_source_and_trace(
        reos_home: Path) -> None:
    with FakeOllama(models=("qwen2.5",)) as fake:
        configure(reos_home, fake.url, 'mode = "first"\n')
        data = json.loads(reos("plan", "--json", "--context", CONTEXT, "restart portainer",
                               env=MODEL_ON).stdout)
        answered = reos("plan", "list the users", env=MODEL_ON)  # a query answered at once
    sentence = "The model llama3.2 is not on the Ollama server"
    assert data["source"] == "catalogue"
    assert data["message"].startswith(sentence)
    assert any(t["stage"] == "fell back" and sentence in t["said"] for t in data["trace"])
    assert answered.returncode == 0
    assert answered.stdout.startswith(sentence)
    assert "root" in answered.stdout  # and the answer itself follows
