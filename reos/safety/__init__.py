"""Safety: judging commands (risk, blocked patterns) before anything runs.

Decides how dangerous a command is and whether it may run at all; never decides what
the user meant and never runs anything.
"""
