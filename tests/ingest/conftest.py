"""The CLI fixture (a fresh SQLite database, the built-in plugins) for the ingest tests."""

from __future__ import annotations

from tests.cli.conftest import cli, cli_registry

__all__ = ["cli", "cli_registry"]
