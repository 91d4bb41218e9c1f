"""Desktop answers in words (templates/desktop.toml): the wifi networks in range and the
links NetworkManager manages (`nmcli -t`), the radio switches (`rfkill -J`), printers and
their queue (`lpstat -p`, `lpstat -o`), sound outputs and inputs (`wpctl status`), flatpak
apps, what holds off sleep (`systemd-inhibit --list`), temperatures and fans
(`sensors -j`) and firmware updates (`fwupdmgr get-updates --json`).

Everything these tools print is untrusted (network names, printer reasons and program
names are chosen by others): it is cleaned of terminal escapes and cut to a length before
it is shown. A tool that is missing or cannot reach its daemon is said so plainly, which
is why every renderer here is tolerant of a failed step. Not responsible for running
anything.
"""

from __future__ import annotations

import json
from typing import Any

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice

_SHOWN = 20


def _text(value: object, limit: int = 60) -> str:
    return clean(str(value)).strip()[:limit]


def _failed(result: StepResult | None, what: str, tool: str) -> str:
    reason = clean((result.stderr if result else "") or "").strip().splitlines()
    said = f" ({reason[0][:120]})" if reason else ""
    return f"I couldn't read {what}: {tool} did not answer{said}."


def _terse_fields(line: str) -> list[str]:
    """One line of `nmcli -t`: fields split at ':' where a field's own ':' is '\\:'."""
    fields, field, escaped = [], [], False
    for char in line:
        if escaped:
            field.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == ":":
            fields.append("".join(field))
            field = []
        else:
            field.append(char)
    fields.append("".join(field))
    return fields


def wifi_networks(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    result = results[0] if results else None
    if result is None or not result.ok:
        return _failed(result, "the wifi networks", "nmcli")
    seen: dict[str, tuple[int, bool, str]] = {}
    for line in result.stdout.splitlines():
        fields = _terse_fields(line)
        if len(fields) < 4:
            continue
        in_use, ssid, signal, security = fields[0].strip() == "*", _text(fields[1]), \
            fields[2], _text(fields[3], 30)
        strength = int(signal) if signal.isdigit() else 0
        name = ssid or "(hidden network)"
        best = seen.get(name)
        if best is None or strength > best[0] or in_use:
            seen[name] = (strength, in_use or bool(best and best[1]), security)
    if not seen:
        return "I see no wifi network in range (or the wifi is switched off)."
    ranked = sorted(seen.items(), key=lambda item: (-item[1][1], -item[1][0]))
    shown = ranked[: 5 if voice.brief else _SHOWN]
    lines = [f"  {'*' if used else ' '} {name}: signal {strength}%"
             f"{', ' + security if security else ', open (no password)'}"
             for name, (strength, used, security) in shown]
    head = f"{len(seen)} wifi network{'s' if len(seen) != 1 else ''} in range"
    used = [name for name, (_s, in_use, _x) in ranked if in_use]
    head += f"; connected to {used[0]}:" if used else "; not connected to any:"
    return "\n".join([head, *lines])


def nm_devices(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    result = results[0] if results else None
    if result is None or not result.ok:
        return _failed(result, "NetworkManager's links", "nmcli")
    lines = []
    for line in result.stdout.splitlines():
        fields = _terse_fields(line)
        if len(fields) < 4 or fields[1] in ("loopback", "bridge", "tun") and not fields[3]:
            continue
        device, kind, state, connection = (_text(f, 40) for f in fields[:4])
        if kind in ("loopback",):
            continue
        where = f" to {connection}" if connection and connection != "--" else ""
        lines.append(f"  {device} ({kind}): {state}{where}")
    if not lines:
        return "NetworkManager manages no network link here."
    up = sum(1 for line in lines if ": connected" in line)
    head = (f"{up} of {len(lines)} link{'s' if len(lines) != 1 else ''} connected:" if up
            else "No link is connected:")
    return "\n".join([head, *lines[:_SHOWN]])


def radios(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    result = results[0] if results else None
    if result is None or not result.ok:
        return _failed(result, "the radio switches", "rfkill")
    try:
        data = json.loads(result.stdout or "{}")
    except json.JSONDecodeError:
        return "rfkill's answer could not be read."
    rows = [row for value in (data.values() if isinstance(data, dict) else [])
            if isinstance(value, list) for row in value if isinstance(row, dict)]
    if not rows:
        return "This machine has no bluetooth or wifi radio that rfkill can see."
    lines = []
    for row in rows[:_SHOWN]:
        kind = {"wlan": "wifi", "bluetooth": "bluetooth"}.get(str(row.get("type")),
                                                               _text(row.get("type"), 20))
        device = _text(row.get("device"), 30)
        if row.get("hard") == "blocked":
            state = "off by its hardware switch (a key or switch on the machine)"
        elif row.get("soft") == "blocked":
            state = "off (blocked in software: `rfkill unblock` turns it on)"
        else:
            state = "on"
        lines.append(f"{kind.capitalize()} ({device}) is {state}.")
    return "\n".join(lines)


# "printer P is idle.  enabled since …", "printer P now printing P-7.  enabled since …",
# "printer P disabled since … -" with CUPS's reason on the next, indented line
_PRINTER = regex(r"^printer (\S+) (?:(?:is |now )(.*?)\.\s+)?(enabled|disabled) since")


def print_queue(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    printers, jobs = (results + [None, None])[:2]
    if printers is None or not printers.ok and not printers.stdout:
        return _failed(printers, "the printers", "lpstat (CUPS)")
    lines, reason_for = [], ""
    for raw in printers.stdout.splitlines():
        line = clean(raw)
        found = _PRINTER.match(line)
        if found:
            name, doing, enabled = found.groups()
            state = "paused (disabled)" if enabled == "disabled" else _text(doing or "", 60)
            lines.append(f"{_text(name, 40)}: {state}")
            reason_for = name
        elif line.startswith((" ", "\t")) and reason_for and lines and line.strip():
            lines[-1] += f" — {_text(line.strip(), 100)}"
            reason_for = ""
    if not lines:
        lines.append("No printer is set up in CUPS.")
    waiting = [clean(line).split()[:2] for line in (jobs.stdout if jobs else "").splitlines()
               if line.strip()]
    if jobs is not None and jobs.ok or waiting:
        if waiting:
            lines.append(f"{len(waiting)} job{'s' if len(waiting) != 1 else ''} waiting: "
                         + ", ".join(f"{_text(w[0], 40)} ({_text(w[1], 20)})"
                                     for w in waiting[:_SHOWN] if len(w) == 2))
        else:
            lines.append("No job is waiting.")
    return "\n".join(lines)


_WP_ENTRY = regex(r"^[\s│├└─]*(\*)?\s*(\d+)\.\s+(.*?)\s*(?:\[vol:\s*([0-9.]+)(\s+MUTED)?\])?$")


def audio(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    result = results[0] if results else None
    if result is None or not result.ok:
        return _failed(result, "the sound devices", "wpctl (PipeWire)")
    section, part = "", ""
    found: dict[str, list[tuple[bool, str, str | None, bool]]] = {"Sinks": [], "Sources": []}
    for raw in result.stdout.splitlines():
        line = clean(raw).rstrip()
        if line and not line[0].isspace() and line[0] not in "│├└":
            section = line.strip()
            continue
        title = line.strip(" │├└─")
        if title.endswith(":"):
            part = title[:-1]
            continue
        if section != "Audio" or part not in found:
            continue
        entry = _WP_ENTRY.match(line)
        if entry:
            default, _id, name, volume, muted = entry.groups()
            found[part].append((bool(default), _text(name, 60), volume, bool(muted)))
    if not found["Sinks"] and not found["Sources"]:
        return "PipeWire reports no sound output or input."

    def said(entries: list[tuple[bool, str, str | None, bool]], what: str) -> str:
        if not entries:
            return f"No sound {what}."
        default = next((e for e in entries if e[0]), None)
        others = [e[1] for e in entries if e is not default]
        text = ""
        if default:
            volume = (f" at {round(float(default[2]) * 100)}% volume" if default[2] else "")
            text = (f"The default {what} is {default[1]}{volume}"
                    f"{' (muted)' if default[3] else ''}.")
        if others:
            text += f" Also there: {', '.join(others[:8])}."
        return text.strip()

    return "\n".join([said(found["Sinks"], "output"), said(found["Sources"], "input")])


def flatpaks(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    result = results[0] if results else None
    if result is None or not result.ok:
        return _failed(result, "the flatpak apps", "flatpak")
    apps = [[_text(cell, 60) for cell in line.split("\t")]
            for line in result.stdout.splitlines() if line.strip()]
    if not apps:
        return "No flatpak app is installed."
    shown = apps[: 8 if voice.brief else 40]
    lines = [f"  {app[0]}" + (f" {app[1]}" if len(app) > 1 and app[1] else "")
             + (f" (from {app[2]})" if len(app) > 2 and app[2] else "") for app in shown]
    more = f"\n  … and {len(apps) - len(shown)} more" if len(apps) > len(shown) else ""
    return f"{len(apps)} flatpak app{'s' if len(apps) != 1 else ''}:\n" + "\n".join(lines) + more


def inhibitors(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    result = results[0] if results else None
    if result is None or not result.ok:
        return _failed(result, "what holds off sleep", "systemd-inhibit")
    rows = [" ".join(clean(line).split())[:160] for line in result.stdout.splitlines()
            if line.strip() and "inhibitors listed" not in line]
    if not rows:
        return "Nothing is holding off sleep, suspend or shutdown right now."
    blocking = [row for row in rows if row.endswith(" block")]
    head = (f"{len(rows)} inhibitor{'s' if len(rows) != 1 else ''} held"
            + (f", {len(blocking)} of them blocking (the others only delay):"
               if blocking else " (each only delays, none blocks):"))
    return "\n".join([head, *(f"  {row}" for row in rows[:_SHOWN])])


def _readings(chip: dict[str, Any]) -> list[tuple[str, str, float]]:
    found = []
    for label, values in chip.items():
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            if isinstance(value, (int, float)) and key.endswith("_input") and (
                    key.startswith(("temp", "fan"))):
                found.append((_text(label, 40), key[:3], float(value)))
    return found


def temperatures(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    result = results[0] if results else None
    if result is None or not result.ok:
        return _failed(result, "the sensors", "sensors (lm-sensors; install it if missing)")
    try:
        data = json.loads(result.stdout or "{}")
    except json.JSONDecodeError:
        return "The sensors' answer could not be read."
    temps: list[tuple[float, str]] = []
    fans: list[tuple[float, str]] = []
    for chip_name, chip in (data.items() if isinstance(data, dict) else []):
        if not isinstance(chip, dict):
            continue
        for label, kind, value in _readings(chip):
            where = f"{label} ({_text(chip_name, 30)})"
            (temps if kind == "tem" else fans).append((value, where))
    if not temps and not fans:
        return "No temperature or fan sensor reports here (a virtual machine has none)."
    temps.sort(reverse=True)
    lines = []
    if temps:
        hottest = temps[0]
        lines.append(f"The hottest sensor is {hottest[1]} at {hottest[0]:.0f} °C"
                     + (" — hot; a fan and load check is worth it." if hottest[0] >= 85
                        else "."))
        lines += [f"  {value:5.0f} °C  {where}" for value, where in
                  temps[1: 4 if voice.brief else 12]]
    for value, where in fans[:6]:
        lines.append(f"  fan {where}: {value:.0f} rpm")
    return "\n".join(lines)


def firmware(results: list[StepResult], _params: dict[str, str], _voice: Voice) -> str:
    result = results[0] if results else None
    if result is None:
        return _failed(result, "the firmware updates", "fwupdmgr")
    try:
        data = json.loads(result.stdout or "{}")
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        said = clean(result.stdout or result.stderr or "").strip().splitlines()
        if said and ("no updat" in said[0].lower() or "no available" in said[0].lower()):
            return "No firmware update is offered for this machine's devices."
        return _failed(result, "the firmware updates", "fwupdmgr")
    lines = []
    devices = data.get("Devices")
    for device in devices[:_SHOWN] if isinstance(devices, list) else []:
        if not isinstance(device, dict):
            continue
        offered = device.get("Releases")
        releases = [r for r in offered if isinstance(r, dict)] if isinstance(offered, list) else []
        newest = releases[0].get("Version") if releases else None
        if newest:
            lines.append(f"  {_text(device.get('Name'))}: {_text(device.get('Version'), 30)}"
                         f" → {_text(newest, 30)}")
    if not lines:
        return "No firmware update is offered for this machine's devices."
    return "\n".join([f"Firmware updates offered ({len(lines)}), installed with "
                      "`fwupdmgr update` on mains power:", *lines])


ANSWERS = {"wifi_networks": wifi_networks, "nm_devices": nm_devices, "radios": radios,
           "print_queue": print_queue, "audio": audio, "flatpaks": flatpaks,
           "inhibitors": inhibitors, "temperatures": temperatures, "firmware": firmware}
TOLERANT = set(ANSWERS)
