"""Words: what reos says, in natural sentences, for every surface.

`conversation` says plans, notes and undo reports in the session's voice (verbosity,
`show_commands`); `replies` says what reos says when it does not plan (questions with
numbered choices, "not understood", the tour); `narrate` words the events of a run;
`listings` and `answers` put the output of read-only commands into plain words.

Produces text only: not responsible for deciding anything (when to ask is the
understanding's and the plan builder's), for running anything, or for drawing it (the
CLI and the chat do). Imports nothing: each module is imported by name.
"""
