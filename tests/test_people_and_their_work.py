"""People in a story, and the work they run (issue 21).

A shared machine where each person runs their own scripts: "he", "she" and "his" in the
asking sentence are the person the story named; "her process" is what she runs beyond her
session (shells, tmux, her systemd); a script is found by its file name; one script run
by two people asks whose; the distribution's own upkeep units never tie with the
machine's own job. The snapshot is built here, so every name is this test's.
"""

from __future__ import annotations

import pytest

from reos.engine import ReasoningEngine
from reos.settings import Settings
from reos.system.snapshot import SystemSnapshot

PEOPLE = {"lfarrow": "Lena Farrow", "obakker": "Otto Bakker", "tquist": "Tove Quist"}


def _process(pid: int, ppid: int, user: str, name: str, cmdline: str) -> dict:
    return {"pid": pid, "ppid": ppid, "name": name, "user": user, "cmdline": cmdline,
            "cpu_percent": 1.0, "memory_rss": 1 << 20}


def _snapshot() -> SystemSnapshot:
    processes = [_process(1, 0, "root", "systemd", "/sbin/init")]
    for n, login in enumerate(PEOPLE, start=1):
        base = 1000 * n
        processes += [
            _process(base, 1, login, "systemd", "/lib/systemd/systemd --user"),
            _process(base + 1, base, login, "(sd-pam)", "(sd-pam)"),
            _process(base + 2, 1, login, "tmux: server", "tmux new -s work"),
            _process(base + 3, base + 2, login, "bash", "-bash")]
    processes += [
        # Lena runs one script, with two workers started with the same command line
        _process(1100, 1003, "lfarrow", "python", "python fit_curves.py --epochs 40"),
        _process(1101, 1100, "lfarrow", "python", "python fit_curves.py --epochs 40"),
        _process(1102, 1100, "lfarrow", "python", "python fit_curves.py --epochs 40"),
        # Otto runs two programs, one of them the same script as Lena's
        _process(2100, 2003, "obakker", "python", "python fit_curves.py --epochs 5"),
        _process(2200, 2003, "obakker", "rsync", "rsync -a /data/raw /scratch/obakker"),
        _process(2300, 2003, "obakker", "python3", "[python3] <defunct>"),
        # Tove runs nothing beyond her session, but a file server she left up
        _process(3100, 3003, "tquist", "python3", "python3 -m http.server 8888"),
        _process(3200, 3003, "tquist", "reos", "/usr/bin/python3 /usr/local/bin/reos chat"),
    ]
    return SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2",
        "host": {"hostname": "quarry", "distro_id": "debian", "distro_version": "12",
                 "init": "systemd", "package_manager": "apt"},
        "containers": [], "packages": [],
        "services": [
            {"name": name, "description": about, "load": "loaded", "active": "inactive",
             "sub": "dead", "enabled": "static"}
            for name, about in (("dpkg-db-backup.service", "Daily dpkg database backup"),
                                ("restic-nightly-backup.service", "Back up /srv to the NAS"),
                                ("ssh.service", "OpenBSD Secure Shell server"))],
        "timers": [{"name": "dpkg-db-backup.timer", "unit": "dpkg-db-backup.service"},
                   {"name": "restic-nightly-backup.timer",
                    "unit": "restic-nightly-backup.service"}],
        "users": [{"name": "root", "uid": 0, "gid": 0, "home": "/root", "shell": "/bin/bash",
                   "groups": ["root"], "system": True, "gecos": "root"}] + [
            {"name": login, "uid": 1000 + n, "gid": 1000 + n, "home": f"/home/{login}",
             "shell": "/bin/bash", "groups": [login, "lab"], "system": False,
             "gecos": f"{full},,,"} for n, (login, full) in enumerate(PEOPLE.items())],
        "groups": [{"name": "lab", "gid": 2000, "members": list(PEOPLE)},
                   {"name": "docker", "gid": 999, "members": []}],
        "processes": processes,
    })


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REOS_LLM", "off")


def plan(say: str):
    return ReasoningEngine(Settings(), snapshot=_snapshot()).plan(say)


def commands(say: str) -> list[str]:
    return [s.command for s in plan(say).steps]


def test_she_in_the_asking_sentence_is_the_person_the_story_named() -> None:
    said = ("Our new student Tove says she can't use the lab share. I'm not sure what "
            "access she got when her account was made. What groups is she in?")
    assert commands(said) == ["id -nG tquist"]
    # without the story "she" is nobody: asked, never guessed
    assert plan("What groups is she in?").kind.value == "clarify"


def test_a_clause_that_says_who_agreed_names_no_target() -> None:
    # "she agreed" tells; "it" is still the thing the story named
    assert commands("Otto started the rsync. Please kill it, he agreed.") == [
        "kill -9 2200"]


def test_it_and_them_stay_things_beside_a_person() -> None:
    # "he said it's fine" tells who agreed: "it" is the job, never his account
    said = "Otto owns the restic-nightly-backup job. Please disable it, he said it's fine."
    assert not any("userdel" in c or "obakker" in c for c in commands(said))
    # "them" is every thing named, never the last one alone
    said = "ssh and restic-nightly-backup were updated last night. Please restart them."
    assert commands(said) == [
        "sudo -n systemctl restart ssh.service",
        "sudo -n systemctl restart restic-nightly-backup.service"]


def test_two_people_in_the_last_sentence_leave_his_unresolved() -> None:
    said = "Otto and Lena both run fits. Please lower the priority of his process."
    result = plan(said)
    assert not result.steps and result.kind.value == "clarify", result.text()


def test_a_persons_process_is_the_work_they_run_beyond_their_session() -> None:
    # Lena's one program, with its workers; never her shell, tmux or systemd --user
    for said in ("lower the priority of Lena's process", "lower prio of lenas process"):
        assert commands(said) == [
            f"sudo -n renice -n 10 -p {pid}" for pid in (1100, 1101, 1102)], said
    said = ("Lena's fit has been running for two days. She agreed it can go slower. "
            "Please lower the priority of her process.")
    assert commands(said) == [f"sudo -n renice -n 10 -p {pid}" for pid in (1100, 1101, 1102)]
    # a story with two people: whose "her" is, is asked, never the last one named
    said = ("Lena left the group. Tove took over her scripts. Please kill her process.")
    result = plan(said)
    assert not result.steps and result.kind.value == "clarify", result.text()


def test_two_programs_of_one_person_are_asked_about() -> None:
    result = plan("kill otto's process")
    assert result.kind.value == "clarify" and not result.steps
    listed = " ".join(label for label, _ in result.options)
    assert "2100" in listed and "2200" in listed and "2300" not in listed  # not the zombie
    assert "2003" not in listed and "2000" not in listed  # not his shell, nor his systemd


def test_a_person_who_runs_nothing_is_told_so() -> None:
    snapshot = _snapshot()
    processes = [p for p in snapshot.processes if p.pid not in (3100, 3200)]
    quiet = SystemSnapshot.from_dict({**snapshot.to_dict(), "processes": [
        {"pid": p.pid, "ppid": p.ppid, "name": p.name, "user": p.user,
         "cmdline": p.cmdline} for p in processes]})
    result = ReasoningEngine(Settings(), snapshot=quiet).plan("kill tove's process")
    assert not result.steps and "nothing" in result.text()


def test_reos_itself_is_never_a_persons_process() -> None:
    assert commands("kill tove's process") == ["kill -9 3100"]  # not her reos chat


def test_a_module_is_found_as_written_and_running_keeps_every_live_process() -> None:
    # "nuke that http.server tove left up": her process, never her account
    assert commands("nuke that http.server tove left up") == ["kill -9 3100"]
    assert commands("kill the rsync otto is running") == ["kill -9 2200"]


def test_a_script_is_found_by_its_file_name_and_two_peoples_copies_ask_whose() -> None:
    assert commands("kill otto's fit_curves.py") == ["kill -9 2100"]
    result = plan("kill fit_curves.py")
    assert result.kind.value == "clarify" and not result.steps
    assert {label.split("'")[0] for label, _ in result.options} == {"lfarrow", "obakker"}
    # each choice is one person's program with its workers, as its words say
    chosen = {label.split("'")[0]: intent for label, intent in result.options}
    assert sorted(chosen["lfarrow"].targets) == ["1100", "1101", "1102"]
    assert chosen["obakker"].targets == ["2100"]
    # asked also when it is one name of a list; the rest of the list stays in each choice
    result = plan("kill fit_curves.py and rsync")
    assert result.kind.value == "clarify" and not result.steps
    assert all("rsync" in intent.targets for _, intent in result.options)
    # a zombie is no one's program: "python3" is Tove's server (and Otto's defunct
    # child, which no signal reaches), so whose is not asked
    result = plan("kill python3")
    assert result.kind.value == "action" and "kill -9 3100" in [
        s.command for s in result.steps], result.text()
    # asked for all of them, all of them
    assert set(commands("kill all fit_curves.py processes")) == {
        f"kill -9 {pid}" for pid in (1100, 1101, 1102, 2100)}


def test_the_distributions_upkeep_never_ties_with_the_machines_own_job() -> None:
    assert commands("run the backup now") == [
        "sudo -n systemctl start restic-nightly-backup.service"]
    # all of them are all of them
    assert set(commands("disable all the backup timers")) == {
        f"sudo -n systemctl disable --now {unit}.timer"
        for unit in ("dpkg-db-backup", "restic-nightly-backup")}
    # named as it is, the distribution's own job is still found
    assert commands("run dpkg-db-backup now") == [
        "sudo -n systemctl start dpkg-db-backup.service"]


def test_a_verb_said_as_something_had_is_not_the_ask() -> None:
    # "its last run" is a noun: a question about the backup never starts it
    for said in ("Can you show me what the backup service logged on its last run?",
                 "Can you show me the backup logs from its last run?",
                 "when is the next run of the backup"):
        result = plan(said)
        assert not any("systemctl start" in s.command for s in result.steps), said


def test_a_quantifier_is_never_a_new_accounts_name() -> None:
    # found by the answer fuzzer: a model's user.create with the target "everything"
    # planned `useradd all`; whatever reads the words, no new account is called so
    from reos.model.plan import Plan
    from reos.model.request import Kind
    from reos.planning import named
    from reos.understanding.matcher import TargetMatcher

    matcher = TargetMatcher(_snapshot())
    for word in ("everything", "all", "nobody-else", "both"):
        said = Plan(request=f"create user {word}", kind=Kind.ACTION)
        made = named.to_create(said, "user", [word], matcher)
        assert (made == []) == (word != "nobody-else"), word
        if not made:
            assert said.kind == Kind.CLARIFY and "called" in said.text()


def test_how_a_jobs_last_run_went_is_its_status() -> None:
    for said in ("did the backup fail", "did the backup flop again", "last backup result",
                 "did the backup finish ok"):
        result = plan(said)
        assert result.kind.value == "query", (said, result.text())
        assert [s.argv[:3] for s in result.steps] == [
            ["systemctl", "show", "restic-nightly-backup.service"]], said


def test_stopping_a_program_that_is_no_container_or_service_ends_it() -> None:
    # the rsync is a process, not a unit: it is asked to end (SIGTERM), never killed
    assert commands("stop the rsync") == ["kill 2200"]
    assert "isn't running" in plan("stop ssh").text()  # the unit, still a unit
    # nothing runs by that name: said, never guessed
    result = plan("stop the zorkd")
    assert not result.steps and "zorkd" in result.text()


def test_a_new_account_in_a_group_and_whom_it_is_for() -> None:
    assert commands("create user gina in the lab group") == [
        "sudo -n useradd -m -s /bin/bash -G lab gina"]  # one step: undo deletes it whole
    assert commands("create user gina with zsh as shell in the lab group") == [
        "sudo -n useradd -m -s /bin/zsh -G lab gina"]
    # "her" is whom the account is for, never its name; the group clause is the ask's
    said = "We hired Gina Holt. Please create her an account as gholt, in the lab group."
    assert commands(said) == ["sudo -n useradd -m -s /bin/bash -G lab gholt"]


def test_a_second_group_is_said_back_never_dropped() -> None:
    result = plan("add tove to lab and docker")
    assert [s.command for s in result.steps] == ["sudo -n usermod -aG docker tquist"]
    assert "“lab”" in result.text()  # "I didn't use “lab”"


def test_a_clean_asking_sentence_beats_a_story_read_whole_as_another_ask() -> None:
    # read whole, the story's words became names of new accounts in the lab group
    said = ("Otto Bakker from the lab tried to use the arrow keys on the server and "
            "everything was weird; it turns out his account was created with plain sh as "
            "the shell. Everyone else has bash. Please switch his shell to bash.")
    assert commands(said) == ["sudo -n usermod -s /bin/bash obakker"]


def test_a_parent_loop_in_a_hostile_snapshot_never_hangs() -> None:
    data = _snapshot().to_dict()
    data["processes"] = [  # each the other's parent, and a third whose parents loop
        _process(7001, 7002, "obakker", "python", "python loop.py"),
        _process(7002, 7003, "obakker", "python", "python loop.py"),
        _process(7003, 7002, "obakker", "python", "python loop.py")]
    engine = ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))
    result = engine.plan("kill otto's process")
    assert result.kind.value in ("action", "clarify")
    assert {s.command for s in result.steps} <= {f"kill -9 {p}" for p in (7001, 7002, 7003)}
