"""The one door to an Ollama server: the only module of reos that imports `ollama`.

Imported only when a model is actually asked (the import costs ~100 ms), so `reos plan`
with a confident built-in reading, `reos undo` and `reos check` never pay for it.

`Client.chat` makes one `/api/chat` call, streamed so the reply text can be shown as it
arrives, bounded in time (the whole call, not only each read) and in size; `status`
asks the server what it is and has (`/api/version`, `/api/tags`, `/api/show`) and
times a round trip; `warm` loads the model without asking anything. Every failure
becomes an `LlmError` with a kind and one plain sentence saying what to do.

Not responsible for what is asked (prompt.py) or for believing the answer (validate.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from msgspec import Struct, field

from reos.settings import LlmSettings

if TYPE_CHECKING:
    from typing import Any

MAX_REPLY_CHARS = 64_000  # an answer is a few hundred characters; this is no answer


class LlmError(Exception):
    """The model could not be asked. `kind`: unreachable, missing_model, timeout, server,
    too_long. `str()` is one sentence a person can act on."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class ChatResult(Struct):
    text: str
    ms: float  # wall time of the call
    prompt_tokens: int = 0
    reply_tokens: int = 0
    load_ms: float = 0.0  # time the server spent loading the model (a cold start)
    cut: bool = False  # the server stopped it at max_tokens (done_reason "length")


class Status(Struct):
    """What `reos doctor` says about the model."""

    host: str
    model: str
    reachable: bool = False
    version: str | None = None
    models: list[str] = field(default_factory=list)
    has_model: bool = False
    context_length: int | None = None
    rtt_ms: float | None = None
    problem: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"host": self.host, "model": self.model, "reachable": self.reachable,
                "version": self.version, "models": list(self.models),
                "has_model": self.has_model, "context_length": self.context_length,
                "rtt_ms": None if self.rtt_ms is None else round(self.rtt_ms, 1),
                "problem": self.problem}


def _same_model(a: str, b: str) -> bool:
    """"llama3.2" and "llama3.2:latest" are one model, as Ollama treats them."""
    return (a if ":" in a else a + ":latest") == (b if ":" in b else b + ":latest")


class Client:
    def __init__(self, settings: LlmSettings):
        import ollama  # the only import of ollama in reos

        self.settings = settings
        self._ollama = ollama
        self._client = ollama.Client(host=settings.host, timeout=settings.timeout_seconds)

    # -- failures in words -------------------------------------------------------------
    def _error(self, exc: BaseException) -> LlmError:
        import httpx

        s = self.settings
        if isinstance(exc, LlmError):
            return exc
        if isinstance(exc, self._ollama.ResponseError):
            said = str(getattr(exc, "error", exc))
            if exc.status_code == 404 and "not found" in said:
                return LlmError("missing_model", (
                    f"The model {s.model} is not on the Ollama server at {s.host}. "
                    f"Run `ollama pull {s.model}`, or set [llm] model to one it has."))
            return LlmError("server", f"The Ollama server at {s.host} answered with an error "
                                      f"({exc.status_code}): {said[:200]}.")
        if isinstance(exc, ConnectionError | httpx.ConnectError):
            return LlmError("unreachable", (
                f"No Ollama server answers at {s.host}. Start it (`ollama serve`), or set "
                "[llm] host."))
        if isinstance(exc, httpx.TimeoutException | TimeoutError):
            return LlmError("timeout", (
                f"The model {s.model} did not answer within {s.timeout_seconds:g} s "
                "([llm] timeout_seconds)."))
        return LlmError("server", f"The exchange with the Ollama server at {s.host} broke "
                                  f"off ({type(exc).__name__}).")

    # -- asking ------------------------------------------------------------------------
    def chat(self, messages: list[dict[str, str]], schema: dict[str, Any],
             on_text: Callable[[str], None] | None = None,
             max_tokens: int | None = None) -> ChatResult:
        """One streamed /api/chat call with the answer constrained to `schema` and, with
        `max_tokens`, to that many tokens (Ollama's num_predict: its default is no limit,
        and a model that runs on fills the context, which Ollama then shifts out from
        under the prompt)."""
        s = self.settings
        options: dict[str, Any] = {"temperature": 0, "num_ctx": s.num_ctx, "seed": 0}
        if max_tokens is not None:
            options["num_predict"] = max_tokens
        # text that cannot be UTF-8 (a lone surrogate the model itself sent, quoted back in
        # a repair) would break the request before it leaves: it goes as "?"
        messages = [{**m, "content": str(m.get("content", "")).encode(
            "utf-8", "replace").decode("utf-8")} for m in messages]
        started = time.monotonic()
        deadline = started + s.timeout_seconds
        pieces: list[str] = []
        size = 0
        last: Any = None
        try:
            stream = self._client.chat(
                model=s.model, messages=messages, stream=True, format=schema, think=False,
                keep_alive=s.keep_alive, options=options)
            for part in stream:
                last = part
                piece = (part.message.content if part.message else "") or ""
                if piece:
                    pieces.append(piece)
                    size += len(piece)
                    if on_text is not None:
                        on_text(piece)
                if size > MAX_REPLY_CHARS:
                    raise LlmError("too_long", f"The model's answer ran past "
                                               f"{MAX_REPLY_CHARS:,} characters; I stopped it.")
                if time.monotonic() > deadline:
                    raise TimeoutError
        except Exception as exc:  # noqa: BLE001 - every failure is classified or re-raised
            raise self._error(exc) from None
        ms = (time.monotonic() - started) * 1000
        return ChatResult("".join(pieces), ms,
                          prompt_tokens=int(getattr(last, "prompt_eval_count", 0) or 0),
                          reply_tokens=int(getattr(last, "eval_count", 0) or 0),
                          load_ms=(getattr(last, "load_duration", 0) or 0) / 1e6,
                          cut=getattr(last, "done_reason", None) == "length")

    def warm(self, system: str | None = None) -> None:
        """Load the model into memory (an empty generate), so the first request is quick;
        with `system`, also read that system message once (one token answered): every
        request starts with it, and the server keeps what it read of it (Ollama's and
        llama.cpp's prompt cache), so the first request reads only its own part."""
        s = self.settings
        try:
            self._client.generate(model=s.model, prompt="", keep_alive=s.keep_alive)
            if system:
                self._client.chat(model=s.model, messages=[{"role": "system", "content": system}],
                                  stream=False, think=False, keep_alive=s.keep_alive,
                                  options={"temperature": 0, "num_ctx": s.num_ctx, "seed": 0,
                                           "num_predict": 1})
        except Exception as exc:  # noqa: BLE001
            raise self._error(exc) from None

    def status(self) -> Status:
        s = self.settings
        found = Status(s.host, s.model)
        started = time.monotonic()
        try:
            import httpx

            version = httpx.get(s.host.rstrip("/") + "/api/version",
                                timeout=min(s.timeout_seconds, 5.0))
            version.raise_for_status()
            found.rtt_ms = (time.monotonic() - started) * 1000
            found.version = str(version.json().get("version", ""))[:40] or None
            found.reachable = True
            listed = self._client.list()
            found.models = [str(m.model)[:100] for m in listed.models if m.model][:50]
            found.has_model = any(_same_model(m, s.model) for m in found.models)
            if not found.has_model:
                found.problem = (f"The model {s.model} is not on this server. Run "
                                 f"`ollama pull {s.model}`, or set [llm] model.")
                return found
            shown = self._client.show(s.model)
            info = shown.modelinfo or {}
            lengths = [v for k, v in info.items() if k.endswith(".context_length")
                       and isinstance(v, int)]
            found.context_length = lengths[0] if lengths else None
        except Exception as exc:  # noqa: BLE001 - a status never raises
            found.problem = str(self._error(exc))
        return found
