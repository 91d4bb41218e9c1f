"""The fleet's first slice: the person's Ansible inventory read by ansible-core's own code,
hosts chosen by Ansible's patterns, and `reos hosts`.

Every inventory here is a real file the test writes (INI, YAML, group_vars and host_vars
beside them), read through reos.fleet.inventory or `reos.cli.main`. What Ansible itself
decides (parsing, patterns, variable precedence) is Ansible's; what these tests hold reos
to is what it makes stricter (a file that does not parse, a pattern that matches nothing,
a missing file: errors, never warnings), where it looks for the inventory, what it
shows, and what importing Ansible may read and write.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reos import cli
from reos.errors import EXIT_NOTHING, EXIT_OK, EXIT_USAGE, ReosError, UsageError
from reos.fleet.inventory import Source, find_source, select
from reos.settings import Settings

ROOT = Path(__file__).resolve().parent.parent

INI = """\
# the web tier and the database
[web]
web1 ansible_host=10.0.0.11 ansible_port=2222
web2 ansible_host=10.0.0.12

[db]
db1 ansible_host=10.0.0.21 ansible_user=postgres

[prod:children]
web
db

[staging]
stage1

[web:vars]
ansible_user=deploy
"""

YAML = """\
all:
  children:
    webservers:
      hosts:
        web1:
          ansible_host: 192.0.2.1
        web2:
      vars:
        ansible_user: www
    dbservers:
      hosts:
        db1:
          ansible_port: 5433
    prod:
      children:
        webservers:
        dbservers:
    backup:
      hosts:
        web2:
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def source(path: Path) -> Source:
    return Source((path,), "--inventory")


def names(pattern: str, path: Path, limit: str | None = None) -> list[str]:
    return [host.name for host in select(source(path), pattern, limit).hosts]


def hosts_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["hosts", *args])
    out, err = capsys.readouterr()
    return code, out, err


# -- reading: groups, children, variables ------------------------------------------------
def test_an_ini_inventory_gives_its_groups_children_and_connection_variables(
        tmp_path: Path) -> None:
    chosen = select(source(write(tmp_path, "inventory.ini", INI)))
    by_name = {host.name: host for host in chosen.hosts}
    assert list(by_name) == ["stage1", "web1", "web2", "db1"]  # Ansible's order
    assert by_name["web1"].groups == ("prod", "web")  # a child group's host is its parent's
    assert (by_name["web1"].ansible_host, by_name["web1"].ansible_port,
            by_name["web1"].ansible_user) == ("10.0.0.11", "2222", "deploy")  # group var
    assert by_name["db1"].ansible_user == "postgres"  # a host's own variable
    assert (by_name["stage1"].ansible_host, by_name["stage1"].ansible_port,
            by_name["stage1"].ansible_user) == (None, None, None)
    assert all(type(v) is str for h in chosen.hosts
               for v in (h.ansible_host, h.ansible_port, h.ansible_user) if v is not None)
    assert chosen.groups == {"db": ("db1",), "prod": ("web1", "web2", "db1"),
                             "staging": ("stage1",), "web": ("web1", "web2")}


def test_a_yaml_inventory_reads_the_same_way(tmp_path: Path) -> None:
    chosen = select(source(write(tmp_path, "hosts.yml", YAML)))
    by_name = {host.name: host for host in chosen.hosts}
    assert by_name["web2"].groups == ("backup", "prod", "webservers")
    assert by_name["web1"].ansible_host == "192.0.2.1"
    assert by_name["web2"].ansible_user == "www"
    assert by_name["db1"].ansible_port == "5433" and by_name["db1"].ansible_user is None
    assert chosen.groups["prod"] == ("web1", "web2", "db1")


def test_group_vars_and_host_vars_beside_the_inventory_count_in_ansibles_order(
        tmp_path: Path) -> None:
    inventory = write(tmp_path, "inventory.ini", INI)
    write(tmp_path, "group_vars/db.yml", "ansible_port: 6000\n")
    write(tmp_path, "host_vars/web2.yml", "ansible_port: 2200\nansible_user: admin\n")
    by_name = {host.name: host for host in select(source(inventory)).hosts}
    assert by_name["db1"].ansible_port == "6000"
    assert (by_name["web2"].ansible_port, by_name["web2"].ansible_user) == ("2200", "admin")


def test_a_template_is_kept_as_written_never_rendered(tmp_path: Path) -> None:
    inventory = write(tmp_path, "inventory.yml",
                      "all:\n  hosts:\n    h1:\n      ansible_host: \"{{ lookup('pipe', "
                      "'touch " + str(tmp_path / "ran") + "') }}\"\n")
    (host,) = select(source(inventory)).hosts
    assert host.ansible_host is not None and host.ansible_host.startswith("{{ lookup(")
    assert not (tmp_path / "ran").exists()


# -- choosing hosts with Ansible's patterns ----------------------------------------------------
@pytest.mark.parametrize(("pattern", "expected"), [
    ("all", ["stage1", "web1", "web2", "db1"]),
    ("web*", ["web1", "web2"]),
    ("all:!db1", ["stage1", "web1", "web2"]),
    ("prod:!web", ["db1"]),
    ("web:&prod", ["web1", "web2"]),
    ("prod:&staging", []),  # checked below: an error, not an empty list
    ("~web[12]", ["web1", "web2"]),
    ("web2,stage1", ["web2", "stage1"]),
])
def test_patterns_with_exclusion_and_intersection(tmp_path: Path, pattern: str,
                                                 expected: list[str]) -> None:
    inventory = write(tmp_path, "inventory.ini", INI)
    if not expected:
        with pytest.raises(ReosError):
            select(source(inventory), pattern)
        return
    assert names(pattern, inventory) == expected


def test_limit_narrows_what_the_pattern_chose(tmp_path: Path) -> None:
    inventory = write(tmp_path, "inventory.ini", INI)
    assert names("prod", inventory, limit="web*") == ["web1", "web2"]
    assert names("all", inventory, limit="db1,stage1") == ["stage1", "db1"]
    chosen = select(source(inventory), "prod", "web1")
    assert chosen.limit == "web1" and chosen.groups == {"prod": ("web1",), "web": ("web1",)}


def test_a_pattern_that_matches_nothing_is_an_error_naming_it_and_the_groups(
        tmp_path: Path) -> None:
    inventory = write(tmp_path, "inventory.ini", INI)
    with pytest.raises(ReosError) as raised:
        select(source(inventory), "mail*")
    assert raised.value.exit_code == EXIT_NOTHING
    assert "'mail*'" in raised.value.message and str(inventory) in raised.value.message
    assert raised.value.hint == "Its groups: db, prod, staging, web."
    with pytest.raises(ReosError) as raised:
        select(source(inventory), "web*", limit="db1")
    assert "'web*' within --limit 'db1'" in raised.value.message


# -- where the inventory comes from -----------------------------------------------------------
def test_the_inventory_is_the_cli_s_then_the_settings_then_ansible_inventory(
        tmp_path: Path) -> None:
    settings = Settings(path=tmp_path / "config" / "settings.toml")
    settings.fleet.inventory = "fleet/hosts.yml"
    environ = {"ANSIBLE_INVENTORY": "/srv/a.ini, /srv/b.yml"}
    given = find_source(Path("cli.ini"), settings, environ)
    assert given == Source((Path("cli.ini"),), "--inventory")
    configured = find_source(None, settings, environ)
    assert configured is not None  # relative: from the settings file's folder
    assert configured.paths == (tmp_path / "config" / "fleet" / "hosts.yml",)
    assert configured.given_by == f"[fleet] inventory in {settings.path}"
    settings.fleet.inventory = ""
    assert find_source(None, settings, environ) == Source(
        (Path("/srv/a.ini"), Path("/srv/b.yml")), "ANSIBLE_INVENTORY")
    assert find_source(None, settings, {}) is None
    assert find_source(None, settings, {"ANSIBLE_INVENTORY": " , "}) is None


def test_precedence_through_the_command_line(tmp_path: Path, reos_home: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from_cli = write(tmp_path, "cli.ini", "[a]\ncli-host\n")
    from_settings = write(tmp_path, "settings.ini", "[b]\nsettings-host\n")
    from_env = write(tmp_path, "env.ini", "[c]\nenv-host\n")
    monkeypatch.setenv("ANSIBLE_INVENTORY", str(from_env))

    def listed(*args: str) -> list[str]:
        code, out, _ = hosts_cli(capsys, "--json", *args)
        assert code == EXIT_OK
        return [host["name"] for host in json.loads(out)["hosts"]]

    assert listed() == ["env-host"]
    write(reos_home / "config", "settings.toml", f'[fleet]\ninventory = "{from_settings}"\n')
    assert listed() == ["settings-host"]
    assert listed("-i", str(from_cli)) == ["cli-host"]


def test_without_any_inventory_it_says_how_to_give_one(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ANSIBLE_INVENTORY", raising=False)
    code, out, err = hosts_cli(capsys)
    assert code == EXIT_USAGE and out == ""
    assert "No Ansible inventory given" in err
    assert "reos hosts -i FILE" in err and "[fleet]" in err and "ANSIBLE_INVENTORY" in err


def test_settings_take_an_empty_inventory_as_none_and_refuse_a_number(tmp_path: Path) -> None:
    from reos import settings
    from reos.errors import SettingsError

    assert settings.parse('[fleet]\ninventory = ""\n', tmp_path / "s.toml").fleet.inventory == ""
    with pytest.raises(SettingsError, match=r"\[fleet\] inventory must be a string"):
        settings.parse("[fleet]\ninventory = 3\n", tmp_path / "s.toml")


# -- what cannot be read is an error naming the file (and the line) ----------------------------
def test_a_malformed_ini_names_the_file_and_ansibles_reason(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "broken.ini", "[web]\nweb1 ansible_port\n")
    with pytest.raises(UsageError) as raised:
        select(source(bad))
    # Ansible's INI plugin gives no line (2.19 drops it before raising): the file and why
    assert raised.value.message == (
        f"{bad}: Ansible could not read this inventory as INI: Expected key=value host "
        "variable assignment, got: ansible_port")
    code, out, err = hosts_cli(capsys, "-i", str(bad))
    assert code == EXIT_USAGE and out == ""
    assert f"reos: {bad}: Ansible could not read" in err
    assert "[WARNING]" not in err and "Traceback" not in err  # Ansible's own words kept out


def test_a_malformed_yaml_names_the_file_and_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    bad = write(tmp_path, "broken.yml",
                "all:\n  hosts:\n    web1: {ansible_host: 10.0.0.1\n    web2:\n")
    with pytest.raises(UsageError) as raised:
        select(source(bad))
    message = raised.value.message
    assert message.startswith(f"{bad}:4: Ansible could not read this inventory as YAML: ")
    assert "YAML parsing failed" in message  # the YAML plugin's reason, not the INI one's
    code, _, err = hosts_cli(capsys, "-i", str(bad))
    assert code == EXIT_USAGE and f"{bad}:4:" in err and "[WARNING]" not in err


def test_one_malformed_file_in_an_inventory_folder_fails_the_whole(tmp_path: Path) -> None:
    """Ansible would read the good file, warn about the bad one and go on with half the
    hosts; reos says which file is wrong instead."""
    folder = tmp_path / "inventory"
    write(folder, "10-web.ini", INI)
    bad = write(folder, "20-extra.yml", "all:\n  hosts:\n    mail1: {ansible_host: [\n")
    with pytest.raises(UsageError) as raised:
        select(source(folder))
    assert raised.value.message.startswith(f"{bad}:")
    write(folder, "20-extra.yml", "all:\n  hosts:\n    mail1:\n")
    assert "mail1" in names("all", folder)


def test_a_broken_group_vars_file_is_named_too(tmp_path: Path) -> None:
    inventory = write(tmp_path, "inventory.ini", INI)
    bad = write(tmp_path, "group_vars/web.yml", "ansible_user: [deploy,\n")
    with pytest.raises(UsageError) as raised:
        select(source(inventory))
    assert raised.value.message.startswith(
        f"{bad}:2: Ansible could not read this file of the inventory {inventory}: ")


def test_an_inventory_script_or_plugin_configuration_is_refused_not_run(
        tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    script = write(tmp_path, "inventory.sh", f"#!/bin/sh\ntouch {ran}\necho '{{}}'\n")
    script.chmod(0o755)
    with pytest.raises(UsageError) as raised:
        select(source(script))
    assert not ran.exists()  # Ansible's script plugin would have run it
    assert "never inventory scripts or plugins" in str(raised.value.hint)
    plugin = write(tmp_path, "aws_ec2.yml", "plugin: amazon.aws.aws_ec2\n")
    with pytest.raises(UsageError, match="Plugin configuration YAML file"):
        select(source(plugin))


def test_a_missing_inventory_is_an_error_naming_it_and_who_gave_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.ini"
    with pytest.raises(UsageError) as raised:
        select(source(missing))
    assert raised.value.message == f"The inventory {missing} does not exist (given by --inventory)."
    monkeypatch.setenv("ANSIBLE_INVENTORY", str(missing))
    code, _, err = hosts_cli(capsys)
    assert code == EXIT_USAGE and f"{missing} does not exist (given by ANSIBLE_INVENTORY)" in err


def test_an_inventory_without_hosts_says_so(tmp_path: Path) -> None:
    with pytest.raises(ReosError, match="holds no hosts") as raised:
        select(source(write(tmp_path, "empty.ini", "# nothing yet\n[web]\n")))
    assert raised.value.exit_code == EXIT_NOTHING


# -- what `reos hosts` shows ------------------------------------------------------------------
def test_hosts_json_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inventory = write(tmp_path, "inventory.ini", INI)
    code, out, err = hosts_cli(capsys, "-i", str(inventory), "--limit", "web*", "--json",
                               "prod")
    assert code == EXIT_OK and err == ""
    document = json.loads(out)
    assert document == {
        "schema": "reos.hosts/1", "sources": [str(inventory)], "pattern": "prod",
        "limit": "web*",
        "hosts": [
            {"name": "web1", "groups": ["prod", "web"], "ansible_host": "10.0.0.11",
             "ansible_port": "2222", "ansible_user": "deploy", "sealed": [], "vaulted": [],
                 "snapshot_age_seconds": None},
            {"name": "web2", "groups": ["prod", "web"], "ansible_host": "10.0.0.12",
             "ansible_port": None, "ansible_user": "deploy", "sealed": [], "vaulted": [],
                 "snapshot_age_seconds": None},
        ],
        "groups": {"prod": ["web1", "web2"], "web": ["web1", "web2"]},
    }


def test_hosts_lists_by_group_with_addresses_and_says_what_is_not_known_yet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inventory = write(tmp_path, "inventory.ini", INI)
    code, out, err = hosts_cli(capsys, "-i", str(inventory), "prod")
    assert code == EXIT_OK and err == ""
    assert out.splitlines()[:2] == [f"Inventory: {inventory} (from --inventory)",
                                    "3 hosts match 'prod'."]
    assert "db (1)\n  db1   postgres@10.0.0.21  snapshot: none yet\n" in out
    assert ("web (2)\n  web1  deploy@10.0.0.11:2222  snapshot: none yet\n"
            "  web2  deploy@10.0.0.12  snapshot: none yet\n") in out
    assert out.rstrip().splitlines()[-2:] == [
        "Not checked whether these hosts answer: reos hosts --check reaches each.",
        "Snapshots are what reos last read of each host; reos plan --hosts reads them "
        "again before it plans."]


def test_a_pattern_without_hosts_exits_4_and_ansibles_warning_stays_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inventory = write(tmp_path, "inventory.ini", INI)
    code, out, err = hosts_cli(capsys, "-i", str(inventory), "mail*")
    assert code == EXIT_NOTHING and out == ""
    assert err == (f"reos: No host in {inventory} matches 'mail*'.\n"
                   "  Its groups: db, prod, staging, web.\n")


def test_terminal_escapes_in_names_never_reach_the_terminal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # (a host's name with "[" would be read as a range, web[1:3]: its escape is OSC, a title)
    inventory = write(tmp_path, "evil.yml",
                      'all:\n  children:\n    "ops\\e[2J\\e[31m":\n      hosts:\n'
                      '        "web\\e]0;owned\\a1":\n          ansible_user: "x\\u009b2Jy"\n')
    chosen = select(source(inventory))
    assert chosen.hosts[0].name == "web\x1b]0;owned\x071"  # kept as written, in the record
    code, out, err = hosts_cli(capsys, "-i", str(inventory))
    assert code == EXIT_OK and "web1" in out and "ops" in out and "xy@web1" in out
    assert not any(c in out + err for c in "\x1b\x07\x9b")
    code, out, _ = hosts_cli(capsys, "-i", str(inventory), "--json")
    assert not any(c in out for c in "\x1b\x07\x9b")  # escaped in JSON
    assert json.loads(out)["hosts"][0]["name"] == "web\x1b]0;owned\x071"
    code, _, err = hosts_cli(capsys, "-i", str(inventory), "nope\x1b[2J")
    assert code == EXIT_NOTHING and "\x1b" not in err and "'nope" in err


# -- what Ansible is allowed to read and write -------------------------------------------------
def _hosts_in_a_fresh_process(cwd: Path, home: Path, *args: str,
                              env: dict[str, str] | None = None,
                              ) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    return subprocess.run([sys.executable, "-m", "reos", "hosts", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**clean, "HOME": str(home), **(env or {})})


def test_an_ansible_cfg_in_the_current_folder_is_not_read_and_home_is_not_written(
        tmp_path: Path) -> None:
    home, repository = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    log = tmp_path / "ansible.log"  # what the cloned repository's ansible.cfg would write
    write(repository, "ansible.cfg", f"[defaults]\nlog_path = {log}\n")
    write(repository, "inventory.ini", INI)
    done = _hosts_in_a_fresh_process(repository, home, "-i", "inventory.ini", "--json")
    assert done.returncode == 0, done.stderr
    assert [h["name"] for h in json.loads(done.stdout)["hosts"]] == [
        "stage1", "web1", "web2", "db1"]
    assert not log.exists()
    assert list(home.iterdir()) == []  # no ~/.ansible/tmp, nothing else
    assert done.stderr == ""
    # the control: named by ANSIBLE_CONFIG, the same file is read (so the test can tell)
    named = _hosts_in_a_fresh_process(repository, home, "-i", "inventory.ini",
                                      env={"ANSIBLE_CONFIG": str(repository / "ansible.cfg")})
    assert named.returncode == 0 and log.exists()


def test_hosts_loads_ansible_and_plan_does_not(tmp_path: Path) -> None:
    from tests.conftest import FIXTURES
    from tests.test_import_hygiene import loaded_after

    inventory = write(tmp_path, "inventory.ini", INI)
    code = ("import io, contextlib\nfrom reos.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main(['hosts', '-i', {str(inventory)!r}]) == 0\n")
    assert "ansible.inventory.manager" in loaded_after(code)  # the control
    plan = ("import io, contextlib\nfrom reos.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    main(['plan', '--json', '--context', {str(FIXTURES / 'homelab.json')!r},"
            " 'restart nginx'])\n")
    modules = loaded_after(plan)
    assert "reos.commands.plan" in modules
    assert not [m for m in modules if m.split(".")[0] in ("ansible", "ansible_runner")
                or m.startswith("reos.fleet")]


def test_only_the_fleet_imports_ansible() -> None:
    import re

    importing = re.compile(r"^\s*(import|from) (ansible|ansible_runner)\b", re.MULTILINE)
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "reos").rglob("*.py")
                   if importing.search(p.read_text(encoding="utf-8")))
    assert found == ["reos/fleet/inventory.py", "reos/fleet/running.py"]


def test_without_ansible_installed_it_says_how_to_install_the_fleet(tmp_path: Path) -> None:
    """Ansible is the `fleet` extra: a single-machine install has none, and `reos hosts`
    then says what to install instead of a traceback."""
    inventory = write(tmp_path, "hosts.ini", INI)
    code = ("import sys\n"
            "sys.modules['ansible'] = None  # as if it were not installed\n"
            "from reos import cli\n"
            f"sys.exit(cli.main(['hosts', '-i', {str(inventory)!r}]))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "REOS_HOME": str(tmp_path / "home")},
                          cwd=tmp_path, timeout=60)
    assert done.returncode != EXIT_OK
    assert "Traceback" not in done.stderr
    assert "pip install 'reos[fleet]'" in done.stderr + done.stdout
