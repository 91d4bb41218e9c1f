"""A request typed as a command line ("ss -tlnp", "usermod -aG www-data bob"): its argv.

Admins often type the command they would run instead of words. When the catalogue parser
cannot read such a request fully, the command is taken as typed and judged like a
model's command (`proposed.plan_command`): the risk engine decides; only what its
read-only grammar proves may run at once, anything else asks with its risk, and a blocked
command is refused. The text is split into words (`shlex`), never given to a shell, and
text holding shell syntax (pipes, redirections, `;`, `&&`, `$(…)`, backquotes) is not a
typed command: reos never runs shell text from a request.

A command line is: a program reos knows (its read-only grammar table, or an admin tool
below) first, after an optional "run" or "sudo"; and, when that first word is also an
English word the catalogue uses ("find", "kill", "who"), at least one option (`-x`)
after it, so "find large files" and "who owns /usr/bin/x" stay sentences; and no word
of prose ("the", "of", "my"…) after the program: "dig the MX record of example.com" is a
sentence too. A command line shows itself by an option or a technical word (an address,
a path, a name with a dot, a digit or a dash): "apt cache zorblax" is words, "ip route
add 10.20.0.0/16 via 10.66.0.1" a command. A word with a
glob (`*`, `?`, `[`), `~` or `$` is not typed either: without a shell it would not mean
what it means to the person who typed it.

Pure: reads text, runs nothing.
"""

from __future__ import annotations

import re
import shlex

from reos.model.request import Intent, Kind, Understood
from reos.patterns import regex

# admin tools that only act, so the read-only table does not list them
_ACTING = frozenset({
    "usermod", "useradd", "userdel", "groupadd", "groupdel", "groupmod", "gpasswd",
    "adduser", "deluser", "addgroup", "delgroup", "chsh", "chfn", "chown", "chgrp", "chmod",
    "apt-get", "aptitude", "modprobe", "rmmod", "swapon", "swapoff", "umount", "fstrim",
    "reboot", "shutdown", "poweroff", "halt", "loginctl", "resolvectl", "update-grub",
    "logrotate", "certbot", "fail2ban-client", "needrestart", "visudo", "crontab",
    "docker-compose", "podman", "ln", "mkdir", "cp", "mv", "touch", "truncate", "pkill",
    "killall", "renice", "ifup", "ifdown", "wg-quick", "netplan", "iptables", "ip6tables",
    "exportfs", "smbcontrol", "postqueue", "postsuper", "newaliases", "a2ensite",
    "a2dissite", "a2enmod", "a2dismod", "update-alternatives", "dpkg-reconfigure",
    "localectl", "setfacl", "pip3",
})
# words of a sentence that no command line of these tools takes as an argument
_PROSE = frozenset({"the", "a", "an", "of", "my", "our", "your", "me", "please", "is", "are",
                    "was", "what", "which", "how", "why", "that", "this", "it", "them",
                    "for", "and", "so", "i", "we", "you", "inside", "within", "into",
                    "onto"})
# chatter after a command ("… its all old junk anyway"): two of these make it a sentence
# (one alone may be an argument: "apt-get install just", "pkill -f junk")
_CHATTER = frozenset({"its", "it's", "anyway", "anyways", "because", "cause", "cuz",
                      "since", "though", "thanks", "thx", "pls", "plz", "lol", "gonna",
                      "wanna", "dont", "don't", "cant", "can't", "im", "i'm", "just",
                      "really", "junk", "stuff", "everything", "anything", "nothing",
                      "all", "old", "later", "full"})
# shell syntax and globs (a "?" only inside the line: one at its end asks)
SHELL_SYNTAX = regex(r"[|;&<>`*\[~$#]|\n")
_SHELL = regex(r"[|;&<>`*?\[~$#]|\n")
# "please run", "sudo" or "sudo -n" before the command: reos adds sudo -n itself; any other
# sudo option (-u USER, -i, -s) or a second sudo makes it no typed command at all
_LEAD = regex(r"^(?:(?:please|pls|can\s+you|could\s+you|just)\s+)?(?:run\s+|exec\s+)?"
                   r"(?:sudo\s+(?:-n\s+)?)?", re.IGNORECASE)
_ELEVATORS = frozenset({"sudo", "doas", "su", "runuser", "pkexec", "sudoedit"})
# files whose contents are someone's secret: never printed as the answer to a typed line
SECRET_FILE = regex(r"^/etc/(?:g?shadow-?|sudoers(?:\.d(?:/.*)?)?|ssh/ssh_host_\w+_key)$|"
                         r"(?:^|/)\.ssh/id_[a-z0-9_]+$|\.key$|(?:^|/)\.(?:pgpass|netrc)$")


def _known(program: str) -> bool:
    from reos.safety.grammars import TABLE

    return program in TABLE or program in _ACTING


def command_line(text: str, english: set[str]) -> list[str] | None:
    """The argv of `text` typed as a command line, or None. `english` holds the words the
    catalogue reads as words ("find", "kill"): such a first word needs an option after it
    before the text is read as a command."""
    text = text.strip().rstrip("?").strip()  # "ss -tlnp?": the mark asks, it is no glob
    if not text or len(text) > 400 or _SHELL.search(text):
        return None
    text = _LEAD.sub("", text, count=1)
    try:
        argv = shlex.split(text)
    except ValueError:  # an unclosed quote: not a command line
        return None
    if len(argv) < 2 or not re.fullmatch(r"[a-z][a-z0-9._+-]*", argv[0]):
        return None
    if argv[0] in _ELEVATORS:
        return None  # "sudo sudo …", "sudo -u git …": reos alone decides how to be root
    if not _known(argv[0]):
        return None
    if argv[0] in english and not flagged(argv):
        return None
    if any(a.lower() in _PROSE for a in argv[1:]) or len(
            {a.lower() for a in argv[1:]} & _CHATTER) >= 2:
        return None  # "dig the MX record of example.com": a sentence that starts with one
    if not flagged(argv) and not any(re.search(r"[0-9/.@:=_-]", a) for a in argv[1:]):
        return None  # "apt cache zorblax": words, not yet a command line
    return argv


def shell_line(text: str) -> str | None:
    """A command line typed with shell syntax or a glob ("rm -rf /srv/data/*"): what the
    risk engine says of it as a shell would run it (its reasons, or "" when it does not
    block it), or None when the text is no such command line. Such a line is never run
    and never read as words either: without a shell it would not do what was typed."""
    text = _LEAD.sub("", text.strip().rstrip("?").strip(), count=1)
    first = text.split(maxsplit=1)[0] if text else ""
    if len(text) > 400 or not _SHELL.search(text) or not _known(first.lower()):
        return None
    words = text.split()
    if not any(re.match(r"-{1,2}[A-Za-z]", w) or w.startswith("/") for w in words[1:]):
        return None  # "kill -9 ..." needs an option or a path to be a command line
    from reos.safety.risk import assess

    verdict = assess(text)
    return "; ".join(verdict.reasons) or "the risk engine blocks it" if verdict.blocked \
        else ""


def flagged(argv: list[str]) -> bool:
    """Whether the command line holds an option ("-tlnp", "--failed")."""
    return any(re.match(r"-{1,2}[A-Za-z]", a) for a in argv[1:])


def typed_intent(argv: list[str]) -> Intent:
    """The command as typed, for the planner to judge (`proposed.plan_command`)."""
    return Intent(Kind.QUERY, action="command", operation="command", argv=list(argv),
                  purpose="run the command you typed", reading=Understood("typed"))


def options_left(argv: list[str], unexplained: list[str], targets: list[str]) -> bool:
    """Whether a reading left an option, a path or an address of the typed command
    unexplained ("ss -tlnp" read as "show ports" without "-tlnp", "ip route add
    10.20.0.0/16 via 10.66.0.1" as a route listing), or took one as a name ("run ss
    -tlnp" as a job called "ss -tlnp")."""
    loose = {w.lower() for w in unexplained}
    named = " ".join(targets).lower().split()
    return any(a.lower() in loose or a.lower() in named for a in argv[1:]
               if a.startswith(("-", "/")) or re.search(r"[0-9./:=@]", a))
