"""The mail queue of Postfix (templates/mail.toml: mail.queue, mail.flush, mail.delete):
what ordinary phrasings plan to, a queue id taken exactly as written (the queue_id slot),
deleting every message never planned, no undo where there is none, Postfix missing said
plainly (reos/planning/mail.py), the risk engine's verdicts on postqueue and postsuper
(reos/safety/rules_system.py) and postqueue's listing put into words
(reos/words/answers/mail.py).

Plans are made against the homelab fixture, with Postfix's package and service added where
a test needs it; nothing is run: no Postfix is installed in the Debian bed (offline, its
local apt repository holds no postfix), so the commands are checked as plans only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.model.report import StepResult
from reos.model.risk import RiskLevel
from reos.safety.risk import assess_argv
from reos.settings import Settings
from reos.system.snapshot import SCHEMA, SystemSnapshot
from reos.words.conversation import Voice

FIXTURES = Path(__file__).parent / "fixtures"
POSTFIX_PACKAGE = {"name": "postfix", "version": "3.7.11-0+deb12u1"}
POSTFIX_SERVICE = {"name": "postfix.service", "description": "Postfix Mail Transport Agent",
                   "load": "loaded", "active": "active", "sub": "exited",
                   "enabled": "enabled"}


def _snapshot(package: bool = True, service: bool = True) -> dict:
    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    if package:
        data["packages"].append(POSTFIX_PACKAGE)
    if service:
        data["services"].append(POSTFIX_SERVICE)
    return data


def _plan(request: str, data: dict | None = None):  # noqa: ANN202
    from reos.engine import ReasoningEngine

    snapshot = SystemSnapshot.from_dict(data if data is not None else _snapshot())
    return ReasoningEngine(Settings(), snapshot=snapshot).plan(request)


# -- what ordinary phrasings plan to ----------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "what's in the mail queue", "mailq", "how many mails are waiting", "show the mail queue",
    "postqueue -p", "why are emails stuck in the queue", "are there deferred mails"])
def test_the_queue_is_postqueue_p_read_only_and_without_root(request_: str) -> None:
    plan = _plan(request_)
    assert plan.intent is not None and plan.intent.operation == "mail.queue", plan.text()
    assert [s.argv for s in plan.steps] == [["postqueue", "-p"]]
    assert plan.read_only and plan.steps[0].read_only and not plan.steps[0].needs_root


@pytest.mark.parametrize("request_", [
    "flush the mail queue", "retry delivery of the deferred mail", "postqueue -f",
    "try to deliver the stuck emails again", "flush the queue"])
def test_a_flush_is_postqueue_f_with_no_undo(request_: str) -> None:
    plan = _plan(request_)
    assert plan.intent is not None and plan.intent.operation == "mail.flush", plan.text()
    [step] = plan.steps
    assert step.argv == ["postqueue", "-f"]  # Postfix lets anyone flush by default
    assert not step.read_only and not step.reversible and step.rollback is None
    assert "This cannot be undone." in plan.text()


@pytest.mark.parametrize(("request_", "queue_id"), [
    ("delete message 4XkQ2R1vZzN0 from the queue", "4XkQ2R1vZzN0"),
    ("postsuper -d A1B2C3D4E5", "A1B2C3D4E5"),
    ("remove the stuck mail 3F2A11C0B2 from the mail queue", "3F2A11C0B2"),
    ("could you drop 4XkQ2R1vZzN0 from the mail queue please", "4XkQ2R1vZzN0"),
])
def test_one_message_is_deleted_by_its_id_exactly_as_written(request_: str,
                                                             queue_id: str) -> None:
    plan = _plan(request_)
    assert plan.intent is not None and plan.intent.operation == "mail.delete", plan.text()
    [step] = plan.steps
    assert step.argv == ["sudo", "-n", "postsuper", "-d", queue_id]
    assert not step.reversible and step.rollback is None
    assert "This cannot be undone." in plan.text()


@pytest.mark.parametrize("request_", [
    "delete all mail", "delete all queued mail", "clear the mail queue",
    "empty the mail queue", "delete the deferred mail", "purge the mail queue",
    "postsuper -d ALL", "delete all mail from the queue"])
def test_deleting_every_message_is_never_planned_from_vague_words(request_: str) -> None:
    plan = _plan(request_)
    assert not plan.steps, plan.text()
    assert not any("ALL" in s.argv for s in plan.steps)
    assert plan.question and "queue id" in plan.question
    assert "never the whole queue" in plan.question


@pytest.mark.parametrize("request_", [
    "delete a1b2c3d4e5 from the mail queue",  # a short id is upper-case hex
    "delete message ALL from the queue", "delete message -d from the queue"])
def test_a_word_that_is_no_queue_id_as_written_is_asked_about(request_: str) -> None:
    plan = _plan(request_)
    assert not plan.steps and plan.question and "queue id" in plan.question


# -- Postfix missing ---------------------------------------------------------------------------
@pytest.mark.parametrize(("request_", "said"), [
    ("what's in the mail queue", "no Postfix mail queue to show"),
    ("flush the mail queue", "no Postfix mail queue to flush"),
    ("delete message 4XkQ2R1vZzN0 from the queue", "no Postfix mail queue to delete from"),
])
def test_without_postfix_it_is_said_plainly_and_nothing_planned(request_: str,
                                                                said: str) -> None:
    plan = _plan(request_, _snapshot(package=False, service=False))
    assert not plan.steps and not plan.question
    assert "Postfix is not installed here" in plan.text() and said in plan.text()


def test_postfix_is_known_by_its_package_or_its_service_and_assumed_when_not_read() -> None:
    from reos.planning import mail

    def system(data: dict) -> str:
        return mail.system(SystemSnapshot.from_dict(data))

    assert system(_snapshot(package=True, service=False)) == "postfix"
    assert system(_snapshot(package=False, service=True)) == "postfix"
    debian_instance = _snapshot(package=False, service=False)
    debian_instance["services"].append({**POSTFIX_SERVICE, "name": "postfix@-.service"})
    assert system(debian_instance) == "postfix"
    assert system(_snapshot(package=False, service=False)) == "none"
    unread = {**_snapshot(), "packages": None, "services": None}
    assert system(unread) == "postfix"  # the command itself says whether it is there


def test_a_queue_id_keeps_the_case_the_request_wrote() -> None:
    from reos.planning.mail import spelled

    assert spelled("4xkq2r1vzzn0", "delete 4XkQ2R1vZzN0 now") == "4XkQ2R1vZzN0"
    assert spelled("a1b2c3d4e5", "drop A1B2C3D4E5.") == "A1B2C3D4E5"
    assert spelled("a1b2c3d4e5", "drop XA1B2C3D4E5") is None  # part of another word
    assert spelled("a1b2c3d4e5", "drop it") is None


# -- near phrasings plan as before -----------------------------------------------------------
@pytest.mark.parametrize(("near", "operation", "mail_request", "mail_operation"), [
    ("clear the print queue", "printer.cancel_jobs", "clear the mail queue", "mail.delete"),
    ("show the print queue", "printer.queue", "show the mail queue", "mail.queue"),
    ("flush the dns cache", "net.flush_dns", "flush the mail queue", "mail.flush"),
    ("delete user bob", "user.delete", "delete message 4XkQ2R1vZzN0", "mail.delete"),
])
def test_the_mail_queue_takes_its_own_words_and_near_phrasings_plan_as_before(
        near: str, operation: str, mail_request: str, mail_operation: str) -> None:
    plan = _plan(near)
    assert plan.intent is not None and plan.intent.operation == operation, plan.text()
    plan = _plan(mail_request)
    assert plan.intent is not None and plan.intent.operation == mail_operation, plan.text()


# -- the risk engine ------------------------------------------------------------------------
def test_the_queue_listing_only_reads_and_changes_to_the_queue_are_judged_by_what_they_do(
        ) -> None:
    assert assess_argv(["postqueue", "-p"]).read_only
    assert assess_argv(["mailq"]).read_only
    flush = assess_argv(["postqueue", "-f"])
    assert not flush.read_only and flush.risk >= RiskLevel.LOW
    assert assess_argv(["postsuper", "-d", "ALL"]).risk == RiskLevel.HIGH


@pytest.mark.parametrize(("argv", "risk"), [
    (["postsuper", "-d", "ALL"], RiskLevel.HIGH),
    (["postsuper", "-dALL"], RiskLevel.HIGH),
    (["postsuper", "-v", "-d", "ALL", "deferred"], RiskLevel.HIGH),
    (["postsuper", "-d", "-"], RiskLevel.HIGH),  # the ids its input holds: any number
    (["sudo", "-n", "postsuper", "-d", "ALL"], RiskLevel.HIGH),
    (["postsuper", "-d", "4XkQ2R1vZzN0"], RiskLevel.MEDIUM),
])
def test_deleting_queued_mail_cannot_be_undone_and_all_of_it_is_high(
        argv: list[str], risk: RiskLevel) -> None:
    verdict = assess_argv(argv)
    assert verdict.risk == risk and not verdict.read_only and not verdict.reversible
    assert verdict.needs_root and not verdict.blocked


@pytest.mark.parametrize("argv", [
    ["postsuper", "-h", "ALL", "deferred"], ["postsuper", "-H", "ALL"],
    ["postsuper", "-r", "ALL"], ["postsuper", "-s"], ["postsuper"]])
def test_other_queue_changes_are_medium_as_root(argv: list[str]) -> None:
    verdict = assess_argv(argv)
    assert verdict.risk == RiskLevel.MEDIUM and not verdict.read_only and verdict.needs_root
    assert any(r.startswith("postsuper ") for r in verdict.reasons), verdict.reasons


# -- the answer -----------------------------------------------------------------------------
LISTING = """\
-Queue ID-  --Size-- ----Arrival Time---- -Sender/Recipient-------
4XkQ2R1vZzN0     1534 Sun Nov 29 10:02:11  alice@example.org
(connect to mx.example.com[203.0.113.9]:25: Connection timed out)
                                         bob@example.com

A1B2C3D4E5!      812 Sun Nov 29 09:40:03  MAILER-DAEMON
                                         carol@example.net
                                         dave@example.net

-- 3 Kbytes in 2 Requests.
"""


def _answer(stdout: str, exit_code: int = 0, stderr: str = "") -> str:
    from reos.words.answers.common import ANSWERS, TOLERANT

    assert "mail_queue" in TOLERANT
    result = StepResult("s1", exit_code == 0, exit_code, stdout=stdout, stderr=stderr)
    return ANSWERS["mail_queue"]([result], {}, Voice())


def test_the_listing_is_said_message_by_message() -> None:
    said = _answer(LISTING)
    assert said.startswith("2 messages in the mail queue (1 deferred, 1 on hold):")
    assert ("4XkQ2R1vZzN0: from alice@example.org to bob@example.com \u2014 connect to "
            "mx.example.com[203.0.113.9]:25: Connection timed out") in said
    assert "A1B2C3D4E5 (on hold): from MAILER-DAEMON to carol@example.net, dave@example.net" in said


def test_an_empty_queue_and_a_failure_are_said() -> None:
    assert "is empty" in _answer("Mail queue is empty\n")
    failed = _answer("", 69, "postqueue: fatal: Queue report unavailable - mail system is down")
    assert failed.startswith("I couldn't read the mail queue (postqueue: fatal: Queue report")
    assert "not installed" in _answer("", 127, "postqueue: command not found")
