"""The scorer's table of weights (evidence.Weight) and the order it is meant to produce.

1. The table is the scorer's only source of numbers: every weight in it is read by the
   scorer (no dead weights), and no score is changed by a bare number.
2. What the weights are for, checked on real requests against the homelab snapshot
   (never on the constants' values, so any tuning that keeps the order passes):
   - a name of the kind an operation acts on outranks the same verb on another kind,
     by enough not to be asked about, and a word nothing here is called;
   - a resource noun of the operation's kind adds to it; one of another kind counts
     against it;
   - an idiom outranks the verb inside it;
   - a verb said not to be done never wins;
   - a word nothing knows costs, never helps, and costs less outside the asking clause;
   - a word no account is called is a less likely account than a package to remove.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.understanding import evidence, parser, scoring, slot_words, target_words
from reos.understanding.reading import CLOSE
from reos.understanding.tagging import Names
from tests.conftest import FIXTURES

JUNK = ["zorblax", "quindle"]  # words no catalogue, vocabulary or snapshot knows


@functools.cache
def engine() -> ReasoningEngine:
    data = json.loads((FIXTURES / "homelab.json").read_text())
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def _parse(text: str) -> parser.Parse:
    return parser.parse(text, engine().templates, engine().builder().matcher)


def _scores(text: str) -> dict[str, float]:
    return {r.op.id: r.score for r in _parse(text).readings}


def _only(kind: str) -> list[str]:
    """The homelab's names of `kind` (units without .service) that name nothing else."""
    data = json.loads((FIXTURES / "homelab.json").read_text())
    names = ([c["name"] for c in data["containers"]] if kind == "container" else
             [s["name"].removesuffix(".service") for s in data["services"]])
    words = Names(engine().builder().matcher)
    return [n for n in names if words.kinds(n) == {kind}]


# -- 1. one table ------------------------------------------------------------------------

def _weights() -> set[str]:
    return {name for name in vars(evidence.Weight) if name.isupper()}


# the modules that weigh what a request says: the table's own module, with it left out
SCORER = (parser, evidence, scoring, slot_words, target_words)


def _scorer_tree() -> ast.Module:
    """The scorer's modules as one, without the table itself."""
    body = [node for module in SCORER for node in ast.parse(inspect.getsource(module)).body
            if not (isinstance(node, ast.ClassDef) and node.name == "Weight")]
    return ast.Module(body=body, type_ignores=[])


def test_every_weight_is_used_by_the_scorer() -> None:
    read = {node.attr for node in ast.walk(_scorer_tree())
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == "Weight"}
    assert _weights(), "the table is empty"
    assert _weights() - read == set(), "weights nothing reads"
    assert read - _weights() == set(), "weights read that the table lacks"


def _numbers(node: ast.AST) -> list[object]:
    """The numbers an expression adds as they are written: a condition's numbers
    ("if len(targets) == 1") and a call's (a count) are not amounts."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, int | float) and not isinstance(
            node.value, bool) else []
    if isinstance(node, ast.IfExp):
        return _numbers(node.body) + _numbers(node.orelse)
    if isinstance(node, ast.Call | ast.Compare):
        return []
    return [n for child in ast.iter_child_nodes(node) for n in _numbers(child)]


def test_no_score_is_changed_by_a_bare_number() -> None:
    """Every change to a reading's score, and every cost of a word left unplaced, comes
    from the table: a number written in place is a weight nobody can find to tune."""
    changes = cost = 0
    for node in ast.walk(_scorer_tree()):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute) and (
                node.target.attr == "score"):
            changes += 1
            assert _numbers(node.value) == [], ast.unparse(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id == "unplaced"):
            cost += 1
            assert _numbers(node.args[3]) == [], ast.unparse(node)
    assert changes > 20 and cost > 10  # the walk found the scorer


# -- 2. the order the weights are meant to produce ---------------------------------------

@pytest.mark.parametrize("name", _only("container"))
def test_a_container_by_name_outranks_stopping_a_service(name: str) -> None:
    scores = _scores(f"stop {name}")
    assert max(scores, key=scores.__getitem__) == "container.stop"
    assert scores["container.stop"] - scores.get("service.stop", float("-inf")) >= CLOSE


@pytest.mark.parametrize("name", _only("service"))
def test_a_service_by_name_outranks_restarting_a_container(name: str) -> None:
    scores = _scores(f"restart {name}")
    assert max(scores, key=scores.__getitem__) == "service.restart"
    assert scores["service.restart"] - scores.get("container.restart", float("-inf")) >= CLOSE


@pytest.mark.parametrize("name", _only("service"))
def test_a_name_of_its_kind_outranks_a_word_nothing_is_called(name: str) -> None:
    scores = [_scores(f"restart {word}").get("service.restart") for word in (name, *JUNK)]
    assert scores[0] is not None and all(s is not None and s < scores[0] for s in scores[1:])


def test_a_resource_noun_adds_to_its_kind_and_counts_against_another() -> None:
    name = _only("container")[0]
    bare = _scores(f"stop {name}")["container.stop"]
    assert _scores(f"stop the {name} container")["container.stop"] > bare
    assert _scores(f"stop the {name} service")["container.stop"] < bare


@pytest.mark.parametrize("name", _only("service"))
def test_an_idiom_outranks_the_verb_inside_it(name: str) -> None:
    scores = _scores(f"make {name} start at boot")
    assert max(scores, key=scores.__getitem__) == "service.enable"
    assert scores["service.enable"] > scores.get("service.start", float("-inf"))


@pytest.mark.parametrize("name", _only("service"))
def test_a_verb_said_not_to_be_done_never_wins(name: str) -> None:
    best = _parse(f"don't restart {name}, just reload it").best
    assert best is not None and best.op.id == "service.reload"


def _examples_with_a_known_target() -> list[str]:
    """Catalogue examples read as their own operation, naming a thing of its kind here,
    in one clause, for an operation that does not create what it names."""
    found = []
    for op in engine().templates.operations.values():
        if op.creates:
            continue
        for example in op.examples:
            best = _parse(example).best
            if "," not in example and best is not None and best.op is op and best.named_kinds:
                found.append(example)
    return found


def test_a_word_nothing_knows_costs_and_never_helps() -> None:
    examples = _examples_with_a_known_target()
    assert len(examples) > 100
    for n, example in enumerate(examples):
        junk = JUNK[n % len(JUNK)]
        before = _parse(example).best
        after = _parse(f"{example} {junk}").best
        assert before is not None and after is not None
        assert after.op is before.op, (example, after.op.id)
        assert after.score < before.score, (example, before.score, after.score)
        assert junk in after.unexplained, (example, after.unexplained)


@pytest.mark.parametrize("junk", JUNK)
def test_a_stray_word_costs_less_outside_the_asking_clause(junk: str) -> None:
    clean = _scores("restart nginx")["service.restart"]
    inside = _scores(f"restart nginx {junk}")["service.restart"]
    beside = _scores(f"restart nginx, {junk}")["service.restart"]
    assert inside < beside < clean


@pytest.mark.parametrize("junk", JUNK)
def test_a_word_no_account_is_called_is_no_account(junk: str) -> None:
    """Every account is listed in the snapshot, packages are not: a word none of them is
    called is likelier a package than an account."""
    scores = _scores(f"remove {junk}")
    assert scores["package.remove"] > scores["user.delete"]
