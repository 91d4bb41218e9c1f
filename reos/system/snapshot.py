"""The SystemSnapshot: what exists on the machine, as data (contract `reos.snapshot/2`).

Responsible for the snapshot's shape, its JSON form, and reading a saved one with clear
errors. A section that could not be collected is `None` (unknown), never `[]`.
Files written as `reos.snapshot/1` (containers, services, packages only) still load; the
sections added in /2 are then `None` (unknown), whatever the file holds under their names.
Not responsible for collecting (see `collectors` and `facts`) or for matching words to it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import astuple

from reos.errors import UsageError

if TYPE_CHECKING:
    from typing import Any

SCHEMA = "reos.snapshot/2"
OLD_SCHEMAS = ("reos.snapshot/1",)  # still read; their missing sections are unknown
COMPOSE_PROJECT = "com.docker.compose.project"


class Container(Struct, frozen=True, eq=False):
    name: str
    id: str = ""
    image: str = ""
    state: str = "unknown"  # running | exited | created | paused | restarting | dead
    status: str = ""  # "Up 2 hours", as docker says it
    labels: dict[str, str] = {}  # not compared
    # published ports as docker prints them: "0.0.0.0:8080->80/tcp" (not compared)
    ports: list[str] = []

    def _key(self) -> tuple[str, str, str, str, str]:
        return (self.name, self.id, self.image, self.state, self.status)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def project(self) -> str | None:
        return self.labels.get(COMPOSE_PROJECT)

    @property
    def running(self) -> bool:
        return self.state in ("running", "restarting", "paused")


class Service(Struct, frozen=True):
    name: str  # full unit name, e.g. nginx.service
    description: str = ""
    load: str = ""
    active: str = ""
    sub: str = ""
    enabled: str = ""


class Package(Struct, frozen=True):
    name: str
    version: str = ""
    description: str = ""  # the one-line summary, where the package manager has one


class User(Struct, frozen=True, eq=False):
    name: str
    uid: int = 0
    gid: int = 0
    home: str = ""
    shell: str = ""
    groups: list[str] = []  # primary group first, then supplementary ones
    locked: bool = False  # password field starts with "!" or "*" (false when unreadable)
    system: bool = False  # uid below 1000, or a shell that refuses logins
    gecos: str = ""  # the comment field: usually the full name ("Maria Lopez,,,")


class Group(Struct, frozen=True, eq=False):
    name: str
    gid: int = 0
    members: list[str] = []  # as /etc/group lists them (not primary members)


class Process(Struct, frozen=True, eq=False):
    pid: int
    ppid: int = 0
    name: str = ""
    user: str = ""
    cmdline: str = ""  # arguments joined by spaces; "" for kernel threads
    cpu_percent: float = 0.0  # of one CPU, over a short interval (can exceed 100)
    memory_rss: int = 0  # bytes


class Mount(Struct, frozen=True, eq=False):
    device: str = ""
    mountpoint: str = ""
    fstype: str = ""
    options: str = ""
    total: int = 0  # bytes; 0 when the filesystem could not be measured
    used: int = 0
    free: int = 0  # available to unprivileged users
    label: str = ""  # the filesystem's label, where it has one


class BlockDevice(Struct, frozen=True, eq=False):
    name: str
    path: str = ""
    type: str = ""  # disk | part | rom | loop | lvm | crypt | raid1 ...
    size: int = 0  # bytes
    model: str = ""
    removable: bool = False
    fstype: str = ""
    mountpoints: list[str] = []
    label: str = ""  # the filesystem's label
    vendor: str = ""  # as the device reports it ("ATA", "WDC", "Kingston")


class Interface(Struct, frozen=True, eq=False):
    name: str
    state: str = ""  # up | down | unknown (lower-case operstate)
    mac: str = ""
    addresses: list[str] = []  # "192.168.1.5/24", "fe80::1/64"
    mtu: int = 0
    # ethernet | wifi | wireguard | bridge | vlan | bond | veth | tun | loopback | "" (unknown)
    kind: str = ""


class Listening(Struct, frozen=True, eq=False):
    proto: str = ""  # tcp | udp
    address: str = ""  # "0.0.0.0", "::", "127.0.0.1"
    port: int = 0
    pid: int | None = None  # None when the socket's owner is not visible (not root)
    process: str = ""


class Timer(Struct, frozen=True, eq=False):
    name: str  # apt-daily.timer
    unit: str = ""  # what it starts: apt-daily.service
    next: str = ""  # ISO 8601 UTC, "" when it will not elapse again
    last: str = ""  # ISO 8601 UTC, "" when it never ran


FIREWALL_BACKENDS = ("ufw", "firewalld", "nftables")
# The sections a snapshot may carry, in the order they are written.
SECTION_KINDS: dict[str, type[Struct]] = {
    "containers": Container, "services": Service, "packages": Package, "users": User,
    "groups": Group, "processes": Process, "mounts": Mount, "block_devices": BlockDevice,
    "interfaces": Interface, "listening": Listening, "timers": Timer,
}
NEW_IN_2 = ("users", "groups", "processes", "mounts", "block_devices", "interfaces",
            "listening", "timers", "firewall")


class SystemSnapshot(Struct):
    collected_at: str
    host: dict[str, Any] = field(default_factory=dict)
    containers: list[Container] | None = None
    services: list[Service] | None = None
    packages: list[Package] | None = None
    unavailable: dict[str, str] = field(default_factory=dict)  # section -> reason
    users: list[User] | None = None
    groups: list[Group] | None = None
    processes: list[Process] | None = None  # about 100: top CPU, top memory, listeners
    mounts: list[Mount] | None = None
    block_devices: list[BlockDevice] | None = None
    interfaces: list[Interface] | None = None
    listening: list[Listening] | None = None
    timers: list[Timer] | None = None
    firewall: dict[str, Any] | None = None  # {"backend": ..., "active": bool, "rules": [...]}

    @property
    def is_root(self) -> bool:
        return bool(self.host.get("is_root"))

    def to_dict(self) -> dict[str, Any]:
        def section(items: list[Any] | None) -> list[dict[str, Any]] | None:
            if items is None:
                return None
            return [{k: list(v) if isinstance(v, list) else v
                     for k, v in zip(i.__struct_fields__, astuple(i), strict=True)} for i in items]

        out: dict[str, Any] = {
            "schema": SCHEMA,
            "collected_at": self.collected_at,
            "host": dict(self.host),
        }
        for name in SECTION_KINDS:
            out[name] = section(getattr(self, name))
        out["firewall"] = None if self.firewall is None else {
            "backend": self.firewall.get("backend"),
            "active": bool(self.firewall.get("active")),
            "rules": list(self.firewall.get("rules") or []),
        }
        out["unavailable"] = dict(self.unavailable)
        return out

    @classmethod
    def from_dict(cls, data: Any, origin: str = "snapshot") -> SystemSnapshot:
        """A snapshot from its JSON form, every field checked by type.

        A saved snapshot is input from anywhere: a field of the wrong type is a
        UsageError naming its path (`containers[3].labels.x`), never a crash later.
        Keys this version does not know are ignored, so newer snapshots still load.
        """
        schema = data.get("schema") if isinstance(data, dict) else None
        if schema != SCHEMA and schema not in OLD_SCHEMAS:
            raise UsageError(
                f"{origin} is not a reos snapshot (expected \"schema\": \"{SCHEMA}\").",
                "Create one with: reos context --json > FILE",
            )
        check = _Checker(origin)
        old = schema != SCHEMA
        sections = {name: None if old and name in NEW_IN_2 else check.section(data, name, kind)
                    for name, kind in SECTION_KINDS.items()}
        return cls(
            collected_at=check.text(data.get("collected_at", ""), "collected_at"),
            host=check.scalars(data.get("host"), "host"),
            unavailable=check.texts(data.get("unavailable"), "unavailable"),
            firewall=None if old else check.firewall(data.get("firewall"), "firewall"),
            **sections,
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


MAX_ITEMS = 200_000  # items in one section (a big host has ~10,000 packages)
MAX_LIST = 20_000  # strings in one field of an item (a group's members, an address list)
REQUIRED = {"Process": "pid", "Mount": "mountpoint", "Listening": "port"}  # else "name"
OPTIONAL_TEXT = {(kind, name): "str?" for kind, name in (
    ("Process", "user"), ("Process", "cmdline"), ("Mount", "options"),
    ("BlockDevice", "path"), ("BlockDevice", "model"), ("BlockDevice", "fstype"),
    ("Interface", "mac"), ("Listening", "process"), ("Timer", "next"), ("Timer", "last"),
    ("Timer", "unit"), ("Package", "description"), ("User", "gecos"), ("Mount", "label"),
    ("BlockDevice", "label"), ("BlockDevice", "vendor"), ("Interface", "kind"))}


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

    def count(self, value: list[Any], where: str, most: int) -> None:
        if len(value) > most:
            raise UsageError(f"{self.origin}: {where} has {len(value):,} items, more than the"
                             f" {most:,} any snapshot reos writes holds.",
                             "Create the file with: reos context --json > FILE")

    def integer(self, value: Any, where: str) -> int:
        # bool is an int to Python, not to JSON; a snapshot's numbers are counts and ids
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
            raise self.fail(where, "a whole number from 0 to 2^63", value)
        return value

    def number(self, value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) \
                or not math.isfinite(value) or value < 0:
            raise self.fail(where, "a number of 0 or more", value)
        return float(value)

    def flag(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, "true or false", value)
        return value

    def strings(self, value: Any, where: str, most: int = MAX_LIST) -> list[str]:
        if not isinstance(value, list):
            raise self.fail(where, "a list of strings", value)
        self.count(value, where, most)
        return [self.text(item, f"{where}[{i}]") for i, item in enumerate(value)]

    def value(self, kind: str, value: Any, where: str) -> Any:
        """One field of a section item, by its declared type."""
        if kind == "str":
            return self.text(value, where)
        if kind == "str?":  # text a tool may not know (lsblk's model): null reads as ""
            return "" if value is None else self.text(value, where)
        if kind == "int":
            return self.integer(value, where)
        if kind == "int | None":
            return None if value is None else self.integer(value, where)
        if kind == "float":
            return self.number(value, where)
        if kind == "bool":
            return self.flag(value, where)
        if kind == "list[str]":
            return self.strings(value, where)
        if kind == "dict[str, str]":
            return self.texts(value, where)
        raise AssertionError(f"no check for {kind}")  # a field added without one

    def section(self, data: dict[str, Any], key: str, kind: type[Struct]) -> list[Any] | None:
        """A list of `kind` (null or absent: not collected)."""
        raw = data.get(key)
        if raw is None:
            return None
        if not isinstance(raw, list):
            raise self.fail(key, "a list or null", raw)
        self.count(raw, key, MAX_ITEMS)
        types = {name: str(OPTIONAL_TEXT.get((kind.__name__, name), kind.__annotations__[name]))
                 for name in kind.__struct_fields__}
        required = REQUIRED.get(kind.__name__, "name")
        out = []
        for i, item in enumerate(raw):
            where = f"{key}[{i}]"
            if not isinstance(item, dict):
                raise self.fail(where, "an object", item)
            if required not in item:
                raise UsageError(f"{self.origin}: {where} has no \"{required}\".")
            clean = {name: self.value(types[name], value, f"{where}.{name}")
                     for name, value in item.items() if name in types}
            out.append(kind(**clean))
        return out

    def firewall(self, value: Any, where: str) -> dict[str, Any] | None:
        """{"backend": one of FIREWALL_BACKENDS or null, "active": bool, "rules": [str]}."""
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(where, "an object or null", value)
        backend = value.get("backend")
        if backend is not None and backend not in FIREWALL_BACKENDS:
            raise self.fail(f"{where}.backend", " or ".join(f'"{b}"' for b in FIREWALL_BACKENDS)
                            + " or null", backend)
        return {"backend": backend,
                "active": self.flag(value.get("active", False), f"{where}.active"),
                "rules": self.strings(value.get("rules", []), f"{where}.rules", MAX_ITEMS)}
