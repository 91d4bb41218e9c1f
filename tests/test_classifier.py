"""The ErrorClassifier against the real messages of apt, dpkg, dnf, pacman, systemd,
docker and coreutils (as the issue lists them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reos.execution import classifier
from reos.execution.classifier import classify

CASES = [
    ("E: Package 'foo' has no installation candidate", "not_found", {"package": "foo"}),
    ("htop is already the newest version (3.2.2-2).", "already_exists", {"package": "htop"}),
    ("E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)",
     "busy", {"pid": "4242"}),
    ("E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend), are you root?",
     "permission", {}),
    ("Err:1 http://deb.debian.org/debian bookworm InRelease\n  Temporary failure resolving "
     "'deb.debian.org'", "transient", {"host": "deb.debian.org"}),
    ("E: Failed to fetch http://deb.debian.org/debian/pool/main/h/htop/htop.deb  404",
     "transient", {}),
    ("E: dpkg was interrupted, you must manually run 'dpkg --configure -a' to correct the "
     "problem.", "system", {"fix": "dpkg --configure -a"}),
    ("No match for argument: htopp\nError: Unable to find a match: htopp", "not_found",
     {"package": "htopp"}),
    ("Package htop-3.2.2-1.fc39.x86_64 is already installed.", "already_exists", {}),
    ("Error: This command has to be run with superuser privileges (under the root user on "
     "most systems).", "permission", {}),
    ("error: target not found: htopp", "not_found", {"package": "htopp"}),
    ("error: failed to init transaction (unable to lock database)", "busy", {}),
    ("error: you cannot perform this operation unless you are root.", "permission", {}),
    ("Failed to restart nosuch.service: Unit nosuch.service not found.", "not_found",
     {"unit": "nosuch.service"}),
    ("Failed to start cups.service: Unit cups.service is masked.", "conflict",
     {"unit": "cups.service"}),
    ("Job for nginx.service failed because the control process exited with error code.",
     "unknown", {"unit": "nginx.service"}),
    ("Error response from daemon: No such container: web", "not_found", {"container": "web"}),
    ("Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker "
     "daemon running?", "system", {}),
    ("permission denied while trying to connect to the Docker daemon socket at "
     "unix:///var/run/docker.sock", "permission", {}),
    ('docker: Error response from daemon: Conflict. The container name "/web" is already in '
     "use by container", "conflict", {}),
    ("touch: cannot touch '/etc/x': Permission denied", "permission", {}),
    ("cat: /nope: No such file or directory", "not_found", {}),
    ("mkdir: cannot create directory '/tmp/x': File exists", "already_exists", {}),
    ("umount: /mnt: target is busy. Device or resource busy", "busy", {}),
    ("cp: error writing '/data/big': No space left on device", "system", {}),
    ("touch: cannot touch '/usr/x': Read-only file system", "system", {}),
    ("bash: line 1: htop: command not found", "missing_dependency", {"command": "htop"}),
    ("ls: unrecognized option '--frobnicate'\nTry 'ls --help' for more information.",
     "invalid_usage", {}),
    ("something odd happened", "unknown", {}),
]


@pytest.mark.parametrize("message,category,details", CASES)
def test_real_messages(message: str, category: str, details: dict) -> None:
    diagnosis = classify(1, "", message)
    assert diagnosis.category == category, diagnosis
    assert details.items() <= diagnosis.details.items()
    assert diagnosis.evidence and diagnosis.cause and 0 < diagnosis.confidence <= 1


def test_unable_to_locate_depends_on_the_age_of_the_lists(tmp_path: Path, monkeypatch) -> None:
    lists = tmp_path / "lists"
    lists.mkdir()
    monkeypatch.setattr(classifier, "APT_LISTS", lists)  # a real directory, empty at first
    empty = classify(100, "", "E: Unable to locate package htop")
    assert empty.category == "missing_dependency" and empty.details["stale_cache"] == "yes"
    assert "empty" in empty.cause
    (lists / "deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages").write_text("x")
    fresh = classify(100, "", "E: Unable to locate package htop")
    assert fresh.category == "not_found"


def test_exit_127_is_a_missing_command() -> None:
    diagnosis = classify(127, "", "reos-no-such-tool: command not found")
    assert diagnosis.category == "missing_dependency"
    assert diagnosis.details["command"] == "reos-no-such-tool"
