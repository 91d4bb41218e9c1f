"""What on the machine a request resolved to (Target), and Keyed records, equal by key.

A Keyed record is equal to another of its kind, and hashed, by its `key()` alone; a
Target is one, and so is the snapshot's Container (reos.system.snapshot).
`Target.to_dict` is a target of `reos.plan/1`.

Not responsible for finding targets (understanding and planning match a request against
the snapshot) nor for reading the machine (reos.system does); imports nothing of reos.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from typing import Any


class Keyed(Struct, frozen=True, eq=False):
    """A record equal to another of its kind, and hashed, by its `key()` alone: what it
    carries besides (a process's command line, a container's labels) is never compared."""

    def key(self) -> tuple[object, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.key() == other.key()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self.key())


class Target(Keyed, frozen=True, eq=False):
    """A real resource on the machine that a request resolved to: hashable (a key), and
    equal to another when all but its `detail` are."""

    kind: str  # container | service | package | user | group | process | mount | …
    name: str  # for a process, its pid
    state: str | None = None  # running / exited / active / installed / absent, at snapshot time
    enabled: str | None = None  # a service's unit-file state (enabled, disabled, masked, ...)
    version: str | None = None  # a package's installed version
    # said with the target, never compared: a process's command line
    detail: str = ""

    def key(self) -> tuple[str, str, str | None, str | None, str | None]:
        return (self.kind, self.name, self.state, self.enabled, self.version)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name}
