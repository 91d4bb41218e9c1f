"""`reos doctor`: whether what reos uses works, said in plain sentences (or as JSON).

Four checks, run side by side and each bounded in time, so a server that never answers
costs seconds, not a hang: the settings file in use; the model (enabled, mode, depth;
when it is on, the Ollama server's version and models, whether the configured model is
pulled, its context length and a round-trip time); whether the container engine answers;
whether sudo works without a password. Each check ends in a state: `ok`, `problem`, or
`off` (not in use, by choice or because there is nothing of it here). Exit status 0 when
no check is a problem, 1 otherwise.

`llm_report` is also what `reos context --llm` adds under "llm".

Not responsible for talking to Ollama (reos.llm.client.Client.status does) or to the
container engine (reos.system.collectors.docker_client does); this module only bounds,
judges and words what they find.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from msgspec import Struct, field
from msgspec.structs import replace

from reos.commands.output import emit_json, say
from reos.errors import EXIT_FAILED, EXIT_OK, ReosError, plainly
from reos.settings import Settings

if TYPE_CHECKING:
    from typing import Any

T = TypeVar("T")
OK, PROBLEM, OFF = "ok", "problem", "off"
CALL_SECONDS = 3.0  # each request to the Ollama server, the docker ping, sudo -n
LLM_SECONDS = 10.0  # the whole model check: version, tags and show, one after another
CHECK_SECONDS = 6.0  # docker, sudo


class Check(Struct):
    """One thing reos uses, and what became of looking at it."""

    name: str
    state: str  # ok | problem | off
    said: list[str]  # plain sentences, the first one the verdict
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "said": list(self.said), **self.data}


def _bounded(work: Callable[[], T], seconds: float, failed: Callable[[str], T]
             ) -> Callable[[], T]:
    """Start `work` in a daemon thread now; the returned function waits at most `seconds`
    for it. When it has not finished (the thread is left behind and dies with the
    process) or raised, `failed(why)` answers instead: a check never hangs or raises."""
    box: list[T] = []
    broke: list[str] = []

    def target() -> None:
        try:
            box.append(work())
        except Exception as exc:  # noqa: BLE001
            broke.append(plainly(exc, "The check itself"))

    thread = threading.Thread(target=target, daemon=True)
    thread.start()

    def result() -> T:
        thread.join(seconds)
        if box:
            return box[0]
        return failed(broke[0] if broke else f"no answer within {seconds:g} s")

    return result


# -- the model -------------------------------------------------------------------------

def llm_off_reason(settings: Settings) -> str | None:
    """Why the model is never asked with these settings, or None when it may be."""
    from reos.settings import llm_forced_off

    if llm_forced_off():
        return "REOS_LLM=off is set for this run"
    if not settings.llm.enabled:
        return "[llm] enabled = false"
    if settings.llm.mode == "off":
        return '[llm] mode = "off"'
    if settings.reasoning.depth == "quick":
        return '[reasoning] depth = "quick" never asks the model'
    return None


def llm_report(settings: Settings) -> dict[str, Any]:
    """What the Ollama server is and has, for the configured model; when the model is off,
    only that (and why), without contacting any server."""
    llm = settings.llm
    base = {"mode": llm.mode, "depth": settings.reasoning.depth}
    why = llm_off_reason(settings)
    if why is not None:
        return {"enabled": False, **base, "why": why}
    return {"enabled": True, **base, **_status(settings).to_dict()}


def _status(settings: Settings) -> Any:
    """Client.status(), each request bounded by CALL_SECONDS and the whole by LLM_SECONDS."""
    from reos.llm.client import Client, Status

    llm = settings.llm
    quick = replace(llm, timeout_seconds=min(llm.timeout_seconds, CALL_SECONDS))

    def ask() -> Status:
        try:
            return Client(quick).status()
        except ImportError:
            return Status(llm.host, llm.model, problem="The ollama Python package is not "
                                                       "installed, so no model can be asked.")

    return _bounded(ask, LLM_SECONDS, lambda why: Status(
        llm.host, llm.model, problem=f"The Ollama server at {llm.host} could not be checked: "
                                     f"{why}."))()


def _llm_check(settings: Settings) -> Check:
    report = llm_report(settings)
    where = f"{settings.llm.model} at {settings.llm.host}"
    how = f"mode {report['mode']}, depth {report['depth']}"
    if not report["enabled"]:
        return Check("llm", OFF, [f"The model is off ({report['why']}; {how}); reos uses "
                                  "its built-in understanding and contacts no server."],
                     report)
    said = [f"The model is on ({how}): {where}."]
    if not report["reachable"]:
        said.append(report["problem"] or f"No Ollama server answers at {settings.llm.host}.")
        return Check("llm", PROBLEM, said, report)
    rtt = f", {report['rtt_ms']:.0f} ms round trip" if report["rtt_ms"] is not None else ""
    said.append(f"The Ollama server answers (version {report['version'] or 'unknown'}{rtt}).")
    models = report["models"]
    said.append(f"Models on it: {', '.join(models)}." if models else
                "It has no models yet.")
    if not report["has_model"]:
        said.append(report["problem"] or f"The model {settings.llm.model} is not on it. "
                                          f"Run `ollama pull {settings.llm.model}`.")
        return Check("llm", PROBLEM, said, report)
    length = report["context_length"]
    said.append(f"{settings.llm.model} is there"
                + (f", with a context length of {length:,} tokens "
                   f"(reos asks for {settings.llm.num_ctx:,})." if length else
                   "; its context length was not said."))
    if report["problem"]:
        said.append(report["problem"])
        return Check("llm", PROBLEM, said, report)
    return Check("llm", OK, said, report)


# -- the machine -----------------------------------------------------------------------

def _docker_check() -> Check:
    from reos.system.collectors import docker_base_url, docker_client
    from reos.system.portable import Unavailable

    url = docker_base_url()
    if url is None:
        return Check("docker", OFF, ["No Docker or Podman engine was found here (no socket, "
                                     "no DOCKER_HOST); requests about containers will say "
                                     "so."], {"url": None})
    try:
        client = docker_client(timeout=CALL_SECONDS)
    except Unavailable as exc:
        return Check("docker", PROBLEM, [f"{exc}."],
                     {"url": url})
    except ImportError:
        return Check("docker", PROBLEM, ["The docker Python package is not installed, so the "
                                         "container engine cannot be checked."], {"url": url})
    try:
        version = str(client.version().get("Version") or "")[:40] or None
    except Exception:  # noqa: BLE001 - it answered the ping; the version is a nicety
        version = None
    finally:
        client.close()
    return Check("docker", OK, [f"The container engine answers at {url}"
                                + (f" (version {version})." if version else ".")],
                 {"url": url, "version": version})


def _sudo_check() -> Check:
    from reos.system import sudo

    found = sudo.probe(CALL_SECONDS)
    said = found.said
    if found.state == sudo.ROOT:
        return Check("sudo", OK, ["reos runs as root here, so sudo is not needed."],
                     {"root": True})
    if found.state == sudo.MISSING:
        return Check("sudo", PROBLEM, [(f"{said}; " if said else "sudo is not installed, so ")
                                       + "steps that need root cannot run (run reos as "
                                       "root, or install sudo)."], {"root": False})
    if found.state == sudo.FREE:
        return Check("sudo", OK, ["sudo works without a password."], {"root": False})
    if found.state == sudo.PASSWORD:
        return Check("sudo", OK, [f"sudo wants a password (sudo said: {said}); reos asks for "
                                  "it once when a plan needs root."],
                     {"root": False, "password": True})
    return Check("sudo", PROBLEM, [f"sudo refuses (sudo said: {said}), so steps that need "
                                   "root cannot run."], {"root": False})


# -- the command -----------------------------------------------------------------------

def _settings() -> tuple[Settings, Check]:
    from reos import paths
    from reos.commands.common import load_settings

    try:
        settings = load_settings()
    except ReosError as exc:  # a broken file is a finding here, not the end of the checks
        hint = f" {exc.hint}" if exc.hint else ""
        return Settings(path=paths.settings_file()), Check(
            "settings", PROBLEM, [f"{exc.message}{hint} The checks below use the defaults."],
            {"file": str(paths.settings_file()), "exists": True})
    path = settings.path or paths.settings_file()
    exists = path.exists()
    said = [f"Settings: {path}." if exists else
            f"Settings: no file at {path}; the defaults are used."]
    said.extend(f"It warns: {w}" for w in settings.warnings)
    return settings, Check("settings", OK, said, {"file": str(path), "exists": exists,
                                                 "warnings": list(settings.warnings)})


def run(*, as_json: bool = False) -> int:
    settings, settings_check = _settings()
    docker = _bounded(_docker_check, CHECK_SECONDS, lambda why: Check(
        "docker", PROBLEM, [f"The container engine could not be checked: {why}."]))
    sudo = _bounded(_sudo_check, CHECK_SECONDS, lambda why: Check(
        "sudo", PROBLEM, [f"sudo could not be checked: {why}."]))
    checks = [settings_check, _llm_check(settings), docker(), sudo()]
    problems = [c for c in checks if c.state == PROBLEM]
    if as_json:
        emit_json({"schema": "reos.doctor/1", "ok": not problems,
                   **{c.name: c.to_dict() for c in checks}})
    else:
        for check in checks:
            say(check.said[0])
            for line in check.said[1:]:
                say(f"  {line}")
        say("Everything reos uses works." if not problems else
            f"Not everything works: {', '.join(c.name for c in problems)} (see above).")
    return EXIT_FAILED if problems else EXIT_OK
