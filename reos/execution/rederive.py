"""The undo reos itself would have recorded for a journal step, worked out again.

The journal is a file on disk: a rollback read back from it is obeyed only when it is
one of the commands reos derives from the same step's recorded action, target and prior
state (`system.state.restore_argv`, the package changes a step recorded, an nftables
rule's handle), with `sudo -n` only when the step itself ran through sudo. The target's
name must pass the same pattern a plan's names pass. Anything else (a row rewritten to
`sh -c …`, a command for another target) is refused by `undo` with the reason.

Not responsible for running anything, for the gate (every rollback is judged again there
too), or for file restores (checked by `safety.restore`).
"""

from __future__ import annotations

from typing import Any

from reos.patterns import regex
from reos.store.journal import StepRecord
from reos.system.privilege import as_root, strip_sudo
from reos.system.state import PACKAGE_REMOVE, reinstall_argv, restore_argv
from reos.understanding.names import SAFE_NAMES

# the kinds the planner names with SAFE_NAMES; tracked settings carry their own names
_SETTINGS = {"hostname", "timezone", "system", "firewall", "shutdown"}


def expected_rollbacks(step: StepRecord, manager: str | None) -> list[list[str]]:
    """Every rollback reos could have recorded for this step (empty: none at all)."""
    kind, name, prior = step.target_kind, step.target_name, step.prior_state
    if not kind or not name or not isinstance(prior, dict):
        return []
    if kind in SAFE_NAMES and not SAFE_NAMES[kind].match(name):
        return []
    if kind not in SAFE_NAMES and kind not in _SETTINGS:
        return []
    found: list[list[str]] = []
    restore = restore_argv(kind, name, prior, step.action, manager)
    if restore:
        found.append(restore)
    if kind == "package":
        found += package_changes(prior, manager)
    if kind == "firewall":
        found += _nft_handle(name, step.rollback)
    ran_as_root = strip_sudo(step.argv) != step.argv
    return found + [as_root(argv, is_root=False) for argv in found] if ran_as_root else found


def renewed(rollback: list[str], expected: list[list[str]]) -> list[str] | None:
    """The undo to run for a recorded `rollback`: itself when reos derives it
    (`expected_rollbacks`), or the one reos derives now when the row was written before a
    reinstall gained apt's `--no-remove` (the same command, never removing anything);
    None for anything else."""
    if rollback in expected:
        return rollback
    return next((argv for argv in expected if "--no-remove" in argv
                 and [w for w in argv if w != "--no-remove"] == rollback), None)


def package_changes(prior: dict[str, Any], manager: str | None) -> list[list[str]]:
    """An install's undo removes what it brought in; a removal's undo reinstalls what it
    took, at the versions it took (`execution.packages.changed`); none from a name the
    planner's pattern would refuse or a version that is more than a version."""
    out: list[list[str]] = []
    taken = prior.get("removed_packages")
    if isinstance(taken, dict) and taken and fit_packages(taken):
        argv = reinstall_argv(manager, taken)
        if argv:
            out.append(argv)
    new = prior.get("new_packages")
    if isinstance(new, list) and new and manager in PACKAGE_REMOVE and fit_names(new):
        out.append([*PACKAGE_REMOVE[manager], *new])
    return out


def fit_packages(packages: dict[Any, Any]) -> bool:
    """Whether every name is one `fit_names` passes and every version is only a version,
    never empty (so a command pinning them cannot be split, read as an option, or
    reinstall whatever version the sources offer instead of the one taken)."""
    return fit_names(list(packages)) and all(
        isinstance(v, str) and v and _version(v) for v in packages.values())


def fit_names(names: list[Any]) -> bool:
    """Whether every name is one the planner's pattern passes, or such a name with the
    architecture dpkg qualifies it with (`lib:i386`)."""
    pattern = SAFE_NAMES["package"]

    def fit(name: Any) -> bool:
        if not isinstance(name, str):
            return False
        base, colon, arch = name.partition(":")
        return bool(pattern.match(base)) and (not colon or bool(_ARCH.fullmatch(arch)))

    return all(fit(n) for n in names)


_ARCH = regex(r"[a-z0-9][a-z0-9-]{0,31}")


def _version(text: str) -> bool:
    return len(text) <= 128 and all(c.isalnum() or c in ".+-:~_" for c in text)


def _nft_handle(name: str, recorded: list[str] | None) -> list[list[str]]:
    """A new nftables rule is undone by its handle, known only once it exists: the
    recorded command must be exactly `nft delete rule CHAIN… handle N` for this rule."""
    from reos.system.state_net import rule_chain

    chain = rule_chain(name)
    words = strip_sudo(recorded or [])
    if chain is None or len(words) != 5 + len(chain) or words[-1:] == [""]:
        return []
    shape = ["nft", "delete", "rule", *chain, "handle"]
    if words[:-1] == shape and words[-1].isdigit():
        return [words]
    return []
