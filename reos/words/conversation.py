"""What reos says: plans, answers, notes and undo reports, in natural sentences.

Respects verbosity (minimal / normal / detailed) and `show_commands`. Produces text
only; it never decides anything. Sentences are written the way a helpful colleague
would say them ("Okay, stopping 2 containers."), not as status codes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from msgspec import Struct

from reos.model.plan import RESTARTS, Plan, Shown, Step
from reos.model.plan import render as command_line
from reos.model.risk import RiskLevel

if TYPE_CHECKING:
    from typing import Any


class Voice(Struct):
    verbosity: str = "normal"
    show_commands: bool = True
    explain: bool = True  # [reasoning] explain_steps: why each step is there, the quality


    @property
    def brief(self) -> bool:
        return self.verbosity == "minimal"

    @property
    def detailed(self) -> bool:
        return self.verbosity == "detailed"


PLURALS = {"container": "containers", "service": "services", "package": "packages",
           "user": "users", "group": "groups", "process": "processes", "mount": "mounts",
           "device": "disks", "interface": "network interfaces", "timer": "timers"}


def count(n: int, noun: str) -> str:
    return f"{n} {noun if n == 1 else PLURALS.get(noun, noun + 's')}"


_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def size(n: float) -> str:
    """Bytes the way people read them, the one way reos says a size: 812 B, 3.4 MiB,
    4 MiB, 512 MiB (no decimals from 100 up), 1.5 GiB."""
    value = float(n)
    for unit in _UNITS:
        if abs(value) < 1024 or unit == _UNITS[-1]:
            break
        value /= 1024
    said = f"{value:.0f}" if unit == "B" or abs(value) >= 100 else f"{value:.1f}"
    return f"{said.removesuffix('.0')} {unit}"


def join_names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def summary_line(plan: Plan, verb: str | None) -> str:
    """'This will stop 2 containers:' - the plan's first sentence."""
    acted = list(dict.fromkeys(s.target for s in plan.steps if s.target is not None))
    kinds = {t.kind for t in acted}
    if verb and len(kinds) == 1 and len(acted) == len(plan.steps):
        return f"This will {verb} {count(len(acted), kinds.pop())}:"
    return f"Here's the plan ({count(len(plan.steps), 'step')}):"


def render(plan: Plan, voice: Voice, quality: str | None = None) -> None:
    """Render the plan's words, once, after it is built and amended: a plan that changes
    something says its steps (`plan.shown`, with `quality`, the assessment's words, first
    when explanations are on) and nothing else of its own; any other says what it says
    (`plan.said`: a question, an answer, what a query looks at). Either way what is said
    first (`plan.lead`) goes before, when a surface shows it (`Plan.text`)."""
    if plan.steps and not plan.read_only:
        present(plan, voice, plan.verb)
        assert plan.shown is not None
        if quality and not plan.blocked and not voice.brief and (voice.explain
                                                                  or voice.detailed):
            plan.shown.before.insert(0, quality)
        plan.said = []  # what it said while it was built is not said: its steps are
        return
    plan.shown = None


def present(plan: Plan, voice: Voice, verb: str | None = None) -> None:
    """The plan's words as shown before approval, around its list of steps
    (`plan.shown`)."""
    listed = []
    for n, step in enumerate(plan.steps, start=1):
        # what would run is always shown before approval, at every verbosity: consent
        # needs the commands (`show_commands` and brevity quieten only the running)
        listed.append(f"  {n}. {step.title}   $ {step.command}")
        if step.why and voice.explain and not voice.brief:
            listed.append(f"       why: {step.why}")
        if voice.detailed:
            listed.append(f"       risk {step.risk.label}"
                          + (f" ({'; '.join(step.risk_reasons)})" if step.risk_reasons
                             else "")
                          + (f"; undo: {' '.join(step.rollback)}" if step.rollback else ""))
    after: list[str] = []
    for note in plan.notes:
        after.append(f"({note})" if not voice.brief else "")
    if plan.risk >= RiskLevel.HIGH and not plan.blocked:
        why = sorted({r for s in plan.steps if s.risk >= RiskLevel.HIGH for r in s.risk_reasons})
        after.append(f"Heads up: this is {plan.risk.label}-risk"
                     + (f" ({'; '.join(why)})." if why else "."))
    changes = [s for s in plan.steps if not s.read_only]
    lost = [s for s in changes if not s.reversible and not s.nothing_to_restore]
    irreversible = [s.title for s in lost]
    if lost and lost[-1] is changes[-1]:  # what the plan is for is lost for good
        after.append("This cannot be undone" + (
            f" ({join_names(irreversible)})." if voice.detailed else "."))
    elif irreversible:  # "mount it at /srv/x": undo unmounts, the new directory stays
        after.append(f"Undo can take back all of this except: {join_names(irreversible)}.")
    bounced = [s.title for s in changes if s.nothing_to_restore]
    if bounced:  # nothing is lost, and nothing can be put back either
        after.append(f"{join_names(bounced)} cannot be undone: there is nothing to restore.")
    if plan.blocked:
        after.append(f"\u26d4 I won't run this: {plan.blocked_reason}")
    plan.shown = Shown([summary_line(plan, verb)], listed, [line for line in after if line])


def undo_words(step: Step) -> str:
    """A step's undo in words, before it runs: the command when the snapshot says enough
    to know it, else what undo will do from the state recorded just before the step."""
    if step.read_only:
        return "nothing to undo: it only reads"
    if step.nothing_to_restore:
        return "cannot be undone: there is nothing to restore (a restart)"
    if not step.reversible:
        return "cannot be undone"
    if step.rollback:
        return command_line(step.rollback)
    from reos.safety.backups import files_changed

    if files_changed(step.argv):
        return "restores the files backed up just before the step runs"
    if step.target is not None and step.target.kind == "firewall" and (
            step.target.name == "enable"):
        return ("turns the firewall off again if it was off just before the step (read "
                "then); nothing to undo if it was on")
    if step.target is not None and step.target.kind == "firewall" and (
            step.target.name.startswith("default ")):
        return ("sets the default for incoming connections back to the one read just "
                "before the step runs")
    if step.target is not None:
        return (f"puts {step.target.kind} {step.target.name} back as it was: its state is "
                "recorded just before the step runs")
    return "no undo is recorded for it"


def lost_for_good(plan: Plan, *, backups_count: bool) -> str | None:
    """The question a plan asks on its own when running it loses something for good: steps
    with no undo at all, and (`backups_count`) steps whose only undo is restoring the
    files reos backed up first. None when nothing is lost."""
    from reos.safety.backups import files_changed

    changes = [s for s in plan.steps if not s.read_only]
    gone = [s for s in changes if not s.reversible and not s.nothing_to_restore]
    restored = [s for s in changes if s.reversible and not s.rollback
                and files_changed(s.argv)] if backups_count else []
    if not gone and not restored:
        return None
    lines = ["Before I start: this can't be taken back."]
    number = {id(s): n for n, s in enumerate(plan.steps, start=1)}  # as the plan shows it
    lines += [f"  {number[id(s)]}. {s.title} — no undo: what it removes or changes is gone"
              for s in gone]
    lines += [f"  {number[id(s)]}. {s.title} — undo only restores the files I back up "
              "first; anything else it changes stays changed" for s in restored]
    return "\n".join(lines)


_GERUNDS = {"stop": "stopping", "start": "starting", "restart": "restarting",
            "kill": "killing", "remove": "removing", "install": "installing",
            "upgrade": "upgrading", "purge": "purging", "enable": "enabling",
            "disable": "disabling", "reload": "reloading", "mask": "masking",
            "unmask": "unmasking", "refresh": "refreshing", "shut down": "shutting down",
            "reboot": "rebooting", "enable and start": "enabling and starting",
            "disable and stop": "disabling and stopping"}


def starting(plan: Plan) -> str:
    """'Okay, restarting nginx.service…' - said once a plan is approved."""
    names = list(dict.fromkeys(s.target.name for s in plan.steps if s.target is not None))
    doing = _GERUNDS.get(plan.verb or "")
    if doing and names:
        return f"Okay, {doing} {join_names(names)}…"
    if doing:
        return f"Okay, {doing}…"
    return "Okay, here goes…"


def investigating(plan: Plan, voice: Voice) -> str:
    """What a query or diagnosis will look at, before it runs."""
    lead = " ".join(plan.notes) if plan.notes else "Let me check."
    if voice.brief or not voice.show_commands:
        return lead
    return lead + "\n" + "\n".join(f"  $ {s.command}" for s in plan.steps)


def step_started(step: Step, voice: Voice) -> str | None:
    if voice.brief:
        return None
    return f"\u2192 {step.title}" + (f"   $ {step.command}" if voice.show_commands else "")


def step_finished(step: Step, ok: bool, detail: str = "") -> str:
    if ok:
        return f"\u2713 {past_tense(step.title)}"
    return f"\u2717 {step.title} failed" + (f": {detail}" if detail else "")


_PAST = {"Stop": "Stopped", "Start": "Started", "Restart": "Restarted", "Kill": "Killed",
         "Remove": "Removed", "List": "Listed", "Install": "Installed"}


def past_tense(title: str) -> str:
    first, _, rest = title.partition(" ")
    return f"{_PAST.get(first, first)} {rest}".strip()


def no_match(phrases: list[str], resource: str | None, running: list[str] | None,
             known: bool, kinds: list[str] | None = None) -> str:
    noun = PLURALS.get(resource or "", "") or " or ".join(
        PLURALS[k] for k in kinds or [] if k in PLURALS) or "things"
    quoted = join_names([f"\u2018{p}\u2019" for p in phrases])
    if not known:
        return f"I can't see any {noun} on this machine right now, so nothing matches {quoted}."
    text = f"No {noun} match {quoted}."
    if running is not None:
        # names like what was said come first (the one meant is among those shown however
        # many others run), the rest as they were
        from difflib import SequenceMatcher

        def likeness(name: str) -> float:
            return max((SequenceMatcher(None, p.lower(), name.lower()).ratio()
                        for p in phrases), default=0.0)

        alike = sorted((n for n in running if likeness(n) >= 0.6), key=likeness,
                       reverse=True)
        shown = (alike + [n for n in running if n not in alike])[:8]
        extra = f" and {len(running) - 8} more" if len(running) > 8 else ""
        text += (f" Running: {', '.join(shown)}{extra}." if running
                 else " None are running right now.")
    return text


def not_installed(phrases: list[str]) -> str:
    names = join_names(phrases)
    verb = "isn't" if len(phrases) == 1 else "aren't"
    return f"{names[0].upper()}{names[1:]} {verb} installed, so there's nothing to do."


_WANTED = {"running": {"running"}, "stopped": {"exited", "created", "dead"},
           "paused": {"paused"}, "failed": {"dead", "restarting"}}


def answer_containers(results: list, params: dict[str, str], voice: Voice) -> str:
    """Put `docker ps --all --format '{{json .}}'` output into words ("which containers are
    stopped": only those, when the request asked for a state)."""
    rows = []
    for line in results[0].stdout.splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    wanted = params.get("filter", "").split(",")[0]
    if wanted in _WANTED:
        chosen = [r for r in rows if r.get("State") in _WANTED[wanted]]
        if not chosen:
            return f"No containers are {wanted}."
        listed = ", ".join(f"{r.get('Names', '?')} ({r.get('Status', '')})" for r in chosen)
        return f"{count(len(chosen), 'container')} {wanted}: {listed}."
    running = [r for r in rows if r.get("State") == "running"]
    stopped = [r for r in rows if r.get("State") != "running"]
    if not rows:
        return "There are no containers on this machine."
    if not running:
        head = "No containers are running."
    else:
        head = f"You have {count(len(running), 'container')} running"
        if voice.brief:
            return head + f": {', '.join(r.get('Names', '?') for r in running)}."
        head += ":\n" + "\n".join(
            f"  - {r.get('Names', '?')} ({r.get('Status', '')})" for r in running)
    if stopped and not voice.brief:
        head += "\nStopped: " + ", ".join(
            f"{r.get('Names', '?')} ({r.get('Status', '')})" for r in stopped) + "."
    return head



def relative_time(iso: str, now_iso: str) -> str:
    from datetime import datetime

    try:
        then = datetime.fromisoformat(iso.replace("Z", "+00:00"))
        now = datetime.fromisoformat(now_iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    seconds = int((now - then).total_seconds())
    if seconds < 60:
        return "just now"
    for size, unit in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            n = seconds // size
            return f"{n} {unit}{'s' if n != 1 else ''} ago"
    return iso


def execution_summary(report: object, plan: Plan, gates: str | None = None) -> str:
    """What to say after a plan ran (report is reos.model.report's ExecutionReport); `gates` is
    what the quality gates found worth saying (execution/gates.py `summary`)."""
    said = _execution_summary(report, plan)
    return f"{said}\n{gates}" if gates else said


def _execution_summary(report: object, plan: Plan) -> str:
    completed = getattr(report, "completed", [])
    failed = getattr(report, "failed", None)
    pending = getattr(report, "pending", [])
    stopped = getattr(report, "stopped_reason", None)
    done = [past_tense(s.title) for s in completed]
    fixes = getattr(report, "recoveries", [])
    verified = getattr(report, "verified", 0)
    rolled_back = getattr(report, "rolled_back", None)
    if failed is None and not stopped:
        text = f"Done! {grouped(done)}."
        if fixes:
            text += f" Completed with {count(len(fixes), 'recovery action')}."
        unchecked = getattr(report, "unchecked", [])
        if unchecked:
            text += (" I couldn't check the result of "
                     + join_names([s.title[0].lower() + s.title[1:] for s in unchecked])
                     + ", so I can't say it worked.")
        elif verified and verified == len([s for s in completed if s.target is not None]):
            text += " Goal reached: I checked the result of every step."
        return text
    lines = []
    if failed is not None:  # the failure itself was shown as the step finished
        lines.append(f"I stopped at \u201c{failed.title}\u201d.")
    if stopped:
        lines.append(f"\u26a0\ufe0f Execution paused: {stopped}.")
        lines.append(f"Time elapsed: {getattr(report, 'seconds', 0):.0f}s.")
    if done:
        lines.append("Completed: " + "; ".join(done) + ".")
    if pending:
        lines.append(f"Not run: {count(len(pending), 'step')} ("
                     + "; ".join(s.title for s in pending) + ").")
    if rolled_back is not None and getattr(rolled_back, "steps", None):
        ran = [f"  (ran: {' '.join(s.argv)})" for s in rolled_back.steps if s.ok]
        lines.append("Rolled back, newest first:" if rolled_back.ok else
                     "I tried to roll back, but not everything could be undone:")
        lines += ran
        lines += [f"  To do it by hand, run: {' '.join(s.argv)}" for s in rolled_back.steps
                  if not s.ok]
    elif done:
        lines.append("Say \u201cundo\u201d (or run `reos undo`) to revert what I did.")
    return "\n".join(lines)


def grouped(sentences: list[str]) -> str:
    """['Stopped a', 'Stopped b', 'Removed b'] -> 'Stopped a and b; removed b'."""
    groups: list[tuple[str, list[str]]] = []
    for sentence in sentences:
        verb, _, rest = sentence.partition(" ")
        if groups and groups[-1][0] == verb:
            groups[-1][1].append(rest)
        else:
            groups.append((verb, [rest]))
    parts = [f"{verb} {join_names(objects)}".strip() for verb, objects in groups]
    return "; ".join(p if i == 0 else p[0].lower() + p[1:] for i, p in enumerate(parts))


def query_failed(step: Step, stderr: str) -> str:
    last = stderr.strip().splitlines()[-1:] if stderr.strip() else []
    return f"I couldn't check that: {step.command} failed" + (f" ({last[0]})." if last else ".")


def undo_list(candidates: list[Any], now_iso: str) -> str:
    """"What can you undo?": the undoable transactions given (journal records), newest
    first."""
    if not candidates:
        return "There's nothing I can undo right now."
    lines = ["Recent actions I can undo:"]
    for n, tx in enumerate(candidates, start=1):
        what = "; ".join(s.title for s in tx.undo_steps[::-1])
        age = relative_time(tx.started_at, now_iso)
        flag = " \u2014 interrupted" if tx.status == "interrupted" else ""
        lines.append(f"  {n}. {what} ({age}){flag}")
    lines.append("Say \u2018undo\u2019 to revert the most recent one.")
    return "\n".join(lines)


def undo_preview(candidates: list[Any]) -> str:
    """What `undo` would revert and run (the newest undoable transaction of those given)."""
    if not candidates:
        return "Nothing to undo: I haven't changed anything that can be reverted."
    tx = candidates[0]
    lines = [f"Undo would revert \u201c{tx.request}\u201d, newest first:"]
    for step in tx.undo_steps:
        how = " ".join(step.rollback) if step.rollback else "restore the files it changed"
        if step.action in RESTARTS:
            how = "nothing to run: a restart cannot be undone, there is nothing to restore"
        lines.append(f"  {step.title}: {how}")
    return "\n".join(lines)


def target_named(params: dict[str, str], default: str) -> str:
    """The target an answer is about (its "target:" parameter), cleaned, or `default`."""
    from reos.text import clean

    return clean(next((v for k, v in params.items() if k.startswith("target:")), default))


def each_target(render: Any) -> Any:
    """A renderer of one target's step, run once per step when a request named several
    ("the unit files of nginx and ssh"), each with its own target's name."""
    def each(results: list[Any], params: dict[str, str], voice: Voice) -> str:
        if len(results) <= 1:
            return str(render(results, params, voice))
        shared = {k: v for k, v in params.items() if not k.startswith("target:")}
        return "\n\n".join(
            render([r], {**shared, "target:" + r.step_id: params.get(f"target:{r.step_id}",
                                                                    "?")}, voice)
            for r in results)
    return each
