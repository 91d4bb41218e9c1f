"""A module's layer from its path, for modules whose docstring names none.

The design notes' patterns: a path part containing rpc, server or handler is the rpc
layer; agent the agent layer; executor or runner the executor layer; db or storage the
storage layer; service the service layer. The module's own file name is looked at first,
then its packages from the innermost out, so `shop/storage/rpc_client.py` is rpc and
`shop/storage/models.py` is storage.

Not responsible for contracts (a contract's `[layers]` table wins over this) or for
reading docstrings (reos.layers.docstrings).
"""

from __future__ import annotations

import re

# A word in a docstring or a path part -> the layer type it names.
LAYER_WORDS: dict[str, str] = {
    "rpc": "rpc", "server": "rpc", "handler": "rpc", "handlers": "rpc",
    "agent": "agent", "agents": "agent", "orchestrator": "agent",
    "executor": "executor", "runner": "executor", "execution": "executor",
    "db": "storage", "storage": "storage", "database": "storage", "repository": "storage",
    "persistence": "storage", "store": "storage",
    "service": "service", "services": "service",
}

# Substrings of a path part, in the order they are tried (rpc before service: an
# "rpc_service.py" serves requests).
_PATH_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("rpc", re.compile(r"rpc|server|handler")),
    ("agent", re.compile(r"agent")),
    ("executor", re.compile(r"executor|runner")),
    ("storage", re.compile(r"(?:^|_)db(?:_|$)|storage")),
    ("service", re.compile(r"service")),
)

LAYER_TYPES = tuple(layer for layer, _ in _PATH_PATTERNS)


def layer_from_path(module: str) -> str | None:
    """The layer type a dotted module name's parts suggest, innermost first, or None."""
    for part in reversed(module.lower().split(".")):
        for layer, pattern in _PATH_PATTERNS:
            if pattern.search(part):
                return layer
    return None
