"""The desktop side (templates/desktop.toml): wifi networks, NetworkManager's links, the
radio switches, printers and their queue, sound devices, flatpak apps, sleep inhibitors,
temperatures and firmware updates — what each request plans, that every query is proven
read-only by the grammar (so it runs unasked), that the two changes ask, and what each
answer says from the tool's output.

The outputs below are in the formats the tools print (nmcli 1.42 terse mode, util-linux
2.38 rfkill -J, CUPS 2.4 lpstat, WirePlumber 0.4 wpctl status, flatpak 1.14 columns,
lm-sensors 3.6 -j, fwupd 1.8 --json), including hostile text from others (a network
name or printer reason with a terminal escape), which must reach the person cleaned.
The bed has no NetworkManager, CUPS, PipeWire or sensors to run against.
"""

from __future__ import annotations

import json

import pytest

from reos.model.report import StepResult
from reos.model.request import Kind
from reos.safety.grammar import reads_only
from reos.settings import Settings
from reos.system.snapshot import SCHEMA, SystemSnapshot
from reos.words.answers import desktop as answers
from reos.words.answers.common import ANSWERS
from reos.words.conversation import Voice
from tests.conftest import FIXTURES

ESC = "\x1b]0;owned\x07"


def _ran(stdout: str, code: int = 0, stderr: str = "") -> StepResult:
    return StepResult(step_id="s1", ok=code == 0, exit_code=code, stdout=stdout,
                      stderr=stderr)


@pytest.fixture(scope="module")
def engine():  # noqa: ANN201
    from reos.engine import ReasoningEngine

    data = json.loads((FIXTURES / "homelab.json").read_text())
    data["schema"] = SCHEMA
    return ReasoningEngine(Settings(), snapshot=SystemSnapshot.from_dict(data))


QUERIES = [
    ("list the wifi networks nearby", ["nmcli", "-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY",
                                       "device", "wifi", "list"]),
    ("which wifi am i connected to", ["nmcli", "-t", "-f", "DEVICE,TYPE,STATE,CONNECTION",
                                      "device", "status"]),
    ("is bluetooth switched on", ["rfkill", "-J"]),
    ("why isn't the printer printing", ["lpstat", "-p"]),
    ("show me the print queue please", ["lpstat", "-o"]),
    ("sound comes out of the wrong speakers", ["wpctl", "status"]),
    ("which flatpaks are installed", ["flatpak", "list", "--app",
                                      "--columns=application,version,origin"]),
    ("what is keeping the laptop awake", ["systemd-inhibit", "--list", "--no-pager",
                                          "--no-legend"]),
    ("the fans are loud, temps?", ["sensors", "-j"]),
    ("are there firmware updates", ["fwupdmgr", "get-updates", "--json"]),
]


@pytest.mark.parametrize(("said", "argv"), QUERIES)
def test_each_desktop_question_reads_and_runs_unasked(engine, said: str, argv: list[str]  # noqa: ANN001
                                                      ) -> None:
    plan = engine.plan(said)
    assert plan.kind == Kind.QUERY, (said, plan.text())
    assert argv in [s.argv for s in plan.steps], (said, [s.argv for s in plan.steps])
    assert plan.read_only and not plan.needs_approval, said
    for step in plan.steps:
        assert reads_only(step.argv).ok, step.argv


def test_the_two_desktop_changes_ask_and_say_they_cannot_be_undone(engine) -> None:  # noqa: ANN001
    plan = engine.plan("cancel all print jobs")
    assert [s.argv for s in plan.steps] == [["sudo", "-n", "cancel", "-a"]]
    assert plan.needs_approval and plan.steps[0].rollback is None
    plan = engine.plan("update the flatpaks")
    assert [s.argv[2:] for s in plan.steps] == [["flatpak", "update", "-y", "--noninteractive"]]
    assert plan.needs_approval
    # without a print or flatpak word these verbs mean something else
    assert not any("cancel" in s.argv for s in engine.plan("clear the apt cache").steps)
    assert not any("flatpak" in s.argv for s in engine.plan("update nginx").steps)


def test_the_readers_that_change_or_reveal_are_not_read_only() -> None:
    for argv in (["nmcli", "device", "wifi", "show-password"],
                 ["nmcli", "device", "wifi", "connect", "cafe"],
                 ["nmcli", "-s", "device", "wifi", "list"],
                 ["nmcli", "device", "disconnect", "wlan0"],
                 ["lpstat", "-h", "printhost.example", "-p"],
                 ["wpctl", "set-volume", "@DEFAULT_AUDIO_SINK@", "0.5"],
                 ["systemd-inhibit", "sleep", "600"],
                 ["fwupdmgr", "update"], ["fwupdmgr", "refresh"]):
        assert not reads_only(argv).ok, argv


def test_every_renderer_is_registered() -> None:
    for name in ("wifi_networks", "nm_devices", "radios", "print_queue", "audio", "flatpaks",
                 "inhibitors", "temperatures", "firmware"):
        assert ANSWERS[name] is answers.ANSWERS[name]


def test_the_wifi_answer_marks_the_network_in_use_and_cleans_names() -> None:
    out = ("*:Home\\:5G:78:WPA2\n :Cafe" + ESC + ":41:\n :Home\\:5G:60:WPA2\n"
           " ::20:WPA2\n")
    text = answers.wifi_networks([_ran(out)], {}, Voice())
    assert "connected to Home:5G" in text and "3 wifi networks" in text
    assert "open (no password)" in text and "(hidden network)" in text
    assert "\x1b" not in text and "\x07" not in text
    failed = answers.wifi_networks([_ran("", 8, "Error: NetworkManager is not running.")],
                                   {}, Voice())
    assert "NetworkManager is not running" in failed and "couldn't" in failed


def test_the_links_answer_says_what_each_is_connected_to() -> None:
    out = ("wlp0s20f3:wifi:connected:Home 5G\nenp0s31f6:ethernet:unavailable:\n"
           "lo:loopback:connected (externally):lo\n")
    text = answers.nm_devices([_ran(out)], {}, Voice())
    assert text.splitlines()[0] == "1 of 2 links connected:"
    assert "wlp0s20f3 (wifi): connected to Home 5G" in text and "lo " not in text


def test_the_radio_answer_tells_the_switches_apart() -> None:
    data = {"rfkilldevices": [
        {"id": 0, "type": "bluetooth", "device": "hci0", "soft": "blocked",
         "hard": "unblocked"},
        {"id": 1, "type": "wlan", "device": "phy0", "soft": "unblocked", "hard": "unblocked"},
        {"id": 2, "type": "wwan", "device": "x" + ESC, "soft": "unblocked",
         "hard": "blocked"}]}
    text = answers.radios([_ran(json.dumps(data))], {}, Voice())
    assert "Bluetooth (hci0) is off (blocked in software" in text
    assert "Wifi (phy0) is on." in text and "hardware switch" in text
    assert "\x1b" not in text
    assert "no bluetooth or wifi radio" in answers.radios([_ran('{"rfkilldevices": []}')],
                                                          {}, Voice())


def test_the_print_answer_says_which_printer_is_paused_and_why() -> None:
    printers = ("printer HP_OfficeJet disabled since Thu 26 Nov 2026 09:12:01 CET -\n"
                "\tPaused" + ESC + " by the user\n"
                "printer Brother_HL is idle.  enabled since Wed 25 Nov 2026 17:00:00 CET\n")
    jobs = ("HP_OfficeJet-41      marek          1024   Thu 26 Nov 2026 09:13:00 CET\n"
            "HP_OfficeJet-42      ines           2048   Thu 26 Nov 2026 09:15:00 CET\n")
    text = answers.print_queue([_ran(printers), _ran(jobs)], {}, Voice())
    assert "HP_OfficeJet: paused (disabled) — Paused by the user" in text
    assert "Brother_HL: idle" in text
    assert "2 jobs waiting: HP_OfficeJet-41 (marek), HP_OfficeJet-42 (ines)" in text
    assert "\x1b" not in text
    text = answers.print_queue([_ran(printers), _ran("")], {}, Voice())
    assert "No job is waiting." in text
    down = answers.print_queue([_ran("", 1, "lpstat: Scheduler is not running."), _ran("", 1)],
                               {}, Voice())
    assert "Scheduler is not running" in down


def test_the_sound_answer_names_the_default_output_and_its_volume() -> None:
    out = """PipeWire 'pipewire-0' [0.3.65, marek@heron, cookie:1]
 └─ Clients:
        31. WirePlumber                         [0.3.65, marek@heron, pid:1200]

Audio
 ├─ Devices:
 │      42. Built-in Audio                      [alsa]
 │
 ├─ Sinks:
 │      47. Built-in Audio Analog Stereo        [vol: 0.55]
 │  *   58. HDMI Monitor Digital Stereo         [vol: 0.40 MUTED]
 │
 ├─ Sink endpoints:
 │
 ├─ Sources:
 │  *   48. Built-in Audio Analog Stereo        [vol: 1.00]
 │
 └─ Streams:

Video
 ├─ Devices:
 │      50. Integrated Camera                   [v4l2]
"""
    text = answers.audio([_ran(out)], {}, Voice())
    assert "The default output is HDMI Monitor Digital Stereo at 40% volume (muted)." in text
    assert "Also there: Built-in Audio Analog Stereo." in text
    assert "The default input is Built-in Audio Analog Stereo at 100% volume." in text
    assert "Camera" not in text


def test_the_flatpak_temperature_inhibitor_and_firmware_answers() -> None:
    apps = "md.obsidian.Obsidian\t1.6.7\tflathub\norg.gimp.GIMP\t2.10.38\tflathub\n"
    text = answers.flatpaks([_ran(apps)], {}, Voice())
    assert text.startswith("2 flatpak apps:")
    assert "md.obsidian.Obsidian 1.6.7 (from flathub)" in text

    sensors = {"coretemp-isa-0000": {"Adapter": "ISA adapter",
                                     "Package id 0": {"temp1_input": 91.0, "temp1_max": 100},
                                     "Core 0": {"temp2_input": 88.0}},
               "thinkpad-isa-0000": {"Adapter": "ISA adapter", "fan1": {"fan1_input": 5200}}}
    text = answers.temperatures([_ran(json.dumps(sensors))], {}, Voice())
    assert text.startswith("The hottest sensor is Package id 0 (coretemp-isa-0000) at 91 °C")
    assert "hot" in text and "5200 rpm" in text
    assert "no temperature" in answers.temperatures([_ran("{}")], {}, Voice()).lower()

    held = ("marek 1000 marek 2140 firefox sleep Playing video delay\n"
            "NetworkManager 0 root 811 NetworkManager sleep NetworkManager needs to turn off "
            "networks delay\nDropbox 1000 marek 3001 dropbox sleep Syncing block\n")
    text = answers.inhibitors([_ran(held)], {}, Voice())
    assert text.startswith("3 inhibitors held, 1 of them blocking")
    assert "Nothing is holding" in answers.inhibitors([_ran("")], {}, Voice())

    offered = {"Devices": [{"Name": "System Firmware", "Version": "0.1.50",
                            "Releases": [{"Version": "0.1.52", "Summary": "UEFI"}]}]}
    text = answers.firmware([_ran(json.dumps(offered))], {}, Voice())
    assert "System Firmware: 0.1.50 → 0.1.52" in text
    none = answers.firmware([_ran("No updatable devices", 2)], {}, Voice())
    assert none == "No firmware update is offered for this machine's devices."


def test_a_word_the_catalogue_uses_is_never_corrected_into_a_desktop_noun(engine) -> None:  # noqa: ANN001
    # "audit" is one letter from "audio"; the refusals use it, so it is a word, not a typo
    plan = engine.plan("for the security audit I need to know every account that can "
                       "become root through sudo")
    assert plan.kind == Kind.QUERY and not any("wpctl" in s.argv for s in plan.steps)
    assert "sudoers" in " ".join(plan.steps[-1].argv)
