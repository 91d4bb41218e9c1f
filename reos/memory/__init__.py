"""Memory: what reos keeps about its own work, and what it answers from it.

`keeping` is the engine's one door to it (the audit trail, the knowledge base, "why did
you …?", reflection's findings); `audit` builds a request's reasoning chain, `audit_text`
prints one, `redact` makes what is kept safe and bounded, `recall` answers "why did you
…?" from plain records, `reflection` holds the rules that turn outcomes into findings.

Not responsible for storing anything (reos.store does) or for deciding anything about a
plan. Imports nothing: each module is imported by name.
"""
