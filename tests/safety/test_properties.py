"""Property tests of the risk engine: wrapping a command never changes whether it is blocked.

Hypothesis composes known payloads with launchers (sudo, env, nice, timeout, xargs, ...),
nested shells (`sh -c`, `bash -c`, `su -c`, `eval`, here-strings, pipes into a shell),
quoting (single, double, `$'...'`, backslashes, split words), variables and `${IFS}`, and
path spellings (`//`, `/./`, `/tmp/../`, trailing `/`, globs that match only the real path).
Every composition is faithful: run by bash, it runs exactly the payload. A destructive
payload must stay blocked however it is dressed; a harmless one must never become blocked.

Not responsible for the corpus of hand-written cases (corpus.toml), or for running the
compositions: that they mean their payload was checked once by running about 2,800 of them
with bash in a throwaway container of the Debian test-bed image, the destructive programs
replaced by loggers; the quoting rules here are what keeps them faithful.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reos.safety.risk import assess

BASH, POSIX = "bash", "posix"  # the dialect of the shell that reads a piece of text


# -- payloads ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Payload:
    words: tuple[str, ...]  # argv before the path
    path: str = ""  # the one path argument, spelled plainly; "" for none
    kind: str = "dir"  # dir, root, device, file: decides which spellings keep its meaning
    prefix: str = ""  # glued in front of the path word, e.g. "of="
    redirect: bool = False  # the payload is `> path` and has no command word


DESTRUCTIVE = [
    Payload(("rm", "-rf"), "/", "root"),
    Payload(("rm", "-rf"), "/etc"),
    Payload(("rm", "-rf"), "/usr"),
    Payload(("rm", "-r", "-f"), "/boot"),
    Payload(("mkfs.ext4",), "/dev/sda", "device"),
    Payload(("dd", "if=/dev/zero"), "/dev/sda", "device", prefix="of="),
    Payload(("wipefs", "-a"), "/dev/nvme0n1", "device"),
    Payload(("chmod", "-R", "777"), "/", "root"),
    Payload(("cp", "/dev/null"), "/etc/shadow", "file"),
    Payload(("shred", "-n", "1"), "/dev/sdb", "device"),
    Payload(("chown", "-R", "nobody"), "/usr"),
    Payload(("truncate", "-s", "0"), "/etc/passwd", "file"),
    Payload(("tee",), "/etc/sudoers", "file"),
    Payload((), "/etc/shadow", "file", redirect=True),
    Payload((), "/etc/passwd", "file", redirect=True),
]

HARMLESS = [
    Payload(("ls", "-la"), "/etc"),
    Payload(("echo", "hi")),
    Payload(("df", "-h")),
    Payload(("cat",), "/etc/hostname", "file"),
    Payload(("uptime",)),
    Payload(("grep", "root"), "/etc/passwd", "file"),
    Payload(("du", "-sh"), "/var/log"),
    Payload(("stat",), "/usr", "dir"),
]


def spellings(path: str, kind: str) -> list[tuple[str, bool]]:
    """Other spellings of `path` that name the same thing: (text, is a glob)."""
    if kind == "root":
        # rm refuses a last component of "." or "..", so "/." and "/tmp/.." would not mean "/"
        return [("/", False), ("//", False), ("///", False)]
    head, _, tail = path.rpartition("/")
    out = [(path, False), ("/" + path, False), ("/./" + path[1:], False),
           ("/tmp/.." + path, False), (f"{head}//{tail}", False), (f"{head}/./{tail}", False)]
    if kind == "dir":
        out += [(path + "/", False), (path + "//", False)]
    if kind in ("dir", "file") and path.startswith(("/etc", "/usr", "/var")):
        # each matches exactly one entry on any Linux system
        top = path[1:4]
        rest = path[4:]
        out += [(f"/{top[0]}?{top[2]}{rest}", True), (f"/[{top[0]}]{top[1:]}{rest}", True)]
    return out


# -- quoting ----------------------------------------------------------------------------------

def quote(text: str, style: str) -> str:
    """`text` as one shell word that the reading shell turns back into exactly `text`."""
    if style == "single":
        return "'" + text.replace("'", "'\\''") + "'"
    if style == "double":
        return '"' + "".join("\\" + c if c in '\\"$`' else c for c in text) + '"'
    if style == "ansi":
        return "$'" + text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"
    if style == "backslash":
        return "".join("\\" + c for c in text)
    raise ValueError(style)


def text_styles(dialect: str, text: str) -> list[str]:
    styles = ["single", "double"]
    if dialect == BASH:
        styles.append("ansi")
    if "\n" not in text:  # a backslash before a newline is a line continuation, not a newline
        styles.append("backslash")
    return styles


def word_styles(dialect: str) -> list[str]:
    return ["plain", "split", *(["ansi"] if dialect == BASH else []),
            "single", "double", "backslash"]


def quote_word(word: str, style: str) -> str:
    if style == "plain" or not word:
        return word
    if style == "split":  # 'r'm: quotes around part of a word
        return quote(word[:1], "single") + word[1:] if len(word) > 1 else quote(word, "single")
    return quote(word, style)


# -- a command under construction -------------------------------------------------------------

@dataclass(frozen=True)
class Cmd:
    words: tuple[str, ...]
    pre: str = ""  # statements before, at this level: "X=/etc; "
    feed: str = ""  # a producer piped into the command: "printf ... | "
    suffix: str = ""  # redirections after the words
    builtin: bool = False  # words[0] is a shell builtin: no launcher can run it
    stdin: bool = False  # stdin already carries something
    # the last word is one payload argument, so xargs can be handed it on stdin; the text
    # carried by a nested shell has spaces that xargs would split
    movable: bool = False

    def render(self) -> str:
        return self.pre + self.feed + " ".join(self.words) + self.suffix


@dataclass(frozen=True)
class Layer:
    name: str
    args: tuple[str, ...] = ()
    inner: str | None = None  # dialect of the text it carries; None: an argv launcher
    only_in_bash: bool = False
    # usable around a harmless payload: stdin fed to a shell, or code read from a variable,
    # is "unknown code" that the engine may block when run as root, so those stay out
    harmless_ok: bool = True


LAUNCHERS = [Layer("argv", a) for a in [
    ("sudo",), ("sudo", "-u", "root"), ("sudo", "--"), ("sudo", "-E", "-H"), ("doas",),
    # not `env -i`: without PATH, env finds no program in /usr/sbin (mkfs.ext4, wipefs)
    ("pkexec",), ("env",), ("env", "FOO=1"), ("env", "--", "LC_ALL=C"), ("nice", "-n", "5"),
    ("nice",),
    ("timeout", "10"), ("timeout", "-s", "KILL", "5"), ("nohup",), ("setsid",),
    ("stdbuf", "-oL"), ("ionice", "-c3"), ("chroot", "/"), ("nsenter", "-t", "1", "-m"),
    ("strace", "-f"), ("busybox",),
]] + [Layer("builtin", ("command",)), Layer("builtin", ("exec",)), Layer("xargs")]

SHELLS = [
    Layer("string", ("sh", "-c"), POSIX),
    Layer("string", ("bash", "-c"), BASH),
    Layer("string", ("su", "-c"), POSIX),
    Layer("string", ("su", "root", "-c"), POSIX),
    Layer("string", ("busybox", "sh", "-c"), POSIX),
    Layer("string", ("sudo", "sh", "-c"), POSIX),
    Layer("eval", ("eval",), None),
    Layer("herestring", ("sh",), POSIX, only_in_bash=True, harmless_ok=False),
    Layer("herestring", ("bash",), BASH, only_in_bash=True, harmless_ok=False),
    Layer("pipe", ("sh",), POSIX, harmless_ok=False),
    Layer("pipe", ("bash",), BASH, harmless_ok=False),
    Layer("heredoc", ("bash",), BASH, harmless_ok=False),
    Layer("evalvar", ("eval",), None, harmless_ok=False),
]

# busybox runs its own applets: only these payload programs exist in it
BUSYBOX_APPLETS = {"rm", "dd", "chmod", "cp", "ls", "echo", "df", "cat", "uptime", "grep",
                   "du", "stat"}


def apply(layer: Layer, cmd: Cmd, outer: str, text_style: str, var: str) -> Cmd:
    """Wrap `cmd` in `layer`; the result is read by a shell of dialect `outer`.

    Returns `cmd` unchanged when the layer cannot wrap it faithfully.
    """
    if layer.name in ("argv", "builtin", "xargs"):
        if not cmd.words or cmd.builtin:
            return cmd
        if layer.args == ("busybox",) and cmd.words[0] not in BUSYBOX_APPLETS:
            return cmd
        if layer.name == "xargs":
            if len(cmd.words) < 2 or cmd.stdin or cmd.feed or not cmd.movable:
                return cmd
            feed = f"printf '%s\\n' {cmd.words[-1]} | "
            return replace(cmd, words=("xargs", *cmd.words[:-1]), feed=feed, stdin=True)
        return replace(cmd, words=(*layer.args, *cmd.words), builtin=layer.name == "builtin")
    if layer.only_in_bash and outer != BASH:
        return cmd
    text = cmd.render()
    style = text_style if text_style in text_styles(outer, text) else "single"
    carried = quote(text, style)
    if layer.name == "string":
        return Cmd(words=(*layer.args, carried))
    if layer.name == "eval":
        return Cmd(words=("eval", carried), builtin=True)
    if layer.name == "evalvar":
        return Cmd(words=("eval", f'"${var}"'), pre=f"{var}={carried}; ", builtin=True)
    if layer.name == "herestring":
        return Cmd(words=layer.args, suffix=f" <<< {carried}", stdin=True)
    if layer.name == "pipe":
        return Cmd(words=layer.args, feed=f"printf '%s\\n' {carried} | ", stdin=True)
    if layer.name == "heredoc":
        end = f"EOF_{var}"  # one delimiter per depth, so nested here-documents stay apart
        return Cmd(words=layer.args, suffix=f" <<'{end}'\n{text}\n{end}\n", stdin=True)
    raise ValueError(layer.name)


# -- the strategy -----------------------------------------------------------------------------

def dialects(layers: list[Layer]) -> list[str]:
    """The dialect reading each layer (outermost first), then the innermost one."""
    out = [BASH]
    for layer in layers:
        inner = layer.inner if layer.name not in ("eval", "evalvar") else out[-1]
        skipped = layer.only_in_bash and out[-1] != BASH
        out.append(inner if inner and not skipped else out[-1])
    return out


@st.composite
def compositions(draw: st.DrawFn, payloads: list[Payload], harmless: bool = False) -> str:
    payload = draw(st.sampled_from(payloads))
    shells = [s for s in SHELLS if s.harmless_ok or not harmless]
    layers = draw(st.lists(st.sampled_from(LAUNCHERS + shells), max_size=4))
    reading = dialects(layers)
    inner = reading[-1]

    words = [quote_word(w, draw(st.sampled_from(word_styles(inner)))) for w in payload.words]
    pre = ""
    if payload.path:
        text, is_glob = draw(st.sampled_from(spellings(payload.path, payload.kind)))
        if payload.redirect and is_glob:  # sh does not expand globs in a redirection
            text, is_glob = payload.path, False
        how = draw(st.sampled_from(["plain", "quoted", "variable"]))
        if how == "variable":
            # an assignment does not expand globs; the unquoted use below does
            pre = f"P={quote(text, 'single') if draw(st.booleans()) else text}; "
            word = "$P" if is_glob else draw(st.sampled_from(["$P", "${P}", '"$P"']))
        elif how == "quoted" and not is_glob:
            word = quote_word(text, draw(st.sampled_from(word_styles(inner))))
        else:
            word = text
        if payload.prefix:
            word = quote_word(payload.prefix, "plain") + word
        if payload.redirect:
            cmd = Cmd(words=(), pre=pre, suffix="> " + word)
        else:
            words.append(word)
    if not payload.redirect:
        joiner = draw(st.sampled_from([" ", "  ", "${IFS}"]))
        if joiner != " ":
            words = [joiner.join(words)]
        cmd = Cmd(words=tuple(words), pre=pre, movable=bool(payload.path))

    for depth in range(len(layers) - 1, -1, -1):
        style = draw(st.sampled_from(["single", "double", "ansi", "backslash"]))
        cmd = apply(layers[depth], cmd, reading[depth], style, f"C{depth}")
    return cmd.render()


# -- the properties ---------------------------------------------------------------------------

SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(compositions(DESTRUCTIVE))
def test_a_destructive_payload_stays_blocked_however_it_is_dressed(command: str) -> None:
    verdict = assess(command)
    assert verdict.blocked, (command, verdict.to_dict())


@SETTINGS
@given(compositions(HARMLESS, harmless=True))
def test_a_harmless_payload_is_never_blocked_however_it_is_dressed(command: str) -> None:
    verdict = assess(command)
    assert not verdict.blocked, (command, verdict.to_dict())


@settings(max_examples=60, deadline=None)
@given(st.one_of(compositions(DESTRUCTIVE), compositions(HARMLESS, harmless=True)))
def test_the_compositions_are_valid_shell(command: str) -> None:
    # bash parses every composition, so a verdict is never about a typo of the generator
    result = subprocess.run(["bash", "-n", "-c", command], capture_output=True, text=True)
    assert result.returncode == 0, (command, result.stderr)
