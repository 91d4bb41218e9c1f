"""The Textual chat, driven with Pilot against the real docker engine."""

from __future__ import annotations

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.tui.app import ReosApp
from reos.tui.plan_view import PlanCard
from reos.tui.widgets import Bubble
from tests.conftest import Containers


def said(app: ReosApp) -> list[str]:
    return [str(b.render()) for b in app.query(Bubble)]


async def settle(app: ReosApp, pilot) -> None:
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def type_line(pilot, text: str) -> None:
    await pilot.click("#prompt")
    await pilot.press(*text, "enter")


@pytest.mark.docker
async def test_request_plan_approve_results_then_undo(containers: Containers) -> None:
    project = containers.prefix
    app_name = containers.run("app", project=project)
    db_name = containers.run("db", project=project)
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        assert any(line.startswith("I can see ") for line in said(app))

        await type_line(pilot, f"stop the {project} containers")
        await settle(app, pilot)
        cards = app.query(PlanCard)
        assert len(cards) == 1
        assert "This will stop 2 containers" in cards.first().text
        assert containers.state(app_name) == "running"  # nothing runs before approval

        await pilot.click("#approve")
        await settle(app, pilot)
        lines = said(app)
        assert f"\u2713 Stopped {app_name}" in lines and f"\u2713 Stopped {db_name}" in lines
        assert any(line.startswith("Done!") for line in lines)
        assert containers.state(app_name) == containers.state(db_name) == "exited"

        await type_line(pilot, "what can you undo?")
        await settle(app, pilot)
        assert said(app)[-1].startswith("Recent actions I can undo:")

        await type_line(pilot, "undo")
        await settle(app, pilot)
        assert said(app)[-1].startswith("Done! Undid")
        assert containers.state(app_name) == containers.state(db_name) == "running"


@pytest.mark.docker
async def test_deny_by_key_changes_nothing(containers: Containers) -> None:
    """ctrl+n declines (a bare "n" now goes into the input, where the focus stays)."""
    name = containers.run("svc")
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        await type_line(pilot, f"stop {name}")
        await settle(app, pilot)
        assert len(app.query(PlanCard)) == 1
        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert said(app)[-1] == "Okay, I won't do that. Nothing was changed."
        assert containers.state(name) == "running"


async def test_without_docker_it_says_containers_are_unavailable(monkeypatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        assert any(line.startswith("Containers are unavailable right now") for line in said(app))
        await type_line(pilot, "be brief")
        await settle(app, pilot)
        assert said(app)[-1].startswith("Okay, keeping it short for this session")
        assert app.engine.voice.verbosity == "minimal"


async def test_problems_with_the_users_templates_are_shown_in_the_chat(reos_home) -> None:
    """The full-screen chat hides stderr, so a broken template is said in the chat."""
    folder = reos_home / "config" / "templates"
    folder.mkdir(parents=True)
    (folder / "broken.toml").write_text('[[operation]]\nid = "x.y"\nkind = "query"\n'
                                        'summary = "x"\nverbs = ["x"]\npriority = "high"\n')
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        shown = "\n".join(said(app))
        assert "broken.toml:6" in shown and "priority" in shown


# -- questions with numbered choices, answered in the next turn ---------------------------
async def ask_about_two_containers(app: ReosApp, pilot, containers: Containers) -> str:
    """Start `<prefix>-web-a` and `-web-b`, ask to restart "<prefix> web", return what
    reos said (a question naming both, no plan)."""
    await settle(app, pilot)
    await type_line(pilot, f"restart {containers.prefix} web")
    await settle(app, pilot)
    assert len(app.query(PlanCard)) == 0
    assert app.engine.asking is not None and app.engine.pending is None
    return said(app)[-1]


@pytest.mark.docker
async def test_a_question_answered_by_number_shows_the_plan_of_that_choice(
        containers: Containers) -> None:
    first = containers.run("web-a")
    second = containers.run("web-b")
    app = ReosApp(ReasoningEngine(Settings()))
    assert app.engine.other_host() is None  # the real engine on this machine
    async with app.run_test(size=(110, 45)) as pilot:
        question = await ask_about_two_containers(app, pilot, containers)
        assert first in question and second in question
        assert question.index(first) < question.index(second)  # offered in that order

        await type_line(pilot, "2")
        await settle(app, pilot)
        cards = app.query(PlanCard)
        assert len(cards) == 1
        text = cards.first().text
        assert f"docker restart {second}" in text and first not in text
        assert [t.name for t in app.engine.pending.targets] == [second]

        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert said(app)[-1] == "Okay, I won't do that. Nothing was changed."
        assert containers.state(first) == containers.state(second) == "running"


@pytest.mark.docker
async def test_a_question_answered_by_name_shows_the_plan_of_that_choice(
        containers: Containers) -> None:
    first = containers.run("web-a")
    second = containers.run("web-b")
    app = ReosApp(ReasoningEngine(Settings()))
    assert app.engine.other_host() is None
    async with app.run_test(size=(110, 45)) as pilot:
        await ask_about_two_containers(app, pilot, containers)
        await type_line(pilot, first)
        await settle(app, pilot)
        cards = app.query(PlanCard)
        assert len(cards) == 1
        text = cards.first().text
        assert f"docker restart {first}" in text and second not in text

        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert containers.state(first) == containers.state(second) == "running"


@pytest.mark.docker
async def test_a_question_about_a_name_shows_numbered_choices(containers: Containers) -> None:
    first = containers.run("web-a")
    second = containers.run("web-b")
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        question = await ask_about_two_containers(app, pilot, containers)
        assert f"1. the container {first}" in question
        assert f"2. the container {second}" in question


@pytest.mark.docker
async def test_a_one_option_question_shows_a_numbered_choice_and_yes_takes_it(
        containers: Containers) -> None:
    name = containers.run("solo")
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        await type_line(pilot, f"restart {name} blorp frobnicate")
        await settle(app, pilot)
        question = said(app)[-1]
        assert "blorp" in question and "\n  1. " in question and name in question
        assert len(app.query(PlanCard)) == 0

        await type_line(pilot, "yes")
        await settle(app, pilot)
        cards = app.query(PlanCard)
        assert len(cards) == 1 and f"docker restart {name}" in cards.first().text

        await pilot.press("ctrl+n")
        await settle(app, pilot)
        assert containers.state(name) == "running"


async def test_a_broken_user_catalogue_operation_is_shown_with_file_and_line() -> None:
    """A user's `[[operation]]` with a key reos does not know: file, line and key are said."""
    from reos import paths

    folder = paths.user_templates_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "broken.toml").write_text(
        "# my own words for restarting\n"
        "[[operation]]\n"
        'id = "service.bounce_hard"\n'
        'kind = "action"\n'
        'summary = "bounce a service hard"\n'
        'verbs = ["hardbounce"]\n'
        'colour = "red"\n')
    app = ReosApp(ReasoningEngine(Settings()))
    async with app.run_test(size=(110, 45)) as pilot:
        await settle(app, pilot)
        shown = "\n".join(said(app))
        assert "broken.toml:7" in shown
        assert "colour" in shown and "service.bounce_hard" in shown
