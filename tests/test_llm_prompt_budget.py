"""The prompt fits the context whatever the system message's size (reos/llm/prompt.py): the
machine's facts get what the system message (which grows with the catalogue), the answer's
room, the conversation, the parser's reading, the request and a repair's messages leave,
counted as `prompt.tokens` counts them (bench/llm_overhead.py holds the real numbers)."""

from __future__ import annotations

from typing import Any

import pytest

from reos.catalogue.templates import load
from reos.llm import prompt
from reos.llm.turns import Turn
from reos.system.snapshot import SystemSnapshot


def _big() -> SystemSnapshot:
    """A machine whose facts alone would fill any context."""
    return SystemSnapshot.from_dict({
        "schema": "reos.snapshot/2", "collected_at": "",
        "host": {"hostname": "big", "os": "Debian 12", "package_manager": "apt",
                 "init": "systemd", "user": "dan"},
        "containers": [{"name": f"app-{n:04d}", "id": f"{n:012x}", "image": "nginx:1",
                        "state": "running", "status": "Up"} for n in range(500)],
        "services": [{"name": f"unit-{n:04d}.service", "description": "a unit", "load": "loaded",
                      "active": "active", "sub": "running", "enabled": "enabled"}
                     for n in range(1000)],
        "packages": [{"name": f"nginx-mod-{n:05d}", "version": "1.0"} for n in range(3000)],
        "users": [{"name": f"nginx{n:04d}", "uid": 2000 + n, "gid": 2000 + n,
                   "home": f"/home/u{n}", "shell": "/bin/bash", "groups": ["users"]}
                  for n in range(500)],
        "firewall": {"backend": "ufw", "active": True, "rules": []}})


@pytest.mark.parametrize("num_ctx", [4096, 8192, 16384])
@pytest.mark.parametrize("grown", [0, 3_000, 9_000])  # characters more of catalogue
def test_the_prompt_never_outgrows_the_context(num_ctx: int, grown: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    templates = load()
    system = prompt.system_message(templates) + "x" * grown
    monkeypatch.setattr(prompt, "system_message", lambda _: system)
    budget = num_ctx - prompt.REPLY_TOKENS
    turns = [Turn(f"restart nginx on the {n} box " * 5, "restarted it " * 10)
             for n in range(5)]
    hint = "action service.restart nginx-mod-00001 (confidence 0.62) " * 6
    asks: list[dict[str, Any]] = [
        {}, {"turns": turns}, {"hint": hint}, {"turns": turns, "hint": hint},
        {"turns": turns, "hint": hint,
         "repair": ('{"op": "service.restart", "targets": ["nginx"]} ' * 40,
                    ["the target nginx is not on this machine"] * 12)}]
    request = " ".join(["restart the nginx service please"] * 3)
    for ask in asks:
        said = prompt.messages(request, templates, _big(), num_ctx, **ask)
        # what is always said: the system message, the request, its turns and the hint
        least = len(system) + len(prompt.facts(request, _big(), 0, turns=ask.get("turns"),
                                               hint=ask.get("hint")))
        if least + 300 <= budget * prompt.CHARS_PER_TOKEN:
            assert prompt.tokens(said) <= budget, (num_ctx, grown, sorted(ask))
        assert said[1]["content"].endswith('please"'), "the request itself is always said"


def test_the_facts_still_say_as_much_as_fits() -> None:
    templates = load()
    said = prompt.messages("restart nginx", templates, _big(), 8192)
    room = (8192 - prompt.REPLY_TOKENS) * prompt.CHARS_PER_TOKEN
    used = sum(len(m["content"]) for m in said)
    assert room - 400 < used <= room  # cut to fit, not far short of it
    assert "(and " in said[1]["content"] and "more not shown)" in said[1]["content"]
