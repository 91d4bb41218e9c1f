"""Read-only is verified: every program and argument on the list, no writes but /dev/null."""

from __future__ import annotations

import pytest

from reos.model import RiskLevel
from reos.safety.risk import assess, assess_argv

READ_ONLY = [
    "fdisk -l", "fdisk -l /dev/sda", "parted -l", "sfdisk -l /dev/sda", "wipefs /dev/sda",
    "dd if=/dev/sda of=/dev/null bs=1M count=100", "kill -0 1234", "echo \"rm -rf /\"",
    "grep -r 'mkfs' .", "printf 'mkfs.ext4 /dev/sda\\n'", "ls -la /etc", "cat /etc/os-release",
    "find / -name '*.conf' -type f", "sed -n '1,10p' /etc/passwd", "awk '{print $1}' /etc/passwd",
    "systemctl status nginx", "systemctl show -p ActiveState nginx", "systemctl is-active ssh",
    "docker ps -a", "docker inspect web", "docker logs --tail 50 web", "git log --oneline -5",
    "git status", "git diff HEAD~1", "journalctl -u nginx -n 50 --no-pager", "df -h",
    "ss -tlnp", "ip addr show", "ip route show default", "ps aux | grep nginx | wc -l",
    "lsblk -f", "blkid", "uname -a", "free -m", "dpkg -l | grep ssh", "apt-cache policy vim",
    "ls > /dev/null 2>&1", "du -sh /var/log 2>/dev/null | sort -h", "stat /etc/passwd",
    "sudo cat /etc/shadow", "id -u", "hostname", "date +%F", "timedatectl status",
    "uptime", "lsof -i :80", "getent passwd root", "tar -tzf backup.tar.gz", "man ls",
    "sort -u names.txt", "env", "printenv PATH", "which python3", "tail -n 100 /var/log/syslog",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_reads_are_verified_read_only(command: str) -> None:
    verdict = assess(command)
    assert verdict.read_only and verdict.risk == RiskLevel.SAFE, verdict.to_dict()
    assert verdict.to_dict()["read_only"] is True


NOT_READ_ONLY = [
    "wipefs -a /dev/sdb1", "dd if=a of=b", "find . -delete", "find . -fprint out.txt",
    "sed -i 's/a/b/' f.txt", "sed 'w out.txt' f.txt", "awk '{print > \"out\"}' f",
    "awk '{system(\"ls\")}' f", "systemctl restart nginx", "docker rm web", "git -c x=y log",
    "git commit -m x", "git push", "echo x > out.txt", "ls | tee out.txt", "sort -o out f",
    "uniq in.txt out.txt", "date -s '2020-01-01'", "hostname newname", "dmesg -C",
    "journalctl --vacuum-time=1d", "ss -K dst 1.2.3.4", "touch x", "kill 1234",
    "timedatectl set-timezone UTC", "ip link set eth0 up", "xxd -r dump bin", "man -P cat ls",
    "tar -xzf backup.tar.gz", "python3 -c 'print(1)'", "some-unknown-tool --list",
]


@pytest.mark.parametrize("command", NOT_READ_ONLY)
def test_anything_else_is_not_read_only_and_at_least_low(command: str) -> None:
    verdict = assess(command)
    assert not verdict.read_only and verdict.risk >= RiskLevel.LOW, verdict.to_dict()


@pytest.mark.parametrize("argv,read_only", [
    (["systemctl", "status", "nginx"], True),
    (["systemctl", "restart", "nginx"], False),
    (["sudo", "-n", "cat", "/etc/shadow"], True),
    (["docker", "ps", "--format", "{{json .}}"], True),
    (["docker", "stop", "web"], False),
    (["dd", "if=/dev/sda", "of=/dev/null"], True),
    (["dd", "if=/dev/sda", "of=/tmp/x"], False),
    (["find", "/var/log", "-name", "*.gz"], True),
    (["find", "/var/log", "-name", "*.gz", "-delete"], False),
])
def test_assess_argv_verifies_read_only_too(argv: list[str], read_only: bool) -> None:
    assert assess_argv(argv).read_only is read_only


@pytest.mark.parametrize("command", [
    "GIT_DIR=/tmp/x; git log", "export LESSOPEN='|/tmp/x %s'; less f",
    "declare -x GIT_CONFIG_GLOBAL=/tmp/g; git log", "export http_proxy=h; curl -sI http://a",
    "cat < /dev/watchdog", "cd / && grep -r foo", "cd /proc; diff -r a b",
])
def test_what_a_shell_line_sets_or_opens_around_a_reader_counts(command: str) -> None:
    verdict = assess(command)
    assert not verdict.read_only and verdict.why_not_read_only, command


@pytest.mark.parametrize("command", [
    "n=5; head -n $n /etc/passwd", "IFS=: read a b <<< 'x:y'", "cd /etc && grep -r foo",
])
def test_the_scripts_own_variables_and_a_plain_folder_keep_it_read_only(command: str) -> None:
    assert assess(command).read_only, command


def test_text_too_long_to_parse_is_judged_command_by_command_to_its_end() -> None:
    tail = ["rm", "-rf", "--no-preserve-root", "/"]
    verdict = assess(" && ".join(["true"] * 5000 + [" ".join(tail)]))
    assert verdict.blocked and verdict.risk == RiskLevel.CRITICAL
    many = assess(" && ".join(f"echo {i}" for i in range(3000)))  # too many to judge
    assert many.blocked
    same = assess(" && ".join(["true"] * 5000))  # one command, many times: not blocked
    assert not same.blocked and not same.read_only
