"""What a reading of a request is made of: `Reading`, one operation's account of the
request's units (what each unit was taken for, its targets and values, the words it could
not place, its score), and `Weight`, what each piece of evidence adds to that score;
`unplaced` records a word a reading could not place (its cost taken off the score, the
word kept to be said back).

Not responsible for finding the evidence (`scoring`, with `slot_words` and
`target_words`) or for choosing among readings (`parser.parse`, then `reading`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.catalogue.operations import Operation
from reos.understanding.tagging import Unit

if TYPE_CHECKING:
    from typing import Final


class Weight:
    """What each piece of evidence adds to an operation's score: every number the scorer
    adds or takes off (`scoring.score` and its steps, `target_words.myself`, a full name
    in `parser.parse`) is here and nowhere else. A reading's score is the sum of the
    weights of what it found; the best one wins, and reading.py compares it with
    MIN_SCORE (1.5: below it, not understood) and CLOSE (1.0: two readings this close are
    asked about).

    Rewards are positive and penalties negative, both added; the costs of words a reading
    cannot place are positive, taken off by `unplaced`, and said back to the person.
    Sizes are relative to a verb (3): a verb and a named target (3 + 2.5) is a confident
    reading; idioms, nouns and resource nouns sit around a verb; values, numbers and
    qualifiers (0.5) only break ties; a negation (-6) outweighs whatever was said for it.
    Some pairs are equal on purpose (SLOT_NOUN and NOUN, MYSELF and TARGET_KNOWN): each
    is its own name so that it can be tuned alone.
    """

    # -- an idiom, a whole phrasing ("make {target} start at boot"): `_weigh_idiom` --
    IDIOM: Final = 4  # said whole: beats a verb (3), which other operations share
    IDIOM_WORD: Final = 1  # each unit it covers: a longer phrasing says more
    IDIOM_HELD: Final = -1  # each unit of its {target} gap: a name says which thing, not op
    IDIOM_BORROWED: Final = -2  # a gap word with a meaning of its own: the idiom took it
    NEGATED_IDIOM: Final = -6  # "does *not* start at boot": beats the idiom (4 and up)
    IDIOM_NAMES: Final = 2.5  # a noun of its own in it names a thing here ("turn *ufw* on"):
    # it says which thing too, as a target would (TARGET_KNOWN) in another op's gap

    # -- the words that name the operation: `_weigh_verb`, `_weigh_noun`, … --
    VERB: Final = 3  # its first verb ("restart"): alone twice MIN_SCORE; a second adds 0
    DESCRIBING_VERB: Final = 1.5  # a first verb in -s form ("*holds* port 80"): describes
    NEGATED_VERB: Final = -6  # "don't restart it": beats a verb and an idiom, never wins
    NOUN: Final = 2  # its own noun ("uptime"): names a question, less than a verb
    SLOT_NOUN: Final = 2  # a slot's noun that is its noun too ("who's got *port* 3306")
    RESOURCE: Final = 1.5  # the noun of its kind ("containers"): every op on it shares it
    LISTING: Final = 0.5  # that noun naming a whole listing: with RESOURCE, a NOUN
    OTHER_RESOURCE: Final = -2.5  # a noun of another kind ("the backup *timer*"): > RESOURCE

    # -- words that fit its slots and filters: tie-breakers, never deciders --
    SLOT_VALUE: Final = 0.5  # a value one of its slots takes (a group, a shell, a date)
    QUALIFIER: Final = 0.5  # a qualifier it applies ("the *stopped* containers")
    NUMBER: Final = 0.5  # a number for its numeric slot (lines, count, port, priority)
    SERVICE_PORT: Final = 0.5  # a service's name as a rule's port ("allow *ssh*")
    UNHONOURED: Final = -1  # a filter or a time it cannot apply: asked, ranks below ops that can

    # -- what it acts on: `target_words.weigh_targets`, `target_words.weigh_as_target` --
    TARGET_KNOWN: Final = 2.5  # a target naming a thing of its kind here: says which one
    TARGET_SAID: Final = 1  # target words naming no such thing: at least something to act on
    OTHER_KIND_NAME: Final = -1.5  # a name of another kind ("portainer" for a user)
    GUESSED: Final = -0.5  # each target word nothing here is called: a small doubt
    GUESSED_LISTED: Final = -1.5  # the same for a kind listed whole (users): "remove tmux"
    NEW_NAME_KNOWN_WORD: Final = -1  # a new name that other operations use as a word
    NEW_NAME_EXTRA_WORD: Final = -1  # each word beyond one a new name: new names are one word
    NO_TARGET_ACTION: Final = -1.5  # a change with no target or filter: "restart the service"
    NO_TARGET_QUERY: Final = -1  # a question with none: milder, it may be about them all
    MYSELF: Final = 2.5  # "add *me* to docker": the person's own account, a known name
    MYSELF_TOO: Final = 0.5  # their own account beside targets already named
    FULL_NAME: Final = 1.5  # a full name for an op that sets one ("… to 'Alice Smith'")

    # -- costs of words it cannot place (`unplaced`: taken off, said back) --
    STRAY_WORD: Final = 1  # a word it cannot place: as much as a target word scores
    SECOND_VALUE: Final = 1  # a second port, address, group, time: said back, never swapped
    LEADING_VERB: Final = 3  # a command's own first word left over ("*kill* …"): a VERB
    LEADING_ASK: Final = 3  # "*show* me …" read as an action: a verb against the action
    ASK_WORD: Final = 0.5  # another asking word read by an action: a hint only
    NOT_A_NAME: Final = 0.5  # a word beside a name that names nothing ("bob *zorblax*")
    BACKGROUND: Final = 0.75  # given back outside the asking clause: a quarter of it stays


class Reading:
    """One operation's account of the request."""

    def __init__(self, op: Operation):
        self.op = op
        self.score = 0.0
        self.evidence: set[str] = set()  # verb, noun, idiom, resource, target
        self.explained: dict[int, str] = {}  # unit index -> role used
        self.targets: list[str] = []
        self.named_kinds: set[str] = set()  # kinds the target names are
        self.exact = False  # a target is the whole name of a thing of its kind
        self.unexplained: list[str] = []
        self.conflicts: list[str] = []  # words naming something else
        self.qualifiers: list[str] = []
        self.unhonoured: list[str] = []  # qualifiers the op cannot apply
        self.unhonoured_at: list[int] = []  # and where they were said
        self.params: dict[str, str] = {}
        self.plural = False
        self.unplaced: dict[int, float] = {}  # unit index -> what not placing it cost
        self.background = 0  # unplaced words outside the clause that names the operation
        self.claims_exclusion = False  # an idiom of the operation holds the "except X"

    @property
    def confidence(self) -> float:
        """Explained content words over all of them (background clauses left out)."""
        content = len(self.explained) + len(self.unexplained) + len(self.conflicts)
        content -= self.background
        if content <= 0:
            return 0.0
        unplaced = len(self.unexplained) - self.background
        return round((content - unplaced - len(self.conflicts)) / content, 2)

    def __repr__(self) -> str:
        return f"Reading({self.op.id}, {self.score}, targets={self.targets})"


def unplaced(reading: Reading, n: int, unit: Unit, cost: float) -> None:
    reading.unexplained.append(unit.text)
    reading.unplaced[n] = cost
    reading.score -= cost
