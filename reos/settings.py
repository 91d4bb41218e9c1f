"""Typed settings read from `settings.toml`, with errors that name file, line and key.

Responsible for: the defaults, reading and validating the file, warning about unknown
keys (with the closest valid key), and the `REOS_LLM=off` override.
Not responsible for: acting on any setting (the engine and executor do that), or creating
the file (absent means defaults).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    ClassVar,  # msgspec imports typing anyway
)

from msgspec import Struct, field

from reos import paths
from reos.errors import SettingsError
from reos.patterns import regex

if TYPE_CHECKING:
    from typing import Any


def _doc(text: str, low: float | None = None, high: float | None = None, *,
         choices: tuple[str, ...] = (), may_be_empty: bool = False) -> dict[str, Any]:
    """A field's description and, for numbers, the range a sane value lies in; for words,
    the values it may take, and whether "" (unset: a string has no TOML null) is one."""
    doc: dict[str, Any] = {"doc": text}
    if low is not None:
        doc["range"] = (low, high)
    if choices:
        doc["choices"] = choices
    if may_be_empty:
        doc["may_be_empty"] = True
    return doc


MAX_FILE_BYTES = 1_000_000  # a settings file is a few hundred bytes; this is no settings file
_KEEP_ALIVE = regex(r"^(?:-1|0|\d{1,6}(?:\.\d+)?(?:ms|s|m|h))$")  # Ollama's durations


DEPTH_CHOICES = ("quick", "focused", "deep")
LLM_MODES = ("auto", "first", "off")


class ReasoningSettings(Struct):
    enabled: bool = True
    auto_assess: bool = True
    always_confirm: bool = False
    explain_steps: bool = True
    depth: str = "focused"

    DOCS: ClassVar[dict[str, dict[str, Any]]] = {
        "enabled": _doc(
            "The reasoning layer's extras: the reasoning trace and the audit trail (reos why), "
            "the quality assessment, learned fixes added up front, and why each step is there. "
            "false: plans are built, judged and approved the same, without them."),
        "auto_assess": _doc(
            "Route requests by what they are: questions answered at once, changes shown for "
            'approval. false: every request is shown as a plan to approve (like "plan: ...").'),
        "always_confirm": _doc(
            "Ask before every change, even small ones: also before recovery fixes such as a "
            "package-list refresh or a retry with sudo, and before an undo (reos undo --yes)."),
        "explain_steps": _doc(
            "Show why each step is there (from the trace) and the plan's quality before "
            "approval."),
        "depth": _doc(
            'How hard reos thinks: "quick" (never asks the model), "focused" or "deep" '
            '(diagnoses gather evidence in rounds).', choices=DEPTH_CHOICES),
    }


class SafetySettings(Struct):
    require_approval_for_permanent: bool = True
    auto_backup_configs: bool = True
    verify_each_step: bool = True
    rollback_on_failure: bool = True

    DOCS: ClassVar[dict[str, dict[str, Any]]] = {
        "require_approval_for_permanent": _doc(
            "Steps that cannot be undone ask their own second question. false: only steps "
            "with no undo at all ask; steps undone by restoring a backup do not."),
        "auto_backup_configs": _doc("Back up files before a step changes them."),
        "verify_each_step": _doc("Check that each step reached the intended state."),
        "rollback_on_failure": _doc("Undo completed steps when a plan cannot finish."),
    }


VERBOSITY_CHOICES = ("minimal", "normal", "detailed")


class ConversationSettings(Struct):
    verbosity: str = "normal"
    show_commands: bool = True

    DOCS: ClassVar[dict[str, dict[str, Any]]] = {
        "verbosity": _doc('How much reos says: "minimal", "normal" or "detailed".',
            choices=VERBOSITY_CHOICES),
        "show_commands": _doc(
            "Show the commands as they run (a plan always shows its commands before approval)."),
    }


class LimitsSettings(Struct):
    """Circuit breakers. Only the user changes these; no plan, template or LLM can."""

    max_operations: int = 25
    max_seconds: int = 300
    max_privilege_escalations: int = 3
    max_injected_steps: int = 5
    human_checkpoint_after_recoveries: int = 2
    max_learned_patterns: int = 1000

    DOCS: ClassVar[dict[str, dict[str, Any]]] = {
        "max_operations": _doc("Commands per plan execution.", 1, 1000),
        "max_seconds": _doc("Wall time of one plan execution.", 1, 86400),
        "max_privilege_escalations": _doc("sudo escalations added during one execution.", 1, 100),
        "max_injected_steps": _doc("Recovery steps injected into one execution.", 1, 100),
        "human_checkpoint_after_recoveries": _doc(
            "Recoveries after which a person must review.", 1, 100),
        "max_learned_patterns": _doc("Rows kept in the knowledge base.", 1, 1_000_000),
    }


class LlmSettings(Struct):
    enabled: bool = True
    host: str = "http://127.0.0.1:11434"
    model: str = "llama3.2"
    timeout_seconds: float = 20.0
    keep_alive: str = "10m"
    num_ctx: int = 8192
    mode: str = "auto"

    DOCS: ClassVar[dict[str, dict[str, Any]]] = {
        "enabled": _doc("Use an Ollama server when one answers."),
        "host": _doc("Ollama server URL."),
        "model": _doc("Model name on that server."),
        "timeout_seconds": _doc("Give up on the LLM after this long and fall back.", 0.1, 600),
        "keep_alive": _doc('How long Ollama keeps the model loaded ("10m", "1h", "-1").'),
        "num_ctx": _doc("Context window asked of the model, in tokens.", 512, 262144),
        "mode": _doc(
            '"auto": the model reads what the built-in parser is unsure of; "first": the model '
            'reads every request; "off": never ask the model.', choices=LLM_MODES),
    }


class ReflectionSettings(Struct):
    """Thresholds of the reflection rules (reos/memory/reflection.py), run after each
    execution over what happened here."""

    failures_in_a_row: int = 3
    timeouts: int = 2
    failure_rate: float = 0.5
    min_runs: int = 3
    fix_repeats: int = 3
    verification_failures: int = 2

    DOCS: ClassVar[dict[str, dict[str, Any]]] = {
        "failures_in_a_row": _doc(
            "Failures in a row of one command before reos flags it and asks first.", 1, 100),
        "timeouts": _doc(
            "Timeouts of one command before reos suggests a longer timeout.", 1, 100),
        "failure_rate": _doc(
            "Share of failed runs (0.01-1) at which an operation is said to fail on most runs.",
            0.01, 1.0),
        "min_runs": _doc(
            "Runs of an operation before its failure rate is judged.", 1, 1000),
        "fix_repeats": _doc(
            "Times a fix was needed before reos applies it up front.", 1, 100),
        "verification_failures": _doc(
            "Times a step missed its intended state before reos says so.", 1, 100),
    }


class FleetSettings(Struct):
    """Other machines, reached through Ansible (reos/fleet/)."""

    inventory: str = ""
    connect_timeout: int = 10
    max_fail_percent: int = 0

    DOCS: ClassVar[dict[str, dict[str, Any]]] = {
        "connect_timeout": _doc(
            "Seconds ssh waits for a host to answer before reos says it is not reached "
            "(`reos hosts --check`).", 1, 300),
        "max_fail_percent": _doc(
            "A change on several hosts runs on one host first, then a quarter of them, then "
            "the rest: the share of a batch's hosts (0-100, in percent) that may fail while "
            "the later batches still start. 0: any failed host stops the change there. A "
            "batch whose every host failed always stops it; a host that does not answer is "
            "not counted.", 0, 100),
        "inventory": _doc(
            "The Ansible inventory (an INI, YAML or TOML file, or a folder of them) that "
            "`reos hosts` reads when -i/--inventory is not given; a relative path is taken "
            'from the settings file\'s folder, ~ is your home. "": none (then '
            "ANSIBLE_INVENTORY, when set).", may_be_empty=True),
    }


class Settings(Struct):
    reasoning: ReasoningSettings = field(default_factory=ReasoningSettings)
    safety: SafetySettings = field(default_factory=SafetySettings)
    conversation: ConversationSettings = field(default_factory=ConversationSettings)
    limits: LimitsSettings = field(default_factory=LimitsSettings)
    llm: LlmSettings = field(default_factory=LlmSettings)
    reflection: ReflectionSettings = field(default_factory=ReflectionSettings)
    fleet: FleetSettings = field(default_factory=FleetSettings)
    path: Path | None = None
    warnings: list[str] = field(default_factory=list)


SECTIONS: dict[str, type[Any]] = {
    "reasoning": ReasoningSettings, "safety": SafetySettings,
    "conversation": ConversationSettings, "limits": LimitsSettings, "llm": LlmSettings,
    "reflection": ReflectionSettings, "fleet": FleetSettings,
}


def _key_of(line: str) -> str:
    return line.split("=", 1)[0].strip().strip("\"'")


def _line_of(text: str, section: str, key: str | None) -> int | None:
    """Best-effort line number of `[section] key` in the file text (1-based).

    Also finds `section.key = ...` written at the top of the file, and `section = {...}`.
    """
    current = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("[") and line.split("#", 1)[0].rstrip().endswith("]"):
            current = line.split("#", 1)[0].strip().strip("[] ").replace('"', "")
            if key is None and current == section:
                return number
        elif "=" in line:
            name = _key_of(line)
            if current == section and key and name == key:
                return number
            if current is None and name in (section, f"{section}.{key}"):
                return number
    return None


def _where(path: Path, line: int | None) -> str:
    return f"{path}:{line}" if line else str(path)


def _shown(value: Any) -> str:
    """A value as the message shows it: short, and tables and lists by name."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    text = _toml_literal(value) if isinstance(value, bool | int | float) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_value(
    path: Path, text: str, section: str, key: str, value: Any, default: Any,
    metadata: Any = None,
) -> Any:
    line = _line_of(text, section, key)
    where = _where(path, line)
    keep = f"Fix that line, or delete it to use the default ({_toml_literal(default)})."
    expected = type(default)
    ok = isinstance(value, expected) and not (expected is not bool and isinstance(value, bool))
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value, ok = float(value), True
    if not ok:
        if expected is bool and isinstance(value, str) and value.lower() in ("true", "false"):
            keep = f"Write {value.lower()} without quotes: in TOML, quoted text is not a boolean."
        raise SettingsError(
            f"{where}: [{section}] {key} must be {_type_word(expected)}, not {_shown(value)}.",
            keep,
        )
    choices = (metadata or {}).get("choices")
    if choices and value not in choices:
        raise SettingsError(
            f"{where}: [{section}] {key} must be one of {', '.join(choices)},"
            f" not {_shown(value)}.",
            keep,
        )
    low, high = (metadata or {}).get("range", (None, None))
    if low is not None and not low <= value <= high:  # `not`: NaN fails both comparisons
        raise SettingsError(
            f"{where}: [{section}] {key} must be between {low:,} and {high:,},"
            f" not {_shown(value)}.",
            keep,
        )
    if expected is str and not (value == "" and (metadata or {}).get("may_be_empty")):
        problem = _text_problem(key, value)
        if problem:
            raise SettingsError(f"{where}: [{section}] {key} {problem}.", keep)
    return value


def _text_problem(key: str, value: str) -> str | None:
    if not value.strip() or len(value) > 2048:
        return "must be some text, at most 2,048 characters"
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        return "must not hold control characters"
    if key == "host" and not value.startswith(("http://", "https://")):
        return f"must be an http:// or https:// URL, not {_shown(value)}"
    if key == "keep_alive" and not _KEEP_ALIVE.match(value):
        return (f'must be a duration such as "10m", "1h", "30s" or "-1" (forever), '
                f"not {_shown(value)}")
    return None


def _type_word(expected: type) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "a string"}[
        expected
    ]


def _toml_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _suggest(word: str, choices: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" Did you mean {close[0]!r}?" if close else ""


def parse(text: str, path: Path) -> Settings:
    """Validate settings text. Raises SettingsError; never touches the file."""
    import tomllib  # deferred: costs ~20 ms and is not needed when there is no file

    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise SettingsError(
            f"{path}: nests arrays or tables too deeply to be a settings file.",
            "Fix the file by hand; reos has not changed it.",
        ) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = None
        if "line " in message:
            try:
                line = int(message.rsplit("line ", 1)[1].split(",")[0].rstrip(")"))
            except ValueError:
                line = None
        key_hint = ""
        if line and 0 < line <= len(text.splitlines()):
            bad = text.splitlines()[line - 1].strip()
            key_hint = f" (near {bad.split('=', 1)[0].strip()!r})" if "=" in bad else ""
        raise SettingsError(
            f"{_where(path, line)}: this is not valid TOML{key_hint}: {message}.",
            "Fix the file by hand; reos has not changed it.",
        ) from None
    except ValueError as exc:  # e.g. an integer with more digits than Python converts
        raise SettingsError(
            f"{path}: this is not valid TOML: {exc}.",
            "Fix the file by hand; reos has not changed it.",
        ) from None

    settings = Settings(path=path)
    for section, value in data.items():
        if section not in SECTIONS:
            settings.warnings.append(
                f"{_where(path, _line_of(text, section, None))}: unknown section [{section}]"
                f" is ignored.{_suggest(section, list(SECTIONS))}"
            )
            continue
        if not isinstance(value, dict):
            raise SettingsError(
                f"{_where(path, _line_of(text, section, None))}: {section} must be a table"
                f" ([{section}]), not a single value.",
                "Fix the file by hand; reos has not changed it.",
            )
        target = getattr(settings, section)
        known = {name: target.DOCS.get(name, {}) for name in target.__struct_fields__}
        for key, item in value.items():
            if key not in known:
                settings.warnings.append(
                    f"{_where(path, _line_of(text, section, key))}: unknown key"
                    f" [{section}] {key} is ignored.{_suggest(key, list(known))}"
                )
                continue
            default = getattr(type(target)(), key)
            setattr(target, key, _check_value(path, text, section, key, item, default,
                                              known[key]))
    return settings


def load(path: Path | None = None) -> Settings:
    """Settings from the file, or the defaults when it does not exist."""
    path = path or paths.settings_file()
    text = read_text(path)
    settings = Settings(path=path) if text is None else parse(text, path)
    if llm_forced_off():
        settings.llm.enabled = False
    return settings


def llm_forced_off() -> bool:
    """`REOS_LLM=off` (or 0, false, no): no model for this run, whatever the settings say."""
    return os.environ.get("REOS_LLM", "").lower() in ("off", "0", "false", "no")


def read_text(path: Path) -> str | None:
    """The settings file's text, None when there is none, or a SettingsError.

    Only a regular file of at most MAX_FILE_BYTES of UTF-8 is read: a FIFO in its place
    would block every start, a huge file would be parsed on every start.
    """
    import stat

    hint = "Fix or remove the file by hand; reos has not changed it."
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            kind = ("a directory" if stat.S_ISDIR(info.st_mode)
                    else "a special file (a FIFO, socket or device)")
            raise SettingsError(f"{path}: is {kind}, not a settings file.", hint)
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot be read ({exc.strerror or exc}).",
                            "Check its permissions.") from None
    if len(raw) > MAX_FILE_BYTES:
        raise SettingsError(f"{path}: is larger than {MAX_FILE_BYTES:,} bytes, which no"
                            " settings file is.", hint)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise SettingsError(f"{path}:{line}: is not UTF-8 text (byte {exc.start:,}).",
                            "Save the file as UTF-8; reos has not changed it.") from None


def documented_keys() -> dict[str, dict[str, tuple[Any, str]]]:
    """Every section and key with its default and description (for docs and tests)."""
    out: dict[str, dict[str, tuple[Any, str]]] = {}
    for section, factory in SECTIONS.items():
        instance = factory()
        out[section] = {
            name: (getattr(instance, name), instance.DOCS.get(name, {}).get("doc", ""))
            for name in instance.__struct_fields__
        }
    return out


def save_value(section: str, key: str, value: Any, path: Path | None = None) -> Path:
    """Change one setting in the file, keeping everything else (comments and layout
    included: tomlkit edits the document, not its lines). The result is validated before
    it is written, and written atomically, so a failure leaves the old file as it was."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    if section not in SECTIONS or key not in SECTIONS[section].__struct_fields__:
        raise SettingsError(f"[{section}] {key} is not a setting.")
    path = path or paths.settings_file()
    old = read_text(path) or ""
    parse(old, path)  # a file reos cannot read is said as such, never overwritten
    try:
        document = tomlkit.parse(old)
        table = document.get(section)
        if table is None:
            document[section] = table = tomlkit.table()
        table[key] = value
        text = tomlkit.dumps(document)
    except (TOMLKitError, TypeError, ValueError) as exc:
        raise SettingsError(f"{path}: could not change [{section}] {key}: {exc}") from None
    parse(text, path)  # never write a file reos itself could not read back
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".toml.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
    return path
