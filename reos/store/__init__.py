"""Persistence: the SQLite database, its migrations, and the journal of what reos did.

Knows nothing about the UI or about how requests are understood.
"""
