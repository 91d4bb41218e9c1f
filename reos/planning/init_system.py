"""The steps a machine without systemd cannot run, left out of a built plan.

On a machine the snapshot says runs another init than systemd (a container, WSL, a
sysvinit box), a step that calls one of systemd's own tools (systemctl and its kin) could
only fail: it is left out, with the steps that depend on it, and said so; a plan left
with nothing to do becomes a plain answer. An unknown init keeps every step.

Not responsible for building the plan (`planner`) or for finding out which init runs
(the snapshot's collectors).
"""

from __future__ import annotations

from reos.model.plan import Plan, renumbered
from reos.model.request import Kind
from reos.system.privilege import strip_sudo
from reos.system.snapshot import SystemSnapshot
from reos.text import clean
from reos.words import conversation
from reos.words.conversation import Voice

# systemd's own tools: they talk to systemd as the init, so they cannot work without it
# (journalctl only reads files, and is left to say what it finds)
_SYSTEMD_TOOLS = frozenset({"systemctl", "systemd-analyze", "systemd-run", "timedatectl",
                            "hostnamectl", "localectl", "loginctl", "resolvectl", "busctl"})


def without_systemd(plan: Plan, snapshot: SystemSnapshot, voice: Voice) -> None:
    """On a machine the snapshot says runs another init than systemd (a container, WSL, a
    sysvinit box), the steps that need systemd's tools could only fail: they are left
    out, with the steps that depend on them, and said so; a plan left with nothing to do
    becomes a plain answer. An unknown init keeps every step."""
    init = str(snapshot.host.get("init") or "")
    if not init or init == "systemd" or not plan.steps:
        return
    why = f"this machine does not run systemd (process 1 is {clean(init)[:40]})"
    for part in plan.parts:  # several questions: each answered without its systemd steps
        without_systemd(part, snapshot, voice)
    needing = {s.id for s in plan.steps
               if next(iter(strip_sudo(s.argv)), "").rsplit("/", 1)[-1] in _SYSTEMD_TOOLS}
    if not needing:
        return
    left_out = []
    for step in plan.steps:  # in order: what depends on a dropped step goes too
        if step.id in needing or any(d in needing for d in step.depends_on):
            needing.add(step.id)
            left_out.append(step)
    tools = sorted({next(iter(strip_sudo(s.argv)), "").rsplit("/", 1)[-1] for s in left_out
                    } & _SYSTEMD_TOOLS)
    kept = [s for s in plan.steps if s.id not in needing]
    if not kept:
        plan.said = [f"{why[0].upper()}{why[1:]}, so {' and '.join(tools)} cannot work "
                     "here and I have planned nothing."]
        plan.steps, plan.lead, plan.notes, plan.parts = [], [], [], []
        if plan.kind == Kind.COMBINED:
            plan.kind = Kind.QUERY
        return
    plan.steps = renumbered(kept)
    titles = [f"\u201c{t[:1].lower() + t[1:] if t[1:2].islower() else t}\u201d"
              for t in (s.title for s in left_out)]
    said = (f"I left out {conversation.join_names(titles)}: {why}, "
            f"so {' and '.join(tools)} cannot work here")
    plan.parts = [p for p in plan.parts if p.steps or p.said]
    if plan.read_only:
        plan.said = [conversation.investigating(plan, voice), f"({said}.)"]
    else:
        plan.notes.append(said)
