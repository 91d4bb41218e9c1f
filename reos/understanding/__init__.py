"""Understanding: a request's words -> an Intent (what is asked, of which things).

`reading` is the entry: it reads a request through the catalogue parser (`parser`, with
`tagging`, `idioms`, `moments`; `scoring`, with `slot_words` and `target_words`, scores
one operation into an `evidence.Reading`, weighed by `evidence.Weight`), in parts
(`parts`), by its asking sentence (`stories`), or as a typed command line (`typed`);
`slots` checks the values a request gives; `matcher` (with `identity` and `facts`) finds
which real things the words name in the snapshot; `names` says what a name must look
like; `perception` reads whole utterances (undo, yes, no), `choice` the answer to a
question, `followup` a revision of a waiting plan; `hosts` the hosts and groups of an
Ansible inventory a request names ("on the web servers"), from names handed in.

Not responsible for the catalogue itself (reos.catalogue), for deciding which targets a
plan acts on or building its steps (reos.planning), or for running anything. Imports
nothing: each module is imported by name.
"""
