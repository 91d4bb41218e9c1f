"""A fake Ollama server on loopback, for tests of code that talks to an LLM.

It speaks Ollama's real HTTP API (as served by Ollama 0.12.6, checked against its
server/routes.go and api/types.go) so the real `ollama` client, or plain httpx, can be
pointed at `FakeOllama.url`: /api/chat (NDJSON streaming in HTTP/1.1 chunks, or one
JSON object), /api/generate (load, unload and plain prompts), /api/tags, /api/show,
/api/ps and /api/version, with Ollama's own error bodies and status codes.

Tests script what "the model" says with `reply()` and can make the server slow,
failing, cut off mid-stream or gone (`kill()`), then read back every request it got.

It is not a model and not a full Ollama: it does not follow `format` schemas, render
templates, call tools, think, embed, pull or create models. Its model details
(sizes, digests, families) are plausible inventions, not those of real models.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import socketserver
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Content = str | Callable[[dict], str]

NS_PER_TOKEN = 20_000_000  # pretend 50 tokens/s so durations look like a real run
CONTEXT_LENGTH = 131072


@dataclass
class Reply:
    """One scripted answer to an /api/chat (or prompted /api/generate) request."""

    content: Content
    delay: float = 0.0
    status: int = 200
    die_after: int | None = None
    chunk: int = 8


class _Cut(Exception):
    """The fake decided to drop the connection (die_after, kill during a delay)."""


def full_name(name: str) -> str:
    """`llama3.2` -> `llama3.2:latest`, as Ollama lists and matches names."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _family(name: str) -> str:
    # The leading letters stand in for the GGUF architecture: llama3.2 -> llama.
    found = re.match(r"[a-z]+", name.rsplit("/", 1)[-1].lower())
    return found.group(0) if found else "llama"


def _details(name: str) -> dict[str, Any]:
    family = _family(name)
    return {"parent_model": "", "format": "gguf", "family": family, "families": [family],
            "parameter_size": "3.2B", "quantization_level": "Q4_K_M"}


def _digest(name: str) -> str:
    return hashlib.sha256(full_name(name).encode()).hexdigest()


def _is_zero(keep_alive: Any) -> bool:
    return keep_alive in (0, "0", "0s", "0m", "0h")


def _wants_thinking(think: Any) -> bool:
    # Ollama accepts true/false or a level ("low", "medium", "high"); any level is "on".
    return think is True or (isinstance(think, str) and think not in ("", "false"))


def _stats(body: dict, text: str) -> dict[str, int]:
    prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages") or [])
    prompt_chars += len(str(body.get("prompt", "")))
    prompt_count = max(1, prompt_chars // 4)
    eval_count = max(1, len(text) // 4)
    load, prompt_ns = 5_000_000, prompt_count * NS_PER_TOKEN // 10
    eval_ns = eval_count * NS_PER_TOKEN
    return {"total_duration": load + prompt_ns + eval_ns + 1_000_000, "load_duration": load,
            "prompt_eval_count": prompt_count, "prompt_eval_duration": prompt_ns,
            "eval_count": eval_count, "eval_duration": eval_ns}


class FakeOllama:
    """An Ollama look-alike on 127.0.0.1:<ephemeral port>, served from a daemon thread."""

    def __init__(self, models: tuple[str, ...] = ("llama3.2",), version: str = "0.12.6"):
        self.models = tuple(models)
        self.version = version
        self.default: Callable[[dict], str] = lambda body: "{}"
        self.url = ""
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._replies: deque[Reply] = deque()
        self._loaded: dict[str, datetime] = {}
        self._connections: set[socket.socket] = set()
        self._dying = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle -------------------------------------------------------------------
    def start(self, port: int = 0) -> FakeOllama:
        self._server = _Server(self, port)
        port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{port}"
        # A short poll interval keeps stop()/kill() fast: shutdown() waits for one poll.
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.02},
                                        name=f"fake-ollama:{port}", daemon=True)
        self._thread.start()
        return self

    def kill(self) -> None:
        """Die like a crashed server: refuse new connections and cut the open ones."""
        self._dying.set()
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        with self._lock:
            open_now = list(self._connections)
        for conn in open_now:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already gone

    def stop(self) -> None:
        self.kill()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and inspection -----------------------------------------------------
    def reply(self, content: Content, *, delay: float = 0.0, status: int = 200,
              die_after: int | None = None, chunk: int = 8) -> None:
        """Queue the next answer (FIFO). A non-200 status answers {"error": content}."""
        with self._lock:
            self._replies.append(Reply(content, delay, status, die_after, max(1, chunk)))

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request so far, as {"method", "path", "body"} (body: parsed JSON or None)."""
        with self._lock:
            return list(self._requests)

    def chats(self) -> list[dict]:
        return [r["body"] for r in self.requests if r["path"] == "/api/chat"]

    def asked(self) -> list[dict]:
        """The chats that ask something (a user message), not a warm-up's system message."""
        return [c for c in self.chats()
                if any(m.get("role") == "user" for m in c.get("messages") or [])]

    def knows(self, name: str) -> bool:
        return full_name(name) in {full_name(m) for m in self.models}

    # -- used by the handler ----------------------------------------------------------
    def _record(self, method: str, path: str, body: Any) -> None:
        with self._lock:
            self._requests.append({"method": method, "path": path, "body": body})

    def _next_reply(self) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        return Reply(self.default)

    def _set_loaded(self, name: str, loaded: bool) -> None:
        with self._lock:
            if loaded:
                self._loaded[full_name(name)] = datetime.now(UTC) + timedelta(minutes=5)
            else:
                self._loaded.pop(full_name(name), None)

    def _running(self) -> list[dict[str, Any]]:
        with self._lock:
            loaded = dict(self._loaded)
        return [{"name": n, "model": n, "size": 3_400_000_000, "digest": _digest(n),
                 "details": _details(n), "expires_at": t.isoformat().replace("+00:00", "Z"),
                 "size_vram": 3_400_000_000, "context_length": 4096} for n, t in loaded.items()]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stop() cuts connections itself; never wait on a hung client

    def __init__(self, fake: FakeOllama, port: int = 0):
        self.fake = fake
        super().__init__(("127.0.0.1", port), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks up the host's FQDN, which can stall on DNS here.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "127.0.0.1", self.server_address[1]

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client hanging up (timeouts, cut streams) is what tests do on purpose; a bug
        # in the fake or in a test's reply callable should still show its traceback.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, like Go's net/http
    # Go's net/http sends each write at once (TCP_NODELAY); with Nagle's algorithm every
    # streamed chunk after the first waited for the client's delayed ACK (about 40 ms)
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def version_string(self) -> str:
        return "fake-ollama"

    def setup(self) -> None:
        super().setup()
        with self.server.fake._lock:
            self.server.fake._connections.add(self.connection)

    def finish(self) -> None:
        with self.server.fake._lock:
            self.server.fake._connections.discard(self.connection)
        try:
            super().finish()
        except OSError:
            pass

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
        self.server.fake._record(method, path, body)
        route = _ROUTES.get((method, path))
        try:
            if route is None:
                self._send(404, b"404 page not found", "text/plain")
            elif method == "POST" and not isinstance(body, dict):
                self._error(400, "missing request body" if not raw else "invalid JSON body")
            else:
                route(self, body)
        except (_Cut, OSError):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

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

    # -- endpoints --------------------------------------------------------------------
    def _root(self, body: Any) -> None:
        self._send(200, b"Ollama is running", "text/plain; charset=utf-8")

    def _version(self, body: Any) -> None:
        self._json(200, {"version": self.server.fake.version})

    def _tags(self, body: Any) -> None:
        models = [{"name": full_name(m), "model": full_name(m),
                   "modified_at": "2025-10-01T09:00:00Z", "size": 2_019_393_189,
                   "digest": _digest(m), "details": _details(m)}
                  for m in self.server.fake.models]
        self._json(200, {"models": models})

    def _ps(self, body: Any) -> None:
        self._json(200, {"models": self.server.fake._running()})

    def _show(self, body: dict) -> None:
        name = body.get("model") or body.get("name") or ""
        if not name:
            return self._error(400, "model is required")
        if not self.server.fake.knows(name):
            return self._error(404, f"model '{name}' not found")
        arch = _family(name)
        self._json(200, {
            "modelfile": f"# Modelfile generated by \"ollama show\"\nFROM {full_name(name)}\n",
            "parameters": 'stop                           "<|eot_id|>"',
            "template": "{{ .Prompt }}",
            "details": _details(name),
            "model_info": {"general.architecture": arch, "general.parameter_count": 3_212_749_888,
                           f"{arch}.context_length": CONTEXT_LENGTH},
            "capabilities": ["completion"],
            "modified_at": "2025-10-01T09:00:00Z",
        })

    def _checked_model(self, body: dict) -> str | None:
        """The model name if Ollama would run this request; otherwise answer its error."""
        name = body.get("model") or ""
        if not name:
            self._error(400, "model is required")
        elif not self.server.fake.knows(name):
            self._error(404, f"model '{name}' not found")
        elif _wants_thinking(body.get("think")):
            # Every fake model lists only the "completion" capability, as /api/show says.
            self._error(400, f'"{name}" does not support thinking')
        else:
            return name
        return None

    def _chat(self, body: dict) -> None:
        name = self._checked_model(body)
        if name is None:
            return
        if not body.get("messages") and _is_zero(body.get("keep_alive")):
            self.server.fake._set_loaded(name, False)
            return self._json(200, {"model": name, "created_at": _now(),
                                    "message": {"role": "assistant", "content": ""},
                                    "done": True, "done_reason": "unload"})
        self.server.fake._set_loaded(name, True)
        if not any(m.get("role") == "user" for m in body.get("messages") or []):
            # a system message alone primes the prompt cache (reos's warm-up): Ollama reads
            # it and answers its one token; no scripted answer is spent on it
            return self._json(200, {"model": name, "created_at": _now(),
                                    "message": {"role": "assistant", "content": ""},
                                    "done": True, "done_reason": "length", **_stats(body, "")})
        self._answer(body, name, lambda piece: {"message": {"role": "assistant", "content": piece}})

    def _generate(self, body: dict) -> None:
        name = self._checked_model(body)
        if name is None:
            return
        if not body.get("prompt"):
            unload = _is_zero(body.get("keep_alive"))
            self.server.fake._set_loaded(name, not unload)
            return self._json(200, {"model": name, "created_at": _now(), "response": "",
                                    "done": True, "done_reason": "unload" if unload else "load"})
        self.server.fake._set_loaded(name, True)
        self._answer(body, name, lambda piece: {"response": piece})

    def _answer(self, body: dict, name: str, shape: Callable[[str], dict]) -> None:
        reply = self.server.fake._next_reply()
        if reply.delay and self.server.fake._dying.wait(reply.delay):
            raise _Cut
        content = reply.content(body) if callable(reply.content) else reply.content
        if reply.status != 200:
            return self._error(reply.status, content or "fake failure")
        final = {"model": name, "created_at": _now(), **shape(""), "done": True,
                 "done_reason": "stop", **_stats(body, content)}
        if body.get("stream", True) is False:
            return self._json(200, {**final, **shape(content)})
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pieces = [content[i:i + reply.chunk] for i in range(0, len(content), reply.chunk)]
        for piece in pieces[:reply.die_after]:
            self._chunk({"model": name, "created_at": _now(), **shape(piece), "done": False})
        if reply.die_after is not None:
            raise _Cut  # no done line and no closing 0-chunk: the client sees a cut body
        self._chunk(final)
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, obj: dict) -> None:
        line = json.dumps(obj).encode() + b"\n"
        self.wfile.write(b"%x\r\n%s\r\n" % (len(line), line))


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
    """`python3 fake_ollama.py --port N --answer FILE`: serve on 127.0.0.1:N (inside the
    Debian test bed, which has no network), answering every chat with FILE's text, read
    anew for each request so a test can change it between requests."""
    import argparse
    import time
    from pathlib import Path

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=11434)
    parser.add_argument("--answer", required=True)
    args = parser.parse_args(argv)
    fake = FakeOllama()
    fake.default = lambda body: Path(args.answer).read_text()
    fake.start(port=args.port)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
