"""`reos shell-init bash|zsh|fish`: the shell integration snippet, and the ran commands it reads.

The snippet (eval'd or sourced from the shell's rc file) binds Alt+R: the line being typed
is taken as a request and handed to `reos plan` as one argument. The text is stashed in a
variable by the key binding and the shell then runs a fixed word (` __reos_plan`), so the
typed text is never parsed by the shell at all: `;`, `$(...)`, quotes and backslashes in it
reach reos as they were typed. Running it as an ordinary command line (not inside the
binding) gives reos a normal terminal to ask "Proceed?" on, and Ctrl+C works.

For that run the snippet sets REOS_SHELL_HISTORY to a fresh temporary file; `reos plan`
writes there the commands its steps ran successfully (`record_ran`, called with the
ExecutionReport), one per line, and the snippet adds each line to the shell's history and
removes the file. A dry run, a declined plan or an answered query writes nothing.

When `reos` is not on PATH, the snippet calls the program that printed it by its full
path, so `eval "$(.venv/bin/reos shell-init bash)"` works before PATH is set.

Not responsible for: running or approving anything (`reos plan` does), or deciding which
steps succeeded (the executor fills the report). Imports only the standard library and
reos.text, so `reos plan` stays fast.
"""

from __future__ import annotations

import os
import shlex
import sys
from typing import TYPE_CHECKING

from reos.errors import EXIT_OK, EXIT_USAGE
from reos.text import clean

if TYPE_CHECKING:
    from reos.model.report import ExecutionReport

HISTORY_ENV = "REOS_SHELL_HISTORY"

BASH = r"""# reos shell integration for bash: eval "$(reos shell-init bash)" in ~/.bashrc
# Alt+R sends the line being typed to `reos plan`; the commands reos ran join the history.
__reos_take_line() {  # run by the key binding: keep the line as data, never parse it
    __reos_request=$READLINE_LINE  # the typed text, exactly as it is
    if [[ -n ${READLINE_LINE//[[:space:]]/} ]]; then
        READLINE_LINE=' __reos_plan'  # a fixed word for the shell to run instead
    fi
    READLINE_POINT=${#READLINE_LINE}
}
__reos_plan() {  # run as a normal command line: reos gets a real terminal to ask on
    local request=$__reos_request file cmd code  # the stash, used once
    unset __reos_request
    [[ -n ${request//[[:space:]]/} ]] || return 0  # recalled later: nothing to send
    # Up recalls the request; bash's history -s first drops the line ` __reos_plan` itself
    builtin history -s -- "reos plan -- ${request@Q}"
    file=$(command mktemp "${TMPDIR:-/tmp}/reos-history.XXXXXX") || file=''
    REOS_SHELL_HISTORY=$file command reos plan -- "$request"  # one argument, by name
    code=$?
    if [[ -n $file ]]; then
        while IFS= read -r cmd || [[ -n $cmd ]]; do  # one ran command a line
            [[ -n $cmd ]] && builtin history -s -- "$cmd"
        done < "$file"
        command rm -f -- "$file"
    fi
    return "$code"
}
if [[ $- == *i* ]]; then  # key bindings exist only in an interactive shell
    bind -m emacs -x '"\C-x\er": __reos_take_line'  # an unused key: stash the line
    bind -m emacs '"\er": "\C-x\er\C-m"'  # Alt+R: stash, then run the fixed word
    bind -m vi-insert -x '"\C-x\er": __reos_take_line'  # the same in vi insert mode
    bind -m vi-insert '"\er": "\C-x\er\C-m"'
fi
"""

ZSH = r"""# reos shell integration for zsh: eval "$(reos shell-init zsh)" in ~/.zshrc
# Alt+R sends the line being typed to `reos plan`; the commands reos ran join the history.
__reos_take_line() {  # the widget: keep the line as data, never parse it
    [[ -n ${BUFFER//[[:space:]]/} ]] || return 0  # nothing typed: nothing to send
    typeset -g __reos_request=$BUFFER  # the typed text, exactly as it is
    BUFFER=' __reos_plan'  # a fixed word for the shell to run instead
    zle accept-line
}
__reos_skip_line() {  # zshaddhistory hook: the fixed word says nothing when recalled
    [[ $1 != ' __reos_plan'$'\n' ]]
}
__reos_plan() {  # run as a normal command line: reos gets a real terminal to ask on
    local request=$__reos_request file cmd code  # the stash, used once
    unset __reos_request
    [[ -n ${request//[[:space:]]/} ]] || return 0
    print -rs -- "reos plan -- ${(qq)request}"  # Up recalls the request, single-quoted
    file=$(command mktemp "${TMPDIR:-/tmp}/reos-history.XXXXXX") || file=''
    REOS_SHELL_HISTORY=$file command reos plan -- "$request"  # one argument, by name
    code=$?
    if [[ -n $file ]]; then
        while IFS= read -r cmd || [[ -n $cmd ]]; do  # one ran command a line
            [[ -n $cmd ]] && print -rs -- "$cmd"  # -r: backslashes stay as they are
        done < "$file"
        command rm -f -- "$file"
    fi
    return $code
}
zshaddhistory_functions+=(__reos_skip_line)
zle -N __reos_take_line
bindkey -M emacs '^[r' __reos_take_line  # Alt+R
bindkey -M viins '^[r' __reos_take_line
"""

FISH = r"""# reos shell integration for fish: reos shell-init fish | source  (in config.fish)
# Alt+R sends the line being typed to `reos plan`; the commands reos ran join the history.
function __reos_take_line  # run by the key binding: keep the line as data, never parse it
    set -l request (commandline | string collect)  # the typed text, newlines kept
    string length -q -- (string trim -- $request); or return 0  # nothing typed
    set -g __reos_request $request
    commandline -r ' __reos_plan'  # a fixed word (a leading space keeps it out of history)
    commandline -f execute
end
function __reos_add_history  # its arguments into this session's history, in order
    if not string match -qr '^[0-3]\.' -- $version  # fish 4 has history append
        for cmd in $argv
            builtin history append -- $cmd
        end
        return
    end
    # fish 3: append to the history file in its own format, then merge it in
    set -q fish_private_mode; and return  # private mode keeps no history file
    set -l name fish
    set -q fish_history; and set name $fish_history
    test -n "$name"; or return  # an empty fish_history turns history off
    set -l when (date +%s)
    for cmd in $argv  # fish writes a backslash doubled (the lines hold no newline)
        printf '%s%s\n  when: %s\n' '- cmd: ' (string replace -a -- '\\' '\\\\' $cmd) $when
    end >>$__fish_user_data_dir/{$name}_history
    builtin history merge
end
function __reos_plan  # run as a normal command line: reos gets a real terminal to ask on
    set -l request $__reos_request  # the stash, used once
    set -e __reos_request
    test -n "$request"; or return 0
    set -l file (command mktemp (set -q TMPDIR; and echo $TMPDIR; or echo /tmp)/reos-history.XXXXXX)
    REOS_SHELL_HISTORY=$file command reos plan -- $request  # one argument, by name
    set -l code $status
    # Up recalls the request (fish-quoted), then the commands reos ran, one a line
    set -l ran
    test -n "$file"; and set ran (command cat -- $file)
    __reos_add_history "reos plan -- "(string escape -- $request) $ran
    test -n "$file"; and command rm -f -- $file
    return $code
end
bind \er __reos_take_line  # Alt+R
bind -M insert \er __reos_take_line  # the same in vi insert mode
"""

SNIPPETS = {"bash": BASH, "zsh": ZSH, "fish": FISH}


def run(shell: str) -> int:
    """Print the snippet for `shell`; an unknown shell is a usage error (exit 2)."""
    snippet = SNIPPETS.get(shell.strip().lower())
    if snippet is None:
        print(f"reos: no shell integration for {clean(shell)!r}; choose one of: "
              f"{', '.join(SNIPPETS)}.", file=sys.stderr)
        return EXIT_USAGE
    # only the call itself: the history lines keep the words `reos plan`, never a path
    # inside their double quotes (where a shell would expand it)
    sys.stdout.write(snippet.replace("command reos plan -- ", f"command {_program()} plan -- "))
    return EXIT_OK


def _program() -> str:
    """How the snippet calls reos: by name when `reos` is on PATH, else by the path of
    the program printing it (`.venv/bin/reos shell-init bash` before the venv is on
    PATH), quoted for the shell."""
    import shutil
    from pathlib import Path

    me = Path(sys.argv[0])
    if shutil.which("reos") is not None or me.name != "reos" or not me.is_file():
        return "reos"
    return shlex.quote(str(me.resolve()))


def ran_commands(report: ExecutionReport) -> list[str]:
    """The commands a report's steps ran successfully, as a person would type them,
    cleaned of control characters. A command that still spans lines is left out: it
    cannot be one line of history."""
    lines = []
    for step in report.completed:  # the executor lists a step there once it succeeded
        line = shlex.join(clean(arg) for arg in step.argv)  # quoted as it is shown
        if line.strip() and "\n" not in line:
            lines.append(line)
    return lines


def record_ran(report: ExecutionReport) -> None:
    """Append the ran commands to the file named by REOS_SHELL_HISTORY, if it is set (the
    shell snippet sets it for one `reos plan`). A file that cannot be written is said on
    stderr and otherwise ignored: the plan already ran."""
    path = os.environ.get(HISTORY_ENV)
    if not path:
        return
    lines = ran_commands(report)
    if not lines:
        return
    try:
        with open(path, "a", encoding="utf-8", errors="replace") as out:
            out.write("".join(f"{line}\n" for line in lines))
    except OSError as exc:
        print(f"reos: couldn't add the ran commands to the shell's history: "
              f"{clean(str(exc))}", file=sys.stderr)
