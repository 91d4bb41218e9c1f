"""Words read as they were said (issue 21): a negation outside an idiom turns it down
("make sure nginx does not start at boot" is no enable); "… and make sure it starts at
boot" is an ask of its own; "at boot" says when enable and disable act, never which
units; a particle before a determiner starts its own phrase; "in detail" says how to
answer; a real word is no typo of a shorter one; "the runaway clamscan" of two is asked
about; "the reporting PC at 192.168.10.42" describes the address; "make the
priority of X lower" is nice 10; "that rule", "that stack" are what the story said of
them; "why nginx down" asks why it is; "apt", "dnf"… say packages; "what's on 3001"
asks about the port; "who is fay" shows the account. The snapshot is
built here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reos.catalogue.lexicon import correct, lexicon
from reos.engine import ReasoningEngine
from reos.model.request import Kind
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot


def _service(name: str, running: bool, enabled: bool, about: str) -> dict:
    return {"name": f"{name}.service", "description": about, "load": "loaded",
            "active": "active" if running else "inactive",
            "sub": "running" if running else "dead",
            "enabled": "enabled" if enabled else "disabled"}


def _container(name: str, project: str) -> dict:
    return {"name": name, "id": name[:12], "image": f"{name}:1", "state": "running",
            "status": "Up 3 days", "ports": [],
            "labels": {"com.docker.compose.project": project,
                       "com.docker.compose.project.working_dir": f"/opt/{project}"}}


def _process(pid: int, user: str, name: str, cmdline: str, cpu: float) -> dict:
    return {"pid": pid, "ppid": 1, "name": name, "user": user, "cmdline": cmdline,
            "cpu_percent": cpu, "memory_rss": 1 << 24}


@pytest.fixture(scope="module")
def snapshot() -> SystemSnapshot:
    return SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2",
        "host": {"hostname": "loom", "distro_id": "debian", "distro_version": "12",
                 "init": "systemd", "package_manager": "apt", "is_root": True},
        "containers": [_container(name, project) for name, project in (
            ("castopod", "podcast"), ("castopod-db", "podcast"), ("castopod-redis", "podcast"),
            ("site-db", "website"), ("site-wp", "website"))],
        "processes": [_process(1, "root", "systemd", "/sbin/init", 0.1),
                      _process(4100, "clamav", "clamscan", "clamscan -r /srv/a", 2.0),
                      _process(4200, "clamav", "clamscan", "clamscan -r /srv/b", 97.0)],
        "firewall": {"backend": "ufw", "active": True,
                     "rules": ["22/tcp ALLOW IN Anywhere", "3001/tcp ALLOW IN Anywhere"]},
        "packages": [{"name": "make", "version": "4.3-4.1", "description": "build utility"}],
        "services": [_service("fail2ban", False, False, "Fail2Ban Service"),
                     _service("nginx", True, True, "A high performance web server"),
                     _service("zabbix-agent", True, False, "Zabbix Agent"),  # by hand
                     _service("ufw", True, True, "Uncomplicated firewall"),
                     _service("cron", False, False, "Regular background program "
                              "processing daemon")],
        "users": [{"name": "fay", "uid": 1001, "gid": 1001, "home": "/home/fay",
                   "shell": "/bin/bash", "groups": ["fay"], "system": False,
                   "gecos": "Fay Old,,,"}],
        "groups": [],
    })


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REOS_LLM", "off")


def argvs(snapshot: SystemSnapshot, say: str) -> list[list[str]]:
    return [s.argv for s in ReasoningEngine(Settings(), snapshot=snapshot).plan(say).steps]


@pytest.mark.parametrize("say", ["make sure nginx does not start at boot",
                                 "make sure nginx doesnt start at boot",
                                 "nginx should not start at boot"])
def test_a_negation_outside_an_idiom_turns_it_down(snapshot, say: str) -> None:
    assert argvs(snapshot, say) == [["systemctl", "disable", "nginx.service"]], say


def test_an_idiom_said_without_a_negation_still_does_what_it_says(snapshot) -> None:
    assert argvs(snapshot, "make fail2ban start at boot") == [
        ["systemctl", "enable", "fail2ban.service"]]


def test_make_sure_it_starts_at_boot_is_an_ask_of_its_own(snapshot) -> None:
    # the package "make" on this machine is no name in "make sure"
    assert argvs(snapshot, "Could you please turn fail2ban back on and make sure it starts "
                 "at boot?") == [["systemctl", "start", "fail2ban.service"],
                                 ["systemctl", "enable", "fail2ban.service"]]


def test_at_boot_says_when_disable_acts_never_which_units(snapshot) -> None:
    # the agent was started by hand: "at boot" never narrows to the enabled units (none)
    said = ("We moved all monitoring to Prometheus last month, and the old Zabbix agent "
            "keeps failing. Please stop it and make sure it does not come back at boot.")
    got = argvs(snapshot, said)
    assert got in ([["systemctl", "disable", "--now", "zabbix-agent.service"]],
                   [["systemctl", "stop", "zabbix-agent.service"]]), got


def test_a_particle_before_a_determiner_starts_its_own_phrase(snapshot) -> None:
    # "check … on this machine" is no "check on": the list of disabled services
    assert argvs(snapshot, "Would you check which services are disabled on this machine?") == [
        ["systemctl", "list-unit-files", "--type=service", "--state=disabled", "--no-legend",
         "--no-pager"]]
    assert argvs(snapshot, "shut donw the machine") == [["systemctl", "poweroff"]]


def test_in_detail_is_how_to_answer_not_what_to_do(snapshot) -> None:
    assert argvs(snapshot, "show the firewall rules in detail") == [["ufw", "status", "verbose"]]
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan("tell me in detail")
    assert plan.kind == Kind.META


def test_a_real_word_two_letters_longer_is_no_typo() -> None:
    lex = lexicon(ReasoningEngine(Settings()).templates)
    assert correct("tracking", lex) is None  # never "taking"
    assert correct("restrat", lex) == "restart"


def test_a_slip_for_except_leaves_out_as_except_does(snapshot) -> None:
    """"exept" was read as a name: "stop evry container exept postgres" stopped the one
    container it was to spare."""
    lex = lexicon(ReasoningEngine(Settings()).templates)
    for word in ("exceeding", "exploding", "excerpt", "beside", "expect", "mins"):
        assert correct(word, lex) is None, word  # words of their own (a review found them)
    assert [correct(w, lex) for w in ("exceot", "escept", "exlcuding")] == [
        "except", "except", "excluding"]  # one letter off: the slip (a second review)
    spared = argvs(snapshot, "stop every container except site-db")
    assert spared and argvs(snapshot, "stop evry container exept site-db") == spared
    assert argvs(snapshot, "stop every container escept site-db") == spared
    assert ["docker", "stop", "site-db"] not in spared


def test_a_superlative_said_of_named_processes_is_asked_never_guessed(snapshot) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan("kill off that runaway clamscan")
    assert plan.kind == Kind.CLARIFY and not plan.steps, plan.text()


@pytest.mark.parametrize(("say", "wanted"), [
    ("Please open port 5432 only for the reporting PC at 192.168.10.42.",
     ["ufw", "allow", "from", "192.168.10.42", "to", "any", "port", "5432", "proto", "tcp"]),
    ("allow port 9090 from the department monitoring host 10.42.1.10 in the firewall",
     ["ufw", "allow", "from", "10.42.1.10", "to", "any", "port", "9090", "proto", "tcp"]),
])
def test_words_describing_an_address_are_its_description(snapshot, say: str,
                                                         wanted: list[str]) -> None:
    assert argvs(snapshot, say) == [wanted]


def test_a_priority_made_lower_is_nice_ten_and_its_qualifier_kept(snapshot) -> None:
    assert argvs(snapshot, "Please make the priority of process 4100 lower.") == [
        ["renice", "-n", "10", "-p", "4100"]]
    # "the busiest" inside the idiom is kept: asked about, never both reniced
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan(
        "Please make the priority of the busiest clamscan lower, it must finish.")
    assert plan.kind == Kind.CLARIFY and not plan.steps, plan.text()


def test_that_rule_and_that_stack_are_what_the_story_said(snapshot) -> None:
    said = ("The consultant said our dashboard is reachable from the whole internet because "
            "of an old firewall rule for port 3001. It is only for us. Please remove that rule.")
    assert argvs(snapshot, said) == [["ufw", "delete", "allow", "3001/tcp"]]
    said = ("We move the episodes this afternoon and Kofi wants the whole podcast setup "
            "stopped while the copy runs, app, database and cache. Could you stop that stack?")
    assert argvs(snapshot, said) == [["docker", "stop", name] for name in (
        "castopod", "castopod-db", "castopod-redis")]


@pytest.mark.parametrize(("say", "name"), [
    ("Please change the full name of fay to 'Fay J. Newton-Ward', she is married now.",
     "Fay J. Newton-Ward"),  # an initial ends no sentence
    ("set fay's full name to Fay Newton", "Fay Newton"),
    ("change the real name of fay to \u201cFay O'Neill\u201d", "Fay O'Neill"),
])
def test_a_full_name_is_taken_as_typed(snapshot, say: str, name: str) -> None:
    assert argvs(snapshot, say) == [["usermod", "-c", name, "fay"]]


@pytest.mark.parametrize("say", ["set fay's full name to 'Fay:0:0'",
                                 "set fay's full name to '-e Fay'",
                                 "change the full name of fay"])
def test_a_full_name_that_cannot_be_one_is_asked_for(snapshot, say: str) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan(say)
    assert plan.kind == Kind.CLARIFY and not plan.steps and "full name" in plan.text()


def test_turn_of_is_turn_off(snapshot) -> None:
    assert argvs(snapshot, "turn of nginx") == [["systemctl", "stop", "nginx.service"]]


@pytest.mark.parametrize("say", ["deny all except server 192.168.40.9",
                                 "allow port 22 from every host except server 192.168.40.9",
                                 "block every client other than the pc at 192.168.40.7"])
def test_words_that_set_an_address_apart_are_never_its_description(snapshot, say: str) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan(say)
    assert not any("192.168.40" in a for s in plan.steps for a in s.argv), (say, plan.text())


@pytest.mark.parametrize("say", [
    "The scanner at 203.0.113.9 keeps probing us. Please allow port 22 on this host.",
    "203.0.113.9 keeps scanning us, unlike our partner at 198.51.100.23. Please block that "
    "address.",  # two addresses: which one is asked
    "Our partner is 198.51.100.23. Please block this ip: 203.0.113.9.",
])
def test_an_address_from_the_story_is_never_guessed(snapshot, say: str) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan(say)
    assert not any(a in ("198.51.100.23", "203.0.113.9") and "deny" not in s.argv
                   for s in plan.steps for a in s.argv), (say, plan.text())
    assert not any("198.51.100.23" in s.argv for s in plan.steps), (say, plan.text())


@pytest.mark.parametrize("say", [
    "set fay's full name to 'Fay Old' and nginx's full name to 'Web Server'",  # two names
    "copy the full name of fay to Jbecker",  # one capitalised word is no full name
    "set fay's full name to 'Fay\u009b2JNewton'",  # a C1 control, hidden when shown
    "set fay's full name to 'Fay\u202eNewton'",  # a bidi override
    "set fay's full name to 'Fay\u200bNewton'",  # an invisible space
])
def test_a_full_name_that_is_not_one_clear_name_is_asked_for(snapshot, say: str) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan(say)
    assert not any(s.argv[:2] == ["usermod", "-c"] for s in plan.steps), (say, plan.text())


def test_a_bare_full_name_ends_at_a_full_stop(snapshot) -> None:
    steps = argvs(snapshot, "set the full name of fay to Fay Newton. Restart nginx.")
    assert ["usermod", "-c", "Fay Newton", "fay"] in steps, steps


@pytest.mark.parametrize("say", ["why nginx down", "why is nginx down"])
def test_why_a_name_and_a_state_asks_why_it_is_so(snapshot, say: str) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan(say)
    assert plan.intent is not None and plan.intent.operation == "service.why_failed", say
    assert plan.targets and plan.targets[0].name == "nginx.service"


@pytest.mark.parametrize(("say", "op"), [("apt upgradable", "package.upgradable"),
                                          ("apt updates", "package.upgradable"),
                                          ("dnf search ripgrep", "package.search")])
def test_the_package_managers_name_says_packages(snapshot, say: str, op: str) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan(say)
    assert plan.intent is not None and plan.intent.operation == op, (say, plan.text())
    assert not plan.intent.reading.unexplained


@pytest.mark.parametrize("say", ["what's on 3001", "whats listening on 3001"])
def test_a_number_something_is_on_is_a_port(snapshot, say: str) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan(say)
    assert plan.kind == Kind.QUERY and any("3001" in " ".join(s.argv) for s in plan.steps), (
        say, plan.text())


def test_who_an_account_is_shows_it(snapshot) -> None:
    plan = ReasoningEngine(Settings(), snapshot=snapshot).plan("who is fay?")
    assert plan.intent is not None and plan.intent.operation == "user.info", plan.text()
    assert plan.targets and plan.targets[0].name == "fay"


def test_a_word_left_over_says_which_of_several_a_name_fits() -> None:
    """"restart the UPS monitoring service": "ups" fits every NUT unit, and "monitoring"
    names one of them by a part of its name. On the machine of a stranger's set (F16,
    a development set since its first run), which asked which."""
    drafting = SystemSnapshot.from_dict(json.loads(
        (Path(__file__).parent / "understanding" / "strangers" / "set-f16.json").read_text(
        ))["snapshot"])
    assert argvs(drafting, "restart the UPS monitoring service") == [
        ["sudo", "-n", "systemctl", "restart", "nut-monitor.service"]]
    for say in ("restart the ups", "restart the nut service, not the monitoring one",
                "restart the nut service, the monitoring is fine"):  # nothing says which
        asked = ReasoningEngine(Settings(), snapshot=drafting).plan(say)
        assert asked.kind == Kind.CLARIFY and not asked.steps, say
