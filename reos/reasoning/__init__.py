"""Reasoning: from words to a plan, against a snapshot of the machine.

Pure: reads the snapshot and templates, never runs commands or writes files.
"""
