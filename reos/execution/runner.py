"""Running one argv: no shell, a timeout, output streamed line by line and captured, with
the system's fixed PATH (`safety.programs.SYSTEM_PATH`: a bare name runs the program the
risk engine judged, never one earlier on the caller's PATH) and no terminal size in the
environment (what a step prints is read whole, never cut to COLUMNS).

Not responsible for deciding whether to run (safety and the executor do) or for
recording anything (the journal does).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable

from reos.model.report import StepResult
from reos.safety.programs import SYSTEM_PATH

LineSink = Callable[[str, str], None]  # (stream, line)


def run_argv(argv: list[str], *, timeout: float, on_line: LineSink | None = None,
             step_id: str = "") -> StepResult:
    started = time.monotonic()
    # a bare program name is judged as the program on the system's PATH, so that is the
    # one that runs, whatever PATH reos itself was started with
    env = dict(os.environ, LC_ALL="C.UTF-8", DEBIAN_FRONTEND="noninteractive",
               PATH=":".join(SYSTEM_PATH))
    # reos reads what steps print: a terminal's size said in the environment makes ps,
    # dpkg -l or systemctl cut their lines to it (a program under a long path lost its name)
    for name in ("COLUMNS", "LINES"):
        env.pop(name, None)
    # A new session keeps Ctrl-C in the terminal from hitting the step half-way. But sudo
    # remembers the password per terminal, so a sudo step must keep the controlling
    # terminal or the password given once up front (`sudo -v`) would not count.
    through_sudo = argv[:1] == ["sudo"]
    try:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, errors="replace", env=env, start_new_session=not through_sudo,
        )
    except FileNotFoundError:
        return StepResult(step_id, False, 127, "", f"{argv[0]}: command not found",
                          time.monotonic() - started)
    except OSError as exc:
        return StepResult(step_id, False, 126, "", f"{argv[0]}: {exc.strerror}",
                          time.monotonic() - started)
    chunks: dict[str, list[str]] = {"stdout": [], "stderr": []}

    def pump(stream: str) -> None:
        pipe = proc.stdout if stream == "stdout" else proc.stderr
        assert pipe is not None
        for line in pipe:
            chunks[stream].append(line)
            if on_line:
                on_line(stream, line.rstrip("\n"))

    readers = [threading.Thread(target=pump, args=(s,), daemon=True) for s in chunks]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.kill()
        proc.wait()
    for reader in readers:
        reader.join(timeout=5)
    stderr = "".join(chunks["stderr"])
    if timed_out:
        stderr += f"\n(reos stopped it after {timeout:.0f} seconds)"
    code = proc.returncode
    return StepResult(step_id, code == 0 and not timed_out, code, "".join(chunks["stdout"]),
                      stderr, time.monotonic() - started)
