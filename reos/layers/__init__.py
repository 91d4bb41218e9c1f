"""Layer placement verification (`reos layers`): which layer each module of a Python
codebase belongs to, and whether its imports and its code fit that layer.

The pieces: `docstrings` reads what a module says it is (and is not) responsible for,
`infer` guesses a layer from a path when no docstring says, `contract` loads the rules
(a TOML file), `graph` builds the import graph with grimp, `check` gives the verdicts.

Not responsible for printing (reos.commands.layers is) or for anything reos does to a
machine: nothing here imports the rest of reos but `reos.errors`, and nothing outside
`reos layers` imports this package, so `reos plan` never pays for grimp.
"""
