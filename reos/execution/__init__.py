"""Execution: running approved plans as argv, journaled, bounded, and undoable.

Never interprets natural language and never decides what a plan should be.
"""


def ignore(_event: object) -> None:
    """The event sink that shows nothing, the default everywhere. Kept here rather than in
    `events` so that `reos plan`, which runs nothing, never defines the event types."""
    return None
