"""Execution: running approved plans as argv, journaled, bounded, and undoable.

Never interprets natural language and never decides what a plan should be.
"""
