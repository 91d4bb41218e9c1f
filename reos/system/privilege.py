"""How a command gets root's rights: through `sudo -n`, spelled in this one place.

reos never asks for a password in the middle of a plan: a step that needs root runs as
`sudo -n ARGV` (sudo fails at once instead of prompting) unless reos is root already.
`as_root` adds that prefix, `strip_sudo` takes it off again (to read what a step really
runs), `through_sudo` says whether a command has it.

Pure: nothing here runs sudo or checks whether it works (`reos.system.sudo` probes
`sudo -n true` for every surface), and nothing decides whether a command needs root (the
risk engine does).
"""

from __future__ import annotations

from collections.abc import Sequence

SUDO = ("sudo", "-n")


def as_root(argv: Sequence[str], is_root: bool) -> list[str]:
    """`argv` as it runs with root's rights: through `sudo -n` unless reos is root."""
    return list(argv) if is_root else [*SUDO, *argv]


def through_sudo(argv: Sequence[str]) -> bool:
    """Whether `argv` runs through `sudo -n` (as `as_root` makes it)."""
    return tuple(argv[:2]) == SUDO


def strip_sudo(argv: Sequence[str]) -> list[str]:
    """The command itself: `argv` without the `sudo -n` that `as_root` put in front."""
    return list(argv[2:]) if through_sudo(argv) else list(argv)
