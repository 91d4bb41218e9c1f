"""Quality assessment of plans (reos/planning/quality.py): real plans from the homelab
snapshot score well with the right reasons; hand-built bad plans score lower, each
anti-pattern named with its step and who wrote it; adding a problem never raises a score.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from reos.engine import ReasoningEngine
from reos.model.plan import Plan, Step
from reos.model.request import Intent, Kind, Understood
from reos.model.risk import RiskLevel
from reos.model.target import Target
from reos.planning.quality import (
    Assessment,
    assess,
    describe,
    label_for,
    named_anti_patterns,
    provided_by,
)
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot
from tests.conftest import FIXTURES

TRACE = [{"stage": "understand", "said": "catalogue"}]


@pytest.fixture(scope="module")
def engine() -> ReasoningEngine:
    snap = SystemSnapshot.from_dict(json.loads((FIXTURES / "homelab.json").read_text()))
    return ReasoningEngine(Settings(), snapshot=snap)


def texts(a: Assessment, good: bool) -> list[str]:
    return [r.text for r in a.reasons if r.good is good]


def names(a: Assessment) -> set[tuple[str, str]]:
    return {(p.step_id, p.name) for p in a.anti_patterns}


def changing(id: str, argv: list[str], **kw) -> Step:
    return Step(id=id, title=kw.pop("title", f"Run {argv[0]}"), argv=argv, **kw)


def plan_of(*steps: Step, source: str = "catalogue", request: str = "do it",
            trace: list | None = None, model: bool = False) -> Plan:
    intent = Intent(Kind.ACTION, operation="command" if model else "x.y",
                    reading=Understood("llm" if model else source))
    return Plan(request, Kind.ACTION, source="llm" if model else source, intent=intent,
                steps=list(steps), trace=TRACE if trace is None else trace)


def service_step(id: str = "s1", **kw) -> Step:
    return Step(id=id, title=f"Restart web{id}", argv=["systemctl", "restart", f"web{id}"],
                target=Target("service", f"web{id}", "active"), action="restart", **kw)


# -- known good plans, built by the real engine --------------------------------------

@pytest.mark.parametrize("request_", ["restart nginx", "stop the nextcloud containers",
                                      "install htop"])
def test_real_action_plans_are_excellent_with_the_right_reasons(engine, request_) -> None:
    plan = engine.plan(request_)
    assert plan.steps and not plan.read_only
    a = assess(plan)
    assert a.label == "excellent" and a.score >= 0.85
    assert not a.anti_patterns and not texts(a, False)
    good = texts(a, True)
    # a restart has nothing to restore: never "can be undone", and nothing lost either
    undo = ("Nothing is lost for good (a restart has nothing to restore)"
            if request_ == "restart nginx" else "Every change can be undone")
    for expected in ("Concise plan with focused steps", "Uses idempotent patterns",
                     "Includes verification steps", undo,
                     "Reasoning traced stage by stage"):
        assert expected in good
    assert ("Explicit non-interactive flags" in good) is (request_ == "install htop")


def test_a_query_is_assessed_with_short_reasons(engine) -> None:
    a = assess(engine.plan("list containers"))
    assert a.label == "excellent"
    assert texts(a, True) == ["Only reads: changes nothing", "Reasoning traced stage by stage"]


def test_a_plan_with_nothing_to_run_says_so() -> None:
    a = assess(Plan("which one?", Kind.CLARIFY, trace=TRACE))
    assert a.score == 1.0 and texts(a, True)[0] == "Nothing to run"


# -- known bad plans ----------------------------------------------------------------

def test_shell_step_with_useless_cat_hidden_and_ignored_errors() -> None:
    step = Step("s1", "Find errors", ["cat /var/log/syslog | grep error 2>/dev/null || true"],
                read_only=True, shell=True)
    a = assess(plan_of(step))
    assert names(a) == {("s1", "ignored-errors"), ("s1", "hidden-errors"),
                        ("s1", "useless-cat")}
    says = {p.name: p.says for p in a.anti_patterns}
    assert says == {"ignored-errors": "|| true", "hidden-errors": "2>/dev/null",
                    "useless-cat": "cat /var/log/syslog | grep"}
    assert a.score < assess(plan_of(replace(step, argv=["grep error /var/log/syslog"]))).score
    assert a.label in ("fair", "poor")
    assert "Ignores errors (step 1)" in texts(a, False)


@pytest.mark.parametrize("payload, name", [
    ("systemctl restart web || :", "ignored-errors"),
    ("set +e; systemctl restart web", "ignored-errors"),
    ("systemctl restart web; true", "ignored-errors"),
    ("systemctl restart web &>/dev/null", "hidden-errors"),
    ("systemctl restart web >/dev/null 2>&1", "hidden-errors"),
    ("echo 'export A=1' >> /etc/profile", "not-idempotent"),
])
def test_sh_c_payloads_are_read_as_shell(payload, name) -> None:
    step = changing("s1", ["sudo", "-n", "bash", "-c", payload])
    assert ("s1", name) in names(assess(plan_of(step)))
    # the same words as plain argv are not shell: nothing in them is an operator
    assert not assess(plan_of(changing("s1", ["echo", payload]))).anti_patterns


@pytest.mark.parametrize("payload, found", [
    ("mkdir /srv/x>/tmp/log", [("not-idempotent", "mkdir /srv/x")]),
    ("mkdir -p /srv/x 2>&1 | tee -a /tmp/log", []),
    ("mkdir -p '/srv/a b' && ln -s \"/srv/a b\" /srv/c", [("not-idempotent",
                                                         "ln -s /srv/a b /srv/c")]),
    ("apt-get install foo < /dev/null", [("interactive", "apt-get install foo")]),
])
def test_shell_words_quotes_and_redirections(payload, found) -> None:
    a = assess(plan_of(changing("s1", ["sh", "-c", payload]), model=True))
    assert [(p.name, p.says) for p in a.anti_patterns] == found


def test_model_command_with_hard_coded_ip_and_home_path() -> None:
    step = changing("s1", ["rsync", "-a", "/home/bob/data/", "192.168.1.20:/srv/backup/"])
    a = assess(plan_of(step, model=True, request="back up my data"))
    assert names(a) == {("s1", "hard-coded-ip"), ("s1", "home-path")}
    assert {p.provided_by for p in a.anti_patterns} == {"model"}
    assert {p.says for p in a.anti_patterns} == {"192.168.1.20", "/home/bob"}
    assert "Hard-codes an address (step 1)" in texts(a, False)
    # reos's own commands carry only what the request named: no finding
    assert not assess(plan_of(step, request="back up my data")).anti_patterns
    # the person named both themselves: their explicit choice, not a hidden constant
    said = assess(plan_of(step, model=True,
                          request="copy /home/bob/data/ to 192.168.1.20:/srv/backup/"))
    assert not said.anti_patterns


@pytest.mark.parametrize("argv, flagged", [
    (["ping", "-c", "1", "127.0.0.1"], False),  # loopback is this machine everywhere
    (["nc", "-l", "0.0.0.0", "8080"], False),  # every address, on every machine
    (["curl", "http://[::1]:8080/"], False),
    (["ping", "-c", "1", "10.0.0.7"], True),
    (["ip", "route", "add", "default", "via", "2001:db8::1"], True),
    (["apt-get", "install", "-y", "foo=1.2.3.4"], False),  # a version pin, not a host
    (["date", "+%H:%M:%S"], False),
    (["ls", "~/notes/"], True),
    (["ls", "/root/.ssh"], True),
    (["ls", "/srv/homework"], False),
])
def test_addresses_and_home_paths_from_a_template(argv, flagged) -> None:
    plan = plan_of(changing("s1", argv))
    found = {p.name for p in assess(plan, user_template=True).anti_patterns}
    assert bool(found & {"hard-coded-ip", "home-path"}) is flagged
    assert provided_by(plan, user_template=True) == "template"
    assert provided_by(plan) == "reos"


@pytest.mark.parametrize("argv, interactive", [
    (["apt-get", "install", "foo"], True),
    (["sudo", "-n", "apt-get", "install", "-y", "foo"], False),
    (["apt", "remove", "--assume-yes", "foo"], False),
    (["dnf", "upgrade"], True),
    (["dnf", "upgrade", "--assumeyes"], False),
    (["zypper", "install", "foo"], True),
    (["zypper", "--non-interactive", "install", "foo"], False),
    (["pacman", "-S", "foo"], True),
    (["pacman", "-S", "--noconfirm", "foo"], False),
    (["rm", "-i", "/tmp/x"], True),
    (["cp", "-ri", "a", "b"], True),
    (["docker", "exec", "-it", "web", "sh"], True),
    (["apt-get", "update"], False),
])
def test_non_interactive_flags(argv, interactive) -> None:
    a = assess(plan_of(changing("s1", argv)))
    assert (("s1", "interactive") in names(a)) is interactive


def test_explicit_yes_is_a_reason_and_its_absence_an_anti_pattern() -> None:
    bad = assess(plan_of(changing("s1", ["apt-get", "install", "foo"])))
    good = assess(plan_of(changing("s1", ["apt-get", "install", "-y", "foo"])))
    assert "Explicit non-interactive flags" in texts(good, True)
    assert "Explicit non-interactive flags" not in texts(bad, True)
    assert "May stop at a prompt (step 1)" in texts(bad, False)
    assert bad.score < good.score


@pytest.mark.parametrize("argv, bad", [
    (["mkdir", "/srv/data"], True), (["mkdir", "-p", "/srv/data"], False),
    (["ln", "-s", "/a", "/b"], True), (["ln", "-sf", "/a", "/b"], False),
    (["useradd", "-m", "carol"], True), (["groupadd", "-f", "ops"], False),
    (["docker", "stop", "web"], False), (["systemctl", "start", "web"], False),
])
def test_idempotent_forms(argv, bad) -> None:
    a = assess(plan_of(changing("s1", argv), model=True))
    assert (("s1", "not-idempotent") in names(a)) is bad
    assert ("Uses idempotent patterns" in texts(a, True)) is not bad


def test_useradd_is_fine_when_reos_found_the_account_absent() -> None:
    step = changing("s1", ["sudo", "-n", "useradd", "-m", "carol"],
                    target=Target("user", "carol", "absent"), action="create")
    assert not assess(plan_of(step)).anti_patterns
    assert ("s1", "not-idempotent") in names(assess(plan_of(step, model=True)))


def test_more_steps_than_the_limit() -> None:
    within = assess(plan_of(*[service_step(f"s{i}") for i in range(1, 26)]))
    over = assess(plan_of(*[service_step(f"s{i}") for i in range(1, 31)]))
    assert "Concise plan with focused steps" in texts(within, True)
    assert "30 steps: more than 25 to review at once" in texts(over, False)
    assert over.score < within.score
    assert "6 steps: more than 5 to review at once" in texts(
        assess(plan_of(*[service_step(f"s{i}") for i in range(1, 7)]), max_steps=5), False)


def test_irreversible_steps_lower_the_score_and_are_named() -> None:
    def stop(step: Step) -> Step:  # a restart has nothing to restore: never "lost"
        step.action, step.title = "stop", step.title.replace("Restart", "Stop")
        return step

    undoable = assess(plan_of(stop(service_step("s1")), stop(service_step("s2"))))
    final = assess(plan_of(stop(service_step("s1", reversible=False)),
                           stop(service_step("s2", reversible=False, risk=RiskLevel.HIGH))))
    assert "Every change can be undone" in texts(undoable, True)
    assert [(r.step_id, r.text) for r in final.reasons if r.text == "Cannot be undone"] == [
        ("s1", "Cannot be undone"), ("s2", "Cannot be undone")]
    assert final.score < undoable.score


def test_verification_needs_a_checkable_target_and_verify_on() -> None:
    checked = plan_of(service_step("s1"))
    assert "Includes verification steps" in texts(assess(checked), True)
    assert "Verification is turned off" in texts(assess(checked, verify=False), False)
    assert assess(checked, verify=False).score < assess(checked).score
    unchecked = plan_of(service_step("s1"), changing("s2", ["apt-get", "update"]))
    a = assess(unchecked)
    assert [(r.step_id, r.text) for r in a.reasons if not r.good] == [
        ("s2", "No state to check afterwards (step 2)")]
    # an action the executor cannot read back is no verification either
    odd = plan_of(replace(service_step("s1"), action="frobnicate"))
    assert "Includes verification steps" not in texts(assess(odd), True)


def test_transparency_trace_and_titles() -> None:
    a = assess(plan_of(service_step("s1"), replace(service_step("s2"), title=" "), trace=[]))
    assert "No reasoning trace" in texts(a, False)
    assert [r.step_id for r in a.reasons if r.text == "Step has no title"] == ["s2"]
    assert a.score < assess(plan_of(service_step("s1"), service_step("s2"))).score


# -- the contract and the words -----------------------------------------------------

def test_to_dict_is_the_quality_json() -> None:
    step = changing("s1", ["sh", "-c", "grep x /etc/hosts || true"])
    data = json.loads(json.dumps(assess(plan_of(step, model=True)).to_dict()))
    assert set(data) == {"score", "label", "reasons", "anti_patterns"}
    assert data["anti_patterns"] == [{"step_id": "s1", "name": "ignored-errors", "says": "|| true",
                                      "why": data["anti_patterns"][0]["why"],
                                      "provided_by": "model"}]
    assert data["anti_patterns"][0]["why"]
    assert {"good", "layer", "text", "step_id"} == set(data["reasons"][0])
    assert {r["layer"] for r in data["reasons"]} <= {"engineering", "maintainability",
                                                     "gates", "transparency"}


def test_from_dict_gives_back_what_describe_needs() -> None:
    step = changing("s1", ["sh", "-c", "cat /etc/hosts | grep x || true"])
    a = assess(plan_of(step, model=True))
    data = json.loads(json.dumps(a.to_dict()))
    assert Assessment.from_dict(data) == a
    assert describe(Assessment.from_dict(data)) == describe(a)


def test_describe_shows_the_design_notes_block(engine) -> None:
    good = describe(assess(engine.plan("stop the nextcloud containers")))
    assert good.splitlines()[:3] == ["[Quality Assessment]", "Plan score 1.0 (excellent)",
                                     "✓ Concise plan with focused steps"]
    bad = assess(plan_of(changing("s1", ["sh", "-c", "cat /etc/hosts | grep x || true"]),
                         model=True))
    text = describe(bad)
    assert "✗ Ignores errors (step 1)" in text
    assert "step 1: ignored-errors (from the model): `|| true`" in text
    assert "step 1: useless-cat (from the model): `cat /etc/hosts | grep`" in text
    brief = describe(bad, brief=True)
    assert brief.splitlines()[0] == f"Quality {bad.score} ({bad.label})"
    assert "✓" not in brief and "✗ Ignores errors (step 1)" in brief


def test_anti_patterns_a_model_or_template_wrote_are_named_for_the_plan() -> None:
    step = changing("s1", ["sh", "-c", "systemctl restart web || true"])
    assert named_anti_patterns(assess(plan_of(step, model=True))) == [
        "step 1: ignored-errors in the command the model wrote (`|| true`): a failure is "
        "reported as success, so later steps run on a broken state."]
    assert named_anti_patterns(assess(plan_of(step), user_template=True))[0].startswith(
        "step 1: ignored-errors in the command your template wrote")
    assert assess(plan_of(step)).anti_patterns
    assert named_anti_patterns(assess(plan_of(step))) == []


def test_untrusted_command_text_is_cleaned() -> None:
    evil = "/srv/\x1b]52;c;aGk=\x07x\x1b[2J"
    a = assess(plan_of(changing("s1", ["mkdir", evil]), model=True))
    assert [(p.name, p.says) for p in a.anti_patterns] == [
        ("not-idempotent", "mkdir /srv/x")]
    shown = describe(a)
    assert "\x1b" not in shown and "\x07" not in shown
    assert all("\x1b" not in p.says for p in a.anti_patterns)


def test_labels() -> None:
    assert [label_for(s) for s in (1.0, 0.85, 0.84, 0.7, 0.69, 0.5, 0.49)] == [
        "excellent", "excellent", "good", "good", "fair", "fair", "poor"]
    assert label_for(0.95, anti_patterns=1) == "good"  # never excellent with a named problem


def test_importing_it_runs_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys, reos.planning.quality; print(sorted(sys.modules))"],
        capture_output=True, text=True, check=True)
    loaded = done.stdout
    for heavy in ("'subprocess'", "'reos.system", "'reos.safety", "'reos.settings",
                  "'reos.engine", "'pathlib'"):
        assert heavy not in loaded


# -- properties ---------------------------------------------------------------------

POOL = [
    ["docker", "stop", "web"], ["sudo", "-n", "systemctl", "restart", "nginx"],
    ["apt-get", "install", "-y", "htop"], ["mkdir", "-p", "/srv/x"], ["ls", "/etc"],
    ["apt-get", "install", "htop"], ["mkdir", "/srv/y"], ["ping", "-c", "1", "10.1.2.3"],
]
BAD = [" || true", " 2>/dev/null", " ; true", " >> /etc/motd"]


def steps_from(choices: list[tuple[int, bool, bool, bool]]) -> list[Step]:
    out = []
    for i, (k, ro, rev, targeted) in enumerate(choices, 1):
        out.append(Step(f"s{i}", f"step {i}", list(POOL[k]), read_only=ro, reversible=rev,
                        target=Target("service", "nginx") if targeted else None,
                        action="restart" if targeted else None))
    return out


STEPS = st.lists(st.tuples(st.integers(0, len(POOL) - 1), st.booleans(), st.booleans(),
                           st.booleans()), min_size=1, max_size=30)
RANK = {"poor": 0, "fair": 1, "good": 2, "excellent": 3}


@settings(max_examples=150, deadline=None)
@given(STEPS, st.integers(0, 29), st.sampled_from(BAD), st.booleans(), st.booleans())
def test_adding_an_anti_pattern_never_raises_the_score(choices, at, bad, model, verify):
    steps = steps_from(choices)
    before = assess(plan_of(*steps, model=model), verify=verify)
    i = at % len(steps)
    worse = list(steps)
    worse[i] = replace(steps[i], argv=["sh", "-c", " ".join(steps[i].argv) + bad])
    after = assess(plan_of(*worse, model=model), verify=verify)
    assert len(after.anti_patterns) > len(before.anti_patterns) or before.score == 0
    assert after.score <= before.score
    assert RANK[after.label] <= RANK[before.label]
    for a in (before, after):
        assert 0 <= a.score <= 1 and a.score == round(a.score, 2)


@settings(max_examples=100, deadline=None)
@given(STEPS, st.tuples(st.integers(0, len(POOL) - 1), st.booleans(), st.booleans(),
                        st.booleans()))
def test_adding_a_step_never_raises_the_score(choices, extra):
    before = assess(plan_of(*steps_from(choices)))
    after = assess(plan_of(*steps_from([*choices, extra])))
    assert after.score <= before.score
    assert {(p.step_id, p.name) for p in before.anti_patterns} <= names(after)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=list("ab1.:/~-|&;()'\"\\ >2<\n"), max_size=12) | st.text(),
                min_size=1, max_size=6),
       st.booleans(), st.booleans())
def test_any_command_text_is_assessed_without_error(argv, shell, model):
    if not shell:
        argv = ["sh", "-c", *argv]
    step = Step("s1", "x", argv, shell=shell)
    a = assess(plan_of(step, model=model))
    assert 0 <= a.score <= 1 and a.label in RANK
    assert describe(a).startswith("[Quality Assessment]")
