"""The blast radius of package removals, with real apt and dpkg in the Debian test bed:
what a removal takes is said before approval, removing what reos runs on is high risk,
undo reinstalls every package a removal took at the version it had, and a version no
source offers any more is said to be beyond undo before anything runs."""

from __future__ import annotations

import json

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def _interpreter_owner(bed) -> str:
    """The package that owns the real file of the interpreter reos runs on in the bed."""
    real = bed.run("readlink", "-f", "/opt/reos/bin/python3", check=True).stdout.strip()
    return bed.run("dpkg", "-S", real, check=True).stdout.split(":", 1)[0]


def test_removing_the_interpreter_reos_runs_on_is_high_risk_and_not_run(bed) -> None:
    owner = _interpreter_owner(bed)
    version = bed.installed(owner)
    assert version is not None
    plan = bed.reos_json("plan", f"uninstall {owner}")
    step = plan["steps"][0]
    assert plan["risk"] == "high" and step["risk"] == "high"
    why = next(line for line in plan["message"].splitlines() if line.startswith("Heads up"))
    assert "which reos itself runs on" in why and owner in why
    also = step["also_affects"]
    assert len(also) >= 5 and "python3" in also and "python3-minimal" in also
    # the bed's only package source is the local test repository: nothing of Python is in
    # it, so undo could not reinstall any of these, and the plan says so
    assert step["reversible"] is False and step["rollback"] is None
    assert "Undo can't bring back" in plan["message"]
    assert "This cannot be undone" in plan["message"]
    refused = bed.reos("plan", f"uninstall {owner}")  # no terminal to approve on
    assert refused.returncode != 0
    assert "Nothing was run" in refused.stdout + refused.stderr
    assert bed.installed(owner) == version


def test_removing_a_library_takes_its_app_and_undo_brings_both_back_pinned(bed) -> None:
    # the repository offers reos-demo-base 1.0 and 1.1; 1.0 is what is installed
    bed.run("apt-get", "install", "-y", "reos-demo-app", "reos-demo-base=1.0", check=True)
    try:
        plan = bed.reos_json("plan", "uninstall reos-demo-base")
        step = plan["steps"][0]
        assert step["also_affects"] == ["reos-demo-app"]
        assert step["reversible"] is True
        assert step["rollback"]["argv"] == ["apt-get", "install", "-y", "--no-remove",
                                            "--allow-downgrades",
                                            "reos-demo-app=1.0", "reos-demo-base=1.0"]
        assert "also removes reos-demo-app" in plan["message"]
        as_bob = bed.reos_json("plan", "uninstall reos-demo-base", user="bob",
                               home="/tmp/bob-home")
        assert as_bob["steps"][0]["rollback"]["argv"][:3] == ["sudo", "-n", "apt-get"]

        done = bed.reos("plan", "--yes", "uninstall reos-demo-base")
        assert done.returncode == 0, done.stdout + done.stderr
        assert bed.installed("reos-demo-base") is None
        assert bed.installed("reos-demo-app") is None
        history = bed.reos_json("history")
        removal = next(t for t in history["transactions"]
                       if t["request"] == "uninstall reos-demo-base")
        assert removal["steps"][0]["prior_state"]["removed_packages"] == {
            "reos-demo-app": "1.0", "reos-demo-base": "1.0"}

        undo = bed.reos("undo")
        assert undo.returncode == 0, undo.stdout + undo.stderr
        assert "reos-demo-base=1.0" in undo.stdout and "reos-demo-app=1.0" in undo.stdout
        assert bed.installed("reos-demo-base") == "1.0"  # not the newer 1.1 on offer
        assert bed.installed("reos-demo-app") == "1.0"
    finally:
        bed.run("apt-get", "purge", "-y", "reos-demo-app", "reos-demo-base")


def test_undoing_an_install_never_takes_what_was_installed_since_on_top_of_it(bed) -> None:
    bed.run("apt-get", "purge", "-y", "reos-demo-app", "reos-demo-base")
    # a journal of its own: the bed is shared, and what other tests did before this one
    # would otherwise be the next thing "undo" finds once the install's undo is refused
    home = "/tmp/reos-home-install-undo"
    bed.run("rm", "-rf", home, check=True)
    try:
        done = bed.reos("plan", "--yes", "install reos-demo-base", home=home)
        assert done.returncode == 0, done.stdout + done.stderr
        assert bed.installed("reos-demo-base") is not None
        # someone installs, by hand, an app that needs what reos installed
        bed.run("apt-get", "install", "-y", "reos-demo-app", check=True)

        undo = bed.reos("undo", home=home)
        said = undo.stdout + undo.stderr
        assert "would also remove reos-demo-app" in said
        assert bed.installed("reos-demo-app") == "1.0"  # the person's work stays
        assert bed.installed("reos-demo-base") is not None

        assert "apt-get remove -y reos-demo-base" in said  # what to run by hand
        # refused once, not tried again behind the person's back
        again = bed.reos("undo", home=home)
        assert "Nothing to undo" in again.stdout
        assert bed.installed("reos-demo-app") == "1.0"
    finally:
        bed.run("apt-get", "purge", "-y", "reos-demo-app", "reos-demo-base")


LOCAL_DEB = """set -e
d=$(mktemp -d)
mkdir -p "$d/DEBIAN" "$d/usr/share/reos-demo-local"
printf 'Package: reos-demo-local\\nVersion: 0.9\\nArchitecture: all\\n' > "$d/DEBIAN/control"
printf 'Maintainer: reos tests <tests@reos.invalid>\\n' >> "$d/DEBIAN/control"
printf 'Description: installed by hand, from no repository\\n' >> "$d/DEBIAN/control"
echo local > "$d/usr/share/reos-demo-local/data"
dpkg-deb --root-owner-group --build "$d" /tmp/reos-demo-local_0.9_all.deb
dpkg -i /tmp/reos-demo-local_0.9_all.deb
"""


def test_a_version_no_source_offers_is_beyond_undo_before_approval(bed) -> None:
    bed.run("sh", "-c", LOCAL_DEB, check=True)
    try:
        assert bed.installed("reos-demo-local") == "0.9"
        plan = bed.reos_json("plan", "uninstall reos-demo-local")
        step = plan["steps"][0]
        assert step["reversible"] is False and step["rollback"] is None
        assert "Undo can't bring back reos-demo-local 0.9" in plan["message"]
        assert "This cannot be undone" in plan["message"]

        done = bed.reos("plan", "--yes", "uninstall reos-demo-local")
        assert done.returncode == 0, done.stdout + done.stderr
        assert bed.installed("reos-demo-local") is None
        history = bed.reos_json("history")
        removal = next(t for t in history["transactions"]
                       if t["request"] == "uninstall reos-demo-local")
        assert removal["steps"][0]["prior_state"]["removed_packages"] == {
            "reos-demo-local": "0.9"}
        assert removal["steps"][0]["rollback"] is None  # as promised: no undo
    finally:
        bed.run("dpkg", "--purge", "reos-demo-local")


GUARD = """
import json
from reos.execution.package_guard import kernel_meta, protected
print(json.dumps({"vital": protected("apt"),
                  "meta": sorted(kernel_meta("apt", ["reos-demo-app", "reos-demo-keep"],
                                             {"reos-demo-base"}))}))
"""


def test_what_reos_needs_is_found_from_dpkg_in_the_bed(bed) -> None:
    bed.run("apt-get", "install", "-y", "reos-demo-app", "reos-demo-keep", check=True)
    try:
        done = bed.run("/opt/reos/bin/python", "-c", GUARD, check=True,
                       env={"SSH_CONNECTION": "192.0.2.7 50022 192.0.2.1 22"})
        found = json.loads(done.stdout)
    finally:
        bed.run("apt-get", "purge", "-y", "reos-demo-app", "reos-demo-base", "reos-demo-keep")
    vital = found["vital"]
    assert vital[_interpreter_owner(bed)] == "which reos itself runs on"
    assert vital["systemd-sysv"] == vital["systemd"] == "the init system"
    assert vital["sudo"] == "which provides the sudo command"
    assert vital["dpkg"] == vital["apt"] == "the package manager itself"
    assert vital["openssh-server"] == "the SSH server you are connected through"
    assert "nginx-light" not in vital and "cron" not in vital
    # a package that depends on a "kernel" package is its meta package; one that does not
    # is not (dpkg's real Depends fields, with reos-demo-base standing in for the kernel)
    assert found["meta"] == ["reos-demo-app"]
