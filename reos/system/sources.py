"""What the collectors read through: a listing tool run as an argv with a timeout and no
shell (`run_tool`), whether systemd runs here (`systemd_running`), and the one error a
section that cannot be known right now raises (`Unavailable`, with a reason a person can
read). Shared by `collectors` and `facts`.

Not responsible for any section (`collectors`, `facts`) or for collecting them together
(`collectors.collect`).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

COLLECT_TIMEOUT = 8.0


class Unavailable(Exception):
    """This section cannot be known right now (the message says why)."""


def run_tool(argv: list[str], timeout: float = COLLECT_TIMEOUT) -> str:
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout, check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise Unavailable(f"{argv[0]} is not installed") from None
    except subprocess.TimeoutExpired:
        raise Unavailable(f"{argv[0]} did not answer within {timeout:.0f}s") from None
    if done.returncode != 0:
        raise Unavailable(f"{' '.join(argv[:2])} failed: {done.stderr.strip()[:200]}")
    return done.stdout


def systemd_running() -> bool:
    return Path("/run/systemd/system").is_dir()
