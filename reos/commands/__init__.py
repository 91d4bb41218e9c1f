"""One module per CLI command: each takes parsed options, calls the engine, prints.

Both the typer app (`reos.cli`) and its fast path call these, so option meaning lives
in one place. No business logic here: that is the engine's.
"""
