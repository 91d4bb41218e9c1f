"""Read-only is verified: every program and argument on the list, no writes but /dev/null."""

from __future__ import annotations

import pytest

from reos.model.risk import RiskLevel
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
    verdict = assess(" && ".join(["true"] * 5000 + [" ".join(tail)]))  # tree-sitter reads it
    assert verdict.blocked and verdict.risk == RiskLevel.CRITICAL
    broken = " )"  # and neither parser reads these: split plainly, each command judged
    verdict = assess(" && ".join(["true"] * 5000 + [" ".join(tail)]) + broken)
    assert verdict.blocked and verdict.risk == RiskLevel.CRITICAL
    many = assess(" && ".join(f"echo {i}" for i in range(3000)) + broken)  # too many
    assert many.blocked
    same = assess(" && ".join(["true"] * 5000) + broken)  # one command, many times
    assert not same.blocked and not same.read_only


def test_a_long_chain_of_readers_is_read_by_tree_sitter_without_recursing() -> None:
    chain = " && ".join(["uname -r", "df -h /", "free -m", "id -u"] * 800)
    verdict = assess(chain)
    assert verdict.read_only and not verdict.blocked, verdict.reasons


@pytest.mark.parametrize("command", [
    'ps -o pid,rss,cmd -p "$(pgrep -d, nginx)"',  # values and names it never opens
    'for u in $(cut -d: -f1 /etc/passwd); do crontab -l -u "$u"; done',
    'kubectl get pods -n "$ns" --no-headers', "GIT_PAGER=cat git log -3 --stat",
    "PAGER=cat man 5 crontab",
])
def test_words_a_reader_never_opens_may_be_anything(command: str) -> None:
    verdict = assess(command)
    assert verdict.read_only, (command, verdict.why_not_read_only)


@pytest.mark.parametrize("command", [
    'GIT_PAGER="sh -c id" git log', 'man -P "sh -c id" ls',
    'dpkg -S "$(cat /tmp/name)"',  # a quoted word can still be `--add-architecture`
    "uniq $X",  # unquoted, it can split into IN OUT
])
def test_words_that_can_still_act_keep_it_asking(command: str) -> None:
    assert not assess(command).read_only, command


def test_a_quoted_word_stays_one_word() -> None:
    assert "/etc/passwd" in (assess("uniq $X").why_not_read_only or "")  # IN OUT
    assert "/etc/passwd" not in (assess('uniq "$X"').why_not_read_only or "")
