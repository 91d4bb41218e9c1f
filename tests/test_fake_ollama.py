"""The fake Ollama server speaks Ollama's API: proven with the real `ollama` client.

Not tests of reos itself; they guard the fake that reos's LLM tests stand on.
"""

from __future__ import annotations

import json
import socket
import threading

import httpx
import ollama
import pytest

from tests.fake_ollama import FakeOllama

SCHEMA = {"type": "object", "properties": {"verb": {"type": "string"}}, "required": ["verb"]}
ASK = [{"role": "user", "content": "restart nginx"}]


def client(fake: FakeOllama, timeout: float = 5) -> ollama.Client:
    return ollama.Client(host=fake.url, timeout=timeout)


def test_streamed_chat_arrives_in_chunks_then_a_done_line_with_stats(fake_ollama):
    fake_ollama.reply('{"verb": "restart"}', chunk=5)
    parts = list(client(fake_ollama).chat("llama3.2", messages=ASK, stream=True, format=SCHEMA,
                                          options={"temperature": 0, "num_ctx": 8192}))
    *pieces, last = parts
    assert [p.message.content for p in pieces] == ['{"ver', 'b": "', 'resta', 'rt"}']
    assert all(p.done is False and p.model == "llama3.2" for p in pieces)
    assert last.done is True and last.done_reason == "stop" and last.message.content == ""
    assert last.eval_count == 4 and last.prompt_eval_count >= 1
    assert last.total_duration > last.eval_duration > 0 and last.load_duration > 0
    assert isinstance(last.prompt_eval_duration, int)


def test_unstreamed_chat_is_one_object_and_a_callable_reply_sees_the_request(fake_ollama):
    fake_ollama.reply(lambda body: json.dumps({"echo": body["messages"][-1]["content"]}))
    answer = client(fake_ollama).chat("llama3.2:latest", messages=ASK, stream=False,
                                      format=SCHEMA)
    assert json.loads(answer.message.content) == {"echo": "restart nginx"}
    assert answer.message.role == "assistant"
    assert answer.done and answer.done_reason == "stop" and answer.eval_count >= 1


def test_replies_come_in_order_then_the_default_answers(fake_ollama):
    fake_ollama.reply("first")
    fake_ollama.reply("second")
    c = client(fake_ollama)
    said = [c.chat("llama3.2", messages=ASK).message.content for _ in range(3)]
    assert said == ["first", "second", "{}"]
    fake_ollama.default = lambda body: f"{len(body['messages'])} message(s)"
    assert c.chat("llama3.2", messages=ASK).message.content == "1 message(s)"


def test_every_request_is_recorded_with_its_body_as_sent(fake_ollama):
    c = client(fake_ollama)
    c.chat("llama3.2", messages=ASK, format=SCHEMA, options={"temperature": 0},
           keep_alive="10m", think=False)
    c.list()
    sent = fake_ollama.chats()
    assert len(sent) == 1
    assert sent[0]["model"] == "llama3.2" and sent[0]["messages"] == ASK
    assert sent[0]["format"] == SCHEMA and sent[0]["options"] == {"temperature": 0}
    assert sent[0]["keep_alive"] == "10m" and sent[0]["think"] is False
    assert sent[0]["stream"] is False
    assert [(r["method"], r["path"]) for r in fake_ollama.requests] == [
        ("POST", "/api/chat"), ("GET", "/api/tags")]
    assert fake_ollama.requests[1]["body"] is None


def test_stream_defaults_to_true_like_the_real_server(fake_ollama):
    fake_ollama.reply("abcdefghij", chunk=4)
    r = httpx.post(f"{fake_ollama.url}/api/chat",
                   json={"model": "llama3.2", "messages": ASK})
    lines = [json.loads(line) for line in r.text.splitlines()]
    assert r.headers["content-type"] == "application/x-ndjson"
    assert [x["message"]["content"] for x in lines] == ["abcd", "efgh", "ij", ""]
    assert [x["done"] for x in lines] == [False, False, False, True]


def test_tags_list_models_with_latest_added_to_bare_names():
    with FakeOllama(models=("llama3.2", "qwen2.5:7b")) as fake:
        listed = client(fake).list().models
        assert [m.model for m in listed] == ["llama3.2:latest", "qwen2.5:7b"]
        assert listed[0].details.family == "llama" and listed[0].size > 0
        assert client(fake).chat("qwen2.5:7b", messages=ASK).message.content == "{}"
        raw = httpx.get(f"{fake.url}/api/tags").json()["models"][1]
        assert raw["name"] == "qwen2.5:7b" and len(raw["digest"]) == 64


def test_version_and_root_answer_like_ollama():
    with FakeOllama(version="0.9.0") as fake:
        assert httpx.get(f"{fake.url}/api/version").json() == {"version": "0.9.0"}
        assert httpx.get(f"{fake.url}/").text == "Ollama is running"


def test_show_gives_details_context_length_and_capabilities(fake_ollama):
    shown = client(fake_ollama).show("llama3.2")
    assert shown.modelinfo["general.architecture"] == "llama"
    assert shown.modelinfo["llama.context_length"] == 131072
    assert shown.capabilities == ["completion"]
    assert shown.details.quantization_level and shown.template and shown.modelfile
    with pytest.raises(ollama.ResponseError) as err:
        client(fake_ollama).show("mistral")
    assert err.value.status_code == 404 and err.value.error == "model 'mistral' not found"


def test_unknown_model_is_404_with_ollamas_wording(fake_ollama):
    c = client(fake_ollama)
    with pytest.raises(ollama.ResponseError) as err:
        c.chat("nope", messages=ASK)
    with pytest.raises(ollama.ResponseError) as streamed:
        next(c.chat("nope", messages=ASK, stream=True))
    for raised in (err.value, streamed.value):
        assert raised.status_code == 404
        assert raised.error == "model 'nope' not found"  # Ollama 0.12.6 ChatHandler


def test_thinking_on_a_model_without_the_capability_is_refused(fake_ollama):
    with pytest.raises(ollama.ResponseError) as err:
        client(fake_ollama).chat("llama3.2", messages=ASK, think=True)
    assert err.value.status_code == 400
    assert err.value.error == '"llama3.2" does not support thinking'


def test_scripted_status_500_reaches_the_client_as_a_response_error(fake_ollama):
    fake_ollama.reply("model runner has unexpectedly stopped", status=500)
    fake_ollama.reply("out of memory", status=500)
    c = client(fake_ollama)
    with pytest.raises(ollama.ResponseError) as err:
        c.chat("llama3.2", messages=ASK)
    assert err.value.status_code == 500
    assert err.value.error == "model runner has unexpectedly stopped"
    with pytest.raises(ollama.ResponseError) as err:
        list(c.chat("llama3.2", messages=ASK, stream=True))
    assert err.value.status_code == 500 and err.value.error == "out of memory"


def test_a_slow_reply_makes_the_client_time_out_and_the_server_carries_on(fake_ollama, capfd):
    fake_ollama.reply("too late", delay=2.0)
    with pytest.raises(httpx.TimeoutException):
        client(fake_ollama, timeout=0.2).chat("llama3.2", messages=ASK)
    assert client(fake_ollama).chat("llama3.2", messages=ASK).message.content == "{}"
    fake_ollama.stop()  # wakes the delayed handler, which finds its client gone
    assert capfd.readouterr().err == ""


def test_a_stream_cut_mid_way_raises_in_the_clients_iteration(fake_ollama, capfd):
    fake_ollama.reply("one two three four five", chunk=4, die_after=2)
    got: list[str] = []
    with pytest.raises(httpx.RemoteProtocolError):
        for part in client(fake_ollama).chat("llama3.2", messages=ASK, stream=True):
            got.append(part.message.content)
    assert got == ["one ", "two "]
    assert client(fake_ollama).chat("llama3.2", messages=ASK).message.content == "{}"
    assert capfd.readouterr().err == ""


def test_generate_with_an_empty_prompt_loads_and_keep_alive_zero_unloads(fake_ollama):
    c = client(fake_ollama)
    assert c.ps().models == []
    loaded = c.generate("llama3.2", prompt="", keep_alive="30m")
    assert loaded.done and loaded.done_reason == "load" and loaded.response == ""
    assert [m.model for m in c.ps().models] == ["llama3.2:latest"]
    assert fake_ollama.requests[1]["body"]["keep_alive"] == "30m"
    assert c.generate("llama3.2", prompt="", keep_alive=0).done_reason == "unload"
    assert c.ps().models == []
    assert fake_ollama.chats() == []


def test_unknown_paths_are_404(fake_ollama):
    r = httpx.post(f"{fake_ollama.url}/api/nothing", json={})
    assert r.status_code == 404 and r.text == "404 page not found"
    assert fake_ollama.requests[-1]["path"] == "/api/nothing"


def test_a_killed_server_refuses_connections(fake_ollama):
    c = client(fake_ollama, timeout=2)
    assert c.chat("llama3.2", messages=ASK).done
    fake_ollama.kill()
    with pytest.raises(ConnectionError):
        c.chat("llama3.2", messages=ASK)


def test_a_kill_cuts_a_request_that_is_still_waiting(fake_ollama):
    fake_ollama.reply("never", delay=30)
    outcome: list[Exception] = []

    def ask() -> None:
        try:
            client(fake_ollama).chat("llama3.2", messages=ASK)
        except Exception as exc:
            outcome.append(exc)

    asker = threading.Thread(target=ask)
    asker.start()
    while not fake_ollama.chats():
        asker.join(0.01)
    fake_ollama.kill()
    asker.join(5)
    assert not asker.is_alive()
    assert isinstance(outcome[0], httpx.TransportError)


def test_after_stop_the_port_is_closed():
    fake = FakeOllama().start()
    port = int(fake.url.rsplit(":", 1)[1])
    fake.stop()
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), 1):
        pass
