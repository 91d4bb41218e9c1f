"""Answers: the output of read-only commands, put into plain words, one module a domain.

`common` holds the host's everyday answers and ANSWERS, the table of every summariser by
name, which it fills from each domain's own table (`certs`, `desktop`, `disks`, `gpu`,
`mail`, `net`, `packages`, `processes`, `settings`, `users`) on import.

Not responsible for running the commands (reos.execution) or for choosing which to run
(the plan builder). Imports nothing: each module is imported by name.
"""
