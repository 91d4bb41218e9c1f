"""The shape of a model's answer, generated from the operation catalogue.

`schema(templates)` is the JSON schema sent as Ollama's `format` (operation ids as an
enum plus "command", typed slots, targets, qualifiers, condition, kind, question,
choices, reply, confidence, a one-line thought); `describe(templates)` says the same in
the prompt, because Ollama constrains the output to the schema but does not show it to
the model. Both are pure and cached per catalogue.

The meta operations (undo, help, verbosity) are not offered: those whole utterances are
read before any model is asked. Not responsible for checking an answer (validate.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.catalogue.templates import TemplateSet

if TYPE_CHECKING:
    from typing import Any

COMMAND = "command"  # the operation id for "no operation covers this: run this argv"
KINDS = ("query", "action", "clarify", "unknown")
MAX_TARGETS = 20
MAX_ARGV = 64
MAX_TEXT = 400  # a thought, a purpose, a question, a consequence
MAX_REPLY = 2_000
MAX_CHOICES = 4

# what each slot holds, as the plan builder takes it (understanding/slots.py checks it again)
SLOT_FORMS = {
    "lines": "a number of lines, e.g. \"50\"",
    "count": "how many, e.g. \"5\"",
    "since": "\"15m\", \"2h\", \"3d\", \"today\", \"yesterday\", \"boot\", \"boot-1\" (the boot "
             "before), or \"2026-11-20@08:00\"",
    "until": "same forms as since",
    "port": "a port number, e.g. \"8080\"",
    "proto": "\"tcp\" or \"udp\"",
    "size": "a size such as \"500M\" or \"2G\"",
    "priority": "a nice value from -20 to 19, or a journal priority such as \"err\"",
    "user": "a user name", "group": "a group name", "shell": "\"/bin/zsh\" or \"zsh\"",
    "hostname": "a host name", "fullname": "a person's full name, \"Alice Smith\"",
    "timezone": "a zone such as \"Europe/Berlin\"",
    "date": "YYYY-MM-DD", "host": "a host name or IPv4 address",
    "path": "an absolute path", "device": "a block device name such as \"sdb1\"",
    "interface": "a network interface name", "program": "a program name",
    "policy": "\"deny\", \"allow\" or \"reject\"",
    "queue_id": "a Postfix queue id as written, e.g. \"4XkQ2R1vZzN0\"",
}

_CACHE: dict[int, tuple[TemplateSet, dict[str, Any], str]] = {}


def offered(templates: TemplateSet) -> list[Any]:
    """The operations a model may answer with (every kind but meta)."""
    return [op for op in templates.operations.values() if op.kind != "meta"]


def qualifier_words(templates: TemplateSet) -> list[str]:
    return sorted({q for op in offered(templates) for q in op.qualifiers})


def slot_names(templates: TemplateSet) -> list[str]:
    return sorted({s for op in offered(templates) for s in op.slots})


def _build(templates: TemplateSet) -> tuple[dict[str, Any], str]:
    ops = offered(templates)
    text = {"type": "string", "maxLength": MAX_TEXT}
    names = {"type": "array", "maxItems": MAX_TARGETS,
             "items": {"type": "string", "maxLength": 100}}
    op_ids = [op.id for op in ops] + [COMMAND]
    slots = {name: {"type": "string", "maxLength": 100} for name in slot_names(templates)}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "thought": text,
            "kind": {"type": "string", "enum": list(KINDS)},
            "op": {"type": "string", "enum": op_ids},
            "targets": names,
            "qualifiers": {"type": "array", "maxItems": 8,
                           "items": {"type": "string", "enum": qualifier_words(templates)}},
            "exclude": names,
            "slots": {"type": "object", "properties": slots, "additionalProperties": False},
            "condition": {"type": "object", "properties": {
                "if": {"type": "string", "enum": ["running", "stopped"]},
                "subject": {"type": "string", "maxLength": 100}}},
            "command": {"type": "object", "properties": {
                "argv": {"type": "array", "maxItems": MAX_ARGV,
                         "items": {"type": "string", "maxLength": 1000}},
                "purpose": text, "read_only": {"type": "boolean"}}},
            "question": text,
            "choices": {"type": "array", "maxItems": MAX_CHOICES, "items": {
                "type": "object", "properties": {
                    "op": {"type": "string", "enum": op_ids}, "targets": names,
                    "consequence": text}, "required": ["op", "consequence"]}},
            "reply": {"type": "string", "maxLength": MAX_REPLY},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "required": ["thought", "kind", "op", "confidence"],
    }
    # one line an operation, fields apart by "|" alone: the list is most of the system
    # message, and every character of it is paid on every request
    lines = ["Operations (id|kind|what it acts on|slots|qualifiers|what it does):"]
    for op in ops:
        lines.append("|".join([op.id, op.kind, op.target, ",".join(op.slots) or "-",
                               ",".join(op.qualifiers) or "-", op.summary]))
    lines.append(f"{COMMAND}|query or action|-|-|-|no operation above covers the "
                 "request: give \"command\" {argv, purpose, read_only}")
    lines.append("")
    lines.append("Slot values:")
    lines.extend(f"  {name}: {SLOT_FORMS.get(name, 'a word')}" for name in slot_names(templates))
    return schema, "\n".join(lines)


def _cached(templates: TemplateSet) -> tuple[dict[str, Any], str]:
    held = _CACHE.get(id(templates))
    if held is None or held[0] is not templates:
        schema_, text = _build(templates)
        held = _CACHE[id(templates)] = (templates, schema_, text)
    return held[1], held[2]


def schema(templates: TemplateSet) -> dict[str, Any]:
    return _cached(templates)[0]


def describe(templates: TemplateSet) -> str:
    return _cached(templates)[1]
