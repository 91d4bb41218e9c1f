"""`reos context`: the live SystemSnapshot, as JSON or as a short summary.

Printing only; collecting is reos.system's. Names and images are cleaned of escape
sequences before they are padded into columns (say() cleans again, as everywhere).
With `--llm` (and only then: asking a server costs time) the model's status is added,
as reos doctor finds it (the "llm" key of the JSON; a few lines of the summary).
"""

from __future__ import annotations

from reos.commands.output import emit_json, say
from reos.errors import EXIT_OK
from reos.text import clean


def run(*, as_json: bool = False, llm: bool = False) -> int:
    from reos.system.collectors import collect

    report = None
    if llm:
        from reos.commands.common import load_settings
        from reos.commands.doctor import llm_report

        report = llm_report(load_settings())
    snap = collect()
    if as_json:
        data = snap.to_dict()
        if report is not None:
            data["llm"] = report
        emit_json(data)
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
    if report is not None:
        say(_llm_line(report))
    return EXIT_OK


def _llm_line(report: dict) -> str:
    if not report["enabled"]:
        return f"  model: off ({report['why']})"
    head = f"  model: {report['model']} at {report['host']}"
    if not report["reachable"]:
        return f"{head}: {report['problem']}"
    rtt = f", {report['rtt_ms']:.0f} ms" if report["rtt_ms"] is not None else ""
    models = ", ".join(report["models"]) or "none"
    have = "pulled" if report["has_model"] else "not pulled"
    return (f"{head}: Ollama {report['version'] or '?'}{rtt}; {have}; models: {models}"
            + (f"\n  {report['problem']}" if report["problem"] else ""))
