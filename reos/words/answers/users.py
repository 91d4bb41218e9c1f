"""Answers about accounts and groups, in words: who has sudo, which groups an account is
in, an account's details, the groups there are and who is in one; and, for
templates/users_more.toml and security.toml, the latest logins (`last`, `lastlog`), an
account's password ageing (`chage -l`) and the failed SSH logins the journal holds.

Each renderer reads the output of `getent group`, `getent passwd` or `id` (the steps of
the recipes in templates/users.toml), says what matters first and cites the line it
rests on where that helps. Every name is cleaned before it is shown. Pure text work:
nothing here runs a command.

Not responsible for choosing the commands (recipes do).
"""

from __future__ import annotations

from collections.abc import Callable

from reos.model.report import StepResult
from reos.patterns import regex
from reos.text import clean
from reos.words.conversation import Voice, count, join_names, target_named
from reos.words.conversation import each_target as _each

SHOWN = 25  # names listed before "and N more"
Render = Callable[[list[StepResult], dict[str, str], Voice], str]
ADMIN_GROUPS = ("sudo", "wheel", "admin")  # membership gives sudo on Debian, Fedora, Arch…
_ID_PART = regex(r"(\d+)\(([^)]*)\)")



def _names(names: list[str], brief: bool) -> str:
    shown = names[: 8 if brief else SHOWN]
    more = f" and {len(names) - len(shown)} more" if len(names) > len(shown) else ""
    return join_names([clean(n) for n in shown]) + more


def _groups_of(text: str) -> dict[str, tuple[int, list[str], str]]:
    """`getent group` output: name -> (gid, members, the line)."""
    out: dict[str, tuple[int, list[str], str]] = {}
    for line in text.splitlines():
        fields = line.split(":")
        if len(fields) >= 4 and fields[2].isdigit():
            members = [m for m in fields[3].split(",") if m]
            out[fields[0]] = (int(fields[2]), members, line)
    return out


def _accounts_of(text: str) -> list[list[str]]:
    """`getent passwd` output: the fields of each well-formed line."""
    return [f for f in (line.split(":") for line in text.splitlines())
            if len(f) >= 7 and f[2].isdigit() and f[3].isdigit()]


def _output(results: list[StepResult], n: int) -> str:
    return results[n].stdout if len(results) > n and results[n].ok else ""


_NOT_RULES = ("Defaults", "User_Alias", "Runas_Alias", "Host_Alias", "Cmnd_Alias",
              "Cmd_Alias", "#", "@")


def _rules(text: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Lines of /etc/sudoers and /etc/sudoers.d: ([(group, line)], [(account, line)])."""
    groups, accounts = [], []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(_NOT_RULES) or "=" not in line:
            continue
        who = line.split()[0]
        if who.startswith("%"):
            groups.append((who[1:], line))
        elif who != "root":
            accounts.append((who, line))
    return groups, accounts


def sudoers(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`getent group`, then the sudo rules when they could be read: the members of the
    groups the rules name (sudo, wheel and admin when they could not be read), the
    accounts named one by one, and root, always."""
    groups = _groups_of(_output(results, 0))
    if not groups:
        return "I couldn't read the groups, so I can't say who has sudo."
    rules = _output(results, 1)
    by_group, by_name = _rules(rules) if rules else ([], [])
    named = [g for g, _ in by_group] if rules else list(ADMIN_GROUPS)
    found = [(g, groups[g]) for g in dict.fromkeys(named) if g in groups]
    people = sorted({m for _, (_gid, members, _line) in found for m in members}
                    | {a for a, _ in by_name})
    where = join_names([g for g, _ in found])
    if not people:
        text = "Only root has administrator rights: no other account can use sudo."
    else:
        how = [f"members of {where}"] if found and any(
            m for _, (_g, members, _l) in found for m in members) else []
        if by_name:
            how.append("named in the sudo rules")
        text = (f"{count(len(people), 'account')} can use sudo: "
                f"{_names(people, voice.brief)} ({' or '.join(how)}); root always can.")
    if not voice.brief:
        cited = [line for _, (_g, _m, line) in found] + [line for _, line in by_name]
        text += "".join(f"\n  {clean(line)}" for line in cited[:SHOWN])
        if not rules:
            text += "\n(I couldn't read /etc/sudoers, so rules there may give rights to others.)"
    return text


def _id_line(text: str, name: str = "") -> tuple[str, str, list[str]] | None:
    """`id NAME` or `id -nG NAME` (the groups only, the primary one first): (user, primary
    group, every group) or None."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    if line and "=" not in line:
        names = line.split()
        return name, names[0], names
    parts = {}
    for chunk in line.split():
        key, _, value = chunk.partition("=")
        parts[key] = value
    if "uid" not in parts or "gid" not in parts:
        return None
    user = next((n for _, n in _ID_PART.findall(parts["uid"])), "")
    primary = next((n for _, n in _ID_PART.findall(parts["gid"])), "")
    every = [n for _, n in _ID_PART.findall(parts.get("groups", ""))]
    return user, primary, every


def user_groups(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`id NAME`: the account's groups, primary group first."""
    texts = []
    for result in results:
        name = params.get(f"target:{result.step_id}", "that account")
        parsed = _id_line(result.stdout, name) if result.ok else None
        if parsed is None:
            texts.append("I couldn't read that account's groups"
                         + (f": {clean(result.stderr.strip())}" if result.stderr.strip()
                            else "."))
            continue
        user, primary, every = parsed
        others = [g for g in every if g != primary]
        admin = [g for g in others if g in ADMIN_GROUPS]
        text = f"{clean(user)} is in {count(len(every) or 1, 'group')}: {clean(primary)} " \
               "(primary)"
        text += f", {_names(others, voice.brief)}." if others else ", and no others."
        asked = params.get("group")
        if asked:  # "is bob in the docker group": the answer to that first
            inside = asked in every
            text = (f"{'Yes' if inside else 'No'}, {clean(user)} is "
                    f"{'' if inside else 'not '}in {clean(asked)}. ") + text
        if admin and not voice.brief:
            text += f" Being in {join_names(admin)} lets {clean(user)} use sudo."
        texts.append(text)
    return "\n".join(texts)


def user_info(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`getent passwd NAME` then `id NAME`: uid, home, shell and groups."""
    accounts = _accounts_of(_output(results, 0))
    if not accounts:
        return "I couldn't find that account."
    name, _pw, uid, gid, gecos, home, shell = accounts[0][:7]
    login = not shell.endswith(("nologin", "false"))
    text = (f"{clean(name)} (uid {uid}"
            + (f", {clean(gecos.split(',')[0])}" if gecos.split(",")[0] else "")
            + f"): home {clean(home)}, shell {clean(shell)}"
            + ("" if login else " (it cannot log in)") + ".")
    parsed = _id_line(_output(results, 1))
    if parsed is not None:
        _user, primary, every = parsed
        others = [g for g in every if g != primary]
        text += f" Groups: {clean(primary)} (primary)" + (
            f", {_names(others, voice.brief)}." if others else ".")
    if not voice.brief:
        text += f"\n  {clean(':'.join(accounts[0]))}"
    return text


def group_list(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`getent group`: groups people made (gid 1000 and up) first, then system groups."""
    groups = _groups_of(_output(results, 0))
    if not groups:
        return "I couldn't read any groups."
    mine = [g for g, (gid, _m, _l) in groups.items() if 1000 <= gid < 65534]
    system = [g for g in groups if g not in mine]
    with_members = [f"{g} ({', '.join(groups[g][1])})" for g in groups if groups[g][1]]
    text = (f"{count(len(groups), 'group')}: {count(len(mine), 'group')} made for people "
            f"({_names(mine, voice.brief)}) and {len(system)} system groups.")
    if with_members and not voice.brief:
        text += " Groups with members: " + _names(with_members, False) + "."
    return text


def group_members(results: list[StepResult], _params: dict[str, str], voice: Voice) -> str:
    """`getent group NAME` then `getent passwd`: listed members and the accounts whose
    primary group it is."""
    groups = _groups_of(_output(results, 0))
    if not groups:
        return "I couldn't find that group."
    name, (gid, members, line) = next(iter(groups.items()))
    primary = [f[0] for f in _accounts_of(_output(results, 1)) if int(f[3]) == gid
               and f[0] not in members]
    everyone = members + primary
    if not everyone:
        text = f"Nobody is in the group {clean(name)}."
    else:
        text = f"{count(len(everyone), 'account')} in {clean(name)}: " \
               f"{_names(everyone, voice.brief)}"
        text += f" ({join_names([clean(p) for p in primary])} by primary group)." \
            if primary else "."
    if not voice.brief:
        text += f"\n  {clean(line)}"
    return text


def _why_not(result: StepResult) -> str:
    text = clean(result.stderr or result.stdout)
    if "password is required" in text or "a terminal is required" in text:
        return "it needs root, and sudo asked for a password"
    if result.exit_code == 127 or "not found" in text and "command" in text:
        return "the command is not installed here"
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1][:200] if lines else f"exit code {result.exit_code}"


_LAST_SKIP = ("wtmp begins", "btmp begins", "reboot ", "shutdown ", "runlevel ")


def _last_lines(text: str) -> list[str]:
    return [clean(line.rstrip()) for line in text.splitlines()
            if line.strip() and not line.startswith(_LAST_SKIP)]


def last_logins(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`last -n N -F [-w] [USER]` (one login a line, the newest first; "still logged in"),
    and for one account `lastlog -u USER` (its latest login, or "**Never logged in**")."""
    user = clean(params.get("user", ""))
    if not results:
        return "I couldn't read the logins."
    last = results[0]
    said = []
    if last.ok:
        logins = _last_lines(last.stdout)
        reboots = sum(1 for line in last.stdout.splitlines() if line.startswith("reboot "))
        if logins:
            cap = 5 if voice.brief else 25
            said.append((f"The latest logins of {user}" if user else "The latest logins")
                        + " (newest first):\n" + "\n".join(f"  {line}" for line in
                                                            logins[:cap]))
            if reboots and not user and not voice.brief:
                said.append(f"The machine rebooted {reboots} time"
                            f"{'s' if reboots != 1 else ''} in that stretch.")
        else:
            said.append(f"{user} has not logged in since the login records begin." if user
                        else "Nobody has logged in since the login records begin.")
    elif "wtmp" in last.stderr or "No such file" in last.stderr:
        said.append("This machine keeps no login records in /var/log/wtmp (newer systems keep "
                    "them in wtmpdb, which I can't read yet).")
    else:
        said.append(f"I couldn't read the login records ({_why_not(last)}).")
    if user and len(results) > 1:
        lastlog = results[1]
        lines = [clean(line.strip()) for line in lastlog.stdout.splitlines()[1:] if line.strip()]
        if lastlog.ok and lines:
            if "Never logged in" in lines[0]:
                said.append(f"lastlog: {user} has never logged in.")
            else:
                said.append(f"lastlog, the latest login of {user}: {lines[0]}")
        elif not voice.brief and not lastlog.ok:
            said.append(f"(lastlog could not be read: {_why_not(lastlog)}.)")
    return "\n".join(said)


def password_status(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """`chage -l NAME`: "Last password change : Nov 20, 2026", "Password expires : never"."""
    name = target_named(params, "that account")
    if not results:
        return f"I couldn't read the password ageing of {name}."
    result = results[0]
    fields = {}
    for line in clean(result.stdout).splitlines():
        key, colon, value = line.partition(":")
        if colon:
            fields[key.strip().lower()] = value.strip()
    if not result.ok or not fields:
        return f"I couldn't read the password ageing of {name} ({_why_not(result)})."
    changed = fields.get("last password change", "?")
    expires = fields.get("password expires", "?")
    said = []
    if "must be changed" in changed:
        said.append(f"{name} must choose a new password at the next login.")
    else:
        said.append(f"The password of {name} was last changed on {changed}.")
    said.append("It never expires." if expires == "never" else f"It expires on {expires}.")
    maximum = fields.get("maximum number of days between password change", "")
    if not voice.brief:
        if maximum and maximum not in ("99999", "-1"):
            said.append(f"It must be changed every {maximum} days.")
        inactive = fields.get("password inactive", "")
        if inactive and inactive != "never":
            said.append(f"After it expires, the account is locked on {inactive}.")
        account = fields.get("account expires", "")
        if account:
            said.append("The account itself never expires." if account == "never" else
                        f"The account itself expires on {account}.")
    return " ".join(said)


_FAILED_FROM = regex(
    r"(?:Failed (?:password|publickey|keyboard-interactive/pam) for (?:invalid user )?(\S+)"
    r"|Invalid user (\S*)) from ([0-9A-Fa-f.:]+)")
_PAM_FAILURE = regex(r"authentication failure;.*?rhost=([0-9A-Fa-f.:]+)(?:\s+user=(\S+))?")


def failed_logins(results: list[StepResult], params: dict[str, str], voice: Voice) -> str:
    """The SSH server's journal lines about failed passwords, unknown users and PAM
    authentication failures, counted by the address they came from and the name tried."""
    from reos.understanding.slots import describe

    when = (" " + describe(params["since"])) if params.get("since") else \
        " in the latest journal entries"
    lines = [clean(line) for r in results for line in r.stdout.splitlines()
             if line.strip() and not line.startswith("-- ")]
    if not lines:
        failed = next((r for r in results if not r.ok and r.stderr.strip()), None)
        if failed is not None and "No entries" not in failed.stderr:
            return f"I couldn't search the SSH server's log ({_why_not(failed)})."
        return f"No failed SSH logins{when}."
    by_address: dict[str, int] = {}
    by_name: dict[str, int] = {}
    attempts = 0
    for line in lines:
        found = _FAILED_FROM.search(line)
        if found:
            name, address = found[1] or found[2] or "?", found[3]
        elif pam := _PAM_FAILURE.search(line):
            address, name = pam[1], pam[2] or "?"
        else:
            continue
        attempts += 1
        by_address[address] = by_address.get(address, 0) + 1
        by_name[name] = by_name.get(name, 0) + 1
    if not attempts:
        return f"No failed SSH logins{when}."
    top = sorted(by_address.items(), key=lambda kv: -kv[1])[: 3 if voice.brief else 10]
    names = sorted(by_name.items(), key=lambda kv: -kv[1])[: 5 if voice.brief else 12]
    places = len(by_address)
    said = (f"{count(attempts, 'failed SSH login')}{when}, from {places} "
            f"address{'es' if places != 1 else ''}" + (
                " (the search stopped at the line limit)" if len(lines) >= 500 else "") + ".")
    said += "\nFrom: " + ", ".join(f"{a} ({n})" for a, n in top) + "."
    said += "\nNames tried: " + ", ".join(f"{clean(u)} ({n})" for u, n in names) + "."
    if not voice.brief:
        said += ("\nThe latest:\n" + "\n".join(f"  {line}" for line in lines[-5:]))
    return said


ANSWERS: dict[str, Callable[[list[StepResult], dict[str, str], Voice], str]] = {
    "sudoers": sudoers, "user_groups": user_groups, "user_info": user_info,
    "group_list": group_list, "group_members": group_members, "last_logins": last_logins,
    "password_status": _each(password_status), "failed_logins": failed_logins,
}
# reading the sudo rules needs root: without it the answer from the groups alone stands;
# last and lastlog may be missing (wtmpdb, lastlog2), chage -l needs root, and
# journalctl --grep exits 1 when nothing matched
TOLERANT = {"sudoers", "last_logins", "password_status", "failed_logins"}
