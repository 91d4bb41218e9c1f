"""A short-lived cache of the live snapshot, dropped after every action.

Collecting takes a few hundred milliseconds; a chat session asks for the snapshot on
every request. Not responsible for collecting (it calls a loader it is given).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from reos.system.snapshot import SystemSnapshot


class SnapshotCache:
    def __init__(self, loader: Callable[[], SystemSnapshot], ttl_seconds: float = 10.0):
        self._loader = loader
        self._ttl = ttl_seconds
        self._value: SystemSnapshot | None = None
        self._at = 0.0
        self._lock = threading.Lock()

    def get(self) -> SystemSnapshot:
        with self._lock:
            if self._value is None or time.monotonic() - self._at > self._ttl:
                self._value = self._loader()
                self._at = time.monotonic()
            return self._value

    def invalidate(self) -> None:
        with self._lock:
            self._value = None
