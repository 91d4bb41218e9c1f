"""Understanders: turn a request into an Intent, or pass.

The chain is tried in order (an LLM understander slots in first when one exists; see
ARCHITECTURE.md §7); the first that returns an Intent wins. Here: the template
understander (patterns from `templates/*.toml`) and the regex understander (a generic
"verb + the things to act on" reading for what templates do not cover).

Not responsible for knowing whether the targets exist (the matcher does) or for steps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from reos.model import Intent, Kind
from reos.reasoning.templates import TemplateSet

Understander = Callable[[str], Intent | None]

_PADDING_START = re.compile(
    r"^(?:(?:hey|ok|okay|so|now|then|and|reos)[,\s]+)*"
    r"(?:(?:please|pls|kindly)\s+)?"
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would\s+like)\s+"
    r"(?:you\s+)?to\s+|let'?s\s+|go\s+ahead\s+and\s+|try\s+to\s+)?"
    r"(?:(?:please|pls)\s+)?",
    re.IGNORECASE,
)
_PADDING_END = re.compile(
    r"(?:[\s,]+(?:please|pls|for\s+me|now|right\s+now|thanks|thank\s+you|asap))+$",
    re.IGNORECASE,
)

RESOURCE_WORDS = {
    "container": "container", "containers": "container", "docker": "container",
    "service": "service", "services": "service", "daemon": "service", "unit": "service",
    "package": "package", "packages": "package",
}
_DETERMINERS = {"the", "my", "a", "an", "these", "those", "this", "that", "our", "its", "of"}
_GROUP_WORDS = {"all", "every", "both", "each", "everything"}
_PRONOUNS = {"it", "them", "they", "that", "this", "those", "these"}
_SPLIT = re.compile(r"\s*(?:,|\band\b|&|\bplus\b|\bas\s+well\s+as\b)\s*", re.IGNORECASE)
_WORD_OK = re.compile(r"^[a-z0-9][a-z0-9_.@:/+-]*$")


def clean_request(text: str) -> str:
    """The request without polite padding, punctuation at the ends or doubled spaces."""
    text = re.sub(r"\s+", " ", text.strip()).strip(" .!?")
    text = _PADDING_START.sub("", text, count=1)
    return _PADDING_END.sub("", text).strip(" .!?,")


def parse_targets(text: str) -> tuple[list[str], str | None, bool]:
    """Words naming targets: (target phrases, resource word seen, plural?).

    "the nextcloud containers" -> (["nextcloud"], "container", True)
    "cups and avahi"           -> (["cups", "avahi"], None, True)
    """
    resource = None
    plural = False
    phrases = []
    for part in _SPLIT.split(text.lower()):
        words = []
        for word in part.split():
            if word in RESOURCE_WORDS:
                resource = resource or RESOURCE_WORDS[word]
                plural = plural or word.endswith("s")
            elif word in _GROUP_WORDS:
                plural = True
                words.append("all") if word != "both" else None
            elif word in _DETERMINERS or word in ("running", "stopped", "again"):
                continue
            else:
                words.append(word)
        phrase = " ".join(w for w in words if w)
        if phrase:
            phrases.append(phrase)
    if len(phrases) > 1:
        plural = True
    return phrases, resource, plural


def valid_phrase(phrase: str) -> bool:
    """Target words must look like names; anything else is not a target."""
    return all(_WORD_OK.match(w) for w in phrase.split()) and phrase not in _PRONOUNS


_PLURAL_WORDS = re.compile(r"\b(?:containers|services|packages|all|both|every|each)\b", re.I)


def _intent_from(kind: str, action: str, resource: str | None, targets_text: str | None,
                 source: str, template: str | None = None, whole: str = "") -> Intent | None:
    intent = Intent(kind=Kind(kind), action=action, resource=resource, source=source,
                    template=template)
    if targets_text is None:
        return intent
    phrases, said_resource, plural = parse_targets(targets_text)
    if not phrases or not all(valid_phrase(p) for p in phrases):
        return None
    intent.targets = phrases
    intent.plural = plural or bool(_PLURAL_WORDS.search(whole))
    intent.resource = resource or said_resource
    return intent


def template_understander(templates: TemplateSet) -> Understander:
    def understand(text: str) -> Intent | None:
        for template in templates.intents:
            for pattern in template.patterns:
                match = pattern.match(text)
                if not match:
                    continue
                slot = match.groupdict().get("targets")
                intent = _intent_from(template.kind, template.action, template.resource,
                                      slot, "template", template.name, text)
                if intent is not None:
                    return intent
        return None

    return understand


# Generic verbs: what a person says -> the action name recipes use.
VERBS: dict[str, tuple[str, ...]] = {
    "stop": ("stop", "halt", "shut down", "bring down", "turn off"),
    "start": ("start", "launch", "bring up", "turn on", "fire up", "spin up"),
    "restart": ("restart", "bounce"),
    "kill": ("kill", "force stop", "force-stop"),
    "remove": ("remove", "delete", "destroy", "get rid of"),
}
_VERB_RE = re.compile(
    r"^(?P<verb>"
    + "|".join(sorted((re.escape(v) for vs in VERBS.values() for v in vs), key=len, reverse=True))
    + r")\s+(?P<targets>.+)$",
    re.IGNORECASE,
)
_VERB_OF = {v: action for action, vs in VERBS.items() for v in vs}


def regex_understander(text: str) -> Intent | None:
    """"<verb> <things>" with the resource left to the matcher unless the words say it."""
    match = _VERB_RE.match(text)
    if not match:
        return None
    action = _VERB_OF[re.sub(r"\s+", " ", match["verb"].lower())]
    return _intent_from("action", action, None, match["targets"], "regex", whole=text)


def understand(text: str, chain: Iterable[Understander]) -> Intent | None:
    cleaned = clean_request(text)
    if not cleaned:
        return None
    for understander in chain:
        intent = understander(cleaned)
        if intent is not None:
            return intent
    return None
