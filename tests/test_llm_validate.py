"""The validator's rules one by one: what a model's answer must be before reos uses it.

Unit tests on `reos.llm.validate.first_object` and `check` with the homelab snapshot's
matcher, the request described the way the engine describes it (`understanding.said`).
Each rule has an answer it rejects, said in an error the repair call can act on, and
valid answers become the Intent the plan builder expects.

Not covered here: the calls to a server, repair and fallback (test_llm_understander.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reos.engine import ReasoningEngine
from reos.llm import validate
from reos.model.request import Intent, Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.words import replies

HOMELAB = json.loads((Path(__file__).parent / "fixtures" / "homelab.json").read_text())
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\u202e"


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(HOMELAB))


def check(engine: ReasoningEngine, text: str, **answer: Any) -> tuple[Intent | None, list[str]]:
    """Check `answer` for the request `text`, as the engine does before it plans."""
    matcher = engine.builder().matcher
    request = validate.request_of(text, engine.templates, matcher)
    full = {"thought": "t", "kind": "action", "confidence": 0.9, **answer}
    return validate.check(full, engine.templates, matcher, request)


def errors(engine: ReasoningEngine, text: str, **answer: Any) -> str:
    intent, found = check(engine, text, **answer)
    assert intent is None and found, f"accepted: {intent}"
    return "\n".join(found)


# -- finding the answer ------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ('{"kind": "query"}', {"kind": "query"}),
    ('Sure! Here it is:\n```json\n{"kind": "action", "op": "container.stop"}\n```\nDone.',
     {"kind": "action", "op": "container.stop"}),
    ('I think {this is not json} so: {"a": {"b": [1, 2]}} and {"c": 3}', {"a": {"b": [1, 2]}}),
    ('[1, 2] then {"x": "}"}', {"x": "}"}),
])
def test_the_first_json_object_is_found_inside_prose_and_fences(text: str,
                                                                expected: dict) -> None:
    assert validate.first_object(text) == expected


@pytest.mark.parametrize("text", ["", "no object here", "[1, 2, 3]", '{"open": ',
                                  "{" * 100_000])
def test_no_object_is_none(text: str) -> None:
    assert validate.first_object(text) is None


# -- operations ------------------------------------------------------------------------
def test_an_unknown_operation_is_an_error(engine: ReasoningEngine) -> None:
    said = errors(engine, "stop nextcloud", op="container.explode", targets=["nextcloud"])
    assert 'no operation "container.explode"' in said


@pytest.mark.parametrize("op", ["meta.undo", "meta.help", "meta.brief"])
def test_a_meta_operation_is_refused(engine: ReasoningEngine, op: str) -> None:
    assert f'no operation "{op}"' in errors(engine, "stop nextcloud", op=op)


@pytest.mark.parametrize("answer", [
    {"kind": "sideways", "op": "container.stop"},
    {"op": ["container.stop"]},
    {"op": "container.stop", "targets": "nextcloud"},
    {"op": "container.stop", "targets": [1, 2]},
    {"op": "container.stop", "targets": ["nextcloud"], "confidence": "high"},
    {"op": "container.stop", "targets": ["nextcloud"], "confidence": 7},
    {"op": "container.stop", "targets": ["nextcloud"], "slots": ["lines"]},
    {"op": "container.stop", "targets": ["nextcloud"], "shell": "rm -rf /"},
])
def test_wrong_shapes_are_errors(engine: ReasoningEngine, answer: dict) -> None:
    errors(engine, "stop nextcloud", **answer)


def test_not_an_object_is_an_error(engine: ReasoningEngine) -> None:
    request = validate.Request("stop nextcloud", set(), False, False)
    intent, found = validate.check(["container.stop"], engine.templates,
                                   engine.builder().matcher, request)
    assert intent is None and found == ["the answer must be one JSON object"]


# -- targets -----------------------------------------------------------------------------
def test_an_invented_target_is_an_error(engine: ReasoningEngine) -> None:
    said = errors(engine, "stop the container called ghost", op="container.stop",
                  targets=["ghost"])
    assert 'there is no container called "ghost"' in said


def test_an_unsaid_name_only_near_a_real_one_is_an_error(engine: ReasoningEngine) -> None:
    # "install htop" names nothing here; the model's "nginx2" is one typo from nginx,
    # which is the matcher's guess, not a name this machine has
    said = errors(engine, "install htop", op="package.files", targets=["nginx2"], kind="query")
    assert 'there is no package called "nginx2"' in said


def test_a_missing_target_is_not_swapped_for_another(engine: ReasoningEngine) -> None:
    # 'ghost' names nothing here: the model's 'portainer' is only offered as a question
    intent, found = check(engine, "stop the container called ghost", op="container.stop",
                          targets=["portainer"])
    assert found == [] and intent is not None and intent.kind == Kind.CLARIFY
    assert intent.asking is not None
    assert [o.intent.targets for o in intent.asking.options] == [["portainer"]]
    assert "portainer" in (intent.asking.question or "")


def test_an_alias_the_request_says_may_become_its_target(engine: ReasoningEngine) -> None:
    intent, found = check(engine, "restart the web server", op="service.restart",
                          targets=["nginx"])
    assert found == [] and intent is not None and intent.kind == Kind.ACTION
    assert intent.targets == ["nginx"]


def test_a_destructive_action_the_request_does_not_say_is_only_asked_about(
        engine: ReasoningEngine) -> None:
    intent, found = check(engine, "restart portainer", op="container.remove",
                          targets=["portainer"])
    assert found == [] and intent is not None and intent.kind == Kind.CLARIFY
    assert intent.asking is not None and "does not say to remove" in (
        intent.asking.question or "")


def test_a_target_the_request_does_not_name_is_an_error(engine: ReasoningEngine) -> None:
    said = errors(engine, "stop nextcloud", op="container.stop",
                  targets=["nextcloud", "portainer"])
    assert '"portainer" is not named in the request' in said


def test_the_targets_the_request_names_are_kept(engine: ReasoningEngine) -> None:
    intent, found = check(engine, "stop nextcloud and portainer", op="container.stop",
                          targets=["nextcloud", "portainer"])
    assert found == []
    assert intent is not None and intent.targets == ["nextcloud", "portainer"]
    assert intent.plural and intent.kind == Kind.ACTION


# -- a question never changes anything ---------------------------------------------------------
@pytest.mark.parametrize("op,targets", [("service.restart", ["nginx"]),
                                        ("service.stop", ["nginx"]),
                                        ("container.remove", ["all"])])
def test_a_question_answered_with_a_mutating_operation_is_an_error(
        engine: ReasoningEngine, op: str, targets: list[str]) -> None:
    assert "asks a question" in errors(engine, "is nginx running?", op=op, targets=targets)


def test_an_answer_of_kind_query_may_not_carry_an_action(engine: ReasoningEngine) -> None:
    said = errors(engine, "nginx status", kind="query", op="service.restart",
                  targets=["nginx"])
    assert "service.restart changes the machine" in said


# -- qualifiers narrow, never widen ----------------------------------------------------------
def test_a_dropped_qualifier_is_an_error(engine: ReasoningEngine) -> None:
    said = errors(engine, "remove the exited containers", op="container.remove")
    assert "the request says stopped" in said


def test_a_kept_qualifier_becomes_the_intents(engine: ReasoningEngine) -> None:
    intent, found = check(engine, "remove the exited containers", op="container.remove",
                          qualifiers=["stopped"])
    assert found == [] and intent is not None
    assert intent.operation == "container.remove" and intent.qualifiers == ["stopped"]
    assert intent.targets == [] and intent.kind == Kind.ACTION


@pytest.mark.parametrize("answer", [{"qualifiers": ["all"]}, {"targets": ["all"]},
                                    {"targets": ["everything"]}])
def test_all_added_when_not_said_is_an_error(engine: ReasoningEngine, answer: dict) -> None:
    said = errors(engine, "stop nextcloud", op="container.stop", **answer)
    assert "does not say all or every" in said


def test_all_said_is_kept(engine: ReasoningEngine) -> None:
    intent, found = check(engine, "stop every container", op="container.stop",
                          qualifiers=["all"])
    assert found == [] and intent is not None and intent.qualifiers == ["all"]


def test_a_dropped_exclusion_is_an_error(engine: ReasoningEngine) -> None:
    said = errors(engine, "stop all containers except portainer", op="container.stop",
                  qualifiers=["all"])
    assert "leaves something out" in said


def test_a_kept_exclusion_becomes_the_intents(engine: ReasoningEngine) -> None:
    intent, found = check(engine, "stop all containers except portainer",
                          op="container.stop", qualifiers=["all"], exclude=["portainer"])
    assert found == [] and intent is not None and intent.exclude == ["portainer"]


def test_a_qualifier_the_operation_lacks_is_an_error(engine: ReasoningEngine) -> None:
    said = errors(engine, "restart nginx", op="service.restart", targets=["nginx"],
                  qualifiers=["exited"])
    assert "unusable entry" in said or "takes no qualifier" in said


# -- slots -------------------------------------------------------------------------------
@pytest.mark.parametrize("slots,wording", [
    ({"lines": "lots"}, "slot lines"),
    ({"lines": "0"}, "slot lines"),
    ({"lines": True}, "slot lines must be a string"),
    ({"since": "the dawn of time"}, "slot since"),
    ({"port": "8080"}, "has no slot"),
])
def test_bad_slot_values_are_errors(engine: ReasoningEngine, slots: dict,
                                    wording: str) -> None:
    said = errors(engine, "show the last 50 lines of nginx logs", kind="query",
                  op="service.logs", targets=["nginx"], slots=slots)
    assert wording in said


def test_a_valid_answer_becomes_the_intent(engine: ReasoningEngine) -> None:
    intent, found = check(engine, "show the last 50 lines of nginx logs", kind="query",
                          op="service.logs", targets=["nginx"],
                          slots={"lines": 50, "since": "2h"}, confidence=0.8)
    assert found == []
    assert intent is not None
    assert intent.kind == Kind.QUERY
    assert intent.operation == intent.reading.template == "service.logs"
    assert (intent.action, intent.resource) == ("logs", "service")
    assert intent.targets == ["nginx"]
    assert intent.params == {"lines": "50", "since": "2h"}
    assert intent.reading.source == "llm" and intent.reading.confidence == 0.8


# -- conditions ------------------------------------------------------------------------
def test_a_condition_makes_a_combined_intent(engine: ReasoningEngine) -> None:
    intent, found = check(engine, "if nginx is running, restart it", op="service.restart",
                          targets=["nginx"], qualifiers=["running"],
                          condition={"if": "running", "subject": "nginx"})
    assert found == [] and intent is not None
    assert intent.kind == Kind.COMBINED
    assert intent.condition == "if_running"
    assert intent.condition_subject == (["nginx"], None)


@pytest.mark.parametrize("condition", [{"if": "running", "subject": "ghost"},
                                       {"if": "sleeping", "subject": "nginx"},
                                       {"if": "running"}, "nginx is running"])
def test_a_bad_condition_is_an_error(engine: ReasoningEngine, condition: object) -> None:
    said = errors(engine, "if nginx is running, restart it", op="service.restart",
                  targets=["nginx"], qualifiers=["running"], condition=condition)
    assert "condition" in said


# -- clarify -------------------------------------------------------------------------------
def test_a_clarify_answer_offers_choices_with_their_consequences(
        engine: ReasoningEngine) -> None:
    intent, found = check(engine, "restart nginx or reload it", kind="clarify",
                          op="service.restart", question="Restart or reload nginx?",
                          choices=[{"op": "service.restart", "targets": ["nginx"],
                                    "consequence": "2 s of downtime"},
                                   {"op": "service.reload", "targets": ["nginx"],
                                    "consequence": "no downtime"}])
    assert found == [] and intent is not None
    assert intent.kind == Kind.CLARIFY and intent.asking is not None
    assert intent.asking.question == "Restart or reload nginx?"
    assert [o.intent.operation for o in intent.asking.options] == [
        "service.restart", "service.reload"]
    labels = [replies.label(o) for o in intent.asking.options]
    assert "nginx" in labels[0] and labels[0].endswith("(2 s of downtime)")
    assert labels[1].endswith("(no downtime)")


@pytest.mark.parametrize("choices", [
    [],
    None,
    [{"op": "service.restart", "targets": ["nginx"], "consequence": "x"}] * 5,
    [{"op": "service.restart", "targets": ["ghost"], "consequence": "x"}],
    [{"op": "meta.undo", "consequence": "x"}],
    ["restart nginx"],
])
def test_bad_choices_are_errors(engine: ReasoningEngine, choices: object) -> None:
    errors(engine, "restart nginx or reload it", kind="clarify", op="service.restart",
           question="which?", choices=choices)


def test_choices_of_a_question_may_not_change_anything(engine: ReasoningEngine) -> None:
    said = errors(engine, "is nginx running?", kind="clarify", op="service.status",
                  choices=[{"op": "service.status", "targets": ["nginx"], "consequence": "a"},
                           {"op": "service.restart", "targets": ["nginx"],
                            "consequence": "b"}])
    assert "asks a question" in said


# -- op "command" -------------------------------------------------------------------------
def command(argv: list[str], read_only: bool = True) -> dict:
    return {"op": "command", "kind": "query",
            "command": {"argv": argv, "purpose": "look it up", "read_only": read_only}}


def test_a_plain_argv_becomes_a_command_intent(engine: ReasoningEngine) -> None:
    intent, found = check(engine, "dig the MX record of example.com",
                          **command(["dig", "MX", "example.com"]))
    assert found == [] and intent is not None
    assert intent.operation == "command" and intent.argv == ["dig", "MX", "example.com"]
    assert intent.purpose == "look it up"


@pytest.mark.parametrize("argv", [
    ["ss", "-ltn", "|", "grep", "8080"],
    ["dig", "MX", "example.com", ";", "id"],
    ["dig", "MX", "example.com", "&&", "id"],
    ["cat", "/etc/hosts", ">", "/tmp/x"],
    ["echo", "$(id)"],
    ["echo", "`id`"],
    ["echo", "${HOME}"],
    ["dig", "MX\nid"],
])
def test_shell_syntax_in_argv_is_an_error(engine: ReasoningEngine, argv: list[str]) -> None:
    assert "shell syntax" in errors(engine, "dig the MX record of example.com",
                                    **command(argv))


@pytest.mark.parametrize("argv", [["sudo", "ss", "-ltn"], ["/usr/bin/sudo", "ss"],
                                  ["doas", "ss"], ["su", "-c", "ss"], ["pkexec", "ss"]])
def test_sudo_in_argv_is_an_error(engine: ReasoningEngine, argv: list[str]) -> None:
    assert "leave sudo out" in errors(engine, "what is listening", **command(argv))


@pytest.mark.parametrize("argv", [["dig", "MX\x1b[2Jexample.com"], ["dig\x00", "MX"],
                                  ["dig", "\x9b31m"], ["dig", "MX\rexample.com"]])
def test_control_characters_in_argv_are_an_error(engine: ReasoningEngine,
                                                 argv: list[str]) -> None:
    assert "control characters" in errors(engine, "dig the MX record of example.com",
                                          **command(argv))


@pytest.mark.parametrize("given", [None, {"argv": []}, {"argv": "dig MX example.com"},
                                   {"argv": ["dig", ""]}, {"argv": ["x"] * 65},
                                   {"argv": ["dig", 5]}])
def test_a_malformed_command_is_an_error(engine: ReasoningEngine, given: object) -> None:
    errors(engine, "dig the MX record of example.com", op="command", kind="query",
           command=given)


@pytest.mark.parametrize("argv", [["sh", "-c", "dig MX example.com"],
                                  ["bash", "-c", "dig MX example.com; id"],
                                  ["/bin/dash", "-c", "id"],
                                  ["env", "bash", "-c", "id"], ["xargs", "rm"],
                                  ["python3", "-c", "import os; os.system('id')"],
                                  ["timeout", "5", "sh", "-c", "id"]])
def test_a_shell_as_the_program_is_an_error(engine: ReasoningEngine, argv: list[str]) -> None:
    errors(engine, "dig the MX record of example.com", **command(argv))


# -- the model's own words -----------------------------------------------------------------
def test_model_text_comes_out_cleaned(engine: ReasoningEngine) -> None:
    unknown, found = check(engine, "blorp the flange", kind="unknown", op="command",
                           reply=f"No idea {ESCAPES} sorry")
    assert found == [] and unknown is not None and unknown.kind == Kind.UNKNOWN
    assert unknown.reading.said == "No idea red sorry"

    asking, found = check(engine, "restart nginx or reload it", kind="clarify",
                          op="service.restart", question=f"Which {ESCAPES}one?",
                          choices=[{"op": "service.restart", "targets": ["nginx"],
                                    "consequence": f"down{ESCAPES}time"}])
    assert found == [] and asking is not None and asking.asking is not None
    assert asking.asking.question == "Which redone?"
    assert asking.asking.options[0].consequence == "downredtime"

    acting, found = check(engine, "stop nextcloud", op="container.stop",
                          targets=["nextcloud"], reply=f"Done {ESCAPES}!")
    assert found == [] and acting is not None and acting.reading.said == "Done red!"


def test_shown_bounds_and_cleans_a_thought() -> None:
    assert validate.shown(f"a thought {ESCAPES}") == "a thought red"
    assert validate.shown("x" * 5_000) is not None
    assert len(validate.shown("x" * 5_000) or "") <= 400
    assert validate.shown(42) is None and validate.shown("  ") is None


def test_a_target_with_escape_sequences_is_an_error(engine: ReasoningEngine) -> None:
    said = errors(engine, "stop nextcloud", op="container.stop",
                  targets=["nextcloud\x1b[2J"])
    assert "unusable entry" in said


# -- found by the benches: the parser's own readings, and never widening -------------------
def test_an_action_without_targets_is_not_everything(engine: ReasoningEngine) -> None:
    said = errors(engine, "restart the container", op="container.restart", targets=[])
    assert "needs its targets" in said
    intent, found = check(engine, "restart the stopped containers", op="container.restart",
                          targets=[], qualifiers=["stopped"])
    assert found == [] and intent is not None and intent.qualifiers == ["stopped"]


def test_a_conditional_request_is_not_a_question_and_its_condition_is_not_a_filter(
        engine: ReasoningEngine) -> None:
    intent, found = check(engine, "is nextcloud running? if so stop it", op="container.stop",
                          targets=["nextcloud"],
                          condition={"if": "running", "subject": "nextcloud"})
    assert found == [] and intent is not None and intent.kind == Kind.COMBINED
    assert intent.condition == "if_running" and intent.qualifiers == []


def test_a_phrasal_verb_the_parser_reads_as_an_idiom_is_the_requests_verb(
        engine: ReasoningEngine) -> None:
    intent, found = check(engine, "shut down portainer", op="container.stop",
                          targets=["portainer"])
    assert found == [] and intent is not None and intent.kind == Kind.ACTION
