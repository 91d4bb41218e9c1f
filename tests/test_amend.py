"""The planner's amendments from what this machine says (planning/amend.py): a learned
fix added up front as its own step, with every `depends_on` still pointing at the same
step after renumbering, and a command that keeps failing making the plan ask."""

from __future__ import annotations

from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.planning.amend import Machine, learn
from reos.store.knowledge import signature


def machine(proactive: dict[str, int], flagged: dict[str, str] | None = None,
            learning: bool = True) -> Machine:
    return Machine(probe=lambda probes, request: ({}, {}), simulate=lambda plan: False,
                   signature=signature,
                   proactive=lambda sig: list(proactive.items()) if sig == "apt-get install *"
                   else [],
                   flagged=lambda sig: (flagged or {}).get(sig),
                   fix_argv=lambda fix: ["apt-get", "update"] if fix == "refresh" else None,
                   learning=learning)


def install_plan() -> Plan:
    return Plan("install htop and enable it", Kind.ACTION, steps=[
        Step("s1", "Install htop", ["apt-get", "install", "-y", "htop"]),
        Step("s2", "Enable htop.service", ["systemctl", "enable", "htop.service"],
             depends_on=["s1"])])


def test_a_learned_fix_goes_first_and_dependencies_follow_the_renumbering() -> None:
    plan = install_plan()
    learn(plan, machine({"refresh": 4}), is_root=False)
    assert [s.id for s in plan.steps] == ["s1", "s2", "s3"]
    refresh, install, enable = plan.steps
    assert refresh.argv == ["sudo", "-n", "apt-get", "update"] and refresh.needs_root
    assert refresh.why == "apt-get install needed this first 4 times here"
    assert install.depends_on == ["s1"]  # waits for the refresh
    assert enable.depends_on == ["s2"]  # still the install, now numbered s2
    assert plan.notes[0].startswith("I learned that on this system, apt-get install often")


def test_without_learning_nothing_is_added_but_a_failing_command_still_asks() -> None:
    plan = install_plan()
    learn(plan, machine({"refresh": 4}, {"apt-get install *": "it failed 3 times in a row"},
                        learning=False), is_root=True)
    assert [s.id for s in plan.steps] == ["s1", "s2"]  # reasoning.enabled false: no fix
    assert plan.confirm_reason == "it failed 3 times in a row"
    assert plan.needs_approval


def test_a_read_only_plan_is_never_amended() -> None:
    plan = Plan("is htop installed", Kind.QUERY, steps=[
        Step("s1", "Check htop", ["dpkg-query", "-W", "htop"], read_only=True)])
    learn(plan, machine({"refresh": 9}), is_root=True)
    assert [s.argv for s in plan.steps] == [["dpkg-query", "-W", "htop"]]
