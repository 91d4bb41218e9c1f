"""Reaching other machines through ansible-runner (reos/fleet/running.py, reach.py) and
`reos hosts --check`, on the fleet bed: three Debian/systemd hosts over real SSH with key
auth (tests/fleet_bed.py). Each way a host can fail to be ready is made real: a frozen
host, a host key not yet known, a login whose sudo wants a password, a host without the
Python Ansible is told to use, an address with no route. The unit tests at the end need
no bed: what reos refuses to hand Ansible.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from reos.errors import EXIT_FAILED, EXIT_OK, ReosError
from reos.fleet.inventory import Source
from reos.fleet.reach import check
from reos.fleet.running import Task, playbook, run
from tests.conftest import reos


def _source(path: Path) -> Source:
    return Source((path,), "--inventory")


def _variant(fleet, name: str, old: str, new: str) -> Path:  # type: ignore[no-untyped-def]
    """A copy of the fleet's inventory with one line changed, beside it."""
    text = fleet.inventory.read_text()
    assert old in text
    path = fleet.folder / name
    path.write_text(text.replace(old, new))
    return path


def test_every_host_answers_and_lets_reos_act_as_root(fleet) -> None:  # type: ignore[no-untyped-def]
    done = reos("hosts", "-i", str(fleet.inventory), "--check")
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "3 of 3 ready." in done.stdout
    for name in ("web1", "web2", "db1"):
        assert f"✓ {name} answers; reos may act as root" in done.stderr  # as each answered
    assert "Not checked" not in done.stdout

    document = json.loads(reos("hosts", "-i", str(fleet.inventory), "web", "--check",
                               "--json").stdout)
    assert {h["name"]: h["reach"]["state"] for h in document["hosts"]} == {
        "web1": "ready", "web2": "ready"}


def test_without_check_nothing_is_reached(fleet) -> None:  # type: ignore[no-untyped-def]
    done = reos("hosts", "-i", str(fleet.inventory))
    assert done.returncode == EXIT_OK
    assert "reos hosts --check" in done.stdout
    assert "Reaching" not in done.stderr
    assert "reach" not in json.loads(
        reos("hosts", "-i", str(fleet.inventory), "--json").stdout)["hosts"][0]


def test_a_frozen_host_is_not_reached_within_the_setting_and_the_others_are(
        fleet, reos_home: Path) -> None:  # type: ignore[no-untyped-def]
    (reos_home / "config").mkdir(parents=True, exist_ok=True)
    (reos_home / "config" / "settings.toml").write_text("[fleet]\nconnect_timeout = 2\n")
    fleet.pause("web2")
    try:
        done = reos("hosts", "-i", str(fleet.inventory), "--check", "--json", timeout=90)
    finally:
        fleet.unpause("web2")
    assert done.returncode == EXIT_FAILED, done.stderr
    reach = {h["name"]: h["reach"] for h in json.loads(done.stdout)["hosts"]}
    assert reach["web1"]["state"] == reach["db1"]["state"] == "ready"
    assert reach["web2"]["state"] == "unreached"
    assert reach["web2"]["problem"] == "it did not answer within 2 s"  # the setting's


def test_a_host_key_not_yet_known_is_never_accepted(fleet) -> None:  # type: ignore[no-untyped-def]
    empty = fleet.folder / "no_known_hosts"
    empty.write_text("")
    inventory = _variant(fleet, "unknown-keys.ini", str(fleet.known_hosts), str(empty))
    found = check(_source(inventory), ["web1"])
    assert [(r.state, r.problem) for r in found] == [
        ("unreached", "ssh does not know its host key yet")]
    assert "never accepts" in (found[0].hint or "")
    assert empty.read_text() == ""  # ssh was not let to learn it either


def test_sudo_that_wants_a_password_answers_but_not_as_root(fleet) -> None:  # type: ignore[no-untyped-def]
    inventory = _variant(fleet, "carol.ini", "ansible_user=bob", "ansible_user=carol")
    done = reos("hosts", "-i", str(inventory), "db1", "--check")
    assert done.returncode == EXIT_FAILED
    assert "! db1 answers, not as root: sudo wants a password there" in done.stderr
    assert "0 of 1 ready." in done.stdout


def test_a_host_without_that_python_and_a_host_with_no_route(fleet) -> None:  # type: ignore[no-untyped-def]
    nobody = fleet.addresses["web1"].rsplit(".", 1)[0] + ".250"  # on the bed's network
    inventory = _variant(
        fleet, "odd.ini", f"web1 ansible_host={fleet.addresses['web1']}",
        f"web1 ansible_host={fleet.addresses['web1']} "
        f"ansible_python_interpreter=/usr/bin/python9\nghost ansible_host={nobody}")
    # within ssh's default wait, the address's lookup on the network fails first
    found = {r.host: r for r in check(_source(inventory), ["web1", "ghost", "web2"])}
    assert found["web1"].problem == "it has no Python where Ansible looks for one"
    assert (found["ghost"].state, found["ghost"].problem) == ("unreached",
                                                              "there is no route to it")
    assert found["web2"].state == "ready"


def test_text_handed_to_ansible_is_never_rendered_as_a_template(fleet) -> None:  # type: ignore[no-untyped-def]
    said = "{{ 7 * 6 }} {% if true %}x{% endif %} {{ lookup('env', 'HOME') }}"
    # and each text stays a text: YAML would read these as 493, true, null, a time, a date
    # or no YAML at all ("!")
    words = ["0755", "yes", "true", "~", "null", "12:30:00", "2024-01-01", "!", "0x1F"]
    done = run(_source(fleet.inventory), ["web1"],
               [Task("echo", "ansible.builtin.command", {"argv": ["echo", said, *words],
                                                      "expand_argument_vars": False})])
    assert done.status == "successful"
    [result] = done.of("web1")
    assert result.status == "changed"
    assert result.returned["stdout"] == " ".join([said, *words])


def test_a_cancelled_run_stops_and_says_which_hosts_are_unknown(fleet) -> None:  # type: ignore[no-untyped-def]
    heard: list[str] = []
    stop = threading.Event()

    def on_result(result) -> None:  # type: ignore[no-untyped-def]
        heard.append(result.host)
        stop.set()  # the first host's ping has answered: cancel the rest

    done = run(_source(fleet.inventory), ["web1", "web2", "db1"],
               [Task("ping", "ansible.builtin.ping"),
                Task("wait", "ansible.builtin.command", {"argv": ["sleep", "60"]})],
               on_result=on_result, cancelled=stop.is_set)
    assert done.status == "canceled"
    assert heard
    assert not any(r.task == "wait" for r in done.results)  # sleep 60 never finished


# -- no bed needed ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["web*", "all:!db1", "web1,web2", "{{ x }}", "-e", "~w",
                                  "a&b", ""])
def test_a_host_name_ansible_would_read_as_a_pattern_is_refused(tmp_path: Path,
                                                                name: str) -> None:
    with pytest.raises(ReosError, match="reos will not run anything on the host"):
        run(_source(tmp_path / "hosts.ini"), [name], [Task("ping", "ansible.builtin.ping")])


def test_control_characters_are_never_handed_to_ansible() -> None:
    with pytest.raises(ReosError, match="control characters"):
        playbook([Task("echo", "ansible.builtin.command", {"argv": ["echo", "a\x1b[2Jb"]})])


def test_no_string_in_the_playbook_is_a_template_and_each_stays_a_string(
        tmp_path: Path) -> None:
    from ansible._internal._datatag._tags import TrustedAsTemplate  # what !unsafe takes away
    from ansible.parsing.dataloader import DataLoader

    task = Task("restart", "ansible.builtin.systemd_service",
                {"name": "ng'inx\"{{x}}\\ü", "state": "restarted", "mode": "0755",
                 "flag": "yes", "bang": "!"}, become=True, timeout=30)
    path = tmp_path / "main.yml"
    path.write_text(playbook([task]))
    # read as ansible-playbook reads a playbook: its strings trusted as templates unless
    # tagged !unsafe
    [play] = DataLoader().load_from_file(str(path), trusted_as_template=True)
    [read] = play["tasks"]
    assert read["ansible.builtin.systemd_service"] == {
        "name": "ng'inx\"{{x}}\\ü", "state": "restarted", "mode": "0755", "flag": "yes",
        "bang": "!"}
    texts = [play["name"], play["hosts"], read["name"],
             *read["ansible.builtin.systemd_service"].values()]
    assert all(type(t).__mro__[1] is str or isinstance(t, str) for t in texts)
    assert not any(TrustedAsTemplate.is_tagged_on(t) for t in texts)
    assert (read["become"], read["timeout"], play["gather_facts"]) == (True, 30, False)


def test_a_host_that_hangs_up_while_the_module_is_sent_is_asked_again_without_pipelining(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With pipelining, a host without that Python may close the connection before ssh has
    sent the module, and Ansible says only "Broken pipe" (it happened in CI on the bed
    test above): such a host is asked once more, module copied first, which says why."""
    from reos.fleet import reach
    from reos.fleet.running import Result, Run

    asked: list[tuple[list[str], bool]] = []
    hung_up = ("Data could not be sent to remote host '10.0.0.2'. Make sure this host can "
               "be reached over SSH: [Errno 32] Broken pipe")
    no_python = "module interpreter '/usr/bin/python9' was not found"

    def fake_run(source, hosts, tasks, *, on_result, connect_timeout,  # type: ignore[no-untyped-def]
                 pipelining=True):
        hosts = list(hosts)
        asked.append((hosts, pipelining))
        for host in hosts:
            if host == "web2":
                on_result(Result(host, reach.PING.name, "ok"))
                on_result(Result(host, reach.AS_ROOT.name, "ok"))
            else:
                on_result(Result(host, reach.PING.name, "unreachable",
                                 hung_up if pipelining else no_python))
        return Run(hosts=tuple(hosts), status="failed")

    monkeypatch.setattr(reach, "run", fake_run)
    heard: list[str] = []
    found = check(_source(Path("/nonexistent")), ["web1", "web2"],
                  on_reach=lambda r: heard.append(r.host))
    assert asked == [(["web1", "web2"], True), (["web1"], False)]
    assert [(r.host, r.state, r.problem) for r in found] == [
        ("web1", "unreached", "it has no Python where Ansible looks for one"),
        ("web2", "ready", None)]
    assert sorted(heard) == ["web1", "web2"]  # each said once


# -- vault-encrypted variables -----------------------------------------------------------
def _vaulted(name: str, value: str, password_file: Path) -> str:
    """`name: !vault |` and its ciphertext, as ansible-vault writes it for a vars file."""
    import subprocess
    import sys

    done = subprocess.run(
        [str(Path(sys.executable).parent / "ansible-vault"), "encrypt_string",
         "--vault-password-file", str(password_file), value, "--name", name],
        capture_output=True, text=True, timeout=60, check=True)
    return done.stdout


def test_a_vaulted_login_is_opened_with_ansibles_vault_password_file_and_said_without_it(
        fleet, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    password = tmp_path / "vault-pass"
    password.write_text("correct horse\n")
    folder = fleet.folder / "vaulted"
    (folder / "host_vars").mkdir(parents=True, exist_ok=True)
    inventory = folder / "hosts.ini"
    inventory.write_text(fleet.inventory.read_text().replace("ansible_user=bob\n", ""))
    (folder / "host_vars" / "web1.yml").write_text(_vaulted("ansible_user", "bob", password))
    given = {"ANSIBLE_VAULT_PASSWORD_FILE": str(password)}

    listed = json.loads(reos("hosts", "-i", str(inventory), "web1", "--json", env=given).stdout)
    # opened, yet never shown, as Ansible shows it
    assert [(h["ansible_user"], h["sealed"], h["vaulted"]) for h in listed["hosts"]] == [
        (None, [], ["ansible_user"])]
    assert "(vault)@" in reos("hosts", "-i", str(inventory), "web1", env=given).stdout
    done = reos("hosts", "-i", str(inventory), "web1", "--check", env=given)
    assert done.returncode == EXIT_OK, done.stdout + done.stderr
    assert "1 of 1 ready." in done.stdout

    # no password: the login is said to be sealed, and Ansible is never let to guess one
    listed = json.loads(reos("hosts", "-i", str(inventory), "web1", "--json").stdout)
    assert [(h["ansible_user"], h["sealed"]) for h in listed["hosts"]] == [
        (None, ["ansible_user"])]
    # a vault password script is never run inside reos (it may ask): the value stays sealed
    script = tmp_path / "vault-pass.sh"
    script.write_text(f"#!/bin/sh\ncat {password}\n")
    script.chmod(0o700)
    listed = json.loads(reos("hosts", "-i", str(inventory), "web1", "--json",
                             env={"ANSIBLE_VAULT_PASSWORD_FILE": str(script)}).stdout)
    assert [h["sealed"] for h in listed["hosts"]] == [["ansible_user"]]
    # named through a variable, as Ansible resolves the path, it is still a script
    listed = json.loads(reos("hosts", "-i", str(inventory), "web1", "--json", env={
        "ANSIBLE_VAULT_PASSWORD_FILE": "$REOS_TEST_VAULT/vault-pass.sh",
        "REOS_TEST_VAULT": str(tmp_path)}).stdout)
    assert [h["sealed"] for h in listed["hosts"]] == [["ansible_user"]]
    done = reos("hosts", "-i", str(inventory), "web1", "--check")
    assert done.returncode == EXIT_FAILED
    assert "(vault)@" in done.stdout
    assert "a vault-encrypted variable of it cannot be decrypted here" in done.stdout
    assert "ANSIBLE_VAULT_PASSWORD_FILE" in done.stdout

    # a password file that is not there is an error naming it, before anything is read
    done = reos("hosts", "-i", str(inventory), "--check",
                env={"ANSIBLE_VAULT_PASSWORD_FILE": str(tmp_path / "nope")})
    assert done.returncode == 2
    assert f"vault password file {tmp_path / 'nope'} cannot be used" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_vaulted_port_is_no_port_known_so_no_firewall_change_relies_on_it(
        tmp_path: Path) -> None:
    from reos.fleet.inventory import ssh_ports

    password = tmp_path / "vault-pass"
    password.write_text("another secret\n")
    (tmp_path / "host_vars").mkdir()
    (tmp_path / "hosts.ini").write_text("web1 ansible_host=10.0.0.1\nweb2 ansible_port=2222\n")
    (tmp_path / "host_vars" / "web1.yml").write_text(_vaulted("ansible_port", "2222", password))
    # this process has no vault password: web1's port cannot be known, web2's is written
    assert ssh_ports(_source(tmp_path / "hosts.ini"), ["web1", "web2"]) == {
        "web1": None, "web2": 2222}
