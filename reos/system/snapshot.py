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
        """A snapshot from its JSON form, every field checked by type.

        A saved snapshot is input from anywhere: a field of the wrong type is a
        UsageError naming its path (`containers[3].labels.x`), never a crash later.
        Keys this version does not know are ignored, so newer snapshots still load.
        """
        if not isinstance(data, dict) or data.get("schema") != SCHEMA:
            raise UsageError(
                f"{origin} is not a reos snapshot (expected \"schema\": \"{SCHEMA}\").",
                "Create one with: reos context --json > FILE",
            )
        check = _Checker(origin)
        return cls(
            collected_at=check.text(data.get("collected_at", ""), "collected_at"),
            host=check.scalars(data.get("host"), "host"),
            containers=check.section(data, "containers", Container),
            services=check.section(data, "services", Service),
            packages=check.section(data, "packages", Package),
            unavailable=check.texts(data.get("unavailable"), "unavailable"),
        )

    @classmethod
    def load(cls, path: Path) -> SystemSnapshot:
        """A saved snapshot, or a UsageError (exit 2) saying what is wrong with the file."""
        where = f"Context file {path}"
        hint = "Create one with: reos context --json > FILE"
        try:
            with Path(path).open("rb") as handle:  # a pipe (<(...)) is fine; a directory not
                raw = handle.read(MAX_BYTES + 1)
        except FileNotFoundError:
            raise UsageError(f"Context file {path} does not exist.") from None
        except OSError as exc:
            raise UsageError(f"{where} cannot be read: {exc.strerror or exc}.") from None
        if len(raw) > MAX_BYTES:
            raise UsageError(f"{where} is larger than {MAX_BYTES // 2**20} MB, more than any"
                             " snapshot reos writes.", hint)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise UsageError(f"{where} is not UTF-8 text (line {line}, byte {exc.start:,}).",
                             hint) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{where} is not valid JSON (line {exc.lineno}: {exc.msg}).",
                             hint) from None
        except RecursionError:
            raise UsageError(f"{where} nests arrays or objects too deeply to be a snapshot.",
                             hint) from None
        except ValueError as exc:  # e.g. a number with more digits than Python converts
            raise UsageError(f"{where} is not valid JSON ({exc}).", hint) from None
        return cls.from_dict(data, origin=where)


MAX_BYTES = 64 * 2**20  # a snapshot with every package of a big host is a few MB


def _short(value: Any) -> str:
    if isinstance(value, dict | list):
        return "an object" if isinstance(value, dict) else "a list"
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _key(key: str) -> str:
    """A key as it appears in a field path: shortened, and quoted when not a plain word."""
    short = key if len(key) <= 40 else key[:37] + "..."
    return short if short.replace("_", "").replace("-", "").isalnum() else json.dumps(short)


class _Checker:
    """Checks the JSON form of a snapshot field by field; errors name the field's path."""

    def __init__(self, origin: str):
        self.origin = origin

    def fail(self, where: str, wanted: str, value: Any) -> UsageError:
        return UsageError(f"{self.origin}: {where} must be {wanted}, not {_short(value)}.",
                          "Create the file with: reos context --json > FILE")

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(where, "a string", value)
        return value

    def scalars(self, value: Any, where: str) -> dict[str, Any]:
        """An object of strings, numbers, booleans and nulls (null or absent: empty)."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, "an object", value)
        for key, item in value.items():
            if isinstance(item, dict | list):
                raise self.fail(f"{where}.{_key(key)}", "a string, number, true/false or null",
                                item)
        return dict(value)

    def texts(self, value: Any, where: str) -> dict[str, str]:
        """An object of strings (null or absent: empty)."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.fail(where, "an object of strings", value)
        for key, item in value.items():
            self.text(item, f"{where}.{_key(key)}")
        return dict(value)

    def section(self, data: dict[str, Any], key: str, kind: type) -> list[Any] | None:
        """A list of `kind` (null or absent: not collected)."""
        raw = data.get(key)
        if raw is None:
            return None
        if not isinstance(raw, list):
            raise self.fail(key, "a list or null", raw)
        known = {f.name for f in fields(kind)}
        out = []
        for i, item in enumerate(raw):
            where = f"{key}[{i}]"
            if not isinstance(item, dict):
                raise self.fail(where, "an object", item)
            if "name" not in item:
                raise UsageError(f"{self.origin}: {where} has no \"name\".")
            clean: dict[str, Any] = {}
            for name, value in item.items():
                if name not in known:
                    continue
                if name == "labels":
                    clean[name] = self.texts(value, f"{where}.labels")
                else:
                    clean[name] = self.text(value, f"{where}.{name}")
            out.append(kind(**clean))
        return out
