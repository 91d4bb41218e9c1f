"""What the chat's Pilot tests share: the saved homelab snapshot, a chat on it, the
bubbles said so far, and waiting until the engine's workers are done or a condition
holds (never a sleep as synchronisation)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.tui.app import ReosApp
from reos.tui.widgets import Bubble

SNAPSHOT = SystemSnapshot.from_dict(json.loads(
    (Path(__file__).parent / "fixtures" / "homelab.json").read_text()))


def chat() -> ReosApp:
    """The chat, planning against the homelab snapshot (it never looks at this machine)."""
    return ReosApp(ReasoningEngine(Settings(), snapshot=SNAPSHOT))


def said(app: ReosApp) -> list[str]:
    return [b.text for b in app.query(Bubble)]


async def settle(app: ReosApp, pilot) -> None:  # noqa: ANN001
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot, condition: Callable[[], bool], what: str) -> None:  # noqa: ANN001
    """Wait (up to ~10 s of a loaded machine) for `condition`; fail saying `what`."""
    for _ in range(200):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"never happened: {what}")


async def send(app: ReosApp, pilot, text: str) -> None:  # noqa: ANN001
    """`text` sent as a request, as if typed (typing it key by key costs seconds), and
    the engine's answer awaited."""
    app.prompt.value = text
    await pilot.press("enter")
    await settle(app, pilot)
