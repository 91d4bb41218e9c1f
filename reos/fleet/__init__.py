"""Other machines, reached through Ansible: ansible-core's own code and ansible-runner,
never a home-made SSH loop.

What is here: the person's Ansible inventory and the hosts Ansible's patterns choose
from it (`inventory.py`, shown by `reos hosts`); running tasks on those hosts through
ansible-runner, a change in canary batches (`running.py`); whether each answers and lets
reos act as root (`reach.py`, `reos hosts --check`); each host's snapshot, read by reos's
own collectors (`snapshots.py`); what may run on each host, with each change's prior
state and undo (`deciding.py`); a plan's steps run there, journaled and undone
(`changing.py`); what they would do there, predicted read only (`predicting.py`, `reos
plan --dry-run --hosts`). Not responsible for reading requests or planning (the same
engine plans for each host), nor for printing (reos/commands/hosts.py, fleet_plan.py; the
chat's hosts panel).
"""
