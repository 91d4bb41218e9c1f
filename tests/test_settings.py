"""Settings: defaults, clear errors naming file/line/key, warnings, and the example file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from reos import paths, settings
from reos.errors import SettingsError

ROOT = Path(__file__).resolve().parent.parent


def write(text: str) -> Path:
    path = paths.settings_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_when_the_file_is_absent() -> None:
    s = settings.load()
    assert not paths.settings_file().exists()
    assert s.limits.max_operations == 25
    assert s.limits.max_seconds == 300
    assert s.limits.max_privilege_escalations == 3
    assert s.limits.max_injected_steps == 5
    assert s.limits.human_checkpoint_after_recoveries == 2
    assert s.limits.max_learned_patterns == 1000
    assert s.conversation.verbosity == "normal"
    assert s.warnings == []


def test_values_from_the_file_are_used() -> None:
    write("[conversation]\nverbosity = \"minimal\"\nshow_commands = false\n"
          "[limits]\nmax_operations = 7\n[llm]\ntimeout_seconds = 5\n")
    s = settings.load()
    assert s.conversation.verbosity == "minimal"
    assert s.conversation.show_commands is False
    assert s.limits.max_operations == 7
    assert s.llm.timeout_seconds == 5.0


def test_malformed_toml_names_file_and_line_and_leaves_it_alone() -> None:
    text = "[safety]\nauto_backup_configs = true\nrollback_on_failure = tru\n"
    path = write(text)
    with pytest.raises(SettingsError) as caught:
        settings.load()
    message = str(caught.value)
    assert f"{path}:3" in message
    assert "rollback_on_failure" in message
    assert caught.value.exit_code == 2
    assert path.read_text() == text


def test_wrong_type_names_key_and_line() -> None:
    path = write("[limits]\n\nmax_operations = \"lots\"\n")
    with pytest.raises(SettingsError) as caught:
        settings.load()
    assert f"{path}:3" in caught.value.message
    assert "[limits] max_operations must be a whole number" in caught.value.message


@pytest.mark.parametrize("line", ["verbosity = \"chatty\"", "show_commands = 1"])
def test_bad_conversation_values_are_errors(line: str) -> None:
    write(f"[conversation]\n{line}\n")
    with pytest.raises(SettingsError):
        settings.load()


def test_limits_must_be_positive() -> None:
    write("[limits]\nmax_seconds = 0\n")
    with pytest.raises(SettingsError, match="between 1 and"):
        settings.load()


def test_unknown_key_is_a_warning_with_the_closest_key() -> None:
    write("[limits]\nmax_operation = 10\n[conversaton]\nverbosity = \"minimal\"\n")
    s = settings.load()
    assert any("max_operation" in w and "Did you mean 'max_operations'" in w for w in s.warnings)
    assert any("[conversaton]" in w and "'conversation'" in w for w in s.warnings)
    assert s.limits.max_operations == 25


def test_reos_llm_off_disables_the_llm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REOS_LLM", "off")
    assert settings.load().llm.enabled is False
    monkeypatch.setenv("REOS_LLM", "")
    assert settings.load().llm.enabled is True


def test_example_file_documents_every_key_with_its_default() -> None:
    example = tomllib.loads((ROOT / "settings.example.toml").read_text())
    documented = settings.documented_keys()
    assert set(example) == set(documented)
    for section, keys in documented.items():
        assert set(example[section]) == set(keys), section
        for key, (default, doc) in keys.items():
            assert example[section][key] == default, f"[{section}] {key}"
            assert doc, f"[{section}] {key} has no description"


def test_example_file_is_itself_valid_settings() -> None:
    text = (ROOT / "settings.example.toml").read_text()
    assert settings.parse(text, ROOT / "settings.example.toml").warnings == []


def test_reos_home_relocates_every_path(reos_home: Path) -> None:
    for path in (paths.settings_file(), paths.database_file(), paths.backups_dir(),
                 paths.user_templates_dir()):
        assert reos_home in path.parents


def test_every_setting_has_its_description_and_every_description_a_setting() -> None:
    """A setting's range, choices and words live in its section's DOCS: a key there that
    names no field, or a field without one, would silently lose its check."""
    from reos.settings import SECTIONS

    for name, section in SECTIONS.items():
        assert set(section.DOCS) == set(section.__struct_fields__), name
        assert all(doc.get("doc") for doc in section.DOCS.values()), name
