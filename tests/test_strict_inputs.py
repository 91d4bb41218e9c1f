"""Hostile settings files and saved snapshots: a clear message and exit 2, never a crash.

Each case runs the installed `reos` command in a fresh REOS_HOME, as a user would, and
checks the message names the file (and the line and key, or the field's path), that
nothing reached stdout, and that the settings file is left exactly as it was.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reos.system.snapshot import SystemSnapshot
from tests.conftest import FIXTURES, reos

CONTEXT = str(FIXTURES / "homelab.json")


def plan(*context: str) -> object:
    return reos("plan", "--json", "--context", *(context or (CONTEXT,)), "restart portainer",
                timeout=60)


def assert_usage_error(done: object, *words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)  # type: ignore
    assert done.stdout == ""  # type: ignore[attr-defined]
    assert "Traceback" not in done.stderr  # type: ignore[attr-defined]
    for word in words:
        assert word in done.stderr, done.stderr  # type: ignore[attr-defined]


# -- settings.toml -----------------------------------------------------------------------

@pytest.fixture
def settings_file(reos_home: Path) -> Path:
    path = reos_home / "config" / "settings.toml"
    path.parent.mkdir(parents=True)
    return path


@pytest.mark.parametrize("text,line,said", [
    ('[llm]\nenabled = "true"\n', 2, "[llm] enabled must be true or false, not 'true'"),
    ('[safety]\nverify_each_step = "false"\n', 2, "verify_each_step must be true or false"),
    ("[conversation]\nshow_commands = 1\n", 2, "show_commands must be true or false, not 1"),
    ("[limits]\nmax_operations = true\n", 2, "max_operations must be a whole number, not true"),
    ("[limits]\nmax_operations = 2.5\n", 2, "max_operations must be a whole number"),
    ('[limits]\nmax_seconds = "300"\n', 2, "max_seconds must be a whole number, not '300'"),
    ("[limits]\nmax_seconds = 0\n", 2, "max_seconds must be between 1 and 86,400, not 0"),
    ("[limits]\nmax_operations = -3\n", 2, "max_operations must be between 1 and 1,000"),
    ("[limits]\nmax_operations = 99999999999\n", 2, "max_operations must be between 1"),
    ("[limits]\nmax_injected_steps = 1000\n", 2, "max_injected_steps must be between 1 and 100"),
    ("[llm]\ntimeout_seconds = nan\n", 2, "timeout_seconds must be between 0.1 and 600, not nan"),
    ("[llm]\ntimeout_seconds = inf\n", 2, "timeout_seconds must be between"),
    ('[llm]\nhost = "file:///etc/passwd"\n', 2, "host must be an http:// or https:// URL"),
    ('[llm]\nmodel = ""\n', 2, "model must be some text"),
    ('[conversation]\nverbosity = "chatty"\n', 2, "verbosity must be one of minimal, normal"),
    ("[reasoning]\nenabled = { really = true }\n", 2, "enabled must be true or false, not a table"),
    ("[limits]\nmax_operations = [25]\n", 2, "max_operations must be a whole number, not a list"),
    ("limits.max_seconds = 100000\n", 1, "max_seconds must be between"),
    ("\n\nlimits = 5\n", 3, "limits must be a table"),
    ("[limits]\nmax_operations = 25\nmax_operations = 26\n", 3, "not valid TOML"),
])
def test_bad_settings_values_name_file_line_and_key(settings_file: Path, text: str,
                                                    line: int, said: str) -> None:
    settings_file.write_text(text)
    assert_usage_error(plan(), f"{settings_file}:{line}:", said)
    assert settings_file.read_text() == text


def test_a_quoted_boolean_gets_a_hint_about_quotes(settings_file: Path) -> None:
    settings_file.write_text('[llm]\nenabled = "false"\n')
    assert_usage_error(plan(), "without quotes")


def test_an_unknown_key_names_the_closest_valid_key(settings_file: Path) -> None:
    settings_file.write_text("[limits]\nmax_operation = 10\n")
    done = plan()
    assert done.returncode == 0, done.stderr
    assert f"{settings_file}:2" in done.stderr and "Did you mean 'max_operations'" in done.stderr


def test_settings_that_are_not_utf8_name_the_line(settings_file: Path) -> None:
    raw = '[conversation]\nverbosity = "normal"\n# caf\xe9\n'.encode("latin-1")
    settings_file.write_bytes(raw)
    assert_usage_error(plan(), f"{settings_file}:3:", "not UTF-8")
    assert settings_file.read_bytes() == raw


def test_a_settings_file_that_is_a_directory(settings_file: Path) -> None:
    settings_file.mkdir()
    assert_usage_error(plan(), str(settings_file), "is a directory")


@pytest.mark.timeout(60)
def test_a_settings_fifo_never_blocks(settings_file: Path) -> None:
    os.mkfifo(settings_file)  # reading it would wait for a writer forever
    assert_usage_error(plan(), str(settings_file), "is a special file (a FIFO")


def test_a_huge_settings_file(settings_file: Path) -> None:
    settings_file.write_text("[limits]\n" + "# padding\n" * 200_000)
    assert_usage_error(plan(), str(settings_file), "larger than 1,000,000 bytes")


def test_deeply_nested_settings(settings_file: Path) -> None:
    text = "[limits]\nmax_operations = " + "[" * 50_000 + "]" * 50_000 + "\n"
    settings_file.write_text(text)
    assert_usage_error(plan(), str(settings_file), "too deeply")
    assert settings_file.read_text() == text


def test_an_integer_too_long_to_convert(settings_file: Path) -> None:
    settings_file.write_text("[limits]\nmax_operations = " + "9" * 5000 + "\n")
    assert_usage_error(plan(), str(settings_file), "not valid TOML")


def test_the_example_settings_are_accepted(settings_file: Path) -> None:
    settings_file.write_text((FIXTURES.parent.parent / "settings.example.toml").read_text())
    done = plan()
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr


# -- saved snapshots (--context FILE) ----------------------------------------------------

def homelab() -> dict:
    return json.loads(Path(CONTEXT).read_text())


def changed(path: Path, change) -> str:  # noqa: ANN001 - a function of the snapshot dict
    data = homelab()
    change(data)
    path.write_text(json.dumps(data))
    return str(path)


def _set(*keys: object, value: object):  # noqa: ANN202 - returns a change function
    def change(data: dict) -> None:
        for key in keys[:-1]:
            data = data[key]  # type: ignore[index]
        data[keys[-1]] = value  # type: ignore[index]

    return change


@pytest.mark.parametrize("change,said", [
    (_set("containers", 3, "labels", "x", value=5), "containers[3].labels.x must be a string"),
    (_set("containers", 0, "labels", value=["a"]), "containers[0].labels must be an object"),
    (_set("containers", 1, "name", value=7), "containers[1].name must be a string, not 7"),
    (_set("containers", 2, "state", value=None), "containers[2].state must be a string"),
    (_set("containers", 0, value="nextcloud"), "containers[0] must be an object"),
    (_set("containers", value={"a": 1}), "containers must be a list or null, not an object"),
    (_set("services", 0, "active", value=True), "services[0].active must be a string"),
    (_set("services", 4, "description", value={"x": 1}), "services[4].description must be"),
    (_set("packages", 2, "version", value=2.4), "packages[2].version must be a string, not 2.4"),
    (_set("packages", 0, value={"version": "1"}), 'packages[0] has no "name"'),
    (_set("host", "ips", value=["10.0.0.2"]), "host.ips must be a string, number"),
    (_set("host", value="box"), 'host must be an object, not "box"'),
    (_set("unavailable", value={"services": 3}), "unavailable.services must be a string"),
    (_set("unavailable", value=["services"]), "unavailable must be an object of strings"),
    (_set("collected_at", value=12), "collected_at must be a string, not 12"),
])
def test_wrong_types_in_a_snapshot_name_the_field_path(tmp_path: Path, change,  # noqa: ANN001
                                                       said: str) -> None:
    path = changed(tmp_path / "box.json", change)
    assert_usage_error(plan(path), f"Context file {path}", said)


def test_a_snapshot_nested_ten_thousand_deep(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 10_000 + "]" * 10_000)
    assert_usage_error(plan(str(path)), str(path), "too deeply")


def test_a_snapshot_with_deep_nesting_inside_a_field(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    text = json.dumps(homelab())[:-1] + ', "extra": ' + "[" * 10_000 + "]" * 10_000 + "}"
    path.write_text(text)
    assert_usage_error(plan(str(path)), str(path), "too deeply")


def test_a_snapshot_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"schema": "reos.snapshot/1",\n "collected_at": "caf\xe9"}')
    assert_usage_error(plan(str(path)), str(path), "not UTF-8 text (line 2")


def test_a_snapshot_over_64_mb(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(64 * 2**20 + 1)  # sparse: costs no disk
    assert_usage_error(plan(str(path)), str(path), "larger than 64 MB")


@pytest.mark.parametrize("text,said", [
    ("not json", "is not valid JSON (line 1"),
    ("[]", "is not a reos snapshot"),
    ('{"schema": "reos.snapshot/3"}', "is not a reos snapshot"),
    ('{"schema": "reos.snapshot/1", "cpu": ' + "9" * 5000 + "}", "is not valid JSON"),
])
def test_snapshots_that_are_not_snapshots(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text)
    assert_usage_error(plan(str(path)), str(path), said)


def test_a_snapshot_path_that_is_a_directory(tmp_path: Path) -> None:
    assert_usage_error(plan(str(tmp_path)), str(tmp_path), "cannot be read")


@pytest.mark.parametrize("fixture", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_every_fixture_snapshot_still_loads(fixture: Path) -> None:
    snapshot = SystemSnapshot.load(fixture)
    assert snapshot.to_dict()["schema"] == "reos.snapshot/2"  # written as the current one
    assert SystemSnapshot.from_dict(snapshot.to_dict()).to_dict() == snapshot.to_dict()


def test_unknown_sections_and_nulls_are_still_accepted(tmp_path: Path) -> None:
    """Newer writers may add keys; unknown sections are null, not []."""
    data = homelab()
    data["extra"] = {"anything": [1, {"deep": True}]}
    data["containers"][0]["healthcheck"] = [80, 443]
    data["packages"] = None
    data["unavailable"] = {"packages": "no package manager"}
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(data))
    snapshot = SystemSnapshot.load(path)
    assert snapshot.packages is None and snapshot.unavailable == {
        "packages": "no package manager"}
    assert snapshot.containers and snapshot.containers[0].name == "nextcloud-app"
    done = plan(str(path))
    assert done.returncode == 0, done.stderr


def test_a_live_snapshot_round_trips_through_a_file(tmp_path: Path) -> None:
    done = reos("context", "--json")
    assert done.returncode == 0, done.stderr
    path = tmp_path / "here.json"
    path.write_text(done.stdout)
    assert SystemSnapshot.load(path).to_dict() == json.loads(done.stdout)
