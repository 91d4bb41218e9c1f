"""GPUs (issue 21): `nvidia-smi` on the read-only list in its query forms only, the
system.gpus operation, and its answer in words. No GPU here: the answer is read from
nvidia-smi's documented CSV form, and from this machine, where the tool is missing."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from reos.model.report import StepResult
from reos.model.request import Kind
from reos.safety.grammar import reads_only
from reos.safety.risk import assess_argv
from reos.words.answers.common import ANSWERS
from reos.words.conversation import Voice
from tests.understanding.evaluate import engines


@pytest.mark.parametrize("argv", [
    ["nvidia-smi"], ["nvidia-smi", "-L"], ["nvidia-smi", "-q", "-i", "0"],
    ["nvidia-smi", "--query-gpu=index,name,utilization.gpu", "--format=csv"],
])
def test_the_query_forms_only_read(argv: list[str]) -> None:
    assert reads_only(argv).ok and assess_argv(argv).read_only


@pytest.mark.parametrize("argv", [
    ["nvidia-smi", "-pm", "1"], ["nvidia-smi", "-r"], ["nvidia-smi", "--gpu-reset"],
    ["nvidia-smi", "-pl", "150"], ["nvidia-smi", "-f", "/etc/passwd"],
    ["nvidia-smi", "-l", "1"], ["nvidia-smi", "--persistence-mode=1"],
    ["nvidia-smi", "-c", "EXCLUSIVE_PROCESS"], ["nvidia-smi", "mig", "-cgi", "9"],
    # a flag never swallows the option after it, and a value is never an option
    ["nvidia-smi", "-u", "--gpu-reset"], ["nvidia-smi", "-u", "--persistence-mode=1"],
    ["nvidia-smi", "-i", "--gpu-reset"], ["nvidia-smi", "--id=-r"],
    ["nvidia-smi", "-i", "0", "-u", "--power-limit=100"],
])
def test_every_setting_a_file_or_a_loop_is_not_read_only(argv: list[str]) -> None:
    assert not reads_only(argv).ok and not assess_argv(argv).read_only


@pytest.mark.parametrize("say", ["gpu usage?", "who is hogging the gpus", "nvidia-smi",
                                 "gpu temps?"])
def test_gpu_questions_read_nvidia_smi(say: str) -> None:
    plan = engines()["apt"].plan(say)
    assert plan.kind == Kind.QUERY and plan.intent.operation == "system.gpus"
    assert plan.read_only and all(s.argv[0] == "nvidia-smi" for s in plan.steps)


def test_the_answer_names_each_gpu_and_what_uses_it() -> None:
    cards = ("0, NVIDIA A100-SXM4-40GB, 87, 30822, 40960, 65\n"
             "1, NVIDIA A100-SXM4-40GB, 0, 4, 40960, 33\n")
    apps = "48211, python3, 30000, GPU-3f2a\n"
    said = ANSWERS["gpus"]([StepResult("s1", True, 0, cards, ""),
                            StepResult("s2", True, 0, apps, "")], {}, Voice())
    assert "GPU 0 NVIDIA A100-SXM4-40GB: 87% busy, 30.1 GiB of 40 GiB memory, 65 \u00b0C" in said
    assert "GPU 1" in said and "pid 48211 python3 (29.3 GiB" in said


def test_a_machine_without_the_tool_is_told_so() -> None:
    if shutil.which("nvidia-smi"):
        pytest.skip("this machine has nvidia-smi")
    try:  # what running it here gives: no such program
        subprocess.run(["nvidia-smi", "-L"], capture_output=True, check=False)
    except FileNotFoundError as exc:
        failed = StepResult("s1", False, 127, "", str(exc))
    said = ANSWERS["gpus"]([failed, failed], {}, Voice())
    assert said.startswith("I found no NVIDIA GPU")
