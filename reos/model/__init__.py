"""The records every layer shares: a request's meaning, its plan, and what running it came to.

Each record is imported from the module that defines it (`from reos.model.plan import
Plan`); this package holds nothing itself and re-exports nothing:

- `risk`: RiskLevel, the scale the safety rules judge commands on.
- `request`: what a request means (Kind, Intent), how it was read (Understood) and the
  question asked instead of a plan (Asking, its Options).
- `target`: what on the machine a request resolved to (Target), and Keyed, the records
  equal and hashed by their key alone.
- `plan`: what reos would do: Plan, Step, Traced, Shown, renumbered, and a command in
  words (render, restarts, RESTARTS, step_words). `Plan.to_dict` is `reos.plan/1`.
- `report`: what running or undoing a plan came to: StepResult, ExecutionReport,
  StopReason, GateVerdict, UndoReport, UndoneStep.
- `events`: what the engine and the executor emit while they work (StepStarted, Stage…).

Pure data with no behaviour beyond serialisation and its own words. risk, request and
target import nothing of reos, plan imports them, report imports plan and events both:
nothing of reos outside reos.model, so every layer can use them. Not responsible for
making, judging or running any of them.
"""
