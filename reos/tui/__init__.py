"""The full-screen Textual chat. Widgets post messages; a worker thread calls the engine.

Never runs subprocesses, docker or ollama itself.
"""
