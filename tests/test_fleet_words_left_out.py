"""Hosts left out, and words left unread, in requests that name hosts (reos/understanding/
hosts.py through reos/commands/named_hosts.py): each reading is checked on a real INI, YAML
or JSON inventory read by Ansible, and on the fleet bed (web1, web2, db1 over real SSH) the
excluded hosts are shown untouched by their nginx PIDs and cron states.

The cases are the ways an adversarial review made a change run on hosts the person had
excluded: exclusions said other ways than "except", a second exclusion, two clauses with
one host set, "not in", names that differ in case, a name with a space, a host named like
software. What is checked is the rule each broke: every word read or asked, hosts said in
two places asked, the pattern naming each host and Ansible's choice for it compared.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reos.errors import EXIT_NOTHING, EXIT_OK
from reos.fleet.inventory import Source
from reos.on_hosts import as_ansible_chooses, hosts_named
from reos.understanding.host_words import could_name_hosts, inventory_words
from reos.understanding.hosts import (
    Asked,
    Chosen,
    Unknown,
)
from tests.conftest import reos
from tests.test_fleet_words import INI


def source(tmp_path: Path, text: str, name: str = "hosts.ini") -> Source:
    path = tmp_path / name
    path.write_text(text)
    return Source((path,), "--inventory")


@pytest.fixture
def ini(tmp_path: Path) -> Source:
    return source(tmp_path, INI)


def hosts_of(request: str, inventory: Source) -> tuple[str, ...]:
    found = hosts_named(request, inventory)
    assert isinstance(found, Chosen), found
    return found.hosts


def asked(request: str, inventory: Source) -> str:
    found = hosts_named(request, inventory)
    assert isinstance(found, Asked), (request, found)
    return found.question


# -- every word read, or asked -----------------------------------------------------------
@pytest.mark.parametrize("request_", [
    "restart nginx everywhere (not db1)",
    "restart nginx everywhere, but never on db1",
    "restart nginx on every host, never db1",
    "restart nginx on all hosts, leaving db1 out",
    "restart nginx everywhere, db1 not included",
    "restart nginx everywhere; db1 is off limits",
    "restart nginx on all hosts. Don't touch db1!",
    "restart nginx everywhere, the database box excluded",
    "restart nginx everywhere, just not the one I'm logged into",
    "restart nginx everywhere, except where it is not installed",
])
def test_an_exclusion_said_another_way_is_asked_never_dropped(ini: Source,
                                                              request_: str) -> None:
    question = asked(request_, ini)
    assert question.startswith("I read ") or "2 places" in question
    assert "--hosts PATTERN" in question


def test_the_question_says_what_was_read_and_what_was_not(ini: Source) -> None:
    question = asked("restart nginx on every host, never db1", ini)
    assert question.startswith("I read “on every host” as web1, web2, db1, but not “never” "
                               "(in “never db1”), which could leave hosts out.")


def test_a_denying_word_about_something_else_is_read_as_part_of_the_request(
        ini: Source) -> None:
    found = hosts_named("If it's not too much trouble, list the failed services on every "
                        "host.", ini)
    assert isinstance(found, Chosen) and found.hosts == ("web1", "web2", "db1")
    assert hosts_of("which hosts don't have nginx installed?", ini) == ("web1", "web2", "db1")
    assert hosts_of("why is nginx not running on web1?", ini) == ("web1",)


def test_a_second_exclusion_after_a_comma_is_read_too(ini: Source) -> None:
    found = hosts_named("restart nginx everywhere except db1, not web2", ini)
    assert isinstance(found, Chosen)
    assert (found.hosts, found.pattern, found.request) == (("web1",), "web1", "restart nginx")
    assert found.heading() == "On web1 (all hosts except db1 and web2):"


def test_hosts_said_in_two_places_are_asked_never_merged(ini: Source) -> None:
    question = asked("stop cron on the db server and restart nginx on the web servers "
                     "except web2", ini)
    assert question.startswith("The request names hosts in 2 places (“on the db server”: "
                               "db1; “on the web servers”: web1, web2)")
    # "and on db1" after an exclusion is a place to run, never a second host left out
    asked("restart nginx on the web servers except web2 and on db1", ini)
    # "but on db1" is a second place, not a host left out: cron is not stopped on web1
    assert "2 places" in asked("restart nginx on web1 but on db1 stop cron", ini)
    # the same hosts said twice are one place: "the web tier … on the web servers"
    assert hosts_of("the web tier is down, restart nginx on the web servers", ini) == (
        "web1", "web2")


def test_a_name_left_in_the_rest_that_names_other_hosts_is_asked(ini: Source) -> None:
    asked("restart nginx on web1, then look at web2", ini)
    # hosts listed with spaces only are one list, every name read (fleet-words-3)
    assert hosts_of("restart nginx on web1 web2", ini) == ("web1", "web2")
    asked("restart nginx on db1 to fix the web", ini)
    assert hosts_of("db1 is acting up, can you check whether cron is running on db1?",
                    ini) == ("db1",)
    assert hosts_of("restart the web1 container on db1", ini) == ("db1",)


def test_not_in_and_arent_are_asked_never_inverted(tmp_path: Path) -> None:
    prod = source(tmp_path, INI + "\n[production:children]\nweb\n")
    for request in ("restart nginx on hosts not in production",
                    "restart nginx on hosts that aren't web servers",
                    "restart nginx on everything not in production"):
        assert "2 places" in asked(request, prod), request


def test_a_request_that_asks_for_several_things_is_asked(ini: Source) -> None:
    question = asked("reboot this machine and restart nginx on the web servers", ini)
    assert "asks for 2 things (“reboot this machine”; “restart nginx on the web servers”)" \
        in question
    asked("restart nginx and stop cron on web1", ini)
    assert hosts_of("show the uptime and the load on web1", ini) == ("web1",)


# -- names ---------------------------------------------------------------------------------
def test_names_that_differ_only_in_case_are_asked_never_one_picked(tmp_path: Path) -> None:
    groups = source(tmp_path, "[WEB]\nweb1\nweb2\n\n[web]\ndb1\n")
    question = asked("restart nginx everywhere except WEB", groups)
    assert "could be the group WEB or the group web" in question
    hosts = source(tmp_path, "[a]\nWeb1\nweb1\n\n[db]\ndb1\n", "hosts2.ini")
    assert "the host Web1 or the host web1" in asked("restart nginx on web1", hosts)
    asked("restart nginx everywhere except Web1", hosts)
    assert hosts_of("restart nginx on db1", hosts) == ("db1",)


def test_a_host_whose_name_a_pattern_would_split_is_refused(tmp_path: Path) -> None:
    document = {"all": {"children": {
        "web": {"hosts": {"web1": {}, "web2": {}}},
        "db": {"hosts": {"db1": {}, "db9 web2": {}}}}}}
    spaced = source(tmp_path, json.dumps(document), "inventory.json")
    refused = hosts_named("restart nginx on db*", spaced)
    assert isinstance(refused, Unknown) and "“db9 web2”" in refused.message
    assert isinstance(hosts_named("restart nginx everywhere except web1", spaced), Unknown)
    # every host too: the run names each host again (its limit, "web1,web2,…")
    assert isinstance(hosts_named("restart nginx everywhere", spaced), Unknown)
    assert hosts_of("restart nginx on db1", spaced) == ("db1",)


def test_a_host_named_like_software_is_no_exclusion_without_hosts_to_run_on(
        tmp_path: Path) -> None:
    named = source(tmp_path, "[web]\nweb1\nweb2\napp1\n\n[db]\npostgres\n")
    assert hosts_named("stop all containers except postgres", named) is None
    assert "no hosts to run on" in asked("restart nginx but not postgres", named)
    # with hosts to run on, a bare name left out of a set of things: host, or container?
    assert "one of the things the request names" in asked(
        "stop all containers everywhere except app1", named)
    assert hosts_of("stop all containers everywhere except on app1", named) == (
        "web1", "web2", "postgres")


def test_hosts_left_out_alone_are_asked_never_run_here(tmp_path: Path, ini: Source) -> None:
    for request in ("restart nginx except on web", "restart nginx except web",
                    "stop nginx except on db1"):
        assert "no hosts to run on" in asked(request, ini), request
    eu = source(tmp_path, "[web]\nweb1\nweb2\n\n[prod-eu]\ndb1\n", "eu.ini")
    asked("restart nginx except on prod", eu)
    prod = hosts_named("restart nginx on prod", eu)
    assert isinstance(prod, Chosen) and prod.hosts == ("db1",)
    assert prod.heading() == "On db1 (group prod-eu, for “prod”):"


def test_every_host_said_other_ways_and_a_host_said_apart(tmp_path: Path,
                                                          ini: Source) -> None:
    assert hosts_of("restart nginx on everything", ini) == ("web1", "web2", "db1")
    assert hosts_of("restart nginx on the all group", ini) == ("web1", "web2", "db1")
    assert hosts_of("restart nginx on all but db1", ini) == ("web1", "web2")
    assert "which hosts of hosts.ini" in asked("restart nginx on all of them", ini)
    assert set(hosts_of("restart nginx on db1 and on the web servers in production",
                        source(tmp_path, INI + "\n[production:children]\nweb\n", "p.ini")
                        )) == {"web1", "web2", "db1"}
    dashed = source(tmp_path, "[web]\nweb-1\nweb-2\n\n[db]\ndb1\n", "dashed.ini")
    apart = hosts_named("restart nginx on web 1", dashed)
    assert isinstance(apart, Chosen)
    assert (apart.hosts, apart.request) == (("web-1",), "restart nginx")


def test_a_group_named_like_a_thing_is_no_host_when_the_words_say_the_thing(
        tmp_path: Path) -> None:
    packages = source(tmp_path, "[web]\nweb1\nweb2\n\n[packages]\ndb1\n")
    assert hosts_named("update all packages", packages) is None
    assert hosts_of("update all packages on web1", packages) == ("web1",)


def test_everyday_words_for_hosts_stay_on_this_machine(ini: Source) -> None:
    for request in ("remove all hosts from known_hosts", "restart all nodes of the k8s cluster",
                    "which server is listening on port 80?", "check every host in /etc/hosts",
                    "show all hosts in /etc/hosts"):
        assert hosts_named(request, ini) is None, request
    assert hosts_of("show all servers with high load", ini) == ("web1", "web2", "db1")


def test_the_rest_keeps_no_joining_word_its_hosts_were_cut_from(ini: Source) -> None:
    for request in ("restart nginx and on web1", "restart nginx on web1 and db1 and"):
        found = hosts_named(request, ini)
        assert isinstance(found, Chosen) and found.request == "restart nginx", request


# -- Ansible's own choice ---------------------------------------------------------------------
def test_hosts_are_checked_against_ansibles_choice_for_the_pattern(tmp_path: Path) -> None:
    inventory = source(tmp_path, "ungrouped\nweb3\n\n[web]\nweb1\nweb2\n")
    found = hosts_named("restart nginx everywhere except ungrouped", inventory)
    assert isinstance(found, Chosen) and found.hosts == ("web3", "web1", "web2")
    assert found.pattern == "web3,web1,web2"
    # a host called "all": Ansible reads the pattern "all" as that host alone
    named_all = source(tmp_path, "[web]\nweb1\nweb2\n\n[db]\ndb1\nall\n", "all.ini")
    refused = hosts_named("restart nginx everywhere", named_all)
    assert isinstance(refused, Unknown)
    assert refused.message == ("Ansible reads the pattern 'all' for web1, web2, db1, all "
                               "otherwise: it would leave out db1, web1, web2. Nothing was "
                               "run.")
    meant = Chosen(pattern="web3", hosts=("web3", "web1"), named="", request="restart nginx")
    assert "it would leave out web1" in as_ansible_chooses(meant, inventory).message


# -- the first look --------------------------------------------------------------------------
VARIABLES = """[web]
web1 ansible_host=10.9.0.11 ansible_ssh_private_key_file=/home/bob/.ssh/id_ed25519

[db]
db1

[all:vars]
ansible_python_interpreter=/usr/bin/python3
"""


def test_the_first_look_takes_names_never_variables(tmp_path: Path) -> None:
    known = inventory_words([source(tmp_path, VARIABLES).paths[0]])
    assert {"web1", "web", "db1", "db"} <= known
    assert not {"home", "bob", "ssh", "python3", "python", "usr", "bin"} & known
    for request in ("check the home folder size", "restart ssh", "show python version"):
        assert not could_name_hosts(request, known), request
    yaml = source(tmp_path, "all:\n  vars:\n    ansible_user: bob\n  children:\n    web:\n"
                            "      hosts:\n        web1:\n          home_dir: /home/bob\n",
                  "inventory.yml")
    assert inventory_words(yaml.paths) >= {"web1", "web"}
    assert not {"home", "bob", "home_dir"} & inventory_words(yaml.paths)


def test_restart_ssh_with_an_inventory_never_loads_ansible(tmp_path: Path) -> None:
    import os

    path = source(tmp_path, VARIABLES).paths[0]
    env = {**os.environ, "ANSIBLE_INVENTORY": str(path), "REOS_HOME": str(tmp_path / "h")}
    script = ("import io, contextlib, sys, json\nfrom reos.cli import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n"
              "    main(['plan', '--json', 'restart ssh'])\n"
              "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, env=env, timeout=120)
    modules = {m.split(".")[0] for m in json.loads(done.stdout.splitlines()[-1])}
    assert "ansible" not in modules


# -- on the fleet bed: the hosts left out are untouched ---------------------------------------
def _pids(fleet) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {host: fleet.pid(host, "nginx") for host in ("web1", "web2", "db1")}


def test_exclusions_said_other_ways_touch_no_host_and_a_second_is_honoured(
        fleet) -> None:  # type: ignore[no-untyped-def]
    inventory = str(fleet.inventory)
    before = _pids(fleet)
    for request in ("restart nginx everywhere (not db1)",
                    "restart nginx everywhere; db1 is off limits"):
        done = reos("plan", "--yes", "-i", inventory, request, timeout=180)
        assert done.returncode == EXIT_NOTHING, done.stdout + done.stderr
        assert "I read “everywhere” as web1, web2, db1" in done.stdout
    assert _pids(fleet) == before
    done = reos("plan", "--yes", "-i", inventory,
                "restart nginx everywhere except db1, not web2", timeout=180)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert done.stdout.startswith("On web1 (all hosts except db1 and web2):")
    after = _pids(fleet)
    assert after["web1"] not in ("", "0", before["web1"])
    assert (after["web2"], after["db1"]) == (before["web2"], before["db1"])


def test_two_clauses_with_their_own_hosts_run_nowhere(
        fleet) -> None:  # type: ignore[no-untyped-def]
    before = _pids(fleet)
    done = reos("plan", "--yes", "-i", str(fleet.inventory),
                "stop cron on the db server and restart nginx on the web servers except web2",
                timeout=180)
    assert done.returncode == EXIT_NOTHING, done.stdout + done.stderr
    assert "names hosts in 2 places" in done.stdout
    assert _pids(fleet) == before
    assert {host: fleet.state(host, "cron") for host in before} == dict.fromkeys(
        before, "active")


def test_a_host_name_with_a_space_is_refused_and_plain_names_still_run(
        fleet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = fleet.inventory.read_text()
    variables = dict(line.split("=", 1) for line in text.split("[all:vars]", 1)[1].splitlines()
                     if "=" in line)
    address = fleet.addresses
    document = {"all": {"vars": {k: v.strip("'") for k, v in variables.items()}, "children": {
        "web": {"hosts": {"web1": {"ansible_host": address["web1"]},
                          "web2": {"ansible_host": address["web2"]}}},
        "db": {"hosts": {"db1": {"ansible_host": address["db1"]},
                         "db9 web2": {"ansible_host": address["db1"]}}}}}}
    inventory = tmp_path / "inventory.json"
    inventory.write_text(json.dumps(document))
    before = _pids(fleet)
    done = reos("plan", "--yes", "-i", str(inventory), "restart nginx on db*", timeout=180)
    assert done.returncode == EXIT_NOTHING, done.stdout + done.stderr
    assert "“db9 web2”" in done.stderr
    assert _pids(fleet) == before
    done = reos("plan", "--yes", "-i", str(inventory), "restart nginx on db1", timeout=180)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    after = _pids(fleet)
    assert after["db1"] not in ("", "0", before["db1"])
    assert (after["web1"], after["web2"]) == (before["web1"], before["web2"])
