"""Questions and stories are read as what they ask (issue 21).

A question never becomes a change, an action no verb asked for never wins over the
request's own "check" or "show", a request told with its story is read by the sentence
that asks, and "not X" after a comma leaves X out even when more words follow it.
Planned against tests/fixtures/homelab.json with no model.
"""

from __future__ import annotations

import pytest

from reos.understanding.reading import AS_QUESTION
from tests.understanding.evaluate import engines


@pytest.fixture(scope="module")
def engine():
    return engines()["apt"]


def acting(engine, say: str) -> list[str]:
    return [s.command for s in engine.plan(say).steps if not s.read_only]


@pytest.mark.parametrize("say", [
    "check the filesystem on sdc1",  # was mkfs.ext4 -F /dev/sdc1
    "check the ssh server config",  # was apt-get purge openssh-server
    "does the machine need a reboot",  # was systemctl reboot
    "is it a good idea to upgrade all packages now",
    "which packages can be upgraded",  # was a full upgrade
    "are automatic updates turned on",  # was read as starting a container
    "does anything need restarting after the upgrade",
    "show the firewall config",
    "the machine need a reboot after the updates?",  # put as a question by its mark only
    "nginx restarted after the upgrade?",
])
def test_a_question_or_a_check_plans_no_change(engine, say: str) -> None:
    assert acting(engine, say) == []


def test_a_question_nothing_answers_says_so_and_offers_the_action(engine) -> None:
    plan = engine.plan("is it safe to shut down the machine")
    assert plan.kind.value == "clarify" and not plan.steps
    assert AS_QUESTION in plan.text()
    assert len(plan.options) == 1  # "yes" still shuts it down, when that was meant


@pytest.mark.parametrize(("say", "command"), [
    ("do not kill portainer, stop it cleanly", "docker stop portainer"),
    ("have apache start automatically at boot", "sudo -n systemctl enable apache2.service"),
    ("can you restart nginx?", "sudo -n systemctl restart nginx.service"),
    ("could you stop portainer?", "docker stop portainer"),
    ("please stop the printer service", "sudo -n systemctl stop cups.service"),
])
def test_telling_is_not_asking(engine, say: str, command: str) -> None:
    assert acting(engine, say) == [command]


@pytest.mark.parametrize(("say", "commands"), [
    ("Our backups did not run last night and the logs say nothing useful. I already "
     "looked at the disk, it has room. Please restart cron.",
     ["sudo -n systemctl restart cron.service"]),
    ("The portainer container has been acting up since the update this morning and the "
     "dashboard times out. Please restart it.", ["docker restart portainer"]),
])
def test_a_story_is_read_by_its_asking_sentence(engine, say: str, commands: list[str]) -> None:
    assert acting(engine, say) == commands


def test_not_x_after_a_comma_leaves_x_out(engine) -> None:
    said = "restart the nextcloud containers, not the nextcloud-db one itself"
    commands = acting(engine, said)
    assert commands and not any("nextcloud-db" in c for c in commands)


@pytest.mark.parametrize(("say", "reply"), [
    ("thanks!", "You're welcome."), ("Thank you very much", "You're welcome."),
    ("hello", "Hello."), ("good morning", "Hello."),
])
def test_small_talk_gets_a_word_back_and_no_plan(engine, say: str, reply: str) -> None:
    plan, answer = engine.meta_plan(say, perform=True)
    assert plan.kind.value == "meta" and not plan.steps
    assert answer.text.startswith(reply)


def test_thanks_inside_a_request_is_still_the_request(engine) -> None:
    assert acting(engine, "thanks, now restart nginx") == [
        "sudo -n systemctl restart nginx.service"]
