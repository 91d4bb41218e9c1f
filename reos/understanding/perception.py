"""Meta utterances: undo, "what can you undo?", yes / no, "be brief", thanks and hello, the
`plan:` prefix.

These are matched as whole utterances only, after light normalisation, so that
"yesterday's logs" is never "yes" and "now restart nginx" is never "no".
Not responsible for acting on them (the engine does) or for understanding requests.
"""

from __future__ import annotations

import re

from msgspec import Struct

from reos.patterns import regex

_UNDO = {
    "undo", "undo that", "undo it", "undo this", "undo last", "undo the last change",
    "undo the last action", "undo last change", "revert", "revert that", "revert it",
    "roll back", "rollback", "roll that back", "roll it back", "take that back",
    "reverse that", "put it back", "put it back how it was",
}
_LIST_UNDO = {
    "what can you undo", "what can i undo", "what can be undone", "what could you undo",
    "show undo history", "undo history", "list undo", "what did you do", "what have you done",
    "what did you change", "show history", "history",
}
_YES = {
    "y", "yes", "yeah", "yep", "yup", "sure", "ok", "okay", "go ahead", "do it", "proceed",
    "approve", "approved", "yes please", "go", "confirm", "please do", "sounds good", "run it",
}
_NO = {
    "n", "no", "nope", "cancel", "abort", "don't", "dont", "do not", "never mind",
    "nevermind", "no thanks", "forget it", "deny", "skip it", "don't do it",
}
_BRIEF = {
    "be brief", "be more brief", "be concise", "be more concise", "keep it short",
    "less detail", "shorter answers", "be quiet", "be terse",
}
_DETAILED = {
    "be more detailed", "be detailed", "more detail", "more details", "explain more",
    "be verbose", "be more verbose", "tell me more", "longer answers",
}
_NORMAL = {"normal verbosity", "be normal", "normal detail", "default verbosity"}
# a verbosity change lasts for the session; said with one of these it is also saved
_KEEP = regex(
    r"^(?:(?:can|could|would|will) you )?always |,? ?(?:and )?(?<!not )(?:always|by default|"
    r"permanently|for good|every time|(?:next time|in (?:the )?future)(?: too)?|"
    r"(?:remember|save|keep) (?:it|that|this)(?: for next time| that way)?)$")

# "why did you X", "how come you X", "what made you X", "explain why you X", "did you X?":
# questions about what reos did are answered from the journal, never read as a request
# to do X again
_WHY = regex(
    r"^(?:(?:can|could|would)\s+you\s+)?(?:please\s+)?(?:explain\s+|tell\s+me\s+)?"
    r"(?:(?:why|wyh|hwy|whyd)\s+(?:did|do|would|have|had|'d)?\s*you|how\s+come\s+you|"
    r"what\s+made\s+you|for\s+what\s+reason\s+did\s+you)\s+(?P<what>.+)$")
_DID_YOU = regex(r"^(?:did|have|had)\s+you\s+(?:just\s+|already\s+)?(?P<what>.+)$")
_HELP = {"?", "help", "help me", "help please", "what can you do", "what can you do for me"}
# small talk: answered in a word, never planned
_THANKS = {"thanks", "thank you", "thanks a lot", "thank you very much", "thx", "ty", "cheers",
           "thanks mate", "thank you so much", "many thanks", "great thanks", "great, thanks",
           "perfect thanks", "perfect, thanks", "awesome thanks", "nice one", "good job",
           "well done", "thanks for the help", "thank you for your help"}
_HELLO = {"hi", "hello", "hey", "hey there", "hi there", "hello there", "good morning",
          "good afternoon", "good evening", "morning", "yo", "howdy", "hiya", "greetings"}
_PLAN_PREFIX = regex(r"^\s*plan\s*:\s*", re.IGNORECASE)


class Meta(Struct, frozen=True):
    action: str  # undo | list_undo | yes | no | verbosity | why | help | chat
    value: str | None = None
    keep: bool = False  # verbosity: saved in the settings file, not only for the session


def keeps(text: str) -> bool:
    """Whether a verbosity request asks to keep the change beyond this session ("always
    be brief", "please be brief by default", "keep it short, and remember that"; never
    "be brief, not always")."""
    return _KEEP.search(_plain(text)) is not None


def _plain(text: str) -> str:
    """The utterance normalised, without a "please" at either end."""
    said = normalise(text)
    if said.startswith("please "):
        said = said[len("please "):]
    if said.endswith(" please"):
        said = said[: -len(" please")]
    return said


def normalise(text: str) -> str:
    text = text.strip().lower().replace("\u2019", "'")
    text = re.sub(r"\s+", " ", text)
    return text.strip(" .!?,;")


def perceive(text: str) -> Meta | None:
    said = _plain(text)
    why = _WHY.match(said) or _DID_YOU.match(said)
    if why:
        return Meta("why", why["what"])
    if said in _HELP or text.strip() == "?":
        return Meta("help")
    for words, meta in (
        (_UNDO, Meta("undo")),
        (_LIST_UNDO, Meta("list_undo")),
        (_YES, Meta("yes")),
        (_NO, Meta("no")),
        (_BRIEF, Meta("verbosity", "minimal")),
        (_DETAILED, Meta("verbosity", "detailed")),
        (_NORMAL, Meta("verbosity", "normal")),
        (_THANKS, Meta("chat", "thanks")),
        (_HELLO, Meta("chat", "hello")),
    ):
        if said in words:
            return meta
    plain = _KEEP.sub("", said, count=1).strip(" ,")
    if plain != said:
        for words, level in ((_BRIEF, "minimal"), (_DETAILED, "detailed"), (_NORMAL, "normal")):
            if plain in words:
                return Meta("verbosity", level, keep=True)
    return None


def split_plan_prefix(text: str) -> tuple[bool, str]:
    """(`plan:` was given, the request without it)."""
    match = _PLAN_PREFIX.match(text)
    return (True, text[match.end():]) if match else (False, text)
