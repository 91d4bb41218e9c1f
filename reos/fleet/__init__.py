"""Other machines, reached through Ansible: ansible-core's own code, never a home-made SSH
loop.

This first slice reads the person's Ansible inventory and chooses hosts from it with
Ansible's own patterns (`inventory.py`, shown by `reos hosts`). Not responsible, yet, for
anything on those hosts: no snapshots of them, no plans for them, nothing run on them
(ansible-runner will), no undo there.
"""
