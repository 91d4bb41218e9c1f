"""The names of hosts and groups an Ansible inventory file writes, read without Ansible, for
the first look of reos.understanding.host_words (`could_name_hosts`): whether a request's words
could name something of the inventory, before Ansible is imported to read it.

Only names, never variables: "web1 ansible_host=… ansible_ssh_private_key_file=/home/bob/
.ssh/id" gives web1, not home, bob or ssh, so "check the home folder size" or "restart ssh"
never waits for Ansible. An INI file gives its section names (groups, with ":children" and
":vars" cut off), the first word of each line of a host or children section (a host, or a
child group); a YAML file the keys at its top (groups) and the keys right under a "hosts"
or "children" key, read by indentation; JSON and TOML files the same, parsed. A file of a
kind this cannot tell, or that does not parse, gives every word it holds, as before: the
first look may say "could" more often, never less.

Not responsible for what the inventory means (reos.fleet.inventory reads it with Ansible,
which alone decides), nor for files beyond one inventory file (host_words.inventory_words walks
folders and bounds what is read).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from reos.patterns import regex

_WORD = regex(r"[a-z0-9_.\-]+")
# "key:" or "key: value", after an optional "- ", the key perhaps quoted
_YAML_KEY = regex(r"(?:-\s+)?(\"[^\"]*\"|'[^']*'|[^\s:#'\"][^:#]*?)\s*:(?:\s+(.*))?")
_COMMENT = regex(r"\s+#.*$")
# a range in a host's name, as Ansible writes it: kr-gw[01:06], node[a:f], web[1:9:2]
_RANGE = regex(r"\[([0-9]+|[a-z]):([0-9]+|[a-z])(?::([0-9]+))?\]")
RANGE_NAMES = 512  # names a range gives, at most (the first look needs no more)
_UNDER = {"hosts", "children"}  # the keys whose keys are names


def names_in(text: str, suffix: str) -> set[str]:
    """The host and group names written in an inventory file's text (lowercased), the file
    read as its suffix says (.yml, .yaml, .json, .toml; any other as INI; none, as it
    looks)."""
    suffix = suffix.lower()
    if suffix == ".json":
        return _parsed(text, json.loads)
    if suffix == ".toml":
        import tomllib

        return _parsed(text, tomllib.loads)
    if suffix in (".yml", ".yaml") or (suffix == "" and _looks_like_yaml(text)):
        return _yaml(text)
    return _ini(text)


def _looks_like_yaml(text: str) -> bool:
    """A file with no suffix, which Ansible reads as INI or else YAML: YAML when no line
    opens an INI section and some line is a key opening a mapping ("all:")."""
    lines = [_COMMENT.sub("", line).strip() for line in text.splitlines()]
    return not any(line.startswith("[") for line in lines) and any(
        line.endswith(":") and not line.startswith("#") for line in lines)


def _parsed(text: str, parse: Callable[[str], Any]) -> set[str]:
    try:
        data = parse(text)
    except ValueError:  # json's and tomllib's errors both are
        return set(_WORD.findall(text.lower()))
    names: set[str] = set()
    if isinstance(data, dict):
        for group, body in data.items():
            names.add(str(group).lower())
            _walk(body, names)
    return names


def _walk(group: object, names: set[str]) -> None:
    """A group's hosts and children, and theirs, in parsed JSON or TOML."""
    if not isinstance(group, dict):
        return
    for key in _UNDER:
        found = group.get(key)
        if isinstance(found, dict):
            names.update(str(name).lower() for name in found)
            if key == "children":
                for child in found.values():
                    _walk(child, names)
        elif isinstance(found, list):
            names.update(str(name).lower() for name in found)


def _ini(text: str) -> set[str]:
    names: set[str] = set()
    section = "hosts"  # lines before any section are ungrouped hosts
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            group, _, kind = line[1:-1].partition(":")
            names.add(group.strip().lower())
            section = kind or "hosts"
            continue
        if section != "vars":
            names.update(expanded(line.split()[0].lower()))
    return names


def expanded(name: str, most: int = RANGE_NAMES) -> list[str]:
    """The names a range in `name` stands for (kr-gw[01:06]: kr-gw01 … kr-gw06, zeros kept
    as written; node[a:c]: nodea … nodec), at most `most`, made one by one so a huge range
    ("[0:2000000]", or ranges nested three deep) costs no more than that; `name` itself
    when it holds no range, or one this cannot read."""
    found = _RANGE.search(name)
    if found is None:
        return [name]
    first, last, step = found[1], found[2], int(found[3] or 1)
    head, tail = name[:found.start()], name[found.end():]
    values: Iterator[str]
    if first.isdigit() and last.isdigit() and step > 0:
        width = len(first) if first.startswith("0") else 0
        values = (str(n).zfill(width) for n in range(int(first), int(last) + 1, step))
    elif first.isalpha() and last.isalpha() and step > 0:
        values = (chr(c) for c in range(ord(first), ord(last) + 1, step))
    else:
        return [name]
    names: list[str] = []
    for value in values:
        if len(names) >= most:
            break
        names += expanded(head + value + tail, most - len(names))
    return names or [name]


def _yaml(text: str) -> set[str]:
    """Keys at the top and right under "hosts" or "children", by indentation. A value
    written inline ("hosts: {web1: , web2: }") gives all its words."""
    names: set[str] = set()
    parents: list[tuple[int, str]] = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#") or stripped in ("---", "..."):
            continue
        # a range's colon is no key's end: "kr-gw[01:06]:" is the key kr-gw[01:06]
        found = _YAML_KEY.fullmatch(_RANGE.sub(lambda m: m[0].replace(":", "\0"),
                                               _COMMENT.sub("", stripped)))
        if found is None:
            continue
        indent = len(raw) - len(raw.lstrip())
        key = found[1].strip("'\"").lower().replace("\0", ":")
        while parents and parents[-1][0] >= indent:
            parents.pop()
        parent = parents[-1][1] if parents else None
        if parent is None or parent in _UNDER:
            names.update(expanded(key))
        value = (found[2] or "").strip()
        if value[:1] in ("{", "[") and (key in _UNDER or parent is None):
            names.update(_WORD.findall(value.lower()))
        parents.append((indent, key))
    return names
