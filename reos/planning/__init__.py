"""Planning: an Intent and a snapshot of the machine -> a Plan of argv steps to approve.

`planner` is the plan builder: it finds the real targets (`targeting`, `selection`,
`named`, with `guards` for what no plan may touch), fills the catalogue's recipes with
them (`filling`: the steps, their risk and rollback), and handles conditions
(`conditions`), commands no operation covers (`proposed`), freeing disk space
(`cleanup`), where a firewall rule goes (`firewall_rules`), the steps a machine without
systemd cannot run (`init_system`), the amendments from what this machine says (`amend`)
and the plan's quality (`quality`, `quality_commands`).

Not responsible for reading the words (reos.understanding), for running, approving or
undoing a plan (the engine and reos.execution), or for asking a model. Imports nothing:
each module is imported by name.
"""
