"""The LLM understander: an Ollama model reading requests in the catalogue's terms.

- `understander.py`: when to ask the model, one call plus at most one repair, the fallback.
- `prompt.py`: the rules, the catalogue, this machine's facts, the last turns; in budget.
- `schema.py`: the JSON schema of an answer, generated from the operation catalogue.
- `validate.py`: the answer checked against the catalogue and the snapshot, never trusted.
- `session.py`: the model's side of one conversation (whether to ask it, its state), and
  `turns.py`: one earlier exchange of it, for pronouns and follow-ups.
- `client.py`: the only module that imports `ollama` (lazily); errors in plain words.
- `status.py`: what `reos doctor` says about the server and the model.

Nothing here runs commands or changes the machine; a model's answer becomes an Intent
that the plan builder, the risk engine and the gate treat like any other.
"""
