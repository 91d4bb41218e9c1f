"""Reflection as a rule engine: the rules over outcome records, their thresholds from
settings, clearing, evidence, storage of findings, the migration of an existing
database, `reos learned` and its model summary (against the fake Ollama server)."""

from __future__ import annotations

import json
import sqlite3

import pytest
from msgspec.structs import replace

from reos import paths
from reos.errors import SettingsError
from reos.memory.reflection import RULES, describe, evaluate
from reos.settings import ReflectionSettings, parse
from reos.store import db as db_module
from reos.store import knowledge as knowledge_module
from reos.store.db import Database
from reos.store.knowledge import KINDS, Knowledge, Outcome
from tests.conftest import reos, reos_json

SIG = "systemctl start *"


def runs(*oks: bool, subject: str = SIG, kind: str = "command", start: int = 0,
         **extra: object) -> list[Outcome]:
    """Outcomes a minute apart, oldest first."""
    return [Outcome(subject, ok, f"2026-11-22T10:{n:02d}:00.000000Z", kind,
                    **extra)  # type: ignore[arg-type]
            for n, ok in enumerate(oks, start=start)]


def by_rule(found: list, rule: str) -> list:
    return [f for f in found if f.rule == rule]


# -- the rules, pure --------------------------------------------------------------------
def test_rules_are_data_with_thresholds_that_are_settings() -> None:
    keys = set(ReflectionSettings.__struct_fields__)
    assert [r.name for r in RULES] == ["failing", "slow", "failure_rate", "fix_repeats",
                                       "verification"]
    for rule in RULES:
        assert rule.thresholds and set(rule.thresholds) <= keys, rule.name
        assert rule.text and rule.suggestion and set(rule.watches) <= set(KINDS)
    assert keys == {k for r in RULES for k in r.thresholds}  # every setting is used


def test_failures_in_a_row_with_evidence_and_the_last_times() -> None:
    records = runs(True, False, False, False)
    [found] = evaluate(records, ReflectionSettings())
    assert (found.rule, found.subject, found.cleared) == ("failing", SIG, False)
    assert found.text == "\u201csystemctl start *\u201d has failed 3 times in a row here."
    assert found.suggestion.startswith("I'll ask before trying it again")
    assert found.evidence.numbers == {"failures_in_a_row": 3}
    assert found.evidence.last == ("2026-11-22T10:03:00.000000Z", "2026-11-22T10:02:00.000000Z",
                                   "2026-11-22T10:01:00.000000Z")
    assert found.evidence.summary == "3 failures in a row (unknown \u00d73)"
    assert evaluate(runs(False, False, True, False), ReflectionSettings()) == []


def test_a_success_after_a_failing_streak_clears_it() -> None:
    [found] = evaluate(runs(False, False, False, True), ReflectionSettings())
    assert found.rule == "failing" and found.cleared
    assert found.text == ("\u201csystemctl start *\u201d worked again after failing 3 times "
                          "in a row.")
    assert found.evidence.summary.endswith("then it worked at 2026-11-22 10:03:00")
    assert found.suggestion == ""


@pytest.mark.parametrize(("key", "records", "flipped", "rule"), [
    ("failures_in_a_row", runs(False, False), 2, "failing"),
    ("timeouts", runs(True) + runs(False, start=1, timed_out=True), 1, "slow"),
    ("failure_rate", runs(True, False, True, False, True, subject="svc", kind="template"),
     0.4, "failure_rate"),
    ("min_runs", runs(False, False, subject="service.restart", kind="operation"), 2,
     "failure_rate"),
    ("fix_repeats", runs(True, True, fix="refresh"), 2, "fix_repeats"),
    ("verification_failures", runs(True) + runs(False, start=1, verified=False), 1,
     "verification"),
])
def test_each_threshold_changes_what_is_found(key: str, records: list[Outcome],
                                              flipped: float, rule: str) -> None:
    assert by_rule(evaluate(records, ReflectionSettings()), rule) == []
    found = by_rule(evaluate(records, replace(ReflectionSettings(), **{key: flipped})), rule)
    assert len(found) == 1 and not found[0].cleared


def test_timeouts_and_verification_are_cleared_by_a_run_that_went_right() -> None:
    slow = runs(False, False, True, timed_out=True)
    slow[-1] = replace(slow[-1], timed_out=False)
    [found] = by_rule(evaluate(slow, ReflectionSettings()), "slow")
    assert found.cleared and found.evidence.numbers["timeouts"] == 2
    missed = [replace(o, target="reos-broken.service") for o in
              runs(False, False, verified=False)]
    [found] = by_rule(evaluate(missed, ReflectionSettings()), "verification")
    assert not found.cleared
    assert "reos-broken.service never reaches the intended state" in found.suggestion
    [found] = by_rule(evaluate([*missed, *runs(True)], ReflectionSettings()), "verification")
    assert found.cleared


def test_an_operation_failing_on_most_runs_names_what_to_check() -> None:
    records = runs(False, True, False, False, subject="nginx-site", kind="template")
    [found] = evaluate(records, ReflectionSettings())
    assert found.text == "Plans from the template \u201cnginx-site\u201d failed 3 of 4 times here."
    assert found.suggestion.startswith("Check the template \u201cnginx-site\u201d")
    assert found.evidence.numbers == {"failures": 3, "runs": 4, "rate": 0.75}
    [op] = evaluate(runs(False, True, False, subject="service.restart", kind="operation"),
                    ReflectionSettings())
    assert op.text.startswith("The operation \u201cservice.restart\u201d failed 2 of 3")


def test_failing_on_most_runs_is_judged_for_operations_not_commands() -> None:
    # a command failing often is what failures in a row are for: one finding, not two
    found = evaluate(runs(False, True, False, False, True), ReflectionSettings())
    assert found == []
    found = evaluate(runs(False, True, False, False, True, kind="operation"),
                     ReflectionSettings())
    assert [f.rule for f in found] == ["failure_rate"]


def test_a_fix_needed_again_and_again_says_it_is_applied_up_front() -> None:
    [found] = evaluate(runs(True, True, True, fix="refresh", subject="apt-get install *"),
                       ReflectionSettings())
    assert found.text == ("\u201capt-get install *\u201d needed the fix \u201crefresh\u201d 3 "
                          "times here.")
    assert found.suggestion == "I now do it up front when I plan it."
    [other] = evaluate(runs(True, True, True, fix="sudo"), ReflectionSettings())
    assert other.suggestion.startswith("consider doing it before")


def test_describe_gives_one_line_per_finding_for_the_tui() -> None:
    found = evaluate(runs(False, False, False), ReflectionSettings()) + evaluate(
        runs(False, False, False, True, subject="apt-get update *"), ReflectionSettings())
    lines = describe(found)
    assert lines[0].startswith("\u2022 \u201csystemctl start *\u201d has failed 3 times")
    assert "last: 2026-11-22 10:02:00, 2026-11-22 10:01:00" in lines[0]
    assert lines[0].endswith("\u2192 " + found[0].suggestion)
    assert lines[1].startswith("\u2713 \u201capt-get update *\u201d worked again")


# -- settings ---------------------------------------------------------------------------
def test_reflection_settings_are_read_and_checked(tmp_path) -> None:
    path = tmp_path / "settings.toml"
    s = parse("[reflection]\nfailures_in_a_row = 5\nfailure_rate = 1\n", path)
    assert s.reflection.failures_in_a_row == 5 and s.reflection.failure_rate == 1.0
    with pytest.raises(SettingsError) as bad:
        parse("[reflection]\n\nfailure_rate = 1.5\n", path)
    assert f"{path}:3: [reflection] failure_rate must be between" in bad.value.message
    with pytest.raises(SettingsError):
        parse("[reflection]\ntimeouts = 0\n", path)
    assert "Did you mean 'timeouts'" in parse("[reflection]\ntimeout = 3\n", path).warnings[0]


# -- storage ------------------------------------------------------------------------------
def knowledge(**settings: float) -> Knowledge:
    return Knowledge(Database(paths.database_file()),
                     reflection=replace(ReflectionSettings(), **settings), judge=evaluate)


def test_reflect_stores_findings_once_with_evidence_and_clears_them() -> None:
    k = knowledge()
    argv = ["sudo", "-n", "systemctl", "start", "reos-broken.service"]
    for _ in range(3):
        k.record(argv, False, "unknown")
    [new] = k.reflect()
    assert new.rule == "failing" and "has failed 3 times in a row" in str(new)
    assert k.reflect() == []  # known already: not new again
    [stored] = k.findings()
    assert stored["kind"] == "failing" and stored["subject"] == SIG
    assert stored["evidence"]["numbers"] == {"failures_in_a_row": 3}
    assert len(stored["evidence"]["last"]) == 3 and stored["suggestion"]
    assert k.flagged(SIG).endswith("look at why it fails (reos history) first.")
    k.record(argv, True)
    assert k.reflect() == []
    assert k.findings() == [] and k.flagged(SIG) is None
    [cleared] = k.findings(include_cleared=True)
    assert cleared["cleared"] and cleared["cleared_at"]
    assert cleared["text"].endswith("worked again after failing 3 times in a row.")
    for _ in range(3):
        k.record(argv, False, "unknown")
    assert [f.rule for f in k.reflect()] == ["failing"]  # it came back: new again


def test_thresholds_come_from_the_settings_given() -> None:
    k = knowledge(failures_in_a_row=5)
    for _ in range(3):
        k.record(["systemctl", "start", "x.service"], False)
    assert k.reflect() == []
    assert [f.rule for f in k.reflect(ReflectionSettings())] == ["failing"]
    assert k.reflect(replace(ReflectionSettings(), failures_in_a_row=4)) == []
    assert k.findings() == []  # a higher threshold clears what no longer holds


def test_without_the_rules_the_store_keeps_records_but_finds_nothing() -> None:
    k = Knowledge(Database(paths.database_file()))  # store never imports memory
    for _ in range(4):
        k.record(["systemctl", "start", "x.service"], False)
    assert k.reflect() == [] and len(k.outcomes()) == 4
    assert [f.rule for f in Knowledge(k.db, judge=evaluate).reflect()] == ["failing"]


def test_the_engines_knowledge_has_the_rules_and_the_thresholds_of_settings() -> None:
    from reos.engine import ReasoningEngine
    from reos.settings import Settings

    settings = Settings()
    settings.reflection.failures_in_a_row = 2
    k = ReasoningEngine(settings).knowledge
    for _ in range(2):
        k.record(["systemctl", "start", "x.service"], False)
    assert [f.rule for f in k.reflect()] == ["failing"]


def test_proactive_fixes_follow_fix_repeats() -> None:
    k = knowledge(fix_repeats=2)
    for _ in range(2):
        k.record(["apt-get", "install", "-y", "x"], True, fix="refresh")
    assert k.proactive("apt-get install *") == [("refresh", 2)]
    assert Knowledge(k.db).proactive("apt-get install *") == []  # default: 3


def test_verification_failures_are_counted_with_their_target() -> None:
    k = knowledge()
    k.record(["systemctl", "start", "a.service"], False, "verification")  # as the executor
    k.record(["systemctl", "start", "a.service"], False, "unknown", verified=False)
    assert [o.verified for o in k.outcomes()] == [False, False]
    [found] = [f for f in k.reflect() if f.rule == "verification"]
    assert "a.service never reaches" in found.suggestion


def test_operation_counts_generalise_template_counts() -> None:
    k = knowledge()
    k.record_template("nginx-site", False)
    k.record_operation("service.restart", True)
    k.record_template("nginx-site", False)
    k.record_template("nginx-site", True)
    k.record_template(None, False)
    ops = {(o["kind"], o["operation"]): (o["runs"], o["failures"]) for o in k.operations()}
    assert ops == {("template", "nginx-site"): (3, 2), ("operation", "service.restart"): (1, 0)}
    [found] = k.reflect()
    assert found.rule == "failure_rate" and found.kind == "template"


def test_records_are_bounded_per_subject_and_forgotten(monkeypatch) -> None:
    monkeypatch.setattr(knowledge_module, "RECORDS_PER_SUBJECT", 4)
    k = knowledge()
    for n in range(7):
        k.record(["systemctl", "start", "x"], n % 2 == 0)
    k.record_operation("op", True)
    assert [o.ok for o in k.outcomes() if o.kind == "command"] == [False, True, False, True]
    k.reflect()
    assert k.forget() == 1
    capped = Knowledge(k.db, cap=2)  # a pattern pushed out of the cap takes its records along
    for verb in ("a", "b", "c"):
        capped.record(["tool", verb], False)
    for n in range(3):
        capped.record_operation(f"op{n}", True)
    assert {o.subject for o in capped.outcomes()} == {"tool b *", "tool c *", "op1", "op2"}
    assert capped.forget() == 2
    assert k.outcomes() == [] and k.operations() == [] and k.findings(True) == []


def test_the_migration_keeps_what_an_existing_database_knew(monkeypatch) -> None:
    path = paths.database_file()
    old = [m for m in db_module.MIGRATIONS if m[0] <= "005"]
    monkeypatch.setattr(db_module, "MIGRATIONS", old)
    before = Database(path)
    conn = before.connect()
    conn.execute("INSERT INTO learned VALUES ('apt-get install *', 3, ?, ?, 0, 0, "
                 "'2026-01-01T00:00:00.000000Z')",
                 (json.dumps({"missing_dependency": 3}), json.dumps({"refresh": 3})))
    conn.execute("INSERT INTO learned VALUES ('systemctl start *', 1, ?, '{}', 3, 2, "
                 "'2026-01-02T00:00:00.000000Z')", (json.dumps({"unknown": 4}),))
    conn.execute("INSERT INTO template_outcomes VALUES ('nginx-site', 4, 3)")
    for kind, subject in (("failing", "systemctl start *"), ("template", "nginx-site")):
        conn.execute("INSERT INTO findings (kind, subject, text, created_at) VALUES "
                     "(?, ?, 'old words', '2026-01-02T00:00:00.000000Z')", (kind, subject))
    before.close()
    monkeypatch.undo()

    k = Knowledge(Database(path), judge=evaluate)
    names = {r[0] for r in k.db.connect().execute("SELECT name FROM migrations")}
    assert "007_reflection" in names
    assert k.proactive("apt-get install *") == [("refresh", 3)]
    assert k.operations()[0] == {"kind": "template", "operation": "nginx-site", "runs": 4,
                                 "failures": 3, "updated_at": k.operations()[0]["updated_at"]}
    assert {f["kind"] for f in k.findings()} == {"failing", "failure_rate"}  # renamed
    assert k.flagged("systemctl start *")
    new = k.reflect()  # the same findings hold, now with their evidence: none is new
    assert {f.rule for f in new} == {"slow", "fix_repeats"}
    stored = {f["kind"]: f for f in k.findings()}
    assert stored["failing"]["evidence"]["numbers"] == {"failures_in_a_row": 3}
    assert stored["failing"]["created_at"] == "2026-01-02T00:00:00.000000Z"
    assert stored["failure_rate"]["text"].startswith("Plans from the template")
    assert stored["slow"]["evidence"]["numbers"]["timeouts"] == 2
    with pytest.raises(sqlite3.OperationalError):
        k.db.connect().execute("SELECT * FROM template_outcomes")


# -- reos learned -------------------------------------------------------------------------
def failing_three_times() -> None:
    k = knowledge()
    for _ in range(3):
        k.record(["systemctl", "start", "reos-broken.service"], False, "unknown")
    k.reflect()


def test_learned_shows_findings_with_evidence_and_suggested_action() -> None:
    failing_three_times()
    out = reos("learned").stdout
    assert ("What I noticed:\n  \u2022 \u201csystemctl start *\u201d has failed 3 times in a "
            "row") in out
    assert "    Evidence: 3 failures in a row (unknown \u00d73); last: " in out
    assert "    Suggested: I'll ask before trying it again" in out
    data = reos_json("learned", "--json")
    assert data["schema"] == "reos.learned/1" and data["patterns"][0]["streak"] == 3
    [f] = data["findings"]
    assert {"kind", "subject", "text", "created_at"} <= set(f)  # the fields it had
    assert f["evidence"]["numbers"] == {"failures_in_a_row": 3} and f["cleared"] is False
    assert "summary" not in data


def settings_file(text: str) -> None:
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_summary_from_the_model_is_cleaned(fake_ollama, monkeypatch) -> None:
    failing_three_times()
    monkeypatch.delenv("REOS_LLM")
    settings_file(f'[llm]\nhost = "{fake_ollama.url}"\ntimeout_seconds = 10\n')
    fake_ollama.reply(json.dumps({"summary": "Starting units keeps failing.\x1b]0;owned\x07 "
                                             "Look at\nits logs first."}))
    done = reos("learned", "--summary")
    assert done.returncode == 0, done.stderr
    assert "In short: Starting units keeps failing. Look at its logs first." in done.stdout
    assert "\x1b" not in done.stdout and "owned" not in done.stdout
    [chat] = fake_ollama.chats()
    asked = chat["messages"][-1]["content"]
    assert "has failed 3 times in a row" in asked and chat["format"]["required"] == ["summary"]
    fake_ollama.reply("I think things are fine.")  # prose, not the shape asked for
    data = reos_json("learned", "--json", "--summary")
    assert data["summary"]["text"] is None
    assert data["summary"]["problem"].startswith("No summary: the model's answer was not")


def test_summary_without_a_model_is_one_sentence(fake_ollama, monkeypatch) -> None:
    failing_three_times()
    done = reos("learned", "--summary")  # REOS_LLM=off from conftest
    assert done.returncode == 0 and "No summary: the model is off" in done.stdout
    assert fake_ollama.chats() == []
    monkeypatch.delenv("REOS_LLM")
    url = fake_ollama.url
    fake_ollama.stop()
    settings_file(f'[llm]\nhost = "{url}"\ntimeout_seconds = 5\n')
    done = reos("learned", "--summary")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "No summary: No Ollama server answers at" in done.stdout


def test_summary_of_nothing_does_not_ask_the_model(fake_ollama, monkeypatch) -> None:
    monkeypatch.delenv("REOS_LLM")
    settings_file(f'[llm]\nhost = "{fake_ollama.url}"\n')
    done = reos("learned", "--summary")
    assert "There is nothing to summarise" in done.stdout and fake_ollama.chats() == []
