"""Knowing the machine: what containers, services and packages exist right now.

Collects facts into a `SystemSnapshot`; never changes anything on the machine.
"""
