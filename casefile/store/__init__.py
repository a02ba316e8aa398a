"""Storage: the event store (SQLite or PostgreSQL through SQLModel) and cases on disk."""
