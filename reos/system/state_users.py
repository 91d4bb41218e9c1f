"""The live state of a local account or group, and the command that puts it back.

`current` reads an account (`pwd`, `grp`, and the lock, last-change and expiry fields of
/etc/shadow, never the password itself) or a group right before a step changes it; the
journal keeps that as the step's prior state. `restore` turns a prior state into the one
argv that brings back what the action changed: the account's supplementary groups, lock,
shell, expiry or the date of its last password change (a password change forced at the
next login is taken back by setting that date again), the account itself (recreated with
its uid, primary group, groups, shell and home; not its password) or the group.
`problem` says what is wrong with the state a step left. No shell: argv lists only.

Not responsible for running anything (the executor does) or for choosing the steps
(recipes in templates/users.toml do).
"""

from __future__ import annotations

import grp
import os
import pwd
from typing import Any

from reos.patterns import regex

SHADOW = "/etc/shadow"


def _shadow(name: str) -> dict[str, Any]:
    """The lock, last password change, maximum password age and expiry of an account
    from /etc/shadow ({} when
    it cannot be read). The password hash is looked at for its lock mark only and never
    kept. The last change is days since 1970 ("0": a new password is due at the next
    login; "": password ageing is off)."""
    try:
        with open(SHADOW, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                fields = line.rstrip("\n").split(":")
                if len(fields) >= 8 and fields[0] == name:
                    return {"locked": fields[1].startswith("!"), "expiry": fields[7],
                            "last_change": fields[2], "max_days": fields[4]}
    except OSError:
        pass
    return {}


def _supplementary(name: str, primary_gid: int) -> list[str]:
    return sorted(g.gr_name for g in grp.getgrall()
                  if name in g.gr_mem and g.gr_gid != primary_gid)


def _user(name: str) -> dict[str, Any]:
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        # whether the home a new account would get is free: only then may undo remove it
        # (`userdel -r`); one left by an earlier account holds someone's files (portable
        # is loaded here only: planning reads no account's live state)
        from reos.system.portable import home_base

        return {"state": "absent",
                "home_free": not os.path.lexists(f"{home_base()}/{name}")}
    try:
        primary = grp.getgrgid(entry.pw_gid)
        group_name, group_members = primary.gr_name, list(primary.gr_mem)
    except KeyError:
        group_name, group_members = "", []
    # userdel removes a private group (named as the account, no other member, nobody
    # else's primary group): undo has to create it again rather than name it
    private = group_name == name and not [m for m in group_members if m != name] and not [
        u for u in pwd.getpwall() if u.pw_gid == entry.pw_gid and u.pw_name != name]
    state: dict[str, Any] = {
        "state": "active", "uid": entry.pw_uid, "gid": entry.pw_gid,
        "group": group_name, "private_group": private,
        "groups": _supplementary(name, entry.pw_gid), "shell": entry.pw_shell,
        "home": entry.pw_dir, "gecos": entry.pw_gecos,
        # another account with the same uid: recreating this one needs `useradd -o`
        "uid_shared": any(u.pw_uid == entry.pw_uid and u.pw_name != name
                          for u in pwd.getpwall()),
    }
    shadow = _shadow(name)
    if shadow:
        state["state"] = "locked" if shadow["locked"] else "active"
        state["expiry"] = shadow["expiry"]
        state["last_change"] = shadow["last_change"]
        state["max_days"] = shadow["max_days"]
    else:
        state["state"] = "unknown"  # not root: the lock cannot be read
        state["reason"] = f"cannot read {SHADOW}"
        state["account"] = "present"
    return state


def _group(name: str) -> dict[str, Any]:
    try:
        entry = grp.getgrnam(name)
    except KeyError:
        return {"state": "absent"}
    return {"state": "present", "gid": entry.gr_gid, "members": sorted(entry.gr_mem)}


def current(kind: str, name: str) -> dict[str, Any] | None:
    """The state to record before a step changes the account or group `name`."""
    if kind == "user":
        return _user(name)
    if kind == "group":
        return _group(name)
    return None


def _exists(prior: dict[str, Any]) -> bool:
    return prior.get("state") in ("active", "locked") or prior.get("account") == "present"


_JOINS = ("add_to_group", "grant_admin")
_LEAVES = ("remove_from_group", "revoke_admin")
_GROUP_NAME = regex(r"^[a-z_][a-z0-9_.-]{0,31}$")  # as templates' SAFE_NAMES allow


def changed_group(argv: list[str]) -> str | None:
    """The group a membership step changes: `usermod -aG GROUP NAME`, `gpasswd -d|-a NAME
    GROUP` (with or without the privilege prefix), or None."""
    words = list(argv)
    while words and (words[0] == "sudo" or words[0].startswith("-")):
        words = words[1:]
    if len(words) == 4 and words[0] == "usermod" and words[1] == "-aG":
        found = words[2]
    elif len(words) == 4 and words[0] == "gpasswd" and words[1] in ("-a", "-d"):
        found = words[3]
    else:
        return None
    return found if _GROUP_NAME.fullmatch(found) else None


def restore(kind: str, name: str, prior: dict[str, Any] | None,
            action: str | None) -> list[str] | None:
    """The argv that returns `name` to `prior` after `action`, or None when none can (or
    the prior state does not say enough: at plan time only the snapshot's state is known)."""
    if not prior:
        return None
    state = prior.get("state")
    if kind == "group":
        if action == "create" and state == "absent":
            return ["groupdel", name]
        return None
    if kind != "user":
        return None
    if action == "create":
        if state != "absent":
            return None
        # the home is removed only when it was free before (a row from before reos
        # recorded that: it was assumed free, as then)
        return ["userdel", "-r", name] if prior.get("home_free", True) is True else [
            "userdel", name]
    if action in ("lock", "unlock"):
        if state == "locked":
            return ["usermod", "-L", name]
        if state == "active":
            return ["usermod", "-U", name]
        return None
    if action in _JOINS or action in _LEAVES:
        groups = prior.get("groups")
        if not isinstance(groups, list) or not _exists(prior):
            return None
        changed = prior.get("changed_group")
        if "changed_group" in prior and not (isinstance(changed, str)
                                             and _GROUP_NAME.fullmatch(changed)):
            return None  # the group is not one reos can name: never the whole list
        if isinstance(changed, str) and _GROUP_NAME.fullmatch(changed):
            # exactly the one group the step changed: a group joined or left since by
            # other means stays as it is
            was_in = changed in groups
            if action in _JOINS:
                return None if was_in else ["gpasswd", "-d", name, changed]
            return ["usermod", "-aG", changed, name] if was_in else None
        # recorded before the step's group was kept (an older journal): the whole list
        return ["usermod", "-G", ",".join(str(g) for g in groups), name]
    if action == "set_fullname":
        gecos = prior.get("gecos")
        return ["usermod", "-c", gecos, name] if isinstance(gecos, str) and _exists(
            prior) else None
    if action in ("set_shell", "no_shell"):
        shell = prior.get("shell")
        return ["usermod", "-s", shell, name] if isinstance(shell, str) and shell else None
    if action == "set_expiry":
        expiry = prior.get("expiry")
        if not isinstance(expiry, str) or not _exists(prior):
            return None
        # the shadow field is days since 1970 (chage -E takes that too); empty: never
        return ["chage", "-E", expiry if expiry.isdigit() else "-1", name]
    if action == "expire_password":
        # the date of the last change, as /etc/shadow had it (days since 1970): with it the
        # password is no longer due at the next login; an empty field (ageing off) or one
        # not read (reos was not root at plan time) gives no undo, and undo says so
        last = prior.get("last_change")
        if not isinstance(last, str) or not last.isdigit() or len(last) > 6 or not _exists(
                prior):
            return None
        return ["chage", "-d", str(int(last)), name]
    if action == "password_max_age":
        # the maximum password age /etc/shadow had (days); empty: none, which -1 sets back
        days = prior.get("max_days")
        if not isinstance(days, str) or not (days.isdigit() or days == "") or len(
                days) > 5 or not _exists(prior):
            return None
        return ["chage", "-M", days or "-1", name]
    if action == "delete":
        return _recreate(name, prior)
    return None


def _recreate(name: str, prior: dict[str, Any]) -> list[str] | None:
    """useradd with the recorded uid, primary group, groups, shell and home (not -m: the
    home directory was kept)."""
    uid, gid, home, shell = (prior.get(k) for k in ("uid", "gid", "home", "shell"))
    if not _exists(prior) or not isinstance(uid, int) or not isinstance(gid, int) or (
            prior.get("incomplete")):
        return None  # incomplete: what it was cannot all be put back; never a lesser copy
    argv = ["useradd", "-M", "-u", str(uid)]
    if prior.get("uid_shared") is True:
        argv.append("-o")  # it shared its uid with another account, as before
    if prior.get("private_group"):
        argv.append("-U")  # the private group went with the account; same gid when free
    else:
        argv += ["-g", str(gid)]
    groups = prior.get("groups")
    if isinstance(groups, list) and groups:
        argv += ["-G", ",".join(str(g) for g in groups)]
    if isinstance(shell, str) and shell:
        argv += ["-s", shell]
    if isinstance(home, str) and home:
        argv += ["-d", home]
    gecos = prior.get("gecos")
    if isinstance(gecos, str) and gecos:
        argv += ["-c", gecos]
    return [*argv, name]


def problem(kind: str, action: str | None, state: dict[str, Any]) -> str | None:
    """What is wrong with the state a step left, or None when it is what was meant."""
    now = state.get("state")
    if kind == "group":
        if action == "create" and now != "present":
            return "was not created"
        return None
    if kind != "user":
        return None
    if action == "create" and now == "absent":
        return "was not created"
    if action in ("delete", "delete_with_home") and now != "absent":
        return "still exists"
    if action == "lock" and now == "active":
        return "is still unlocked"
    if action == "unlock" and now == "locked":
        return "is still locked"
    if action == "expire_password" and state.get("last_change") not in (None, "0"):
        return "does not have to change its password at the next login"
    return None
