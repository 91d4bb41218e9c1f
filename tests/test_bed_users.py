"""Real accounts and groups in the Debian test bed: each change made by reos (as root),
then `reos undo`, then /etc/passwd, /etc/group and /etc/shadow read again: the lines of
the account or group are what they were before, byte for byte (except the password of
an account deleted and brought back, which reos never records)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

FILES = ("/etc/passwd", "/etc/group", "/etc/shadow")
def _lines(bed, name: str) -> dict[str, list[str]]:
    """Every line of passwd, group and shadow that is about `name`: its own line, and the
    group lines that list it as a member."""
    out = {}
    for path in FILES:
        text = bed.read(path).decode()
        out[path] = sorted(line for line in text.splitlines()
                           if line.split(":")[0] == name
                           or (path == "/etc/group" and name in line.split(":")[-1].split(",")))
    return out


def _account(bed, name: str, *groups: str) -> None:
    """A fresh account with a real password (so locking changes something), in `groups`."""
    bed.run("userdel", "-r", name)
    bed.run("useradd", "-m", "-s", "/bin/bash", name, check=True)
    bed.run("sh", "-c", f"echo '{name}:Secret-for-the-bed-1' | chpasswd", check=True)
    for group in groups:
        bed.run("groupadd", "-f", group, check=True)
        bed.run("usermod", "-aG", group, name, check=True)


def test_create_an_account_then_undo_removes_it_and_its_home(bed) -> None:
    bed.run("userdel", "-r", "reosnew")
    out = bed.approved("create a new user called reosnew")
    assert "useradd -m -s /bin/bash reosnew" in out
    passwd = _lines(bed, "reosnew")["/etc/passwd"]
    assert passwd and passwd[0].endswith(":/home/reosnew:/bin/bash")
    assert bed.run("test", "-d", "/home/reosnew").returncode == 0
    bed.undone()
    assert _lines(bed, "reosnew") == {path: [] for path in FILES}
    assert bed.run("test", "-e", "/home/reosnew").returncode != 0


def test_create_an_account_in_a_group_then_undo_leaves_the_group_as_it_was(bed) -> None:
    bed.run("userdel", "-r", "reosgina")
    bed.run("groupadd", "-f", "reoslab", check=True)
    group_before = [line for line in bed.read("/etc/group").decode().splitlines()
                    if line.startswith("reoslab:")]
    out = bed.approved("create user reosgina in the reoslab group")
    assert "useradd -m -s /bin/bash -G reoslab reosgina" in out
    assert any(line.startswith("reoslab:") and "reosgina" in line.split(":")[-1].split(",")
               for line in bed.read("/etc/group").decode().splitlines())
    bed.undone()
    assert _lines(bed, "reosgina")["/etc/passwd"] == []
    assert [line for line in bed.read("/etc/group").decode().splitlines()
            if line.startswith("reoslab:")] == group_before


def test_create_a_group_then_undo_deletes_it(bed) -> None:
    bed.run("groupdel", "reosteam")
    out = bed.approved("create a group called reosteam")
    assert "groupadd reosteam" in out
    assert _lines(bed, "reosteam")["/etc/group"]
    bed.undone()
    assert _lines(bed, "reosteam")["/etc/group"] == []


def test_add_to_a_group_then_undo_restores_the_groups(bed) -> None:
    _account(bed, "reosdan", "reosops")
    bed.run("groupadd", "-f", "reosdev", check=True)
    before = _lines(bed, "reosdan")
    out = bed.approved("add reosdan to the reosdev group")
    assert "usermod -aG reosdev reosdan" in out
    assert any(line.startswith("reosdev:") for line in _lines(bed, "reosdan")["/etc/group"])
    bed.undone()
    assert _lines(bed, "reosdan") == before


def test_remove_from_a_group_then_undo_puts_it_back(bed) -> None:
    _account(bed, "reoseve", "reosops", "reosdev")
    before = _lines(bed, "reoseve")
    out = bed.approved("kick reoseve out of reosops")
    assert "gpasswd -d reoseve reosops" in out
    assert not any(line.startswith("reosops:") for line in _lines(bed, "reoseve")["/etc/group"])
    bed.undone()
    assert _lines(bed, "reoseve") == before


def test_lock_then_undo_unlocks_with_the_same_password(bed) -> None:
    _account(bed, "reosfay")
    before = _lines(bed, "reosfay")
    bed.approved("lock out reosfay")
    shadow = _lines(bed, "reosfay")["/etc/shadow"][0]
    assert shadow.split(":")[1].startswith("!")
    bed.undone()
    assert _lines(bed, "reosfay") == before


def test_change_shell_then_undo_sets_the_old_one(bed) -> None:
    _account(bed, "reosgus")
    before = _lines(bed, "reosgus")
    out = bed.approved("change reosgus's shell to sh")
    assert "usermod -s /bin/sh reosgus" in out
    assert _lines(bed, "reosgus")["/etc/passwd"][0].endswith(":/bin/sh")
    bed.undone()
    assert _lines(bed, "reosgus") == before


def test_change_full_name_then_undo_sets_the_old_one(bed) -> None:
    _account(bed, "reosfay")
    bed.run("usermod", "-c", "Fay Old,,,", "reosfay", check=True)
    before = _lines(bed, "reosfay")
    out = bed.approved("please change the full name of reosfay to 'Fay J. Newton-Ward'")
    assert "usermod -c 'Fay J. Newton-Ward' reosfay" in out, out
    assert _lines(bed, "reosfay")["/etc/passwd"][0].split(":")[4] == "Fay J. Newton-Ward"
    bed.undone()
    assert _lines(bed, "reosfay") == before  # "Fay Old,,," again, byte for byte


def test_password_age_then_undo_sets_the_old_one_back(bed) -> None:
    _account(bed, "reoshal")
    before = _lines(bed, "reoshal")
    out = bed.approved("max password age 90 days for reoshal")
    assert "chage -M 90 reoshal" in out, out
    assert _lines(bed, "reoshal")["/etc/shadow"][0].split(":")[4] == "90"
    undo = bed.undone()
    assert "chage -M 99999 reoshal" in undo or "chage -M -1 reoshal" in undo, undo
    assert _lines(bed, "reoshal") == before


def test_delete_keeps_the_home_and_undo_recreates_the_account(bed) -> None:
    _account(bed, "reoshal", "reosops")
    bed.run("usermod", "-c", "Hal of the bed", "reoshal", check=True)
    before = _lines(bed, "reoshal")
    out = bed.approved("delete the user reoshal but keep the home directory")
    assert "userdel reoshal" in out and "userdel -r" not in out
    assert _lines(bed, "reoshal")["/etc/passwd"] == []
    assert bed.run("test", "-d", "/home/reoshal").returncode == 0  # the files stay
    bed.undone()
    after = _lines(bed, "reoshal")
    # uid, primary group, groups, shell, home and comment are back; the password is not
    assert after["/etc/passwd"] == before["/etc/passwd"]
    assert after["/etc/group"] == before["/etc/group"]
    assert len(after["/etc/shadow"]) == 1 and after["/etc/shadow"][0].split(":")[1] in ("!", "*")


def test_questions_about_accounts_answer_in_words(bed) -> None:
    _account(bed, "reosida", "reosops")
    groups = bed.reos("plan", "which groups is reosida in")
    assert groups.returncode == 0 and "reosops" in groups.stdout, groups.stdout
    members = bed.reos("plan", "who is in the reosops group")
    assert members.returncode == 0 and "reosida" in members.stdout, members.stdout
    sudoers = bed.reos("plan", "who has sudo")
    assert sudoers.returncode == 0 and "bob" in sudoers.stdout, sudoers.stdout
    # who can log in: every account whose shell is a real one, as getent says
    shells = bed.reos("plan", "which accounts have a real login shell?")
    assert shells.returncode == 0 and "With a login shell:" in shells.stdout, shells.stdout
    said = shells.stdout.split("With a login shell:", 1)[1]
    for line in bed.run("getent", "passwd", check=True).stdout.splitlines():
        name, shell = line.split(":")[0], line.split(":")[6]
        if name in ("reosida", "root", "nobody"):
            assert (f"{name} (" in said) == (not shell.endswith(("nologin", "false"))), said
