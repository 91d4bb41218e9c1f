"""Other machines, reached through Ansible: ansible-core's own code and ansible-runner,
never a home-made SSH loop.

So far: the person's Ansible inventory and the hosts Ansible's patterns choose from it
(`inventory.py`, shown by `reos hosts`); running tasks on those hosts through
ansible-runner (`running.py`); whether each answers and lets reos act as root
(`reach.py`, `reos hosts --check`). Not responsible, yet, for snapshots of those hosts,
plans for them, running recipes there, nor undo there.
"""
