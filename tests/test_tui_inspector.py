"""The chat's inspector: the audit trail of the latest reply (ctrl+r) and what reflection
found on this machine (ctrl+l), driven with Pilot against a saved snapshot."""

from __future__ import annotations

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.tui.app import ReosApp
from reos.tui.plan_view import PlanCard
from reos.tui.widgets import Bubble
from tests.pilot import SNAPSHOT, settle


def said(app: ReosApp) -> list[str]:
    return [str(b.render()) for b in app.query(Bubble)]


async def test_the_inspector_shows_the_reasoning_of_the_latest_reply() -> None:
    app = ReosApp(ReasoningEngine(Settings(), snapshot=SNAPSHOT))
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        assert said(app)[-1].startswith("No reasoning kept yet")
        await pilot.click("#prompt")
        await pilot.press(*"stop the nextcloud containers", "enter")
        await settle(app, pilot)
        assert len(app.query(PlanCard)) == 1
        await pilot.press("ctrl+r")
        await settle(app, pilot)
        chain = said(app)[-1]
        assert chain.startswith("=== REASONING CHAIN: plan_creation ===")
        assert "Goal: stop the nextcloud containers" in chain
        assert "Alternatives:" in chain and "Quality Score:" in chain
        assert app.engine.pending is not None  # looking changed nothing: the plan waits


async def test_the_inspector_shows_what_reflection_found() -> None:
    engine = ReasoningEngine(Settings(), snapshot=SNAPSHOT)
    app = ReosApp(engine)
    async with app.run_test(size=(120, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+l")
        await settle(app, pilot)
        assert said(app)[-1].startswith("Nothing noticed yet")
        knowledge = engine.knowledge  # the engine's, with reflection's rules
        for _ in range(3):
            knowledge.record(["systemctl", "start", "broken.service"], False, "unknown")
        assert knowledge.reflect()
        await pilot.press("ctrl+l")
        await settle(app, pilot)
        found = said(app)[-1]
        assert found.startswith("What I've noticed on this machine:")
        assert "systemctl start *" in found and "\u2192" in found  # evidence, then what to do
