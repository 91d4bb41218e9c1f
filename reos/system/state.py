"""The live state of one resource, and the command that brings it back to a recorded state.

`current_state` reads (never changes) a container's state before a step touches it; the
journal stores that as the step's prior state. `restore_argv` turns a recorded prior
state into the command that restores it, which is how undo is computed: from what was
true before, not from a guessed inverse of the command.
"""

from __future__ import annotations

from typing import Any

RUNNING_STATES = {"running", "restarting", "paused"}


def current_state(kind: str, name: str) -> dict[str, Any] | None:
    """The state to record before changing a resource, or None when it is not tracked."""
    if kind != "container":
        return None
    import docker.errors  # deferred with the collectors: planning never needs them

    from reos.system.collectors import Unavailable, docker_client

    try:
        client = docker_client()
    except Unavailable as exc:
        return {"state": "unknown", "reason": str(exc)}
    try:
        container = client.containers.get(name)
        return {"state": container.status, "id": container.id[:12]}
    except docker.errors.NotFound:
        return {"state": "absent"}
    except docker.errors.DockerException as exc:
        return {"state": "unknown", "reason": str(exc)[:200]}
    finally:
        client.close()


def restore_argv(kind: str, name: str, prior: dict[str, Any] | None) -> list[str] | None:
    """The command that returns the resource to `prior`, or None when none can."""
    if kind != "container" or not prior:
        return None
    state = prior.get("state")
    if state in RUNNING_STATES:
        return ["docker", "start", name]
    if state in ("exited", "created", "dead"):
        return ["docker", "stop", name]
    return None
