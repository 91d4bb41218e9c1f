"""Diagnoses: evidence first, then concrete steps for approval.

"Speed up my boot time" runs `systemd-analyze blame` (read-only), then proposes to
disable only units that are both slow and known to be safe to switch off on most
machines, each with the reason in words. Pure: it reads step results and the snapshot.
"""

from __future__ import annotations

from reos.model.plan import Plan
from reos.model.report import StepResult
from reos.model.request import Intent, Kind, Understood
from reos.planning.planner import PlanBuilder
from reos.words.answers.common import boot_blame
from reos.words.conversation import count

# Units that commonly slow boot and that most people can switch off, and why.
BOOT_CANDIDATES = {
    "NetworkManager-wait-online.service":
        "makes boot wait until the network is fully up; most desktops don't need that",
    "systemd-networkd-wait-online.service":
        "makes boot wait until the network is fully up; most machines don't need that",
    "snapd.service": "runs the snap store; not needed if you don't use snaps",
    "snapd.seeded.service": "prepares snaps at boot; not needed if you don't use snaps",
    "ModemManager.service": "manages mobile-broadband modems",
    "bluetooth.service": "only needed if you use Bluetooth devices",
    "cups-browsed.service": "searches the network for printers at every boot",
    "NetworkManager-dispatcher.service": "runs network hook scripts; rarely needed at boot",
}
MIN_SECONDS = 1.0


def boot_plan(request: str, results: list[StepResult], builder: PlanBuilder) -> Plan:
    slow = [(seconds, unit) for seconds, unit in boot_blame(results)
            if unit in BOOT_CANDIDATES and seconds >= MIN_SECONDS]
    enabled = {s.name for s in builder.snapshot.services or []
               if s.enabled in ("enabled", "enabled-runtime")}
    slow = [(seconds, unit) for seconds, unit in slow if unit in enabled]
    if not slow:
        return Plan(request, Kind.ACTION, source="template", said=[
            "Nothing I'd switch off safely stands out: the slow parts are things your "
            "system needs. I haven't changed anything."])
    intent = Intent(kind=Kind.ACTION, action="disable", resource="service",
                    targets=[unit for _s, unit in slow], plural=True,
                    reading=Understood("template"))
    found = "\n".join(f"  {n}. {unit} takes {seconds:.1f}s: {BOOT_CANDIDATES[unit]}"
                      for n, (seconds, unit) in enumerate(slow, start=1))
    saved = sum(seconds for seconds, _unit in slow)
    return builder.build(request, intent, lead=[
        f"Found {count(len(slow), 'thing')} slowing your boot:\n{found}\n"
        f"I can disable {'it' if len(slow) == 1 else 'these'} at boot (about "
        f"{saved:.0f}s saved; nothing running now is stopped, and undo turns "
        f"{'it' if len(slow) == 1 else 'them'} back on)."])
