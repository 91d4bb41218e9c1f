"""What reos says when it does not (yet) plan: questions, "not understood", the tour.

Questions offer numbered choices (answered in the next turn by number, name or phrase);
"not understood" says which words were understood and names the closest operations of
the catalogue; the help tour is generated from the catalogue's summaries and examples.
Every word that came from the request is quoted as the person wrote it, after `clean`.

Not responsible for deciding when to ask (understanding and the plan builder do) or for
reading the answer (the engine does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from reos.catalogue.operations import Operation
from reos.model.request import Intent, Option
from reos.text import clean
from reos.words.conversation import PLURALS

if TYPE_CHECKING:
    from typing import Any

_SHOWN = 60  # characters of a quoted word shown back


def _quote(words: list[str]) -> str:
    shown = [f"\u201c{clean(w)[:_SHOWN]}\u201d" for w in words[:4]]
    more = f" and {len(words) - 4} more" if len(words) > 4 else ""
    if len(shown) <= 1:
        return "".join(shown) + more
    return ", ".join(shown[:-1]) + f" and {shown[-1]}" + more


def label(option: Option) -> str:
    """One choice in words: 'restart nginx', 'stop the running containers'."""
    intent = option.intent
    verb = intent.summary or (intent.action or "do that").replace("_", " ")
    what = ", ".join(intent.targets) if intent.targets else ""
    filters = " ".join(q for q in intent.qualifiers if q != "only")
    said = " ".join(p for p in (verb, filters and f"({filters})", what and f"\u2014 {what}")
                    if p)
    if option.consequence:
        said += f" ({option.consequence})"
    return clean(said)


def which_reading(options: list[tuple[str, Intent]], unexplained: list[str],
                  question: str | None = None) -> str:
    verb = "means" if len(unexplained) == 1 else "mean"
    lead = (f"I'm not sure what {_quote(unexplained)} {verb} here." if unexplained
            else "That could mean more than one thing.")
    if question:  # the model's own question (cleaned and bounded by the validator)
        lead = clean(question)
    if len(options) == 1:
        ask = "Did you mean this? Say 1 (or yes) to go on, or say it another way:"
    else:
        ask = "Which do you mean? Answer with a number or in words:"
    numbered = "\n".join(f"  {n}. {text}" for n, (text, _) in enumerate(options, start=1))
    return f"{lead} {ask}\n{numbered}"


def which_target(phrase: str, options: list[tuple[str, Intent]]) -> str:
    """A name that fits several things: the things, numbered."""
    numbered = "\n".join(f"  {n}. {text}" for n, (text, _) in enumerate(options, start=1))
    return (f"\u201c{clean(phrase)[:_SHOWN]}\u201d could mean several things. Which do you "
            f"mean? Answer with a number or a name:\n{numbered}")


def cannot_filter(words: list[str], resource: str | None) -> str:
    things = PLURALS.get(resource or "", "those")
    return (f"I can't tell which {things} are {_quote(words)}, so I won't guess. Name them, "
            "or say which state you mean (running, stopped, failed, enabled, disabled).")


def place_not_found(word: str) -> str:
    return (f"I can't find \u201c{clean(word)[:_SHOWN]}\u201d here, and the change is about "
            "it, so I won't do it without knowing what it is. Check the name (users, groups "
            "and the rest are listed when you ask for them).")


def machine_not_found(word: str, hostname: object) -> str:
    """A request for a machine that is not this one, which reos does not know."""
    this = f" (this one is {clean(hostname)[:_SHOWN]})" if isinstance(hostname, str) and (
        hostname) else ""
    return (f"\u201c{clean(word)[:_SHOWN]}\u201d isn't this machine{this}, and no machine "
            "I know of is called so, so I did nothing. To work on other machines, name them "
            "in an Ansible inventory ([fleet] inventory in the settings, or --inventory) "
            "and say which ones (\u201c\u2026 on web1\u201d); for this machine, say it "
            "without that name.")


def cannot_schedule(when: str) -> str:
    said = clean(when)[:40].rstrip("?")
    units = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
    if said.startswith("in ") and said[-1:] in units:  # "in 10m": in 10 minutes
        said = f"{said[:-1]} {units[said[-1]]}".replace(" 1 hours", " an hour").replace(
            " 1 minutes", " a minute")
    said = f"for {said}" if said[:1].isdigit() else said
    return (f"I can't schedule that {said}, and I won't do it now instead. Say it again "
            "without the time to do it now, or come back then.")


def described(words: list[str]) -> str:
    return (f"I took {_quote(words)} to describe what you named: only one thing here is "
            "called so.")


def which_targets(intent: Intent) -> str:
    things = PLURALS.get(intent.resource or "", "things")
    if intent.kind.value == "query":
        what = intent.summary or "that"
        return f"Which {things} do you mean? Name them (\u201c{what} for \u2026\u201d)."
    verb = (intent.action or "act on").replace("_", " ")
    if intent.resource not in ("container", "service"):  # never "all" users or processes
        what = intent.summary or verb
        return f"Which {things} do you mean? Name them (\u201c{what} for \u2026\u201d)."
    return (f"Which {things} should I {verb}? Name them, or say \u201call\u201d or a state "
            "(\u201cthe stopped ones\u201d).")


def none_selected(intent: Intent, kinds: set[str]) -> str:
    filters = " ".join(q for q in intent.qualifiers if q not in ("all", "only"))
    things = " or ".join(PLURALS.get(k, k) for k in sorted(kinds))
    left = " (after leaving out what you named)" if intent.exclude else ""
    which = f"{filters} {things}" if filters else things
    return f"There are no {which}{left}, so there's nothing to do."


def unknown_exclusion(words: list[str], kinds: set[str]) -> str:
    things = " or ".join(PLURALS.get(k, k) for k in sorted(kinds))
    return (f"I can't find {_quote(words)} among the {things}, so I don't know what to "
            "leave out and won't guess. Name exactly what to spare, or say it without the "
            "exception.")


_VALUE_WORDS = {
    "group": "which group", "user": "which user",
    "shell": "which shell (bash, zsh, fish, nologin…)", "hostname": "the new host name",
    "fullname": "the full name (in quotes: 'Alice Smith')",
    "timezone": "which time zone (for example Europe/Berlin or UTC)",
    "date": "the date (YYYY-MM-DD)", "priority": "the priority (-20 to 19)",
    "port": "the port (1 to 65535)", "interface": "which network interface",
    "host": "which host (a name like debian.org or an address like 9.9.9.9)",
    "days": "how many days (1 to 99999)",
    "when": "when (in 10 minutes, at 23:30)", "timer": "which timer",
    "source": "which address or network (like 10.8.0.5 or 10.8.0.0/24, no wider than /8)",
    "path": "which path (starting with /)",
    "device": "which disk or partition (sdb1, /dev/sdb1)",
    "queue_id": "which message, by its queue id exactly as mailq shows it (A1B2C3D4E5, "
                "4XkQ2R1vZzN0; I delete one message at a time, never the whole queue)"}


def which_value(lacking: list[str], recipe: object) -> str:
    """A recipe needs a value the request did not give (or gave in a form reos won't pass
    to a command): in the recipe's own words where it has them (`asks`)."""
    wanted = getattr(recipe, "asks", None) or " and ".join(
        _VALUE_WORDS.get(s, f"the {s}") for s in lacking)
    return f"Tell me {wanted}, please: say it again with that in it."


def ignored_shell(text: str) -> str:
    return (f"I ignored {_quote([text])}: I never pass shell text from a request on to a "
            "command")


def one_part_first(parts: int) -> str:
    return (f"You asked for {parts} things; this one needs an answer first "
            "(ask me for the others once it is settled).")


def question_after(questions: list[str]) -> str:
    return ("Once it has run, I answer: "
            + "; ".join(f"\u201c{q}\u201d" for q in questions))


def question_not_run(question: str) -> str:
    return (f"I did not answer \u201c{question}\u201d: the change did not finish, so "
            "it would not say how things are after it")


def question_waits(questions: list[str]) -> str:
    return ("I answer questions on their own, so this waits: "
            + "; ".join(f"\u201c{q}\u201d" for q in questions)
            + " (ask me again once this is done)")


def unused_words(words: list[str]) -> str:
    return f"I didn't use {_quote(words)}"


def not_understood(intent: Intent | None) -> str:
    if intent is None:
        return "I didn't get a request there. Say \u201chelp\u201d to see what I can do."
    parts = ["Sorry, I didn't understand that."]
    understood = intent.params.get("understood", "")
    read = intent.reading
    if understood and read.unexplained:
        parts.append(f"I got \u201c{clean(understood)[:_SHOWN]}\u201d but couldn't place "
                     f"{_quote(read.unexplained)}.")
    elif read.unexplained:
        parts.append(f"I couldn't place {_quote(read.unexplained)}.")
    if read.ignored:
        parts.append(ignored_shell(read.ignored) + ".")
    if read.closest:
        parts.append("The closest things I can do: " + "; ".join(read.closest) + ".")
    parts.append("Say \u201chelp\u201d for a tour.")
    return " ".join(parts)


def no_recipe(pages: list[Any], intent: Intent) -> str:
    """Nothing in the catalogue fits, but this machine's manual has pages on the words."""
    lines = ["I have no recipe for that. These commands on this machine relate to it "
             "(read more with `man NAME`; I changed nothing):"]
    lines += [f"  {clean(p.name)} ({p.section}) \u2014 {clean(p.summary)}" for p in pages]
    if intent.reading.closest:
        lines.append("The closest things I can do: " + "; ".join(intent.reading.closest) + ".")
    return "\n".join(lines)


AREAS = {"container": "Containers", "service": "Services", "package": "Packages",
         "system": "The machine", "machine": "The machine", "logs": "Logs", "user": "Users",
         "cert": "Certificates"}


def tour(operations: list[Operation], brief: bool = False) -> str:
    """A short tour of the catalogue: each area, what it can do, one example."""
    areas: dict[str, list[Operation]] = {}
    for op in operations:
        if op.kind != "meta":
            areas.setdefault(AREAS.get(op.resource, op.resource.title()), []).append(op)
    lines = ["Here's what I can do \u2014 ask in your own words:"]
    for area, ops in areas.items():
        doings = list(dict.fromkeys(op.action.replace("_", " ") for op in ops))
        example = next((op.examples[0] for op in ops if op.examples), None)
        shown = doings[: 5 if brief else 12]
        more = ", \u2026" if len(doings) > len(shown) else ""
        lines.append(f"  \u2022 {area}: {', '.join(shown)}{more}"
                     + (f" (\u201c{example}\u201d)" if example else ""))
    lines.append("  \u2022 And: undo, \u201cwhat can you undo?\u201d, "
                 "\u201cwhy did you \u2026?\u201d, \u201cbe brief\u201d. I always show a "
                 "plan before changing anything.")
    return "\n".join(lines)
