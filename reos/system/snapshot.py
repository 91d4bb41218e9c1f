"""The SystemSnapshot: what exists on the machine, as data (contract `reos.snapshot/2`).

Responsible for the snapshot's shape, its JSON form, and reading a saved one with clear
errors: msgspec checks every value against the records' types (counts are whole numbers
of 0 or more, lists are bounded), and its complaint is said in reos's words, with the
field's path as the file writes it. A section that could not be collected is `None`
(unknown), never `[]`.
Files written as `reos.snapshot/1` (containers, services, packages only) still load; the
sections added in /2 are then `None` (unknown), whatever the file holds under their names.
Not responsible for collecting (see `collectors` and `facts`) or for matching words to it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from msgspec import Meta, Struct, ValidationError, convert, field
from msgspec.structs import asdict, astuple

from reos.errors import UsageError
from reos.model.target import Keyed
from reos.patterns import regex

MAX_ITEMS = 200_000  # items in one section (a big host has ~10,000 packages)
MAX_LIST = 20_000  # strings in one field of an item (a group's members, an address list)
# what a saved snapshot's values may be, checked by msgspec when one is read (`from_dict`)
Count = Annotated[int, Meta(ge=0, le=2**63 - 1)]  # ids, sizes and counts
Amount = Annotated[float, Meta(ge=0, le=1e18)]  # a finite number of 0 or more
Texts = Annotated[list[str], Meta(max_length=MAX_LIST)]
Scalar = str | int | float | bool | None
T = TypeVar("T")
Items = Annotated[list[T], Meta(max_length=MAX_ITEMS)]  # one section

SCHEMA = "reos.snapshot/2"
OLD_SCHEMAS = ("reos.snapshot/1",)  # still read; their missing sections are unknown
COMPOSE_PROJECT = "com.docker.compose.project"


class Container(Keyed, frozen=True, eq=False):
    name: str
    id: str = ""
    image: str = ""
    state: str = "unknown"  # running | exited | created | paused | restarting | dead
    status: str = ""  # "Up 2 hours", as docker says it
    labels: dict[str, str] = {}  # not compared
    # published ports as docker prints them: "0.0.0.0:8080->80/tcp" (not compared)
    ports: Texts = []
    # read on other machines (the host module's inspect), for their undo; not compared:
    restart: str = ""  # its restart policy ("no", "always"…), "" when not read
    auto_remove: bool | None = None  # Docker removes it once it stops (--rm); None: not read

    def key(self) -> tuple[str, str, str, str, str]:
        return (self.name, self.id, self.image, self.state, self.status)

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
    uid: Count = 0
    gid: Count = 0
    home: str = ""
    shell: str = ""
    groups: Texts = []  # primary group first, then supplementary ones
    locked: bool = False  # password field starts with "!" or "*" (false when unreadable)
    system: bool = False  # uid below 1000, or a shell that refuses logins
    gecos: str = ""  # the comment field: usually the full name ("Maria Lopez,,,")
    # from /etc/shadow, read as root only (None: not read): whether the password field
    # starts with "!" (locked by `usermod -L`; "*", no password, is not), and the days of
    # its last change, its maximum age and the account's expiry as written ("": none);
    # never the password itself. Untrusted from another machine: a date reaches an argv
    # only as digits (fleet/deciding.py)
    password_locked: bool | None = None
    last_change: str | None = None
    max_days: str | None = None
    expiry: str | None = None


class Group(Struct, frozen=True, eq=False):
    name: str
    gid: Count = 0
    members: Texts = []  # as /etc/group lists them (not primary members)


class Process(Struct, frozen=True, eq=False):
    pid: Count
    ppid: Count = 0
    name: str = ""
    user: str = ""
    cmdline: str = ""  # arguments joined by spaces; "" for kernel threads
    cpu_percent: Amount = 0.0  # of one CPU, over a short interval (can exceed 100)
    memory_rss: Count = 0  # bytes


class Mount(Struct, frozen=True, eq=False):
    mountpoint: str
    device: str = ""
    fstype: str = ""
    options: str = ""
    total: Count = 0  # bytes; 0 when the filesystem could not be measured
    used: Count = 0
    free: Count = 0  # available to unprivileged users
    label: str = ""  # the filesystem's label, where it has one


class BlockDevice(Struct, frozen=True, eq=False):
    name: str
    path: str = ""
    type: str = ""  # disk | part | rom | loop | lvm | crypt | raid1 ...
    size: Count = 0  # bytes
    model: str = ""
    removable: bool = False
    fstype: str = ""
    mountpoints: Texts = []
    label: str = ""  # the filesystem's label
    vendor: str = ""  # as the device reports it ("ATA", "WDC", "Kingston")


class Interface(Struct, frozen=True, eq=False):
    name: str
    state: str = ""  # up | down | unknown (lower-case operstate)
    mac: str = ""
    addresses: Texts = []  # "192.168.1.5/24", "fe80::1/64"
    mtu: Count = 0
    # ethernet | wifi | wireguard | bridge | vlan | bond | veth | tun | loopback | "" (unknown)
    kind: str = ""


class Listening(Struct, frozen=True, eq=False):
    port: Count
    proto: str = ""  # tcp | udp
    address: str = ""  # "0.0.0.0", "::", "127.0.0.1"
    pid: Count | None = None  # None when the socket's owner is not visible (not root)
    process: str = ""
    # the systemd service whose process holds it ("sslh.service"), "" when not known
    unit: str = ""


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
    host: dict[str, Any] = field(default_factory=dict)  # strings, numbers, flags, nulls
    containers: Items[Container] | None = None
    services: Items[Service] | None = None
    packages: Items[Package] | None = None
    unavailable: dict[str, str] = field(default_factory=dict)  # section -> reason
    users: Items[User] | None = None
    groups: Items[Group] | None = None
    processes: Items[Process] | None = None  # about 100: top CPU, top memory, listeners
    mounts: Items[Mount] | None = None
    block_devices: Items[BlockDevice] | None = None
    interfaces: Items[Interface] | None = None
    listening: Items[Listening] | None = None
    timers: Items[Timer] | None = None
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
        old = schema != SCHEMA
        given = {key: data[key] for key in ("collected_at", "host", "unavailable", *SECTION_KINDS)
                 if key in data and not (old and key in NEW_IN_2)}
        given.setdefault("collected_at", "")
        for key in ("host", "unavailable"):  # null: nothing said
            given[key] = given.get(key) or {}
        for key, kind in SECTION_KINDS.items():
            given[key] = _optional_text(given.get(key), kind)
        wall = None if old else data.get("firewall")
        try:
            snapshot = convert(given, cls)
        except ValidationError as exc:
            raise _said(exc, origin, "", given) from None
        try:
            convert(given["host"], dict[str, Scalar])
        except ValidationError as exc:
            raise _said(exc, origin, "host", given["host"]) from None
        try:
            checked = convert(wall, Firewall | None)
            snapshot.firewall = None if checked is None else asdict(checked)
        except ValidationError as exc:
            raise _said(exc, origin, "firewall", wall) from None
        return snapshot

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


OPTIONAL_TEXT = {kind: names for kind, names in (
    ("Process", ("user", "cmdline")), ("Mount", ("options", "label")),
    ("BlockDevice", ("path", "model", "fstype", "label", "vendor")),
    ("Interface", ("mac", "kind")), ("Listening", ("process", "unit")),
    ("Timer", ("next", "last", "unit")), ("Package", ("description",)), ("User", ("gecos",)))}


class Firewall(Struct):
    """A snapshot's firewall section, as checked when one is read (kept as a dict)."""

    backend: Literal["ufw", "firewalld", "nftables"] | None = None
    active: bool = False
    rules: Items[str] = []


def _optional_text(items: Any, kind: type[Struct]) -> Any:
    """Text a tool may not know (lsblk's model, a process's user) may be null: read as ""."""
    names = OPTIONAL_TEXT.get(kind.__name__)
    if not names or not isinstance(items, list):
        return items
    return [{**item, **{n: "" for n in names if n in item and item[n] is None}}
            if isinstance(item, dict) else item for item in items]


# msgspec's words for what a value must be -> reos's
_WANTED = {"int": "a whole number from 0 to 2^63", "int | null": "a whole number from 0 to "
           "2^63 or null", "float": "a number of 0 or more", "bool": "true or false",
           "str": "a string", "str | null": "a string or null",
           "bool | null": "true, false or null", "array": "a list of strings",
           "array | null": "a list or null",
           "object": "an object", "object | null": "an object or null",
           "bool | int | float | str | null": "a string, number, true/false or null"}
_TEXT_OBJECTS = ("labels", "unavailable")  # the fields that are dict[str, str]
_ERROR = regex(r"^(?P<said>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)


def _said(exc: ValidationError, origin: str, prefix: str, data: Any) -> UsageError:
    """msgspec's complaint in reos's words: the field's path as the file writes it
    (`users[0].uid`), what it must be, and what it is."""
    hint = "Create the file with: reos context --json > FILE"
    found = _ERROR.match(str(exc))
    said, path = (found["said"], found["path"] or "") if found else (str(exc), "")
    value, where = data, prefix
    for name, index in re.findall(r"\.(\w+)|\[(\d+|\.\.\.)\]", path):
        if name:
            where = f"{where}.{name}" if where else name
            value = value.get(name) if isinstance(value, dict) else None
        elif index == "...":  # a value of an object: the first one of the wrong kind
            bad = next(((k, v) for k, v in (value or {}).items()
                        if isinstance(v, dict | list) or (said.startswith("Expected `str`")
                                                          and not isinstance(v, str))),
                       None)
            if bad is not None:
                where, value = f"{where}.{_key(str(bad[0]))}", bad[1]
        else:
            where += f"[{index}]"
            value = value[int(index)] if isinstance(value, list) and \
                int(index) < len(value) else None
    where = where or "the snapshot"
    if said.startswith("Object missing required field"):
        name = said.rsplit("`", 2)[-2]
        return UsageError(f"{origin}: {where} has no \"{name}\".", hint)
    if " of length <= " in said:
        most = int(said.rsplit("<= ", 1)[1])
        return UsageError(f"{origin}: {where} has {len(value or []):,} items, more than the"
                          f" {most:,} any snapshot reos writes holds.", hint)
    if said.startswith("Invalid enum value"):
        return UsageError(f"{origin}: {where} must be \"ufw\" or \"firewalld\" or "
                          f"\"nftables\" or null, not {_short(value)}.", hint)
    expected = re.match(r"Expected `([^`]*)`", said)
    wanted = _WANTED.get(expected[1], expected[1]) if expected else said
    if wanted == "an object" and where.rsplit(".", 1)[-1] in _TEXT_OBJECTS:
        wanted = "an object of strings"
    return UsageError(f"{origin}: {where} must be {wanted}, not {_short(value)}.", hint)
