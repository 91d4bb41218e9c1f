"""The undo symlink attack, for real, in the Debian bed: root undoes, alice attacks.

Root has reos edit (or create) a file in a folder alice can write; alice then swaps the
file, the folder or the names next to it for symbolic links to /etc/shadow (or
/etc/crontab), or for a file of her own; root runs `reos undo`. The protected file must be
byte-for-byte untouched and undo must say why it left the path alone. The edit is driven
through reos's own executor with a real `sed -i`/`cp` step (no template edits config
files), with backups where reos keeps them, exactly as a plan step would be.
"""

from __future__ import annotations

import uuid

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

PY = "/opt/reos/bin/python"
EDIT = """
import sys
from reos import paths
from reos.execution.executor import Checks, Executor
from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.model.risk import RiskLevel
from reos.safety.backups import BackupStore
from reos.settings import LimitsSettings
from reos.store.db import Database
from reos.store.journal import Journal

step = Step(id="s1", title="Edit the shared config", argv=sys.argv[1:], risk=RiskLevel.LOW)
report = Executor(Journal(Database(paths.database_file())), LimitsSettings(),
                  checks=Checks(backups=BackupStore(paths.backups_dir()))).execute(
    Plan("edit the shared config", Kind.ACTION, steps=[step]))
sys.exit(0 if report.ok else 1)
"""
WRITE = "import sys; open(sys.argv[1], 'w').write(sys.argv[2])"
ORIGINAL = "port = 8080\nowner = root\n"


class Scene:
    """A folder owned by alice, a root-owned config in it, and a private REOS_HOME."""

    def __init__(self, bed, sub: str = "") -> None:
        self.bed = bed
        self.home = f"/root/reos-{uuid.uuid4().hex[:8]}"
        self.shared = f"/srv/shared-{uuid.uuid4().hex[:8]}"
        bed.run("install", "-d", "-o", "alice", "-g", "alice", "-m", "0755", self.shared,
                check=True)
        self.folder = f"{self.shared}/{sub}" if sub else self.shared
        if sub:
            bed.run("install", "-d", "-o", "alice", "-g", "alice", "-m", "0755",
                    self.folder, check=True)

    def write(self, path: str, text: str, user: str | None = None) -> None:
        self.bed.run(PY, "-c", WRITE, path, text, user=user, check=True)

    def reos_step(self, *argv: str) -> None:
        done = self.bed.run(PY, "-c", EDIT, *argv,
                            env={"REOS_HOME": self.home, "REOS_LLM": "off"})
        assert done.returncode == 0, done.stdout + done.stderr

    def alice(self, *argv: str) -> None:
        self.bed.run(*argv, user="alice", check=True)

    def undo(self):
        done = self.bed.reos("undo", home=self.home)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def fingerprint(self, path: str) -> tuple[bytes, str]:
        meta = self.bed.run("stat", "-c", "%i %u %g %a %s %Y", path, check=True).stdout
        return self.bed.read(path), meta


def test_config_swapped_for_a_link_to_shadow_with_links_at_temporary_names(bed) -> None:
    scene = Scene(bed)
    conf = f"{scene.shared}/app.conf"
    scene.write(conf, ORIGINAL)
    shadow = scene.fingerprint("/etc/shadow")
    scene.reos_step("sed", "-i", "s/8080/9090/", conf)
    assert b"9090" in bed.read(conf)
    # alice: the file itself becomes a link to /etc/shadow, and every temporary name she
    # can predict (the old fixed one and a few guesses at the new pattern) too
    scene.alice("rm", "-f", conf)
    scene.alice("ln", "-s", "/etc/shadow", conf)
    for name in (".app.conf.reos-restore", ".app.conf.reos-0000000000000000", ".app.conf~",
                 ".app.conf.tmp"):
        scene.alice("ln", "-s", "/etc/shadow", f"{scene.shared}/{name}")
    done = scene.undo()
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{conf} is now a symbolic link; I left it alone" in done.stdout
    assert scene.fingerprint("/etc/shadow") == shadow
    assert bed.run("readlink", conf).stdout.strip() == "/etc/shadow"


def test_links_at_temporary_names_do_not_catch_a_normal_restore(bed) -> None:
    scene = Scene(bed)
    conf = f"{scene.shared}/app.conf"
    scene.write(conf, ORIGINAL)
    bed.run("chmod", "0640", conf, check=True)
    shadow = scene.fingerprint("/etc/shadow")
    scene.reos_step("sed", "-i", "s/8080/9090/", conf)
    scene.alice("ln", "-s", "/etc/shadow", f"{scene.shared}/.app.conf.reos-restore")
    done = scene.undo()
    assert done.returncode == 0, done.stdout + done.stderr
    assert "verified" in done.stdout
    assert bed.read(conf).decode() == ORIGINAL
    assert bed.run("stat", "-c", "%U %G %a %F", conf).stdout.split() == [
        "root", "root", "640", "regular", "file"]
    assert scene.fingerprint("/etc/shadow") == shadow
    listing = bed.run("ls", "-A", scene.shared).stdout.split()
    assert sorted(listing) == [".app.conf.reos-restore", "app.conf"]  # nothing left behind


def test_config_replaced_by_alices_own_file_is_left_alone(bed) -> None:
    scene = Scene(bed)
    conf = f"{scene.shared}/app.conf"
    scene.write(conf, ORIGINAL)
    scene.reos_step("sed", "-i", "s/8080/9090/", conf)
    scene.alice("rm", "-f", conf)
    scene.write(conf, "alice was here\n", user="alice")
    done = scene.undo()
    assert done.returncode == 1
    assert f"{conf} now belongs to alice (uid" in done.stdout and "I left it alone" in done.stdout
    assert bed.read(conf) == b"alice was here\n"


def test_folder_swapped_for_a_link_to_etc_is_not_walked_through(bed) -> None:
    scene = Scene(bed, sub="conf.d")
    conf = f"{scene.folder}/crontab"
    scene.write(conf, ORIGINAL)
    crontab = scene.fingerprint("/etc/crontab")
    shadow = scene.fingerprint("/etc/shadow")
    scene.reos_step("sed", "-i", "s/8080/9090/", conf)
    scene.alice("mv", scene.folder, f"{scene.shared}/conf.old")
    scene.alice("ln", "-s", "/etc", scene.folder)  # conf.d/crontab now means /etc/crontab
    done = scene.undo()
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{scene.folder} is now a symbolic link; I left it alone" in done.stdout
    assert scene.fingerprint("/etc/crontab") == crontab
    assert scene.fingerprint("/etc/shadow") == shadow


def test_removing_a_created_file_does_not_touch_what_alice_linked_there(bed) -> None:
    scene = Scene(bed)
    created = f"{scene.shared}/new.conf"
    shadow = scene.fingerprint("/etc/shadow")
    scene.reos_step("cp", "/etc/hostname", created)
    scene.alice("rm", "-f", created)
    scene.alice("ln", "-s", "/etc/shadow", created)
    done = scene.undo()
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{created} belongs to alice" in done.stdout and "I left it alone" in done.stdout
    assert scene.fingerprint("/etc/shadow") == shadow
    assert bed.run("readlink", created).stdout.strip() == "/etc/shadow"
