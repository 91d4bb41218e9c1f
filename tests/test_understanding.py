"""The first understanding slice: container actions and the containers query."""

from __future__ import annotations

import pytest

from reos.model import Kind
from reos.reasoning import templates as templates_module
from reos.reasoning import understanding
from reos.reasoning.templates import TemplateSet, load_file


@pytest.fixture(scope="module")
def chain():
    t = templates_module.load()
    assert not t.problems
    return [understanding.template_understander(t), understanding.regex_understander]


@pytest.mark.parametrize("text,action,targets,plural", [
    ("stop the nextcloud containers", "stop", ["nextcloud"], True),
    ("Could you please stop the nextcloud containers?", "stop", ["nextcloud"], True),
    ("restart portainer", "restart", ["portainer"], False),
    ("bounce the portainer container", "restart", ["portainer"], False),
    ("start container n8n", "start", ["n8n"], False),
    ("kill the redis-cache container", "kill", ["redis-cache"], False),
    ("remove the n8n container", "remove", ["n8n"], False),
    ("stop n8n and portainer", "stop", ["n8n", "portainer"], True),
    ("shut down the nextcloud redis container", "stop", ["nextcloud redis"], False),
    ("start all containers", "start", ["all"], True),
])
def test_container_actions(chain, text, action, targets, plural) -> None:
    intent = understanding.understand(text, chain)
    assert intent is not None
    assert intent.kind == Kind.ACTION
    assert (intent.action, intent.targets, intent.plural) == (action, targets, plural)


@pytest.mark.parametrize("text", [
    "what containers are running", "what containers are running?", "list all containers",
    "show me my containers", "which containers do I have", "docker ps",
    "are any containers running", "what's running in docker",
])
def test_containers_query(chain, text) -> None:
    intent = understanding.understand(text, chain)
    assert intent is not None
    assert (intent.kind, intent.action, intent.resource) == (Kind.QUERY, "list", "container")


@pytest.mark.parametrize("text", [
    "stop $(rm -rf /)", "stop `reboot`", "restart it", "stop them", "hello there", "",
    "stop portainer; rm -rf /", "kill -9 1",
])
def test_text_that_is_not_a_target_is_not_understood(chain, text) -> None:
    assert understanding.understand(text, chain) is None


def test_a_broken_user_template_is_reported_and_skipped(tmp_path) -> None:
    (tmp_path / "bad.toml").write_text("[[intent]]\nname = 'x'\nkind = 'action'\n")
    (tmp_path / "badre.toml").write_text(
        "[[intent]]\nname='y'\nkind='action'\naction='stop'\npatterns=['(unclosed']\n")
    found = TemplateSet()
    load_file(tmp_path / "bad.toml", found)
    load_file(tmp_path / "badre.toml", found)
    assert len(found.problems) == 2
    assert "bad.toml" in found.problems[0] and "missing 'action'" in found.problems[0]
    assert "badre.toml" in found.problems[1]
    assert found.intents == []


def test_user_templates_extend_and_override(reos_home, chain) -> None:
    user_dir = reos_home / "config" / "templates"
    user_dir.mkdir(parents=True)
    (user_dir / "mine.toml").write_text(
        "[[intent]]\nname = 'container.restart'\nkind = 'action'\naction = 'restart'\n"
        "resource = 'container'\npatterns = ['kick\\s+(?P<targets>.+)']\n")
    loaded = templates_module.load()
    names = [i.name for i in loaded.intents]
    assert names.count("container.restart") == 1
    mine = understanding.template_understander(loaded)("kick portainer")
    assert mine is not None and mine.action == "restart" and mine.targets == ["portainer"]


def test_recipe_argv_may_only_hold_the_name_slot(tmp_path) -> None:
    (tmp_path / "r.toml").write_text(
        "[recipe.container.stop]\nsteps = [{title='x', argv=['docker','stop','{request}']}]\n")
    found = TemplateSet()
    load_file(tmp_path / "r.toml", found)
    assert found.problems and "{request}" in found.problems[0]


def test_every_builtin_pattern_compiles_and_has_a_literal_gate() -> None:
    loaded = templates_module.load()
    for template in loaded.intents:
        for pattern in template.patterns:
            pattern.check()
            assert pattern.words or pattern.short, f"{template.name}: {pattern.source}"


@pytest.mark.parametrize("source,text", [
    (r"(?P<targets>[\w.@-]+)\s+logs?", "nginx log"),
    (r"shut\s*down", "shutdown"),
    (r"what(?:\x27s|\s+is)\s+running", "what's running"),
    (r"(?:re)?partition\s+the\s+disk", "repartition the disk"),
    (r"(?:is|are)\s+(?P<targets>.+?)\s+(?:running|up)", "is nginx up"),
    (r"ip\s+a(?:ddr)?", "ip a"),
])
def test_literal_gate_never_hides_a_match(source, text) -> None:
    from reos.reasoning.templates import Pattern

    pattern = Pattern(source)
    assert pattern.could_match(text.lower()) and pattern.match(text)
