"""The chat's live status line and the model's streamed thought.

`StatusLine` says which understanding answers requests ("model llama3.2", "built-in
understanding (no Ollama server answers)", "loading model llama3.2…") and, while a
request is worked on, the stage the engine reported ("asking the model…") with the
seconds elapsed. `Thought` is one line in the conversation that is rewritten as the
model's thought streams in, so a long answer is one line, not one line per chunk.

Both show text through `reos.text.clean` without markup: the model's words and the
engine's states may carry anything. Not responsible for what the states mean or when
they change (the engine is), nor for warming the model (the app runs that in a worker).
"""

from __future__ import annotations

import time

from textual.timer import Timer
from textual.widgets import Static

from reos.text import clean

# The engine's stage names, as the person reads them while they wait.
STAGES = {
    "understanding": "understanding",
    "model": "understanding",
    "asking the model": "asking the model",
    "repairing": "asking the model again",
    "model answered": "checking the model's answer",
    "understood": "checking the model's answer",
    "unsure": "checking the model's answer",
    "fell back": "using my built-in understanding",
    "planning": "planning",
    "judging risk": "judging the risk",
}

# Why the model is not used (an LlmError kind, or the engine's own words), briefly.
WHY_BUILT_IN = {
    "unreachable": "no Ollama server answers",
    "missing_model": "the model is not pulled",
    "timeout": "the model was too slow",
    "server": "the Ollama server failed",
    "too_long": "the model rambled",
    "invalid": "the model's answers were unusable",
}
BUILT_IN = "built-in understanding"
THOUGHT_LIMIT = 300  # one line of the conversation, not an essay


def resting(state: str, model: str, loading: bool = False) -> str:
    """What the status line says between requests, from the engine's `llm_state`."""
    if loading:
        return f"loading model {model}\u2026"
    if state == "off" or "the model is off" in state:
        return BUILT_IN
    if state.startswith(BUILT_IN):
        why = state[len(BUILT_IN):].strip(" ()")
        return f"{BUILT_IN} ({WHY_BUILT_IN.get(why, why)})" if why else BUILT_IN
    if state == "not asked yet":
        return f"model {model}"
    return state


class StatusLine(Static):
    """One line: the understanding in use, or the stage of the request being worked on."""

    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, resting_text: str, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self.resting_text = clean(resting_text)
        self.stage: str | None = None  # set while a request is worked on
        self.started = 0.0
        self._ticker: Timer | None = None
        self.text = ""
        self._show()

    def answers(self, text: str) -> None:
        """Which understanding answers now (kept beside the stage of a request)."""
        self.resting_text = clean(text)
        self._show()

    def rest(self, text: str) -> None:
        """Nothing is being worked on: say which understanding answers."""
        self.resting_text = clean(text)
        self.stage = None
        if self._ticker is not None:
            self._ticker.stop()
            self._ticker = None
        self._show()

    def begin(self, stage: str) -> None:
        """A request (or an approval) went to the engine; count the seconds from now."""
        self.started = time.monotonic()
        self.stage = clean(stage)
        if self._ticker is None and self.is_mounted:
            self._ticker = self.set_interval(1.0, self._show)
        self._show()

    def reached(self, stage: str) -> None:
        """The engine reported a stage of the request being worked on."""
        if self.stage is not None:
            self.stage = clean(STAGES.get(stage, stage))
            self._show()

    def _show(self) -> None:
        if self.stage is None:
            self.text = self.resting_text
        else:
            seconds = int(time.monotonic() - self.started)
            self.text = f"{self.stage}\u2026 {seconds} s  \u00b7  {self.resting_text}"
        self.update(self.text)


class Thought(Static):
    """The model's thought about the current request, rewritten as it streams."""

    DEFAULT_CSS = """
    Thought { padding: 0 1; margin: 0 0 1 0; color: $text-muted; text-style: italic; }
    """

    def __init__(self) -> None:
        super().__init__("", markup=False, classes="thought")
        self.text = ""

    def grow(self, said: str) -> None:
        said = " ".join(clean(said).split())
        if len(said) > THOUGHT_LIMIT:
            said = said[:THOUGHT_LIMIT - 1] + "\u2026"
        self.text = f"The model thinks: {said}"
        self.update(self.text)
