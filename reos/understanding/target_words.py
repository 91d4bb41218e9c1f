"""Target words: which words of a request one reading acts on, and what they are worth.

A name of the kind the operation acts on, a word of its idiom's {target} gap, an alias of
the kind ("the wireless card") or any other word that can be a name (`weigh_as_target`; a
name of another kind counts against the reading) is taken as a target. Then: when real
names of the kind were said, the other words are not names of things that don't exist and
are said back (`real_names_only`); an operation that creates a thing takes the word after
"called"/"named" as the new name (`the_new_name`); an account and a group said the other
way round are swapped (`account_and_group`); the targets are joined into phrases and
weighed (`weigh_targets`). "me", "my" before an account word, or "I" in a question about
accounts adds the person's own account when the snapshot says who that is (`myself`).
`names` says whether a unit is a name of a kind here.

Not responsible for the order in which a unit's roles are tried (`scoring._place_units`),
for the slots' values (`slot_words`), or for which real things the phrases name (the
matcher).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.understanding.evidence import Reading, Weight, unplaced
from reos.understanding.tagging import Unit, phrases

if TYPE_CHECKING:
    from typing import Any


_NEVER_A_PATH = {"package", "user", "group", "container", "service", "interface", "timer"}


def names(unit: Unit, kind: str) -> bool:
    """Whether a unit is a snapshot name or alias of `kind` (or a path, for the kinds a
    path can name: mounts, devices, files; "/usr/sbin/nginx" is no package's name)."""
    roles = unit.roles
    return kind in roles.get("name", ()) or kind in roles.get("alias", ()) or (
        "path" in roles and kind not in _NEVER_A_PATH)


def account_and_group(reading: Reading, units: list[Unit],
                      target_units: list[Unit]) -> list[Unit]:
    """"remove sudo from bob": the group said where the account goes and the account where
    the group goes, as people put them either way round. Swapped when the words taken for
    the account name only a group and the group's word names an account."""
    group = reading.params.get("group")
    if len(target_units) != 1 or not group:
        return target_units
    said = target_units[0].roles.get("name", set())
    other = next((u for u in units if u.text == group), None)
    if other is None or "user" in said or "group" not in said or (
            "user" not in other.roles.get("name", set())):
        return target_units
    reading.params["group"] = target_units[0].text
    return [other]


def weigh_as_target(reading: Reading, n: int, unit: Unit, target_units: list[Unit]) -> bool:
    """Any other word that can be a name (an unknown word, a name of another kind, a
    path, a number, a word another operation uses: "htop" names a question too) taken
    as the target; a name of another kind is a conflict (OTHER_KIND_NAME). False for a
    word that cannot name anything."""
    roles = unit.roles
    if not ("name" in roles or unit.unknown or "alias" in roles or "path" in roles
            or "number" in roles or not roles.keys() - {"noun"}):
        return False
    reading.explained[n] = "target"
    target_units.append(unit)
    if "name" in roles:  # a name of another kind: this reading is less likely
        reading.conflicts.append(unit.text)
        reading.score += Weight.OTHER_KIND_NAME
    return True


def its_own_verb(reading: Reading, units: list[Unit],
                 target_units: list[Unit]) -> list[Unit]:
    """"list the members of the teachers group", "could you list which users …": the
    request's first word (after fillers) that asks or acts is its verb, even where a thing
    here has that name too (Debian's group and account "list"), when another target is
    said; alone, it may still be the name ("list" in "show list")."""
    if len(target_units) < 2:
        return target_units
    first = next((u for u in units if u.roles.keys() - {"filler"}), None)
    if first is None or first not in target_units or not (
            {"ask", "verb"} & first.roles.keys()):
        return target_units
    reading.explained[units.index(first)] = "ask"
    return [u for u in target_units if u is not first]


def real_names_only(reading: Reading, units: list[Unit],
                    target_units: list[Unit]) -> list[Unit]:
    """When real names of the target's kind were said, the other target words are not
    names of things that don't exist: each is a word NOT_A_NAME (said back). An
    operation that creates a thing keeps them (`the_new_name`)."""
    op = reading.op
    named = [u for u in target_units if names(u, op.target)]
    if not named or len(named) == len(target_units) or op.creates:
        return target_units
    for unit in target_units:
        if unit not in named:
            at = units.index(unit)
            reading.explained.pop(at, None)
            unplaced(reading, at, unit, Weight.NOT_A_NAME)
    return named


def the_new_name(reading: Reading, units: list[Unit],
                 target_units: list[Unit]) -> list[Unit]:
    """"a new group for the web people called webdev": the word after called/named is
    the new name; words before it describe it, a word after it names nothing
    (NOT_A_NAME: "a user called bob zorblax")."""
    called = [u for u in target_units if (at := units.index(u)) > 0
              and units[at - 1].text in ("called", "named")]
    if not called:
        return target_units
    for unit in target_units:
        if unit in called:
            continue
        at = units.index(unit)
        if unit.start < called[-1].start:
            reading.explained[at] = "description"
        else:
            reading.explained.pop(at, None)
            unplaced(reading, at, unit, Weight.NOT_A_NAME)
    return called


def weigh_targets(reading: Reading, units: list[Unit], target_units: list[Unit],
                  listed: frozenset[str]) -> None:
    """The targets, as phrases: TARGET_KNOWN when one names a thing of the kind here,
    else TARGET_SAID; each word nothing here is called costs GUESSED (GUESSED_LISTED
    where the snapshot lists every thing of the kind: "remove tmux" is not a user that
    doesn't exist); a new name costs NEW_NAME_KNOWN_WORD for a word other operations use
    and NEW_NAME_EXTRA_WORD for each word beyond one a name. None named, and no
    qualifier to choose by: NO_TARGET_ACTION or NO_TARGET_QUERY."""
    op = reading.op
    reading.targets = list(dict.fromkeys(phrases(target_units, units)))  # "curl … just curl"
    guessed = [u for u in target_units if not names(u, op.target)]
    if op.creates:  # new names are single words, and not words other operations use
        known_words = sum(1 for u in guessed if u.roles)
        extra_words = max(0, len(target_units) - len(reading.targets))
        reading.score += (Weight.NEW_NAME_KNOWN_WORD * known_words
                          + Weight.NEW_NAME_EXTRA_WORD * extra_words)
    else:  # a word taken as a name nothing here has
        reading.score += (Weight.GUESSED_LISTED if op.target in listed
                          else Weight.GUESSED) * len(guessed)
    if reading.targets:
        reading.score += Weight.TARGET_KNOWN if reading.named_kinds else Weight.TARGET_SAID
        reading.evidence.add("target")
        reading.plural = reading.plural or len(reading.targets) > 1
    elif op.target != "none" and not reading.qualifiers:
        reading.score += (Weight.NO_TARGET_ACTION if op.kind != "query"
                          else Weight.NO_TARGET_QUERY)  # nothing named to act on


_ACCOUNT_WORDS = {"account", "user", "login", "shell", "groups", "group", "username",
                  "user account", "login shell"}
# what a person's own account is never taken for without naming it: deleting, locking or
# expiring oneself is asked about like any other account left unnamed
_NOT_ON_MYSELF = {"delete", "delete_with_home", "lock", "expire_password", "set_expiry"}


def myself(readings: list[Reading], units: list[Unit], matcher: Any) -> None:
    """"add me to the docker group", "change my shell", "which groups am I in": an account
    operation whose account is the person themself, when the snapshot says who that is.
    Only "me"/"myself", "my" before an account word, or "I" in a question about accounts
    say so; "I want to delete a user" does not."""
    from reos.understanding.names import SAFE_NAMES

    host = getattr(getattr(matcher, "snapshot", None), "host", None) or {}
    me = host.get("user")
    if not isinstance(me, str) or not SAFE_NAMES["user"].match(me):
        return
    words = [w for u in units for w in u.text.split()]
    said = {"me", "myself"} & set(words) or {
        w for w, after in zip(words, words[1:], strict=False)
        if w == "my" and after in _ACCOUNT_WORDS}
    for reading in readings:
        op = reading.op
        if op.target != "user" or op.creates or op.action in _NOT_ON_MYSELF:
            continue
        asked_as_i = op.kind == "query" and "i" in words and not reading.targets
        if (said or asked_as_i) and me not in reading.targets:
            reading.targets = [*reading.targets, me]
            reading.score += Weight.MYSELF if len(reading.targets) == 1 else Weight.MYSELF_TOO
            reading.evidence.add("target")
