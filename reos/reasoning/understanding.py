"""Understanders: turn a request into an Intent, or pass.

The chain is tried in order (an LLM understander slots in first when one exists; see
ARCHITECTURE.md §7); the first that returns an Intent wins. Here: the template
understander (patterns from `templates/*.toml`) and the regex understander (a generic
"verb + the things to act on" reading for what templates do not cover).

Not responsible for knowing whether the targets exist (the matcher does) or for steps.
"""

from __future__ import annotations

import functools
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
    r"(?:[\s,]+(?:please|pls|for\s+me|thanks|thank\s+you|asap))+$",
    re.IGNORECASE,
)

RESOURCE_WORDS = {
    "container": "container", "containers": "container", "docker": "container",
    "service": "service", "services": "service", "daemon": "service", "unit": "service",
    "engine": "service", "daemons": "service", "units": "service",
    "package": "package", "packages": "package",
}
_DETERMINERS = {"the", "my", "a", "an", "these", "those", "this", "that", "our", "its", "of"}
_GROUP_WORDS = {"all", "every", "both", "each", "everything"}
_FILLERS = {"running", "stopped", "again", "now", "right", "immediately", "up", "back"}
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
        said = part.split()
        for word in said:
            if word == "docker" and any(w in ("daemon", "service", "engine") for w in said):
                words.append(word)  # "the docker daemon" names the service docker
            elif word in RESOURCE_WORDS:
                resource = resource or RESOURCE_WORDS[word]
                plural = plural or word.endswith("s")
            elif word in _GROUP_WORDS:
                plural = True
                words.append("all") if word != "both" else None
            elif word in _DETERMINERS or word in _FILLERS:
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
                groups = match.groupdict()
                if template.kind == "refuse":
                    return Intent(kind=Kind.REFUSE, action="refuse", source="template",
                                  template=template.name, reason=template.reason)
                action: str | None = template.action
                if action == "from_verb":
                    action = _VERB_OF.get(re.sub(r"\s+", " ", (groups.get("verb") or "").lower()))
                if action is None:
                    continue
                intent = _intent_from(template.kind, action, template.resource,
                                      groups.get("targets"), "template", template.name, text)
                if intent is None:
                    continue
                intent.params = {k: v for k, v in groups.items()
                                 if k not in ("targets", "verb") and v}
                intent.then = list(template.then)
                intent.note = template.note
                return intent
        return None

    return understand


# Generic verbs: what a person says -> the action name recipes use.
VERBS: dict[str, tuple[str, ...]] = {
    "stop": ("stop", "halt", "shut down", "bring down", "turn off"),
    "start": ("start", "launch", "bring up", "turn on", "fire up", "spin up"),
    "restart": ("restart", "bounce", "cycle"),
    "kill": ("kill", "force stop", "force-stop"),
    "remove": ("remove", "delete", "destroy", "get rid of"),
}
@functools.cache
def _verb_re() -> re.Pattern[str]:
    # compiled on first use: a request a template understood never needs it
    verbs = sorted((re.escape(v) for vs in VERBS.values() for v in vs), key=len, reverse=True)
    return re.compile(r"^(?P<verb>" + "|".join(verbs) + r")\s+(?P<targets>.+)$", re.IGNORECASE)


_VERB_OF = {v: action for action, vs in VERBS.items() for v in vs}


def regex_understander(text: str) -> Intent | None:
    """"<verb> <things>" with the resource left to the matcher unless the words say it."""
    match = _verb_re().match(text)
    if not match:
        return None
    action = _VERB_OF[re.sub(r"\s+", " ", match["verb"].lower())]
    return _intent_from("action", action, None, match["targets"], "regex", whole=text)


_STATE = r"(?P<state>running|up|active|started|alive|stopped|down|dead|inactive|not\s+running)"
_CONDITION_SOURCES = [
    # "is nextcloud running? if so stop it"
    r"^(?:is|are)\s+(?:the\s+)?(?P<subject>.+?)\s+" + _STATE
    + r"\s*\??[\s,.;:-]*(?:and\s+)?(?:if\s+(?:so|yes|it\s+is|they\s+are)|then)"
    r"[\s,]*(?:then\s+|please\s+)?(?P<rest>.+)$",
    # "if nginx is running, restart it"
    r"^if\s+(?:the\s+)?(?P<subject>.+?)\s+(?:is|are)\s+" + _STATE
    + r"[\s,]*(?:then\s+)?(?P<rest>.+)$",
    # "restart nginx if it is running"
    r"^(?P<rest>.+?)[\s,]+(?:but\s+)?(?:only\s+)?if\s+(?:the\s+)?(?P<subject>.+?)\s+"
    r"(?:is|are)\s+" + _STATE + r"$",
]


@functools.cache
def _conditions() -> list[re.Pattern[str]]:
    return [re.compile(source, re.IGNORECASE) for source in _CONDITION_SOURCES]


_IF_WORDS = re.compile(r"\b(?:if|then)\b", re.IGNORECASE)
_PRONOUN_WORDS = re.compile(r"\b(?:it|them|they|those|these)\b", re.IGNORECASE)
_NOT_RUNNING = {"stopped", "down", "dead", "inactive", "not running"}


def split_condition(text: str) -> tuple[str, str, str] | None:
    """(condition, subject words, the action part) of a conditional request, or None."""
    if not _IF_WORDS.search(text):
        return None  # no "if" or "then": not conditional, and no regex compiled for it
    for pattern in _conditions():
        match = pattern.match(text)
        if match:
            state = re.sub(r"\s+", " ", match["state"].lower())
            condition = "if_stopped" if state in _NOT_RUNNING else "if_running"
            return condition, match["subject"], match["rest"]
    return None


def understand(text: str, chain: Iterable[Understander]) -> Intent | None:
    cleaned = clean_request(text)
    if not cleaned:
        return None
    conditional = split_condition(cleaned)
    if conditional:
        condition, subject, rest = conditional
        if subject.lower() not in _PRONOUNS:
            rest = _PRONOUN_WORDS.sub(subject, rest)
        intent = _first(clean_request(rest), chain)
        if intent is not None and intent.kind == Kind.ACTION:
            intent.kind = Kind.COMBINED
            intent.condition = condition
            phrases, resource, _plural = parse_targets(subject)
            if subject.lower() not in _PRONOUNS and phrases:
                intent.condition_subject = (phrases, resource)
            return intent
    return _first(cleaned, chain)


def _first(text: str, chain: Iterable[Understander]) -> Intent | None:
    for understander in chain:
        intent = understander(text)
        if intent is not None:
            return intent
    return None
