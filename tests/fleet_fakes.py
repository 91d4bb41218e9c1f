"""Stand-ins the fleet's unit tests share: the part of the engine `on_hosts.decide` uses
(a plan per snapshot, the settings), planning one step whatever the request."""

from __future__ import annotations

from reos.model.plan import Plan, Step
from reos.model.request import Kind
from reos.system.snapshot import SystemSnapshot


class OneStepEngine:
    class settings:  # noqa: N801
        class fleet:  # noqa: N801
            connect_timeout = 10

    def __init__(self, step: Step) -> None:
        self.step = step

    def plan_on(self, snapshot: SystemSnapshot, request: str) -> Plan:
        return Plan(request, Kind.ACTION, steps=[self.step])
