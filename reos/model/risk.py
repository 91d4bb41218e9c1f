"""RiskLevel: how much harm a command could do, from SAFE to CRITICAL.

The scale itself, with each level's name in words (`label`) and read back (`parse`): the
safety rules judge commands on it, a Step carries its level and a Plan the highest of its
steps'. Not responsible for judging anything (reos.safety does); imports nothing of reos.
"""

from __future__ import annotations

import enum


class RiskLevel(enum.IntEnum):
    SAFE = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> RiskLevel:
        return cls[text.upper()]
