"""Whether sudo works here: `sudo -n true`, asked the one way every surface uses.

`reos plan` asks before a plan that needs root runs (and then, on a terminal, for the
password once), `reos doctor` reports it, and the chat's status line shows it. Each of
them calls `probe`, which never prompts (`-n`), never waits longer than it is given, and
reads sudo's answer as one of five states. sudo's own words come back cleaned and cut to
a line, to be quoted.

Not responsible for: asking for the password (`reos plan` runs `sudo -v` itself, on the
terminal), or putting `sudo -n` in front of a step (`reos.system.privilege`).
"""

from __future__ import annotations

import os

ROOT = "root"  # reos is root: sudo is not needed
FREE = "free"  # sudo runs without a password
PASSWORD = "password"  # sudo wants a password
MISSING = "missing"  # sudo is not installed (or cannot be run)
REFUSED = "refused"  # sudo said no, or did not answer in time


class Sudo:
    """What `probe` found: a state above and, when sudo said no, what it said."""

    __slots__ = ("said", "state")

    def __init__(self, state: str, said: str = "") -> None:
        self.state, self.said = state, said

    def __repr__(self) -> str:
        return f"Sudo({self.state!r}, {self.said!r})"


def probe(timeout: float, *, is_root: bool | None = None) -> Sudo:
    """Run `sudo -n true` once, at most `timeout` seconds, with no terminal to prompt on.
    `is_root` defaults to whether this process is root."""
    import shutil
    import subprocess

    from reos.system.privilege import as_root
    from reos.text import clean

    if os.geteuid() == 0 if is_root is None else is_root:
        return Sudo(ROOT)
    if shutil.which("sudo") is None:
        return Sudo(MISSING)
    try:
        # C locale: "password" in sudo's answer is read in English
        done = subprocess.run(as_root(["true"], False), capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=timeout, errors="replace",
                              env={**os.environ, "LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        return Sudo(REFUSED, f"sudo -n did not answer within {timeout:g} s")
    except OSError as exc:
        return Sudo(MISSING, f"sudo could not be run ({exc.strerror or 'no reason given'})")
    if done.returncode == 0:
        return Sudo(FREE)
    lines = [line for line in clean(done.stderr).splitlines() if line.strip()]
    said = lines[-1].strip()[:200] if lines else "no answer"
    return Sudo(PASSWORD if "password" in said.lower() else REFUSED, said)
