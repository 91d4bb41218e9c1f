"""Reflection from a real sequence of failures in the Debian/systemd test bed: a unit
whose start fails, started again and again, becomes a finding with its evidence; once it
starts, the finding is cleared."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.docker, pytest.mark.slow]

UNIT = "/etc/systemd/system/reos-flaky.service"


def _unit(bed, command: str) -> None:
    bed.run("sh", "-c", f"printf '%s\\n' '[Unit]' 'Description=reos flaky' '[Service]' "
            f"'Type=oneshot' 'RemainAfterExit=yes' 'ExecStart={command}' > {UNIT} && "
            "systemctl daemon-reload", check=True)


def test_a_unit_failing_to_start_again_and_again_is_found_then_cleared(bed) -> None:
    home = "/tmp/reos-reflection"
    _unit(bed, "/bin/false")
    try:
        for _ in range(3):
            done = bed.reos("plan", "--yes", "start reos-flaky", home=home)
            assert done.returncode != 0, done.stdout + done.stderr
            assert "$ systemctl start reos-flaky.service" in done.stdout
        assert ("I noticed: \u201csystemctl start *\u201d has failed 3 times in a row here. "
                "I'll ask before trying it again") in done.stdout
        learned = bed.reos_json("learned", home=home)
        [found] = [f for f in learned["findings"] if f["rule"] == "failing"]
        assert found["subject"] == "systemctl start *" and found["cleared"] is False
        assert found["evidence"]["numbers"]["failures_in_a_row"] >= 3
        assert len(found["evidence"]["last"]) == 3
        assert found["suggestion"].startswith("I'll ask before trying it again")
        shown = bed.reos("learned", home=home).stdout
        assert "    Evidence: " in shown and "    Suggested: " in shown

        _unit(bed, "/bin/true")  # repaired: the next start works
        done = bed.reos("plan", "--yes", "start reos-flaky", home=home)
        assert done.returncode == 0, done.stdout + done.stderr
        assert bed.state("reos-flaky.service")[0] == "active"
        learned = bed.reos_json("learned", home=home)
        [cleared] = [f for f in learned["findings"] if f["rule"] == "failing"]
        assert cleared["cleared"] is True and cleared["cleared_at"]
        assert cleared["text"].startswith("\u201csystemctl start *\u201d worked again after "
                                          "failing")
    finally:
        bed.run("sh", "-c", f"systemctl stop reos-flaky; rm -f {UNIT}; systemctl daemon-reload")
