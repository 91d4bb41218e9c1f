"""Whether each chosen host answers, and whether reos may act as root on it: two pings
through Ansible (`running.run`), the second with become, said in plain words.

A host is "ready" when both pass; it "answers" when only the first does (sudo wants a
password, or the login has no sudo); otherwise it is not reached, with why in words a
person can act on: a host key ssh does not know yet (never accepted for you), a login
refused, no answer within the connect timeout, no route, a name that does not resolve,
no python3 on the host, a vault-encrypted variable with no vault password. Ansible's own
message is kept, cleaned, when none of those fits.

With pipelining (running.py), a host without that Python may close the connection while
Ansible still sends the module ("Broken pipe") before it says why; such a host is asked
once more without pipelining, which says it plainly.

Not responsible for choosing hosts (inventory.py) nor for printing (commands/hosts.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from msgspec import Struct

from reos.fleet.inventory import VAULT_HINT, Source
from reos.fleet.running import CONNECT_TIMEOUT, Result, Task, run
from reos.patterns import regex


class Reach(Struct, frozen=True):
    """One host's answer: `state` is "ready", "answers" (not as root) or "unreached";
    `problem` says why it is not ready, `hint` what to do about it."""

    host: str
    state: str
    problem: str | None = None
    hint: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return {"state": self.state, "problem": self.problem, "hint": self.hint}


PING = Task("reos: can reos reach the host", "ansible.builtin.ping")
AS_ROOT = Task("reos: can reos act as root", "ansible.builtin.ping", become=True,
               ignore_errors=True)

# Ansible's words (ssh's, sudo's) for why a host was not reached, each with what reos says
# and what to do; the first that matches wins.
_WHY: list[tuple[re.Pattern[str], str, str]] = [
    (regex(r"(?s).*(undecryptable variable|no vault secrets|Decryption failed).*"),
     "a vault-encrypted variable of it cannot be decrypted here",
     VAULT_HINT),
    (regex(r"(?s).*Host key verification failed.*"),
     "ssh does not know its host key yet",
     "Check the key's fingerprint with the host's owner, then add it to known_hosts "
     "(ssh-keyscan HOST, or connect once with ssh); reos never accepts one for you."),
    (regex(r"(?s).*REMOTE HOST IDENTIFICATION HAS CHANGED.*"),
     "its host key is not the one ssh knows",
     "Find out why it changed before you trust it; then replace it in known_hosts."),
    (regex(r"(?s).*Permission denied \(.*"),
     "it refused the login",
     "Check ansible_user and the key (ansible_ssh_private_key_file) for this host."),
    (regex(r"(?s).*(timed out|Connection timed out|Operation timed out).*"),
     "it did not answer within {seconds} s",
     "Is it up, and is its SSH port open to this machine?"),
    (regex(r"(?s).*Connection refused.*"),
     "it refused the connection (no SSH server on that port?)",
     "Check ansible_port and that sshd runs on the host."),
    (regex(r"(?s).*No route to host.*"),
     "there is no route to it",
     "Check its address (ansible_host) and the network between you."),
    (regex(r"(?s).*(Could not resolve hostname|Name or service not known|"
           r"Temporary failure in name resolution).*"),
     "its name does not resolve",
     "Give its address as ansible_host in the inventory."),
    (regex(r"(?s).*module interpreter .* was not found.*|.*python[0-9.]*: not found.*"),
     "it has no Python where Ansible looks for one",
     "Install python3 on it, or set ansible_python_interpreter for it."),
    (regex(r"(?s).*(Missing sudo password|a password is required|incorrect sudo password)"
           r".*"),
     "sudo wants a password there",
     "Give the login passwordless sudo (NOPASSWD), or set ansible_become_password "
     "(a vaulted one; reos cannot ask for it yet)."),
    (regex(r"(?s).*(is not in the sudoers file|not allowed to execute|may not run sudo).*"),
     "the login may not use sudo there",
     "Give it sudo rights, or log in as one that has them."),
]


def check(source: Source, hosts: Iterable[str], *, connect_timeout: int = CONNECT_TIMEOUT,
          on_reach: Callable[[Reach], None] | None = None) -> list[Reach]:
    """Each host's `Reach`, in the order given; `on_reach` hears each as it is known. A
    host that does not answer within `connect_timeout` seconds is not reached."""
    names = list(hosts)
    seen: dict[str, list[Result]] = {name: [] for name in names}
    said: dict[str, Reach] = {}
    hung_up: list[str] = []  # asked again without pipelining

    def heard(result: Result) -> None:
        seen.setdefault(result.host, []).append(result)
        if (result.task == PING.name and result.status == "unreachable"
                and _HUNG_UP.fullmatch(result.said) and result.host not in hung_up):
            hung_up.append(result.host)
            return
        reach = _judge(result.host, seen[result.host], connect_timeout)
        if reach is not None and result.host not in said:
            said[result.host] = reach
            if on_reach is not None:
                on_reach(reach)

    done = run(source, names, [PING, AS_ROOT], on_result=heard,
               connect_timeout=connect_timeout)
    how = dict.fromkeys(names, done.status)  # how the run each host was in ended
    again = [name for name in hung_up if name not in said]
    if again:
        for name in again:
            seen[name] = []
        how.update(dict.fromkeys(again, run(
            source, again, [PING, AS_ROOT], on_result=heard,
            connect_timeout=connect_timeout, pipelining=False).status))
    out = []
    for name in names:
        reach = said.get(name)
        if reach is None:  # the run ended before this host settled
            reach = _ended(name, seen.get(name, []), how[name])
            if on_reach is not None:
                on_reach(reach)
        out.append(reach)
    return out


# ssh's words when the host closed the connection while Ansible sent the module
_HUNG_UP = regex(r"(?s).*Data could not be sent to remote host.*Broken pipe.*")


def _judge(host: str, results: list[Result], seconds: int) -> Reach | None:
    """The host's Reach from its results so far; None while it is not settled."""
    by_task = {r.task: r for r in results}
    ping, root = by_task.get(PING.name), by_task.get(AS_ROOT.name)
    if ping is not None and ping.status in ("failed", "unreachable"):
        return Reach(host, "unreached", *why(ping.said, seconds))
    if ping is not None and root is not None:
        if root.status in ("ok", "changed"):
            return Reach(host, "ready")
        return Reach(host, "answers", *why(root.said, seconds))
    return None


def _ended(host: str, results: list[Result], how: str) -> Reach:
    """A host the run ended before it settled (how: "canceled", "timeout", …)."""
    pinged = any(r.task == PING.name for r in results)
    what = {"canceled": "the check was cancelled",
            "timeout": "the check ran out of time"}.get(how, "the check ended")
    if pinged:
        return Reach(host, "answers", f"{what} before it was known whether reos may act "
                                      "as root")
    return Reach(host, "unreached", f"{what} before it answered")


def why(said: str, seconds: int) -> tuple[str, str | None]:
    for pattern, problem, hint in _WHY:
        if pattern.fullmatch(said):
            return problem.format(seconds=seconds), hint
    text = said.removeprefix("Task failed: ").strip() or "Ansible gave no reason"
    return text.splitlines()[0][:300], None
