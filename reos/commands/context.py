"""`reos context`: the live SystemSnapshot, as JSON or as a short summary.

Printing only; collecting is reos.system's. Names and images are cleaned of escape
sequences before they are padded into columns (say() cleans again, as everywhere).
"""

from __future__ import annotations

from reos.commands.output import emit_json, say
from reos.errors import EXIT_OK
from reos.text import clean


def run(*, as_json: bool = False) -> int:
    from reos.system.collectors import collect

    snap = collect()
    if as_json:
        emit_json(snap.to_dict())
        return EXIT_OK
    host = snap.host
    say(f"{host.get('hostname', '?')}: {host.get('distro_id', '?')} "
        f"{host.get('distro_version', '')}, kernel {host.get('kernel', '?')}")
    for name in ("containers", "services", "packages", "users", "groups", "processes",
                 "mounts", "block_devices", "interfaces", "listening", "timers"):
        items = getattr(snap, name)
        label = name.replace("_", " ")
        if items is None:
            say(f"  {label}: unknown ({snap.unavailable.get(name, 'not collected')})")
        else:
            say(f"  {label}: {len(items)}")
    wall = snap.firewall
    if wall is None:
        say(f"  firewall: unknown ({snap.unavailable.get('firewall', 'not collected')})")
    else:
        say(f"  firewall: {wall.get('backend') or 'none found'}"
            f"{', active' if wall.get('active') else ', inactive'}, "
            f"{len(wall.get('rules') or [])} rules")
    for c in snap.containers or []:
        say(f"    {clean(c.name):<30} {clean(c.state):<10} {clean(c.image)}")
    return EXIT_OK
