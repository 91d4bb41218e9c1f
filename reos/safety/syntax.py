"""The shapes the shell reader produces: simple commands, redirections, stdin sources.

Plain data shared by `shell` (the reader), `streams` and the risk engine; decides nothing
and parses nothing itself.
"""

from __future__ import annotations

from msgspec import Struct, field

__all__ = ["MAX_COMMANDS", "MAX_DEPTH", "Redirect", "Script", "SimpleCommand", "Source",
           "Unparseable"]

MAX_DEPTH = 6
MAX_COMMANDS = 20000  # simple commands in one script; 64 KB holds at most ~16000
class Unparseable(ValueError):
    """The command line uses syntax that cannot be read reliably. `partial`: the commands
    the reader could still read (judged too, never trusted alone), when it got that far."""

    def __init__(self, why: str, partial: Script | None = None) -> None:
        super().__init__(why)
        self.partial = partial


class Redirect(Struct):
    op: str  # > >> < 2> &> <<< << ...
    target: str


class Source(Struct):
    """What a command reads on stdin, or what a `$(…)` yields."""

    text: str | None = None  # the literal text, when it can be known
    network: bool = False  # it comes (directly or after filters) from the network
    what: str = ""  # a short description when the text is unknown
    # decoded (base64, hex) from text not shown: what it says is hidden on purpose
    hidden: bool = False


class SimpleCommand(Struct, eq=False):
    argv: list[str]  # expanded words, program first (path kept; the judge strips it)
    redirects: list[Redirect] = field(default_factory=list)
    escalated: bool = False  # reached through sudo/doas/su/runuser
    piped_from: list[str] = field(default_factory=list)  # programs earlier in the pipeline
    via: str = ""  # "sh -c", "$(...)", "<(...)" when nested
    fed_by_download: bool = False  # stdin or a process substitution comes from the network
    piped_args: list[str] = field(default_factory=list)  # words of earlier pipeline commands
    stdin_text: str | None = None  # a here-string or here-document
    upstream: SimpleCommand | None = None  # the command piped into this one
    procsubs: dict[str, list[SimpleCommand]] = field(default_factory=dict)  # word -> inside
    dynamic_network: bool = False  # a word was computed from a download
    env: dict[str, str] = field(default_factory=dict)  # NAME=value prefixes
    background: bool = False
    depth: int = 0
    function_call: bool = False  # calls a function defined in the script (judged inside)
    # indexes of words that began with an unquoted glob (`*.log`): the shell replaces them
    # with file names, which can look like options
    globbed: set[int] = field(default_factory=set)
    # indexes of words holding an expansion whose value is known only when it runs
    dynamic: set[int] = field(default_factory=set)
    # of those, the ones wholly inside double quotes ("$c"), which stay one word: index ->
    # whether the word begins with a literal other than `-` ("/etc/$c" is no option)
    quoted: dict[int, bool] = field(default_factory=dict)
    # commands bash runs that are not commands here: inside `${x:-$(…)}`, an unquoted
    # here-document, or a value arithmetic evaluates (`$((x))` with x='a[$(…)]')
    hidden: list[str] = field(default_factory=list)
    # what it prints, once worked out (`streams.output_of`): a pipeline of thousands of
    # commands is then read link by link, never by recursing down the whole chain. A cache,
    # so commands are compared by identity (eq=False), never by what was worked out so far
    output: Source | None = None
    # a word expands into more than reos reads (`{a..z}{a..z}…`, a value doubled twenty
    # times): what runs, and how much memory the shell needs, is not known
    too_big: bool = False
    # a coprocess's number (0: the shell itself): a `cd` there moves only its own commands
    process: int = 0

    @property
    def program(self) -> str:
        return self.argv[0].rsplit("/", 1)[-1] if self.argv else ""

    @property
    def tool(self) -> str:
        """The program behind wrappers: `sudo curl`, `busybox wget`, `timeout 5 wget`."""
        from reos.safety.wrappers import unwrap

        real, _ = unwrap(self.argv)
        return real[0].rsplit("/", 1)[-1] if real else self.program


class Script(Struct):
    commands: list[SimpleCommand] = field(default_factory=list)
    fork_bombs: list[str] = field(default_factory=list)  # what spawns without end, in words
    # what the grammar could not read and the reader spelled again (`respell`), in words
    respelled: str = ""
