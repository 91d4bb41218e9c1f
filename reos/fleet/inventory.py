"""The person's Ansible inventory, read by ansible-core's own code, and the hosts an
Ansible pattern chooses from it.

Where the inventory is (`find_source`, the first found wins): `reos hosts -i PATH`, the
settings' `[fleet] inventory`, the ANSIBLE_INVENTORY environment variable (a comma-
separated list, as Ansible reads it). `select` reads it with Ansible's DataLoader and
InventoryManager, chooses hosts with `InventoryManager.get_hosts(pattern)` after
`subset(limit)` (`web*`, `all:!db1`, `webservers:&prod`, `~web[0-9]+`, `@file` in a
limit), and reads each host's variables as `ansible-inventory --host` does (Ansible's
VariableManager: inventory variables, group_vars and host_vars, in Ansible's order).

Stricter than Ansible, which only warns: an inventory that does not parse is an error
naming the file and, when Ansible gives it, the line (a UsageError, exit 2); so is a file
that is not there; a pattern that matches no host is an error naming the pattern and the
inventory's groups (exit 4).

What reos decides about Ansible itself (`_ansible`, once per process), because importing
and running it reads and writes files:
- only static inventories are read, by the ini, yaml and toml plugins: an inventory script
  (the `script` plugin runs it) or a plugin configuration (`auto` loads the plugin it
  names, often one that calls a cloud's API) is refused, so reading an inventory never
  runs code.
- the ansible.cfg read is ANSIBLE_CONFIG when you set it, else ~/.ansible.cfg, else
  /etc/ansible/ansible.cfg, else none; never one in the current folder, which Ansible
  itself would read first: a cloned repository's ansible.cfg could name inventory and
  vars plugin folders, whose plugins are code.
- Ansible's controller temporary folder is made in the system's temporary folder and
  removed when reos exits (Ansible's own atexit), not in ~/.ansible/tmp, unless
  ANSIBLE_LOCAL_TEMP names one; importing Ansible never runs `cowsay -l`
  (ANSIBLE_NOCOWS). Nothing else is written.
- what Ansible prints (its warnings carry why a file did not parse) is caught, never
  shown: reos says it in its own words.

Values are kept as written: a template ("{{ … }}") is never rendered, since rendering
one can run lookups. Not responsible for reaching the hosts, their snapshots, plans or
anything run on them (later slices), nor for printing (reos/commands/hosts.py).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, to_builtins

from reos.errors import EXIT_NOTHING, ReosError, UsageError, plainly
from reos.patterns import regex

if TYPE_CHECKING:
    from types import SimpleNamespace

    from reos.settings import Settings

STATIC_PLUGINS = ["ini", "yaml", "toml"]
# The connection variables reos will need, each with the PlayContext field Ansible fills
# from it; ansible.constants.MAGIC_VARIABLE_MAPPING lists each field's variables, and the
# first one a host has wins (ansible_ssh_host before ansible_host), as in PlayContext.
CONNECTION = {"ansible_host": "remote_addr", "ansible_port": "port",
              "ansible_user": "remote_user"}
HINT = ("reos reads INI, YAML and TOML inventories (a file or a folder of them), never "
        "inventory scripts or plugins; `ansible-inventory -i FILE --list` shows Ansible's "
        "own view.")
VAULT_HINT = ("reos never asks for a vault password: give Ansible a vault password file "
              "(vault_password_file in ansible.cfg, or ANSIBLE_VAULT_PASSWORD_FILE) and reos "
              "uses it too.")
GROUPS_SAID = 20  # the groups a "no host matches" error names, at most


class Source(Struct, frozen=True):
    """Where the inventory is, and what said so ("--inventory", "[fleet] inventory in
    FILE", "ANSIBLE_INVENTORY"): both are said when it cannot be read."""

    paths: tuple[Path, ...]
    given_by: str

    def names(self) -> str:
        return ", ".join(str(path) for path in self.paths)


class Host(Struct, frozen=True):
    """One host as the inventory says it, with what reos will need to reach it, as plain
    text as written (None when the inventory does not say: Ansible then connects to the
    name, on ssh's port, as the local user)."""

    name: str
    groups: tuple[str, ...]  # its groups, sorted, without "all" (every host is in it)
    ansible_host: str | None = None
    ansible_port: str | None = None
    ansible_user: str | None = None
    # those of the three that are vault-encrypted with no vault password here to open them
    sealed: tuple[str, ...] = ()
    # those that are vault-encrypted (opened or not): never shown, as Ansible shows them
    vaulted: tuple[str, ...] = ()


class Inventory(Struct, frozen=True):
    """The hosts a pattern chose from an inventory, in Ansible's order, and each
    group holding any of them with the chosen ones among its hosts (a child group's hosts
    are its parent's too, as in Ansible's `groups` variable); "all" is left out."""

    sources: tuple[str, ...]
    pattern: str
    limit: str | None
    hosts: tuple[Host, ...]
    groups: dict[str, tuple[str, ...]]

    def to_dict(self) -> dict[str, Any]:
        return to_builtins(self)


def find_source(given: Path | None, settings: Settings,
                environ: Mapping[str, str] = os.environ) -> Source | None:
    """The inventory to read: `given` (-i/--inventory), else `[fleet] inventory` (a
    relative path is taken from the settings file's folder, as Ansible takes one from its
    ansible.cfg's), else ANSIBLE_INVENTORY; None when nothing names one."""
    if given is not None:
        return Source((given.expanduser(),), "--inventory")
    configured = settings.fleet.inventory
    if configured:
        path = Path(configured).expanduser()
        if not path.is_absolute() and settings.path is not None:
            path = settings.path.parent / path
        return Source((path,), f"[fleet] inventory in {settings.path}")
    listed = [word.strip() for word in environ.get("ANSIBLE_INVENTORY", "").split(",")]
    if any(listed):
        return Source(tuple(Path(word).expanduser() for word in listed if word),
                      "ANSIBLE_INVENTORY")
    return None


def select(source: Source, pattern: str = "all", limit: str | None = None) -> Inventory:
    """The hosts `pattern` chooses from the inventory, within `limit` (both Ansible host
    patterns). Raises UsageError for an inventory that is not there or does not parse (or
    a pattern Ansible cannot read), ReosError (exit 4) when no host is chosen."""
    _check_present(source)
    ansible = _ansible()
    with _quiet(ansible) as caught:
        try:
            loader = ansible.DataLoader()
            loader.set_vault_secrets(ansible.vault_secrets)
            manager = ansible.InventoryManager(
                loader=loader, sources=[str(path) for path in source.paths])
        except ansible.AnsibleError as exc:
            raise _unparsed(ansible, exc, caught.get_warnings(), source) from None
        except Exception as exc:  # noqa: BLE001 - Ansible's own failure, said in words
            raise ReosError(plainly(exc, f"Reading the inventory {source.names()}")) from None
        chosen = _choose(ansible, manager, pattern, limit, source)
        try:
            variables = ansible.VariableManager(loader=loader, inventory=manager)
            hosts = tuple(
                _host(ansible, host,
                      variables.get_vars(host=host, include_hostvars=False, stage="all"))
                for host in chosen)
        except ansible.AnsibleError as exc:  # a group_vars or host_vars file
            raise _unparsed(ansible, exc, [], source) from None
        except Exception as exc:  # noqa: BLE001
            raise ReosError(plainly(exc, f"Reading the inventory {source.names()}")) from None
        names = {host.name for host in hosts}
        groups = {str(group): tuple(str(m) for m in members if str(m) in names)
                  for group, members in manager.get_groups_dict().items() if group != "all"}
    return Inventory(sources=tuple(str(path) for path in source.paths), pattern=pattern,
                     limit=limit, hosts=hosts,
                     groups={name: members for name, members in sorted(groups.items())
                             if members})


SSH_PORT = 22  # the port Ansible's ssh connects to when the inventory gives none


def ssh_ports(source: Source, names: list[str]) -> dict[str, int | None]:
    """The port Ansible connects to on each of `names` as the inventory says it
    (ansible_port, read by `select`; 22 when it gives none), or None where that is not
    known: the inventory cannot be read, the host is not in it, or the value is no port
    (a template is never rendered). A firewall change there must never cut it."""
    try:
        hosts = {host.name: host for host in select(source, "all").hosts}
    except ReosError:
        return dict.fromkeys(names)
    found: dict[str, int | None] = {}
    for name in names:
        host = hosts.get(name)
        port = host.ansible_port if host is not None and not host.sealed else "-"
        if port is None:
            found[name] = SSH_PORT
        elif port.isascii() and port.isdigit() and 1 <= int(port) <= 65535:
            found[name] = int(port)
        else:
            found[name] = None
    return found


# -- the hosts a pattern chooses ----------------------------------------------------------
def _choose(ansible: SimpleNamespace, manager: Any, pattern: str, limit: str | None,
            source: Source) -> list[Any]:
    if not manager.hosts:
        raise ReosError(f"The inventory {source.names()} holds no hosts.",
                        "Add hosts to it, or give another one with -i/--inventory.",
                        exit_code=EXIT_NOTHING)
    within = f" within --limit {limit!r}" if limit is not None else ""
    try:
        manager.subset(limit)
        chosen = manager.get_hosts(pattern)
    except ansible.AnsibleError as exc:
        raise UsageError(f"Ansible cannot use the host pattern {pattern!r}{within}: "
                         f"{_failure(ansible.event_of(exc)).reason}") from None
    if chosen:
        return list(chosen)
    groups = sorted(name for name, group in manager.groups.items()
                    if name != "all" and group.get_hosts())
    said = ", ".join(groups[:GROUPS_SAID]) + (
        f" and {len(groups) - GROUPS_SAID} more" if len(groups) > GROUPS_SAID else "")
    raise ReosError(f"No host in {source.names()} matches {pattern!r}{within}.",
                    f"Its groups: {said}." if groups else "It has no groups.",
                    exit_code=EXIT_NOTHING)


def _host(ansible: SimpleNamespace, host: Any, variables: Mapping[str, Any]) -> Host:
    said: dict[str, str | None] = {}
    sealed, vaulted = [], []
    for name, field in CONNECTION.items():
        found = next((variables[v] for v in ansible.MAGIC_VARIABLE_MAPPING[field]
                      if v in variables), None)
        if isinstance(found, ansible.EncryptedString):
            vaulted.append(name)
            try:
                found = str(found)  # decrypted with the vault secrets Ansible was given
            except ansible.AnsibleError:
                sealed.append(name)
                found = None
        said[name] = _plain(found)
    groups = tuple(sorted(str(g.name) for g in host.get_groups() if g.name != "all"))
    return Host(name=str(host.name), groups=groups, sealed=tuple(sealed),
                vaulted=tuple(vaulted), **said)


def _plain(value: Any) -> str | None:
    """A variable's value as plain text (Ansible's values are tagged str and int
    subclasses); a value that is no text or number (a list, a table, a boolean) is none."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    return str(value)


# -- what went wrong, in words ----------------------------------------------------------
class _Failure(Struct, frozen=True):
    plugin: str | None
    path: str | None
    line: int | None
    reason: str


# Ansible's words for where a failure comes from: "Origin: /path/file.yml:4:11", or the
# plugin and its source, "Origin: <inventory plugin 'yaml' with source '/path/f.yml'>"
_ORIGIN = regex(r"Origin: (?P<path>[^<].*?)(?::(?P<line>\d+)(?::\d+)?)?")
_PLUGIN_SOURCE = regex(r"Origin: <inventory plugin '(?P<plugin>[\w.]+)' with source "
                       r"'(?P<path>.*)'>")
_FAILED_WITH = regex(r"Failed to parse inventory with '(?P<plugin>[\w.]+)' plugin")


def _failure(event: Any, plugin: str | None = None) -> _Failure:
    """Where and why, from an Ansible event and the events it chains to (each a cause of
    the one before): the file and line of the first event that names a line (its message
    is the reason), else of the first that names a file (the last message is the reason).
    """
    path: str | None = None
    line: int | None = None
    reason: str | None = None
    last = event.msg
    while event is not None:
        where = (event.formatted_source_context or "").split("\n", 1)[0]
        if found := _ORIGIN.fullmatch(where):
            if found["line"] and line is None:
                path, line, reason = found["path"], int(found["line"]), event.msg
            elif path is None:
                path = found["path"]
        elif (named := _PLUGIN_SOURCE.fullmatch(where)) and path is None:
            path, plugin = named["path"], plugin or named["plugin"]
        last = event.msg
        event = event.chain.event if event.chain else None
    text = " ".join(str(reason or last).split("\n", 1)[0].split())
    return _Failure(plugin, path, line, text)


def _format_of(path: str | None) -> str:
    """The plugin Ansible reads a file of this name with (its yaml plugin takes .json)."""
    suffix = Path(path or "").suffix.lower()
    return {".yml": "yaml", ".yaml": "yaml", ".json": "yaml", ".toml": "toml"}.get(suffix,
                                                                                  "ini")


def _unparsed(ansible: SimpleNamespace, exc: Exception, warnings: list[Any],
              source: Source) -> UsageError:
    """The error for an inventory Ansible could not read. Every plugin that tried says why
    in a warning; the one for the file's kind (YAML for .yml…), or one naming a line, is
    the one said."""
    failures = []
    for warning in warnings:
        if tried := _FAILED_WITH.match(warning.event.msg):
            failures.append(_failure(warning.event, tried["plugin"]))
    if failures:
        failure = min(failures, key=lambda f: (f.plugin != _format_of(f.path), f.line is None))
    else:
        failure = _failure(ansible.event_of(exc))
    where = failure.path or source.names()
    if failure.line:
        where = f"{where}:{failure.line}"
    whole = failure.path is None or os.path.abspath(failure.path) in {
        os.path.abspath(path) for path in source.paths}
    what = "this inventory" if whole else f"this file of the inventory {source.names()}"
    read_as = f" as {failure.plugin.upper()}" if failure.plugin in STATIC_PLUGINS else ""
    hint = VAULT_HINT if "vault" in failure.reason.lower() else HINT
    if source.given_by != "--inventory":
        hint = f"The inventory was given by {source.given_by}. {hint}"
    return UsageError(f"{where}: Ansible could not read {what}{read_as}: {failure.reason}",
                      hint)


def _check_present(source: Source) -> None:
    for path in source.paths:
        try:
            if path.is_file() or path.is_dir():
                continue
            problem = ("is not a file or a folder" if path.exists()
                       else "does not exist")
        except OSError as exc:
            problem = f"cannot be read ({exc.strerror or exc})"
        raise UsageError(f"The inventory {path} {problem} (given by {source.given_by}).",
                         "Give your Ansible inventory's path: reos hosts -i FILE.")


# -- Ansible, imported the way reos wants it ----------------------------------------------
EMPTY_CONFIG = Path(__file__).with_name("ansible.cfg")  # reos's own: comments only


def config_file() -> str:
    """The ansible.cfg Ansible would find without ANSIBLE_CONFIG, minus the current
    folder's: ~/.ansible.cfg, /etc/ansible/ansible.cfg, else reos's empty one (Ansible
    would look in the current folder if it were given none, and reads only files named
    .cfg or .ini)."""
    for candidate in (Path("~/.ansible.cfg").expanduser(), Path("/etc/ansible/ansible.cfg")):
        if candidate.is_file() and os.access(candidate, os.R_OK):
            return str(candidate)
    return str(EMPTY_CONFIG)


@functools.cache
def _ansible() -> SimpleNamespace:
    """ansible-core's pieces reos uses, imported once: the environment below is set only
    while Ansible reads its configuration (at import) and put back after; what it prints
    then is dropped. Only static inventories are read, and a file no plugin can read is
    an error rather than a warning."""
    import io
    import tempfile
    from types import SimpleNamespace

    chosen = {"ANSIBLE_CONFIG": config_file, "ANSIBLE_LOCAL_TEMP": tempfile.gettempdir,
              "ANSIBLE_NOCOWS": lambda: "1"}
    given = {name: make() for name, make in chosen.items() if name not in os.environ}
    os.environ.update(given)
    try:
        sink = io.StringIO()
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            from ansible import constants
            from ansible._internal._display_utils import DeferredWarningContext
            from ansible._internal._errors._error_factory import ControllerEventFactory
            from ansible.errors import AnsibleError
            from ansible.inventory.manager import InventoryManager
            from ansible.parsing.dataloader import DataLoader
            from ansible.vars.manager import VariableManager
    except ImportError as exc:  # a single-machine install: Ansible is the fleet's extra
        raise ReosError(f"The fleet needs ansible-core 2.19, which is not installed "
                        f"({exc.name or 'ansible'} is missing).",
                        "Install it with: pip install 'reos[fleet]'") from None
    except Exception as exc:  # noqa: BLE001 - an ansible.cfg it cannot read, most often
        said = " ".join(str(exc).split("\n", 1)[0].split())
        raise ReosError(f"Ansible could not start: {said}",
                        f"Its configuration was {given.get('ANSIBLE_CONFIG') or 'ANSIBLE_CONFIG'}"
                        ".") from None
    finally:
        for name in given:
            os.environ.pop(name, None)
    constants.INVENTORY_ENABLED = list(STATIC_PLUGINS)
    constants.INVENTORY_UNPARSED_IS_FAILED = True  # no source parsed: an error
    constants.INVENTORY_ANY_UNPARSED_IS_FAILED = True  # one source not parsed: an error

    def event_of(exc: BaseException) -> Any:
        return ControllerEventFactory.from_exception(exc, False)

    from ansible.parsing.vault import EncryptedString, VaultSecretsContext

    secrets = _vault_secrets(constants, DataLoader(), AnsibleError, event_of)
    if VaultSecretsContext.current(optional=True) is None:  # once per process, as Ansible
        VaultSecretsContext.initialize(VaultSecretsContext(secrets))
    return SimpleNamespace(
        AnsibleError=AnsibleError, DataLoader=DataLoader, InventoryManager=InventoryManager,
        VariableManager=VariableManager, DeferredWarningContext=DeferredWarningContext,
        MAGIC_VARIABLE_MAPPING=constants.MAGIC_VARIABLE_MAPPING, event_of=event_of,
        EncryptedString=EncryptedString, vault_secrets=secrets)


def _vault_secrets(constants: Any, loader: Any, error: type[Exception],
                   event_of: Callable[[BaseException], Any]) -> list[tuple[str, Any]]:
    """The vault passwords Ansible is configured with, as ansible-playbook loads them:
    each of vault_identity_list ("id@file") and vault_password_file. One that asks
    ("prompt") is left out, reos never asks for a vault password; so is a script whose
    output is the password (it may ask on the terminal, or hang): Ansible's own runs run
    it, and what it opens stays sealed for reos's reading. A file that cannot be used is
    an error."""
    from ansible.parsing.vault import get_file_vault_secret

    slugs = [str(slug) for slug in constants.DEFAULT_VAULT_IDENTITY_LIST or []]
    if constants.DEFAULT_VAULT_PASSWORD_FILE:
        slugs.append(f"{constants.DEFAULT_VAULT_IDENTITY}@"
                     f"{constants.DEFAULT_VAULT_PASSWORD_FILE}")
    secrets = []
    for slug in slugs:
        name, _, where = slug.partition("@") if "@" in slug else ("", "", slug)
        if where in ("prompt", "prompt_ask_vault_pass"):
            continue
        path = Path(os.path.expandvars(where)).expanduser()  # as Ansible resolves it
        if path.is_file() and os.access(path, os.X_OK):
            continue  # a script: run by Ansible's own runs, never inside reos (it may ask)
        try:
            secret = get_file_vault_secret(filename=where, loader=loader,
                                           vault_id=name or constants.DEFAULT_VAULT_IDENTITY)
            secret.load()
        except error as exc:
            raise UsageError(f"Ansible's vault password file {where} cannot be used: "
                             f"{_failure(event_of(exc)).reason}",
                             "Fix vault_password_file in ansible.cfg, or "
                             "ANSIBLE_VAULT_PASSWORD_FILE / ANSIBLE_VAULT_IDENTITY_LIST.",
                             ) from None
        secrets.append((name or constants.DEFAULT_VAULT_IDENTITY, secret))
    return secrets


@contextlib.contextmanager
def _quiet(ansible: SimpleNamespace) -> Iterator[Any]:
    """Ansible's warnings kept (the returned context's get_warnings()), and whatever else
    it would print dropped."""
    import io

    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            ansible.DeferredWarningContext(variables={}) as caught:
        yield caught
