"""The SystemSnapshot: what exists on the machine, as data (contract `reos.snapshot/1`).

Responsible for the snapshot's shape, its JSON form, and reading a saved one with clear
errors. A section that could not be collected is `None` (unknown), never `[]`.
Not responsible for collecting (see `collectors`) or for matching words to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from reos.errors import UsageError

SCHEMA = "reos.snapshot/1"
COMPOSE_PROJECT = "com.docker.compose.project"


@dataclass(frozen=True)
class Container:
    name: str
    id: str = ""
    image: str = ""
    state: str = "unknown"  # running | exited | created | paused | restarting | dead
    status: str = ""  # "Up 2 hours", as docker says it
    labels: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def project(self) -> str | None:
        return self.labels.get(COMPOSE_PROJECT)

    @property
    def running(self) -> bool:
        return self.state in ("running", "restarting", "paused")


@dataclass(frozen=True)
class Service:
    name: str  # full unit name, e.g. nginx.service
    description: str = ""
    load: str = ""
    active: str = ""
    sub: str = ""
    enabled: str = ""


@dataclass(frozen=True)
class Package:
    name: str
    version: str = ""


@dataclass
class SystemSnapshot:
    collected_at: str
    host: dict[str, Any] = field(default_factory=dict)
    containers: list[Container] | None = None
    services: list[Service] | None = None
    packages: list[Package] | None = None
    unavailable: dict[str, str] = field(default_factory=dict)  # section -> reason

    def container(self, name: str) -> Container | None:
        return next((c for c in self.containers or [] if c.name == name), None)

    @property
    def is_root(self) -> bool:
        return bool(self.host.get("is_root"))

    def to_dict(self) -> dict[str, Any]:
        def section(items: list[Any] | None) -> list[dict[str, Any]] | None:
            if items is None:
                return None
            return [dict(vars(i)) for i in items]

        return {
            "schema": SCHEMA,
            "collected_at": self.collected_at,
            "host": dict(self.host),
            "containers": section(self.containers),
            "services": section(self.services),
            "packages": section(self.packages),
            "unavailable": dict(self.unavailable),
        }

    @classmethod
    def from_dict(cls, data: Any, origin: str = "snapshot") -> SystemSnapshot:
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise UsageError(
                f"{origin} is not a reos snapshot (expected \"schema\": \"{SCHEMA}\").",
                "Create one with: reos context --json > FILE",
            )

        def build(key: str, kind: type, required: tuple[str, ...]) -> list[Any] | None:
            raw = data.get(key)
            if raw is None:
                return None
            if not isinstance(raw, list):
                raise UsageError(f"{origin}: \"{key}\" must be a list or null.")
            out = []
            allowed = {f.name for f in fields(kind)}
            for i, item in enumerate(raw):
                if not isinstance(item, dict) or not all(
                    isinstance(item.get(r), str) for r in required
                ):
                    raise UsageError(
                        f"{origin}: {key}[{i}] needs the text field(s) {', '.join(required)}."
                    )
                clean = {k: v for k, v in item.items() if k in allowed}
                if "labels" in clean and not isinstance(clean["labels"], dict):
                    clean["labels"] = {}
                out.append(kind(**clean))
            return out

        host = data.get("host") or {}
        return cls(
            collected_at=str(data.get("collected_at", "")),
            host=host if isinstance(host, dict) else {},
            containers=build("containers", Container, ("name",)),
            services=build("services", Service, ("name",)),
            packages=build("packages", Package, ("name",)),
            unavailable=dict(data.get("unavailable") or {}),
        )

    @classmethod
    def load(cls, path: Path) -> SystemSnapshot:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(f"Context file {path} does not exist.") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"Context file {path} cannot be read: {exc}.") from None
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"Context file {path} is not valid JSON (line {exc.lineno}: {exc.msg}).",
                "Create one with: reos context --json > FILE",
            ) from None
        return cls.from_dict(data, origin=f"Context file {path}")
