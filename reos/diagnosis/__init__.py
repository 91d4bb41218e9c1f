"""Diagnosis: evidence first, then an answer or steps for approval.

`boot` turns `systemd-analyze blame` into a plan that disables only units both slow and
safe to switch off; `investigate` runs a deep diagnosis ("why is X failing?") in bounded
rounds of read-only probes, with claims that cite the evidence.

Not responsible for running the probes (the engine passes them through the gate) or for
asking a model (reos.llm.diagnose). Imports nothing: each module is imported by name.
"""
