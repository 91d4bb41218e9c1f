"""Hosts and groups of the person's Ansible inventory named in a request's words: "restart
nginx on the web servers", "… on web1", "… everywhere except db1", "which hosts have a
failed unit?", "stop nginx on all hosts but the database hosts".

`read(request, names)` finds the words that name hosts, takes them off the request, and
gives the hosts they name (`Chosen`: the hosts, a pattern that lists them by the
inventory's own names, what named them, and the rest of the request, which is planned on
each host), a question when the words fit more than one reading or leave a word unread
that could change where it runs (`Asked`), or a plain answer (`Unknown`): a name the
inventory does not hold, or hosts reos will not put in a pattern. None: the words name no
host, and the request is this machine's, as without an inventory.

The hosts are resolved here, groups and exclusions included, and the pattern names each
chosen host ("web1,web2"; "all" for every host): never a group expression such as
"web:&prod:!web2", so what the heading says is what Ansible is asked for, and the caller
checks that Ansible's own choice for the pattern is exactly these hosts
(reos.commands.named_hosts). A name that is not plain (a space, or a character a pattern
reads: , : ! & * ? [ ] ~ @) is never a word, and when a glob or a group chooses such a
host the reading is refused.

What is read as hosts:
- a clause after a word of place (on, across, over, in, at, throughout, within: PLACE, or
  "from"/"off" after a word that removes: "remove telnet from production") whose words
  are names: "on web1, web2 and db1", "on web1 web3", "in prod", "at db1", "on
  everything", "on the all group";
- words for every host: "everywhere", "the (whole) fleet", "all hosts", "every server",
  "each box" (HOST_NOUNS), and a typo of such a word where it reads as hosts, as the
  catalogue's corrector reads it ("everywher", "on evry box", "all hsts": HOST_WORDS).
  Without a word of place they are hosts only when asked about
  ("which hosts …", "do all servers …"), said of ("the uptime of every server"), first,
  or followed by hosts left out ("install htop all hosts except db1");
  otherwise they are what the request acts on ("remove all hosts from known_hosts",
  "restart all nodes of the k8s cluster"), and "which server is listening" asks for a
  program;
- what to leave out of the hosts named: "except", "but (not)", "other than", "apart
  from", "excluding"… (EXCEPT) followed by names, more after a comma ("except db1, not
  web2");
- a group by its name ("web"), its plural ("the dbs"), its singular ("the proxy
  servers" for a group proxies), its name before a host noun ("the web servers", "the
  web tier", "the dbservers"; a group called webservers is "web" too), or by a word
  that is another name for it. Another name is either the catalogue's: a group whose name
  the role table (templates/roles.toml, passed in as `synonyms`) gives to the same
  software as the word ("db" and "database" name the same database servers); or a
  truncation: the group's name of three letters or more begins the word, or the word
  (of letters) begins it ("prod" for "production" or "prod-eu"). Such a reading is said
  with the hosts ("group db, for “database”"), never taken in silence, and two groups
  that fit make a question;
- a host by its name ("web1", "WEB1", "web 1" for web1 or web-1, "web1's disk", "web2:
  restart nginx"), or a glob of names ("web*": the hosts it matches, else the groups);
- a name of several words said apart, the longest that fits ("the k8s workers" is the
  group k8s_workers, never the group k8s with "workers" left in the rest; "k8s worker"
  is one of its hosts, asked); a word of such a name left right after the hosts read
  ("on k8s workrs") is asked, never passed on to the rest;
- a group with a word for it as a whole after its name ("the db lot", "the web crowd");
- hosts after "in" that ends a phrase of the catalogue ("who logged in db1"): the "in"
  stays in the rest;
- hosts within a group: "the web servers in production", each name with its own ("on
  db1 and on the web servers in production" is db1 too);
- names joined by words that join as "and" does ("as well as", "along with", "together
  with", "in addition to", "but also": `_JOINING`) or by a slash between two names
  ("web1/web2"); hosts said first before a dash ("web1 — restart nginx", as before a
  colon: `_lead_dash`), when every word before it could name hosts;
- a slip for "except" ("exept db1": `_LEAVING_SLIPS`) leaves out as "except" does.

What is asked, never read as hosts nor left in the rest: a slip for a host's name (never
a group whose name begins it: "shopfrnt" is no "shop"); "web2's fine" after a list (a
sentence of its own); a word that leaves alone right after hosts ("db1, let it alone");
a word of a host's name in the sentence of the hosts read ("the CCTV in Galway", where
the camera is cctv_galway: `_hosts_by_a_word_of_theirs`); machines said in the plural by
words that name none of the inventory's ("reboot the old servers": `_machines_unnamed`),
which are never this one machine.

Every word is read, or it is asked. The rest is planned on each host as it stands, so
once the hosts are taken off, a word left in it that could change where it runs makes a
question saying what was read and what was not: a word that leaves out ("(not db1)",
"never db1", "db1 is off limits", "leaving db1 out": LEAVING_OUT, and DENYING near words
for hosts), a name of the inventory that names other hosts ("…, db1 not included"), hosts
said in two places that are not the same hosts ("stop cron on the db server and restart
nginx on the web servers", "on hosts not in production").

What is asked besides: a word for two names that differ only in case ("WEB" and "web",
"Web1" and "web1"); a word that is both a host and a group (unless the group is that
host); hosts left out with no hosts named to run on ("restart nginx except on db1"),
unless the names are software said of a set of things ("stop all containers except
postgres": this machine's); a host left out by a bare name while the rest speaks of a set
of things ("stop all containers everywhere except app1": the host, or the container?);
"on all of them" with no hosts named; "the web server" (or "the server of web", "the
webserver", "the dbhost", "the proxy" for a group proxies) when the group has several
hosts; a number said with the hosts that is not the number of the
hosts named ("both db boxes", "the two database servers", "one of the web servers" for a
group of three); two names before a host noun that share no host ("the staging web
servers": the hosts of both, when there are any); "the servers" with no word for every
host ("all servers"): which of them is not said; a "not" right before words read as hosts
("…, not of the web servers"); a request that says this machine ("here", "this computer",
"locally", or a file of its ssh about hosts: "my known_hosts", "~/.ssh/config",
"/etc/hosts") and also where to run ("restart nginx here and on web1") — and when it only
names hosts ("install psql here to reach db1", "remove db1's line from my known_hosts"),
it is this machine's (None); a name one letter off from a host's ("wbe1": did you mean
web1?) or a group's after a word of place ("on relais", or "on proxys" for proxies);
a host's name standing alone ("reboot web2"), which could be the host or a thing of that
name (a container called web1) — unless a resource noun says it is a thing ("the web1
container", "the hosts file", "all packages": not hosts, never asked); hosts after
"from", "to", "for" (ABOUT: "allow postgres from the web servers" names a source, not
where to run); "in the web group", which could be a group of users, and "in docker" when
a group is called so, which could be the program; an exclusion right after hosts that
names none of them ("restart nginx on all hosts except 10.0.0.5"); a name of several
words said apart that reads another way too ("web 2" for the group web_2 and the host
web2; "web prod" for the group web_prod and the hosts in both web and prod), naming
both; hosts said with "or" between them ("on web1 or web2": which?); a list whose last
name begins a sentence of its own ("on web1, web2 is fine"); a request that says not
to do it before the hosts ("do not restart nginx on web1", "never reboot the db
servers"); an
ordinal for hosts ("on the first web server", "the second db"): one host the words do
not name.
What is answered plainly: a name after a word of place that looks like the inventory's
names but is none of them ("on web9", "on the mail servers").

Not responsible for reading the inventory (reos.fleet.inventory does, with Ansible; the
caller passes the names in), for checking Ansible's choice or cutting a request into its
asks (the caller, with reos.understanding.parts.asks: `several_asks` words the question),
for what runs on the hosts (the fleet path plans the rest on each), nor for roles read
from what runs on a host ("the hosts running postgres" needs their snapshots). The
person's words never become a pattern: every name in one is the inventory's own, and a
glob the person typed ("web*") is matched here against those names. The cheap first
look, whether a request's words could name any host at all, and the words for hosts both
use are reos.understanding.host_words, so that a request whose words hold nothing of the
inventory's names loads neither Ansible nor this reader.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import replace

from reos.patterns import regex
from reos.understanding.host_words import (
    ASKING,
    EVERY,
    GROUP_NOUNS,
    HERE,
    HERE_PAIRS,
    HOST_NOUNS,
    HOST_WORDS,
    NEGATING,
    PARTS,
    PLACE,
    PLURALS,
    TOKEN,
    WORD,
    letters,
    one_letter_off,
    plurals,
    stem,
)

if TYPE_CHECKING:
    from reos.catalogue.templates import TemplateSet

# Words for a group as a whole said only after its name, never part of a group's own name
# (a group "pilot" is no "pi lot"): "the db lot", "the web crowd".
_COLLECTIVE = {"lot", "lots", "bunch", "crowd", "gang", "crew", "mob", "squad", "brigade"}
# After these, "the X group" could be a group of users as much as one of hosts, and a
# group's name the catalogue reads ("in docker") the program as much: asked.
WEAK_PLACE = {"in", "within"}
# "from" and "off" after a word that removes are where it runs ("remove telnet from
# production"); "from the web group" is a group of users, as without them.
REMOVED_FROM = {"from", "off"}
REMOVING = {"remove", "uninstall", "purge", "delete", "nuke", "yank", "drop", "strip",
            "erase", "rip"}
# Hosts after these are what the request is about, perhaps not where it runs: "allow
# postgres from the web servers" (a source), "add alice to db1": asked.
ABOUT = {"from", "to", "for", "between", "against", "towards", "into"}
EVERY_HOST = {"everywhere", "fleet-wide", "fleetwide"}
SSH_FILES = (".ssh/config", "/etc/hosts", ".ssh/known_hosts")
# Ways to leave hosts out, longest first where one begins another.
EXCEPT = ("except for", "except on", "excepting", "except", "excluding", "exclude",
          "but not on", "but not", "but", "not on", "other than", "apart from", "aside from",
          "save for", "minus", "skipping", "skip", "leaving out", "leave out", "without")
# Words that leave out whatever they are said of: left in the rest, they may leave out
# hosts, so the request is asked about. ("but", "skip", "without" and "not" are said of
# other things far more often: `DENYING`, weighed by the words near them.)
LEAVING_OUT = ("except", "excepting", "excluding", "exclude", "other than", "apart from",
               "aside from", "save for", "besides", "not including", "off limits",
               "off-limits", "leaving out", "leave out", "do not touch", "minus", "excepted",
               "excluded", "exempt", "exempted")
DENYING = {"not", "never", "no", "nor", "neither", "but", "without", "skip", "skipping",
           "leave", "leaving", "left", "spare", "sparing", "ignore", "ignoring", "avoid",
           "instead", "rather", "unless", "save", "bar", "alone", "untouched", "dont",
           "cannot"}
_NOT_VERBS = {"do", "does", "did", "is", "are", "was", "were", "has", "have", "had", "wo",
              "ca", "should", "would", "could", "must", "need"}  # "isnt", "arent"…
# words before machines that make them software's or a program's ("the name servers")
_OF_SOFTWARE = {"virtual", "name", "running", "configured", "upstream", "dns", "ntp",
                "mail", "web", "worker", "kubernetes", "k8s", "docker", "build", "game"}
# verbs whose object is a whole machine: "reboot the old servers" is never this one
_ACTS_ON_MACHINES = {"reboot", "restart", "shutdown", "poweroff", "update", "upgrade",
                     "patch", "kick", "bounce", "reinstall", "wipe", "decommission"}
# what says a range of numbered hosts after the first: "pump-gw01 through 03"
# words that say which machine, never a part of a host's name said: "on the local
# machine", "the same server", "the main box" (a host local-dns is not meant)
_SAYS_WHICH_MACHINE = frozenset({
    "local", "same", "current", "this", "that", "main", "other", "new", "old", "remote",
    "whole", "entire", "first", "last", "next", "primary", "secondary", "own", "default",
    "real", "actual", "physical", "virtual", "right", "wrong", "good", "bad", "big",
    "small", "home", "my", "our", "your", "their", "its", "every", "each", "any"})
_TRAILING_NUMBER = regex(r"[0-9]+$")
_LEADING_ZEROS = regex(r"(?<![0-9])0+(?=[0-9])")
_RANGE = {"through", "thru", "till", "until", "to", "-", "..", "upto"}
# what joins the ends of a range of hosts: never "to" (a value's, a direction's) nor
# "until" (a time's)
_SPANNING = {"through", "thru", "-", ".."}
_NUMBERED = regex(r"([a-z][a-z]*?)(\d+)")  # "till07", "web2": a word and a number
_SPAN = regex(r"\d{1,4}-\d{1,4}")  # "3-5"
# words of time a word of place may come before, after the hosts: "on web1 at noon"
_TIMES = {"noon", "midnight", "night", "tonight", "morning", "evening", "afternoon",
          "once", "boot", "startup", "weekend", "weekends", "home", "least", "most",
          "first", "last", "all", "some", "times", "hours", "minutes", "background",
          "parallel", "turn", "order", "sequence", "batches", "go", "now", "future",
          "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
          "dawn", "dusk", "lunch", "lunchtime", "closing", "opening", "shutdown"}
_POINTING = {"one", "ones", "them", "those", "these", "others", "other", "rest", "remaining",
             "everything", "anything", "everyone"}
NEAR_AFTER, NEAR_BEFORE = 4, 3  # words a denying word is weighed by, after and before it
_MARKS = {",", ";", ":", "!", "?"}
# words of a program that listens at an address: "listen on 10.0.0.21" is the address
_BINDING = {"listen", "listens", "listening", "bind", "binds", "bound", "serve", "serves"}
# addresses of this machine itself, or of every address: never a host's said by its address
_LOOPBACK = regex(r"127\.|0\.0\.0\.0$|::1?$|localhost$", re.IGNORECASE)
# nouns of a place within a site or a network: said after hosts, they say which of them
# ("in the Kelmouth data room", "at the Brisk terminal building")
_PLACE_NOUNS = {"room", "office", "building", "floor", "rack", "cabinet", "closet", "lab",
                "datacenter", "datacentre", "site", "branch", "campus", "wing", "hall",
                "terminal", "depot", "warehouse", "plant", "station", "store", "shop",
                "yard", "basement", "attic", "annex", "annexe", "dc", "colo", "cage",
                "segment", "vlan", "subnet", "zone", "dmz", "area", "suite", "ward",
                "clinic", "school", "library", "factory", "mill", "harbour", "harbor",
                "dock", "pier", "hangar", "tower", "outpost"}
_SENTENCE_END = regex(r"[.;!?]")
_SENTENCE_ENDS = {".", "!", "?", ";", "please", "pls", "plz", "thanks", "now", "asap"}
_BOUNDARY = regex(r"[.,;:!?()\[\]\u2014]|\s-\s")
_DETERMINERS = {"the", "my", "our", "all", "every", "each", "both", "any", "of", "whole",
                "entire", "these", "those", "which", "what"}
# words for an unsaid part of a set of hosts ("a few of the tills", "the rest of them")
_SOME = {"few", "some", "several", "couple", "handful", "half", "most", "many", "rest",
         "part", "certain"}
_WHICH = {"which", "what"}  # "which hosts": every host, asked about; "what router": a thing
_SEPARATORS = {",", "and", "&", "+", "plus", "or", "also"}
# things whose names are free, often a machine's ("app1", "db-1"): a name left out of them
# may be one of them
_FREE_NAMED = {"container", "containers", "docker", "compose", "stack", "stacks", "pod",
               "pods", "vm", "vms", "jail", "jails", "project", "projects"}
# programs whose object is another machine, beyond the catalogue's (`Known.to_machines`)
_TO_MACHINES = {"ssh", "scp", "sftp", "rsync", "connect", "telnet", "curl", "wget", "nc",
                "mtr", "dig", "host", "whois", "mount", "mosh", "wake", "wol", "etherwake",
                "ssh-copy-id", "ssh-keygen", "ping6", "iperf", "iperf3", "getent", "sync",
                "peer", "nmap", "ftp", "smbclient", "showmount", "unmount", "umount",
                "backup", "copy", "send", "upload", "download", "migrate", "replicate"}
# words before a name that make it the name of what is made or set
_NAMES_IT = {"name", "--name", "named", "called", "as", "with", "user", "group",
             "account", "hostname", "alias", "label", "tag"}
_JOINERS = {",", "and", "&", "+", "plus"}  # names said alone, each meant ("or": which?)
# words of a sentence's frame, never read as a host's name misspelt ("it" is one letter
# off "git", "is" off "iso")
# what a short part of a host's name stands for: "the unifi controller" of unifi-ctl
_SHORT_FOR = {"ctl": ("controller", "control"), "ctrl": ("controller", "control"),
              "srv": ("server",), "cam": ("camera", "webcam"), "mon": ("monitoring",),
              "gw": ("gateway",), "fw": ("firewall",), "db": ("database",),
              "pbx": ("phone", "telephone"), "prn": ("printer",)}
# what does the thing a group of two words is named for: "lift controllers" are the
# group lift_control's, "ticket printers" ticket_print's
_WHAT_DOES = {"er", "ers", "ler", "lers", "or", "ors"}
_OWNING = {"my", "our", "your", "default"}  # "my gateway": this machine's
# verbs whose object is a machine, never where they run: "ping the radius box"
_AT_A_MACHINE = {"ping", "scan", "block", "ban", "unban", "whitelist", "blacklist",
                 "allow", "deny", "reject", "trace", "traceroute", "reach", "probe"}
# words that end a host's description ("on the valley cam when you can")
_NOT_DESCRIBING = {"when", "whenever", "if", "because", "since", "so", "please", "pls",
                   "now", "today", "tonight", "asap", "and", "or", "but", "except",
                   "first", "again", "too", "also", "then", "thanks", "for", "with",
                   "to", "from", "of", "in", "on", "at", "by", "it", "is", "are", "was",
                   "right"}
_FUNCTION_WORDS = {"it", "its", "this", "that", "these", "those", "them", "they", "me",
                   "us", "we", "you", "he", "she", "him", "her", "is", "are", "was", "be",
                   "as", "an", "a", "to", "so", "or", "and", "if", "up", "out", "off", "no",
                   "not", "do", "does", "did", "has", "have", "had", "can", "will", "then",
                   "than", "too", "now", "also", "just", "only"}
# a name only a machine has: letters with a digit, dot, dash or underscore ("store03",
# "tape_lib", "nas.home.arpa"), never a word ("mail") or a number
_MACHINE_SHAPED = regex(r"(?=[a-z0-9._-]*[a-z])(?=[a-z0-9._-]*[0-9._-])[a-z0-9][a-z0-9._-]*")
# "the first web server", "the 2nd db": one host the words do not name
_ORDINAL = regex(r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|"
                 r"\d+(?:st|nd|rd|th)")
# "web2 is fine" after a list of hosts: a sentence of its own about the last of them
_BEING = {"is", "are", "was", "were", "seems", "seem", "looks", "look", "stays", "stay"}
# words of how a thing is, after "'s" said for "is" ("web2's fine"); a noun after it is
# the thing's ("db1's disk")
_STATES = {"fine", "ok", "okay", "good", "alright", "done", "up", "down", "healthy",
           "broken", "dead", "busy", "already", "been", "not", "still", "working", "offline",
           "online", "ready", "safe", "free", "full", "gone", "new", "old", "idle", "off",
           "on", "patched", "updated", "current", "behind", "serving", "live", "critical"}
# the words between hosts and such a word that still speak of them: "db1 let it alone"
_POINTING_BACK = {"let", "leave", "it", "them", "that", "this", "one", "alone", "please",
                  "just", "be", "untouched", "skip", "spare", "ignore", "avoid"}
# words that leave what was just named out ("db1, leave it alone"), unlike "not" or
# "n't", which may deny something of it ("which hosts don't have nginx")
_LEAVING_ALONE = {"alone", "untouched", "leave", "leaving", "skip", "skipping", "spare",
                  "sparing", "ignore", "ignoring", "avoid", "excluded", "excepted"}
# words that may ask for hosts to be kept as they are ("web2 must stay up")
_KEEPING = {"keep", "keeps", "keeping", "kept", "stay", "stays", "staying", "remain",
            "remains", "must", "critical", "careful", "touch", "untouched", "freeze",
            "frozen", "hold"}
# slips for a word that leaves hosts out ("exept db1"), before a name; never a word
_LEAVING_SLIPS = ("except", "excluding")
_WORDS_NOT_SLIPS = {"excerpt", "expect", "exempt", "accept"}
_BEFORE_PLACE = {"only", "just"}
_LISTING = {"list", "show", "find", "count", "display"}  # verbs that ask about hosts
_WITHIN = {"in", "of", "within"}  # "the web servers in production": both
_OF_HOSTS = "of hosts"  # the place of a group said after hosts: surely the inventory's
# Nouns after a name that make it a thing on a machine, not a host: "the web1 container",
# "the hosts file".
THING_NOUNS = {"entry", "entries", "line", "lines", "config", "configuration", "list",
               "container", "containers", "service", "services", "unit", "units", "package",
               "packages", "user", "users", "account", "image", "images", "volume",
               "volumes", "network", "process", "processes", "timer", "timers", "file",
               "files", "folder", "directory", "disk", "interface", "port", "site",
               "website", "app", "stack", "project", "database", "db", "vhost"}
# A name Ansible reads in a pattern as itself and nothing more: letters, digits, dots,
# dashes and underscores. Any other character can mean something there (",:!&*?[]~@"), and
# whitespace splits a pattern: a host whose name holds one is never put in a pattern.
_PLAIN = regex(r"[A-Za-z0-9._-]+")

_RUNS = regex(r"[a-z]+|[0-9]+")
_SPACE_BEFORE = regex(r"\s+([,.;:!?])")
_REPEATED = regex(r"([,;:])(?:\s*[,;:])+")
# a joining word left with nothing to join: at the end, or before a mark
_DANGLING = regex(r"(?:\s*,)?\s+(?:and|or|plus|&|as\s+well\s+as|along\s+with|together\s+with|"
                  r"in\s+addition\s+to|but\s+also)(?=\s*(?:[,.;:!?]|$))(\s*[,.;:!?]|$)",
                  re.IGNORECASE)


class Names(Struct, frozen=True):
    """What an inventory holds, as reos.fleet.inventory read it: its hosts in order, the
    hosts of each group ("all" left out), and the inventory's name for the person
    ("hosts.ini")."""

    hosts: tuple[str, ...]
    groups: dict[str, tuple[str, ...]]
    where: str = "the inventory"
    # the address each host is reached at, where the inventory gives one (ansible_host)
    addresses: dict[str, str] = field(default_factory=dict)


class Chosen(Struct, frozen=True):
    """The hosts a request names: `pattern` (Ansible's, from the inventory's names),
    `hosts` in the inventory's order, `named` what the words named ("group web", "all
    hosts except db1"), `request` the rest, to plan on each, and `taken` the words read
    as hosts, as typed."""

    pattern: str
    hosts: tuple[str, ...]
    named: str
    request: str
    taken: tuple[str, ...] = ()

    def heading(self) -> str:
        """"On web1, web2 (group web):", the hosts first and what named them after."""
        hosts = ", ".join(self.hosts)
        return f"On {hosts}:" if self.named == hosts else f"On {hosts} ({self.named}):"


class Asked(Struct, frozen=True):
    """A question instead of hosts: its words, and the choices it offers. `read`: the
    hosts the words would have chosen, when the question is only whether the request is
    theirs or this machine's ("restart nginx here and on web1"), so that a caller that
    finds a sharper question (several asks) can ask that one instead."""

    question: str
    choices: tuple[str, ...] = ()
    read: Chosen | None = None


class Unknown(Struct, frozen=True):
    """A name in a host's place that the inventory does not hold, said plainly."""

    word: str
    message: str
    hint: str


Reading = Chosen | Asked | Unknown


# -- the cheap first look -----------------------------------------------------------------






# -- reading ------------------------------------------------------------------------------
class _Token(Struct, frozen=True):
    text: str
    low: str
    start: int
    end: int


class _Ref(Struct, frozen=True):
    """One thing the words named: every host, a host, or a group (`said` as the reading
    says it: "group db, for “database”"), and the groups it is said within ("the web
    servers in production": only those of its hosts in each)."""

    kind: str  # all | host | group
    name: str = ""
    said: str = ""
    within: tuple[_Ref, ...] = ()


class _Found(Struct):
    """What `_phrase` read: the names, where the phrase ends, and whether it is surely
    about hosts (a host noun, a word for every host, a plural of a group) or only a bare
    name that could be a thing ("reboot web2")."""

    refs: list[_Ref] = field(default_factory=list)
    end: int = 0
    sure: bool = False
    bare: list[str] = field(default_factory=list)
    pointing: bool = False  # "all of them": hosts said before, or asked


class _Clause(Struct, frozen=True):
    """Hosts said in one place of the request, to run on ("on web1 and db1") or to leave
    out ("except web2"): its names, the tokens it spans, and, for hosts left out, whether
    the words surely mean hosts (a word of place or a host noun: "except on db1", "but
    the db box") rather than a name a thing could have too ("except postgres")."""

    refs: tuple[_Ref, ...]
    start: int
    end: int
    sure: bool = True
    said_as_host: bool = False  # only a name said as a host's: "web1's disk", "web2: …"


class _Stop(Exception):  # noqa: N818 - not an error: the reading ends in its answer
    def __init__(self, answer: Asked | Unknown) -> None:
        self.answer = answer


class Known(Struct, frozen=True):
    """What the catalogue (`from_catalogue`) tells the reader about words: its names for
    software (a role word and the programs it names: "database" and "db" share them),
    its spelled-out forms of single words ("teh" is "the"), the nouns it reads as kinds
    of things ("stick", "disk": "the backup stick" is a thing, not the group backup), and
    every word it reads ("docker": "in docker" may be the program, not a group), its
    spelling corrector, and its phrases that end in a weak word of place ("logged in":
    "who logged in db1" keeps its "in")."""

    synonyms: dict[str, frozenset[str]] = field(default_factory=dict)
    spellings: dict[str, str] = field(default_factory=dict)
    things: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()
    numbers: dict[str, int] = field(default_factory=dict)  # "three": 3
    # the catalogue's spelling corrector, told the words for hosts too (`HOST_WORDS`):
    # "evry" -> "every", "everywher" -> "everywhere"
    correct: Callable[[str], str | None] | None = None
    # phrases of the catalogue that end in a weak word of place: ("logged", "in")
    ending_in_place: frozenset[tuple[str, ...]] = frozenset()
    # the words of operations whose object is another machine ("ping", "trace", "block"):
    # with one, a host's name said alone is that object, not where to run
    to_machines: frozenset[str] = frozenset()
    # the catalogue's verbs of one word ("restart", "install"): a name right after one is
    # what it acts on ("restart mosquitto"), never a group's hosts said alone
    verbs: frozenset[str] = frozenset()


def from_catalogue(templates: TemplateSet) -> Known:
    from reos.catalogue.lexicon import correct, lexicon

    synonyms = {phrase.lower(): frozenset(p.lower() for p in programs)
                for phrase, programs in templates.aliases.get("service", {}).items()
                if " " not in phrase}
    spellings = {word: spelled for word, spelled in templates.vocabulary.contractions.items()
                 if " " not in spelled}
    things = frozenset(noun for nouns in templates.vocabulary.resources.values()
                       for noun in nouns if " " not in noun and noun not in GROUP_NOUNS
                       and noun not in PLURALS)
    lex = lexicon(templates)
    return Known(synonyms, spellings, things, frozenset(lex.tables().known),
                 dict(templates.vocabulary.numbers),
                 lambda word: correct(word, lex, HOST_WORDS),
                 frozenset(tuple(words) for entries in lex.phrases.values()
                           for words, _, _ in entries
                           if len(words) > 1 and words[-1] in WEAK_PLACE),
                 frozenset(phrase.split()[0].lower()
                           for operation in templates.operations.values()
                           if "host" in operation.slots
                           for phrase in (*operation.verbs, *(
                               idiom for idiom in operation.idioms if " " not in idiom))),
                 frozenset(verb.lower() for operation in templates.operations.values()
                           for verb in operation.verbs if " " not in verb))




def read(request: str, names: Names, known: Known | None = None,
         here: Callable[[], frozenset[str] | None] | None = None) -> Reading | None:
    """The hosts `request` names among `names` (see the module's docstring), or None when
    it names none. `known` is what the catalogue says of words (`from_catalogue`);
    `here`, the names of things on this machine (lower case; None when not known), asked
    only when a host's name is said alone (`_Reader.alone`)."""
    try:
        return _Reader(request, names, known or Known(), here).read()
    except _Stop as stop:
        return stop.answer


class _Reader:
    def __init__(self, request: str, names: Names, known: Known,
                 here: Callable[[], frozenset[str] | None] | None = None) -> None:
        self.request = request
        self.names = names
        self.known = known
        self.things_here = here
        self.synonyms = known.synonyms
        self.things = THING_NOUNS | known.things
        text = request.replace("\u2019", "'")
        self.tokens: list[_Token] = []
        # a word spelled out ("gw" is "gateway") unless it is a name of the inventory's
        own = {n.lower() for n in (*names.hosts, *names.groups)}
        for m in TOKEN.finditer(text):
            low = m.group().lower()
            if low.startswith("/") and low[1:] in own and self.tokens and (
                    self.tokens[-1].end == m.start() and self.tokens[-1].low in own):
                # "web1/web2": two names of the inventory, one after the other
                self.tokens.append(_Token("/", ",", m.start(), m.start() + 1))
                self.tokens.append(_Token(m.group()[1:], low[1:], m.start() + 1, m.end()))
                continue
            spelled = low if low in own else known.spellings.get(low, low)
            self.tokens.append(_Token(m.group(), spelled, m.start(), m.end()))
        self.tokens = _joined(self.tokens)
        for k, token in enumerate(self.tokens):  # "exept db1" is "except db1"
            slip = next((w for w in _LEAVING_SLIPS if one_letter_off(token.low, w)), None)
            after = [t.low for t in self.tokens[k + 1:k + 3]]
            if slip and token.low not in known.words and token.low not in own and (
                    token.low not in _WORDS_NOT_SLIPS) and (
                    after[:1] and (after[0] in own or after[1:2] and after[0] == "the"
                                   and after[1] not in _FUNCTION_WORDS)):
                self.tokens[k] = _Token(token.text, slip, token.start, token.end)
        # Words are matched without case, so names that differ only in case ("WEB" and
        # "web", "Web1" and "web1") are one word for two things: `clashes`, always asked.
        # A name that is not plain is never a word (no token holds it), but a glob or a
        # group can still choose it, and then `_chosen` refuses.
        usable = [h for h in names.hosts if _PLAIN.fullmatch(h)]
        self.hosts, self.clashes = _by_word(usable, "host")
        short: dict[str, list[str]] = {}
        for host in usable:  # web1.example.com is web1 too, when no other host is
            if "." in host:
                short.setdefault(host.split(".", 1)[0].lower(), []).append(host)
        for word, full in short.items():
            if len(full) == 1 and word not in self.hosts and word not in self.clashes:
                self.hosts[word] = full[0]
        groups = [g for g in names.groups
                  if g not in ("all", "ungrouped") and _PLAIN.fullmatch(g)]
        self.groups, clashes = _by_word(groups, "group")
        self.clashes.update(clashes)
        self.group_names = groups
        # hosts named alike, by the name they share ("lb" for lb-1 and lb-2, "runner"
        # and "buildrunner" for build-runner-1..3): "on both lbs", "on all the runners"
        self.families: dict[str, set[str]] = {}
        for host in usable:
            shared = _FAMILY.fullmatch(host.split(".", 1)[0].lower())
            if shared:
                base = shared[1]
                for key in {letters(base), letters(re.split(r"[-_]", base)[-1])}:
                    if len(key) >= 2:
                        self.families.setdefault(key, set()).add(host)
        self.reached: dict[str, set[str]] = {}  # "10.30.0.30" -> {"sm-scada1"}
        for host, address in names.addresses.items():
            if address.lower() not in own and not _LOOPBACK.match(address):
                self.reached.setdefault(address.lower(), set()).add(host)
        # an address said to a verb that takes one ("allow 5432 on 10.0.0.21", "listen on
        # 10.0.0.21") is what the request is about, never where it runs
        self.addressed = any(t.low in known.to_machines or t.low in _TO_MACHINES
                             or t.low in _BINDING for t in self.tokens)
        self.stems: dict[str, set[str]] = {}  # "web" -> {"web", "webservers"}
        for group in groups:
            self.stems.setdefault(stem(group.lower()), set()).add(group)
        # names of several words ("k8s_workers", "web-ams-03") said apart: "k8s workers"
        self.joined: dict[tuple[str, ...], _Ref] = {}
        self.parts: dict[str, set[str]] = {}  # "workers" -> {"k8s_workers"}
        named = [*((h, _Ref("host", h)) for h in self.hosts.values()),
                 *((g, _Ref("group", g, f"group {g}")) for g in self.groups.values())]
        for name, ref in named:
            parts = tuple(p for p in PARTS.split(name.lower()) if p)
            if len(parts) > 1:
                self.joined[parts] = ref
                for part in parts:
                    if len(part) >= 2 and not part.isdigit():
                        self.parts.setdefault(part, set()).add(name)
        # a group named by two words written together, said apart: "the met masts" for
        # metmasts, "the test bench" for testbench (each word of three letters or more)
        for name, ref in named:
            low = name.lower()
            if ref.kind == "group" and low.isalpha():
                for cut in range(3, len(low) - 2):
                    if low[cut:] not in THING_NOUNS and low[cut:] not in known.words:
                        # never "the web app" for a group webapp: an app is a thing here
                        self.joined.setdefault((low[:cut], low[cut:]), ref)
        # a host or group of two words named role first is said the other way round too,
        # after a word of place: the host relay.us is "on the US relay", the group
        # branch_north "on the north branch machines" (words, not numbers); elsewhere
        # "the redis cache" is no host cache-redis
        self.turned: dict[tuple[str, ...], _Ref] = {}
        for name, ref in named:
            parts = tuple(p for p in PARTS.split(name.lower()) if p)
            turned = parts[::-1]
            if len(parts) == 2 and all(p.isalpha() for p in parts) and (
                    turned not in self.joined):
                self.turned[turned] = ref
        # a name said with other separators, or none between its letters and digits:
        # snowcam-peak for snowcam_peak, guest-facing for guest_facing, kiosk2 for kiosk-2
        self.respelled: dict[tuple[str, ...], set[tuple[str, str]]] = {}
        for table, kind in ((self.hosts, "host"), (self.groups, "group")):
            for word, name in table.items():
                runs = _spelling(word)
                if len(runs) > 1:
                    self.respelled.setdefault(runs, set()).add((kind, name))
        self._correct_host_words()
        self._lead_dash()
        self.here = self._here_said()
        # names said as things ("the web1 container", "the docker group" of users, "the
        # web server" said alone): not hosts, and not a host's name left unread either
        self.as_things: set[int] = set()

    def _lead_dash(self) -> None:
        """Hosts said first, then a dash ("web1 — restart nginx", "the web servers -
        disk usage"), read as they are before a colon: a ":" token in the dash's place,
        when every word before it could name hosts."""
        for k in range(1, len(self.tokens)):
            gap = self.request[self.tokens[k - 1].end:self.tokens[k].start]
            if _LEAD_DASH.fullmatch(gap.replace("\u2019", "'")):
                if all(self._names_hosts(t.low) for t in self.tokens[:k]):
                    self.tokens.insert(k, _Token(":", ":", self.tokens[k - 1].end,
                                                 self.tokens[k].start))
                return
            if gap.strip():
                return  # a mark before any dash: not a name said first

    def _names_hosts(self, word: str) -> bool:
        """Whether `word` could be a word of hosts named first: a host, a group (or its
        stem, or a part of a name of several words), a word for hosts, a joiner or a
        determiner."""
        return (word in self.hosts or word in self.groups or stem(word) in self.stems
                or word in self.parts or word in HOST_WORDS or word in _JOINERS
                or word in _DETERMINERS)

    def _correct_host_words(self) -> None:
        """Reads a typo of a word for hosts as that word (`HOST_WORDS`: "on evry box",
        "all hsts", "everywher") where such a word is read as hosts: "everywhere"
        anywhere, the others after a word of place or a quantifier (said right, or a typo
        read so). A word that is a name of the inventory, or part of one, is never
        corrected; nor one that differs from the word for hosts by another letter
        ("noses", "notes": words of their own, not "nodes"), only by a letter left out or
        two swapped."""
        correct = self.known.correct
        if correct is None:
            return
        names = {*self.hosts, *self.groups, *self.parts, *self.clashes,
                 *(p for parts in self.joined for p in parts)}
        for k, token in enumerate(self.tokens):
            word = token.low
            if word in HOST_WORDS or word in names or not word.isalpha():
                continue
            fixed = correct(word)
            if fixed is None or fixed not in HOST_WORDS or not _slipped(word, fixed):
                continue
            before = self.tokens[k - 1].low if k else ""
            if fixed == "everywhere" or before in PLACE or before in EVERY or any(
                    t.low in PLACE for t in self.tokens[max(0, k - 4):k - 1]) and all(
                    t.low.isalnum() for t in self.tokens[max(0, k - 3):k]):
                self.tokens[k] = replace(token, low=fixed)  # "on teh billing web servres"

    # -- the request, clause by clause -------------------------------------------------
    def read(self) -> Reading | None:
        tokens = self.tokens
        places: list[_Clause] = []  # hosts to run on
        leaving: list[_Clause] = []  # hosts to leave out
        bare: list[str] = []
        alone: list[_Clause] = []  # hosts' names said alone, as they are written
        pointing: list[tuple[int, int]] = []  # "on all of them": the hosts named elsewhere
        i = 0
        while i < len(tokens):
            word = tokens[i].low
            self._ordinal_at(i)
            leaves = self._except_at(i)
            if leaves:
                j = i + leaves
                placed = any(t.low in PLACE for t in tokens[i:j])  # "except on", "not on"
                if j < len(tokens) and tokens[j].low in PLACE:
                    j, placed = j + 1, True
                found = self._phrase(j, place="except")
                if found.refs:
                    # "except the web servers in prod": all of them. "but not the db" or
                    # "except postgres" could be a database or a container: "except on
                    # db", "except the db hosts" are surely hosts
                    sure = placed or any(self._noun(k) for k in range(j, found.end)) or (
                        self._surely_hosts(found.refs))
                    end = found.end + (found.end < len(tokens) and (
                        tokens[found.end].low in ("one", "ones")))  # "the staging ones"
                    leaving.append(_Clause(tuple(found.refs), i, end, sure))
                    i = end
                    continue
                if places and places[-1].end == i:  # "block all hosts except 10.0.0.5"
                    raise _Stop(self._leaves_out_what(i, j))
            if word in PLACE or word == "@" or self._removed_from(i):
                found = self._phrase(i + 1, place=word)
                if found.pointing:
                    pointing.append((i, found.end))
                    i = found.end
                    continue
                if found.refs:
                    start = i - 1 if i and tokens[i - 1].low in _BEFORE_PLACE else \
                        i + 1 if self._ends_a_phrase(i) else i  # "who logged in db1"
                    places.append(_Clause(tuple(found.refs), start, found.end))
                    i = found.end
                    continue
            found = self._phrase(i, place=None)
            if found.refs and found.sure and i and tokens[i - 1].low in ABOUT:
                if self.here:  # "ssh to the k8s nodes… show my ~/.ssh/config"
                    i = found.end
                    continue
                raise _Stop(self._about_hosts(i - 1, found))
            if found.refs and (found.sure or self._said_as_host(i, found.end)):
                end = found.end
                after = tokens[end].low if end < len(tokens) else ""
                if after in ("'s", "'") or (after == ":" and i == 0):
                    end += 1  # "db1's disk", "web2: restart nginx": the host's word
                places.append(_Clause(tuple(found.refs), i, end,
                                      said_as_host=not found.sure))
                i = end
                continue
            if found.bare:  # a group's name alone is asked about never, only read
                bare += found.bare if found.refs[0].kind == "host" else []
                alone.append(_Clause(tuple(found.refs), i, found.end, said_as_host=True))
                i = found.end
                continue
            i += 1
        if not places and alone and self.alone(alone):
            places = alone  # "reboot store03": nothing here is called so
        if self.here and not any(not c.said_as_host for c in places):
            return None  # "install psql here to reach db1": this machine's
        if places:
            self._told_not_to(places[0].start)
        if not places:
            if pointing:
                said = self._said_at(*pointing[0])
                return _ask(f"“{said}”: which hosts of {self.names.where} do you mean?",
                            (f"say them: “… on all hosts”, “… on the "
                             f"{(self.group_names or ['web'])[0]} hosts”",
                             "or give them with --hosts PATTERN"), "")
            if leaving:
                return self._leaving_alone(leaving)
            if bare:
                return self._bare_question(bare)
            return self._machines_unnamed()
        return self._chosen(places, leaving, pointing)

    def _machines_unnamed(self) -> Asked | None:
        """Machines said in the plural as what the request acts on, by words that name
        none of the inventory's ("reboot the old servers", "update our flaky boxes"):
        never this one machine, so asked; None when there are none, or they are said of
        something ("the nodes of the cluster"), asked about ("which servers listen"), or
        this machine is spoken of."""
        if self.here or not any(t.low in _ACTS_ON_MACHINES for t in self.tokens):
            return None
        tokens = self.tokens
        plurals = set(HOST_NOUNS.values())
        for k, token in enumerate(tokens):
            if token.low not in plurals or k in self.as_things:
                continue
            after = tokens[k + 1].low if k + 1 < len(tokens) else ""
            if after in self.things or after in ("file", "files"):
                continue  # "the hosts file": a thing of this machine
            j = k - 1
            while j >= 0 and k - j <= 3 and tokens[j].low not in _DETERMINERS and (
                    tokens[j].low.isalpha()):
                j -= 1
            if after in (*_WITHIN, "on", "from", "with", "that", "which", "where") or (
                    j < 0 or tokens[j].low not in ("the", "my", "our", "these", "those")) or any(
                    tokens[m].low in self.things or tokens[m].low in self.synonyms
                    or tokens[m].low in _OF_SOFTWARE for m in range(j + 1, k)):
                continue  # "the dns servers", "the running vms": things of this machine
            said = self._said_at(j, k + 1)
            return _ask(f"“{said}”: which hosts of {self.names.where} are they? The words "
                        "name none of them.",
                        ("say them: “… on web1 and web2”, “… on the "
                         f"{(self.group_names or ['web'])[0]} hosts”",
                         "or give them with --hosts PATTERN",
                         "or this machine: say “… here”"), "")
        return None

    def _ends_a_phrase(self, i: int) -> bool:
        """Whether the weak word of place at `i` ends a phrase of the catalogue with the
        words before it ("who logged in db1", "who signed in web1"): then it is the
        rest's word, left in it, though the hosts after it are still where it runs."""
        if self.tokens[i].low not in WEAK_PLACE:
            return False
        said = tuple(t.low for t in self.tokens[:i + 1])
        return any(said[-len(phrase):] == phrase for phrase in self.known.ending_in_place
                   if len(phrase) <= len(said))

    def _ordinal_at(self, i: int) -> None:
        """Asks (raises) when an ordinal after "the" says hosts ("on the first web server",
        "the second db", "the last box"): it picks one host the words do not name, and
        the inventory's order is not the person's. "the first 10 lines" is not."""
        tokens = self.tokens
        if not (i and tokens[i - 1].low == "the" and _ORDINAL.fullmatch(tokens[i].low)) \
                or i + 1 >= len(tokens) or tokens[i + 1].low.isdigit():
            return
        j = i + 1
        placed = (i > 1 and tokens[i - 2].low in PLACE) or self._noun(j + 1) is not None
        refs: list[_Ref] = [_Ref("all")] if self._noun(j) else []
        if not refs:
            joined = self._joined_at(j)
            try:
                refs = [joined[1]] if joined else self._names_of(
                    tokens[j].low, noun="group" if self._noun(j + 1) else None,
                    placed=placed)
            except _Stop:
                refs = [_Ref("all")]
        if not refs:
            return
        end = j + 1 + (self._noun(j + 1) is not None)
        hosts = self._in_order(refs)
        raise _Stop(_ask(f"“the {self._said_at(i, end)}”: which host of "
                         f"{self.names.where}? The words do not name it.",
                         tuple(hosts[:12]),
                         f"Name the host (“on {hosts[0]}”), or give --hosts PATTERN."))

    def _told_not_to(self, place: int) -> None:
        """Asks (raises) when the sentence that names hosts to run on says not to do it
        before them ("don't reboot web2", "do not restart nginx on web1", "never
        restart sshd on the db servers"): the rest would be planned and offered on those
        hosts, which the words forbid. Said in another sentence ("nginx never picked it
        up. Restart it on the web servers") or after the hosts ("… on db2 only, and don't
        touch db1") it is not."""
        k = place - 1
        while k >= 0 and not _SENTENCE_END.search(
                self.request[self.tokens[k].end:self.tokens[k + 1].start]) and \
                self.tokens[k].low not in (";", "!", "?"):
            low = self.tokens[k].low
            after = self.tokens[k + 1].low if k + 1 < len(self.tokens) else ""
            said = 1 if low in ("never", "dont") else 2 if low == "do" and after == "not" \
                else 3 if low == "don" and after == "'" and k + 2 < len(self.tokens) and \
                self.tokens[k + 2].low == "t" else 0
            if said and any(t.low not in PLACE | ABOUT | _DETERMINERS
                            for t in self.tokens[k + said:place]):  # "never of the db
                # hosts" leaves them out: asked as such (`_every_word_read`)
                words = self._said_at(k, place)
                raise _Stop(_ask(f"“{words}” says not to: I will not run anything on the "
                                 "hosts for it.",
                                 ("say what to do, and where: “restart nginx on web1”",),
                                 ""))
            k -= 1

    def _here_said(self) -> str:
        """The words that say this machine ("here", "this computer", "locally") or a file
        of this machine's ssh that is about hosts ("my known_hosts", "~/.ssh/config",
        "/etc/hosts"), as said; "" when none."""
        tokens = self.tokens
        for k, token in enumerate(tokens):
            after = tokens[k + 1].low if k + 1 < len(tokens) else ""
            if token.low in HERE or token.low.endswith(SSH_FILES) or (
                    (token.low, after) in HERE_PAIRS):
                end = k + 2 if (token.low, after) in HERE_PAIRS else k + 1
                return self._said_at(k, end)
        return ""

    def _here_and_there(self, chosen: Chosen) -> Asked:
        """A request that says this machine ("here", "my known_hosts") and where to run
        ("restart nginx here and on web1"): asked, never the hosts. (Hosts only named in
        it, "install psql here to reach db1", "remove db1's line from my known_hosts",
        leave it this machine's: `read`.)"""
        read = "; ".join(f"“{words}”" for words in chosen.taken)
        hosts = ", ".join(chosen.hosts)
        asked = _ask(f"I read {read} as {hosts}, but “{self.here}” speaks of this machine: "
                     "which do you mean?",
                     (f"on {hosts}: say it without “{self.here}”",
                      f"this machine: say it without {read}"), "")
        return replace(asked, read=chosen)

    def _removed_from(self, i: int) -> bool:
        """"from" or "off" after a word that removes, in the same sentence ("remove
        telnet from production", "strip nano off every box"): the place it is removed
        from, where it runs."""
        if self.tokens[i].low not in REMOVED_FROM:
            return False
        for k in range(i - 1, -1, -1):
            if _SENTENCE_END.search(self.request[self.tokens[k].end:self.tokens[k + 1].start]):
                return False
            if self.tokens[k].low in REMOVING:
                return True
        return False

    def _surely_hosts(self, refs: list[_Ref]) -> bool:
        """Whether names left out are surely the inventory's, not things on each host
        ("update packages on infra except tape_lib"): each a group whose name the
        catalogue gives no meaning ("except the build runners"), or a host whose name is
        shaped as only a machine's is ("tape_lib", "nas.home.arpa"; never "mail") where
        the request speaks of no containers (named freely: "app1" may be one)."""
        containers = any(t.low in _FREE_NAMED for t in self.tokens)

        def sure(ref: _Ref) -> bool:
            low = ref.name.lower()
            if ref.kind == "group":
                return low not in self.known.words and low not in self.things
            return ref.kind == "host" and not containers and bool(
                _MACHINE_SHAPED.fullmatch(low))
        return bool(refs) and all(sure(ref) for ref in refs)

    def alone(self, clauses: list[_Clause]) -> bool:
        """Whether hosts' names said alone, with no word of place ("reboot store03",
        "disk usage nas.home.arpa"), are those hosts: each written as in the inventory,
        shaped as only a machine's name is (a letter and a digit, dot, dash or underscore:
        "git" or "mail" could be the software), one name or list ending the request, and
        nothing on this machine (its containers, services, packages, accounts,
        processes…) called so; never in a request whose verb takes another machine as its
        object ("ping store03", "ssh to store03", "block store03"), nor after "to",
        "from", "for"…, a noun for a kind of thing ("create user store03") or a word
        that names ("--name web-02"). Otherwise the name is asked about."""
        if self.things_here is None or len(clauses) != 1 or any(
                t.low in self.known.to_machines or t.low in _TO_MACHINES for t in self.tokens):
            return False  # "ping store03", "ssh to store03": the machine it is about
        for clause in clauses:
            if not all(t.low in _SENTENCE_ENDS for t in self.tokens[clause.end:]):
                return False  # "stop web-02 in haproxy": the name is what it acts on
            before = self.tokens[clause.start - 1].low if clause.start else ""
            if before in ABOUT or before in self.things or before in _NAMES_IT or (
                    before and before not in self.known.words
                    and before not in _DETERMINERS and before.isalpha()):
                return False  # "to reach pg-primary", "create user store03"; "exept …"
            for k in range(clause.start, clause.end):
                token = self.tokens[k]
                if token.low not in _JOINERS | _DETERMINERS and not any(
                        token.low == ref.name.lower() for ref in clause.refs):
                    return False  # a name read another way ("web 1", a typo)
            if not all(ref.kind == "group" or _MACHINE_SHAPED.fullmatch(ref.name.lower())
                       for ref in clause.refs):
                return False  # a group's name said alone only as `_group_alone` allows
        here = self.things_here()
        return here is not None and not any(
            ref.name.lower() in here for clause in clauses for ref in clause.refs)

    def _said_as_host(self, start: int, end: int) -> bool:
        """A bare name said as a host's: "web1's disk", "web2: restart nginx" (first)."""
        after = self.tokens[end].low if end < len(self.tokens) else ""
        return after in ("'s", "'") or (after == ":" and start == 0)

    def _except_at(self, i: int) -> int:
        """How many tokens a way of leaving out takes at `i` (0: none). "but" before a
        word of place is none: "restart nginx on web1 but on db1 stop cron" says a
        second place, not one left out."""
        for phrase in EXCEPT:
            words = phrase.split()
            if [t.low for t in self.tokens[i:i + len(words)]] == words:
                after = self.tokens[i + 1].low if i + 1 < len(self.tokens) else ""
                if phrase == "but":  # "but skip the k8s nodes": one way of leaving out
                    return 0 if after in PLACE else 1 + self._except_at(i + 1)
                return len(words)
        return 0

    # -- a phrase of names ------------------------------------------------------------------
    def _phrase(self, start: int, *, place: str | None) -> _Found:
        """The names from `start`: items joined by "," "and" "or"…, each perhaps after a
        word of place again ("on web1 and on db1"). `place` is the word before them
        ("on", "except"), None when nothing places them. A number said before them that
        is not the number of their hosts ("both db boxes" for three) is asked."""
        found = self._names_from(start, place=place)
        after = self.tokens[found.end].low if found.end < len(self.tokens) else "."
        if found.refs and start and self.tokens[start].low == "of" and (
                self.tokens[start - 1].low in _SOME) and (
                not after.isalnum() or after in PLACE | _SENTENCE_ENDS | _SEPARATORS):
            # "on a few of the tills", "the rest of the servers": some of them, not which
            # ("some of the Bristol office people" goes on: people, not hosts)
            words = self._said_at(start - 1 - (start > 1 and self.tokens[start - 2].low in (
                "a", "the")), found.end)
            hosts = self._in_order(found.refs)
            raise _Stop(_ask(f"“{words}”: which of {', '.join(hosts)} do you mean?",
                             (f"some of them: name them (“on {hosts[0]}”)",
                              f"all of them: say “… on all {self._said_at(start + 1, found.end)}”"),
                             ""))
        counted = self._count_at(start)
        if found.refs and counted is not None:
            count, end = counted
            hosts = self._in_order(found.refs)
            if len(hosts) != count:
                words = self._said_at(start, found.end)
                raise _Stop(_ask(f"“{words}” says {count}, but names {len(hosts)} "
                                 f"host{'s' * (len(hosts) != 1)} of {self.names.where}: "
                                 f"{', '.join(hosts)}. Which do you mean?",
                                 (f"all of them: say “… on all {self._said_at(end, found.end)}”",
                                  f"some of them: name them (“on {hosts[0]}”)"), ""))
        return found

    def _count_at(self, start: int) -> tuple[int, int] | None:
        """The number said among the words before names ("both", "the two", "all 3"), and
        where the words after it begin; None when none is said."""
        i = start
        while i < len(self.tokens):
            word = self.tokens[i].low
            if word == "both":
                return 2, i + 1
            number = self.known.numbers.get(word) or (
                int(word) if word.isdigit() and i > start and len(word) < 4 else None)
            if number:
                return number, i + 1
            if word not in _DETERMINERS:
                return None
            i += 1
        return None

    def _names_from(self, start: int, *, place: str | None) -> _Found:
        found = _Found(end=start)
        i = start
        while True:
            item = self._item(i, place=place)
            if item is not None and item.pointing and not found.refs:
                return item
            if item is None or not (item.refs or item.bare):
                break
            refs = item.refs
            found.bare += item.bare
            found.sure = found.sure or item.sure
            found.end = i = item.end
            if item.refs and i < len(self.tokens) and self.tokens[i].low in _WITHIN:
                within = self._item(i + 1, place=_OF_HOSTS)  # "the web servers in prod"
                if within is not None and within.refs and all(
                        r.kind == "group" for r in within.refs):
                    # "the gateways of Arnholm and Brisk": those in each of the groups
                    listed = self._names_from(i + 1, place=_OF_HOSTS)
                    if len(listed.refs) > len(within.refs) and all(
                            r.kind == "group" and not r.within for r in listed.refs) and not any(
                            self._noun(k) for k in range(within.end, listed.end)):
                        # (never "… of harbour and the spare hosts": hosts of their own)
                        refs = [replace(r, within=(*r.within, w)) for r in refs
                                for w in listed.refs]
                        found.end = i = listed.end
                    else:
                        refs = [replace(r, within=(*r.within, *within.refs)) for r in refs]
                        found.end = i = within.end
            found.refs += refs
            j = i
            while j < len(self.tokens) and self.tokens[j].low in _SEPARATORS:
                j += 1
            if j == i and not (refs and all(r.kind == "host" for r in refs)
                               and j < len(self.tokens) and self.tokens[j].low in self.hosts):
                break  # "on web1 web3": hosts listed with spaces only, still a list
            if place == "except":  # "except db1, not web2": both left out; "except
                # web2 and on db1": db1 is a place to run, not another host left out
                if j < len(self.tokens) and self.tokens[j].low in PLACE:
                    break
                if j < len(self.tokens) and self.tokens[j].low in ("not", "nor"):
                    j += 1
                else:
                    j += self._except_at(j)
            elif j < len(self.tokens) and self.tokens[j].low in PLACE - WEAK_PLACE:
                j += 1
            following = self._item(j, place=place)
            if following is None or not (following.refs or following.bare):
                break
            if any(r.kind == "all" for r in (*found.refs, *following.refs)):
                break  # "everywhere, db1 …": every host and a host is not a list of hosts
            if place != "except" and any(t.low == "or" for t in self.tokens[i:j]):
                self._which_of(start, following.end)  # "on web1 or web2": not both
            if place is not None and following.end < len(self.tokens) and (
                    self.tokens[following.end].low in _BEING or self._is_said(following.end)):
                self._subject_at(start, j, following.end)  # "on web1, web2 is fine"
            i = j
        return found

    def _is_said(self, k: int) -> bool:
        """Whether the "'s" at `k` is "is" ("web2's fine", "db1's down"), not a
        possessive ("db1's disk"): a word of how a thing is follows it."""
        return self.tokens[k].low == "'s" and k + 1 < len(self.tokens) and (
            self.tokens[k + 1].low in _STATES)

    def _which_of(self, start: int, end: int) -> None:
        """Asks (raises): hosts said with "or" between them ("on web1 or web2") are one of
        them or the other, never both; which is not guessed."""
        words = self._said_at(start, end)
        said: list[str] = []
        run: list[int] = []
        for k in [*range(start, end), end]:
            if k == end or self.tokens[k].low in _SEPARATORS | {"either"}:
                if run:
                    said.append(self._said_at(run[0], run[-1] + 1))
                run = []
            else:
                run.append(k)
        raise _Stop(_ask(f"“{words}”: which do you mean?", tuple(said),
                         f"Name the hosts to run on (“on {said[0]}”), or give --hosts "
                         "PATTERN."))

    def _subject_at(self, start: int, j: int, end: int) -> None:
        """Asks (raises): the last names of a list said before "is"/"are" ("on web1, web2
        is fine", "on db1, db2 are down") begin a sentence of their own about those
        hosts, not a place to run; where to run is not guessed."""
        first, last = self._said_at(start, j), self._said_at(j, end)
        raise _Stop(_ask(f"“{self._said_at(start, end + 1)}”: run it on "
                         f"{first.rstrip(' ,')} only, or on {last} too?",
                         (f"{first.rstrip(' ,')} only: say “… on "
                          f"{first.rstrip(' ,')}”",
                          f"both: say “… on {first.rstrip(' ,')} and {last}”"), ""))

    def _item(self, start: int, *, place: str | None) -> _Found | None:
        tokens = self.tokens
        i, every, which = start, False, False
        while i < len(tokens) and (tokens[i].low in _DETERMINERS or (  # "the two db boxes"
                tokens[i].low in self.known.numbers and self._count_at(start))):
            every = every or tokens[i].low in EVERY
            which = which or tokens[i].low in _WHICH
            i += 1
        if i > start and i < len(tokens) and tokens[i].low.isdigit() and \
                self._count_at(start) and self._noun(i + 1) is None and \
                i + 1 < len(tokens):  # "all 3 web nodes", not "the 2" of a name "web 2"
            i += 1
        placed = place in PLACE or place == "@" or place in REMOVED_FROM
        if placed and i > start and tokens[i - 1].low == "all" and (
                i >= len(tokens) or tokens[i].low in _MARKS or self._except_at(i)):
            return _Found([_Ref("all", said="all hosts")], i, sure=True)  # "on all but db1"
        if i >= len(tokens):
            return None
        word = tokens[i].low
        if word in EVERY_HOST or (word in ("fleet", "fleets") and (place or i > start)) or (
                word == "everything" and placed):  # "on everything"
            return _Found([_Ref("all", said="all hosts")], i + 1, sure=True)
        if word in ("group", "groups") and place and (  # "on the all group", "in group all"
                tokens[i - 1].low == "all" if i > start else
                i + 1 < len(tokens) and tokens[i + 1].low == "all"):
            return _Found([_Ref("all", said="all hosts")], i + 1 + (i == start), sure=True)
        if word in ("group", "groups") and i + 1 < len(tokens) and place:  # "in group web"
            refs = self._names_of(tokens[i + 1].low, noun="group", placed=True)
            if refs and all(r.kind == "group" for r in refs):
                if place in WEAK_PLACE | REMOVED_FROM:  # "add alice in group docker"
                    self._group_of_what(refs, tokens[i:i + 2], place)
                return _Found(refs, i + 2, sure=True)
            return None
        if word in ("them", "those", "these") and placed and i > start:
            return _Found([], i + 1, pointing=True)  # "on all of them": which hosts?
        noun = self._noun(i)
        if noun is not None:  # "all hosts", "the servers", "every box", "which hosts"
            return self._hosts_by_noun(start, i, noun, every=every or which, place=place)
        end, refs = self._name(i, placed=place is not None)
        if not refs:
            return self._not_a_name(i, placed=place is not None)
        if end < len(tokens) and tokens[end].low in self.things and self._noun(end) is None:
            self.as_things.update(range(i, end + 1))
            return _Found([], end + 1)  # "the web1 container": a thing, not a host
        if place is not None and self._noun(end) is None and self._noun(end + 1):
            end, refs = self._both_names(i, end, refs)  # "the staging web servers"
        next_noun = self._noun(end)
        one = self._said_one(i, end, refs)
        if one and next_noun is None and not (every or which):
            if place is None:  # "restart the webserver": nginx, here, as "the web server"
                self.as_things.update(range(i, end))
                return _Found([], end)
            self._one_of(refs, tokens[start:end], every=one)  # "on the k8s worker"
        if next_noun is not None:
            kind, singular = next_noun
            if tokens[end].low in ("group", "groups") and place in WEAK_PLACE:
                self._group_of_what(refs, tokens[start:end + 1], place)
            if tokens[end].low in ("group", "groups") and (place is None
                                                           or place in REMOVED_FROM):
                self.as_things.update(range(i, end + 1))
                return _Found([], end + 1)  # "add alice to the docker group": its users
            if kind == "host" and singular and not (every or which):
                if place is None and not self._one_machine(refs, tokens[end].low):
                    self.as_things.update(range(i, end + 1))
                    return _Found([], end + 1)  # "restart the web server": nginx, here
                refs = self._one_of(refs, tokens[start:end + 1])
            return _Found(refs, end + 1, sure=True)
        if place in WEAK_PLACE | REMOVED_FROM and any(r.kind == "group"
                                                       and r.name.lower() == word
                                       and word in self.known.words for r in refs):
            said = tokens[i].text
            raise _Stop(_ask(f"“{place} {said}”: the hosts of the group {refs[0].name} in "
                             f"{self.names.where}, or {said} on this machine?",
                             (f"the hosts: say “on the {said} hosts”",
                              f"{said} on this machine: say it without “{place}”, or give "
                              "--hosts"), ""))
        if place is None and every and (word in self.things or word in self.known.words):
            self.as_things.update(range(i, end))
            return _Found([], end)  # "update all packages": packages, a group's name too
        if place is not None or every:
            return _Found(refs, end, sure=True)
        said = self.request[tokens[i].start:tokens[end - 1].end]
        if refs[0].kind == "host" and end == i + 1 and self._a_word_here(i):
            self.as_things.add(i)  # "show the logs of sshd", "my gateway": the word
            return _Found([], end)
        if refs[0].kind == "group" and not self._group_alone(refs, i, end):
            return _Found(refs, end)
        return _Found(refs, end, bare=[said])

    def _group_alone(self, refs: list[_Ref], i: int, end: int) -> bool:
        """Whether the words i..end are a group's own name said alone ("uptime offshore",
        "chrony status, metmasts"), a name no word of the catalogue or noun of things
        reads ("backup", "docker", "sites" could be what the request acts on), in any
        of its forms, and not right after a verb (what it acts on)."""
        if len(refs) != 1 or refs[0].kind != "group" or end != i + 1:
            return False
        k = i - 1  # back over "the", "my", and names joined by "and" ("jenkins and gitlab")
        while k >= 0 and (self.tokens[k].low in _DETERMINERS | _OWNING | _JOINERS - {","}
                          or self.tokens[k].low in self.groups or self.tokens[k].low
                          in self.hosts):
            k -= 1
        if k >= 0 and self.tokens[k].low in self.known.verbs:
            return False  # "restart mosquitto", "upgrade the jenkins": what the verb acts on
        word = self.tokens[i].low
        forms = {word, *plurals(word), word[:-1] if word.endswith("s") else word}
        return word == refs[0].name.lower() and not forms & (
            self.known.words | self.things | set(self.known.synonyms))

    def _noun(self, i: int) -> tuple[str, bool] | None:
        """("host" or "group", singular?) when the token at `i` is a host or group noun
        ("servers", "box", "tier", "group")."""
        if i >= len(self.tokens):
            return None
        word = self.tokens[i].low
        singular = PLURALS.get(word, word)
        if singular in HOST_NOUNS:
            return "host", singular == word
        if singular in GROUP_NOUNS and singular != "fleet":
            return "group", singular == word
        if word in _COLLECTIVE and i and self.tokens[i - 1].low not in _DETERMINERS and \
                WORD.fullmatch(self.tokens[i - 1].low):
            return "group", False  # "the db lot", "the web crowd": the group as a whole
        return None

    def _hosts_by_noun(self, start: int, i: int, noun: tuple[str, bool], *, every: bool,
                       place: str | None) -> _Found | None:
        """A host noun with no name before it: "all hosts" is every host, "the servers
        of the web group" that group; "the servers" is every host too, unless groups are
        called so (webservers, dbservers) and do not hold every host, which is asked;
        "the server" alone is no host (it is this machine as much)."""
        kind, singular = noun
        said = self.tokens[i].text
        after = i + 1
        if kind == "group" or (after < len(self.tokens)
                               and self.tokens[after].low in self.things):
            return None  # "the hosts file"
        if after < len(self.tokens) and self.tokens[after].low in _WITHIN | {"from"}:
            within = self._phrase(after + 1, place=_OF_HOSTS)
            if within.refs and all(r.kind == "group" for r in within.refs):
                if singular and not every:  # "the server of web": one of them?
                    self._one_of(within.refs, self.tokens[start:within.end])
                return _Found(within.refs, within.end, sure=True)
        if place is None and not (self._hosts_said_of(start, i, singular) or (
                every and self._hosts_left_out_at(i + 1))):
            return None  # "remove all hosts from known_hosts": what the request acts on
        if singular and not every:
            return None  # "on the server": this machine's word as much as a host's
        if i and self.tokens[i - 1].low not in (_DETERMINERS | PLACE | ABOUT | _SEPARATORS
                                                 | ASKING | EVERY_HOST):
            return None  # "the dns servers", "name servers": servers of a kind
        read = self.tokens[i].low  # the word read, a typo's too ("all hsts")
        plural = HOST_NOUNS.get(PLURALS.get(read, read), read)
        if plural in self.groups:  # "all servers" beside a group called servers: it
            return _Found(self._names_of(plural, noun="group", placed=True), i + 1, sure=True)
        if not every:
            called = sorted(g for low, g in self.groups.items()
                            if low != plural and (low.endswith(plural)
                                                  or low.endswith(plural[:-1])))
            covered = {h for g in called for h in self.names.groups[g]}
            if called and covered != set(self.names.hosts):
                choices = (f"all hosts: {', '.join(self.names.hosts)}",
                           *(self._group_words(g) for g in called))
                raise _Stop(_ask(f"“the {said}” could be every host or the group"
                                 f"{'s' * (len(called) > 1)} called so.", choices,
                                 "Name the group (“on the webservers”), or say “all "
                                 f"{said}”."))
            # "install vim on the servers": some servers, which ones the words do not
            # say; every host only when a word says every ("all servers", "the fleet").
            # "on hosts not in production", with no "the", is read as every host.
            if i > start:
                raise _Stop(_ask(
                    f"“the {said}”: every host in {self.names.where}, or some of them?",
                    (f"all hosts: say “… on all {said}”",
                     *(self._group_words(g) for g in sorted(self.groups.values()))),
                    f"Name the group (“on the {self._a_group()} {said}”), or say “all "
                    f"{said}”."))
        return _Found([_Ref("all", said="all hosts")], i + 1, sure=True)

    def _hosts_left_out_at(self, j: int) -> bool:
        """Whether hosts of the inventory are left out at `j` ("install htop all hosts
        except db1"): then the hosts before are where it runs, said without "on"."""
        leaves = self._except_at(j)
        if not leaves:
            return False
        k = j + leaves
        if k < len(self.tokens) and self.tokens[k].low in PLACE:
            k += 1
        return bool(self._phrase(k, place="except").refs)

    def _hosts_said_of(self, start: int, i: int, singular: bool) -> bool:
        """Whether hosts said with no word of place are where the request runs: asked
        about ("which hosts have…", "do all servers run…"), said of ("the uptime of
        every server"), first ("all servers: …") or last after a comma ("uptime, all
        hosts"). Otherwise they are what it acts on
        ("remove all hosts from known_hosts", "restart all nodes of the k8s cluster",
        "check every host in /etc/hosts"), and "which server is listening" asks for a
        program."""
        said = {t.low for t in self.tokens[start:i]}
        if said & _WHICH:
            return not singular
        if "of" in said or start == 0 or self.tokens[start - 1].low in ASKING:
            return True
        if self.tokens[start - 1].low in (",", ";", ":") and all(
                t.low in _SENTENCE_ENDS for t in self.tokens[i + 1:]):
            return True  # last, set off by a comma: "uptime, all hosts"
        # "list the servers with failed units": hosts, but "show all hosts in /etc/hosts"
        # and "list hosts from known_hosts" are lines of a file
        return self.tokens[start - 1].low in _LISTING and not (
            i + 1 < len(self.tokens) and self.tokens[i + 1].low in _WITHIN | ABOUT)

    def _name(self, i: int, *, placed: bool) -> tuple[int, list[_Ref]]:
        """The names the word at `i` says (and where they end): a host, a group, a glob
        of them, "web 1" said apart."""
        tokens = self.tokens
        word = tokens[i].low
        back = i - 1
        while back >= 0 and tokens[back].low in _DETERMINERS:
            back -= 1
        strong = placed and back >= 0 and tokens[back].low in PLACE - WEAK_PLACE
        joined = self._joined_at(i, strong)  # "on the US relay"; "in the redis cache": no
        if joined is not None:  # "k8s workers": the group k8s_workers, never k8s alone
            self._joined_alone(i, joined[0], joined[1])
            return joined[0], [joined[1]]
        numbered = self._range_at(i)
        if numbered is not None:  # "tills 3-5", "web 1 to 3", "ferm2 through ferm4"
            return numbered[0], [_Ref("host", h) for h in numbered[1]]
        if i + 1 < len(tokens) and tokens[i + 1].low.isdigit() and self._apart(i):
            host = self._host_said_apart(word, tokens[i + 1].low)
            if host and self._more_numbers_at(i + 2):
                said = self._said_at(i, min(i + 5, len(tokens)))
                raise _Stop(_ask(f"“{said}”: which hosts do you mean?",
                                 (f"name each: “on {host}, …”",
                                  "or give them with --hosts PATTERN"), ""))
            if host:
                return i + 2, [_Ref("host", host)]
        noun = self._noun(i + 1)
        refs = self._names_of(word, noun="group" if noun else None, placed=placed)
        family = self.families.get(word, set()) if not refs and noun is not None and (
            not noun[1]) and word not in self.groups else set()
        if len(family) >= 2:  # "the nas boxes" for nas01 and nas02: the word they share
            ordered = [h for h in self.names.hosts if h in family]
            return i + 1, [_Ref("host", h, f"{h}, for “{word}”") for h in ordered]
        return i + 1, refs

    def _joined_at(self, i: int, placed: bool = False) -> tuple[int, _Ref, str] | None:
        """A name of several words said apart at `i` ("k8s workers" for k8s_workers, "web
        ams 03" for web-ams-03), the longest that fits: where it ends, what it names, and
        its last word in the plural when it was said in the singular ("k8s worker": one
        of the group), else "". `placed`: after a word of place, where a host of two
        words may be said the other way round too (`turned`)."""
        tokens = self.tokens
        names = {**self.joined, **self.turned} if placed else self.joined
        for parts, ref in sorted(names.items(), key=lambda item: -len(item[0])):
            end = i + len(parts)
            if end > len(tokens) or any(
                    tokens[k].low != parts[k - i] or self.request[
                        tokens[k].end:tokens[k + 1].start].strip()
                    for k in range(i, end - 1)):
                continue
            last, wanted = tokens[end - 1].low, parts[-1]
            if last == wanted or (last == wanted + "s" and ref.kind == "group"):
                return end, ref, ""
            if ref.kind == "group" and len(parts) > 1 and len(wanted) >= 4 and (
                    last.startswith(wanted) and last[len(wanted):] in _WHAT_DOES
                    and last not in self.known.words and last not in self.things):
                # "lift controllers": lift_control; "the lift controller", one of them
                return end, ref, "" if last.endswith("s") else last + "s"
            if ref.kind == "group" and wanted in plurals(last):
                return end, ref, wanted
        return None

    def _joined_alone(self, i: int, end: int, ref: _Ref) -> None:
        """Asks (raises) when the words i..end of a name said apart ("web 2" for the
        group web_2, "web prod" for web_prod) could also be read otherwise, as other
        hosts: a host said apart as a word and a number ("web 2": the host web2), or
        each word a name of its own ("web prod": the hosts of both web and prod; "db1
        db2": those two hosts). Which reading is meant is not guessed."""
        tokens = self.tokens
        joined = self._in_order([ref])
        others: list[tuple[str, list[str]]] = []
        if tokens[i + 1].low.isdigit():
            host = self._host_said_apart(tokens[i].low, tokens[i + 1].low)
            if host and host != ref.name:
                others.append((f"the host {host}", [host]))
        parts: list[list[_Ref]] = []
        for k in range(i, end):
            try:
                parts.append(self._names_of(tokens[k].low, noun=None, placed=True))
            except _Stop:
                parts.append([])
        if all(parts):
            refs = [r for p in parts for r in p]
            if all(r.kind == "host" for r in refs):
                hosts = self._in_order(refs)  # hosts listed with spaces only
                said = ", ".join(hosts)
            else:
                common = set.intersection(*(self._hosts_of(p) for p in parts))
                hosts = self._in_order_names(common)
                said = "the hosts in " + _join([_said(r) for r in refs])
            if hosts and hosts != joined:
                others.append((said, hosts))
        if not others:
            return
        words = self._said_at(i, end)
        choices = (f"{_said(ref)}: {', '.join(joined)}",
                   *(f"{said}: {', '.join(hosts)}" if not said.startswith("the host ")
                     else said for said, hosts in others))
        raise _Stop(_ask(f"“{words}” could be {_said(ref)} or "
                         f"{_either([said for said, _ in others])} in "
                         f"{self.names.where}.", choices,
                         "Name the hosts as the inventory writes them (“on "
                         f"{ref.name}”), or give --hosts PATTERN."))

    def _said_one(self, i: int, end: int, refs: list[_Ref]) -> str:
        """The words for all of a group's hosts when the words i..end say one of them,
        else "": a name said in the singular ("the k8s worker" for k8s_workers, "the
        proxy" for proxies) or with a singular host noun in one word ("the webserver",
        "the dbhost")."""
        joined = self._joined_at(i)
        if joined is not None and joined[0] == end:
            return " ".join([*(t.text for t in self.tokens[i:end - 1]), joined[2]]).strip() \
                if joined[2] else ""
        word = self.tokens[i].low
        if end != i + 1 or word in self.groups or word in self.hosts or not all(
                r.kind == "group" for r in refs):
            return ""
        for noun, plural in HOST_NOUNS.items():
            if word.endswith(noun) and len(word) > len(noun):
                return f"{word[:-len(noun)].rstrip('_-.')} {plural}"
        forms = plurals(word)
        return next((r.name for r in refs if r.name.lower() in forms), "")

    def _host_said_apart(self, word: str, number: str) -> str | None:
        """"web 1": the host web1, or web-1, web_1, web01 or web01.example.net when that
        is the only one."""
        if word + number in self.hosts:
            return self.hosts[word + number]
        apart = {h for h in self.hosts.values() if PARTS.sub("", h.lower()) == word + number}
        if not apart and number.isdigit():  # "till 7" for till07, "ferm 3" for ferm03.plant…
            apart = {h for h in self.hosts.values() if (found := _NUMBERED.fullmatch(
                PARTS.sub("", h.lower().split(".")[0]))) and found[1] == word
                and int(found[2]) == int(number)}
        return next(iter(apart)) if len(apart) == 1 else None

    def _range_at(self, i: int) -> tuple[int, list[str]] | None:
        """Hosts numbered from one number to another, said at `i` ("tills 3-5", "pos 1
        through 3", "node 2 thru node 4", "ferm2 thru ferm4"), and where the words end:
        each number must name exactly one host (`_host_said_apart`); asked (raises) when
        only some do, None when none does. Only "through", "thru" and a dash join a range:
        "web1 to web2" is a direction (fail over, copy), "until 8" and "till 9" a time;
        and a range followed by a word ("thru 5 pm", "3-5 minutes") is none."""
        tokens = self.tokens
        low = [t.low for t in tokens[i:i + 5]]
        if not low or not low[0][:1].isalpha():
            return None
        joined = _NUMBERED.fullmatch(low[0])
        if joined and len(low) > 2 and low[1] in _SPANNING:  # "ferm2 thru ferm4", "… thru 4"
            prefix, first, end = joined[1], joined[2], i + 3
            other = _NUMBERED.fullmatch(low[2])
            last = low[2] if low[2].isdigit() else other[2] if other and (
                other[1] == prefix) else ""
        elif len(low) > 1 and low[0].isalpha() and _SPAN.fullmatch(low[1]) and (
                self._apart(i)):  # "tills 3-5"
            prefix, (first, last), end = low[0], low[1].split("-"), i + 2
        elif len(low) > 3 and low[0].isalpha() and low[1].isdigit() and self._apart(i) and (
                low[2] in _SPANNING):  # "pos 1 through 3", "node 2 thru node 4"
            prefix, first, end = low[0], low[1], i + 4
            last = low[3]
            if last == low[0] and len(low) > 4:
                last, end = low[4], i + 5
        else:
            return None
        if not (first.isdigit() and last.isdigit()) or not 0 < int(last) - int(first) < 64:
            return None
        after = tokens[end].low if end < len(tokens) else "."
        if after.isalnum() and after not in PLACE | _SENTENCE_ENDS | _SEPARATORS:
            return None  # "through 5 pm", "3-5 minutes": a time or an amount
        some: list[str] = []
        for word in dict.fromkeys((prefix, prefix.removesuffix("s"), prefix.removesuffix("es"))):
            hosts = [self._host_said_apart(word, str(n))
                     for n in range(int(first), int(last) + 1)]
            if all(hosts):
                return end, [h for h in hosts if h]
            some = some or [h for h in hosts if h]
        if some:  # "pos 3 through 6" where pos05 and pos06 are not: never some of them
            said = self._said_at(i, end)
            raise _Stop(_ask(f"“{said}”: {self.names.where} has only {', '.join(some)} of "
                             "those. Which do you mean?",
                             (f"those: say “… on {', '.join(some)}”",
                              "others: give --hosts PATTERN"), ""))
        return None

    def _apart(self, i: int) -> bool:
        """Whether the token at `i` and the next are two words with a space between ("pos
        3"), not one written with a sign between ("kiosk#1", "till[1")."""
        return i + 1 < len(self.tokens) and self.request[
            self.tokens[i].end:self.tokens[i + 1].start] == " "

    def _more_numbers_at(self, k: int) -> bool:
        """Whether more numbers follow at `k` ("kiosk 1 and 2", "kiosk 1, 2", "kiosk 1 - 4",
        "till 1 up to 2"): which hosts they add is not read, so it is asked."""
        for j in range(k, min(k + 3, len(self.tokens))):
            if self.tokens[j].low.isdigit():
                return True  # ("kiosk 1 - 4": the dash is no token of its own)
            if self.tokens[j].low not in _SEPARATORS | _RANGE | {"-", "up"}:
                return False
        return False

    def _names_of(self, word: str, *, noun: str | None, placed: bool) -> list[_Ref]:
        if ("*" in word or "?" in word) and any(c.isalnum() for c in word):
            return self._glob(word) if placed or noun else []
        if word in self.clashes:
            raise _Stop(_ask(f"“{word}” could be {_either(self.clashes[word])} in "
                             f"{self.names.where}: their names differ only in case.",
                             tuple(self.clashes[word]),
                             "Give --hosts with the exact name you mean."))
        host, group = self.hosts.get(word), self.groups.get(word)
        if host and group and set(self.names.groups[group]) == {host}:
            group = None  # a group of that one host: both readings are the same host
        if host and group:
            members = ", ".join(self.names.groups[group])
            raise _Stop(_ask(f"{word} is both a host and a group in {self.names.where}.",
                             (f"the host {host}", f"the group {group}: {members}"),
                             "Give --hosts with the one you mean."))
        if host:
            return [_Ref("host", host)]
        if group:
            return [_Ref("group", group, f"group {group}")]
        reached = self.reached.get(word, set()) if (noun or placed) and not (
            self.addressed) else set()
        if len(reached) == 1:  # "on 10.30.0.30": the one host reached at that address
            return [_Ref("host", min(reached), f"{min(reached)}, for “{word}”")]
        if reached:
            raise _Stop(_ask(f"{word} is the address of {_either(sorted(reached), 'and')} "
                             f"in {self.names.where}.", tuple(sorted(reached)),
                             "Name the host you mean, or give --hosts."))
        respelled = self.respelled.get(_spelling(word), set()) if noun or placed else set()
        if len(respelled) == 1:
            [(kind, name)] = respelled
            return [_Ref(kind, name, f"{kind} {name}, for “{word}”" if kind == "group" else
                         f"{name}, for “{word}”")]
        if respelled:
            raise _Stop(_ask(f"“{word}” could be {_either(sorted(n for _, n in respelled))} "
                             f"in {self.names.where}.", tuple(sorted(n for _, n in respelled)),
                             "Give --hosts with the exact name you mean."))
        if not (noun or placed):
            return []
        for plain in (word[:-1], word[:-2]) if word.endswith("s") else ():  # "the dbs"
            if plain in self.groups:
                group = self.groups[plain]
                return [_Ref("group", group, f"group {group}, for “{word}”")]
        plural = [g for low, g in self.groups.items() if low in plurals(word)]
        if len(plural) == 1:  # "the proxy servers", "the proxy": the group proxies
            return [_Ref("group", plural[0], f"group {plural[0]}, for “{word}”")]
        # "web", or a group's name and a host noun in one word: "dbserver", "web-hosts"
        by_stem = self.stems.get(word, set()) or self.stems.get(stem(word), set())
        if by_stem:
            return self._one_group(word, by_stem, "group {}")
        fits = {g for g in self.group_names if self._another_name(word, stem(g.lower()))
                or self._another_name(word, g.lower())}
        if fits:
            return self._one_group(word, fits, f"group {{}}, for “{word}”")
        return self._family(word)

    def _family(self, word: str) -> list[_Ref]:
        """"lbs" for lb-1 and lb-2, "runners" for build-runner-1..3: a plural of the name
        several hosts share, said where hosts go, is all of them (a count said with it
        is checked by `_phrase`)."""
        if not word.isalpha() or not word.endswith("s"):
            return []
        for plain in (word[:-1], word[:-2]):
            family = self.families.get(plain, set())
            if len(family) >= 2 and plain not in self.groups:
                ordered = [h for h in self.names.hosts if h in family]
                return [_Ref("host", host, f"{host}, for “{word}”") for host in ordered]
        return []

    def _one_group(self, word: str, groups: set[str], said: str) -> list[_Ref]:
        if len(groups) == 1:
            group = next(iter(groups))
            return [_Ref("group", group, said.format(group))]
        raise _Stop(_ask(f"“{word}” could be more than one group in {self.names.where}.",
                         tuple(self._group_words(g) for g in sorted(groups)),
                         "Name the group you mean, or give --hosts."))

    def _another_name(self, word: str, name: str) -> bool:
        """Whether `word` is another name for a group called `name`: both names of the
        same software in the catalogue's role table, or, for words of letters only, a
        truncation of three letters or more ("prod" and "production"; a longer word only
        when the catalogue does not read it as a word of its own: "printer" is no
        "print")."""
        if word == name or not name:
            return False
        if self._truncates(word, name) and (len(word) < len(name) or (
                word not in self.known.words
                and not any(host.startswith(word) for host in self.hosts)
                and not self._slip_for_a_name(word))):
            return True  # "prod", "production"; never "printer" (a word) for "print",
            # nor "mongo" for the group mon while hosts mongo1, mongo2 are called so,
            # nor "shopfrnt" (a slip for the host shopfront) for the group shop
        mine, theirs = self.synonyms.get(word), self.synonyms.get(name)
        return bool(mine and theirs and mine & theirs)

    def _slip_for_a_name(self, word: str) -> bool:
        """Whether `word` is one letter off a host's or a group's name ("webmial" for
        webmail, "shopfrnt" for shopfront): a slip for it, not a longer form of a
        shorter name."""
        return any(one_letter_off(word, name) for name in (*self.hosts, *self.groups))

    @staticmethod
    def _truncates(word: str, name: str) -> bool:
        """"prod" for production or prod-eu, "production" for prod: one begins the other,
        both of three letters or more (the word of letters only)."""
        if not (word.isalpha() and len(word) >= 3 and len(name) >= 3) or word == name:
            return False
        return name.startswith(word) or (name.isalpha() and word.startswith(name))

    def _glob(self, word: str) -> list[_Ref]:
        """The hosts a glob matches ("web*"), else the groups it does."""
        refs = [_Ref("host", h) for h in self.names.hosts
                if fnmatch.fnmatchcase(h.lower(), word)]
        refs = refs or [_Ref("group", g, f"group {g}") for g in self.names.groups
                        if g not in ("all", "ungrouped") and fnmatch.fnmatchcase(g.lower(),
                                                                                 word)]
        if not refs:
            raise _Stop(self._unknown(word))
        return refs

    def _group_of_what(self, refs: list[_Ref], said: list[_Token], place: str) -> None:
        """"from the web group", "in the web group": hosts of an inventory group, or the
        members of a group of users called so? Asked, never guessed."""
        groups = [r.name for r in refs if r.kind == "group"]
        if not groups:
            return
        words = " ".join(t.text for t in said)
        raise _Stop(_ask(f"“{place} {words}”: the hosts of the inventory's group "
                         f"{groups[0]}, or a group of users called {groups[0]}?",
                         (f"on the hosts of group {groups[0]}: say “on the {groups[0]} "
                          "hosts”", "the users' group: give --hosts PATTERN for the hosts"),
                         ""))

    def _both_names(self, i: int, end: int, refs: list[_Ref]) -> tuple[int, list[_Ref]]:
        """"the staging web servers": two names before a host noun are the hosts of
        both (those of the second within the first); none in both is asked, never
        read as either alone."""
        second = self._names_of(self.tokens[end].low, noun="group", placed=True)
        if not second:
            return end, refs
        both = [replace(r, within=(*r.within, *refs)) for r in second]
        if not self._hosts_of(both):
            words = self._said_at(i, end + 2)
            firsts = _join([_said(r) for r in refs])
            raise _Stop(_ask(f"“{words}”: no host of {self.names.where} is in both "
                             f"{firsts} and {_join([_said(r) for r in second])}.",
                             (f"the hosts of {firsts}: say “on the {self.tokens[i].text} "
                              "hosts”", f"the hosts of {_join([_said(r) for r in second])}: "
                              f"say “on the {self.tokens[end].text} hosts”"),
                             "Or give them with --hosts PATTERN."))
        return end + 1, both

    def _a_word_here(self, i: int) -> bool:
        """Whether a host's name said alone at `i` is the catalogue's word for something of
        this machine, where no verb acts on a machine: a noun with what it is of ("the
        logs of sshd"), or one's own or the default ("my gateway", "the default
        gateway"); never the request's first word, nor one said with "'s" or ":" (said to
        or of the host). A name of letters only: "nas02" is never a word."""
        word = self.tokens[i].low
        if not word.isalpha() or word not in self.known.words or not i or any(
                t.low in _ACTS_ON_MACHINES for t in self.tokens):
            return False  # "gateway: stop nginx" is said to the host
        after = self.tokens[i + 1].low if i + 1 < len(self.tokens) else ""
        if after in ("'s", "'", ":", "\u2019"):
            return False  # "gateway's disk usage"
        return after == "of" or self.tokens[i - 1].low in _OWNING

    def _one_machine(self, refs: list[_Ref], noun: str) -> bool:
        """Whether a name and a word for one machine, said without a word of place, are
        that machine: "reboot the mirror box" of the host mirror, "the radius machine" of
        a group of one host. A "server" may be the software ("the web server": nginx) and
        a name the catalogue knows may be a thing here, so neither counts; nor where a
        verb takes a machine as its object ("ping the radius box", "block the radius
        box")."""
        return noun != "server" and len(refs) == 1 and len(self._members(refs[0])) == 1 \
            and refs[0].name.lower() not in self.known.words and not any(
                t.low in self.known.to_machines or t.low in _TO_MACHINES
                or t.low in _AT_A_MACHINE for t in self.tokens)

    def _one_of(self, refs: list[_Ref], said: list[_Token], every: str = "") -> list[_Ref]:
        """"the web server": one host of a group that has several is asked about (`every`:
        the words for all of them, when not the said ones with a plural noun)."""
        words = " ".join(t.text for t in said)
        plain = [t.text for t in said if t.low not in _DETERMINERS]
        if every:
            pass
        elif plain[-1].lower() in HOST_NOUNS:
            every = " ".join([*plain[:-1], HOST_NOUNS[plain[-1].lower()]])
        else:  # "the server of web": "servers of web"
            first = next(k for k, t in enumerate(said) if t.low not in _DETERMINERS)
            every = " ".join(HOST_NOUNS.get(t.low, t.text) for t in said[first:])
        for ref in refs:
            if ref.kind == "group" and len(self._members(ref)) > 1:
                members = self._in_order_names(self._members(ref))
                raise _Stop(_ask(f"“{words}”: the group {ref.name} has "
                                 f"{len(members)} hosts.",
                                 (*members, f"all of them ({ref.said})"),
                                 f"Name the host (“on {members[0]}”), or say “all the "
                                 f"{every}”."))
        return refs

    def _slip_in_words(self, i: int) -> tuple[list[str], int]:
        """The names of several words said apart from i on with one word of four letters
        or more one letter off ("skery bank" for skerry_bank), the others as written, and
        how many words the longest takes."""
        found: set[str] = set()
        size = 0
        for parts, ref in self.joined.items():
            said = [t.low for t in self.tokens[i:i + len(parts)]]
            if len(said) == len(parts) and sum(w != p for w, p in zip(said, parts,
                                                                      strict=True)) == 1 \
                    and all(w == p or (len(p) >= 4 and one_letter_off(w, p))
                            for w, p in zip(said, parts, strict=True)):
                found.add(ref.name)
                size = max(size, len(parts))
        return sorted(found), size

    def _not_a_name(self, i: int, *, placed: bool) -> _Found | None:
        """A word in a host's place that names nothing: said plainly when it looks like
        the inventory's names ("web9", "the mail servers"), asked when it is one letter
        off a host ("wbe1") or a group ("proxes"), or a plural of a group's singular said
        wrong ("proxys" for proxies); else not a host at all."""
        if not placed:
            return None
        tokens = self.tokens
        word = tokens[i].low
        noun = self._noun(i + 1)
        if word in PLACE or word in _DETERMINERS or word in _FUNCTION_WORDS:
            return None  # "logged in on the vpn box": not "mon"; "in it": not "git"
        close, size = self._slip_in_words(i)
        if close:  # "on skery bank" for skerry_bank, "on kestral ridge" for kestrel_ridge
            said = self._said_at(i, i + size)
            raise _Stop(_ask(f"“{said}” is no name in {self.names.where}. Did you mean "
                             f"{_either(close)}?", tuple(close),
                             f"Say “on {close[0]}” if so."))
        close = [h for low, h in self.hosts.items() if one_letter_off(word, low)]
        if close:
            raise _Stop(_ask(f"There is no host called {tokens[i].text} in "
                             f"{self.names.where}. Did you mean {_either(close)}?",
                             tuple(close), f"Say “on {close[0]}” if so."))
        close = [g for low, g in self.groups.items() if one_letter_off(word, low) or (
            word.endswith("s") and low in plurals(word[:-1]))]  # "proxys" for proxies
        if close and word.isalpha() and word not in HOST_WORDS | PLURALS.keys():
            raise _Stop(_ask(f"There is no group called {tokens[i].text} in "
                             f"{self.names.where}. Did you mean {_either(close)}?",
                             tuple(self._group_words(g) for g in close),
                             f"Say “on the {close[0]}” if so."))
        host_like = any(c.isdigit() for c in word) and letters(word) in {
            letters(low) for low in self.hosts}
        named_group = noun is not None and not noun[1] and word.isalpha() and \
            word not in HOST_NOUNS and word not in PLURALS
        if host_like or named_group:
            raise _Stop(self._unknown(tokens[i].text))
        return self._described(i)

    def _described(self, i: int) -> _Found | None:
        """A host said by words of its name after a word of place: "on the ski school
        desk" for desk_ski_school, "on the summit lift controller" for
        liftctl-summit.pinecrest.lan (a word may be a part of the name, its start or
        end, its plural, or a word the part shortens: "controller" for ctl). The words
        run to the end of their part of the sentence, and at least two of them must fit
        a host; when every one is read, one of them is a whole part of the name and one
        host fits, it is that host; else the hosts the words fit are asked about, never
        guessed. None when fewer than two words fit a host, or none fits them all."""
        tokens, end, fits, unread, whole, fitting = self.tokens, i, None, [], False, 0
        nouns, fitted = 0, ""
        while end < len(tokens) and _PLAIN.fullmatch(tokens[end].low) and (
                tokens[end].low not in _NOT_DESCRIBING) and not (
                end > i and self.request[tokens[end - 1].end:tokens[end].start].strip()):
            word = tokens[end].low
            if word in HOST_NOUNS or word in PLURALS:
                nouns += word in HOST_NOUNS
                end += 1
                continue
            hosts = self._hosts_by_part(word)
            if not hosts and end + 1 < len(tokens):  # "front office" of frontoffice
                hosts = self._hosts_by_part(word + tokens[end + 1].low)
                if hosts:
                    end += 1
            for part in PARTS.split(word) if not hosts and PARTS.search(word) else ():
                by_part = self._hosts_by_part(part)  # "mid-station": mid, station
                hosts = by_part if not hosts else hosts & by_part if by_part else hosts
                if not by_part:
                    unread.append(part)
            if hosts:
                fits = hosts if fits is None else fits & hosts
                whole = whole or bool(self._hosts_by_part(word, loose=False))
                fitting, fitted = fitting + 1, word
            elif not PARTS.search(word):
                unread.append(tokens[end].text)
            end += 1
        # one word ("in the log", "at boot") is no host's description, unless it is a
        # whole part of a name said with a word for one machine ("on the jump host", "on
        # the print server"); nor words that go on past a possessive ("the summit's cam")
        one = fitting == 1 and nouns == 1 and not unread and whole and (
            tokens[end - 1].low in HOST_NOUNS) and fitted not in _SAYS_WHICH_MACHINE
        if not fits or (fitting < 2 and not one) or (
                end < len(tokens) and tokens[end].low in ("'", "\u2019")):
            return None
        ordered = self._in_order_names(fits)
        said = self._said_at(i, end)
        if len(ordered) == 1 and not unread and whole and not (
                one and fitted in self.known.words):  # a whole part said: "valley"
            # (one word the catalogue knows, "the web server", is asked: maybe the role)
            return _Found([_Ref("host", ordered[0], f"{ordered[0]}, for “{said}”")], end,
                          sure=True)
        raise _Stop(_ask(f"“{said}” is no name in {self.names.where}; of its words, "
                         f"the hosts {_join(ordered)} fit." if len(ordered) > 1 else
                         f"“{said}” is no name in {self.names.where}. Did you mean "
                         f"{ordered[0]}?", tuple(ordered),
                         f"Say “on {ordered[0]}” if so."))

    def _hosts_by_part(self, word: str, *, loose: bool = True) -> set[str]:
        """The hosts a word describes by a part of their name (its first label's):
        the part itself or its plural, and where `loose`, its start or end ("lift" of
        liftctl, "cam" of snowcam), or a word a short part stands for ("controller" for
        ctl)."""
        if len(word) < 3 or word.isdigit() or word in _FUNCTION_WORDS:
            return set()
        found = set()
        for host in self.names.hosts:
            for part in PARTS.split(host.split(".", 1)[0].lower()):
                part = part.rstrip("0123456789")
                if len(part) < 2:
                    continue
                if word == part or part in plurals(word) or loose and any(
                        part.endswith(short) and word in long
                        for short, long in _SHORT_FOR.items()) or loose and (
                            len(part) >= 5 and (part.startswith(word) and len(word) >= 4
                                                or part.endswith(word))):
                    found.add(host)
        return found

    # -- the answer -------------------------------------------------------------------------
    def _chosen(self, places: list[_Clause], leaving: list[_Clause],
                pointing: list[tuple[int, int]]) -> Chosen:
        """The hosts the places hold, without those left out, as one list of the
        inventory's names. Hosts said in more than one place must be the same hosts ("the
        web tier is down… restart nginx on the web servers"), else it is asked: which of
        the request's words go with which hosts is not guessed."""
        chosen = self._hosts_of(places[0].refs)
        if any(self._hosts_of(c.refs) != chosen for c in places[1:]):
            raise _Stop(self._several_places(places))
        for clause in leaving:
            chosen -= self._hosts_of(clause.refs)
        wanted = list(places[0].refs)
        left_out = [r for c in leaving for r in c.refs]
        hosts = tuple(h for h in self.names.hosts if h in chosen)
        if all(r.kind == "host" and not r.within for r in wanted) and not left_out:
            named = ", ".join(hosts)  # the hosts themselves: the heading says them once
        elif any(r.kind == "all" for r in wanted):
            named = "all hosts"
        else:
            named = _join([_said(r) for r in _unique(wanted)])
        if left_out:
            named += " except " + _join([_said(r) for r in _unique(left_out)])
        if not hosts:
            raise _Stop(Unknown("", f"{named[0].upper()}{named[1:]} leaves no host in "
                                    f"{self.names.where}.", self._listing()))
        taken = [(c.start, c.end) for c in (*places, *leaving)] + pointing
        rest = self._rest(taken)
        said = tuple(self.request[self.tokens[a].start:self.tokens[b - 1].end]
                     for a, b in sorted(taken))
        if not WORD.search(rest.lower()):
            raise _Stop(_ask(f"What should I do on {', '.join(hosts)}?", (),
                             "Say it with the hosts: “restart nginx on web1”."))
        self._every_word_read(taken, leaving, chosen, hosts)
        reading = Chosen(pattern=self._pattern(hosts), hosts=hosts, named=named,
                         request=rest, taken=said)
        if self.here:
            raise _Stop(self._here_and_there(reading))
        return reading

    def _pattern(self, hosts: tuple[str, ...]) -> str:
        """The hosts as an Ansible pattern that names each ("web1,db1"), or "all" for
        every host: never a group expression, whose reading would be Ansible's, not the
        one shown. A host whose name Ansible would read as more than itself is refused,
        for every host too: the run names the hosts again (reos.fleet.running's limit)."""
        odd = [h for h in hosts if not _PLAIN.fullmatch(h)]
        if not odd and set(hosts) == set(self.names.hosts):
            return "all"
        if odd:
            raise _Stop(Unknown(odd[0], f"The host “{odd[0]}” in {self.names.where} has a "
                                        "name Ansible would not read as one host in a "
                                        "pattern (it holds a space or one of , : ! & * ? "
                                        "[ ] ~ @), so I will not choose it from words.",
                                "Give the hosts with --hosts PATTERN, or give the host a "
                                "plain name (letters, digits, . - _) in the inventory."))
        return ",".join(hosts)

    def _in_order_names(self, names: set[str]) -> list[str]:
        return [h for h in self.names.hosts if h in names]

    def _in_order(self, refs: Iterable[_Ref]) -> list[str]:
        chosen = self._hosts_of(refs)
        return [h for h in self.names.hosts if h in chosen]

    def _hosts_of(self, refs: Iterable[_Ref]) -> set[str]:
        chosen: set[str] = set()
        for ref in refs:
            chosen |= self._members(ref)
        return chosen

    def _members(self, ref: _Ref) -> set[str]:
        if ref.kind == "all":
            found = set(self.names.hosts)
        elif ref.kind == "group":
            found = set(self.names.groups.get(ref.name, ()))
        else:
            found = {ref.name}
        for group in ref.within:
            found &= self._members(group)
        return found

    def _leaving_alone(self, leaving: list[_Clause]) -> Asked | None:
        """Hosts left out with no hosts named to run on: "restart nginx except on db1".
        Nothing says the request is for the fleet, so it is asked; or it is this
        machine's when the names are the catalogue's words for software said of a set of
        things ("stop all containers except postgres", a host being called postgres)."""
        said = [self._said_at(c.start, c.end) for c in leaving]
        names = _unique_words([r.name for c in leaving for r in c.refs if r.kind != "all"])
        if not names:  # "except on all hosts": every host left out, none to run on
            return _ask(f"“{'; '.join(said)}” leaves every host of {self.names.where} out: "
                        "which should it run on?", ("name them: “… on web1”",
                                                    "or give them with --hosts PATTERN"), "")
        taken = [(c.start, c.end) for c in leaving]
        if not any(c.sure for c in leaving) and self._holds_many(taken) and all(
                name.lower() in self.known.words for name in names):
            return None
        what = _either(names, "and")
        return _ask(f"“{'; '.join(said)}” names {what} of {self.names.where}, but no "
                    "hosts to run on: do you mean every other host, or is "
                    f"{what} something on this machine?",
                    (f"every other host: say “… on all hosts {said[0]}”",
                     f"this machine: say what {names[0]} is (“the {names[0]} container”), "
                     "or give --hosts PATTERN for where it runs"), "")

    # -- every word read ------------------------------------------------------------------
    def _every_word_read(self, taken: list[tuple[int, int]], leaving: list[_Clause],
                         chosen: set[str], hosts: tuple[str, ...]) -> None:
        """Asks (raises) when a word not read as hosts could still say which hosts: a
        word that leaves out ("except", "other than", "off limits"), a "not", "never",
        "but" or "n't" next to words for hosts ("(not db1)", "never the db box"), or a
        name of the inventory that names other hosts than the chosen ("restart nginx
        everywhere, db1 not included"). The rest is planned on each host as it stands,
        so a word that changes where it runs must never be left in it. A host left out
        by a bare name ("except app1") while the rest speaks of a set of things ("stop all
        containers") could be one of those things: asked too."""
        for clause in leaving:
            if not clause.sure and self._holds_many(taken):
                words = self._said_at(clause.start, clause.end)
                names = _unique_words([r.name for r in clause.refs])
                raise _Stop(_ask(f"“{words}”: leave the host{'s' * (len(names) > 1)} "
                                 f"{_either(names, 'and')} out, or is {names[0]} one of "
                                 "the things the request names, on each host?",
                                 (f"the hosts: say “{words.split()[0]} on {names[0]}”",
                                  f"the thing: say what it is (“except the {names[0]} "
                                  "container”) and give --hosts PATTERN"), ""))
        kept = self._untaken(taken)
        starts = {a for a, _ in taken}
        tokens = self.tokens
        for start in sorted(starts):
            # "on the north branch machines": a word between a word of place and the
            # hosts read after it says which of them
            if tokens[start].low in PLACE | ABOUT | _WITHIN:
                # the hosts' own word of place: "in the firewall on proxy" is where the
                # rule is, but "on the two screens in Kelmouth" says which hosts there
                before = self._place_before(start, set(kept))
                if before is not None:
                    raise _Stop(self._not_read(taken, hosts, before[0], before[1],
                                               "say which hosts"))
                continue
            # back from the hosts to a word of place, over at most four words
            k, unread = start - 1, []
            while k >= 0 and start - k <= 4 and tokens[k].low not in PLACE and (
                    k in kept and (tokens[k].low.isalnum())):
                if tokens[k].low not in _DETERMINERS | EVERY:
                    unread.append(k)
                k -= 1
            if unread and k >= 0 and tokens[k].low in PLACE:
                first = min(unread)
                raise _Stop(self._not_read(taken, hosts, first, max(unread) + 1,
                                           "say which hosts"))
        for end in sorted({b for _, b in taken}):
            self._after_hosts(end, set(kept), taken, hosts)
        for n, k in enumerate(kept):
            if self._denies_at(k) and k + 1 in starts:
                # "restart nginx here, not of the web servers": the words right after a
                # "not" are hosts it leaves out, whatever the reading took them for
                raise _Stop(self._not_read(taken, hosts, k, k + 1, "leave hosts out"))
            length = self._leaving_word_at(k)
            if length:
                raise _Stop(self._not_read(taken, hosts, k, k + length, "leave hosts out"))
            if self.tokens[k].low == "else" and k in {b for _, b in taken}:
                # "on everything else", "everywhere else": but what was said before
                raise _Stop(self._not_read(taken, hosts, k, k + 1, "leave hosts out"))
            if self.tokens[k].low in _LEAVING_ALONE and self._said_after_hosts(k, taken):
                # "stop postgresql in db2, the db1 let it alone": said of the hosts before
                raise _Stop(self._not_read(taken, hosts, k, k + 1, "leave hosts out"))
            if self._denies_at(k) and self._hosts_near(kept, n):
                start, end = (k - 1, k + 2) if self.tokens[k].low == "'" and k else (k, k + 1)
                raise _Stop(self._not_read(taken, hosts, start, end, "leave hosts out"))
        ends = {b for _, b in taken}
        for n, k in enumerate(kept):
            if k in self.as_things:
                continue
            part = self._part_of_a_name(k) if k in ends else set()
            if part:  # "on k8s workrs": "workrs" is of the name k8s_workers, not the rest's
                said = _either(sorted(part))
                raise _Stop(self._not_read(taken, hosts, k, k + 1,
                                           f"be part of the name {said} in "
                                           f"{self.names.where}"))
            groups = self._groups_by_a_word_of_theirs(k, chosen)
            if groups and self._in_a_sentence_of(k, taken):
                # "reboot the gateways at saltmarsh": gateways is turbine_gateways's
                raise _Stop(self._not_read(
                    taken, hosts, k, k + 1,
                    f"be part of the name {_either(sorted(groups))} in {self.names.where}"))
            by_part = self._hosts_by_a_word_of_theirs(k)
            if by_part and by_part != chosen and self._in_a_sentence_of(k, taken):
                # "reboot the computer of the CCTV in Galway": cctv is cctv_galway's
                raise _Stop(self._not_read(
                    taken, hosts, k, k + 1,
                    f"name {_either(self._in_order_names(by_part))} in {self.names.where}"))
            named = self._name_left(kept, n, after_hosts=k in ends)
            if named and named >= chosen and self._told_of_before(k, taken):
                continue  # "The Gannet came back from dry dock. … on gannet-bridge.": the
                # story speaks of more hosts than the ask; never of some of them only
                # ("We are upgrading dock2. Restart nginx on the dock cluster.")
            if named is None or (named and named != chosen):
                said = _either(self._in_order_names(named)) if named else "two of its names"
                raise _Stop(self._not_read(taken, hosts, k, k + 1,
                                           f"name {said} in {self.names.where}"))

    def _after_hosts(self, end: int, kept: set[int], taken: list[tuple[int, int]],
                     hosts: tuple[str, ...]) -> None:
        """Asks (raises) when the words right after hosts read at `end` could still say
        which of them: words up to a host noun ("on the billing web servers": which
        billing hosts), a host noun or "ones" left over ("the production ones"; not one
        after a noun, "the k8s cluster nodes"), a number
        or a range ("on pump gws 1 thru 3", "pump-gw01 through 03"), or a word of place
        before a word the catalogue does not know ("every server at headquarters")."""
        tokens = self.tokens
        if end >= len(tokens) or end not in kept or self._breaks(end - 1, end):
            return
        k = end
        while k in kept and k - end < 4 and (k == end or not self._breaks(k - 1, k)):
            word = tokens[k].low
            after = tokens[k + 1].low if k + 1 < len(tokens) and k + 1 in kept else ""
            if self._noun(k) or word == "ones" or (word == "one" and after not in (
                    "at", "by", "after")):  # "the web one"; "one at a time" is how
                if k == end and self._noun(end - 1):
                    break  # "the k8s cluster nodes": the same hosts
                raise _Stop(self._not_read(taken, hosts, end, k + 1, "say which hosts"))
            some = self._hosts_by_label_part(word)
            if some and some != set(hosts):  # "on pump gw4": a word of some of their names
                raise _Stop(self._not_read(taken, hosts, end, k + 1, "say which hosts"))
            if self._numbered_like(word, hosts) or (
                    word in _RANGE and self._numbered_like(after, hosts)):
                # "on pump gws 1 thru 3", "pump-gw01 through 03": which of them
                raise _Stop(self._not_read(taken, hosts, end, k + 1 + bool(after),
                                           "say which hosts"))
            if not word.isalnum() or word in self.known.words:
                break
            k += 1
        tail = self._trailing_phrase(end, kept)
        if tail:  # "in the Kelmouth data room.": which of the Kelmouth hosts
            raise _Stop(self._not_read(taken, hosts, end, tail, "say which hosts"))
        word = tokens[end].low
        if word in PLACE:
            k = end + 1
            while k < len(tokens) and k in kept and tokens[k].low in _DETERMINERS:
                k += 1
            if k < len(tokens) and k in kept and tokens[k].low.isalpha() and (
                    tokens[k].low not in self.known.words | _FUNCTION_WORDS | _TIMES):
                raise _Stop(self._not_read(taken, hosts, end, k + 1, "say which hosts"))

    def _told_of_before(self, k: int, taken: list[tuple[int, int]]) -> bool:
        """Whether the word at `k` is in a sentence of the story told before the ask:
        another sentence than any hosts read, before each of them, each of them placed by
        a word of place ("… on web1 and web2"), and nothing in its sentence leaves out,
        denies or spares ("We had a complaint about the booking page. … Can you restart
        nginx on web1?"; never "Leave db1 alone. Restart nginx everywhere.")."""
        if self._in_a_sentence_of(k, taken) or not all(
                k < a and self.tokens[a].low in PLACE for a, _ in taken):
            return False
        lo, hi = k, k
        while lo > 0 and not _SENTENCE_END.search(
                self.request[self.tokens[lo - 1].end:self.tokens[lo].start]):
            lo -= 1
        while hi + 1 < len(self.tokens) and not _SENTENCE_END.search(
                self.request[self.tokens[hi].end:self.tokens[hi + 1].start]):
            hi += 1
        return k > lo and self.tokens[k - 1].low not in PLACE and not any(
            self._denies_at(m) or self._leaving_word_at(m)
            or self.tokens[m].low in _LEAVING_ALONE | NEGATING | _KEEPING
            for m in range(lo, hi + 1))

    def _place_before(self, start: int, kept: set[int]) -> tuple[int, int] | None:
        """The words of a place said right before the hosts' own word of place at
        `start` ("on the two screens in Kelmouth"), when one of them is a host noun or
        no word of the catalogue (not "in the firewall on proxy", "on port 80 on web1"),
        as (first, end); None otherwise."""
        tokens, k, words = self.tokens, start - 1, []
        while k >= 0 and start - k <= 5 and k in kept and not self._breaks(k, k + 1) and (
                tokens[k].low not in PLACE):
            if not tokens[k].low.isalnum():
                return None
            if tokens[k].low not in _DETERMINERS | EVERY and not tokens[k].low.isdigit() and (
                    tokens[k].low not in self.known.numbers):
                words.append(k)
            k -= 1
        if k < 0 or tokens[k].low not in PLACE - WEAK_PLACE or not words:
            return None
        if any(self._noun(m) or (tokens[m].low not in self.known.words
                                 and tokens[m].low not in self.things) for m in words):
            return min(words), max(words) + 1
        return None

    def _trailing_phrase(self, end: int, kept: set[int]) -> int:
        """The end of the words that end the sentence right after the hosts read at
        `end`, when they are at most three words of letters and the last is a noun of a
        place within a site (`_PLACE_NOUNS`: "Kelmouth data room", "Brisk terminal
        building"); 0 when there are none, when a word could begin something else (a
        word of place, "please", a time), or they go on past a pause ("on web1 ufw" and
        "on web1 pronto" are the request's)."""
        tokens, k = self.tokens, end
        while k < len(tokens) and k in kept and k - end < 4 and (
                k == end or not self._breaks(k - 1, k)):
            word = tokens[k].low
            if not word.isalpha() or word in _SENTENCE_ENDS or word in _FUNCTION_WORDS or (
                    word in _DETERMINERS or word in PLACE or word in ABOUT or word in _TIMES
                    or word in _SEPARATORS or word.endswith("ly")):
                return 0
            k += 1
        if k == end or k - end > 3 or (k < len(tokens) and not self._breaks(k - 1, k)):
            return 0
        last = tokens[k - 1].low
        return k if last in _PLACE_NOUNS or last.removesuffix("s") in _PLACE_NOUNS else 0

    def _numbered_like(self, word: str, hosts: tuple[str, ...]) -> bool:
        """Whether `word` is a number some host is named with, beside the letters of one
        of `hosts` ("03" or "3" of pump-gw03 after pump-gw01): "to 10" of a setting, "2
        times", "to 65536" are not."""
        number = _no_zeros(word) if word.isdigit() else ""
        if not number:
            return False
        said = {letters(h) for h in hosts}
        for host in self.names.hosts:
            found = _TRAILING_NUMBER.search(host.split(".", 1)[0])
            if found and letters(host) in said and _no_zeros(found.group(0)) == number:
                return True
        return False

    def _hosts_by_label_part(self, word: str) -> set[str]:
        """The hosts a part of whose first label `word` is, between separators, with or
        without its number, zeros or plural s: "gw4" and "gws" of pump-gw04, "web" of
        bill-web01. Empty for a word of one letter or a number."""
        if len(word) < 2 or word.isdigit() or not word.isalnum():
            return set()
        said = {_no_zeros(word), _no_zeros(word[:-1]) if word.endswith("s") else word}
        found: set[str] = set()
        for host in self.names.hosts:
            for part in PARTS.split(host.split(".", 1)[0].lower()):
                if part and (_no_zeros(part) in said or (
                        part.rstrip("0123456789") in said and part[-1:].isdigit())):
                    found.add(host)
        return found

    def _in_a_sentence_of(self, k: int, taken: list[tuple[int, int]]) -> bool:
        """Whether the word at `k` is in the sentence of words read as hosts (a story's
        other sentences speak of other things)."""
        for a, b in taken:
            lo, hi = (k, a) if k < a else (b - 1, k)
            if not any(_SENTENCE_END.search(self.request[self.tokens[m].end:
                                                         self.tokens[m + 1].start])
                       for m in range(lo, hi)):
                return True
        return False

    def _hosts_by_a_word_of_theirs(self, k: int) -> set[str]:
        """The hosts the word at `k` is a word of the name of (its first label's:
        "cctv" of cctv_galway, "nas" of nas01 and nas02, in the singular or plural),
        when the catalogue does not read the word; empty otherwise."""
        word = self.tokens[k].low
        if (len(word) < 3 or not word.isalpha() or word in self.known.words
                or word in _FUNCTION_WORDS or word in _DETERMINERS):
            return set()
        said = {word, *plurals(word)} | ({word[:-1], word[:-2]} if word.endswith("s") else
                                          set())
        found: set[str] = set()
        for host in self.names.hosts:
            label = host.split(".", 1)[0].lower()
            words = {p for p in PARTS.split(label) if p}
            words |= {m[1] for m in [_FAMILY.fullmatch(label)] if m}
            if said & words:
                found.add(host)
        return found

    def _groups_by_a_word_of_theirs(self, k: int, chosen: set[str]) -> set[str]:
        """The groups of names of several words ("turbine_gateways") the word at `k` is a
        word of (of four letters or more, as written or in the plural or singular, never
        a verb), whose hosts are not the ones read: "the gateways at saltmarsh" may mean
        the turbine gateways there."""
        word = self.tokens[k].low
        if len(word) < 4 or not word.isalpha() or word in self.known.verbs or (
                word in THING_NOUNS or word.rstrip("s") in THING_NOUNS):
            return set()  # "the chrony service on …" with a group core_services
        # the last word of the group's name, as written ("gateways" of turbine_gateways),
        # the noun it is a group of; never another word of it ("restart nginx on web1"
        # beside a group nginx_proxies, "show the worker logs" beside gpu_workers)
        return {name for name in self.groups.values()
                if [p for p in PARTS.split(name.lower()) if p][-1:] == [word]
                and len([p for p in PARTS.split(name.lower()) if p]) > 1
                and set(self.names.groups[name]) != chosen}

    def _part_of_a_name(self, k: int) -> set[str]:
        """The names of several words ("k8s_workers") the word at `k` is a word of, said
        as written, in the plural or singular, or one letter off ("workrs")."""
        word = self.tokens[k].low
        found: set[str] = set()
        for part, names in self.parts.items():
            if word == part or part in plurals(word) or word in plurals(part) or (
                    len(word) >= 4 and one_letter_off(word, part)):
                found |= names
        return found

    def _leaving_word_at(self, k: int) -> int:
        """How many tokens a word that leaves out takes at `k` (0: none): "except",
        "excluding", "other than", "off limits"… but not "but", "skip" or "without" alone,
        which `_denies_at` weighs by the words around them."""
        for phrase in LEAVING_OUT:
            words = phrase.split()
            if [t.low for t in self.tokens[k:k + len(words)]] == words:
                return len(words)
        return 0

    def _denies_at(self, k: int) -> bool:
        """A word that can deny or leave out, depending on what it is said of: "not",
        "never", "no", "but", "n't" ("aren't": its "'" before "t")."""
        word = self.tokens[k].low
        if word == "'" and k + 1 < len(self.tokens) and self.tokens[k + 1].low == "t":
            return True
        return word in DENYING or (word.endswith("nt") and word[:-2] in _NOT_VERBS)

    def _hosts_near(self, kept: list[int], n: int) -> bool:
        """Whether a word that could mean hosts stands near the denying word at kept[n],
        in its part of the sentence (up to a comma, a full stop or a bracket, or words
        read as hosts): "(not db1)", "never the database box", "aren't in prod",
        "leaving the others out". "not running", "if it's not too much trouble" are
        not."""
        near: list[int] = []
        for step, reach in ((1, NEAR_AFTER), (-1, NEAR_BEFORE)):
            m = n
            while 0 <= m + step < len(kept) and abs(m + step - n) <= reach:
                a, b = sorted((kept[m], kept[m + step]))
                if b != a + 1 or self._breaks(a, b):
                    break
                m += step
                near.append(kept[m])
        return any(self._could_be_hosts(k) for k in near)

    def _part_around(self, start: int, end: int) -> tuple[int, int]:
        """The tokens of the part of the sentence around start..end: up to a comma, a
        full stop or a bracket, at most six words each way."""
        while start > 0 and end - start < 12 and not self._breaks(start - 1, start):
            start -= 1
        while end < len(self.tokens) and end - start < 12 and not self._breaks(end - 1, end):
            end += 1
        return start, end

    def _said_after_hosts(self, k: int, taken: list[tuple[int, int]]) -> bool:
        """Whether the word at `k` is said of the hosts read just before it: after them
        in the same part of the sentence, with only words that point back at them
        between ("db1 let it alone", "db2, leave that one be"), not another object
        ("web1 and leave apache alone")."""
        return any(0 < k - (end - 1) <= NEAR_BEFORE and not any(
            self._breaks(m, m + 1) for m in range(end - 1, k)) and all(
            self.tokens[m].low in _POINTING_BACK for m in range(end, k))
            for _, end in taken)

    def _breaks(self, a: int, b: int) -> bool:
        """Whether the sentence breaks between the tokens a and b (b = a + 1): a comma,
        a full stop, a bracket, a dash."""
        return self.tokens[a].low in _MARKS or self.tokens[b].low in _MARKS or bool(
            _BOUNDARY.search(self.request[self.tokens[a].end:self.tokens[b].start]))

    def _could_be_hosts(self, k: int) -> bool:
        """A word that names or points at hosts, read generously: a name, a group's
        plural, stem or truncation ("prod"), a host-like name ("db2"), a glob, a host or
        group noun, a word of place, "everything", or a word for some of them ("the
        ones", "the others")."""
        word = self.tokens[k].low
        if word in self.hosts or word in self.groups or word in self.clashes:
            return True
        if word in PLACE or word in EVERY_HOST or word in _POINTING or self._noun(k):
            return True
        if ("*" in word or "?" in word) and any(c.isalnum() for c in word):
            return True
        if any(c.isdigit() for c in word) and letters(word) in {
                letters(low) for low in self.hosts}:
            return True
        if word in self.stems or (word.endswith("s") and word[:-1] in self.groups):
            return True
        return word.isalpha() and len(word) >= 3 and any(
            self._truncates(word, low) for low in self.groups)

    def _name_left(self, kept: list[int], n: int, *, after_hosts: bool = False) -> set[str] | None:
        """The hosts a name not read as hosts names ("db1" in "…, db1 not included", "web
        1" said apart, a host or a group), an empty set for a word that names none, None
        for one that names more than one thing ("web" for a host and a group). Right
        after the hosts read (`after_hosts`), a name said with other separators too
        ("on everything guest-facing"); elsewhere that is a package's or a file's name
        ("install node-exporter on web1" beside a group node_exporter)."""
        k = kept[n]
        word = self.tokens[k].low
        if word in self.clashes:
            return None
        following = self.tokens[k + 1].low if n + 1 < len(kept) and kept[n + 1] == k + 1 \
            else ""
        joined = self._host_said_apart(word, following) if following.isdigit() else None
        if joined:
            return {joined}
        host, group = self.hosts.get(word), self.groups.get(word)
        if not (host or group) and after_hosts and word.isalpha() and len(word) >= 4:
            group = next((self.groups[p] for p in sorted(plurals(word))
                          if p in self.groups), None)  # "the Millbrook historian"
        if not (host or group) and after_hosts and "-" in word:
            # "on everything public-facing" beside a group public: its hosts, maybe
            parts = [self.hosts.get(w) or self.groups.get(w) for w in word.split("-")]
            host, group = next(((name, None) if name in self.names.hosts else (None, name)
                                for name in parts if name), (None, None))
        if not (host or group) and after_hosts:
            respelled = self.respelled.get(_spelling(word), set())
            if len(respelled) > 1:
                return None
            for kind, name in respelled:  # "guest-facing" of the group guest_facing
                host, group = (name, None) if kind == "host" else (None, name)
        if host and group and set(self.names.groups[group]) != {host}:
            return None
        return {host} if host else self._members(_Ref("group", group)) if group else set()

    def _not_read(self, taken: list[tuple[int, int]], hosts: tuple[str, ...], start: int,
                  end: int, could: str) -> Asked:
        """The question when words not read as hosts could still say which hosts."""
        read = "; ".join(f"“{self._said_at(a, b)}”" for a, b in sorted(taken))
        word = self._said_at(start, end)
        around = self._said_at(*self._part_around(start, end))
        within = f" (in “{around}”)" if around != word else ""
        return _ask(f"I read {read} as {', '.join(hosts)}, but not “{word}”{within}, "
                    f"which could {could}. I will not run it on hosts that may not be the "
                    "ones you mean.",
                    ("say the hosts once, in one place: “restart nginx on all hosts "
                     "except db1”", "or give them with --hosts PATTERN"), "")

    def _holds_many(self, taken: list[tuple[int, int]]) -> bool:
        """Whether the words not read as hosts speak of a set of things ("all containers",
        "every service", "the packages"), which a name left out could be one of."""
        kept = self._untaken(taken)
        for k in kept:
            word = self.tokens[k].low
            if word in EVERY or word in ("everything", "anything"):
                return True
            if word in self.things and (word[:-1] in self.things or word[:-2] in self.things):
                return True
        return False

    def _untaken(self, taken: list[tuple[int, int]]) -> list[int]:
        """The tokens not read as hosts, in order."""
        inside = {k for a, b in taken for k in range(a, b)}
        return [k for k in range(len(self.tokens)) if k not in inside]

    def _several_places(self, places: list[_Clause]) -> Asked:
        """Hosts said in two places that are not the same hosts: "stop cron on the db
        server and restart nginx on the web servers"."""
        each = [f"“{self._said_at(c.start, c.end)}”: {', '.join(self._in_order(c.refs))}"
                for c in places]
        return _ask(f"The request names hosts in {len(places)} places ({'; '.join(each)}), "
                    "and I will not guess which of its words go with which hosts.",
                    ("ask for each on its own, with its hosts: “restart nginx on the web "
                     "servers”", "or give the hosts with --hosts PATTERN"), "")

    def _said_at(self, start: int, end: int) -> str:
        return self.request[self.tokens[start].start:self.tokens[end - 1].end]

    def _rest(self, taken: list[tuple[int, int]]) -> str:
        """The request without the words read as hosts, its punctuation tidied."""
        text, cut = self.request, 0
        pieces = []
        for a, b in sorted(taken):
            pieces.append(text[cut:self.tokens[a].start])
            cut = self.tokens[b - 1].end
        pieces.append(text[cut:])
        rest = " ".join(" ".join(pieces).split())
        rest = _SPACE_BEFORE.sub(r"\1", rest)
        rest = _REPEATED.sub(r"\1", rest)
        rest = _DANGLING.sub(r"\1", rest)  # "restart nginx and" once its hosts are cut
        return rest.strip(" ,;:")

    def _about_hosts(self, start: int, found: _Found) -> Asked:
        """Hosts after "from", "to", "for"…: where to run, or what the request is about?"""
        end = self.tokens[found.end - 1].end
        said = self.request[self.tokens[start].start:end]
        phrase = self.request[self.tokens[start + 1].start:end]
        hosts = ", ".join(self._in_order(found.refs))
        return _ask(f"“{said}”: should this run on {hosts}, or are they what it is about "
                    "(where traffic comes from or goes to, say)?",
                    (f"on {hosts}: say it with “on {phrase}”",
                     "about them: give --hosts PATTERN for where it runs"), "")

    def _leaves_out_what(self, start: int, names: int) -> Asked:
        """An exclusion right after hosts that names none: the hosts before it may not be
        the inventory's at all ("block all hosts except 10.0.0.5" is a firewall's)."""
        end = names
        while end < len(self.tokens) - 1 and self.tokens[end].low in _DETERMINERS:
            end += 1
        end = min(len(self.tokens), end + 1)
        said = self.request[self.tokens[start].start:self.tokens[end - 1].end]
        return _ask(f"“{said}” names no host or group of {self.names.where}, so I am not "
                    f"sure the hosts before it are its hosts.",
                    (f"the hosts of {self.names.where}: name the ones to leave out "
                     "(“except db1”)", "something else: give --hosts PATTERN to say where "
                     "it runs"), "")

    def _bare_question(self, bare: list[str]) -> Asked:
        names = _unique_words(bare)
        one = len(names) == 1 and not _SPAN.search(names[0]) and not (
            set(names[0].lower().split()) & _SPANNING)  # "tills 3-5" names three
        return _ask(f"{_either(names, 'and')} {'is a host' if one else 'are hosts'} in "
                    f"{self.names.where}: do you mean on {'that host' if one else 'those hosts'}"
                    ", or something called so on this machine?",
                    (f"on {', '.join(names)}: say “… on {', '.join(names)}”",
                     f"on this machine: say what {names[0]} is (“the {names[0]} "
                     "container”)"), "")

    def _unknown(self, word: str) -> Unknown:
        return Unknown(word, f"There is no host or group called {word} in "
                             f"{self.names.where}.", self._listing())

    def _listing(self) -> str:
        hosts = _listed(list(self.names.hosts))
        groups = _listed(sorted(self.groups.values()))
        return (f"Its hosts: {hosts}" + (f"; its groups: {groups}." if groups else ".")
                + " `reos hosts` lists them.")

    def _a_group(self) -> str:
        return (self.group_names or ["web"])[0]

    def _group_words(self, group: str) -> str:
        return f"the group {group}: {', '.join(self.names.groups[group])}"


def several_asks(chosen: Chosen, asks: list[str]) -> Asked:
    """The question for a request that names hosts and asks for several things ("reboot
    this machine and restart nginx on the web servers"): hosts said once may be meant
    for one ask or for all, and which is never guessed."""
    said = "; ".join(f"“{ask}”" for ask in asks)
    read = "; ".join(f"“{words}”" for words in chosen.taken)
    return _ask(f"I read {read} as {', '.join(chosen.hosts)}, but the request asks for "
                f"{len(asks)} things ({said}), and I will not guess which of them are for "
                "those hosts.",
                (f"ask for each on its own, with its hosts: “{asks[-1]}”",
                 "or give the hosts with --hosts PATTERN"), "")


# -- words --------------------------------------------------------------------------------
def _slipped(typed: str, meant: str) -> bool:
    """Whether `typed` is `meant` with one letter left out or two neighbours swapped: the
    slips that seldom make another English word (a letter changed often does: "nodes" and
    "noses")."""
    if len(typed) == len(meant) - 1:
        return any(meant[:i] + meant[i + 1:] == typed for i in range(len(meant)))
    if len(typed) == len(meant):
        wrong = [i for i in range(len(meant)) if typed[i] != meant[i]]
        return len(wrong) == 2 and wrong[1] == wrong[0] + 1 and (
            typed[wrong[0]] == meant[wrong[1]] and typed[wrong[1]] == meant[wrong[0]])
    return False


def _ask(question: str, choices: tuple[str, ...], hint: str) -> Asked:
    lines = [question]
    lines += [f"  {n}. {choice}" for n, choice in enumerate(choices, start=1)]
    if hint:
        lines.append(hint)
    return Asked("\n".join(lines), choices)


def _no_zeros(word: str) -> str:
    """`word` with the zeros that lead each of its numbers left out: gw04 -> gw4."""
    return _LEADING_ZEROS.sub("", word)


def _spelling(word: str) -> tuple[str, ...]:
    """A name's runs of letters and of digits, whatever separates them, and each number
    without the zeros before it: snowcam_peak and snowcam-peak, kiosk-2 and kiosk2,
    ofc-dc01 and ofc-dc1 are spelled alike. All of the word: web1.stage is no web-1,
    radius1.log no radius1."""
    return tuple(run.lstrip("0") or "0" if run.isdigit() else run
                 for run in _RUNS.findall(word.lower()))




# several words that join names as "and" does: "on web1 as well as web2"
_JOINING = (("as", "well", "as"), ("along", "with"), ("together", "with"),
            ("in", "addition", "to"), ("but", "also"))
# a dash between a name said first and the rest: "web1 - restart nginx", "web1 — …"
_LEAD_DASH = regex(r"\s*[\u2013\u2014]\s*|\s+-{1,2}\s+")


def _joined(tokens: list[_Token]) -> list[_Token]:
    """`tokens` with each run of words that joins as "and" does (`_JOINING`) made one
    token read as "and", which spans them all (so the rest loses them with the names)."""
    out: list[_Token] = []
    i = 0
    while i < len(tokens):
        for words in _JOINING:
            if tuple(t.low for t in tokens[i:i + len(words)]) == words:
                last = tokens[i + len(words) - 1]
                out.append(_Token(" ".join(words), "and", tokens[i].start, last.end))
                i += len(words)
                break
        else:
            out.append(tokens[i])
            i += 1
    return out










def _by_word(names: list[str], kind: str) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Each name by its lowercase word, and the words two or more names share ("WEB" and
    "web"), each with those names said ("the group WEB")."""
    by_word: dict[str, list[str]] = {}
    for name in names:
        by_word.setdefault(name.lower(), []).append(name)
    single = {word: found[0] for word, found in by_word.items() if len(found) == 1}
    shared = {word: [f"the {kind} {name}" for name in found]
              for word, found in by_word.items() if len(found) > 1}
    return single, shared


def _unique(refs: list[_Ref]) -> list[_Ref]:
    seen: dict[tuple[str, str, tuple[str, ...]], _Ref] = {}
    for ref in refs:
        seen.setdefault((ref.kind, ref.name, tuple(w.name for w in ref.within)), ref)
    return list(seen.values())


def _said(ref: _Ref) -> str:
    """A name as the heading says it: "group web in group production"."""
    said = ref.said or ref.name
    if ref.within:
        said += " in " + _join([_said(w) for w in ref.within])
    return said


def _unique_words(words: list[str]) -> list[str]:
    return list(dict.fromkeys(words))


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _either(items: list[str], word: str = "or") -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {word} {items[-1]}"


def _listed(items: list[str], most: int = 12) -> str:
    if len(items) > most:
        return f"{', '.join(items[:most])} and {len(items) - most} more"
    return ", ".join(items)


# a host's name as several hosts share it, and its own mark: lb-1, api01, cache_a, node-b
_FAMILY = regex(r"([a-z][a-z0-9_-]*?[a-z])(?:[-_]?[0-9]+|[-_][a-z])")
