"""Logs by time and journal trimming by size or age, and time zones named by city: the
real catalogue and parser plan each request against the homelab snapshot; slot values are
checked and rendered by understanding/slots.py (dates against a fixed day); cities are looked
up in this machine's own zone list (skipped where it has none).
"""

from __future__ import annotations

import json
from datetime import date

import pytest

from reos.model.report import StepResult
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from reos.understanding import choice, slots
from reos.words.answers import settings as answers
from reos.words.conversation import Voice
from tests.conftest import FIXTURES

SUNDAY = date(2026, 11, 22)
has_zones = pytest.mark.skipif(not slots.zones(), reason="this machine has no zone list")


@pytest.fixture(scope="module")
def engine():  # noqa: ANN201
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


def _commands(engine, text: str) -> list[str]:  # noqa: ANN001
    return [s.command for s in engine.plan(text).steps]


# -- trimming the journal ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "flag"), [
    ("shrink the journal to 500M", "--vacuum-size=500M"),
    ("keep the journal under 1 GB", "--vacuum-size=1G"),
    ("cap the logs at 2 gigs", "--vacuum-size=2G"),
    ("delete logs older than 3 days", "--vacuum-time=3d"),
    ("the journal is over 4 GB, keep only the last month of it and throw away the rest",
     "--vacuum-time=30d"),
])
def test_trimming_takes_its_size_or_age_from_the_request(engine, text: str, flag: str) -> None:  # noqa: ANN001
    plan = engine.plan(text)
    assert plan.kind == Kind.ACTION, plan.text()
    measure, trim = plan.steps
    assert measure.argv == ["journalctl", "--disk-usage"] and measure.read_only
    assert trim.argv[-2:] == ["journalctl", flag] and not trim.reversible
    assert trim.risk.label in ("high", "critical")
    assert "4G" not in trim.command  # a size said of the journal now is never the goal
    assert "cannot be undone" in plan.text()


@pytest.mark.parametrize(("text", "flag"), [
    ("keep the journal under 500 MB", "--vacuum-size=500M"),
    ("cap the logs at 2 gigs", "--vacuum-size=2G"),
])
def test_a_size_stays_a_size_where_its_number_is_also_a_pid(text: str, flag: str) -> None:
    """A number said with its unit is a size, even where a process happens to have that
    number as its pid (the CI's bed once had a process 500 and read "-n 500")."""
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    shape = data["processes"][0]
    data["processes"] += [{**shape, "pid": pid, "ppid": 1} for pid in (2, 500)]
    plan = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data)).plan(text)
    assert plan.steps and plan.steps[-1].argv[-2:] == ["journalctl", flag], plan.text()


@pytest.mark.parametrize(("text", "command"), [
    ("show the last 500 lines of the journal", "journalctl --no-pager -n 500 --output=short-iso"),
    ("show me the latest 20 log lines", "journalctl --no-pager -n 20 --output=short-iso"),
    ("journal since 3 days ago", "journalctl --since -3d --no-pager -n 200 --output=short-iso"),
    ("logs of nginx 2 days ago",
     "journalctl -u nginx.service --since -2d -n 50 --no-pager --output=short-iso"),
])
def test_last_before_a_count_and_ago_after_a_time_are_read_with_them(
        engine, text: str, command: str) -> None:  # noqa: ANN001
    """"last" said before a count, "ago" after a time: never a service named "last"."""
    assert _commands(engine, text) == [command]


@pytest.mark.parametrize("text", ["was there a reboot 10 minutes ago",
                                  "was the machine shut down 2 hours ago"])
def test_a_time_ago_is_never_a_delay_to_wait(engine, text: str) -> None:  # noqa: ANN001
    """"ago" is read with a time only after "since": a reboot 10 minutes ago is no
    reboot in 10 minutes."""
    assert not any("shutdown" in c for c in _commands(engine, text))


def test_a_size_is_a_checked_value_never_the_words() -> None:
    assert slots.values({"size": "500M"}, {})["vacuum_size"] == "500M"
    for bad in ("0M", "500", "5;rm", "-1G", "500MB"):
        assert "vacuum_size" not in slots.values({"size": bad}, {})


# -- times -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("since", "journal"), [
    ("yesterday@15:00", ("2026-11-21 15:00:00", None)),
    ("mon", ("2026-11-16", None)),
    ("lsun", ("2026-11-15", None)),
    ("today@09:00~today@10:00", ("2026-11-22 09:00:00", "2026-11-22 10:00:00")),
    ("2026-11-20@08:00", ("2026-11-20 08:00:00", None)),
    ("=mon", ("2026-11-16", "2026-11-17")),
    ("yesterday@18:00~today@06:00", ("2026-11-21 18:00:00", "2026-11-22 06:00:00")),
    ("yesterday", ("yesterday", "today")),
    ("2d", ("-2d", None)),
])
def test_moments_and_ranges_render_for_journalctl(since: str, journal: tuple) -> None:
    given = slots.values({"since": since}, {}, today=SUNDAY)
    assert (given.get("journal_since"), given.get("journal_until")) == journal


@pytest.mark.parametrize("bad", ["2026-02-30", "today@10:00~today@09:00", "mon@25:00",
                                 "x; rm -rf /", "=today~"])
def test_a_time_that_is_none_fills_nothing(bad: str) -> None:
    given = slots.values({"since": bad}, {}, today=SUNDAY)
    assert not {"journal_since", "journal_until", "since", "until"} & given.keys()


def test_the_boot_before_this_one_is_read_with_b_minus_one(engine) -> None:  # noqa: ANN001
    assert _commands(engine, "kernel messages from the previous boot") == [
        "journalctl -k -b -1 --no-pager -n 100 --output=short-iso"]
    assert "-b --no-pager" in _commands(engine, "show the warnings since boot")[0]


@pytest.mark.parametrize(("text", "fragments"), [
    ("warnings since yesterday 3pm", ["-p warning", "--since '"]),
    ("kernel messages since monday", ["_TRANSPORT=kernel", "--since 20"]),
    ("warnings between 9 and 10 this morning", [" 09:00:00'", "--until '", " 10:00:00'"]),
    ("kernel log since 2026-11-20 08:00", ["--since '2026-11-20 08:00:00'"]),
    ("show critical events from 9am to 11am yesterday", ["-p crit", " 09:00:00'",
                                                          " 11:00:00'"]),
    ("logs from the last 2 days", ["--since -2d"]),
])
def test_natural_times_reach_journalctl_as_checked_values(engine, text: str,
                                                          fragments: list[str]) -> None:  # noqa: ANN001
    [command] = _commands(engine, text)
    for fragment in fragments:
        assert fragment in command, command


def test_a_date_meant_for_an_expiry_stays_a_date(engine) -> None:  # noqa: ANN001
    assert _commands(engine, "set the expiry of bob to 2026-12-31") == [
        "sudo -n chage -E 2026-12-31 bob"]


# -- time zones by city --------------------------------------------------------------------------

@has_zones
@pytest.mark.parametrize(("text", "zone"), [
    ("set the timezone to Berlin", "Europe/Berlin"),
    ("switch to new york time", "America/New_York"),
    ("put the clock on london time", "Europe/London"),
    ("set timezone to CET", "CET"),
    ("set the time zone to utc", "UTC"),
    ("set the timezone to asia/tokyo", "Asia/Tokyo"),
])
def test_a_city_is_its_zone_from_this_machines_list(engine, text: str, zone: str) -> None:  # noqa: ANN001
    plan = engine.plan(text)
    assert plan.kind == Kind.ACTION, plan.text()
    [step] = plan.steps
    assert step.argv[-3:] == ["timedatectl", "set-timezone", zone]
    assert step.target is not None and step.target.kind == "timezone"  # undo sets it back


@has_zones
def test_a_city_several_zones_share_is_asked_about(engine) -> None:  # noqa: ANN001
    if len(slots.zones().get("eastern", ())) < 2:
        pytest.skip("this zone list names one zone 'eastern'")
    plan = engine.plan("set the clock to eastern time")
    assert plan.kind == Kind.CLARIFY
    labels = [label for label, _ in plan.options]
    assert any("America/New_York" in label for label in labels), labels
    picked = choice.pick("1", plan.options)
    chosen = engine.builder().build("set the clock to eastern time", picked)
    [step] = chosen.steps
    assert step.argv[-1] == picked.params["timezone"]


@has_zones
def test_a_zone_the_machine_does_not_know_never_reaches_argv(engine) -> None:  # noqa: ANN001
    for text in ("set the timezone to atlantis", "set the timezone to mars/olympus"):
        plan = engine.plan(text)
        assert not plan.steps and plan.kind != Kind.ACTION, plan.text()


# -- timers that failed, and the files of /etc/cron.d ----------------------------------------------

def _result(stdout: str, ok: bool = True, stderr: str = "") -> StepResult:
    return StepResult("s1", ok, 0 if ok else 1, stdout, stderr, 0.0)


_TIMERS = json.dumps([
    {"next": 1_900_000_000_000_000, "left": 1, "last": None, "passed": None,
     "unit": "logrotate.timer", "activates": "logrotate.service"},
    {"next": 1_900_000_600_000_000, "left": 1, "last": None, "passed": None,
     "unit": "fstrim.timer", "activates": "fstrim.service"}])


def test_failed_timers_name_the_job_and_the_timer_that_starts_it() -> None:
    failed = json.dumps([{"unit": "logrotate.service", "load": "loaded", "active": "failed",
                          "sub": "failed", "description": "Rotate log files"},
                         {"unit": "nginx.service", "load": "loaded", "active": "failed",
                          "sub": "failed", "description": "nginx"}])
    said = answers.timers([_result(_TIMERS), _result(failed)], {}, Voice())
    assert "the next to run is logrotate.timer" in said
    assert "Failed: logrotate.service (started by logrotate.timer)." in said
    assert "nginx" not in said.split("Failed:")[1]  # no timer starts it
    calm = answers.timers([_result(_TIMERS), _result("[]")], {}, Voice())
    assert "None of the timers, or the jobs they start, has failed." in calm


def test_the_cron_answer_reads_cron_d_jobs_and_says_when_root_is_needed() -> None:
    grep = ("/etc/cron.d/backup:30 2 * * * root /usr/local/bin/backup\n"
            "/etc/cron.d/backup:MAILTO=ops\n")
    said = answers.cron([_result("17 * * * * root run-parts /etc/cron.hourly\n"),
                         _result("/etc/cron.d:\nbackup\n"),
                         _result("", ok=False, stderr="sudo: a password is required\n"),
                         _result(grep)], {"user": "bob"}, Voice())
    assert "backup: 30 2 * * * root /usr/local/bin/backup" in said
    assert "MAILTO" not in said
    assert "Reading bob's crontab needs root" in said
