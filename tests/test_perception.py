"""Meta utterances are recognised as whole utterances only."""

from __future__ import annotations

import pytest

from reos.understanding.perception import Meta, keeps, perceive, split_plan_prefix


@pytest.mark.parametrize("text,action", [
    ("undo", "undo"), ("Undo that!", "undo"), ("please undo", "undo"), ("roll back", "undo"),
    ("what can you undo?", "list_undo"), ("What can I undo", "list_undo"),
    ("yes", "yes"), ("Y", "yes"), ("go ahead", "yes"), ("yes please", "yes"),
    ("no", "no"), ("cancel", "no"), ("never mind", "no"),
])
def test_whole_utterances_are_meta(text: str, action: str) -> None:
    meta = perceive(text)
    assert meta is not None and meta.action == action


@pytest.mark.parametrize("text", [
    "yesterday's logs", "show me yesterday's logs", "now restart nginx", "nothing",
    "undo the nginx install and reinstall it", "no space left on device?",
    "yes restart nginx", "node", "yesno", "stop portainer",
])
def test_utterances_containing_meta_words_are_not_meta(text: str) -> None:
    assert perceive(text) is None


def test_verbosity_utterances() -> None:
    brief, detailed = perceive("be brief"), perceive("Be more detailed.")
    assert brief is not None and brief.value == "minimal"
    assert detailed is not None and detailed.value == "detailed"


def test_plan_prefix() -> None:
    assert split_plan_prefix("plan: restart portainer") == (True, "restart portainer")
    assert split_plan_prefix("Plan:stop n8n") == (True, "stop n8n")
    assert split_plan_prefix("planet stop") == (False, "planet stop")


@pytest.mark.parametrize(("said", "kept"), [
    ("always be brief", True), ("please always be brief", True),
    ("can you always be brief", True), ("be brief by default please", True),
    ("keep it short, and remember that", True), ("be concise permanently", True),
    ("be brief", False), ("be brief, not always", False), ("be brief from now on", False),
    ("be brief about the backups", False), ("always restart nginx", True),
])
def test_keeping_a_verbosity_is_said_in_so_many_words(said: str, kept: bool) -> None:
    # `keeps` only says whether the words ask to keep it; whether it is a verbosity at
    # all is perceive's (or the parser's) reading
    assert keeps(said) is kept


def test_a_kept_verbosity_is_perceived_as_one() -> None:
    assert perceive("please always be brief") == Meta("verbosity", "minimal", keep=True)
    assert perceive("be brief") == Meta("verbosity", "minimal")
    assert perceive("be brief, not always") is None
