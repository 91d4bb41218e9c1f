"""Which machine this is, and whether a saved snapshot describes it.

A plan made from a snapshot of another host (`reos plan --context FILE`) must not run
here unnoticed: it names that host's containers, services and packages. The machine-id
(`/etc/machine-id`, unique per installation) decides; the hostname is compared only when
a snapshot carries no machine-id (older `reos.snapshot/1` files).
Not responsible for collecting anything else about the machine, or for refusing.
"""

from __future__ import annotations

import socket
from typing import Any

from reos.system.portable import machine_id


def other_host(host: dict[str, Any]) -> str | None:
    """Why a snapshot's `host` section is not this machine, or None when it is."""
    theirs_id = host.get("machine_id")
    theirs_name = host.get("hostname")
    mine_id, mine_name = machine_id(), socket.gethostname()
    if isinstance(theirs_id, str) and theirs_id and mine_id:
        if theirs_id == mine_id:
            return None
        return (f"the snapshot is of {_name(theirs_name)} (machine-id {theirs_id[:12]}…), "
                f"and this is {mine_name} (machine-id {mine_id[:12]}…)")
    if isinstance(theirs_name, str) and theirs_name:
        if theirs_name == mine_name:
            return None
        return f"the snapshot is of {_name(theirs_name)}, and this is {mine_name}"
    return "the snapshot does not say which machine it describes"


def _name(value: object) -> str:
    return str(value) if isinstance(value, str) and value else "another machine"
