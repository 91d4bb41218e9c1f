"""The reasoning audit trail: chains for every kind of request, kept in SQLite, linked to
transactions, read back by `reos why` / `reos trace --json`, bounded, without secrets or
escape sequences, and recalled for "why did you …?"."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from reos import paths
from reos.cli import main
from reos.engine import ReasoningEngine
from reos.memory import audit, audit_text, recall, redact
from reos.model.plan import Plan, Step, Traced
from reos.model.report import ExecutionReport, GateVerdict, StepResult, StopReason
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.model.target import Target
from reos.settings import Settings
from reos.store.db import MIGRATIONS, Database, now
from reos.store.journal import Journal
from reos.store.knowledge import Knowledge
from reos.store.traces import Traces
from reos.system.snapshot import SystemSnapshot
from tests.conftest import FIXTURES

SNAPSHOT = SystemSnapshot.from_dict(json.loads((FIXTURES / "homelab.json").read_text()))

# one request of each kind, and a few words its conclusion must say
KINDS = {
    "query": ("is nginx running?", "answered a query with 1 read-only step"),
    "action": ("stop the nextcloud containers", "plan created with 2 stop operations"),
    "combined": ("is portainer running? if so stop it", "plan created with 1 stop operation"),
    "clarify": ("restart the redis", "asked which one (3 choices)"),
    "refuse": ("wipe the hard drive", "refused: Wiping or formatting a disk"),
    "unknown": ("frobnicate the quux", "not understood"),
    "meta": ("undo", "a chat command (undo), no plan"),
}


def engine() -> ReasoningEngine:
    return ReasoningEngine(Settings(), snapshot=SNAPSHOT)


def chain_of(request: str, **given: Any) -> tuple[Plan, dict[str, Any]]:
    """A plan and its chain, recorded by no one: the store tests record it themselves."""
    quiet = engine()
    quiet._record_trace = lambda plan: plan  # type: ignore[method-assign]
    plan = quiet.plan(request)
    return plan, audit.chain(plan, context=audit.context_of(SNAPSHOT), **given)


# -- the engine keeps a trace of every request -----------------------------------------------
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_engine_records_every_kind_of_request_and_reos_why_reads_it(
        kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    request, conclusion = KINDS[kind]
    plan = engine().plan(request)
    assert plan.trace_id is not None
    kept = store()[0].get(plan.trace_id)
    assert kept is not None and kept.request == request
    code, out, _ = cli(capsys, "trace", "--json")
    assert code == 0 and json.loads(out)["request"] == request
    code, out, _ = cli(capsys, "why")
    assert code == 0 and "=== REASONING CHAIN" in out
    assert conclusion.split(":")[0].lower() in out.lower()


def test_reasoning_disabled_keeps_no_trace() -> None:
    settings = Settings()
    settings.reasoning.enabled = False
    plan = ReasoningEngine(settings, snapshot=SNAPSHOT).plan("stop the nextcloud containers")
    assert plan.trace_id is None and not paths.database_file().exists()


def store() -> tuple[Traces, Journal]:
    db = Database(paths.database_file())
    return Traces(db), Journal(db)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def ran(journal: Journal, plan: Plan, status: str = "completed") -> int:
    """Journal the plan's steps as done, as the executor would."""
    tx = journal.begin(plan.request)
    for seq, step in enumerate(plan.steps):
        row = journal.begin_step(tx, seq, step.id, step.title, step.argv)
        journal.finish_step(row, "done", 0, "output that must stay in the journal")
    journal.finish(tx, status)
    return tx


# -- the database ------------------------------------------------------------------------

def test_migration_is_applied_to_an_existing_v5_database() -> None:
    path = paths.database_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    names = [name for name, _ in MIGRATIONS]
    assert names[:5] == ["001_journal", "002_backups", "003_knowledge", "004_undo_claims",
                         "005_link_backups"] and "006_traces" in names[5:]  # appended
    for name, migrate in MIGRATIONS[:5]:
        migrate(conn)
        conn.execute("INSERT INTO migrations VALUES (?, ?)", (name, now()))
    conn.execute("INSERT INTO transactions (request, kind, status, started_at) VALUES "
                 "('stop portainer', 'action', 'completed', '2026-01-01T00:00:00Z')")
    conn.close()

    traces, journal = store()
    assert [t.request for t in journal.transactions()] == ["stop portainer"]  # kept
    applied = {r[0] for r in traces.db.connect().execute("SELECT name FROM migrations")}
    assert "006_traces" in applied
    plan, chain = chain_of("stop portainer")
    trace_id = traces.record(chain)
    assert traces.link(trace_id, 1)
    assert traces.for_transaction(1).chain["request"] == "stop portainer"  # type: ignore[union-attr]


# -- a chain for every kind of request ---------------------------------------------------

@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_of_request_gets_a_chain_read_back_by_reos_why(
        kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    request, concluded = KINDS[kind]
    plan, chain = chain_of(request, quality={"score": 0.9, "label": "excellent", "reasons": [
        {"good": True, "text": "Concise plan with focused steps"}]})
    assert plan.kind == Kind(kind)
    assert chain["schema"] == "reos.trace/1" and chain["kind"] == kind
    assert chain["conclusion"].startswith(concluded)
    assert chain["goal"].startswith(request)
    assert "running container" in chain["context"] and "package manager apt" in chain["context"]
    if kind != "meta":  # a chat command is recognised before any stage runs
        assert chain["stages"][0]["stage"] == "understanding"
        assert chain["stages"][0]["rationale"] == plan.trace[0].said
        assert chain["why_chosen"] and chain["alternatives"]
    traces, _ = store()
    trace_id = traces.record(chain)

    code, out, _ = cli(capsys, "why")
    assert code == 0
    assert out.startswith("=== REASONING CHAIN: plan_creation ===\n")
    assert f"trace #{trace_id}" in out
    assert f"Goal: {request}" in out
    assert f"Conclusion: {concluded[:1].upper()}{concluded[1:]}" in out
    assert "Quality Score: 90% (excellent)" in out and "\u2713 Concise plan" in out
    code, out, _ = cli(capsys, "trace", "--json")
    data = json.loads(out)
    assert code == 0 and data["schema"] == "reos.trace/1" and data["trace_id"] == trace_id
    assert data["kind"] == kind and data["tx"] is None and data["quality"]["score"] == 0.9


def test_the_design_notes_shape_for_an_action() -> None:
    plan, chain = chain_of("stop the nextcloud containers")
    text = audit_text.render(chain)
    assert text.splitlines()[:3] == [
        "=== REASONING CHAIN: plan_creation ===",
        "Goal: stop the nextcloud containers \u2014 stop nextcloud-app, nextcloud-redis",
        "Context: 5 running containers (7 in all), 16 services (14 active), 22 packages; "
        "package manager apt, host homelab, not root (sudo for changes)"]
    assert "Step 1: Understanding\n  Rationale: I read it myself: action container.stop" in text
    assert ("  Why chosen: one reading (confidence 100%); it changes the machine, so it is "
            "shown as a plan to approve first") in text
    assert "  Source: my own reading; the model was not needed" in text
    assert "  1. Stop nextcloud-app   $ docker stop nextcloud-app" in text
    assert "Conclusion: Plan created with 2 stop operations" in text


def test_the_quality_assessment_is_kept_with_its_reasons() -> None:
    from reos.planning import quality

    plan = engine().plan("install htop")
    plan.steps[0].argv = ["sh", "-c", "apt-get install htop 2>/dev/null || true"]
    plan.steps[0].shell = True
    assessed = quality.assess(plan).to_dict()
    chain = audit.chain(plan, quality=assessed)
    assert chain["quality"]["score"] == assessed["score"] < 1
    assert any(r.startswith("\u2717") for r in chain["quality"]["reasons"])
    assert chain["quality"]["anti_patterns"]
    said = f"Quality Score: {assessed['score']:.0%} ({assessed['label']})"
    assert said in audit_text.render(chain)
    plan.quality = assessed  # the planner's own, attached to the plan
    assert audit.chain(plan)["quality"] == chain["quality"]


def test_the_models_reading_is_said_to_be_checked_and_kept() -> None:
    plan = engine().plan("stop the nextcloud containers")
    assert plan.intent is not None
    plan.intent.reading = replace(plan.intent.reading, source="llm")
    assert audit.chain(plan)["source"] == (
        "the model's reading, checked by reos's validation and kept")


# -- linked to a transaction -------------------------------------------------------------

def test_a_trace_is_linked_to_its_transaction_with_its_outcome(
        capsys: pytest.CaptureFixture[str]) -> None:
    traces, journal = store()
    plan, chain = chain_of("stop the nextcloud containers")
    trace_id = traces.record(chain)
    tx = ran(journal, plan)
    later = traces.record(chain_of("is nginx running?")[1])  # newer, never ran
    assert traces.link(trace_id, tx)
    report = ExecutionReport(
        tx, completed=list(plan.steps),
        results=[StepResult("s1", True, 0, stdout="OUTPUT-ONLY-IN-THE-JOURNAL")],
        gates=[GateVerdict("pre-flight", "conflicts", True, "no conflicting operations"),
               GateVerdict("mid-flight", "result", False, "a restart is required", "s2",
                           warnings=["W: WARNING-LINE-OF-OUTPUT"], review=True)])
    assert traces.add_outcome(trace_id, audit.outcome_of(report))

    assert traces.for_transaction(tx).id == trace_id  # type: ignore[union-attr]
    assert traces.latest().id == later  # type: ignore[union-attr]
    code, out, _ = cli(capsys, "why", str(tx))
    assert code == 0 and f"(trace #{trace_id}, transaction #{tx}," in out
    assert f"Outcome: transaction #{tx}, went through; completed: step 1, step 2" in out
    assert "  \u2713 pre-flight conflicts: no conflicting operations" in out
    assert "  \u2717 mid-flight result (step 2): a restart is required" in out
    code, out, _ = cli(capsys, "trace", str(tx), "--json")
    data = json.loads(out)
    assert data["tx"] == tx and data["outcome"]["completed"] == ["s1", "s2"]
    assert data["outcome"]["gates"][1]["passed"] is False
    raw = traces.db.connect().execute("SELECT chain FROM traces").fetchall()
    assert raw and not any("OUTPUT-ONLY-IN-THE-JOURNAL" in r[0] or "WARNING-LINE-OF-OUTPUT"
                           in r[0] for r in raw)  # no command output


def test_a_failed_execution_says_where_it_stopped() -> None:
    plan, chain = chain_of("stop the nextcloud containers")
    outcome = audit.outcome_of(ExecutionReport(
        7, completed=plan.steps[:1], pending=plan.steps[1:], stop=StopReason.OPERATIONS,
        stopped_reason="the limit of 1 operation was reached"))
    assert outcome["ok"] is False and outcome["pending"] == ["s2"]
    assert outcome["stop_reason"] == "operations"
    text = audit_text.render(audit.with_outcome(chain, outcome))
    assert ("Outcome: transaction #7, did not go through; completed: step 1; not run: step 2; "
            "stopped: the limit of 1 operation was reached") in text
    failed = audit.outcome_of(ExecutionReport(8, completed=plan.steps[:1],
                                              failed=plan.steps[1]))
    assert failed["ok"] is False and failed["failed"] == ["s2"] and failed["stop_reason"] is None


def test_an_unknown_transaction_exits_4_with_a_plain_message(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "why")  # nothing recorded, not even a database
    assert code == 4 and out == "" and "No reasoning trace yet" in err
    assert not paths.database_file().exists()
    traces, journal = store()
    traces.record(chain_of("stop portainer")[1])
    tx = journal.begin("stop portainer")  # ran, but before its trace was linked
    for args in (("why", "999"), ("trace", "999", "--json"), ("why", str(tx))):
        code, out, err = cli(capsys, *args)
        assert code == 4 and out == "", args
        assert f"no reasoning trace for transaction #{args[1]}" in err, args
        assert "Traceback" not in err
    assert not traces.link(1, 999)  # nor can a trace be tied to a transaction that isn't


# -- bounded, pruned, no secrets, no escapes ---------------------------------------------

def test_the_oldest_traces_are_pruned_beyond_keep() -> None:
    traces = Traces(Database(paths.database_file()), keep=3)
    ids = [traces.record(chain_of(r)[1]) for r in
           ("stop portainer", "start portainer", "restart nginx", "is nginx running?",
            "stop n8n")]
    assert traces.count() == 3
    assert [t.id for t in traces.recent(10)] == ids[:1:-1]
    assert traces.get(ids[0]) is None and traces.get(ids[1]) is None
    assert traces.latest().request == "stop n8n"  # type: ignore[union-attr]


def test_a_chain_stays_within_its_size_whatever_the_plan() -> None:
    steps = [Step(f"s{n}", "Stop " + "x" * 2000, ["docker", "stop", f"c{n}" * 300],
                  risk=RiskLevel.MEDIUM, action="stop", target=Target("container", f"c{n}"))
             for n in range(300)]
    plan = Plan("stop " + "everything " * 500, Kind.ACTION, steps=steps, verb="stop",
                notes=["n" * 5000] * 100,
                trace=[Traced(f"stage {n}", "s" * 3000) for n in range(100)])
    chain = audit.chain(plan, context={"host": "h" * 9000})
    assert len(json.dumps(chain, ensure_ascii=False).encode()) <= redact.MAX_BYTES
    assert len(chain["request"]) <= redact.MAX_TEXT and chain["truncated"] is True
    assert chain["steps"][-1].startswith("\u2026 and ")  # the list says it was capped
    assert chain["conclusion"] == "plan created with 300 stop operations"
    Traces(Database(paths.database_file())).record(chain)  # and it can be kept


def test_secrets_are_redacted_before_anything_is_kept(
        capsys: pytest.CaptureFixture[str]) -> None:
    plan = engine().plan("set the grafana admin password=Hunter2Secret and token: abc123XYZ")
    plan.trace.append(Traced("model", "curl -H 'Authorization: Bearer "
                             "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0cGF5bG9hZA.c2lnbmF0dXJlMTIz' "
                             "https://admin:S3cretPass@example.org/api"))
    plan.notes.append("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n"
                      "-----END OPENSSH PRIVATE KEY-----")
    plan.notes.append("my api key is sk-abcdefghijklmnopqrstuvwxyz0123")
    plan.notes.append("pushed with ghp_0123456789abcdefghijABCDEFGHIJ and AKIAABCDEFGHIJKLMNOP")
    traces, _ = store()
    traces.record(audit.chain(plan))
    code, out, _ = cli(capsys, "trace", "--json")
    raw = traces.db.connect().execute("SELECT chain, request FROM traces").fetchone()
    for secret in ("Hunter2Secret", "abc123XYZ", "eyJhbGciOiJIUzI1NiJ9", "S3cretPass",
                   "b3BlbnNzaC1rZXktdjEAAAA", "sk-abcdefghijklmnop", "ghp_0123456789",
                   "AKIAABCDEFGHIJKLMNOP"):
        assert secret not in out and secret not in raw[0] and secret not in raw[1], secret
    data = json.loads(out)
    assert data["request"] == ("set the grafana admin password=[redacted] and token: "
                               "[redacted]")
    assert "Authorization: [redacted]" in data["stages"][-1]["rationale"]
    assert "https://admin:[redacted]@example.org" in data["stages"][-1]["rationale"]
    assert "[redacted private key]" in data["notes"]
    # words that only name a secret are not taken for one
    assert redact.redact("reset the admin password for bob") == (
        "reset the admin password for bob")


def test_escape_sequences_are_cleaned(capsys: pytest.CaptureFixture[str]) -> None:
    plan = engine().plan("stop portainer")
    plan.request = "stop \x1b]0;pwned\x07portainer\x1b[2K\x9b31m"
    plan.trace.append(Traced("model \x1b]52;c;ZXZpbA==\x07", "\u202eesrever"))
    chain = audit.chain(plan)
    assert chain["request"] == "stop portainer"
    assert "\x1b" not in json.dumps(chain) and "\u202e" not in json.dumps(chain, ensure_ascii=False)
    traces, _ = store()
    traces.record(chain)
    code, out, _ = cli(capsys, "why")
    assert code == 0 and "\x1b" not in out and "\x9b" not in out and "Goal: stop portainer" in out


def test_a_corrupt_row_reads_as_an_unreadable_trace(
        capsys: pytest.CaptureFixture[str]) -> None:
    traces, journal = store()
    plan, chain = chain_of("stop portainer")
    trace_id = traces.record(chain)
    tx = ran(journal, plan)
    traces.link(trace_id, tx)
    conn = traces.db.connect()
    for damage in ("{not json", "[1, 2]", b"\xff\xfe", 42, "[" * 100000 + "]" * 100000):
        conn.execute("UPDATE traces SET chain = ? WHERE id = ?", (damage, trace_id))
        record = traces.get(trace_id)
        assert record is not None and not record.readable
        assert record.problem and record.problem.startswith("unreadable trace")
        code, out, err = cli(capsys, "why", str(tx))
        assert code == 1 and f"Trace #{trace_id}" in out and "unreadable trace" in out
        assert "Traceback" not in err
        code, out, _ = cli(capsys, "trace", "--json")
        assert code == 1 and json.loads(out)["problem"].startswith("unreadable trace")
        assert not traces.add_outcome(trace_id, {"ok": True})
    assert audit_text.render("not a chain").startswith("=== REASONING CHAIN: unreadable")  # type: ignore[arg-type]


# -- "why did you …?" --------------------------------------------------------------------

def test_why_is_answered_from_the_trace() -> None:
    traces, journal = store()
    plan, chain = chain_of("stop the nextcloud containers")
    trace_id = traces.record(chain)
    tx = ran(journal, plan)
    traces.link(trace_id, tx)
    traces.record(chain_of("undo")[1])  # a chat command, like the question itself
    answer = recall.why("stop nextcloud-redis", traces.recent(200),
                        journal.transactions(kind="action"), [], now=now())
    assert answer.startswith("Because you asked me to \u201cstop the nextcloud containers\u201d"
                             " (just now). I read it as action container.stop nextcloud (my "
                             "own reading; the model was not needed")
    assert "Why this way: one reading (confidence 100%); it changes the machine" in answer
    assert answer.endswith("I ran: docker stop nextcloud-app; docker stop nextcloud-redis "
                           f"(transaction #{tx}, completed).")


def test_why_says_what_was_only_planned_or_only_read() -> None:
    traces, _ = store()
    traces.record(chain_of("stop portainer")[1])
    traces.record(chain_of("is nginx running?")[1])
    planned = recall.why("stop portainer", traces.recent(), [], [], now=now())
    assert planned.endswith("I planned: docker stop portainer; it has not run.")
    read = recall.why("check nginx", traces.recent(), [], [], now=now())
    assert "To answer, I only read: systemctl show nginx.service" in read


def test_what_ran_explains_before_what_was_only_planned() -> None:
    traces, journal = store()
    tx = journal.begin("stop the portainer container")  # before traces were kept
    row = journal.begin_step(tx, 0, "s1", "Stop portainer", ["docker", "stop", "portainer"])
    journal.finish_step(row, "done", 0)
    journal.finish(tx, "completed")
    traces.record(chain_of("stop portainer")[1])  # planned since, never approved
    answer = recall.why("stop portainer", traces.recent(), journal.transactions(), [],
                        now=now())
    assert answer == ("Because you asked me to \u201cstop the portainer container\u201d "
                      "(just now). I ran: docker stop portainer.")


def test_why_keeps_todays_answers_without_a_trace() -> None:
    traces, journal = store()
    tx = journal.begin("stop the portainer container")
    row = journal.begin_step(tx, 0, "s1", "Stop portainer", ["docker", "stop", "portainer"])
    journal.finish_step(row, "done", 0)
    journal.finish(tx, "completed")
    knowledge = Knowledge(traces.db)
    for _ in range(3):
        knowledge.record(["apt-get", "install", "-y", "x"], True, fix="refresh")
    transactions = journal.transactions(kind="action")
    assert recall.why("stop portainer", [], transactions, [], now=now()).startswith(
        "Because you asked me to \u201cstop the portainer container\u201d (just now). "
        "I ran: docker stop portainer.")
    assert recall.why("reboot the machine", [], transactions, [], now=now()) == (
        "I don't have a record of doing that, so it wasn't me "
        "(or it was before I kept a journal).")
    learned = recall.why("update apt first", [], transactions, knowledge.all(), now=now())
    assert learned.startswith("I learned that on this system, apt-get install often fails "
                              "without a recent cache update. I've seen this 3 times before")
    # with a trace of the plan the fix was part of, the learning still explains it first
    plan = engine().plan("install htop")
    plan.steps.insert(0, Step("s0", "Refresh the package lists", ["apt-get", "update"],
                              action="refresh"))
    traces.link(traces.record(audit.chain(plan)), ran(journal, plan))
    both = recall.why("update apt first", traces.recent(), journal.transactions(),
                      knowledge.all(), now=now())
    assert both.startswith(learned) and both.endswith("That was for \u201cinstall htop\u201d.")


def test_an_unreadable_trace_is_passed_over_by_why() -> None:
    traces, journal = store()
    trace_id = traces.record(chain_of("stop portainer")[1])
    traces.db.connect().execute("UPDATE traces SET chain = '{' WHERE id = ?", (trace_id,))
    assert recall.why("stop portainer", traces.recent(), [], [], now=now()) == recall.NO_RECORD


# -- whatever a database holds -----------------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["goal", "stages", "stage", "rationale", "confidence", "quality",
                         "score", "reasons", "outcome", "gates", "passed", "tx", "steps",
                         "id", "command", "completed", "notes", "alternatives", "kind",
                         "reading", "why_chosen", "label", "trace_id"]) | st.text(max_size=8),
        inner, max_size=6),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["goal", "stages", "quality", "outcome", "steps",
                                        "notes", "alternatives", "reading", "source",
                                        "why_chosen", "conclusion", "kind", "request", "tx",
                                        "trace_id", "created_at", "confidence"]), JSON))
def test_any_stored_chain_renders_and_recalls_without_a_traceback(chain: dict) -> None:
    from reos.store.traces import TraceRecord

    chain["stages"] = chain.get("stages", [{"stage": "\x1b]0;t\x07x", "rationale": "\x9b2J"}])
    text = audit_text.render(chain)
    assert text.startswith("=== REASONING CHAIN: ") and "\x1b" not in text
    record = TraceRecord(1, "2026-01-01T00:00:00Z", "stop x", "action", None, chain)
    assert recall.why("stop", [record], [], [], now=now())
    assert len(json.dumps(redact.fit(chain), default=str).encode()) <= redact.MAX_BYTES


def test_the_migrations_are_the_marked_functions_in_the_order_they_were_written() -> None:
    import inspect

    from reos.store import db

    marked = sorted((fn for name, fn in vars(db).items() if name.startswith("_m")
                     and callable(fn)), key=lambda fn: inspect.getsourcelines(fn)[1])
    assert [fn for _, fn in MIGRATIONS] == marked  # none unmarked, none out of order
    names = [name for name, _ in MIGRATIONS]
    assert names[:8] == ["001_journal", "002_backups", "003_knowledge", "004_undo_claims",
                         "005_link_backups", "006_traces", "007_reflection",
                         "008_edited_steps"]  # names that ran on people's machines stay
    assert names == sorted(set(names))
