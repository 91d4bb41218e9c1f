"""GPU answers in words (system.gpus): each NVIDIA GPU's load, memory and temperature, and
the processes using GPU memory, from `nvidia-smi`'s CSV queries.

A machine without NVIDIA's tool, or without a GPU it can reach, is told so plainly (the
steps fail there, so the renderer is tolerant). Not responsible for running anything.
"""

from __future__ import annotations

from reos.model.report import StepResult
from reos.text import clean
from reos.words.conversation import Voice, size

_NO_TOOL = ("I found no NVIDIA GPU to ask: nvidia-smi is not installed here, or the "
            "driver cannot reach a GPU.")


def _rows(result: StepResult) -> list[list[str]]:
    return [[cell.strip() for cell in clean(line).split(",")]
            for line in result.stdout.splitlines() if line.strip()] if result.ok else []


def _mib(text: str) -> str:
    try:
        return size(float(text) * 1024 * 1024)  # nvidia-smi says MiB
    except ValueError:
        return text or "?"


def gpus(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    cards = [r for r in (_rows(results[0]) if results else []) if len(r) >= 6]
    if not cards:
        return _NO_TOOL
    lines = [f"GPU {index} {name}: {busy}% busy, {_mib(used)} of {_mib(total)} memory, "
             f"{temp} \u00b0C" for index, name, busy, used, total, temp, *_ in cards[:16]]
    apps = [r for r in (_rows(results[1]) if len(results) > 1 else []) if len(r) >= 4]
    if len(results) < 2 or not results[1].ok:
        lines.append("I couldn't read which processes use GPU memory.")
    elif apps:
        lines.append("Using GPU memory: " + "; ".join(
            f"pid {pid} {name} ({_mib(used)}, {gpu})" for pid, name, used, gpu, *_ in apps[:12]))
    else:
        lines.append("No process is using GPU memory now.")
    return "\n".join(lines)


ANSWERS = {"gpus": gpus}
TOLERANT = {"gpus"}
