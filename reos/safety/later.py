"""Code written now that runs later: cron tables, shell start-up files, systemd units.

`code_in(target, content)` says which shell commands a file will run once `content` is
written to `target` (`* * * * * root rm -rf /` into /etc/cron.d/x, `ExecStart=` lines of a
unit, a line added to ~/.bashrc), and whether they run as root; the risk engine judges
them like any other command. Not responsible for judging, nor for files whose content
is not known statically.
"""

from __future__ import annotations

from reos.safety.paths import candidates

_SYSTEM_CRON = ("/etc/crontab", "/etc/cron.d/")
_CRON_SCRIPTS = ("/etc/cron.hourly/", "/etc/cron.daily/", "/etc/cron.weekly/",
                 "/etc/cron.monthly/", "/etc/cron.yearly/", "/etc/init.d/", "/etc/rc.local",
                 "/etc/profile", "/etc/bash.bashrc", "/etc/zsh/", "/etc/environment",
                 "/etc/update-motd.d/", "/etc/network/if-up.d/", "/etc/X11/Xsession.d/")
_USER_START = (".bashrc", ".profile", ".bash_profile", ".bash_login", ".zshrc", ".zprofile",
               ".bash_logout", ".xinitrc", ".xprofile", ".config/autostart/")
_UNIT_DIRS = ("/etc/systemd/", "/lib/systemd/", "/usr/lib/systemd/", "/run/systemd/",
              ".config/systemd/")


def runs_later(target: str) -> bool:
    return kind_of(target) is not None


def kind_of(target: str) -> str | None:
    for c in candidates(target):
        if c.startswith(_SYSTEM_CRON):
            return "system-cron"
        if c.startswith("/var/spool/cron/"):
            return "user-cron"
        if c.startswith(_CRON_SCRIPTS):
            return "root-script"
        if any(part in c for part in _UNIT_DIRS) and c.endswith((".service", ".timer",
                                                                  ".conf", ".socket",
                                                                  ".path")):
            return "unit"
        if c.endswith(_USER_START) or any(s in c for s in _USER_START if s.endswith("/")):
            return "user-script"
    return None


def code_in(kind: str, content: str) -> list[tuple[str, bool]]:
    """(shell command, runs as root) for each command `content` will run."""
    out: list[tuple[str, bool]] = []
    if kind in ("root-script", "user-script"):
        return [(content, kind == "root-script")]
    for raw in content.splitlines()[:500]:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if kind == "unit":
            key, eq, value = line.partition("=")
            if eq and key.strip().startswith("Exec"):
                out.append((value.strip().lstrip("-@:+!"), True))
            continue
        if "=" in line.split()[0]:  # MAILTO=…, PATH=…
            continue
        fields = line.split(None, 1 if line.startswith("@") else 5)
        if kind == "system-cron":  # a user field follows the schedule
            command = fields[-1].split(None, 1)
            user = command[0] if command else ""
            if len(command) == 2:
                out.append((command[1], user in ("root", "0")))
            continue
        if len(fields) >= (2 if line.startswith("@") else 6):
            out.append((fields[-1], kind != "user-cron"))
    return out


def crontab_lines(content: str, as_root: bool) -> list[tuple[str, bool]]:
    """`crontab -` / `crontab FILE` with known content: a user crontab's commands."""
    return [(command, as_root) for command, _ in code_in("user-cron", content)]
