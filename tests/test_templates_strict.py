"""Catalogue files are checked key by key, and no file or request can make reading slow.

Real files in a real REOS_HOME, the real loader, and the installed `reos` command. A
broken file is reported with its path, line and key and skipped whole; its steps never
run. The catalogue holds no regular expressions: its phrases are matched as word
sequences, so hostile catalogue files and hostile requests stay fast.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reos.catalogue import operations as catalogue
from reos.catalogue import schema as template_schema
from reos.catalogue import templates as templates_module
from reos.catalogue.templates import TemplateSet, load_file
from reos.model.plan import Plan
from tests.conftest import FIXTURES, reos

CONTEXT = str(FIXTURES / "homelab.json")

OPERATION = """\
# a user's catalogue file
[[operation]]
id = "mine.probe"
kind = "query"
summary = "probe the box"
verbs = ["probe"]
target = "none"
{extra}risk = "safe"
"""
EXTRA_LINE = 8  # the line {extra} starts on

RECIPE = """\
[recipe.mine.probe]
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


def nothing_loaded(found: TemplateSet) -> bool:
    return not (found.operations or found.refusals or found.recipes or found.aliases
                or found.vocabulary != catalogue.Vocabulary())


def assert_rejected(path: Path, line: int, *words: str) -> str:
    found = load_one(path)
    assert len(found.problems) == 1, found.problems
    problem = found.problems[0]
    assert f"{path}:{line} skipped" in problem, problem
    for word in words:
        assert word in problem, problem
    assert nothing_loaded(found)
    return problem


# -- [[operation]] keys ----------------------------------------------------------------------

@pytest.mark.parametrize("extra,key,said", [
    ('priority = "high"\n', "priority", "must be a whole number, not 'high'"),
    ("priority = true\n", "priority", "must be a whole number, not True"),
    ('then = "enable_now"\n', "then", "must be a list of strings"),
    ("then = [1]\n", "then", "must be a list of strings"),
    ("note = 5\n", "note", "must be a string"),
    ('nouns = "box"\n', "nouns", "must be a list of strings"),
    ("idioms = [['probe']]\n", "idioms", "must be a list of strings"),
    ("undo = false\n", "undo", "must be a string"),
    ("verbz = ['x']\n", "verbz", "did you mean 'verbs'"),
    ("qualifer = ['all']\n", "qualifer", "did you mean 'qualifiers'"),
    ("qualifiers = ['running', 'sleepy']\n", "qualifiers", "'sleepy' is not one of"),
    ("slots = ['whenever']\n", "slots", "'whenever' is not one of"),
    ("slots = 'since'\n", "slots", "must be a list of strings"),
    ("idioms = ['probe {target} now']\n", "idiom", "takes no target"),
    ("idioms = ['probe {thing} now']\n", "idioms", "no other braces"),
    ("alone = ['" + "p" * 201 + "']\n", "alone", "1 to 200 characters"),
    ("nouns = ['box', '   ']\n", "nouns", "1 to 200 characters"),
])
def test_operation_keys_are_checked_by_type(tmp_path: Path, extra: str, key: str,
                                            said: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(OPERATION.format(extra=extra))
    assert_rejected(path, EXTRA_LINE, "operation 'mine.probe'", key, said)


@pytest.mark.parametrize("old,new,line,key", [
    ('risk = "safe"', 'risk = "extreme"', 8, "risk"),
    ('target = "none"', 'target = "box"', 7, "target"),
    ('kind = "query"', 'kind = "question"', 4, "kind"),
])
def test_a_choice_outside_its_set_names_its_line(tmp_path: Path, old: str, new: str,
                                                 line: int, key: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(OPERATION.format(extra="").replace(old, new))
    assert_rejected(path, line, "operation 'mine.probe'", key, "is not one of")


OP = "[[operation]]\nid = 'box.probe'\nkind = 'query'\nsummary = 'probe'\n"


@pytest.mark.parametrize("text,line,words", [
    ("[[operation]]\nid = 'box.probe'\nkind = 'sometimes'\nsummary = 'probe'\n"
     "verbs = ['probe']\n", 3, ("operation 'box.probe'", "kind", "'sometimes'", "query")),
    ("[[operation]]\nid = 'probe'\nkind = 'query'\nsummary = 'probe'\nverbs = ['probe']\n",
     2, ("operation 'probe'", "id", "RESOURCE.ACTION")),
    ("[[operation]]\nid = '.probe'\nkind = 'query'\nsummary = 'probe'\nverbs = ['probe']\n",
     2, ("id", "RESOURCE.ACTION")),
    ("[[operation]]\nid = 3\nkind = 'query'\nsummary = 'probe'\nverbs = ['probe']\n", 2,
     ("operation #1", "id", "must be a string")),
    ("[[operation]]\nid = 'box.probe'\nkind = 'query'\nverbs = ['probe']\n", 1,
     ("operation 'box.probe'", "missing 'summary'")),
    (OP + "verbs = []\nnouns = []\n", 1, ("operation 'box.probe'", "verbs, nouns or idioms")),
    (OP + "verbs = ['probe']\ntarget = 'none'\nidioms = [\n  'look at it',\n"
     "  'put {target} on the box',\n]\n", 9, ("idioms", "takes no target")),
    (OP + "verbs = ['probe']\n\n[[operation]]\nid = 'box.poke'\nkind = 'action'\n"
     "summary = 'poke'\nverbs = ['poke']\nrisk = 'dire'\n", 12,
     ("operation 'box.poke'", "risk", "'dire'")),
    (OP + "verbs = ['probe']\nslots = ['since', 'lines', 'weather']\n", 6,
     ("slots", "'weather' is not one of")),
    ("[operations]\nx = 1\n", 1, ("'operations'", "did you mean 'operation'")),
])
def test_operation_problems_name_line_and_key(tmp_path: Path, text: str, line: int,
                                              words: tuple[str, ...]) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert_rejected(path, line, *words)


@pytest.mark.parametrize("text,line,words", [
    ("operation = 3\n", 1, ("[[operation]]",)),
    ("[[vocabulary]]\nask = ['show']\n", 1, ("[vocabulary] must be a table",)),
    ("[operation]\nid = 'box.probe'\n", 1, ("[[operation]]",)),
    ("[refusal]\nid = 'refuse.x'\n", 1, ("[[refusal]]",)),
    ("[recipe]\nprobe = 1\n", 1, ("[recipe.RESOURCE.ACTION]",)),
    ("vocabulary = 3\n", 1, ("[vocabulary] must be a table",)),
])
def test_tables_written_the_wrong_way_name_their_line(tmp_path: Path, text: str, line: int,
                                                      words: tuple[str, ...]) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert_rejected(path, line, *words)


# -- [[refusal]] and [vocabulary] keys -------------------------------------------------------

REFUSAL = """\
[[refusal]]
id = "refuse.mine"
verbs = ["wipe", "erase"]
{objects}reason = "That would wipe the box."
"""


@pytest.mark.parametrize("objects,line,words", [
    ("objects = []\n", 4, ("refusal 'refuse.mine'", "objects", "non-empty list of strings")),
    ("objects = 'the box'\n", 4, ("objects", "non-empty list of strings")),
    ("objects = ['the box', 2]\n", 4, ("objects", "non-empty list of strings")),
    ("", 1, ("refusal 'refuse.mine'", "missing 'objects'")),
    ("objects = ['the box']\nremote = 'yes'\n", 5, ("remote", "true or false")),
    ("objects = ['the box']\nunless = 'backup'\n", 5, ("unless", "list of strings")),
    ("objects = ['the box']\nreasons = 'x'\n", 5, ("reasons", "did you mean 'reason'")),
    ("objects = ['the box', '" + "x" * 201 + "']\n", 4, ("objects", "1 to 200 characters")),
])
def test_refusal_keys_are_checked(tmp_path: Path, objects: str, line: int,
                                  words: tuple[str, ...]) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(REFUSAL.format(objects=objects))
    assert_rejected(path, line, *words)


def test_a_second_refusal_is_named_by_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(REFUSAL.format(objects="objects = ['the box']\n") + "\n"
                    + REFUSAL.format(objects="objects = []\n").replace("refuse.mine",
                                                                       "refuse.other"))
    assert_rejected(path, 10, "refusal 'refuse.other'", "objects")


@pytest.mark.parametrize("text,line,words", [
    ("[vocabulary.numbers]\nseven = 7\nzillion = 10001\n", 3,
     ("[vocabulary.numbers]", "'zillion'", "whole number from 0 to 10000")),
    ("[vocabulary.numbers]\nminus = -1\n", 2, ("'minus'", "0 to 10000")),
    ("[vocabulary.numbers]\nhalf = 'one half'\n", 2, ("'half'", "whole number")),
    ("[vocabulary.numbers]\nyes = true\n", 2, ("'yes'", "whole number")),
    ("[vocabulary]\nfillers = ['kindly']\nfiller = ['pls']\n", 3,
     ("'filler'", "did you mean 'fillers'")),
    ("[vocabulary]\nask = 'show'\n", 2, ("ask", "must be a list of strings")),
    ("[vocabulary]\nfillers = ['kindly', 3]\n", 2, ("fillers", "list of strings")),
    ("[vocabulary.contractions]\n\"won't\" = ['will', 'not']\n", 2,
     ("[vocabulary.contractions]", "\"won't\"", "must be a string")),
    ("[vocabulary.qualifiers]\nsleepy = ['asleep']\n", 2,
     ("qualifiers", "'sleepy' is not one of")),
    ("[vocabulary.resources]\ncontainer = 'box'\n", 2,
     ("[vocabulary.resources]", "'container'", "list of strings")),
])
def test_vocabulary_problems_name_line_and_key(tmp_path: Path, text: str, line: int,
                                               words: tuple[str, ...]) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert_rejected(path, line, *words)


# -- [[intent]] files, aliases and recipes ---------------------------------------------------

def test_a_file_of_regex_intents_is_reported_with_what_to_write(tmp_path: Path) -> None:
    path = tmp_path / "old.toml"
    path.write_text("[[intent]]\nname = 'mine.probe'\nkind = 'query'\naction = 'probe'\n"
                    "patterns = ['probe the box']\n")
    assert_rejected(path, 1, "[[intent]]", "[[operation]]")


def test_an_intent_after_an_operation_is_reported_on_its_own_line(tmp_path: Path) -> None:
    path = tmp_path / "old.toml"
    path.write_text(OPERATION.format(extra="") + "\n[[intent]]\nname = 'x'\n")
    assert_rejected(path, 10, "[[intent]]", "[[operation]]")


@pytest.mark.parametrize("text,line,words", [
    ("[aliases.service]\n\"web\" = \"nginx\"\n", 2, ("aliases.service", "'web'")),
    ("[aliases.service]\n\"web\" = [\"nginx\", 1]\n", 2, ("aliases.service",)),
    ("[aliases]\nservice = 'nginx'\n", 2, ("aliases.service",)),
])
def test_alias_problems_name_line_and_key(tmp_path: Path, text: str, line: int,
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
    ('["touch", "x"]', 'when_slot = "since"', "when_slot", "list of strings"),
    ('["touch", "x"]', "unless_slot = [1]", "unless_slot", "list of strings"),
    ('["touch", "x"]', "skip_note = 1", "skip_note", "must be a string"),
    ('["touch", "x"]', "read_onyl = true", "read_onyl", "did you mean 'read_only'"),
    ('"touch x"', "risk = 'low'", "argv", "non-empty list of strings"),
    ("[]", "risk = 'low'", "argv", "non-empty list of strings"),
    ('["touch", 5]', "risk = 'low'", "argv", "non-empty list of strings"),
    ('["touch", "{request}"]', "risk = 'low'", "argv", "may be filled in"),
    ('["touch", "{target}"]', "risk = 'low'", "argv", "may be filled in"),
])
def test_recipe_step_keys_are_checked_by_type(tmp_path: Path, argv: str, extra: str,
                                              key: str, said: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(RECIPE.format(argv=argv, extra=extra))
    assert_rejected(path, 5, "recipe mine.probe step 2", key, said)


@pytest.mark.parametrize("text,line,words", [
    ("[recipe.box.probe]\nanswer = 5\nsteps = [{ title = 'a', argv = ['true'] }]\n", 2,
     ("answer", "must be a string")),
    ("[recipe.box.probe]\nverb = ['look']\nsteps = [{ title = 'a', argv = ['true'] }]\n", 2,
     ("verb",)),
    ("[recipe.box.probe]\nstate = 1\nsteps = [{ title = 'a', argv = ['true'] }]\n", 2,
     ("state",)),
    ("[recipe.box.probe]\naffects = true\nsteps = [{ title = 'a', argv = ['true'] }]\n", 2,
     ("affects",)),
    ("[recipe.box.probe]\ndefaults = { lines = 0 }\n"
     "steps = [{ title = 'a', argv = ['tail', '-n', '{lines}'] }]\n", 2,
     ("defaults", "only set lines")),
    ("[recipe.box.probe]\ndefaults = { since = 5 }\n"
     "steps = [{ title = 'a', argv = ['true'] }]\n", 2, ("defaults", "only set lines")),
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
    path.write_text(OPERATION.format(extra="priority = 10\nthen = []\nslots = ['since']\n")
                    + "\n" + RECIPE.format(argv='["touch", "{name}"]',
                                           extra="read_only = false, when_slot = ['since']")
                    + "\n" + REFUSAL.format(objects="objects = ['the box']\n")
                    + "\n[vocabulary.numbers]\nthree = 3\n")
    found = load_one(path)
    assert found.problems == []
    assert list(found.operations) == ["mine.probe"]
    probe = found.operations["mine.probe"]
    assert (probe.resource, probe.action, probe.priority) == ("mine", "probe", 10)
    assert probe.verbs == ["probe"] and probe.slots == ["since"]
    step = found.recipes[("mine", "probe", None)].steps[1]
    assert step.read_only is False and step.when_slot == ["since"]
    assert found.refusals["refuse.mine"].objects == ["the box"]
    assert found.vocabulary.numbers == {"three": 3}


def test_builtin_templates_pass_the_strict_checks() -> None:
    loaded = templates_module.load()
    assert loaded.problems == []
    assert len(loaded.operations) > 40 and len(loaded.recipes) > 40
    assert loaded.refusals and loaded.vocabulary.numbers


# -- sizes and files that are not templates ------------------------------------------------

def test_a_file_over_one_megabyte_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_text("# padding\n" * (template_schema.MAX_FILE_BYTES // 10 + 1))
    problem = assert_rejected_anywhere(path)
    assert "larger than 1,000,000 bytes" in problem


def test_a_phrase_over_two_hundred_characters_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "long.toml"
    long_verb = "probe " * 33 + "it"  # 200 characters is the most
    assert len(long_verb) == 200
    path.write_text(OPERATION.format(extra="").replace('["probe"]', f'["{long_verb}x"]'))
    assert_rejected(path, 6, "operation 'mine.probe'", "verbs", "1 to 200 characters")
    path.write_text(OPERATION.format(extra="").replace('["probe"]', f'["{long_verb}"]'))
    assert load_one(path).problems == []


def test_more_than_five_hundred_user_phrases_are_rejected(tmp_path: Path) -> None:
    assert catalogue.MAX_PHRASES == 500
    many = ", ".join(f"'probe number {i}'" for i in range(600))
    path = tmp_path / "many.toml"
    path.write_text(OPERATION.format(extra="").replace('["probe"]', f"[{many}]"))
    assert_rejected(path, 6, "verbs", "600 phrases", "at most 500")
    five_hundred = ", ".join(f"'probe number {i}'" for i in range(500))
    path.write_text(OPERATION.format(extra="").replace('["probe"]', f"[{five_hundred}]"))
    assert load_one(path).problems == []


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(OPERATION.format(extra="note = 'caf\xe9'\n").encode("latin-1"))
    assert_rejected(path, EXTRA_LINE, "not UTF-8")


def test_toml_syntax_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(OPERATION.format(extra="note = unquoted words\n"))
    assert_rejected(path, EXTRA_LINE, "not valid TOML")


def test_deep_nesting_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "too deeply" in assert_rejected_anywhere(path)


def assert_rejected_anywhere(path: Path) -> str:
    found = load_one(path)
    assert len(found.problems) == 1 and str(path) in found.problems[0], found.problems
    assert nothing_loaded(found)
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
    assert "container.stop" in loaded.operations  # built-ins still load


# -- hostile requests are planned promptly ---------------------------------------------------

HOSTILE_REQUESTS = [
    "is " + " " * 4000,
    "stop " + "a " * 2000,
    "," * 4000,
    "a" * 4096,
    "(" * 4096,
    "is " + "nginx " * 660,
    "stop " * 800,
    "what " + "containers " * 360,
    "install " + "a-" * 1990,
    "show me the " + "logs of " * 480,
    "is " + "a" * 3990 + " running",
    "stop all but not except " * 160,
    "the last 10 minutes " * 200,
    "' \" ` $( ; | & " * 270,
]


@pytest.fixture(scope="module")
def engine():  # type: ignore[no-untyped-def]
    from tests.understanding.evaluate import engines

    return engines()["apt"]


@pytest.mark.timeout(20)
@pytest.mark.parametrize("request_text", HOSTILE_REQUESTS,
                         ids=lambda text: f"{text[:12]!r}x{len(text)}")
def test_a_hostile_4kb_request_is_planned_without_error(engine, request_text: str) -> None:  # type: ignore[no-untyped-def]
    assert len(request_text.encode()) <= 4096
    plan = engine.plan(request_text)
    assert isinstance(plan, Plan)


# -- through the installed command ---------------------------------------------------------

PROBE = """\
[[operation]]
id = "mine.probe"
kind = "action"
summary = "probe the box"
verbs = ["probe"]
nouns = ["box"]
target = "none"
risk = "low"

[recipe.mine.probe]
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
    assert f"{path}:13" in done.stderr and "read_only" in done.stderr, done.stderr
    assert "must be true or false" in done.stderr and "Traceback" not in done.stderr
    assert not marker.exists()


def test_the_same_file_with_a_real_boolean_does_run(reos_home: Path, tmp_path: Path) -> None:
    """The control for the test above: the file is fine once the value is a boolean."""
    marker = tmp_path / "ran"
    write_probe(reos_home, marker, "false")
    done = reos("plan", "--yes", "probe the box")
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    assert marker.exists()


@pytest.mark.timeout(60)
def test_a_hostile_user_catalogue_and_a_4kb_request_answer_promptly(reos_home: Path) -> None:
    user_dir = reos_home / "config" / "templates"
    user_dir.mkdir(parents=True)
    words = ["stop", "the", "a", "all", "word", "nginx", "containers", "is", "running"]
    verbs = [" ".join(words[(i + j) % len(words)] for j in range(40))[:199] + str(i % 10)
             for i in range(catalogue.MAX_PHRASES)]
    path = user_dir / "hostile.toml"
    path.write_text("[[operation]]\nid = 'hostile.stop'\nkind = 'action'\n"
                    "summary = 'stop everything'\ntarget = 'container'\nverbs = [\n"
                    + "".join(f"  '{verb}',\n" for verb in verbs) + "]\n"
                    "[recipe.hostile.stop]\nsteps = [{ title = 'no', argv = ['false'] }]\n")
    problems = templates_module.load().problems  # the file is valid, only hostile
    assert not [p for p in problems if "hostile.toml" in p], problems
    request = ("stop the " + "word " * 820)[:4000]
    done = reos("plan", "--json", "--context", CONTEXT, request, timeout=50)
    assert "Traceback" not in done.stderr
    assert done.stdout.strip(), done.stderr
    json.loads(done.stdout)


def test_a_problem_in_a_user_operation_is_reported_by_the_command(reos_home: Path) -> None:
    user_dir = reos_home / "config" / "templates"
    user_dir.mkdir(parents=True)
    path = user_dir / "mine.toml"
    path.write_text(OPERATION.format(extra="qualifiers = ['sleepy']\n"))
    done = reos("plan", "--json", "--context", CONTEXT, "what containers are running")
    assert done.returncode == 0, done.stderr
    assert f"{path}:{EXTRA_LINE}" in done.stderr and "qualifiers" in done.stderr
    assert "'sleepy' is not one of" in done.stderr
