"""One module per CLI command: each takes parsed options, calls the engine, prints.

`reos.cli` parses the command line and calls these, so what an option does lives in
one place. No business logic here: that is the engine's.
"""
