"""One earlier exchange of a conversation (`Turn`): what the person asked and, in one line,
what reos understood or did, so the model can read pronouns and follow-ups ("stop it",
"and the db one").

A record only: not responsible for keeping the last turns (`session.ModelSession`) or for
writing them into the prompt (`prompt`).
"""

from __future__ import annotations

from msgspec import Struct


class Turn(Struct):
    """One earlier exchange, for pronouns and follow-ups ("stop it", "and the db one")."""

    request: str
    outcome: str  # what reos understood or did, in one line
