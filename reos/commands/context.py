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
    for name, items in (("containers", snap.containers), ("services", snap.services),
                        ("packages", snap.packages)):
        if items is None:
            say(f"  {name}: unknown ({snap.unavailable.get(name, 'not collected')})")
        else:
            say(f"  {name}: {len(items)}")
    for c in snap.containers or []:
        say(f"    {clean(c.name):<30} {clean(c.state):<10} {clean(c.image)}")
    return EXIT_OK
