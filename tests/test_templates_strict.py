"""Template files are checked key by key, and no pattern can make matching slow.

Real files in a real REOS_HOME, the real loader, and the installed `reos` command. A
broken file is reported with its path, line and key and skipped whole; its steps never
run. Every pattern runs on RE2, so hostile patterns and hostile requests stay linear.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reos.reasoning import template_schema
from reos.reasoning import templates as templates_module
from reos.reasoning.templates import Pattern, PatternError, TemplateSet, load_file
from tests.conftest import FIXTURES, reos

CONTEXT = str(FIXTURES / "homelab.json")

INTENT = """\
# a user's template
[[intent]]
name = "mine.probe"
kind = "query"
action = "probe"
resource = "box"
{extra}patterns = ['probe the box']
"""

RECIPE = """\
[recipe.box.probe]
answer = "probed"
steps = [
  {{ title = "Look", argv = ["true"], read_only = true }},
  {{ title = "Leave a mark", argv = {argv}, {extra} }},
]
"""


def load_one(path: Path) -> TemplateSet:
    found = TemplateSet()
    load_file(path, found)
    return found


def assert_rejected(path: Path, line: int, *words: str) -> str:
    found = load_one(path)
    assert len(found.problems) == 1, found.problems
    problem = found.problems[0]
    assert f"{path}:{line} skipped" in problem, problem
    for word in words:
        assert word in problem, problem
    assert not found.intents and not found.recipes and not found.aliases
    return problem


# -- every key by type ---------------------------------------------------------------------

@pytest.mark.parametrize("extra,key,said", [
    ('priority = "high"\n', "priority", "must be a whole number, not 'high'"),
    ("priority = true\n", "priority", "must be a whole number, not True"),
    ("priority = 100000\n", "priority", "between 0 and 1000"),
    ("priority = -1\n", "priority", "between 0 and 1000"),
    ('then = "enable_now"\n', "then", "must be a list of strings"),
    ("then = [1]\n", "then", "must be a list of strings"),
    ("note = 5\n", "note", "must be a string"),
    ("condition = true\n", "condition", "must be a string"),
    ("patern = ['x']\n", "patern", "did you mean 'patterns'"),
])
def test_intent_keys_are_checked_by_type(tmp_path: Path, extra: str, key: str,
                                         said: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(INTENT.format(extra=extra))
    assert_rejected(path, 7, "intent 'mine.probe'", key, said)


@pytest.mark.parametrize("text,line,words", [
    ("[[intent]]\nname = 'x'\nkind = 'action'\naction = 'stop'\npatterns = 'stop it'\n", 5,
     ("patterns", "non-empty list of strings")),
    ("[[intent]]\nname = 'x'\nkind = 'action'\naction = 'stop'\npatterns = []\n", 5,
     ("patterns", "non-empty list of strings")),
    ("[[intent]]\nname = 'x'\nkind = 'action'\naction = 'stop'\npatterns = [1, 2]\n", 5,
     ("patterns",)),
    ("[[intent]]\nname = 'x'\nkind = 'sometimes'\naction = 'stop'\npatterns = ['x']\n", 3,
     ("kind", "query")),
    ("[[intent]]\nname = 'x'\nkind = 'refuse'\naction = 'x'\nreason = 7\npatterns = ['x']\n",
     5, ("reason", "must be a string")),
    ("[[intent]]\nname = 3\nkind = 'query'\naction = 'x'\npatterns = ['x']\n", 2,
     ("intent #1", "name", "must be a string")),
    ("[[intent]]\nname = 'a'\nkind = 'query'\naction = 'x'\npatterns = ['x']\n\n"
     "[[intent]]\nname = 'b'\nkind = 'query'\naction = 'x'\nnote = false\npatterns = ['x']\n",
     11, ("intent 'b'", "note")),
    ("[[intent]]\nname = 'x'\nkind = 'query'\naction = 'x'\nresource = ['box']\n"
     "patterns = ['x']\n", 5, ("resource", "must be a string")),
    ("[aliases.service]\n\"web\" = \"nginx\"\n", 2, ("aliases.service", "'web'")),
    ("[aliases.service]\n\"web\" = [\"nginx\", 1]\n", 2, ("aliases.service",)),
    ("[aliases]\nservice = 'nginx'\n", 2, ("aliases.service",)),
    ("[intents]\nx = 1\n", 1, ("'intents'", "did you mean 'intent'")),
])
def test_intent_and_alias_problems_name_line_and_key(tmp_path: Path, text: str, line: int,
                                                     words: tuple[str, ...]) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert_rejected(path, line, *words)


@pytest.mark.parametrize("argv,extra,key,said", [
    ('["touch", "x"]', 'read_only = "false"', "read_only", "true or false, not 'false'"),
    ('["touch", "x"]', "needs_root = 1", "needs_root", "true or false, not 1"),
    ('["touch", "x"]', 'reversible = "no"', "reversible", "true or false"),
    ('["touch", "x"]', 'risk = "extreme"', "risk", "one of critical, high"),
    ('["touch", "x"]', 'when_state = "running"', "when_state", "list of strings"),
    ('["touch", "x"]', "when_enabled = [true]", "when_enabled", "list of strings"),
    ('["touch", "x"]', "skip_note = 1", "skip_note", "must be a string"),
    ('["touch", "x"]', "read_onyl = true", "read_onyl", "did you mean 'read_only'"),
    ('"touch x"', "risk = 'low'", "argv", "non-empty list of strings"),
    ("[]", "risk = 'low'", "argv", "non-empty list of strings"),
    ('["touch", 5]', "risk = 'low'", "argv", "non-empty list of strings"),
    ('["touch", "{request}"]', "risk = 'low'", "argv", "only {name} may be filled in"),
])
def test_recipe_step_keys_are_checked_by_type(tmp_path: Path, argv: str, extra: str,
                                              key: str, said: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(RECIPE.format(argv=argv, extra=extra))
    assert_rejected(path, 5, "recipe box.probe step 2", key, said)


@pytest.mark.parametrize("text,line,words", [
    ("[recipe.box.probe]\nanswer = 5\nsteps = [{ title = 'a', argv = ['true'] }]\n", 2,
     ("answer", "must be a string")),
    ("[recipe.box.probe]\nverb = ['look']\nsteps = [{ title = 'a', argv = ['true'] }]\n", 2,
     ("verb",)),
    ("[recipe.box.probe]\nstate = 1\nsteps = [{ title = 'a', argv = ['true'] }]\n", 2,
     ("state",)),
    ("[recipe.box.probe]\naffects = true\nsteps = [{ title = 'a', argv = ['true'] }]\n", 2,
     ("affects",)),
    ("[recipe.box.probe]\nsteps = [{ title = 'a', argv = ['true'] }]\nstep = []\n", 3,
     ("unknown key 'step'",)),
    ("[recipe.box.probe]\nsteps = []\n", 2, ("steps", "non-empty")),
    ("[recipe.box.probe]\nsteps = ['true']\n", 2, ("step 1 must be a table",)),
    ("[recipe.box.probe]\nsteps = [{ argv = ['true'] }]\n", 2, ("missing 'title'",)),
    ("[recipe.package.install.apt]\nsteps = [{ title = 'a', argv = ['apt-get'] }]\n"
     "[recipe.package.install.dnf]\nsteps = [{ title = 'a', argv = ['dnf'], needs_root = 'y' }]"
     "\n", 4, ("recipe package.install.dnf step 1", "needs_root")),
    ("[[recipe.box.probe.steps]]\ntitle = 'a'\nargv = ['true']\n\n"
     "[[recipe.box.probe.steps]]\ntitle = 'b'\nargv = ['true']\nread_only = 'false'\n", 8,
     ("step 2", "read_only")),
])
def test_recipe_problems_name_line_and_key(tmp_path: Path, text: str, line: int,
                                           words: tuple[str, ...]) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert_rejected(path, line, *words)


def test_a_good_file_of_the_same_shape_loads(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(INTENT.format(extra="priority = 10\nthen = []\n") + "\n"
                    + RECIPE.format(argv='["touch", "{name}"]', extra="read_only = false"))
    found = load_one(path)
    assert found.problems == []
    assert [i.name for i in found.intents] == ["mine.probe"]
    assert found.intents[0].priority == 10
    assert found.recipes[("box", "probe", None)].steps[1].read_only is False


def test_builtin_templates_pass_the_strict_checks() -> None:
    loaded = templates_module.load()
    assert loaded.problems == []
    assert len(loaded.intents) > 40 and len(loaded.recipes) > 40


# -- sizes and files that are not templates ------------------------------------------------

def test_a_file_over_one_megabyte_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text("# padding\n" * (template_schema.MAX_FILE_BYTES // 10 + 1))
    problem = assert_rejected_anywhere(path)
    assert "larger than 1,000,000 bytes" in problem


def test_a_pattern_over_two_thousand_characters_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "long.toml"
    path.write_text(INTENT.replace("['probe the box']", "['" + "a" * 2001 + "']")
                    .format(extra=""))
    assert_rejected(path, 7, "patterns", "2,001 characters")


def test_more_than_two_thousand_user_patterns_are_rejected(tmp_path: Path) -> None:
    many = ", ".join(f"'probe number {i}'" for i in range(template_schema.MAX_PATTERNS + 1))
    path = tmp_path / "many.toml"
    path.write_text(INTENT.replace("['probe the box']", f"[{many}]").format(extra=""))
    problem = assert_rejected_anywhere(path)
    assert "2,001 patterns" in problem


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(INTENT.format(extra="note = 'caf\xe9'\n").encode("latin-1"))
    assert_rejected(path, 7, "not UTF-8")


def test_toml_syntax_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(INTENT.format(extra="note = unquoted words\n"))
    assert_rejected(path, 7, "not valid TOML")


def test_deep_nesting_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "too deeply" in assert_rejected_anywhere(path)


def assert_rejected_anywhere(path: Path) -> str:
    found = load_one(path)
    assert len(found.problems) == 1 and str(path) in found.problems[0], found.problems
    assert not found.intents and not found.recipes
    return found.problems[0]


@pytest.mark.timeout(30)
def test_a_fifo_or_directory_named_like_a_template_never_blocks(reos_home: Path) -> None:
    user_dir = reos_home / "config" / "templates"
    user_dir.mkdir(parents=True)
    os.mkfifo(user_dir / "pipe.toml")  # reading it would wait for a writer forever
    (user_dir / "folder.toml").mkdir()
    loaded = templates_module.load()
    problems = "\n".join(loaded.problems)
    assert "pipe.toml skipped: is not a regular file" in problems
    assert "folder.toml skipped: is not a regular file" in problems
    assert any(i.name == "container.stop" for i in loaded.intents)  # built-ins still load


# -- patterns run in linear time -----------------------------------------------------------

HOSTILE = r"(\w+\s?)+!"


@pytest.mark.timeout(10)
def test_the_hostile_pattern_answers_a_4kb_request_at_once() -> None:
    pattern = Pattern(HOSTILE)
    pattern.check()
    assert pattern.match("word " * 819) is None  # ~4 KB; Python's re takes ages here
    assert pattern.match("word " * 819 + "x!") is not None


@pytest.mark.parametrize("source,said", [
    (r"(?P<targets>\w+)\s+(?P=targets)", "linear time"),
    (r"(\w+)\s+\1", "linear time"),
    (r"stop (?=now)\w+", "linear time"),
    (r"stop (?<!not )\w+", "linear time"),
    (r"stop (unclosed", "not a valid pattern"),
    (r"x)|(y", "not a valid pattern"),
    (r"((a{1000}){1000}){1000}", "too large"),
])
def test_patterns_reos_cannot_run_in_linear_time_are_rejected(tmp_path: Path, source: str,
                                                              said: str) -> None:
    with pytest.raises(PatternError, match=said):
        Pattern(source).check()
    path = tmp_path / "mine.toml"
    path.write_text(INTENT.format(extra="").replace("['probe the box']",
                                                    f"[\n  'probe it',\n  '{source}',\n]"))
    assert_rejected(path, 9, "patterns", said)


ADVERSARIAL = [
    "a" * 4000,
    "a " * 2000,
    "is" + " " * 4000 + "x",
    "is " + "nginx " * 660,
    "stop " * 800,
    "what " + "containers " * 360,
    "install " + "a-" * 1990,
    "show me the " + "logs of " * 480,
    "is " + "a" * 3990 + " running",
    "(" * 4000,
]


@pytest.mark.timeout(60)
def test_every_builtin_pattern_stays_fast_on_adversarial_4kb_requests() -> None:
    """Python's backtracking engine never finished some of these; RE2 is linear."""
    loaded = templates_module.load()
    tried = 0
    for template in loaded.intents:
        for pattern in template.patterns:
            pattern.check()
            for text in ADVERSARIAL:
                assert len(text.encode()) <= 4096
                pattern.match(text)
                tried += 1
    assert tried > 1000


# -- through the installed command ---------------------------------------------------------

PROBE = """\
[[intent]]
name = "mine.probe"
kind = "query"
action = "probe"
resource = "box"
patterns = ['probe the box']

[recipe.box.probe]
answer = "probed"
steps = [
  {{ title = "Leave a mark", argv = ["touch", "{marker}"], read_only = {read_only} }},
]
"""


def write_probe(reos_home: Path, marker: Path, read_only: str) -> Path:
    user_dir = reos_home / "config" / "templates"
    user_dir.mkdir(parents=True, exist_ok=True)
    path = user_dir / "probe.toml"
    path.write_text(PROBE.format(marker=marker, read_only=read_only))
    return path


def test_a_string_read_only_is_reported_and_its_steps_never_run(reos_home: Path,
                                                                 tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    path = write_probe(reos_home, marker, '"false"')
    done = reos("plan", "--yes", "probe the box")
    assert f"{path}:11" in done.stderr and "read_only" in done.stderr
    assert "must be true or false" in done.stderr and "Traceback" not in done.stderr
    assert done.returncode == 4  # not understood: the file's intent was skipped with it
    assert not marker.exists()


def test_the_same_template_with_a_real_boolean_does_run(reos_home: Path,
                                                        tmp_path: Path) -> None:
    """The control for the test above: the file is fine once the value is a boolean."""
    marker = tmp_path / "ran"
    write_probe(reos_home, marker, "false")
    done = reos("plan", "--yes", "probe the box")
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    assert marker.exists()


@pytest.mark.timeout(60)
def test_a_hostile_user_pattern_and_a_4kb_request_answer_promptly(reos_home: Path) -> None:
    user_dir = reos_home / "config" / "templates"
    user_dir.mkdir(parents=True)
    (user_dir / "hostile.toml").write_text(
        "[[intent]]\nname = 'hostile'\nkind = 'action'\naction = 'stop'\n"
        f"resource = 'container'\npatterns = ['{HOSTILE}']\n")
    request = "word " * 800  # 4,000 bytes, every one of them a chance to backtrack
    done = reos("plan", "--json", "--context", CONTEXT, request, timeout=50)
    assert "Traceback" not in done.stderr
    assert done.returncode in (2, 4), done.stderr  # too long (2) or not understood (4)


def test_a_backreference_in_a_user_pattern_is_reported_with_line_and_key(
        reos_home: Path) -> None:
    user_dir = reos_home / "config" / "templates"
    user_dir.mkdir(parents=True)
    path = user_dir / "backref.toml"
    path.write_text("[[intent]]\nname = 'twice'\nkind = 'query'\naction = 'list'\n"
                    "resource = 'container'\npatterns = [\n  '(\\w+) \\1',\n]\n")
    done = reos("plan", "--json", "--context", CONTEXT, "what containers are running")
    assert done.returncode == 0, done.stderr
    assert f"{path}:7" in done.stderr and "patterns" in done.stderr
    assert "can't run in linear time" in done.stderr
