"""The conversation's state machine (reos/session.py): each event moves it as named, a
question and a waiting plan can be open together, and a paused run ends when not
continued. The plans are plain records; nothing runs."""

from __future__ import annotations

from reos import session
from reos.model.plan import Plan
from reos.model.request import Kind
from reos.session import Session


def plan(request: str, kind: Kind = Kind.ACTION) -> Plan:
    return Plan(request, kind)


def test_a_plan_waits_is_confirmed_and_approved() -> None:
    s, p = Session(), plan("remove portainer")
    assert s.state == session.IDLE
    s.offer(p)
    assert s.state == session.AWAITING and s.waiting is p and s.confirming is None
    s.confirm()
    assert s.state == session.CONFIRMING and s.confirming is p
    assert s.approve() is p and s.state == session.IDLE and s.waiting is None


def test_a_question_can_be_open_while_a_plan_waits() -> None:
    s, p, q = Session(), plan("stop redis"), plan("restart the db", Kind.CLARIFY)
    s.offer(p)
    s.ask(q)
    assert s.state == session.AWAITING and s.question is q  # the plan is more pressing
    assert s.take_question() is q and s.question is None and s.waiting is p


def test_an_undo_waits_for_the_transaction_it_showed_and_a_plan_replaces_it() -> None:
    s = Session()
    s.wait_for_undo(7)
    assert s.state == session.UNDO_WAITING and s.undo_shown == 7
    s.offer(plan("stop redis"))  # a new plan: the undo no longer waits
    assert not s.undo_waiting and s.state == session.AWAITING
    s.wait_for_undo(8)
    assert s.decline() == (None, True) and s.state == session.IDLE


def test_an_edit_makes_the_second_question_ask_again() -> None:
    s, p = Session(), plan("purge nginx")
    s.offer(p)
    s.confirm()
    s.reconsider()
    assert s.state == session.AWAITING and s.confirming is None


def test_running_ends_when_done() -> None:
    s, p = Session(), plan("stop redis")
    s.run(p)
    assert s.state == session.RUNNING and s.running is p
    s.offer(plan("later"))
    assert s.state == session.RUNNING  # what runs is the most pressing
    s.done()
    assert s.state == session.AWAITING and s.running is None
